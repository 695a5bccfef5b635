//! `data/stats.json`: every statistic of the build with its inputs.

use serde::Serialize;

use super::renderer::{Files, Renderer};
use super::resolved::Resolved;
use crate::analysis::{Analysis, Comparison, Group, MetricValue, ScalingPoint};
use crate::diagnostic::Diagnostics;

/// The output of `data/stats.json`.
#[derive(Debug, Clone, Copy)]
pub struct Stats;

impl Renderer for Stats {
    fn name(&self) -> &'static str {
        "json"
    }

    fn render(&self, study: &Resolved) -> Result<Files, Diagnostics> {
        let mut out = Files::default();
        out.insert("data/stats.json", bytes(study));
        Ok(out)
    }
}

/// `data/stats.json` of `study`, made once per build, whichever output asks
/// first (the paper serves it too).
pub fn bytes<'a>(study: &Resolved<'a>) -> &'a [u8] {
    let (analysis, config, document) = (study.analysis, study.config(), study.document);
    study.stats.get_or_init(|| render(analysis, config, document))
}

/// The document written to `data/stats.json`.
#[derive(Debug, Serialize)]
struct StatsFile<'a> {
    generator: String,
    confidence: f64,
    /// Where each table's values come from, by table name.
    provenance: Vec<TableProvenance<'a>>,
    /// The figures the study published, each checked against its metric.
    #[serde(skip_serializing_if = "none_published")]
    published: &'a [crate::config::Published],
    metrics: Vec<MetricEntry<'a>>,
    groups: &'a [Group],
    comparisons: &'a [Comparison],
    scaling: &'a [ScalingPoint],
    caveats: &'a [crate::prose::caveats::Caveat],
    limitations: &'a [crate::analysis::Limitation],
    excluded: &'a [crate::analysis::Excluded],
    /// The history across versions and its change points, with their
    /// sentences (absent without `[history]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    history: Option<HistoryEntry<'a>>,
    /// The computed tables, in document order (absent without any).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tables: Vec<TableEntry<'a>>,
}

/// A computed table: its directive's inputs, its caption as written, the
/// caveat of a baseline chosen from the data, and every cell row by row.
#[derive(Debug, Serialize)]
struct TableEntry<'a> {
    id: &'a str,
    caption: &'a str,
    data: &'a str,
    value: &'a str,
    rows: &'a str,
    columns: Option<&'a str>,
    cell: crate::analysis::metrics::tables::CellKind,
    /// The caveat of the choice (`selected-baseline`), as the caption has
    /// it, with `baseline = "best"`.
    caveat: Option<crate::prose::caveats::Caveat>,
    cells: &'a [crate::markdown::tables::TableCell],
}

/// The history with each series' sentences.
#[derive(Debug, Serialize)]
struct HistoryEntry<'a> {
    #[serde(flatten)]
    analysis: &'a crate::analysis::history::HistoryAnalysis,
    text: Vec<crate::prose::history::SeriesText>,
}

/// Whether the study lists no published figure.
fn none_published(published: &&[crate::config::Published]) -> bool {
    published.is_empty()
}

/// A results table's provenance and, when it was not measured, why.
#[derive(Debug, Serialize)]
struct TableProvenance<'a> {
    table: &'a str,
    provenance: crate::config::Provenance,
    note: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct MetricEntry<'a> {
    #[serde(flatten)]
    metric: &'a MetricValue,
    text: std::collections::BTreeMap<&'static str, String>,
}

/// Serialise `analysis` as pretty JSON (deterministic: fields in declaration
/// order, maps sorted), its texts worded by `config`'s labels, with the
/// reader's caveats and the computed tables of `document`.
pub fn render(
    analysis: &Analysis,
    config: &crate::config::Config,
    document: &crate::markdown::Document,
) -> Vec<u8> {
    let labels = crate::prose::labels::Labels::new(config);
    let caveats = crate::prose::caveats::caveats(analysis, &labels);
    let file = StatsFile {
        generator: format!("report {}", env!("CARGO_PKG_VERSION")),
        confidence: analysis.confidence,
        provenance: config
            .data
            .iter()
            .map(|(table, d)| TableProvenance {
                table,
                provenance: d.provenance,
                note: d.provenance_note.as_deref(),
            })
            .collect(),
        published: &config.published,
        metrics: analysis
            .metrics
            .iter()
            .map(|m| MetricEntry { metric: m, text: labels.fields(m) })
            .collect(),
        groups: &analysis.groups,
        comparisons: &analysis.comparisons,
        scaling: &analysis.scaling,
        caveats: &caveats,
        limitations: &document.limitations,
        excluded: &analysis.excluded,
        history: analysis
            .history
            .as_ref()
            .map(|h| HistoryEntry { analysis: h, text: crate::prose::history::texts(h, &labels) }),
        tables: document.computed.iter().map(table).collect(),
    };
    let mut bytes = serde_json::to_vec_pretty(&file).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// The stats.json entry of computed table `t`.
fn table(t: &crate::markdown::tables::Written) -> TableEntry<'_> {
    let spec = &t.table.spec;
    let caveat = crate::prose::caveats::selected_baselines(spec, &[]).map(|text| {
        let kind = crate::analysis::CaveatKind::SelectedBaseline;
        crate::prose::caveats::Caveat { kind, text, metric: None, advice: None }
    });
    TableEntry {
        id: &t.id,
        caption: &spec.caption,
        data: &spec.data,
        value: &spec.value,
        rows: &spec.rows,
        columns: spec.columns.as_deref(),
        cell: spec.cell,
        caveat,
        cells: &t.cells,
    }
}
