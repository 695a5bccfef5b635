//! `kind = "relative"`: each candidate against the baseline in %, per x,
//! with the interval of the analysis's model, drawn as bars side by side in
//! each x value's slot: filled where the difference is significant, pale
//! and labelled "n.s." where it is not.

use std::collections::BTreeSet;

use plotters::prelude::*;

use super::{ChartKind, Plot, Runs};
use crate::analysis::statistics::estimators::mean;
use crate::charts::canvas::{Chart, DrawResult, TEXT, colour, font};
use crate::charts::legend::Swatch;
use crate::charts::numbers::{ChartData, Point, Samples, x_of};
use crate::charts::spec::{ChartSpec, Scale};
use crate::charts::svg::{INK, Svg};
use crate::charts::table::DataTable;
use crate::diagnostic::Diagnostic;

/// A chart of the difference from the baseline.
pub struct Relative;

impl ChartKind for Relative {
    fn series(
        &self,
        spec: &ChartSpec,
        runs: &Runs,
        models: &mut BTreeSet<&'static str>,
    ) -> Result<Vec<(String, Vec<Point>)>, Diagnostic> {
        let baseline = &runs.config.study.baseline;
        relative(runs.summaries, baseline, models).map_err(|m| match m {
            None => spec.error(format!("`relative` needs the baseline `{baseline}` in the data"),
                "keep the baseline's rows in `where`".into(),
            ),
            Some(m) => spec.key_error("y", m, "a relative difference divides by the baseline's mean: plot a column whose baseline is not zero, or a `line` chart".into()),
        })
    }

    fn y_label(&self, spec: &ChartSpec) -> String {
        format!("{} vs baseline (%)", spec.y)
    }

    /// Bars cross zero: no logarithmic y axis.
    fn check(&self, spec: &ChartSpec) -> Result<(), Diagnostic> {
        if !spec.y_scale.is_log() {
            return Ok(());
        }
        Err(Diagnostic::new(
            spec.key_location("y-scale"),
            format!(
                "chart `{}`: a `relative` chart's y axis cannot be logarithmic: its bars cross zero",
                spec.id
            ),
        )
        .hint("remove `y-scale`; to see the ratio under the measured values, draw a `line` chart with `ratio = true`"))
    }

    fn slots(&self) -> bool {
        true
    }

    fn y_scale(&self, _spec: &ChartSpec) -> Scale {
        Scale::Linear
    }

    fn draw(&self, chart: &mut Chart, svg: &Svg, plot: &Plot) -> DrawResult {
        bars(chart, svg, plot.data, plot.xs)
    }

    fn swatch(&self, style: usize) -> Swatch {
        Swatch::Bar(style)
    }

    fn table(&self, spec: &ChartSpec, data: &ChartData) -> DataTable {
        DataTable::of(spec, data, "Runs (n, smaller side)")
    }

    fn noun(&self) -> &'static str {
        "Bar chart of the difference from the baseline"
    }

    fn intervals(&self, spec: &ChartSpec, data: &ChartData) -> String {
        let models: Vec<&str> = data.models.iter().copied().collect();
        let what = format!("95% CI of the difference ({})", models.join("; "));
        crate::charts::intervals(spec, data, &what, None)
    }
}

/// Each candidate against the baseline in %, per x, with the CI of
/// [`mean::of_means`];
/// `Err(None)` without the baseline, `Err(Some(message))` where its mean is zero;
/// the models of the intervals go into `models`.
fn relative(
    samples: &Samples,
    baseline: &str,
    models: &mut BTreeSet<&'static str>,
) -> Result<Vec<(String, Vec<Point>)>, Option<String>> {
    let base = samples.get(baseline).ok_or(None)?;
    if let Some(x) = base.iter().find(|(_, b)| b.mean == 0.0).map(|(x, _)| x) {
        return Err(Some(format!(
            "the baseline `{baseline}` has a mean of 0 at x = {x}, and a difference relative to zero is undefined"
        )));
    }
    Ok(samples
        .iter()
        .filter(|(k, _)| *k != baseline)
        .map(|(key, by_x)| {
            let points = by_x
                .iter()
                .filter_map(|(x, c)| {
                    let b = base.get(x)?;
                    // The analysis's model (log-scale Welch for positive means), so the
                    // chart's interval is the one the numbers print and stays above −100%.
                    let e = mean::of_means(c, b);
                    if e.ci.is_some() {
                        models.insert(crate::prose::metric::model_words(e.model));
                    }
                    let ci = e.ci.map(|[lo, hi]| [(lo - 1.0) * 100.0, (hi - 1.0) * 100.0]);
                    Some(Point {
                        x: x_of(x),
                        y: (e.ratio - 1.0) * 100.0,
                        ci,
                        n: c.n.min(b.n),
                        significant: e.significant(),
                        runs: Vec::new(),
                    })
                })
                .collect();
            (key.clone(), points)
        })
        .collect())
}

/// Draw every series as bars side by side in each x value's slot, above or
/// below a zero line.
fn bars(chart: &mut Chart, svg: &Svg, data: &ChartData, xs: &[f64]) -> DrawResult {
    let count = data.series.len().max(1) as f64;
    let width = 0.7 / count;
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(-0.5, 0.0), (xs.len() as f64 - 0.5, 0.0)],
        INK.stroke_width(1),
    )))?;
    for (i, series) in data.series.iter().enumerate() {
        svg.open_series(series.style);
        for p in &series.points {
            let Some(slot) = xs.iter().position(|x| *x == p.x) else { continue };
            let left = slot as f64 - 0.35 + width * i as f64;
            bar(chart, series.style, (p, data.measured), left, width)?;
            let centre = chart.backend_coord(&(left + width / 2.0, p.y));
            svg.point(centre, series.style, &relative_text(&series.label, p));
        }
        svg.close();
    }
    Ok(())
}

/// One bar from zero to `p.y`, `width` wide from `left`: filled if the
/// difference is significant, pale and labelled "n.s." if not, with its
/// interval; of runs that were not `measured`, filled and untested.
fn bar(
    chart: &mut Chart,
    style: usize,
    (p, measured): (&Point, bool),
    left: f64,
    width: f64,
) -> DrawResult {
    let c = colour(style);
    let significant = p.significant.unwrap_or(!measured);
    let fill = if significant { c.filled() } else { c.mix(0.3).filled() };
    chart.draw_series(std::iter::once(Rectangle::new([(left, 0.0), (left + width, p.y)], fill)))?;
    chart.draw_series(std::iter::once(Rectangle::new(
        [(left, 0.0), (left + width, p.y)],
        c.stroke_width(1),
    )))?;
    let centre = left + width / 2.0;
    if let Some([lo, hi]) = p.ci {
        chart.draw_series(std::iter::once(ErrorBar::new_vertical(
            centre,
            lo,
            p.y,
            hi,
            INK.stroke_width(1),
            8,
        )))?;
    }
    if !significant {
        let top = p.ci.map_or(p.y, |[lo, hi]| if p.y >= 0.0 { hi } else { lo });
        let (px, py) = local(chart, (centre, top));
        let dy = if p.y >= 0.0 { -(TEXT as i32) - 4 } else { 4 };
        let style =
            TextStyle::from(font(TEXT).into_font()).pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Center,
                plotters::style::text_anchor::VPos::Top,
            ));
        chart.plotting_area().strip_coord_spec().draw(&Text::new("n.s.", (px, py + dy), style))?;
    }
    Ok(())
}

/// Pixel position of `xy` inside the plotting area (for text drawn on it).
fn local(chart: &Chart, xy: (f64, f64)) -> (i32, i32) {
    let (px, py) = chart.backend_coord(&xy);
    let (bx, by) = chart.plotting_area().get_base_pixel();
    (px - bx, py - by)
}

/// The hover title of a bar: series, x, difference in %, interval, runs and
/// whether the difference is significant.
fn relative_text(label: &str, p: &Point) -> String {
    let ci =
        p.ci.map(|[lo, hi]| {
            format!(
                ", 95% CI {} to {}%",
                crate::format::signed(lo, 1),
                crate::format::signed(hi, 1)
            )
        })
        .unwrap_or_default();
    let sig = if p.significant == Some(false) { "; not statistically significant" } else { "" };
    format!(
        "{label} at {}: {}%{ci}, n = {}{sig}",
        crate::format::plain(p.x),
        crate::format::signed(p.y, 1),
        p.n
    )
}
