//! The Shapiro–Wilk test of normality by Royston's algorithm (AS R94,
//! Applied Statistics 44, 1995), as scipy.stats.shapiro computes it; for
//! 8 to 5,000 values. Hand-written: the crate `normality` needs libclang and
//! a C++ build (its dependency `xsf`), which neither this host nor CI has.

use crate::math;
use statrs::distribution::{ContinuousCDF, Normal};

/// Fewest values tested.
pub const MIN: usize = 8;
/// Most values tested.
pub const MAX: usize = 5000;

/// W and its p-value.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct ShapiroWilk {
    /// The statistic W (1 for a perfectly normal-looking sample).
    pub w: f64,
    /// Its p-value under normality.
    pub p: f64,
}

/// The test of `values`; `None` below 8 or above 5,000 values, or when they
/// are all equal.
pub fn shapiro_wilk(values: &[f64]) -> Option<ShapiroWilk> {
    let n = values.len();
    if !(MIN..=MAX).contains(&n) {
        return None;
    }
    let mut x = values.to_vec();
    x.sort_by(f64::total_cmp);
    let (mean, range) = (x.iter().sum::<f64>() / n as f64, x[n - 1] - x[0]);
    if range.is_nan() || range <= 0.0 || !mean.is_finite() {
        return None;
    }
    let a = coefficients(n);
    // Centred and scaled by the range, so that squares neither overflow nor vanish.
    let z: Vec<f64> = x.iter().map(|v| (v - mean) / range).collect();
    let ss: f64 = z.iter().map(|v| v * v).sum();
    let sa: f64 = a.iter().zip(&z).map(|(a, v)| a * v).sum();
    let w = (sa * sa / ss).min(1.0);
    Some(ShapiroWilk { w, p: p_value(w, n) })
}

fn poly(c: &[f64], x: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, c| acc * x + c)
}

/// Royston's approximation of the coefficients a₁..aₙ (n ≥ 6).
fn coefficients(n: usize) -> Vec<f64> {
    let normal = Normal::standard();
    let nf = n as f64;
    let m: Vec<f64> =
        (1..=n).map(|i| normal.inverse_cdf((i as f64 - 0.375) / (nf + 0.25))).collect();
    let sum2: f64 = m.iter().map(|v| v * v).sum();
    let u = 1.0 / nf.sqrt();
    let (mn, mn1) = (m[n - 1], m[n - 2]);
    let an =
        mn / sum2.sqrt() + poly(&[0.0, 0.221157, -0.147981, -2.071190, 4.434685, -2.706056], u);
    let an1 =
        mn1 / sum2.sqrt() + poly(&[0.0, 0.042981, -0.293762, -1.752461, 5.682633, -3.582633], u);
    let phi = (sum2 - 2.0 * mn * mn - 2.0 * mn1 * mn1) / (1.0 - 2.0 * an * an - 2.0 * an1 * an1);
    let mut a: Vec<f64> = m.iter().map(|v| v / phi.sqrt()).collect();
    (a[0], a[1], a[n - 2], a[n - 1]) = (-an, -an1, an1, an);
    a
}

/// Royston's normalising transformation of 1 − W, and its upper tail.
fn p_value(w: f64, n: usize) -> f64 {
    let nf = n as f64;
    let z = if n <= 11 {
        let gamma = poly(&[-2.273, 0.459], nf);
        let y = -math::ln(gamma - math::ln(1.0 - w));
        let m = poly(&[0.544, -0.39978, 0.025054, -6.714e-4], nf);
        let s = math::exp(poly(&[1.3822, -0.77857, 0.062767, -0.0020322], nf));
        if !y.is_finite() {
            // 1 − W beyond the approximation's range: scipy's "obvious
            // value" (swilk.c), a bound, not a computed p.
            return 1e-99;
        }
        (y - m) / s
    } else {
        let l = math::ln(nf);
        let m = poly(&[-1.5861, -0.31082, -0.083751, 0.0038915], l);
        let s = math::exp(poly(&[-0.4803, -0.082676, 0.0030302], l));
        (math::ln(1.0 - w) - m) / s
    };
    // The upper tail itself, not 1 − cdf, which is 0 from z ≈ 8.3 on.
    super::student::reported_p(super::student::normal_sf(z))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// scipy.stats.shapiro (1.17.1) of the same values.
    #[test]
    fn agrees_with_scipy() {
        let cases: [(&[f64], f64, f64); 3] = [
            (
                &[24.7, 24.6, 24.8, 24.9, 24.5, 24.7, 24.6, 65.19],
                0.4266796242991855,
                1.3243339043370381e-06,
            ),
            (
                &[1., 2., 3., 4., 5., 6., 7., 8., 9., 10., 11., 12., 13., 14., 15., 30.],
                0.8634669693251937,
                0.021634855445754643,
            ),
            (
                &[2.1, 3.4, 1.9, 5.6, 4.4, 3.3, 2.8, 3.9, 4.1, 3.0],
                0.9713906031045022,
                0.9034305013349915,
            ),
        ];
        for (x, w, p) in cases {
            let t = shapiro_wilk(x).unwrap();
            assert!((t.w - w).abs() < 1e-6, "W {} vs scipy {w}", t.w);
            assert!((t.p - p).abs() < 1e-4 * p.max(1e-3), "p {} vs scipy {p}", t.p);
        }
        // Far in the tail, where 1 − Φ(z) is 0: scipy's p is 2.1944687936461467e-40
        // for 400 zeros, three 1000s and a 5.
        let mut far = vec![0.0; 400];
        far.extend([1e3, 1e3, 1e3, 5.0]);
        let t = shapiro_wilk(&far).unwrap();
        assert!((t.w - 0.05819961581710675).abs() < 1e-6, "W {}", t.w);
        assert!((t.p / 2.1944687936461467e-40 - 1.0).abs() < 1e-3, "p {}", t.p);
        assert_eq!(shapiro_wilk(&[1.0; 9]), None);
        assert_eq!(shapiro_wilk(&[1.0, 2.0, 3.0]), None);
    }
}
