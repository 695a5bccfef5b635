//! Typesetting in a child process, under limits. A Typst template is a
//! program: it can loop for hours or ask for 40 GB, and an allocation that
//! fails aborts the process it runs in. So the `report` binary typesets in a
//! copy of itself (`report __typeset`, started by [`render`]) with its address
//! space limited to [`MEMORY_LIMIT_MB`] (`RLIMIT_AS`, set by `sh`'s `ulimit -v`
//! before the `exec`), killed after [`DEADLINE`]; the project goes in on
//! standard input and the PDF or Typst's errors come back on standard output
//! (module `wire`). Whatever happens in the child, the build ends with an error.
//!
//! Only a process that called [`enter`] typesets this way; library callers
//! that did not (the tests of the library) typeset in-process.

use std::io::{Read, Write};
use std::process::{Child, Command, ExitCode, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use super::{PaperProject, TypstError, wire};

/// The hidden first argument that makes `report` the typesetting child.
pub const CHILD_ARG: &str = "__typeset";

/// How long typesetting may take before the child is killed.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// The child's address space, in MB (`RLIMIT_AS`); raster images are
/// decoded to at most 512 MB each by Typst itself.
pub const MEMORY_LIMIT_MB: u64 = 4096;

/// Environment variables that override [`DEADLINE`] (in seconds) and
/// [`MEMORY_LIMIT_MB`], for unusually large papers and for tests.
pub const OVERRIDES: [&str; 2] = ["REPORT_PAPER_TIMEOUT", "REPORT_PAPER_MEMORY_MB"];

/// Most bytes of the child's standard error kept, to explain a crash.
const STDERR_KEPT: u64 = 64 * 1024;

static ENABLED: AtomicBool = AtomicBool::new(false);

/// Call first thing in `main`. In the typesetting child (`report
/// __typeset`) it typesets the project on standard input and returns the
/// exit code to end with; anywhere else it makes every later typesetting of
/// this process run in a child, and returns `None`.
pub fn enter() -> Option<ExitCode> {
    if std::env::args_os().nth(1).is_some_and(|arg| arg == CHILD_ARG) {
        return Some(child());
    }
    ENABLED.store(true, Ordering::Relaxed);
    None
}

/// Whether typesetting runs in a child process (see [`enter`]).
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// The deadline and the memory limit in MB, after the [`OVERRIDES`].
pub fn limits() -> (Duration, u64) {
    limits_from(|name| std::env::var(name).ok())
}

/// The limits, with the overrides read by `var`; values that are not whole
/// positive numbers are ignored.
fn limits_from(var: impl Fn(&str) -> Option<String>) -> (Duration, u64) {
    let number =
        |name: &str| var(name).and_then(|v| v.trim().parse::<u64>().ok()).filter(|&n| n > 0);
    let deadline = number(OVERRIDES[0]).map_or(DEADLINE, Duration::from_secs);
    (deadline, number(OVERRIDES[1]).unwrap_or(MEMORY_LIMIT_MB))
}

/// The child: read the project, typeset it, write the answer. A watchdog
/// ends it soon after the deadline should the parent be gone.
fn child() -> ExitCode {
    let (deadline, _) = limits();
    std::thread::spawn(move || {
        std::thread::sleep(deadline.saturating_add(Duration::from_secs(5)));
        std::process::exit(3);
    });
    let mut input = Vec::new();
    if std::io::stdin().lock().read_to_end(&mut input).is_err() {
        return ExitCode::from(2);
    }
    let Some(project) = wire::decode_project(&input) else {
        return ExitCode::from(2);
    };
    drop(input);
    let answer = wire::encode_answer(&super::render_here(&project));
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(&answer).and_then(|()| stdout.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(2),
    }
}

/// Typeset `project` in a child process under the limits.
pub fn render(project: &PaperProject) -> Result<Vec<u8>, Vec<TypstError>> {
    let (deadline, memory_mb) = limits();
    let input = wire::encode_project(project);
    let mut child = spawn(memory_mb).map_err(|e| {
        failure(
            format!("could not start the typesetting process: {e}"),
            "is the `report` binary still in place?",
        )
    })?;
    let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let writer = std::thread::spawn(move || {
        // A child that ends early (it crashed) closes the pipe: that is reported below.
        if let Some(mut stdin) = stdin {
            let _ = stdin.write_all(&input);
        }
    });
    let (sender, answer) = mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(mut stdout) = stdout {
            let _ = stdout.read_to_end(&mut out);
        }
        let _ = sender.send(out);
    });
    let errors = std::thread::spawn(move || {
        let mut kept = Vec::new();
        if let Some(mut stderr) = stderr {
            let _ = (&mut stderr).take(STDERR_KEPT).read_to_end(&mut kept);
            let _ = std::io::copy(&mut stderr, &mut std::io::sink());
        }
        String::from_utf8_lossy(&kept).into_owned()
    });
    let Ok(out) = answer.recv_timeout(deadline) else {
        return Err(timed_out(&mut child, deadline));
    };
    let status = child.wait();
    let _ = writer.join();
    let stderr = errors.join().unwrap_or_default();
    match status {
        Ok(status) if status.success() => wire::decode_answer(&out).unwrap_or_else(|| {
            Err(failure("the typesetting process gave no answer".into(), "this is a bug in report"))
        }),
        Ok(status) => Err(crashed(status, &stderr, memory_mb)),
        Err(e) => Err(failure(format!("lost the typesetting process: {e}"), "try again")),
    }
}

/// `report __typeset`, through `sh -c 'ulimit -v …; exec …'` on Unix (std
/// has no safe way to set a child's limits); without `sh`, unlimited.
fn spawn(memory_mb: u64) -> std::io::Result<Child> {
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
        shell.arg("-c").arg("ulimit -v \"$1\" 2>/dev/null; exec \"$0\" \"$2\"");
        shell.arg(&exe).arg(memory_mb.saturating_mul(1024).to_string()).arg(CHILD_ARG);
        setup(&mut shell);
        match shell.spawn() {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            spawned => return spawned,
        }
    }
    let mut direct = Command::new(&exe);
    direct.arg(CHILD_ARG);
    setup(&mut direct);
    direct.spawn()
}

/// Kill the child that ran past the deadline, and say so.
fn timed_out(child: &mut Child, deadline: Duration) -> Vec<TypstError> {
    let _ = child.kill();
    let _ = child.wait();
    failure(
        format!("typesetting took longer than {} s and was stopped", deadline.as_secs()),
        "does a loop or a recursion of the template never end? Typst stops `while` loops \
         after 10000 rounds, but not `for` loops over huge ranges or recursion that branches",
    )
}

/// What a child that ended badly tells, from its exit status and standard error.
fn crashed(status: ExitStatus, stderr: &str, memory_mb: u64) -> Vec<TypstError> {
    if stderr.contains("memory allocation of") || stderr.contains("capacity overflow") {
        return failure(
            format!("typesetting needed more than {memory_mb} MB of memory and was stopped"),
            "does the template build a huge value, such as `range(5000000000)` or \
             `\"x\" * 50000000000`, or grow an array without end?",
        );
    }
    if stderr.contains("has overflowed its stack") {
        return failure(
            "typesetting overflowed the stack and was stopped".into(),
            "is something in the template nested thousands of levels deep?",
        );
    }
    let said = stderr.lines().find(|l| l.contains("panicked")).map(str::trim);
    let what = match (said, signal(status)) {
        (Some(panic), _) => format!("Typst crashed while typesetting: {panic}"),
        (None, Some(9)) => {
            "typesetting was killed (signal 9): did the machine run out of memory?".into()
        }
        (None, Some(signal)) => format!("typesetting crashed (signal {signal})"),
        (None, None) => match stderr.lines().find(|l| !l.trim().is_empty()) {
            Some(said) => format!("typesetting failed ({status}): {}", said.trim()),
            None => format!("typesetting failed ({status})"),
        },
    };
    failure(what, "this is a bug in Typst or report; please report it with the template")
}

#[cfg(unix)]
fn signal(status: ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(&status)
}

#[cfg(not(unix))]
fn signal(_: ExitStatus) -> Option<i32> {
    None
}

/// An error of the typesetting as a whole (no file: it is the template's).
fn failure(message: String, hint: &str) -> Vec<TypstError> {
    vec![TypstError { file: None, offset: 0, message, hints: vec![hint.to_string()] }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_the_constants_unless_overridden() {
        assert_eq!(limits_from(|_| None), (DEADLINE, MEMORY_LIMIT_MB));
        let set = |name: &str| Some(if name == OVERRIDES[0] { " 5 " } else { "300" }.to_string());
        assert_eq!(limits_from(set), (Duration::from_secs(5), 300));
        let bad = |_: &str| Some("-1".to_string());
        assert_eq!(limits_from(bad), (DEADLINE, MEMORY_LIMIT_MB));
        assert_eq!(limits_from(|_| Some("0".into())), (DEADLINE, MEMORY_LIMIT_MB));
    }

    #[cfg(unix)]
    #[test]
    fn a_crash_is_explained_by_what_the_child_said() {
        use std::os::unix::process::ExitStatusExt;
        let abort = ExitStatus::from_raw(6);
        let said = |stderr: &str| crashed(abort, stderr, 100).remove(0).message;
        assert!(said("memory allocation of 800 bytes failed\n").contains("more than 100 MB"));
        assert!(said("thread 'main' panicked at x.rs:1:1:\ncapacity overflow").contains("100 MB"));
        assert!(said("thread 'main' has overflowed its stack\n").contains("overflowed the stack"));
        let panic = said("thread 'main' panicked at typst/src/a.rs:3:4:\nboom\n");
        assert!(panic.contains("crashed") && panic.contains("a.rs:3:4"), "{panic}");
        assert!(said("").contains("signal 6"));
        assert!(crashed(ExitStatus::from_raw(9), "", 1)[0].message.contains("signal 9"));
        let failed = crashed(ExitStatus::from_raw(127 << 8), "sh: 1: exec: x: not found\n", 1);
        assert!(
            failed[0].message.ends_with("status: 127): sh: 1: exec: x: not found"),
            "{failed:?}"
        );
    }
}
