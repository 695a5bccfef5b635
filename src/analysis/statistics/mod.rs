//! Statistics of samples, which know nothing of tables or metrics and
//! write no sentences: summaries and Student's t ([`stats`], [`student`]),
//! distribution-free descriptions ([`robust`], [`resolution`]), rank
//! statistics ([`ranks`] on [`pairs`]), normality ([`shapiro`]), a
//! comparison ([`model`]) by each estimator's model ([`estimators`], which
//! also hold the words the prose names them by) and averages over
//! configurations ([`average`]); the difference between two estimates
//! known by their intervals ([`between`]).

pub(crate) mod average;
pub mod between;
pub mod difference;
pub mod estimators;
pub mod median_use;
pub mod model;
mod pairs;
pub mod ranks;
pub mod resolution;
pub mod robust;
pub mod shapiro;
pub mod stats;
pub mod student;

/// Confidence level of every interval.
pub const CONFIDENCE: f64 = 0.95;
