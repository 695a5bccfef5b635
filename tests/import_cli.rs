//! `report import` as a user reads it: help with examples per importer,
//! singular and plural counts, refusals grouped by cause, one warning for an
//! environment book.toml lacks, and JSON diagnostics. (What it makes of the
//! data: import_cli_data.rs.)

use std::fs;

use crate::common;
use common::import::{import, input, new_study, run};
use common::*;

#[test]
fn each_importer_has_its_own_help_with_examples() {
    let dir = new_study();
    let help = |args: &[&str]| String::from_utf8_lossy(&run(dir.path(), args).stdout).into_owned();
    let (all, lammps, osu) = (
        help(&["import", "--help"]),
        help(&["import", "lammps", "--help"]),
        help(&["import", "osu", "--help"]),
    );
    assert!(all.contains("lammps") && all.contains("osu") && all.contains("Examples:"), "{all}");
    assert_ne!(lammps, all);
    assert_ne!(osu, lammps);
    assert!(
        lammps.contains("Examples:") && lammps.contains("report import lammps --pattern"),
        "{lammps}"
    );
    assert!(
        osu.contains("Examples:") && osu.contains("osu_mbw_mr") && osu.contains("jsrun"),
        "{osu}"
    );
}

#[test]
fn counts_are_singular_or_plural() {
    let dir = new_study();
    let log = input("concatenated.log");
    let dry = import(dir.path(), &["lammps", "--env", "x", "--dry-run", &input("hostile.log")]);
    assert!(stderr(&dry).contains("would add 1 row to results/lammps.csv\n"), "{}", stderr(&dry));
    let first = import(dir.path(), &["lammps", "--env", "x", &log]);
    assert!(
        stderr(&first).contains("added 2 rows to results/lammps.csv\n0 files skipped"),
        "{}",
        stderr(&first)
    );
    let again = import(dir.path(), &["lammps", "--env", "x", &log]);
    assert!(
        stderr(&again).contains("1 file skipped as already imported, 0 refused"),
        "{}",
        stderr(&again)
    );
    assert!(!stderr(&again).contains(" 1 rows") && !stderr(&again).contains("1 files"));
}

#[test]
fn a_folder_of_mixed_names_gives_one_error_with_the_count_and_examples() {
    let dir = new_study();
    let folder = tempfile::tempdir().unwrap();
    let log = fs::read(input("concatenated.log")).unwrap();
    for i in 1..=3 {
        fs::write(
            folder.path().join(format!("lammps-2-8-{i}.out")),
            [&log[..], format!("\n# {i}\n").as_bytes()].concat(),
        )
        .unwrap();
    }
    for i in 1..=12 {
        fs::write(folder.path().join(format!("notes-{i:02}.txt")), "x").unwrap();
    }
    let output = import(
        dir.path(),
        &[
            "lammps",
            "--env",
            "x",
            "--pattern",
            "lammps-{nodes}-{procs}-{run}.out",
            folder.path().to_str().unwrap(),
        ],
    );
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert_eq!(err.matches("error:").count(), 1, "{err}");
    assert!(err.contains("the path does not match the pattern `lammps-{nodes}-{procs}-{run}.out` (12 files refused: "), "{err}");
    assert!(err.contains("notes-01.txt, ") && err.contains("notes-03.txt and 9 more)"), "{err}");
    assert!(err.contains("added 6 rows to results/lammps.csv"), "{err}");
    assert!(err.contains("0 files skipped as already imported, 12 refused"), "{err}");
}

const BOOK: &str = "[book]\ntitle = \"t\"\ndate = \"2024-01-01\"\n\n[study]\nbaseline = \"bare-metal\"\n\n[environments.bare-metal]\nlabel = \"Bare metal\"\n";

#[test]
fn an_environment_book_toml_lacks_is_one_warning_naming_its_section() {
    let Some(f) = shared_fixtures() else { return };
    let dir = new_study();
    fs::write(dir.path().join("book.toml"), BOOK).unwrap();
    let output = import(
        dir.path(),
        &[
            "lammps",
            "--pattern",
            "{env}/lammps-{nodes}-{procs}-{run}.out",
            f.join("flux-usernetes/lammps").to_str().unwrap(),
        ],
    );
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    assert_eq!(err.matches("warning:").count(), 1, "{err}");
    assert!(err.contains("environment `usernetes` of 80 imported rows is not declared in book.toml (declared: `bare-metal`)"), "{err}");
    assert!(err.contains("add a section `[environments.usernetes]`"), "{err}");
}

#[test]
fn json_diagnostics_are_one_array_of_errors_and_warnings() {
    let dir = new_study();
    let args = [
        "--message-format",
        "json",
        "osu",
        "--env",
        "x",
        &input("mixed_osu.out"),
        &input("hostile.log"),
    ];
    let output = run(dir.path(), &[&["import"][..], &args].concat());
    assert_eq!(output.status.code(), Some(1));
    let all: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let levels: Vec<&str> =
        all.as_array().unwrap().iter().map(|d| d["level"].as_str().unwrap()).collect();
    assert_eq!(levels, ["error", "warning", "warning"], "{all}");
    assert_eq!(all[0]["message"], "no OSU output: no `# OSU MPI … Test` title line");
    assert_eq!((all[1]["line"].as_u64(), all[2]["line"].as_u64()), (Some(20), Some(29)));
}

/// ReFrame 3 perflogs have no header: the default format's lines need no
/// option, another site's are read by its handler's `format`, and a
/// format that names no field is a usage error. (Lines written by
/// ReFrame 3.12.0; the values below are read off them by hand.)
#[test]
fn reframe_3_perflogs_import_by_their_format() {
    let dir = new_study();
    let logs = tempfile::tempdir().unwrap();
    let default = logs.path().join("SleepCheck.log");
    fs::write(
        &default,
        "2026-12-02T11:37:43|reframe 3.12.0|SleepCheck @generic:default+builtin|jobid=13391|elapsed=0.010161161422729492|ref=0.01 (l=null, u=0.5)|s\n\
         2026-12-02T11:37:43|reframe 3.12.0|SleepCheck @generic:default+builtin|jobid=13391|rate=12.5|ref=12.0 (l=-0.1, u=0.1)|MB/s\n",
    )
    .unwrap();
    let output = import(dir.path(), &["reframe", "--env", "a", default.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let csv = fs::read_to_string(dir.path().join("results/reframe.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = |name: &str| row[header.iter().position(|h| *h == name).expect(name)];
    assert_eq!(
        (at("jobid"), at("elapsed_s"), at("rate"), at("rate_unit")),
        ("13391", "0.010161161422729492", "12.5", "MB/s")
    );
    assert_eq!(lines.next(), None, "one run, one row");

    let site = logs.path().join("site.log");
    fs::write(&site, "2026-12-02T12:06:27,SleepCheck,laptop,1,elapsed,0.010132312774658203,s\n")
        .unwrap();
    let format = "%(check_job_completion_time)s,%(check_name)s,%(check_system)s,%(check_num_tasks)s,%(check_perf_var)s,%(check_perf_value)s,%(check_perf_unit)s";
    let args = ["reframe", "--env", "b", "--into", "site", "--perflog-format", format];
    let output = import(dir.path(), &[&args[..], &[site.to_str().unwrap()]].concat());
    assert!(output.status.success(), "{}", stderr(&output));
    let csv = fs::read_to_string(dir.path().join("results/site.csv")).unwrap();
    assert!(csv.contains(",SleepCheck,laptop,1,0.010132312774658203,s,"), "{csv}");

    let wrong =
        import(dir.path(), &["reframe", "--perflog-format", "no field", site.to_str().unwrap()]);
    assert_eq!(wrong.status.code(), Some(2), "{}", stderr(&wrong));
    assert!(stderr(&wrong).contains("names no field"), "{}", stderr(&wrong));
}
