//! Where a chart's numbers come from: the rows of one results table,
//! grouped by series and x (`super::data`), or a series the analysis
//! computed: the study's history across versions, its medians, runs and
//! change points. Each kind says which it draws ([`Source`]); [`compute`]
//! reads that source.

use super::numbers::{ChangeMark, ChartData, Point, Series, VersionMarks};
use super::spec::ChartSpec;
use crate::analysis::Group;
use crate::analysis::history::HistoryAnalysis;
use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::results::ResultSet;

/// What a kind of chart is drawn from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The rows of the results table the directive's `data` names.
    Rows,
    /// The study's history across versions (`[history]`), as analysed.
    History,
}

/// Everything a chart may be computed from.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// The results tables.
    pub results: &'a ResultSet,
    /// The history across versions, when the study has one.
    pub history: Option<&'a HistoryAnalysis>,
    /// The statistics' per-group summaries, which a chart of the same
    /// groups draws instead of summarising their runs again.
    pub groups: &'a [Group],
}

/// The data of `spec` from the source its kind draws.
pub fn compute(spec: &ChartSpec, inputs: Inputs, config: &Config) -> Result<ChartData, Diagnostic> {
    match spec.kind.chart().source() {
        Source::Rows => super::data::compute(spec, inputs.results, inputs.groups, config),
        Source::History => history(spec, inputs.history, config),
    }
}

/// The history's series: per version with runs, its median (the line), its
/// runs (faint points) and, as marks, the change points with their ranges,
/// the outliers and the commits' subjects; the x values are the versions'
/// places in the order, gaps included.
fn history(
    spec: &ChartSpec,
    history: Option<&HistoryAnalysis>,
    config: &Config,
) -> Result<ChartData, Diagnostic> {
    let (h, declared) = declared(spec, history, config)?;
    let mut marks = VersionMarks {
        subjects: h.versions.iter().map(|v| v.subject.clone()).collect(),
        ..VersionMarks::default()
    };
    let series = series(h, config, &mut marks);
    let x_label = spec.x_label.clone().unwrap_or_else(|| declared.version.clone());
    let data = ChartData {
        series,
        ideal: None,
        x_label,
        y_label: spec.y_label.clone().unwrap_or_else(|| spec.kind.chart().y_label(spec)),
        models: Default::default(),
        ratio: None,
        x_levels: Some(
            h.versions.iter().map(|v| crate::prose::history::short(&v.version)).collect(),
        ),
        measured: h.measured,
        versions: Some(marks),
    };
    super::data::check_finite(spec, &data)?;
    Ok(data)
}

/// The history and its declaration, or the error at the chart's key:
/// the study has none, or `data` and `y` are not its table and value.
fn declared<'a>(
    spec: &ChartSpec,
    history: Option<&'a HistoryAnalysis>,
    config: &'a Config,
) -> Result<(&'a HistoryAnalysis, &'a crate::config::History), Diagnostic> {
    let (Some(h), Some(declared)) = (history, config.history.as_ref()) else {
        return Err(spec.key_error(
            "kind",
            "the study has no history across versions to draw".into(),
            "declare one in book.toml: `[history]` (docs/history.md)".into(),
        ));
    };
    let stem = spec.data.trim_end_matches(".csv").trim_end_matches(".parquet");
    for (key, given, wanted) in [("data", stem, &declared.data), ("y", &spec.y, &declared.value)] {
        if given != wanted {
            let name = if key == "y" { "value" } else { "data" };
            return Err(spec.key_error(
                key,
                format!(
                    "a history chart draws `[history] {name}`, which is `{wanted}`, not `{given}`"
                ),
                format!("write `{key} = \"{wanted}\"`"),
            ));
        }
    }
    Ok((h, declared))
}

/// Each series of `h` in its style, labelled by its configuration; its
/// change points and outliers go into `marks`.
fn series(h: &HistoryAnalysis, config: &Config, marks: &mut VersionMarks) -> Vec<Series> {
    let labels = crate::prose::labels::Labels::new(config);
    h.series
        .iter()
        .enumerate()
        .map(|(style, s)| {
            marks.changes.extend(s.changes.iter().map(|c| ChangeMark {
                style,
                at: c.at,
                between: [c.range[0].saturating_sub(1), c.range[1]],
                text: crate::prose::history::mark(h, c),
            }));
            marks.outliers.extend(s.outliers.iter().map(|o| (style, o.at)));
            let configuration = labels.values(&h.file, &s.config);
            let label = if configuration.is_empty() {
                labels.column(&h.file, &h.column)
            } else {
                configuration
            };
            Series { key: s.id.clone(), label, style, points: points(&s.points) }
        })
        .collect()
}

/// The versions with runs of a series, at their places.
fn points(points: &[crate::analysis::history::Point]) -> Vec<Point> {
    points
        .iter()
        .enumerate()
        .filter_map(|(place, p)| {
            Some(Point {
                x: place as f64,
                y: p.median?,
                ci: None,
                n: p.n,
                significant: None,
                runs: p.runs.clone(),
            })
        })
        .collect()
}
