//! Estimators: what a metric's comparison estimates, one module each
//! behind the [`Estimator`] trait, which holds everything that differs by
//! estimator (the centre of a sample, the model of a comparison, the
//! average with runs as units, the estimator of the sensitivity check and
//! the words the prose names it with). book.toml names one with
//! `estimator = "..."` ([`Name`]); [`of`] resolves the name.
//!
//! Adding an estimator: its module here, implementing [`Estimator`]; its
//! `mod` line and its arm in [`of`]; and its variant of [`Name`]
//! (`config::Estimator`, whose doc comment documents it in
//! docs/book-toml.md).

pub mod mean;
pub mod median;

use super::model::{self, Estimate, Sample};
use crate::config::Average;
pub use crate::config::Estimator as Name;

/// The estimator book.toml names `name`.
pub fn of(name: Name) -> &'static dyn Estimator {
    match name {
        Name::Mean => &mean::Mean,
        Name::Median => &median::Median,
    }
}

/// The words the prose names an estimator with: data, not sentences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Words {
    /// The statistic of a sample: `mean`, as in "the mean of `x`".
    pub name: &'static str,
    /// Its plural: `means`, as in "by their means".
    pub plural: &'static str,
    /// With its article and model: `the median (Hodges–Lehmann)`, as in
    /// "by the median (Hodges–Lehmann) the difference is …".
    pub long: &'static str,
}

/// What a metric's comparison estimates: one implementation a module.
pub trait Estimator: Sync {
    /// The words the prose names it with.
    fn words(&self) -> Words;

    /// The estimator a metric is also computed by, to show whether its
    /// verdict hangs on the choice.
    fn other(&self) -> Name;

    /// The centre of a sample that it compares: its mean, its median.
    fn centre(&self, sample: &Sample) -> f64;

    /// The ratio of `c` to `b` with its interval and p-value from one
    /// model, the two not both constant ([`compare`](Self::compare) makes
    /// that exact); `None` when the ratio is undefined (the baseline's
    /// centre is 0 and not every value is positive).
    fn ratio(&self, c: &Sample, b: &Sample) -> Option<Estimate>;

    /// [`ratio`](Self::ratio) without the run `left[0]` of `c` and
    /// `left[1]` of `b`, for leave-one-out; an estimator overrides it
    /// where it can skip the summaries of the samples left.
    fn ratio_without(&self, c: &Sample, b: &Sample, left: [Option<usize>; 2]) -> Option<Estimate> {
        let side = |s: &Sample, drop: Option<usize>| match drop {
            Some(_) => Sample::of(&kept(&s.values, drop)),
            None => Some(s.clone()),
        };
        self.ratio(&side(c, left[0])?, &side(b, left[1])?)
    }

    /// The average ratio over configurations that every run measures at
    /// once, with the runs as the units of the interval; `None` when the
    /// runs give none (the caller gives the ratio of `runs` alone).
    fn within_run(&self, runs: &RunsAsUnits) -> Option<Estimate>;

    /// A within-run estimate as the metric states it, given the estimates
    /// of its configurations `each`, averaged by `how`: as it is, unless
    /// the estimator re-centres it.
    fn centred(&self, within_run: Estimate, each: &[(String, Estimate)], how: Average) -> Estimate {
        let _ = (each, how);
        within_run
    }

    /// The comparison of `c` with `b`: exact when both sides are constant
    /// (by any estimator), else [`ratio`](Self::ratio).
    fn compare(&self, c: &Sample, b: &Sample) -> Option<Estimate> {
        if c.constant() && b.constant() {
            return Some(model::exact(c.values[0], b.values[0]));
        }
        self.ratio(c, b)
    }
}

/// The runs of both sides over the configurations of an average with runs
/// as units (one OSU run measures every message size).
#[derive(Debug, Clone)]
pub struct RunsAsUnits<'a> {
    /// The candidate's runs: a row a run, a column a configuration.
    pub candidate: &'a [Vec<f64>],
    /// The baseline's runs, likewise.
    pub baseline: &'a [Vec<f64>],
    /// The mean of each configuration over the candidate's runs, then the
    /// baseline's.
    pub means: [Vec<f64>; 2],
    /// How the per-configuration ratios are averaged.
    pub average: Average,
    /// The average of the per-configuration ratios of means.
    pub ratio: f64,
}

/// `values` without the one at `drop`.
pub fn kept(values: &[f64], drop: Option<usize>) -> Vec<f64> {
    values.iter().enumerate().filter(|(i, _)| Some(*i) != drop).map(|(_, x)| *x).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two constant sides are an exact comparison, by either estimator:
    /// 11 / 12 in every run is 8.3% smaller, with no interval, p or
    /// verdict; one constant side against a varying one is a sample.
    #[test]
    fn constant_sides_compare_exactly() {
        let (c, b) = (Sample::of(&[11.0; 10]).unwrap(), Sample::of(&[12.0; 10]).unwrap());
        for name in [Name::Mean, Name::Median] {
            let e = of(name).compare(&c, &b).unwrap();
            assert_eq!((e.ratio, e.ci, e.p, e.exact), (11.0 / 12.0, None, None, true));
            assert_eq!(e.significant(), None);
        }
        let varying = Sample::of(&[12.0, 12.5, 11.5, 12.0, 12.2]).unwrap();
        let mean = of(Name::Mean);
        let e = mean.compare(&c, &varying).unwrap();
        assert!(!e.exact && e.ci.is_some() && e.p.is_some());
        // One run a side is too few to call constant.
        let one = Sample::of(&[11.0]).unwrap();
        assert!(!mean.compare(&one, &Sample::of(&[12.0]).unwrap()).unwrap().exact);
    }

    /// Seeded samples of 2 to 30 runs (positive, with ties, or crossing
    /// zero): each estimator's leave-one-out shortcut gives what its
    /// `ratio` gives on the sample rebuilt without the run, the trait's
    /// default.
    #[test]
    fn a_ratio_without_a_run_is_the_ratio_of_the_runs_kept() {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut uniform = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        for case in 0..300 {
            let mut side = |shift: f64| -> Vec<f64> {
                let n = 2 + (uniform() * 29.0) as usize;
                let value = |u: f64| match case % 3 {
                    0 => 10.0 + 5.0 * u + shift,
                    1 => (10.0 * u).round() + 1.0 + shift,
                    _ => 4.0 * u - 1.0 + shift,
                };
                (0..n).map(|_| value(uniform())).collect()
            };
            let (c, b) = (Sample::of(&side(0.5)).unwrap(), Sample::of(&side(0.0)).unwrap());
            let drop = (uniform() * c.values.len() as f64) as usize;
            let kept_c = Sample::of(&kept(&c.values, Some(drop))).unwrap();
            for name in [Name::Mean, Name::Median] {
                let shortcut = of(name).ratio_without(&c, &b, [Some(drop), None]);
                let rebuilt = of(name).ratio(&kept_c, &b);
                let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * x.abs().max(1.0);
                let same = match (shortcut, rebuilt) {
                    (Some(x), Some(y)) => {
                        let ends = |e: Estimate| e.ci.unwrap_or([0.0; 2]);
                        close(x.ratio, y.ratio)
                            && x.ci.is_some() == y.ci.is_some()
                            && ends(x).iter().zip(ends(y)).all(|(a, b)| close(*a, b))
                            && close(x.p.unwrap_or(0.0), y.p.unwrap_or(0.0))
                    }
                    (x, y) => x.is_none() && y.is_none(),
                };
                assert!(same, "case {case} {name:?}: {shortcut:?} against {rebuilt:?}");
            }
        }
    }
}
