//! Hand-built edge cases of the statistics, each built and checked against
//! scipy (tests/independent_stats.py) and by hand: one run, runs that do not
//! vary on one side or both, a configuration missing on either side, and
//! values near 1e-300 and 1e300.

use std::fs;

use crate::common;
use crate::stats_oracle;
use common::*;
use serde_json::Value;

const METRICS: &str = r#"
[[metrics]]
name = "at_2"
label = "Time at 2 processes"
data = "runs"
value = "time_s"
where = { procs = 2 }
better = "lower"

[[metrics]]
name = "at_2_median"
label = "Time at 2 processes, by the median"
data = "runs"
value = "time_s"
where = { procs = 2 }
estimator = "median"
better = "lower"

[[metrics]]
name = "average"
label = "Time, averaged over process counts"
data = "runs"
value = "time_s"
per = "procs"
better = "lower"
"#;

/// The minimal fixture's book.toml with the metrics above, and `csv` as its results.
fn study(csv: &str) -> tempfile::TempDir {
    let book = fs::read_to_string(repo().join("tests/fixtures/minimal/book.toml")).unwrap();
    let book = book.split("[[metrics]]").next().unwrap().to_string() + METRICS;
    written_study(&book, &[("runs.csv", csv)], CAVEATS_PAGE)
}

/// Build, check every statistic against scipy, and return stats.json.
fn checked(csv: &str) -> Value {
    stats_oracle::checked_stats(study(csv).path())
}

fn metric<'a>(stats: &'a Value, name: &str) -> &'a Value {
    stats["metrics"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap()
}

fn rows(values: &[(&str, u32, &[f64])]) -> String {
    let mut csv = String::from("environment,procs,run,time_s\n");
    for (env, procs, times) in values {
        for (i, t) in times.iter().enumerate() {
            csv.push_str(&format!("{env},{procs},{},{t:e}\n", i + 1));
        }
    }
    csv
}

#[test]
fn one_run_has_no_interval_and_says_why() {
    let stats = checked(&rows(&[
        ("base", 1, &[10.0]),
        ("cand", 1, &[9.0]),
        ("base", 2, &[6.0]),
        ("cand", 2, &[4.0]),
    ]));
    let m = metric(&stats, "at_2");
    // 4 / 6 − 1 by hand; no interval, no p.
    assert!((m["value"].as_f64().unwrap() - (4.0 / 6.0 - 1.0)).abs() < 1e-15);
    assert!(m["ci"].is_null() && m["p_value"].is_null());
    assert!(
        m["text"]["significance"].as_str().unwrap().contains("at least 2 runs"),
        "{}",
        m["text"]
    );
}

#[test]
fn runs_that_do_not_vary() {
    // No variance on the baseline side only: the interval is the candidate's.
    let stats = checked(&rows(&[
        ("base", 1, &[10.0, 10.0, 10.0]),
        ("cand", 1, &[9.0, 10.0, 11.0]),
        ("base", 2, &[6.0, 6.0, 6.0]),
        ("cand", 2, &[4.0, 5.0, 6.0]),
    ]));
    assert!(!metric(&stats, "at_2")["ci"].is_null());
    // On neither side: no interval, and the text says so.
    let stats = checked(&rows(&[
        ("base", 1, &[10.0, 10.0, 10.0]),
        ("cand", 1, &[9.0, 9.0, 9.0]),
        ("base", 2, &[6.0, 6.0, 6.0]),
        ("cand", 2, &[4.0, 4.0, 4.0]),
    ]));
    let m = metric(&stats, "at_2");
    assert!(m["ci"].is_null() && m["p_value"].is_null());
    assert_eq!(m["exact"], true);
    assert!(m["text"]["full"].as_str().unwrap().contains("in every run"), "{}", m["text"]["full"]);
}

#[test]
fn extreme_magnitudes_stay_finite() {
    for scale in [1e-300, 1e300] {
        let times = |t: [f64; 3]| t.map(|x| x * scale);
        let (b1, c1, b2, c2) = (
            times([10.0, 11.0, 12.0]),
            times([9.0, 10.0, 11.0]),
            times([6.0, 5.0, 7.0]),
            times([4.0, 5.0, 6.0]),
        );
        let stats = checked(&rows(&[
            ("base", 1, &b1),
            ("cand", 1, &c1),
            ("base", 2, &b2),
            ("cand", 2, &c2),
        ]));
        // The same relative figures as at scale 1: 5 / 6 − 1, by hand.
        let m = metric(&stats, "at_2");
        assert!(
            (m["value"].as_f64().unwrap() - (5.0 / 6.0 - 1.0)).abs() < 1e-12,
            "{scale}: {}",
            m["value"]
        );
        assert!(!m["ci"].is_null(), "{scale}: an sd of 0 or inf dropped the interval");
    }
}

#[test]
fn a_configuration_missing_on_either_side_is_named() {
    for (missing, present) in [("cand", "base"), ("base", "cand")] {
        let mut table =
            vec![("base", 1, &[10.0, 11.0, 12.0][..]), ("cand", 1, &[9.0, 10.0, 11.0][..])];
        table.push((present, 4, &[3.0, 3.5, 4.0][..]));
        let dir = study(&rows(&table));
        let output = report(dir.path(), &["build"]);
        assert!(!output.status.success());
        let err = stderr(&output);
        assert!(err.contains(&format!("`{missing}` has no rows at procs = 4")), "{err}");
    }
}
