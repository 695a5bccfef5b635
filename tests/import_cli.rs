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
