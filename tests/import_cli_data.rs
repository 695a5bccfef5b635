//! `report import` and the data it is given: `*` and `**` in patterns,
//! importing into the shipped study, and hand-made edge cases (concatenated
//! logs, a killed run, YAML, mixed benchmarks, hostile and garbage input,
//! sources relative to the study). (Help and messages: import_cli.rs.)

use std::fs;
use std::path::Path;

use crate::common;
use common::import::{import, input, new_study};
use common::*;

/// The text of `results/NAME` in the study at `root`.
fn csv(root: &Path, name: &str) -> String {
    fs::read_to_string(root.join("results").join(name)).unwrap()
}

#[test]
fn wildcards_take_paths_whose_parts_carry_no_label() {
    let Some(f) = shared_fixtures() else { return };
    let dir = new_study();
    // bare-metal/osu_latency-7.out and usernetes/osu-latency-32-7.out alike.
    let output = import(
        dir.path(),
        &[
            "osu",
            "--nodes",
            "2",
            "--pattern",
            "{env}/*-{run}.out",
            f.join("flux-usernetes/osu").to_str().unwrap(),
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("added 920 rows to results/osu_bw.csv"),
        "{}",
        stderr(&output)
    );
    assert!(
        stderr(&output).contains("added 960 rows to results/osu_latency.csv"),
        "{}",
        stderr(&output)
    );
    let text = csv(dir.path(), "osu_latency.csv");
    assert!(text.contains("\nusernetes,2,2,7,osu_latency,0,"), "{text}");
    let deep = new_study();
    let output = import(
        deep.path(),
        &[
            "lammps",
            "--env",
            "x",
            "--pattern",
            "**/lammps-{nodes}-*-{run}.out",
            f.join("flux-usernetes/lammps").to_str().unwrap(),
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(csv(deep.path(), "lammps.csv").lines().count(), 161);
}

#[test]
fn the_shipped_study_takes_imported_runs_and_still_checks() {
    let Some(f) = shared_fixtures() else { return };
    let study = shipped_study();
    let root = study.path();
    let before = csv(root, "lammps.csv");
    let logs = f.join("flux-usernetes/lammps/usernetes");
    let args = [
        "lammps",
        "--env",
        "kubernetes",
        "--pattern",
        "lammps-{nodes}-{procs}-{run}.out",
        logs.to_str().unwrap(),
    ];
    let output = import(root, &args);
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    assert!(err.contains("added 80 rows to results/lammps.csv"), "{err}");
    assert!(err.contains("columns `lammps_version`, `run_in_file`, `source`, `source_sha256`, `total_wall_time_s`"), "{err}");
    let after = csv(root, "lammps.csv");
    let old: Vec<&str> = before.lines().collect();
    let new: Vec<&str> = after.lines().collect();
    assert_eq!(new.len(), old.len() + 80);
    assert_eq!(
        new[0],
        format!("{},total_wall_time_s,lammps_version,run_in_file,source,source_sha256", old[0])
    );
    for (was, is) in old[1..].iter().zip(&new[1..old.len()]) {
        assert_eq!(*is, format!("{was},,,,,"), "an existing row changed");
    }
    assert!(
        new[old.len()..]
            .iter()
            .all(|r| r.starts_with("kubernetes,") && r.contains(",usernetes/lammps-"))
    );
    // The file still meets the CSV contract (types, key, row lengths): what
    // `check` finds is only that the study's pooled metrics (atoms, steps,
    // nodes) now span two workloads, as they should.
    let check = report(root, &["check"]);
    assert!(!stderr(&check).contains("results/lammps.csv"), "{}", stderr(&check));
    let again = import(root, &args);
    assert!(stderr(&again).contains("80 files skipped as already imported"), "{}", stderr(&again));
    assert_eq!(csv(root, "lammps.csv"), after);
}

#[test]
fn concatenated_logs_a_killed_run_and_yaml_give_one_row_per_finished_run() {
    let dir = new_study();
    let output = import(
        dir.path(),
        &["lammps", "--env", "x", &input("concatenated.log"), &input("capture.yaml")],
    );
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    assert!(
        err.contains("warning: the LAMMPS run that starts here has no `Loop time` line"),
        "{err}"
    );
    assert!(err.contains("concatenated.log:26:1"), "{err}");
    let text = csv(dir.path(), "lammps.csv");
    let rows: Vec<&str> = text.lines().skip(1).collect();
    // By hand from the files: srun -N 2 -n 8 / -N 4 -n 16; wall 0:00:02 and 0:01:01; YAML's two runs.
    assert!(
        rows[0].starts_with(
            "x,2,8,8,1,1,32000,200,1.25,160,98.5,76,10,10,0,3,1,2,2 Aug 2023,1,import/concatenated.log,"
        ),
        "{}",
        rows[0]
    );
    assert!(
        rows[1].starts_with(
            "x,4,16,16,1,1,32000,200,0.8,250,97,,,,,,,61,2 Aug 2023,2,import/concatenated.log,"
        ),
        "{}",
        rows[1]
    );
    assert!(rows[2].starts_with("x,,1408,1408,1,1,2432,100,6.50231,15.379,55.8,9.9,,,,,0.02,6,29 Sep 2021 - Update 2,1,import/capture.yaml,"), "{}", rows[2]);
    assert!(
        rows[3].starts_with(
            "x,,1408,,,2,2432,100,6.83839,14.623,,,,,,,,7,29 Sep 2021 - Update 2,2,import/capture.yaml,"
        ),
        "{}",
        rows[3]
    );
    assert_eq!(rows.len(), 4);
}

/// The header of a results CSV, and the `benchmark` of each of its rows.
fn header_and_benchmarks(text: &str) -> (::csv::StringRecord, Vec<String>) {
    let mut reader = ::csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().unwrap().clone();
    let at = header.iter().position(|h| h == "benchmark").unwrap();
    let benchmarks = reader.records().map(|r| r.unwrap()[at].to_string()).collect();
    (header, benchmarks)
}

#[test]
fn mixed_benchmarks_stay_apart_even_in_one_file() {
    let dir = new_study();
    let output = import(dir.path(), &["osu", "--env", "x", &input("mixed_osu.out")]);
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    assert!(
        err.contains("osu_hello holds no measurements: skipped")
            && err.contains("the osu_bw table has no rows"),
        "{err}"
    );
    assert_eq!(
        csv(dir.path(), "osu_barrier.csv")
            .lines()
            .nth(1)
            .unwrap()
            .split(',')
            .take(6)
            .collect::<Vec<_>>(),
        ["x", "2", "8", "1", "osu_barrier", "3.25"]
    );
    assert!(csv(dir.path(), "osu_latency.csv").starts_with("environment,nodes,procs,run,benchmark,size_bytes,latency_us,min_latency_us,max_latency_us,iterations,osu_version,"));
    assert!(
        csv(dir.path(), "osu_allreduce.csv")
            .contains("\nx,,8,1,osu_allreduce,4,2.1,pass,7.3,1,import/mixed_osu.out,")
    );
    // Into one file: every column of every benchmark, each row with its benchmark.
    let one = new_study();
    assert!(
        import(one.path(), &["osu", "--env", "x", "--into", "all", &input("mixed_osu.out")])
            .status
            .success()
    );
    let (header, benchmarks) = header_and_benchmarks(&csv(one.path(), "all.csv"));
    assert_eq!(
        benchmarks,
        [
            "osu_allreduce",
            "osu_allreduce",
            "osu_barrier",
            "osu_latency",
            "osu_latency",
            "osu_mbw_mr",
            "osu_mbw_mr"
        ]
    );
    assert!(
        header.iter().any(|h| h == "messages_per_s") && header.iter().any(|h| h == "validation")
    );
}

#[test]
fn hostile_and_garbage_input_stays_data_or_is_refused_without_a_panic() {
    let dir = new_study();
    let output = import(dir.path(), &["lammps", "--env", "<b>x</b>", &input("hostile.log")]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = csv(dir.path(), "lammps.csv");
    let mut reader = ::csv::Reader::from_reader(text.as_bytes());
    let row = reader.records().next().unwrap().unwrap();
    assert_eq!((&row[0], &row[18]), ("<b>x</b>", "<script>alert(1)</script>"));
    let output = import(dir.path(), &["osu", "--env", "x", &input("hostile_osu.out")]);
    assert!(output.status.success(), "{}", stderr(&output));
    let osu = fs::read_dir(dir.path().join("results"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("osu_"))
        .collect::<Vec<_>>();
    assert_eq!(osu, ["osu_img_src_x_onerror_alert_1.csv"]);
    let header = csv(dir.path(), &osu[0]).lines().next().unwrap().to_string();
    assert!(
        header.split(',').all(|c| c
            .chars()
            .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_')),
        "{header}"
    );
    assert!(header.contains(",b_latency_b_us,"), "{header}");
    // Garbage, deep nesting and a huge count: refused by name, never a panic.
    let junk = tempfile::tempdir().unwrap();
    fs::write(
        junk.path().join("binary.out"),
        (0..=255u8).cycle().take(70_000).collect::<Vec<u8>>(),
    )
    .unwrap();
    fs::write(junk.path().join("deep.json"), "[".repeat(200_000)).unwrap();
    fs::write(junk.path().join("deep.yaml"), format!("---\n{}", "- ".repeat(50_000))).unwrap();
    fs::write(junk.path().join("huge.log"), "LAMMPS (1 Jan 2020)\nLoop time of 1 on 99999999999999999999999 procs for 1 steps with 1 atoms\n").unwrap();
    for tool in ["lammps", "osu"] {
        let output = import(dir.path(), &[tool, "--env", "x", junk.path().to_str().unwrap()]);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{tool}: {err}");
        assert!(!err.contains("panicked"), "{tool}: {err}");
        assert!(err.contains("4 refused"), "{tool}: {err}");
    }
}

#[test]
fn sources_are_relative_to_the_study_or_the_folder_given() {
    let dir = new_study();
    fs::create_dir_all(dir.path().join("raw/run1")).unwrap();
    fs::copy(input("hostile.log"), dir.path().join("raw/run1/a.log")).unwrap();
    let output =
        import(dir.path(), &["lammps", "--env", "x", dir.path().join("raw").to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let outside = tempfile::tempdir().unwrap();
    fs::create_dir_all(outside.path().join("logs/deep")).unwrap();
    fs::copy(input("concatenated.log"), outside.path().join("logs/deep/b.log")).unwrap();
    assert!(
        import(
            dir.path(),
            &["lammps", "--env", "x", outside.path().join("logs").to_str().unwrap()]
        )
        .status
        .success()
    );
    let text = csv(dir.path(), "lammps.csv");
    let sources: Vec<&str> = text.lines().skip(1).map(|l| l.rsplit(',').nth(1).unwrap()).collect();
    assert_eq!(sources, ["raw/run1/a.log", "logs/deep/b.log", "logs/deep/b.log"]);
    assert!(
        !text.contains(outside.path().to_str().unwrap())
            && !text.contains(dir.path().to_str().unwrap())
    );
}
