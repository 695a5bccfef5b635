//! Logarithms, exponentials and powers computed the same on every platform.
//!
//! `f64::ln`, `exp` and the like call the system's C library, whose last
//! bits differ between glibc (Linux), macOS and MinGW (Windows), so the same
//! results gave stats.json files that differed in the last digits of a
//! shift or a p-value. These call the `libm` crate (a port of musl's, in
//! Rust), whose results depend only on IEEE arithmetic. clippy.toml refuses
//! the `f64` methods, so that no new call slips back to the system's.

/// The natural logarithm, ln x.
pub fn ln(x: f64) -> f64 {
    libm::log(x)
}

/// eˣ.
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}

/// ln(1 + x), accurate near x = 0.
pub fn ln_1p(x: f64) -> f64 {
    libm::log1p(x)
}

/// eˣ − 1, accurate near x = 0.
pub fn exp_m1(x: f64) -> f64 {
    libm::expm1(x)
}

/// xʸ.
pub fn powf(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// The base-10 logarithm.
pub fn log10(x: f64) -> f64 {
    libm::log10(x)
}

/// The base-2 logarithm.
pub fn log2(x: f64) -> f64 {
    libm::log2(x)
}

#[cfg(test)]
mod tests {
    /// Exact cases by hand, and the system's results within two units in
    /// the last place on seeded values of every size.
    #[test]
    #[allow(clippy::disallowed_methods)]
    fn agrees_with_exact_values_and_the_system() {
        assert_eq!(super::ln(1.0), 0.0);
        assert_eq!(super::exp(0.0), 1.0);
        assert_eq!(super::log10(1000.0), 3.0);
        assert_eq!(super::log2(1024.0), 10.0);
        assert_eq!(super::powf(2.0, 10.0), 1024.0);
        assert_eq!((super::ln_1p(0.0), super::exp_m1(0.0)), (0.0, 0.0));
        let mut state = 20_261_207u64;
        let ulps = |a: f64, b: f64| (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs();
        for _ in 0..10_000 {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let x = f64::from_bits(0x3C00_0000_0000_0000 + (state >> 13) % 0x0700_0000_0000_0000);
            assert!(ulps(super::ln(x), x.ln()) <= 2, "ln {x}");
            assert!(ulps(super::log10(x), x.log10()) <= 2, "log10 {x}");
            let y = (state >> 40) as f64 / (1u64 << 24) as f64 * 40.0 - 20.0;
            assert!(ulps(super::exp(y), y.exp()) <= 2, "exp {y}");
            assert!(ulps(super::exp_m1(y / 64.0), (y / 64.0).exp_m1()) <= 2, "exp_m1 {y}");
        }
    }
}
