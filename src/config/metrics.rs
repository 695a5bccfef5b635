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
    /// `ratio` (candidate / baseline), `difference` (candidate − baseline, in the
    /// column's unit: for values that may be zero or negative) or `summary` (the
    /// value in one environment). The first three refuse negative values.
    #[serde(default)]
    pub compare: Compare,
    /// The factor compared along: a results column that describes a
    /// configuration (`compressor`, `level`, `nodes`); default: the study's
    /// environment column. The rows of `candidate` are compared with those
    /// of `baseline`, matched on every other column the metric does not fix.
    #[serde(default)]
    pub factor: Option<String>,
    /// The level of `factor` compared against the baseline (or summarised),
    /// such as `"zstd"` or `12`; default: the one environment that is not
    /// the baseline.
    #[serde(default)]
    pub candidate: Option<Level>,
    /// The level of `factor` the candidate is compared with; default: the
    /// study's baseline, when `factor` is the environment column. `"best"`:
    /// the best of the other levels in the selected rows, chosen from the
    /// data by `better` (see docs/factors.md for what that choice means).
    #[serde(default)]
    pub baseline: Option<Level>,
    /// Several candidates, each compared with the baseline: `"*"` (every
    /// other level of `factor` in the selected rows) or a list. Each is a
    /// comparison of its own, `{{ stat(name="...", candidate="...") }}` in
    /// prose, and the family shares Holm's correction.
    #[serde(default)]
    pub candidates: Option<Candidates>,
    /// Compute the comparison per value of this column, then average over them.
    #[serde(default)]
    pub per: Option<String>,
    /// With `per`: one comparison per value of it instead of their average,
    /// `{{ stat(name="...", at="...") }}` in prose; the family shares
    /// Holm's correction. Default false.
    #[serde(default)]
    pub each: bool,
    /// Whether a higher or a lower value of this metric is good news. For a
    /// `slowdown`, `lower` means a smaller slowdown: a higher value of the
    /// measured column (a throughput) is good news.
    pub better: Better,
    /// Unit of a `summary` metric, such as `timesteps/s`; comparisons are in %.
    #[serde(default)]
    pub unit: Option<String>,
    /// Decimals shown; default 1.
    #[serde(default = "default_decimals")]
    pub decimals: usize,
    /// Show the metric as a summary card on the page and a row of the headline
    /// table, Table 1 of the page and the paper.
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
    /// With `per`: whether the average stands for other values of `per`
    /// than these. Default false: the average is of exactly these
    /// configurations (fixed effects), its interval combining each
    /// configuration's own standard error (sqrt(Σ SE_i²) / k, on the log
    /// scale for the geometric mean, Welch–Satterthwaite degrees of
    /// freedom). `true`: they are a sample of the configurations one could
    /// run (random levels), and the interval is Student's t over the k
    /// values with k − 1 degrees of freedom, widened by their spread.
    #[serde(default)]
    pub generalise: bool,
    /// An interaction claim, "does the difference depend on this factor?":
    /// the column named has exactly two levels in the selected rows, and
    /// the metric is the ratio of the candidate's ratio to the baseline at
    /// the second level (in the column's order) to that at the first, with
    /// its 95% CI and p from Welch's t on the log scale (the two log
    /// ratios' standard errors combined, Welch–Satterthwaite degrees of
    /// freedom). 1 (0% with `compare = "relative"`) is "the same
    /// difference at both levels". Not with `per`.
    #[serde(default)]
    pub interaction: Option<String>,
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
    /// candidate − baseline, in the column's unit: for values that may be
    /// zero or negative (offsets, differences), which no ratio compares.
    /// Averaged over `per` arithmetically, whatever `average` says.
    Difference,
    /// Mean of the candidate environment alone.
    Summary,
}

impl Compare {
    /// Which way the measured column is good news for a metric whose
    /// `better` is given: that same way, but the other way round for a
    /// slowdown (1 − candidate / baseline), which rises as the column
    /// falls: `better = "lower"` there is a smaller slowdown.
    pub fn column_better(self, better: Better) -> Better {
        match (self, better) {
            (Compare::Slowdown, Better::Lower) => Better::Higher,
            (Compare::Slowdown, Better::Higher) => Better::Lower,
            (_, better) => better,
        }
    }
}

/// Which statistic a comparison estimates: the name of an estimator in
/// book.toml, each a module of `analysis::statistics::estimators`, which
/// resolves the name (`estimators::of`).
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

/// A level of a factor: a value of its column, text or number.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Level {
    /// A numeric level, such as a compression level or a node count.
    Number(f64),
    /// A named level, such as an environment or a compressor.
    Text(String),
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Level::Number(n) => f.write_str(&crate::format::plain(*n)),
            Level::Text(t) => f.write_str(t),
        }
    }
}

/// The candidates of a metric: every other level (`"*"`) or a list.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Candidates {
    /// These levels, in this order.
    List(Vec<Level>),
    /// `"*"`: every level of the factor but the baseline, in the column's order.
    Every(Level),
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

impl FilterValue {
    /// Whether the condition holds for the number `v` (a text condition
    /// compares `v` in its shortest form).
    pub fn holds_for_number(&self, v: f64) -> bool {
        match self {
            FilterValue::Number(n) => v == *n,
            FilterValue::Text(t) => crate::format::plain(v) == *t,
            FilterValue::AnyOf(options) => options.iter().any(|o| o.holds_for_number(v)),
            FilterValue::Range(Range { min, max }) => {
                min.is_none_or(|m| v >= m) && max.is_none_or(|m| v <= m)
            }
        }
    }

    /// Whether the condition holds for the text `t` (a range never does).
    pub fn holds_for_text(&self, t: &str) -> bool {
        match self {
            FilterValue::Number(n) => t == crate::format::plain(*n),
            FilterValue::Text(x) => t == x,
            FilterValue::AnyOf(options) => options.iter().any(|o| o.holds_for_text(t)),
            FilterValue::Range(_) => false,
        }
    }
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
