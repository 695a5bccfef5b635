//! Helpers of the hostile file-system tests (`tests/hostile_fs*.rs`): running
//! report under a time limit, asserting a located and hinted refusal, making
//! FIFOs and files.

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use super::stderr_in;

/// A LAMMPS log of one finished run.
pub const LOG: &str =
    "LAMMPS (7 Feb 2024)\nLoop time of 2.5 on 4 procs for 100 steps with 32000 atoms\n";

/// Run `report ARGS --root ROOT` (short diagnostics), failing the test if it
/// has not finished within ten seconds: a read of a FIFO would block forever.
pub fn within(root: &Path, args: &[&str]) -> Output {
    let root = root.to_str().expect("a UTF-8 path");
    bounded(&[args, &["--root", root]].concat())
}

/// Run `report ARGS` (short diagnostics), failing the test if it has not
/// finished within ten seconds.
pub fn bounded(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_report"))
        .args(args)
        .args(["--message-format", "short"])
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .env("NO_COLOR", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(10) {
            child.kill().unwrap();
            panic!("`report {}` hung", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Assert that `output` failed with exit 1, with a hint and each of
/// `wanted` on standard error; that text, with `root` as `STUDY`.
pub fn refused(output: &Output, root: &Path, wanted: &[&str]) -> String {
    let err = stderr_in(output, root);
    assert_eq!(output.status.code(), Some(1), "expected exit 1:\n{err}");
    for w in wanted {
        assert!(err.contains(w), "`{w}` not in:\n{err}");
    }
    assert!(err.contains("= help: "), "no hint:\n{err}");
    err
}

/// Make a named pipe (FIFO) at `path`.
pub fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success(), "{path:?}");
}

/// Write `text` to `path`, creating its folders.
pub fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}
