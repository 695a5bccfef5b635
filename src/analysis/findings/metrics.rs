//! Caveats read from the data of the metrics: outlying runs, mean and
//! median that disagree, high variation, samples too small for
//! distribution-free statistics, averages that hide a change of sign, and
//! how many comparisons survive Holm's correction.

use std::collections::{BTreeMap, BTreeSet};

use super::spread as spread_caveats;
use super::{Caveat, CaveatKind};
use crate::analysis::statistics::robust::{FENCES_MIN, MEDIAN_CI_MIN};
use crate::analysis::{Group, MetricValue};
use crate::config::{Compare, Estimator};
use crate::format::{p_value, plain, significant};
use crate::prose::metric as wording;

/// Significant digits of a run's value in a caveat.
const DIGITS: usize = 4;

/// Every data caveat of the metrics and the groups they read.
pub(super) fn derive(metrics: &[MetricValue], groups: &[Group]) -> Vec<Caveat> {
    let used: BTreeSet<(&str, &str)> =
        metrics.iter().map(|m| (m.inputs.file.as_str(), m.inputs.column.as_str())).collect();
    let read: Vec<&Group> = groups
        .iter()
        .filter(|g| used.contains(&(g.inputs.file.as_str(), g.inputs.column.as_str())))
        .collect();
    let mut caveats = spread_caveats::outliers(&read);
    caveats.extend(spread_caveats::variation(&read));
    caveats.extend(super::normality::non_normal(&read));
    for m in metrics.iter().filter(|m| m.compare != Compare::Summary) {
        caveats.extend(disagreement(m));
        caveats.extend(sign_change(m));
        caveats.extend(carried(m));
        caveats.extend(coarse(m));
    }
    caveats.extend(small(metrics));
    caveats.extend(holm(metrics));
    caveats
}

/// Whether the mean and the median of a comparison disagree: one is
/// significant and the other not, or both are significant in opposite
/// directions. Two non-significant estimates of opposite sign agree (both
/// say "no detectable difference"), and an estimate of exactly no change
/// has no sign; without both verdicts there is nothing to compare.
pub fn estimators_disagree(m: &MetricValue) -> bool {
    let Some(other) = m.other.as_ref() else { return false };
    let null = if m.compare == Compare::Ratio { 1.0 } else { 0.0 };
    match (m.significant, other.significant) {
        (Some(a), Some(b)) if a != b => true,
        (Some(true), Some(true)) => (m.value - null) * (other.value - null) < 0.0,
        _ => false,
    }
}

/// A comparison whose mean and median disagree in sign or significance.
fn disagreement(m: &MetricValue) -> Option<Caveat> {
    if !estimators_disagree(m) {
        return None;
    }
    let other = m.other.as_ref()?;
    let (value, shown) = (wording::metric_value(m), expressed(m, other.value));
    let p = |p: Option<f64>| p.map_or_else(|| "no p-value".into(), p_value);
    Some(Caveat {
        kind: CaveatKind::EstimatorsDisagree,
        metric: Some(m.name.clone()),
        text: format!(
            "{}: by {} the difference is {value} ({}), by {} {shown} ({}); the runs do not support one verdict.",
            m.label,
            estimator_name(m.estimator),
            p(m.p_value),
            estimator_name(other.estimator),
            p(other.p_value)
        ),
    })
}

fn estimator_name(e: Estimator) -> &'static str {
    match e {
        Estimator::Mean => "the mean",
        Estimator::Median => "the median (Hodges–Lehmann)",
    }
}

/// A metric carried by one run: the run, its value against its side's
/// median, the metric without it and by the other estimator.
fn carried(m: &MetricValue) -> Option<Caveat> {
    let found = m.influence.as_ref().filter(|i| i.carries)?;
    let run = found.run.clone().unwrap_or_else(|| "a run".into());
    let (value, median) = (found.value, found.median);
    let of_median = format!("the median of its side ({})", significant(median, DIGITS));
    let against = if value > 0.0 && median > 0.0 && value != median {
        match value > median {
            true => format!("{}× {of_median}", significant(value / median, 2)),
            false => format!("{}× below {of_median}", significant(median / value, 2)),
        }
    } else {
        of_median
    };
    let at = if found.at == "all rows" { String::new() } else { format!(" at {}", found.at) };
    let mut without = m.clone();
    (without.value, without.ci) = (found.without.value, found.without.ci);
    without.significant = found.without.significant;
    let verdict = wording::significance(&without);
    let other = found.other.as_ref().map_or_else(String::new, |o| {
        format!("; by {} on every run it is {}", estimator_name(o.estimator), expressed(m, o.value))
    });
    let changes = if found.changes_verdict { ", a different verdict" } else { "" };
    Some(Caveat {
        kind: CaveatKind::Influential,
        metric: Some(m.name.clone()),
        text: format!(
            "{}: one run carries the estimate of {}: {run} of {}{at} ({}, {against}). Without it the difference is {} ({}), {verdict}{changes}{other}. The run is kept; if it is known to be bad, exclude it in book.toml with its reason.",
            m.label,
            wording::metric_value(m),
            found.environment,
            significant(value, DIGITS),
            wording::metric_value(&without),
            wording::metric_ci(&without),
        ),
    })
}

/// A metric whose values lie on a grid as coarse as its effect or interval.
fn coarse(m: &MetricValue) -> Option<Caveat> {
    let grain = m.grain.as_ref().filter(|g| g.coarse)?;
    let at = if grain.at == "all rows" { String::new() } else { format!(" at {}", grain.at) };
    let interval = match m.ci {
        Some(_) => format!(" and its interval ({})", wording::metric_ci(m)),
        None => String::new(),
    };
    Some(Caveat {
        kind: CaveatKind::Resolution,
        metric: Some(m.name.clone()),
        text: format!(
            "{}: the values of {}{at} lie on a grid of {}, {}% of the baseline's mean, as coarse as the difference of {}{interval}: the runs cannot resolve a change smaller than one step, and ties are many.",
            m.label,
            m.inputs.column,
            significant(grain.step, DIGITS),
            significant(grain.relative * 100.0, 2),
            wording::metric_value(m),
        ),
    })
}

fn expressed(m: &MetricValue, v: f64) -> String {
    let mut copy = m.clone();
    copy.value = v;
    wording::metric_value(&copy)
}

/// The comparisons whose samples are too small for distribution-free
/// statistics, in one caveat per pair of run counts.
fn small(metrics: &[MetricValue]) -> Vec<Caveat> {
    let mut by_runs: BTreeMap<(usize, usize), (f64, Vec<&str>)> = BTreeMap::new();
    for m in metrics.iter().filter(|m| m.compare != Compare::Summary) {
        let (Some(rank), Some(b)) = (m.rank.as_ref(), m.baseline.as_ref()) else { continue };
        if rank.min_p < 0.05 && m.candidate.n.min(b.n) >= MEDIAN_CI_MIN {
            continue;
        }
        let entry = by_runs.entry((m.candidate.n, b.n)).or_insert((rank.min_p, Vec::new()));
        entry.1.push(m.label.as_str());
    }
    by_runs
        .into_iter()
        .map(|((c, b), (min_p, labels))| {
            let test = if min_p >= 0.05 {
                format!("no rank test can reach p < 0.05 (the smallest two-sided p is {})", plain(min_p))
            } else {
                format!("a rank test can reach at best {}", p_value(min_p))
            };
            let labels: Vec<String> = labels.iter().map(|l| l.to_string()).collect();
            Caveat {
                kind: CaveatKind::FewRuns,
                metric: None,
                text: format!(
                    "{} compare {c} runs with {b}: {test}; a distribution-free interval of the median needs n ≥ {MEDIAN_CI_MIN} and Tukey's fences n ≥ {FENCES_MIN}. Their intervals rest on Student's t, which assumes the means are close to normal, and an outlier cannot be told from the rest.",
                    super::join(&labels)
                ),
            }
        })
        .collect()
}

/// An average whose configurations lie on both sides of no difference,
/// significantly on each.
fn sign_change(m: &MetricValue) -> Option<Caveat> {
    let spread = m.spread.as_ref().filter(|s| s.significant_sign_change)?;
    Some(Caveat {
        kind: CaveatKind::SignChange,
        metric: Some(m.name.clone()),
        text: format!(
            "{}: the average of {} hides a change of sign between its {} configurations ({}); it describes no single configuration.",
            m.label,
            wording::metric_value(m),
            spread.values.len(),
            wording::metric_range(m)
        ),
    })
}

/// How many of the comparison metrics stay significant after Holm's correction.
fn holm(metrics: &[MetricValue]) -> Option<Caveat> {
    let mut tested: Vec<(f64, &str)> =
        metrics.iter().filter_map(|m| m.p_value.map(|p| (p, m.name.as_str()))).collect();
    if tested.len() < 2 {
        return None;
    }
    tested.sort_by(|a, b| a.0.total_cmp(&b.0));
    let count = tested.len();
    let survive =
        tested.iter().enumerate().take_while(|(i, (p, _))| p * (count - i) as f64 <= 0.05).count();
    let raw = tested.iter().filter(|(p, _)| *p < 0.05).count();
    Some(Caveat {
        kind: CaveatKind::Multiplicity,
        metric: None,
        text: format!(
            "The study tests {count} comparisons: p < 0.05 in {raw} of them, and {survive} of {count} remain significant after Holm's correction for testing them together (family-wise error 5%)."
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Inputs;
    use crate::analysis::metrics::value::{Alternative, Side};
    use crate::config::{Better, Compare};

    /// A relative comparison of one configuration with this value and verdict.
    fn metric(value: f64, significant: Option<bool>) -> MetricValue {
        let side = |e: &str| Side { environment: e.into(), mean: 1.0, n: 10 };
        MetricValue {
            factor: "environment".into(),
            member: None,
            p_holm: None,
            name: "m".into(),
            label: "M".into(),
            definition: None,
            compare: Compare::Relative,
            better: Better::Lower,
            unit: "%".into(),
            decimals: 1,
            headline: true,
            value,
            ci: significant.map(|s| if s { [value - 0.01, value + 0.01] } else { [-0.5, 0.5] }),
            ci_open: None,
            ci_note: None,
            exact: false,
            p_value: significant.map(|s| if s { 0.001 } else { 0.5 }),
            significant,
            baseline: Some(side("b")),
            candidate: side("c"),
            groups: 1,
            inputs: Inputs { file: "f.csv".into(), column: "x".into(), filter: "all rows".into() },
            estimator: Estimator::Mean,
            model: String::new(),
            average: None,
            within_run: false,
            spread: None,
            other: None,
            rank: None,
            influence: None,
            grain: None,
        }
    }

    /// Every combination of two verdicts (significant, not, unknown) and
    /// two signs (−, 0, +), against the rule written out by hand: they
    /// disagree when exactly one is significant, or both are with strictly
    /// opposite signs.
    #[test]
    fn estimators_disagree_only_in_sign_or_significance() {
        let verdicts = [Some(true), Some(false), None];
        let values = [-0.05, 0.0, 0.05];
        let mut cases = Vec::new();
        for a in verdicts {
            for b in verdicts {
                for x in values {
                    cases.extend(values.map(|y| (a, b, x, y)));
                }
            }
        }
        for (a, b, x, y) in cases {
            let mut m = metric(x, a);
            m.other = Some(Alternative {
                estimator: Estimator::Median,
                value: y,
                ci: None,
                p_value: None,
                significant: b,
            });
            let want = match (a, b) {
                (Some(true), Some(false)) | (Some(false), Some(true)) => true,
                (Some(true), Some(true)) => (x < 0.0 && y > 0.0) || (x > 0.0 && y < 0.0),
                _ => false,
            };
            assert_eq!(estimators_disagree(&m), want, "{a:?} {b:?} {x} {y}");
            assert_eq!(disagreement(&m).is_some(), want);
        }
    }
}
