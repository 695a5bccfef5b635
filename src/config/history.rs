//! `[history]` of book.toml: a series of versions of the software measured,
//! in which change points are found (docs/history.md).

use serde::Deserialize;

use super::data::Better;

/// A history across versions: which results column names the version
/// measured, what orders the versions, and what is measured. Each
/// configuration of the table (its `group-by`) is one series; a version
/// without runs stays in the order as a gap and is never filled in. A study
/// with a history needs no baseline environment. For example:
/// `[history] data = "runs", version = "version", order = "date",
/// value = "time_s", better = "lower"`. Method: docs/history.md.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct History {
    /// The results table (its `[data.NAME]` name, the file stem).
    pub data: String,
    /// The column naming the version each run measured (a commit, a release).
    pub version: String,
    /// The column that orders the versions: a date (`2025-03-01`, ISO 8601,
    /// compared as text) or a sequence number. A version's place is its
    /// smallest value; two versions in the same place are an error. Give
    /// either `order` or `git`.
    #[serde(default)]
    pub order: Option<String>,
    /// A git repository, relative to the study, whose first-parent history
    /// orders the versions: a version is a commit hash (full or
    /// abbreviated), oldest first, and each commit without runs is a gap.
    /// The subjects of the commits where a change lies are shown with it.
    #[serde(default)]
    pub git: Option<String>,
    /// The column measured, such as `time_s`.
    pub value: String,
    /// `lower` when the value is a time, `higher` when it is a throughput.
    pub better: Better,
    /// Columns describing the environment of each run (`kernel`,
    /// `compiler`, `host`): a change point where one of them also changes
    /// is said to coincide with it, not blamed on the code.
    #[serde(default)]
    pub environment: Vec<String>,
    /// Change points the authors have explained, by the first version of the
    /// new level, each with its reason: `acknowledge = [{ version = "1.4.0",
    /// reason = "bounds checks added on purpose" }]`. Shown with the reason,
    /// not counted as a regression. A version that is none of the history's
    /// is an error.
    #[serde(default)]
    pub acknowledge: Vec<Acknowledgement>,
    /// The fewest versions with runs on each side of a change point (3).
    #[serde(default = "default_min_versions")]
    pub min_versions: usize,
    /// The fewest runs on each side of a change point (10).
    #[serde(default = "default_min_runs")]
    pub min_runs: usize,
    /// The level a change point's test must reach, Holm-adjusted over the
    /// study's series (`0.001`).
    #[serde(default = "default_level")]
    pub level: f64,
    /// How many versions E-Divisive looks at together when it proposes
    /// candidates (50, as Apache Otava).
    #[serde(default = "default_window")]
    pub window: usize,
    /// The first-parent history of `git`, oldest first (filled in when the
    /// project is loaded).
    #[serde(skip)]
    pub commits: Vec<GitCommit>,
}

impl History {
    /// Whether it is well formed: one order, floors and level that a test
    /// can meet. Each problem as (key, message).
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let mut problems = Vec::new();
        if self.order.is_some() == self.git.is_some() {
            problems.push(("data", "a history needs one of `order` and `git`".to_string()));
        }
        if self.min_versions == 0 || self.min_runs == 0 {
            problems.push(("min-versions", "the floors must be 1 or more".to_string()));
        }
        if !(self.level > 0.0 && self.level < 1.0) {
            problems.push(("level", format!("level {} is not between 0 and 1", self.level)));
        }
        if self.window < 2 * self.min_versions.max(1) {
            let message =
                format!("a window of {} versions is under twice `min-versions`", self.window);
            problems.push(("window", message));
        }
        problems
    }
}

/// A change point the authors have explained.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Acknowledgement {
    /// The first version of the new level, as the change point names it.
    pub version: String,
    /// Why, in words: `"bounds checks added on purpose (#812)"`.
    pub reason: String,
}

fn default_min_versions() -> usize {
    3
}

fn default_min_runs() -> usize {
    10
}

fn default_level() -> f64 {
    0.001
}

fn default_window() -> usize {
    50
}

/// One commit of a git history: its full hash and subject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitCommit {
    /// The full hash.
    pub hash: String,
    /// The first line of its message.
    pub subject: String,
}
