//! `report import hyperfine|gbench|pytest-benchmark|reframe|criterion` on
//! output the real tools wrote: the committed fixtures
//! (tests/fixtures/import/tools/, see its README) and, where the tool is
//! installed (always in CI), a tiny benchmark run now. Every value of every
//! row is compared with an independent parse in Python
//! (tests/import_tools_oracle.py).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;
use common::import::{import, new_study};
use common::*;

/// The committed output of `tool`.
fn fixture(tool: &str) -> PathBuf {
    repo().join("tests/fixtures/import/tools").join(tool)
}

/// The rows of `results/NAME.csv` of the study at `root`, column → cell.
fn rows(root: &Path, name: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(root.join("results").join(name)).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_string).collect();
    reader
        .records()
        .map(|r| header.iter().cloned().zip(r.unwrap().iter().map(str::to_string)).collect())
        .collect()
}

/// What Python reads in `path` as `format`: the rows report must write.
fn oracle(format: &str, path: &Path) -> Option<Vec<serde_json::Value>> {
    let python = python()?;
    let out = Command::new(python)
        .arg(repo().join("tests/import_tools_oracle.py"))
        .arg(format)
        .arg(path)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// Import `path` as `format` into a new study and compare every row with
/// Python's reading, matched on the `key` columns; numbers must be equal
/// as doubles, text equal as text.
fn compare(format: &str, path: &Path, target: &str, key: &[&str]) -> usize {
    let Some(expected) = oracle(format, path) else { return 0 };
    let study = new_study();
    let output = import(study.path(), &[format, "--env", "here", path.to_str().unwrap()]);
    assert!(output.status.success(), "{format}: {}", stderr(&output));
    let got = rows(study.path(), target);
    assert_eq!(got.len(), expected.len(), "{format}: one row per run");
    for want in &expected {
        let want = want.as_object().unwrap();
        let cell = |row: &std::collections::BTreeMap<String, String>, k: &str| {
            let w = &want[k];
            row[k] == w.as_str().map_or_else(|| w.to_string(), str::to_string)
        };
        let matches: Vec<_> = got.iter().filter(|row| key.iter().all(|k| cell(row, k))).collect();
        assert_eq!(matches.len(), 1, "{format}: {want:?}");
        for (column, value) in want {
            let cell = &matches[0][column];
            match value {
                serde_json::Value::Number(n) => {
                    let parsed: f64 = cell.parse().unwrap_or(f64::NAN);
                    assert_eq!(parsed, n.as_f64().unwrap(), "{format}: {column} of {want:?}");
                }
                serde_json::Value::String(s) => assert_eq!(cell, s, "{format}: {column}"),
                other => assert_eq!(cell, &other.to_string(), "{format}: {column}"),
            }
        }
        assert_eq!(matches[0]["environment"], "here");
    }
    expected.len()
}

#[test]
fn hyperfine_exports_match_python_every_run() {
    let key = ["command", "run_in_file"];
    let compressors = repo().join("examples/compressors/raw");
    for file in fs::read_dir(&compressors).unwrap() {
        let path = file.unwrap().path();
        assert_eq!(compare("hyperfine", &path, "hyperfine.csv", &key) % 10, 0, "{path:?}");
    }
    // A failing command run with -i: every run's exit code.
    let codes = fixture("hyperfine/exit-codes.json");
    assert_eq!(compare("hyperfine", &codes, "hyperfine.csv", &key), 10);
}

#[test]
fn gbench_repetitions_match_python_and_aggregates_and_errors_are_said() {
    let key = ["benchmark", "run_in_file"];
    // 5 benchmarks × 3 repetitions; BM_Fails's 3 stopped with an error.
    let path = fixture("gbench/repetitions.json");
    assert_eq!(compare("gbench", &path, "gbench.csv", &key), 15);
    assert_eq!(compare("gbench", &fixture("gbench/single.json"), "gbench.csv", &key), 5);
    let study = new_study();
    let output = import(study.path(), &["gbench", path.to_str().unwrap()]);
    let err = stderr(&output);
    assert!(err.contains("BM_Fails (repetition 1) stopped with an error, `the input file is missing`: it measured nothing and gives no row"), "{err}");
}

#[test]
fn pytest_benchmark_rounds_match_python_and_summaries_are_refused() {
    let path = fixture("pytest-benchmark/rounds.json");
    let key = ["fullname", "run_in_file"];
    assert_eq!(compare("pytest-benchmark", &path, "pytest_benchmark.csv", &key), 21);
    let study = new_study();
    let saved = fixture("pytest-benchmark/autosave-without-data.json");
    let output = import(study.path(), &["pytest-benchmark", saved.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains("the file holds only summaries") && err.contains("--benchmark-save-data"),
        "{err}"
    );
}

#[test]
fn reframe_perflogs_match_python() {
    let key = ["name"];
    assert_eq!(compare("reframe", &fixture("reframe/perflogs"), "reframe.csv", &key), 2);
}

#[test]
fn criterion_samples_match_python_and_copies_are_passed_over() {
    let path = fixture("criterion/target-criterion");
    let key = ["benchmark", "run_in_file"];
    assert_eq!(compare("criterion", &path, "criterion.csv", &key), 30);
    let study = new_study();
    let output = import(study.path(), &["criterion", "--dry-run", path.to_str().unwrap()]);
    let err = stderr(&output);
    assert!(err.contains("24 passed over"), "{err}");
    assert!(err.contains("base/sample.json: criterion's copy of the run before (base/)"), "{err}");
}

/// Run `program args` in `dir`, asserting that it succeeds.
fn run(dir: &Path, program: &str, args: &[&str]) {
    let out = Command::new(program).args(args).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "{program} {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_hyperfine_run_made_now_matches_python() {
    if !tool("hyperfine", &["--version"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let args = ["-N", "--runs", "4", "-L", "n", "1,2", "sleep 0.00{n}", "--export-json", "h.json"];
    run(dir.path(), "hyperfine", &args);
    assert_eq!(
        compare(
            "hyperfine",
            &dir.path().join("h.json"),
            "hyperfine.csv",
            &["command", "run_in_file"]
        ),
        8
    );
}

#[test]
fn a_google_benchmark_run_made_now_matches_python() {
    if !tool("g++", &["--version"]) || !tool("pkg-config", &["--exists", "benchmark"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    fs::copy(fixture("gbench/bench.cc"), dir.path().join("bench.cc")).unwrap();
    run(dir.path(), "g++", &["-O1", "bench.cc", "-o", "bench", "-lbenchmark", "-lpthread"]);
    let args = [
        "--benchmark_repetitions=2",
        "--benchmark_min_time=0.001",
        "--benchmark_out=g.json",
        "--benchmark_out_format=json",
    ];
    run(dir.path(), &dir.path().join("bench").to_string_lossy(), &args);
    assert_eq!(
        compare("gbench", &dir.path().join("g.json"), "gbench.csv", &["benchmark", "run_in_file"]),
        10
    );
}

#[test]
fn a_pytest_benchmark_run_made_now_matches_python() {
    let Some(python) = python() else { return };
    if !tool(python, &["-c", "import pytest_benchmark"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    fs::copy(fixture("pytest-benchmark/test_small.py"), dir.path().join("test_small.py")).unwrap();
    let args = [
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "test_small.py",
        "--benchmark-json=p.json",
        "--benchmark-min-rounds=3",
        "--benchmark-max-time=0.000001",
    ];
    run(dir.path(), python, &args);
    let n = compare(
        "pytest-benchmark",
        &dir.path().join("p.json"),
        "pytest_benchmark.csv",
        &["fullname", "run_in_file"],
    );
    assert_eq!(n, 9);
}

#[test]
fn a_reframe_run_made_now_matches_python() {
    if !tool("reframe", &["--version"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    fs::copy(fixture("reframe/dd_check.py"), dir.path().join("dd_check.py")).unwrap();
    let args = ["-c", "dd_check.py", "-r", "--perflogdir=perflogs", "-o", "out", "-s", "stage"];
    run(dir.path(), "reframe", &args);
    assert_eq!(compare("reframe", &dir.path().join("perflogs"), "reframe.csv", &["name"]), 2);
}
