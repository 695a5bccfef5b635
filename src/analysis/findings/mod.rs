//! Findings: what the data say that qualifies the study's claims (too few
//! runs, outlying runs, a metric carried by one run, ...), each a typed
//! value with its figures, found by [`study`], [`metrics`] and [`runs`];
//! [`crate::prose`] writes each as a caveat. The findings a metric carries
//! as fields ([`carried`]) are types only, so that the modules computing
//! them and the metric holding them need not import each other.

pub mod carried;
pub mod claim;
pub(crate) mod metrics;
pub mod runs;
pub mod sources;
pub(crate) mod study;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analysis::queries::filter::KeyPart;
use crate::analysis::statistics::median_use::MedianUse;

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
    /// A headline metric carried by one run (`analysis::metrics::influence`).
    Influential,
    /// Values on a grid as coarse as the effect or its interval.
    Resolution,
    /// A baseline chosen on the same data as the best of several levels.
    SelectedBaseline,
    /// Runs of one configuration from different sources that differ
    /// beyond their noise.
    Sources,
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

/// One finding of the data that qualifies the study's claims, with its
/// figures: what a caveat states. The analysis finds them in the order the
/// caveats are listed; [`crate::prose`] writes each in words.
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// The node counts the runs record, in the tables that have the study's
    /// node-count column (`[study] nodes-column`).
    Nodes {
        /// Rows in those tables.
        rows: usize,
        /// Every node count recorded, in order.
        counts: Vec<KeyPart>,
    },
    /// Compared configurations with fewer than three runs, per file.
    FewRuns(Vec<FewRuns>),
    /// Configurations measured in only some environments, which
    /// comparisons skip.
    Unmatched(Vec<Unmatched>),
    /// The runs of one column beyond Tukey's fences.
    Outliers(Outliers),
    /// The configurations of one column whose runs vary by more than
    /// [`HIGH_CV`].
    HighVariation(Variation),
    /// The configurations of one column whose runs Shapiro–Wilk rejects as
    /// normal.
    NotNormal(NotNormal),
    /// Comparisons whose samples are too small for distribution-free
    /// statistics, with these run counts.
    SmallSamples(SmallSamples),
    /// The runs of one column whose sources differ within a configuration.
    Sources(sources::Sources),
    /// How many of the comparison metrics stay significant after Holm's
    /// correction.
    Multiplicity {
        /// Comparisons with a p-value.
        tested: usize,
        /// Those with p < 0.05.
        raw: usize,
        /// Those that stay significant after Holm's correction.
        survive: usize,
    },
    /// A finding about one metric.
    Metric {
        /// The metric, by its index in [`crate::analysis::Analysis::metrics`].
        metric: usize,
        /// What the finding is.
        about: MetricFinding,
    },
}

/// What a finding about one metric is; its figures are the metric's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MetricFinding {
    /// A headline difference that is not statistically significant.
    NotSignificant,
    /// The mean and the median disagree
    /// ([`estimators_disagree`](metrics::estimators_disagree)).
    EstimatorsDisagree,
    /// An average whose configurations lie on both sides of no difference,
    /// significantly on each (the metric's `spread`).
    SignChange,
    /// One run carries the estimate (the metric's `influence`).
    Influential,
    /// The values lie on a grid as coarse as the effect or its interval
    /// (the metric's `grain`).
    Resolution,
    /// A baseline chosen as the best of the other levels on the very runs
    /// it is compared with (the metric's `baseline_selected`).
    SelectedBaseline,
}

impl Finding {
    /// What the finding's caveat is about.
    pub fn kind(&self) -> CaveatKind {
        match self {
            Finding::Nodes { counts, .. } => match counts.as_slice() {
                [KeyPart::Number(n)] if *n == 1.0 => CaveatKind::SingleNode,
                _ => CaveatKind::NodeCounts,
            },
            Finding::FewRuns(_) | Finding::SmallSamples(_) => CaveatKind::FewRuns,
            Finding::Unmatched(_) => CaveatKind::Unmatched,
            Finding::Outliers(_) => CaveatKind::Outliers,
            Finding::HighVariation(_) => CaveatKind::HighVariation,
            Finding::NotNormal(_) => CaveatKind::NotNormal,
            Finding::Multiplicity { .. } => CaveatKind::Multiplicity,
            Finding::Sources(_) => CaveatKind::Sources,
            Finding::Metric { about, .. } => match about {
                MetricFinding::NotSignificant => CaveatKind::NotSignificant,
                MetricFinding::EstimatorsDisagree => CaveatKind::EstimatorsDisagree,
                MetricFinding::SignChange => CaveatKind::SignChange,
                MetricFinding::Influential => CaveatKind::Influential,
                MetricFinding::Resolution => CaveatKind::Resolution,
                MetricFinding::SelectedBaseline => CaveatKind::SelectedBaseline,
            },
        }
    }
}

/// A file's compared configurations with fewer than three runs on a side.
#[derive(Debug, Clone, PartialEq)]
pub struct FewRuns {
    /// The results file.
    pub file: String,
    /// How many configurations have fewer than three runs.
    pub configurations: usize,
    /// The fewest runs among them.
    pub smallest: usize,
}

/// A configuration measured in only some environments.
#[derive(Debug, Clone, PartialEq)]
pub struct Unmatched {
    /// The results file.
    pub file: String,
    /// The configuration, by its `group-by` columns' values.
    pub config: BTreeMap<String, String>,
    /// The environments that measured it, by their ids, in order.
    pub environments: Vec<String>,
}

/// One configuration of a results file, as the data name it: its
/// environment (a level of the study's environment column), when the file
/// has one, and its values of the `group-by` columns. [`crate::prose`]
/// names it by the study's labels.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Configuration {
    /// Its environment, by its id.
    pub environment: Option<String>,
    /// Its values of the `group-by` columns, by column id.
    pub values: BTreeMap<String, String>,
}

impl Configuration {
    /// The configuration of `group`.
    pub fn of(group: &crate::analysis::Group) -> Configuration {
        Configuration { environment: group.environment.clone(), values: group.config.clone() }
    }
}

/// The runs of one column beyond Tukey's fences.
#[derive(Debug, Clone, PartialEq)]
pub struct Outliers {
    /// The results file.
    pub file: String,
    /// The column.
    pub column: String,
    /// The configurations with runs beyond 3 IQR (severe), the one whose
    /// worst run lies farthest beyond its fence first.
    pub severe: Vec<SevereRuns>,
    /// Runs beyond 1.5 IQR only (mild).
    pub mild: usize,
    /// Configurations those mild runs are in.
    pub mild_configurations: usize,
}

/// One configuration's runs beyond 3 IQR.
#[derive(Debug, Clone, PartialEq)]
pub struct SevereRuns {
    /// The configuration.
    pub at: Configuration,
    /// Its runs.
    pub n: usize,
    /// The severe runs found, the farthest first: the run's name (absent
    /// when it could not be found) and its value.
    pub runs: Vec<(Option<String>, f64)>,
    /// Severe runs beyond those found.
    pub more: usize,
}

/// The configurations of one column whose runs vary by more than [`HIGH_CV`].
#[derive(Debug, Clone, PartialEq)]
pub struct Variation {
    /// The results file.
    pub file: String,
    /// The column.
    pub column: String,
    /// Each configuration and its coefficient of variation, the most
    /// variable first.
    pub configurations: Vec<(Configuration, f64)>,
}

/// The configurations of one column whose runs are not normal.
#[derive(Debug, Clone, PartialEq)]
pub struct NotNormal {
    /// The results file.
    pub file: String,
    /// The column.
    pub column: String,
    /// The configurations, the smallest p-value first.
    pub configurations: Vec<NonNormalRuns>,
}

/// One configuration's runs that Shapiro–Wilk rejects as normal.
#[derive(Debug, Clone, PartialEq)]
pub struct NonNormalRuns {
    /// The configuration.
    pub at: Configuration,
    /// Shapiro–Wilk's W.
    pub w: f64,
    /// Its p-value.
    pub p: f64,
    /// Whether its median is more informative than its mean.
    pub median: Option<MedianUse>,
}

/// Comparisons of `candidate` runs with `baseline` runs, too few for
/// distribution-free statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct SmallSamples {
    /// Runs on the candidate side.
    pub candidate: usize,
    /// Runs on the baseline side.
    pub baseline: usize,
    /// The smallest two-sided p-value a rank test can reach.
    pub min_p: f64,
    /// The metrics compared so, by their index in
    /// [`crate::analysis::Analysis::metrics`].
    pub metrics: Vec<usize>,
}

#[cfg(test)]
mod tests {
    use super::CaveatKind::{self, *};

    /// An author caveat may replace every kind of built-in caveat: the
    /// names book.toml accepts are the kinds' own (a new kind fails the
    /// match below until it is listed, and then this test until book.toml
    /// accepts it).
    #[test]
    fn every_kind_may_be_replaced_by_an_author_caveat() {
        let all = [
            SingleNode,
            NodeCounts,
            NotSignificant,
            FewRuns,
            Unmatched,
            Outliers,
            EstimatorsDisagree,
            HighVariation,
            SignChange,
            Multiplicity,
            Excluded,
            NotNormal,
            Influential,
            Resolution,
            SelectedBaseline,
            Sources,
        ];
        let listed = |k: CaveatKind| match k {
            SingleNode | NodeCounts | NotSignificant | FewRuns | Unmatched | Outliers
            | EstimatorsDisagree | HighVariation | SignChange | Multiplicity | Excluded
            | NotNormal | Influential | Resolution | SelectedBaseline | Sources => true,
        };
        let mut names: Vec<String> = all
            .into_iter()
            .filter(|k| listed(*k))
            .map(|k| serde_json::to_value(k).unwrap().as_str().unwrap().to_string())
            .collect();
        names.sort();
        let mut accepted = crate::config::CAVEAT_KINDS.map(String::from).to_vec();
        accepted.sort();
        assert_eq!(names, accepted);
    }
}
