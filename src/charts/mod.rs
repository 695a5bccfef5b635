//! The charts stage: chart directives of the content, computed from the results
//! and drawn as SVG with plotters. The same SVG goes into the page and the paper.

pub mod canvas;
pub mod data;
pub mod draw;
mod finite;
mod marks;
pub mod spec;
pub mod svg;
mod ticks;

pub use spec::ChartSpec;

use crate::config::Config;
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::results::ResultSet;

/// A drawn chart with the numbers behind it.
#[derive(Debug, Clone)]
pub struct Chart {
    /// The directive.
    pub spec: ChartSpec,
    /// Figure number, 1-based, in document order (the same in page and paper).
    pub number: usize,
    /// The SVG document.
    pub svg: String,
    /// Accessible name.
    pub title: String,
    /// Accessible description: what the chart shows, in words.
    pub description: String,
    /// The numbers behind the chart: a header row, then one row per point.
    pub table: Vec<Vec<String>>,
    /// The series: style index (the `sN` class of their SVG elements) and label.
    pub series: Vec<(usize, String)>,
}

impl Chart {
    /// The table as CSV text.
    pub fn csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        for row in &self.table {
            let _ = writer.write_record(row);
        }
        String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default()
    }
}

/// Every chart of the document, in order, by id.
#[derive(Debug, Clone, Default)]
pub struct ChartSet {
    /// Charts in document order.
    pub charts: Vec<Chart>,
}

impl ChartSet {
    /// The chart with `id`.
    pub fn get(&self, id: &str) -> Option<&Chart> {
        self.charts.iter().find(|c| c.spec.id == id)
    }
}

/// Compute and draw every chart (ids are unique, checked by the markdown stage);
/// report every bad directive.
pub fn render(
    specs: &[ChartSpec],
    results: &ResultSet,
    config: &Config,
) -> Result<ChartSet, Diagnostics> {
    let mut errors = Diagnostics::default();
    let mut charts = Vec::new();
    for spec in specs {
        match chart(spec, charts.len() + 1, results, config) {
            Ok(c) => charts.push(c),
            Err(d) => errors.push(d),
        }
    }
    errors.into_result(ChartSet { charts })
}

fn chart(
    spec: &ChartSpec,
    number: usize,
    results: &ResultSet,
    config: &Config,
) -> Result<Chart, Diagnostic> {
    let data = data::compute(spec, results, config)?;
    let (raw, hovers) = draw::draw(spec, &data).map_err(|e| {
        Diagnostic::new(spec.at(), format!("chart `{}`: cannot draw: {e}", spec.id))
            .hint("check the chart's data and scales")
    })?;
    let title = spec
        .title
        .clone()
        .or_else(|| spec.caption.clone())
        .unwrap_or_else(|| format!("{} against {}", data.y_label, data.x_label));
    let description = describe(spec, &data);
    let series: Vec<(usize, String)> =
        data.series.iter().map(|s| (s.style, s.label.clone())).collect();
    let svg = svg::finish(&raw, &spec.id, &title, &description, &hovers);
    let svg = svg::tag_series(&svg, &series.iter().map(|(style, _)| *style).collect::<Vec<_>>());
    Ok(Chart {
        spec: spec.clone(),
        number,
        svg,
        title,
        description,
        table: table(spec, &data),
        series,
    })
}

/// A sentence per series: its range of values.
fn describe(spec: &ChartSpec, data: &data::ChartData) -> String {
    let kind = match spec.kind {
        spec::Kind::Line => "Line chart",
        spec::Kind::Relative => "Bar chart of the difference from the baseline",
        spec::Kind::Speedup => "Speedup chart",
        spec::Kind::Efficiency => "Parallel-efficiency chart",
    };
    let mut text = format!("{kind} of {} against {}.", data.y_label, data.x_label);
    for s in &data.series {
        if let (Some(first), Some(last)) = (s.points.first(), s.points.last()) {
            let x = |v: f64| ticks::label(v, spec.x_unit.as_deref());
            text.push_str(&format!(
                " {}: {} at {} to {} at {}.",
                s.label,
                ticks::value(first.y),
                x(first.x),
                ticks::value(last.y),
                x(last.x)
            ));
        }
    }
    text
}

/// Header and rows of the numbers behind the chart.
fn table(spec: &ChartSpec, data: &data::ChartData) -> Vec<Vec<String>> {
    let value = match spec.kind {
        spec::Kind::Relative => format!("{} vs baseline (%)", spec.y),
        spec::Kind::Speedup => "speedup".to_string(),
        spec::Kind::Efficiency => "efficiency".to_string(),
        spec::Kind::Line => spec.y.clone(),
    };
    let mut rows = vec![vec![
        "series".to_string(),
        spec.x.clone(),
        value,
        "ci_low".into(),
        "ci_high".into(),
        "n".into(),
    ]];
    for s in &data.series {
        for p in &s.points {
            let ci = |i: usize| p.ci.map(|c| crate::format::plain(c[i])).unwrap_or_default();
            rows.push(vec![
                s.key.clone(),
                crate::format::plain(p.x),
                crate::format::plain(p.y),
                ci(0),
                ci(1),
                p.n.to_string(),
            ]);
        }
    }
    rows
}
