//! The metadata published beside each chart's CSV download
//! (`data/charts/ID.json`), as Our World in Data publishes a chart's data: what
//! each column holds, with its label and unit, the results file it comes from
//! (with its digest and provenance), how the points were computed, and the
//! build that made it (generator, commit, digest of the results), with a
//! citation of the figure.

use serde::Serialize;

use super::BookView;
use crate::charts::Chart;
use crate::charts::spec::ChartSpec;
use crate::config::Config;
use crate::project::SourceFile;

/// The metadata of one chart's data.
#[derive(Debug, Serialize)]
struct Metadata<'a> {
    /// `Figure 3`.
    figure: String,
    /// The chart's caption, as written.
    caption: Option<&'a str>,
    /// The study's title.
    study: &'a str,
    /// The CSV this describes, beside it.
    csv: String,
    /// The CSV's columns, in order.
    columns: Vec<ColumnMeta>,
    /// How each point is computed from the runs.
    points: String,
    /// The rows of the results the chart reads (its `where`), as written.
    filter: serde_json::Value,
    /// The results file the chart reads.
    sources: Vec<Source>,
    /// The build: generator, commit and digest of every results file.
    provenance: &'a super::html::Provenance,
    /// How to cite the figure.
    citation: String,
}

/// One column of a chart's CSV.
#[derive(Debug, Serialize)]
struct ColumnMeta {
    /// The header, as the CSV writes it.
    name: String,
    /// What it holds, in words.
    description: String,
    /// The column of the results file it comes from, if one.
    source_column: Option<String>,
    /// Its unit, when book.toml or the chart gives one.
    unit: Option<String>,
}

/// The results file behind a chart.
#[derive(Debug, Serialize)]
struct Source {
    /// Its path in the study.
    file: String,
    /// The SHA-256 of its bytes.
    sha256: String,
    /// `measured`, or how the values were made (`reconstructed`, ...).
    provenance: &'static str,
    /// The note on values that were not measured.
    note: Option<String>,
}

/// The metadata JSON of `chart`, which reads one of `results`.
pub fn json(chart: &Chart, config: &Config, book: &BookView, results: &[SourceFile]) -> Vec<u8> {
    let spec = &chart.spec;
    let stem = spec.data.trim_end_matches(".csv").trim_end_matches(".parquet");
    let dataset = config.data.get(stem);
    let sources = results
        .iter()
        .filter(|f| f.stem() == stem)
        .map(|f| Source {
            file: f.path.display().to_string().replace('\\', "/"),
            sha256: f.sha256().to_string(),
            provenance: dataset.map_or("measured", |d| d.provenance.word()),
            note: dataset.and_then(|d| d.provenance_note.clone()),
        })
        .collect();
    let metadata = Metadata {
        figure: format!("Figure {}", chart.number),
        caption: spec.caption.as_deref(),
        study: &book.title,
        csv: format!("{}.csv", spec.id),
        columns: columns(chart, config, stem),
        points: format!("the {} of the runs at each point", aggregate(spec)),
        filter: serde_json::Value::Object(
            spec.filter.iter().map(|(k, v)| (k.clone(), condition(v))).collect(),
        ),
        sources,
        provenance: &book.provenance,
        citation: citation(chart, book),
    };
    let mut bytes = serde_json::to_vec_pretty(&metadata).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// One condition of a `where` as JSON: a number, a text, a list of them,
/// or `{ "min": …, "max": … }`.
fn condition(value: &crate::config::FilterValue) -> serde_json::Value {
    use crate::config::FilterValue;
    match value {
        FilterValue::Number(x) => serde_json::json!(x),
        FilterValue::Text(t) => serde_json::json!(t),
        FilterValue::AnyOf(all) => all.iter().map(condition).collect(),
        FilterValue::Range(r) => serde_json::json!({ "min": r.min, "max": r.max }),
    }
}

/// `mean` or `median`: how the chart combines the runs of a point.
fn aggregate(spec: &ChartSpec) -> &'static str {
    match spec.aggregate {
        crate::charts::spec::Aggregate::Median => "median",
        _ => "mean",
    }
}

/// Each column of the chart's CSV in words: the series, x, y, the ends of
/// the interval, the ratio panel's columns, and the runs.
fn columns(chart: &Chart, config: &Config, stem: &str) -> Vec<ColumnMeta> {
    let (spec, table) = (&chart.spec, &chart.table);
    let unit = |column: &str| {
        let label = config.data.get(stem).and_then(|d| d.labels.get(column));
        label.and_then(|l| l.unit.clone())
    };
    let ratio = table.ratio_columns.clone().unwrap_or(0..0);
    let last = table.header.len().saturating_sub(1);
    let series = spec.series.clone().unwrap_or_else(|| config.study.environment_column.clone());
    let y_unit = unit(&spec.y);
    (0..table.header.len())
        .map(|i| {
            let (description, source, unit) = match i {
                0 => (
                    "the series: each line or group of the chart".into(),
                    Some(series.clone()),
                    None,
                ),
                1 => {
                    let x = spec.x.clone();
                    let unit = x.as_deref().and_then(unit).or_else(|| spec.x_unit.clone());
                    ("the value on the x axis".into(), x, unit)
                }
                2 => (
                    format!("the {} of the runs", aggregate(spec)),
                    Some(spec.y.clone()),
                    y_unit.clone(),
                ),
                i if i == last => ("the number of runs behind the point".into(), None, None),
                i if ratio.contains(&i) && i == ratio.start => {
                    ("the candidate over the baseline at the same x (a ratio)".into(), None, None)
                }
                i if ratio.contains(&i) => {
                    ("an end of the ratio's 95% confidence interval".into(), None, None)
                }
                _ => (
                    "an end of the 95% confidence interval of the mean".into(),
                    None,
                    y_unit.clone(),
                ),
            };
            let name = if i == 1 { table.csv_x_header.clone() } else { table.header[i].clone() };
            ColumnMeta { name, description, source_column: source, unit }
        })
        .collect()
}

/// How to cite the figure: the authors, the year, the study's title, the
/// figure, and its address when the site has one.
fn citation(chart: &Chart, book: &BookView) -> String {
    let authors: Vec<&str> = book.authors.iter().map(|a| a.name.as_str()).collect();
    let year = book.date.as_deref().and_then(|d| d.get(..4)).unwrap_or("n.d.");
    let mut text = match authors.is_empty() {
        true => format!("{} ({year}).", book.title),
        false => format!("{} ({year}). {}.", authors.join(", "), book.title),
    };
    text.push_str(&format!(" Figure {}", chart.number));
    if let Some(url) = &book.base_url {
        text.push_str(&format!(
            ", {}#fig-{}",
            url.trim_end_matches('/').to_owned() + "/",
            chart.spec.id
        ));
    }
    text.push('.');
    text
}
