//! The one parse of a page: pulldown-cmark's events of the file's own text,
//! with their offsets, its shortcodes resolved in them ([`expand`]), built
//! into the tree of a [`Body`] (directives, captions, references and
//! citations found and resolved in place) and what the page refers to
//! ([`Found`]: links among it, for the checks and the links to other
//! studies), located in the file. No other code runs pulldown-cmark over a
//! page: tests count the parses (`parses`).

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use pulldown_cmark::{Alignment, CodeBlockKind, CowStr, Event, LinkType, Parser, Tag, TagEnd};

use super::directives::{Found, RefKind, Segment, split, split_spans};
use super::document::{
    self, Block, BlockKind, Body, Cell, ChartFigure, Citation, Heading, HtmlLine, Inline, Link,
    List, ListItem, Output, Reference, Shown, Table, TableCaption,
};
use super::expand::{self, Located, Shortcodes};
use super::tables;
use crate::charts::spec;
use crate::config::Config;
use crate::diagnostic::{Diagnostic, Diagnostics, Location};
use crate::results::ResultSet;

/// What ```` ```table ```` directives are computed from: the results and
/// the study's configuration. Without it, such a block is code.
#[derive(Debug, Clone, Copy)]
pub struct Tables<'a> {
    /// The results.
    pub results: &'a ResultSet,
    /// The study's configuration.
    pub config: &'a Config,
    /// The history across versions, which ```` ```changes ```` tabulate.
    pub history: Option<&'a crate::analysis::history::HistoryAnalysis>,
}

/// Parse the Markdown `source` of the file `path` (front matter blanked
/// out) once, its shortcodes resolved by `shortcodes` in the events: its
/// body, and the charts, tables, references, citations, images and links
/// it holds; its ```` ```table ```` directives are computed from `tables`.
pub fn page(
    path: &Path,
    source: &str,
    shortcodes: Option<Shortcodes>,
    tables: Option<Tables>,
) -> Result<(Body, Found), Diagnostics> {
    let (events, elsewhere, typed) = match shortcodes {
        Some(shortcodes) => expand::expand(path, source, parse(source), shortcodes)?,
        None => (parse(source), Vec::new(), Vec::new()),
    };
    let locate = |offset| Location::at_offset(path, source, offset);
    let mut pass = Pass::new(&locate, tables);
    let body = pass.run(merged(source, events));
    let Pass { mut found, errors, .. } = pass;
    found.caveats_elsewhere = elsewhere.into_iter().map(|span| locate(span.start)).collect();
    found.typed = typed
        .into_iter()
        .map(|(span, message, hint)| Diagnostic::new(locate(span.start), message).hint(hint))
        .collect();
    errors.into_result((body, found))
}

/// Parse Markdown that stands on its own (the answer of book.toml, tests):
/// its body, with nothing to resolve against and no problems reported.
pub fn text(source: &str) -> Body {
    let locate = |offset| Location::at_offset(Path::new(""), source, offset);
    Pass::new(&locate, None).run(merged(source, parse(source)))
}

/// [`text`] with its statistics filled in by `shortcodes`: only their
/// problems are reported, at offsets of `source`; with the messages and
/// hints of the numbers typed into it ([`super::typed`]).
pub fn with_shortcodes(
    source: &str,
    shortcodes: Shortcodes,
) -> Result<(Body, Vec<(String, String)>), Diagnostics> {
    let (events, _, typed) = expand::expand(Path::new(""), source, parse(source), shortcodes)?;
    let locate = |offset| Location::at_offset(Path::new(""), source, offset);
    let typed = typed.into_iter().map(|(_, message, hint)| (message, hint)).collect();
    Ok((Pass::new(&locate, None).run(merged(source, events)), typed))
}

#[cfg(test)]
thread_local! {
    /// How many times this thread has run pulldown-cmark over Markdown.
    static PARSES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many times this thread has run pulldown-cmark over Markdown: tests
/// count one parse a page.
#[cfg(test)]
pub(crate) fn parses() -> usize {
    PARSES.with(std::cell::Cell::get)
}

/// The one parse of `source`: pulldown-cmark's events with their byte ranges.
pub(super) fn parse(source: &str) -> Vec<Located<'_>> {
    #[cfg(test)]
    PARSES.with(|parses| parses.set(parses.get() + 1));
    Parser::new_ext(source, super::options()).into_offset_iter().collect()
}

/// Where the text of a merged text event comes from: for each of its
/// pieces, its offset in the text, its offset in the page, and whether it
/// is the page's bytes there (else an escape, an entity or a statistic,
/// all of which stand at the piece's start).
type Run = Vec<(usize, usize, bool)>;

/// `events` (of the page `source`) with adjacent text merged, so that
/// references are never split across events; for each merged event, by
/// its index, where its pieces come from.
fn merged<'a>(source: &str, events: Vec<Located<'a>>) -> (Vec<Located<'a>>, BTreeMap<usize, Run>) {
    let mut out: Vec<Located> = Vec::with_capacity(events.len());
    let mut runs = BTreeMap::new();
    // A run of text events, joined once it ends (joining one by one is
    // quadratic in a paragraph of many escapes).
    let mut run: Vec<(CowStr<'_>, Range<usize>)> = Vec::new();
    for (event, range) in events {
        match event {
            Event::Text(text) => run.push((text, range)),
            event => {
                flush_text(source, &mut run, &mut out, &mut runs);
                out.push((event, range));
            }
        }
    }
    flush_text(source, &mut run, &mut out, &mut runs);
    (out, runs)
}

/// Push the text events of `run` as one event, and empty it.
fn flush_text<'a>(
    source: &str,
    run: &mut Vec<(CowStr<'a>, Range<usize>)>,
    out: &mut Vec<Located<'a>>,
    runs: &mut BTreeMap<usize, Run>,
) {
    match run.len() {
        0 => {}
        1 => out.extend(run.drain(..).map(|(text, range)| (Event::Text(text), range))),
        _ => {
            let range = run[0].1.start..run[run.len() - 1].1.end;
            let (mut text, mut pieces) = (String::new(), Vec::with_capacity(run.len()));
            for (piece, at) in run.drain(..) {
                let exact = source.get(at.clone()) == Some(piece.as_ref());
                pieces.push((text.len(), at.start, exact));
                text.push_str(&piece);
            }
            runs.insert(out.len(), pieces);
            out.push((Event::Text(text.into()), range));
        }
    }
}

/// The offset in the page of byte `offset` of a merged text that starts
/// at `start` and is made of `run` (empty for one piece of the page).
fn in_page(run: &Run, start: usize, offset: usize) -> usize {
    let i = run.partition_point(|p| p.0 <= offset);
    match i.checked_sub(1).map(|i| run[i]) {
        Some((text, page, true)) => page + (offset - text),
        Some((_, page, false)) => page,
        None => start + offset,
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
            if skipping.is_none()
                && attrs.iter().any(|(k, v)| k.as_ref() == "only" && v.as_deref() == Some(other))
            {
                skipping = Some(*level);
            }
        }
        out.push(skipping.is_none());
    }
    out
}

/// Deepest nesting of elements kept in the tree: a list, quote, footnote
/// definition or inline element nested deeper gives its content to the
/// element around it. The renderers walk the tree recursively, and no
/// document needs as many.
const MAX_DEPTH: usize = 64;

/// A ```` ```chart ````, ```` ```environments ```` or ```` ```table ````
/// directive being read: its language, where it starts, which outputs it
/// goes to, and its body so far.
struct Directive {
    lang: String,
    at: usize,
    shown: Shown,
    body: String,
}

/// An element open while its events are read: what it is (`None` for the
/// page itself), where it starts, and what it holds so far.
struct Frame {
    tag: Option<Tag<'static>>,
    at: usize,
    shown: Shown,
    blocks: Vec<Block>,
    inlines: Vec<Inline>,
    items: Vec<ListItem>,
    /// The cells of a table's header or row.
    cells: Vec<Cell>,
    head: Vec<Cell>,
    rows: Vec<Vec<Cell>>,
    /// A code block's text.
    code: String,
    /// An HTML block's lines.
    html: Vec<HtmlLine>,
    /// Text before an HTML block's next line: its indentation.
    indent: String,
    /// A captioned table's caption.
    caption: Option<TableCaption>,
    /// Whether it holds inlines rather than blocks.
    inline: bool,
}

impl Frame {
    /// An element that holds nothing yet.
    fn new(tag: Option<Tag<'static>>, at: usize, shown: Shown) -> Self {
        Frame {
            at,
            shown,
            blocks: Vec::new(),
            inlines: Vec::new(),
            items: Vec::new(),
            cells: Vec::new(),
            head: Vec::new(),
            rows: Vec::new(),
            code: String::new(),
            html: Vec::new(),
            indent: String::new(),
            caption: None,
            inline: tag.as_ref().is_some_and(holds_inlines),
            tag,
        }
    }
}

/// Whether `tag` is an inline element: emphasis, a link, an image…
fn is_inline(tag: &Tag<'_>) -> bool {
    matches!(
        tag,
        Tag::Emphasis
            | Tag::Strong
            | Tag::Strikethrough
            | Tag::Superscript
            | Tag::Subscript
            | Tag::Link { .. }
            | Tag::Image { .. }
    )
}

/// Whether the element of `tag` holds inlines (a paragraph, a heading, a
/// cell, an inline element) rather than blocks.
fn holds_inlines(tag: &Tag<'_>) -> bool {
    let text = matches!(
        tag,
        Tag::Paragraph | Tag::Heading { .. } | Tag::TableCell | Tag::DefinitionListTitle
    );
    text || is_inline(tag)
}

/// Whether the element of `tag` may give its content to the element
/// around it when nested too deep ([`MAX_DEPTH`]): lists, quotes, footnote
/// definitions and inline elements.
fn flattens(tag: &Tag<'_>) -> bool {
    let block = matches!(tag, Tag::List(_) | Tag::BlockQuote(_) | Tag::FootnoteDefinition(_));
    block || is_inline(tag)
}

/// What a closed element becomes in the element around it.
enum Closed {
    Block(BlockKind),
    Inline(Inline),
    Item(Vec<Block>),
    Cell(Vec<Inline>),
    Head(Vec<Cell>),
    Row(Vec<Cell>),
    /// What an element of no meaning here holds (superscript, definition
    /// lists: not enabled), put in its place.
    Spread(Vec<Block>, Vec<Inline>),
}

/// One page's pass over its events.
struct Pass<'p> {
    /// A byte offset of the expanded Markdown as a location in the file.
    locate: &'p dyn Fn(usize) -> Location,
    /// What computed tables are made of.
    tables: Option<Tables<'p>>,
    /// The elements open, the page first.
    stack: Vec<Frame>,
    /// The directive being read.
    directive: Option<Directive>,
    /// The caption of the table about to open.
    caption: Option<TableCaption>,
    found: Found,
    errors: Diagnostics,
    /// Where the pieces of the text event being read come from.
    text_run: Run,
}

impl<'p> Pass<'p> {
    /// A pass with nothing found yet.
    fn new(locate: &'p dyn Fn(usize) -> Location, tables: Option<Tables<'p>>) -> Self {
        let (found, errors) = Default::default();
        let stack = vec![Frame::new(None, 0, Shown::BOTH)];
        let (directive, caption, text_run) = (None, None, Vec::new());
        Pass { locate, tables, stack, directive, caption, found, errors, text_run }
    }

    /// Walk the events: record what the page refers to, and build the body.
    fn run(&mut self, (events, mut runs): (Vec<Located<'_>>, BTreeMap<usize, Run>)) -> Body {
        let captions = table_captions(&events);
        let (page, paper) = (shown(&events, Output::Page), shown(&events, Output::Paper));
        for (i, (event, range)) in events.into_iter().enumerate() {
            let shown = Shown { page: page[i], paper: paper[i] };
            self.text_run = runs.remove(&i).unwrap_or_default();
            if captions.iter().any(|c| c.skip.contains(&i)) {
                // A caption's paragraph: its references count, it is not in the body.
                self.record(&event, range.start);
                continue;
            }
            if let Some(c) = captions.iter().find(|c| c.start == i) {
                self.caption = Some(self.caption(c));
            }
            self.event(event, range.start, shown);
        }
        while self.stack.len() > 1 {
            self.close();
        }
        Body { blocks: self.stack.pop().map(|f| f.blocks).unwrap_or_default() }
    }

    /// The innermost element open.
    fn top(&mut self) -> &mut Frame {
        if self.stack.is_empty() {
            self.stack.push(Frame::new(None, 0, Shown::BOTH));
        }
        let last = self.stack.len() - 1;
        &mut self.stack[last]
    }
}

impl Pass<'_> {
    /// Take in one event, which starts at byte `at` and goes to `shown`.
    fn event(&mut self, event: Event<'_>, at: usize, shown: Shown) {
        if self.directive(&event, at, shown) {
            return;
        }
        let inline = match event {
            Event::Start(tag) => return self.open(tag, at, shown),
            Event::End(_) => return self.close(),
            Event::Text(text) => return self.text(&text, at, shown),
            Event::Html(html) => return self.html(html.into_string(), at, shown),
            Event::Rule => {
                return self.top().blocks.push(Block { at, shown, kind: BlockKind::Rule });
            }
            Event::Code(code) => Inline::Code(code.into_string()),
            Event::InlineMath(m) => Inline::Math { source: m.into_string(), display: false, at },
            Event::DisplayMath(m) => Inline::Math { source: m.into_string(), display: true, at },
            Event::InlineHtml(html) => Inline::Html(html.into_string()),
            Event::FootnoteReference(label) => Inline::FootnoteReference(label.into_string()),
            Event::SoftBreak => Inline::SoftBreak,
            Event::HardBreak => Inline::HardBreak,
            Event::TaskListMarker(done) => Inline::Task(done),
        };
        self.inline(inline, at, shown);
    }

    /// Whether `event` is part of a directive's fenced block (a chart, the
    /// environments, a computed table), which it is then added to; the
    /// directive's block is built at its end.
    fn directive(&mut self, event: &Event<'_>, at: usize, shown: Shown) -> bool {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang)))
                if matches!(lang.as_ref(), "chart" | "environments")
                    || (matches!(lang.as_ref(), "table" | "changes") && self.tables.is_some()) =>
            {
                let lang = lang.to_string();
                self.directive = Some(Directive { lang, at, shown, body: String::new() });
            }
            Event::Text(text) if self.directive.is_some() => {
                self.directive.iter_mut().for_each(|d| d.body.push_str(text))
            }
            Event::End(TagEnd::CodeBlock) if self.directive.is_some() => {
                let Some(Directive { lang, at, shown, body }) = self.directive.take() else {
                    return true;
                };
                let kind = match lang.as_str() {
                    "table" => self.computed(&body, at),
                    "changes" => self.changes(&body, at),
                    _ => self.figure(&lang, at, &body),
                };
                let block = kind.map(|kind| Block { at, shown, kind });
                self.top().blocks.extend(block);
            }
            _ => return false,
        }
        true
    }

    /// Record what an event of a table's caption refers to: its text is the
    /// caption, which is not in the body.
    fn record(&mut self, event: &Event<'_>, at: usize) {
        match event {
            Event::Text(text) => self.text_references(text, at),
            Event::Start(tag) => self.links(tag, at),
            _ => {}
        }
    }

    /// Record the URL of a link or image that `tag` opens at byte `at`.
    fn links(&mut self, tag: &Tag<'_>, at: usize) {
        match tag {
            Tag::Image { dest_url, .. } => {
                self.found.images.push((dest_url.to_string(), (self.locate)(at)))
            }
            Tag::Link { dest_url, .. } => {
                self.found.links.push((dest_url.to_string(), (self.locate)(at)))
            }
            _ => {}
        }
    }

    /// Open the element of `tag`, at byte `at`.
    fn open(&mut self, tag: Tag<'_>, at: usize, shown: Shown) {
        self.links(&tag, at);
        let depth = self.stack.len();
        let parent = self.top();
        // The items of a list given to the element around it go there too.
        let spread = match tag {
            Tag::Item => parent.tag.is_none() && depth > 1,
            _ => flattens(&tag) && depth >= MAX_DEPTH,
        };
        if spread {
            let inline = parent.inline;
            return self.stack.push(Frame { inline, ..Frame::new(None, at, shown) });
        }
        let mut frame = Frame::new(Some(tag.into_static()), at, shown);
        if matches!(frame.tag, Some(Tag::Table(_))) {
            frame.caption = self.caption.take();
        }
        self.stack.push(frame);
    }

    /// Text at byte `at`: a code block's, or prose, whose references and
    /// citations are recorded with their locations.
    fn text(&mut self, text: &str, at: usize, shown: Shown) {
        match self.stack.last_mut() {
            Some(frame @ Frame { tag: Some(Tag::CodeBlock(_)), .. }) => {
                return frame.code.push_str(text);
            }
            Some(frame @ Frame { tag: Some(Tag::HtmlBlock), .. }) => {
                return frame.indent.push_str(text);
            }
            _ => {}
        }
        for inline in self.prose(text, at) {
            self.inline(inline, at, shown);
        }
    }

    /// A line of HTML at byte `at`: part of the HTML block open.
    fn html(&mut self, html: String, at: usize, shown: Shown) {
        match self.stack.last_mut() {
            Some(frame @ Frame { tag: Some(Tag::HtmlBlock), .. }) => {
                let indent = std::mem::take(&mut frame.indent);
                frame.html.push(HtmlLine { at, indent, html })
            }
            _ => {
                let line = HtmlLine { at, indent: String::new(), html };
                self.top().blocks.push(Block { at, shown, kind: BlockKind::Html(vec![line]) })
            }
        }
    }

    /// Add `inline` to the element open; in one that holds blocks (a tight
    /// list's item), to its text after the last block.
    fn inline(&mut self, inline: Inline, at: usize, shown: Shown) {
        let top = self.top();
        if top.inline {
            return top.inlines.push(inline);
        }
        match top.blocks.last_mut() {
            Some(Block { kind: BlockKind::Plain(inlines), .. }) => inlines.push(inline),
            _ => top.blocks.push(Block { at, shown, kind: BlockKind::Plain(vec![inline]) }),
        }
    }

    /// Close the innermost element, and add what it is to the one around it.
    fn close(&mut self) {
        if self.stack.len() < 2 {
            return;
        }
        let Some(frame) = self.stack.pop() else { return };
        let (at, shown) = (frame.at, frame.shown);
        match closed(frame) {
            Closed::Block(kind) => self.top().blocks.push(Block { at, shown, kind }),
            Closed::Inline(inline) => self.inline(inline, at, shown),
            Closed::Item(blocks) => self.top().items.push(ListItem { at, shown, blocks }),
            Closed::Cell(inlines) => self.top().cells.push(Cell { at, inlines }),
            Closed::Head(cells) => self.top().head = cells,
            Closed::Row(cells) => self.top().rows.push(cells),
            Closed::Spread(blocks, inlines) => {
                self.top().blocks.extend(blocks);
                inlines.into_iter().for_each(|i| self.inline(i, at, shown));
            }
        }
    }
}

/// What the element `frame` is, now that it is closed.
fn closed(mut frame: Frame) -> Closed {
    let Some(tag) = frame.tag.take() else {
        return Closed::Spread(frame.blocks, frame.inlines);
    };
    match tag {
        Tag::Item => Closed::Item(frame.blocks),
        Tag::TableHead => Closed::Head(frame.cells),
        Tag::TableRow => Closed::Row(frame.cells),
        Tag::TableCell => Closed::Cell(frame.inlines),
        Tag::Emphasis => Closed::Inline(Inline::Emphasis(frame.inlines)),
        Tag::Strong => Closed::Inline(Inline::Strong(frame.inlines)),
        Tag::Strikethrough => Closed::Inline(Inline::Strikethrough(frame.inlines)),
        Tag::Link { link_type, dest_url, title, .. } => {
            let email = link_type == LinkType::Email;
            let (url, title) = (dest_url.into_string(), title.into_string());
            Closed::Inline(Inline::Link(Link { url, title, email, inlines: frame.inlines }))
        }
        Tag::Image { dest_url, title, .. } => {
            let (url, title) = (dest_url.into_string(), title.into_string());
            Closed::Inline(Inline::Image(Link { url, title, email: false, inlines: frame.inlines }))
        }
        tag => match block(tag, &mut frame) {
            Some(kind) => Closed::Block(kind),
            None => Closed::Spread(frame.blocks, frame.inlines),
        },
    }
}

/// The block that `tag` made of what `frame` holds; `None` for an element
/// of no meaning here (superscript, definition lists: not enabled).
fn block(tag: Tag<'static>, frame: &mut Frame) -> Option<BlockKind> {
    use std::mem::take;
    Some(match tag {
        Tag::Paragraph => BlockKind::Paragraph(take(&mut frame.inlines)),
        Tag::Heading { level, id, classes, attrs } => BlockKind::Heading(Heading {
            level,
            id: id.map(CowStr::into_string),
            classes: classes.into_iter().map(CowStr::into_string).collect(),
            attrs: (attrs.into_iter())
                .map(|(k, v)| (k.into_string(), v.map(CowStr::into_string)))
                .collect(),
            inlines: take(&mut frame.inlines),
        }),
        Tag::BlockQuote(alert) => BlockKind::Quote { alert, blocks: take(&mut frame.blocks) },
        Tag::CodeBlock(kind) => BlockKind::Code {
            lang: match kind {
                CodeBlockKind::Fenced(lang) if !lang.is_empty() => Some(lang.into_string()),
                _ => None,
            },
            text: take(&mut frame.code),
        },
        Tag::HtmlBlock => BlockKind::Html(take(&mut frame.html)),
        Tag::List(start) => {
            let paragraph = |b: &Block| matches!(b.kind, BlockKind::Paragraph(_));
            let tight = !frame.items.iter().any(|i| i.blocks.iter().any(paragraph));
            BlockKind::List(List { start, tight, items: take(&mut frame.items) })
        }
        Tag::FootnoteDefinition(label) => {
            BlockKind::Footnote { label: label.into_string(), blocks: take(&mut frame.blocks) }
        }
        Tag::Table(alignments) => {
            let table =
                Table { alignments, head: take(&mut frame.head), rows: take(&mut frame.rows) };
            match frame.caption.take() {
                Some(caption) => BlockKind::Captioned(caption, table),
                None => BlockKind::Table(table),
            }
        }
        _ => return None,
    })
}

impl Pass<'_> {
    /// The figure of a ```` ```chart ```` or ```` ```environments ````
    /// block that starts at `start`; a chart's spec is recorded, or its
    /// problem.
    fn figure(&mut self, lang: &str, start: usize, body: &str) -> Option<BlockKind> {
        if lang != "chart" {
            return Some(BlockKind::Environments);
        }
        let parsed = spec::parse(body, &(self.locate)(start));
        let id = parsed.as_ref().map(|s| s.id.clone()).ok().or_else(|| document::chart_id(body));
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
        id.map(|id| BlockKind::Chart(ChartFigure { id, caption }))
    }

    /// A table's caption, numbered on the page.
    fn caption(&mut self, c: &Captioned) -> TableCaption {
        self.found.tables.push(c.id.clone());
        let number = self.found.tables.len();
        TableCaption { number, id: c.id.clone(), caption: inlines(&c.caption), verdicts: None }
    }

    /// A ```` ```table ```` directive with `body`, at byte `at`: the table
    /// computed, as a captioned table of text cells with its verdicts, or
    /// nothing and its problem recorded.
    fn computed(&mut self, body: &str, at: usize) -> Option<BlockKind> {
        let Tables { results, config, .. } = self.tables?;
        let location = (self.locate)(at);
        match tables::compute(body, &location, results, config) {
            Ok(table) => Some(self.table(table, at, &location)),
            Err(problem) => {
                self.errors.push(problem);
                None
            }
        }
    }

    /// A ```` ```changes ```` directive with `body`, at byte `at`: the
    /// history's change points as a captioned table, or nothing and its
    /// problem recorded.
    fn changes(&mut self, body: &str, at: usize) -> Option<BlockKind> {
        let Tables { config, history, .. } = self.tables?;
        let location = (self.locate)(at);
        let labels = crate::prose::labels::Labels::new(config);
        match super::changes::compute(body, &location, history, &labels) {
            Ok((id, caption, header, rows)) => {
                let caption = self.caption_of(&id, &caption, None, &location);
                Some(self.captioned(caption, &header, &rows, at, &location))
            }
            Err(problem) => {
                self.errors.push(problem);
                None
            }
        }
    }

    /// The caption of table `id`, numbered, its references recorded at `location`.
    fn caption_of(
        &mut self,
        id: &str,
        caption: &str,
        verdicts: Option<Vec<Vec<Option<crate::analysis::metrics::tables::Verdict>>>>,
        location: &Location,
    ) -> TableCaption {
        self.found.tables.push(Some(id.to_string()));
        self.references(caption.trim(), 0, &|_| location.clone());
        TableCaption {
            number: self.found.tables.len(),
            id: Some(id.to_string()),
            caption: inlines(caption.trim()),
            verdicts,
        }
    }

    /// A computed table (at byte `at`, located at `location`): what a
    /// captioned Markdown table of its text would parse to, its references
    /// recorded at `location`.
    fn table(&mut self, table: tables::Worded, at: usize, location: &Location) -> BlockKind {
        let verdicts = Some(table.written.verdicts.clone());
        let caption = self.caption_of(&table.written.id, &table.caption, verdicts, location);
        let block = self.captioned(caption, &table.header, &table.rows, at, location);
        self.found.computed.push(table.written);
        block
    }

    /// A captioned table of text cells, the first column left-aligned, its
    /// cells' references recorded at `location`.
    fn captioned(
        &mut self,
        caption: TableCaption,
        header: &[String],
        rows: &[Vec<String>],
        at: usize,
        location: &Location,
    ) -> BlockKind {
        let mut alignments = vec![Alignment::Left];
        alignments.resize(header.len().max(1), Alignment::Right);
        let mut row = |cells: &[String]| -> Vec<Cell> {
            let mut cell = |text: &str| {
                self.references(text, 0, &|_| location.clone());
                Cell { at, inlines: inlines(text) }
            };
            cells.iter().map(|c| cell(c.trim_matches([' ', '\t']))).collect()
        };
        let head = row(header);
        let rows = rows.iter().map(|r| row(r)).collect();
        BlockKind::Captioned(caption, Table { alignments, head, rows })
    }

    /// The inlines of a text event that starts at `start`, its references
    /// and citations recorded with their locations.
    fn prose(&mut self, text: &str, start: usize) -> Vec<Inline> {
        self.text_references(text, start);
        inlines(text)
    }

    /// Record the references of the text event `text`, which starts at byte
    /// `start`, each located at its bytes of the page.
    fn text_references(&mut self, text: &str, start: usize) {
        let (run, locate) = (std::mem::take(&mut self.text_run), self.locate);
        let at = |offset: usize| locate(in_page(&run, start, offset - start));
        self.references(text, start, &at);
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

/// Text as inlines, unresolved: its text, references and citations.
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

    /// The text of `blocks` that goes to `output`, depth first.
    fn texts(blocks: &[Block], output: Output) -> String {
        let mut out = String::new();
        for block in blocks.iter().filter(|b| b.shown_in(output)) {
            for inlines in block.kind.inlines() {
                out.push_str(&document::plain(inlines, false));
            }
            if let BlockKind::List(list) = &block.kind {
                let items = list.items.iter().filter(|i| i.shown.includes(output));
                items.for_each(|i| out.push_str(&texts(&i.blocks, output)));
            } else {
                out.push_str(&texts(
                    &block.kind.children().into_iter().cloned().collect::<Vec<_>>(),
                    output,
                ));
            }
        }
        out
    }

    /// The kinds of `blocks`, each as a short word, children in brackets.
    fn shape(blocks: &[Block]) -> String {
        let words: Vec<String> = blocks
            .iter()
            .map(|b| {
                let word = match &b.kind {
                    BlockKind::Paragraph(_) => "p",
                    BlockKind::Plain(_) => "plain",
                    BlockKind::Heading(_) => "h",
                    BlockKind::List(l) if l.tight => "tight-list",
                    BlockKind::List(_) => "list",
                    BlockKind::Quote { .. } => "quote",
                    BlockKind::Code { .. } => "code",
                    BlockKind::Table(_) => "table",
                    BlockKind::Rule => "rule",
                    BlockKind::Html(_) => "html",
                    BlockKind::Footnote { .. } => "footnote",
                    BlockKind::Chart(_) => "chart",
                    BlockKind::Environments => "environments",
                    BlockKind::Captioned(..) => "captioned",
                };
                let children: Vec<String> = match &b.kind {
                    BlockKind::List(l) => l.items.iter().map(|i| shape(&i.blocks)).collect(),
                    BlockKind::Quote { blocks, .. } | BlockKind::Footnote { blocks, .. } => {
                        vec![shape(blocks)]
                    }
                    _ => return word.to_string(),
                };
                format!("{word}[{}]", children.join("|"))
            })
            .collect();
        words.join(" ")
    }

    #[test]
    fn blocks_nest_as_written() {
        let cases = [
            ("a\n\nb\n", "p p"),
            ("- a\n- b\n", "tight-list[plain|plain]"),
            ("- a\n\n- b\n", "list[p|p]"),
            (
                "- a\n  - b\n    - c\n- d\n",
                "tight-list[plain tight-list[plain tight-list[plain]]|plain]",
            ),
            ("1. a\n\n   > q\n2. b\n", "list[p quote[p]|p]"),
            ("> - a\n>\n>   ```\n>   x\n>   ```\n", "quote[list[p code]]"),
            ("> - a\n>   ```\n>   x\n>   ```\n", "quote[tight-list[plain code]]"),
            ("> [!NOTE]\n> n\n", "quote[p]"),
            ("| a |\n|---|\n| 1 |\n\n---\n\n<div>\nx\n</div>\n", "table rule html"),
            ("x[^n]\n\n[^n]: *note*\n    more\n", "p footnote[p]"),
            (
                "- ```chart\n  id = \"c\"\n  ```\n- ```environments\n  ```\n",
                "tight-list[chart|environments]",
            ),
            ("- | a |\n  |---|\n  | 1 |\n\n  Table: T {#tbl-t}\n", "tight-list[captioned]"),
            ("# T\n\n    code\n", "h code"),
        ];
        for (markdown, expected) in cases {
            assert_eq!(shape(&text(markdown).blocks), expected, "{markdown:?}");
        }
    }

    /// How deep `blocks` and their inlines nest.
    fn depth(blocks: &[Block]) -> usize {
        fn inline_depth(inlines: &[Inline]) -> usize {
            inlines.iter().map(|i| 1 + inline_depth(i.children())).max().unwrap_or(0)
        }
        let block = |b: &Block| {
            let inlines = b.kind.inlines().into_iter().map(inline_depth).max().unwrap_or(0);
            let items = match &b.kind {
                BlockKind::List(l) => {
                    l.items.iter().map(|i| 1 + depth(&i.blocks)).max().unwrap_or(0)
                }
                _ => depth(&b.kind.children().into_iter().cloned().collect::<Vec<_>>()),
            };
            1 + inlines.max(items)
        };
        blocks.iter().map(block).max().unwrap_or(0)
    }

    /// Lists, quotes and emphasis nested thousands deep keep their text in
    /// a tree of bounded depth, which both renderers walk on a test
    /// thread's small stack.
    #[test]
    fn deep_nesting_is_bounded() {
        let deep = [
            "- ".repeat(5000) + "deep\n",
            "> ".repeat(5000) + "deep\n",
            "*a ".repeat(5000) + "deep" + &" b*".repeat(5000),
            "[".repeat(5000) + "deep" + &"](u)".repeat(5000),
            "- > ".repeat(3000) + "deep\n",
        ];
        for markdown in deep {
            let body = text(&markdown);
            assert!(depth(&body.blocks) <= 2 * MAX_DEPTH, "{}", depth(&body.blocks));
            let html = crate::render::html::to_html(&body, crate::render::Refs::none());
            assert!(html.contains("deep"), "{html}");
            let paper = crate::render::typst_markup::convert(&body, &crate::render::Refs::none());
            assert!(paper.text.contains("deep"));
        }
    }

    #[test]
    fn inlines_nest_as_written() {
        let body =
            text("*a **b [c `d`](u \"t\")** ~~e~~* ![i $x$](p.png) <b>h</b> <m@x.org>\\\nf\ng");
        let BlockKind::Paragraph(inlines) = &body.blocks[0].kind else { panic!("{body:?}") };
        let Inline::Emphasis(em) = &inlines[0] else { panic!("{inlines:?}") };
        let Inline::Strong(strong) = &em[1] else { panic!("{em:?}") };
        let Inline::Link(link) = &strong[1] else { panic!("{strong:?}") };
        assert_eq!((link.url.as_str(), link.title.as_str(), link.email), ("u", "t", false));
        assert_eq!(link.inlines, [Inline::Text("c ".into()), Inline::Code("d".into())]);
        assert_eq!(em[3], Inline::Strikethrough(vec![Inline::Text("e".into())]));
        let Inline::Image(image) = &inlines[2] else { panic!("{inlines:?}") };
        assert!(
            matches!(&image.inlines[1], Inline::Math { source, display: false, at: 35 } if source == "x")
        );
        assert_eq!(inlines[4], Inline::Html("<b>".into()));
        let Inline::Link(mail) = &inlines[8] else { panic!("{inlines:?}") };
        assert!(mail.email);
        assert_eq!(
            inlines[9..],
            [
                Inline::HardBreak,
                Inline::Text("f".into()),
                Inline::SoftBreak,
                Inline::Text("g".into())
            ]
        );
    }

    #[test]
    fn finds_charts_and_references_with_locations() {
        let source = "Intro @fig-a.\n\n```chart\nid = \"a\"\nkind = \"line\"\ndata = \"d\"\nx = \"x\"\ny = \"y\"\n```\n";
        let (body, found) = page(Path::new("c.md"), source, None, None).unwrap();
        assert_eq!(found.charts[0].id, "a");
        assert_eq!(found.charts[0].location.as_ref().unwrap().to_string(), "c.md:3:1");
        assert_eq!(
            found.references,
            vec![(RefKind::Figure, "a".to_string(), Location::new("c.md", 1, 7))]
        );
        let BlockKind::Paragraph(inlines) = &body.blocks[0].kind else { panic!("{body:?}") };
        assert!(matches!(&inlines[1], Inline::Ref(Reference { number: 0, .. })), "{inlines:?}");
        assert_eq!(inlines.len(), 3);
        // The chart starts at byte 15.
        assert!(matches!(&body.blocks[1], Block { at: 15, kind: BlockKind::Chart(_), .. }));
        assert_eq!(body.blocks.len(), 2);
    }

    #[test]
    fn table_captions_are_found_and_left_out_of_the_body() {
        let source = "| a |\n|---|\n| 1 |\n\nTable: Setup *of* @fig-x. {#tbl-setup}\n\n| b |\n|---|\n| 2 |\n\nNot a caption.\n";
        let body = text(source);
        let captions: Vec<&TableCaption> = document::all_blocks(&body.blocks)
            .into_iter()
            .filter_map(|b| if let BlockKind::Captioned(c, _) = &b.kind { Some(c) } else { None })
            .collect();
        assert_eq!(captions.len(), 1);
        assert_eq!(captions[0].id.as_deref(), Some("setup"));
        assert_eq!(captions[0].number, 1);
        assert_eq!(captions[0].caption[0], Inline::Text("Setup of ".into()));
        assert!(matches!(&captions[0].caption[1], Inline::Ref(r) if r.id == "x"));
        assert_eq!(texts(&body.blocks, Output::Page), "Setup of @fig-x.a1b2Not a caption.");
        assert_eq!(shape(&body.blocks), "captioned table p");
    }

    #[test]
    fn sections_for_the_other_output_are_marked() {
        let source = "# A\n\na\n\n# B {only=page}\n\nb\n\n## B2\n\nb2\n\n# C\n\nc\n";
        assert_eq!(texts(&text(source).blocks, Output::Paper), "AaCc");
        assert_eq!(texts(&text(source).blocks, Output::Page), "AaBbB2b2Cc");
        let nested = "# P {only=paper}\n\n## Q {only=page}\n\nq\n";
        assert_eq!(texts(&text(nested).blocks, Output::Paper), "P");
        assert_eq!(texts(&text(nested).blocks, Output::Page), "");
        // In a list: the items after the heading, and what follows the list.
        let list = "- a\n- # H {only=page}\n- b\n\nc\n\n# D\n\nd\n";
        assert_eq!(texts(&text(list).blocks, Output::Paper), "aDd");
        assert_eq!(texts(&text(list).blocks, Output::Page), "aHbcDd");
    }

    #[test]
    fn citations_keep_their_source_and_code_keeps_its_text() {
        let body = text("See [@a; @b].\n\n```\n@fig-x [@c]\n```\n");
        let BlockKind::Paragraph(inlines) = &body.blocks[0].kind else { panic!("{body:?}") };
        let Inline::Cite(cite) = &inlines[1] else { panic!("{inlines:?}") };
        assert_eq!(cite.keys, ["a", "b"]);
        assert_eq!(cite.source, "[@a; @b]");
        let code = BlockKind::Code { lang: None, text: "@fig-x [@c]\n".into() };
        assert_eq!(body.blocks[1].kind, code);
    }

    /// References and directives inside lists, quotes and cells are found
    /// and resolved in place.
    #[test]
    fn directives_inside_containers_are_resolved() {
        let source = "- > See @fig-a in *@tbl-b*.\n  >\n  > ```chart\n  > id = \"a\"\n  > kind = \"line\"\n  > data = \"d\"\n  > x = \"x\"\n  > y = \"y\"\n  > ```\n\n| [@k] |\n|---|\n| @fig-a |\n\nTable: T {#tbl-b}\n";
        let (body, found) = page(Path::new("c.md"), source, None, None).unwrap();
        assert_eq!(shape(&body.blocks), "tight-list[quote[p chart]] captioned");
        assert_eq!(found.references.len(), 3);
        assert_eq!(found.citations.len(), 1);
        assert_eq!(found.tables, [Some("b".to_string())]);
        let (mut pages, path) = (Vec::new(), std::path::PathBuf::from("content/c.md"));
        let (slug, title, front) = ("c".to_string(), String::new(), Default::default());
        let source_map = super::super::SourceMap::identity(source);
        pages.push(super::super::Page { path, slug, title, body, source_map, front });
        document::resolve(&mut pages, &found.charts, &found.tables, 0);
        let refs: Vec<usize> = document::all_blocks(&pages[0].body.blocks)
            .into_iter()
            .flat_map(|b| b.kind.inlines())
            .flat_map(document::all_inlines)
            .filter_map(|i| if let Inline::Ref(r) = i { Some(r.number) } else { None })
            .collect();
        assert_eq!(refs, [1, 1, 1]);
    }

    /// A computed table is what pulldown-cmark makes of the captioned
    /// Markdown table its text used to be written as (every ASCII
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
        let body = "id = \"t\"\ndata = \"d\"\nvalue = \"v\"\nrows = \"r\"\ncell = \"mean\"\ncaption = \"c\"\n";
        let spec = crate::analysis::metrics::tables::parse(body, &Location::file("x.md")).unwrap();
        let table = crate::analysis::metrics::tables::Computed {
            spec,
            rows: vec![],
            columns: vec![],
            cells: vec![],
        };
        let (id, csv) = ("t".to_string(), String::new());
        let written = tables::Written { id, csv, verdicts: vec![], cells: vec![], table };
        let worded = tables::Worded { caption, header, rows, written };
        let locate = |offset| Location::at_offset(Path::new(""), "", offset);
        let mut pass = Pass::new(&locate, None);
        let ours = pass.table(worded, 0, &Location::file("x.md"));
        let mut theirs = text(&markdown).blocks.remove(0).kind;
        if let BlockKind::Captioned(c, t) = &mut theirs {
            c.verdicts = Some(vec![]);
            t.head.iter_mut().chain(t.rows.iter_mut().flatten()).for_each(|c| c.at = 0);
        }
        assert_eq!(ours, theirs);
        assert_eq!(pass.found.references.len(), 2);
        assert_eq!(pass.found.citations.len(), 1);
    }
}
