//! Drawing a chart with plotters into SVG text: axes, series, error bars,
//! ideal lines, peaks, bars. Pixel positions of the points are returned so that
//! hover titles can be added afterwards.

use plotters::prelude::*;
use plotters::style::FontFamily;

use super::canvas::{Axis, Chart, DrawResult, FONT, GREY, Hover, SIZE};
use super::data::ChartData;
use super::spec::{ChartSpec, Kind, Scale};
use super::{marks, ticks};

/// Draw `data` as SVG; returns the SVG text and the points to annotate.
pub fn draw(spec: &ChartSpec, data: &ChartData) -> Result<(String, Vec<Hover>), String> {
    let mut svg = String::new();
    let mut hovers = Vec::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        let plot = plot(spec, data, &root, &mut hovers);
        plot.map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok((svg, hovers))
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
/// Draw the chart on `root`: axes and grid, the ideal line, the series, the legend.
fn plot(
    spec: &ChartSpec,
    data: &ChartData,
    root: &Area,
    hovers: &mut Vec<Hover>,
) -> Result<(), Box<dyn std::error::Error>> {
    let categorical = spec.kind == Kind::Relative;
    let xs = ticks::x_values(data);
    let y_scale = if spec.kind == Kind::Line { spec.y_scale } else { Scale::Linear };
    let (x_axis, y_axis) = axes(spec, data, &xs, y_scale);
    let mut builder = ChartBuilder::on(root);
    builder.margin(12).x_label_area_size(52).y_label_area_size(70);
    if let Some(title) = &spec.title {
        builder.caption(title, font(19));
    }
    let mut chart = builder.build_cartesian_2d(x_axis, y_axis)?;
    mesh(&mut chart, spec, data, &xs, y_scale)?;
    let at = |x: f64, y: f64| {
        (if categorical { x } else { spec.x_scale.forward(x) }, y_scale.forward(y))
    };
    if let Some(ideal) = &data.ideal {
        ideal_line(&mut chart, ideal, &at)?;
    }
    if categorical {
        marks::bars(&mut chart, data, &xs, hovers)?;
    } else {
        marks::lines(&mut chart, spec, data, &at, hovers)?;
    }
    chart
        .configure_series_labels()
        .position(legend_position(data, categorical, &at_all(spec, y_scale)))
        .label_font(font(14))
        .background_style(TRANSPARENT)
        .border_style(BLACK.mix(0.3))
        .draw()?;
    Ok(())
}

/// The chart's font at `size` pixels.
fn font(size: u32) -> (FontFamily<'static>, u32) {
    (FontFamily::Name(FONT), size)
}

/// The x and y axes in drawn space, with their ticks: one slot per x value for
/// a bar chart, else ranges covering every point (and the ideal line) on the
/// chart's scales; y starts from zero except on a logarithmic line chart.
fn axes(spec: &ChartSpec, data: &ChartData, xs: &[f64], y_scale: Scale) -> (Axis, Axis) {
    let (x_axis, x_ticks) = if spec.kind == Kind::Relative {
        ticks::categories(xs)
    } else {
        ticks::axis(
            data.series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.x))
                .chain(data.ideal.iter().flatten().map(|p| p.0)),
            spec.x_scale,
            false,
        )
    };
    let include_zero = spec.kind != Kind::Line || !y_scale.is_log();
    let (y_axis, y_ticks) = ticks::axis(ticks::y_values(data), y_scale, include_zero);
    (Axis { range: x_axis, ticks: x_ticks }, Axis { range: y_axis, ticks: y_ticks })
}

/// The axis descriptions, the tick labels (in data units, or a bar chart's x
/// values) and the grid.
fn mesh(
    chart: &mut Chart,
    spec: &ChartSpec,
    data: &ChartData,
    xs: &[f64],
    y_scale: Scale,
) -> DrawResult {
    let categorical = spec.kind == Kind::Relative;
    let x_unit = spec.x_unit.as_deref();
    let x_format = |v: &f64| {
        if categorical {
            ticks::label_category(*v, xs, x_unit)
        } else {
            ticks::label(spec.x_scale.inverse(*v), x_unit)
        }
    };
    let y_format = |v: &f64| ticks::label(y_scale.inverse(*v), None);
    chart
        .configure_mesh()
        .x_desc(data.x_label.as_str())
        .y_desc(data.y_label.as_str())
        .label_style(font(14))
        .axis_desc_style(font(15))
        .x_label_formatter(&x_format)
        .y_label_formatter(&y_format)
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.12))
        .draw()
}

/// The dashed grey line of ideal scaling, with its legend entry.
fn ideal_line(
    chart: &mut Chart,
    ideal: &[(f64, f64)],
    at: &dyn Fn(f64, f64) -> (f64, f64),
) -> DrawResult {
    chart
        .draw_series(DashedLineSeries::new(
            ideal.iter().map(|&(x, y)| at(x, y)),
            6,
            4,
            GREY.stroke_width(2),
        ))?
        .label("ideal scaling")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], GREY.stroke_width(2)));
    Ok(())
}

/// Drawn position of a data point, for every kind of chart.
fn at_all(spec: &ChartSpec, y_scale: Scale) -> impl Fn(f64, f64) -> (f64, f64) + '_ {
    move |x, y| (spec.x_scale.forward(x), y_scale.forward(y))
}

/// The legend goes in the corner with the fewest data points under it.
fn legend_position(
    data: &ChartData,
    categorical: bool,
    at: &dyn Fn(f64, f64) -> (f64, f64),
) -> SeriesLabelPosition {
    if categorical {
        let all_negative = data.series.iter().flat_map(|s| &s.points).all(|p| p.y <= 0.0);
        return if all_negative {
            SeriesLabelPosition::UpperLeft
        } else {
            SeriesLabelPosition::LowerLeft
        };
    }
    let points: Vec<(f64, f64)> = data
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| at(p.x, p.y)))
        .chain(data.ideal.iter().flatten().map(|&(x, y)| at(x, y)))
        .collect();
    let (x0, x1) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y0, y1) = points
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let corners = [
        (SeriesLabelPosition::UpperLeft, false, true),
        (SeriesLabelPosition::UpperRight, true, true),
        (SeriesLabelPosition::LowerRight, true, false),
        (SeriesLabelPosition::LowerLeft, false, false),
    ];
    let under = |right: bool, upper: bool| {
        points
            .iter()
            .filter(|p| {
                let fx = (p.0 - x0) / (x1 - x0).max(1e-12);
                let fy = (p.1 - y0) / (y1 - y0).max(1e-12);
                (if right { fx > 0.6 } else { fx < 0.4 })
                    && (if upper { fy > 0.6 } else { fy < 0.4 })
            })
            .count()
    };
    corners
        .into_iter()
        .min_by_key(|(_, right, upper)| under(*right, *upper))
        .map_or(SeriesLabelPosition::UpperLeft, |c| c.0)
}
