//! A study's history across versions (`[history]`): each configuration's
//! series of versions ([`series`]), the candidates E-Divisive proposes
//! ([`edivisive`]), each tested by Mann–Whitney's exact test on the pooled
//! runs either side and merged away until every one left passes, Holm
//! over the study's series ([`detect`]), each moved to where least squares
//! on the runs places it ([`relocate`]), and where, how much and why of
//! each change found ([`locate`]). Numbers and typed findings only; the
//! words are `prose::history`'s. Method: docs/history.md.

pub mod detect;
pub mod edivisive;
pub mod locate;
pub mod outliers;
pub mod relocate;
pub mod series;
pub mod work;

use std::collections::BTreeMap;

use serde::Serialize;

use super::findings::claim::Claim;
use crate::config::{Better, Config};
use crate::diagnostic::Diagnostics;
use crate::results::ResultSet;

/// The history of the study: its settings, the order of versions and
/// every series with its change points.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistoryAnalysis {
    /// Results file, relative to the study root.
    pub file: String,
    /// The column measured.
    pub column: String,
    /// Which direction is an improvement.
    pub better: Better,
    /// The level a change's Holm-adjusted p must reach.
    pub level: f64,
    /// The fewest versions with runs on each side.
    pub min_versions: usize,
    /// The fewest runs on each side.
    pub min_runs: usize,
    /// The study's `negligible`, as a fraction.
    pub negligible: Option<f64>,
    /// Whether the table's values were measured: from values that were not,
    /// no change point is sought.
    pub measured: bool,
    /// The versions, oldest first, gaps included.
    pub versions: Vec<VersionEntry>,
    /// One series per configuration.
    pub series: Vec<Series>,
}

/// A version of the order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VersionEntry {
    /// Its name (with git, the full hash).
    pub version: String,
    /// With git, its commit's subject.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
}

/// One configuration's series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    /// Stable identifier: `file/column/config`.
    pub id: String,
    /// Values of the `group-by` columns.
    pub config: BTreeMap<String, String>,
    /// Per version of the order: its runs' count and median (absent in a gap).
    pub points: Vec<Point>,
    /// The run-to-run noise the series shows: the median, over versions,
    /// of the distance of a version's median from its segment's, as a
    /// share of the segment's; absent with fewer than two versions in any segment.
    pub noise: Option<f64>,
    /// The change points found, in order.
    pub changes: Vec<Change>,
    /// Candidates the runs could not decide, with the runs that could.
    pub inconclusive: Vec<Change>,
    /// Versions whose runs stand apart from their neighbours': outliers,
    /// not changes, left out of the search for changes.
    pub outliers: Vec<Outlier>,
}

/// One version's runs in a series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// Runs measured.
    pub n: usize,
    /// Their median; absent in a gap.
    pub median: Option<f64>,
    /// The runs themselves, ascending (not in stats.json, which has the
    /// runs' table): a history chart draws each.
    #[serde(skip)]
    pub runs: Vec<f64>,
}

/// A change point: where, how much and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    /// The first version of the new level, by its place in the order.
    pub at: usize,
    /// Its name.
    pub version: String,
    /// The first and last place where the new level may begin: where the
    /// statistic stays within 90% of its value at `at`, widened over gaps.
    pub range: [usize; 2],
    /// The two sides: versions with runs and runs, before and after.
    pub versions: [usize; 2],
    /// Runs before and after.
    pub runs: [usize; 2],
    /// The Hodges–Lehmann shift of the runs after against those before, as a share.
    pub shift: f64,
    /// Its 95% interval; absent when the runs cannot reach p < 0.05.
    pub ci: Option<[f64; 2]>,
    /// Mann–Whitney's two-sided p.
    pub p: f64,
    /// Holm's adjusted p over the study's series.
    pub p_holm: f64,
    /// Better or worse (a change found), or inconclusive with the runs that could decide it.
    pub claim: Claim,
    /// With git, the subjects of the commits in the range.
    pub subjects: Vec<String>,
    /// Environment columns whose values also change there.
    pub coincides: Vec<EnvironmentChange>,
    /// The authors' reason, when they acknowledged it in book.toml.
    pub acknowledged: Option<String>,
}

/// An environment column whose values differ either side of a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvironmentChange {
    /// The column.
    pub column: String,
    /// Its values at the last version before the range.
    pub before: String,
    /// Its values at the first version after it.
    pub after: String,
}

/// A version whose runs differ from the rest of its segment.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outlier {
    /// Its place in the order.
    pub at: usize,
    /// Its name.
    pub version: String,
    /// The Hodges–Lehmann shift from its neighbours' runs, as a share.
    pub shift: f64,
    /// Holm's adjusted p over the series' versions.
    pub p_holm: f64,
}

/// The history of `config`, if it has one.
pub fn analyze(
    results: &ResultSet,
    config: &Config,
) -> Result<Option<HistoryAnalysis>, Diagnostics> {
    let Some(history) = &config.history else { return Ok(None) };
    let built = series::build(results, config, history)?;
    let file =
        results.tables.get(&history.data).map_or(String::new(), |t| t.path.display().to_string());
    let measured = config.data.get(&history.data).is_none_or(|d| d.provenance.measured());
    let found = if measured {
        detect::detect(&built, history, config.study.negligible())
    } else {
        detect::unsought(&built)
    };
    let series = built
        .series
        .iter()
        .zip(found)
        .map(|(raw, found)| locate::series(&file, history, &built.order, raw, found))
        .collect();
    Ok(Some(HistoryAnalysis {
        file,
        column: history.value.clone(),
        better: history.better,
        level: history.level,
        min_versions: history.min_versions,
        min_runs: history.min_runs,
        negligible: config.study.negligible(),
        measured,
        versions: built
            .order
            .iter()
            .map(|v| VersionEntry { version: v.name.clone(), subject: v.subject.clone() })
            .collect(),
        series,
    }))
}
