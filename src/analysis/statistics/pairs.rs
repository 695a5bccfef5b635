//! The m·n pairwise differences `c − b` of two samples, held as the two
//! sorted samples: counts below a value in O(m + n), and any order
//! statistic by narrowing a bracket with samples of the differences it
//! holds, then selecting among the few left, so that the Hodges–Lehmann
//! estimate and its interval need neither the m·n differences in memory
//! nor their sort (the selection in X + Y of Johnson and Mizoguchi, and of
//! Monahan's Hodges–Lehmann algorithm, with a deterministic sampler).

use std::cell::RefCell;

/// The differences `c[i] − b[j]` (as computed in floating point) of two
/// samples without NaN.
pub struct Pairs {
    /// The first sample, ascending.
    c: Vec<f64>,
    /// The second sample, ascending.
    b: Vec<f64>,
    /// How many differences a bracket may hold to be selected among directly.
    cap: u64,
    /// Buffers every order statistic reuses: a bracket's rows, a sample
    /// of its differences, and the differences selected among.
    scratch: RefCell<Scratch>,
}

/// The buffers of [`Pairs::kth`], kept between calls: on 10^5 values a
/// side they are megabytes, which fresh allocations would fault in anew.
#[derive(Default)]
struct Scratch {
    rows: Rows,
    sample: Vec<f64>,
    all: Vec<f64>,
}

/// Differences drawn from a bracket to narrow it: the bracket shrinks by
/// about √SAMPLE / 6 each round.
const SAMPLE: u64 = 16_384;

/// The differences in a range of values `[lo, hi]`: for each value of
/// `c`, the range of `b` whose differences lie in it, with the running
/// total up to that row; and how many differences lie below and at most.
#[derive(Default)]
struct Rows {
    rows: Vec<(usize, usize, u64)>,
    below: u64,
    at_most: u64,
}

impl Pairs {
    /// The differences of `c` and `b`; `None` when either is empty.
    pub fn new(c: &[f64], b: &[f64]) -> Option<Pairs> {
        if c.is_empty() || b.is_empty() {
            return None;
        }
        // Sorted already (the callers sort each side once): copied as it is.
        let sorted = |v: &[f64]| {
            let mut v = v.to_vec();
            if !v.is_sorted_by(|a, b| a.total_cmp(b).is_le()) {
                v.sort_unstable_by(f64::total_cmp);
            }
            v
        };
        let cap = ((c.len() + b.len()) as u64).max(4096);
        Some(Pairs { c: sorted(c), b: sorted(b), cap, scratch: RefCell::default() })
    }

    /// How many differences there are, m·n.
    pub fn len(&self) -> u64 {
        self.c.len() as u64 * self.b.len() as u64
    }

    /// The smallest and the largest difference.
    pub fn bounds(&self) -> [f64; 2] {
        let (c, b) = (&self.c, &self.b);
        [c[0] - b[b.len() - 1], c[c.len() - 1] - b[0]]
    }

    /// How many differences are at most `x` (`or_equal`) or below it.
    ///
    /// A computed difference `c[i] − b[j]` never decreases as `c[i]` grows
    /// nor as `b[j]` falls (rounding is monotone), so the `b[j]` that give a
    /// difference at most `x` are a suffix of `b` whose start only moves
    /// right as `i` grows: one pass over each sample.
    pub fn count(&self, x: f64, or_equal: bool) -> u64 {
        let within = |d: f64| if or_equal { d <= x } else { d < x };
        let (mut j, mut total) = (0, 0u64);
        for &c in &self.c {
            while j < self.b.len() && !within(c - self.b[j]) {
                j += 1;
            }
            total += (self.b.len() - j) as u64;
        }
        total
    }

    /// How many differences are at most `x` and below it, in one pass
    /// (two suffixes of `b` per value of `c`, as [`Pairs::count`]).
    pub fn counts(&self, x: f64) -> (u64, u64) {
        let n = self.b.len();
        let (mut le, mut lt, mut at_most, mut below) = (0, 0, 0u64, 0u64);
        for &c in &self.c {
            while le < n && c - self.b[le] > x {
                le += 1;
            }
            while lt < n && c - self.b[lt] >= x {
                lt += 1;
            }
            at_most += (n - le) as u64;
            below += (n - lt) as u64;
        }
        (at_most, below)
    }

    /// Half the ties counted: `#{d > x} + ½·#{d = x}`, the Mann–Whitney U
    /// of `c − x` against `b` with midranks.
    pub fn u_at(&self, x: f64) -> f64 {
        let (at_most, below) = self.counts(x);
        (self.len() - at_most) as f64 + (at_most - below) as f64 / 2.0
    }

    /// The `k`-th smallest difference, from 1 (`1 ≤ k ≤ m·n`).
    ///
    /// A bracket of values known to hold it is narrowed round by round: a
    /// systematic sample of [`SAMPLE`] of its differences proposes a
    /// narrower one a few standard errors either side of the sought rank,
    /// and one counting pass checks the proposal (keeping the side that
    /// holds it when it misses). A round that does not halve the bracket is
    /// followed by one of bisection over the doubles, so the search ends
    /// whatever the ties; once the bracket holds few differences, they are
    /// selected among directly. The result is exact whatever the samples.
    pub fn kth(&self, k: u64) -> f64 {
        let scratch = &mut *self.scratch.borrow_mut();
        let [lo, hi] = self.bounds();
        let valid = [lo, hi];
        if self.len() <= self.cap {
            // Few enough to select among at once, after one counting pass.
            return self.narrow(k, valid, valid, scratch);
        }
        // The first proposal samples the whole grid of differences, which
        // needs no counting pass to lay out.
        let n = self.b.len() as u64;
        let at = |position: u64| self.c[(position / n) as usize] - self.b[(position % n) as usize];
        let proposal = propose(self.len(), k, 0, at, &mut scratch.sample);
        self.narrow(k, valid, proposal, scratch)
    }

    /// The `k`-th smallest difference within `valid`, from a first
    /// `proposal` (see [`Pairs::kth`]).
    fn narrow(
        &self,
        k: u64,
        mut valid: [f64; 2],
        mut proposal: [f64; 2],
        scratch: &mut Scratch,
    ) -> f64 {
        let (mut last, mut round) = (u64::MAX, 0u64);
        let rows = &mut scratch.rows;
        loop {
            let [lo, hi] = proposal;
            self.rows(lo, hi, rows);
            if rows.below >= k {
                proposal = [valid[0], lo.next_down()];
                continue;
            }
            if rows.at_most < k {
                proposal = [hi.next_up(), valid[1]];
                continue;
            }
            valid = proposal;
            let within = rows.at_most - rows.below;
            if lo == hi {
                // Every difference in the bracket is this one value.
                return lo;
            }
            if within <= self.cap {
                return self.select(rows, k - rows.below, &mut scratch.all);
            }
            proposal = if within > last / 2 {
                let (lo, hi) = (ordered(lo), ordered(hi));
                [valid[0], unordered(lo + (hi - lo) / 2)]
            } else {
                round += 1;
                let mut row = 0;
                let at = |position: u64| {
                    while rows.rows[row].2 <= position {
                        row += 1;
                    }
                    let (start, end, total) = rows.rows[row];
                    self.c[row]
                        - self.b[start + (position - (total - (end - start) as u64)) as usize]
                };
                propose(within, k - rows.below, round, at, &mut scratch.sample)
            };
            last = within;
        }
    }

    /// The differences in `[lo, hi]` by rows, in one pass, into `into`.
    fn rows(&self, lo: f64, hi: f64, into: &mut Rows) {
        let n = self.b.len();
        let (mut start, mut end, mut total) = (0, 0, 0u64);
        let (mut below, mut at_most) = (0u64, 0u64);
        let rows = &mut into.rows;
        rows.clear();
        for &c in &self.c {
            while start < n && c - self.b[start] > hi {
                start += 1;
            }
            while end < n && c - self.b[end] >= lo {
                end += 1;
            }
            let end = end.max(start);
            total += (end - start) as u64;
            (below, at_most) = (below + (n - end) as u64, at_most + (n - start) as u64);
            rows.push((start, end, total));
        }
        (into.below, into.at_most) = (below, at_most);
    }

    /// The `k`-th smallest (from 1) of the differences in `rows`, gathered
    /// into `all`.
    fn select(&self, rows: &Rows, k: u64, all: &mut Vec<f64>) -> f64 {
        all.clear();
        for (&c, &(start, end, _)) in self.c.iter().zip(&rows.rows) {
            all.extend(self.b[start..end].iter().map(|b| c - b));
        }
        *all.select_nth_unstable_by((k - 1) as usize, f64::total_cmp).1
    }

    /// The smallest difference above `x`, if any, in one pass: over
    /// each value of `c`, the last difference above `x` in its row.
    pub fn above(&self, x: f64) -> Option<f64> {
        let n = self.b.len();
        let (mut j, mut best) = (0, None::<f64>);
        for &c in &self.c {
            while j < n && c - self.b[j] > x {
                j += 1;
            }
            if j > 0 {
                let d = c - self.b[j - 1];
                best = Some(best.map_or(d, |b| b.min(d)));
            }
        }
        best
    }

    /// The median of the differences: the middle one, or the mean of the
    /// two middle ones.
    pub fn median(&self) -> f64 {
        let n = self.len();
        if n % 2 == 1 {
            return self.kth(n / 2 + 1);
        }
        let lower = self.kth(n / 2);
        let upper = if self.count(lower, true) > n / 2 {
            lower
        } else {
            self.above(lower).unwrap_or(lower)
        };
        lower / 2.0 + upper / 2.0
    }
}

/// A narrower bracket for the `k`-th of `within` differences, the
/// `position`-th of which `at` gives (asked in increasing order): the
/// order statistics of a systematic sample of them (every `within /
/// SAMPLE`-th, from an offset that depends on the round) a few standard
/// errors either side of the share sought.
fn propose(
    within: u64,
    k: u64,
    round: u64,
    mut at: impl FnMut(u64) -> f64,
    sample: &mut Vec<f64>,
) -> [f64; 2] {
    let offset = (SplitMix(round).next() >> 11) as f64 / (1u64 << 53) as f64;
    sample.clear();
    for t in 0..SAMPLE {
        let share = (t as f64 + offset) / SAMPLE as f64;
        sample.push(at(((share * within as f64) as u64).min(within - 1)));
    }
    let share = k as f64 / within as f64;
    let spread = 3.0 * (SAMPLE as f64 * share * (1.0 - share)).sqrt() + 2.0;
    let last = (SAMPLE - 1) as f64;
    let lo = (share * SAMPLE as f64 - spread).clamp(0.0, last) as usize;
    let hi = (share * SAMPLE as f64 + spread).clamp(0.0, last) as usize;
    let lo_value = *sample.select_nth_unstable_by(lo, f64::total_cmp).1;
    let hi_value = *sample[lo..].select_nth_unstable_by(hi - lo, f64::total_cmp).1;
    [lo_value, hi_value]
}

/// SplitMix64: a small, seeded generator for the sampler.
struct SplitMix(u64);

impl SplitMix {
    /// The next 64 random bits.
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// A double as an integer of the same order (`f64::total_cmp`'s), as i128
/// so that midpoints never overflow.
fn ordered(x: f64) -> i128 {
    let bits = x.to_bits() as i64;
    (bits ^ (((bits >> 63) as u64) >> 1) as i64) as i128
}

/// The double of an [`ordered`] integer.
fn unordered(k: i128) -> f64 {
    let bits = k as i64;
    f64::from_bits((bits ^ (((bits >> 63) as u64) >> 1) as i64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded generator of small samples with many ties and signs.
    fn samples(seed: u64) -> (Vec<f64>, Vec<f64>) {
        let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let mut next = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) as u32
        };
        let (m, n, grid) = (1 + next() % 30, 1 + next() % 30, 1 + next() % 7);
        let mut draw = |k: u32| (0..k).map(|_| (next() % 40) as f64 / grid as f64 - 3.0).collect();
        (draw(m), draw(n))
    }

    /// Every count, order statistic and neighbour agrees with the sorted
    /// list of all m·n differences, on 500 seeded samples with ties.
    #[test]
    fn agrees_with_the_sorted_differences() {
        for seed in 0..500 {
            let (c, b) = samples(seed);
            let pairs = Pairs::new(&c, &b).unwrap();
            let mut all: Vec<f64> = c.iter().flat_map(|x| b.iter().map(move |y| x - y)).collect();
            all.sort_by(f64::total_cmp);
            for (k, d) in all.iter().enumerate() {
                assert_eq!(pairs.kth(k as u64 + 1), *d, "seed {seed}, k {k}");
                let le = all.iter().filter(|v| *v <= d).count() as u64;
                let lt = all.iter().filter(|v| *v < d).count() as u64;
                assert_eq!((pairs.count(*d, true), pairs.count(*d, false)), (le, lt));
                assert_eq!(pairs.counts(*d), (le, lt));
                assert_eq!(pairs.above(*d), all.iter().find(|v| *v > d).copied());
            }
            let k = all.len();
            let median =
                if k % 2 == 1 { all[k / 2] } else { all[k / 2 - 1] / 2.0 + all[k / 2] / 2.0 };
            assert_eq!(pairs.median(), median, "seed {seed}");
        }
    }

    /// Brackets narrowed by samples and by bisection, with few
    /// differences selected among at the end, on samples of up to 400 a
    /// side with heavy ties: every order statistic asked for is the sorted
    /// list's.
    #[test]
    fn sampled_selection_agrees_with_the_sorted_differences() {
        for seed in 0..40 {
            let (c, b) = samples(seed);
            let grow = |v: Vec<f64>, by: usize| -> Vec<f64> {
                v.iter()
                    .cycle()
                    .take(v.len() * by)
                    .enumerate()
                    .map(|(i, x)| x + (i % 3) as f64)
                    .collect()
            };
            let (c, b) = (grow(c, 1 + seed as usize % 13), grow(b, 1 + seed as usize % 11));
            let mut pairs = Pairs::new(&c, &b).unwrap();
            pairs.cap = 16;
            let mut all: Vec<f64> = c.iter().flat_map(|x| b.iter().map(move |y| x - y)).collect();
            all.sort_by(f64::total_cmp);
            let n = all.len() as u64;
            for k in [1, 2, n / 7 + 1, n / 3 + 1, n / 2, n / 2 + 1, n - n / 5, n - 1, n] {
                let k = k.clamp(1, n);
                assert_eq!(pairs.kth(k), all[k as usize - 1], "seed {seed}, k {k} of {n}");
            }
        }
        // All differences equal: the bracket is one value.
        let pairs = Pairs { cap: 1, ..Pairs::new(&[2.0; 90], &[1.0; 90]).unwrap() };
        assert_eq!(pairs.kth(4000), 1.0);
        // Two values only, each hundreds of times: bisection ends it.
        let c: Vec<f64> = (0..200).map(|i| (i % 2) as f64).collect();
        let pairs = Pairs { cap: 1, ..Pairs::new(&c, &[0.0; 100]).unwrap() };
        assert_eq!((pairs.kth(10_000), pairs.kth(10_001)), (0.0, 1.0));
    }
}
