//! The claim a comparison supports ([`Claim`]): its verdict, decided once
//! from its value, interval, p (Holm's, in a family or a table), run counts
//! and the study's `negligible` threshold, and read by every output (card,
//! Table 1, computed tables, caveats, paper, stats.json). docs/methods.md,
//! "Verdicts", states the rules with a worked example.

pub use crate::analysis::findings::claim::{Claim, Undecided, Verdict};

use super::value::MetricValue;
use crate::analysis::statistics::{CONFIDENCE, ranks};
use crate::config::{Better, Compare};

/// The level of the tests: p below it is significant.
const ALPHA: f64 = 1.0 - CONFIDENCE;

/// How far from no change an exact value may lie by rounding alone.
const ROUNDING: f64 = 1e-12;

/// The most runs a side a projection names; beyond it, none.
const MOST_RUNS: usize = 1_000_000;

/// The claim of comparison `m` with the study's `negligible` threshold (a
/// fraction); `None` for a summary.
pub fn of(m: &MetricValue, negligible: Option<f64>) -> Option<Claim> {
    if m.compare == Compare::Summary {
        return None;
    }
    let decided = |verdict| Claim { verdict, undecided: None, more_runs: None };
    let undecided =
        |why, more_runs| Claim { verdict: Verdict::Inconclusive, undecided: Some(why), more_runs };
    let change = change(m.compare, m.value);
    if m.exact {
        // An exact value computed over configurations may miss no change by
        // rounding alone (an average of ratios of 1 as −2.2e−16).
        let size = share(m, m.value).abs();
        return Some(decided(if size <= ROUNDING {
            Verdict::Same
        } else if negligible.is_some_and(|t| size < t) {
            Verdict::Negligible
        } else {
            direction(m)
        }));
    }
    let runs = sides(m);
    if m.groups <= 1 && runs.0.min(runs.1) < 2 {
        return Some(undecided(Undecided::OneRun, reachable_after(runs)));
    }
    if let Some([lo, hi]) = m.ci
        && let Some(t) = negligible
        && [lo, hi].iter().all(|v| share(m, *v).abs() < t)
    {
        return Some(decided(Verdict::Negligible));
    }
    if m.groups <= 1 {
        let min_p = ranks::min_p(runs.0, runs.1);
        if min_p >= ALPHA {
            return Some(undecided(Undecided::Unreachable { min_p }, reachable_after(runs)));
        }
    }
    if change == 0.0 {
        return Some(undecided(Undecided::NoShift, None));
    }
    let (Some(_), Some(_)) = (m.ci, m.p_holm.or(m.p_value)) else {
        return Some(undecided(Undecided::NoTest, None));
    };
    if tested(m) == Some(true) {
        return Some(decided(direction(m)));
    }
    Some(undecided(Undecided::Wide, projected(m, negligible, runs.0.min(runs.1))))
}

/// Whether the comparison's test decides a difference: p (Holm's where
/// there is one) under the level, the interval excluding no change, both
/// from the same test; a single configuration needs two runs a side and
/// sizes at which the rank test can reach the level; an estimate of
/// exactly no change is never significant. `None` without an interval or
/// a p-value.
pub fn tested(m: &MetricValue) -> Option<bool> {
    let (ci, p) = (m.ci?, m.p_holm.or(m.p_value)?);
    let (c, b) = sides(m);
    let sized = m.groups > 1 || (c.min(b) >= 2 && ranks::min_p(c, b) < ALPHA);
    Some(sized && p < ALPHA && excludes_null(m, ci) && change(m.compare, m.value) != 0.0)
}

/// Whether the interval `[lo, hi]` (as the metric expresses it) excludes
/// no change, open ends counted as excluded.
fn excludes_null(m: &MetricValue, [lo, hi]: [f64; 2]) -> bool {
    let null = if m.compare == Compare::Ratio { 1.0 } else { 0.0 };
    let open = m.ci_open.unwrap_or([false; 2]);
    lo > null || hi < null || (lo == null && open[0]) || (hi == null && open[1])
}

/// Better or worse, by the sign of the change in the measured column and
/// [`Compare::column_better`]. Called only for a change other than none.
pub fn direction(m: &MetricValue) -> Verdict {
    let higher = change(m.compare, m.value) > 0.0;
    let good = m.compare.column_better(m.better) == Better::Higher;
    if higher == good { Verdict::Better } else { Verdict::Worse }
}

/// candidate / baseline − 1 of a value as `compare` expresses it.
pub fn change(compare: Compare, value: f64) -> f64 {
    match compare {
        Compare::Slowdown => -value,
        Compare::Ratio => value - 1.0,
        _ => value,
    }
}

/// A value of the metric as a share of the baseline, to hold against the
/// `negligible` threshold: its [`change`], and a difference over the
/// baseline's mean (any difference from a mean of 0 is beyond any share).
fn share(m: &MetricValue, v: f64) -> f64 {
    if m.compare != Compare::Difference {
        return change(m.compare, v);
    }
    let base = m.baseline.as_ref().map_or(0.0, |b| b.mean.abs());
    match (base > 0.0, v == 0.0) {
        (true, _) => v / base,
        (false, true) => 0.0,
        (false, false) => f64::INFINITY,
    }
}

/// The run counts of the candidate and the baseline (the smallest group's).
fn sides(m: &MetricValue) -> (usize, usize) {
    (m.candidate.n, m.baseline.as_ref().map_or(m.candidate.n, |b| b.n))
}

/// The fewest runs to add to each side of `(m, n)` so that each has two
/// and Mann–Whitney's test can reach the level.
fn reachable_after((m, n): (usize, usize)) -> Option<usize> {
    (0..=MOST_RUNS).find(|k| m + k >= 2 && n + k >= 2 && ranks::min_p(m + k, n + k) < ALPHA)
}

/// The runs a side to add, `n` runs a side today, for an interval that
/// keeps its centre and narrows as 1 / √n to exclude no change or to lie
/// within `±negligible`; `None` where neither can happen.
fn projected(m: &MetricValue, negligible: Option<f64>, n: usize) -> Option<usize> {
    let [lo, hi] = m.ci?;
    let ends = [share(m, lo), share(m, hi)];
    let half = (ends[0] - ends[1]).abs() / 2.0;
    let size = share(m, m.value).abs();
    let to_exclude = size;
    let to_fit = negligible.map_or(0.0, |t| t - size);
    let target = to_exclude.max(to_fit);
    if !(target > 0.0 && half > 0.0 && half.is_finite()) {
        return None;
    }
    let needed = (n as f64 * (half / target).powi(2)).ceil();
    (needed.is_finite() && needed <= MOST_RUNS as f64)
        .then(|| (needed as usize).saturating_sub(n).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::metrics::value::Side;

    fn with_runs(
        value: f64,
        ci: Option<[f64; 2]>,
        p: Option<f64>,
        m: usize,
        n: usize,
    ) -> MetricValue {
        let mut v = MetricValue::example(value);
        (v.ci, v.p_value) = (ci, p);
        v.candidate.n = m;
        v.baseline = Some(Side { environment: "b".into(), mean: 1.0, n });
        v
    }

    /// 3 runs against 4: 2 / C(7, 3) = 2 / 35 = 0.0571, so even p = 0.0497
    /// from Welch's t is no verdict; 1 more run a side (4 against 5:
    /// 2 / 126) reaches the level.
    #[test]
    fn a_test_that_cannot_reach_the_level_decides_nothing() {
        let m = with_runs(0.8, Some([0.01, 1.6]), Some(0.0497), 3, 4);
        let c = of(&m, None).unwrap();
        assert_eq!(c.verdict, Verdict::Inconclusive);
        let Some(Undecided::Unreachable { min_p }) = c.undecided else { panic!("{c:?}") };
        assert!((min_p - 2.0 / 35.0).abs() < 1e-15);
        assert_eq!(c.more_runs, Some(1));
        // 4 against 4: 2 / 70 = 0.029, the same p decides.
        assert_eq!(
            of(&with_runs(0.8, Some([0.01, 1.6]), Some(0.0497), 4, 4), None).unwrap().verdict,
            Verdict::Worse
        );
    }

    /// One baseline run against 16: no interval, no verdict; one more run
    /// a side gives 2 against 17, whose smallest p is 2 / C(19, 2) = 2 / 171.
    #[test]
    fn one_run_on_a_side_is_no_verdict() {
        let m = with_runs(0.1, None, None, 16, 1);
        let c = of(&m, None).unwrap();
        assert_eq!((c.verdict, c.undecided), (Verdict::Inconclusive, Some(Undecided::OneRun)));
        assert_eq!(c.more_runs, Some(1));
    }

    /// An estimate of exactly no change is never significant, whatever p.
    #[test]
    fn no_change_is_never_significant() {
        let m = with_runs(0.0, Some([0.0, 0.0]), Some(0.009), 480, 480);
        let c = of(&m, None).unwrap();
        assert_eq!((c.verdict, c.undecided), (Verdict::Inconclusive, Some(Undecided::NoShift)));
    }

    /// With a 5% threshold: +0.1% over −16.4% to +19.9% is not negligible;
    /// over −2% to +3% it is, whatever its p; +2% over +1% to +3% with
    /// p = 0.001 is significant yet negligible.
    #[test]
    fn negligible_needs_the_whole_interval_inside() {
        let wide = with_runs(0.001, Some([-0.164, 0.199]), Some(0.99), 10, 10);
        let c = of(&wide, Some(0.05)).unwrap();
        assert_eq!((c.verdict, c.undecided), (Verdict::Inconclusive, Some(Undecided::Wide)));
        // half = 0.1815, target = 0.05 − 0.001 = 0.049: 10 · (0.1815 / 0.049)² = 137.2 → 138, 128 more.
        assert_eq!(c.more_runs, Some(128));
        let narrow = with_runs(0.001, Some([-0.02, 0.03]), Some(0.9), 10, 10);
        assert_eq!(of(&narrow, Some(0.05)).unwrap().verdict, Verdict::Negligible);
        let small = with_runs(0.02, Some([0.01, 0.03]), Some(0.001), 10, 10);
        assert_eq!(of(&small, Some(0.05)).unwrap().verdict, Verdict::Negligible);
        assert_eq!(of(&small, None).unwrap().verdict, Verdict::Worse);
    }

    /// p under the level with an interval that holds no change (ties): not
    /// significant.
    #[test]
    fn p_and_interval_must_agree() {
        let m = with_runs(0.05, Some([0.0, 0.1]), Some(0.01), 20, 20);
        assert_eq!(of(&m, None).unwrap().verdict, Verdict::Inconclusive);
        let open = MetricValue { ci_open: Some([true, false]), ..m };
        assert_eq!(of(&open, None).unwrap().verdict, Verdict::Worse);
    }
}
