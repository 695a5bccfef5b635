//! Where a column's mean is largest or smallest along one configuration
//! column, in each environment: "bandwidth peaks at 64 KiB".

use std::cmp::Ordering;

use super::super::Analysis;
use super::{groups, level_order};

/// Which end: the largest mean or the smallest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The largest mean.
    Max,
    /// The smallest mean.
    Min,
}

/// The end of one environment's means along the levels.
#[derive(Debug, Clone, PartialEq)]
pub struct At {
    /// The environment; `None` when the file has no environment column.
    pub environment: Option<String>,
    /// The level where the mean is at the end (the first, in the levels'
    /// order, of tied ones).
    pub level: String,
    /// The mean there.
    pub mean: f64,
    /// Its runs.
    pub n: usize,
    /// The levels compared.
    pub levels: usize,
}

/// Where each environment's mean of a column is at its `end` along `by`.
#[derive(Debug, Clone, PartialEq)]
pub struct Peak {
    /// The end sought.
    pub end: End,
    /// Each environment's, in the order the analysis lists them.
    pub at: Vec<At>,
}

/// Where the mean of `column` of `file` is at its `end` along the
/// configuration column `by`, for each environment (or the one named);
/// `None` when no group has that column and level. The file's other
/// configuration columns must not vary (else the means mix them): the
/// caller checks [`varying`] first.
pub fn peak(
    analysis: &Analysis,
    (file, column, by): (&str, &str, &str),
    end: End,
    environment: Option<&str>,
) -> Option<Peak> {
    let mut at: Vec<At> = Vec::new();
    let mut sorted: Vec<_> = groups(analysis, file, column)
        .filter(|g| environment.is_none_or(|e| g.environment.as_deref() == Some(e)))
        .filter(|g| g.summary.mean.is_finite())
        .filter_map(|g| Some((g, g.config.get(by)?)))
        .collect();
    sorted.sort_by(|a, b| level_order(a.1, b.1));
    for (g, level) in sorted {
        let better = |current: &At| match end {
            End::Max => g.summary.mean.total_cmp(&current.mean) == Ordering::Greater,
            End::Min => g.summary.mean.total_cmp(&current.mean) == Ordering::Less,
        };
        match at.iter_mut().find(|a| a.environment == g.environment) {
            Some(current) => {
                current.levels += 1;
                if better(current) {
                    (current.level, current.mean, current.n) =
                        (level.clone(), g.summary.mean, g.summary.n);
                }
            }
            None => at.push(At {
                environment: g.environment.clone(),
                level: level.clone(),
                mean: g.summary.mean,
                n: g.summary.n,
                levels: 1,
            }),
        }
    }
    let order: Vec<Option<&String>> = environments(analysis, file);
    at.sort_by_key(|a| order.iter().position(|e| *e == a.environment.as_ref()));
    (!at.is_empty()).then_some(Peak { end, at })
}

/// The environments of `file`, in the order of the analysis's groups.
fn environments<'a>(analysis: &'a Analysis, file: &str) -> Vec<Option<&'a String>> {
    let mut order = Vec::new();
    for g in analysis.groups.iter().filter(|g| g.inputs.file == file) {
        if !order.contains(&g.environment.as_ref()) {
            order.push(g.environment.as_ref());
        }
    }
    order
}

/// The configuration columns of `file` other than `by` whose values vary
/// among the groups of `column`: a peak along `by` would mix them.
pub fn varying(analysis: &Analysis, (file, column, by): (&str, &str, &str)) -> Vec<String> {
    let mut seen: std::collections::BTreeMap<&str, &str> = std::collections::BTreeMap::new();
    let mut varying = Vec::new();
    for g in groups(analysis, file, column) {
        for (key, value) in g.config.iter().filter(|(k, _)| *k != by) {
            match seen.insert(key, value) {
                Some(before) if before != value && !varying.contains(key) => {
                    varying.push(key.clone())
                }
                _ => {}
            }
        }
    }
    varying
}
