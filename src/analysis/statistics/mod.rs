//! Statistics of samples, which know nothing of tables, metrics or words:
//! summaries and Student's t ([`stats`], [`student`]), distribution-free
//! descriptions ([`robust`], [`resolution`]), rank statistics ([`ranks`] on
//! [`pairs`]), normality ([`shapiro`]), the model of a comparison
//! ([`model`]) and averages over configurations ([`average`]).

pub(crate) mod average;
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
