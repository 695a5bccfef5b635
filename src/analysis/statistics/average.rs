//! Averages of per-configuration ratios: the geometric mean (Fleming &
//! Wallace, CACM 1986: the same whichever side is the denominator) or the
//! arithmetic mean, and the range of the per-configuration values. Its
//! interval is of one of two models. By default the average is of exactly
//! these configurations (fixed effects): each configuration's own
//! standard error combined, SE = sqrt(Σ SE_i²) / k, with Welch–Satterthwaite
//! degrees of freedom. With `generalise`, it stands for other
//! configurations too (random levels): Student's t over the k values, k − 1
//! degrees of freedom, so that the spread between configurations widens it.

use crate::math;
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
/// over exactly these configurations ([`fixed`]), or, with `generalise`,
/// from Student's t over the k ratios (on the log scale for the geometric
/// mean), so that the spread between configurations widens it.
pub fn combine(estimates: &[(String, Estimate)], how: Average, generalise: bool) -> Estimate {
    let exact = estimates.iter().all(|(_, e)| e.exact);
    let ratios: Vec<f64> = estimates.iter().map(|(_, e)| e.ratio).collect();
    let geometric = how == Average::Geometric && ratios.iter().all(|r| *r > 0.0);
    let (points, back): (Vec<f64>, fn(f64) -> f64) = match geometric {
        true => (ratios.iter().map(|r| math::ln(*r)).collect(), math::exp),
        false => (ratios.clone(), |x| x),
    };
    let model = match (geometric, generalise) {
        (true, true) => Model::GeometricAverage,
        (false, true) => Model::ArithmeticAverage,
        (true, false) => Model::GeometricAverageFixed,
        (false, false) => Model::ArithmeticAverageFixed,
    };
    let null = if geometric { 0.0 } else { 1.0 };
    let summary = Summary::of(&points).expect("at least two configurations");
    let ratio = back(summary.mean);
    if exact {
        return Estimate { ratio, model: Model::ExactAverage, exact: true, ..Default::default() };
    }
    let error = match generalise {
        true => summary.variance_of_mean().map(|v| (v.sqrt(), (summary.n - 1) as f64)),
        false => fixed(estimates, geometric),
    };
    let Some((se, df)) = error.filter(|(se, _)| *se > 0.0) else {
        return Estimate { ratio, model, ..Default::default() };
    };
    let half = stats::t_quantile(df) * se;
    // A ratio is positive: an arithmetic interval is cut at 0.
    let ci = [back(summary.mean - half).max(0.0), back(summary.mean + half)];
    let p = stats::p_value((summary.mean - null) / se, df);
    Estimate { ratio, ci: Some(ci), p: Some(p), model, ..Default::default() }
}

/// The standard error and degrees of freedom of the mean of the k
/// configurations' values (their logs when `log`), over exactly these
/// configurations: sqrt(Σ SE_i²) / k, each SE_i the configuration's own
/// (moved between the ratio and its log by the delta method, SE(ln r) =
/// SE(r) / r), or read from its 95% interval as a normal one where its
/// model has none (Hodges–Lehmann); an exact configuration adds nothing.
/// Degrees of freedom by Welch–Satterthwaite, (Σ SE_i²)² / Σ (SE_i⁴ / df_i).
/// None when a configuration has no interval at all (one run on a side).
pub fn fixed(estimates: &[(String, Estimate)], log: bool) -> Option<(f64, f64)> {
    let k = estimates.len() as f64;
    let (mut total, mut fourth) = (0.0, 0.0);
    for (_, e) in estimates {
        let (se, df) = own_error(e, log)?;
        total += se * se;
        if df.is_finite() {
            fourth += se.powi(4) / df;
        }
    }
    let df = if fourth > 0.0 { total * total / fourth } else { f64::INFINITY };
    Some((total.sqrt() / k, df))
}

/// One configuration's standard error on the log scale (`log`) or of the
/// ratio, with its degrees of freedom; zero for an exact ratio.
fn own_error(e: &Estimate, log: bool) -> Option<(f64, f64)> {
    if e.exact {
        return Some((0.0, f64::INFINITY));
    }
    if let Some(se) = e.se {
        let value = match (se.log, log) {
            (true, false) => se.value * e.ratio,
            (false, true) => se.value / e.ratio,
            _ => se.value,
        };
        return Some((value, se.df));
    }
    let [lo, hi] = e.ci?;
    let z = stats::z_quantile();
    let width = if log { math::ln(hi) - math::ln(lo) } else { hi - lo };
    (width.is_finite() && width > 0.0).then_some((width / (2.0 * z), f64::INFINITY))
}

/// An interaction of two configurations' estimates (`first`, `second`):
/// the ratio of the second's ratio to the first's, with its interval and
/// p-value from Welch's t on the log scale, SE = sqrt(SE₁² + SE₂²) and
/// Welch–Satterthwaite degrees of freedom. Exact when both are; without
/// an interval when either has none or a ratio is not positive.
pub fn interaction(first: &Estimate, second: &Estimate) -> Estimate {
    let ratio = second.ratio / first.ratio;
    if first.exact && second.exact {
        return Estimate { ratio, model: Model::Exact, exact: true, ..Default::default() };
    }
    let model = Model::Interaction;
    let positive = first.ratio > 0.0 && second.ratio > 0.0;
    let error = positive
        .then(|| fixed(&[(String::new(), *first), (String::new(), *second)], true))
        .flatten()
        .map(|(se, df)| (se * 2.0, df));
    let Some((se, df)) = error.filter(|(se, _)| *se > 0.0) else {
        return Estimate { ratio, model, ..Default::default() };
    };
    let (log, half) = (math::ln(ratio), stats::t_quantile(df) * se);
    let ci = [math::exp(log - half), math::exp(log + half)];
    Estimate {
        ratio,
        ci: Some(ci),
        p: Some(stats::p_value(log / se, df)),
        model,
        ..Default::default()
    }
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
        let e = combine(&estimates, Average::Arithmetic, true);
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
        let g = combine(&estimates, Average::Geometric, true).ratio;
        let inverted: Vec<_> =
            [0.86, 0.87, 0.89, 0.912, 1.088].into_iter().map(|r| at(1.0 / r)).collect();
        assert!((combine(&inverted, Average::Geometric, true).ratio * g - 1.0).abs() < 1e-12);
    }
}
