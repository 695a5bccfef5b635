//! Runs of one configuration that came from different sources (sessions,
//! files: the `source` column `report import` records) and differ beyond
//! their noise: pooled, they would mix conditions silently. Within each
//! configuration of each column a metric reads, every two sources are
//! compared by Mann–Whitney's test (the rank test of the comparisons),
//! and Holm's correction runs across all those tests of the column; the
//! pairs that stay significant make one finding per column.

use std::collections::BTreeMap;

use super::{Configuration, Finding};
use crate::analysis::MetricValue;
use crate::analysis::queries::filter::{self, KeyPart};
use crate::analysis::statistics::{CONFIDENCE, ranks};
use crate::config::Config;
use crate::results::{ResultSet, Values};

/// The column in which `report import` records where each run came from.
pub const SOURCE_COLUMN: &str = "source";

/// Two sources of one configuration whose runs differ.
#[derive(Debug, Clone, PartialEq)]
pub struct Shift {
    /// The configuration.
    pub at: Configuration,
    /// The two sources, in order, each with its runs and their median.
    pub sources: [(String, usize, f64); 2],
    /// Mann–Whitney's two-sided p.
    pub p: f64,
    /// Its p after Holm's correction across the column's tests.
    pub p_holm: f64,
}

/// The sources of one column whose runs differ within a configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Sources {
    /// The results file.
    pub file: String,
    /// The column.
    pub column: String,
    /// Tests made: pairs of sources within a configuration whose run
    /// counts let the test reach p < 0.05.
    pub tested: usize,
    /// The pairs that differ after Holm's correction, the smallest p first.
    pub shifts: Vec<Shift>,
}

/// One finding per column read by `metrics` whose file has a text
/// [`SOURCE_COLUMN`] and whose runs of some configuration differ between
/// sources after Holm's correction.
pub(super) fn derive(
    results: &ResultSet,
    config: &Config,
    metrics: &[MetricValue],
) -> Vec<Finding> {
    let mut read: Vec<(&str, &str)> =
        metrics.iter().map(|m| (m.inputs.file.as_str(), m.inputs.column.as_str())).collect();
    read.sort_unstable();
    read.dedup();
    read.into_iter().filter_map(|(file, column)| of_column(results, config, file, column)).collect()
}

/// The samples of one column by configuration, then by source.
type BySource = BTreeMap<Vec<KeyPart>, BTreeMap<String, Vec<f64>>>;

fn of_column(results: &ResultSet, config: &Config, file: &str, column: &str) -> Option<Finding> {
    let table = results.tables.values().find(|t| t.path.display().to_string() == file)?;
    if !matches!(table.column(SOURCE_COLUMN).map(|c| &c.values), Some(Values::Text(_))) {
        return None;
    }
    let by = configuration_columns(config, table);
    let mut keys: Vec<&str> = by.iter().map(String::as_str).collect();
    keys.push(SOURCE_COLUMN);
    let groups = filter::aggregate(table, &BTreeMap::new(), &keys, &[column]).ok()?;
    let mut samples: BySource = BTreeMap::new();
    for mut g in groups {
        let source = g.key.pop()?.to_string();
        let mut values = std::mem::take(&mut g.samples[0]);
        values.retain(|v| !v.is_nan());
        values.sort_by(f64::total_cmp);
        if !values.is_empty() {
            samples.entry(g.key).or_default().insert(source, values);
        }
    }
    let env = config.study.environment_column.as_str();
    let tests = tests(&samples, &by, env);
    let ps: Vec<f64> = tests.iter().map(|t| t.p).collect();
    let adjusted = crate::analysis::metrics::sides::adjusted(&ps);
    let tested = tests.len();
    let mut shifts: Vec<Shift> = tests
        .into_iter()
        .zip(adjusted)
        .map(|(t, p_holm)| Shift { p_holm, ..t })
        .filter(|t| t.p_holm < 1.0 - CONFIDENCE)
        .collect();
    shifts.sort_by(|a, b| a.p.total_cmp(&b.p).then_with(|| a.at.cmp(&b.at)));
    let (file, column) = (file.to_string(), column.to_string());
    (!shifts.is_empty()).then_some(Finding::Sources(Sources { file, column, tested, shifts }))
}

/// The columns that define a configuration of `table`: the environment
/// column, the file's `group-by` and the study's factors, those it has.
fn configuration_columns(config: &Config, table: &crate::results::Table) -> Vec<String> {
    let dataset = config.data.get(&table.name);
    let group_by = dataset.map(|d| d.group_by.as_slice()).unwrap_or_default();
    let mut by: Vec<String> = Vec::new();
    let env = std::iter::once(&config.study.environment_column);
    for c in env.chain(group_by).chain(&config.study.factors) {
        if c != SOURCE_COLUMN && table.column(c).is_some() && !by.contains(c) {
            by.push(c.clone());
        }
    }
    by
}

/// Mann–Whitney's test of every two sources of each configuration whose
/// run counts let it reach p < 0.05, in order; `p_holm` not yet set.
fn tests(samples: &BySource, by: &[String], env: &str) -> Vec<Shift> {
    let mut tests = Vec::new();
    for (key, sources) in samples {
        let at = configuration(key, by, env);
        let sources: Vec<(&String, &Vec<f64>)> = sources.iter().collect();
        for (i, (a, x)) in sources.iter().enumerate() {
            for (b, y) in &sources[i + 1..] {
                if ranks::min_p(x.len(), y.len()) >= 1.0 - CONFIDENCE {
                    continue;
                }
                let Some(test) = ranks::mann_whitney(x, y) else { continue };
                let side = |s: &String, v: &Vec<f64>| (s.clone(), v.len(), median(v));
                let sources = [side(a, x), side(b, y)];
                tests.push(Shift { at: at.clone(), sources, p: test.p, p_holm: test.p });
            }
        }
    }
    tests
}

/// The configuration of a group's `key` over the columns `by`.
fn configuration(key: &[KeyPart], by: &[String], env: &str) -> Configuration {
    let mut at = Configuration::default();
    for (column, part) in by.iter().zip(key) {
        match column == env {
            true => at.environment = Some(part.to_string()),
            false => {
                at.values.insert(column.clone(), part.to_string());
            }
        }
    }
    at
}

/// The median of ascending `sorted` (not empty).
fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    (sorted[(n - 1) / 2] + sorted[n / 2]) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two sessions of one configuration, ten runs each, all of the second
    /// above all of the first: U = 0, and without ties the exact p is
    /// 2 / C(20, 10) = 2 / 184,756 (by hand); a third source of one run
    /// cannot reach 0.05 against ten (min p 2 / 11) and is not tested.
    #[test]
    fn a_slower_session_is_found_by_its_rank_test() {
        let first: Vec<f64> = (0..10).map(|i| 10.0 + 0.01 * i as f64).collect();
        let second: Vec<f64> = (0..10).map(|i| 13.0 + 0.01 * i as f64).collect();
        let mut sources = BTreeMap::new();
        sources.insert("a.json".to_string(), first);
        sources.insert("b.json".to_string(), second);
        sources.insert("c.json".to_string(), vec![11.0]);
        let samples: BySource = BTreeMap::from([(vec![KeyPart::Text("x".into())], sources)]);
        let found = tests(&samples, &["environment".to_string()], "environment");
        assert_eq!(found.len(), 1, "{found:?}");
        let want = 2.0 / 184_756.0;
        assert!((found[0].p / want - 1.0).abs() < 1e-9, "{} vs {want}", found[0].p);
        assert_eq!(found[0].sources[0], ("a.json".to_string(), 10, 10.045));
        assert_eq!(found[0].at.environment.as_deref(), Some("x"));
    }
}
