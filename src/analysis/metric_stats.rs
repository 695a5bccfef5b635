//! A metric's value ([`MetricValue`]) and its statistics from its groups' (candidate, baseline) summaries:
//! the candidate's mean for a summary; for a comparison, the mean of the
//! groups' ratios with its interval, p-value and significance.

use serde::Serialize;

use super::Inputs;
use super::stats::{self, Summary};
use crate::config::{Better, Compare, Config, Metric};

/// One side of a comparison: an environment's mean and run count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    /// Environment name.
    pub environment: String,
    /// Mean of the measured column (the mean of group means for averaged metrics).
    pub mean: f64,
    /// Runs (the smallest group's count for averaged metrics).
    pub n: usize,
}

impl Side {
    /// The side of `environment` with the statistics of `summary`.
    pub fn of(environment: &str, summary: &Summary) -> Side {
        Side { environment: environment.to_string(), mean: summary.mean, n: summary.n }
    }
}

/// A computed metric of book.toml.
#[derive(Debug, Clone, Serialize)]
pub struct MetricValue {
    /// Name used in prose.
    pub name: String,
    /// Short label.
    pub label: String,
    /// Definition in words.
    pub definition: Option<String>,
    /// How environments are compared.
    pub compare: Compare,
    /// Which direction is good news.
    pub better: Better,
    /// Unit of the value: `%` for relative differences and slowdowns.
    pub unit: String,
    /// Decimals shown.
    pub decimals: usize,
    /// Shown as a summary card.
    pub headline: bool,
    /// The value: a fraction for `relative` and `slowdown` (0.088 is +8.8%),
    /// the ratio, or the candidate's mean.
    pub value: f64,
    /// 95% confidence interval of the value; absent when some group has n < 2.
    pub ci: Option<[f64; 2]>,
    /// Why there is no interval, when there is none.
    pub ci_note: Option<String>,
    /// Two-sided p-value against "no difference"; absent for summaries and when n < 2.
    pub p_value: Option<f64>,
    /// Whether the interval excludes "no difference"; absent without an interval.
    pub significant: Option<bool>,
    /// The baseline side; absent for summaries.
    pub baseline: Option<Side>,
    /// The candidate side.
    pub candidate: Side,
    /// Groups averaged over (1 unless `per` is set).
    pub groups: usize,
    /// What it was computed from.
    pub inputs: Inputs,
}

/// The metric's value, interval and p-value from per-group (candidate, baseline) pairs.
pub(super) fn compute(
    metric: &Metric,
    config: &Config,
    candidate: &str,
    pairs: &[(Summary, Option<Summary>)],
    inputs: Inputs,
) -> Result<MetricValue, String> {
    let mut value = described(metric, candidate, pairs, inputs);
    if metric.compare == Compare::Summary {
        if metric.unit.is_none() {
            value.unit = String::new();
        }
        if let [(only, _)] = pairs {
            value.ci = only.ci;
        }
        return Ok(value);
    }
    let (ratios, baseline) = baseline_ratios(pairs, &config.study.baseline)?;
    value.baseline = Some(baseline);
    set_comparison(metric.compare, pairs, &ratios, &mut value);
    Ok(value)
}

/// The metric as described in book.toml, with the candidate's side and mean
/// as its value; no interval, p-value or baseline yet.
fn described(
    metric: &Metric,
    candidate: &str,
    pairs: &[(Summary, Option<Summary>)],
    inputs: Inputs,
) -> MetricValue {
    let k = pairs.len() as f64;
    let n = pairs.iter().map(|(c, b)| b.as_ref().map_or(c.n, |b| b.n.min(c.n))).min().unwrap_or(0);
    let cand_mean = pairs.iter().map(|(c, _)| c.mean).sum::<f64>() / k;
    let cand_side = Side {
        environment: candidate.to_string(),
        mean: cand_mean,
        n: pairs.iter().map(|p| p.0.n).min().unwrap_or(0),
    };
    MetricValue {
        name: metric.name.clone(),
        label: metric.label.clone(),
        definition: metric.definition.clone(),
        compare: metric.compare,
        better: metric.better,
        decimals: metric.decimals,
        headline: metric.headline,
        unit: metric.unit.clone().unwrap_or_else(|| {
            if metric.compare == Compare::Ratio { "×".into() } else { "%".into() }
        }),
        value: cand_mean,
        ci: None,
        ci_note: stats::no_interval(n),
        p_value: None,
        significant: None,
        baseline: None,
        candidate: cand_side,
        groups: pairs.len(),
        inputs,
    }
}

/// Each group's candidate-to-baseline ratio, and the baseline's side (mean of
/// its group means, smallest run count); an error when the baseline has no
/// rows in some group.
fn baseline_ratios(
    pairs: &[(Summary, Option<Summary>)],
    baseline: &str,
) -> Result<(Vec<stats::Ratio>, Side), String> {
    let k = pairs.len() as f64;
    let mut ratios = Vec::new();
    for (c, b) in pairs {
        let b = b
            .as_ref()
            .ok_or_else(|| format!("the baseline `{baseline}` has no rows in some group"))?;
        ratios.push((stats::ratio(c, b), b.n, b.mean));
    }
    let side = Side {
        environment: baseline.to_string(),
        mean: ratios.iter().map(|x| x.2).sum::<f64>() / k,
        n: ratios.iter().map(|x| x.1).min().unwrap_or(0),
    };
    Ok((ratios.into_iter().map(|x| x.0).collect(), side))
}

/// Set the value, interval, p-value and significance of a comparison from
/// its per-group ratios, as `how` expresses them.
fn set_comparison(
    how: Compare,
    pairs: &[(Summary, Option<Summary>)],
    ratios: &[stats::Ratio],
    value: &mut MetricValue,
) {
    let k = pairs.len() as f64;
    let r = ratios.iter().map(|x| x.value).sum::<f64>() / k;
    let interval = averaged_interval(ratios);
    let p = match (pairs, interval) {
        ([(c, Some(b))], _) => stats::welch(c, b).map(|w| w.p),
        (_, Some((se, df))) => Some(stats::p_value((r - 1.0) / se, df)),
        _ => None,
    };
    let [lo, hi] = interval.map_or([f64::NAN; 2], |(se, df)| {
        [r - stats::t_quantile(df) * se, r + stats::t_quantile(df) * se]
    });
    let (v, ci, null) = match how {
        Compare::Relative => (r - 1.0, [lo - 1.0, hi - 1.0], 0.0),
        Compare::Slowdown => (1.0 - r, [1.0 - hi, 1.0 - lo], 0.0),
        Compare::Ratio | Compare::Summary => (r, [lo, hi], 1.0),
    };
    value.value = v;
    value.p_value = p;
    if interval.is_some() {
        value.ci = Some(ci);
        value.significant = Some(!(ci[0] <= null && null <= ci[1]));
    }
}

/// Standard error and degrees of freedom of the mean of `k` ratios: sqrt(Σ se²) / k,
/// with Welch–Satterthwaite degrees of freedom; `None` if any ratio lacks an se.
fn averaged_interval(ratios: &[stats::Ratio]) -> Option<(f64, f64)> {
    let k = ratios.len() as f64;
    let ses: Vec<(f64, f64)> = ratios.iter().map(|r| r.se.zip(r.df)).collect::<Option<_>>()?;
    let variance: f64 = ses.iter().map(|(se, _)| se * se).sum::<f64>() / (k * k);
    let parts: Vec<(f64, f64)> = ses.iter().map(|(se, df)| (se * se / (k * k), *df)).collect();
    let df = variance * variance / parts.iter().map(|(v, df)| v * v / df).sum::<f64>();
    (variance > 0.0).then(|| (variance.sqrt(), df))
}
