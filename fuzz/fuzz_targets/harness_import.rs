//! Any bytes as a harness's output (hyperfine, Google Benchmark,
//! pytest-benchmark, ReFrame, criterion, a log): the importer yields tables
//! or a refusal.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| report_fuzz::harness_import(data));
