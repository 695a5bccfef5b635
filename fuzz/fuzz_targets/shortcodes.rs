//! Any content text: the shortcode scanner and expansion keep their spans.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| report_fuzz::shortcodes(text));
