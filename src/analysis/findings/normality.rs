//! The caveat on non-normal runs: per column the metrics read, the
//! configurations whose runs Shapiro–Wilk rejects at 5% (n ≥ 8), in one
//! sentence, so that a study gets one caveat per column, not one per group.
//! "Prefer the median" is said only of the configurations whose median is
//! more informative than their mean ([`MedianUse`]): skewed runs or severe
//! outliers, not symmetric ones, nor values on a grid as coarse as the
//! median's interval, where the median sits on one tick.

use super::spread::{by_column, listed};
use super::{Caveat, CaveatKind};
use crate::analysis::Group;
use crate::analysis::statistics::median_use::{MedianUse, median_use};
use crate::format::fixed;

/// Level at which normality is rejected.
const ALPHA: f64 = 0.05;

/// One caveat per column with configurations whose runs are not normal.
pub(super) fn non_normal(groups: &[&Group]) -> Vec<Caveat> {
    by_column(groups)
        .into_iter()
        .filter_map(|((file, column), gs)| column_caveat(file, column, &gs))
        .collect()
}

fn column_caveat(file: &str, column: &str, groups: &[&Group]) -> Option<Caveat> {
    let mut rejected: Vec<(f64, f64, &Group)> = groups
        .iter()
        .filter_map(|g| g.summary.robust.normality.map(|t| (t.w, t.p, *g)))
        .filter(|(_, p, _)| *p < ALPHA)
        .collect();
    if rejected.is_empty() {
        return None;
    }
    rejected.sort_by(|a, b| a.1.total_cmp(&b.1));
    let name = |g: &Group| {
        let env = g.environment.as_deref().unwrap_or("the runs");
        let config: Vec<String> = g.config.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        if config.is_empty() { env.to_string() } else { format!("{env} at {}", config.join(", ")) }
    };
    let items: Vec<String> = rejected
        .iter()
        .map(|(w, p, g)| {
            let p =
                if *p < 0.001 { "p < 0.001".to_string() } else { format!("p = {}", fixed(*p, 3)) };
            format!("{} (W = {}, {p})", name(g), fixed(*w, 2))
        })
        .collect();
    let of = |what: MedianUse| -> Vec<String> {
        let shaped = rejected.iter().filter(|(_, _, g)| median_use(&g.summary) == Some(what));
        shaped.map(|(_, _, g)| name(g)).collect()
    };
    let (subject, verb) = match rejected.len() {
        1 => ("The runs of".to_string(), "are"),
        n => (format!("In {n} configurations, the runs of"), "are"),
    };
    let advice = advice(&of(MedianUse::Informative), &of(MedianUse::Stuck));
    Some(Caveat {
        kind: CaveatKind::NotNormal,
        metric: None,
        text: format!(
            "{subject} {column} in {file} {verb} not normally distributed (Shapiro–Wilk, 5%): {}. The t intervals of the mean assume near-normal means.{advice}",
            listed(&items, "configuration")
        ),
    })
}

/// Which estimator to prefer where: the median for the `informative`
/// configurations, the mean for the `stuck` ones.
fn advice(informative: &[String], stuck: &[String]) -> String {
    let mut advice = String::new();
    if !informative.is_empty() {
        advice.push_str(&format!(
            " Prefer the median (estimator = \"median\") for {}: the runs there are skewed or have severe outliers (the mean lies outside the median's 95% interval, or a run beyond 3 IQR).",
            listed(informative, "configuration")
        ));
    }
    if !stuck.is_empty() {
        advice.push_str(&format!(
            " Keep the mean for {}: the values lie on a grid as coarse as the median's 95% interval, so the median sits on one tick and cannot show a change smaller than a step.",
            listed(stuck, "configuration")
        ));
    }
    advice
}
