//! `exclude` and `problem-size` of `[data.NAME]`: an excluded run leaves
//! every statistic (a mean moves by a hand-computed amount, and scipy
//! agrees), is stated in the caveats and in stats.json; an exclusion that
//! matches nothing or names a missing column, and a comparison across
//! problem sizes, are errors at their place in book.toml.

use std::fs;

use crate::common;
use crate::stats_oracle;
use common::*;
use serde_json::Value;

const HEAD: &str = r#"[book]
title = "Exclusions"
date = "2024-01-02"

[study]
baseline = "base"

[environments.base]
label = "Base"

[environments.cand]
label = "Candidate"

[data.runs]
key = ["environment", "procs", "run"]
group-by = ["procs"]
columns = { environment = "text", procs = "integer", run = "integer", time_s = "positive" }
"#;

const METRIC: &str = r#"
[[metrics]]
name = "at_2"
label = "Time at 2 processes"
data = "runs"
value = "time_s"
where = { procs = 2 }
better = "lower"
headline = true
"#;

/// Base at 2 processes: 10, 11, 12 and one slow run of 30; the candidate: 9, 10, 11.
const CSV: &str = "environment,procs,run,time_s\n\
base,2,1,10\nbase,2,2,11\nbase,2,3,12\nbase,2,4,30\n\
cand,2,1,9\ncand,2,2,10\ncand,2,3,11\n";

/// A study with `data` lines added to `[data.runs]`, then the metric.
fn study(data: &str, csv: &str) -> tempfile::TempDir {
    written_study(&format!("{HEAD}{data}{METRIC}"), &[("runs.csv", csv)], CAVEATS_PAGE)
}

fn built(data: &str) -> (tempfile::TempDir, Value) {
    let dir = study(data, CSV);
    let stats = stats_oracle::checked_stats(dir.path());
    (dir, stats)
}

const EXCLUDE: &str = "exclude = [{ where = { environment = \"base\", run = 4 }, reason = \"node 3 was swapping (job log).\" }]\n";

#[test]
fn an_excluded_run_leaves_the_mean_and_is_stated() {
    // By hand: with run 4 the base mean is 63 / 4 = 15.75, so 10 / 15.75 − 1
    // = −36.51%; without it, 33 / 3 = 11 and 10 / 11 − 1 = −9.09%.
    let (_, all) = built("");
    let value = |s: &Value| s["metrics"][0]["value"].as_f64().unwrap();
    assert!((value(&all) - (10.0 / 15.75 - 1.0)).abs() < 1e-12, "{}", value(&all));
    let (dir, stats) = built(EXCLUDE);
    assert!((value(&stats) - (10.0 / 11.0 - 1.0)).abs() < 1e-12, "{}", value(&stats));
    assert_eq!(stats["metrics"][0]["baseline"]["n"], 3);
    let excluded = &stats["excluded"];
    assert_eq!(excluded.as_array().unwrap().len(), 1);
    assert_eq!(excluded[0]["file"], "results/runs.csv");
    assert_eq!(excluded[0]["rows"], 1);
    assert_eq!(excluded[0]["filter"], "environment = base, run = 4");
    assert_eq!(excluded[0]["runs"][0], "environment = base, procs = 2, run = 4");
    assert_eq!(excluded[0]["reason"], "node 3 was swapping (job log).");
    let caveat = "Excluded from every statistic and chart: 1 run of results/runs.csv where environment = base, run = 4 (environment = base, procs = 2, run = 4), because node 3 was swapping (job log).";
    let caveats: Vec<&str> =
        stats["caveats"].as_array().unwrap().iter().filter_map(|c| c["text"].as_str()).collect();
    assert!(caveats.contains(&caveat), "{caveats:#?}");
    let page = fs::read_to_string(dir.path().join("site/index.html")).unwrap();
    assert!(page.contains("node 3 was swapping (job log)"), "the page states the exclusion");
    // The group of the baseline has the three remaining runs only.
    let group = stats["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == "results/runs.csv/time_s/base/procs=2" || (g["environment"] == "base"))
        .unwrap();
    assert_eq!(group["summary"]["n"], 3);
}

fn failed(data: &str, csv: &str) -> String {
    let dir = study(data, csv);
    let output = report(dir.path(), &["build"]);
    assert!(!output.status.success());
    assert!(!dir.path().join("site/index.html").exists(), "no half-written site");
    stderr(&output)
}

#[test]
fn an_exclusion_that_matches_no_row_is_located() {
    let data = "exclude = [{ where = { environment = \"base\", run = 9 }, reason = \"x\" }]\n";
    let err = failed(data, CSV);
    // Line 18 of book.toml; the `where` table starts at column 22.
    assert!(err.contains("book.toml:18:22"), "{err}");
    assert!(err.contains("exclusion matches no row of results/runs.csv"), "{err}");
    assert!(err.contains("no row of results/runs.csv has run = 9"), "{err}");
}

#[test]
fn an_exclusion_of_a_missing_column_is_located() {
    let data = "exclude = [{ where = { environment = \"base\", runn = 4 }, reason = \"x\" }]\n";
    let err = failed(data, CSV);
    // The key `runn` at column 46.
    assert!(err.contains("book.toml:18:46"), "{err}");
    assert!(err.contains("has no column `runn`"), "{err}");
    assert!(err.contains("run"), "{err}");
}

#[test]
fn a_comparison_across_problem_sizes_is_refused() {
    let csv = "environment,procs,run,atoms,time_s\n\
base,2,1,32000,10\nbase,2,2,32000,11\nbase,2,3,32000,12\n\
cand,2,1,256000,80\ncand,2,2,256000,81\ncand,2,3,256000,82\n";
    let book = format!("{HEAD}problem-size = [\"atoms\"]\n{METRIC}")
        .replace("run = \"integer\",", "run = \"integer\", atoms = \"integer\",");
    let dir = written_study(&book, &[("runs.csv", csv)], "# Cases\n");
    let output = report(dir.path(), &["build"]);
    assert!(!output.status.success());
    let err = stderr(&output);
    // The metric's `where` on line 25.
    assert!(err.contains("book.toml:25:9"), "{err}");
    assert!(err.contains("`cand` ran `atoms` = `256000` but `base` ran `32000`"), "{err}");
    assert!(err.contains("help:"), "{err}");
    // The same sizes on both sides build.
    fs::write(dir.path().join("results/runs.csv"), csv.replace("256000", "32000")).unwrap();
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
}
