//! Helpers of the `report import` command-line tests (`tests/import_cli*.rs`):
//! the hand-made inputs, running report and a study to import into.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use super::repo;

/// A hand-made input of tests/fixtures/import/.
pub fn input(name: &str) -> String {
    repo().join("tests/fixtures/import").join(name).to_str().unwrap().to_string()
}

/// Run `report ARGS --root ROOT` with default (human) diagnostics.
pub fn run(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_report"))
        .args(args)
        .arg("--root")
        .arg(root)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// Run `report import ARGS --root ROOT`.
pub fn import(root: &Path, args: &[&str]) -> Output {
    run(root, &[&["import"], args].concat())
}

/// An empty study: a temporary folder with `results/`.
pub fn new_study() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("results")).unwrap();
    dir
}
