//! The resolution of a sample: the grid its values lie on (run times logged
//! in whole seconds lie on a grid of 1 s), found from the values alone, and
//! the grain of a comparison: its coarsest grid against its effect.

use serde::Serialize;

use crate::analysis::findings::carried::Grain;

/// Most decimals a grid is looked for at (10^−12 of the unit).
pub const MAX_DECIMALS: i32 = 12;

/// The grid a sample's values lie on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Resolution {
    /// The step: every difference between two values is a whole multiple of
    /// it (`grid`), or else the smallest gap between two distinct values.
    pub step: f64,
    /// Whether the values lie on a decimal grid of `step`; `false` when it
    /// is the smallest gap between few distinct values (at most half as
    /// many as the values).
    pub grid: bool,
    /// Distinct values among the sample's.
    pub distinct: usize,
    /// The step relative to the magnitude of the median; absent when the
    /// median is 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relative: Option<f64>,
}

impl Resolution {
    /// The resolution of the ascending sample `sorted` (without NaN), whose
    /// median is `median`; `None` when fewer than two values differ, or
    /// when the values lie on no decimal grid of at most [`MAX_DECIMALS`]
    /// decimals and more than half of them are distinct.
    pub fn of(sorted: &[f64], median: f64) -> Option<Resolution> {
        let count = sorted.len();
        let distinct = distinct(sorted);
        if distinct.len() < 2 {
            return None;
        }
        let (step, grid) = match decimal_step(&distinct) {
            Some(step) => (step, true),
            None if 2 * distinct.len() <= count => (smallest_gap(&distinct).min(f64::MAX), false),
            None => return None,
        };
        let relative = (median != 0.0).then(|| (step / median.abs()).min(f64::MAX));
        Some(Resolution { step, grid, distinct: distinct.len(), relative })
    }
}

/// The step of the decimal grid of ascending `values` (at least two distinct): at the
/// fewest decimals d ≤ [`MAX_DECIMALS`] at which every value × 10^d is a
/// whole number k (exactly, or within 10^−6 for |k| ≤ 10^9, the binary
/// rounding of decimal text), the greatest common divisor of the
/// differences of the k, over 10^d.
fn decimal_step(values: &[f64]) -> Option<f64> {
    let whole = |x: f64| {
        let nearest = round(x);
        x.is_finite()
            && x.abs() < 9.0e15
            && (x == nearest || (x.abs() <= 1e9 && (x - nearest).abs() <= 1e-6))
    };
    let d = (0..=MAX_DECIMALS).find(|&d| {
        let scale = 10f64.powi(d);
        values.iter().all(|v| whole(v * scale))
    })?;
    let scale = 10f64.powi(d);
    // Rounding is monotone, so the ascending values' first is the lowest.
    let low = round(values.first()? * scale) as i64;
    // Once 1, the divisor stays 1: stop there (most measured samples).
    let mut divisor = 0u64;
    for &v in values {
        divisor = gcd(divisor, (round(v * scale) as i64).abs_diff(low));
        if divisor == 1 {
            break;
        }
    }
    (divisor > 0).then(|| divisor as f64 / scale)
}

/// `x.round()` (half away from zero), without the call to libm's `round`
/// that it costs on a baseline x86-64 build: below 2^52 a double's
/// fraction is exact, so the integer part and whether the fraction reaches
/// one half decide it; larger doubles and those not finite are themselves.
fn round(x: f64) -> f64 {
    if x.is_nan() || x.abs() >= 4_503_599_627_370_496.0 {
        return x;
    }
    let whole = x as i64 as f64;
    let rounded = if (x - whole).abs() >= 0.5 { whole + x.signum() } else { whole };
    rounded.copysign(x)
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The distinct values of ascending `sorted`, ascending, −0 as 0 (`==`
/// takes them as one, and they are neighbours in `total_cmp`'s order).
fn distinct(sorted: &[f64]) -> Vec<f64> {
    let mut distinct: Vec<f64> = Vec::with_capacity(sorted.len());
    for &v in sorted {
        if distinct.last() != Some(&v) {
            distinct.push(v + 0.0);
        }
    }
    distinct
}

/// The smallest difference between two of ascending `distinct` (at least
/// two values).
fn smallest_gap(distinct: &[f64]) -> f64 {
    distinct.windows(2).map(|w| w[1] - w[0]).fold(f64::INFINITY, f64::min)
}

/// The smallest difference between two distinct values of ascending
/// `sorted`; 0 when all are equal. The fences' scale where the IQR is 0 and
/// the values lie on no grid.
pub fn smallest_gap_of(sorted: &[f64]) -> f64 {
    let gap = smallest_gap(&distinct(sorted));
    if gap.is_finite() { gap } else { 0.0 }
}

/// A step counts as coarse against an effect when it is at least this share
/// of the effect's distance from no change.
pub const COARSE_SHARE: f64 = 0.5;

/// Fewest runs of a sample whose grid a claim rests on. The step is the
/// greatest common divisor of the values' differences: of two runs it is
/// their difference itself, whatever the data, and the divisor of j
/// differences of continuous values exceeds one unit of their last digit
/// by chance with probability 1 − 1/ζ(j) (39% for two, 17% for three,
/// 7.6% for four). Five runs give four differences.
pub const GRID_MIN_RUNS: usize = 5;

/// Whether the grid of a sample of `n` runs is one a claim may rest on: at
/// least [`GRID_MIN_RUNS`] runs, and values that repeat (fewer distinct
/// values than runs): runs of continuous data all differ, so a repeat is
/// the evidence that the values lie on steps.
pub fn supports_claim(resolution: &Resolution, n: usize) -> bool {
    n >= GRID_MIN_RUNS && resolution.distinct < n
}

/// The grid of one configuration of a comparison, as [`grain`] takes it:
/// where, the coarser step of the two sides, the baseline's mean, and that
/// side's runs and distinct values.
pub type Step<'a> = (&'a str, f64, f64, [usize; 2]);

/// The grain of a comparison metric whose ratio − 1 is `effect` and whose
/// interval's half-width on the ratio scale is `half`, from its
/// configurations' [`Step`]s; `None` when no sample lies on a grid.
pub fn grain<'a>(
    steps: impl Iterator<Item = Step<'a>>,
    effect: f64,
    half: Option<f64>,
) -> Option<Grain> {
    let mut coarsest: Option<Grain> = None;
    for (at, step, base, [runs, distinct]) in steps {
        if step == 0.0 || base == 0.0 {
            continue;
        }
        let relative = (step / base.abs()).min(f64::MAX);
        if coarsest.as_ref().is_none_or(|g| relative > g.relative) {
            let at = at.to_string();
            coarsest = Some(Grain { step, relative, at, runs, distinct, coarse: false });
        }
    }
    let mut found = coarsest?;
    found.coarse = found.relative >= COARSE_SHARE * effect.abs()
        || half.is_some_and(|half| found.relative >= half);
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `round` gives std's bits on seeded doubles of every size, on halves
    /// and on the edges (zeros of both signs, 2^52, NaN, infinities).
    #[test]
    fn round_is_std_round() {
        let mut next = crate::seeded::stream(0x9E37_79B9_7F4A_7C15);
        let mut values = vec![0.0, -0.0, 0.5, -0.5, 0.49999999999999994, -2.5, 3.5, f64::NAN];
        values.extend([f64::INFINITY, f64::NEG_INFINITY, 2f64.powi(52), -2f64.powi(52) + 0.5]);
        for _ in 0..50_000 {
            let x = next();
            let decimal = (x % 20_000_000) as f64 / [2.0, 8.0, 1e3, 1e6][(x >> 60) as usize % 4];
            values.extend([f64::from_bits(x), decimal - 1e4, -decimal * 1e6]);
        }
        for v in values {
            if v.is_nan() {
                // std may quiet a NaN's payload; a NaN is a NaN.
                assert!(round(v).is_nan());
                continue;
            }
            assert_eq!(round(v).to_bits(), v.round().to_bits(), "{v:e}");
        }
    }

    fn of(values: &[f64]) -> Option<Resolution> {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = (sorted[(n - 1) / 2] + sorted[n / 2]) / 2.0;
        Resolution::of(&sorted, median)
    }

    #[test]
    fn grids_by_hand() {
        // Whole seconds: step 1, 3 distinct values, 1/12 of the median 12.
        let r = of(&[12.0, 13.0, 12.0, 11.0, 12.0]).unwrap();
        assert_eq!((r.step, r.grid, r.distinct), (1.0, true, 3));
        assert_eq!(r.relative, Some(1.0 / 12.0));
        // Two decimals as text (0.63 is not exact in binary): step 0.01.
        let r = of(&[0.63, 0.61, 0.64, 0.60]).unwrap();
        assert!((r.step - 0.01).abs() < 1e-15, "{r:?}");
        // Multiples of 0.5 offset by 0.25: the differences' divisor, 0.5.
        assert_eq!(of(&[10.25, 10.75, 11.75, 12.25]).unwrap().step, 0.5);
        // Bytes in thousands, large integers: 1000.
        assert_eq!(of(&[3e12, 3e12 + 1000.0, 3e12 + 5000.0]).unwrap().step, 1000.0);
        // Equal values have no resolution.
        assert_eq!(of(&[4.0, 4.0, 4.0]), None);
        // Thirds lie on no decimal grid; with 2 distinct among 6 values the
        // step is their gap, 1/3.
        let r = of(&[1.0 / 3.0, 2.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 2.0 / 3.0, 1.0 / 3.0]).unwrap();
        assert!(!r.grid && (r.step - 1.0 / 3.0).abs() < 1e-15);
        // Many distinct values on no grid: none.
        assert_eq!(of(&[1.0 / 3.0, 1.0 / 7.0, 1.0 / 11.0, 1.0 / 13.0]), None);
    }
}
