//! The m·n pairwise differences `c − b` of two samples, held as the two
//! sorted samples: counts below a value in O(m + n), and several order
//! statistics at once by narrowing brackets in shared counting passes,
//! then selecting among the few differences left, so that the
//! Hodges–Lehmann estimate and its interval need neither the m·n
//! differences in memory nor their sort. The first brackets come from the
//! order statistics of a subgrid of the differences (every [`STRIDE`]-th
//! value of each sample, selected among the same way), as in Frederickson
//! and Johnson's selection in sorted matrices; later ones from samples of
//! the differences a bracket holds, as in Johnson and Mizoguchi's
//! selection in X + Y and Monahan's Hodges–Lehmann algorithm, with a
//! deterministic sampler. Every bracket is checked by a counting pass, so
//! the result is exact whatever the proposals.

use std::borrow::Cow;
use std::cell::Cell;

/// The differences `c[i] − b[j]` (as computed in floating point) of two
/// samples without NaN.
pub struct Pairs<'a> {
    /// The first sample, ascending (borrowed when it came sorted).
    c: Cow<'a, [f64]>,
    /// The second sample, ascending.
    b: Cow<'a, [f64]>,
    /// How many differences a bracket may hold to be selected among directly.
    cap: u64,
    /// Rows walked by counting passes, this grid's and its subgrids' (one
    /// pass over a bracket walks m rows and up to m + n steps).
    walked: Cell<u64>,
}

/// An order statistic of the differences, with how many differences lie
/// below it and at most it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Order {
    /// The difference.
    pub value: f64,
    /// How many differences are below it.
    pub below: u64,
    /// How many differences are at most it.
    pub at_most: u64,
}

/// Every how many values of each sample the subgrid of the first brackets
/// keeps.
const STRIDE: usize = 8;

/// The largest sample of a bracket's differences drawn to narrow it.
const MAX_SAMPLE: usize = 65_536;

/// The smallest sample drawn.
const MIN_SAMPLE: usize = 1_024;

/// The differences in a range of values `[lo, hi]`: for each value of
/// `c`, the range of `b` whose differences lie in it, with the running
/// total up to that row; and how many differences lie below and at most.
#[derive(Default)]
struct Rows {
    rows: Vec<(usize, usize, u64)>,
    below: u64,
    at_most: u64,
}

/// One order statistic sought: its rank, the values known to hold it, the
/// bracket the next pass checks, and the size of the last bracket.
struct Target {
    k: u64,
    valid: [f64; 2],
    proposal: [f64; 2],
    last: u64,
    found: Option<Order>,
}

/// What a pass over a bracket leaves a target to do.
enum Next {
    /// Found, or a new proposal made.
    Settled,
    /// Select among the bracket's differences directly.
    Select,
    /// Propose a narrower bracket from a sample of the bracket's.
    Sample,
}

impl<'a> Pairs<'a> {
    /// The differences of `c` and `b`; `None` when either is empty.
    pub fn new(c: &'a [f64], b: &'a [f64]) -> Option<Pairs<'a>> {
        if c.is_empty() || b.is_empty() {
            return None;
        }
        // Sorted already (the callers sort each side once): borrowed as it is.
        let sorted = |v: &'a [f64]| match v.is_sorted_by(|a, b| a.total_cmp(b).is_le()) {
            true => Cow::Borrowed(v),
            false => {
                let mut v = v.to_vec();
                v.sort_unstable_by(f64::total_cmp);
                Cow::Owned(v)
            }
        };
        Some(Pairs::of_sorted(sorted(c), sorted(b)))
    }

    /// The differences of two samples sorted already, neither empty.
    fn of_sorted(c: Cow<'a, [f64]>, b: Cow<'a, [f64]>) -> Pairs<'a> {
        let cap = ((c.len() + b.len()) as u64).max(4096);
        Pairs { c, b, cap, walked: Cell::new(0) }
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

    #[cfg(test)]
    /// Counting passes made so far, in passes over this grid's rows (a
    /// subgrid's count as the share of rows they walk).
    pub fn passes(&self) -> f64 {
        self.walked.get() as f64 / self.c.len() as f64
    }

    /// The order statistics of ranks `ks` (from 1; each clamped to 1..=m·n),
    /// in the order asked, each with its counts, found together (see
    /// [`Pairs::narrow`]): for a Hodges–Lehmann estimate and its interval
    /// on 83,000 runs a side, about six counting passes in all.
    pub fn select(&self, ks: &[u64]) -> Vec<Order> {
        let bounds = self.bounds();
        let mut targets: Vec<Target> = ks
            .iter()
            .map(|&k| Target {
                k: k.clamp(1, self.len()),
                valid: bounds,
                proposal: bounds,
                last: u64::MAX,
                found: None,
            })
            .collect();
        if self.len() > self.cap
            && self.len() > 16 * (strided(self.c.len()).len() * strided(self.b.len()).len()) as u64
        {
            self.first_brackets(&mut targets);
        }
        self.narrow(&mut targets);
        let missing = Order { value: f64::NAN, below: 0, at_most: 0 };
        targets.iter().map(|t| t.found.unwrap_or(missing)).collect()
    }

    /// First proposals for the targets, from the order statistics of the
    /// subgrid of every [`STRIDE`]-th value of each sample (first and last
    /// kept; itself selected among the same way): a subgrid value of rank
    /// r has about r·(m·n)/(p·q) differences below it, within a band of
    /// m·STRIDE + n·STRIDE (each row of the subgrid stands for STRIDE rows
    /// of the grid, and each column for STRIDE columns), so the proposal
    /// spans a sixteenth of that band either side (an eighth gave brackets
    /// too wide to select among at once on 83,333 runs a side: 5.9 passes
    /// and 16.0 ms against 4.4 and 12.5, `cargo bench --bench stages --
    /// hodges`); the counting pass checks it, as any other, and a bracket
    /// that misses gives way to the side that holds its target.
    fn first_brackets(&self, targets: &mut [Target]) {
        let (rows, cols) = (strided(self.c.len()), strided(self.b.len()));
        let mut sub = Pairs::of_sorted(
            Cow::Owned(rows.iter().map(|&i| self.c[i]).collect()),
            Cow::Owned(cols.iter().map(|&j| self.b[j]).collect()),
        );
        sub.cap = sub.cap.min(self.cap);
        let (grid, scale) = (sub.len(), self.len() as f64 / sub.len() as f64);
        let slack = ((rows.len() + cols.len()) / 16).max(1) as u64;
        let ranks: Vec<u64> = targets
            .iter()
            .flat_map(|t| {
                let at = (t.k as f64 / scale).round() as u64;
                [at.saturating_sub(slack).max(1), at.saturating_add(slack).min(grid)]
            })
            .collect();
        let found = sub.select(&ranks);
        for (t, pair) in targets.iter_mut().zip(found.chunks(2)) {
            t.proposal = [pair[0].value, pair[1].value];
        }
        self.walked.set(self.walked.get() + sub.walked.get());
    }

    /// The targets' order statistics, from their first proposals.
    ///
    /// Round by round, the proposals that overlap are joined, and one
    /// counting pass lays out the differences of every joined bracket. A
    /// bracket that misses its target gives way to the side that holds
    /// it; one that holds few enough differences is selected among
    /// directly (all its targets from one gathering); otherwise a
    /// systematic sample of its differences proposes, for each target, a
    /// narrower one a few standard errors either side of the rank sought.
    /// A round that does not halve a target's bracket is followed by one of
    /// bisection over the doubles, so the search ends whatever the ties.
    fn narrow(&self, targets: &mut [Target]) {
        let (mut round, mut all, mut sample) = (0, Vec::new(), Vec::new());
        let mut layouts: Vec<Rows> = Vec::new();
        while targets.iter().any(|t| t.found.is_none()) {
            round += 1;
            let groups = joined(targets);
            layouts.resize_with(layouts.len().max(groups.len()), Rows::default);
            let brackets: Vec<[f64; 2]> = groups.iter().map(|g| g.0).collect();
            self.lay_out(&brackets, &mut layouts);
            for ((bracket, members), rows) in groups.iter().zip(&layouts) {
                let (mut direct, mut sampled) = (Vec::new(), Vec::new());
                let most = self.cap.saturating_mul(members.len() as u64);
                for &t in members {
                    match self.check(&mut targets[t], *bracket, rows, most) {
                        Next::Settled => {}
                        Next::Select => direct.push(t),
                        Next::Sample => sampled.push(t),
                    }
                }
                if !direct.is_empty() {
                    self.select_among(rows, &direct, targets, &mut all);
                }
                if !sampled.is_empty() {
                    let within = rows.at_most - rows.below;
                    self.sample(rows, round, &mut sample);
                    for &t in &sampled {
                        targets[t].proposal =
                            propose(&mut sample, within, targets[t].k - rows.below);
                    }
                }
            }
        }
    }

    /// A target against the bracket a pass laid out: found, given the side
    /// that holds it, bisected, or to be selected or sampled.
    fn check(&self, target: &mut Target, [lo, hi]: [f64; 2], rows: &Rows, most: u64) -> Next {
        let k = target.k;
        if rows.below >= k {
            target.proposal = [target.valid[0], lo.next_down()];
            return Next::Settled;
        }
        if rows.at_most < k {
            target.proposal = [hi.next_up() + 0.0, target.valid[1]];
            return Next::Settled;
        }
        let [v_lo, v_hi] = target.valid;
        target.valid = [v_lo.max(lo), v_hi.min(hi)];
        let within = rows.at_most - rows.below;
        if lo == hi {
            // Every difference in the bracket is this one value.
            target.found = Some(Order { value: lo, below: rows.below, at_most: rows.at_most });
            return Next::Settled;
        }
        if within <= most {
            return Next::Select;
        }
        let last = std::mem::replace(&mut target.last, within);
        if within > last / 2 {
            let [lo, hi] = target.valid.map(ordered);
            target.proposal = [target.valid[0], unordered(lo + (hi - lo) / 2)];
            return Next::Settled;
        }
        Next::Sample
    }

    /// One counting pass: the differences in each of `brackets` by rows,
    /// into `into` (as many as there are brackets).
    ///
    /// A computed difference `c[i] − b[j]` never decreases as `c[i]` grows
    /// nor as `b[j]` falls (rounding is monotone), so the `b[j]` that give a
    /// difference at most `hi` are a suffix of `b` whose start only moves
    /// right as `i` grows, and so for those at least `lo`: one walk over
    /// each sample per bracket end, all in one loop over `c`.
    fn lay_out(&self, brackets: &[[f64; 2]], into: &mut [Rows]) {
        let n = self.b.len();
        let mut ends = vec![(0usize, 0usize, 0u64, 0u64, 0u64); brackets.len()];
        into.iter_mut().for_each(|r| {
            r.rows.clear();
            r.rows.reserve(self.c.len());
        });
        for &c in self.c.iter() {
            for ((end, [lo, hi]), rows) in ends.iter_mut().zip(brackets).zip(into.iter_mut()) {
                let (start, stop, total, below, at_most) = end;
                *start = advance(&self.b, *start, |b| c - b > *hi);
                *stop = advance(&self.b, *stop, |b| c - b >= *lo);
                let end = (*stop).max(*start);
                *total += (end - *start) as u64;
                *below += (n - end) as u64;
                *at_most += (n - *start) as u64;
                rows.rows.push((*start, end, *total));
            }
        }
        for (&(_, _, _, below, at_most), rows) in ends.iter().zip(into.iter_mut()) {
            (rows.below, rows.at_most) = (below, at_most);
        }
        let walked = self.walked.get() + (self.c.len() * brackets.len()) as u64;
        self.walked.set(walked);
    }

    /// The order statistics of `members` (targets whose ranks lie within
    /// `rows`) from one gathering of the bracket's differences into `all`,
    /// each with its counts.
    fn select_among(
        &self,
        rows: &Rows,
        members: &[usize],
        targets: &mut [Target],
        all: &mut Vec<f64>,
    ) {
        all.clear();
        all.reserve((rows.at_most - rows.below) as usize);
        for (&c, &(start, end, _)) in self.c.iter().zip(&rows.rows) {
            all.extend(self.b[start..end].iter().map(|b| c - b));
        }
        let mut order = members.to_vec();
        order.sort_by_key(|&t| targets[t].k);
        let mut from = 0;
        for t in order {
            let at = (targets[t].k - rows.below - 1) as usize;
            let value = *all[from..].select_nth_unstable_by(at - from, f64::total_cmp).1;
            from = at;
            // Selection leaves every difference before `at` at most `value`
            // (those before `from` at most the last target's, which is no
            // larger) and every one after it at least `value`: one pass
            // counts those below it on the left and those equal on the right.
            let left = all[..at].iter().filter(|&&d| d < value).count() as u64;
            let right = all[at + 1..].iter().filter(|&&d| d == value).count() as u64;
            let below = rows.below + left;
            let at_most = rows.below + at as u64 + 1 + right;
            targets[t].found = Some(Order { value, below, at_most });
        }
    }

    /// A systematic sample of the differences in `rows` (every
    /// `within / size`-th, from an offset that depends on the round), into
    /// `sample`: large enough that the bracket it proposes is likely to be
    /// selected among directly, and at most half a pass's worth.
    fn sample(&self, rows: &Rows, round: u64, sample: &mut Vec<f64>) {
        let within = rows.at_most - rows.below;
        let wanted = (24 * within / self.cap).min(1 << 20).pow(2) as usize;
        let most = MAX_SAMPLE.min((self.c.len() + self.b.len()) / 2).max(MIN_SAMPLE);
        let size = wanted.clamp(MIN_SAMPLE, most);
        let offset = (SplitMix(round).next() >> 11) as f64 / (1u64 << 53) as f64;
        let mut row = 0;
        sample.clear();
        for t in 0..size {
            let share = (t as f64 + offset) / size as f64;
            let position = ((share * within as f64) as u64).min(within - 1);
            while rows.rows[row].2 <= position {
                row += 1;
            }
            let (start, end, total) = rows.rows[row];
            let column = start + (position - (total - (end - start) as u64)) as usize;
            sample.push(self.c[row] - self.b[column]);
        }
    }
}

/// The first index from `from` at which `past` (true on a prefix of `b`)
/// is false, or `b.len()`: four values at a time, without a branch on each.
#[inline(always)]
fn advance(b: &[f64], mut from: usize, past: impl Fn(f64) -> bool) -> usize {
    while let Some(four) = b.get(from..from + 4) {
        let steps = four.iter().map(|&v| past(v) as usize).sum::<usize>();
        from += steps;
        if steps < 4 {
            return from;
        }
    }
    while from < b.len() && past(b[from]) {
        from += 1;
    }
    from
}

/// The indices `0, STRIDE, 2·STRIDE, …` below `len`, and `len − 1`.
fn strided(len: usize) -> Vec<usize> {
    let mut indices: Vec<usize> = (0..len).step_by(STRIDE).collect();
    if indices.last() != Some(&(len - 1)) {
        indices.push(len - 1);
    }
    indices
}

/// The unfound targets' proposals, joined where they overlap: each joined
/// bracket with the targets it holds.
fn joined(targets: &[Target]) -> Vec<([f64; 2], Vec<usize>)> {
    let mut open: Vec<usize> = (0..targets.len()).filter(|&t| targets[t].found.is_none()).collect();
    open.sort_by(|&a, &b| targets[a].proposal[0].total_cmp(&targets[b].proposal[0]));
    let mut groups: Vec<([f64; 2], Vec<usize>)> = Vec::new();
    for t in open {
        let [lo, hi] = targets[t].proposal;
        match groups.last_mut() {
            Some((bracket, members)) if lo <= bracket[1] => {
                bracket[1] = bracket[1].max(hi);
                members.push(t);
            }
            _ => groups.push(([lo, hi], vec![t])),
        }
    }
    groups
}

/// A narrower bracket for the `k`-th of `within` differences from a
/// systematic `sample` of them: its order statistics a few standard
/// errors either side of the share sought.
fn propose(sample: &mut [f64], within: u64, k: u64) -> [f64; 2] {
    let size = sample.len() as f64;
    let share = k as f64 / within as f64;
    let spread = 3.0 * (size * share * (1.0 - share)).sqrt() + 2.0;
    let last = size - 1.0;
    let lo = (share * size - spread).clamp(0.0, last) as usize;
    let hi = (share * size + spread).clamp(0.0, last) as usize;
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

/// A double as an integer of the same order, −0 and 0 as one (as the
/// counts compare them), so that bisection never splits zero; as i128 so
/// that midpoints never overflow.
fn ordered(x: f64) -> i128 {
    let bits = (x + 0.0).to_bits() as i64;
    let k = (bits ^ (((bits >> 63) as u64) >> 1) as i64) as i128;
    if k < 0 { k + 1 } else { k }
}

/// The double of an [`ordered`] integer (0 for zero).
fn unordered(k: i128) -> f64 {
    let bits = (if k < 0 { k - 1 } else { k }) as i64;
    f64::from_bits((bits ^ (((bits >> 63) as u64) >> 1) as i64) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A seeded generator of 64 random bits.
    fn generator(seed: u64) -> impl FnMut() -> u64 {
        let mut mix = SplitMix(seed ^ 0x5151_a3a3_0f0f_7777);
        move || mix.next()
    }

    /// Two samples of one of many shapes, by seed: sizes from 1 to `most`
    /// (often unequal), values continuous, on a coarse grid (ties), almost
    /// all one value (heavy ties), one side constant, negative, or spread
    /// over hundreds of orders of magnitude (huge ratios).
    fn samples(seed: u64, most: u64) -> (Vec<f64>, Vec<f64>) {
        let mut next = generator(seed);
        let size = |r: u64| 1 + (r % most) as usize;
        let (m, n, shape) = (size(next()), size(next()), next() % 7);
        let mut draw = |len: usize, side: u64| -> Vec<f64> {
            (0..len)
                .map(|_| {
                    let r = next();
                    let unit = (r >> 11) as f64 / (1u64 << 53) as f64;
                    match shape {
                        0 => unit * 10.0 + side as f64,
                        1 => (r % 9) as f64 + side as f64,
                        2 => [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0][(r % 8) as usize],
                        3 if side == 0 => 4.25,
                        4 => -(unit * 1e6).floor() / 8.0,
                        5 => (unit * 600.0 - 300.0).exp2() * (1.0 + (r % 3) as f64),
                        _ => (r % 1000) as f64 / 7.0 - 70.0 * side as f64,
                    }
                })
                .collect()
        };
        (draw(m, 0), draw(n, 1))
    }

    /// The sorted list of all m·n differences, the independent reference.
    fn sorted_differences(c: &[f64], b: &[f64]) -> Vec<f64> {
        let mut all: Vec<f64> = c.iter().flat_map(|x| b.iter().map(move |y| x - y)).collect();
        all.sort_by(f64::total_cmp);
        all
    }

    /// The k-th of the sorted list (from 1), with how many lie below and
    /// at most it.
    fn reference(all: &[f64], k: u64) -> Order {
        let value = all[k as usize - 1];
        let below = all.partition_point(|&d| d < value) as u64;
        let at_most = all.partition_point(|&d| d <= value) as u64;
        Order { value, below, at_most }
    }

    /// Ranks to ask for on a grid of `len`: the ends, the middle pair, and
    /// seeded others, unsorted and some repeated.
    fn ranks(seed: u64, len: u64) -> Vec<u64> {
        let mut next = generator(seed.wrapping_mul(31));
        let mut ks = vec![len / 2 + 1, 1, len, len.div_ceil(2)];
        ks.extend((0..5).map(|_| 1 + next() % len));
        ks.push(ks[4]);
        ks
    }

    /// Every order statistic and its counts agree with the sorted list of
    /// all differences, on small samples of every shape, each rank alone.
    #[test]
    fn every_rank_agrees_with_the_sorted_differences() {
        for seed in 0..300 {
            let (c, b) = samples(seed, 30);
            let pairs = Pairs::new(&c, &b).unwrap();
            let all = sorted_differences(&c, &b);
            for k in 1..=pairs.len() {
                let found = pairs.select(&[k]);
                assert_eq!(found, [reference(&all, k)], "seed {seed}, k {k}");
            }
        }
    }

    /// Several ranks at once through subgrids, samples and bisection (the
    /// direct selection allowed only 16 differences, so that small grids
    /// take every path), on samples of every shape up to 2,000 a side.
    #[test]
    fn ranks_together_agree_with_the_sorted_differences() {
        for seed in 0..300 {
            let most = [12, 60, 300, 2000][seed as usize % 4];
            let (mut c, b) = samples(seed, most);
            if c.len() * b.len() > 150_000 {
                c.truncate(150_000 / b.len());
            }
            let mut pairs = Pairs::new(&c, &b).unwrap();
            pairs.cap = if seed % 3 == 0 { pairs.cap } else { 16 };
            let all = sorted_differences(&c, &b);
            let ks = ranks(seed, pairs.len());
            let expected: Vec<Order> = ks.iter().map(|&k| reference(&all, k)).collect();
            assert_eq!(pairs.select(&ks), expected, "seed {seed}, {} × {}", c.len(), b.len());
        }
    }

    /// Brackets of one value, two values hundreds of times each (bisection
    /// ends it), and ranks past either end (clamped).
    #[test]
    fn ties_everywhere_and_ranks_out_of_range() {
        let pairs = Pairs { cap: 1, ..Pairs::new(&[2.0; 90], &[1.0; 90]).unwrap() };
        let one = Order { value: 1.0, below: 0, at_most: 8100 };
        assert_eq!(pairs.select(&[4000, 0, 9000]), [one; 3]);
        let c: Vec<f64> = (0..200).map(|i| (i % 2) as f64).collect();
        let pairs = Pairs { cap: 1, ..Pairs::new(&c, &[0.0; 100]).unwrap() };
        let found = pairs.select(&[10_000, 10_001]);
        assert_eq!([found[0].value, found[1].value], [0.0, 1.0]);
        assert_eq!((found[0].at_most, found[1].below), (10_000, 10_000));
    }

    /// Large samples: the middle and the interval's ranks of two samples
    /// of 3,000 and 4,000 in a few counting passes, against counts made
    /// directly at each value found.
    #[test]
    fn large_samples_take_few_passes() {
        let mut next = generator(7);
        let mut draw = |len: usize, shift: f64| -> Vec<f64> {
            let mut v: Vec<f64> =
                (0..len).map(|_| (next() % 60_000) as f64 / 1e6 + shift).collect();
            v.sort_by(f64::total_cmp);
            v
        };
        let (c, b) = (draw(3_000, -0.07), draw(4_000, 0.0));
        let pairs = Pairs::new(&c, &b).unwrap();
        let half = pairs.len() / 2;
        let ks = [half - 300_000, half, half + 1, half + 300_000];
        let found = pairs.select(&ks);
        for (k, order) in ks.iter().zip(&found) {
            // Counted directly: how many differences lie below and at most the value.
            let count = |keep: &dyn Fn(f64) -> bool| -> u64 {
                c.iter().map(|x| b.iter().filter(|y| keep(x - *y)).count() as u64).sum()
            };
            assert_eq!(count(&|d| d < order.value), order.below);
            assert_eq!(count(&|d| d <= order.value), order.at_most);
            assert!(order.below < *k && *k <= order.at_most, "k {k}: {order:?}");
        }
        assert!(pairs.passes() < 8.0, "{} passes", pairs.passes());
    }
}
