//! Checks a built study's stats.json against tests/independent_stats.py, an
//! independent computation with scipy: every metric, group and comparison.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Whether python3 with scipy is there; in CI (REPORT_REQUIRE_TOOLS) it must be.
pub fn scipy() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import scipy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("REPORT_REQUIRE_TOOLS").is_none(),
            "python3 with scipy is required"
        );
        eprintln!("SKIPPED: python3 with scipy is not installed");
    }
    ok
}

/// scipy's figures for the study at `root`, keyed as [`check`] reads them.
pub fn expected(root: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/independent_stats.py");
    let output = Command::new("python3").arg(script).arg(root).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Build the study at `root` (which must succeed), check every statistic of
/// its stats.json against scipy when scipy is there, and return stats.json.
// tests/independent.rs calls `check` itself, for the counts it returns.
#[allow(dead_code)]
pub fn checked_stats(root: &Path) -> Value {
    let stats = crate::common::stats_json(root);
    if scipy() {
        check(&stats, &expected(root));
    }
    stats
}

/// `a` and `b` agree to a relative `tol` (both null counts as agreeing).
pub fn close(a: &Value, b: &Value, tol: f64, what: &str) {
    if a.is_null() && b.is_null() {
        return;
    }
    let (x, y) = (a.as_f64(), b.as_f64());
    let (Some(x), Some(y)) = (x, y) else { panic!("{what}: report {a} vs scipy {b}") };
    assert!((x - y).abs() <= tol * y.abs() + 1e-14, "{what}: report {x} vs scipy {y}");
}

fn pair(a: &Value, b: &Value, tol: f64, what: &str) {
    assert_eq!(a.is_null(), b.is_null(), "{what}: report {a} vs scipy {b}");
    if !a.is_null() {
        close(&a[0], &b[0], tol, &format!("{what} low"));
        close(&a[1], &b[1], tol, &format!("{what} high"));
    }
}

/// Values: 1e-9 relative; p-values from t: 1e-7 relative.
const VALUE: f64 = 1e-9;
const P: f64 = 1e-7;
/// Shapiro–Wilk's W and p: 1e-4 relative (scipy's swilk computes in float32).
const SHAPIRO: f64 = 1e-4;

/// Every metric, group and comparison of `stats` against `want`; returns
/// how many of each were checked.
pub fn check(stats: &Value, want: &Value) -> [usize; 3] {
    let metrics = stats["metrics"].as_array().unwrap();
    metrics.iter().for_each(|m| check_metric(m, want));
    check_caveats(stats, want);
    let groups = stats["groups"].as_array().unwrap();
    groups.iter().for_each(|g| check_group(g, want));
    let comparisons = stats["comparisons"].as_array().unwrap();
    comparisons.iter().for_each(|c| check_comparison(c, want));
    let want_groups = want.as_object().unwrap().keys().filter(|k| k.starts_with("group:")).count();
    let want_comparisons =
        want.as_object().unwrap().keys().filter(|k| k.starts_with("comparison:")).count();
    assert_eq!(groups.len(), want_groups, "groups");
    assert_eq!(comparisons.len(), want_comparisons, "comparisons");
    [metrics.len(), groups.len(), comparisons.len()]
}

fn check_metric(m: &Value, want: &Value) {
    let name = m["name"].as_str().unwrap();
    let w = &want[name];
    close(&m["value"], &w["value"], VALUE, &format!("{name} value"));
    pair(&m["ci"], &w["ci"], VALUE, &format!("{name} ci"));
    close(&m["p_value"], &w["p"], P, &format!("{name} p"));
    assert_eq!(m["exact"], w["exact"], "{name} exact");
    assert_eq!(m["ci_open"], w["open"], "{name} open ends");
    assert_eq!(m["significant"], w["significant"], "{name} verdict");
    if let Some(values) = w["per_config"].as_array() {
        let got = m["spread"]["values"].as_array().unwrap();
        assert_eq!(got.len(), values.len(), "{name}: configurations");
        for (g, v) in got.iter().zip(values) {
            close(&g["value"], v, VALUE, &format!("{name} at {}", g["at"]));
        }
        // No average lies outside the range of what it averages.
        let each: Vec<f64> = values.iter().map(|v| v.as_f64().unwrap()).collect();
        let (lo, hi) = each.iter().fold((f64::MAX, f64::MIN), |(l, h), v| (l.min(*v), h.max(*v)));
        let value = m["value"].as_f64().unwrap();
        let slack = 1e-9 * (hi.abs() + lo.abs()) + 1e-12;
        let inside = lo - slack <= value && value <= hi + slack;
        assert!(inside, "{name}: {value} outside {lo}..{hi}");
    }
    if let Some(verdicts) = w["per_config_significant"].as_array() {
        let got: Vec<&Value> =
            m["spread"]["values"].as_array().unwrap().iter().map(|g| &g["significant"]).collect();
        assert_eq!(got, verdicts.iter().collect::<Vec<_>>(), "{name}: verdicts per configuration");
    }
    check_other(name, m, w);
}

/// The other estimator's value and verdict of a one-configuration metric.
fn check_other(name: &str, m: &Value, w: &Value) {
    let (other, want) = (&m["other"], &w["other"]);
    if want.is_null() {
        return;
    }
    close(&other["value"], &want["value"], VALUE, &format!("{name} other value"));
    pair(&other["ci"], &want["ci"], VALUE, &format!("{name} other ci"));
    close(&other["p_value"], &want["p"], P, &format!("{name} other p"));
    assert_eq!(other["significant"], want["significant"], "{name} other verdict");
}

/// Whether the caveats of `kind` on metric `name` are there when the oracle
/// says they should be.
pub fn check_caveats(stats: &Value, want: &Value) {
    let has = |kind: &str, name: &str| {
        stats["caveats"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["kind"] == kind && c["metric"] == name)
    };
    for m in stats["metrics"].as_array().unwrap() {
        let name = m["name"].as_str().unwrap();
        for (kind, field) in [
            ("estimators-disagree", "disagree_caveat"),
            ("sign-change", "sign_change_caveat"),
            ("not-significant", "not_significant_caveat"),
        ] {
            if let Some(expected) = want[name][field].as_bool() {
                assert_eq!(has(kind, name), expected, "{name}: caveat {kind}");
            }
        }
    }
}

fn check_group(g: &Value, want: &Value) {
    let id = g["id"].as_str().unwrap();
    let (s, w) = (&g["summary"], &want[format!("group:{id}")]);
    assert!(!w.is_null(), "scipy has no group {id}");
    assert_eq!(s["n"], w["n"], "{id} n");
    for field in ["mean", "median"] {
        close(&s[field], &w[field], VALUE, &format!("{id} {field}"));
    }
    // An sd of equal values is rounding noise of the mean's size × 1e-16.
    let noise = 1e-12 * w["mean"].as_f64().unwrap().abs();
    let (sd, want_sd) = (s["sd"].as_f64(), w["sd"].as_f64());
    assert_eq!(sd.is_some(), want_sd.is_some(), "{id} sd");
    if let (Some(a), Some(b)) = (sd, want_sd) {
        assert!((a - b).abs() <= VALUE * b + noise, "{id} sd: report {a} vs scipy {b}");
    }
    pair(&s["ci"], &w["ci"], VALUE, &format!("{id} ci"));
    let r = &s["robust"];
    close(&r["cv"], &w["cv"], VALUE, &format!("{id} cv"));
    pair(&r["quartiles"], &w["quartiles"], VALUE, &format!("{id} quartiles"));
    pair(&r["median_ci"], &w["median_ci"], VALUE, &format!("{id} median ci"));
    // Shapiro–Wilk: both Royston's algorithm; scipy's runs in single precision.
    let normality = &r["normality"];
    assert_eq!(normality.is_null(), w["shapiro"].is_null(), "{id} shapiro");
    if !normality.is_null() {
        close(&normality["w"], &w["shapiro"][0], SHAPIRO, &format!("{id} shapiro W"));
        close(&normality["p"], &w["shapiro"][1], SHAPIRO, &format!("{id} shapiro p"));
    }
    check_fences(id, r, w);
}

/// The fences' scale, the grid and the outliers of one group.
fn check_fences(id: &str, r: &Value, w: &Value) {
    let outliers: Vec<f64> =
        r["outliers"].as_array().unwrap().iter().map(|o| o["value"].as_f64().unwrap()).collect();
    let severe: Vec<f64> = r["outliers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["severe"] == true)
        .map(|o| o["value"].as_f64().unwrap())
        .collect();
    let floats = |v: &Value| -> Vec<f64> {
        v.as_array().map(|a| a.iter().map(|x| x.as_f64().unwrap()).collect()).unwrap_or_default()
    };
    if !w["quartiles"].is_null() {
        close(&r["fence_scale"], &w["fence_scale"], VALUE, &format!("{id} fence scale"));
    }
    let (grid, want_grid) = (&r["resolution"], &w["resolution"]);
    assert_eq!(grid.is_null(), want_grid.is_null(), "{id} resolution: {grid} vs {want_grid}");
    if !grid.is_null() {
        close(&grid["step"], &want_grid["step"], VALUE, &format!("{id} step"));
        assert_eq!(
            (&grid["grid"], &grid["distinct"]),
            (&want_grid["grid"], &want_grid["distinct"])
        );
    }
    // Past 20, the 10 most extreme on each side are listed, and all counted.
    let want = floats(&w["outliers"]);
    assert_eq!(r["outlier_count"].as_u64(), Some(want.len() as u64), "{id} outliers counted");
    if want.len() <= 20 {
        assert_eq!(outliers, want, "{id} outliers");
        assert_eq!(severe, floats(&w["severe"]), "{id} severe outliers");
    }
}

fn check_comparison(c: &Value, want: &Value) {
    let id = c["id"].as_str().unwrap();
    let w = &want[format!("comparison:{id}")];
    assert!(!w.is_null(), "scipy has no comparison {id}");
    close(&c["ratio"], &w["ratio"], VALUE, &format!("{id} ratio"));
    pair(&c["ci"], &w["ci"], VALUE, &format!("{id} ci"));
    close(&c["p_value"], &w["p"], P, &format!("{id} p"));
    let (r, wr) = (&c["rank"], &w["rank"]);
    for field in ["u", "min_p", "cliffs_delta"] {
        close(&r[field], &wr[field], VALUE, &format!("{id} rank {field}"));
    }
    close(&r["p"], &wr["p"], P, &format!("{id} rank p"));
    assert_eq!(r["exact"], wr["exact"], "{id} exact");
    if !w["median"].is_null() {
        let (m, wm) = (&c["median"], &w["median"]);
        close(&m["relative"], &wm["relative"], VALUE, &format!("{id} median"));
        close(&m["ratio_of_medians"], &wm["ratio_of_medians"], VALUE, &format!("{id} medians"));
        pair(&m["ci"], &wm["ci"], VALUE, &format!("{id} median ci"));
        let open = m.get("ci_open").cloned().unwrap_or(Value::Null);
        let want_open = match wm["open"].as_array() {
            Some(o) if o.contains(&Value::Bool(true)) && !wm["ci"].is_null() => wm["open"].clone(),
            _ => Value::Null,
        };
        assert_eq!(open, want_open, "{id} median open ends");
    }
}
