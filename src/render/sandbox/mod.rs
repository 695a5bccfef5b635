//! Programs of the study's run in a child process, under limits. A Typst
//! template is a program, and so are Tera templates: either can loop for
//! hours or ask for 40 GB, and an allocation that fails aborts the process it
//! runs in. So the `report` binary runs such a [`Job`] in a copy of itself
//! (`report __typeset` or `report __render`, started by [`run`]) with its
//! address space limited (`RLIMIT_AS`, set by `sh`'s `ulimit -v` before the
//! `exec`) and killed after a deadline; the job's input goes in on standard
//! input and its answer comes back on standard output, both as CBOR through
//! serde ([`run`] and [`answer`]: the one framing of every child). Whatever
//! happens in the child, the build ends with an error that names the cause
//! ([`Cause`]); the caller, which knows what the job was given, says what
//! to look at.
//!
//! On Windows (no `sh`, no `RLIMIT_AS`) the child is started directly: the
//! deadline holds, but its memory is not limited, so a template that asks
//! for 40 GB makes the machine swap until the deadline or until the
//! allocation fails, which still aborts only the child. A crash is told by
//! its exception code (0xC0000409 for an abort) where Unix has a signal.
//!
//! Only a process that called [`enter`] works this way; library callers that
//! did not (the tests of the library) run every job in-process.
//!
//! Starting a child and loading what its job needs (the paper's fonts and
//! citation locales, about 150 ms) need not wait for the input: [`prestart`]
//! starts one at the beginning of a build, it prepares while the parent reads
//! the results, and [`run`] hands it the input when there is some. Nor need
//! it be paid for every job: a child that answered waits for the next job of
//! its kind, one per core at most, and one that failed is ended ([`pool`]).

use std::process::{Child, Command, ExitCode, ExitStatus, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

mod pool;

/// What a child process does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Job {
    /// Typeset the paper with Typst (input and answer: `pdf::wire`).
    Typeset,
    /// Render the pages with the study's Tera templates (input and answer:
    /// JSON, see `html::child`).
    Render,
}

impl Job {
    /// Every job, for [`enter`].
    const ALL: [Job; 2] = [Job::Typeset, Job::Render];

    /// The hidden first argument that makes `report` this job's child.
    pub const fn arg(self) -> &'static str {
        match self {
            Job::Typeset => "__typeset",
            Job::Render => "__render",
        }
    }

    /// How long the job may take before the child is killed, and its
    /// address space in MB (raster images are decoded to at most 512 MB each
    /// by Typst itself).
    pub const fn default_limits(self) -> (Duration, u64) {
        match self {
            Job::Typeset => (Duration::from_secs(60), 4096),
            Job::Render => (Duration::from_secs(30), 2048),
        }
    }

    /// Environment variables that override the deadline (in seconds) and
    /// the memory limit (in MB), for unusually large studies and for tests.
    pub const fn overrides(self) -> [&'static str; 2] {
        match self {
            Job::Typeset => ["REPORT_PAPER_TIMEOUT", "REPORT_PAPER_MEMORY_MB"],
            Job::Render => ["REPORT_TEMPLATE_TIMEOUT", "REPORT_TEMPLATE_MEMORY_MB"],
        }
    }

    /// The job as the subject of a sentence.
    const fn doing(self) -> &'static str {
        match self {
            Job::Typeset => "typesetting",
            Job::Render => "rendering the templates",
        }
    }
}

/// What a child does for its job: `prepare` runs on a thread of its own as
/// the child starts, to load what the input will need while it is on its
/// way (given the words [`prestart`] was given: what to load); `answer`
/// turns the input the parent sent into the answer, both CBOR (written
/// with [`answer`]).
#[derive(Debug, Clone, Copy)]
pub struct Work {
    /// Load what the job needs, before its input.
    pub prepare: fn(&[String]),
    /// The answer to the input, or `None` for input that cannot be read.
    pub answer: fn(&[u8]) -> Option<Vec<u8>>,
    /// Let go of what one job left behind before the next (caches that
    /// would otherwise grow from job to job).
    pub between: fn(),
}

/// Why a job ended without an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// The child could not be started.
    Start,
    /// It ran past its deadline and was stopped.
    Deadline,
    /// It needed more memory than its limit (or the machine had).
    Memory,
    /// It overflowed its stack.
    Stack,
    /// It crashed: a panic, a signal, an exception, an exit status.
    Crash,
    /// The input or the answer did not cross: a bug of the exchange.
    Exchange,
}

/// Why a job ended without an answer: the cause, and what happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The cause, for the caller to say what to look at.
    pub cause: Cause,
    /// What happened, lowercase: `typesetting needed more than 4096 MB of
    /// memory and was stopped`.
    pub message: String,
}

impl Failure {
    /// What to look at when the cause says nothing of what the job was
    /// given (the caller knows better for [`Cause::Deadline`],
    /// [`Cause::Memory`] and [`Cause::Stack`]).
    pub fn hint(&self) -> &'static str {
        match self.cause {
            Cause::Start => "is the `report` binary still in place?",
            Cause::Deadline => "raise the deadline if the input is this large",
            Cause::Memory => "raise the memory limit if the input is this large",
            Cause::Stack => "is something nested thousands of levels deep?",
            Cause::Crash | Cause::Exchange => {
                "this is a bug in report or the library it runs; please report it with the study"
            }
        }
    }
}

/// Most bytes of the child's standard error kept, to explain a crash.
const STDERR_KEPT: u64 = 64 * 1024;

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Call first thing in `main` (through `render::enter`). In a child
/// (`report __typeset`, `report __render`) it does the job's `work` on
/// standard input and returns the exit code to end with; anywhere else it
/// makes every later job of this process run in a child, and returns `None`.
pub fn enter(work: fn(Job) -> Work) -> Option<ExitCode> {
    let first = std::env::args_os().nth(1)?;
    if let Some(job) = Job::ALL.into_iter().find(|job| first == job.arg()) {
        let needs = std::env::args_os().skip(2).map(|a| a.to_string_lossy().into_owned());
        return Some(child(job, work(job), needs.collect()));
    }
    ENABLED.store(true, Ordering::Relaxed);
    None
}

/// Whether jobs run in a child process (see [`enter`]).
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// The job's deadline and memory limit in MB, after its overrides.
pub fn limits(job: Job) -> (Duration, u64) {
    limits_from(job, |name| std::env::var(name).ok())
}

/// The limits, with the overrides read by `var`; values that are not whole
/// positive numbers are ignored.
fn limits_from(job: Job, var: impl Fn(&str) -> Option<String>) -> (Duration, u64) {
    let number =
        |name: &str| var(name).and_then(|v| v.trim().parse::<u64>().ok()).filter(|&n| n > 0);
    let (deadline, memory) = job.default_limits();
    let [time_name, memory_name] = job.overrides();
    (number(time_name).map_or(deadline, Duration::from_secs), number(memory_name).unwrap_or(memory))
}

/// The child: prepare, then read input after input, run the job on each
/// and write its answer, until the parent closes the pipe (see [`pool`]).
/// A watchdog ends it soon after a job's deadline, counted from its input,
/// should the parent be gone; a parent that ends between jobs closes the
/// pipe, and the child ends too.
fn child(job: Job, work: Work, needs: Vec<String>) -> ExitCode {
    let (deadline, _) = limits(job);
    std::thread::spawn(move || (work.prepare)(&needs));
    let busy = std::sync::Arc::new(Mutex::new(None::<std::time::Instant>));
    let watched = std::sync::Arc::clone(&busy);
    std::thread::spawn(move || {
        let limit = deadline.saturating_add(Duration::from_secs(5));
        loop {
            std::thread::sleep(Duration::from_millis(250));
            let since = watched.lock().map(|since| *since).unwrap_or_default();
            if since.is_some_and(|since| since.elapsed() > limit) {
                std::process::exit(3);
            }
        }
    });
    let (mut stdin, mut stdout) = (std::io::stdin().lock(), std::io::stdout().lock());
    let mut done = 0usize;
    loop {
        let input = match pool::read_frame(&mut stdin) {
            Ok(Some(input)) if !input.is_empty() => input,
            Ok(None) if done > 0 => return ExitCode::SUCCESS,
            _ => return ExitCode::from(2),
        };
        set(&busy, Some(std::time::Instant::now()));
        let Some(answer) = (work.answer)(&input) else {
            return ExitCode::from(2);
        };
        drop(input);
        if pool::write_frame(&mut stdout, &answer).is_err() {
            return ExitCode::from(2);
        }
        set(&busy, None);
        (work.between)();
        done += 1;
    }
}

/// Set what `slot` holds.
fn set<T>(slot: &Mutex<T>, value: T) {
    if let Ok(mut held) = slot.lock() {
        *held = value;
    }
}

/// Start a child for `job` now, so that it prepares what `needs` names
/// while this process works; the next [`run`] of `job` uses it. Nothing
/// happens when jobs run in-process, when one is already waiting, or when
/// it cannot start (then [`run`] says why).
pub fn prestart(job: Job, needs: &[&str]) {
    if !enabled() || pool::waiting(job) {
        return;
    }
    let memory_mb = limits(job).1;
    if let Ok(child) = spawn(job, memory_mb, needs) {
        pool::give_back(pool::Worker::new(job, memory_mb, child));
    }
}

/// End every child that waits for a job: call when no job will come (a
/// child left alone ends too when this process's end closes its pipe).
pub fn end() {
    pool::end();
}

/// Run `job` on `input` in a child process under its limits: the child's
/// answer, or why there is none. Both cross as CBOR (serde through ciborium).
pub fn run<I: Serialize, A: DeserializeOwned>(job: Job, input: &I) -> Result<A, Failure> {
    let mut bytes = Vec::new();
    ciborium::into_writer(input, &mut bytes).map_err(|e| exchange(job, "its input", &e))?;
    let answer = exchange_bytes(job, bytes)?;
    ciborium::from_reader(answer.as_slice()).map_err(|e| exchange(job, "its answer", &e))
}

/// The child's side of [`run`]: `work` on the input read from `input`, its
/// answer written; `None` for input that is not an `I`.
pub fn answer<I: DeserializeOwned, A: Serialize>(
    input: &[u8],
    work: impl FnOnce(I) -> A,
) -> Option<Vec<u8>> {
    let input: I = ciborium::from_reader(input).ok()?;
    let mut out = Vec::new();
    ciborium::into_writer(&work(input), &mut out).ok()?;
    Some(out)
}

/// A failure to encode or decode what crosses: a bug.
fn exchange(job: Job, what: &str, err: &dyn std::fmt::Display) -> Failure {
    let message = format!("the process for {} could not read {what}: {err}", job.doing());
    Failure { cause: Cause::Exchange, message }
}

/// Run `job` on the bytes `input` in a child process under its limits (an
/// idle one, or a new one): the bytes of its answer. A child that answered
/// waits for the next job; one that failed is ended.
fn exchange_bytes(job: Job, input: Vec<u8>) -> Result<Vec<u8>, Failure> {
    let (deadline, memory_mb) = limits(job);
    let mut worker = match pool::take(job, memory_mb) {
        Some(worker) => worker,
        None => pool::Worker::new(
            job,
            memory_mb,
            spawn(job, memory_mb, &[]).map_err(|e| Failure {
                cause: Cause::Start,
                message: format!("could not start the process for {}: {e}", job.doing()),
            })?,
        ),
    };
    let answer = worker.exchange(input, deadline)?;
    pool::give_back(worker);
    Ok(answer)
}

/// `report __typeset` (or another job) with the words `needs`, through
/// `sh -c 'ulimit -v …; exec …'` on Unix (std has no safe way to set a
/// child's limits); without `sh`, unlimited.
fn spawn(job: Job, memory_mb: u64, needs: &[&str]) -> std::io::Result<Child> {
    // `/proc/PID/exe` is this very binary even if its file was replaced since.
    let own = std::path::PathBuf::from(format!("/proc/{}/exe", std::process::id()));
    let exe = if own.exists() { own } else { std::env::current_exe()? };
    let setup = |command: &mut Command| {
        // glibc reserves 64 MB of address space per thread arena; two suffice.
        command.env("MALLOC_ARENA_MAX", "2");
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    };
    if cfg!(unix) {
        let mut shell = Command::new("sh");
        shell.arg("-c").arg("ulimit -v \"$1\" 2>/dev/null; shift; exec \"$0\" \"$@\"");
        shell.arg(&exe).arg(memory_mb.saturating_mul(1024).to_string()).arg(job.arg()).args(needs);
        setup(&mut shell);
        match shell.spawn() {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            spawned => return spawned,
        }
    }
    let mut direct = Command::new(&exe);
    direct.arg(job.arg()).args(needs);
    setup(&mut direct);
    direct.spawn()
}

/// Kill the child that ran past the deadline, and say so.
fn timed_out(job: Job, child: &mut Child, deadline: Duration) -> Failure {
    let _ = child.kill();
    let _ = child.wait();
    let message =
        format!("{} took longer than {} s and was stopped", job.doing(), deadline.as_secs());
    Failure { cause: Cause::Deadline, message }
}

/// What a child that ended badly tells, from its exit status and standard error.
fn crashed(job: Job, status: ExitStatus, stderr: &str, memory_mb: u64) -> Failure {
    let doing = job.doing();
    if stderr.contains("memory allocation of") || stderr.contains("capacity overflow") {
        let message = format!("{doing} needed more than {memory_mb} MB of memory and was stopped");
        return Failure { cause: Cause::Memory, message };
    }
    if stderr.contains("has overflowed its stack") {
        let message = format!("{doing} overflowed the stack and was stopped");
        return Failure { cause: Cause::Stack, message };
    }
    let message = match stderr.lines().find(|l| l.contains("panicked")) {
        Some(panic) => format!("{doing} crashed: {}", panic.trim()),
        None => ended(doing, status, stderr),
    };
    // Signal 9 is the kernel's out-of-memory killer (or someone's `kill -9`);
    // Windows names its own.
    let memory = signal(status) == Some(9)
        || status.code().and_then(exception).is_some_and(|e| e.ends_with("out of memory"));
    Failure { cause: if memory { Cause::Memory } else { Cause::Crash }, message }
}

/// How a child that said nothing of a panic ended: a signal on Unix, an
/// exception on Windows, else its exit status and first words.
fn ended(doing: &str, status: ExitStatus, stderr: &str) -> String {
    match (signal(status), status.code().and_then(exception)) {
        (Some(9), _) => {
            format!("{doing} was killed (signal 9): did the machine run out of memory?")
        }
        (Some(signal), _) => format!("{doing} crashed (signal {signal})"),
        (None, Some(exception)) => format!("{doing} crashed ({exception})"),
        (None, None) => match stderr.lines().find(|l| !l.trim().is_empty()) {
            Some(said) => format!("{doing} failed ({status}): {}", said.trim()),
            None => format!("{doing} failed ({status})"),
        },
    }
}

/// The Windows exception (a system `NTSTATUS` error, `0xC000….`) that ended
/// a process with exit code `code`, named when common. On Unix exit codes
/// are 0 to 255, so this is `None` there. A process Windows killed (`TerminateProcess`, as
/// at the deadline) ends with code 1, which is not an exception.
fn exception(code: i32) -> Option<String> {
    let code = code as u32;
    if code >> 16 != 0xC000 {
        return None;
    }
    let name = match code {
        0xC000_0005 => ": an access violation",
        0xC000_0017 | 0xC000_012D => ": out of memory",
        0xC000_00FD => ": a stack overflow",
        // `__fastfail`, which is how Rust aborts on Windows.
        0xC000_0409 => ": an abort",
        0xC000_013A => ": stopped by Ctrl+C",
        _ => "",
    };
    Some(format!("exception 0x{code:08X}{name}"))
}

/// Byte strings as CBOR byte strings, for what crosses to a child: serde
/// writes a `Vec<u8>` as a list of numbers, bigger and slower to read.
/// `#[serde(with = "sandbox::bytes")]` on a `Vec<u8>`, `bytes::map` on
/// files by name, `bytes::pairs` on a list of named files.
pub mod bytes {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

    /// Write `bytes` as one byte string.
    pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(bytes)
    }

    /// Read one byte string.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        deserializer.deserialize_byte_buf(Visitor)
    }

    /// Reads a byte string.
    struct Visitor;

    impl de::Visitor<'_> for Visitor {
        type Value = Vec<u8>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a byte string")
        }

        fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
            Ok(bytes.to_vec())
        }

        fn visit_byte_buf<E: de::Error>(self, bytes: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(bytes)
        }
    }

    /// A byte string inside a map or a list, to write.
    struct Borrowed<'a>(&'a [u8]);

    impl Serialize for Borrowed<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.serialize_bytes(self.0)
        }
    }

    /// A byte string inside a map or a list, read.
    struct Owned(Vec<u8>);

    impl<'de> Deserialize<'de> for Owned {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_byte_buf(Visitor).map(Owned)
        }
    }

    /// Files by name, each a byte string.
    pub mod map {
        use super::*;

        /// Write `files` as a map of byte strings.
        pub fn serialize<S: Serializer>(
            files: &BTreeMap<String, Vec<u8>>,
            serializer: S,
        ) -> Result<S::Ok, S::Error> {
            serializer.collect_map(files.iter().map(|(name, b)| (name, Borrowed(b))))
        }

        /// Read a map of byte strings.
        pub fn deserialize<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<BTreeMap<String, Vec<u8>>, D::Error> {
            let files = BTreeMap::<String, Owned>::deserialize(deserializer)?;
            Ok(files.into_iter().map(|(name, b)| (name, b.0)).collect())
        }
    }

    /// Named files in order, each a byte string.
    pub mod pairs {
        use super::*;

        /// Write `files` as a list of names and byte strings.
        pub fn serialize<S: Serializer>(
            files: &[(String, Vec<u8>)],
            serializer: S,
        ) -> Result<S::Ok, S::Error> {
            serializer.collect_seq(files.iter().map(|(name, b)| (name, Borrowed(b))))
        }

        /// Read a list of names and byte strings.
        pub fn deserialize<'de, D: Deserializer<'de>>(
            deserializer: D,
        ) -> Result<Vec<(String, Vec<u8>)>, D::Error> {
            let files = Vec::<(String, Owned)>::deserialize(deserializer)?;
            Ok(files.into_iter().map(|(name, b)| (name, b.0)).collect())
        }
    }
}

#[cfg(unix)]
fn signal(status: ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(&status)
}

#[cfg(not(unix))]
fn signal(_: ExitStatus) -> Option<i32> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_the_defaults_unless_overridden() {
        let job = Job::Typeset;
        let defaults = job.default_limits();
        assert_eq!(defaults, (Duration::from_secs(60), 4096));
        assert_eq!(limits_from(job, |_| None), defaults);
        let set =
            |name: &str| Some(if name == "REPORT_PAPER_TIMEOUT" { " 5 " } else { "300" }.into());
        assert_eq!(limits_from(job, set), (Duration::from_secs(5), 300));
        assert_eq!(limits_from(job, |_| Some("-1".into())), defaults);
        assert_eq!(limits_from(job, |_| Some("0".into())), defaults);
        let template = |name: &str| (name == "REPORT_TEMPLATE_TIMEOUT").then(|| "7".to_string());
        assert_eq!(limits_from(Job::Render, template), (Duration::from_secs(7), 2048));
        assert_eq!(limits_from(Job::Typeset, template), defaults);
    }

    /// Exit codes from Microsoft's NTSTATUS table, as `i32` (what
    /// `ExitStatus::code` gives on Windows): 0xC0000005 is -1073741819.
    #[test]
    fn windows_exceptions_are_named() {
        let of = exception;
        assert_eq!(of(-1073741819).unwrap(), "exception 0xC0000005: an access violation");
        assert_eq!(of(-1073741571).unwrap(), "exception 0xC00000FD: a stack overflow");
        assert_eq!(of(-1073740791).unwrap(), "exception 0xC0000409: an abort");
        assert_eq!(of(-1073741801).unwrap(), "exception 0xC0000017: out of memory");
        assert_eq!(of(-1073741510).unwrap(), "exception 0xC000013A: stopped by Ctrl+C");
        assert_eq!(of(-1073741515).unwrap(), "exception 0xC0000135");
        for code in [0, 1, 2, 101, 127, 255, 0x4000_0000, -1, -2] {
            assert_eq!(of(code), None, "{code}");
        }
    }

    /// On Windows an abort (an allocation that failed, say) is exception
    /// 0xC0000409; a child killed at the deadline exits with 1.
    #[cfg(windows)]
    #[test]
    fn a_windows_crash_is_explained_by_its_exception() {
        use std::os::windows::process::ExitStatusExt;
        let abort = crashed(Job::Typeset, ExitStatus::from_raw(0xC000_0409), "", 1).message;
        assert_eq!(abort, "typesetting crashed (exception 0xC0000409: an abort)");
        let said = crashed(Job::Render, ExitStatus::from_raw(1), "oops\n", 1).message;
        assert_eq!(said, "rendering the templates failed (exit code: 1): oops");
    }

    #[cfg(unix)]
    #[test]
    fn a_crash_is_explained_by_what_the_child_said() {
        use std::os::unix::process::ExitStatusExt;
        let abort = ExitStatus::from_raw(6);
        let said = |stderr: &str| crashed(Job::Typeset, abort, stderr, 100).message;
        assert!(said("memory allocation of 800 bytes failed\n").contains("more than 100 MB"));
        assert!(said("thread 'main' panicked at x.rs:1:1:\ncapacity overflow").contains("100 MB"));
        assert!(said("thread 'main' has overflowed its stack\n").contains("overflowed the stack"));
        let panic = said("thread 'main' panicked at typst/src/a.rs:3:4:\nboom\n");
        assert!(panic.contains("crashed") && panic.contains("a.rs:3:4"), "{panic}");
        assert!(said("").contains("signal 6"));
        let killed = crashed(Job::Render, ExitStatus::from_raw(9), "", 1).message;
        assert_eq!(
            killed,
            "rendering the templates was killed (signal 9): did the machine run out of memory?"
        );
        let failed =
            crashed(Job::Typeset, ExitStatus::from_raw(127 << 8), "sh: 1: exec: x: not found\n", 1);
        assert!(failed.message.ends_with("status: 127): sh: 1: exec: x: not found"), "{failed:?}");
    }
}
