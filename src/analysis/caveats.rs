//! Caveats derived from the data, not remembered by the author: the node
//! counts behind every comparison, non-significant headline differences, too
//! few runs, and configurations measured in only one environment.

use std::collections::{BTreeMap, BTreeSet};

use super::caveat::{Caveat, CaveatKind, join};
use super::wording;
use super::{Comparison, Group, MetricValue};
use crate::config::Config;
use crate::results::{ResultSet, Values};

/// Derive every caveat of the study.
pub fn derive(
    results: &ResultSet,
    config: &Config,
    metrics: &[MetricValue],
    groups: &[Group],
    comparisons: &[Comparison],
) -> Vec<Caveat> {
    let mut caveats = vec![nodes(results, config)];
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
    caveats.extend(super::data_caveats::derive(metrics, groups));
    caveats
}

/// The node-count caveat: single node, several node counts, or unknown.
fn nodes(results: &ResultSet, config: &Config) -> Caveat {
    let survey = NodeSurvey::of(results, config);
    let column = &config.study.nodes_column;
    let runs = survey.runs;
    let compared = join(&survey.environment_labels(config));
    let files = join(&survey.files);
    let counts: Vec<String> = survey.counts.iter().map(ToString::to_string).collect();
    match counts.iter().collect::<Vec<_>>().as_slice() {
        [] => Caveat {
            kind: CaveatKind::NodesUnknown,
            metric: None,
            text: format!(
                "The results do not record how many nodes each run used (no `{column}` column), so they cannot say whether a network between nodes was involved."
            ),
        },
        [one] if one.as_str() == "1" => Caveat {
            kind: CaveatKind::SingleNode,
            metric: None,
            text: format!(
                "All {runs} result rows ({files}), for {compared}, come from runs on a single node ({column} = 1). \
             Messages between processes never crossed a physical network; between containers they crossed a virtual bridge \
             in the kernel. The results do not speak for clusters of several nodes."
            ),
        },
        many => Caveat {
            kind: CaveatKind::NodeCounts,
            metric: None,
            text: format!(
                "The {runs} result rows ({files}), for {compared}, come from runs on {} nodes; a result at one node count need not hold at another.",
                join(&many.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            ),
        },
    }
}

/// What the tables with a node-count column say about where the runs ran.
struct NodeSurvey {
    /// Every node count recorded (empty cells left out).
    counts: BTreeSet<crate::analysis::filter::KeyPart>,
    /// Every environment named in those tables.
    envs: BTreeSet<String>,
    /// Rows in those tables.
    runs: usize,
    /// `N in FILE` for each of those tables.
    files: Vec<String>,
}

impl NodeSurvey {
    /// Survey every table of `results` that has the study's node-count column.
    fn of(results: &ResultSet, config: &Config) -> NodeSurvey {
        let column = &config.study.nodes_column;
        let env_column = &config.study.environment_column;
        let mut survey = NodeSurvey {
            counts: BTreeSet::new(),
            envs: BTreeSet::new(),
            runs: 0,
            files: Vec::new(),
        };
        for table in results.tables.values() {
            let Some(nodes) = table.column(column).and_then(|c| c.values.numbers()) else {
                continue;
            };
            survey.runs += table.len();
            survey.files.push(format!("{} in {}", table.len(), table.path.display()));
            // Each distinct value goes to the ordered set once, in row order: a
            // hash of the bits seen is cheaper per row than a search of the set.
            let mut seen = rustc_hash::FxHashSet::default();
            for &n in nodes.iter().filter(|n| !n.is_nan()) {
                if seen.insert(n.to_bits()) {
                    survey.counts.insert(crate::analysis::filter::KeyPart::Number(n));
                }
            }
            if let Some(Values::Text(e)) = table.column(env_column).map(|c| &c.values) {
                survey.envs.extend(e.words.iter().cloned());
            }
        }
        survey
    }

    /// The environments' labels from book.toml (their names when undeclared), in name order.
    fn environment_labels(&self, config: &Config) -> Vec<String> {
        self.envs
            .iter()
            .map(|e| config.environments.get(e).map_or_else(|| e.clone(), |x| x.label.clone()))
            .collect()
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
