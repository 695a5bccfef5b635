//! Where a change found begins: once the merge has left only change points
//! that pass, each is moved to the split of the runs between its
//! neighbours that least squares prefers (the maximum-likelihood place of
//! one step in normal noise, Hinkley 1970), one-version excursions left
//! out; and the range around it where that statistic
//! stays near its peak.

use super::outliers::excursions;
use super::work::Work;
use crate::math;

/// The split statistic of points `from..to` of `work`: at each split τ
/// (entry τ − `from`, the first point after it), N₁·N₂/N · (ȳ₁ − ȳ₂)² over
/// the runs before and after (their logs when every run is positive),
/// the points `skip` marks left out of both sides; 0 where a side has no run.
pub fn statistic(work: &Work, skip: &[bool], from: usize, to: usize) -> Vec<f64> {
    let value = |x: f64| if work.positive { math::ln(x) } else { x };
    let sums: Vec<(f64, f64)> = (from..to)
        .map(|i| {
            if skip[i] {
                return (0.0, 0.0);
            }
            let runs = &work.runs[i];
            (runs.iter().map(|&x| value(x)).sum(), runs.len() as f64)
        })
        .collect();
    let (total, count) = sums.iter().fold((0.0, 0.0), |(s, n), &(a, b)| (s + a, n + b));
    let mut q = vec![0.0; to - from];
    let (mut left, mut n) = (0.0, 0.0);
    for (tau, slot) in q.iter_mut().enumerate().skip(1) {
        left += sums[tau - 1].0;
        n += sums[tau - 1].1;
        let m = count - n;
        if n > 0.0 && m > 0.0 {
            let gap = left / n - (total - left) / m;
            *slot = n * m / count * gap * gap;
        }
    }
    q
}

/// The split of points `from..to` where [`statistic`] peaks, leaving at
/// least `min` points on each side (the first on a tie); `None` when the
/// points are too few.
pub fn best(work: &Work, skip: &[bool], [from, to]: [usize; 2], min: usize) -> Option<usize> {
    let min = min.max(1);
    if to - from < 2 * min {
        return None;
    }
    let q = statistic(work, skip, from, to);
    let mut at = from + min;
    for tau in from + min..=to - min {
        if q[tau - from] > q[at - from] {
            at = tau;
        }
    }
    Some(at)
}

/// `cuts` (ascending points of `work`) each moved, left to right, to the
/// [`best`] split between the one before it (already moved) and the one
/// after it, one-version excursions ([`excursions`]) left out.
pub fn relocate(work: &Work, cuts: &[usize], min: usize) -> Vec<usize> {
    let skip = excursions(&work.levels);
    let mut moved: Vec<usize> = Vec::with_capacity(cuts.len());
    for (i, &cut) in cuts.iter().enumerate() {
        let from = moved.last().copied().unwrap_or(0);
        let to = cuts.get(i + 1).copied().unwrap_or(work.levels.len());
        moved.push(best(work, &skip, [from, to], min).unwrap_or(cut));
    }
    moved
}

/// The splits around `at` whose [`statistic`] stays within `share` of its
/// value at `at`, between `from` and `to`, excursions left out: the first
/// and the last point where the new level may begin.
pub fn range(work: &Work, [from, at, to]: [usize; 3], share: f64) -> [usize; 2] {
    let q = statistic(work, &excursions(&work.levels), from, to);
    let floor = share * q[at - from];
    let (mut lo, mut hi) = (at, at);
    while lo > from + 1 && q[lo - 1 - from] >= floor {
        lo -= 1;
    }
    while hi + 1 < to && q[hi + 1 - from] >= floor {
        hi += 1;
    }
    [lo, hi]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn work(runs: &[&[f64]]) -> Work {
        let positive = runs.iter().flat_map(|r| r.iter()).all(|&x| x > 0.0);
        Work {
            places: (0..runs.len()).collect(),
            runs: runs.iter().map(|r| r.to_vec()).collect(),
            levels: runs.iter().map(|r| super::super::work::level(r, positive)).collect(),
            positive,
        }
    }

    /// By hand, runs 0 | 0, 2 | 4 (not all positive: raw values). At τ = 1:
    /// N₁ = 1, N₂ = 3, means 0 and 2: 1·3/4·4 = 3. At τ = 2: N₁ = 3, means
    /// 2/3 and 4: 3·1/4·(10/3)² = 25/3. Skipping point 1: at τ = 1 and 2
    /// both split 0 from 4: 1·1/2·16 = 8.
    #[test]
    fn statistic_by_hand() {
        let w = work(&[&[0.0], &[0.0, 2.0], &[4.0]]);
        let q = statistic(&w, &[false; 3], 0, 3);
        assert!((q[1] - 3.0).abs() < 1e-12 && (q[2] - 25.0 / 3.0).abs() < 1e-12, "{q:?}");
        let q = statistic(&w, &[false, true, false], 0, 3);
        assert!((q[1] - 8.0).abs() < 1e-12 && (q[2] - 8.0).abs() < 1e-12, "{q:?}");
        assert_eq!(best(&w, &[false; 3], [0, 3], 1), Some(2));
        assert_eq!(best(&w, &[false; 3], [0, 3], 2), None);
    }

    /// A step at point 10 of 20, a spike at point 3 left out by Hampel's
    /// filter: a cut proposed at 12 moves to 10, and its range holds 10.
    #[test]
    fn a_cut_moves_to_the_step_past_a_spike() {
        let runs: Vec<Vec<f64>> = (0..20u8)
            .map(|i| {
                let jitter = 1.0 + 0.002 * f64::from((i * 7) % 5) - 0.004;
                let step = if i >= 10 { 1.1 } else { 1.0 };
                let level = step * jitter * if i == 3 { 3.0 } else { 1.0 };
                vec![level * 0.99, level, level * 1.01]
            })
            .collect();
        let refs: Vec<&[f64]> = runs.iter().map(Vec::as_slice).collect();
        let w = work(&refs);
        assert_eq!(relocate(&w, &[12], 3), vec![10]);
        // With the spike kept, least squares would split it off instead.
        assert_ne!(best(&w, &[false; 20], [0, 20], 3), Some(10));
        let [lo, hi] = range(&w, [0, 10, 20], 0.9);
        assert!(lo <= 10 && 10 <= hi, "{lo} {hi}");
    }
}
