//! Statistical primitives on samples: summaries, Student's t intervals, Welch's
//! test and the delta-method interval of a ratio of means.

use crate::math;
use serde::Serialize;

use super::robust::{Robust, median};
use super::student;
pub use super::student::{P_FLOOR, reported_p};

use crate::analysis::statistics::CONFIDENCE;

/// Descriptive statistics of one sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Number of values.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median.
    pub median: f64,
    /// Sample standard deviation (n − 1); absent when n < 2.
    pub sd: Option<f64>,
    /// 95% confidence interval of the mean from Student's t; absent when n < 2.
    pub ci: Option<[f64; 2]>,
    /// Why there is no interval, when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci_note: Option<NoInterval>,
    /// Quartiles, the distribution-free interval of the median, the
    /// coefficient of variation and the outliers.
    pub robust: Robust,
}

/// Why a statistic has no confidence interval; `crate::prose::metric`
/// words it, stats.json names it (`{"why": "few-runs", "n": 1}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "why", rename_all = "kebab-case")]
pub enum NoInterval {
    /// Fewer than 2 runs.
    FewRuns {
        /// The runs there are.
        n: usize,
    },
    /// Each side gives the same value in every run: the value is exact.
    Exact,
    /// The groups averaged over give the same ratio.
    SameRatio,
    /// Neither side varies, or there are too few runs for the estimator.
    NoSpread,
    /// The data were not measured (`[data.NAME] provenance`): their spread
    /// is no one's, and no interval is drawn from it.
    NotMeasured,
}

/// Why no interval can be given for `n` values, if that is the case.
pub fn no_interval(n: usize) -> Option<NoInterval> {
    (n < 2).then_some(NoInterval::FewRuns { n })
}

/// The two-sided t quantile for [`CONFIDENCE`] at `df` degrees of freedom
/// (scipy's `t.ppf(0.975, df)` to about 1e-12 relative; [`student`]).
pub fn t_quantile(df: f64) -> f64 {
    student::upper_quantile((1.0 - CONFIDENCE) / 2.0, df)
}

/// The normal quantile of the two-sided 95% interval (1.959964…).
pub fn z_quantile() -> f64 {
    student::normal_upper_quantile((1.0 - CONFIDENCE) / 2.0)
}

/// Two-sided p-value of a t statistic at `df` degrees of freedom
/// (scipy's `2·t.sf(|t|, df)`), never 0: see [`reported_p`].
pub fn p_value(t: f64, df: f64) -> f64 {
    reported_p(student::two_sided_p(t, df))
}

impl Summary {
    /// Summarise `values` (NaN values, which mark empty cells, are skipped).
    /// Returns `None` for an empty sample.
    pub fn of(values: &[f64]) -> Option<Summary> {
        Self::of_owned(values.iter().copied().filter(|v| !v.is_nan()).collect())
    }

    /// Summarise a sample without NaN values (copied, to be sorted).
    pub fn of_sample(sample: &[f64]) -> Option<Summary> {
        Self::of_owned(sample.to_vec())
    }

    /// Summarise a sample without NaN values, taking ownership (no copy).
    pub fn of_owned(values: Vec<f64>) -> Option<Summary> {
        Self::sorting(values).map(|(summary, _)| summary)
    }

    /// Summarise a sample without NaN values, and hand it back ascending
    /// (for rank statistics); `None` when empty.
    ///
    /// The mean and standard deviation are the textbook two-pass sums, in
    /// the values' order; the order statistics are read from the values
    /// sorted once, and the grid they lie on from their distinct values
    /// in one walk: 2.9 ms for 83,333 runs (`cargo bench --bench stages --
    /// summary`), where selecting each order statistic and hashing the
    /// distinct values, then sorting for the rank statistics, cost more.
    /// Both agree with scipy to 1e-12.
    pub fn sorting(mut values: Vec<f64>) -> Option<(Summary, Vec<f64>)> {
        let n = values.len();
        if n == 0 {
            return None;
        }
        let (mean, sd) = moments(&values);
        // A radix sort, in `total_cmp`'s order: on 83,333 runs half the
        // time of std's comparison sort (1.1 ms against 2.1 ms, `cargo
        // bench --bench stages -- sort`).
        radsort::sort(&mut values);
        let robust = Robust::of(&values, mean, sd);
        let summary = Self::from_parts(n, mean, median(&values), sd, robust);
        Some((summary, values))
    }

    /// The summary of `n` values with this mean, median and standard deviation.
    fn from_parts(n: usize, mean: f64, median: f64, sd: Option<f64>, robust: Robust) -> Summary {
        let ci = sd.map(|sd| {
            let half = t_quantile((n - 1) as f64) * sd / (n as f64).sqrt();
            [mean - half, mean + half]
        });
        Summary { n, mean, median, sd, ci, ci_note: no_interval(n), robust }
    }

    /// Squared standard error of the mean; absent when n < 2.
    pub fn variance_of_mean(&self) -> Option<f64> {
        self.sd.map(|sd| sd * sd / self.n as f64)
    }
}

/// The mean and, for two values or more, the standard deviation of
/// `values` (not empty, without NaN): the textbook two-pass sums, in the
/// values' order, on values scaled by [`scale_of`]; equal values have their
/// value as mean and an sd of exactly 0, not the rounding of their sums.
pub fn moments(values: &[f64]) -> (f64, Option<f64>) {
    let n = values.len();
    let scale = scale_of(values.iter().fold(0.0f64, |m, v| m.max(v.abs())));
    let mean = values.iter().fold(0.0, |sum, v| sum + v / scale) / n as f64;
    let sd = (n >= 2).then(|| {
        let squares = values.iter().map(|v| (v / scale - mean) * (v / scale - mean));
        (squares.sum::<f64>() / (n - 1) as f64).sqrt() * scale
    });
    if values.iter().all(|v| *v == values[0]) {
        return (values[0], sd.map(|_| 0.0));
    }
    (mean * scale, sd)
}

/// The power of two nearest below `largest` (1 for 0): values divided by it
/// are at most 1 in magnitude, so that sums and squares of values near
/// 1e±300 neither overflow nor vanish, and the division is exact.
fn scale_of(largest: f64) -> f64 {
    if largest > 0.0 && largest.is_finite() {
        2f64.powi((math::log2(largest).floor() as i32).clamp(-1022, 1023))
    } else {
        1.0
    }
}

/// Welch's unequal-variance t-test of two samples' means.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Welch {
    /// The t statistic (candidate − baseline).
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value.
    pub p: f64,
}

/// Welch's test of `candidate` against `baseline`; `None` when either has n < 2
/// or both have zero variance.
pub fn welch(candidate: &Summary, baseline: &Summary) -> Option<Welch> {
    let (vc, vb) = (candidate.variance_of_mean()?, baseline.variance_of_mean()?);
    if vc + vb == 0.0 {
        return None;
    }
    let t = (candidate.mean - baseline.mean) / (vc + vb).sqrt();
    let df = satterthwaite(&[(vc, candidate.n), (vb, baseline.n)]);
    Some(Welch { t, df, p: p_value(t, df) })
}

/// Welch–Satterthwaite degrees of freedom of a sum of variances `(v, n)`.
pub fn satterthwaite(parts: &[(f64, usize)]) -> f64 {
    let total: f64 = parts.iter().map(|(v, _)| v).sum();
    let denominator: f64 = parts.iter().map(|(v, n)| v * v / (*n as f64 - 1.0)).sum();
    total * total / denominator
}

/// A ratio of two means with its standard error and degrees of freedom.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Ratio {
    /// candidate mean / baseline mean.
    pub value: f64,
    /// Delta-method standard error of the ratio; absent when either n < 2.
    pub se: Option<f64>,
    /// Welch–Satterthwaite degrees of freedom of the relative variances.
    pub df: Option<f64>,
}

/// The ratio of means `candidate / baseline` with a delta-method standard error:
/// se(R) = R · sqrt(se_c² / m_c² + se_b² / m_b²), computed as the same
/// sqrt(se_c² + R² · se_b²) / |m_b|, which needs no division by m_c, so that a
/// candidate mean of zero has an interval too (Satterthwaite's degrees of
/// freedom do not change when every variance is scaled alike). The baseline
/// mean must not be zero: callers refuse or skip that case.
pub fn ratio(candidate: &Summary, baseline: &Summary) -> Ratio {
    let value = candidate.mean / baseline.mean;
    let squared = baseline.mean * baseline.mean;
    let parts = candidate
        .variance_of_mean()
        .zip(baseline.variance_of_mean())
        .map(|(vc, vb)| [(vc / squared, candidate.n), (value * value * vb / squared, baseline.n)]);
    let se = parts.map(|p| (p[0].0 + p[1].0).sqrt());
    let df = parts.and_then(|p| (p[0].0 + p[1].0 > 0.0).then(|| satterthwaite(&p)));
    Ratio { value, se, df }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    // Expected values computed by hand and with scipy 1.11:
    //   scipy.stats.t.ppf(0.975, 2) = 4.302652729749462
    //   scipy.stats.ttest_ind([4,5,6], [1,2,3], equal_var=False) -> t = 3.6742346141747673, p = 0.021311641128756713
    #[test]
    fn summary_matches_hand_arithmetic() {
        let s = Summary::of(&[1.0, 2.0, 3.0, f64::NAN]).unwrap();
        assert_eq!((s.n, s.mean, s.median), (3, 2.0, 2.0));
        assert!(close(s.sd.unwrap(), 1.0, 1e-12));
        let half = 4.302652729749462 / 3f64.sqrt();
        let ci = s.ci.unwrap();
        assert!(close(ci[0], 2.0 - half, 1e-9) && close(ci[1], 2.0 + half, 1e-9), "{ci:?}");
    }

    /// The median of a large sample of extreme values (subnormals, ±0,
    /// 1e±300, infinities, many repeats) is the middle of the sorted values.
    #[test]
    fn the_median_of_extreme_values_is_the_sorted_middle() {
        let n = 100_003;
        let finite: Vec<f64> = (0..n)
            .map(|i| match i % 10 {
                0 => 1e-300,
                1 if i % 30 == 1 => -0.0,
                1 if i % 30 == 11 => 5e-324,
                1 => 1e300,
                2 => 30.0,
                _ => 30.0 + ((i * 7919) % 1_000_003) as f64 * 1e-9,
            })
            .collect();
        let infinite: Vec<f64> = finite
            .iter()
            .enumerate()
            .map(|(i, &v)| match i % 50 {
                0 => f64::INFINITY,
                7 => f64::NEG_INFINITY,
                _ => v,
            })
            .collect();
        for values in [&finite, &infinite] {
            for n in [n, n - 1] {
                let sample = &values[..n];
                let mut sorted = sample.to_vec();
                sorted.sort_by(f64::total_cmp);
                let median = if n % 2 == 1 {
                    sorted[n / 2]
                } else {
                    (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
                };
                assert_eq!(Summary::of_sample(sample).unwrap().median, median);
            }
        }
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        let median = |v: &[f64]| Summary::of(v).unwrap().median;
        assert_eq!(median(&[5.0, 1.0, 3.0]), 3.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[2.0, 2.0, 1.0, 1.0]), 1.5);
        assert_eq!(median(&[7.0]), 7.0);
        assert_eq!(median(&[-1.0, 10.0]), 4.5);
        // 1..=1001 shuffled: the median is 501 and the mean 501.
        let shuffled: Vec<f64> = (0..1001).map(|i| ((i * 389) % 1001 + 1) as f64).collect();
        let s = Summary::of(&shuffled).unwrap();
        assert_eq!((s.median, s.mean), (501.0, 501.0));
    }

    #[test]
    fn one_value_has_no_interval() {
        let s = Summary::of(&[5.0]).unwrap();
        assert_eq!(s.ci, None);
        assert_eq!(s.ci_note, Some(NoInterval::FewRuns { n: 1 }));
        assert!(Summary::of(&[]).is_none());
    }

    #[test]
    fn welch_matches_scipy() {
        let a = Summary::of(&[4.0, 5.0, 6.0]).unwrap();
        let b = Summary::of(&[1.0, 2.0, 3.0]).unwrap();
        let w = welch(&a, &b).unwrap();
        assert!(close(w.t, 3.674234614174767, 1e-9));
        assert!(close(w.df, 4.0, 1e-9));
        assert!(close(w.p, 0.021311641128756, 1e-9), "{}", w.p);
    }

    #[test]
    fn ratio_se_follows_delta_method() {
        let c = Summary::of(&[9.0, 10.0, 11.0]).unwrap();
        let b = Summary::of(&[18.0, 20.0, 22.0]).unwrap();
        let r = ratio(&c, &b);
        assert_eq!(r.value, 0.5);
        // se_c^2/m_c^2 = (1/3)/100, se_b^2/m_b^2 = (4/3)/400: both 1/300.
        assert!(close(r.se.unwrap(), 0.5 * (2.0f64 / 300.0).sqrt(), 1e-12));
        assert!(close(r.df.unwrap(), 4.0, 1e-9));
        // A candidate mean of zero: R = 0, se = se_c / m_b = sqrt(1/3) / 20,
        // and the degrees of freedom are the candidate's, n − 1 = 2.
        let zero = Summary::of(&[-1.0, 0.0, 1.0]).unwrap();
        let r = ratio(&zero, &b);
        assert_eq!(r.value, 0.0);
        assert!(close(r.se.unwrap(), (1.0f64 / 3.0).sqrt() / 20.0, 1e-12));
        assert!(close(r.df.unwrap(), 2.0, 1e-9));
    }
}
