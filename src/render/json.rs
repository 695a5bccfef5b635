//! `data/stats.json`: every statistic of the build with its inputs.

use serde::Serialize;

use crate::analysis::{Analysis, Comparison, Group, MetricValue, ScalingPoint};

/// The document written to `data/stats.json`.
#[derive(Debug, Serialize)]
struct StatsFile<'a> {
    generator: String,
    confidence: f64,
    metrics: Vec<MetricEntry<'a>>,
    groups: &'a [Group],
    comparisons: &'a [Comparison],
    scaling: &'a [ScalingPoint],
    caveats: &'a [crate::prose::caveats::Caveat],
    limitations: &'a [crate::analysis::Limitation],
    excluded: &'a [crate::analysis::Excluded],
    /// The computed tables whose baselines were chosen from the data.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tables: Vec<TableEntry<'a>>,
}

/// A computed table with `baseline = "best"`: each comparison's baseline
/// as chosen.
#[derive(Debug, Serialize)]
struct TableEntry<'a> {
    id: &'a str,
    /// The caveat of the choice (`selected-baseline`), as the caption has it.
    caveat: Option<crate::prose::caveats::Caveat>,
    baselines: &'a [crate::markdown::tables::Chosen],
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
        tables: (document.computed.iter())
            .filter(|t| !t.chosen.is_empty())
            .map(|t| TableEntry {
                id: &t.id,
                caveat: crate::prose::caveats::selected_baselines(&t.table.spec, &[]).map(|text| {
                    crate::prose::caveats::Caveat {
                        kind: crate::analysis::CaveatKind::SelectedBaseline,
                        text,
                        metric: None,
                    }
                }),
                baselines: &t.chosen,
            })
            .collect(),
    };
    let mut bytes = serde_json::to_vec_pretty(&file).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}
