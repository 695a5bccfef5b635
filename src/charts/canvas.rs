//! What every chart is drawn with: its size, font and colours, and the axes
//! in drawn space.

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::prelude::*;

use super::svg::{Backend, INK, Svg};

/// Width and height of every chart, in SVG pixels. The chart is drawn small
/// with large text so that, scaled to the width it gets on a phone (about
/// 340 CSS px) or in a dashboard card (up to about 520), its text never
/// renders below 12 CSS px; in the paper it is set at half the text width.
pub const SIZE: (u32, u32) = (460, 340);

/// Height of a chart's main plot above a ratio panel, in SVG pixels: its
/// x axis labels move to the panel.
pub const MAIN_HEIGHT: u32 = 290;

/// Height of a ratio panel, in SVG pixels.
pub const PANEL_HEIGHT: u32 = 190;

/// The size of the SVG of `data`: taller by the ratio panel when it has one.
pub fn size(data: &super::numbers::ChartData) -> (u32, u32) {
    if data.ratio.is_some() { (SIZE.0, MAIN_HEIGHT + PANEL_HEIGHT) } else { SIZE }
}

/// Size of all chart text, in SVG pixels.
pub const TEXT: f64 = 17.0;

/// Margin around the plot, in SVG pixels.
pub const MARGIN: u32 = 10;

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

/// The font of chart text at `size` SVG pixels (plotters writes a font
/// size of 1/1.24 of what it is given).
pub(super) fn font(size: f64) -> (plotters::style::FontFamily<'static>, f64) {
    (plotters::style::FontFamily::Name(FONT), size * 1.24)
}

/// The width `text` takes at `size` pixels, estimated (no font is loaded when
/// drawing): generous, so that labels laid out by it do not collide.
pub(super) fn text_width(text: &str, size: f64) -> f64 {
    text.chars().count() as f64 * 0.55 * size
}

/// The colour of the ideal line.
pub(super) const GREY: RGBColor = RGBColor(0x80, 0x80, 0x80);

/// The dashes of the ideal line: 6 drawn, 4 left out, in SVG pixels.
pub(super) const IDEAL_DASH: &str = "6 4";

/// Colour of a style index.
pub fn colour(style: usize) -> RGBColor {
    PALETTE[style % PALETTE.len()]
}

/// What drawing on the chart gives (writing into a string cannot fail).
pub(super) type DrawResult = Result<(), DrawingAreaErrorKind<std::convert::Infallible>>;

/// The area a chart (or its ratio panel) is drawn on.
pub(super) type Area = DrawingArea<Backend, plotters::coord::Shift>;

/// A chart being drawn, on our axes.
pub(super) type Chart<'a> = ChartContext<'a, Backend, Cartesian2d<Axis, Axis>>;

/// Draw the axes of `chart` in the charts' one style, in a group of class
/// `axes`: the axis names, the tick labels `x_format` and `y_format` give,
/// and the faint grid.
pub(super) fn mesh(
    chart: &mut Chart,
    svg: &Svg,
    [x_desc, y_desc]: [&str; 2],
    x_format: &dyn Fn(&f64) -> String,
    y_format: &dyn Fn(&f64) -> String,
) -> DrawResult {
    svg.open(&[("class", "axes")]);
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .label_style(font(TEXT))
        .axis_desc_style(font(TEXT))
        .x_label_formatter(x_format)
        .y_label_formatter(y_format)
        .light_line_style(WHITE.mix(0.0))
        .axis_style(INK)
        .bold_line_style(INK.mix(0.12))
        .draw()?;
    svg.close();
    Ok(())
}

/// A linear axis in drawn space with exactly the ticks we chose.
#[derive(Debug, Clone)]
pub struct Axis {
    /// The drawn range.
    pub(super) range: std::ops::Range<f64>,
    /// The ticks, in drawn space.
    pub(super) ticks: Vec<f64>,
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
