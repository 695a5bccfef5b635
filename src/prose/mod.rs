//! The sentences of the study: every number, finding and caveat of the
//! analysis in words, written here once for the page, the paper and
//! stats.json, every number through [`crate::format`]: a metric's wording
//! ([`metric`]), the names of columns and configurations ([`labels`]), a
//! difference in words ([`direction`]), a change of a time in words
//! ([`time`]), the caveats ([`caveats`]), the few a reader sees
//! ([`limitations`]), a headline one run carries ([`carried`]) and runs
//! whose sources differ ([`sources`]). The analysis writes no sentence;
//! this module computes no statistic.

pub mod carried;
pub mod caveats;
pub mod direction;
pub mod facts;
pub mod history;
pub mod labels;
pub mod limitations;
pub mod metric;
pub mod provenance;
pub mod sources;
pub mod time;

/// `a`, `a and b`, `a, b and c`.
pub fn join(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
