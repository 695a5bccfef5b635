//! Rank statistics of two samples: the Mann–Whitney U test (exact without
//! ties, normal with tie and continuity corrections otherwise), Cliff's
//! delta, and the Hodges–Lehmann shift with the distribution-free interval
//! that inverts the same test (Moses), on the log scale for ratios.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal};

use super::CONFIDENCE;

/// Largest m·n for the exact null distribution of U (and for the m·n
/// pairwise differences of the Hodges–Lehmann estimate): 100 × 100 runs.
pub const EXACT_MAX: usize = 10_000;

/// The rank comparison of a candidate sample with a baseline sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankTest {
    /// Mann–Whitney U of the candidate: pairs where it is larger, ties half.
    pub u: f64,
    /// Two-sided p-value.
    pub p: f64,
    /// Whether `p` is exact (no ties) or from the normal approximation.
    pub exact: bool,
    /// The smallest two-sided p these sample sizes can give, 2 / C(m + n, m).
    pub min_p: f64,
    /// Cliff's delta, P(c > b) − P(c < b), from −1 to 1.
    pub cliffs_delta: f64,
}

/// Mann–Whitney's test of `c` against `b` (no NaN); `None` when a side is empty.
pub fn mann_whitney(c: &[f64], b: &[f64]) -> Option<RankTest> {
    let (m, n) = (c.len(), b.len());
    if m == 0 || n == 0 {
        return None;
    }
    let (u, ties) = u_statistic(c, b);
    let mn = (m * n) as f64;
    let exact = ties == 0.0 && m * n <= EXACT_MAX;
    let p = if exact {
        null_tails(m, n)[u.min(mn - u).floor() as usize]
    } else {
        normal_p(u, m, n, ties)
    };
    Some(RankTest { u, p, exact, min_p: min_p(m, n), cliffs_delta: 2.0 * u / mn - 1.0 })
}

/// U of `c` (midranks) and the tie term Σ(t³ − t) of the pooled sample.
fn u_statistic(c: &[f64], b: &[f64]) -> (f64, f64) {
    let mut pooled: Vec<(f64, bool)> =
        c.iter().map(|&v| (v, true)).chain(b.iter().map(|&v| (v, false))).collect();
    pooled.sort_by(|x, y| x.0.total_cmp(&y.0));
    let (mut rank_sum, mut ties, mut i) = (0.0, 0.0, 0);
    while i < pooled.len() {
        let mut j = i;
        while j + 1 < pooled.len() && pooled[j + 1].0 == pooled[i].0 {
            j += 1;
        }
        let (t, midrank) = ((j - i + 1) as f64, (i + j) as f64 / 2.0 + 1.0);
        rank_sum += midrank * pooled[i..=j].iter().filter(|x| x.1).count() as f64;
        ties += t * t * t - t;
        i = j + 1;
    }
    let m = c.len() as f64;
    (rank_sum - m * (m + 1.0) / 2.0, ties)
}

/// The number of arrangements giving each U = 0..=m·n without ties: the
/// coefficients of the Gaussian binomial [m + n choose m], built as
/// ∏ᵢ (1 − q^(n+i)) / (1 − q^i). A coefficient at u involves only lower
/// ones, so the tails are exact integers whenever they are below 2⁵³.
fn null_counts(m: usize, n: usize) -> Vec<f64> {
    let mut counts = vec![0.0; m * n + 1];
    counts[0] = 1.0;
    for i in 1..=m {
        for u in (n + i..=m * n).rev() {
            counts[u] -= counts[u - n - i];
        }
        for u in i..=m * n {
            counts[u] += counts[u - i];
        }
    }
    counts
}

/// Sample sizes whose null distribution [`null_tails`] keeps: at most 80 KB
/// each (m·n ≤ [`EXACT_MAX`]), so at most 5 MB in a long `serve` session.
const KEPT_SIZES: usize = 64;

/// Null distributions (their [`exact_tails`]) by sample sizes (m, n).
type Tails = BTreeMap<(usize, usize), Arc<[f64]>>;

/// The null distributions kept, at most [`KEPT_SIZES`].
struct Memo(Mutex<Tails>);

/// The process's null distributions, which every comparison shares.
static MEMO: Memo = Memo::new();

impl Memo {
    /// An empty memo.
    const fn new() -> Self {
        Memo(Mutex::new(BTreeMap::new()))
    }

    /// The tails of (m, n), computed on first use. Past [`KEPT_SIZES`]
    /// sizes, those kept are dropped.
    fn tails(&self, m: usize, n: usize) -> Arc<[f64]> {
        if let Some(tails) = self.0.lock().ok().and_then(|memo| memo.get(&(m, n)).cloned()) {
            return tails;
        }
        let tails: Arc<[f64]> = exact_tails(&null_counts(m, n)).into();
        if let Ok(mut memo) = self.0.lock() {
            if memo.len() >= KEPT_SIZES {
                memo.clear();
            }
            memo.insert((m, n), tails.clone());
        }
        tails
    }
}

/// Two-sided exact p of every U = 0..=m·n without ties, 2·P(U ≤ u) at most 1,
/// computed once per (m, n): a study compares samples of the same sizes again
/// and again (each column, each configuration), and the null distribution
/// takes m²·n steps.
fn null_tails(m: usize, n: usize) -> Arc<[f64]> {
    MEMO.tails(m, n)
}

/// The two-sided p of each U from its null `counts`: 2·P(U ≤ u), at most 1,
/// the tail summed left to right.
fn exact_tails(counts: &[f64]) -> Vec<f64> {
    let total: f64 = counts.iter().sum();
    let mut tail = 0.0;
    counts
        .iter()
        .map(|c| {
            tail += c;
            (2.0 * tail / total).min(1.0)
        })
        .collect()
}

/// Two-sided p from the normal approximation with continuity and tie corrections.
fn normal_p(u: f64, m: usize, n: usize, ties: f64) -> f64 {
    let (mf, nf) = (m as f64, n as f64);
    let total = mf + nf;
    let variance = mf * nf / 12.0 * ((total + 1.0) - ties / (total * (total - 1.0)));
    if variance <= 0.0 {
        return 1.0;
    }
    let z = ((u - mf * nf / 2.0).abs() - 0.5).max(0.0) / variance.sqrt();
    let normal = Normal::new(0.0, 1.0).expect("the standard normal");
    (2.0 * normal.sf(z)).min(1.0)
}

/// The smallest two-sided p of samples of m and n: 2 / C(m + n, m), at most 1.
pub fn min_p(m: usize, n: usize) -> f64 {
    let mut choose = 1.0f64;
    for i in 1..=m.min(n) {
        choose = choose * (m.max(n) + i) as f64 / i as f64;
    }
    (2.0 / choose).min(1.0)
}

/// The Hodges–Lehmann estimate of the shift `c − b` (the median of the m·n
/// pairwise differences) and its interval inverting Mann–Whitney's test at
/// [`CONFIDENCE`]: the sorted differences D₍ₖ₊₁₎ and D₍ₘₙ₋ₖ₎ (from 1), with k
/// the largest U the test rejects. `None` past [`EXACT_MAX`] pairs; no interval
/// when even U = 0 is not rejected.
pub fn hodges_lehmann(c: &[f64], b: &[f64]) -> Option<(f64, Option<[f64; 2]>)> {
    let (m, n) = (c.len(), b.len());
    if m == 0 || n == 0 || m * n > EXACT_MAX {
        return None;
    }
    let mut d: Vec<f64> = c.iter().flat_map(|x| b.iter().map(move |y| x - y)).collect();
    d.sort_by(f64::total_cmp);
    let k = d.len();
    let estimate = if k % 2 == 1 { d[k / 2] } else { d[k / 2 - 1] / 2.0 + d[k / 2] / 2.0 };
    let (_, ties) = u_statistic(c, b);
    let alpha = 1.0 - CONFIDENCE;
    let tails = if ties == 0.0 { null_tails(m, n) } else { Default::default() };
    let rejects = |u: usize| {
        let p = if ties == 0.0 { tails[u] } else { normal_p(u as f64, m, n, ties) };
        p < alpha
    };
    let interval = rejects(0).then(|| {
        let mut lowest = 0;
        while lowest + 1 < k / 2 && rejects(lowest + 1) {
            lowest += 1;
        }
        [d[lowest], d[k - 1 - lowest]]
    });
    Some((estimate, interval))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Through a memo of its own: other tests, running in parallel, fill
    /// and clear the process's [`MEMO`].
    #[test]
    fn tails_sum_the_null_counts_and_are_kept_per_sizes() {
        // m = n = 2: U = 0..=4 arises in 1, 1, 2, 1, 1 of the C(4, 2) = 6 orders.
        assert_eq!(null_counts(2, 2), vec![1.0, 1.0, 2.0, 1.0, 1.0]);
        let memo = Memo::new();
        let tails = memo.tails(2, 2);
        assert_eq!(&tails[..], &[2.0 / 6.0, 4.0 / 6.0, 1.0, 1.0, 1.0]);
        assert!(Arc::ptr_eq(&tails, &memo.tails(2, 2)));
        assert_eq!(&null_tails(2, 2)[..], &tails[..]);
        // However many sizes a long session meets, few are kept.
        (1..=100).for_each(|n| assert_eq!(memo.tails(1, n).len(), n + 1));
        assert!(memo.0.lock().unwrap().len() <= KEPT_SIZES);
    }

    // scipy.stats.mannwhitneyu([4, 5, 6], [1, 2, 3], method="exact"):
    // U = 9, p = 0.1 (2 / C(6, 3) = 2 / 20), the smallest possible.
    #[test]
    fn exact_test_by_hand() {
        let t = mann_whitney(&[4.0, 5.0, 6.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!((t.u, t.exact, t.cliffs_delta), (9.0, true, 1.0));
        assert!((t.p - 0.1).abs() < 1e-15 && (t.min_p - 0.1).abs() < 1e-15);
        // Counts of U for m = n = 2: 1, 1, 2, 1, 1 (C(4, 2) = 6 in all).
        assert_eq!(null_counts(2, 2), vec![1.0, 1.0, 2.0, 1.0, 1.0]);
        // 20 against 20, all apart: p = 2 / C(40, 20) = 2 / 137846528820.
        let c: Vec<f64> = (0..20).map(|i| 100.0 + i as f64).collect();
        let b: Vec<f64> = (0..20).map(|i| i as f64).collect();
        let t = mann_whitney(&c, &b).unwrap();
        assert!((t.p / (2.0 / 137_846_528_820.0) - 1.0).abs() < 1e-12, "{}", t.p);
    }

    // Ties: pooled [1, 2, 2, 3], c = [2, 3], b = [1, 2]: midranks 1, 2.5,
    // 2.5, 4; R_c = 6.5, U = 6.5 − 3 = 3.5; Σ(t³ − t) = 6.
    #[test]
    fn ties_take_midranks() {
        assert_eq!(u_statistic(&[2.0, 3.0], &[1.0, 2.0]), (3.5, 6.0));
        assert!(!mann_whitney(&[2.0, 3.0], &[1.0, 2.0]).unwrap().exact);
        // All equal: no variance left, p = 1.
        assert_eq!(mann_whitney(&[1.0, 1.0], &[1.0, 1.0]).unwrap().p, 1.0);
    }

    // Differences of [10, 11, 12] − [1, 2, 3]: 7..=11 with repeats; median
    // 9; with m = n = 3 even U = 0 gives p = 0.1 > 0.05: no interval.
    #[test]
    fn hodges_lehmann_by_hand() {
        let (shift, ci) = hodges_lehmann(&[10.0, 11.0, 12.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!((shift, ci), (9.0, None));
    }
}
