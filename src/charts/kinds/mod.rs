//! The kinds of chart: each is one module behind [`ChartKind`] (its data,
//! axes, drawing, table and description), registered by its arm in
//! [`Kind::chart`] under the name `kind = "..."` gives it ([`Kind`], whose
//! variant and doc comment document it in docs/charts.md).

mod box_plot;
mod history;
mod line;
mod relative;
mod scaling;

use std::collections::BTreeSet;

use super::canvas::{Chart, DrawResult};
use super::legend::Swatch;
use super::numbers::{ChartData, Point, Runs, Series};
use super::source::Source;
use super::spec::{ChartSpec, Kind, Scale};
use super::svg::Svg;
use super::table::DataTable;
use crate::diagnostic::Diagnostic;

impl Kind {
    /// The module that draws this kind: the registry of kinds.
    pub fn chart(self) -> &'static dyn ChartKind {
        match self {
            Kind::Line => &line::Line,
            Kind::Relative => &relative::Relative,
            Kind::Speedup => &scaling::Scaling { efficiency: false },
            Kind::Efficiency => &scaling::Scaling { efficiency: true },
            Kind::BoxPlot => &box_plot::BoxPlot,
            Kind::History => &history::History,
        }
    }
}

/// Where a chart's marks go: the chart's spec and data, its distinct x
/// values and the map from data to drawn coordinates.
pub struct Plot<'a> {
    /// The directive.
    pub spec: &'a ChartSpec,
    /// The numbers drawn.
    pub data: &'a ChartData,
    /// The distinct x values, ascending (the slots of a slotted axis).
    pub xs: &'a [f64],
    /// Data (x, y) to drawn coordinates.
    pub at: &'a dyn Fn(f64, f64) -> (f64, f64),
}

/// What a kind of chart does: its points, axes, marks, table and words.
/// The defaults are those of a chart of points on a continuous x axis
/// (`line`).
pub trait ChartKind: Sync {
    /// The points of every series (by series key), from `runs`; the models
    /// of any interval drawn go into `models`.
    fn series(
        &self,
        spec: &ChartSpec,
        runs: &Runs,
        models: &mut BTreeSet<&'static str>,
    ) -> Result<Vec<(String, Vec<Point>)>, Diagnostic>;

    /// What the kind is drawn from: a table's rows (the default, through
    /// [`ChartKind::series`]) or a series the analysis computed.
    fn source(&self) -> Source {
        Source::Rows
    }

    /// Whether a linear y axis reaches down (or up) to zero.
    fn zero_based(&self) -> bool {
        true
    }

    /// The y axis's name when the directive gives none.
    fn y_label(&self, spec: &ChartSpec) -> String {
        spec.y.clone()
    }

    /// Ideal scaling through `reference`'s points (`ideal = true`), if the
    /// kind has one.
    fn ideal(&self, _reference: &[Point]) -> Option<Vec<(f64, f64)>> {
        None
    }

    /// Whether y is the measured value itself, so that a log y axis
    /// refuses the rows at or below zero by name.
    fn measures_y(&self) -> bool {
        false
    }

    /// Whether `ratio = true` may draw a panel under this kind.
    fn ratio_panel(&self) -> bool {
        false
    }

    /// An error for a directive this kind cannot draw, found when parsing.
    fn check(&self, _spec: &ChartSpec) -> Result<(), Diagnostic> {
        Ok(())
    }

    /// Whether x may be a text column or left out (categories on the x
    /// axis), rather than a numeric column.
    fn text_x(&self) -> bool {
        false
    }

    /// The labels of the categories of a text (or absent) x, by slot: the
    /// points' x values are their indices. `None` for a numeric x.
    fn x_levels(&self, _spec: &ChartSpec, _runs: &Runs) -> Option<Vec<String>> {
        None
    }

    /// Height the kind's own x labels need under the axis beyond one line,
    /// in SVG pixels, when each x value's slot is `slot` pixels wide: the
    /// chart is that much taller.
    fn x_label_room(&self, _data: &ChartData, _slot: f64) -> f64 {
        0.0
    }

    /// Whether the chart has a legend (when it has two series or more).
    fn legend(&self, _spec: &ChartSpec) -> bool {
        true
    }

    /// Whether x values are slots side by side (bars, boxes) rather than
    /// positions on a continuous axis.
    fn slots(&self) -> bool {
        false
    }

    /// The scale of the y axis.
    fn y_scale(&self, spec: &ChartSpec) -> Scale {
        spec.y_scale
    }

    /// Draw every series on `chart`, each in its group of `svg` with its
    /// points' hover targets.
    fn draw(&self, chart: &mut Chart, svg: &Svg, plot: &Plot) -> DrawResult {
        super::marks::lines(chart, svg, plot.spec, plot.data, plot.at)
    }

    /// The legend's swatch of the series of style `style`.
    fn swatch(&self, style: usize) -> Swatch {
        Swatch::Line(style)
    }

    /// The legend's label of `series`.
    fn legend_label(&self, _spec: &ChartSpec, series: &Series) -> String {
        series.label.clone()
    }

    /// The table of the numbers drawn.
    fn table(&self, spec: &ChartSpec, data: &ChartData) -> DataTable {
        DataTable::of(spec, data, "Runs (n)")
    }

    /// What the chart is, in words: "Line chart".
    fn noun(&self) -> &'static str;

    /// The accessible description: what the chart shows, in words.
    fn describe(&self, spec: &ChartSpec, data: &ChartData) -> String {
        super::describe(self.noun(), spec, data)
    }

    /// What the error bars show, and the runs behind each point.
    fn intervals(&self, spec: &ChartSpec, data: &ChartData) -> String {
        super::intervals(spec, data, "95% CI of the mean (Student's t)", None)
    }
}
