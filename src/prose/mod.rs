//! The sentences of the study: every number, finding and caveat of the
//! analysis in words, written here once for the page, the paper and
//! stats.json, every number through [`crate::format`]. The analysis knows
//! no prose; this module knows no statistics.

pub mod limitations;
pub mod metric;
