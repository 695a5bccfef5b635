//! `kind = "box-plot"`: the runs of every configuration (x value), per
//! series, as a box from the first to the third quartile with a line at the
//! median, whiskers at the most extreme runs within 1.5 IQR of the
//! quartiles (Tukey's rule, stated in the caption as Hoefler and Belli's
//! rule 12 asks), and the runs beyond the whiskers as rings. Boxes stand
//! side by side in each x value's slot. x may be a text column (a slot per
//! value, boxes coloured by series) or left out (a slot per series: the
//! alternatives of one workload), its categories labelled under the axis.

use std::collections::{BTreeMap, BTreeSet};

use plotters::prelude::*;

use super::{ChartKind, Plot, Runs};
use crate::analysis::queries::filter::KeyPart;
use crate::analysis::statistics::robust::quantile;
use crate::charts::canvas::{Chart, DrawResult, TEXT, colour, font, text_width};
use crate::charts::legend::Swatch;
use crate::charts::numbers::{ChartData, Point, x_of};
use crate::charts::spec::ChartSpec;
use crate::charts::svg::{INK, Svg};
use crate::charts::table::{DataTable, Row, XColumn};
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
        let (first, last) = (*runs.first()?, *runs.last()?);
        let [q1, median, q3] = [0.25, 0.5, 0.75].map(|p| quantile(runs, p));
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
        spec: &ChartSpec,
        runs: &Runs,
        _models: &mut BTreeSet<&'static str>,
    ) -> Result<Vec<(String, Vec<Point>)>, Diagnostic> {
        let slots: Option<BTreeMap<&KeyPart, f64>> = levels(spec, runs)
            .map(|l| l.into_iter().enumerate().map(|(i, (k, _))| (k, i as f64)).collect());
        let x = |key: &KeyPart| {
            slots.as_ref().map_or_else(|| x_of(key), |s| s.get(key).copied().unwrap_or(f64::NAN))
        };
        let mut series: Vec<(String, Vec<Point>)> = Vec::new();
        for key in runs.summaries.keys() {
            let groups = runs.groups.iter().filter(|g| g.key[0].to_string() == *key);
            let mut points: Vec<Point> =
                groups.filter_map(|g| point(x(&g.key[1]), &g.samples[0])).collect();
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

    fn text_x(&self) -> bool {
        true
    }

    fn x_levels(&self, spec: &ChartSpec, runs: &Runs) -> Option<Vec<String>> {
        levels(spec, runs).map(|l| l.into_iter().map(|(_, label)| label).collect())
    }

    /// Room for more lines of the categories' labels where one line of
    /// `slot` pixels is too narrow for one of them, or for the longest
    /// standing upright where [`LABEL_LINES`] are.
    fn x_label_room(&self, data: &ChartData, slot: f64) -> f64 {
        match layout(data.x_levels.as_deref().unwrap_or_default(), slot) {
            Layout::Level(lines) => (lines.max(1) - 1) as f64 * LINE,
            // Text widths are estimated: a wide fallback font needs more.
            Layout::Upright(longest) => 1.15 * longest + 6.0 - LINE,
        }
    }

    /// Without `x`, the axis names each box: no legend.
    fn legend(&self, spec: &ChartSpec) -> bool {
        spec.x.is_some()
    }

    fn draw(&self, chart: &mut Chart, svg: &Svg, plot: &Plot) -> DrawResult {
        for (i, series) in plot.data.series.iter().enumerate() {
            svg.open_series(series.style);
            for p in &series.points {
                let Some(slot) = plot.xs.iter().position(|x| *x == p.x) else { continue };
                let Some(five) = Five::of(&p.runs) else { continue };
                let (left, width) = place(plot, i, slot);
                draw_box(chart, plot, series.style, p, &five, [left, left + width])?;
                let centre = chart.backend_coord(&(plot.at)(left + width / 2.0, p.y));
                let text = hover_text(plot, &series.label, p, &five);
                svg.point(centre, series.style, &text);
            }
            svg.close();
        }
        if plot.data.x_levels.is_some() {
            category_labels(chart, svg, plot)?;
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
        if spec.x.is_none() {
            // The series are the categories: the x column would repeat them.
            table.header.remove(1);
            for row in &mut table.rows {
                row.values.remove(0);
            }
            table.x = XColumn::Absent;
        }
        table
    }

    fn noun(&self) -> &'static str {
        "Box plot"
    }

    fn describe(&self, spec: &ChartSpec, data: &ChartData) -> String {
        let medians = match data.x_levels {
            None => crate::charts::describe("Box plot", spec, data),
            Some(_) => describe_categories(spec, data),
        };
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
fn point(x: f64, values: &[f64]) -> Option<Point> {
    let mut runs = values.to_vec();
    runs.sort_by(f64::total_cmp);
    let median = Five::of(&runs)?.median;
    Some(Point { x, y: median, ci: None, n: runs.len(), significant: None, runs })
}

/// The categories of a text (or absent) x with their labels, in order:
/// book.toml's for the environment column (labelled as it says), else the
/// order of their first rows in the file; `None` for a numeric x.
fn levels<'r>(spec: &ChartSpec, runs: &Runs<'r>) -> Option<Vec<(&'r KeyPart, String)>> {
    if !runs.groups.iter().any(|g| matches!(g.key[1], KeyPart::Text(_))) {
        return None;
    }
    let config = runs.config;
    let environments = &config.study.environment_column;
    let column = spec.x_column().or(spec.series.as_deref()).unwrap_or(environments);
    let order = config.level_order(&spec.data, column);
    let declared: Vec<&String> = order.iter().collect();
    let mut first: BTreeMap<&KeyPart, usize> = BTreeMap::new();
    for g in runs.groups {
        first.entry(&g.key[1]).and_modify(|r| *r = (*r).min(g.first)).or_insert(g.first);
    }
    let rank = |k: &KeyPart| declared.iter().position(|d| **d == k.to_string());
    let mut levels: Vec<(&KeyPart, usize)> = first.into_iter().collect();
    levels.sort_by_key(|&(k, row)| (rank(k).unwrap_or(declared.len()), row));
    let labels = crate::prose::labels::Labels::new(config);
    let label = |k: &KeyPart| match config.environments.get(&k.to_string()) {
        Some(e) if column == environments => e.label.clone(),
        _ => labels
            .level_label(&spec.data, column, &k.to_string())
            .unwrap_or(&k.to_string())
            .to_string(),
    };
    Some(levels.into_iter().map(|(k, _)| (k, label(k))).collect())
}

/// Where the box of series `i` at slot `slot` starts, and the width of
/// every box, in slots: with x, the series share 0.7 of each slot, each in
/// its place in every slot (an empty place where it has no runs); without,
/// each slot is one series', its box centred.
fn place(plot: &Plot, i: usize, slot: usize) -> (f64, f64) {
    match plot.spec.x {
        None => (slot as f64 - 0.35, 0.7),
        Some(_) => {
            let width = 0.7 / plot.data.series.len().max(1) as f64;
            (slot as f64 - 0.35 + width * i as f64, width)
        }
    }
}

/// Most lines of a category's label under the axis.
const LABEL_LINES: usize = 3;

/// Height of a line of labels, in SVG pixels.
const LINE: f64 = TEXT * 1.15;

/// Space kept between the labels of two slots, in SVG pixels.
const GAP: f64 = TEXT * 0.6;

/// Longest a label standing upright may be, in SVG pixels.
const UPRIGHT: f64 = 150.0;

/// How the categories' labels stand under the axis.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Layout {
    /// Level, each on at most [`LABEL_LINES`] lines: the most lines.
    Level(usize),
    /// Upright, read from the bottom up, on one line each, cut at
    /// [`UPRIGHT`]: the longest's width, in SVG pixels.
    Upright(f64),
}

/// The layout of `levels` in slots `slot` pixels wide: level where each
/// fits on [`LABEL_LINES`] lines uncut (or where the slots are too narrow for a line
/// upright), else upright.
fn layout(levels: &[String], slot: f64) -> Layout {
    let wrapped: Vec<(Vec<String>, bool)> = levels.iter().map(|l| wrap(l, slot - GAP)).collect();
    if wrapped.iter().all(|(_, cut)| !cut) || slot < LINE + GAP {
        return Layout::Level(wrapped.iter().map(|w| w.0.len()).max().unwrap_or(1));
    }
    let longest = levels.iter().map(|l| text_width(l, TEXT)).fold(0.0, f64::max);
    Layout::Upright(longest.min(UPRIGHT))
}

/// The categories' labels under the x axis, each in its slot, as
/// [`layout`] stands them; a label cut short has its whole text as title.
fn category_labels(chart: &Chart, svg: &Svg, plot: &Plot) -> DrawResult {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let levels = plot.data.x_levels.as_deref().unwrap_or_default();
    let bottom = chart.y_range().start;
    let (left, _) = chart.backend_coord(&(-0.5, bottom));
    let (right, _) = chart.backend_coord(&(0.5, bottom));
    let slot = f64::from(right - left);
    let layout = layout(levels, slot);
    let root = svg.backend().into_drawing_area();
    let level = TextStyle::from(font(TEXT).into_font()).color(&INK);
    let upright =
        level.transform(FontTransform::Rotate270).pos(Pos::new(HPos::Right, VPos::Center));
    let level = level.pos(Pos::new(HPos::Center, VPos::Top));
    svg.open(&[("class", "categories")]);
    for (slot_index, &x) in plot.xs.iter().enumerate() {
        let Some(label) = levels.get(x as usize) else { continue };
        let (centre, y) = chart.backend_coord(&(slot_index as f64, bottom));
        let (lines, cut) = match layout {
            Layout::Level(_) => wrap(label, slot - GAP),
            Layout::Upright(_) if text_width(label, TEXT) > UPRIGHT => {
                (vec![shorten(label, UPRIGHT)], true)
            }
            Layout::Upright(_) => (vec![label.clone()], false),
        };
        if cut {
            svg.open_titled(label);
        }
        for (i, line) in lines.into_iter().enumerate() {
            let at = (centre, y + 11 + (i as f64 * LINE) as i32);
            let style = if matches!(layout, Layout::Upright(_)) { &upright } else { &level };
            root.draw(&Text::new(line, at, style.clone()))?;
        }
        if cut {
            svg.close();
        }
    }
    svg.close();
    Ok(())
}

/// `label` in at most [`LABEL_LINES`] lines of `room` pixels, broken at
/// spaces, and whether it had to be cut short (a word wider than a line,
/// or more lines).
fn wrap(label: &str, room: f64) -> (Vec<String>, bool) {
    let fits = |s: &str| text_width(s, TEXT) <= room;
    let mut lines: Vec<String> = vec![String::new()];
    for word in label.split(' ') {
        let line = lines.last_mut().expect("one line at least");
        if line.is_empty() || fits(&format!("{line} {word}")) {
            *line = if line.is_empty() { word.to_string() } else { format!("{line} {word}") };
        } else {
            lines.push(word.to_string());
        }
    }
    let mut cut = lines.len() > LABEL_LINES;
    if cut {
        let rest = lines.split_off(LABEL_LINES - 1).join(" ");
        lines.push(rest);
    }
    for line in &mut lines {
        if !fits(line) {
            *line = shorten(line, room);
            cut = true;
        }
    }
    (lines, cut)
}

/// `text`, cut short with "…" to fit in `room` pixels of chart text.
fn shorten(text: &str, room: f64) -> String {
    let keep = ((room / text_width("m", TEXT)).floor() as usize).max(2) - 1;
    let mut cut: String = text.chars().take(keep).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// What a box plot of categories shows: per box, its category and median.
fn describe_categories(spec: &ChartSpec, data: &ChartData) -> String {
    let per = if spec.x.is_some() { format!(" per {}", data.x_label) } else { String::new() };
    let mut text = format!("Box plot of {}{per}.", data.y_label);
    for s in &data.series {
        for p in &s.points {
            let at = match spec.x {
                Some(_) => format!(" at {}", ticks::x_text(data, p.x, None)),
                None => String::new(),
            };
            let median = format::minus(&format::value(p.y));
            text.push_str(&format!(" {}{at}: median {median}, {} runs.", s.label, p.n));
        }
    }
    text
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
fn hover_text(plot: &Plot, label: &str, p: &Point, f: &Five) -> String {
    let at = match plot.spec.x {
        Some(_) => format!(" at {}", ticks::x_text(plot.data, p.x, plot.spec.x_unit.as_deref())),
        None => String::new(),
    };
    let v = |v: f64| format::minus(&format::value(v));
    let beyond = match f.beyond(&p.runs).count() {
        0 => String::new(),
        1 => ", 1 run beyond the whiskers".to_string(),
        k => format!(", {k} runs beyond the whiskers"),
    };
    format!(
        "{label}{at}: median {}, quartiles {} to {}, whiskers {} to {}, n = {}{beyond}",
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

    /// At 17 px, a character is 9.35 px wide: 10 in 100 px.
    #[test]
    fn labels_break_at_spaces_then_are_cut_short() {
        let lines = |label: &str| wrap(label, 100.0);
        assert_eq!(lines("gzip -9"), (vec!["gzip -9".to_string()], false));
        assert_eq!(lines("gzip, smallest"), (vec!["gzip,".into(), "smallest".into()], false));
        let (three, cut) = lines("zstd at level nineteen with long mode");
        let cut_short = vec!["zstd at".to_string(), "level".into(), "nineteen…".into()];
        assert_eq!((three, cut), (cut_short, true));
        let (long, cut) = lines("a-command-without-spaces");
        assert_eq!((long, cut), (vec!["a-command…".into()], true));
        assert_eq!(layout(&["gzip, smallest".into()], 110.0), Layout::Level(2));
        let long = "a-command-without-any-spaces-at-all".to_string();
        assert_eq!(layout(&[long], 110.0), Layout::Upright(UPRIGHT));
    }
}
