//! The run that carries a `difference` metric: each run of both sides of
//! every configuration left out in turn, as [`super::influence`] does for
//! ratios, with the differences of [`difference`] in the column's unit and
//! their average by Student's t over the configurations.

use super::influence::{self, Left, SHARE};
use super::value::{MetricValue, Pair};
use crate::analysis::findings::carried::{Alternative, Influence};
use crate::analysis::statistics::difference::{self, Difference};
use crate::analysis::statistics::model::Sample;
use crate::config::{Estimator, Metric};

/// The verdict of a difference as the metric's own is judged, given which
/// side lost a run (`Some(true)`: the candidate's), or none.
pub(super) type Judge<'a> = dyn Fn(&Difference, Option<bool>) -> Option<bool> + 'a;

/// The influence on `value` of the runs of `pairs`, each verdict judged by
/// `judge`, with the run found and whether it moves the estimate much; as
/// [`influence::find`] for ratios.
pub(super) fn find(
    metric: &Metric,
    pairs: &[Pair],
    value: &MetricValue,
    judge: &Judge,
) -> Option<(Left, bool, Influence)> {
    if value.within_run {
        return None;
    }
    let full: Vec<Difference> =
        (0..pairs.len()).map(|p| at(pairs, p, metric.estimator, None)).collect::<Option<_>>()?;
    let combined = combine(&full);
    let verdict = judge(&combined, None);
    let mut best: Option<(Left, Difference, f64, bool)> = None;
    for left in influence::candidates(pairs) {
        let mut without = full.clone();
        let Some(one) = at(pairs, left.0, metric.estimator, Some(left)) else { continue };
        without[left.0] = one;
        let without = combine(&without);
        let shift = (without.value - combined.value).abs();
        if !shift.is_finite() {
            continue;
        }
        let flips =
            matches!((verdict, judge(&without, Some(left.1))), (Some(a), Some(b)) if a != b);
        if shift == 0.0 && !flips {
            continue;
        }
        if best.as_ref().is_none_or(|(_, _, s, f)| (flips, shift) > (*f, *s)) {
            best = Some((left, without, shift, flips));
        }
    }
    let (left, without, shift, flips) = best?;
    let half = without.ci.map(|[lo, hi]| (hi - lo) / 2.0);
    let moves = shift > SHARE * combined.value.abs() && half.is_none_or(|half| shift > half);
    let without = Alternative {
        estimator: metric.estimator,
        value: without.value,
        ci: without.ci,
        p_value: without.p,
        significant: judge(&without, Some(left.1)),
    };
    let found = influence::of_run(pairs, value, left, without, None, flips || moves)?;
    Some((left, moves, Influence { changes_verdict: flips, ..found }))
}

/// The p-value of a `difference` member of a family (its `pairs`) without
/// the baseline run `index` of `baseline` at its configuration `place`, as
/// [`influence::family_p_without`] for ratios.
pub(super) fn family_p_without(
    metric: &Metric,
    pairs: &[Pair],
    (place, baseline, index): (&str, &[f64], usize),
) -> Option<f64> {
    let p = pairs.iter().position(|(here, _, b)| {
        here == place && b.as_ref().is_some_and(|b| b.values == baseline)
    })?;
    let mut all: Vec<Difference> =
        (0..pairs.len()).map(|q| at(pairs, q, metric.estimator, None)).collect::<Option<_>>()?;
    all[p] = at(pairs, p, metric.estimator, Some((p, false, index)))?;
    combine(&all).p
}

/// The difference at configuration `p` without the run `left`; `None` when
/// a side's values are not kept or nothing is left of it.
fn at(pairs: &[Pair], p: usize, estimator: Estimator, left: Option<Left>) -> Option<Difference> {
    let (c, b, [dc, db]) = influence::sides_at(pairs, p, left)?;
    let (c, b) = (without(c, dc)?, without(b, db)?);
    difference::of(&c, &b, estimator)
}

/// `sample` without its value at `drop`, if any.
fn without(sample: &Sample, drop: Option<usize>) -> Option<Sample> {
    let Some(drop) = drop else { return Some(sample.clone()) };
    let kept: Vec<f64> =
        sample.values.iter().enumerate().filter(|(i, _)| *i != drop).map(|(_, v)| *v).collect();
    Sample::of(&kept)
}

/// The metric's difference from its configurations': the one, or their
/// average.
fn combine(each: &[Difference]) -> Difference {
    match each {
        [one] => *one,
        many => difference::average(many),
    }
}
