//! A hostile file system met by `report import`: special files given to it
//! or standing in the study, `--into` paths, runs whose figures cannot be
//! right, and broken results files or import targets that are not files of
//! the study. Every refusal is located, hinted, exits 1 and leaves what was
//! there as it was. The tests that make FIFOs or links run on Unix only.

use std::fs;
#[cfg(unix)]
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use crate::common;
#[cfg(unix)]
use common::hostile::mkfifo;
use common::hostile::{LOG, refused, within, write};
use common::*;

#[cfg(unix)] // FIFOs and links
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

#[cfg(unix)] // FIFOs and links
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
fn runs_whose_figures_cannot_be_right_are_refused_by_name() {
    let Some(f) = shared_fixtures() else { return };
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

#[cfg(unix)] // FIFOs and links
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
