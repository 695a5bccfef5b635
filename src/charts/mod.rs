//! The charts stage: chart directives of the content, computed from the results
//! and drawn with plotters through a backend of our own that writes the
//! SVG (`svg`). The same SVG goes into the page and the paper.

pub mod canvas;
pub mod data;
pub mod draw;
mod kinds;
mod legend;
mod marks;
pub mod numbers;
pub mod ratio;
pub mod source;
pub mod spec;
pub mod svg;
pub mod table;
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
    /// The numbers behind the chart: labelled columns, one row per point.
    pub table: table::DataTable,
    /// What the error bars show, in words, computed from the data: the
    /// interval and the runs behind each point, or that there are none.
    pub intervals: String,
    /// The series: style index (the `sN` class of their SVG elements) and label.
    pub series: Vec<(usize, String)>,
    /// The label of a chart of data that were not measured
    /// (`Illustrative: reconstructed data, not measured†.`), shown first in
    /// its caption on the page and in the paper.
    pub illustrative: Option<String>,
}

impl Chart {
    /// The table as CSV text.
    pub fn csv(&self) -> String {
        self.table.csv()
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

/// Compute and draw every chart of a table's rows (ids are unique, checked
/// by the markdown stage); report every bad directive.
pub fn render(
    specs: &[ChartSpec],
    results: &ResultSet,
    config: &Config,
) -> Result<ChartSet, Diagnostics> {
    render_from(specs, source::Inputs { results, history: None, groups: &[] }, config)
}

/// Compute and draw every chart from `inputs`: the results tables and the
/// series the analysis computed; report every bad directive.
pub fn render_from(
    specs: &[ChartSpec],
    inputs: source::Inputs,
    config: &Config,
) -> Result<ChartSet, Diagnostics> {
    let mut errors = Diagnostics::default();
    let mut charts = Vec::new();
    for spec in specs {
        match chart(spec, charts.len() + 1, inputs, config) {
            Ok(c) => charts.push(c),
            Err(d) => errors.push(d),
        }
    }
    errors.into_result(ChartSet { charts })
}

fn chart(
    spec: &ChartSpec,
    number: usize,
    inputs: source::Inputs,
    config: &Config,
) -> Result<Chart, Diagnostic> {
    let provenance = provenance(spec, config);
    let mut data = source::compute(spec, inputs, config)?;
    if !provenance.measured() {
        untested(&mut data);
    }
    let title = spec
        .title
        .clone()
        .or_else(|| spec.caption.clone())
        .unwrap_or_else(|| format!("{} against {}", data.y_label, data.x_label));
    let kind = spec.kind.chart();
    let description = kind.describe(spec, &data);
    let labels = svg::Labels { id: &spec.id, title: &title, description: &description };
    let svg = draw::draw(spec, &data, labels).map_err(|e| {
        Diagnostic::new(spec.at(), format!("chart `{}`: cannot draw: {e}", spec.id))
            .hint("check the chart's data and scales")
    })?;
    let series: Vec<(usize, String)> =
        data.series.iter().map(|s| (s.style, s.label.clone())).collect();
    Ok(Chart {
        spec: spec.clone(),
        number,
        svg,
        title,
        description,
        table: kind.table(spec, &data),
        intervals: match provenance.measured() {
            true => kind.intervals(spec, &data),
            false => crate::prose::provenance::chart_intervals(provenance) + &ratio_sentence(&data),
        },
        series,
        illustrative: crate::prose::provenance::chart_label(provenance),
    })
}

/// The provenance of the table a chart draws (`data` a stem or a file name).
fn provenance(spec: &ChartSpec, config: &Config) -> crate::config::Provenance {
    let stem = spec.data.rsplit_once('.').map_or(spec.data.as_str(), |(stem, _)| stem);
    let dataset = config.data.get(&spec.data).or_else(|| config.data.get(stem));
    dataset.map(|d| d.provenance).unwrap_or_default()
}

/// A chart of runs that were not measured: its points without intervals
/// or tests, its ratio panel named by its estimate alone.
fn untested(data: &mut numbers::ChartData) {
    data.measured = false;
    data.models.clear();
    let panel = data.ratio.as_mut().map(|r| &mut r.points);
    for p in data.series.iter_mut().flat_map(|s| &mut s.points).chain(panel.into_iter().flatten()) {
        (p.ci, p.significant) = (None, None);
    }
    if let Some(panel) = &mut data.ratio {
        panel.model = "ratio of means";
    }
}

/// What a chart of points is (`kind`: "Line chart") and a sentence per
/// series: its range of values.
fn describe(kind: &str, spec: &ChartSpec, data: &numbers::ChartData) -> String {
    let mut text = format!("{kind} of {} against {}.", data.y_label, data.x_label);
    // "first y at first x to last y at last x", of a series or the panel.
    let span = |points: &[numbers::Point]| {
        let (first, last) = (points.first()?, points.last()?);
        let x = |v: f64| ticks::label(v, spec.x_unit.as_deref());
        let y = ticks::value;
        Some(format!("{} at {} to {} at {}", y(first.y), x(first.x), y(last.y), x(last.x)))
    };
    for s in &data.series {
        if let Some(span) = span(&s.points) {
            text.push_str(&format!(" {}: {span}.", s.label));
        }
    }
    if let Some(panel) = &data.ratio
        && let Some(span) = span(&panel.points)
    {
        text.push_str(&format!(" Panel below, the ratio {}: {span}.", panel.label));
    }
    text
}

/// What the ratio panel shows, for the caption: "The panel below is
/// Kubernetes ÷ Bare metal per message size (ratio of means, Welch's t on
/// the log scale, 95% CI); 1 is no difference."
fn ratio_sentence(data: &numbers::ChartData) -> String {
    data.ratio.as_ref().map_or_else(String::new, |panel| {
        let ci = if panel.points.iter().any(|p| p.ci.is_some()) { ", 95% CI" } else { "" };
        format!(
            " The panel below is {} per {} ({}{ci}); 1 is no difference.",
            panel.label, data.x_label, panel.model
        )
    })
}

/// What the error bars of a chart of points show (`what`: "95% CI of the
/// mean (Student's t)"), from its points: "Error bars: 95% CI of the mean
/// (Student's t), 3 to 5 runs per point.", or that it has none (`none`, by
/// default in words of the chart's `aggregate`).
fn intervals(
    spec: &ChartSpec,
    data: &numbers::ChartData,
    what: &str,
    none: Option<&str>,
) -> String {
    let points: Vec<&numbers::Point> = data.series.iter().flat_map(|s| &s.points).collect();
    let (lo, hi) = points.iter().fold((usize::MAX, 0), |(a, b), p| (a.min(p.n), b.max(p.n)));
    let runs = match (lo, hi) {
        (_, 0) => return String::new(),
        (lo, hi) if lo == hi => format!("{lo} runs per point"),
        (lo, hi) => format!("{lo} to {hi} runs per point"),
    };
    let with_ci = points.iter().filter(|p| p.ci.is_some()).count();
    let bars = if with_ci == 0 {
        match (none, spec.aggregate) {
            (Some(none), _) => none.to_string(),
            (None, spec::Aggregate::Median) => "Points are medians, without error bars".to_string(),
            (None, spec::Aggregate::Mean) => "No error bars".to_string(),
        }
    } else if with_ci < points.len() {
        format!("Error bars: {what}, where a point has at least two runs")
    } else {
        format!("Error bars: {what}")
    };
    format!("{bars}; {runs}.{}", ratio_sentence(data))
}
