//! Any bytes as a results file: a table or located diagnostics, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| report_fuzz::csv_load(data));
