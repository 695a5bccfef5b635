//! Checks a built study's stats.json against tests/independent_stats.py, an
//! independent computation with scipy: every metric, group and comparison,
//! and every caveat's trigger (tests/independent_caveats.py).

pub mod agree;

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

/// Two intervals `a` and `b` agree end by end to a relative `tol` (both
/// null counts as agreeing).
pub fn pair(a: &Value, b: &Value, tol: f64, what: &str) {
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
    assert_eq!(metrics.len(), metric_count(want), "metrics (a family's members each)");
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

/// The oracle's key of a metric: its name, and for a member of a family
/// (docs/factors.md) its candidate and where it is made.
fn key(m: &Value) -> String {
    let name = m["name"].as_str().unwrap().to_string();
    match (&m["member"]["candidate"], &m["member"]["at"]) {
        (Value::String(c), Value::String(at)) => format!("{name} candidate={c} at={at}"),
        (Value::String(c), _) => format!("{name} candidate={c}"),
        _ => name,
    }
}

/// The metrics (a family's members each) the oracle computed.
fn metric_count(want: &Value) -> usize {
    let keys = want.as_object().unwrap().keys();
    let not_metrics = ["group:", "comparison:", "caveats", "table:"];
    keys.filter(|k| !not_metrics.iter().any(|n| k.starts_with(n))).count()
}

fn check_metric(m: &Value, want: &Value) {
    let name = &key(m);
    let w = &want[name];
    assert!(w.is_object(), "{name}: the oracle has no such metric");
    if w["ambiguous"] == true {
        // Two levels tie for the best of the others within rounding.
        return;
    }
    check_best(name, m, w);
    if m["member"].is_object() || !w["p_holm"].is_null() {
        close(&m["p_holm"], &w["p_holm"], P, &format!("{name} p after Holm"));
    }
    close(&m["value"], &w["value"], VALUE, &format!("{name} value"));
    pair(&m["ci"], &w["ci"], VALUE, &format!("{name} ci"));
    close(&m["p_value"], &w["p"], P, &format!("{name} p"));
    assert_eq!(m["exact"], w["exact"], "{name} exact");
    assert_eq!(m["ci_open"], w["open"], "{name} open ends");
    assert_eq!(m["significant"], w["significant"], "{name} verdict");
    check_claim(name, m, w);
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

/// With `baseline = "best"`: the level chosen and each level's score.
fn check_best(name: &str, m: &Value, w: &Value) {
    let Some(best) = w["best"].as_object() else { return };
    assert_eq!(m["baseline"]["environment"], best["level"], "{name}: the best of the others");
    // Each level chosen among with its score, in any order.
    let scored = |s: &Value| -> std::collections::BTreeMap<String, Value> {
        let among = s["among"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().into());
        among.zip(s["scores"].as_array().unwrap().iter().cloned()).collect()
    };
    let (got, want) = (scored(&m["baseline_selected"]), scored(&w["best"]));
    assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>(), "{name}: among");
    for (level, score) in &want {
        close(&got[level], score, VALUE, &format!("{name}: the score of {level}"));
    }
}

/// A comparison's claim (docs/methods.md, Verdicts): its verdict and why
/// it is inconclusive.
fn check_claim(name: &str, m: &Value, w: &Value) {
    if let Some(claim) = w["claim"].as_array() {
        assert_eq!(m["claim"]["verdict"], claim[0], "{name}: the claim's verdict");
        assert_eq!(m["claim"]["undecided"]["kind"], claim[1], "{name}: why it is inconclusive");
    }
    // The direction word of the value and of an interval on one side, in
    // the words of a column without labels.
    let Some(word) = w["word"].as_array() else { return };
    let said = |field: &str| m["text"][field].as_str().unwrap_or("").to_string();
    if let Some(word) = word[0].as_str() {
        let words = said("words");
        assert!(words.trim_end_matches(')').ends_with(word), "{name}: {words:?}, not {word}");
    }
    if let Some(word) = word[1].as_str() {
        let interval = said("interval");
        let ok = interval.trim_end_matches(')').ends_with(word);
        assert!(ok, "{name}: interval {interval:?}, not {word}");
    }
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

/// Every caveat kind report may write; a new kind fails [`check_caveats`]
/// until tests/independent_caveats.py derives its trigger.
const KINDS: [&str; 17] = [
    "single-node",
    "node-counts",
    "nodes-unknown",
    "not-significant",
    "few-runs",
    "unmatched",
    "outliers",
    "estimators-disagree",
    "high-variation",
    "sign-change",
    "multiplicity",
    "excluded",
    "not-normal",
    "influential",
    "resolution",
    "selected-baseline",
    "sources",
];

/// The caveats of a study against the oracle's triggers
/// (tests/independent_caveats.py): each metric's caveats there exactly when
/// the oracle raises them, and the data-wide ones likewise, with their
/// counts. A trigger the oracle leaves null (within rounding of its
/// threshold) is not checked.
pub fn check_caveats(stats: &Value, want: &Value) {
    let caveats = stats["caveats"].as_array().unwrap();
    for c in caveats {
        assert!(KINDS.contains(&c["kind"].as_str().unwrap()), "caveat of unknown kind: {c}");
    }
    let has =
        |kind: &str, name: &str| caveats.iter().any(|c| c["kind"] == kind && c["metric"] == name);
    for m in stats["metrics"].as_array().unwrap() {
        let name = m["name"].as_str().unwrap();
        // A member of a family: the run that carries it, judged after
        // Holm's correction across the family; its caveats share the
        // family's name and are not told apart here.
        if m["member"].is_object() {
            let key = key(m);
            check_influence(&key, &m["influence"], &want[&key]["influence_run"]);
            check_carried(&key, &m["influence"], &want[&key]);
            continue;
        }
        for (kind, field) in [
            ("estimators-disagree", "disagree_caveat"),
            ("sign-change", "sign_change_caveat"),
            ("not-significant", "not_significant_caveat"),
            ("influential", "influential_caveat"),
            ("resolution", "resolution_caveat"),
            ("selected-baseline", "selected_caveat"),
        ] {
            let expected = &want[name][field];
            assert!(expected.is_boolean() || expected.is_null(), "oracle's {field}: {expected}");
            if let Some(expected) = expected.as_bool() {
                assert_eq!(has(kind, name), expected, "{name}: caveat {kind}");
            }
        }
        check_influence(name, &m["influence"], &want[name]["influence_run"]);
        check_carried(name, &m["influence"], &want[name]);
        if want[name]["influence_flips"] == true {
            let text = Caveats(caveats).text("influential", &[], Some(name)).unwrap();
            assert!(text.contains(", a different verdict"), "{name}: {text}");
        }
    }
    let w = &want["caveats"];
    if w.is_null() {
        return;
    }
    let all = Caveats(caveats);
    all.few_runs(w);
    assert_eq!(all.text("unmatched", &[], None).is_some(), w["unmatched"] == true, "unmatched");
    w["columns"].as_array().unwrap().iter().for_each(|c| all.column(c));
    all.multiplicity(&w["multiplicity"]);
    all.excluded(w["excluded"].as_array().unwrap());
    all.sources(&w["sources"]);
    if w["nodes_column"] == false {
        let nodes = ["single-node", "node-counts"].map(|k| all.text(k, &[], None));
        assert_eq!(nodes, [None, None], "node caveats without a node column");
    }
}

/// The run whose removal moves a metric most: its side, value and the
/// metric without it (`want`: false for none, null when not checked).
fn check_influence(name: &str, found: &Value, want: &Value) {
    match want {
        Value::Null => {}
        Value::Bool(false) => assert!(found.is_null(), "{name}: influence {found}, want none"),
        _ => {
            assert_eq!(found["environment"], want[0], "{name}: influential run's side");
            close(&found["value"], &want[1], VALUE, &format!("{name} influential run"));
            close(&found["without"]["value"], &want[2], VALUE, &format!("{name} without it"));
        }
    }
}

/// Whether the run found changes the verdict and carries the metric, as
/// the oracle judges them (after Holm's correction within a family).
fn check_carried(name: &str, found: &Value, want: &Value) {
    if found.is_null() || !want["influence_run"].is_array() {
        return;
    }
    for (field, wanted) in
        [("changes_verdict", "influence_flips"), ("carries", "influential_caveat")]
    {
        if let Some(w) = want[wanted].as_bool() {
            assert_eq!(found[field], w, "{name}: influence {field}: {found}");
        }
    }
}

/// A study's caveats, searched by kind and text.
struct Caveats<'a>(&'a [Value]);

impl<'a> Caveats<'a> {
    /// The text of the caveat of `kind` on `metric` (data-wide: `None`)
    /// that contains every one of `parts`.
    fn text(&self, kind: &str, parts: &[&str], metric: Option<&str>) -> Option<&'a str> {
        let metric = metric.map_or(Value::Null, |m| Value::String(m.into()));
        let found = self.0.iter().filter(|c| c["kind"] == kind && c["metric"] == metric);
        found.filter_map(|c| c["text"].as_str()).find(|t| parts.iter().all(|p| t.contains(p)))
    }

    /// Runs of one configuration whose sources differ: one caveat per
    /// column where some pair does, naming the tests made and each pair
    /// (the first five). Unchecked when a p lies within rounding of 0.05.
    fn sources(&self, w: &Value) {
        let columns = w.as_array().unwrap();
        if columns.iter().any(Value::is_null) {
            return;
        }
        let differ: Vec<&Value> =
            columns.iter().filter(|c| !c[3].as_array().unwrap().is_empty()).collect();
        assert_eq!(self.count("sources"), differ.len(), "sources caveats: {columns:?}");
        for c in differ {
            let (file, column) = (c[0].as_str().unwrap(), c[1].as_str().unwrap());
            let at = format!("Runs of {column} in results/{file}.csv from different sources");
            let tested = format!("across the {} pairs of sources tested", c[2]);
            let text = self.text("sources", &[&at, &tested], None);
            let text = text.unwrap_or_else(|| panic!("sources: {at} ({tested}) in {:?}", self.0));
            for pair in c[3].as_array().unwrap().iter().take(5) {
                let named = format!(": {} (", pair[1].as_str().unwrap());
                let against = format!(" against {} (", pair[0].as_str().unwrap());
                assert!(text.contains(&named) && text.contains(&against), "{pair} in {text}");
            }
        }
    }

    fn count(&self, kind: &str) -> usize {
        self.0.iter().filter(|c| c["kind"] == kind).count()
    }

    /// Configurations of fewer than 3 runs (one caveat for all files), and
    /// one caveat per pair of run counts too small for rank statistics.
    fn few_runs(&self, w: &Value) {
        let files = w["few_runs_groups"].as_object().unwrap();
        let pairs = w["few_runs_pairs"].as_array().unwrap();
        let expected = usize::from(!files.is_empty()) + pairs.len();
        assert_eq!(self.count("few-runs"), expected, "few-runs caveats: {files:?}, {pairs:?}");
        for (file, counts) in files {
            let has = format!("{file}.csv has {} configuration", counts[0]);
            let smallest = format!("(the smallest has n = {})", counts[1]);
            assert!(self.text("few-runs", &[&has, &smallest], None).is_some(), "few-runs: {has}");
        }
        for pair in pairs {
            let runs = format!(" compare {} runs with {}: ", pair[0], pair[1]);
            assert!(self.text("few-runs", &[&runs], None).is_some(), "few-runs:{runs}");
        }
    }

    /// Outliers, high variation and non-normal runs of one column.
    fn column(&self, w: &Value) {
        let (file, column) = (w["file"].as_str().unwrap(), w["column"].as_str().unwrap());
        let at = [format!("{column} in "), format!("{file}.csv")];
        let at: Vec<&str> = at.iter().map(String::as_str).collect();
        let outliers = self.text("outliers", &at, None);
        assert_eq!(outliers.is_some(), w["outliers"] != 0, "{column}: outliers caveat");
        if let Some(text) = outliers {
            // Past five configurations, the five most extreme are named (docs/factors.md).
            let severe = text.contains(" Beyond 3 IQR (severe): ")
                || text.contains(" Beyond 3 IQR (severe), the five most extreme: ");
            assert_eq!(severe, w["severe"] == true, "{column}: severe outliers: {text}");
            let (mild, configs) = (w["mild"][0].as_u64().unwrap(), w["mild"][1].as_u64().unwrap());
            let said = match (mild, configs) {
                (0, _) => String::new(),
                (1, _) => " One more run lies beyond 1.5 IQR only".into(),
                (m, 1) => format!(" {m} more runs of one configuration lie beyond 1.5 IQR"),
                (m, c) => format!(" {m} more runs in {c} configurations lie beyond 1.5 IQR"),
            };
            assert!(text.contains(&said), "{column}: mild outliers, want{said}: {text}");
            assert_eq!(mild == 0, !text.contains("(mild)"), "{column}: {text}");
        }
        self.not_normal(w, &at);
        let Some(high) = w["high_cv"].as_u64() else { return };
        let variation = self.text("high-variation", &at, None);
        assert_eq!(variation.is_some(), high > 0, "{column}: high-variation caveat");
        if let Some(text) = variation {
            let count = if high == 1 {
                "one configuration".into()
            } else {
                format!("{high} configurations")
            };
            let named = [format!("in {count}: "), format!("in {count}, the five most variable: ")];
            let listed = named.iter().any(|n| text.contains(n.as_str()));
            assert!(listed, "{column}: want {count}: {text}");
            assert_eq!(high > 5, text.contains("the five most variable"), "{column}: {text}");
        }
    }

    /// The non-normal configurations of one column and the advice on the median.
    fn not_normal(&self, w: &Value, at: &[&str]) {
        let column = w["column"].as_str().unwrap();
        let Some(rejected) = w["not_normal"].as_u64() else { return };
        let text = self.text("not-normal", at, None);
        assert_eq!(text.is_some(), rejected > 0, "{column}: not-normal caveat");
        let Some(text) = text else { return };
        let subject = match rejected {
            1 => format!("The runs of {column} in "),
            n => format!("In {n} configurations, the runs of {column} in "),
        };
        assert!(text.starts_with(&subject), "{column}: want {subject}: {text}");
        let prefer = text.contains("the median describes the runs better than the mean");
        assert_eq!(prefer, w["prefer_median"] == true, "{column}: prefer the median: {text}");
        let keep = text.contains("the mean describes them better");
        assert_eq!(keep, w["keep_mean"] == true, "{column}: keep the mean: {text}");
    }

    /// Holm's caveat: how many comparisons, p < 0.05, and survivors.
    fn multiplicity(&self, w: &Value) {
        assert_eq!(self.count("multiplicity"), usize::from(!w.is_null()), "multiplicity caveat");
        if w.is_null() {
            return;
        }
        let count = &w[0];
        let text = self.text("multiplicity", &[], None).unwrap();
        assert!(text.contains(&format!("tests {count} comparisons:")), "want {count}: {text}");
        if !w[1].is_null() {
            let raw = format!("p < 0.05 in {} of them", w[1]);
            assert!(text.contains(&raw), "want {raw}: {text}");
        }
        if !w[2].is_null() {
            let survive = format!("and {} of {count} remain significant", w[2]);
            assert!(text.contains(&survive), "want {survive}: {text}");
        }
    }

    /// One caveat per exclusion, with the rows it removed and its reason.
    fn excluded(&self, w: &[Value]) {
        assert_eq!(self.count("excluded"), w.len(), "excluded caveats");
        for e in w {
            let runs = match e[0].as_u64().unwrap() {
                1 => ": 1 run of ".to_string(),
                n => format!(": {n} runs of "),
            };
            let reason = format!("because {}.", e[1].as_str().unwrap());
            assert!(
                self.text("excluded", &[&runs, &reason], None).is_some(),
                "excluded{runs}{reason}"
            );
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
    let severe_count = Some(floats(&w["severe"]).len() as u64);
    assert_eq!(r["severe_count"].as_u64(), severe_count, "{id} severe outliers counted");
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
