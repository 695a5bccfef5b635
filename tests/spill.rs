//! Results past the memory budget: columns and samples written to the
//! temporary file give the same statistics, charts and errors as in memory.

mod common;

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use report::results::{Store, load, load_in};

/// A study of `rows` runs: two environments, six process counts, with a key,
/// a derived column, a metric with a filter and a chart.
fn study(root: &Path, rows: usize, extra: &str) {
    fs::create_dir_all(root.join("results")).unwrap();
    fs::create_dir_all(root.join("content")).unwrap();
    let mut csv = String::from("environment,procs,run,time_s,note\n");
    for i in 0..rows {
        let env = if i % 2 == 0 { "base" } else { "cand" };
        let procs = 1 << ((i / 2) % 6);
        // A spread that repeats with period 1009, so many values repeat.
        let time = 100.0 / f64::from(procs) * (1.0 + ((i * 7919) % 1009) as f64 / 10_000.0);
        writeln!(csv, "{env},{procs},{},{time:.6},{}", i / 12, if i % 5 == 0 { "" } else { "ok" })
            .unwrap();
    }
    csv.push_str(extra);
    fs::write(root.join("results/runs.csv"), csv).unwrap();
    fs::write(
        root.join("book.toml"),
        r#"[book]
title = "Spill"
date = "2025-01-01"
[study]
baseline = "base"
[environments.base]
label = "Base"
[environments.cand]
label = "Cand"
[data.runs]
key = ["environment", "procs", "run"]
group-by = ["procs"]
columns = { time_s = "positive" }
derive = { rate = "1000 / time_s" }
scaling = { by = "procs", value = "time_s", better = "lower" }
[[metrics]]
name = "t32"
label = "Time at 32"
data = "runs"
value = "time_s"
where = { procs = { min = 16 } }
per = "procs"
better = "lower"
"#,
    )
    .unwrap();
    fs::write(root.join("content/index.md"), "# Spill\n\n{{ stat(name=\"t32\", field=\"full\") }}\n\n```chart\nid = \"t\"\nkind = \"line\"\ndata = \"runs\"\nx = \"procs\"\ny = \"rate\"\nx-scale = \"log2\"\ncaption = \"Rate.\"\n```\n").unwrap();
}

#[test]
fn a_study_on_disk_computes_what_it_computes_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    // 400,003 rows: seven chunks per column, so that both cores read several.
    study(dir.path(), 400_003, "");
    let project = report::project::load(dir.path()).unwrap();
    let in_memory = load(&project.results, &project.config).unwrap();
    let store = Store::new(0);
    let on_disk = load_in(&project.results, &project.config, &store).unwrap();
    // Every chunk of every column went to disk.
    assert!(store.spilled() > 400_003 * 8 * 5, "{} bytes on disk", store.spilled());
    let analyse = |results| {
        serde_json::to_string(&report::analysis::analyze(results, &project.config).unwrap())
            .unwrap()
    };
    assert_eq!(analyse(&on_disk), analyse(&in_memory));
    let table = &on_disk.tables["runs"];
    for (a, b) in table.columns.iter().zip(&in_memory.tables["runs"].columns) {
        assert!(a.values == b.values, "column {} differs", a.name);
    }
}

#[test]
fn a_repeated_run_far_down_a_file_on_disk_is_found() {
    let dir = tempfile::tempdir().unwrap();
    // Row 3 (line 5) is `cand,2,0,...`; its repeat is the last line, 200,002.
    study(dir.path(), 200_000, "cand,2,0,50,ok\n");
    let project = report::project::load(dir.path()).unwrap();
    let errors = load_in(&project.results, &project.config, &Store::new(0)).unwrap_err();
    let messages: Vec<String> =
        errors.0.iter().map(|d| format!("{}: {}", d.location, d.message)).collect();
    assert_eq!(
        messages,
        [
            "results/runs.csv:200002:1: duplicate run (environment = cand, procs = 2, run = 0), first seen on line 5"
        ]
    );
}

/// A temporary file that cannot be read back stops the build at the results
/// stage, naming the file and the system's error, instead of reading zeros.
#[cfg(unix)] // a write-only file's read fails with EBADF
#[test]
fn a_spill_file_that_cannot_be_read_stops_the_build() {
    let dir = tempfile::tempdir().unwrap();
    study(dir.path(), 200_003, "");
    let project = report::project::load(dir.path()).unwrap();
    let spill = dir.path().join("spill-file");
    // Opened for writing only: the chunks are written, and reading them fails.
    let store = Store::with_spill_file(fs::File::create(&spill).unwrap(), spill.clone());
    let err = load_in(&project.results, &project.config, &store).unwrap_err().to_string();
    assert!(err.contains("cannot read back the results' temporary file"), "{err}");
    assert!(err.contains(&spill.display().to_string()), "{err}");
    assert!(err.contains("Bad file descriptor (os error 9)"), "{err}");
}
