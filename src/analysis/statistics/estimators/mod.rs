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
use super::stats::Summary;
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
    fn centre(&self, summary: &Summary) -> f64;

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

/// The model of an average with runs as units by the mean, in words; also
/// the model named where the runs give no estimate.
pub const RUNS_AS_UNITS: &str = "average over configurations with runs as the units: Welch's \
    t on the log scale of per-run scores (delta method)";

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
}
