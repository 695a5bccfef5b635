//! The marks of a chart's lines, each series in its group (class `sN`):
//! the line with its markers, error bars and peak ring; each point drawn
//! gets its hover target in the SVG. Legends are drawn apart, above the
//! plot (see `legend`).

use plotters::prelude::*;

use super::canvas::{Chart, DrawResult, colour};
use super::numbers::{ChartData, Point};
use super::spec::ChartSpec;
use super::svg::{Backend, Svg};
use super::ticks;
use crate::format;

/// Draw every series as a line (solid or dashed by style) with its error bars,
/// markers and, if asked, its peak; `at` maps data to drawn coordinates.
pub(super) fn lines(
    chart: &mut Chart,
    svg: &Svg,
    spec: &ChartSpec,
    data: &ChartData,
    at: &dyn Fn(f64, f64) -> (f64, f64),
) -> DrawResult {
    for series in &data.series {
        svg.open_series(series.style);
        let points: Vec<(f64, f64)> = series.points.iter().map(|p| at(p.x, p.y)).collect();
        line(chart, svg, series.style, points.clone())?;
        for p in &series.points {
            if let Some(ci) = p.ci {
                line_error_bar(chart, spec, series.style, p, ci, at)?;
            }
            let text = hover_text(spec, data, &series.label, p);
            svg.point(chart.backend_coord(&at(p.x, p.y)), series.style, &text);
        }
        chart.draw_series(points.iter().map(|&xy| marker(xy, series.style)))?;
        if spec.mark_peak
            && let Some(peak) = series.points.iter().max_by(|a, b| a.y.total_cmp(&b.y))
        {
            let ring = Circle::new(at(peak.x, peak.y), 9, colour(series.style).stroke_width(2));
            chart.draw_series(std::iter::once(ring))?;
        }
        svg.close();
    }
    Ok(())
}

/// The dashes of the lines of odd styles: 7 drawn, 4 left out, in SVG pixels.
pub(super) const DASH: &str = "7 4";

/// Draw the line of style `style` with `draw`: solid for even styles, in a
/// dashed group for odd ones.
pub(super) fn styled_line(
    svg: &Svg,
    style: usize,
    draw: impl FnOnce() -> DrawResult,
) -> DrawResult {
    if style.is_multiple_of(2) {
        return draw();
    }
    svg.open(&[("stroke-dasharray", DASH)]);
    draw()?;
    svg.close();
    Ok(())
}

/// The line through `points` (drawn coordinates): solid for even styles,
/// dashed for odd ones.
pub(super) fn line(
    chart: &mut Chart,
    svg: &Svg,
    style: usize,
    points: Vec<(f64, f64)>,
) -> DrawResult {
    styled_line(svg, style, || {
        chart.draw_series(LineSeries::new(points, colour(style).stroke_width(2)))?;
        Ok(())
    })
}

/// The error bar of `p` from `lo` to `hi`; on a log scale, a lower end at or
/// below zero is cut at the point.
fn line_error_bar(
    chart: &mut Chart,
    spec: &ChartSpec,
    style: usize,
    p: &Point,
    [lo, hi]: [f64; 2],
    at: &dyn Fn(f64, f64) -> (f64, f64),
) -> DrawResult {
    let (x, y) = at(p.x, p.y);
    let lo = if spec.y_scale.is_log() && lo <= 0.0 { y } else { at(p.x, lo).1 };
    chart.draw_series(std::iter::once(ErrorBar::new_vertical(
        x,
        lo,
        y,
        at(p.x, hi).1,
        colour(style).stroke_width(1),
        8,
    )))?;
    Ok(())
}

/// The marker of a line's points: circle, triangle or cross by style.
pub(super) fn marker(xy: (f64, f64), style: usize) -> DynElement<'static, Backend, (f64, f64)> {
    let c = colour(style);
    match style % 3 {
        0 => Circle::new(xy, 4, c.filled()).into_dyn(),
        1 => TriangleMarker::new(xy, 6, c.filled()).into_dyn(),
        _ => Cross::new(xy, 5, c.stroke_width(2)).into_dyn(),
    }
}

/// The same marker at a pixel position of the whole chart (for the legend).
pub(super) fn marker_at<DB: DrawingBackend>(
    x: i32,
    y: i32,
    style: usize,
) -> DynElement<'static, DB, (i32, i32)> {
    let c = colour(style);
    match style % 3 {
        0 => Circle::new((x, y), 4, c.filled()).into_dyn(),
        1 => TriangleMarker::new((x, y), 6, c.filled()).into_dyn(),
        _ => Cross::new((x, y), 5, c.stroke_width(2)).into_dyn(),
    }
}

/// The hover title of a line chart's point: series, x and y with their axis
/// names, interval and runs.
fn hover_text(spec: &ChartSpec, data: &ChartData, label: &str, p: &Point) -> String {
    let x = ticks::label(p.x, spec.x_unit.as_deref());
    let ci =
        p.ci.map(|[lo, hi]| format!(" (95% CI {} to {})", format::value(lo), format::value(hi)))
            .unwrap_or_default();
    format!(
        "{label}: {} {x}, {} {}{ci}, n = {}",
        data.x_label,
        data.y_label,
        format::value(p.y),
        p.n
    )
}
