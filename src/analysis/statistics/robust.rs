//! Distribution-free descriptions of one sample: quartiles, the
//! order-statistic interval of the median, the coefficient of variation,
//! the grid the values lie on and Tukey's fences, which name the outlying
//! runs.

use serde::Serialize;
use statrs::distribution::{Binomial, DiscreteCDF};

use super::resolution::{self, Resolution};
use crate::analysis::statistics::CONFIDENCE;

/// Fewest values for a distribution-free 95% interval of the median: with
/// n = 5 even the smallest and largest value cover it with only 93.8%
/// (1 − 2 / 2⁵); Hoefler & Belli (SC'15) ask for n > 5.
pub const MEDIAN_CI_MIN: usize = 6;

/// Fewest values for quartiles and Tukey's fences to mean anything.
pub const FENCES_MIN: usize = 4;

/// A value beyond Tukey's fences.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outlier {
    /// The value.
    pub value: f64,
    /// Beyond 3 IQR from the quartiles (severe), not only 1.5 IQR (mild).
    pub severe: bool,
    /// How far beyond the nearer quartile, in units of the fences' scale
    /// (the IQR, or one step of the grid when that is wider): 1.5 to 3
    /// for a mild outlier; the most extreme runs are named first.
    pub beyond: f64,
    /// The run it came from, by the file's key (`run = 1`); absent when the
    /// file declares no key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
}

/// The robust statistics of one sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Robust {
    /// First and third quartiles (linear interpolation, numpy's default);
    /// absent when n < 4.
    pub quartiles: Option<[f64; 2]>,
    /// Distribution-free 95% CI of the median from two order statistics;
    /// absent when n < 6.
    pub median_ci: Option<[f64; 2]>,
    /// The coverage of that interval (at least 95%).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub median_ci_coverage: Option<f64>,
    /// Coefficient of variation, sd / |mean|; absent when n < 2 or the mean is 0.
    pub cv: Option<f64>,
    /// The grid the values lie on; absent when none is found.
    pub resolution: Option<Resolution>,
    /// The scale of Tukey's fences: the IQR, or one step of the grid when
    /// the IQR is smaller (a quantized sample's IQR is often 0, and a run
    /// one tick off the mode is no outlier); absent when n < 4.
    pub fence_scale: Option<f64>,
    /// Values beyond Tukey's fences (1.5 and 3 scales), in ascending order;
    /// past [`LISTED`], the most extreme [`LISTED`] / 2 on each side.
    pub outliers: Vec<Outlier>,
    /// How many values lie beyond the fences.
    pub outlier_count: usize,
    /// How many of them lie beyond 3 scales (severe), listed or not.
    pub severe_count: usize,
    /// Shapiro–Wilk's test of normality (Royston's algorithm); absent
    /// below 8 or above 5,000 values, or when all are equal.
    pub normality: Option<super::shapiro::ShapiroWilk>,
}

/// Most outliers listed per group.
pub const LISTED: usize = 20;

/// The median of ascending `sorted` (not empty): the middle value, or the
/// mean of the two middle ones (halved before they are added where their
/// sum would overflow).
pub fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    let upper = sorted[n / 2];
    if n % 2 == 1 {
        return upper;
    }
    let lower = sorted[n / 2 - 1];
    let sum = lower + upper;
    if sum.is_finite() { sum / 2.0 } else { lower / 2.0 + upper / 2.0 }
}

impl Robust {
    /// The robust statistics of a sample without NaN, ascending in
    /// `sorted`, with this mean and sd.
    pub fn of(sorted: &[f64], mean: f64, sd: Option<f64>) -> Robust {
        let n = sorted.len();
        let quartiles = (n >= FENCES_MIN).then(|| [quantile(sorted, 0.25), quantile(sorted, 0.75)]);
        let (median_ci, median_ci_coverage) = match median_ranks(n) {
            Some((lo, coverage)) => (Some([sorted[lo], sorted[n - 1 - lo]]), Some(coverage)),
            None => (None, None),
        };
        let cv = sd.filter(|_| mean != 0.0).map(|sd| cv(sd, mean));
        let median = if n > 0 { median(sorted) } else { 0.0 };
        let resolution = Resolution::of(sorted, median);
        let fence_scale = quartiles.map(|[q1, q3]| {
            let step = resolution.map_or(0.0, |r| r.step);
            let half = (q3 / 2.0 - q1 / 2.0).max(step / 2.0);
            if half > 0.0 {
                (half * 2.0).min(f64::MAX)
            } else {
                resolution::smallest_gap_of(sorted)
            }
        });
        let mut outliers =
            quartiles.zip(fence_scale).map(|(q, s)| fenced(sorted, q, s)).unwrap_or_default();
        let outlier_count = outliers.len();
        let severe_count = outliers.iter().filter(|o| o.severe).count();
        if outlier_count > LISTED {
            outliers.drain(LISTED / 2..outlier_count - LISTED / 2);
        }
        let normality = super::shapiro::shapiro_wilk(sorted);
        Robust {
            quartiles,
            median_ci,
            median_ci_coverage,
            cv,
            resolution,
            fence_scale,
            outliers,
            outlier_count,
            severe_count,
            normality,
        }
    }
}

/// sd / |mean|, finite for any finite inputs (the ratio of two doubles
/// can overflow only when the mean is subnormal).
fn cv(sd: f64, mean: f64) -> f64 {
    let value = sd / mean.abs();
    if value.is_finite() { value } else { f64::MAX }
}

/// The `p` quantile of ascending `sorted` (not empty) by linear
/// interpolation between order statistics (Hyndman & Fan's type 7, numpy's
/// and R's default).
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * p;
    let lo = h.floor() as usize;
    let fraction = h - lo as f64;
    let a = sorted[lo];
    if fraction == 0.0 {
        return a;
    }
    // a·(1 − f) + b·f: a + f·(b − a) overflows for a, b of opposite sign near the limits.
    a * (1.0 - fraction) + sorted[lo + 1] * fraction
}

/// The 0-based rank `j` of the lower end of the distribution-free interval
/// of the median of `n` values, [x₍ⱼ₎, x₍ₙ₋₁₋ⱼ₎], and its coverage
/// 1 − 2·P(B ≤ j) for B ~ Binomial(n, ½): the narrowest such interval whose
/// coverage is at least [`CONFIDENCE`]. `None` when n < 6.
pub fn median_ranks(n: usize) -> Option<(usize, f64)> {
    if n < MEDIAN_CI_MIN {
        return None;
    }
    let binomial = Binomial::new(0.5, n as u64).ok()?;
    let alpha = 1.0 - CONFIDENCE;
    // The largest j with 2·P(B ≤ j) ≤ α, by bisection (the CDF rises with j;
    // a scan took n/2 evaluations, 0.3 s at 10^6 runs): j = 0 qualifies for
    // n ≥ 6, j = n/2 never does (P(B ≤ n/2) ≥ ½).
    let qualifies = |j: usize| 2.0 * binomial.cdf(j as u64) <= alpha;
    let (mut lo, mut hi) = (0, n / 2);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if qualifies(mid) { lo = mid } else { hi = mid }
    }
    Some((lo, 1.0 - 2.0 * binomial.cdf(lo as u64)))
}

/// The values of ascending `sorted` beyond Tukey's fences around quartiles
/// `q`, `scale` wide (the IQR or the grid's step), ascending.
///
/// A value on a fence is not beyond it, also where the fence is a decimal
/// that binary cannot hold: q1 = 1.1, q3 = 1.3 put the fence at 1.6, which
/// q3 + 1.5·(q3 − q1) computes as 1.5999999999999999, below the value 1.6.
/// So a value counts as beyond only by more than the rounding of the
/// quartiles, the scale and the fence: 16 units in the last place of the
/// largest magnitude involved (about 4·10⁻¹⁵ relative), far below any
/// resolution a measurement has.
fn fenced(sorted: &[f64], [q1, q3]: [f64; 2], scale: f64) -> Vec<Outlier> {
    // Halved, so that the scale of values near ±f64::MAX stays finite.
    let half = scale / 2.0;
    let slack = |v: f64| 16.0 * f64::EPSILON * v.abs().max(q1.abs()).max(q3.abs()) / 2.0;
    let outside = |v: f64, k: f64| {
        (q1 / 2.0 - v / 2.0) - k * half > slack(v) || (v / 2.0 - q3 / 2.0) - k * half > slack(v)
    };
    let outlier = |&v: &f64| {
        let gap = if v < q1 { q1 / 2.0 - v / 2.0 } else { v / 2.0 - q3 / 2.0 };
        let beyond = (gap / half).min(f64::MAX);
        Outlier { value: v, severe: outside(v, 3.0), beyond, run: None }
    };
    sorted.iter().filter(|&&v| outside(v, 1.5)).map(outlier).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // The middle value of an odd count, the mean of the two middle ones of
    // an even count; numpy.percentile([1, 2, 3, 4], 25) = 1.75.
    #[test]
    fn medians_and_quantiles_by_hand() {
        // 1.5e308 and 1.7e308: their sum overflows, their median is 1.6e308.
        assert_eq!(median(&[1.5e308, 1.7e308]), 1.6e308);
        assert_eq!(median(&[1.0, 2.0, 3.0]), 2.0);
        assert_eq!(median(&[1.0, 2.0, 3.0, 4.0]), 2.5);
        assert_eq!(median(&[7.0]), 7.0);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0], 0.25), 1.75);
    }

    // numpy.percentile([1, 2, 3, 4, 100], [25, 75]) = [2, 4]; IQR 2, mild
    // fence 4 + 3 = 7, severe 4 + 6 = 10: 100 is a severe outlier.
    #[test]
    fn quartiles_and_fences_by_hand() {
        let r = Robust::of(&[1.0, 2.0, 3.0, 4.0, 100.0], 22.0, Some(43.6));
        assert_eq!(r.quartiles, Some([2.0, 4.0]));
        assert_eq!(
            r.outliers,
            vec![Outlier { value: 100.0, severe: true, beyond: 48.0, run: None }]
        );
        assert_eq!(r.median_ci, None);
        // 8 is beyond 4 + 3 = 7 but not 10: mild.
        let r = Robust::of(&[1.0, 2.0, 3.0, 4.0, 8.0], 3.6, Some(2.7));
        assert_eq!(r.outliers, vec![Outlier { value: 8.0, severe: false, beyond: 2.0, run: None }]);
    }

    // Whole seconds with an IQR of 0: the fences are drawn one step (1 s)
    // wide, so a run 1 s off the mode is no outlier (1 ≤ 1.5 steps), 2 s
    // off is mild (2 > 1.5, not > 3) and 20 s off severe, named first by
    // `beyond`.
    #[test]
    fn fences_of_a_quantized_sample_are_a_step_wide() {
        let mut v = vec![12.0; 300];
        v.extend([11.0; 70].iter().chain(&[13.0; 64]).chain(&[14.0, 10.0, 32.0]));
        v.sort_by(f64::total_cmp);
        let r = Robust::of(&v, 12.0, Some(1.0));
        assert_eq!(r.quartiles, Some([12.0, 12.0]));
        assert_eq!(r.fence_scale, Some(1.0));
        let found: Vec<(f64, bool, f64)> =
            r.outliers.iter().map(|o| (o.value, o.severe, o.beyond)).collect();
        assert_eq!(found, vec![(10.0, false, 2.0), (14.0, false, 2.0), (32.0, true, 20.0)]);
        // Equal values: no grid, a scale of 0 and no outlier.
        let r = Robust::of(&[5.0; 9], 5.0, Some(0.0));
        assert_eq!((r.resolution, r.fence_scale, r.outlier_count), (None, Some(0.0), 0));
    }

    // scipy.stats.binom.cdf(k, n, 0.5): n = 6: P(B ≤ 0) = 1/64, coverage
    // 1 − 2/64 = 0.96875; n = 20: P(B ≤ 5) = 0.020694732666015625,
    // P(B ≤ 6) = 0.057659149169921875 > 0.025, so j = 5 (x₍₆₎ 1-based).
    #[test]
    fn median_interval_ranks_by_hand() {
        assert_eq!(median_ranks(5), None);
        let (j, coverage) = median_ranks(6).unwrap();
        assert_eq!(j, 0);
        assert!((coverage - 0.96875).abs() < 1e-12);
        let (j, coverage) = median_ranks(20).unwrap();
        assert_eq!(j, 5);
        assert!((coverage - (1.0 - 2.0 * 0.020694732666015625)).abs() < 1e-12);
    }

    /// A seeded xorshift stream of integers below `bound`.
    fn draw(state: &mut u64, bound: u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state % bound
    }

    /// Values exactly on a fence in decimal (hand arithmetic on integers
    /// scaled by 10^-d, parsed as decimals), at many scales, are never
    /// outliers; one unit of the last decimal beyond the fence is. Five
    /// sorted values have x₍₁₎ and x₍₃₎ (from 0) as numpy's quartiles.
    #[test]
    fn values_on_a_fence_are_not_beyond_it() {
        let mut seed = 0x00f3_e2e5_u64;
        let mut rounded = 0;
        for _ in 0..5000 {
            let d = draw(&mut seed, 12) as i32 - 3;
            let a1 = 1 + draw(&mut seed, 100_000);
            let a3 = a1 + 2 * (1 + draw(&mut seed, 50_000));
            let iqr = a3 - a1;
            let at = |n: u64| format!("{n}e{}", -d).parse::<f64>().unwrap();
            let (q1, q3, mid) = (at(a1), at(a3), at(a1 + iqr / 2));
            for (k, severe) in [(3, false), (6, true)] {
                // Fences at 1.5 and 3 IQR: k/2 · IQR, exact with an even IQR.
                let (high, low) = (a3 + k * iqr / 2, a1.checked_sub(k * iqr / 2));
                let on = [q1, q1, mid, q3, at(high)];
                let past = [q1, q1, mid, q3, at(high + 1)];
                let r = Robust::of(&on, 0.0, None);
                assert_eq!(r.quartiles, Some([q1, q3]));
                let flagged = |r: &Robust| r.outliers.iter().any(|o| o.severe == severe);
                assert!(!flagged(&r) || !severe, "{on:?} flags its fence");
                assert!(severe || r.outliers.is_empty(), "{on:?} flags its fence");
                assert!(flagged(&Robust::of(&past, 0.0, None)), "{past:?}");
                rounded += usize::from(q3 + 1.5 * (q3 - q1) < at(a3 + 3 * iqr / 2));
                if let Some(low) = low.filter(|l| *l > 0) {
                    let on = [at(low), q1, mid, q3, q3];
                    assert!(!flagged(&Robust::of(&on, 0.0, None)), "{on:?}");
                    let past = [at(low - 1), q1, mid, q3, q3];
                    assert!(flagged(&Robust::of(&past, 0.0, None)), "{past:?}");
                }
            }
        }
        // The fence as computed is below the decimal value in many cases.
        assert!(rounded > 500, "{rounded}");
    }

    #[test]
    fn extreme_values_stay_finite() {
        let r = Robust::of(&[-1.7e308, -1e308, 1e308, 1.7e308], 0.0, Some(1.6e308));
        assert!(r.quartiles.unwrap().iter().all(|q| q.is_finite()));
        assert_eq!(r.cv, None);
        let r = Robust::of(&[1e-300, 2e-300, 3e-300, 4e-300], 2.5e-300, Some(1.29e-300));
        assert!(r.cv.unwrap().is_finite() && r.outliers.is_empty());
    }

    #[test]
    fn median_ranks_are_the_largest_qualifying_rank() {
        // Hand arithmetic: for n = 20, P(B ≤ 5) = 21700/2^20 = 0.020695 (2P = 0.0414 ≤ 0.05)
        // and P(B ≤ 6) = 60460/2^20 = 0.057659 (2P = 0.1153): j = 5.
        let (j, coverage) = median_ranks(20).unwrap();
        assert_eq!(j, 5);
        assert!((coverage - (1.0 - 2.0 * 21700.0 / 1048576.0)).abs() < 1e-12, "{coverage}");
        // The bisection finds what a scan from j = 0 finds.
        for n in 6..400 {
            let b = Binomial::new(0.5, n as u64).unwrap();
            let mut scan = 0;
            while 2.0 * b.cdf(scan as u64 + 1) <= 1.0 - CONFIDENCE {
                scan += 1;
            }
            assert_eq!(median_ranks(n).unwrap().0, scan, "n = {n}");
        }
    }
}
