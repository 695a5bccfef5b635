//! Findings of the whole study, besides the numbers of its metrics: the
//! node counts the runs record (where a node-count column exists),
//! non-significant headline differences, too few runs, and configurations
//! measured in only some environments. Nothing here speaks of a setting the
//! data do not record.

use std::collections::{BTreeMap, BTreeSet};

use super::{FewRuns, Finding, MetricFinding, Unmatched};
use crate::analysis::{Comparison, Group, MetricValue};
use crate::config::Config;
use crate::results::ResultSet;

/// Every finding of the study, in the order its caveats are listed.
pub(crate) fn derive(
    results: &ResultSet,
    config: &Config,
    metrics: &[MetricValue],
    groups: &[Group],
    comparisons: &[Comparison],
) -> Vec<Finding> {
    let mut found: Vec<Finding> = nodes(results, config).into_iter().collect();
    for (metric, m) in metrics.iter().enumerate() {
        if m.headline && m.significant == Some(false) {
            found.push(Finding::Metric { metric, about: MetricFinding::NotSignificant });
        }
    }
    found.extend(few_runs(groups, comparisons));
    found.extend(unmatched(groups, comparisons));
    found.extend(super::metrics::derive(metrics, groups));
    found.extend(super::sources::derive(results, config, metrics));
    found
}

/// The node counts recorded, as a fact of the data. Nothing without a
/// node-count column (`[study] nodes-column`): what the setting implies is
/// the author's to say (`[[caveats]]` of book.toml).
fn nodes(results: &ResultSet, config: &Config) -> Option<Finding> {
    let survey = NodeSurvey::of(results, config);
    (!survey.counts.is_empty())
        .then(|| Finding::Nodes { rows: survey.runs, counts: survey.counts.into_iter().collect() })
}

/// What the tables with a node-count column say about where the runs ran.
struct NodeSurvey {
    /// Every node count recorded (empty cells left out).
    counts: BTreeSet<crate::analysis::queries::filter::KeyPart>,
    /// Rows in those tables.
    runs: usize,
}

impl NodeSurvey {
    /// Survey every table of `results` that has the study's node-count column.
    fn of(results: &ResultSet, config: &Config) -> NodeSurvey {
        let column = &config.study.nodes_column;
        let mut survey = NodeSurvey { counts: BTreeSet::new(), runs: 0 };
        for table in results.tables.values() {
            let Some(nodes) = table.column(column).and_then(|c| c.values.numbers()) else {
                continue;
            };
            survey.runs += table.len();
            // Each distinct value goes to the ordered set once, in row order: a
            // hash of the bits seen is cheaper per row than a search of the set.
            let mut seen = rustc_hash::FxHashSet::default();
            for &n in nodes.iter().filter(|n| !n.is_nan()) {
                if seen.insert(n.to_bits()) {
                    survey.counts.insert(crate::analysis::queries::filter::KeyPart::Number(n));
                }
            }
        }
        survey
    }
}

/// Configurations compared with fewer than three runs on a side.
fn few_runs(groups: &[Group], comparisons: &[Comparison]) -> Option<Finding> {
    let compared: BTreeSet<(&str, &str)> =
        comparisons.iter().map(|c| (c.inputs.file.as_str(), c.inputs.column.as_str())).collect();
    let mut small: BTreeMap<&str, BTreeMap<_, usize>> = BTreeMap::new();
    for g in groups.iter().filter(|g| {
        g.summary.n < 3 && compared.contains(&(g.inputs.file.as_str(), g.inputs.column.as_str()))
    }) {
        let key = (&g.environment, &g.config);
        let n = small.entry(g.inputs.file.as_str()).or_default().entry(key).or_insert(g.summary.n);
        *n = (*n).min(g.summary.n);
    }
    let few: Vec<FewRuns> = small
        .iter()
        .map(|(file, groups)| FewRuns {
            file: (*file).to_string(),
            configurations: groups.len(),
            smallest: groups.values().copied().min().unwrap_or(0),
        })
        .collect();
    (!few.is_empty()).then_some(Finding::FewRuns(few))
}

/// Configurations present for some environments only, which comparisons skip.
fn unmatched(groups: &[Group], comparisons: &[Comparison]) -> Option<Finding> {
    type Seen<'a> = BTreeMap<(&'a str, &'a BTreeMap<String, String>), BTreeSet<&'a str>>;
    let mut seen: Seen = BTreeMap::new();
    let compared: BTreeSet<&str> = comparisons.iter().map(|c| c.inputs.file.as_str()).collect();
    for g in groups.iter().filter(|g| compared.contains(g.inputs.file.as_str())) {
        let Some(env) = g.environment.as_deref() else { continue };
        seen.entry((g.inputs.file.as_str(), &g.config)).or_default().insert(env);
    }
    let all: BTreeSet<&str> = seen.values().flatten().copied().collect();
    let partial: Vec<Unmatched> = seen
        .iter()
        .filter(|(_, envs)| envs.len() < all.len())
        .map(|((file, cfg), envs)| Unmatched {
            file: (*file).to_string(),
            config: (*cfg).clone(),
            environments: envs.iter().map(|e| e.to_string()).collect(),
        })
        .collect();
    (!partial.is_empty()).then_some(Finding::Unmatched(partial))
}
