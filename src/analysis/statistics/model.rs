//! A comparison of two samples: the [`Sample`]s and the [`Estimate`] of
//! their ratio. One model gives the estimate, its interval and its
//! p-value, so that the interval excludes "no difference" exactly when
//! p < 0.05; each estimator has its model (`super::estimators`).

use serde::Serialize;

use super::ranks::Interval;
use super::stats::Summary;

/// A sample with its summary and its values, in run order and sorted.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The summary.
    pub summary: Summary,
    /// The values (without NaN), in run order: a run is left out by its index.
    pub values: Vec<f64>,
    /// The values ascending, for rank statistics.
    pub sorted: Vec<f64>,
}

impl Sample {
    /// The sample of `values`, or `None` when empty.
    pub fn of(values: &[f64]) -> Option<Sample> {
        let (summary, sorted) = Summary::sorting(values.to_vec())?;
        Some(Sample { summary, values: values.to_vec(), sorted })
    }

    /// Whether it has two values or more, all equal: a value measured
    /// exactly, not a sample of a varying one.
    pub fn constant(&self) -> bool {
        self.values.len() >= 2 && self.values.iter().all(|v| *v == self.values[0])
    }
}

/// A ratio candidate / baseline with its interval and p-value from one model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Estimate {
    /// The estimated ratio.
    pub ratio: f64,
    /// Its 95% confidence interval; absent when the model has none.
    pub ci: Option<[f64; 2]>,
    /// Whether each end of `ci` is excluded: the median model's interval on
    /// tied runs may stop just short of a pairwise ratio it rejects.
    pub open: [bool; 2],
    /// Two-sided p-value of "ratio = 1" under the same model.
    pub p: Option<f64>,
    /// The model.
    pub model: Model,
    /// Both sides are constant (every run gives one value): the ratio is
    /// exact, and there is neither interval nor p-value.
    pub exact: bool,
    /// The samples are too few for Mann–Whitney's test to reach the level
    /// (`ranks::min_p`): whatever its p, no verdict.
    #[serde(skip)]
    pub unreachable: bool,
    /// The standard error behind the interval, where the model has one
    /// (Welch's): what an average over exactly these configurations
    /// combines.
    #[serde(skip)]
    pub se: Option<StandardError>,
}

/// The standard error of an estimate, on the scale of its test, with its
/// degrees of freedom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StandardError {
    /// The standard error.
    pub value: f64,
    /// Its degrees of freedom (Welch–Satterthwaite).
    pub df: f64,
    /// Whether it is of the log of the ratio (else of the ratio).
    pub log: bool,
}

impl Estimate {
    /// Whether the estimate decides a difference: its interval excludes a
    /// ratio of 1 and its p (from the same test) is under the level, at
    /// sizes where the level can be reached, the ratio not exactly 1;
    /// absent without an interval.
    pub fn significant(&self) -> Option<bool> {
        let excludes = self.ci.map(|ends| !Interval { ends, open: self.open }.contains(1.0));
        let decidable = !self.unreachable && self.ratio != 1.0;
        excludes.map(|excludes| {
            let p = self.p.is_none_or(|p| p < 1.0 - crate::analysis::statistics::CONFIDENCE);
            decidable && excludes && p
        })
    }

    /// This estimate of samples of `m` and `n` runs: with one run on a
    /// side, neither interval nor p-value; marked unreachable where
    /// Mann–Whitney's test cannot reach the level at these sizes.
    pub fn sized(self, m: usize, n: usize) -> Estimate {
        if self.exact {
            return self;
        }
        let unreachable =
            super::ranks::min_p(m, n) >= 1.0 - crate::analysis::statistics::CONFIDENCE;
        match m.min(n) < 2 {
            true => Estimate { ci: None, p: None, se: None, open: [false; 2], unreachable, ..self },
            false => Estimate { unreachable, ..self },
        }
    }
}

/// The statistical model behind a comparison: how its value, interval and
/// p-value are computed. `crate::prose::metric::model` says it in words;
/// stats.json names it in kebab case (`log-welch`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Model {
    /// None computed (a summary of several configurations).
    #[default]
    None,
    /// Both sides constant: their ratio, with neither interval nor p-value.
    Exact,
    /// A summary's mean with Student's t interval.
    StudentT,
    /// The ratio of means by Welch's t on the log scale.
    LogWelch,
    /// The ratio of means by Welch's t with a delta-method standard error.
    DeltaWelch,
    /// The Hodges–Lehmann ratio with Mann–Whitney's U.
    HodgesLehmann,
    /// A difference of means by Welch's t on the raw values.
    WelchDifference,
    /// The Hodges–Lehmann shift with Mann–Whitney's U.
    HodgesLehmannShift,
    /// The arithmetic mean of per-configuration differences, Student's t over them.
    DifferenceAverage,
    /// The geometric mean of per-configuration ratios, Student's t over them
    /// (k − 1 degrees of freedom): it generalises to other configurations.
    GeometricAverage,
    /// The arithmetic mean of per-configuration ratios, Student's t over them
    /// (k − 1 degrees of freedom): it generalises to other configurations.
    ArithmeticAverage,
    /// The geometric mean of per-configuration ratios over exactly these
    /// configurations: each one's standard error of its log ratio combined,
    /// Welch–Satterthwaite degrees of freedom.
    GeometricAverageFixed,
    /// The arithmetic mean of per-configuration ratios over exactly these
    /// configurations: each one's standard error combined,
    /// Welch–Satterthwaite degrees of freedom.
    ArithmeticAverageFixed,
    /// The average of exact per-configuration ratios.
    ExactAverage,
    /// An interaction: the ratio at the second level of a factor over the
    /// ratio at the first, Welch's t on the log scale.
    Interaction,
    /// An average with runs as the units, by the mean (Welch, delta method).
    RunsAsUnits,
    /// An average with runs as the units, by the median (Hodges–Lehmann,
    /// Mann–Whitney on per-run scores).
    RunsAsUnitsMedian,
}

/// The exact comparison of two constant sides, `c` and `b` in every run:
/// their ratio, with neither interval nor p-value.
pub fn exact(c: f64, b: f64) -> Estimate {
    Estimate { ratio: c / b, model: Model::Exact, exact: true, ..Default::default() }
}
