//! `kind = "box-plot"`: the runs of every configuration (x value), per
//! series, as a box from the first to the third quartile with a line at the
//! median, whiskers at the most extreme runs within 1.5 IQR of the
//! quartiles (Tukey's rule, stated in the caption as Hoefler and Belli's
//! rule 12 asks), and the runs beyond the whiskers as rings. Boxes stand
//! side by side in each x value's slot.

use std::collections::BTreeSet;

use plotters::prelude::*;

use super::{ChartKind, Plot, Runs};
use crate::analysis::queries::filter::KeyPart;
use crate::analysis::statistics::robust::{Selection, quantile};
use crate::charts::canvas::{Chart, DrawResult, colour};
use crate::charts::legend::Swatch;
use crate::charts::numbers::{ChartData, Point, x_of};
use crate::charts::spec::ChartSpec;
use crate::charts::svg::Svg;
use crate::charts::table::{DataTable, Row};
use crate::charts::ticks;
use crate::diagnostic::Diagnostic;
use crate::format;

/// The whisker rule, in words, for the caption and the description.
pub const WHISKERS: &str = "whiskers at the most extreme runs within 1.5 IQR of the quartiles";

/// A box plot of the runs.
pub struct BoxPlot;

/// What a box shows, from the runs behind it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Five {
    /// The lowest run at or above Q1 − 1.5 IQR.
    pub low: f64,
    /// First quartile (linear interpolation, numpy's default).
    pub q1: f64,
    /// Median.
    pub median: f64,
    /// Third quartile.
    pub q3: f64,
    /// The highest run at or below Q3 + 1.5 IQR.
    pub high: f64,
}

impl Five {
    /// The box of `runs` (ascending, not empty).
    pub fn of(runs: &[f64]) -> Option<Five> {
        let n = runs.len();
        let (first, last) = (*runs.first()?, *runs.last()?);
        let mut copy = runs.to_vec();
        let mut sample = Selection::new(&mut copy);
        let [q1, median, q3] = [0.25, 0.5, 0.75].map(|p| quantile(&mut sample, n, p));
        let reach = 1.5 * (q3 - q1);
        let low = runs.iter().copied().find(|&v| v >= q1 - reach).unwrap_or(first);
        let high = runs.iter().rev().copied().find(|&v| v <= q3 + reach).unwrap_or(last);
        Some(Five { low, q1, median, q3, high })
    }

    /// The runs beyond the whiskers.
    pub fn beyond<'r>(&self, runs: &'r [f64]) -> impl Iterator<Item = f64> + 'r {
        let (low, high) = (self.low, self.high);
        runs.iter().copied().filter(move |&v| v < low || v > high)
    }
}

impl ChartKind for BoxPlot {
    /// One point per series and x: the median, with the runs behind it.
    fn series(
        &self,
        _spec: &ChartSpec,
        runs: &Runs,
        _models: &mut BTreeSet<&'static str>,
    ) -> Result<Vec<(String, Vec<Point>)>, Diagnostic> {
        let mut series: Vec<(String, Vec<Point>)> = Vec::new();
        for key in runs.summaries.keys() {
            let groups = runs.groups.iter().filter(|g| g.key[0].to_string() == *key);
            let mut points: Vec<Point> =
                groups.filter_map(|g| point(&g.key[1], &g.samples[0])).collect();
            points.sort_by(|a, b| a.x.total_cmp(&b.x));
            series.push((key.clone(), points));
        }
        Ok(series)
    }

    fn measures_y(&self) -> bool {
        true
    }

    fn slots(&self) -> bool {
        true
    }

    fn draw(&self, chart: &mut Chart, svg: &Svg, plot: &Plot) -> DrawResult {
        let width = 0.7 / plot.data.series.len().max(1) as f64;
        for (i, series) in plot.data.series.iter().enumerate() {
            svg.open_series(series.style);
            for p in &series.points {
                let Some(slot) = plot.xs.iter().position(|x| *x == p.x) else { continue };
                let Some(five) = Five::of(&p.runs) else { continue };
                let left = slot as f64 - 0.35 + width * i as f64;
                draw_box(chart, plot, series.style, p, &five, [left, left + width])?;
                let centre = chart.backend_coord(&(plot.at)(left + width / 2.0, p.y));
                svg.point(centre, series.style, &hover_text(plot.spec, &series.label, p, &five));
            }
            svg.close();
        }
        Ok(())
    }

    fn swatch(&self, style: usize) -> Swatch {
        Swatch::Bar(style)
    }

    /// Per box: the whiskers' ends, the quartiles, the median, the runs
    /// beyond the whiskers and all the runs.
    fn table(&self, spec: &ChartSpec, data: &ChartData) -> DataTable {
        let mut table = DataTable::of(spec, data, "Runs (n)");
        let y = &data.y_label;
        let columns =
            ["lower whisker", "Q1", "median", "Q3", "upper whisker"].map(|c| format!("{y}, {c}"));
        table.header.splice(2..3, columns);
        table.header.insert(7, "Runs beyond the whiskers".into());
        table.rows = data
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(move |p| (s, p)))
            .filter_map(|(s, p)| {
                let f = Five::of(&p.runs)?;
                let beyond = f.beyond(&p.runs).count() as f64;
                let values = [p.x, f.low, f.q1, f.median, f.q3, f.high, beyond, p.n as f64];
                Some(Row { series: s.label.clone(), values: values.map(Some).to_vec() })
            })
            .collect();
        table
    }

    fn noun(&self) -> &'static str {
        "Box plot"
    }

    fn describe(&self, spec: &ChartSpec, data: &ChartData) -> String {
        let medians = crate::charts::describe("Box plot", spec, data);
        format!("{medians} Boxes span the quartiles, with a line at the median; {WHISKERS}.")
    }

    fn intervals(&self, _spec: &ChartSpec, data: &ChartData) -> String {
        let counts = data.series.iter().flat_map(|s| &s.points).map(|p| p.n);
        let (lo, hi) = counts.fold((usize::MAX, 0), |(a, b), n| (a.min(n), b.max(n)));
        let runs = if lo == hi { format!("{lo}") } else { format!("{lo} to {hi}") };
        format!(
            "Boxes from the first to the third quartile of the runs, a line at the median; \
             {WHISKERS}, the runs beyond them as rings; {runs} runs per box."
        )
    }
}

/// The point of the runs `values` at `x`, or none without runs.
fn point(x: &KeyPart, values: &[f64]) -> Option<Point> {
    let mut runs = values.to_vec();
    runs.sort_by(f64::total_cmp);
    let median = Five::of(&runs)?.median;
    Some(Point { x: x_of(x), y: median, ci: None, n: runs.len(), significant: None, runs })
}

/// The box of `p` between `left` and `right` (slot coordinates): its
/// quartiles, median, whiskers with their caps, and the runs beyond.
fn draw_box(
    chart: &mut Chart,
    plot: &Plot,
    style: usize,
    p: &Point,
    five: &Five,
    [left, right]: [f64; 2],
) -> DrawResult {
    let c = colour(style);
    let at = |x: f64, y: f64| (plot.at)(x, y);
    let mid = (left + right) / 2.0;
    let (cap_l, cap_r) = (mid - (right - left) / 4.0, mid + (right - left) / 4.0);
    let box_corners = [at(left, five.q1), at(right, five.q3)];
    chart.draw_series(std::iter::once(Rectangle::new(box_corners, c.mix(0.3).filled())))?;
    chart.draw_series(std::iter::once(Rectangle::new(box_corners, c.stroke_width(1))))?;
    let lines = [
        vec![at(left, five.median), at(right, five.median)],
        vec![at(mid, five.q3), at(mid, five.high)],
        vec![at(mid, five.q1), at(mid, five.low)],
        vec![at(cap_l, five.high), at(cap_r, five.high)],
        vec![at(cap_l, five.low), at(cap_r, five.low)],
    ];
    for (i, line) in lines.into_iter().enumerate() {
        let width = if i == 0 { 3 } else { 1 };
        chart.draw_series(std::iter::once(PathElement::new(line, c.stroke_width(width))))?;
    }
    let rings = five.beyond(&p.runs).map(|v| Circle::new(at(mid, v), 3, c.stroke_width(1)));
    chart.draw_series(rings)?;
    Ok(())
}

/// The hover title of a box: series, x, median, quartiles, whiskers, runs
/// and how many lie beyond the whiskers.
fn hover_text(spec: &ChartSpec, label: &str, p: &Point, f: &Five) -> String {
    let x = ticks::label(p.x, spec.x_unit.as_deref());
    let v = |v: f64| format::minus(&format::value(v));
    let beyond = match f.beyond(&p.runs).count() {
        0 => String::new(),
        1 => ", 1 run beyond the whiskers".to_string(),
        k => format!(", {k} runs beyond the whiskers"),
    };
    format!(
        "{label} at {x}: median {}, quartiles {} to {}, whiskers {} to {}, n = {}{beyond}",
        v(f.median),
        v(f.q1),
        v(f.q3),
        v(f.low),
        v(f.high),
        p.n
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// numpy 2's `np.percentile(runs, [25, 50, 75])` (linear, its
    /// default), and Tukey's whiskers by hand.
    #[test]
    fn quartiles_and_whiskers_by_hand() {
        // 1..=9 and 40: Q1 = 1 + 0.25·9 = 3.25, median 5.5, Q3 = 7.75;
        // IQR 4.5, reach 6.75: up to 14.5, so the whisker stops at 9 and
        // 40 lies beyond; down to −3.5, so the whisker is at 1.
        let runs = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 40.0];
        let f = Five::of(&runs).unwrap();
        assert_eq!(f, Five { low: 1.0, q1: 3.25, median: 5.5, q3: 7.75, high: 9.0 });
        assert_eq!(f.beyond(&runs).collect::<Vec<_>>(), [40.0]);
        // One run: everything is that run.
        let one = Five::of(&[2.5]).unwrap();
        assert_eq!(one, Five { low: 2.5, q1: 2.5, median: 2.5, q3: 2.5, high: 2.5 });
        assert!(Five::of(&[]).is_none());
    }
}
