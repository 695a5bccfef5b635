//! Any Markdown: the Typst and HTML converters never panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use report::render::{Refs, html, typst_markup};

fuzz_target!(|text: &str| {
    let markup = typst_markup::convert(text, &Refs::none());
    let _ = markup.markdown_offset(markup.text.len());
    let _ = html::to_html(text, Refs::none());
});
