//! Any chart block body: the directive parser never panics.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|body: &str| report_fuzz::chart_spec(body));
