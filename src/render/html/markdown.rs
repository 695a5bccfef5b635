//! A page's resolved document to HTML: the tree walked, block by block,
//! into the events of pulldown-cmark's writer, which writes the Markdown's
//! own elements; chart figures (grouped into a dashboard grid), numbered
//! tables, cross-references, citations, heading anchors and the
//! environments block are written here.

use std::collections::BTreeMap;

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, LinkType, Tag, TagEnd, html};

use super::super::Refs;
use super::urls;
use crate::charts::Chart;
use crate::charts::svg::escape;
use crate::markdown::document::{
    self, Block, BlockKind, Body, Citation, Heading, HtmlLine, Inline, Link, Output, Reference,
    Table, TableCaption,
};

/// A page's body as HTML, with headings one level down (the page title is
/// the `<h1>`), every heading anchored, chart directives as their figures,
/// captioned tables numbered, and references and citations as links.
pub fn to_html(body: &Body, refs: Refs) -> String {
    let mut page =
        Page { refs, events: Vec::new(), used: BTreeMap::new(), formulas: 0, promote: false };
    page.blocks(&body.blocks);
    let mut out = String::new();
    html::push_html(&mut out, page.events.into_iter());
    out
}

/// Markdown of one paragraph (a metric's definition, an environment's
/// description) as inline HTML: its `code`, *emphasis* and links rendered,
/// raw HTML shown as text, without the `<p>` around it.
pub fn inline_html(text: &str) -> String {
    let html = to_html(&crate::markdown::parse::text(text), Refs::none());
    let inner = html.trim_end().strip_prefix("<p>").and_then(|h| h.strip_suffix("</p>"));
    match inner {
        Some(inner) if !inner.contains("<p>") => inner.to_string(),
        _ => html,
    }
}

/// A content page's body as [`to_html`] writes it, less the headings the
/// layout's rules leave out ([`crate::render::outline`]): empty ones, and a first
/// one that repeats the page's `title`.
pub fn page_html(body: &Body, refs: Refs, title: Option<&str>) -> String {
    page(body, refs, title).0
}

/// [`page_html`], with the page's table of contents taken from the same
/// events: its sections' anchors and text ([`super::toc`]).
pub fn page(body: &Body, refs: Refs, title: Option<&str>) -> (String, Vec<super::toc::Entry>) {
    let (shown, promote) = crate::render::outline::shown(&body.blocks, title, Output::Page);
    let mut page = Page { refs, events: Vec::new(), used: BTreeMap::new(), formulas: 0, promote };
    page.sequence(shown);
    let toc = super::toc::entries(&page.events);
    let mut out = String::new();
    html::push_html(&mut out, page.events.into_iter());
    (out, toc)
}

/// A computed table's verdicts, `grid[row][column]`.
type Grid<'b> = &'b [Vec<Option<crate::analysis::metrics::tables::Verdict>>];

/// The page's tree as it is written as Markdown events for HTML, with what
/// the blocks written so far leave for the next.
struct Page<'b, 'r> {
    refs: Refs<'r>,
    /// The events written.
    events: Vec<Event<'b>>,
    /// How many headings have each anchor so far.
    used: BTreeMap<String, usize>,
    /// Formulas shown so far, to give each one's ids their own prefix.
    formulas: usize,
    /// Headings keep their Markdown level, the page's title heading gone
    /// ([`crate::render::outline::shown`]), rather than one level down.
    promote: bool,
}

impl<'b> Page<'b, '_> {
    /// Write the blocks of `blocks` that go to the page; consecutive chart
    /// figures go into one dashboard grid: two columns on wide screens,
    /// stacked on narrow ones.
    fn blocks(&mut self, blocks: &'b [Block]) {
        self.sequence(blocks.iter().filter(|b| b.shown_in(Output::Page)).collect());
    }

    /// Write `shown`, blocks shown in the page, as [`Page::blocks`] does.
    fn sequence(&mut self, shown: Vec<&'b Block>) {
        let mut i = 0;
        while i < shown.len() {
            let figures: Vec<String> =
                shown[i..].iter().map_while(|b| self.chart(&b.kind)).collect();
            if figures.len() >= 2 {
                self.events.push(Event::Html("<div class=\"dashboard\">\n".into()));
                self.events.extend(figures.iter().map(|f| Event::Html(f.clone().into())));
                self.events.push(Event::Html("</div>\n".into()));
                i += figures.len();
            } else {
                self.block(&shown[i].kind);
                i += 1;
            }
        }
    }

    /// The figure of a chart block whose chart was drawn.
    fn chart(&self, kind: &BlockKind) -> Option<String> {
        let BlockKind::Chart(c) = kind else { return None };
        let chart = self.refs.charts.get(&c.id)?;
        Some(figure(chart, &c.caption, &self.refs))
    }

    /// Write one block.
    fn block(&mut self, kind: &'b BlockKind) {
        match kind {
            BlockKind::Paragraph(inlines) => self.wrap(Tag::Paragraph, inlines),
            BlockKind::Plain(inlines) => self.inlines(inlines),
            BlockKind::Heading(h) => self.heading(h),
            BlockKind::List(list) => {
                self.events.push(Event::Start(Tag::List(list.start)));
                for item in list.items.iter().filter(|i| i.shown.page) {
                    self.events.push(Event::Start(Tag::Item));
                    self.blocks(&item.blocks);
                    self.events.push(Event::End(TagEnd::Item));
                }
                self.events.push(Event::End(TagEnd::List(list.start.is_some())));
            }
            BlockKind::Quote { alert, blocks } => {
                self.events.push(Event::Start(Tag::BlockQuote(*alert)));
                self.blocks(blocks);
                self.events.push(Event::End(TagEnd::BlockQuote(*alert)));
            }
            BlockKind::Code { lang, text } => self.code(lang.as_deref(), text),
            BlockKind::Table(table) => self.table(table, None),
            BlockKind::Rule => self.events.push(Event::Rule),
            BlockKind::Html(lines) => self.html(lines),
            BlockKind::Footnote { label, blocks } => {
                self.events.push(Event::Start(Tag::FootnoteDefinition(label.as_str().into())));
                self.blocks(blocks);
                self.events.push(Event::End(TagEnd::FootnoteDefinition));
            }
            BlockKind::Chart(_) => {
                let html = self.chart(kind).unwrap_or_default();
                self.events.push(Event::Html(html.into()));
            }
            BlockKind::Environments => {
                self.events.push(Event::Html(environments(&self.refs).into()))
            }
            BlockKind::Captioned(caption, table) => self.captioned(caption, table),
        }
    }

    /// Write the element of `tag` around `inlines`.
    fn wrap(&mut self, tag: Tag<'b>, inlines: &'b [Inline]) {
        let end = tag.to_end();
        self.events.push(Event::Start(tag));
        self.inlines(inlines);
        self.events.push(Event::End(end));
    }

    /// A code block, `lang` its fenced info string.
    fn code(&mut self, lang: Option<&'b str>, text: &'b str) {
        let kind = lang.map_or(CodeBlockKind::Indented, |l| CodeBlockKind::Fenced(l.into()));
        self.events.push(Event::Start(Tag::CodeBlock(kind)));
        if !text.is_empty() {
            self.events.push(Event::Text(text.into()));
        }
        self.events.push(Event::End(TagEnd::CodeBlock));
    }

    /// An HTML block. Raw HTML is the author's to allow: without
    /// `[output] raw-html`, each line shows as a paragraph of text.
    fn html(&mut self, lines: &'b [HtmlLine]) {
        self.events.push(Event::Start(Tag::HtmlBlock));
        for line in lines {
            if !line.indent.is_empty() {
                self.events.push(Event::Text(line.indent.as_str().into()));
            }
            if self.refs.raw_html {
                self.events.push(Event::Html(line.html.as_str().into()));
            } else {
                self.events.push(Event::Start(Tag::Paragraph));
                self.events.push(Event::Text(line.html.trim_end().into()));
                self.events.push(Event::End(TagEnd::Paragraph));
            }
        }
        self.events.push(Event::End(TagEnd::HtmlBlock));
    }

    /// A heading one level down, with its anchor: its `{#id}` or a slug of
    /// its text, made unique on the page, and a `#` link to it at its end.
    fn heading(&mut self, h: &'b Heading) {
        let base = h.id.clone().unwrap_or_else(|| slug(&document::plain(&h.inlines, false)));
        let count = self.used.entry(base.clone()).or_insert(0);
        *count += 1;
        let id = if *count == 1 { base } else { format!("{base}-{count}") };
        let link = format!(
            "<a class=\"anchor\" href=\"#{}\" aria-label=\"Link to this section\">#</a>",
            escape(&id)
        );
        let classes = h.classes.iter().map(|c| c.as_str().into()).collect();
        let level = if self.promote { h.level } else { demote(h.level) };
        let attrs = Vec::new();
        self.events.push(Event::Start(Tag::Heading { level, id: Some(id.into()), classes, attrs }));
        self.inlines(&h.inlines);
        self.events.push(Event::InlineHtml(link.into()));
        self.events.push(Event::End(TagEnd::Heading(level)));
    }

    /// Write `inlines`.
    fn inlines(&mut self, inlines: &'b [Inline]) {
        for inline in inlines {
            self.inline(inline);
        }
    }

    /// Write one inline.
    fn inline(&mut self, inline: &'b Inline) {
        let event = match inline {
            Inline::Text(t) => Event::Text(t.as_str().into()),
            Inline::Code(t) => Event::Code(t.as_str().into()),
            Inline::Emphasis(i) => return self.wrap(Tag::Emphasis, i),
            Inline::Strong(i) => return self.wrap(Tag::Strong, i),
            Inline::Strikethrough(i) => return self.wrap(Tag::Strikethrough, i),
            Inline::Link(link) => return self.link(link, false),
            Inline::Image(link) => return self.link(link, true),
            Inline::Math { source, display, .. } => return self.formula(source, *display),
            Inline::FootnoteReference(label) => Event::FootnoteReference(label.as_str().into()),
            Inline::Task(done) => Event::TaskListMarker(*done),
            Inline::SoftBreak => Event::SoftBreak,
            Inline::HardBreak => Event::HardBreak,
            // Raw HTML is the author's to allow: without `[output] raw-html`, it shows as text.
            Inline::Html(html) if !self.refs.raw_html => Event::Text(html.as_str().into()),
            Inline::Html(html) => Event::InlineHtml(html.as_str().into()),
            Inline::Ref(r) => reference(r),
            Inline::Cite(c) => citation(c, &self.refs),
        };
        self.events.push(event);
    }

    /// A link or an image. One whose URL a browser could run (`javascript:`,
    /// `vbscript:`, a `data:` document, any scheme but a few) loses its URL
    /// and keeps its text. However the URL was written (reference, autolink,
    /// entities, mixed case), pulldown-cmark hands it over decoded, as the
    /// browser would read it.
    fn link(&mut self, link: &'b Link, image: bool) {
        let allowed = match image {
            true => urls::image_allowed(&link.url),
            false => urls::link_allowed(&link.url),
        };
        if !allowed {
            return self.inlines(&link.inlines);
        }
        let (dest_url, title, id) =
            (link.url.as_str().into(), link.title.as_str().into(), "".into());
        let link_type = if link.email { LinkType::Email } else { LinkType::Inline };
        let tag = match image {
            true => Tag::Image { link_type, dest_url, title, id },
            false => Tag::Link { link_type, dest_url, title, id },
        };
        self.wrap(tag, &link.inlines);
    }

    /// A formula as Typst typeset it ([`crate::render::math`]), its ids
    /// made unique in the page; displayed ones on a line of their own.
    fn formula(&mut self, formula: &str, display: bool) {
        self.formulas += 1;
        let id = format!("math{}", self.formulas);
        let svg = self.refs.math.get(&(formula.to_string(), display)).map_or_else(
            || format!("<code>{}</code>", escape(formula)),
            |svg| svg.replace(crate::render::math::ID, &id),
        );
        let html = if display { format!("<span class=\"display-math\">{svg}</span>") } else { svg };
        self.events.push(Event::InlineHtml(html.into()));
    }

    /// A captioned table: its numbered `<figure>` around the table.
    fn captioned(&mut self, c: &'b TableCaption, table: &'b Table) {
        // Every numbered table has an anchor, to link to and to keep its order
        // in the address: `tbl-ID`, else `table-N`.
        let id = c.id.as_ref().map_or_else(
            || format!(" id=\"table-{}\"", c.number),
            |id| format!(" id=\"tbl-{}\"", escape(id)),
        );
        let band = if super::widths::wide(table) { " band" } else { "" };
        self.events.push(Event::Html(format!("<figure class=\"table{band}\"{id}>\n<figcaption><span class=\"table-number\">Table {}.</span> {}</figcaption>\n<div class=\"table-scroll\" tabindex=\"0\" role=\"region\" aria-label=\"Table {}\">\n", c.number, prose(&c.caption, &self.refs), c.number).into()));
        self.table(table, c.verdicts.as_deref());
        self.events.push(Event::Html("</div>\n</figure>\n".into()));
    }

    /// A table; a computed one's cells are classed by their `verdicts`.
    fn table(&mut self, table: &'b Table, verdicts: Option<Grid<'b>>) {
        self.events.push(Event::Start(Tag::Table(table.alignments.clone())));
        self.events.push(Event::Start(Tag::TableHead));
        for (column, cell) in table.head.iter().enumerate() {
            self.cell(&cell.inlines, verdicts.map(|_| (None, column)));
        }
        self.events.push(Event::End(TagEnd::TableHead));
        for (row, cells) in table.rows.iter().enumerate() {
            self.events.push(Event::Start(Tag::TableRow));
            for (column, cell) in cells.iter().enumerate() {
                self.cell(&cell.inlines, verdicts.map(|g| (Some((g, row)), column)));
            }
            self.events.push(Event::End(TagEnd::TableRow));
        }
        self.events.push(Event::End(TagEnd::Table));
    }

    /// A table cell; in a computed table (`at` its body row, `None` in the
    /// header, and column), a comparison's cell is classed by its verdict
    /// (better, worse, negligible, inconclusive, same), for its colour.
    fn cell(&mut self, inlines: &'b [Inline], at: Option<(Option<(Grid<'b>, usize)>, usize)>) {
        let Some((row, column)) = at else { return self.wrap(Tag::TableCell, inlines) };
        let verdict = row.and_then(|(g, r)| g.get(r)?.get(column.checked_sub(1)?)?.as_ref());
        let number = if column > 0 { " num" } else { "" };
        let (open, close) = match (verdict, row) {
            (Some(v), _) => {
                (format!("<td class=\"verdict verdict-{}{number}\">", verdict_class(*v)), "</td>")
            }
            (None, None) => (format!("<th class=\"cell{number}\">"), "</th>"),
            (None, Some(_)) => (format!("<td class=\"cell{number}\">"), "</td>"),
        };
        self.events.push(Event::Html(open.into()));
        match row.and_then(|_| super::widths::interval(inlines)) {
            // A comparison's interval wraps under its value.
            Some((value, interval)) => {
                self.events.push(Event::Text(value.into()));
                self.events.push(Event::Html("<span class=\"ci\">".into()));
                self.events.push(Event::Text(interval.into()));
                self.events.push(Event::Html("</span>".into()));
            }
            None => self.inlines(inlines),
        }
        self.events.push(Event::Html(close.into()));
    }
}

/// Lowercase letters and digits, words joined by `-`.
pub fn slug(text: &str) -> String {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    if words.is_empty() { "section".to_string() } else { words.join("-") }
}

/// The class name of a verdict.
fn verdict_class(verdict: crate::analysis::metrics::tables::Verdict) -> &'static str {
    use crate::analysis::metrics::tables::Verdict;
    match verdict {
        Verdict::Better => "better",
        Verdict::Worse => "worse",
        Verdict::Negligible => "negligible",
        Verdict::Inconclusive => "inconclusive",
        Verdict::Same => "same",
    }
}

/// The link of a cross-reference: `Figure N` or `Table N`.
fn reference<'b>(r: &Reference) -> Event<'b> {
    let noun = match r.kind {
        crate::markdown::directives::RefKind::Figure => "Figure",
        crate::markdown::directives::RefKind::Table => "Table",
    };
    let href = escape(&r.href);
    Event::InlineHtml(format!("<a class=\"xref\" href=\"{href}\">{noun} {}</a>", r.number).into())
}

/// The link of a citation to its entry in the reference list.
fn citation<'b>(c: &Citation, refs: &Refs) -> Event<'b> {
    let text = refs.citations.get(&c.keys).cloned().unwrap_or_default();
    let first = c.keys.first().map(String::as_str).unwrap_or_default();
    Event::InlineHtml(
        format!("<a class=\"citation\" href=\"#ref-{}\">{text}</a>", escape(first)).into(),
    )
}

/// A caption as HTML: its text escaped, its cross-references and
/// citations linked as in prose.
fn prose(caption: &[Inline], refs: &Refs) -> String {
    let mut out = String::new();
    for part in caption {
        let event = match part {
            Inline::Ref(r) => reference(r),
            Inline::Cite(c) => citation(c, refs),
            other => {
                out.push_str(&escape(&document::plain(std::slice::from_ref(other), false)));
                continue;
            }
        };
        if let Event::InlineHtml(html) = event {
            out.push_str(&html);
        }
    }
    out
}

/// The figure of a chart: numbered caption above the inline SVG (with what
/// its error bars show), then the data table, the CSV link and the link to
/// the CSV's metadata ([`crate::render::chart_meta`]).
fn figure(chart: &Chart, caption_inlines: &[Inline], refs: &Refs) -> String {
    let id = escape(&chart.spec.id);
    let mut caption = prose(caption_inlines, refs);
    // A caption ends as a sentence before the generated one follows it.
    let text = document::plain(caption_inlines, false);
    if crate::prose::needs_stop(&text) {
        caption.push('.');
    }
    if let Some(label) = &chart.illustrative {
        caption = format!("<strong class=\"illustrative\">{}</strong> {caption}", escape(label));
    }
    let series = serde_json::to_string(&chart.series).unwrap_or_default();
    format!(
        "<div class=\"chart\" id=\"fig-{id}\" data-series=\"{}\">\n<figure>\n<figcaption><span class=\"figure-number\">Figure {}.</span> {caption} <span class=\"intervals\">{}</span></figcaption>\n{}</figure>\n\
         <details><summary>Data behind Figure {}</summary>\n\
         <div class=\"table-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"Data behind Figure {}\">{}</div>\n<p><a href=\"data/charts/{id}.csv\" download>Download the data (CSV)</a> · <a href=\"data/charts/{id}.json\" download>its metadata (JSON)</a></p></details>\n</div>\n",
        escape(&series),
        chart.number,
        escape(&chart.intervals),
        for_page(&chart.svg),
        chart.number,
        chart.number,
        super::data_table::tables(&chart.table, chart.number),
    )
}

/// A chart's SVG as the page inlines it: its text takes the page's font
/// (the stylesheet sets it), so the paper's font family goes; a stroke width
/// of 1, SVG's default, goes too; and its font size is written to two
/// decimals. Every byte counts against the page's weight.
fn for_page(svg: &str) -> String {
    let svg = svg
        .replace(" font-family=\"Libertinus Serif, serif\"", "")
        .replace(" stroke-width=\"1\"", "");
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg.as_str();
    while let Some(at) = rest.find("font-size=\"").map(|i| i + 11) {
        let end = rest[at..].find('"').map_or(rest.len(), |e| at + e);
        out.push_str(&rest[..at]);
        match rest[at..end].parse::<f64>() {
            Ok(x) => out.push_str(&crate::format::plain((x * 100.0).round() / 100.0)),
            Err(_) => out.push_str(&rest[at..end]),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The environments side by side, from book.toml.
fn environments(refs: &Refs) -> String {
    let mut out = String::from("<div class=\"environments\">\n");
    for env in refs.environments {
        let baseline = if env.baseline { " <small>(baseline)</small>" } else { "" };
        // Markdown in a description renders (`code`, *emphasis*, links).
        let description = env
            .description
            .as_deref()
            .map(|d| format!("<p>{}</p>", inline_html(d)))
            .unwrap_or_default();
        out.push_str(&format!(
            "<section>\n<h3>{}{baseline}</h3>\n{description}\n</section>\n",
            escape(&env.label)
        ));
    }
    out.push_str("</div>\n");
    out
}

/// The heading level one below `level` (H6 stays H6).
fn demote(level: HeadingLevel) -> HeadingLevel {
    match level {
        HeadingLevel::H1 => HeadingLevel::H2,
        HeadingLevel::H2 => HeadingLevel::H3,
        HeadingLevel::H3 => HeadingLevel::H4,
        HeadingLevel::H4 => HeadingLevel::H5,
        _ => HeadingLevel::H6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::generate::Gen;
    use crate::markdown::parse;

    #[test]
    fn headings_move_down_and_get_anchors() {
        let html = to_html(&parse::text("# A b\n\n## B\n\n# A b\n"), Refs::none());
        assert_eq!(
            html,
            "<h2 id=\"a-b\">A b<a class=\"anchor\" href=\"#a-b\" aria-label=\"Link to this section\">#</a></h2>\n\
            <h3 id=\"b\">B<a class=\"anchor\" href=\"#b\" aria-label=\"Link to this section\">#</a></h3>\n\
            <h2 id=\"a-b-2\">A b<a class=\"anchor\" href=\"#a-b-2\" aria-label=\"Link to this section\">#</a></h2>\n"
        );
    }

    #[test]
    fn a_description_renders_its_markdown_inline() {
        assert_eq!(
            inline_html("Uses `zstd -19` *only*."),
            "Uses <code>zstd -19</code> <em>only</em>."
        );
        assert_eq!(inline_html("a <b>x</b>"), "a &lt;b&gt;x&lt;/b&gt;");
    }

    #[test]
    fn raw_text_is_escaped() {
        assert_eq!(to_html(&parse::text("a < b & c"), Refs::none()), "<p>a &lt; b &amp; c</p>\n");
    }

    #[test]
    fn links_that_could_run_a_script_keep_only_their_text() {
        let md = "[a](javascript:alert(1)) <javascript:alert(2)> [r][x] [m](JaVa\tScRiPt:alert(3)) \
                  [e](jav&#x61;script&colon;alert(4)) [d](data:text/html,x) ![i *b*](vbscript:x) \
                  [ok](https://example.org/) [![img](f.png)](notes.html#a)\n\n[x]: javascript:alert(5)\n";
        assert_eq!(
            to_html(&parse::text(md), Refs::none()),
            "<p>a javascript:alert(2) r [m](JaVa\tScRiPt:alert(3)) e d i <em>b</em> \
             <a href=\"https://example.org/\">ok</a> <a href=\"notes.html#a\"><img src=\"f.png\" alt=\"img\" /></a></p>\n"
        );
    }

    /// A line of inline pieces of Markdown that `report` writes as
    /// pulldown-cmark does: no headings, formulas, references or unsafe
    /// links, which the page renders its own way.
    fn line(g: &mut Gen) -> String {
        const PIECES: &[&str] = &[
            "word",
            "a & b < c",
            "Café",
            "*em*",
            "**strong**",
            "~~del~~",
            "`co<de>`",
            "[link](https://example.org/p?q=1&r \"t\")",
            "![alt *b*](f.png \"i\")",
            "<https://example.org>",
            "<m@x.org>",
            "<span>",
            "&amp;",
            "\\*",
            "\"q\"",
            "[^n]",
            "_a_b_",
            "***x***",
            "[ref][r]",
            "x  ",
            "[*in* `link`](a.html)",
        ];
        let n = 1 + g.below(5);
        (0..n).map(|_| g.pick(PIECES)).collect::<Vec<_>>().join(" ")
    }

    /// The lines of a block, nested at most `depth` more levels.
    fn block(g: &mut Gen, depth: usize) -> Vec<String> {
        let kinds = if depth == 0 { 6 } else { 9 };
        match g.below(kinds) {
            0 => (0..1 + g.below(3)).map(|_| line(g)).collect(),
            1 => {
                let lang = g.pick(&["", "rust", "sh x", "a<b"]);
                vec![format!("```{lang}"), "let x = 1 < 2;".into(), "".into(), "```".into()]
            }
            2 => table(g),
            3 => vec!["***".into()],
            4 => vec!["<div class=\"x\">".into(), "*not* markdown".into(), "</div>".into()],
            5 => vec![format!("[^n]: {}", line(g))],
            6 => g
                .blocks(depth - 1, block)
                .into_iter()
                .map(|l| format!("> {l}").trim_end().to_string())
                .collect(),
            _ => g.list(depth - 1, &["- ", "1. ", "3. ", "- [ ] ", "- [x] "], block),
        }
    }

    /// A table of 1 to 3 columns.
    fn table(g: &mut Gen) -> Vec<String> {
        let columns = 1 + g.below(3);
        let row = |g: &mut Gen| {
            let cells: Vec<&str> =
                (0..columns).map(|_| g.pick(&["a", "*b*", "`c`", "", "<i>"])).collect();
            format!("| {} |", cells.join(" | "))
        };
        let aligns: Vec<&str> =
            (0..columns).map(|_| g.pick(&["---", ":--", "--:", ":-:"])).collect();
        let mut lines = vec![row(g), format!("|{}|", aligns.join("|"))];
        lines.extend((0..g.below(3)).map(|_| row(g)));
        lines
    }

    proptest::proptest! {
        /// The tree written as HTML is what pulldown-cmark's own writer makes
        /// of the same Markdown, for documents of many shapes.
        #[test]
        fn the_tree_writes_what_pulldown_cmark_writes(seed in proptest::prelude::any::<u64>()) {
            let mut markdown = Gen(seed | 1).blocks(3, block).join("\n");
            markdown.push_str("\n\n[r]: https://example.org/r\n");
            let mut expected = String::new();
            let parser = pulldown_cmark::Parser::new_ext(&markdown, crate::markdown::options());
            html::push_html(&mut expected, parser);
            let refs = Refs { raw_html: true, ..Refs::none() };
            proptest::prop_assert_eq!(to_html(&parse::text(&markdown), refs), expected, "{}", markdown);
        }
    }

    /// A section for the paper only that starts inside a list leaves the
    /// list's elements closed on the page.
    #[test]
    fn a_section_for_the_paper_inside_a_list_closes_the_list() {
        let html = to_html(&parse::text("- a\n- # H {only=paper}\n- b\n\nc\n"), Refs::none());
        assert_eq!(html, "<ul>\n<li>a</li>\n<li></li>\n</ul>\n");
        let markup = crate::render::typst_markup::convert(
            &parse::text("> # H {only=page}\n>\n> q\n\nr\n"),
            &Refs::none(),
        );
        assert_eq!(markup.text, "#quote(block: true)[]\n\n");
    }

    #[test]
    fn slugs_are_stable() {
        assert_eq!(slug("What we found!"), "what-we-found");
        assert_eq!(slug("Café 2"), "café-2");
        assert_eq!(slug("!!"), "section");
    }
}
