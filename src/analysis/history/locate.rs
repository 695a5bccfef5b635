//! Where, how much and why of each change found: its range of versions,
//! the commits in it, the environment columns changing with it and the
//! authors' acknowledgement; and the versions that are outliers, not changes.

use super::detect::{Found, Tested};
use super::series::{Raw, Version};
use super::work::Work;
use super::{Change, EnvironmentChange, Outlier, Point, Series};
use crate::analysis::findings::claim::{Claim, Undecided, Verdict};
use crate::config::{Better, History};

/// Share of the statistic's value at the change within which a split is in its range.
pub const RANGE_SHARE: f64 = 0.9;

/// One series of the history, its changes located and explained.
pub fn series(file: &str, history: &History, order: &[Version], raw: &Raw, found: Found) -> Series {
    let config =
        raw.config.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ");
    let name = std::path::Path::new(file)
        .file_stem()
        .map_or(String::new(), |s| s.to_string_lossy().into_owned());
    let suffix = if config.is_empty() { String::new() } else { format!("/{config}") };
    let change = |t: &Tested| located(history, order, raw, &found.work, t);
    Series {
        id: format!("{name}/{}/history{suffix}", history.value),
        config: raw.config.clone(),
        points: raw
            .runs
            .iter()
            .zip(0..)
            .map(|(runs, _)| Point { n: runs.len(), median: median_of(runs), runs: sorted(runs) })
            .collect(),
        noise: found.noise,
        changes: found.changes.iter().map(change).collect(),
        inconclusive: found.inconclusive.iter().map(change).collect(),
        outliers: found
            .outliers
            .iter()
            .map(|&(at, shift, p_holm)| Outlier {
                at,
                version: order[at].name.clone(),
                shift,
                p_holm,
            })
            .collect(),
    }
}

fn median_of(runs: &[f64]) -> Option<f64> {
    let sorted = sorted(runs);
    (!sorted.is_empty()).then(|| crate::analysis::statistics::robust::median(&sorted))
}

fn sorted(runs: &[f64]) -> Vec<f64> {
    let mut sorted = runs.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    sorted
}

/// A change (or an undecided candidate) with its place, range, commits,
/// environment and acknowledgement.
fn located(history: &History, order: &[Version], raw: &Raw, work: &Work, t: &Tested) -> Change {
    let [lo, hi] = super::relocate::range(work, t.test.bounds, RANGE_SHARE);
    // The new level begins after the last version with runs before the
    // range: the gaps between are in it.
    let range = [work.places[lo - 1] + 1, work.places[hi]];
    let at = work.places[t.test.bounds[1]];
    let (before, after) = (&raw.environment[work.places[lo - 1]], &raw.environment[range[1]]);
    let coincides = before
        .iter()
        .filter_map(|(column, b)| {
            let a = after.get(column)?;
            (a != b).then(|| EnvironmentChange {
                column: column.clone(),
                before: b.clone(),
                after: a.clone(),
            })
        })
        .collect();
    let in_range = &order[range[0]..=range[1]];
    let acknowledged = history
        .acknowledge
        .iter()
        .find(|a| {
            in_range.iter().any(|v| {
                v.name == a.version
                    || (v.subject.is_some()
                        && a.version.len() >= 4
                        && v.name.starts_with(&a.version))
            })
        })
        .map(|a| a.reason.clone());
    Change {
        at,
        version: order[at].name.clone(),
        range,
        versions: t.test.versions,
        runs: t.test.runs,
        shift: t.test.shift,
        ci: t.test.ci,
        p: t.test.p,
        p_holm: t.p_holm,
        claim: claim(history.better, t),
        subjects: in_range.iter().filter_map(|v| v.subject.clone()).collect(),
        coincides,
        acknowledged,
    }
}

/// Better or worse by the direction of the shift; inconclusive with the
/// runs that could decide it.
fn claim(better: Better, t: &Tested) -> Claim {
    if let Some(more) = t.needs {
        let undecided = Undecided::Unreachable { min_p: t.test.min_p };
        return Claim {
            verdict: Verdict::Inconclusive,
            undecided: Some(undecided),
            more_runs: Some(more),
        };
    }
    let higher = t.test.shift > 0.0;
    let verdict =
        if higher == (better == Better::Higher) { Verdict::Better } else { Verdict::Worse };
    Claim { verdict, undecided: None, more_runs: None }
}
