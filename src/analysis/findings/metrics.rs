//! Findings read from the data of the metrics: outlying runs, high
//! variation and non-normal runs in the columns the metrics read ([`super::runs`]);
//! mean and median that disagree, averages that hide a change of sign,
//! metrics carried by one run or resolved by a coarse grid; samples too
//! small for distribution-free statistics, and how many comparisons
//! survive Holm's correction.

use std::collections::{BTreeMap, BTreeSet};

use super::{Finding, MetricFinding, SmallSamples};
use crate::analysis::statistics::robust::MEDIAN_CI_MIN;
use crate::analysis::{Group, MetricValue};
use crate::config::Compare;

/// Every finding of the metrics and the groups they read.
pub(crate) fn derive(metrics: &[MetricValue], groups: &[Group]) -> Vec<Finding> {
    let used: BTreeSet<(&str, &str)> =
        metrics.iter().map(|m| (m.inputs.file.as_str(), m.inputs.column.as_str())).collect();
    let read: Vec<&Group> = groups
        .iter()
        .filter(|g| used.contains(&(g.inputs.file.as_str(), g.inputs.column.as_str())))
        .collect();
    let mut found = super::runs::outliers(&read);
    found.extend(super::runs::variation(&read));
    found.extend(super::runs::non_normal(&read));
    for (metric, m) in metrics.iter().enumerate().filter(|(_, m)| m.compare != Compare::Summary) {
        found.extend(of_metric(m).into_iter().map(|about| Finding::Metric { metric, about }));
    }
    found.extend(small(metrics));
    found.extend(holm(metrics));
    found
}

/// What a comparison metric's own numbers show, in the order its caveats
/// are listed.
fn of_metric(m: &MetricValue) -> Vec<MetricFinding> {
    let found = [
        (estimators_disagree(m), MetricFinding::EstimatorsDisagree),
        (m.spread.as_ref().is_some_and(|s| s.significant_sign_change), MetricFinding::SignChange),
        (m.influence.as_ref().is_some_and(|i| i.carries), MetricFinding::Influential),
        (m.grain.as_ref().is_some_and(|g| g.coarse), MetricFinding::Resolution),
        (m.baseline_selected.is_some(), MetricFinding::SelectedBaseline),
    ];
    found.into_iter().filter(|(holds, _)| *holds).map(|(_, about)| about).collect()
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

/// The comparisons whose samples are too small for distribution-free
/// statistics, in one finding per pair of run counts.
fn small(metrics: &[MetricValue]) -> Vec<Finding> {
    let mut by_runs: BTreeMap<(usize, usize), (f64, Vec<usize>)> = BTreeMap::new();
    for (i, m) in metrics.iter().enumerate().filter(|(_, m)| m.compare != Compare::Summary) {
        let (Some(rank), Some(b)) = (m.rank.as_ref(), m.baseline.as_ref()) else { continue };
        if rank.min_p < 0.05 && m.candidate.n.min(b.n) >= MEDIAN_CI_MIN {
            continue;
        }
        let entry = by_runs.entry((m.candidate.n, b.n)).or_insert((rank.min_p, Vec::new()));
        entry.1.push(i);
    }
    by_runs
        .into_iter()
        .map(|((candidate, baseline), (min_p, metrics))| {
            Finding::SmallSamples(SmallSamples { candidate, baseline, min_p, metrics })
        })
        .collect()
}

/// How many of the comparison metrics stay significant after Holm's correction.
fn holm(metrics: &[MetricValue]) -> Option<Finding> {
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
    Some(Finding::Multiplicity { tested: count, raw, survive })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::metrics::value::Alternative;
    use crate::config::Estimator;

    /// A relative comparison of one configuration with this value and verdict.
    fn metric(value: f64, significant: Option<bool>) -> MetricValue {
        MetricValue {
            ci: significant.map(|s| if s { [value - 0.01, value + 0.01] } else { [-0.5, 0.5] }),
            p_value: significant.map(|s| if s { 0.001 } else { 0.5 }),
            significant,
            ..MetricValue::example(value)
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
            assert_eq!(of_metric(&m).contains(&MetricFinding::EstimatorsDisagree), want);
        }
    }
}
