//! Children that stay: a child does one job after another over its pipes,
//! each input and answer one frame ([`write_frame`], [`read_frame`]), so
//! that a site of fifty papers starts a typesetter per core and loads the
//! fonts once in each, not fifty times. Between jobs an idle child waits in
//! a pool ([`take`], [`give_back`]). A job that fails in any way (past its
//! deadline, out of memory, crashed, an answer that does not cross) costs
//! its child: it is killed, and the next job starts a fresh one, so a job
//! never runs in a child that failed before. Each job keeps its own limits:
//! the deadline counts from its input, and the address space limit holds
//! for each job as it did for each child (the job's memory is freed when
//! it ends).

use std::io::{ErrorKind, Read, Write};
use std::process::{Child, ChildStdin};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use super::{Cause, Failure, Job, STDERR_KEPT};

/// A frame's length: its first eight bytes, little-endian.
const HEADER: usize = 8;

/// Write `bytes` as one frame.
pub(super) fn write_frame(to: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    to.write_all(&(bytes.len() as u64).to_le_bytes())?;
    to.write_all(bytes)?;
    to.flush()
}

/// Read one frame: `None` at the end of the stream before a frame begins,
/// an error for a frame cut short.
pub(super) fn read_frame(from: &mut impl Read) -> std::io::Result<Option<Vec<u8>>> {
    let mut header = [0u8; HEADER];
    let mut got = 0;
    while got < HEADER {
        match from.read(&mut header[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(ErrorKind::UnexpectedEof.into()),
            Ok(n) => got += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let len = u64::from_le_bytes(header);
    // Read as it comes, never allocated ahead from the header.
    let mut bytes = Vec::new();
    from.take(len).read_to_end(&mut bytes)?;
    if bytes.len() as u64 != len {
        return Err(ErrorKind::UnexpectedEof.into());
    }
    Ok(Some(bytes))
}

/// A running child and the threads that read its two output streams.
pub(super) struct Worker {
    /// What it does.
    job: Job,
    /// Its address space limit in MB, as started.
    memory_mb: u64,
    /// The process.
    child: Child,
    /// Its input; away while a job's input is being written.
    stdin: Option<ChildStdin>,
    /// Its answers, one frame each; closed when its output ends.
    answers: mpsc::Receiver<Vec<u8>>,
    /// What it wrote on standard error since the current job began, at most
    /// [`STDERR_KEPT`] bytes.
    stderr: Arc<Mutex<Vec<u8>>>,
    /// The thread that reads standard error, which ends with the child.
    errors: Option<JoinHandle<()>>,
}

/// Idle children, waiting for a job.
static IDLE: Mutex<Vec<Worker>> = Mutex::new(Vec::new());

impl Worker {
    /// Take over a started child: threads read its answers and its errors.
    pub(super) fn new(job: Job, memory_mb: u64, mut child: Child) -> Self {
        let (stdin, stdout, stderr) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (sender, answers) = mpsc::channel();
        std::thread::spawn(move || {
            let Some(mut stdout) = stdout else { return };
            while let Ok(Some(answer)) = read_frame(&mut stdout) {
                if sender.send(answer).is_err() {
                    return;
                }
            }
        });
        let kept = Arc::new(Mutex::new(Vec::new()));
        let errors = stderr.map(|stderr| {
            let kept = Arc::clone(&kept);
            std::thread::spawn(move || keep_errors(stderr, &kept))
        });
        Worker { job, memory_mb, child, stdin, answers, stderr: kept, errors }
    }

    /// Whether the child is still there to take a job.
    fn alive(&mut self) -> bool {
        self.stdin.is_some() && matches!(self.child.try_wait(), Ok(None))
    }

    /// Do one job: send `input`, wait at most `deadline` for the answer.
    /// After an error the worker is spent: drop it.
    pub(super) fn exchange(
        &mut self,
        input: Vec<u8>,
        deadline: Duration,
    ) -> Result<Vec<u8>, Failure> {
        if let Ok(mut kept) = self.stderr.lock() {
            kept.clear();
        }
        let stdin = self.stdin.take();
        // A child that ends early (it crashed) closes the pipe: that is reported below.
        let writer = std::thread::spawn(move || {
            let mut stdin = stdin?;
            write_frame(&mut stdin, &input).ok()?;
            Some(stdin)
        });
        match self.answers.recv_timeout(deadline) {
            Ok(answer) => {
                self.stdin = writer.join().ok().flatten();
                Ok(answer)
            }
            Err(RecvTimeoutError::Timeout) => {
                Err(super::timed_out(self.job, &mut self.child, deadline))
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.ended()),
        }
    }

    /// Why a child whose output ended without an answer is gone.
    fn ended(&mut self) -> Failure {
        let status = self.child.wait();
        if let Some(errors) = self.errors.take() {
            let _ = errors.join();
        }
        let kept = self.stderr.lock().map(|kept| kept.clone()).unwrap_or_default();
        let stderr = String::from_utf8_lossy(&kept);
        match status {
            Ok(status) => super::crashed(self.job, status, &stderr, self.memory_mb),
            Err(e) => Failure {
                cause: Cause::Crash,
                message: format!("lost the process for {}: {e}", self.job.doing()),
            },
        }
    }
}

impl Drop for Worker {
    /// A worker let go is ended: idle, it loses nothing; failed, it may
    /// still be running.
    fn drop(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Read standard error to its end, keeping at most [`STDERR_KEPT`] bytes of
/// each job's.
fn keep_errors(mut stderr: impl Read, kept: &Mutex<Vec<u8>>) {
    let mut chunk = [0u8; 8192];
    loop {
        match stderr.read(&mut chunk) {
            Ok(0) => return,
            Ok(n) => {
                if let Ok(mut kept) = kept.lock() {
                    let room = (STDERR_KEPT as usize).saturating_sub(kept.len());
                    kept.extend_from_slice(&chunk[..n.min(room)]);
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// An idle child for `job` started with `memory_mb`, if one waits and still runs.
pub(super) fn take(job: Job, memory_mb: u64) -> Option<Worker> {
    let mut idle = IDLE.lock().ok()?;
    while let Some(at) = idle.iter().position(|w| w.job == job && w.memory_mb == memory_mb) {
        let mut worker = idle.swap_remove(at);
        if worker.alive() {
            return Some(worker);
        }
    }
    None
}

/// Whether an idle child for `job` waits.
pub(super) fn waiting(job: Job) -> bool {
    IDLE.lock().is_ok_and(|idle| idle.iter().any(|w| w.job == job))
}

/// Keep `worker` for the next job, unless as many wait as there are cores.
pub(super) fn give_back(worker: Worker) {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    if let Ok(mut idle) = IDLE.lock()
        && idle.iter().filter(|w| w.job == worker.job).count() < cores
    {
        idle.push(worker);
    }
}

/// End every idle child, and wait for each.
pub(super) fn end() {
    let idle = IDLE.lock().map(|mut idle| std::mem::take(&mut *idle)).unwrap_or_default();
    drop(idle);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_cross_whole_and_in_order() {
        let messages: [&[u8]; 4] = [b"one", b"", &[0u8; 70_000], b"last"];
        let mut wire = Vec::new();
        for message in messages {
            write_frame(&mut wire, message).unwrap();
        }
        assert_eq!(wire.len(), messages.iter().map(|m| m.len() + HEADER).sum::<usize>());
        let mut from = wire.as_slice();
        for message in messages {
            assert_eq!(read_frame(&mut from).unwrap().as_deref(), Some(message));
        }
        assert_eq!(read_frame(&mut from).unwrap(), None);
    }

    #[test]
    fn a_frame_cut_short_is_an_error() {
        let mut wire = Vec::new();
        write_frame(&mut wire, b"a whole answer").unwrap();
        for cut in 1..wire.len() {
            let err = read_frame(&mut &wire[..cut]).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::UnexpectedEof, "cut at {cut}");
        }
        // A header that promises more than ever comes is read as it comes.
        let mut liar = u64::MAX.to_le_bytes().to_vec();
        liar.extend_from_slice(b"short");
        assert!(read_frame(&mut liar.as_slice()).is_err());
    }
}
