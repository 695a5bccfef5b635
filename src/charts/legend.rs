//! The legend of a chart, drawn above the plot area so that it never covers
//! data: one entry per series in book.toml's environment order, its swatch
//! drawn with the series' dash and marker, then the ideal line; entries wrap
//! onto as many rows as the chart's width needs.

use plotters::prelude::*;

use super::canvas::{Area, DrawResult, GREY, MARGIN, SIZE, TEXT, colour, font, text_width};
use super::marks;
use super::numbers::ChartData;
use super::spec::ChartSpec;
use super::svg::{INK, Svg};

/// Width of a swatch, in SVG pixels.
const SWATCH: f64 = 26.0;
/// Space between a swatch and its label, and between entries.
const GAP: f64 = 6.0;
/// Height of a row of the legend.
pub const ROW: f64 = TEXT * 1.45;

/// What an entry's swatch shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Swatch {
    /// A series' line with its dash and marker.
    Line(usize),
    /// A series' bar.
    Bar(usize),
    /// The grey dashed line of ideal scaling.
    Ideal,
}

/// One legend entry placed: its row, its x and what it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    swatch: Swatch,
    label: String,
    row: usize,
    x: f64,
}

/// The legend of `data`, laid out in rows; empty for a chart with one series
/// and no ideal line, whose axis label already names what it shows, and
/// for a kind whose axis names each series (a box plot without `x`).
pub fn layout(spec: &ChartSpec, data: &ChartData) -> Vec<Entry> {
    let mut items: Vec<(Swatch, String)> = data
        .series
        .iter()
        .map(|s| (spec.kind.chart().swatch(s.style), spec.kind.chart().legend_label(spec, s)))
        .collect();
    if data.ideal.is_some() {
        items.push((Swatch::Ideal, "ideal scaling".to_string()));
    }
    if items.len() < 2 || !spec.kind.chart().legend(spec) {
        return Vec::new();
    }
    let width = f64::from(SIZE.0 - 2 * MARGIN);
    let (mut row, mut x) = (0, 0.0);
    let mut out = Vec::with_capacity(items.len());
    for (swatch, label) in items {
        let w = SWATCH + GAP + text_width(&label, TEXT);
        if x > 0.0 && x + w > width {
            (row, x) = (row + 1, 0.0);
        }
        out.push(Entry { swatch, label, row, x });
        x += w + 2.0 * GAP;
    }
    out
}

/// The height the legend takes above the plot.
pub fn height(entries: &[Entry]) -> u32 {
    entries.last().map_or(0, |e| ((e.row + 1) as f64 * ROW).ceil() as u32)
}

/// Draw `entries` on `root`, from its top margin, in a group of class `legend`.
pub(super) fn draw(root: &Area, svg: &Svg, entries: &[Entry]) -> DrawResult {
    if entries.is_empty() {
        return Ok(());
    }
    svg.open(&[("class", "legend")]);
    for e in entries {
        let left = f64::from(MARGIN) + e.x;
        let mid = f64::from(MARGIN) + (e.row as f64 + 0.5) * ROW;
        swatch(root, svg, e.swatch, (left as i32, (left + SWATCH) as i32), mid as i32)?;
        let text_at = ((left + SWATCH + GAP) as i32, mid as i32);
        let style = TextStyle::from(font(TEXT).into_font())
            .pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Left,
                plotters::style::text_anchor::VPos::Center,
            ))
            .color(&INK);
        root.draw(&Text::new(e.label.clone(), text_at, style))?;
    }
    svg.close();
    Ok(())
}

/// The swatch `swatch` from `x0` to `x1` at height `y`.
fn swatch(root: &Area, svg: &Svg, swatch: Swatch, (x0, x1): (i32, i32), y: i32) -> DrawResult {
    match swatch {
        Swatch::Line(style) => {
            let stroke = colour(style).stroke_width(2);
            marks::styled_line(svg, style, || {
                root.draw(&PathElement::new(vec![(x0, y), (x1, y)], stroke))
            })?;
            root.draw(&marks::marker_at((x0 + x1) / 2, y, style))?;
        }
        Swatch::Bar(style) => {
            root.draw(&Rectangle::new([(x0 + 4, y - 7), (x1 - 4, y + 7)], colour(style).filled()))?;
        }
        Swatch::Ideal => {
            svg.open(&[("stroke-dasharray", super::canvas::IDEAL_DASH)]);
            root.draw(&PathElement::new(vec![(x0, y), (x1, y)], GREY.stroke_width(2)))?;
            svg.close();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charts::numbers::{Point, Series};

    fn data(labels: &[&str]) -> ChartData {
        let point =
            |x: f64, y: f64| Point { x, y, ci: None, n: 3, significant: None, runs: Vec::new() };
        ChartData {
            series: labels
                .iter()
                .enumerate()
                .map(|(style, label)| Series {
                    key: label.to_lowercase(),
                    label: label.to_string(),
                    style,
                    points: vec![point(1024.0, 5.0), point(65536.0, 9.0), point(1e6, 7.0)],
                })
                .collect(),
            ideal: None,
            x_label: "size".into(),
            y_label: "bw".into(),
            ratio: None,
            models: Default::default(),
            x_levels: None,
            measured: true,
            versions: None,
        }
    }

    fn spec(extra: &str) -> ChartSpec {
        crate::charts::spec::line_of("b", extra)
    }

    #[test]
    fn entries_name_peaks_and_wrap_within_the_chart() {
        let entries = layout(
            &spec("mark-peak = true\nx-unit = \"bytes\"\n"),
            &data(&["Bare metal", "Kubernetes"]),
        );
        let labels: Vec<&str> = entries.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(labels, ["Bare metal (peak at 64 KiB)", "Kubernetes (peak at 64 KiB)"]);
        // Two labels of 27 characters do not fit side by side in 440 px.
        assert_eq!(entries.iter().map(|e| e.row).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(height(&entries), (2.0 * ROW).ceil() as u32);
        for e in &entries {
            assert!(
                e.x + SWATCH + GAP + text_width(&e.label, TEXT) <= f64::from(SIZE.0 - 2 * MARGIN)
            );
        }
    }

    #[test]
    fn one_series_needs_no_legend() {
        assert!(layout(&spec(""), &data(&["A"])).is_empty());
        let short = layout(&spec(""), &data(&["A", "B"]));
        assert_eq!(short.iter().map(|e| e.row).collect::<Vec<_>>(), [0, 0]);
    }
}
