//! The typed findings a metric carries besides its estimate: the other
//! estimator's value, the run that carries it, the grain of its values.
//! Types only, so that the modules computing them and the metric holding
//! them need not import each other.

use serde::Serialize;

use crate::config::Estimator;

/// The value of a comparison by the estimator a metric did not choose.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alternative {
    /// The estimator.
    pub estimator: Estimator,
    /// The value, as the metric expresses it.
    pub value: f64,
    /// Its interval.
    pub ci: Option<[f64; 2]>,
    /// Its p-value.
    pub p_value: Option<f64>,
    /// Whether its interval excludes no difference.
    pub significant: Option<bool>,
}

/// The run whose removal moves a metric's estimate most.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Influence {
    /// The run, by the file's key (`run = 7`) or its line; absent when the
    /// file has too many rows to search.
    pub run: Option<String>,
    /// The environment of its side.
    pub environment: String,
    /// Its configuration (`size_bytes = 4`, or the metric's rows).
    pub at: String,
    /// Its value.
    pub value: f64,
    /// The median of its side in its configuration (with it).
    pub median: f64,
    /// The metric without it, by the metric's estimator; its verdict is
    /// judged as the metric's own: for a member of a family, by its p after
    /// Holm's correction across the family without the run (`p_holm`).
    pub without: Alternative,
    /// For a member of a family: its p without the run after Holm's
    /// correction across the family, every member's p recomputed without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p_holm: Option<f64>,
    /// The metric by the other estimator, on every run.
    pub other: Option<Alternative>,
    /// Whether removing it changes the verdict (significant or not), each
    /// verdict judged as the metric's own (after Holm's correction within
    /// a family).
    pub changes_verdict: bool,
    /// Whether it carries the metric: removing it changes the verdict, or
    /// moves the estimate by more than `influence::SHARE` (25%) of its distance from no
    /// change and by more than the half-width of the interval the other
    /// runs give. The caveat on the metric names the run only then.
    pub carries: bool,
}

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
    /// The runs of the sample whose grid it is.
    pub runs: usize,
    /// Their distinct values (fewer than `runs`: the values repeat).
    pub distinct: usize,
    /// Whether the step is coarse: at least the half-width of the metric's
    /// interval, or at least `resolution::COARSE_SHARE` (half) of its effect.
    pub coarse: bool,
}
