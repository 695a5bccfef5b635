//! A caveat: what it is about, its sentence and the metric it qualifies.

pub mod carried;
pub(crate) mod metrics;
mod normality;
mod spread;
pub(crate) mod study;

use serde::Serialize;

/// What a caveat is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaveatKind {
    /// Every run recorded one node.
    SingleNode,
    /// The runs cover several node counts.
    NodeCounts,
    /// A headline difference whose 95% CI includes zero.
    NotSignificant,
    /// Configurations with fewer than three runs.
    FewRuns,
    /// Configurations measured in only some environments.
    Unmatched,
    /// Runs beyond Tukey's fences.
    Outliers,
    /// Mean and median differ in significance, or are both significant with
    /// opposite signs.
    EstimatorsDisagree,
    /// A coefficient of variation above 5%.
    HighVariation,
    /// An average whose configurations differ in sign, significantly both ways.
    SignChange,
    /// How many comparisons survive Holm's correction.
    Multiplicity,
    /// Runs removed by an `exclude` of book.toml.
    Excluded,
    /// Runs that Shapiro–Wilk rejects as normal (n ≥ 8).
    NotNormal,
    /// A headline metric carried by one run (`analysis::influence`).
    Influential,
    /// Values on a grid as coarse as the effect or its interval.
    Resolution,
}

/// One caveat, in words, with the metric it qualifies.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Caveat {
    /// What the caveat is about.
    pub kind: CaveatKind,
    /// The caveat as a sentence, with its figures.
    pub text: String,
    /// The metric it qualifies, if any.
    pub metric: Option<String>,
}

/// One caveat for readers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Limitation {
    /// `author` (book.toml) or `data`.
    pub source: &'static str,
    /// The built-in caveat it states, for one from the data.
    pub kind: Option<CaveatKind>,
    /// The caveat, in plain sentences.
    pub text: String,
    /// Names of the metrics whose claims it qualifies.
    pub metrics: Vec<String>,
}

/// `a`, `a and b`, `a, b and c`.
pub fn join(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
