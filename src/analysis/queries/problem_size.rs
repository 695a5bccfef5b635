//! `problem-size` of `[data.NAME]`: a comparison whose baseline and candidate
//! rows solve problems of different sizes (within a configuration) compares
//! different problems, and is refused.

use std::collections::{BTreeMap, BTreeSet};

use super::filter::{self, KeyPart};
use crate::config::{Dataset, Metric};
use crate::diagnostic::{Diagnostic, Location, list, suggest};
use crate::results::Table;

/// A problem found: the metric's key to blame, the message and the hint.
pub(crate) type Problem = (&'static str, String, String);

/// Check that, in every configuration of `metric` (every value of `per`),
/// `candidate` and `baseline` ran the same sizes of each `problem-size`
/// column of `dataset`. A column the file lacks is an error at `problem-size`.
pub(crate) fn check(
    metric: &Metric,
    table: &Table,
    dataset: &Dataset,
    (env_column, candidate, baseline): (&str, &str, &str),
) -> Result<Result<(), Problem>, Diagnostic> {
    for (i, column) in dataset.problem_size.iter().enumerate() {
        if table.column(column).is_none() {
            let at = dataset.at.get(&format!("problem-size.{i}")).cloned();
            let message =
                format!("problem-size: {} has no column `{column}`", table.path.display());
            return Err(Diagnostic::new(
                at.unwrap_or_else(|| Location::file("book.toml")),
                message,
            )
            .hint(suggest(column, table.column_names())));
        }
        if metric.per.as_ref() == Some(column) {
            continue;
        }
        let by: Vec<&str> = [env_column]
            .into_iter()
            .chain(metric.per.as_deref())
            .chain([column.as_str()])
            .collect();
        let groups = filter::aggregate(table, &metric.filter, &by, &[]).unwrap_or_default();
        // Per configuration (the `per` value, if any), the sizes of each side.
        let mut sizes: BTreeMap<Vec<KeyPart>, [BTreeSet<String>; 2]> = BTreeMap::new();
        for g in &groups {
            let side = match &g.key[0] {
                KeyPart::Text(e) if e == candidate => 0,
                KeyPart::Text(e) if e == baseline => 1,
                _ => continue,
            };
            let config = g.key[1..g.key.len() - 1].to_vec();
            sizes.entry(config).or_default()[side].insert(g.key[g.key.len() - 1].to_string());
        }
        for (config, [c, b]) in &sizes {
            if c != b && !c.is_empty() && !b.is_empty() {
                return Ok(Err(differ(metric, column, config, [c, b], [candidate, baseline])));
            }
        }
    }
    Ok(Ok(()))
}

/// The problem of sides that differ in the problem-size `column`.
fn differ(
    metric: &Metric,
    column: &str,
    config: &[KeyPart],
    [c, b]: [&BTreeSet<String>; 2],
    [candidate, baseline]: [&str; 2],
) -> Problem {
    let at = match (&metric.per, config.first()) {
        (Some(per), Some(v)) => format!(" at {per} = {v}"),
        _ => String::new(),
    };
    let shown = |s: &BTreeSet<String>| list(s.iter().map(String::as_str));
    let common: Vec<&String> = c.intersection(b).collect();
    let hint = match common.first() {
        Some(size) => format!(
            "compare one problem size with `where = {{ {column} = {size} }}` (both environments ran it)"
        ),
        None => format!(
            "the environments share no `{column}`{at}: narrow `where` to runs of one problem size on both sides"
        ),
    };
    (
        "where",
        format!(
            "`{candidate}` ran `{column}` = {} but `{baseline}` ran {}{at}: the problem size differs between the sides, so the comparison would measure different problems",
            shown(c),
            shown(b)
        ),
        hint,
    )
}
