//! Every quantile and tail probability the analysis uses against scipy, over
//! a sweep of degrees of freedom from 1 to 10^7 (integers, logarithmically
//! spaced values and Welch-like fractions) and of t from 10^-3 to 10^6:
//! Student's t quantile and two-sided p, the normal quantile, and the
//! order-statistic ranks of the median's interval.

use std::io::Write;
use std::process::{Command, Stdio};

use report::analysis::statistics::robust::median_ranks;
use report::analysis::statistics::stats::{p_value, t_quantile};
use report::analysis::statistics::student::{normal_sf, normal_upper_quantile, upper_quantile};
use serde_json::{Value, json};

use crate::stats_oracle;

/// scipy's figures for the points in `input`, by the script below.
fn scipy(input: &Value) -> Value {
    let mut child = Command::new("python3")
        .args(["-c", SCIPY])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.to_string().as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

const SCIPY: &str = r#"
import json, sys
from scipy import stats
q = json.load(sys.stdin)
out = {
    "ppf": [stats.t.isf(p, df) for p, df in q["ppf"]],
    "p": [2 * stats.t.sf(abs(t), df) for t, df in q["p"]],
    "normal": [stats.norm.isf(p) for p in q["normal"]],
    "normal_sf": [stats.norm.sf(z) for z in q.get("normal_sf", [])],
    "binom": [[float(stats.binom.cdf(j, n, 0.5)) for j in js] for n, js in q["binom"]],
}
print(json.dumps(out))
"#;

/// Degrees of freedom: 1 to 40, 200 logarithmically spaced from 1 to 10^7,
/// the sizes of the issue (250,000 and 1.5 million runs), and fractions as
/// Welch–Satterthwaite gives them.
#[allow(clippy::disallowed_methods)] // inputs and hand values: the system's own functions
fn degrees() -> Vec<f64> {
    let mut df: Vec<f64> = (1..=40).map(f64::from).collect();
    df.extend((0..200).map(|i| 10f64.powf(7.0 * f64::from(i) / 199.0)));
    df.extend([1.5, 2.5, 4.37, 17.912, 29.99, 30.01, 99.5, 249_999.0, 1_499_999.0, 1e7]);
    df.extend([3_141.592_653, 27_182.818, 1e7 - 0.5]);
    df
}

/// A seeded stream of numbers in [0, 1) (xorshift64*).
fn uniform(state: &mut u64) -> f64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
}

fn relative(a: f64, b: f64) -> f64 {
    if a == b { 0.0 } else { (a - b).abs() / b.abs() }
}

/// The t quantile at every tail probability asked, and the t test's p at
/// t spread over 10^-3 to 10^6, agree with scipy to 1e-9 relative wherever
/// scipy's p is above 10^-300.
#[test]
#[allow(clippy::disallowed_methods)] // inputs and hand values: the system's own functions
fn t_quantiles_and_p_values_agree_with_scipy_at_every_df() {
    if !stats_oracle::scipy() {
        return;
    }
    let df = degrees();
    let tails = [0.025, 0.25, 0.05, 0.005, 1e-5, 1e-10];
    let ppf: Vec<(f64, f64)> = df.iter().flat_map(|&d| tails.map(|q| (q, d))).collect();
    let mut seed = 0x5eed_0027_u64;
    let mut points: Vec<(f64, f64)> = Vec::new();
    for &d in &df {
        for _ in 0..12 {
            let t = 10f64.powf(-3.0 + 9.0 * uniform(&mut seed));
            points.push((if uniform(&mut seed) < 0.5 { -t } else { t }, d));
        }
        points.extend([(1.96, d), (2.0, d), (d.sqrt(), d), (t_quantile(d), d)]);
    }
    let want = scipy(&json!({"ppf": ppf, "p": points, "normal": [], "binom": []}));
    let mut worst = (0.0, String::new());
    for (&(q, d), expected) in ppf.iter().zip(want["ppf"].as_array().unwrap()) {
        let expected = expected.as_f64().unwrap();
        let got = if q == 0.025 { t_quantile(d) } else { upper_quantile(q, d) };
        let error = relative(got, expected);
        assert!(error <= 1e-9, "t quantile q = {q}, df = {d}: {got} vs scipy {expected}");
        if error > worst.0 {
            worst = (error, format!("quantile q = {q}, df = {d}"));
        }
    }
    let mut checked = 0;
    for (&(t, d), expected) in points.iter().zip(want["p"].as_array().unwrap()) {
        let expected = expected.as_f64().unwrap();
        if expected <= 1e-300 {
            continue;
        }
        checked += 1;
        let got = p_value(t, d);
        let error = relative(got, expected);
        assert!(error <= 1e-9, "p at t = {t}, df = {d}: {got} vs scipy {expected}");
        if error > worst.0 {
            worst = (error, format!("p at t = {t}, df = {d}"));
        }
    }
    assert!(checked > 2500, "{checked} p-values checked");
    eprintln!("largest relative error {:.1e} ({})", worst.0, worst.1);
}

/// The t quantile is never below the normal's, and falls toward it as the
/// degrees of freedom grow: the two faults of statrs' quantile at large df.
#[test]
fn the_t_quantile_falls_to_the_normal_one() {
    let z = normal_upper_quantile(0.025);
    let mut previous = f64::INFINITY;
    let mut df = degrees();
    df.sort_by(f64::total_cmp);
    df.dedup();
    for d in df {
        let t = t_quantile(d);
        assert!(t > z && t < previous, "df = {d}: {t}");
        previous = t;
    }
    // Hand arithmetic: ν = 1 is Cauchy, tan(0.475π); ν = 2 has
    // t = (2p − 1)/√(2p(1 − p)) at p = 0.975.
    assert!(relative(t_quantile(1.0), (0.475 * std::f64::consts::PI).tan()) < 1e-13);
    assert!(relative(t_quantile(2.0), 0.95 / (2.0 * 0.975 * 0.025f64).sqrt()) < 1e-13);
    assert!(t_quantile(0.0).is_nan() && t_quantile(f64::NAN).is_nan());
    assert!(p_value(f64::NAN, 3.0).is_nan() && p_value(1.0, -1.0).is_nan());
    // A p below the range of doubles is reported as the smallest positive one.
    assert_eq!((p_value(0.0, 3.0), p_value(f64::INFINITY, 3.0)), (1.0, 5e-324));
    assert_eq!(p_value(1e200, 1e6), 5e-324);
}

/// The normal quantile (Shapiro–Wilk's coefficients, the t quantile's start)
/// and upper tail (Shapiro–Wilk's p) to 1e-12, and the ranks of the median's distribution-free interval: the
/// largest j with 2·P(B ≤ j) ≤ 5% for B ~ Binomial(n, ½), and its coverage
/// to 1e-9, at n from 6 to 10^7.
#[test]
#[allow(clippy::disallowed_methods)] // inputs and hand values: the system's own functions
fn normal_quantiles_and_median_ranks_agree_with_scipy() {
    if !stats_oracle::scipy() {
        return;
    }
    let tails: Vec<f64> = (1..300).map(|i| 10f64.powf(-0.31 - f64::from(i))).collect();
    let mut tails: Vec<f64> = tails.into_iter().filter(|q| *q > 1e-300).collect();
    tails.extend((1..50).map(|i| f64::from(i) / 100.0));
    let mut sizes: Vec<u64> = (6..=80).collect();
    sizes.extend((0..60).map(|i| 10f64.powf(2.0 + 5.0 * f64::from(i) / 59.0).round() as u64));
    let ranks: Vec<(u64, [usize; 2])> = sizes
        .iter()
        .map(|&n| {
            let j = median_ranks(n as usize).unwrap().0;
            (n, [j, j + 1])
        })
        .collect();
    // Shapiro–Wilk's p is the normal's upper tail: from −8 to 37.5 (p ≈ 1e-308).
    let z: Vec<f64> = (0..=4550).map(|i| -8.0 + f64::from(i) / 100.0 + 0.003).collect();
    let want = scipy(&json!({
        "ppf": [], "p": [], "normal": tails, "binom": ranks, "normal_sf": z
    }));
    for (&q, expected) in tails.iter().zip(want["normal"].as_array().unwrap()) {
        let (got, expected) = (normal_upper_quantile(q), expected.as_f64().unwrap());
        assert!(relative(got, expected) <= 1e-12, "normal quantile {q}: {got} vs scipy {expected}");
    }
    for (&z, expected) in z.iter().zip(want["normal_sf"].as_array().unwrap()) {
        let (got, expected) = (normal_sf(z), expected.as_f64().unwrap());
        assert!(relative(got, expected) <= 1e-12, "normal tail at {z}: {got} vs scipy {expected}");
    }
    for (&(n, [j, _]), cdf) in ranks.iter().zip(want["binom"].as_array().unwrap()) {
        let (at, next) = (cdf[0].as_f64().unwrap(), cdf[1].as_f64().unwrap());
        assert!(2.0 * at <= 0.05 && 2.0 * next > 0.05, "n = {n}: j = {j} ({at}, {next})");
        let coverage = median_ranks(n as usize).unwrap().1;
        assert!(relative(coverage, 1.0 - 2.0 * at) <= 1e-9, "n = {n}: {coverage} vs {at}");
    }
}
