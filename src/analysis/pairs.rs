//! The m·n pairwise differences `c − b` of two samples, held as the two
//! sorted samples: counts below a value in O(m + n), and any order
//! statistic by bisection over the doubles, so that the Hodges–Lehmann
//! estimate and its interval need neither the m·n differences in memory
//! nor their sort (Johnson and Mizoguchi's selection in X + Y, by value).

/// The differences `c[i] − b[j]` (as computed in floating point) of two
/// samples without NaN.
pub struct Pairs {
    /// The first sample, ascending.
    c: Vec<f64>,
    /// The second sample, ascending.
    b: Vec<f64>,
}

impl Pairs {
    /// The differences of `c` and `b`; `None` when either is empty.
    pub fn new(c: &[f64], b: &[f64]) -> Option<Pairs> {
        if c.is_empty() || b.is_empty() {
            return None;
        }
        let sorted = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            v
        };
        Some(Pairs { c: sorted(c), b: sorted(b) })
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
    pub fn kth(&self, k: u64) -> f64 {
        first_true(self.bounds(), |x| self.count(x, true) >= k)
    }

    /// The largest difference below `x`, if any.
    pub fn below(&self, x: f64) -> Option<f64> {
        let k = self.count(x, false);
        (k > 0).then(|| self.kth(k))
    }

    /// The smallest difference above `x`, if any.
    pub fn above(&self, x: f64) -> Option<f64> {
        let k = self.count(x, true);
        (k < self.len()).then(|| self.kth(k + 1))
    }

    /// The median of the differences: the middle one, or the mean of the
    /// two middle ones.
    pub fn median(&self) -> f64 {
        let n = self.len();
        let upper = self.kth(n / 2 + 1);
        if n % 2 == 1 { upper } else { self.kth(n / 2) / 2.0 + upper / 2.0 }
    }
}

/// The smallest double in `[lo, hi]` where `holds` is true, for a `holds`
/// false then true along the doubles and true at `hi`: at most 64 steps of
/// bisection over the doubles in their order.
pub fn first_true([lo, hi]: [f64; 2], holds: impl Fn(f64) -> bool) -> f64 {
    let (mut lo, mut hi) = (ordered(lo), ordered(hi));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if holds(unordered(mid)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    unordered(lo)
}

/// The largest double in `[lo, hi]` where `holds` is true, for a `holds`
/// true then false along the doubles and true at `lo`.
pub fn last_true([lo, hi]: [f64; 2], holds: impl Fn(f64) -> bool) -> f64 {
    let (mut lo, mut hi) = (ordered(lo), ordered(hi));
    while lo < hi {
        let mid = hi - (hi - lo) / 2;
        if holds(unordered(mid)) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    unordered(lo)
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
                assert_eq!(pairs.below(*d), all.iter().rev().find(|v| *v < d).copied());
                assert_eq!(pairs.above(*d), all.iter().find(|v| *v > d).copied());
            }
            let k = all.len();
            let median =
                if k % 2 == 1 { all[k / 2] } else { all[k / 2 - 1] / 2.0 + all[k / 2] / 2.0 };
            assert_eq!(pairs.median(), median, "seed {seed}");
        }
    }

    #[test]
    fn bisection_walks_the_doubles_across_zero_and_signs() {
        assert_eq!(first_true([-1.0, 1.0], |x| x >= 0.0), -0.0);
        assert_eq!(first_true([-1.0, 1.0], |x| x > 0.0), f64::from_bits(1));
        assert_eq!(last_true([-1.0, 1.0], |x| x < 0.5), 0.5f64.next_down());
        assert_eq!(first_true([-1e308, 1e308], |x| x >= 3.25), 3.25);
        assert_eq!(first_true([2.0, 2.0], |_| true), 2.0);
    }
}
