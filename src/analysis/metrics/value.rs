//! A metric's value ([`MetricValue`]) from its groups' (candidate,
//! baseline) samples: the candidate's mean for a summary; for a comparison,
//! the estimate of the metric's model, averaged over the groups of `per`.

use serde::Serialize;

use crate::analysis::Inputs;
pub use crate::analysis::findings::carried::Alternative;
use crate::analysis::findings::carried::{Grain, Influence};
use crate::analysis::statistics::average::{self, Spread};
use crate::analysis::statistics::difference;
use crate::analysis::statistics::estimators;
use crate::analysis::statistics::model::{Estimate, Model, Sample};
use crate::analysis::statistics::ranks::RankTest;
use crate::analysis::statistics::resolution;
use crate::analysis::statistics::stats::{self, Summary};
use crate::config::{Average, Better, Compare, Estimator, Metric};

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
    /// The factor compared along: the environment column, or the metric's
    /// `factor`.
    pub factor: String,
    /// For a member of a family (`candidates` or `each`): its candidate and
    /// where it is made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member: Option<super::sides::Member>,
    /// For a member of a family: its p-value after Holm's correction across
    /// the family; the family's verdicts use it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_holm: Option<f64>,
    /// With `baseline = "best"`: how the baseline was chosen from the data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_selected: Option<super::sides::Selected>,
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
    /// Whether each end of `ci` is excluded, low end first: the median
    /// model's interval on tied runs may stop just short of a value it
    /// rejects. Absent when both ends are included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci_open: Option<[bool; 2]>,
    /// Why there is no interval, when there is none.
    pub ci_note: Option<stats::NoInterval>,
    /// Every run of each side gives one value (in every group): the value
    /// is exact, with neither interval nor p-value.
    pub exact: bool,
    /// Two-sided p-value against "no difference"; absent for summaries and when n < 2.
    pub p_value: Option<f64>,
    /// Whether the comparison's test decides a difference
    /// (`analysis::metrics::claim::tested`); absent without an interval and a p.
    pub significant: Option<bool>,
    /// What the comparison supports: its verdict, why it is inconclusive
    /// and how many more runs could decide it; absent for summaries.
    pub claim: Option<crate::analysis::findings::claim::Claim>,
    /// The baseline side; absent for summaries.
    pub baseline: Option<Side>,
    /// The candidate side.
    pub candidate: Side,
    /// Groups averaged over (1 unless `per` is set).
    pub groups: usize,
    /// What it was computed from.
    pub inputs: Inputs,
    /// The estimator of the comparisons.
    pub estimator: Estimator,
    /// The model behind the value, interval and p-value.
    pub model: Model,
    /// With `per`: how the per-group ratios are averaged.
    pub average: Option<Average>,
    /// With `per`: each run measured every group, and runs were the units.
    pub within_run: bool,
    /// With `per`: each group's value (as the metric expresses it) and the
    /// spread between them; absent for one group.
    pub spread: Option<Spread>,
    /// For one group: the other estimator's value, interval, p and verdict,
    /// to show where mean and median disagree.
    pub other: Option<Alternative>,
    /// For one group: Mann–Whitney's test, Cliff's delta and the smallest p
    /// the sample sizes can reach.
    pub rank: Option<RankTest>,
    /// For a headline comparison: the run whose removal moves the value
    /// most, the value without it, and whether it carries the metric
    /// (`analysis::metrics::influence`); absent for summaries, `within-run`
    /// averages and sides past 10,000 runs.
    pub influence: Option<Influence>,
    /// For a comparison: the coarsest grid its samples lie on, against its
    /// effect and interval; absent when none lies on a grid.
    pub grain: Option<Grain>,
    /// Where its data come from (`[data.NAME] provenance`): when they were
    /// not measured the metric has no interval, p-value or significance.
    pub provenance: crate::config::Provenance,
    /// The published figure it reproduces (`[[published]]`), checked at
    /// the figure's precision; it is then stated unmarked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<crate::config::Published>,
}

impl MetricValue {
    /// Whether its numbers carry the mark of data that were not measured:
    /// not measured, and not a published figure.
    pub fn marked(&self) -> bool {
        !self.provenance.measured() && self.published.is_none()
    }
}

/// One group of a metric: where (`procs = 32`), the candidate's sample and the baseline's.
pub(crate) type Pair = (String, Sample, Option<Sample>);

/// The metric's value, interval and p-value from per-group (candidate, baseline) samples.
pub(super) fn compute(
    metric: &Metric,
    sides: &super::sides::Sides,
    (pairs, within): (&[Pair], Option<Estimate>),
    inputs: Inputs,
) -> Result<MetricValue, String> {
    let mut value = described(metric, sides, pairs, inputs);
    if metric.compare == Compare::Summary {
        if metric.unit.is_none() {
            value.unit = String::new();
        }
        if let [(_, only, _)] = pairs {
            value.ci = only.summary.ci;
            value.model = Model::StudentT;
        }
        return Ok(value);
    }
    if metric.compare == Compare::Difference {
        return differences(metric, sides, pairs, value);
    }
    let estimates = ratios(metric, sides, pairs)?;
    value.baseline = Some(baseline_side(pairs, &sides.baseline));
    let combined = combined(metric, within, &estimates);
    set_estimate(metric.compare, &combined, &mut value);
    if let [(_, c, Some(b))] = pairs
        && c.summary.n.min(b.summary.n) < 2
    {
        one_run(&mut value, c.summary.n.min(b.summary.n));
    }
    let half = combined.ci.map(|[lo, hi]| (hi - lo) / 2.0);
    value.grain = grain(pairs, combined.ratio - 1.0, half);
    if let [(_, c, Some(b))] = pairs {
        value.rank = crate::analysis::statistics::ranks::mann_whitney(&c.sorted, &b.sorted);
        value.other = alternative(metric, c, b);
    } else if metric.interaction.is_none() {
        value.average = Some(metric.average);
        value.within_run = within.is_some();
        value.spread = Some(average::spread(&estimates, |r| express(metric.compare, r)));
    }
    Ok(value)
}

/// Each group's ratio by the metric's estimator, judged at its sizes
/// ([`Estimate::sized`]).
fn ratios(
    metric: &Metric,
    sides: &super::sides::Sides,
    pairs: &[Pair],
) -> Result<Vec<(String, Estimate)>, String> {
    let (candidate, baseline) = (sides.candidate.as_str(), sides.baseline.as_str());
    let estimator = estimators::of(metric.estimator);
    let mut estimates = Vec::new();
    for (key, c, b) in pairs {
        let b = b.as_ref().ok_or_else(|| {
            format!("the baseline `{baseline}` has no rows at {key}, where `{candidate}` has")
        })?;
        let e = estimator.compare(c, b).ok_or_else(|| {
            let (name, other) = (estimator.words().name, estimators::of(estimator.other()).words());
            format!(
                "{key}: the baseline's {name} is 0 and not every value is positive, so no \
                 ratio by the {name} exists (use `estimator = \"{}\"`)",
                other.name
            )
        })?;
        estimates.push((key.clone(), e.sized(c.summary.n, b.summary.n)));
    }
    Ok(estimates)
}

/// The coarsest grid the groups' samples lie on, against the effect and
/// the interval's half-width, both as shares of the baseline: each
/// configuration's coarser grid of the two sides, where its runs can
/// support one ([`resolution::supports_claim`]).
fn grain(pairs: &[Pair], effect: f64, half: Option<f64>) -> Option<Grain> {
    let steps = pairs.iter().filter_map(|(at, c, b)| {
        let b = b.as_ref()?;
        let grid = |s: &Summary| {
            let r = s.robust.resolution.filter(|r| resolution::supports_claim(r, s.n));
            r.map_or((0.0, [s.n, s.n]), |r| (r.step, [s.n, r.distinct]))
        };
        let (c, b_grid) = (grid(&c.summary), grid(&b.summary));
        let (step, counts) = if c.0 > b_grid.0 { c } else { b_grid };
        Some((at.as_str(), step, b.summary.mean, counts))
    });
    resolution::grain(steps, effect, half)
}

/// A `difference` metric's value, interval and p from its groups'
/// samples ([`difference`]): the one group's, or the arithmetic mean of
/// the groups'.
fn differences(
    metric: &Metric,
    sides: &super::sides::Sides,
    pairs: &[Pair],
    mut value: MetricValue,
) -> Result<MetricValue, String> {
    let mut each = Vec::new();
    for (key, c, b) in pairs {
        let b = b.as_ref().ok_or_else(|| {
            format!(
                "the baseline `{}` has no rows at {key}, where `{}` has",
                sides.baseline, sides.candidate
            )
        })?;
        let d = difference::of(c, b, metric.estimator)
            .ok_or_else(|| format!("{key}: no difference could be computed"))?;
        each.push((key.clone(), d));
    }
    value.baseline = Some(baseline_side(pairs, &sides.baseline));
    let d = match each.as_slice() {
        [(_, one)] => *one,
        many => difference::average(&many.iter().map(|(_, d)| *d).collect::<Vec<_>>()),
    };
    (value.value, value.ci, value.p_value, value.exact, value.model) =
        (d.value, d.ci, d.p.map(stats::reported_p), d.exact, d.model);
    value.ci_open = d.ci.and((d.open[0] || d.open[1]).then_some(d.open));
    value.significant = d.ci.map(|_| true);
    value.ci_note = match (d.exact, d.ci) {
        (true, _) => Some(stats::NoInterval::Exact),
        (false, None) if value.candidate.n.min(value.baseline.as_ref().map_or(0, |b| b.n)) < 2 => {
            Some(stats::NoInterval::FewRuns { n: 1 })
        }
        (false, None) => Some(stats::NoInterval::NoSpread),
        _ => None,
    };
    let base = value.baseline.as_ref().map_or(0.0, |b| b.mean.abs());
    if base > 0.0 {
        let half = d.ci.map(|[lo, hi]| (hi - lo) / 2.0 / base);
        value.grain = grain(pairs, d.value / base, half);
    }
    if let [(_, c, Some(b))] = pairs {
        value.rank = crate::analysis::statistics::ranks::mann_whitney(&c.sorted, &b.sorted);
    } else {
        value.average = Some(Average::Arithmetic);
        value.spread = Some(average::spread_of(&each));
    }
    Ok(value)
}

/// The metric's estimate: the one group's, the within-run average (as
/// the estimator centres it: the median on the average of the groups'),
/// or the average.
fn combined(
    metric: &Metric,
    within: Option<Estimate>,
    estimates: &[(String, Estimate)],
) -> Estimate {
    match (within, estimates) {
        (_, [(_, first), (_, second)]) if metric.interaction.is_some() => {
            average::interaction(first, second)
        }
        (Some(e), many) if many.len() >= 2 => {
            estimators::of(metric.estimator).centred(e, many, metric.average)
        }
        (Some(e), _) => e,
        (None, [(_, one)]) => *one,
        (None, many) => average::combine(many, metric.average, metric.generalise),
    }
}

/// The comparison of one group by the estimator the metric did not choose.
fn alternative(metric: &Metric, c: &Sample, b: &Sample) -> Option<Alternative> {
    let name = estimators::of(metric.estimator).other();
    let e = estimators::of(name).compare(c, b)?.sized(c.summary.n, b.summary.n);
    Some(Alternative {
        estimator: name,
        value: express(metric.compare, e.ratio),
        ci: e.ci.map(|ci| interval(metric.compare, ci)),
        p_value: e.p.map(stats::reported_p),
        significant: e.significant(),
    })
}

/// A ratio as `how` expresses it: r − 1, 1 − r or r.
pub fn express(how: Compare, r: f64) -> f64 {
    match how {
        Compare::Relative => r - 1.0,
        Compare::Slowdown => 1.0 - r,
        Compare::Ratio | Compare::Summary | Compare::Difference => r,
    }
}

/// An interval of a ratio as `how` expresses it, low end first.
fn interval(how: Compare, [lo, hi]: [f64; 2]) -> [f64; 2] {
    let (a, b) = (express(how, lo), express(how, hi));
    if a <= b { [a, b] } else { [b, a] }
}

/// Which ends of an interval of a ratio are open, as `how` orders them.
fn open_ends(how: Compare, [lo, hi]: [bool; 2]) -> Option<[bool; 2]> {
    let open = if express(how, 2.0) >= express(how, 1.0) { [lo, hi] } else { [hi, lo] };
    (lo || hi).then_some(open)
}

/// Set the value, interval, p-value and significance from `estimate`.
fn set_estimate(how: Compare, estimate: &Estimate, value: &mut MetricValue) {
    value.value = express(how, estimate.ratio);
    value.p_value = estimate.p.map(stats::reported_p);
    value.ci = estimate.ci.map(|ci| interval(how, ci));
    value.ci_open = estimate.ci.and_then(|_| open_ends(how, estimate.open));
    value.significant = estimate.significant();
    value.exact = estimate.exact;
    if estimate.exact {
        value.ci_note = Some(stats::NoInterval::Exact);
    }
    value.model = estimate.model;
    if value.ci.is_none() && value.ci_note.is_none() {
        // Over exactly these configurations, an interval is missing where
        // one of them has none; generalised, where their ratios agree.
        let fixed =
            matches!(value.model, Model::GeometricAverageFixed | Model::ArithmeticAverageFixed);
        value.ci_note = Some(match (value.spread.is_some() || value.groups > 1) && !fixed {
            true => stats::NoInterval::SameRatio,
            false => stats::NoInterval::NoSpread,
        });
    }
}

/// A comparison with one run on a side: its difference, with neither
/// interval nor p-value, whatever the estimator's model could compute.
fn one_run(value: &mut MetricValue, n: usize) {
    (value.ci, value.ci_open, value.p_value, value.significant) = (None, None, None, None);
    value.ci_note = Some(stats::NoInterval::FewRuns { n });
}

/// The metric as described in book.toml, with the candidate's side and mean
/// as its value; no interval, p-value or baseline yet.
fn described(
    metric: &Metric,
    sides: &super::sides::Sides,
    pairs: &[(String, Sample, Option<Sample>)],
    inputs: Inputs,
) -> MetricValue {
    let k = pairs.len() as f64;
    let runs = |s: &Sample| s.summary.n;
    let n = pairs.iter().map(|(_, c, b)| b.as_ref().map_or(runs(c), |b| runs(b).min(runs(c))));
    let cand_mean = pairs.iter().map(|(_, c, _)| c.summary.mean).sum::<f64>() / k;
    let least = pairs.iter().map(|p| runs(&p.1)).min().unwrap_or(0);
    let cand_side = Side { environment: sides.candidate.clone(), mean: cand_mean, n: least };
    let n = n.min().unwrap_or(0);
    MetricValue {
        name: metric.name.clone(),
        factor: sides.factor.clone(),
        member: None,
        p_holm: None,
        baseline_selected: None,
        label: metric.label.clone(),
        definition: metric.definition.clone(),
        compare: metric.compare,
        better: metric.better,
        decimals: metric.decimals,
        headline: metric.headline,
        unit: metric.unit.clone().unwrap_or_else(|| match metric.compare {
            Compare::Ratio => "×".into(),
            Compare::Difference => String::new(),
            _ => "%".into(),
        }),
        value: cand_mean,
        ci: None,
        ci_open: None,
        ci_note: stats::no_interval(n),
        exact: false,
        p_value: None,
        significant: None,
        claim: None,
        baseline: None,
        candidate: cand_side,
        groups: pairs.len(),
        inputs,
        estimator: metric.estimator,
        model: Model::None,
        average: None,
        within_run: false,
        spread: None,
        other: None,
        rank: None,
        influence: None,
        grain: None,
        provenance: crate::config::Provenance::Measured,
        published: None,
    }
}

/// The baseline's side: the mean of its group means, its smallest run count.
fn baseline_side(pairs: &[(String, Sample, Option<Sample>)], baseline: &str) -> Side {
    let present: Vec<&Summary> =
        pairs.iter().filter_map(|p| p.2.as_ref()).map(|b| &b.summary).collect();
    Side {
        environment: baseline.to_string(),
        mean: present.iter().map(|b| b.mean).sum::<f64>() / present.len() as f64,
        n: present.iter().map(|b| b.n).min().unwrap_or(0),
    }
}

impl MetricValue {
    /// Whether the candidate's value is higher than the baseline's, lower
    /// (`Some(false)`), or equal (`None`), whatever the metric's sign
    /// convention; `None` for a summary, which compares nothing.
    pub fn higher(&self) -> Option<bool> {
        let null = match self.compare {
            Compare::Summary => return None,
            Compare::Ratio => 1.0,
            _ => 0.0,
        };
        match self.value.partial_cmp(&null)? {
            std::cmp::Ordering::Equal => None,
            order => {
                Some((order == std::cmp::Ordering::Greater) != (self.compare == Compare::Slowdown))
            }
        }
    }
}

#[cfg(test)]
impl MetricValue {
    /// A fixture for tests: `m`, a headline relative comparison of `c`
    /// against `b` in one configuration, 10 runs a side of mean 1, whose
    /// value is `value`, with neither interval nor p-value; a test sets
    /// what else it needs (`MetricValue { ci, ..MetricValue::example(v) }`).
    pub(crate) fn example(value: f64) -> MetricValue {
        let side = |e: &str| Side { environment: e.into(), mean: 1.0, n: 10 };
        MetricValue {
            name: "m".into(),
            factor: "environment".into(),
            member: None,
            p_holm: None,
            baseline_selected: None,
            label: "M".into(),
            definition: None,
            compare: Compare::Relative,
            better: Better::Lower,
            unit: "%".into(),
            decimals: 1,
            headline: true,
            value,
            ci: None,
            ci_open: None,
            ci_note: None,
            exact: false,
            p_value: None,
            significant: None,
            claim: None,
            baseline: Some(side("b")),
            candidate: side("c"),
            groups: 1,
            inputs: Inputs { file: "f.csv".into(), column: "x".into(), filter: "all rows".into() },
            estimator: Estimator::Mean,
            model: Model::None,
            average: None,
            within_run: false,
            spread: None,
            other: None,
            rank: None,
            influence: None,
            grain: None,
            provenance: crate::config::Provenance::Measured,
            published: None,
        }
    }
}
