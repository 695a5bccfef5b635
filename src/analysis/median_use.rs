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
