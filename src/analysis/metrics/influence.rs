//! The run that carries a metric: leave-one-out over the runs of both
//! sides of every configuration, to find the run whose removal moves the
//! metric's estimate most, the estimate without it, and whether that
//! changes the verdict.
//!
//! Up to [`EVERY_RUN_MAX`] runs in a configuration, every run of both
//! sides is left out in turn: a central run can change the verdict (its
//! removal widens the interval) where no extreme one does. Past that, only
//! the smallest, the largest and the run nearest the mean of each side:
//! removing a larger value lowers a side's mean, and the Hodges–Lehmann
//! estimate, at least as much as removing a smaller one (both are monotone
//! in each value), and an average over configurations is monotone in each
//! configuration's ratio, so the largest move is still found; a change of
//! verdict by another run could be missed there. The estimate without a
//! run is the estimator's ([`Estimator::ratio_without`]: the mean's from
//! sums over the remaining values, the median's recomputed).
//!
//! The verdict with and without a run is judged as the metric's own is
//! ([`Judge`]): by its interval and p alone, or, for a member of a family
//! (`candidates`, `each`), by its p after Holm's correction across the
//! family with the run left out ([`holm_judge`], [`family_p_without`]).

use super::value::{MetricValue, Pair, express};
use crate::analysis::findings::carried::{Alternative, Influence};
use crate::analysis::queries::filter::{self, KeyPart};
use crate::analysis::statistics::average;
use crate::analysis::statistics::estimators::{self, Estimator, Name};
use crate::analysis::statistics::model::{self, Estimate, Sample};
use crate::config::{Compare, Metric};
use crate::results::{Table, Values};

/// Most runs of a configuration (both sides) for which every run is left
/// out in turn.
pub const EVERY_RUN_MAX: usize = 500;

/// A run moves the estimate "much" when it moves it by more than this
/// share of the estimate's distance from no change …
pub const SHARE: f64 = 0.25;

/// A run left out: configuration, side (true: candidate), index in the side.
pub(super) type Left = (usize, bool, usize);

/// The verdict of an estimate of the metric, as the metric's own is judged:
/// `Some(true)` significant, `Some(false)` not, `None` no verdict.
pub(super) type Judge<'a> = dyn Fn(&Estimate) -> Option<bool> + 'a;

/// The verdict of an estimate alone (its interval and p).
pub(super) fn alone(estimate: &Estimate) -> Option<bool> {
    estimate.significant()
}

/// The verdict of member `at` of a family whose members' p-values are
/// `ps` (`at` among them): with its p replaced by the estimate's, Holm's
/// adjusted p of the member below the level. No verdict where the estimate
/// alone has none.
pub(super) fn holm_judge(ps: Vec<f64>, at: usize) -> impl Fn(&Estimate) -> Option<bool> {
    move |estimate: &Estimate| {
        let alone = estimate.significant()?;
        let Some(p) = estimate.p else { return Some(alone) };
        // The same rule as the estimate's own, with Holm's p for its p.
        Estimate { p: Some(holm_at(&ps, at, p)), ..*estimate }.significant()
    }
}

/// Holm's adjusted p of member `at` of `ps` with its p replaced by `p`.
pub(super) fn holm_at(ps: &[f64], at: usize, p: f64) -> f64 {
    let mut ps = ps.to_vec();
    ps[at] = p;
    super::sides::adjusted(&ps)[at]
}

/// The influence on `value` of the runs of `pairs`, each verdict judged
/// by `judge`, with the run found and whether it moves the estimate much
/// (it carries the metric then, whatever the verdict); `None` for summaries,
/// for averages with runs as units (`within-run`), and when a side's runs
/// are not kept (past the rank statistics' size).
pub(super) fn find(
    metric: &Metric,
    pairs: &[Pair],
    value: &MetricValue,
    judge: &Judge,
) -> Option<(Left, bool, Influence)> {
    if matches!(metric.compare, Compare::Summary | Compare::Difference) || value.within_run {
        return None;
    }
    let estimator = estimators::of(metric.estimator);
    let full: Vec<Estimate> = estimates(pairs, estimator, None)?;
    let combined = combine(&full, metric);
    let mut best: Option<(Left, Estimate, f64, bool)> = None;
    for left in candidates(pairs) {
        // Only the configuration of the run left out changes.
        let mut without = full.clone();
        let Some(one) = estimate_at(pairs, left.0, estimator, Some(left)) else { continue };
        without[left.0] = one;
        let without = combine(&without, metric);
        let shift = (without.ratio - combined.ratio).abs();
        if !shift.is_finite() {
            continue;
        }
        let flips = matches!((judge(&combined), judge(&without)), (Some(a), Some(b)) if a != b);
        if shift == 0.0 && !flips {
            continue;
        }
        let better = best.as_ref().is_none_or(|(_, _, s, f)| (flips, shift) > (*f, *s));
        if better {
            best = Some((left, without, shift, flips));
        }
    }
    let (left, without, shift, flips) = best?;
    let half = without.ci.map(|[lo, hi]| (hi - lo) / 2.0);
    let moves =
        shift > SHARE * (combined.ratio - 1.0).abs() && half.is_none_or(|half| shift > half);
    let without = Alternative {
        significant: judge(&without),
        ..alternative(metric, metric.estimator, &without)
    };
    let found = of_run(pairs, value, left, without, other(metric, pairs, value), flips || moves)?;
    Some((left, moves, Influence { changes_verdict: flips, ..found }))
}

/// The influence of the run `left` of `pairs` on `value`: the metric
/// `without` it, by the `other` estimator on every run, and whether it
/// `carries` the metric (the verdict it changes is set by the caller).
pub(super) fn of_run(
    pairs: &[Pair],
    value: &MetricValue,
    (config, is_candidate, index): Left,
    without: Alternative,
    other: Option<Alternative>,
    carries: bool,
) -> Option<Influence> {
    let (at, c, b) = &pairs[config];
    let side = if is_candidate { c } else { b.as_ref()? };
    Some(Influence {
        run: None,
        environment: if is_candidate { &value.candidate } else { value.baseline.as_ref()? }
            .environment
            .clone(),
        at: at.clone(),
        value: side.values[index],
        median: side.summary.median,
        without,
        p_holm: None,
        other,
        changes_verdict: false,
        carries,
    })
}

/// The p-value of a member of the same family (its `pairs`) without the
/// baseline run `index` of `baseline`, the sample at its configuration
/// `at`: the members of `candidates` share their baseline's runs, so
/// leaving one out changes each member's p. `None` when the member has no
/// such sample (its own p stands) or no p without it.
pub(super) fn family_p_without(
    metric: &Metric,
    pairs: &[Pair],
    (at, baseline, index): (&str, &[f64], usize),
) -> Option<f64> {
    let estimator = estimators::of(metric.estimator);
    let p = pairs
        .iter()
        .position(|(here, _, b)| here == at && b.as_ref().is_some_and(|b| b.values == baseline))?;
    let mut all = estimates(pairs, estimator, None)?;
    all[p] = estimate_at(pairs, p, estimator, Some((p, false, index)))?;
    combine(&all, metric).p
}

/// The runs left out in turn: every run of a configuration of at most
/// [`EVERY_RUN_MAX`] runs, else the smallest, the largest and the one
/// nearest the mean of each side; only sides that keep a run without it.
pub(super) fn candidates(pairs: &[Pair]) -> Vec<Left> {
    let mut left = Vec::new();
    for (p, (_, c, b)) in pairs.iter().enumerate() {
        let Some(b) = b else { continue };
        let every = c.values.len() + b.values.len() <= EVERY_RUN_MAX;
        for (is_candidate, side) in [(true, c), (false, b)] {
            let values = &side.values;
            if values.len() < 2 {
                continue;
            }
            if every {
                // Leaving out either of two equal runs gives one estimate:
                // the first of each value stands for them.
                let mut seen = std::collections::BTreeSet::new();
                let distinct = (0..values.len()).filter(|i| seen.insert(values[*i].to_bits()));
                left.extend(distinct.map(|i| (p, is_candidate, i)));
                continue;
            }
            let by = |f: &dyn Fn(f64) -> f64| {
                let key = |i: &usize| f(values[*i]);
                let order = |a: &usize, b: &usize| key(a).total_cmp(&key(b));
                [(0..values.len()).min_by(order), (0..values.len()).max_by(order)]
            };
            let [low, high] = by(&|v| v);
            let [near, _] = by(&|v| (v - side.summary.mean).abs());
            left.extend([low, high, near].into_iter().flatten().map(|i| (p, is_candidate, i)));
        }
    }
    left
}

/// Each configuration's estimate by `estimator`, without the run `left`;
/// `None` when a side's values are not kept or a model has no estimate.
fn estimates(
    pairs: &[Pair],
    estimator: &dyn Estimator,
    left: Option<Left>,
) -> Option<Vec<Estimate>> {
    (0..pairs.len()).map(|p| estimate_at(pairs, p, estimator, left)).collect()
}

/// The estimate of configuration `p` by `estimator`, without the run `left`.
fn estimate_at(
    pairs: &[Pair],
    p: usize,
    estimator: &dyn Estimator,
    left: Option<Left>,
) -> Option<Estimate> {
    let (c, b, [dc, db]) = sides_at(pairs, p, left)?;
    // Both sides constant without the run: an exact comparison, by any
    // estimator, as the metric's own model has it.
    if let (Some(x), Some(y)) = (constant_without(&c.values, dc), constant_without(&b.values, db)) {
        return Some(model::exact(x, y));
    }
    // Judged at the sizes left, as the metric's own verdict is (`Estimate::sized`).
    let (m, n) =
        (c.values.len() - usize::from(dc.is_some()), b.values.len() - usize::from(db.is_some()));
    Some(estimator.ratio_without(c, b, [dc, db])?.sized(m, n))
}

/// The candidate's and the baseline's samples of configuration `p`, with
/// the index each loses to the run `left` (if it is theirs); `None` when
/// the baseline is missing or a side's values are not kept.
pub(super) fn sides_at(
    pairs: &[Pair],
    p: usize,
    left: Option<Left>,
) -> Option<(&Sample, &Sample, [Option<usize>; 2])> {
    let (_, c, b) = &pairs[p];
    let b = b.as_ref()?;
    if c.values.len() != c.summary.n || b.values.len() != b.summary.n {
        return None;
    }
    let drop = |is_candidate: bool| {
        left.filter(|&(q, side, _)| q == p && side == is_candidate).map(|(_, _, i)| i)
    };
    Some((c, b, [drop(true), drop(false)]))
}

/// The value of `values` without the one at `drop`, when at least two
/// remain and all are equal.
fn constant_without(values: &[f64], drop: Option<usize>) -> Option<f64> {
    let mut kept = values.iter().enumerate().filter(|(i, _)| Some(*i) != drop).map(|(_, v)| *v);
    let first = kept.next()?;
    let mut count = 1;
    for v in kept {
        if v != first {
            return None;
        }
        count += 1;
    }
    (count >= 2).then_some(first)
}

/// The metric's estimate from its configurations' estimates.
fn combine(estimates: &[Estimate], metric: &Metric) -> Estimate {
    match estimates {
        [one] => *one,
        [first, second] if metric.interaction.is_some() => average::interaction(first, second),
        many => {
            let named: Vec<(String, Estimate)> = many.iter().map(|e| (String::new(), *e)).collect();
            average::combine(&named, metric.average, metric.generalise)
        }
    }
}

/// `estimate` as the metric expresses it.
fn alternative(metric: &Metric, estimator: Name, estimate: &Estimate) -> Alternative {
    let ci = estimate.ci.map(|[lo, hi]| {
        let (a, b) = (express(metric.compare, lo), express(metric.compare, hi));
        if a <= b { [a, b] } else { [b, a] }
    });
    Alternative {
        estimator,
        value: express(metric.compare, estimate.ratio),
        ci,
        p_value: estimate.p,
        significant: estimate.significant(),
    }
}

/// The metric by the estimator it did not choose, on every run.
fn other(metric: &Metric, pairs: &[Pair], value: &MetricValue) -> Option<Alternative> {
    if let Some(other) = &value.other {
        return Some(other.clone());
    }
    let name = estimators::of(metric.estimator).other();
    let all = estimates(pairs, estimators::of(name), None)?;
    Some(alternative(metric, name, &combine(&all, metric)))
}

/// The name of the run of `environment` at the metric's configuration `at`
/// (the `per` column's value, if any) whose `value` is `wanted`: by the
/// file's key columns other than the environment and `per`, else its line.
pub(super) fn name_run(
    metric: &Metric,
    table: &Table,
    (env_column, environment): (&str, &str),
    at: Option<&KeyPart>,
    wanted: f64,
    key: &[String],
) -> Option<String> {
    const SEARCHED_ROWS: usize = 1_000_000;
    if table.len() > SEARCHED_ROWS {
        return None;
    }
    let rows = filter::rows(table, &metric.filter).ok()?;
    let values = table.column(&metric.value)?.values.numbers()?;
    let env = &table.column(env_column)?.values;
    let per = metric.per.as_deref().and_then(|p| table.column(p)).map(|c| &c.values);
    let naming: Vec<(&str, &Values)> = key
        .iter()
        .filter(|k| k.as_str() != env_column && Some(k.as_str()) != metric.per.as_deref())
        .filter_map(|k| table.column(k).map(|c| (k.as_str(), &c.values)))
        .collect();
    let row = (0..table.len()).find(|&row| {
        rows[row]
            && values[row] == wanted
            && filter::key_part(env, row) == KeyPart::Text(environment.to_string())
            && per.zip(at).is_none_or(|(p, at)| filter::key_part(p, row) == *at)
    })?;
    Some(if naming.is_empty() {
        table.place(row)
    } else {
        let parts: Vec<String> =
            naming.iter().map(|(k, v)| format!("{k} = {}", filter::key_part(v, row))).collect();
        parts.join(", ")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape the generative oracle found (seed 6, study 3): 5.73595,
    /// 4.77996 and 5.73595 against five runs of 4.77996, by the median.
    /// Without the candidate's 4.77996 both sides are constant: an exact
    /// comparison with no verdict, not an interval of zero width called
    /// significant (which made that run "change the verdict").
    #[test]
    fn two_constant_sides_left_are_an_exact_comparison() {
        let c = model::Sample::of(&[5.73595, 4.77996, 5.73595]).unwrap();
        let b = model::Sample::of(&[4.77996; 5]).unwrap();
        let pairs = vec![("all rows".to_string(), c, Some(b))];
        let median = estimators::of(Name::Median);
        let e = estimate_at(&pairs, 0, median, Some((0, true, 1))).unwrap();
        assert!(e.exact && e.ci.is_none() && e.significant().is_none());
        assert_eq!(e.ratio, 5.73595 / 4.77996);
        assert_eq!(constant_without(&[1.0, 2.0, 1.0], Some(1)), Some(1.0));
        assert_eq!(constant_without(&[1.0, 2.0], Some(1)), None);
        assert_eq!(constant_without(&[1.0, 1.0], None), Some(1.0));
    }
}
