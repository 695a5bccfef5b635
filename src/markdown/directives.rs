//! Directives inside the Markdown: ```` ```chart ```` blocks and `@fig-ID`
//! cross-references, found with their locations.

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

use crate::charts::spec::{self, ChartSpec};
use crate::diagnostic::{Diagnostics, Location};

/// A piece of prose: plain text, or a reference to a figure or table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment<'a> {
    /// Text as written.
    Text(&'a str),
    /// `@fig-ID`: the chart id.
    Figure(&'a str),
    /// `@tbl-ID`: the table id.
    Table(&'a str),
    /// `[@key]` or `[@a; @b]`: citation keys.
    Cite(Vec<&'a str>),
}

/// Characters of a citation key (also valid in a Typst label).
fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.')
}

/// `[@a; @b]` at the start of `text`: the keys and the length consumed.
fn citation(text: &str) -> Option<(Vec<&str>, usize)> {
    let inner = text.strip_prefix("[@")?;
    let end = inner.find(']')?;
    let keys: Option<Vec<&str>> = inner[..end]
        .split(';')
        .enumerate()
        .map(|(i, part)| {
            let part = part.trim();
            let key = if i == 0 { part } else { part.strip_prefix('@')? };
            (!key.is_empty() && key.chars().all(is_key_char)).then_some(key)
        })
        .collect();
    let keys: Vec<&str> = keys?.into_iter().map(|k| k.trim_end_matches(['.', ':'])).collect();
    Some((keys, end + 3))
}

/// Split `text` at `@fig-ID` and `@tbl-ID` references. An `@` after a letter or
/// digit (as in an e-mail address) is not a reference.
pub fn split(text: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    let (mut start, mut at) = (0, 0);
    while let Some(found) = text[at..].find('@').map(|i| i + at) {
        if found > 0
            && text.as_bytes()[found - 1] == b'['
            && let Some((keys, len)) = citation(&text[found - 1..])
        {
            if found - 1 > start {
                out.push(Segment::Text(&text[start..found - 1]));
            }
            out.push(Segment::Cite(keys));
            start = found - 1 + len;
            at = start;
            continue;
        }
        let kind = &text[found + 1..];
        let prefix = if kind.starts_with("fig-") {
            Some(true)
        } else if kind.starts_with("tbl-") {
            Some(false)
        } else {
            None
        };
        let before = text[..found].chars().next_back();
        let id_start = found + 5;
        let id_len = text.get(id_start..).map_or(0, |rest| {
            rest.find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
                .unwrap_or(rest.len())
        });
        let id = text.get(id_start..id_start + id_len).unwrap_or("").trim_end_matches('-');
        match prefix {
            Some(figure) if !before.is_some_and(char::is_alphanumeric) && !id.is_empty() => {
                if found > start {
                    out.push(Segment::Text(&text[start..found]));
                }
                out.push(if figure { Segment::Figure(id) } else { Segment::Table(id) });
                start = id_start + id.len();
                at = start;
            }
            _ => at = found + 1,
        }
    }
    if start < text.len() {
        out.push(Segment::Text(&text[start..]));
    }
    out
}

/// Events of `source` with adjacent text merged, so that references are never
/// split across events.
pub fn events(source: &str) -> Vec<(Event<'_>, std::ops::Range<usize>)> {
    let mut out: Vec<(Event, std::ops::Range<usize>)> = Vec::new();
    // A run of text events, joined once it ends (joining one by one is
    // quadratic in a paragraph of many escapes).
    let mut run: Vec<(pulldown_cmark::CowStr<'_>, std::ops::Range<usize>)> = Vec::new();
    for (event, range) in Parser::new_ext(source, super::options()).into_offset_iter() {
        match event {
            Event::Text(text) => run.push((text, range)),
            event => {
                flush_text(&mut run, &mut out);
                out.push((event, range));
            }
        }
    }
    flush_text(&mut run, &mut out);
    out
}

/// Push the text events of `run` as one event, and empty it.
fn flush_text<'a>(
    run: &mut Vec<(pulldown_cmark::CowStr<'a>, std::ops::Range<usize>)>,
    out: &mut Vec<(Event<'a>, std::ops::Range<usize>)>,
) {
    match run.len() {
        0 => {}
        1 => out.extend(run.drain(..).map(|(text, range)| (Event::Text(text), range))),
        _ => {
            let range = run[0].1.start..run[run.len() - 1].1.end;
            let text: String = run.drain(..).map(|(text, _)| text.into_string()).collect();
            out.push((Event::Text(text.into()), range));
        }
    }
}

/// A table with a caption: the paragraph right after it starts with `Table:`,
/// optionally ending in `{#tbl-ID}`.
#[derive(Debug, Clone, PartialEq)]
pub struct TableCaption {
    /// Index of the table's `Start(Table)` event.
    pub start: usize,
    /// Indices of the caption paragraph's events, which the renderers skip.
    pub skip: std::ops::Range<usize>,
    /// The caption text, without `Table:` and the id.
    pub caption: String,
    /// The id, without `tbl-`.
    pub id: Option<String>,
}

/// The captioned tables among `events`.
pub fn table_captions(events: &[(Event<'_>, std::ops::Range<usize>)]) -> Vec<TableCaption> {
    let mut out = Vec::new();
    let mut table_start = None;
    for (i, (event, _)) in events.iter().enumerate() {
        match event {
            Event::Start(Tag::Table(_)) => table_start = Some(i),
            Event::End(TagEnd::Table) => {
                let Some(start) = table_start.take() else { continue };
                if !matches!(events.get(i + 1), Some((Event::Start(Tag::Paragraph), _))) {
                    continue;
                }
                let end = (i + 1..events.len())
                    .find(|&j| matches!(events[j].0, Event::End(TagEnd::Paragraph)))
                    .unwrap_or(events.len() - 1);
                let text: String = events[i + 2..end]
                    .iter()
                    .filter_map(|(e, _)| match e {
                        Event::Text(t) | Event::Code(t) => Some(t.to_string()),
                        Event::SoftBreak | Event::HardBreak => Some(" ".to_string()),
                        _ => None,
                    })
                    .collect();
                let Some(caption) = text.strip_prefix("Table:") else { continue };
                let (caption, id) = match caption.trim().rsplit_once("{#tbl-") {
                    Some((c, id)) if id.ends_with('}') => {
                        (c.trim().to_string(), Some(id.trim_end_matches('}').to_string()))
                    }
                    _ => (caption.trim().to_string(), None),
                };
                out.push(TableCaption { start, skip: i + 1..end + 1, caption, id });
            }
            _ => {}
        }
    }
    out
}

/// What a cross-reference points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RefKind {
    /// A chart, `@fig-ID`.
    Figure,
    /// A captioned table, `@tbl-ID`.
    Table,
}

/// What a page holds besides prose: charts, captioned tables, references.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// Chart directives, in order.
    pub charts: Vec<ChartSpec>,
    /// Ids of captioned tables (None when unnamed), in order.
    pub tables: Vec<Option<String>>,
    /// Cross-references with their locations.
    pub references: Vec<(RefKind, String, Location)>,
    /// Citations: the keys cited together, with their location.
    pub citations: Vec<(Vec<String>, Location)>,
    /// Images: their URL and location.
    pub images: Vec<(String, Location)>,
    /// Links: their URL and location.
    pub links: Vec<(String, Location)>,
}

/// The chart directives, captioned tables and cross-references of a page's
/// expanded Markdown `source`, located in the file through `map`.
pub fn scan(
    path: &std::path::Path,
    source: &str,
    map: &super::SourceMap,
) -> Result<Found, Diagnostics> {
    let mut errors = Diagnostics::default();
    let mut found = Found::default();
    let mut chart: Option<(usize, String)> = None;
    let mut in_code = false;
    let events = events(source);
    found.tables = table_captions(&events).into_iter().map(|t| t.id).collect();
    for (event, range) in events {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang)))
                if lang.as_ref() == "chart" =>
            {
                chart = Some((range.start, String::new()))
            }
            Event::Start(Tag::CodeBlock(_)) => in_code = true,
            Event::Start(Tag::Image { dest_url, .. }) => {
                found.images.push((dest_url.to_string(), map.locate(path, range.start)))
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                found.links.push((dest_url.to_string(), map.locate(path, range.start)))
            }
            Event::Text(text) if chart.is_some() => {
                chart.as_mut().map(|c| c.1.push_str(&text)).unwrap_or_default()
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code = false;
                if let Some((start, body)) = chart.take() {
                    match spec::parse(&body, &map.locate(path, start)) {
                        Ok(spec) => {
                            caption_references(&spec, &mut found);
                            found.charts.push(spec);
                        }
                        Err(d) => errors.push(d),
                    }
                }
            }
            Event::Text(text) if !in_code => {
                references_in(&text, range.start, &|offset| map.locate(path, offset), &mut found)
            }
            _ => {}
        }
    }
    errors.into_result(found)
}

/// Record the references of a chart's caption, each at the caption: they
/// are resolved like those of prose.
fn caption_references(spec: &ChartSpec, found: &mut Found) {
    if let Some(caption) = &spec.caption {
        let at = spec.key_location("caption");
        references_in(caption, 0, &|_| at.clone(), found);
    }
}

/// Record the figure, table and citation references of one text event that
/// starts at byte `start`; `locate` turns an offset into a location.
fn references_in(text: &str, start: usize, locate: &dyn Fn(usize) -> Location, found: &mut Found) {
    let mut offset = start;
    for segment in split(text) {
        let (kind, id) = match segment {
            Segment::Text(t) => {
                offset += t.len();
                continue;
            }
            Segment::Figure(id) => (RefKind::Figure, id),
            Segment::Table(id) => (RefKind::Table, id),
            Segment::Cite(keys) => {
                let at = locate(offset);
                offset += keys.iter().map(|k| k.len() + 3).sum::<usize>() + 1;
                found.citations.push((keys.iter().map(|k| k.to_string()).collect(), at));
                continue;
            }
        };
        found.references.push((kind, id.to_string(), locate(offset)));
        offset += id.len() + 5;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_references_but_not_emails() {
        assert_eq!(
            split("see @fig-scaling."),
            vec![Segment::Text("see "), Segment::Figure("scaling"), Segment::Text(".")]
        );
        assert_eq!(split("me@fig-x.org"), vec![Segment::Text("me@fig-x.org")]);
        assert_eq!(
            split("(@tbl-setup)"),
            vec![Segment::Text("("), Segment::Table("setup"), Segment::Text(")")]
        );
        assert_eq!(
            split("as shown [@beltre2019; @x:y]."),
            vec![
                Segment::Text("as shown "),
                Segment::Cite(vec!["beltre2019", "x:y"]),
                Segment::Text(".")
            ]
        );
        assert_eq!(split("[@not a key]"), vec![Segment::Text("[@not a key]")]);
        assert_eq!(
            split("@fig-a-b, @fig-c-"),
            vec![
                Segment::Figure("a-b"),
                Segment::Text(", "),
                Segment::Figure("c"),
                Segment::Text("-")
            ]
        );
    }

    #[test]
    fn finds_charts_and_references_with_locations() {
        let source = "Intro @fig-a.\n\n```chart\nid = \"a\"\nkind = \"line\"\ndata = \"d\"\nx = \"x\"\ny = \"y\"\n```\n";
        let found =
            scan(std::path::Path::new("c.md"), source, &super::super::SourceMap::identity(source))
                .unwrap();
        assert_eq!(found.charts[0].id, "a");
        assert_eq!(found.charts[0].location.as_ref().unwrap().to_string(), "c.md:3:1");
        assert_eq!(
            found.references,
            vec![(RefKind::Figure, "a".to_string(), Location::new("c.md", 1, 7))]
        );
    }
}
