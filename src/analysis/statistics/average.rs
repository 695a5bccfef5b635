//! Averages of per-configuration ratios: the geometric mean (Fleming &
//! Wallace, CACM 1986: the same whichever side is the denominator) or the
//! arithmetic mean, with an interval that carries the spread between the
//! configurations (Student's t over the k configurations, k − 1 degrees of
//! freedom), and the range of the per-configuration values.

use serde::Serialize;

use super::model::{Estimate, Model};
use super::stats::{self, Summary};
use crate::config::Average;

/// One configuration's value in an averaged metric.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfigValue {
    /// The configuration, such as `procs = 32`.
    pub at: String,
    /// Its value, as the metric expresses it (0.088 is +8.8%).
    pub value: f64,
    /// Its 95% interval, likewise.
    pub ci: Option<[f64; 2]>,
    /// Its p-value.
    pub p_value: Option<f64>,
    /// Whether it differs significantly from no difference (its model's
    /// verdict, open interval ends included); absent without an interval.
    pub significant: Option<bool>,
}

/// The per-configuration values of an averaged metric and their spread.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Spread {
    /// Each configuration's value, in configuration order.
    pub values: Vec<ConfigValue>,
    /// The smallest and the largest value.
    pub range: [ConfigValue; 2],
    /// Whether some configurations lie on either side of no difference.
    pub sign_change: bool,
    /// Whether the change of sign is itself significant: some
    /// configurations' intervals lie wholly above no difference and others'
    /// wholly below (the caveat on the average says so only then).
    pub significant_sign_change: bool,
}

/// The average of `estimates` (k ≥ 2) by `how`: its interval and p-value
/// from Student's t over the k ratios (on the log scale for the geometric
/// mean), so that the spread between configurations widens it.
pub fn combine(estimates: &[(String, Estimate)], how: Average) -> Estimate {
    let exact = estimates.iter().all(|(_, e)| e.exact);
    let ratios: Vec<f64> = estimates.iter().map(|(_, e)| e.ratio).collect();
    let (points, model, back): (Vec<f64>, _, fn(f64) -> f64) = match how {
        Average::Geometric if ratios.iter().all(|r| *r > 0.0) => {
            (ratios.iter().map(|r| r.ln()).collect(), Model::GeometricAverage, f64::exp)
        }
        _ => (ratios.clone(), Model::ArithmeticAverage, |x| x),
    };
    let null = if model == Model::GeometricAverage { 0.0 } else { 1.0 };
    let summary = Summary::of(&points).expect("at least two configurations");
    let ratio = back(summary.mean);
    if exact {
        return Estimate { ratio, model: Model::ExactAverage, exact: true, ..Default::default() };
    }
    let Some(se) = summary.variance_of_mean().map(f64::sqrt).filter(|se| *se > 0.0) else {
        return Estimate { ratio, model, ..Default::default() };
    };
    let df = (summary.n - 1) as f64;
    let half = stats::t_quantile(df) * se;
    // A ratio is positive: an arithmetic interval is cut at 0.
    let ci = [back(summary.mean - half).max(0.0), back(summary.mean + half)];
    let p = stats::p_value((summary.mean - null) / se, df);
    Estimate { ratio, ci: Some(ci), p: Some(p), model, ..Default::default() }
}

/// Each configuration's value as `express` turns a ratio into the metric,
/// the range and whether the sign changes.
pub fn spread(estimates: &[(String, Estimate)], express: impl Fn(f64) -> f64) -> Spread {
    let values: Vec<ConfigValue> = estimates
        .iter()
        .map(|(at, e)| {
            let ci = e.ci.map(|[lo, hi]| {
                let (a, b) = (express(lo), express(hi));
                if a <= b { [a, b] } else { [b, a] }
            });
            let significant = e.significant();
            ConfigValue { at: at.clone(), value: express(e.ratio), ci, p_value: e.p, significant }
        })
        .collect();
    spread_among(values, express(1.0))
}

/// Each configuration's difference ([`super::difference`]), the range and
/// whether the sign changes.
pub fn spread_of(differences: &[(String, super::difference::Difference)]) -> Spread {
    let values: Vec<ConfigValue> = differences
        .iter()
        .map(|(at, d)| {
            let excludes =
                d.ci.map(|ends| !super::ranks::Interval { ends, open: d.open }.contains(0.0));
            let significant = excludes.map(|x| {
                let p = d.p.is_none_or(|p| p < 1.0 - super::CONFIDENCE);
                x && p && d.value != 0.0 && !d.unreachable
            });
            ConfigValue { at: at.clone(), value: d.value, ci: d.ci, p_value: d.p, significant }
        })
        .collect();
    spread_among(values, 0.0)
}

/// The spread of `values` about `null`, the value of no difference.
fn spread_among(values: Vec<ConfigValue>, null: f64) -> Spread {
    let by_value = |a: &&ConfigValue, b: &&ConfigValue| a.value.total_cmp(&b.value);
    let low = values.iter().min_by(by_value).cloned().expect("at least one configuration");
    let high = values.iter().max_by(by_value).cloned().expect("at least one configuration");
    let sign_change = low.value < null && high.value > null;
    let beyond = |side: fn(f64, f64) -> bool| {
        values.iter().any(|v| v.significant == Some(true) && side(v.value, null))
    };
    let significant_sign_change = beyond(|x, n| x < n) && beyond(|x, n| x > n);
    Spread { values, range: [low, high], sign_change, significant_sign_change }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ratio: f64) -> (String, Estimate) {
        (format!("x = {ratio}"), Estimate { ratio, ..Default::default() })
    }

    fn within(ratio: f64, [lo, hi]: [f64; 2]) -> (String, Estimate) {
        (format!("x = {ratio}"), Estimate { ratio, ci: Some([lo, hi]), ..Default::default() })
    }

    // Relative: no difference at ratio 1. Below and above, each interval
    // clear of 1: significant both ways; one interval reaching 1: not.
    #[test]
    fn a_change_of_sign_is_significant_only_when_both_sides_are() {
        let relative = |r: f64| r - 1.0;
        let both = [within(0.9, [0.85, 0.95]), within(1.1, [1.05, 1.15])];
        let s = spread(&both, relative);
        assert!(s.sign_change && s.significant_sign_change);
        let one = [within(0.9, [0.85, 0.95]), within(1.1, [0.99, 1.2])];
        let s = spread(&one, relative);
        assert!(s.sign_change && !s.significant_sign_change);
        // Slowdown (1 − r) flips the order of the ends; the verdict is the same.
        assert!(spread(&both, |r| 1.0 - r).significant_sign_change);
        // Both below: no change of sign at all.
        let below = [within(0.9, [0.85, 0.95]), within(0.8, [0.7, 0.9])];
        assert!(!spread(&below, relative).significant_sign_change);
    }

    // Ratios 0.86, 0.87, 0.89, 0.912, 1.088: the slowdowns of the issue
    // (+14.0, +13.0, +11.0, +8.8, −8.8%). Arithmetic mean 0.924 (7.6%);
    // sd of the ratios 0.093825, se 0.041960, t(0.975, 4) = 2.7764451:
    // 0.924 ± 0.116498 (scipy.stats.t.interval).
    #[test]
    fn the_interval_carries_the_spread() {
        let estimates: Vec<_> = [0.86, 0.87, 0.89, 0.912, 1.088].into_iter().map(at).collect();
        let e = combine(&estimates, Average::Arithmetic);
        assert!((e.ratio - 0.924).abs() < 1e-12);
        let [lo, hi] = e.ci.unwrap();
        assert!((lo - (0.924 - 0.116498)).abs() < 1e-5 && (hi - (0.924 + 0.116498)).abs() < 1e-5);
        assert_eq!(e.significant(), Some(false));
        let s = spread(&estimates, |r| 1.0 - r);
        assert!(s.sign_change);
        // No configuration has an interval: the change of sign is not significant.
        assert!(!s.significant_sign_change);
        assert_eq!((s.range[0].at.as_str(), s.range[1].at.as_str()), ("x = 1.088", "x = 0.86"));
        // Geometric: exp(mean(ln r)); the same ratio inverted averages to its inverse.
        let g = combine(&estimates, Average::Geometric).ratio;
        let inverted: Vec<_> =
            [0.86, 0.87, 0.89, 0.912, 1.088].into_iter().map(|r| at(1.0 / r)).collect();
        assert!((combine(&inverted, Average::Geometric).ratio * g - 1.0).abs() < 1e-12);
    }
}
