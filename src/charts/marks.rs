//! The marks of a chart's series, each series in its group (class `sN`):
//! lines with their markers, error bars and peak rings, or bars with their
//! intervals and "n.s." labels; each point drawn gets its hover target in
//! the SVG. Legends are drawn apart, above the plot (see `legend`).

use plotters::prelude::*;

use super::canvas::{Chart, DrawResult, TEXT, colour, font};
use super::numbers::{ChartData, Point};
use super::spec::ChartSpec;
use super::svg::{Backend, INK, Svg};
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

/// Pixel position of `xy` inside the plotting area (for text drawn on it).
fn local(chart: &Chart, xy: (f64, f64)) -> (i32, i32) {
    let (px, py) = chart.backend_coord(&xy);
    let (bx, by) = chart.plotting_area().get_base_pixel();
    (px - bx, py - by)
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

/// Draw every series as bars side by side in each x value's slot, above or
/// below a zero line.
pub(super) fn bars(chart: &mut Chart, svg: &Svg, data: &ChartData, xs: &[f64]) -> DrawResult {
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
            bar(chart, series.style, p, left, width)?;
            let centre = chart.backend_coord(&(left + width / 2.0, p.y));
            svg.point(centre, series.style, &relative_text(&series.label, p));
        }
        svg.close();
    }
    Ok(())
}

/// One bar from zero to `p.y`, `width` wide from `left`: filled if the
/// difference is significant, pale and labelled "n.s." if not, with its interval.
fn bar(chart: &mut Chart, style: usize, p: &Point, left: f64, width: f64) -> DrawResult {
    let c = colour(style);
    let significant = p.significant.unwrap_or(false);
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
