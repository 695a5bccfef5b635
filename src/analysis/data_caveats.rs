//! Caveats read from the data of the metrics: outlying runs, mean and
//! median that disagree, high variation, samples too small for
//! distribution-free statistics, averages that hide a change of sign, and
//! how many comparisons survive Holm's correction.

use std::collections::{BTreeMap, BTreeSet};

use super::caveat::{Caveat, CaveatKind};
use super::robust::{FENCES_MIN, MEDIAN_CI_MIN};
use super::{Group, MetricValue, spread_caveats, wording};
use crate::config::{Compare, Estimator};
use crate::format::{p_value, plain};

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
    caveats.extend(super::normality_caveats::non_normal(&read));
    for m in metrics.iter().filter(|m| m.compare != Compare::Summary) {
        caveats.extend(disagreement(m));
        caveats.extend(sign_change(m));
    }
    caveats.extend(small(metrics));
    caveats.extend(holm(metrics));
    caveats
}

/// A comparison whose mean and median disagree in sign or significance.
fn disagreement(m: &MetricValue) -> Option<Caveat> {
    let other = m.other.as_ref()?;
    let null = if m.compare == Compare::Ratio { 1.0 } else { 0.0 };
    let sign = |v: f64| (v - null).signum();
    let flips = sign(other.value) != sign(m.value);
    let verdict = other.significant.is_some() && other.significant != m.significant;
    if !flips && !verdict {
        return None;
    }
    let name = |e: Estimator| match e {
        Estimator::Mean => "the mean",
        Estimator::Median => "the median (Hodges–Lehmann)",
    };
    let (value, shown) = (wording::metric_value(m), expressed(m, other.value));
    let p = |p: Option<f64>| p.map_or_else(|| "no p-value".into(), p_value);
    Some(Caveat {
        kind: CaveatKind::EstimatorsDisagree,
        metric: Some(m.name.clone()),
        text: format!(
            "{}: by {} the difference is {value} ({}), by {} {shown} ({}); the runs do not support one verdict.",
            m.label,
            name(m.estimator),
            p(m.p_value),
            name(other.estimator),
            p(other.p_value)
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
                    super::caveat::join(&labels)
                ),
            }
        })
        .collect()
}

/// An average whose configurations lie on both sides of no difference.
fn sign_change(m: &MetricValue) -> Option<Caveat> {
    let spread = m.spread.as_ref().filter(|s| s.sign_change)?;
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
