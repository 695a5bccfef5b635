//! Drawing the ratio panel under a line chart: its own linear y axis (the
//! data, the intervals and the reference line at 1), the chart's x axis
//! with its labels, the ratio in the candidate's colour and marker with its
//! error bars, and a hover title per point. No ideal line, no peak.

use plotters::prelude::*;

use super::canvas::{Area, Axis, Chart, DrawResult, MARGIN, TEXT, colour, font};
use super::numbers::{ChartData, Point, RatioPanel};
use super::spec::{ChartSpec, Scale};
use super::svg::{INK, Svg};
use super::ticks::{axes, y_label_area};
use super::{marks, ticks};
use crate::format;

/// Name of the panel's y axis.
const Y_LABEL: &str = "ratio (×)";

/// The panel's y axis: every ratio and interval end, and 1.
fn y_axis(panel: &RatioPanel) -> Axis {
    let ends = |p: &Point| [Some(p.y), p.ci.map(|c| c[0]), p.ci.map(|c| c[1])];
    let values = panel.points.iter().flat_map(ends).flatten().chain([1.0]);
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    let (range, ticks) = ticks::linear_axis(lo, hi, 2.0);
    Axis { range, ticks }
}

/// The room the panel's y labels and axis name need.
pub(super) fn y_area(panel: &RatioPanel) -> u32 {
    y_label_area(&y_axis(panel), Scale::Linear)
}

/// Draw `panel` on `area`, on the x axis of `data`'s plot, its y labels in
/// `y_area` pixels (the plot's, so that both start at the same x).
pub(super) fn plot(
    spec: &ChartSpec,
    data: &ChartData,
    panel: &RatioPanel,
    area: &Area,
    y_area: u32,
    svg: &Svg,
) -> Result<(), Box<dyn std::error::Error>> {
    let (x_axis, _) = axes(spec, data, &ticks::x_values(data), Scale::Linear);
    let y = y_axis(panel);
    let mut builder = ChartBuilder::on(area);
    builder
        .margin(MARGIN)
        .margin_top(2)
        .margin_right(MARGIN + 8)
        .x_label_area_size((TEXT * 3.2) as u32)
        .y_label_area_size(y_area)
        .caption(&panel.label, font(TEXT));
    let mut chart = builder.build_cartesian_2d(x_axis.clone(), y)?;
    mesh(&mut chart, svg, spec, data)?;
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(x_axis.range.start, 1.0), (x_axis.range.end, 1.0)],
        INK.stroke_width(1),
    )))?;
    let at = |p: &Point| (spec.x_scale.forward(p.x), p.y);
    svg.open_series(panel.style);
    marks::line(&mut chart, svg, panel.style, panel.points.iter().map(at).collect())?;
    for p in &panel.points {
        if let Some([lo, hi]) = p.ci {
            let (x, y) = at(p);
            let stroke = colour(panel.style).stroke_width(1);
            chart.draw_series(std::iter::once(ErrorBar::new_vertical(x, lo, y, hi, stroke, 8)))?;
        }
        svg.point(chart.backend_coord(&at(p)), panel.style, &hover_text(spec, data, panel, p));
    }
    chart.draw_series(panel.points.iter().map(|p| marks::marker(at(p), panel.style)))?;
    svg.close();
    Ok(())
}

/// The panel's axes: the chart's x labels and name, the ratio's ticks.
fn mesh(chart: &mut Chart, svg: &Svg, spec: &ChartSpec, data: &ChartData) -> DrawResult {
    let x_unit = spec.x_unit.as_deref();
    let x_format = |v: &f64| ticks::label(spec.x_scale.inverse(*v), x_unit);
    let y_format = |v: &f64| ticks::value(*v);
    super::canvas::mesh(chart, svg, [&data.x_label, Y_LABEL], &x_format, &y_format)
}

/// The hover title of a ratio: what is divided, x with its axis name, the
/// ratio (and as a difference in %), its interval and the runs.
pub(super) fn hover_text(
    spec: &ChartSpec,
    data: &ChartData,
    panel: &RatioPanel,
    p: &Point,
) -> String {
    let x = ticks::label(p.x, spec.x_unit.as_deref());
    let number = format::value;
    let ci =
        p.ci.map(|[lo, hi]| format!(", 95% CI {} to {}", number(lo), number(hi)))
            .unwrap_or_default();
    let difference = format::minus(&format::signed_percent(p.y - 1.0, 1));
    format!(
        "{}: {} {x}, ratio {} ({difference}){ci}, n = {}",
        panel.label,
        data.x_label,
        number(p.y),
        p.n
    )
}
