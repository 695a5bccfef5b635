//! Any bytes as a Parquet results file: a table or located diagnostics.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| report_fuzz::parquet_load(data));
