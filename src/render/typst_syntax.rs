//! The Typst syntax of the converter's leaves: author text escaped as markup
//! or as a string literal, and the words Typst uses for GFM alerts, heading
//! depths and column alignments.

use std::collections::BTreeMap;
use std::fmt::Write;

use pulldown_cmark::{Alignment, HeadingLevel};

use crate::markdown::directives::RefKind;
use crate::markdown::document::{self, Citation, Inline, Reference};

/// Most characters of author text escaped in one paragraph; past them, text
/// is written as string literals. Typst lays out a paragraph in time that
/// grows with its length times the number of its pieces, and every escape is
/// a piece: 200,000 escaped `*` took minutes, the same text as one string a
/// fraction of a second.
pub const ESCAPES_PER_PARAGRAPH: usize = 64;

/// Author text as Typst markup: every ASCII punctuation character but the
/// comma backslash-escaped (which Typst reads as that literal character) if
/// there are at most 64 of them (`ESCAPES_PER_PARAGRAPH`), else a string
/// literal.
pub fn escape(text: &str) -> String {
    let mut budget = ESCAPES_PER_PARAGRAPH;
    prose(text, &mut budget)
}

/// Author text as Typst markup, escaped while `budget` lasts (each escape
/// spends one of it), else as a string literal in markup, `#"…";`, one
/// piece of the paragraph however long, its spaces collapsed as markup's are.
/// Either way Typst shows exactly the text.
pub fn prose(text: &str, budget: &mut usize) -> String {
    let escapes = text.chars().filter(|&c| needs_escape(c)).count();
    if escapes > *budget {
        *budget = 0;
        return literal(text);
    }
    *budget -= escapes;
    let mut out = String::with_capacity(text.len() + escapes);
    let mut chars = text.chars().peekable();
    let mut before: Option<char> = None;
    while let Some(c) = chars.next() {
        if needs_escape(c) {
            out.push('\\');
        }
        out.push(apostrophe(before, c, chars.peek().copied()));
        before = Some(c);
    }
    out
}

/// `c`, or a typographic apostrophe (`’`) for a straight one inside a word:
/// after a letter or digit and before a letter (`bzip2's`, `it's`). Typst
/// sets a `'` after a digit as a prime (`2′`), which a word never means;
/// other quotes are left to Typst's smart quotes.
fn apostrophe(before: Option<char>, c: char, after: Option<char>) -> char {
    let inside =
        before.is_some_and(char::is_alphanumeric) && after.is_some_and(char::is_alphabetic);
    if c == '\'' && inside { '\u{2019}' } else { c }
}

/// Whether Typst markup needs `c` escaped to show it. Quotes are left to
/// Typst, which sets them as typographic quotes and apostrophes in the text's
/// language (`'` and `"` never start code in markup).
fn needs_escape(c: char) -> bool {
    c.is_ascii_punctuation() && !matches!(c, ',' | '\'' | '"')
}

/// `text` with straight quotes made typographic, as English sets them: an
/// apostrophe or closing quote after a letter, digit or closing punctuation
/// (`it’s`, `”`), an opening quote elsewhere (`“`, `‘`). For text the paper
/// shows as data (book.json), which Typst's smart quotes do not see.
pub fn smart_quotes(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut before: Option<char> = None;
    for c in text.chars() {
        let opens = before.is_none_or(|b| {
            b.is_whitespace() || "([{\u{2014}\u{2013}-/\u{201C}\u{2018}".contains(b)
        });
        out.push(match (c, opens) {
            ('"', true) => '\u{201C}',
            ('"', false) => '\u{201D}',
            ('\'', true) => '\u{2018}',
            ('\'', false) => '\u{2019}',
            (c, _) => c,
        });
        before = Some(c);
    }
    out
}

/// `text` as a string literal embedded in markup, ended by `;` so that
/// nothing after it can continue the expression. Runs of what markup reads
/// as one space (spaces, tabs, line breaks) become one space.
fn literal(text: &str) -> String {
    let markup_space = |c: char| {
        matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c' | '\u{85}' | '\u{2028}' | '\u{2029}')
    };
    let mut collapsed = String::with_capacity(text.len());
    for c in text.chars() {
        if !markup_space(c) {
            collapsed.push(c);
        } else if !collapsed.ends_with(' ') {
            collapsed.push(' ');
        }
    }
    format!("#{};", string(&smart_quotes(&collapsed)))
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

/// A caption's text as markup: escaped, with its `@fig-`, `@tbl-` and
/// `[@key]` references as Typst references and citations.
pub(super) fn caption(caption: &[Inline]) -> String {
    let mut out = String::new();
    for part in caption {
        match part {
            Inline::Ref(r) => out.push_str(&reference(r)),
            Inline::Cite(c) => out.push_str(&citation(c)),
            other => out.push_str(&escape(&document::plain(std::slice::from_ref(other), false))),
        }
    }
    out
}

/// A cross-reference as a Typst reference to its label.
pub(super) fn reference(r: &Reference) -> String {
    let prefix = match r.kind {
        RefKind::Figure => "fig",
        RefKind::Table => "tbl",
    };
    format!("#ref(<{prefix}-{}>)", r.id)
}

/// A citation as one Typst citation per key.
pub(super) fn citation(c: &Citation) -> String {
    c.keys.iter().map(|k| format!("#cite(<{k}>)")).collect()
}

/// A chart as a numbered figure of its SVG `width` wide, with alt text and
/// caption (with what its error bars show), labelled `<fig-ID>`.
pub(super) fn figure(chart: &crate::charts::Chart, caption: &[Inline], width: &str) -> String {
    let text = crate::markdown::document::plain(caption, false);
    let mut caption = self::caption(caption);
    // A caption ends as a sentence before the generated one follows it.
    if crate::prose::needs_stop(&text) {
        caption.push('.');
    }
    if let Some(label) = &chart.illustrative {
        caption = format!("#strong[{}] {caption}", escape(label));
    }
    format!(
        "#figure(image({}, alt: {}, width: {width}), caption: [{caption} {}]) <fig-{}>",
        string(&format!("charts/{}.svg", chart.spec.id)),
        string(&chart.description),
        escape(&chart.intervals),
        chart.spec.id
    )
}

/// Charts one after another in the Markdown: two side by side at half the
/// text width, a chart left alone as wide as one of them, centred: every
/// chart at one scale.
pub(super) fn figures(markup: &[String]) -> String {
    match markup {
        [one] => format!("#align(center, block(width: 50% - 0.75em)[{one}])\n\n"),
        [a, b] => format!(
            "#grid(columns: (1fr, 1fr), column-gutter: 1.5em, align: top, [{a}], [{b}])\n\n"
        ),
        _ => markup.chunks(2).map(figures).collect(),
    }
}

/// The environments side by side, or nothing if there are none.
pub(super) fn environments(envs: &[super::EnvironmentView]) -> String {
    let cells: Vec<String> = envs.iter().map(|e| {
        let baseline = if e.baseline { " (baseline)" } else { "" };
        let description = e.description.as_deref().map(escape).unwrap_or_default();
        format!("block(width: 100%, inset: 8pt, stroke: 0.5pt + luma(180), radius: 2pt)[#strong[{}]{}\\ {description}]", escape(&e.label), escape(baseline))
    }).collect();
    if cells.is_empty() {
        return String::new();
    }
    if envs.len() > 3 {
        return environments_table(envs);
    }
    let columns = vec!["1fr"; cells.len()].join(", ");
    format!("#grid(columns: ({columns},), gutter: 8pt, {})\n\n", cells.join(", "))
}

/// More than three environments as a table of two columns, name and
/// description, which breaks across pages row by row.
fn environments_table(envs: &[super::EnvironmentView]) -> String {
    let rows: Vec<String> = envs
        .iter()
        .map(|e| {
            let baseline = if e.baseline { " (baseline)" } else { "" };
            let description = e.description.as_deref().map(escape).unwrap_or_default();
            format!("[#strong[{}]{}], [{description}]", escape(&e.label), escape(baseline))
        })
        .collect();
    format!(
        "#table(columns: (auto, 1fr), stroke: (x, y) => if y == 0 {{ (bottom: 0.5pt) }}, align: left, \
         table.header([*Environment*], [*Description*]), {})\n\n",
        rows.join(", ")
    )
}

/// A code block (without its last line break) in `lang`.
pub(super) fn raw_block(lang: Option<&str>, code: &str) -> String {
    let lang = lang.map(|l| format!("lang: {}, ", string(l))).unwrap_or_default();
    format!("#raw(block: true, {lang}{})\n\n", string(code.trim_end_matches('\n')))
}

/// An image: a local one embedded, a `remote` one a link named by its alt text.
pub(super) fn image(url: &str, alt: &str, remote: bool) -> String {
    if remote {
        format!("#link({})[{}]", string(url), escape(alt))
    } else {
        format!("#image({}, alt: {})", string(url), string(alt))
    }
}

/// `markup` with each footnote reference (`\0LABEL\0`) replaced by the
/// footnote's markup, or by its escaped label if it has no definition.
pub(super) fn footnotes(markup: &str, bodies: &BTreeMap<String, String>) -> String {
    let mut text = String::with_capacity(markup.len());
    let mut parts = markup.split('\u{0}');
    text.push_str(parts.next().unwrap_or_default());
    while let (Some(label), Some(rest)) = (parts.next(), parts.next()) {
        let body = bodies.get(label).cloned().unwrap_or_else(|| escape(label));
        let _ = write!(text, "#footnote[{body}]");
        text.push_str(rest);
    }
    text
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
        assert_eq!(escape("it's \"x\""), "it\u{2019}s \"x\"");
        assert_eq!(escape("a, b"), "a, b");
    }

    #[test]
    fn text_past_the_budget_is_a_string_literal() {
        let mut budget = 3;
        assert_eq!(prose("a.b.", &mut budget), "a\\.b\\.");
        assert_eq!(budget, 1);
        assert_eq!(prose("(x)", &mut budget), "#\"(x)\";");
        assert_eq!(budget, 0);
        assert_eq!(prose("plain words", &mut budget), "plain words");
        // A literal's quotes are typographic too: Typst's smart quotes do not see it.
        assert_eq!(prose("a  \t b\\\"", &mut budget), "#\"a b\\\\\u{201D}\";");
        let many = "*".repeat(ESCAPES_PER_PARAGRAPH + 1);
        assert_eq!(escape(&many), format!("#\"{many}\";"));
        assert_eq!(escape(&many[1..]), "\\*".repeat(ESCAPES_PER_PARAGRAPH));
    }

    #[test]
    fn quotes_become_typographic() {
        assert_eq!(
            smart_quotes("It's \"ours\" ('x')."),
            "It\u{2019}s \u{201C}ours\u{201D} (\u{2018}x\u{2019})."
        );
        assert_eq!(smart_quotes("'90s \"a\"-b"), "\u{2018}90s \u{201C}a\u{201D}-b");
    }

    #[test]
    fn an_apostrophe_inside_a_word_is_typographic_not_a_prime() {
        assert_eq!(escape("bzip2's level"), "bzip2\u{2019}s level");
        assert_eq!(escape("it's"), "it\u{2019}s");
        // Quotes that open or close are left to Typst's smart quotes.
        assert_eq!(escape("'a' 5'"), "'a' 5'");
    }

    #[test]
    fn strings_escape_quotes_and_backslashes() {
        assert_eq!(string("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
    }
}
