//! Any text as OSU output: the importer yields tables or a refusal.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| report_fuzz::osu_import(text));
