//! `kind = "history"`: a study's history across versions (`[history]`),
//! drawn from the analysed series rather than a table's rows: every run a
//! faint point, each version's median on a line broken at versions
//! without runs, each change point a dashed rule where the new level
//! begins over a band between the versions it may lie between, and each
//! version's name and commit subject in its point's tooltip.

use std::collections::BTreeSet;

use plotters::prelude::*;

use super::{ChartKind, Plot, Runs};
use crate::charts::canvas::{Chart, DrawResult, colour};
use crate::charts::numbers::{ChartData, Point, Series, VersionMarks};
use crate::charts::source::Source;
use crate::charts::spec::ChartSpec;
use crate::charts::svg::Svg;
use crate::diagnostic::Diagnostic;
use crate::format;

/// A history chart.
pub struct History;

impl ChartKind for History {
    /// Never called: a history chart is drawn from the analysed history
    /// ([`Source::History`]), not from rows.
    fn series(
        &self,
        _spec: &ChartSpec,
        _runs: &Runs,
        _models: &mut BTreeSet<&'static str>,
    ) -> Result<Vec<(String, Vec<Point>)>, Diagnostic> {
        Ok(Vec::new())
    }

    fn source(&self) -> Source {
        Source::History
    }

    /// No `x` (the versions in order are), `series` (the configurations
    /// are) or `where` (every series is drawn).
    fn check(&self, spec: &ChartSpec) -> Result<(), Diagnostic> {
        let refused = [
            ("x", spec.x.is_some(), "its x axis is the versions in `[history]`'s order"),
            (
                "series",
                spec.series.is_some(),
                "its series are the configurations of `[history] data`",
            ),
            ("where", !spec.filter.is_empty(), "it draws every series of the history"),
        ];
        match refused.into_iter().find(|r| r.1) {
            Some((key, _, why)) => Err(spec.key_error(
                key,
                format!("a history chart takes no `{key}`: {why}"),
                format!("remove `{key}`"),
            )),
            None => Ok(()),
        }
    }

    fn text_x(&self) -> bool {
        true
    }

    fn zero_based(&self) -> bool {
        false
    }

    fn draw(&self, chart: &mut Chart, svg: &Svg, plot: &Plot) -> DrawResult {
        let Some(marks) = &plot.data.versions else { return Ok(()) };
        bands(chart, svg, marks, plot.at)?;
        for series in &plot.data.series {
            svg.open_series(series.style);
            if runs_drawn(plot.data) {
                let runs =
                    series.points.iter().flat_map(|p| p.runs.iter().map(|&r| (plot.at)(p.x, r)));
                let faint = colour(series.style).mix(0.3).filled();
                chart.draw_series(runs.map(|xy| Circle::new(xy, 2, faint)))?;
            }
            for piece in pieces(&series.points) {
                let line: Vec<(f64, f64)> = piece.iter().map(|p| (plot.at)(p.x, p.y)).collect();
                crate::charts::marks::line(chart, svg, series.style, line.clone())?;
                let style = series.style;
                chart.draw_series(
                    line.into_iter().map(|xy| crate::charts::marks::marker(xy, style)),
                )?;
            }
            for p in &series.points {
                let text = hover_text(plot.data, marks, series, p);
                svg.point(chart.backend_coord(&(plot.at)(p.x, p.y)), series.style, &text);
            }
            svg.close();
        }
        Ok(())
    }

    fn noun(&self) -> &'static str {
        "History chart"
    }

    fn describe(&self, _spec: &ChartSpec, data: &ChartData) -> String {
        describe(data)
    }

    fn intervals(&self, spec: &ChartSpec, data: &ChartData) -> String {
        let none = "Points are the medians of each version's runs, without error bars; \
                    the faint points are the runs, and a break in the line a version without runs";
        let mut text = crate::charts::intervals(spec, data, "", Some(none));
        if !runs_drawn(data) {
            text.push_str(&format!(
                " The {} runs are too many to draw (at most {}): the medians alone are drawn.",
                format::count(runs(data)),
                format::count(MAX_RUNS)
            ));
        }
        let changes = data.versions.as_ref().map_or(0, |m| m.changes.len());
        match changes {
            0 => text,
            _ => {
                text + " A dashed rule marks where a change's new level begins, and its band the versions between which it may lie."
            }
        }
    }
}

/// Most runs a history chart draws as faint points: beyond, the SVG would
/// outweigh the page, and the medians alone are drawn.
pub const MAX_RUNS: usize = 5_000;

/// Every run of the chart.
fn runs(data: &ChartData) -> usize {
    data.series.iter().flat_map(|s| &s.points).map(|p| p.runs.len()).sum()
}

/// Whether the runs are drawn: at most [`MAX_RUNS`].
fn runs_drawn(data: &ChartData) -> bool {
    runs(data) <= MAX_RUNS
}

/// Each change's band (between the versions it may lie between, in its
/// series' colour) and its dashed rule, at the boundary where the new
/// level begins; in the group of class `changes`.
fn bands(
    chart: &mut Chart,
    svg: &Svg,
    marks: &VersionMarks,
    at: &dyn Fn(f64, f64) -> (f64, f64),
) -> DrawResult {
    if marks.changes.is_empty() {
        return Ok(());
    }
    let y = chart.y_range();
    let (top, bottom) = (y.end, y.start);
    svg.open(&[("class", "changes")]);
    for c in &marks.changes {
        let x = |place: f64| at(place, 1.0).0;
        let [from, to] = c.between.map(|p| x(p as f64));
        svg.open_titled(&c.text);
        let band = colour(c.style).mix(0.14).filled();
        chart.draw_series(std::iter::once(Rectangle::new([(from, bottom), (to, top)], band)))?;
        let rule = x(c.at as f64 - 0.5);
        svg.open(&[("stroke-dasharray", "5 4")]);
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(rule, bottom), (rule, top)],
            colour(c.style).stroke_width(2),
        )))?;
        svg.close();
        svg.close();
    }
    svg.close();
    Ok(())
}

/// The runs of consecutive versions: the line breaks at a version without runs.
fn pieces(points: &[Point]) -> Vec<&[Point]> {
    let mut pieces = Vec::new();
    let mut start = 0;
    for i in 1..=points.len() {
        if i == points.len() || points[i].x - points[i - 1].x > 1.5 {
            pieces.push(&points[start..i]);
            start = i;
        }
    }
    pieces.retain(|p| !p.is_empty());
    pieces
}

/// A point's tooltip: series, version and commit subject, median and
/// runs, and the change or outlier there.
fn hover_text(data: &ChartData, marks: &VersionMarks, series: &Series, p: &Point) -> String {
    let place = p.x as usize;
    let version = crate::charts::ticks::x_text(data, p.x, None);
    let subject = marks.subjects.get(place).cloned().flatten();
    let subject = subject.map_or(String::new(), |s| format!(" “{s}”"));
    let runs = if p.n == 1 { "1 run".to_string() } else { format!("{} runs", format::count(p.n)) };
    let mut text = format!(
        "{}: {} {version}{subject}: median {} {}, {runs}",
        series.label,
        data.x_label,
        data.y_label,
        format::value(p.y)
    );
    for c in marks.changes.iter().filter(|c| c.style == series.style && c.at == place) {
        text.push_str(&format!(". {}", c.text));
    }
    if marks.outliers.contains(&(series.style, place)) {
        text.push_str(". An outlier, not a change");
    }
    text
}

/// What the chart shows: the versions, each series' range of medians,
/// and its change points.
fn describe(data: &ChartData) -> String {
    let versions = data.x_levels.as_deref().unwrap_or_default();
    let (first, last) = (
        versions.first().cloned().unwrap_or_default(),
        versions.last().cloned().unwrap_or_default(),
    );
    let runs = if runs_drawn(data) { "each run a faint point, " } else { "" };
    let mut text = format!(
        "History chart of {} across {} {}, {first} to {last}: {runs}the median of each version on a line.",
        data.y_label,
        format::count(versions.len()),
        if versions.len() == 1 { "version" } else { "versions" },
    );
    let marks = data.versions.clone().unwrap_or_default();
    for s in &data.series {
        let medians = s.points.iter().map(|p| p.y);
        let (lo, hi) =
            medians.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| (a.min(y), b.max(y)));
        let gaps = versions.len().saturating_sub(s.points.len());
        let gaps = match gaps {
            0 => String::new(),
            1 => ", one version without runs".into(),
            n => format!(", {} versions without runs", format::count(n)),
        };
        if s.points.is_empty() {
            continue;
        }
        text.push_str(&format!(
            " {}: medians from {} to {}{gaps}.",
            s.label,
            format::value(lo),
            format::value(hi)
        ));
        for c in marks.changes.iter().filter(|c| c.style == s.style) {
            text.push_str(&format!(" {}.", c.text));
        }
    }
    text
}
