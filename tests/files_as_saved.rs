//! Results files as people save them, written by pandas
//! (tests/fixtures/saved/make.py): the index column of `df.to_csv()`, a byte
//! order mark, a tab-separated file, and what is not CSV as declared (UTF-16,
//! Windows-1252, semicolons with decimal commas, `NA` cells), each named at
//! its place; a byte order mark in a page; files of results/ a build does
//! not read, warned about.

use std::fs;
use std::path::Path;

use crate::common;
use common::*;

/// A study of `runs` (environment, threads, run, seconds) with a metric on
/// `seconds`; `declared` types the column in book.toml, `file` names the file.
fn book(declared: bool, file: Option<&str>, key: &str) -> String {
    let seconds = if declared { ", seconds = \"positive\"" } else { "" };
    let file = file.map(|f| format!("file = \"{f}\"\n")).unwrap_or_default();
    format!(
        "[book]\ntitle = \"Saved\"\n\n[study]\nbaseline = \"before\"\n\n[environments.before]\nlabel = \"Before\"\n\n\
         [environments.after]\nlabel = \"After\"\n\n[data.runs]\n{file}key = [{key}]\n\
         columns = {{ environment = \"text\", run = \"integer\"{seconds} }}\n\n[[metrics]]\nname = \"time\"\n\
         label = \"Run time\"\ndata = \"runs\"\nvalue = \"seconds\"\nbetter = \"lower\"\nheadline = true\n"
    )
}

/// `report check` of a study whose results/NAME is the pandas file `saved`.
fn check(book: &str, saved: &str, name: &str) -> (bool, String) {
    let bytes = fs::read(repo().join("tests/fixtures/saved").join(saved)).unwrap();
    let study = written_study(book, &[], "# Saved\n\n{{ stat(name=\"time\") }}\n");
    fs::write(study.path().join("results").join(name), bytes).unwrap();
    let output = report(study.path(), &["check"]);
    (output.status.success(), stderr(&output))
}

const KEY: &str = "\"environment\", \"run\"";

#[test]
fn the_pandas_index_is_a_row_number_that_may_serve_as_key() {
    for saved in ["pandas-index.csv", "unnamed-0.csv"] {
        let (ok, err) = check(&book(true, None, "\"index\""), saved, "runs.csv");
        assert!(ok, "{saved}: {err}");
    }
    let (ok, err) = check(&book(true, None, KEY), "bom.csv", "runs.csv");
    assert!(ok, "{err}");
    let (ok, err) = check(&book(true, Some("runs.tsv"), KEY), "runs.tsv", "runs.tsv");
    assert!(ok, "{err}");
}

#[test]
fn what_is_not_csv_as_declared_is_named_at_its_place() {
    for (saved, want) in [
        (
            "utf-16.csv",
            "error: results/runs.csv:1:1: this file is UTF-16 (two bytes a character), not UTF-8 text",
        ),
        (
            "windows-1252.csv",
            "error: results/runs.csv:1:33: the header holds byte 0xB5 (in Windows-1252, `µ`), which is not UTF-8",
        ),
        (
            "semicolons.csv",
            "error: results/runs.csv:1:12: the fields are separated by `;`, not `,`, and numbers are written with decimal commas (`10,2`)",
        ),
        (
            "na.csv",
            "error: results/runs.csv:3:12: column `seconds`: `NA` marks a missing value, which book.toml does not declare, found `NA` (2 rows)",
        ),
    ] {
        let (ok, err) = check(&book(true, None, KEY), saved, "runs.csv");
        assert!(!ok && err.contains(want), "{saved}: {err}");
        // Each file gives one error, not one per column it seems to lack.
        assert_eq!(err.matches("error: results/").count(), 1, "{saved}: {err}");
    }
    // An undeclared column: the same error at the same cells (issue 43,
    // point 8), with the key that declares the marker.
    let (ok, err) = check(&book(false, None, KEY), "na.csv", "runs.csv");
    assert!(!ok, "{err}");
    assert!(
        err.contains("error: results/runs.csv:3:12: column `seconds`: `NA` marks a missing value")
            && err.contains("declare it in [data.runs]: `missing = [\"NA\"]`"),
        "{err}"
    );
    // Declared, `NA` is an empty cell: missing in an untyped column (the
    // runs left are compared), an error in a typed one, as an empty cell is.
    let declare = |book: String| book.replace("[data.runs]\n", "[data.runs]\nmissing = [\"NA\"]\n");
    let (ok, err) = check(&declare(book(false, None, KEY)), "na.csv", "runs.csv");
    assert!(ok, "{err}");
    let (ok, err) = check(&declare(book(true, None, KEY)), "na.csv", "runs.csv");
    assert!(
        !ok && err.contains("results/runs.csv:3:12: column `seconds`: value is missing"),
        "{err}"
    );
}

#[test]
fn a_byte_order_mark_in_a_page_and_unread_files_in_results() {
    let csv = fs::read_to_string(repo().join("tests/fixtures/saved/bom.csv")).unwrap();
    let study = written_study(&book(true, None, KEY), &[("runs.csv", &csv)], "");
    fs::write(
        study.path().join("content/index.md"),
        "\u{feff}# Saved\n\n{{ stat(name=\"time\") }}\n",
    )
    .unwrap();
    for name in ["bench.json", "run-1.out", "runs.xlsx", "README.md", "notes.py"] {
        fs::write(study.path().join("results").join(name), "x").unwrap();
    }
    let output = report(study.path(), &["check"]);
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    for (file, why) in [
        ("bench.json", "report import hyperfine|gbench"),
        ("run-1.out", "report import lammps|osu|reframe|log"),
        ("runs.xlsx", "export the sheet as CSV UTF-8"),
    ] {
        let line = format!("warning: results/{file}: this file in results/ is not read = help: ");
        assert!(err.contains(&line) && err.contains(why), "{file}: {err}");
    }
    assert!(!err.contains("README.md") && !err.contains("notes.py"), "{err}");
    assert!(!Path::new(&study.path().join("site")).exists());
}
