//! Versions whose runs stand apart from the versions around them: a
//! one-version excursion is an outlier, not a change. They are found before
//! any change point is sought, and left out of that search. Hampel's
//! filter names the suspects, so that a few spikes close together do not
//! hide each other; the rank test decides.

use super::work::{Work, compare};
use crate::analysis::metrics::sides;
use crate::config::History;

/// Versions on each side a version is held against.
pub const NEIGHBOURS: usize = 5;

/// An outlier: its place in the order, its shift from its neighbours as a
/// share, and Holm's p over the series' versions.
pub type Outlier = (usize, f64, f64);

/// How many scaled median absolute deviations from its neighbourhood's
/// median level make a version a suspect (Hampel's filter).
pub const HAMPEL: f64 = 3.0;

/// The outliers of `work`: the suspects of Hampel's filter over
/// [`NEIGHBOURS`] versions with runs on each side ([`suspects`]) whose
/// runs, tested against those of the neighbours that are not suspects,
/// reach the level (Holm over the series' versions) and shift by more
/// than `negligible`.
pub fn find(work: &Work, history: &History, negligible: Option<f64>) -> Vec<Outlier> {
    let len = work.runs.len();
    let suspect = suspects(&work.levels);
    let tests: Vec<Option<(f64, f64)>> = (0..len)
        .map(|i| {
            if !suspect[i] {
                return None;
            }
            let rest: Vec<f64> = around(i, len)
                .filter(|&j| !suspect[j])
                .flat_map(|j| work.runs[j].iter().copied())
                .collect();
            let (p, _, shift, _) = compare(&rest, &work.runs[i], work.positive)?;
            Some((p, shift))
        })
        .collect();
    let ps: Vec<f64> = tests.iter().map(|t| t.map_or(1.0, |t| t.0)).collect();
    let floor = negligible.unwrap_or(0.0);
    sides::adjusted(&ps)
        .into_iter()
        .zip(tests)
        .enumerate()
        .filter_map(|(i, (p_holm, t))| {
            let (_, shift) = t?;
            (p_holm <= history.level && shift.abs() > floor).then_some((
                work.places[i],
                shift,
                p_holm,
            ))
        })
        .collect()
}

/// The points within [`NEIGHBOURS`] of `i` on each side, `i` included.
fn around(i: usize, len: usize) -> std::ops::Range<usize> {
    i.saturating_sub(NEIGHBOURS)..(i + NEIGHBOURS + 1).min(len)
}

/// Hampel's filter: whether each level lies more than [`HAMPEL`] × 1.4826
/// median absolute deviations from the median of its neighbourhood
/// ([`around`]); with no deviation, whether it differs from that median.
pub fn suspects(levels: &[f64]) -> Vec<bool> {
    hampel(levels).into_iter().map(|(far, limit)| far > limit).collect()
}

/// The suspects ([`suspects`]) that also lie beyond the filter's limit
/// from each version next to them: one-version excursions, not the first
/// version of a new level (which lies near the version after it).
pub fn excursions(levels: &[f64]) -> Vec<bool> {
    let filter = hampel(levels);
    (0..levels.len())
        .map(|i| {
            let (far, limit) = filter[i];
            let next = [i.checked_sub(1), Some(i + 1).filter(|&j| j < levels.len())];
            far > limit && next.into_iter().flatten().all(|j| (levels[i] - levels[j]).abs() > limit)
        })
        .collect()
}

/// Each level's distance from the median of its neighbourhood and the
/// limit of Hampel's filter there: [`HAMPEL`] × 1.4826 median absolute deviations.
fn hampel(levels: &[f64]) -> Vec<(f64, f64)> {
    let median = |mut v: Vec<f64>| {
        v.sort_unstable_by(f64::total_cmp);
        crate::analysis::statistics::robust::median(&v)
    };
    (0..levels.len())
        .map(|i| {
            let window: Vec<f64> = levels[around(i, levels.len())].to_vec();
            let centre = median(window.clone());
            let mad = median(window.iter().map(|x| (x - centre).abs()).collect());
            ((levels[i] - centre).abs(), HAMPEL * 1.4826 * mad)
        })
        .collect()
}

/// `work` without the versions at the places of `outliers`.
pub fn without(work: &Work, outliers: &[Outlier]) -> Work {
    let keep: Vec<usize> = (0..work.places.len())
        .filter(|&i| outliers.iter().all(|o| o.0 != work.places[i]))
        .collect();
    Work {
        places: keep.iter().map(|&i| work.places[i]).collect(),
        runs: keep.iter().map(|&i| work.runs[i].clone()).collect(),
        levels: keep.iter().map(|&i| work.levels[i]).collect(),
        positive: work.positive,
    }
}
