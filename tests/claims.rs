//! The claims of issue 41's findings, each built as a study and checked
//! against hand arithmetic or scipy (docs/methods.md, Verdicts): too few
//! runs for any test to decide, one run on a side, medians of tied runs,
//! negligible only within the threshold, negative values refused with a
//! located error, a zero mean, values near the largest double, and
//! differences in the column's unit.

use crate::common::*;
use serde_json::Value;

/// The minimal fixture's book.toml before its metrics, with `study` added
/// to `[study]` and `metrics` after it.
fn book(study: &str, metrics: &str) -> String {
    let book = std::fs::read_to_string(repo().join("tests/fixtures/minimal/book.toml")).unwrap();
    let head = book.split("[[metrics]]").next().unwrap();
    let head = head.replace("[study]\n", &format!("[study]\n{study}\n"));
    head.replace("time_s = \"positive\"", "time_s = \"number\"") + metrics
}

/// One headline metric `m` of `time_s` at procs = 2, `extra` lines added.
fn metric(extra: &str) -> String {
    format!(
        "[[metrics]]\nname = \"m\"\nlabel = \"Time at 2 processes\"\ndata = \"runs\"\n\
         value = \"time_s\"\nwhere = {{ procs = 2 }}\nbetter = \"lower\"\nheadline = true\n{extra}\n"
    )
}

/// Runs of `base` and `cand` at procs = 2.
fn runs(base: &[f64], cand: &[f64]) -> String {
    let mut csv = String::from("environment,procs,run,time_s\n");
    for (env, values) in [("base", base), ("cand", cand)] {
        for (i, v) in values.iter().enumerate() {
            csv.push_str(&format!("{env},2,{},{v:e}\n", i + 1));
        }
    }
    csv
}

/// The metric `m` of the study built from `book` and `csv`, with the
/// page's text.
fn built(book: &str, csv: &str) -> (Value, String) {
    let dir = written_study(book, &[("runs.csv", csv)], "# Claims\n");
    let stats = stats_json(dir.path());
    let m = stats["metrics"].as_array().unwrap().iter().find(|m| m["name"] == "m").unwrap().clone();
    let page = std::fs::read_to_string(dir.path().join("site/index.html")).unwrap();
    (m, page)
}

/// 3 runs against 4 whose ratio of means is 1.8 with Welch's p = 0.0415
/// (scipy, on the log scale): 2 / C(7, 3) = 0.057 is the smallest p any
/// rank test reaches, so the claim is inconclusive, and one more run a
/// side (2 / C(9, 4) = 0.016) could decide it.
#[test]
fn a_test_that_cannot_reach_the_level_is_no_verdict() {
    let (m, page) =
        built(&book("", &metric("")), &runs(&[10.0, 9.5, 10.5, 10.0], &[14.0, 18.0, 22.0]));
    assert!((m["value"].as_f64().unwrap() - 0.8).abs() < 1e-12);
    assert!((m["p_value"].as_f64().unwrap() - 0.041_489_287_216_279).abs() < 1e-9);
    assert_eq!(m["significant"], false);
    assert_eq!(m["claim"]["verdict"], "inconclusive");
    assert_eq!(m["claim"]["undecided"]["kind"], "unreachable");
    assert!((m["claim"]["undecided"]["min_p"].as_f64().unwrap() - 2.0 / 35.0).abs() < 1e-15);
    assert_eq!(m["claim"]["more_runs"], 1);
    assert!(page.contains("with 3 and 4 runs no test can reach p &lt; 0.05"), "the card says why");
    assert!(!page.contains("significant</span>"), "no card says significant");
}

/// One baseline run against 16: the difference alone, no interval, no p,
/// no verdict; 1 more run a side gives 2 against 17 (2 / C(19, 2) < 0.05).
#[test]
fn one_run_on_a_side_is_a_difference_without_a_verdict() {
    for estimator in ["mean", "median"] {
        let cand: Vec<f64> = (0..16).map(|i| 11.0 + f64::from(i) * 0.01).collect();
        let extra = format!("estimator = \"{estimator}\"");
        let (m, _) = built(&book("", &metric(&extra)), &runs(&[10.0], &cand));
        assert!(m["ci"].is_null() && m["p_value"].is_null(), "{estimator}: {m}");
        assert_eq!(m["claim"]["verdict"], "inconclusive", "{estimator}");
        assert_eq!(m["claim"]["undecided"]["kind"], "one-run", "{estimator}");
        assert_eq!(m["claim"]["more_runs"], 1, "{estimator}");
    }
}

/// Medians of tied runs: 40 of 1.0 and 10 of 1.1 against 30 and 20, as a
/// CPU utilisation in 0.1 steps reads. Mann–Whitney's p is 0.0302
/// (scipy), yet the median of the 2,500 pairwise differences is 0: an
/// estimate of exactly no change is never significant.
#[test]
fn an_estimate_of_no_change_is_never_significant() {
    let base: Vec<f64> = [vec![1.0; 40], vec![1.1; 10]].concat();
    let cand: Vec<f64> = [vec![1.0; 30], vec![1.1; 20]].concat();
    let (m, page) = built(&book("", &metric("estimator = \"median\"")), &runs(&base, &cand));
    assert_eq!(m["value"], 0.0);
    assert!((m["p_value"].as_f64().unwrap() - 0.030_242_623_940_851).abs() < 1e-6, "{m}");
    assert_eq!(m["significant"], false);
    assert_eq!(m["claim"]["undecided"]["kind"], "no-shift");
    assert!(page.contains("the estimate is exactly no change"));
}

/// With `negligible = "5%"`: 10 runs a side of mean 1 and sd 0.2 against
/// mean 1.001: the interval reaches far beyond ±5%, so the claim is
/// inconclusive; 1,000 runs a side of sd 0.01 give an interval within
/// ±5%: negligible, whatever its p.
#[test]
fn negligible_only_when_the_whole_interval_is_within() {
    let spread = |n: usize, mean: f64, sd: f64| -> Vec<f64> {
        (0..n).map(|i| mean + sd * if i % 2 == 0 { 1.0 } else { -1.0 }).collect()
    };
    let study = "negligible = \"5%\"";
    let (m, page) =
        built(&book(study, &metric("")), &runs(&spread(10, 1.0, 0.2), &spread(10, 1.001, 0.2)));
    let [lo, hi] = [0, 1].map(|i| m["ci"][i].as_f64().unwrap());
    assert!(lo < -0.05 && hi > 0.05, "{lo} {hi}");
    assert_eq!(m["claim"]["verdict"], "inconclusive");
    assert!(!page.contains(">negligible<"), "no card says negligible");
    let (m, _) = built(
        &book(study, &metric("")),
        &runs(&spread(1000, 1.0, 0.01), &spread(1000, 1.001, 0.01)),
    );
    assert_eq!(m["claim"]["verdict"], "negligible");
}

/// A relative comparison of values that are not all positive is refused
/// at its `compare`, with the absolute difference as the fix; `report
/// check` names the place.
#[test]
fn negative_values_refuse_a_relative_claim() {
    let book = book("", &metric("compare = \"relative\""));
    let dir =
        written_study(&book, &[("runs.csv", &runs(&[-1.0, 2.0, 3.0], &[1.0, 2.0, 4.0]))], "# C\n");
    let output = report(dir.path(), &["check"]);
    let err = stderr(&output);
    assert!(!output.status.success());
    assert!(err.contains("a relative change needs values that are not negative"), "{err}");
    assert!(err.contains("book.toml:28:11"), "{err}");
    assert!(err.contains("compare = \"difference\""), "{err}");
}

/// `compare = "difference"` on values of either sign: Welch's t on the raw
/// values, as scipy's `ttest_ind([1, 2, 4], [-1, 2, 3], equal_var=False)`:
/// difference 1, p = 0.5422.
#[test]
fn a_difference_compares_values_of_either_sign() {
    let (m, _) = built(
        &book("", &metric("compare = \"difference\"")),
        &runs(&[-1.0, 2.0, 3.0], &[1.0, 2.0, 4.0]),
    );
    assert!((m["value"].as_f64().unwrap() - 1.0).abs() < 1e-12, "{m}");
    assert!((m["p_value"].as_f64().unwrap() - 0.542_175_240_232_646).abs() < 1e-9, "{m}");
    assert_eq!(m["model"], "welch-difference");
}

/// A candidate mean of exactly 0 builds: −100%, by hand.
#[test]
fn a_zero_candidate_mean_builds() {
    let (m, page) =
        built(&book("", &metric("")), &runs(&[1.0, 2.0, 3.0, 4.0], &[0.0, 0.0, 0.0, 0.0]));
    assert_eq!(m["value"], -1.0);
    assert!(!page.contains("NaN") && !page.contains("inf"), "no undefined number on the page");
}

/// Values near the largest double: their medians and means are computed
/// without overflow, and no output holds NaN or inf.
#[test]
fn values_near_the_largest_double_stay_finite() {
    let base = [1.5e308, 1.6e308, 1.7e308, 1.55e308];
    let cand = [1.4e308, 1.5e308, 1.6e308, 1.45e308];
    for estimator in ["mean", "median"] {
        let extra = format!("estimator = \"{estimator}\"");
        let (m, page) = built(&book("", &metric(&extra)), &runs(&base, &cand));
        assert!(m["value"].as_f64().is_some_and(f64::is_finite), "{estimator}: {m}");
        assert!(!page.contains("NaN") && !page.contains(">inf"), "{estimator}");
    }
}

/// docs/methods.md, Influence, on a `difference`: candidate runs 10, 11,
/// 12, 13 and 40 against 10, 11, 12 and 13 by the mean differ by +5.7
/// (Welch's p = 0.377, scipy); without the run of 40 the difference is 0,
/// a move of 5.7, beyond 25% of 5.7 and the others' half-width (±2.234):
/// that run carries the metric, on the card too.
#[test]
fn one_run_carries_a_difference() {
    let extra = "compare = \"difference\"";
    let (m, page) = built(
        &book("", &metric(extra)),
        &runs(&[10.0, 11.0, 12.0, 13.0], &[10.0, 11.0, 12.0, 13.0, 40.0]),
    );
    assert!((m["value"].as_f64().unwrap() - 5.7).abs() < 1e-12, "{m}");
    assert!((m["p_value"].as_f64().unwrap() - 0.376_967_770_196_534).abs() < 1e-9, "{m}");
    let found = &m["influence"];
    assert_eq!(found["carries"], true, "{found}");
    assert_eq!(found["changes_verdict"], false, "{found}");
    assert_eq!(
        (found["environment"].as_str(), found["value"].as_f64()),
        (Some("cand"), Some(40.0))
    );
    assert_eq!(found["without"]["value"], 0.0, "{found}");
    assert!(page.contains("<p class=\"carried\">"), "the card says one run carries it");
}
