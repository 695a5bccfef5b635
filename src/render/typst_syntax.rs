//! The Typst syntax of the converter's leaves: author text escaped as markup
//! or as a string literal, and the words Typst uses for GFM alerts, heading
//! depths and column alignments.

use std::fmt::Write;

use pulldown_cmark::{Alignment, HeadingLevel};

/// Escape author text for Typst markup: every ASCII punctuation character but the
/// comma is backslash-escaped, which Typst reads as that literal character.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        if c.is_ascii_punctuation() && c != ',' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A Typst string literal holding `text`.
pub fn string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Title and colour of a GFM alert.
pub(super) fn alert(kind: pulldown_cmark::BlockQuoteKind) -> (&'static str, &'static str) {
    use pulldown_cmark::BlockQuoteKind::*;
    match kind {
        Note => ("Note", "rgb(\"#0072b2\")"),
        Tip => ("Tip", "rgb(\"#009e73\")"),
        Important => ("Important", "rgb(\"#cc79a7\")"),
        Warning => ("Caveat", "rgb(\"#d55e00\")"),
        Caution => ("Caution", "rgb(\"#b3261e\")"),
    }
}

/// The number of `=` of a heading of `level`.
pub(super) fn heading_depth(level: HeadingLevel) -> usize {
    level as usize
}

/// The Typst alignment of a table column.
pub(super) fn align(alignment: &Alignment) -> &'static str {
    match alignment {
        Alignment::None | Alignment::Left => "left",
        Alignment::Center => "center",
        Alignment::Right => "right",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_typst_syntax_in_prose() {
        assert_eq!(escape("C# at $5 <b>@home"), "C\\# at \\$5 \\<b\\>\\@home");
        assert_eq!(escape("a, b"), "a, b");
    }

    #[test]
    fn strings_escape_quotes_and_backslashes() {
        assert_eq!(string("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
    }
}
