//! Any page template: rendered against the minimal study, or a located error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| report_fuzz::templates(data));
