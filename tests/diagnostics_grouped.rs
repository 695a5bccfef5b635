//! The same error at many places is one diagnostic: its count, the first
//! places and the distinct values, in every message format; the summary line
//! gives the true totals. Expected counts are by construction of the fixture.

use std::fs;
use std::path::Path;

use crate::common;
use common::*;

/// The five environments the rows use and book.toml does not declare.
const UNDECLARED: [&str; 5] = ["k8s", "docker", "podman", "apptainer", "vm"];

/// Append 400 rows to the minimal fixture's 12 (lines 2 to 13): row `i`
/// (line 14 + i) is environment `UNDECLARED[i % 5]`, 1 process, run
/// `i / 5 + 1`, so each environment has 80 rows with runs 1 to 80 and no
/// key repeats; `time_s` is 10.
fn undeclared_rows(root: &Path) {
    undeclared_rows_with(root, |_| None);
}

/// [`undeclared_rows`], with `time_s` of row `i` `bad(i)` where that is given.
fn undeclared_rows_with(root: &Path, bad: impl Fn(usize) -> Option<&'static str>) {
    let path = root.join("results/runs.csv");
    let mut text = fs::read_to_string(&path).unwrap();
    assert_eq!(text.lines().count(), 13, "the fixture has a header and 12 rows");
    for i in 0..400 {
        let time = bad(i).unwrap_or("10");
        text.push_str(&format!("{},1,{},{time}\n", UNDECLARED[i % 5], i / 5 + 1));
    }
    fs::write(path, text).unwrap();
}

/// The minimal fixture with the 400 rows; `report build` in `format`.
fn build(format: &str, change: impl FnOnce(&Path)) -> (std::process::Output, String) {
    let study = fixture("minimal");
    change(study.path());
    let output = report_with(study.path(), &["build"], format);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(!study.path().join("site").exists(), "a failed build wrote output");
    let err = stderr(&output);
    assert!(!err.contains("panicked"), "{err}");
    (output, err)
}

#[test]
fn four_hundred_rows_of_five_unknown_environments_are_one_diagnostic() {
    let (_, err) = build("short", undeclared_rows);
    let lines: Vec<&str> = err.lines().collect();
    // One line for the diagnostic, one for the summary.
    assert_eq!(lines.len(), 2, "{err}");
    // The first unknown row is line 14, `k8s`; 5 × 80 = 400 rows.
    assert!(
        lines[0].starts_with(
            "error: results/runs.csv:14:1: unknown environments `apptainer`, `docker`, `k8s`, \
             `podman`, `vm` (400 rows)"
        ),
        "{err}"
    );
    assert!(lines[0].contains("[environments.NAME]"), "{err}");
    assert!(lines[0].contains("declared: `base`, `cand`"), "{err}");
    assert_eq!(lines[1], "error: 400 errors of one kind; nothing was written");
}

#[test]
fn the_human_form_reads_like_rustc() {
    let (_, err) = build("human", undeclared_rows);
    // 400 − the 3 places shown = 397 more.
    assert!(
        err.contains(
            "= note: also at results/runs.csv:15:1 and results/runs.csv:16:1, and 397 more places"
        ),
        "{err}"
    );
    insta::assert_snapshot!("five_unknown_environments", err);
}

/// One environment only: its name in the message, the count, and the hint
/// of a single name.
#[test]
fn one_unknown_environment_in_many_rows_is_named_once() {
    let (_, err) = build("short", |r| {
        let path = r.join("results/runs.csv");
        let text = fs::read_to_string(&path).unwrap().replace("cand,", "cnad,");
        fs::write(path, text).unwrap();
    });
    // The six `cand` rows, lines 8 to 13.
    assert_eq!(
        err,
        "error: results/runs.csv:8:1: unknown environment `cnad` (6 rows) = help: declare it as \
         [environments.cnad] in book.toml, or fix the name: did you mean `cand`?\n\
         error: 6 errors of one kind; nothing was written\n"
    );
}

/// Bad cells in many rows of one column: one diagnostic per problem (what
/// is wrong and how to fix it), each naming its values. Bad cells stop the
/// file before its environments are checked.
#[test]
fn bad_cells_in_many_rows_of_a_column_are_one_diagnostic_per_problem() {
    let bad = |i: usize| match i {
        0 | 100 | 200 => Some("slow"),
        300 => Some("fast"),
        399 => Some("-1"),
        _ => None,
    };
    let (_, err) = build("short", |r| undeclared_rows_with(r, bad));
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    // Rows 0, 100, 200 and 300 are lines 14, 114, 214 and 314: `k8s,1,1,slow`
    // puts the cell at column 9, `k8s,1,21,slow` and the others at column 10.
    assert!(
        lines[0].starts_with(
            "error: results/runs.csv:14:9: column `time_s`: expected a number greater than zero, \
             found `fast`, `slow` (4 rows) = help: write a plain number"
        ),
        "{err}"
    );
    // Row 399 is line 413, `vm,1,80,-1`: a number, but not greater than zero.
    assert!(
        lines[1].starts_with(
            "error: results/runs.csv:413:9: column `time_s`: expected a number greater than zero, \
             found `-1` = help: a time or rate"
        ),
        "{err}"
    );
    assert_eq!(lines[2], "error: 5 errors of 2 kinds; nothing was written");
    let (_, err) = build("human", |r| undeclared_rows_with(r, bad));
    assert!(
        err.contains(
            "= note: also at results/runs.csv:114:10 and results/runs.csv:214:10, and 1 more place\n"
        ),
        "{err}"
    );
}

#[test]
fn json_gives_the_count_the_places_and_the_values() {
    let (output, _) = build("json", undeclared_rows);
    let diagnostics: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let all = diagnostics.as_array().unwrap();
    assert_eq!(all.len(), 1, "{diagnostics:#}");
    let d = &all[0];
    assert_eq!(d["level"], "error");
    assert_eq!(d["path"], "results/runs.csv");
    assert_eq!((d["line"].as_u64(), d["column"].as_u64()), (Some(14), Some(1)));
    assert_eq!(d["count"], 400);
    let lines: Vec<u64> =
        d["locations"].as_array().unwrap().iter().map(|l| l["line"].as_u64().unwrap()).collect();
    assert_eq!(lines, [14, 15, 16]);
    assert_eq!(d["values"], serde_json::json!(["apptainer", "docker", "k8s", "podman", "vm"]));
    assert!(d["message"].as_str().unwrap().contains("`vm`"), "{d}");
    assert!(d["hint"].as_str().unwrap().contains("[environments.NAME]"), "{d}");
}

/// Several causes: each is reported, and the summary counts every problem.
#[test]
fn every_cause_is_reported_with_the_true_totals() {
    let (_, err) = build("short", |r| {
        undeclared_rows(r);
        // Three more rows repeating the key of line 2 (base, 1, 1): lines 414 to 416.
        let path = r.join("results/runs.csv");
        let mut text = fs::read_to_string(&path).unwrap();
        text.push_str(&"base,1,1,10\n".repeat(3));
        fs::write(path, text).unwrap();
    });
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(lines[0].contains("results/runs.csv:14:1: unknown environments"), "{err}");
    assert!(lines[0].contains("(400 rows)"), "{err}");
    assert!(
        lines[1].starts_with(
            "error: results/runs.csv:414:1: duplicate run (environment = base, procs = 1, run = 1), \
             first seen on line 2 (3 rows)"
        ),
        "{err}"
    );
    // 400 + 3 = 403 problems of 2 causes.
    assert_eq!(lines[2], "error: 403 errors of 2 kinds; nothing was written");
}

/// An unknown statistic used on three lines: one diagnostic (its message and
/// hint are the same at each place), and a second unknown name apart.
#[test]
fn an_unknown_statistic_used_many_times_is_one_diagnostic() {
    let (_, err) = build("short", |r| {
        let uses = "{{ stat(name=\"sped\") }}\n\n".repeat(3);
        edit(
            r,
            "content/index.md",
            "time.",
            &format!("time.\n\n{uses}{{{{ stat(name=\"spd\") }}}}"),
        );
    });
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    // Lines 5, 7 and 9, at the quote after `{{ stat(name=` (13 characters);
    // `spd` on line 11.
    assert!(
        lines[0].starts_with("error: content/index.md:5:14: unknown statistic `sped` (3 places)"),
        "{err}"
    );
    assert!(
        lines[1].starts_with("error: content/index.md:11:14: unknown statistic `spd`"),
        "{err}"
    );
    assert_eq!(lines[2], "error: 4 errors of 2 kinds; nothing was written", "{err}");
    let (_, err) = build("human", |r| {
        let uses = "{{ stat(name=\"sped\") }}\n\n".repeat(3);
        edit(r, "content/index.md", "time.", &format!("time.\n\n{uses}"));
    });
    assert!(
        err.contains("= note: also at content/index.md:7:14 and content/index.md:9:14\n"),
        "{err}"
    );
}

/// Every error is counted, and counting is linear: 30,000 bad cells (each
/// located at its line and column) are reported in seconds. Locating each by
/// counting the lines of its block from the start took 122 s for 20,000.
#[test]
fn thirty_thousand_bad_cells_are_counted_quickly() {
    let started = std::time::Instant::now();
    let (_, err) = build("short", |r| {
        let rows: String = (1..=30_000).map(|run| format!("base,1,{run},x\n")).collect();
        fs::write(r.join("results/runs.csv"), format!("environment,procs,run,time_s\n{rows}"))
            .unwrap();
    });
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "{:?}", started.elapsed());
    let lines: Vec<&str> = err.lines().collect();
    // Lines 2 to 30,001; `base,1,1,` puts the first cell at column 10.
    assert!(
        lines[0].starts_with(
            "error: results/runs.csv:2:10: column `time_s`: expected a number greater than zero, \
             found `x` (30000 rows)"
        ),
        "{err}"
    );
    assert_eq!(lines[1..], ["error: 30000 errors of one kind; nothing was written"]);
}
