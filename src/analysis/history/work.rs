//! One series' versions as the change search works on them, and the tests
//! and sizes both the change search and the outlier search use: the rank
//! test of two stretches of versions, their level and noise.

use super::series::Raw;
use crate::analysis::statistics::ranks;
use crate::analysis::statistics::robust::median;
use crate::math;

/// One series' versions with runs, their runs sorted and their medians.
#[derive(Debug, Clone)]
pub struct Work {
    /// Each point's place in the order.
    pub places: Vec<usize>,
    /// Each point's runs, ascending.
    pub runs: Vec<Vec<f64>>,
    /// Each point's level: the mean of its runs' logs when every run is
    /// positive (a geometric mean, on the log scale), else of its runs.
    pub levels: Vec<f64>,
    /// Whether every run is positive: shifts are then ratios, on the log scale.
    pub positive: bool,
}

impl Work {
    /// The points of `raw`: its versions with runs.
    pub fn of(raw: &Raw) -> Work {
        let mut work =
            Work { places: Vec::new(), runs: Vec::new(), levels: Vec::new(), positive: true };
        for (place, runs) in raw.runs.iter().enumerate().filter(|(_, r)| !r.is_empty()) {
            let mut sorted = runs.clone();
            sorted.sort_unstable_by(f64::total_cmp);
            work.positive &= sorted[0] > 0.0;
            work.places.push(place);
            work.runs.push(sorted);
        }
        let positive = work.positive;
        work.levels = work.runs.iter().map(|runs| level(runs, positive)).collect();
        work
    }

    /// The runs of points `from..to`, pooled.
    fn pooled(&self, from: usize, to: usize) -> Vec<f64> {
        self.runs[from..to].iter().flatten().copied().collect()
    }
}

/// A version's level: the mean of its runs' logs when `positive`, else of its runs.
pub fn level(runs: &[f64], positive: bool) -> f64 {
    let sum: f64 =
        if positive { runs.iter().map(|x| math::ln(*x)).sum() } else { runs.iter().sum() };
    sum / runs.len() as f64
}

/// How far level `x` lies from level `centre`, as a share of it; `None`
/// for a centre of 0 off the log scale.
pub fn apart(x: f64, centre: f64, positive: bool) -> Option<f64> {
    if positive {
        return Some(math::exp_m1(x - centre).abs());
    }
    (centre != 0.0).then(|| ((x - centre) / centre).abs())
}

/// The test of a split at point `at` between the segments `from..at` and `at..to`.
#[derive(Debug, Clone, PartialEq)]
pub struct Test {
    /// The points bounding the two segments: `from`, `at`, `to`.
    pub bounds: [usize; 3],
    /// Versions with runs before and after.
    pub versions: [usize; 2],
    /// Runs before and after.
    pub runs: [usize; 2],
    /// Mann–Whitney's two-sided p of the runs after against those before.
    pub p: f64,
    /// The smallest p these sizes can give.
    pub min_p: f64,
    /// The Hodges–Lehmann shift, after against before, as a share of before.
    pub shift: f64,
    /// Its 95% interval, as shares.
    pub ci: Option<[f64; 2]>,
}

/// Test the split of `work` at `at` between `from` and `to`.
pub fn test(work: &Work, [from, at, to]: [usize; 3]) -> Option<Test> {
    let (before, after) = (work.pooled(from, at), work.pooled(at, to));
    let (p, min_p, shift, ci) = compare(&before, &after, work.positive)?;
    Some(Test {
        bounds: [from, at, to],
        versions: [at - from, to - at],
        runs: [before.len(), after.len()],
        p,
        min_p,
        shift,
        ci,
    })
}

/// Mann–Whitney's p of `after` against `before`, the smallest p their
/// sizes allow, and the Hodges–Lehmann shift as a share of `before` with
/// its 95% interval: a ratio − 1 on the log scale when every run is
/// `positive`, else the shift over the median of `before`.
pub fn compare(
    before: &[f64],
    after: &[f64],
    positive: bool,
) -> Option<(f64, f64, f64, Option<[f64; 2]>)> {
    let rank = ranks::mann_whitney(after, before)?;
    let (shift, ci) = if positive {
        let log = |v: &[f64]| v.iter().map(|x| math::ln(*x)).collect::<Vec<_>>();
        let hl = ranks::hodges_lehmann(&log(after), &log(before))?;
        let share = |x: f64| math::exp_m1(x);
        (share(hl.estimate), hl.interval.map(|i| i.ends.map(share)))
    } else {
        let hl = ranks::hodges_lehmann(after, before)?;
        let base = median(&sorted(before.to_vec())).abs();
        let share = |x: f64| if base > 0.0 { x / base } else { f64::NAN };
        (share(hl.estimate), hl.interval.map(|i| i.ends.map(share)))
    };
    Some((rank.p, rank.min_p, shift, ci))
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_unstable_by(f64::total_cmp);
    v
}

/// The run-to-run noise of a series cut at `cuts`: the median, over the
/// points of segments of two points or more, of how far a point's level
/// lies from its segment's median level ([`apart`]).
pub fn noise(work: &Work, cuts: &[usize]) -> Option<f64> {
    let mut distances = Vec::new();
    for (from, to) in segments(work.levels.len(), cuts) {
        let centre = median(&sorted(work.levels[from..to].to_vec()));
        if to - from >= 2 {
            let far = work.levels[from..to].iter().map(|&x| apart(x, centre, work.positive));
            distances.extend(far.flatten());
        }
    }
    (!distances.is_empty()).then(|| median(&sorted(distances)))
}

/// The segments `0..len` cut at ascending `cuts`.
pub fn segments(len: usize, cuts: &[usize]) -> Vec<(usize, usize)> {
    let ends: Vec<usize> = std::iter::once(0).chain(cuts.iter().copied()).chain([len]).collect();
    ends.windows(2).map(|w| (w[0], w[1])).collect()
}

impl PartialEq for Work {
    fn eq(&self, other: &Self) -> bool {
        self.places == other.places && self.runs == other.runs && self.levels == other.levels
    }
}
