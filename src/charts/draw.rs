//! Drawing a chart with plotters into its SVG document: axes, series, error
//! bars, ideal lines, peaks, bars, and the legend above the plot.

use plotters::prelude::*;

use super::canvas::{self, Area, Axis, Chart, DrawResult, GREY, IDEAL_DASH, MARGIN, TEXT, font};
use super::kinds::Plot;
use super::numbers::ChartData;
use super::spec::{ChartSpec, Scale};
use super::svg::{Labels, Svg};
use super::ticks::{axes, y_label_area};
use super::{legend, ratio, ticks};

/// Draw `data` as the SVG document named and described by `labels`. The
/// legend ends the drawing in a `<g class="legend">`, so that the page (and
/// its tests) can tell it from the data.
pub fn draw(spec: &ChartSpec, data: &ChartData, labels: Labels) -> Result<String, String> {
    let y_area = main_y_area(spec, data);
    // The slot of each x value, and the room the kind's own x labels need.
    let width = canvas::SIZE.0.saturating_sub(2 * MARGIN + 8 + y_area);
    let slot = f64::from(width) / ticks::x_values(data).len().max(1) as f64;
    let below = spec.kind.chart().x_label_room(data, slot).max(0.0) as u32;
    let (w, h) = canvas::size(data);
    let svg = Svg::new((w, h + below));
    let entries = legend::layout(spec, data);
    {
        let root = svg.backend().into_drawing_area();
        match &data.ratio {
            None => {
                let frame = Frame { y_area, x_labels: TEXT * 3.2 + f64::from(below) };
                plot(spec, data, &entries, &root, frame, &svg)
            }
            Some(ratio) => {
                // The plot and the panel share the x axis: the same left edge, the
                // panel carrying the x ticks' labels and the axis name.
                let y_area = main_y_area(spec, data).max(ratio::y_area(ratio));
                let (top, bottom) = root.split_vertically(canvas::MAIN_HEIGHT);
                plot(spec, data, &entries, &top, Frame { y_area, x_labels: 0.0 }, &svg)
                    .and_then(|()| ratio::plot(spec, data, ratio, &bottom, y_area, &svg))
            }
        }
        .map_err(|e| e.to_string())?;
        legend::draw(&root, &svg, &entries).map_err(|e| e.to_string())?;
    }
    Ok(svg.finish(labels))
}

/// The room the plot leaves around its data: the width of the y axis's labels,
/// and the height of the x axis's (none above a ratio panel), in SVG pixels.
#[derive(Debug, Clone, Copy)]
struct Frame {
    y_area: u32,
    x_labels: f64,
}

/// The room the main plot's y labels and axis name need.
fn main_y_area(spec: &ChartSpec, data: &ChartData) -> u32 {
    let y_scale = spec.kind.chart().y_scale(spec);
    let (_, y_axis) = axes(spec, data, &ticks::x_values(data), y_scale);
    y_label_area(&y_axis, y_scale)
}

/// Draw the chart on `root`, leaving room above for the legend `entries`:
/// axes and grid, the ideal line, the series.
fn plot(
    spec: &ChartSpec,
    data: &ChartData,
    entries: &[legend::Entry],
    root: &Area,
    frame: Frame,
    svg: &Svg,
) -> Result<(), Box<dyn std::error::Error>> {
    let kind = spec.kind.chart();
    let slots = kind.slots();
    let xs = ticks::x_values(data);
    let y_scale = kind.y_scale(spec);
    let (x_axis, y_axis) = axes(spec, data, &xs, y_scale);
    let mut builder = ChartBuilder::on(root);
    builder
        .margin(MARGIN)
        .margin_right(MARGIN + 8)
        .x_label_area_size(frame.x_labels as u32)
        .y_label_area_size(frame.y_area);
    if let Some(title) = &spec.title {
        builder.caption(title, font(TEXT * 1.15));
    }
    let top = legend::height(entries);
    if top > 0 {
        builder.margin_top(MARGIN + top + 6);
    }
    let mut chart = builder.build_cartesian_2d(x_axis.clone(), y_axis.clone())?;
    mesh(&mut chart, svg, spec, data, &xs, y_scale)?;
    let at = |x: f64, y: f64| (if slots { x } else { spec.x_scale.forward(x) }, y_scale.forward(y));
    if let Some(ideal) = &data.ideal {
        ideal_line(&mut chart, svg, ideal, &at, &x_axis, &y_axis)?;
    }
    kind.draw(&mut chart, svg, &Plot { spec, data, xs: &xs, at: &at })?;
    Ok(())
}

/// The axis descriptions, the tick labels (in data units, or a bar chart's x
/// values) and the grid.
fn mesh(
    chart: &mut Chart,
    svg: &Svg,
    spec: &ChartSpec,
    data: &ChartData,
    xs: &[f64],
    y_scale: Scale,
) -> DrawResult {
    let slots = spec.kind.chart().slots();
    let x_unit = spec.x_unit.as_deref();
    let x_format = |v: &f64| {
        if slots {
            ticks::label_category(*v, xs, data, x_unit)
        } else if data.x_levels.is_some() {
            ticks::x_text(data, *v, None)
        } else {
            ticks::label(spec.x_scale.inverse(*v), x_unit)
        }
    };
    let y_format = |v: &f64| ticks::label(y_scale.inverse(*v), None);
    canvas::mesh(chart, svg, [&data.x_label, &data.y_label], &x_format, &y_format)
}

/// The dashed grey line of ideal scaling, clipped to the axes' ranges, in a
/// group of class `ideal`.
fn ideal_line(
    chart: &mut Chart,
    svg: &Svg,
    ideal: &[(f64, f64)],
    at: &dyn Fn(f64, f64) -> (f64, f64),
    x: &Axis,
    y: &Axis,
) -> DrawResult {
    let drawn: Vec<(f64, f64)> = ideal.iter().map(|&(px, py)| at(px, py)).collect();
    svg.open(&[("class", "ideal"), ("stroke-dasharray", IDEAL_DASH)]);
    for piece in clip(&drawn, &x.range, &y.range) {
        chart.draw_series(LineSeries::new(piece, GREY.stroke_width(2)))?;
    }
    svg.close();
    Ok(())
}

/// The parts of the polyline `points` inside the box `xr` × `yr`: each segment
/// cut where it crosses the box's edges (Liang–Barsky).
pub fn clip(
    points: &[(f64, f64)],
    xr: &std::ops::Range<f64>,
    yr: &std::ops::Range<f64>,
) -> Vec<Vec<(f64, f64)>> {
    let mut pieces: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut open = false;
    for pair in points.windows(2) {
        let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
        let (dx, dy) = (x1 - x0, y1 - y0);
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        let edges =
            [(-dx, x0 - xr.start), (dx, xr.end - x0), (-dy, y0 - yr.start), (dy, yr.end - y0)];
        let inside = edges.iter().all(|&(p, q)| {
            if p == 0.0 {
                return q >= 0.0;
            }
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t)
            } else {
                t1 = t1.min(t)
            }
            t0 <= t1
        });
        if !inside {
            open = false;
            continue;
        }
        let a = (x0 + t0 * dx, y0 + t0 * dy);
        let b = (x0 + t1 * dx, y0 + t1 * dy);
        if !open || t0 > 0.0 {
            pieces.push(vec![a]);
        }
        if let Some(piece) = pieces.last_mut() {
            piece.push(b);
        }
        open = t1 >= 1.0;
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::numbers::{Point, Series};
    use crate::math;

    #[test]
    fn an_ideal_line_does_not_set_the_y_range() {
        let at = crate::diagnostic::Location::new("c.md", 1, 1);
        let spec = crate::charts::spec::parse(
            "id = \"e\"\nkind = \"speedup\"\ndata = \"d\"\nx = \"p\"\ny = \"r\"\nideal = true\n",
            &at,
        )
        .unwrap();
        let point =
            |x: f64, y: f64| Point { x, y, ci: None, n: 3, significant: None, runs: Vec::new() };
        let data = ChartData {
            series: vec![Series {
                key: "a".into(),
                label: "A".into(),
                style: 0,
                points: vec![point(1.0, 1.0), point(32.0, 1.8)],
            }],
            // Ideal speedup reaches 32, the data 1.8: the axis stops at 2.
            ideal: Some(vec![(1.0, 1.0), (32.0, 32.0)]),
            x_label: "p".into(),
            y_label: "speedup".into(),
            ratio: None,
            models: Default::default(),
            x_levels: None,
            measured: true,
            versions: None,
        };
        let (_, y) = axes(&spec, &data, &[1.0, 32.0], Scale::Linear);
        assert_eq!(y.range, 0.0..2.0);
    }

    #[test]
    fn a_speedup_chart_can_be_log_log() {
        let at = crate::diagnostic::Location::new("c.md", 1, 1);
        let body = "id = \"e\"\nkind = \"speedup\"\ndata = \"d\"\nx = \"p\"\ny = \"r\"\n\
                    x-scale = \"log2\"\ny-scale = \"log10\"\nideal = true\n";
        let spec = crate::charts::spec::parse(body, &at).unwrap();
        let point =
            |x: f64, y: f64| Point { x, y, ci: None, n: 3, significant: None, runs: Vec::new() };
        let data = ChartData {
            series: vec![Series {
                key: "a".into(),
                label: "A".into(),
                style: 0,
                points: vec![point(1.0, 1.0), point(4.0, 3.0), point(16.0, 9.0)],
            }],
            ideal: Some(vec![(1.0, 1.0), (4.0, 4.0), (16.0, 16.0)]),
            x_label: "p".into(),
            y_label: "speedup".into(),
            ratio: None,
            models: Default::default(),
            x_levels: None,
            measured: true,
            versions: None,
        };
        // Drawn in log10 space: speedups 1 to 9 are 0 to 0.95, and zero is
        // not forced in (it would be minus infinity).
        let (_, y) = axes(&spec, &data, &[1.0, 4.0, 16.0], Scale::Log10);
        assert!(y.range.start <= 0.0 && y.range.start > -0.5, "{:?}", y.range);
        assert!(y.range.end >= math::log10(9.0) && y.range.end <= 1.0, "{:?}", y.range);
        // The ideal line y = p is straight on log-log and is cut where it leaves the axis.
        let drawn: Vec<(f64, f64)> = [(1.0, 1.0), (4.0, 4.0), (16.0, 16.0)]
            .iter()
            .map(|&(x, v): &(f64, f64)| (math::log2(x), math::log10(v)))
            .collect();
        let pieces = clip(&drawn, &(0.0..4.0), &y.range);
        let end = pieces[0].last().unwrap();
        assert!((end.1 - y.range.end).abs() < 1e-9 && end.0 < 4.0, "{pieces:?}");
    }

    #[test]
    fn ideal_lines_are_cut_at_the_box() {
        // y = 2x from x = 0 to 3 in the box [0, 3] x [0, 4]: cut at (2, 4).
        let pieces = clip(&[(0.0, 0.0), (1.0, 2.0), (3.0, 6.0)], &(0.0..3.0), &(0.0..4.0));
        assert_eq!(pieces, vec![vec![(0.0, 0.0), (1.0, 2.0), (2.0, 4.0)]]);
        // Entirely above the box: nothing.
        assert!(clip(&[(0.0, 5.0), (1.0, 6.0)], &(0.0..3.0), &(0.0..4.0)).is_empty());
        // Leaves and comes back: two pieces.
        let pieces = clip(&[(0.0, 1.0), (1.0, 5.0), (2.0, 1.0)], &(0.0..3.0), &(0.0..4.0));
        assert_eq!(pieces, vec![vec![(0.0, 1.0), (0.75, 4.0)], vec![(1.25, 4.0), (2.0, 1.0)]]);
    }
}
