//! The one parse of a page: pulldown-cmark's events, with their offsets,
//! made into a [`Body`] (directives, captions, references and citations
//! found and resolved in place) and what the page refers to ([`Found`]),
//! located in the file for the checks.

use std::ops::Range;
use std::path::Path;

use pulldown_cmark::{Alignment, CodeBlockKind, CowStr, Event, Parser, Tag, TagEnd};

use super::SourceMap;
use super::directives::{Found, RefKind, Segment, split, split_spans};
use super::document::{Body, ChartFigure, Citation, Inline, Item, Node, Reference, TableCaption};
use super::sections::{self, Output};
use super::tables;
use crate::charts::spec;
use crate::config::Config;
use crate::diagnostic::{Diagnostics, Location};
use crate::results::ResultSet;

/// A parsed event and its byte range in the Markdown.
type Located<'a> = (Event<'a>, Range<usize>);

/// What ```` ```table ```` directives are computed from: the results and
/// the study's configuration. Without it, such a block is code.
#[derive(Debug, Clone, Copy)]
pub struct Tables<'a> {
    /// The results.
    pub results: &'a ResultSet,
    /// The study's configuration.
    pub config: &'a Config,
}

/// Parse the expanded Markdown `source` of the file `path` (located through
/// `map`) once: its body, and the charts, tables, references, citations,
/// images and links it holds; its ```` ```table ```` directives are computed
/// from `tables`.
pub fn page(
    path: &Path,
    source: &str,
    map: &SourceMap,
    tables: Option<Tables>,
) -> Result<(Body, Found), Diagnostics> {
    let locate = |offset| map.locate(path, offset);
    let mut pass = Pass::new(&locate, tables);
    pass.run(events(source));
    let Pass { body, found, errors, .. } = pass;
    errors.into_result((body, found))
}

/// Parse Markdown that stands on its own (the answer of book.toml, tests):
/// its body, with nothing to resolve against and no problems reported.
pub fn text(source: &str) -> Body {
    let map = SourceMap::identity(source);
    let locate = |offset| map.locate(Path::new(""), offset);
    let mut pass = Pass::new(&locate, None);
    pass.run(events(source));
    pass.body
}

/// Events of `source` with adjacent text merged, so that references are never
/// split across events.
fn events(source: &str) -> Vec<Located<'_>> {
    let mut out: Vec<Located> = Vec::new();
    // A run of text events, joined once it ends (joining one by one is
    // quadratic in a paragraph of many escapes).
    let mut run: Vec<(CowStr<'_>, Range<usize>)> = Vec::new();
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
fn flush_text<'a>(run: &mut Vec<(CowStr<'a>, Range<usize>)>, out: &mut Vec<Located<'a>>) {
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
struct Captioned {
    /// Index of the table's `Start(Table)` event.
    start: usize,
    /// Indices of the caption paragraph's events, which are not in the body.
    skip: Range<usize>,
    /// The caption text, without `Table:` and the id.
    caption: String,
    /// The id, without `tbl-`.
    id: Option<String>,
}

/// The captioned tables among `events`.
fn table_captions(events: &[Located<'_>]) -> Vec<Captioned> {
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
                out.push(Captioned { start, skip: i + 1..end + 1, caption, id });
            }
            _ => {}
        }
    }
    out
}

/// For each event, whether it goes to `output`: a heading with the attribute
/// `only=page` (or `only=paper`) and everything up to the next heading of the
/// same or a higher level go to that output only.
fn shown(events: &[Located<'_>], output: Output) -> Vec<bool> {
    let other = match output {
        Output::Page => "paper",
        Output::Paper => "page",
    };
    let mut skipping: Option<pulldown_cmark::HeadingLevel> = None;
    let mut out = Vec::with_capacity(events.len());
    for (event, _) in events {
        if let Event::Start(Tag::Heading { level, attrs, .. }) = event {
            if skipping.is_some_and(|s| *level <= s) {
                skipping = None;
            }
            if skipping.is_none() && sections::heading_attr(attrs, "only") == Some(other) {
                skipping = Some(*level);
            }
        }
        out.push(skipping.is_none());
    }
    out
}

/// What one event leaves open for the next.
#[derive(Default)]
struct Walk {
    /// An open ```` ```chart ```` or ```` ```environments ```` block: its
    /// language, where it starts, and its body so far.
    directive: Option<(String, usize, String)>,
    /// Inside a code block, whose text is code, not prose.
    in_code: bool,
    /// Inside a captioned table.
    captioned: bool,
}

/// One page's pass over its events.
struct Pass<'p> {
    /// A byte offset of the expanded Markdown as a location in the file.
    locate: &'p dyn Fn(usize) -> Location,
    /// What computed tables are made of.
    tables: Option<Tables<'p>>,
    body: Body,
    found: Found,
    errors: Diagnostics,
}

impl<'p> Pass<'p> {
    /// A pass with nothing found yet.
    fn new(locate: &'p dyn Fn(usize) -> Location, tables: Option<Tables<'p>>) -> Self {
        let (body, found, errors) = Default::default();
        Pass { locate, tables, body, found, errors }
    }

    /// Walk the events: record what the page refers to, and build the body.
    fn run(&mut self, events: Vec<Located<'_>>) {
        let captions = table_captions(&events);
        let (page, paper) = (shown(&events, Output::Page), shown(&events, Output::Paper));
        let mut walk = Walk::default();
        for (i, (event, range)) in events.into_iter().enumerate() {
            let node =
                Node { at: range.start, page: page[i], paper: paper[i], item: Item::TableEnd };
            let skipped = captions.iter().any(|c| c.skip.contains(&i));
            if let Some(c) = captions.iter().find(|c| c.start == i) {
                let caption = self.caption(c);
                self.body.nodes.push(Node { item: Item::TableStart(caption), ..node.clone() });
                walk.captioned = true;
            }
            let nodes = self.event(&mut walk, event, node);
            if !skipped {
                self.body.nodes.extend(nodes);
            }
        }
    }

    /// The nodes of one event (`like` gives their place), what it refers
    /// to recorded.
    fn event(&mut self, walk: &mut Walk, event: Event<'_>, like: Node) -> Vec<Node> {
        let at = like.at;
        let node = |item| Node { item, ..like.clone() };
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang)))
                if matches!(lang.as_ref(), "chart" | "environments")
                    || (lang.as_ref() == "table" && self.tables.is_some()) =>
            {
                walk.directive = Some((lang.to_string(), at, String::new()))
            }
            Event::Text(text) if walk.directive.is_some() => {
                walk.directive.iter_mut().for_each(|b| b.2.push_str(&text))
            }
            Event::End(TagEnd::CodeBlock) if walk.directive.is_some() => {
                let (lang, start, body) = walk.directive.take().unwrap_or_default();
                if lang == "table" {
                    return self.computed(&body, Node { at: start, ..like });
                }
                let item = self.directive(&lang, start, &body);
                return item.map(|item| Node { at: start, ..node(item) }).into_iter().collect();
            }
            Event::Text(text) if !walk.in_code => {
                let items = self.prose(&text, at).into_iter();
                return items.map(|(at, item)| Node { at, ..node(item) }).collect();
            }
            event => {
                match &event {
                    Event::Start(Tag::CodeBlock(_)) => walk.in_code = true,
                    Event::End(TagEnd::CodeBlock) => walk.in_code = false,
                    Event::Start(Tag::Image { dest_url, .. }) => {
                        self.found.images.push((dest_url.to_string(), (self.locate)(at)))
                    }
                    Event::Start(Tag::Link { dest_url, .. }) => {
                        self.found.links.push((dest_url.to_string(), (self.locate)(at)))
                    }
                    _ => {}
                }
                let end = matches!(event, Event::End(TagEnd::Table));
                let mut nodes = vec![node(Item::Markdown(event.into_static()))];
                if end && std::mem::take(&mut walk.captioned) {
                    nodes.push(node(Item::TableEnd));
                }
                return nodes;
            }
        }
        Vec::new()
    }

    /// The node of a ```` ```chart ```` or ```` ```environments ```` block
    /// that starts at `start`; a chart's spec is recorded, or its problem.
    fn directive(&mut self, lang: &str, start: usize, body: &str) -> Option<Item> {
        if lang != "chart" {
            return Some(Item::Environments);
        }
        let parsed = spec::parse(body, &(self.locate)(start));
        let id = parsed.as_ref().map(|s| s.id.clone()).ok().or_else(|| sections::chart_id(body));
        let caption = match parsed {
            Ok(spec) => {
                let caption = spec.caption.clone().unwrap_or_default();
                let at = spec.key_location("caption");
                self.references(&caption, 0, &|_| at.clone());
                self.found.charts.push(spec);
                inlines(&caption)
            }
            Err(d) => {
                self.errors.push(d);
                Vec::new()
            }
        };
        id.map(|id| Item::Chart(ChartFigure { id, caption }))
    }

    /// A table's caption, numbered on the page.
    fn caption(&mut self, c: &Captioned) -> TableCaption {
        self.found.tables.push(c.id.clone());
        let number = self.found.tables.len();
        TableCaption { number, id: c.id.clone(), caption: inlines(&c.caption), verdicts: None }
    }

    /// The nodes of a ```` ```table ```` directive with `body` (`like` gives
    /// their place): the table computed, as a captioned table of text cells
    /// with its verdicts, or nothing and its problem recorded.
    fn computed(&mut self, body: &str, like: Node) -> Vec<Node> {
        let Some(Tables { results, config }) = self.tables else { return Vec::new() };
        let at = (self.locate)(like.at);
        let table = match tables::compute(body, &at, results, config) {
            Ok(table) => table,
            Err(problem) => {
                self.errors.push(problem);
                return Vec::new();
            }
        };
        self.table(table, like, &at)
    }

    /// The nodes of a computed table (`like` gives their place, `at` its
    /// location): what a captioned Markdown table of its text would parse
    /// to, its references recorded at `at`.
    fn table(&mut self, table: tables::Worded, like: Node, at: &Location) -> Vec<Node> {
        let node = |item| Node { item, ..like.clone() };
        let markdown = |event| node(Item::Markdown(event));
        self.found.tables.push(Some(table.written.id.clone()));
        let caption = TableCaption {
            number: self.found.tables.len(),
            id: Some(table.written.id.clone()),
            caption: inlines(table.caption.trim()),
            verdicts: Some(table.written.verdicts.clone()),
        };
        self.references(table.caption.trim(), 0, &|_| at.clone());
        let mut alignments = vec![Alignment::Left];
        alignments.resize(table.header.len().max(1), Alignment::Right);
        let mut nodes =
            vec![node(Item::TableStart(caption)), markdown(Event::Start(Tag::Table(alignments)))];
        let rows = std::iter::once(&table.header).chain(&table.rows);
        for (i, row) in rows.enumerate() {
            let (open, close) = match i {
                0 => (Tag::TableHead, TagEnd::TableHead),
                _ => (Tag::TableRow, TagEnd::TableRow),
            };
            nodes.push(markdown(Event::Start(open)));
            for cell in row {
                nodes.push(markdown(Event::Start(Tag::TableCell)));
                let text = cell.trim_matches([' ', '\t']);
                if !text.is_empty() {
                    self.references(text, 0, &|_| at.clone());
                    let items = split_spans(text).into_iter();
                    nodes.extend(items.map(|(s, range)| node(item(inline(s, &text[range])))));
                }
                nodes.push(markdown(Event::End(TagEnd::TableCell)));
            }
            nodes.push(markdown(Event::End(close)));
        }
        nodes.push(markdown(Event::End(TagEnd::Table)));
        nodes.push(node(Item::TableEnd));
        self.found.computed.push(table.written);
        nodes
    }

    /// The nodes of a text event that starts at `start`, its references and
    /// citations recorded with their locations.
    fn prose(&mut self, text: &str, start: usize) -> Vec<(usize, Item)> {
        let locate = self.locate;
        self.references(text, start, locate);
        split_spans(text)
            .into_iter()
            .map(|(segment, range)| (start + range.start, item(inline(segment, &text[range]))))
            .collect()
    }

    /// Record the figure, table and citation references of `text`, which
    /// starts at byte `start`; `locate` turns an offset into a location.
    fn references(&mut self, text: &str, start: usize, locate: &dyn Fn(usize) -> Location) {
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
                    self.found.citations.push((keys.iter().map(|k| k.to_string()).collect(), at));
                    continue;
                }
            };
            self.found.references.push((kind, id.to_string(), locate(offset)));
            offset += id.len() + 5;
        }
    }
}

/// An inline as a node's item.
fn item(inline: Inline) -> Item {
    match inline {
        Inline::Text(t) => Item::Markdown(Event::Text(t.into())),
        Inline::Ref(r) => Item::Ref(r),
        Inline::Cite(c) => Item::Cite(c),
    }
}

/// A caption's text as inlines, unresolved.
pub fn inlines(text: &str) -> Vec<Inline> {
    split_spans(text).into_iter().map(|(s, range)| inline(s, &text[range])).collect()
}

/// A segment of text written as `source` as an inline, unresolved: a
/// reference links to its anchor on the page and has no number yet.
fn inline(segment: Segment<'_>, source: &str) -> Inline {
    let reference = |kind, prefix, id: &str| Reference {
        kind,
        id: id.to_string(),
        number: 0,
        href: format!("#{prefix}-{id}"),
    };
    match segment {
        Segment::Text(t) => Inline::Text(t.to_string()),
        Segment::Figure(id) => Inline::Ref(reference(RefKind::Figure, "fig", id)),
        Segment::Table(id) => Inline::Ref(reference(RefKind::Table, "tbl", id)),
        Segment::Cite(keys) => Inline::Cite(Citation {
            keys: keys.iter().map(|k| k.to_string()).collect(),
            source: source.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(body: &Body, output: Output) -> String {
        let text = |n: &Node| match &n.item {
            Item::Markdown(Event::Text(t)) => Some(t.to_string()),
            _ => None,
        };
        body.nodes.iter().filter(|n| n.shown_in(output)).filter_map(text).collect()
    }

    #[test]
    fn finds_charts_and_references_with_locations() {
        let source = "Intro @fig-a.\n\n```chart\nid = \"a\"\nkind = \"line\"\ndata = \"d\"\nx = \"x\"\ny = \"y\"\n```\n";
        let (body, found) =
            page(Path::new("c.md"), source, &SourceMap::identity(source), None).unwrap();
        assert_eq!(found.charts[0].id, "a");
        assert_eq!(found.charts[0].location.as_ref().unwrap().to_string(), "c.md:3:1");
        assert_eq!(
            found.references,
            vec![(RefKind::Figure, "a".to_string(), Location::new("c.md", 1, 7))]
        );
        // "Intro " is 6 bytes, "@fig-a" 6 more; the chart starts at byte 15.
        let items: Vec<(usize, &Item)> = body.nodes.iter().map(|n| (n.at, &n.item)).collect();
        assert!(matches!(items[2], (6, Item::Ref(Reference { number: 0, .. }))), "{items:?}");
        assert!(matches!(items[3], (12, Item::Markdown(Event::Text(_)))), "{items:?}");
        assert!(matches!(items[5], (15, Item::Chart(ChartFigure { .. }))), "{items:?}");
        assert_eq!(items.len(), 6);
    }

    #[test]
    fn table_captions_are_found_and_left_out_of_the_body() {
        let source = "| a |\n|---|\n| 1 |\n\nTable: Setup *of* @fig-x. {#tbl-setup}\n\n| b |\n|---|\n| 2 |\n\nNot a caption.\n";
        let body = text(source);
        let captions: Vec<&TableCaption> = body
            .nodes
            .iter()
            .filter_map(|n| if let Item::TableStart(c) = &n.item { Some(c) } else { None })
            .collect();
        assert_eq!(captions.len(), 1);
        assert_eq!(captions[0].id.as_deref(), Some("setup"));
        assert_eq!(captions[0].number, 1);
        assert_eq!(captions[0].caption[0], Inline::Text("Setup of ".into()));
        assert!(matches!(&captions[0].caption[1], Inline::Ref(r) if r.id == "x"));
        assert_eq!(texts(&body, Output::Page), "a1b2Not a caption.");
        let ends = body.nodes.iter().filter(|n| n.item == Item::TableEnd).count();
        assert_eq!(ends, 1);
    }

    #[test]
    fn sections_for_the_other_output_are_marked() {
        let source = "# A\n\na\n\n# B {only=page}\n\nb\n\n## B2\n\nb2\n\n# C\n\nc\n";
        assert_eq!(texts(&text(source), Output::Paper), "AaCc");
        assert_eq!(texts(&text(source), Output::Page), "AaBbB2b2Cc");
        let nested = "# P {only=paper}\n\n## Q {only=page}\n\nq\n";
        assert_eq!(texts(&text(nested), Output::Paper), "P");
        assert_eq!(texts(&text(nested), Output::Page), "");
    }

    #[test]
    fn citations_keep_their_source_and_code_keeps_its_text() {
        let body = text("See [@a; @b].\n\n```\n@fig-x [@c]\n```\n");
        let cites: Vec<&Citation> = body
            .nodes
            .iter()
            .filter_map(|n| if let Item::Cite(c) = &n.item { Some(c) } else { None })
            .collect();
        assert_eq!(cites.len(), 1);
        assert_eq!(cites[0].keys, ["a", "b"]);
        assert_eq!(cites[0].source, "[@a; @b]");
        assert!(body.nodes.iter().all(|n| !matches!(n.item, Item::Ref(_))));
    }

    /// A computed table's nodes are what pulldown-cmark makes of the
    /// captioned Markdown table its text used to be written as (every ASCII
    /// punctuation character escaped, cells and caption on one line).
    #[test]
    fn computed_tables_parse_as_their_markdown_would() {
        let escape = super::super::expand::escape_markdown;
        let header = ["rows", "np = 2", "x"].map(String::from).to_vec();
        let rows = [
            ["a|b", "+8.8% (95% CI 1 to 2)", " pad "],
            ["*x* @fig-q [@k] me@fig-r", "", "<b>&amp; `c` \\ $y$"],
        ];
        let rows: Vec<Vec<String>> =
            rows.iter().map(|r| r.iter().map(|c| c.to_string()).collect()).collect();
        let caption = "Times, *in* s: see @tbl-t. [x] {#tbl-no} ok".to_string();
        let line = |cells: &[String]| {
            let cells: Vec<String> = cells.iter().map(|c| escape(c)).collect();
            format!("| {} |\n", cells.join(" | "))
        };
        let markdown = format!(
            "{}|:--|--:|--:|\n{}{}\nTable: {} {{#tbl-t}}\n\n",
            line(&header),
            line(&rows[0]),
            line(&rows[1]),
            escape(&caption)
        );
        let written = tables::Written { id: "t".into(), ..Default::default() };
        let worded = tables::Worded { caption, header, rows, written };
        let map = SourceMap::identity("");
        let locate = |offset| map.locate(Path::new(""), offset);
        let mut pass = Pass::new(&locate, None);
        let like = Node { at: 0, page: true, paper: true, item: Item::TableEnd };
        let ours: Vec<Item> =
            pass.table(worded, like, &Location::file("x.md")).into_iter().map(|n| n.item).collect();
        let mut theirs: Vec<Item> = text(&markdown).nodes.into_iter().map(|n| n.item).collect();
        if let Item::TableStart(c) = &mut theirs[0] {
            c.verdicts = Some(vec![]);
        }
        assert_eq!(ours, theirs);
        assert_eq!(pass.found.references.len(), 2);
        assert_eq!(pass.found.citations.len(), 1);
    }
}
