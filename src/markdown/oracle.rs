//! Tests only: the one parse of a page with its shortcodes resolved in the
//! events ([`super::expand`]) against the way pages were read before it, as
//! an oracle: the shortcodes replaced in the text (a statistic escaped so
//! that it stays text, the caveats as a comment), found outside the code of
//! a parse of their own, then the expanded text parsed again, and the
//! comment replaced by the blocks of a parse of the callout's Markdown. For
//! generated pages of many shapes the two documents must be the same, every
//! block at the same line and column of the file, the callout (built as
//! blocks by the one parse) included.

use std::ops::Range;
use std::path::Path;

use pulldown_cmark::Parser;

use super::expand::{self, Fields, Shortcodes};
use super::generate::Gen;
use super::shortcodes::{self, Code, Item};
use super::{directives::Found, document::Body, parse, place_caveats};
use crate::diagnostic::Location;

/// An expanded text and its pieces.
type Expanded = (String, Vec<(usize, usize, bool)>);

/// The old reading of `text`: its expanded text and, for each run of it,
/// where it came from (`(expanded, source, copied)`, as the old source map).
fn expanded(text: &str, fields: &Fields) -> Expanded {
    let events: Vec<_> = Parser::new_ext(text, super::options()).into_offset_iter().collect();
    let (items, problems) = shortcodes::scan(text, &Code::of(&events));
    assert!(problems.is_empty(), "{problems:?}");
    let (mut out, mut pieces, mut from) = (String::new(), Vec::new(), 0);
    let mut copy = |out: &mut String, range: Range<usize>| {
        if !range.is_empty() {
            pieces.push((out.len(), range.start, true));
            out.push_str(&text[range]);
        }
    };
    let mut inserted = Vec::new();
    for item in &items {
        match item {
            Item::Escape(backslash) => {
                copy(&mut out, from..*backslash);
                from = backslash + 1;
            }
            Item::Call(call) => {
                copy(&mut out, from..call.span.start);
                from = call.span.end;
                let value = match call.name.as_str() {
                    "caveats" => expand::CAVEATS.to_string(),
                    _ if call.in_directive => fields["tp"]["value"].clone(),
                    _ => expand::escape_markdown(&fields["tp"]["value"]),
                };
                inserted.push((out.len(), call.span.start));
                out.push_str(&value);
            }
        }
    }
    copy(&mut out, from..text.len());
    pieces.extend(inserted.into_iter().map(|(expanded, source)| (expanded, source, false)));
    pieces.sort_by_key(|p| p.0);
    (out, pieces)
}

/// The caveats as the Markdown of a warning callout, a list of one item
/// each, as the callout was written before it was made as blocks.
fn callout(caveats: &[String]) -> String {
    let mut text = String::from("> [!WARNING]\n");
    for caveat in caveats {
        text.push_str(&format!("> - {}\n", expand::escape_markdown(caveat)));
    }
    text
}

/// The offset in the file behind byte `offset` of the old expanded text.
fn source_offset(pieces: &[(usize, usize, bool)], offset: usize) -> usize {
    let i = pieces.partition_point(|p| p.0 <= offset);
    match i.checked_sub(1).map(|i| pieces[i]) {
        Some((expanded, source, true)) => source + (offset - expanded),
        Some((_, source, false)) => source,
        None => offset,
    }
}

/// `body` written out, every `at: N` as the line and column it locates.
fn located(body: &Body, locate: &dyn Fn(usize) -> Location) -> String {
    let debug = format!("{body:#?}");
    let mut out = String::with_capacity(debug.len());
    let mut rest = debug.as_str();
    while let Some(i) = rest.find("at: ") {
        out.push_str(&rest[..i + 4]);
        rest = &rest[i + 4..];
        let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        if let Ok(offset) = rest[..digits].parse::<usize>() {
            let at = locate(offset);
            out.push_str(&format!("{}:{}", at.line, at.column));
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// What a reading of a page found, its locations left out (the blocks'
/// are compared; the old reading located references in the expanded text).
fn found(found: &Found) -> String {
    let charts: Vec<_> = found.charts.iter().map(|c| (&c.id, &c.caption)).collect();
    let references: Vec<_> = found.references.iter().map(|(k, id, _)| (k, id)).collect();
    let citations: Vec<_> = found.citations.iter().map(|(keys, _)| keys).collect();
    let links: Vec<_> = found.links.iter().map(|(url, _)| url).collect();
    format!("{charts:?} {references:?} {citations:?} {links:?} {:?}", found.tables)
}

/// The depth of the page's own blocks.
const TOP: usize = 3;

/// Pages with shortcodes in and out of code: a line of inline pieces; a
/// shortcode over several lines if `lines`.
fn line(g: &mut Gen, lines: bool) -> String {
    const PIECES: &[&str] = &[
        "word",
        "{{ stat(name=\"tp\") }}",
        "{{stat(name='tp')}}",
        "({{ stat(name=\"tp\", field=\"value\") }})",
        "**{{ stat(name=\"tp\") }}**",
        "*a {{ stat(name=\"tp\") }} b*",
        "`{{ stat(name=\"tp\") }}`",
        "``a {{ x }} ` b``",
        "\\{{ not a call }}",
        "\\{% not a tag",
        "a \\* b",
        "&amp;",
        "[the other study](examples/x/)",
        "[a page](notes.html#{{ stat(name='tp') }}x)",
        "[{{ stat(name=\"tp\") }}](https://example.org/)",
        "@fig-a",
        "@tbl-t",
        "[@key; @other]",
        "$x_1$",
        "<b>bold</b>",
        "x  ",
        "a {{ stat(\n  name = \"tp\",\n) }} b",
    ];
    let n = 1 + g.below(5);
    let pieces = if lines { PIECES } else { &PIECES[..PIECES.len() - 1] };
    let line = (0..n).map(|_| g.pick(pieces)).collect::<Vec<_>>().join(" ");
    // A paragraph that starts with an escape started after its
    // backslash by the old map, and at it by the one parse.
    if line.starts_with('\\') { format!("w {line}") } else { line }
}

/// The lines of a block, nested at most `depth` more levels.
fn block(g: &mut Gen, depth: usize) -> Vec<String> {
    let kinds = if depth == 0 { 7 } else { 9 };
    match g.below(kinds) {
        0 => (0..1 + g.below(3)).map(|_| line(g, true)).collect(),
        1 => {
            let lang = g.pick(&["", "rust", "chart", "environments", "table"]);
            let body = if lang == "chart" {
                "id = \"a\"\nkind = \"line\"\ndata = \"d\"\nx = \"x\"\ny = \"y\"\ncaption = \"{{ stat(name='tp') }} atoms\""
            } else {
                "{{ stat(name=\"tp\") }} and \\{{"
            };
            let mut lines = vec![format!("```{lang}")];
            lines.extend(body.lines().map(String::from));
            lines.push("```".into());
            lines
        }
        2 => {
            let cell = |g: &mut Gen| g.pick(&["a", "{{ stat(name='tp') }}", "`{{ x }}`", "@fig-a"]);
            let row = |g: &mut Gen| format!("| {} | {} |", cell(g), cell(g));
            let mut lines = vec![row(g), "|---|--:|".into(), row(g)];
            if g.below(2) == 0 {
                lines.extend(["".into(), "Table: T {{ stat(name='tp') }} {#tbl-t}".into()]);
            }
            lines
        }
        3 => {
            let level = g.pick(&["#", "##"]);
            vec![format!("{level} {} {{#h{}}}", line(g, false), g.below(9))]
        }
        // The old expansion put the callout's lines in no container.
        4 if depth == TOP => vec!["{{ caveats() }}".into()],
        5 => vec![format!("    code {{{{ stat(name=\"tp\") }}}}")],
        4 | 6 => vec!["***".into()],
        7 => g
            .blocks(depth - 1, block)
            .into_iter()
            .map(|l| format!("> {l}").trim_end().to_string())
            .collect(),
        _ => g.list(depth - 1, &["- ", "1. ", "* "], block),
    }
}

/// A reading of a page, written out: its document and what it found, or
/// its errors.
type Reading = Result<(String, String), String>;

/// The old and the new reading of `text` as `(document, found)`, written
/// out, or their errors.
fn both(text: &str) -> (Reading, Reading) {
    let fields: Fields = [("tp".to_string(), [("value", "+8.8% (a_b *c*) <i>".to_string())])]
        .into_iter()
        .map(|(k, v)| (k, v.into_iter().chain([("full", "+8.8% (a_b *c*) <i>".into())]).collect()))
        .collect();
    let caveats = ["First, a_b.".to_string(), "Second *x*.".to_string()];
    let path = Path::new("content/a.md");
    let (old_text, pieces) = expanded(text, &fields);
    let old_at = |offset| Location::at_offset(path, text, source_offset(&pieces, offset));
    let old_callout = parse::text(&callout(&caveats)).blocks;
    let old = parse::page(path, &old_text, None, None)
        .map(|(mut body, f)| {
            place_caveats(&mut body.blocks, &old_callout);
            (located(&body, &old_at), found(&f))
        })
        .map_err(|e| e.to_string());
    let shortcodes = Shortcodes { fields: &fields, caveats: true, facts: None };
    let at = |offset| Location::at_offset(path, text, offset);
    let callout = super::callout(caveats.iter().map(String::as_str));
    let new = parse::page(path, text, Some(shortcodes), None)
        .map(|(mut body, f)| {
            assert!(f.caveats_elsewhere.is_empty(), "{:?}", f.caveats_elsewhere);
            place_caveats(&mut body.blocks, &callout);
            (located(&body, &at), found(&f))
        })
        .map_err(|e| e.to_string());
    (old, new)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, ..Default::default() })]
    /// Pages of many shapes, with shortcodes in and out of code spans, code
    /// blocks, chart directives, nested lists, quotes, tables and
    /// headings, and links to studies: one parse gives the document the
    /// expansion and a second parse gave, each block at its place.
    #[test]
    fn one_parse_reads_as_expanding_and_parsing_again(seed in proptest::prelude::any::<u64>()) {
        let text = Gen(seed | 1).blocks(TOP, block).join("\n") + "\n";
        let (old, new) = both(&text);
        proptest::prop_assert_eq!(old, new, "{}", text);
    }
}
