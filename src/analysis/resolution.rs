//! The resolution of a sample: the grid its values lie on (run times logged
//! in whole seconds lie on a grid of 1 s), found from the values alone, and
//! what it implies for the median.

use rustc_hash::FxHashSet;
use serde::Serialize;

use super::robust::Ordered;

/// Most decimals a grid is looked for at (10^−12 of the unit).
pub const MAX_DECIMALS: i32 = 12;

/// The grid a sample's values lie on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Resolution {
    /// The step: every difference between two values is a whole multiple of
    /// it (`grid`), or else the smallest gap between two distinct values.
    pub step: f64,
    /// Whether the values lie on a decimal grid of `step`; `false` when it
    /// is the smallest gap between few distinct values (at most half as
    /// many as the values).
    pub grid: bool,
    /// Distinct values among the sample's.
    pub distinct: usize,
    /// The step relative to the magnitude of the median; absent when the
    /// median is 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relative: Option<f64>,
}

impl Resolution {
    /// The resolution of `sample` (without NaN), whose median is `median`;
    /// `None` when fewer than two values differ, or when the values lie on
    /// no decimal grid of at most [`MAX_DECIMALS`] decimals and more than
    /// half of them are distinct.
    pub fn of(sample: &impl Ordered, median: f64) -> Option<Resolution> {
        let mut seen = FxHashSet::default();
        // +0.0 for −0.0: one value, one entry.
        sample.each(&mut |v| {
            seen.insert((v + 0.0).to_bits());
        });
        let distinct: Vec<f64> = seen.into_iter().map(f64::from_bits).collect();
        if distinct.len() < 2 {
            return None;
        }
        let (step, grid) = match decimal_step(&distinct) {
            Some(step) => (step, true),
            None if 2 * distinct.len() <= sample.count() => {
                (smallest_gap(distinct.clone()).min(f64::MAX), false)
            }
            None => return None,
        };
        let relative = (median != 0.0).then(|| (step / median.abs()).min(f64::MAX));
        Some(Resolution { step, grid, distinct: distinct.len(), relative })
    }
}

/// The step of the decimal grid of `values` (at least two distinct): at the
/// fewest decimals d ≤ [`MAX_DECIMALS`] at which every value × 10^d is a
/// whole number k (exactly, or within 10^−6 for |k| ≤ 10^9, the binary
/// rounding of decimal text), the greatest common divisor of the
/// differences of the k, over 10^d.
fn decimal_step(values: &[f64]) -> Option<f64> {
    let whole = |x: f64| {
        x.is_finite()
            && x.abs() < 9.0e15
            && (x == x.round() || (x.abs() <= 1e9 && (x - x.round()).abs() <= 1e-6))
    };
    let d = (0..=MAX_DECIMALS).find(|&d| {
        let scale = 10f64.powi(d);
        values.iter().all(|v| whole(v * scale))
    })?;
    let scale = 10f64.powi(d);
    let ints: Vec<i64> = values.iter().map(|v| (v * scale).round() as i64).collect();
    let low = *ints.iter().min()?;
    let divisor = ints.iter().fold(0u64, |g, &k| gcd(g, k.abs_diff(low)));
    (divisor > 0).then(|| divisor as f64 / scale)
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The smallest difference between two of `distinct` (at least two values).
fn smallest_gap(mut distinct: Vec<f64>) -> f64 {
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    distinct.windows(2).map(|w| w[1] - w[0]).fold(f64::INFINITY, f64::min)
}

/// The smallest difference between two distinct values of `sample`; 0 when
/// all are equal. The fences' scale where the IQR is 0 and the values lie
/// on no grid.
pub fn smallest_gap_of(sample: &impl Ordered) -> f64 {
    let mut values = Vec::with_capacity(sample.count());
    sample.each(&mut |v| values.push(v + 0.0));
    let gap = smallest_gap(values);
    if gap.is_finite() { gap } else { 0.0 }
}

/// What a sample's shape says of its median against its mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MedianUse {
    /// The runs are skewed or have severe outliers: the mean lies outside
    /// the median's distribution-free 95% interval, or a run lies beyond
    /// 3 IQR. The median describes the typical run better.
    Informative,
    /// The median's 95% interval spans at most one step of the grid: the
    /// median sits on one tick and cannot show a change smaller than a
    /// step, which the mean, averaging over the ticks, can.
    Stuck,
    /// Neither: the mean and the median tell alike (symmetric data).
    Alike,
}

/// Whether the median of a sample with this summary is more informative
/// than its mean; `None` without a median interval (n < 6).
pub fn median_use(summary: &super::Summary) -> Option<MedianUse> {
    let [lo, hi] = summary.robust.median_ci?;
    let step = summary.robust.resolution.map(|r| r.step);
    if step.is_some_and(|step| hi - lo <= step) {
        return Some(MedianUse::Stuck);
    }
    let severe = summary.robust.outliers.iter().any(|o| o.severe);
    if severe || summary.mean < lo || summary.mean > hi {
        return Some(MedianUse::Informative);
    }
    Some(MedianUse::Alike)
}

/// A step counts as coarse against an effect when it is at least this share
/// of the effect's distance from no change.
pub const COARSE_SHARE: f64 = 0.5;

/// The coarsest grid among a comparison metric's samples, against its
/// effect and interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Grain {
    /// The step, in the column's unit.
    pub step: f64,
    /// The step over the baseline's mean there: the smallest relative
    /// change the values can show.
    pub relative: f64,
    /// Where the grid is coarsest (`procs = 32`, or the metric's rows).
    pub at: String,
    /// Whether the step is coarse: at least the half-width of the metric's
    /// interval, or at least [`COARSE_SHARE`] of its effect.
    pub coarse: bool,
}

/// The grain of a comparison metric of `value` (its ratio − 1 as
/// `effect`, its interval's half-width on the ratio scale as `half`)
/// from its configurations' samples; `None` when no sample lies on a grid.
pub fn grain(pairs: &[super::metric_stats::Pair], effect: f64, half: Option<f64>) -> Option<Grain> {
    let mut coarsest: Option<Grain> = None;
    for (at, c, b) in pairs {
        let Some(b) = b else { continue };
        let step = [&c.summary, &b.summary]
            .iter()
            .filter_map(|s| s.robust.resolution.map(|r| r.step))
            .fold(0.0, f64::max);
        if step == 0.0 || b.summary.mean == 0.0 {
            continue;
        }
        let relative = (step / b.summary.mean.abs()).min(f64::MAX);
        if coarsest.as_ref().is_none_or(|g| relative > g.relative) {
            coarsest = Some(Grain { step, relative, at: at.clone(), coarse: false });
        }
    }
    let mut found = coarsest?;
    found.coarse = found.relative >= COARSE_SHARE * effect.abs()
        || half.is_some_and(|half| found.relative >= half);
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::super::robust::Selection;
    use super::*;

    fn of(values: &[f64]) -> Option<Resolution> {
        let mut copy = values.to_vec();
        let mut s = Selection::new(&mut copy);
        let median = s.median();
        Resolution::of(&s, median)
    }

    #[test]
    fn grids_by_hand() {
        // Whole seconds: step 1, 3 distinct values, 1/12 of the median 12.
        let r = of(&[12.0, 13.0, 12.0, 11.0, 12.0]).unwrap();
        assert_eq!((r.step, r.grid, r.distinct), (1.0, true, 3));
        assert_eq!(r.relative, Some(1.0 / 12.0));
        // Two decimals as text (0.63 is not exact in binary): step 0.01.
        let r = of(&[0.63, 0.61, 0.64, 0.60]).unwrap();
        assert!((r.step - 0.01).abs() < 1e-15, "{r:?}");
        // Multiples of 0.5 offset by 0.25: the differences' divisor, 0.5.
        assert_eq!(of(&[10.25, 10.75, 11.75, 12.25]).unwrap().step, 0.5);
        // Bytes in thousands, large integers: 1000.
        assert_eq!(of(&[3e12, 3e12 + 1000.0, 3e12 + 5000.0]).unwrap().step, 1000.0);
        // Equal values have no resolution.
        assert_eq!(of(&[4.0, 4.0, 4.0]), None);
        // Thirds lie on no decimal grid; with 2 distinct among 6 values the
        // step is their gap, 1/3.
        let r = of(&[1.0 / 3.0, 2.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 2.0 / 3.0, 1.0 / 3.0]).unwrap();
        assert!(!r.grid && (r.step - 1.0 / 3.0).abs() < 1e-15);
        // Many distinct values on no grid: none.
        assert_eq!(of(&[1.0 / 3.0, 1.0 / 7.0, 1.0 / 11.0, 1.0 / 13.0]), None);
    }
}
