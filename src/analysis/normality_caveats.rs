//! The caveat on non-normal runs: per column the metrics read, the
//! configurations whose runs Shapiro–Wilk rejects at 5% (n ≥ 8), in one
//! sentence, so that a study gets one caveat per column, not one per group.

use super::Group;
use super::caveat::{Caveat, CaveatKind};
use super::spread_caveats::{by_column, listed};
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
    let items: Vec<String> = rejected
        .iter()
        .map(|(w, p, g)| {
            let env = g.environment.as_deref().unwrap_or("the runs");
            let config: Vec<String> = g.config.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            let at = if config.is_empty() {
                String::new()
            } else {
                format!(" at {}", config.join(", "))
            };
            let p =
                if *p < 0.001 { "p < 0.001".to_string() } else { format!("p = {}", fixed(*p, 3)) };
            format!("{env}{at} (W = {}, {p})", fixed(*w, 2))
        })
        .collect();
    let (subject, verb) = match rejected.len() {
        1 => ("The runs of".to_string(), "are"),
        n => (format!("In {n} configurations, the runs of"), "are"),
    };
    Some(Caveat {
        kind: CaveatKind::NotNormal,
        metric: None,
        text: format!(
            "{subject} {column} in {file} {verb} not normally distributed (Shapiro–Wilk, 5%): {}. Prefer the median (estimator = \"median\") there; the t intervals of the mean assume near-normal means.",
            listed(&items, "configuration")
        ),
    })
}
