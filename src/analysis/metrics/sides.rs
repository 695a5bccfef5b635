//! The factor a metric compares along and its two levels (the baseline
//! possibly the best of the other levels, chosen from the data), the family
//! of comparisons a metric with `candidates` or `each` expands into, and
//! Holm's correction for a family.

use crate::math;
use std::collections::BTreeMap;

use serde::Serialize;

use crate::analysis::queries::filter::{self, KeyPart};
use crate::config::{Better, Candidates, Compare, Config, Estimator, FilterValue, Level, Metric};
use crate::results::Table;

/// The factor column a metric compares along, and the candidate's and the
/// baseline's levels of it, as text (numbers as [`KeyPart`] writes them).
#[derive(Debug, Clone, PartialEq)]
pub struct Sides {
    /// The factor column.
    pub factor: String,
    /// The candidate's level.
    pub candidate: String,
    /// The baseline's level.
    pub baseline: String,
}

/// One comparison of a family: its candidate and, with `each`, the value of
/// `per` it is made at.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Member {
    /// The candidate's level.
    pub candidate: String,
    /// `per = value`, with `each`.
    pub at: Option<String>,
}

/// A problem with a metric's sides: the book.toml key at fault, the
/// message and the hint.
pub type Problem = (&'static str, String, String);

/// The sides of `metric`: its factor (default the environment column), its
/// baseline (default the study's) and its candidate (default the one other
/// environment).
pub fn of(metric: &Metric, config: &Config) -> Result<Sides, Problem> {
    let env = &config.study.environment_column;
    let factor = metric.factor.clone().unwrap_or_else(|| env.clone());
    let baseline = match &metric.baseline {
        Some(level) => level.to_string(),
        None => config.study.baseline.clone(),
    };
    let candidate = match &metric.candidate {
        Some(level) => level.to_string(),
        None if factor != *env => {
            let hint = "name the level to compare with `candidate`, or several with `candidates`";
            return Err(("candidate", format!("no candidate level of `{factor}`"), hint.into()));
        }
        None => only_other(metric, config)?,
    };
    Ok(Sides { factor, candidate, baseline })
}

/// The one environment that is not the baseline (the baseline itself for a
/// summary when there is none).
fn only_other(metric: &Metric, config: &Config) -> Result<String, Problem> {
    let baseline = &config.study.baseline;
    let others: Vec<&String> = config.environments.keys().filter(|e| *e != baseline).collect();
    match (metric.compare, others.as_slice()) {
        (Compare::Summary, _) if others.is_empty() => Ok(baseline.clone()),
        (_, [one]) => Ok((*one).clone()),
        _ => Err((
            "candidate",
            format!("cannot tell which environment to compare with `{baseline}`"),
            "set `candidate` to the environment to compare".into(),
        )),
    }
}

/// The metrics `metric` stands for: itself, or with `candidates` or `each`
/// one per candidate and value of `per`, each with its [`Member`]. The
/// levels and values are those of the rows `where` selects, in book.toml's
/// order of the column's levels ([`Config::level_order`]), those it does
/// not list after in the column's own order: the cards show them so.
pub fn members(
    metric: &Metric,
    table: &Table,
    config: &Config,
) -> Result<Vec<(Metric, Option<Member>)>, Problem> {
    if metric.candidates.is_none() && !metric.each {
        return Ok(vec![(metric.clone(), None)]);
    }
    let sides =
        of(&Metric { candidate: Some(Level::Text(String::new())), ..metric.clone() }, config);
    let baseline = sides.map(|s| s.baseline)?;
    let factor = metric.factor.as_deref().unwrap_or(&config.study.environment_column);
    let mut candidates: Vec<String> = match &metric.candidates {
        Some(Candidates::List(list)) => list.iter().map(ToString::to_string).collect(),
        Some(Candidates::Every(_)) => levels(table, &metric.filter, factor)?
            .into_iter()
            .map(|l| l.to_string())
            .filter(|l| *l != baseline)
            .collect(),
        None => vec![of(metric, config)?.candidate],
    };
    if matches!(metric.candidates, Some(Candidates::Every(_))) {
        crate::config::sort_levels(&mut candidates, &config.level_order(&metric.data, factor));
    }
    let mut out = Vec::new();
    for candidate in candidates {
        let one = Metric {
            candidate: Some(Level::Text(candidate.clone())),
            candidates: None,
            ..metric.clone()
        };
        let (Some(per), true) = (metric.per.as_deref(), metric.each) else {
            out.push((one, Some(Member { candidate, at: None })));
            continue;
        };
        let mut pair = metric.filter.clone();
        pair.insert(factor.to_string(), either(&candidate, &baseline));
        let mut values = levels(table, &pair, per)?;
        crate::config::sort_levels(&mut values, &config.level_order(&metric.data, per));
        for value in values {
            let mut filter = one.filter.clone();
            filter.insert(per.to_string(), filter_value(&value));
            let at = Some(format!("{per} = {value}"));
            let member = Metric { filter, per: None, each: false, ..one.clone() };
            out.push((member, Some(Member { candidate: candidate.clone(), at })));
        }
    }
    Ok(out)
}

/// `baseline = "best"`: the baseline chosen from the data as the best of
/// the other levels.
pub const BEST: &str = "best";

/// How a baseline chosen as the best of the other levels was chosen: the
/// levels it was chosen among and each one's score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Selected {
    /// The level chosen.
    pub level: String,
    /// The levels of the factor other than the candidate, in the column's order.
    pub among: Vec<String>,
    /// Each one's score: the mean (or, for `estimator = "median"`, the
    /// median) of its runs; with `per`, the geometric mean of those of each
    /// configuration (arithmetic when some is not positive).
    pub scores: Vec<f64>,
}

/// Whether `metric` compares its candidate with the best of the others.
pub fn best_baseline(metric: &Metric) -> bool {
    matches!(&metric.baseline, Some(Level::Text(t)) if t == BEST)
}

/// The best of the levels of `metric`'s factor other than `candidate` in
/// the rows its `where` selects, by its estimator and `better`; ties go to
/// the first in the column's order.
pub fn best_of_others(
    metric: &Metric,
    table: &Table,
    config: &Config,
    candidate: &str,
) -> Result<Selected, Problem> {
    let factor = metric.factor.as_deref().unwrap_or(&config.study.environment_column);
    let all = levels(table, &metric.filter, factor)?;
    if all.iter().any(|l| l.to_string() == BEST) {
        let message = format!(
            "`{factor}` has a level named `{BEST}`, so `baseline = \"{BEST}\"` is ambiguous"
        );
        return Err(("baseline", message, "rename that level in the results".into()));
    }
    let among: Vec<String> =
        all.iter().map(ToString::to_string).filter(|l| l != candidate).collect();
    let mut scores = Vec::new();
    for level in &among {
        let mut filter = metric.filter.clone();
        filter.insert(factor.to_string(), text(level));
        let per: Vec<&str> = metric.per.iter().map(String::as_str).collect();
        let groups = filter::aggregate(table, &filter, &per, &[&metric.value]).unwrap_or_default();
        scores.push(score(&groups, metric.estimator));
    }
    // The levels' scores are of the measured column.
    let better = |a: f64, b: f64| match metric.compare.column_better(metric.better) {
        Better::Lower => a < b,
        Better::Higher => a > b,
    };
    let best = (0..among.len()).filter(|i| scores[*i].is_finite()).fold(
        None,
        |found: Option<usize>, i| match found {
            Some(j) if !better(scores[i], scores[j]) => Some(j),
            _ => Some(i),
        },
    );
    let Some(best) = best else {
        let message =
            format!("no level of `{factor}` but `{candidate}` has runs to choose the best from");
        return Err((
            "baseline",
            message,
            "check `where`: the best is chosen among the other levels of the selected rows".into(),
        ));
    };
    Ok(Selected { level: among[best].clone(), among, scores })
}

/// A level's score over its groups: each group's mean or median, their
/// geometric mean when all are positive, else their arithmetic mean.
fn score(groups: &[filter::Grouped], estimator: Estimator) -> f64 {
    let estimator = crate::analysis::statistics::estimators::of(estimator);
    let each: Vec<f64> = groups
        .iter()
        .filter_map(|g| crate::analysis::statistics::model::Sample::of(&g.samples[0]))
        .map(|s| estimator.centre(&s))
        .collect();
    let k = each.len() as f64;
    if each.iter().all(|v| *v > 0.0) {
        math::exp(each.iter().map(|v| math::ln(*v)).sum::<f64>() / k)
    } else {
        each.iter().sum::<f64>() / k
    }
}

/// The values of `column` in the rows `filter` selects, in order.
fn levels(
    table: &Table,
    filter: &BTreeMap<String, FilterValue>,
    column: &str,
) -> Result<Vec<KeyPart>, Problem> {
    let groups = filter::aggregate(table, filter, &[column], &[]).map_err(|c| {
        ("where", format!("unknown column `{c}`"), "check the metric's columns".to_string())
    })?;
    Ok(groups.into_iter().map(|g| g.key[0].clone()).collect())
}

/// The filter condition that selects either of two levels.
pub fn either(a: &str, b: &str) -> FilterValue {
    FilterValue::AnyOf(vec![text(a), text(b)])
}

/// A level as the filter condition that selects it: a number when it reads
/// as one (a numeric column's level), else text.
fn text(level: &str) -> FilterValue {
    match level.parse::<f64>() {
        Ok(n) if n.is_finite() => FilterValue::Number(n),
        _ => FilterValue::Text(level.to_string()),
    }
}

/// The filter condition equal to `value`.
fn filter_value(value: &KeyPart) -> FilterValue {
    match value {
        KeyPart::Number(n) => FilterValue::Number(*n),
        KeyPart::Text(t) => FilterValue::Text(t.clone()),
    }
}

/// Holm's adjusted p-values, in the order given: the adjusted p of the
/// i-th smallest of m is the running maximum of (m − i + 1)·p, at most 1.
pub fn adjusted(ps: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..ps.len()).collect();
    order.sort_by(|a, b| ps[*a].total_cmp(&ps[*b]));
    let mut out = vec![1.0; ps.len()];
    let mut running: f64 = 0.0;
    for (rank, i) in order.into_iter().enumerate() {
        running = running.max(((ps.len() - rank) as f64 * ps[i]).min(1.0));
        out[i] = running;
    }
    out
}

/// The name under which prose finds one member of a family:
/// `name`, `name candidate=zstd` or `name candidate=zstd at=size = 1`.
pub fn key(name: &str, member: Option<&Member>) -> String {
    match member {
        None => name.to_string(),
        Some(Member { candidate, at: None }) => format!("{name} candidate={candidate}"),
        Some(Member { candidate, at: Some(at) }) => format!("{name} candidate={candidate} at={at}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Holm by hand: p = 0.01, 0.04, 0.03 in a family of three: sorted
    // 0.01, 0.03, 0.04 → 3·0.01 = 0.03, 2·0.03 = 0.06, max(0.06, 1·0.04) = 0.06;
    // statsmodels' multipletests(method="holm") gives the same.
    #[test]
    fn holm_by_hand() {
        let got = adjusted(&[0.01, 0.04, 0.03]);
        let want = [0.03, 0.06, 0.06];
        assert!(got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-15), "{got:?}");
        assert_eq!(adjusted(&[0.5, 0.9]), vec![1.0, 1.0]);
        assert!(adjusted(&[]).is_empty());
    }
}
