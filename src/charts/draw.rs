//! Drawing a chart with plotters into SVG text: axes, series, error bars,
//! ideal lines, peaks, bars. Pixel positions of the points are returned so that
//! hover titles can be added afterwards.

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::prelude::*;
use plotters::style::FontFamily;

use super::data::{ChartData, Point};
use super::spec::{ChartSpec, Kind, Scale};
use super::ticks;

/// Width and height of every chart, in SVG pixels.
pub const SIZE: (u32, u32) = (640, 400);

/// The font stack of chart text: a family the PDF embeds, then a generic one.
pub const FONT: &str = "Libertinus Serif, serif";

/// Okabe–Ito colours, safe for colour-blind readers, by style index.
pub const PALETTE: [RGBColor; 6] = [
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x56, 0xB4, 0xE9),
];

const GREY: RGBColor = RGBColor(0x80, 0x80, 0x80);

/// A point drawn, for its hover title: pixel position and text.
#[derive(Debug, Clone, PartialEq)]
pub struct Hover {
    /// Pixel x.
    pub px: i32,
    /// Pixel y.
    pub py: i32,
    /// What the point shows.
    pub text: String,
    /// Style index of the point's series.
    pub style: usize,
}

/// Colour of a style index.
pub fn colour(style: usize) -> RGBColor {
    PALETTE[style % PALETTE.len()]
}

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
type DrawResult = Result<(), DrawingAreaErrorKind<std::io::Error>>;

fn plot(
    spec: &ChartSpec,
    data: &ChartData,
    root: &Area,
    hovers: &mut Vec<Hover>,
) -> Result<(), Box<dyn std::error::Error>> {
    let font = |size: u32| (FontFamily::Name(FONT), size);
    let categorical = spec.kind == Kind::Relative;
    let xs = ticks::x_values(data);
    let (x_axis, x_ticks) = if categorical {
        ticks::categories(&xs)
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
    let y_scale = if spec.kind == Kind::Line { spec.y_scale } else { Scale::Linear };
    let include_zero = spec.kind != Kind::Line || !y_scale.is_log();
    let (y_axis, y_ticks) = ticks::axis(ticks::y_values(data), y_scale, include_zero);
    let mut builder = ChartBuilder::on(root);
    builder.margin(12).x_label_area_size(52).y_label_area_size(70);
    if let Some(title) = &spec.title {
        builder.caption(title, font(19));
    }
    let mut chart = builder.build_cartesian_2d(
        Axis { range: x_axis, ticks: x_ticks },
        Axis { range: y_axis, ticks: y_ticks },
    )?;
    let x_unit = spec.x_unit.clone();
    let categories = xs.clone();
    let x_format = move |v: &f64| {
        if categorical {
            ticks::label_category(*v, &categories, x_unit.as_deref())
        } else {
            ticks::label(spec.x_scale.inverse(*v), x_unit.as_deref())
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
        .draw()?;
    let at = |x: f64, y: f64| {
        (if categorical { x } else { spec.x_scale.forward(x) }, y_scale.forward(y))
    };
    if let Some(ideal) = &data.ideal {
        chart
            .draw_series(DashedLineSeries::new(
                ideal.iter().map(|&(x, y)| at(x, y)),
                6,
                4,
                GREY.stroke_width(2),
            ))?
            .label("ideal scaling")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], GREY.stroke_width(2)));
    }
    if categorical {
        bars(&mut chart, data, &xs, hovers)?;
    } else {
        lines(&mut chart, spec, data, &at, hovers)?;
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

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Axis, Axis>>;

/// A linear axis in drawn space with exactly the ticks we chose.
#[derive(Debug, Clone)]
pub struct Axis {
    range: std::ops::Range<f64>,
    ticks: Vec<f64>,
}

impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let fraction = (value - self.range.start) / (self.range.end - self.range.start);
        limit.0 + (fraction * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, _hint: Hint) -> Vec<f64> {
        self.ticks.clone()
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.range.clone()
    }
}

fn lines(
    chart: &mut Chart,
    spec: &ChartSpec,
    data: &ChartData,
    at: &dyn Fn(f64, f64) -> (f64, f64),
    hovers: &mut Vec<Hover>,
) -> DrawResult {
    for series in &data.series {
        let c = colour(series.style);
        let style = c.stroke_width(2);
        let points: Vec<(f64, f64)> = series.points.iter().map(|p| at(p.x, p.y)).collect();
        let legend = move |(x, y): (i32, i32)| {
            PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
        };
        if series.style % 2 == 0 {
            chart
                .draw_series(LineSeries::new(points.clone(), style))?
                .label(series.label.clone())
                .legend(legend);
        } else {
            chart
                .draw_series(DashedLineSeries::new(points.clone(), 10, 5, style))?
                .label(series.label.clone())
                .legend(legend);
        }
        for p in &series.points {
            if let Some([lo, hi]) = p.ci {
                let (x, y) = at(p.x, p.y);
                let lo = if spec.y_scale.is_log() && lo <= 0.0 { y } else { at(p.x, lo).1 };
                chart.draw_series(std::iter::once(ErrorBar::new_vertical(
                    x,
                    lo,
                    y,
                    at(p.x, hi).1,
                    c.stroke_width(1),
                    8,
                )))?;
            }
            let xy = at(p.x, p.y);
            hovers.push(Hover {
                px: chart.backend_coord(&xy).0,
                py: chart.backend_coord(&xy).1,
                text: hover_text(spec, &series.label, p),
                style: series.style,
            });
        }
        chart.draw_series(points.iter().map(|&xy| marker(xy, series.style)))?;
        if spec.mark_peak
            && let Some(peak) = series.points.iter().max_by(|a, b| a.y.total_cmp(&b.y))
        {
            let xy = at(peak.x, peak.y);
            chart.draw_series(std::iter::once(Circle::new(xy, 9, c.stroke_width(2))))?;
            let text = format!("peak {}", ticks::label(peak.x, spec.x_unit.as_deref()));
            let (px, py) = local(chart, xy);
            let offset = if series.style % 2 == 0 { -22 } else { 8 };
            chart.plotting_area().strip_coord_spec().draw(&Text::new(
                text,
                (px + 12, py + offset),
                (FontFamily::Name(FONT), 13).into_font().color(&c),
            ))?;
        }
    }
    Ok(())
}

/// Pixel position of `xy` inside the plotting area (for text drawn on it).
fn local(chart: &Chart, xy: (f64, f64)) -> (i32, i32) {
    let (px, py) = chart.backend_coord(&xy);
    let (bx, by) = chart.plotting_area().get_base_pixel();
    (px - bx, py - by)
}

fn marker<'b>(xy: (f64, f64), style: usize) -> DynElement<'static, SVGBackend<'b>, (f64, f64)> {
    let c = colour(style);
    match style % 3 {
        0 => Circle::new(xy, 4, c.filled()).into_dyn(),
        1 => TriangleMarker::new(xy, 6, c.filled()).into_dyn(),
        _ => Cross::new(xy, 5, c.stroke_width(2)).into_dyn(),
    }
}

fn bars(chart: &mut Chart, data: &ChartData, xs: &[f64], hovers: &mut Vec<Hover>) -> DrawResult {
    let count = data.series.len().max(1) as f64;
    let width = 0.7 / count;
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(-0.5, 0.0), (xs.len() as f64 - 0.5, 0.0)],
        BLACK.stroke_width(1),
    )))?;
    for (i, series) in data.series.iter().enumerate() {
        let c = colour(series.style);
        for p in &series.points {
            let Some(slot) = xs.iter().position(|x| *x == p.x) else { continue };
            let left = slot as f64 - 0.35 + width * i as f64;
            let significant = p.significant.unwrap_or(false);
            let fill = if significant { c.filled() } else { c.mix(0.3).filled() };
            chart.draw_series(std::iter::once(Rectangle::new(
                [(left, 0.0), (left + width, p.y)],
                fill,
            )))?;
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
                    BLACK.stroke_width(1),
                    8,
                )))?;
            }
            if !significant {
                let top = p.ci.map_or(p.y, |[lo, hi]| if p.y >= 0.0 { hi } else { lo });
                let (px, py) = local(chart, (centre, top));
                let dy = if p.y >= 0.0 { -18 } else { 6 };
                chart.plotting_area().strip_coord_spec().draw(&Text::new(
                    "n.s.",
                    (px - 10, py + dy),
                    (FontFamily::Name(FONT), 13).into_font(),
                ))?;
            }
            let (px, py) = chart.backend_coord(&(centre, p.y));
            hovers.push(Hover {
                px,
                py,
                text: relative_text(&series.label, p),
                style: series.style,
            });
        }
        let legend =
            move |(x, y): (i32, i32)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], c.filled());
        chart
            .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())?
            .label(series.label.clone())
            .legend(legend);
    }
    Ok(())
}

fn hover_text(spec: &ChartSpec, label: &str, p: &Point) -> String {
    let x = ticks::label(p.x, spec.x_unit.as_deref());
    let ci =
        p.ci.map(|[lo, hi]| format!(", 95% CI {} to {}", ticks::value(lo), ticks::value(hi)))
            .unwrap_or_default();
    format!("{label}, {} = {x}: {}{ci}, n = {}", spec.x, ticks::value(p.y), p.n)
}

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
