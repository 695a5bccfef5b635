//! The run that carries a headline, on seeded samples of many shapes (one
//! wild run among many on either side, whole-number grids full of ties, a
//! constant side, both sides constant, effects near the verdict's edge),
//! checked against tests/independent_influence.py, which leaves out every
//! run of both sides in turn with scipy; and the allreduce shape of issue
//! 27: nineteen runs of 164–234 µs and one of 5,333 µs against about 100 µs.

use std::fmt::Write;
use std::process::Command;

use crate::common::*;
use crate::stats_oracle;
use serde_json::Value;

const BOOK: &str = r#"
[book]
title = "Influence"
[study]
baseline = "base"
[environments.base]
label = "Base"
[environments.cand]
label = "Candidate"
[data.runs]
key = ["environment", "case", "run"]
group-by = ["case"]
"#;

impl Seeded {
    #[allow(clippy::disallowed_methods)] // inputs and hand values: the system's own functions
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.next().max(1e-12), self.next());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
    fn runs(&mut self, low: usize, high: usize) -> usize {
        low + (self.next() * (high - low + 1) as f64) as usize
    }
}

/// Case `i`'s two sides (candidate, baseline), of shape `i % 7`.
fn case(g: &mut Seeded, i: usize) -> (Vec<f64>, Vec<f64>) {
    let (m, n) = (g.runs(3, 25), g.runs(3, 25));
    let effect = 1.0 + 0.2 * g.next();
    let noise = 0.01 + 0.1 * g.next();
    let mut side = |k: usize, level: f64| -> Vec<f64> {
        (0..k).map(|_| level * (1.0 + noise * g.normal()).max(0.05)).collect()
    };
    let (mut c, mut b) = (side(m, 100.0 * effect), side(n, 100.0));
    match i % 7 {
        1 => c[0] *= 5.0 + 25.0 * g.next(),
        2 => b[n / 2] *= 5.0 + 25.0 * g.next(),
        // A grid of whole units around 15: ties everywhere.
        3 => {
            for v in c.iter_mut().chain(b.iter_mut()) {
                *v = (*v / 7.0).round().max(1.0);
            }
        }
        4 => b = vec![100.0; n],
        5 => {
            // An effect about as large as its standard error.
            let edge = 1.0 + 2.0 * noise / (m.min(n) as f64).sqrt();
            c = b.iter().cycle().take(m).map(|v| v * edge * (1.0 + noise * 0.5)).collect();
        }
        6 => (c, b) = (vec![120.0; m], vec![100.0; n]),
        _ => {}
    }
    (c, b)
}

fn study(cases: &[(Vec<f64>, Vec<f64>)]) -> tempfile::TempDir {
    let (mut book, mut csv) = (BOOK.to_string(), String::from("environment,case,run,time\n"));
    for (i, (c, b)) in cases.iter().enumerate() {
        write!(
            book,
            "\n[[metrics]]\nname = \"case_{i}\"\nlabel = \"Case {i}\"\ndata = \"runs\"\nvalue = \"time\"\nwhere = {{ case = {i} }}\nbetter = \"lower\"\nheadline = true\n"
        )
        .unwrap();
        for (env, values) in [("cand", c), ("base", b)] {
            for (run, v) in values.iter().enumerate() {
                writeln!(csv, "{env},{i},{},{v:.3}", run + 1).unwrap();
            }
        }
    }
    written_study(&book, &[("runs.csv", &csv)], CAVEATS_PAGE)
}

fn oracle(root: &std::path::Path) -> Value {
    let script = repo().join("tests/independent_influence.py");
    let output = Command::new("python3").arg(script).arg(root).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_run_that_moves_a_headline_most_is_the_one_scipy_finds() {
    if !stats_oracle::scipy() {
        return;
    }
    // A fixed seed; another with INFLUENCE_SEED=N (printed on failure).
    let seed = std::env::var("INFLUENCE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(27);
    let mut g = Seeded(seed);
    let cases: Vec<_> = (0..70).map(|i| case(&mut g, i)).collect();
    let dir = study(&cases);
    let stats = stats_json(dir.path());
    let want = oracle(dir.path());
    let mut carried = 0;
    for m in stats["metrics"].as_array().unwrap() {
        let name = m["name"].as_str().unwrap();
        let (got, w) = (&m["influence"], &want[name]);
        let what = format!("seed {seed}, {name}: report {got} vs scipy {w}");
        assert_eq!(got.is_null(), w.is_null(), "{what}");
        if w.is_null() {
            continue;
        }
        let env = if w["environment"] == "cand" { "cand" } else { "base" };
        assert_eq!(got["environment"], env, "{what}");
        assert!(
            (got["value"].as_f64().unwrap() - w["value"].as_f64().unwrap()).abs() < 1e-9,
            "{what}"
        );
        let without = got["without"]["value"].as_f64().unwrap() + 1.0;
        assert!((without / w["ratio"].as_f64().unwrap() - 1.0).abs() < 1e-9, "{what}");
        assert_eq!(got["changes_verdict"], w["changes_verdict"], "{what}");
        assert_eq!(got["carries"], w["carries"], "{what}");
        let caveat = stats["caveats"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["kind"] == "influential" && c["metric"] == name);
        assert_eq!(caveat, w["carries"] == true, "{what}");
        carried += usize::from(caveat);
    }
    // Every shape with a wild run carries its metric; the generator is not idle.
    assert!(carried >= 20, "{carried} of 70 cases carried");
}

/// Issue 27's allreduce: one 5,333 µs run among nineteen of 164–234 µs,
/// against about 100 µs. The caveat names that run, its distance from its
/// side's median, the estimate without it and the median model's.
#[test]
fn one_wild_allreduce_run_is_named_on_its_headline() {
    let mut g = Seeded(5);
    let mut c: Vec<f64> = (0..19).map(|_| (164.0 + 70.0 * g.next()).round()).collect();
    c.insert(6, 5333.0);
    let b: Vec<f64> = (0..20).map(|_| 100.0 + (5.0 * g.next()).round()).collect();
    let dir = study(&[(c.clone(), b.clone())]);
    let stats = stats_json(dir.path());
    let text: Vec<&str> = stats["caveats"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == "influential")
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    assert_eq!(text.len(), 1, "{text:?}");
    // Without it: the mean of the other nineteen over the baseline's mean.
    let others: f64 = c.iter().filter(|v| **v != 5333.0).sum::<f64>() / 19.0;
    let ratio = others / (b.iter().sum::<f64>() / 20.0);
    let mut sorted = c.clone();
    sorted.sort_by(f64::total_cmp);
    let median = (sorted[9] + sorted[10]) / 2.0;
    let without = format!("Without it the difference is +{:.1}%", (ratio - 1.0) * 100.0);
    let times =
        format!("{}× the median of its side", report::format::significant(5333.0 / median, 2));
    for part in [
        "run 7 of Candidate at case = 0 (5333, ",
        &times,
        &without,
        "by the median (Hodges–Lehmann)",
    ] {
        assert!(text[0].contains(part), "{part:?} not in {:?}", text[0]);
    }
    // The outlier caveat lists it.
    let outliers = stats["caveats"].as_array().unwrap().iter().find(|c| c["kind"] == "outliers");
    assert!(outliers.unwrap()["text"].as_str().unwrap().contains("run 7 (5333)"));
}
