//! The numbers a chart is drawn from: its points and series, the ratio
//! panel under a line chart, and [`ChartData`], which holds them.

use std::collections::{BTreeMap, BTreeSet};

use crate::analysis::queries::filter::{Grouped, KeyPart};
use crate::analysis::statistics::stats::Summary;
use crate::config::Config;

/// One point of a series: an aggregated group of runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// x value.
    pub x: f64,
    /// y value (for `relative`, in percent).
    pub y: f64,
    /// 95% CI of y, when there is one.
    pub ci: Option<[f64; 2]>,
    /// Runs behind the point (the smaller side for comparisons).
    pub n: usize,
    /// For `relative`: whether the CI excludes zero.
    pub significant: Option<bool>,
    /// The values of the runs, ascending, for a kind that draws them (a
    /// box plot); empty for the others. The y axis shows them all.
    pub runs: Vec<f64>,
}

/// One line or set of bars.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The series value in the data (an environment name).
    pub key: String,
    /// Legend label.
    pub label: String,
    /// Stable style index: the same environment gets the same colour everywhere.
    pub style: usize,
    /// Points in ascending x.
    pub points: Vec<Point>,
}

/// Everything needed to draw a chart.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartData {
    /// The series, in style order (book.toml's order of environments).
    pub series: Vec<Series>,
    /// Ideal scaling, when asked for.
    pub ideal: Option<Vec<(f64, f64)>>,
    /// x axis label with unit.
    pub x_label: String,
    /// y axis label with unit.
    pub y_label: String,
    /// The models of a `relative` chart's intervals, in words (`analysis::statistics::model`).
    pub models: BTreeSet<&'static str>,
    /// The ratio panel under a line chart, when asked for (`ratio = true`).
    pub ratio: Option<RatioPanel>,
    /// The labels of a text (or absent) x, by slot, whose indices the
    /// points' x values are; `None` for a numeric x.
    pub x_levels: Option<Vec<String>>,
    /// Whether the runs were measured: otherwise no point has an interval
    /// or a test, and no bar is drawn as not significant.
    pub measured: bool,
    /// What a chart of a history across versions marks beside its points
    /// (`super::source`); `None` for a chart of a table's rows.
    pub versions: Option<VersionMarks>,
}

/// The marks of a chart of versions: the commits' subjects, the change
/// points with their ranges and the outliers. x values are places in the
/// order of versions, whose names are the chart's `x_levels`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VersionMarks {
    /// Per place in the order, its commit's subject (with git).
    pub subjects: Vec<Option<String>>,
    /// The change points found, series by series.
    pub changes: Vec<ChangeMark>,
    /// The outliers: a series' style and the version's place.
    pub outliers: Vec<(usize, usize)>,
}

/// A change point as a chart marks it.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeMark {
    /// The style of its series.
    pub style: usize,
    /// The place of the first version of the new level.
    pub at: usize,
    /// The last version before the range and the last of the range: the
    /// versions between which the change lies, shaded.
    pub between: [usize; 2],
    /// The change in words.
    pub text: String,
}

/// The panel's numbers: one point per x that both environments have.
#[derive(Debug, Clone, PartialEq)]
pub struct RatioPanel {
    /// What is divided by what: "Kubernetes ÷ Bare metal".
    pub label: String,
    /// The candidate's series key (its environment).
    pub key: String,
    /// Style index of the candidate, whose colour the panel is drawn in.
    pub style: usize,
    /// The model of the ratio and its interval, in words.
    pub model: &'static str,
    /// x, the ratio as y, its CI, the runs of the smaller side.
    pub points: Vec<Point>,
}

/// The summary of `y` per series and x (a series whose every value is empty has no points).
pub(super) type Samples = BTreeMap<String, BTreeMap<KeyPart, Summary>>;

/// The x of a group key: its number (NaN for text).
pub(super) fn x_of(key: &KeyPart) -> f64 {
    match key {
        KeyPart::Number(x) => *x,
        KeyPart::Text(_) => f64::NAN,
    }
}

/// The runs a chart is computed from: per series and x, their summary, and
/// the groups of rows with their values.
pub struct Runs<'a> {
    /// The summary of y per series and x.
    pub summaries: &'a Samples,
    /// The groups of rows, keyed by series then x, with the values of y.
    pub groups: &'a [Grouped],
    /// The study, for the baseline and the environments' labels.
    pub config: &'a Config,
}
