//! Where, how much and why of each change found: its range of versions,
//! the commits in it, the environment columns changing with it and the
//! authors' acknowledgement; and the versions that are outliers, not changes.

use super::detect::{Found, Tested, Work, compare, segments};
use super::edivisive::divergence;
use super::series::{Raw, Version};
use super::{Change, EnvironmentChange, Outlier, Point, Series};
use crate::analysis::findings::claim::{Claim, Undecided, Verdict};
use crate::analysis::metrics::sides;
use crate::config::{Better, History};

/// Share of the statistic's value at the change within which a split is in its range.
pub const RANGE_SHARE: f64 = 0.9;

/// One series of the history, its changes located and explained.
pub fn series(file: &str, history: &History, order: &[Version], raw: &Raw, found: Found) -> Series {
    let config = raw.config.iter().map(|(k, v)| format!("{k} = {v}")).collect::<Vec<_>>().join(", ");
    let name = std::path::Path::new(file).file_stem().map_or(String::new(), |s| s.to_string_lossy().into_owned());
    let suffix = if config.is_empty() { String::new() } else { format!("/{config}") };
    let place = |i: usize| (order[found.work.places[i]].name.clone(), found.work.places[i]);
    let change = |t: &Tested| located(history, order, raw, &found.work, t);
    Series {
        id: format!("{name}/{}/history{suffix}", history.value),
        config: raw.config.clone(),
        points: raw
            .runs
            .iter()
            .zip(0..)
            .map(|(runs, _)| Point { n: runs.len(), median: median_of(runs) })
            .collect(),
        noise: found.noise,
        changes: found.changes.iter().map(change).collect(),
        inconclusive: found.inconclusive.iter().map(change).collect(),
        outliers: found
            .outliers
            .iter()
            .map(|&(i, shift, p_holm)| {
                let (version, at) = place(i);
                Outlier { at, version, shift, p_holm }
            })
            .collect(),
    }
}

fn median_of(runs: &[f64]) -> Option<f64> {
    let mut sorted = runs.to_vec();
    sorted.sort_unstable_by(f64::total_cmp);
    (!sorted.is_empty()).then(|| crate::analysis::statistics::robust::median(&sorted))
}

/// The split points around `at` whose statistic stays within
/// [`RANGE_SHARE`] of its value at `at`, between `from` and `to`.
pub fn range([from, at, to]: [usize; 3], medians: &[f64]) -> [usize; 2] {
    let q = divergence(&medians[from..to]);
    let floor = RANGE_SHARE * q[at - from];
    let (mut lo, mut hi) = (at, at);
    while lo > from + 1 && q[lo - 1 - from] >= floor {
        lo -= 1;
    }
    while hi + 1 < to && q[hi + 1 - from] >= floor {
        hi += 1;
    }
    [lo, hi]
}

/// A change (or an undecided candidate) with its place, range, commits,
/// environment and acknowledgement.
fn located(history: &History, order: &[Version], raw: &Raw, work: &Work, t: &Tested) -> Change {
    let [lo, hi] = range(t.test.bounds, &work.medians);
    // The new level begins after the last version with runs before the
    // range: the gaps between are in it.
    let range = [work.places[lo - 1] + 1, work.places[hi]];
    let at = work.places[t.test.bounds[1]];
    let (before, after) = (&raw.environment[work.places[lo - 1]], &raw.environment[range[1]]);
    let coincides = before
        .iter()
        .filter_map(|(column, b)| {
            let a = after.get(column)?;
            (a != b).then(|| EnvironmentChange { column: column.clone(), before: b.clone(), after: a.clone() })
        })
        .collect();
    let in_range = &order[range[0]..=range[1]];
    let acknowledged = history
        .acknowledge
        .iter()
        .find(|a| in_range.iter().any(|v| v.name == a.version || (v.subject.is_some() && a.version.len() >= 4 && v.name.starts_with(&a.version))))
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
        return Claim { verdict: Verdict::Inconclusive, undecided: Some(undecided), more_runs: Some(more) };
    }
    let higher = t.test.shift > 0.0;
    let verdict = if higher == (better == Better::Higher) { Verdict::Better } else { Verdict::Worse };
    Claim { verdict, undecided: None, more_runs: None }
}

/// The versions whose runs, tested against the rest of their segment,
/// reach the level (Holm over every version of the study's series) and
/// shift by more than `negligible` and the series' noise: outliers.
pub fn outliers(found: &mut [Found], cuts: &[Vec<usize>], history: &History, negligible: Option<f64>) {
    let total: usize = found.iter().map(|f| f.work.medians.len()).sum();
    let mut tests: Vec<(usize, usize, f64, f64)> = Vec::new();
    for (s, f) in found.iter().enumerate() {
        let floor = negligible.unwrap_or(0.0).max(f.noise.unwrap_or(0.0));
        for (from, to) in segments(f.work.medians.len(), &cuts[s]) {
            for i in (from..to).filter(|_| to - from >= 3) {
                if let Some((shift, p)) = apart(&f.work, i, (from, to), floor) {
                    tests.push((s, i, shift, p));
                }
            }
        }
    }
    let mut ps: Vec<f64> = tests.iter().map(|t| t.3).collect();
    ps.resize(total.max(ps.len()), 1.0);
    let adjusted = sides::adjusted(&ps);
    for (&(s, i, shift, _), p_holm) in tests.iter().zip(adjusted) {
        if p_holm <= history.level {
            found[s].outliers.push((i, shift, p_holm));
        }
    }
}

/// Point `i`'s shift from the rest of its segment and the test's p, when
/// its median stands apart from the segment's by more than `floor` (else
/// not tested).
fn apart(work: &Work, i: usize, (from, to): (usize, usize), floor: f64) -> Option<(f64, f64)> {
    let mut medians = work.medians[from..to].to_vec();
    medians.sort_unstable_by(f64::total_cmp);
    let centre = crate::analysis::statistics::robust::median(&medians);
    if centre == 0.0 || ((work.medians[i] - centre) / centre).abs() <= floor {
        return None;
    }
    let rest: Vec<f64> = (from..to).filter(|&j| j != i).flat_map(|j| work.runs[j].iter().copied()).collect();
    let (p, _, shift, _) = compare(&rest, &work.runs[i], work.positive)?;
    (shift.abs() > floor).then_some((shift, p))
}
