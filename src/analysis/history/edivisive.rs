//! E-Divisive's divergence (Matteson and James 2014, α = 1) between the
//! points before and after each split of a segment, and the candidates it
//! proposes over windows, as Apache Otava splits a series (Fleming et al.,
//! ICPE 2023): no test here, only the statistic and where it peaks.

/// Q̂ of every split τ of `x` (index 1..len, the first point after the
/// split): `m·n/(m+n) · (2/(m·n)·Σ|xᵢ − yⱼ| − Σᵢ<ₖ|xᵢ − xₖ|/C(m,2) −
/// Σⱼ<ₗ|yⱼ − yₗ|/C(n,2))`, a within-term of one point being 0. Entry 0 is
/// 0 (no split). O(len²), no pairwise matrix kept.
pub fn divergence(x: &[f64]) -> Vec<f64> {
    let len = x.len();
    let mut q = vec![0.0; len];
    if len < 2 {
        return q;
    }
    // Sum of |xᵢ − xₖ| over pairs within the left part, within the right
    // part and in all, updated as the split moves right by one point.
    let row = |i: usize, range: std::ops::Range<usize>| -> f64 {
        range.map(|k| (x[i] - x[k]).abs()).sum()
    };
    let total: f64 = (0..len).map(|i| row(i, i + 1..len)).sum();
    let (mut left, mut right) = (0.0, total);
    for (tau, slot) in q.iter_mut().enumerate().skip(1) {
        // Point τ − 1 moves from the right part to the left.
        let p = tau - 1;
        right -= row(p, tau..len);
        left += row(p, 0..p);
        let (m, n) = (tau as f64, (len - tau) as f64);
        let cross = total - left - right;
        let within = |sum: f64, k: f64| if k < 2.0 { 0.0 } else { sum / (k * (k - 1.0) / 2.0) };
        let energy = 2.0 * cross / (m * n) - within(left, m) - within(right, n);
        *slot = m * n / (m + n) * energy;
    }
    q
}

/// The split of `x` where [`divergence`] peaks, leaving at least `min`
/// points on each side (the first such split on a tie); `None` when `x`
/// has fewer than 2·`min` points.
pub fn best_split(x: &[f64], min: usize) -> Option<usize> {
    let min = min.max(1);
    if x.len() < 2 * min {
        return None;
    }
    let q = divergence(x);
    let mut best = min;
    for (tau, &value) in q.iter().enumerate().take(x.len() - min + 1).skip(min) {
        if value > q[best] {
            best = tau;
        }
    }
    Some(best)
}

/// Candidates over windows of `window` points, as Otava splits: in each
/// window, the best split of a segment is kept when `accept(from, at, to)`
/// (indices into `x`) says so, and both sides are split again; the next
/// window starts at the last candidate found, or half a window on.
/// Ascending, without repeats.
pub fn candidates(
    x: &[f64],
    window: usize,
    min: usize,
    accept: &dyn Fn(usize, usize, usize) -> bool,
) -> Vec<usize> {
    let (window, step) = (window.max(2), (window / 2).max(1));
    let mut found = std::collections::BTreeSet::new();
    let mut start = 0;
    while start < x.len() {
        let end = (start + window).min(x.len());
        let mut segments = vec![(start, end)];
        let mut last = 0;
        while let Some((from, to)) = segments.pop() {
            let Some(at) = best_split(&x[from..to], min).map(|t| t + from) else { continue };
            if accept(from, at, to) {
                found.insert(at);
                last = last.max(at);
                segments.extend([(from, at), (at, to)]);
            }
        }
        if end == x.len() {
            break;
        }
        start = last.max(start + step);
    }
    found.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand: x = [0, 0, 1, 1]. At τ = 2: m = n = 2, cross sum 4 over
    /// m·n = 4 pairs, so 2·4/4 = 2; within sums 0; Q = 4/4·2 = 2. At τ = 1:
    /// m = 1, n = 3, cross 0+1+1 = 2, 2·2/3 = 4/3; right within
    /// |0−1|+|0−1|+|1−1| = 2 over C(3,2) = 3: 2/3; Q = 3/4·(4/3 − 2/3) = 1/2.
    #[test]
    fn divergence_by_hand() {
        let q = divergence(&[0.0, 0.0, 1.0, 1.0]);
        assert!((q[2] - 2.0).abs() < 1e-12 && (q[1] - 0.5).abs() < 1e-12, "{q:?}");
        assert!((q[3] - 0.5).abs() < 1e-12, "{q:?}");
        assert_eq!(best_split(&[0.0, 0.0, 1.0, 1.0], 1), Some(2));
        assert_eq!(best_split(&[0.0, 0.0, 1.0], 2), None);
    }

    /// The O(len²) update equals the definition on seeded series.
    #[test]
    fn divergence_matches_its_definition() {
        let mut state = 7u64;
        for len in 2..30 {
            let x: Vec<f64> = (0..len)
                .map(|_| {
                    state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                    (state >> 40) as f64 / 1e3
                })
                .collect();
            let q = divergence(&x);
            for tau in 1..len {
                let (a, b) = x.split_at(tau);
                let sum = |u: &[f64], v: &[f64]| -> f64 {
                    u.iter().flat_map(|p| v.iter().map(move |q| (p - q).abs())).sum()
                };
                let (m, n) = (a.len() as f64, b.len() as f64);
                let within =
                    |u: &[f64], k: f64| if k < 2.0 { 0.0 } else { sum(u, u) / (k * (k - 1.0)) };
                let e = 2.0 * sum(a, b) / (m * n) - within(a, m) - within(b, n);
                let expected = m * n / (m + n) * e;
                assert!((q[tau] - expected).abs() < 1e-9 * (1.0 + expected.abs()), "{len} {tau}");
            }
        }
    }

    /// Two steps in 60 points, windows of 50: both found, nothing else.
    #[test]
    fn candidates_find_steps_across_windows() {
        let x: Vec<f64> =
            (0..60).map(|i| f64::from(u8::from(i >= 20) + u8::from(i >= 45))).collect();
        let accept = |from: usize, at: usize, to: usize| {
            let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
            (mean(&x[from..at]) - mean(&x[at..to])).abs() > 0.5
        };
        assert_eq!(candidates(&x, 50, 3, &accept), vec![20, 45]);
    }
}
