//! The claim a comparison supports ([`Claim`]): its verdict, why it is
//! inconclusive and how many more runs could decide it; decided by
//! `analysis::metrics::claim` (docs/methods.md, Verdicts).

use serde::Serialize;

/// What the data say of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Better than the baseline: significantly, or in every run.
    Better,
    /// Worse than the baseline: significantly, or in every run.
    Worse,
    /// Within `±negligible` of no change: the whole interval lies inside
    /// (two one-sided tests), or both sides are exact and their
    /// difference does.
    Negligible,
    /// The data cannot tell: see [`Undecided`].
    Inconclusive,
    /// Exactly the same in every run.
    Same,
}

/// Why a comparison is inconclusive.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Undecided {
    /// A side has one run: a difference, with neither interval nor verdict.
    OneRun,
    /// Even the most extreme ranks of runs this few give a p of
    /// `min_p`, not under the level: no test at these sizes can decide.
    Unreachable {
        /// The smallest two-sided p Mann–Whitney's test reaches at these
        /// sizes, 2 / C(m + n, m).
        min_p: f64,
    },
    /// The estimate is exactly no change: whatever the p, there is no
    /// difference to call significant.
    NoShift,
    /// The interval holds both no change and differences beyond the
    /// threshold (or, without one, no change).
    Wide,
    /// No interval or p could be computed (no spread on either side).
    NoTest,
}

/// A comparison's verdict, why it is inconclusive, and how many more runs
/// a side could decide it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Claim {
    /// The verdict.
    pub verdict: Verdict,
    /// Why it is inconclusive; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undecided: Option<Undecided>,
    /// For an inconclusive comparison, the runs to add to each side that
    /// could decide it: for too few runs, the fewest with which the rank
    /// test can reach the level; for a wide interval, a projection that
    /// keeps the estimate and the spread and narrows the interval as
    /// 1 / √n until it excludes no change or lies within the threshold.
    /// Absent where no count of runs would (an estimate of no change
    /// without a threshold).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more_runs: Option<usize>,
}
