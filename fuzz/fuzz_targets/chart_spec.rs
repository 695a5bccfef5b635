//! Any chart block body: the directive parser never panics.
#![no_main]
use libfuzzer_sys::fuzz_target;
use report::charts::spec;
use report::diagnostic::Location;

fuzz_target!(|body: &str| {
    if let Ok(chart) = spec::parse(body, &Location::new("content/index.md", 3, 1)) {
        let _ = chart.key_location("x");
    }
});
