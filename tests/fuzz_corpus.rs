//! Every fuzz target's body (fuzz/src/lib.rs) on every committed seed input
//! (fuzz/corpus/TARGET/) and every real benchmark output that
//! fuzz/corpus/fixtures.txt names: what fuzzing found once stays checked in
//! every run of the suite, between the scheduled fuzzing runs
//! (.github/workflows/fuzz.yml, `bash fuzz/ci.sh`).

use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;

use crate::common;

#[path = "../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod bodies;

/// A fuzz target's input: bytes, or text (libFuzzer skips inputs that are
/// not UTF-8 for these, and so does the replay).
#[derive(Clone, Copy)]
enum Body {
    Bytes(fn(&[u8])),
    Text(fn(&str)),
}

const TARGETS: [(&str, Body); 9] = [
    ("chart_spec", Body::Text(bodies::chart_spec)),
    ("csv_load", Body::Bytes(bodies::csv_load)),
    ("harness_import", Body::Bytes(bodies::harness_import)),
    ("lammps_import", Body::Text(bodies::lammps_import)),
    ("markdown_typst", Body::Text(bodies::markdown_typst)),
    ("osu_import", Body::Text(bodies::osu_import)),
    ("parquet_load", Body::Bytes(bodies::parquet_load)),
    ("shortcodes", Body::Text(bodies::shortcodes)),
    ("templates", Body::Bytes(bodies::templates)),
];

/// The inputs of `target`: its seed corpus and its real fixtures.
fn inputs(target: &str) -> Vec<PathBuf> {
    let corpus = common::repo().join("fuzz/corpus").join(target);
    let mut paths: Vec<PathBuf> =
        fs::read_dir(&corpus).unwrap().map(|e| e.unwrap().path()).collect();
    if let Some(fixtures) = common::shared_fixtures() {
        let list = fs::read_to_string(common::repo().join("fuzz/corpus/fixtures.txt")).unwrap();
        let named = list.lines().filter(|l| !l.starts_with('#')).filter_map(|l| l.split_once(' '));
        paths.extend(named.filter(|(t, _)| *t == target).map(|(_, path)| fixtures.join(path)));
    }
    paths.sort();
    paths
}

#[test]
fn every_fuzz_input_runs_without_a_panic() {
    let targets = fs::read_dir(common::repo().join("fuzz/fuzz_targets")).unwrap();
    let mut names: Vec<String> =
        targets.map(|e| e.unwrap().file_name().to_string_lossy().replace(".rs", "")).collect();
    names.sort();
    assert_eq!(names, TARGETS.map(|t| t.0.to_string()), "a fuzz target without its replay");
    let (mut failures, mut count) = (Vec::new(), 0);
    for (target, body) in TARGETS {
        let paths = inputs(target);
        assert!(!paths.is_empty(), "{target} has no seed inputs");
        count += paths.len();
        for path in paths {
            let data = fs::read(&path).unwrap();
            let run = catch_unwind(AssertUnwindSafe(|| match body {
                Body::Bytes(f) => f(&data),
                Body::Text(f) => {
                    if let Ok(text) = std::str::from_utf8(&data) {
                        f(text)
                    }
                }
            }));
            if run.is_err() {
                failures.push(format!("{target}: {}", path.display()));
            }
        }
    }
    // 19 committed seeds, and 17 real outputs when the fixtures are there.
    assert!(count >= 19, "{count} inputs");
    assert!(failures.is_empty(), "inputs that panic:\n{}", failures.join("\n"));
}
