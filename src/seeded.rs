//! A deterministic stream of numbers for the unit tests' seeded inputs.

/// The numbers xorshift64 gives from `seed` (not zero), one per call.
pub fn stream(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
