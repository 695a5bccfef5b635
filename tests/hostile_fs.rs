//! A hostile file system: writes that would leave the study (`--into` paths,
//! output folders reached through `..` or symbolic links, `report new`
//! through links), FIFOs, sockets and links where files belong (refused,
//! never a hang, `report serve` included), runs whose figures cannot be
//! right, and broken results files met by `report import`. Every refusal is
//! located, hinted, exits 1 and leaves what was there as it was.

mod common;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::*;

/// A LAMMPS log of one finished run.
const LOG: &str =
    "LAMMPS (7 Feb 2024)\nLoop time of 2.5 on 4 procs for 100 steps with 32000 atoms\n";

/// Run `report ARGS --root ROOT` (short diagnostics), failing the test if it
/// has not finished within ten seconds: a read of a FIFO would block forever.
fn within(root: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_report"))
        .args(args)
        .arg("--root")
        .arg(root)
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
fn refused(output: &Output, root: &Path, wanted: &[&str]) -> String {
    let err = stderr(output).replace(&root.display().to_string(), "STUDY");
    assert_eq!(output.status.code(), Some(1), "expected exit 1:\n{err}");
    for w in wanted {
        assert!(err.contains(w), "`{w}` not in:\n{err}");
    }
    assert!(err.contains("= help: "), "no hint:\n{err}");
    err
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success(), "{path:?}");
}

/// Write `text` to `path`, creating its folders.
fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// Every file of the study's input folders, with its bytes.
fn inputs(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let input = |p: &Path| report::project::INPUT_FOLDERS.iter().any(|f| p.starts_with(f));
    contents(root).into_iter().filter(|(p, _)| input(p)).collect()
}

/// The shared real benchmark output, or `None` (with a message) when absent.
fn fixtures() -> Option<PathBuf> {
    let path = repo().join("../shared/fixtures");
    if path.is_dir() {
        return Some(path.canonicalize().unwrap());
    }
    assert!(std::env::var_os("REPORT_REQUIRE_TOOLS").is_none(), "../shared/fixtures is required");
    eprintln!("SKIPPED: ../shared/fixtures (real benchmark output) is not next to the repository");
    None
}

#[test]
fn into_must_be_a_plain_name_of_results() {
    let study = tempfile::tempdir().unwrap();
    let root = study.path().join("study");
    fs::create_dir_all(root.join("results")).unwrap();
    let log = study.path().join("run.log");
    write(&log, LOG);
    let absolute = study.path().join("evil").display().to_string();
    for (into, why) in [
        ("../../outside/evil", "`--into ../../outside/evil` is a path"),
        (absolute.as_str(), "is a path: an import writes only to a file of results/"),
        ("evil.csv", "write `--into evil`"),
    ] {
        let args = ["import", "lammps", "--env", "x", "--into", into, log.to_str().unwrap()];
        refused(&within(&root, &args), &root, &[why, "results/osu_latency_v7.csv"]);
    }
    let written: Vec<_> = contents(study.path()).into_iter().map(|(p, _)| p).collect();
    assert_eq!(written, [PathBuf::from("run.log")], "nothing written anywhere");
    let args = ["import", "lammps", "--env", "x", "--into", "lj_v2", log.to_str().unwrap()];
    assert!(within(&root, &args).status.success());
    assert!(root.join("results/lj_v2.csv").is_file());
}

#[test]
fn output_folders_resolving_into_the_study_are_refused() {
    let study = fixture("minimal");
    let root = study.path();
    write(&root.join("templates/README.md"), "mine\n");
    write(&root.join("fonts/README.md"), "mine\n");
    symlink(root.join("content"), root.join("to-content")).unwrap();
    symlink(root, root.join("to-root")).unwrap();
    let before = inputs(root);
    for (command, out, why) in [
        ("build", "site/../content", "inside the study's `content/` folder (it leads to"),
        ("build", "site/../results/x", "`results/` folder (it leads to"),
        ("build", "to-content/site", "`content/` folder (it leads to"),
        ("build", "to-root/fonts", "`fonts/` folder (it leads to"),
        ("build", "to-root", "would replace the study folder (it leads to"),
        ("build", "..", "would replace the study folder (it leads to"),
        ("typst", "site/../templates/paper", "`templates/` folder (it leads to"),
        ("typst", "to-root/templates", "`templates/` folder (it leads to"),
    ] {
        let out = root.join(out).display().to_string();
        let args =
            if command == "build" { vec![command, "--out", &out] } else { vec![command, &out] };
        refused(&within(root, &args), root, &[why]);
    }
    // `[output] dir` is resolved alike, and `site` may not be a link into an input folder.
    edit(root, "book.toml", "[study]", "[output]\ndir = \"site/../content\"\n\n[study]");
    refused(&within(root, &["build"]), root, &["`content/` folder"]);
    edit(root, "book.toml", "dir = \"site/../content\"", "dir = \"site\"");
    symlink(root.join("results"), root.join("site")).unwrap();
    refused(&within(root, &["build"]), root, &["`results/` folder"]);
    refused(&within(root, &["check"]), root, &["`results/` folder"]);
    assert!(before == inputs(root), "an input changed");
}

#[test]
fn output_folders_outside_the_study_only_when_new_or_written_by_report() {
    let study = fixture("minimal");
    let elsewhere = tempfile::tempdir().unwrap();
    let out = elsewhere.path().join("site");
    for _ in 0..2 {
        let built = within(study.path(), &["build", "--out", out.to_str().unwrap()]);
        assert!(built.status.success(), "{}", stderr(&built));
    }
    assert!(out.join(".report-output").is_file() && out.join("index.html").is_file());
    // The study itself (book.toml, a link) cannot send the output out of it ...
    symlink(&out, study.path().join("site")).unwrap();
    refused(
        &within(study.path(), &["build"]),
        study.path(),
        &["`[output] dir` leads out of the study"],
    );
    edit(study.path(), "book.toml", "[study]", "[output]\ndir = \"../elsewhere\"\n\n[study]");
    let err = refused(&within(study.path(), &["build"]), study.path(), &["leads out of the study"]);
    assert!(err.contains("error: book.toml:6:7: "), "at the value in book.toml:\n{err}");
    // ... but the user may: a link named with --out is followed, and stays a link.
    let linked =
        within(study.path(), &["build", "--out", study.path().join("site").to_str().unwrap()]);
    assert!(linked.status.success(), "{}", stderr(&linked));
    assert!(fs::symlink_metadata(study.path().join("site")).unwrap().file_type().is_symlink());
    // A folder report did not write is never replaced.
    write(&elsewhere.path().join("notes.txt"), "mine");
    let foreign = ["build", "--out", elsewhere.path().to_str().unwrap()];
    refused(&within(study.path(), &foreign), study.path(), &["not written by report"]);
    assert_eq!(fs::read_to_string(elsewhere.path().join("notes.txt")).unwrap(), "mine");
}

#[test]
fn report_new_never_writes_through_a_symbolic_link() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target");
    fs::create_dir(&target).unwrap();
    symlink(&target, dir.path().join("link")).unwrap();
    symlink(dir.path().join("nowhere"), dir.path().join("dangling")).unwrap();
    write(&dir.path().join("file"), "x");
    for (name, why) in [
        ("link", "the folder is a symbolic link (to `"),
        ("dangling", "the folder is a symbolic link (to nowhere)"),
        ("file", "a file of this name exists"),
    ] {
        let output = within(dir.path(), &["new", dir.path().join(name).to_str().unwrap()]);
        refused(&output, dir.path(), &[why]);
    }
    assert_eq!(fs::read_dir(&target).unwrap().count(), 0, "nothing written through the link");
    assert!(!dir.path().join("nowhere").exists());
    let made = within(dir.path(), &["new", target.to_str().unwrap()]);
    assert!(made.status.success(), "an empty folder is fine: {}", stderr(&made));
}

/// A FIFO, a socket, a link to a folder or a broken link where the build
/// reads a file: each is refused by name, without a hang.
#[test]
fn special_files_in_the_inputs_are_refused_by_name_without_a_hang() {
    type Make = fn(&Path);
    let fifo: Make = mkfifo;
    let socket: Make = |p| drop(std::os::unix::net::UnixListener::bind(p).unwrap());
    let to_folder: Make = |p| symlink("..", p).unwrap();
    let broken: Make = |p| symlink("nowhere.csv", p).unwrap();
    let cases: [(&str, Make, &str); 9] = [
        ("results/pipe.csv", fifo, "not a regular file but a named pipe (FIFO)"),
        ("content/pipe.md", fifo, "named pipe (FIFO)"),
        ("content/references.bib", fifo, "named pipe (FIFO)"),
        ("content/image.png", socket, "not a regular file but a socket"),
        ("templates/page.html", fifo, "named pipe (FIFO)"),
        ("templates/partials/footer.html", socket, "socket"),
        ("fonts/Body.ttf", fifo, "named pipe (FIFO)"),
        ("results/folder.csv", to_folder, "a symbolic link to a folder"),
        ("results/broken.csv", broken, "broken symbolic link"),
    ];
    for (file, make, why) in cases {
        let study = fixture("minimal");
        let root = study.path();
        assert!(within(root, &["build"]).status.success());
        let site = contents(&root.join("site"));
        fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
        make(&root.join(file));
        refused(&within(root, &["build"]), root, &[&format!("error: {file}: "), why]);
        assert!(site == contents(&root.join("site")), "{file}: the previous output changed");
    }
    let study = fixture("minimal");
    fs::rename(study.path().join("book.toml"), study.path().join("book.real")).unwrap();
    mkfifo(&study.path().join("book.toml"));
    refused(&within(study.path(), &["check"]), study.path(), &["book.toml: not a regular file"]);
}

#[test]
fn links_inside_the_study_are_followed_to_regular_files_only() {
    let study = fixture("minimal");
    let root = study.path();
    write(&root.join("shared/more.md"), "# More\n\nLinked in from shared/.\n");
    symlink("../shared/more.md", root.join("content/more.md")).unwrap();
    let output = within(root, &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(fs::read_to_string(root.join("site/more.html")).unwrap().contains("Linked in"));
    mkfifo(&root.join("shared/pipe"));
    symlink("../shared/pipe", root.join("content/pipe.md")).unwrap();
    let why = "content/pipe.md: not a regular file but a symbolic link to a named pipe (FIFO)";
    refused(&within(root, &["build"]), root, &[why]);
    let real = root.canonicalize().unwrap();
    let found = report::project::regular_file(&real, Path::new("content/more.md")).unwrap();
    assert_eq!(found, Some(real.join("shared/more.md")));
    assert!(report::project::regular_file(&real, Path::new("shared/pipe")).is_err());
}

/// A `report serve` process, stopped when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The body of `GET /__report/status` from the server at `address`.
fn status(address: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(stream, "GET /__report/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut body = String::new();
    stream.read_to_string(&mut body).unwrap();
    body
}

#[test]
fn serve_shows_a_fifo_as_an_error_recovers_when_it_goes_and_does_not_walk_links() {
    use std::io::BufRead;
    let study = fixture("minimal");
    mkfifo(&study.path().join("results/pipe.csv"));
    // Followed, these links would have the watcher walk /usr four times (seconds each).
    for i in 0..4 {
        symlink("/usr", study.path().join(format!("content/usr-{i}"))).unwrap();
    }
    let mut server = Server(
        Command::new(env!("CARGO_BIN_EXE_report"))
            .args(["serve", "--port", "0", "--root"])
            .arg(study.path())
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let (tx, rx) = std::sync::mpsc::channel();
    let lines = std::io::BufReader::new(server.0.stderr.take().unwrap()).lines();
    std::thread::spawn(move || lines.map_while(Result::ok).for_each(|l| drop(tx.send(l))));
    let start = Instant::now();
    let address = loop {
        let line = rx.recv_timeout(Duration::from_secs(10)).expect("serve hung or exited");
        if let Some(rest) = line.strip_prefix("serving http://") {
            break rest.split('/').next().unwrap().to_string();
        }
    };
    assert!(start.elapsed() < Duration::from_secs(3), "slow to start: were the links walked?");
    let first = status(&address);
    assert!(first.contains("results/pipe.csv: not a regular file but a named pipe"), "{first}");
    fs::remove_file(study.path().join("results/pipe.csv")).unwrap();
    while status(&address).contains("pipe.csv") {
        assert!(start.elapsed() < Duration::from_secs(10), "no recovery after the FIFO went");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn special_files_given_to_import_are_refused_by_name_and_the_rest_imports() {
    let study = tempfile::tempdir().unwrap();
    let logs = study.path().join("logs");
    write(&logs.join("a-good.log"), LOG);
    mkfifo(&logs.join("b-pipe.log"));
    symlink("nowhere", logs.join("c-broken.log")).unwrap();
    symlink(study.path(), logs.join("d-folder")).unwrap();
    let output = within(study.path(), &["import", "lammps", "--env", "x", logs.to_str().unwrap()]);
    let err = refused(&output, study.path(), &["added 1 row to results/lammps.csv", "3 refused"]);
    let pipe = logs.join("b-pipe.log");
    let pipe = ["import", "lammps", "--env", "x", pipe.to_str().unwrap()];
    refused(&within(study.path(), &pipe), study.path(), &["b-pipe.log: not a regular"]);
    let missing = within(study.path(), &["import", "lammps", "--env", "x", "no-such-log"]);
    refused(&missing, study.path(), &["no-such-log: no such file or folder to import"]);
    insta::assert_snapshot!("import_special_files", err);
}

#[test]
fn an_import_never_waits_on_a_fifo_in_the_study() {
    // The study's own book.toml and results file as FIFOs: an open that waits
    // for a writer would hang the import (the test's timeout would fail it).
    let study = tempfile::tempdir().unwrap();
    let log = study.path().join("run.log");
    write(&log, LOG);
    fs::create_dir(study.path().join("results")).unwrap();
    mkfifo(&study.path().join("book.toml"));
    mkfifo(&study.path().join("results/lammps.csv"));
    let output = within(study.path(), &["import", "lammps", "--env", "x", log.to_str().unwrap()]);
    refused(&output, study.path(), &["results/lammps.csv: not a regular file but a named pipe"]);
}

#[test]
fn runs_whose_figures_cannot_be_right_are_refused_by_name() {
    let Some(f) = fixtures() else { return };
    let melt = fs::read_to_string(f.join("lammps-official/log.8Apr21.melt.g++.4")).unwrap();
    let study = tempfile::tempdir().unwrap();
    let logs = study.path().join("logs");
    let cases = [
        ("loop-nan.log:59", "Loop time of 0.490832", "Loop time of nan", "the loop time is `nan`"),
        ("loop-inf.log:59", "Loop time of 0.490832", "Loop time of inf", "the loop time is `inf`"),
        ("procs.log:59", "on 4 procs", "on -4 procs", "the process count is `-4`"),
        ("steps.log:59", "for 250 steps", "for 0 steps", "the step count is 0"),
        ("atoms.log:59", "with 4000 atoms", "with 1e30 atoms", "the atom count is `1e30`"),
        (
            "rate.log:61",
            "509.340 timesteps/s",
            "-nan timesteps/s",
            "the Performance line gives NaN",
        ),
        ("cpu.log:62", "96.7% CPU", "inf% CPU", "the CPU use is inf%"),
        (
            "pair.log:67",
            "|   1.9 | 75.90",
            "|   1.9 | nan",
            "the timing breakdown gives Pair `nan`",
        ),
    ];
    for (name, from, to, _) in cases {
        assert!(melt.contains(from), "`{from}` not in the melt log");
        write(&logs.join(name.split(':').next().unwrap()), &melt.replacen(from, to, 1));
    }
    write(&logs.join("zz-good.log"), &melt);
    let output = within(study.path(), &["import", "lammps", "--env", "x", logs.to_str().unwrap()]);
    let err = refused(
        &output,
        study.path(),
        &["added 1 row", "0 files skipped as already imported, 8 refused"],
    );
    for (name, _, _, why) in cases {
        assert!(err.contains(&format!("{name}:1: {why}")), "{name}: {why}\n{err}");
    }
    let rows = fs::read_to_string(study.path().join("results/lammps.csv")).unwrap();
    assert_eq!(rows.lines().count(), 2, "the header and the good run:\n{rows}");
}

/// The title and header of an OSU latency table.
const OSU_LATENCY: &str = "# OSU MPI Latency Test v5.8\n# Size          Latency (us)\n";

#[test]
fn osu_values_that_are_not_finite_refuse_the_whole_file_and_counts_start_at_one() {
    let study = tempfile::tempdir().unwrap();
    let path = |p: &str| study.path().join(p).display().to_string();
    let good = format!("{OSU_LATENCY}0      7.46\n1      7.49\n");
    write(Path::new(&path("a-good.out")), &good);
    write(Path::new(&path("b-two-runs.out")), &format!("{good}{OSU_LATENCY}0   -nan\n"));
    write(Path::new(&path("x/osu-0-1.out")), &good);
    let osu =
        |extra: &[&str]| within(study.path(), &[&["import", "osu", "--env", "x"], extra].concat());
    assert!(osu(&["--nodes", "2", &path("a-good.out")]).status.success());
    let why = "b-two-runs.out:7:1: the osu_latency table gives latency_us `-nan`";
    refused(&osu(&["--nodes", "2", &path("b-two-runs.out")]), study.path(), &[why]);
    let rows = fs::read_to_string(path("results/osu_latency.csv")).unwrap();
    assert_eq!(rows.lines().count(), 3, "only a-good.out's two rows:\n{rows}");
    let pattern = ["--pattern", "{env}/osu-{nodes}-{run}.out", &path("x")];
    refused(&osu(&pattern), study.path(), &["osu-0-1.out: the path gives {nodes} = 0"]);
    for flag in ["--nodes", "--procs"] {
        let output = osu(&[flag, "0", &path("a-good.out")]);
        assert_eq!(output.status.code(), Some(2), "a count of 0 is a wrong command line");
        assert!(stderr(&output).contains("0 is not in 1.."), "{}", stderr(&output));
    }
}

/// A study in `dir`/study with one imported run in results/lammps.csv: the
/// study's root, that file's bytes, and the log of a second run.
fn imported_once(dir: &Path) -> (PathBuf, Vec<u8>, PathBuf) {
    let (root, log) = (dir.join("study"), dir.join("run.log"));
    write(&log, LOG);
    fs::create_dir_all(root.join("results")).unwrap();
    assert!(
        within(&root, &["import", "lammps", "--env", "x", log.to_str().unwrap()]).status.success()
    );
    write(&log, &LOG.replace("2.5", "2.6"));
    (root.clone(), fs::read(root.join("results/lammps.csv")).unwrap(), log)
}

#[test]
fn broken_results_files_met_by_import_are_named_and_left_as_they_were() {
    let study = tempfile::tempdir().unwrap();
    let (root, good, log) = imported_once(study.path());
    let csv = root.join("results/lammps.csv");
    let row =
        String::from_utf8(good.clone()).unwrap().lines().nth(1).unwrap().replace(",1,3", ",one,3");
    let with = |extra: &[u8]| [&good, extra].concat();
    let cases = [
        (with(b"x,\xff\n"), "results/lammps.csv:3:3: this results file is not valid UTF-8"),
        (with(b"x,1,2\n"), "results/lammps.csv:3:1: this row has 3 fields; the header has 22"),
        (
            with(row.as_bytes()),
            "results/lammps.csv:3:8: column `run`: expected a whole number, found `one`",
        ),
        (b"a,a\n1,2\n".to_vec(), "results/lammps.csv:1:1: column `a` is named twice in the header"),
    ];
    let mut all = String::new();
    for (bytes, why) in cases {
        fs::write(&csv, &bytes).unwrap();
        let output = within(&root, &["import", "lammps", "--env", "x", log.to_str().unwrap()]);
        all.push_str(&refused(&output, &root, &[why]));
        assert_eq!(fs::read(&csv).unwrap(), bytes, "{why}: the file changed");
    }
    insta::assert_snapshot!("import_broken_results_files", all);
}

#[test]
fn import_writes_only_to_a_regular_file_inside_the_study() {
    let study = tempfile::tempdir().unwrap();
    let (root, good, log) = imported_once(study.path());
    let (csv, outside) = (root.join("results/lammps.csv"), study.path().join("outside"));
    let import = || within(&root, &["import", "lammps", "--env", "x", log.to_str().unwrap()]);
    let mut all = String::new();
    fs::remove_file(&csv).unwrap();
    mkfifo(&csv);
    all.push_str(&refused(
        &import(),
        &root,
        &["results/lammps.csv: not a regular file but a named pipe"],
    ));
    fs::remove_file(&csv).unwrap();
    fs::create_dir(&csv).unwrap();
    all.push_str(&refused(
        &import(),
        &root,
        &["results/lammps.csv: not a regular file but a folder"],
    ));
    fs::remove_dir(&csv).unwrap();
    write(&outside.join("lammps.csv"), std::str::from_utf8(&good).unwrap());
    symlink(outside.join("lammps.csv"), &csv).unwrap();
    all.push_str(&refused(&import(), &root, &["results/lammps.csv: path leaves the study folder"]));
    fs::remove_file(&csv).unwrap();
    fs::rename(root.join("results"), study.path().join("kept")).unwrap();
    symlink(&outside, root.join("results")).unwrap();
    all.push_str(&refused(
        &import(),
        &root,
        &["results: `results` is not a folder inside the study"],
    ));
    assert_eq!(fs::read(outside.join("lammps.csv")).unwrap(), good, "nothing written outside");
    assert_eq!(fs::read_dir(&outside).unwrap().count(), 1);
    insta::assert_snapshot!("import_targets_that_are_not_files_of_the_study", all);
}
