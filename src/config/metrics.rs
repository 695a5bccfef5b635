//! `[[metrics]]` of book.toml: the named statistics the study reports.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::Better;
use crate::diagnostic::Location;

/// A named statistic, computed from one results file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Metric {
    /// Identifier used in prose: `{{ stat(name="...") }}`.
    pub name: String,
    /// Short label for cards and tables.
    pub label: String,
    /// Definition in words, shown with the metric in the page and the paper.
    #[serde(default)]
    pub definition: Option<String>,
    /// Results file stem, such as `lammps`.
    pub data: String,
    /// Column (or derived column) whose values are compared.
    pub value: String,
    /// Row filter: `{ procs = 32 }`, a list `{ procs = [2, 4] }`, or a range
    /// `{ procs = { min = 2, max = 32 } }` (inclusive).
    #[serde(default, rename = "where")]
    pub filter: BTreeMap<String, FilterValue>,
    /// `relative` (candidate / baseline − 1), `slowdown` (1 − candidate / baseline),
    /// `ratio` (candidate / baseline) or `summary` (the value in one environment).
    #[serde(default)]
    pub compare: Compare,
    /// Environment compared against the baseline (or summarised); default: the one
    /// environment that is not the baseline.
    #[serde(default)]
    pub candidate: Option<String>,
    /// Compute the comparison per value of this column, then average over them.
    #[serde(default)]
    pub per: Option<String>,
    /// Whether a higher or a lower value of this metric is good news.
    pub better: Better,
    /// Unit of a `summary` metric, such as `timesteps/s`; comparisons are in %.
    #[serde(default)]
    pub unit: Option<String>,
    /// Decimals shown; default 1.
    #[serde(default = "default_decimals")]
    pub decimals: usize,
    /// Show the metric as a summary card on the page.
    #[serde(default)]
    pub headline: bool,
    /// `mean` (ratio of means, Welch's t on the log scale) or `median`
    /// (Hodges–Lehmann ratio, Mann–Whitney U): the estimate, its interval and
    /// its p-value come from this one model. Default `mean`.
    #[serde(default)]
    pub estimator: Estimator,
    /// With `per`: `geometric` (default; the geometric mean of the
    /// per-configuration ratios, Fleming & Wallace) or `arithmetic`.
    #[serde(default)]
    pub average: Average,
    /// With `per`: every run measures all the configurations (as one OSU run
    /// measures every message size), so runs, not configurations, are the
    /// units of the interval. Default false.
    #[serde(default, rename = "within-run")]
    pub within_run: bool,
    /// Where the metric is defined in book.toml (filled in after parsing).
    #[serde(skip)]
    pub location: Option<Location>,
    /// Where each of its values is in book.toml (filled in after parsing).
    #[serde(skip)]
    pub at: super::spans::Locations,
}

fn default_decimals() -> usize {
    1
}

/// How a metric compares environments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Compare {
    /// candidate / baseline − 1, in percent.
    #[default]
    Relative,
    /// 1 − candidate / baseline, in percent.
    Slowdown,
    /// candidate / baseline.
    Ratio,
    /// Mean of the candidate environment alone.
    Summary,
}

/// Which statistic a comparison estimates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Estimator {
    /// The ratio of means.
    #[default]
    Mean,
    /// The Hodges–Lehmann ratio (the median of the pairwise ratios).
    Median,
}

/// How a metric with `per` averages its per-configuration ratios.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Average {
    /// The geometric mean: the same whichever side is the denominator.
    #[default]
    Geometric,
    /// The arithmetic mean of the ratios.
    Arithmetic,
}

/// One condition of a metric's `where` filter.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum FilterValue {
    /// Equal to this number.
    Number(f64),
    /// Equal to this text.
    Text(String),
    /// Equal to any of these.
    AnyOf(Vec<FilterValue>),
    /// Within an inclusive range.
    Range(Range),
}

/// An inclusive numeric range; either end may be open.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Range {
    /// Smallest value kept.
    #[serde(default)]
    pub min: Option<f64>,
    /// Largest value kept.
    #[serde(default)]
    pub max: Option<f64>,
}
