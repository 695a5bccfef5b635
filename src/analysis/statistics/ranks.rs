//! Rank statistics of two samples: the Mann–Whitney U test (exact without
//! ties, normal with tie and continuity corrections otherwise), Cliff's
//! delta, and the Hodges–Lehmann shift with the distribution-free interval
//! that inverts the same test (Moses), on the log scale for ratios.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use serde::Serialize;

use super::CONFIDENCE;
use super::pairs::{Order, Pairs};

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
    let null = Null::of(m, n, ties);
    let mn = (m * n) as f64;
    let exact = matches!(null, Null::Exact { .. });
    let p = super::stats::reported_p(null.p(u));
    Some(RankTest { u, p, exact, min_p: min_p(m, n), cliffs_delta: 2.0 * u / mn - 1.0 })
}

/// The null distribution of U that a comparison's p-value and interval
/// both come from: exact without ties (up to [`EXACT_MAX`] pairs), else the
/// normal approximation with the tie correction of the pooled sample as
/// observed and a continuity correction (R's `wilcox.test` and scipy's
/// `mannwhitneyu` alike).
enum Null {
    /// The exact two-sided tails [`null_tails`] for m·n pairs.
    Exact { tails: Arc<[f64]>, pairs: f64 },
    /// The normal approximation: mean m·n/2 and this variance.
    Normal { pairs: f64, variance: f64 },
}

impl Null {
    /// The null of samples of `m` and `n` whose pooled ties give Σ(t³ − t) = `ties`.
    fn of(m: usize, n: usize, ties: f64) -> Null {
        let pairs = (m * n) as f64;
        if ties == 0.0 && m * n <= EXACT_MAX {
            return Null::Exact { tails: null_tails(m, n), pairs };
        }
        let total = (m + n) as f64;
        let variance = pairs / 12.0 * ((total + 1.0) - ties / (total * (total - 1.0)));
        Null::Normal { pairs, variance }
    }

    /// The two-sided p of U = `u`, which may be a half-integer (ties); it
    /// falls as `u` moves away from m·n/2 on either side. A half-integer
    /// in the exact null takes the p of its neighbour nearer the centre.
    fn p(&self, u: f64) -> f64 {
        match self {
            Null::Exact { tails, pairs } => tails[u.min(pairs - u).ceil() as usize],
            Null::Normal { pairs, variance } => normal_p(u, *pairs, *variance),
        }
    }

    /// Whether U = `u` is compatible with no shift at [`CONFIDENCE`].
    fn accepts(&self, u: f64) -> bool {
        self.p(u) >= 1.0 - CONFIDENCE
    }
}

/// U of `c` (midranks) and the tie term Σ(t³ − t) of the pooled sample.
fn u_statistic(c: &[f64], b: &[f64]) -> (f64, f64) {
    let ascending = |v: &[f64]| v.is_sorted_by(|a, b| a.total_cmp(b).is_le());
    if !(ascending(c) && ascending(b)) {
        let mut sorted = [c.to_vec(), b.to_vec()];
        sorted.iter_mut().for_each(|v| v.sort_unstable_by(f64::total_cmp));
        return u_statistic(&sorted[0], &sorted[1]);
    }
    // One walk over both sorted samples, a run of equal values at a time
    // (as the pooled list would hold them), with nothing allocated.
    let (mut i, mut j, mut rank) = (0, 0, 0usize);
    let (mut rank_sum, mut ties) = (0.0, 0.0);
    while i < c.len() || j < b.len() {
        let v = match (c.get(i), b.get(j)) {
            (Some(x), Some(y)) => *std::cmp::min_by(x, y, |x, y| x.total_cmp(y)),
            (Some(x), None) | (None, Some(x)) => *x,
            (None, None) => break,
        };
        let (from_c, from_b) = (i, j);
        while i < c.len() && c[i] == v {
            i += 1;
        }
        while j < b.len() && b[j] == v {
            j += 1;
        }
        let (in_c, t) = (i - from_c, (i - from_c) + (j - from_b));
        let midrank = (2 * rank + t - 1) as f64 / 2.0 + 1.0;
        rank_sum += midrank * in_c as f64;
        let t = t as f64;
        ties += t * t * t - t;
        rank += t as usize;
    }
    let m = c.len() as f64;
    (rank_sum - m * (m + 1.0) / 2.0, ties)
}

/// The number of arrangements giving each U = 0..=m·n without ties: the
/// coefficients of the Gaussian binomial [m + n choose m], built as
/// ∏ᵢ (1 − q^(n+i)) / (1 − q^i). A coefficient at u involves only lower
/// ones, so the tails are exact integers whenever they are below 2⁵³.
/// Past that, each factor (1 − q^(n+i)) subtracts counts of like size, and
/// the rounding grows with the number of factors: over the smaller side
/// ([m + n choose m] = [m + n choose n]) the tails stay within 10⁻¹³ of
/// the exact integers up to m·n = 10⁴; over the larger they did not (141
/// runs against 41: p off by 0.5%).
fn null_counts(m: usize, n: usize) -> Vec<f64> {
    let (m, n) = (m.min(n), m.max(n));
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

/// Two-sided p of U = `u` from the normal approximation (mean `pairs` / 2,
/// this variance) with a continuity correction; 1 without variance.
fn normal_p(u: f64, pairs: f64, variance: f64) -> f64 {
    if variance <= 0.0 {
        return 1.0;
    }
    let z = ((u - pairs / 2.0).abs() - 0.5).max(0.0) / variance.sqrt();
    (2.0 * super::student::normal_sf(z)).min(1.0)
}

/// The smallest two-sided p of samples of m and n: 2 / C(m + n, m), at most 1.
pub fn min_p(m: usize, n: usize) -> f64 {
    let mut choose = 1.0f64;
    for i in 1..=m.min(n) {
        choose = choose * (m.max(n) + i) as f64 / i as f64;
    }
    (2.0 / choose).min(1.0)
}

/// A Hodges–Lehmann shift with the interval that inverts the same test as
/// the comparison's p-value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shift {
    /// The median of the m·n pairwise differences `c − b`.
    pub estimate: f64,
    /// The shifts the test does not reject; absent when even the most
    /// extreme U is not rejected (too few runs for p < 0.05).
    pub interval: Option<Interval>,
}

/// An interval whose ends may be open: a shift equal to an open end is
/// rejected, a shift just inside it is not (with ties, the p of a shift
/// at a pairwise difference differs from the p just beside it).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    /// The lower and upper end.
    pub ends: [f64; 2],
    /// Whether each end is excluded.
    pub open: [bool; 2],
}

impl Interval {
    /// Whether `x` lies in the interval.
    pub fn contains(&self, x: f64) -> bool {
        let [lo, hi] = self.ends;
        let above = if self.open[0] { x > lo } else { x >= lo };
        let below = if self.open[1] { x < hi } else { x <= hi };
        above && below
    }
}

/// The Hodges–Lehmann estimate of the shift `c − b` and its interval: the
/// shifts δ for which Mann–Whitney's test of `c − δ` against `b`, by the
/// null of the observed samples ([`Null`]), gives p ≥ 0.05. As δ grows, U
/// falls and its p rises to 1 and falls again, so these shifts are one
/// interval, whose ends are pairwise differences, each included or not;
/// δ = 0 lies in it exactly when the comparison's p ≥ 0.05, ties or none,
/// save one case: where most pairs tie at the median difference, the test
/// may reject the estimate itself, and the interval is stretched to hold it
/// (with no shift and p < 0.05 only if that median difference is 0); where
/// it rejects every shift, the interval is the estimate alone.
/// Without ties and within [`EXACT_MAX`] pairs this is Moses' interval
/// D₍ₖ₊₁₎ to D₍ₘₙ₋ₖ₎. At any size: no m·n differences are formed
/// ([`Pairs`]); `None` only when a side is empty.
pub fn hodges_lehmann(c: &[f64], b: &[f64]) -> Option<Shift> {
    let pairs = Pairs::new(c, b)?;
    let (_, ties) = u_statistic(c, b);
    let null = Null::of(c.len(), b.len(), ties);
    let mn = pairs.len();
    // The middle difference or two, and the interval's ends when the test
    // rejects no shift: all selected together.
    let top = (!null.accepts(0.0)).then(|| largest_accepted(&null, mn as f64));
    let ends = top.map(|top| [(mn as f64 - top).ceil() as u64, top.floor() as u64 + 1]);
    let ranks: Vec<u64> =
        [mn.div_ceil(2), mn / 2 + 1].into_iter().chain(ends.into_iter().flatten()).collect();
    let found = pairs.select(&ranks);
    let estimate = match mn % 2 {
        1 => found[0].value,
        _ => found[0].value / 2.0 + found[1].value / 2.0,
    };
    let (Some(top), &[_, _, lo, hi]) = (top, &found[..]) else {
        return Some(Shift { estimate, interval: None });
    };
    let Some(mut interval) = accepted_shifts(mn as f64, top, [lo, hi], &null) else {
        // U jumps across m·n/2 at the estimate by more than the test allows
        // (runs tied so heavily): the estimate alone.
        let ends = [estimate; 2];
        return Some(Shift { estimate, interval: Some(Interval { ends, open: [false; 2] }) });
    };
    // Where most pairs tie at the median difference, U there (ties counted
    // half) can lie far from m·n/2, and the test reject the estimate
    // itself: the interval then reaches to it.
    if !interval.contains(estimate) {
        let below =
            estimate < interval.ends[0] || (estimate == interval.ends[0] && interval.open[0]);
        let side = if below { 0 } else { 1 };
        interval.ends[side] = estimate;
        interval.open[side] = false;
    }
    Some(Shift { estimate, interval: Some(interval) })
}

/// The shifts whose U the test accepts, from the largest accepted U above
/// m·n/2, `top`, and its mirror `mn − top`. U of a shift δ is
/// `#{d > δ} + ½·#{d = δ}`, so it is `mn − k` just above the k-th
/// difference D₍ₖ₎ and in between at a tie: the accepted shifts run from
/// `lo` = D₍ₖ₎ with k = ⌈mn − top⌉ (closed when U there is accepted, else
/// open) to `hi` = D₍ₖ₊₁₎ with k = ⌊top⌋ (likewise). `None` when the lower
/// end's U, though not above `top`, falls below the accepted band: no
/// shift is accepted.
fn accepted_shifts(mn: f64, top: f64, [lo, hi]: [Order; 2], null: &Null) -> Option<Interval> {
    // U of the shift at an order statistic, ties counted half.
    let u_at = |o: Order| (mn - o.at_most as f64) + (o.at_most - o.below) as f64 / 2.0;
    let u_lo = u_at(lo);
    let lo_open = u_lo > top;
    let u_inside = if lo_open { mn - lo.at_most as f64 } else { u_lo };
    if !null.accepts(u_inside) {
        return None;
    }
    let hi_open = u_at(hi) < mn - top;
    Some(Interval { ends: [lo.value, hi.value], open: [lo_open, hi_open] })
}

/// The largest U on the grid of half-integers from m·n/2 to `mn` that the
/// test accepts: p falls as U moves away from m·n/2, and is 1 there.
fn largest_accepted(null: &Null, mn: f64) -> f64 {
    let centre = mn / 2.0;
    // Accepted at centre + lo/2, not at centre + (hi + 1)/2 (or hi the end).
    let (mut lo, mut hi) = (0u64, mn as u64);
    while lo < hi {
        let mid = hi - (hi - lo) / 2;
        if null.accepts(centre + mid as f64 / 2.0) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    centre + lo as f64 / 2.0
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

    /// 141 runs against 41, all apart (U = 1622): scipy's exact p,
    /// `mannwhitneyu(c, b, method="exact")`, 1.2784717447259815e-05; the
    /// null built over the larger side gave 1.2847e-05.
    #[test]
    fn exact_null_of_unequal_sides_keeps_its_tails() {
        let tails = null_tails(141, 41);
        assert!((tails[1622] / 1.278_471_744_725_981_5e-5 - 1.0).abs() < 1e-12, "{}", tails[1622]);
        assert_eq!(&tails[..], &null_tails(41, 141)[..]);
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
        let shift = hodges_lehmann(&[10.0, 11.0, 12.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!((shift.estimate, shift.interval), (9.0, None));
    }

    /// A seeded generator of two samples: sizes 1 to 40 and 1 to 40, values
    /// on a grid of 1 to 6 steps (many ties) or continuous.
    fn samples(seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        let (m, n, grid, shift) = (1 + next() % 40, 1 + next() % 40, next() % 7, next() % 5);
        let mut draw = |k: u32, shift: u32| -> Vec<f64> {
            (0..k)
                .map(|_| match grid {
                    0 => f64::from(next() % 100_000) / 997.0 + f64::from(shift),
                    g => f64::from(next() % (g * 3) + shift),
                })
                .collect()
        };
        (draw(m, shift), draw(n, 0))
    }

    /// Moses' interval by definition, for samples without ties: the sorted
    /// m·n differences D₍ₖ₊₁₎ and D₍ₘₙ₋ₖ₎, k the largest U the exact test
    /// rejects, its null counted over every way to split the pooled ranks.
    fn moses(c: &[f64], b: &[f64]) -> Option<[f64; 2]> {
        let (m, n) = (c.len(), b.len());
        let mut counts = vec![0u64; m * n + 1];
        for mask in 0u32..1 << (m + n) {
            if mask.count_ones() as usize != m {
                continue;
            }
            // U of the ranks in `mask` (from 0): each pairs with the other
            // side's smaller ranks.
            let u: usize = (0..m + n)
                .filter(|r| mask >> r & 1 == 1)
                .map(|r| (0..r).filter(|s| mask >> s & 1 == 0).count())
                .sum();
            counts[u] += 1;
        }
        let total: u64 = counts.iter().sum();
        let below = |u: usize| 2.0 * counts[..=u].iter().sum::<u64>() as f64 / total as f64;
        let k = (0..=m * n / 2).take_while(|&u| below(u) < 0.05).count();
        let mut d: Vec<f64> = c.iter().flat_map(|x| b.iter().map(move |y| x - y)).collect();
        d.sort_by(f64::total_cmp);
        (k > 0).then(|| [d[k - 1], d[m * n - k]])
    }

    /// Without ties, on small samples of every size up to 8 + 8, the
    /// interval is Moses', closed, and the estimate the median difference.
    #[test]
    fn untied_intervals_are_moses_intervals() {
        for seed in 0..300u64 {
            let (m, n) = (1 + seed as usize % 8, 1 + (seed as usize / 8) % 8);
            let c: Vec<f64> =
                (0..m).map(|i| ((i as u64 * 7919 + seed * 104729) % 1009) as f64 + 0.5).collect();
            let b: Vec<f64> =
                (0..n).map(|j| ((j as u64 * 6151 + seed * 7) % 1013) as f64 + 0.25).collect();
            let shift = hodges_lehmann(&c, &b).unwrap();
            let interval = shift.interval.map(|i| {
                assert_eq!(i.open, [false; 2], "seed {seed}");
                i.ends
            });
            assert_eq!(interval, moses(&c, &b), "seed {seed}: {c:?} {b:?}");
        }
    }

    /// On 2,000 seeded samples with ties, large and small: the interval
    /// holds the estimate and excludes no shift exactly when p < 0.05, and
    /// every shift a brute-force scan accepts (each pairwise difference and
    /// each point between two) lies in it, and no other.
    #[test]
    fn the_interval_excludes_zero_exactly_when_p_is_below_five_percent() {
        for seed in 0..2000 {
            let (c, b) = samples(seed);
            let test = mann_whitney(&c, &b).unwrap();
            let shift = hodges_lehmann(&c, &b).unwrap();
            let Some(interval) = shift.interval else { continue };
            assert!(interval.contains(shift.estimate), "seed {seed}: {shift:?} {c:?} {b:?}");
            let stretched = shift.estimate == 0.0 && test.p < 0.05;
            assert!(interval.contains(0.0) == (test.p >= 0.05) || stretched, "seed {seed}");
            if seed % 10 != 0 {
                continue;
            }
            let (_, ties) = u_statistic(&c, &b);
            let null = Null::of(c.len(), b.len(), ties);
            let mut d: Vec<f64> = c.iter().flat_map(|x| b.iter().map(move |y| x - y)).collect();
            d.sort_by(f64::total_cmp);
            d.dedup();
            let between = d.windows(2).map(|w| w[0] / 2.0 + w[1] / 2.0);
            for x in d.iter().copied().chain(between) {
                // U of c − x against b, the shift applied to each pairwise difference.
                let u = c.iter().flat_map(|cv| b.iter().map(move |bv| cv - bv));
                let u: f64 = u
                    .map(|d| {
                        if d > x {
                            1.0
                        } else if d == x {
                            0.5
                        } else {
                            0.0
                        }
                    })
                    .sum();
                let accepted = null.accepts(u) || x == shift.estimate;
                let inside = interval.contains(x);
                // Between the accepted shifts and a stretched-to estimate.
                let stretch = inside
                    && !accepted
                    && (x - shift.estimate).abs() < (interval.ends[1] - interval.ends[0]);
                assert!(accepted == inside || stretch && !null.accepts(u), "seed {seed} at {x}");
            }
        }
    }

    /// Sizes far past the exact range: no error, and the estimate is the
    /// median of the differences (two sides of 480 and 2,000 runs).
    #[test]
    fn large_samples_have_an_estimate_and_an_interval() {
        let c: Vec<f64> = (0..480).map(|i| 100.0 + (i % 37) as f64).collect();
        let b: Vec<f64> = (0..2000).map(|i| 90.0 + (i % 41) as f64).collect();
        let shift = hodges_lehmann(&c, &b).unwrap();
        let mut d: Vec<f64> = c.iter().flat_map(|x| b.iter().map(move |y| x - y)).collect();
        d.sort_by(f64::total_cmp);
        let k = d.len();
        assert_eq!(shift.estimate, d[k / 2 - 1] / 2.0 + d[k / 2] / 2.0);
        let interval = shift.interval.unwrap();
        assert!(interval.contains(shift.estimate) && !interval.contains(0.0));
    }
}
