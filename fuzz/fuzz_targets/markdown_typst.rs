//! Any Markdown: the Typst and HTML converters never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| report_fuzz::markdown_typst(text));
