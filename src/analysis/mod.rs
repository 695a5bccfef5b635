//! The analysis stage: every statistic of the study, computed from a
//! [`ResultSet`] into an [`Analysis`].

mod descriptions;
pub mod facts;
pub mod findings;
mod groups;
pub mod history;
pub mod metrics;
mod overflow;
pub mod provenance;
pub mod queries;
pub mod statistics;

use std::collections::BTreeMap;

use serde::Serialize;

pub use findings::{CaveatKind, Finding, Limitation};
pub use metrics::value::{MetricValue, Side};
pub use queries::exclude::{Excluded, exclude};
use queries::filter;
use statistics::CONFIDENCE;
use statistics::ranks;
use statistics::stats::Summary;

use crate::config::Config;
use crate::diagnostic::Diagnostics;
use crate::results::ResultSet;

/// Every statistic the build computed, with its inputs.
#[derive(Debug, Clone, Serialize)]
pub struct Analysis {
    /// Warnings about the study that do not stop it: an environment
    /// declared in book.toml that no results row has.
    #[serde(skip)]
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
    /// Confidence level of every interval.
    pub confidence: f64,
    /// The named metrics of book.toml, in the order declared.
    pub metrics: Vec<MetricValue>,
    /// Per-group summaries: file × column × environment × configuration.
    pub groups: Vec<Group>,
    /// Each candidate environment against the baseline, per file × column × configuration.
    pub comparisons: Vec<Comparison>,
    /// Speedup and parallel efficiency, per file × environment × process count.
    pub scaling: Vec<ScalingPoint>,
    /// The caveats the data imply, as findings with their figures, in the
    /// order they are listed: the diagnostics of the page, the paper's
    /// appendix and stats.json, in the words of `crate::prose::caveats`
    /// (which adds the exclusions).
    #[serde(skip)]
    pub caveats: Vec<Finding>,
    /// The runs removed by `exclude` in book.toml, with their reasons.
    pub excluded: Vec<Excluded>,
    /// The history across versions and its change points (`[history]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<history::HistoryAnalysis>,
}

/// What a statistic was computed from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Inputs {
    /// Results file, relative to the study root.
    pub file: String,
    /// Column measured.
    pub column: String,
    /// Rows used, in words (`procs = 32`).
    pub filter: String,
}

/// Summary of one column in one environment and configuration.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    /// Stable identifier: `file/column/environment/config`.
    pub id: String,
    /// What it was computed from.
    pub inputs: Inputs,
    /// Environment, when the file has an environment column.
    pub environment: Option<String>,
    /// Values of the `group-by` columns.
    pub config: BTreeMap<String, String>,
    /// The statistics.
    pub summary: Summary,
    /// Where the values come from (`[data.NAME] provenance`); without an
    /// interval or a test when they were not measured.
    pub provenance: crate::config::Provenance,
}

/// A candidate environment against the baseline in one configuration.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// Stable identifier: `file/column/candidate-vs-baseline/config`.
    pub id: String,
    /// What it was computed from.
    pub inputs: Inputs,
    /// Values of the `group-by` columns.
    pub config: BTreeMap<String, String>,
    /// The baseline side.
    pub baseline: Side,
    /// The candidate side.
    pub candidate: Side,
    /// candidate mean / baseline mean.
    pub ratio: f64,
    /// ratio − 1.
    pub relative: f64,
    /// 95% CI of the relative difference (Welch's t on the log scale, so
    /// it stays above −100%); absent when a side has n < 2 or neither varies.
    pub ci: Option<[f64; 2]>,
    /// p-value of "no difference" from the same model as `ci`.
    pub p_value: Option<f64>,
    /// The model behind `ci` and `p_value`.
    pub model: statistics::model::Model,
    /// The comparison by medians; absent past the sizes rank statistics take.
    pub median: Option<MedianComparison>,
    /// Mann–Whitney's rank test and Cliff's delta; absent likewise.
    pub rank: Option<ranks::RankTest>,
    /// Where the values come from; no interval or test when not measured.
    pub provenance: crate::config::Provenance,
}

/// A comparison by medians: one model (Hodges–Lehmann, Mann–Whitney U)
/// behind the estimate, its interval and its p-value.
#[derive(Debug, Clone, Serialize)]
pub struct MedianComparison {
    /// candidate median / baseline median, for reference; absent when the
    /// baseline median is 0.
    pub ratio_of_medians: Option<f64>,
    /// The Hodges–Lehmann ratio (the median of the pairwise ratios) − 1.
    pub relative: f64,
    /// Its 95% interval, inverting Mann–Whitney's test; absent when the
    /// sample sizes cannot reach p < 0.05, or a side has one run.
    pub ci: Option<[f64; 2]>,
    /// Whether each end of `ci` is excluded (tied runs); absent when both
    /// are included.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ci_open: Option<[bool; 2]>,
    /// Mann–Whitney's two-sided p-value; absent when a side has one run.
    pub p_value: Option<f64>,
}

/// Speedup and parallel efficiency of one environment at one process count.
#[derive(Debug, Clone, Serialize)]
pub struct ScalingPoint {
    /// Results file.
    pub file: String,
    /// Column measured.
    pub column: String,
    /// Environment.
    pub environment: Option<String>,
    /// Process count.
    pub procs: f64,
    /// Mean value at this count.
    pub mean: f64,
    /// Runs at this count.
    pub n: usize,
    /// Against the smallest count: mean / mean₀ for throughputs, mean₀ / mean for times.
    pub speedup: f64,
    /// speedup × procs₀ / procs.
    pub efficiency: f64,
    /// Where the values come from.
    pub provenance: crate::config::Provenance,
}

/// Compute every statistic: per-group summaries, comparisons, scaling and the
/// named metrics of book.toml. Every number of the result is finite: one that
/// is not is an error at the metric, column or scaling analysis it came from.
pub fn analyze(results: &ResultSet, config: &Config) -> Result<Analysis, Diagnostics> {
    analyze_excluding(results, config, Vec::new())
}

/// [`analyze`] `results` from which [`exclude`] removed `excluded`: each
/// exclusion is kept in the analysis and stated as a caveat.
pub fn analyze_excluding(
    results: &ResultSet,
    config: &Config,
    excluded: Vec<Excluded>,
) -> Result<Analysis, Diagnostics> {
    // The metrics and the per-group tables read the results alone: each
    // fills the core the other leaves idle.
    let (metrics, (tables, history)) = rayon::join(
        || metrics::evaluate(results, config),
        || (summarise(results, config), history::analyze(results, config)),
    );
    let mut analysis = Analysis { metrics: metrics?, excluded, history: history?, ..tables? };
    overflow::check(&analysis, results, config)?;
    let origins = provenance::Origins::of(results, config);
    origins.apply(&mut analysis, config);
    provenance::check_published(&analysis, config)?;
    analysis.caveats = findings::study::derive(
        results,
        config,
        &analysis.metrics,
        &analysis.groups,
        &analysis.comparisons,
    );
    origins.keep_measured(&mut analysis);
    Ok(analysis)
}

/// The summaries, comparisons and scaling of every table, and the warnings
/// about the study; neither metrics nor exclusions yet.
fn summarise(results: &ResultSet, config: &Config) -> Result<Analysis, Diagnostics> {
    let mut analysis = Analysis {
        warnings: unused_environments(results, config)
            .into_iter()
            .chain(crate::config::authorless(config))
            .collect(),
        confidence: CONFIDENCE,
        metrics: Vec::new(),
        groups: Vec::new(),
        comparisons: Vec::new(),
        scaling: Vec::new(),
        caveats: Vec::new(),
        excluded: Vec::new(),
        history: None,
    };
    let mut errors = Diagnostics::default();
    for table in results.tables.values() {
        let dataset = config.data.get(&table.name).cloned().unwrap_or_default();
        if let Err(error) = groups::summarise(table, &dataset, config, &mut analysis) {
            errors.push(error);
        }
    }
    errors.into_result(analysis)
}

/// A warning for each environment book.toml declares that no results row
/// has (in files with the environment column), at its declaration.
fn unused_environments(results: &ResultSet, config: &Config) -> Vec<crate::diagnostic::Diagnostic> {
    let column = config.study.environment_column.as_str();
    let tables: Vec<&crate::results::Table> =
        results.tables.values().filter(|t| t.column(column).is_some()).collect();
    if tables.is_empty() {
        return Vec::new();
    }
    let used = |name: &str| {
        let only =
            BTreeMap::from([(column.to_string(), crate::config::FilterValue::Text(name.into()))]);
        tables.iter().any(|t| filter::aggregate(t, &only, &[], &[]).is_ok_and(|g| !g.is_empty()))
    };
    let file = crate::diagnostic::Location::file("book.toml");
    config
        .environments_in_order()
        .into_iter()
        .filter(|(name, _)| !used(name))
        .map(|(name, _)| {
            let at = config.at.or(&format!("environments.{name}.label"), &file);
            crate::diagnostic::Diagnostic::new(
                at,
                format!("environment `{name}` has no rows in the results"),
            )
            .hint(format!(
                "check its name against the `{column}` column, or remove it from book.toml"
            ))
        })
        .collect()
}

impl Analysis {
    /// The metric called `name`.
    pub fn metric(&self, name: &str) -> Option<&MetricValue> {
        self.metrics.iter().find(|m| m.name == name)
    }
}
