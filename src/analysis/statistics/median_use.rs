//! Whether a sample's median is more informative than its mean: for
//! skewed runs or severe outliers, not for symmetric ones, nor where the
//! median sits on one tick of a coarse grid.

use serde::Serialize;

use super::stats::Summary;

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
pub fn median_use(summary: &Summary) -> Option<MedianUse> {
    let [lo, hi] = summary.robust.median_ci?;
    // Within the rounding of the subtraction: on a grid of 0.05, the
    // interval [0.5, 0.55] is one step wide, though 0.55 − 0.5 computes as
    // 0.050000000000000044.
    let slack = 16.0 * f64::EPSILON * hi.abs().max(lo.abs());
    let step = summary.robust.resolution.map(|r| r.step);
    if step.is_some_and(|step| (hi - lo) - step <= slack) {
        return Some(MedianUse::Stuck);
    }
    let severe = summary.robust.outliers.iter().any(|o| o.severe);
    if severe || summary.mean < lo || summary.mean > hi {
        return Some(MedianUse::Informative);
    }
    Some(MedianUse::Alike)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs on a grid of 0.05 whose median interval is [0.5, 0.55], one
    /// step (0.55 − 0.5 computes as 0.050000000000000044): the median sits
    /// on one tick, whatever the severe outlier at 0.75.
    #[test]
    fn an_interval_one_step_wide_is_stuck() {
        let mut values = vec![0.5; 68];
        values.extend([0.55; 66]);
        values.push(0.75);
        let summary = Summary::of(&values).unwrap();
        assert_eq!(summary.robust.median_ci, Some([0.5, 0.55]));
        assert_eq!(median_use(&summary), Some(MedianUse::Stuck));
    }
}
