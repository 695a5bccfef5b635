//! Helpers shared by the integration tests: fixture projects in temporary
//! folders, running the `report` binary, and external tools; helpers of one
//! family of test files in a submodule each.

#![allow(dead_code)]

pub mod hostile;
pub mod import;
pub mod workflow;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The repository root (the shipped study).
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The shared real benchmark output (`../shared/fixtures`), or `None` (with a
/// message) when it is absent, which fails under REPORT_REQUIRE_TOOLS.
pub fn shared_fixtures() -> Option<PathBuf> {
    let path = repo().join("../shared/fixtures");
    if path.is_dir() {
        return Some(dunce::canonicalize(path).unwrap());
    }
    assert!(
        std::env::var_os("REPORT_REQUIRE_TOOLS").is_none(),
        "../shared/fixtures is required in CI"
    );
    eprintln!("SKIPPED: ../shared/fixtures (real benchmark output) is not next to the repository");
    None
}

/// A copy of `tests/fixtures/<name>` in a fresh temporary folder.
pub fn fixture(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo().join("tests/fixtures").join(name), dir.path());
    dir
}

/// A copy of the shipped study (book.toml, content, results, templates).
pub fn shipped_study() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(repo().join("book.toml"), dir.path().join("book.toml")).unwrap();
    for sub in ["content", "results", "templates"] {
        copy_dir(&repo().join(sub), &dir.path().join(sub));
    }
    dir
}

/// The shipped study's runs treated as measured, without its published
/// figures: what `report diff` compares are intervals, which runs that were
/// not measured do not have, and a scaled run no longer reproduces a
/// published figure.
pub fn as_measured(root: &std::path::Path) {
    let path = root.join("book.toml");
    let text = fs::read_to_string(&path).unwrap();
    let (head, tail) = text.split_once("[[published]]").unwrap();
    let tail = &tail[tail.find("[output]").unwrap()..];
    let head: Vec<&str> = head.lines().filter(|l| !l.starts_with("provenance")).collect();
    fs::write(path, head.join("\n") + "\n" + tail).unwrap();
}

/// The shipped study, copied and built (`report build`) once for all the
/// tests that only read what that build wrote: `site/index.html`,
/// `site/paper.pdf`, `site/data/stats.json`. It lives in the target folder
/// (`tmp/shipped-study`, replaced by each run). A test that changes the
/// study, or builds it otherwise, takes a [`shipped_study`] of its own.
pub fn built_shipped_study() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("shipped-study");
        if root.exists() {
            fs::remove_dir_all(&root).unwrap();
        }
        fs::create_dir_all(&root).unwrap();
        fs::copy(repo().join("book.toml"), root.join("book.toml")).unwrap();
        for sub in ["content", "results", "templates"] {
            copy_dir(&repo().join(sub), &root.join(sub));
        }
        let output = report(&root, &["build"]);
        assert!(output.status.success(), "{}", stderr(&output));
        root
    })
}

/// The page of a study written by [`written_study`] for its statistics: a
/// title and the caveats.
pub const CAVEATS_PAGE: &str = "# Results\n\n{{ caveats() }}\n";

/// A study in a fresh temporary folder, written from text: `book` as
/// book.toml, each `(name, csv)` of `results` as `results/NAME`, and `page`
/// as content/index.md.
pub fn written_study(book: &str, results: &[(&str, &str)], page: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("results")).unwrap();
    fs::create_dir_all(dir.path().join("content")).unwrap();
    fs::write(dir.path().join("book.toml"), book).unwrap();
    for (name, csv) in results {
        fs::write(dir.path().join("results").join(name), csv).unwrap();
    }
    fs::write(dir.path().join("content/index.md"), page).unwrap();
    dir
}

/// Build the study at `root`, which must succeed, and read the
/// site/data/stats.json it wrote.
pub fn stats_json(root: &Path) -> serde_json::Value {
    let output = report(root, &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    built_stats(root)
}

/// The site/data/stats.json of the study at `root`, already built.
pub fn built_stats(root: &Path) -> serde_json::Value {
    serde_json::from_slice(&fs::read(root.join("site/data/stats.json")).unwrap()).unwrap()
}

pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Run `report` with `args` in `root`, with a fixed SOURCE_DATE_EPOCH and
/// one-line diagnostics (`path:line:col: message`).
pub fn report(root: &Path, args: &[&str]) -> Output {
    report_with(root, args, "short")
}

/// Run `report` with diagnostics in `format` (`human`, `short`, `json`).
pub fn report_with(root: &Path, args: &[&str], format: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_report"))
        .args(args)
        .arg("--root")
        .arg(root)
        .args(["--message-format", format])
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// Standard error as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Standard error with the study's folder `root` written `STUDY`: as given
/// and as resolved (on Windows a temporary folder's short name, such as
/// `RUNNER~1`, resolves to the long one), and `STUDY\\` as `STUDY/`.
pub fn stderr_in(output: &Output, root: &Path) -> String {
    let mut text = stderr(output);
    let resolved = dunce::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    for folder in [resolved, root.to_path_buf()] {
        text = text.replace(&folder.display().to_string(), "STUDY");
    }
    if cfg!(windows) { text.replace("STUDY\\", "STUDY/") } else { text }
}

/// Whether an external tool is present. When it is not, the test is skipped with
/// a message, unless REPORT_REQUIRE_TOOLS is set (as in CI), where it fails.
pub fn tool(program: &str, probe: &[&str]) -> bool {
    let found = Command::new(program).args(probe).output().is_ok_and(|o| o.status.success());
    if !found {
        if std::env::var_os("REPORT_REQUIRE_TOOLS").is_some() {
            panic!("`{program}` is required (REPORT_REQUIRE_TOOLS is set) but was not found");
        }
        eprintln!(
            "SKIPPED: `{program}` is not installed; install it to run this test (see README)"
        );
    }
    found
}

/// The Python 3 interpreter's name: `python3`, or `python` where only that
/// is installed (Windows); `None` (the test skips, printing SKIPPED) when
/// neither runs Python 3, which fails under REPORT_REQUIRE_TOOLS.
pub fn python() -> Option<&'static str> {
    let three = ["-c", "import sys; sys.exit(sys.version_info[0] != 3)"];
    let found = ["python3", "python"]
        .into_iter()
        .find(|name| Command::new(name).args(three).output().is_ok_and(|o| o.status.success()));
    found.or_else(|| tool("python3", &["--version"]).then_some("python3"))
}

/// What `python` prints running `script` with `input` on its standard
/// input; the script must succeed.
pub fn python_output(python: &str, script: &str, input: &str) -> String {
    use std::io::Write as _;
    let mut child = Command::new(python)
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// `pdftotext -layout` of a PDF file.
pub fn pdftotext(pdf: &Path) -> String {
    let out = Command::new("pdftotext").arg("-layout").arg(pdf).arg("-").output().unwrap();
    assert!(out.status.success(), "pdftotext failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `pdfinfo` of a PDF file: its metadata, page count and page size.
pub fn pdfinfo(pdf: &Path) -> String {
    let out = Command::new("pdfinfo").arg(pdf).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `pdffonts` of a PDF file: a table of its fonts, after two header lines.
pub fn pdffonts(pdf: &Path) -> String {
    let out = Command::new("pdffonts").arg(pdf).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every file under `dir` (path relative to it) with its bytes, sorted by path.
pub fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().strip_prefix(dir).unwrap().to_path_buf(), fs::read(e.path()).unwrap()))
        .collect()
}

/// Replace `from` by `to` in `root/file`.
pub fn edit(root: &Path, file: &str, from: &str, to: &str) {
    let path = root.join(file);
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "`{from}` not in {file}");
    fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// Where the property tests of `tests/NAME.rs` keep their failure seeds:
/// `proptest-regressions/tests/NAME.txt`, committed, so that every run first
/// replays each case that ever failed. (proptest's default looks for a lib.rs
/// or main.rs above the source file, and tests/ has none.)
pub fn regressions(test: &str) -> Option<Box<dyn proptest::test_runner::FailurePersistence>> {
    let path = repo().join("proptest-regressions/tests").join(format!("{test}.txt"));
    let path: &'static str = Box::leak(path.to_str().unwrap().to_owned().into_boxed_str());
    Some(Box::new(proptest::test_runner::FileFailurePersistence::Direct(path)))
}

/// The output of `child`, or a panic naming `name` (after killing it) if it
/// runs past `limit`: a hang fails the test instead of stalling the suite.
pub fn wait_or_kill(
    mut child: std::process::Child,
    limit: std::time::Duration,
    name: &str,
) -> Output {
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            panic!("{name}: the build hung");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// A seeded generator (SplitMix64), uniform in [0, 1): the same inputs on
/// every run of a test.
pub struct Seeded(pub u64);

impl Seeded {
    /// The next value, in [0, 1).
    pub fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Whether python3 with DuckDB and pyarrow is there (`pip install duckdb
/// pyarrow`); when it is not, a test using them is skipped, except in CI
/// (REPORT_REQUIRE_TOOLS), where it fails.
pub fn engines() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import duckdb, pyarrow"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("REPORT_REQUIRE_TOOLS").is_none(),
            "python3 with duckdb and pyarrow is required (pip install duckdb pyarrow)"
        );
        eprintln!("SKIPPED: python3 with duckdb and pyarrow is not installed");
    }
    ok
}

/// Run the Python `code` in `dir`, after the imports of `prelude`; it must succeed.
pub fn run_python(dir: &Path, prelude: &str, code: &str) {
    let output = Command::new("python3")
        .arg("-c")
        .arg(format!("{prelude}{code}"))
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}
