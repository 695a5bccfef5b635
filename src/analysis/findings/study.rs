//! Caveats derived from the data, not remembered by the author: the node
//! counts the runs record (where a node-count column exists), non-significant
//! headline differences, too few runs, and configurations measured in only
//! one environment. Nothing here speaks of a setting the data do not record.

use std::collections::{BTreeMap, BTreeSet};

use super::{Caveat, CaveatKind, join};
use crate::analysis::{Comparison, Group, MetricValue};
use crate::config::Config;
use crate::prose::metric as wording;
use crate::results::ResultSet;

/// Derive every caveat of the study.
pub fn derive(
    results: &ResultSet,
    config: &Config,
    metrics: &[MetricValue],
    groups: &[Group],
    comparisons: &[Comparison],
) -> Vec<Caveat> {
    let mut caveats: Vec<Caveat> = nodes(results, config).into_iter().collect();
    for m in metrics.iter().filter(|m| m.headline && m.significant == Some(false)) {
        caveats.push(Caveat {
            kind: CaveatKind::NotSignificant,
            text: format!(
                "{}: the difference of {} is not statistically significant ({}).",
                m.label,
                wording::metric_value(m),
                wording::metric_ci(m)
            ),
            metric: Some(m.name.clone()),
        });
    }
    caveats.extend(few_runs(groups, comparisons));
    caveats.extend(unmatched(groups, comparisons, config));
    caveats.extend(super::metrics::derive(metrics, groups));
    caveats
}

/// What the node counts recorded say, as a fact of the data: every run on
/// one node, or the counts the runs cover. Nothing without a node-count
/// column (`[study] nodes-column`): what the setting implies is the
/// author's to say (`[[caveats]]` of book.toml).
fn nodes(results: &ResultSet, config: &Config) -> Option<Caveat> {
    let survey = NodeSurvey::of(results, config);
    let runs = crate::format::count(survey.runs);
    let counts: Vec<String> = survey.counts.iter().map(ToString::to_string).collect();
    match counts.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        [] => None,
        ["1"] => Some(Caveat {
            kind: CaveatKind::SingleNode,
            metric: None,
            text: format!(
                "All {runs} rows of results come from runs on one node: they do not cover runs across several nodes."
            ),
        }),
        _ => Some(Caveat {
            kind: CaveatKind::NodeCounts,
            metric: None,
            text: format!(
                "The {runs} rows of results come from runs on {} nodes; a result at one node count need not hold at another.",
                join(&counts)
            ),
        }),
    }
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
fn few_runs(groups: &[Group], comparisons: &[Comparison]) -> Option<Caveat> {
    let compared: BTreeSet<(&str, &str)> =
        comparisons.iter().map(|c| (c.inputs.file.as_str(), c.inputs.column.as_str())).collect();
    let mut small: BTreeMap<&str, BTreeMap<String, usize>> = BTreeMap::new();
    for g in groups.iter().filter(|g| {
        g.summary.n < 3 && compared.contains(&(g.inputs.file.as_str(), g.inputs.column.as_str()))
    }) {
        let key = format!("{:?} {:?}", g.environment, g.config);
        let n = small.entry(g.inputs.file.as_str()).or_default().entry(key).or_insert(g.summary.n);
        *n = (*n).min(g.summary.n);
    }
    let few: BTreeMap<&str, (usize, usize)> = small
        .iter()
        .map(|(file, groups)| (*file, (groups.len(), groups.values().copied().min().unwrap_or(0))))
        .collect();
    (!few.is_empty()).then(|| Caveat {
        kind: CaveatKind::FewRuns,
        metric: None,
        text: few.iter().map(|(file, (count, n))| format!("{file} has {count} {} with fewer than 3 runs (the smallest has n = {n}); their intervals are wide or missing.",
            if *count == 1 { "configuration" } else { "configurations" }))
            .collect::<Vec<_>>().join(" "),
    })
}

/// Configurations present for some environments only, which comparisons skip.
fn unmatched(groups: &[Group], comparisons: &[Comparison], config: &Config) -> Option<Caveat> {
    let mut seen: BTreeMap<(&str, String), BTreeSet<&str>> = BTreeMap::new();
    let compared: BTreeSet<&str> = comparisons.iter().map(|c| c.inputs.file.as_str()).collect();
    for g in groups.iter().filter(|g| compared.contains(g.inputs.file.as_str())) {
        let Some(env) = g.environment.as_deref() else { continue };
        let cfg = g.config.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ");
        seen.entry((g.inputs.file.as_str(), cfg)).or_default().insert(env);
    }
    let all: BTreeSet<&str> = seen.values().flatten().copied().collect();
    let partial: Vec<String> = seen
        .iter()
        .filter(|(_, envs)| envs.len() < all.len())
        .map(|((file, cfg), envs)| {
            let labels: Vec<String> = envs
                .iter()
                .map(|e| {
                    config.environments.get(*e).map_or_else(|| e.to_string(), |x| x.label.clone())
                })
                .collect();
            format!("{file}: {cfg} was measured only in {}", join(&labels))
        })
        .collect();
    (!partial.is_empty()).then(|| Caveat {
        kind: CaveatKind::Unmatched,
        metric: None,
        text: format!("The environments were not measured at the same configurations, and comparisons skip the unmatched ones. {}.", partial.join("; ")),
    })
}
