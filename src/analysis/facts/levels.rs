//! How many levels a configuration column has, and what they span; how
//! many runs a results file holds.

use super::super::Analysis;
use super::level_order;

/// The distinct levels of the configuration column `by` of `file` (or of
/// its environment column), in order (numbers as numbers).
pub fn levels(analysis: &Analysis, file: &str, by: &str, environment_column: &str) -> Vec<String> {
    let mut levels: Vec<String> = Vec::new();
    for g in analysis.groups.iter().filter(|g| g.inputs.file == file) {
        let level =
            if by == environment_column { g.environment.as_ref() } else { g.config.get(by) };
        if let Some(level) = level.filter(|l| !levels.contains(l)) {
            levels.push(level.clone());
        }
    }
    levels.sort_by(|a, b| level_order(a, b));
    levels
}

/// The runs of `file` the analysis summarised: the rows of its best
/// covered column (a row without a value in one column still counts).
pub fn runs(analysis: &Analysis, file: &str) -> usize {
    let mut by_column: std::collections::BTreeMap<&str, usize> = Default::default();
    for g in analysis.groups.iter().filter(|g| g.inputs.file == file) {
        *by_column.entry(&g.inputs.column).or_default() += g.summary.n;
    }
    by_column.into_values().max().unwrap_or(0)
}
