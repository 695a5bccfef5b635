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
    caveats: &'a [crate::analysis::Caveat],
    excluded: &'a [crate::analysis::Excluded],
}

#[derive(Debug, Serialize)]
struct MetricEntry<'a> {
    #[serde(flatten)]
    metric: &'a MetricValue,
    text: std::collections::BTreeMap<&'static str, String>,
}

/// Serialise `analysis` as pretty JSON (deterministic: fields in declaration
/// order, maps sorted).
pub fn render(analysis: &Analysis) -> Vec<u8> {
    let file = StatsFile {
        generator: format!("report {}", env!("CARGO_PKG_VERSION")),
        confidence: analysis.confidence,
        metrics: analysis
            .metrics
            .iter()
            .map(|m| MetricEntry { metric: m, text: crate::analysis::wording::metric_fields(m) })
            .collect(),
        groups: &analysis.groups,
        comparisons: &analysis.comparisons,
        scaling: &analysis.scaling,
        caveats: &analysis.caveats,
        excluded: &analysis.excluded,
    };
    let mut bytes = serde_json::to_vec_pretty(&file).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}
