//! A page's resolved document to Typst markup: the tree walked block by
//! block, with every character of author text escaped so that prose can
//! never inject Typst code.

use std::collections::BTreeMap;

use super::typst_syntax::{alert, align, heading_depth, prose};
pub use super::typst_syntax::{escape, string};
use super::{Refs, typst_syntax};
use crate::markdown::document::{
    Block, BlockKind, Body, Heading, Inline, List, Output, Table, TableCaption,
};
pub use paragraph::MAX_PARAGRAPH;
use paragraph::Paragraph;

mod figures;
mod paragraph;

/// Typst markup converted from one Markdown text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Markup {
    /// The Typst markup.
    pub text: String,
    /// `(offset in text, offset in the Markdown)` at the start of each block, ascending.
    pub source_map: Vec<(usize, usize)>,
    /// Byte offsets in the Markdown of HTML blocks, which have no PDF form and
    /// were dropped. (Inline HTML is printed as written.)
    pub dropped_html: Vec<usize>,
    /// Byte offsets in the Markdown of paragraphs too long to typeset ([`MAX_PARAGRAPH`]).
    pub too_long: Vec<usize>,
}

impl Markup {
    /// The Markdown offset of the block that produced `offset` of the markup.
    pub fn markdown_offset(&self, offset: usize) -> usize {
        let i = self.source_map.partition_point(|(t, _)| *t <= offset);
        if i == 0 { 0 } else { self.source_map[i - 1].1 }
    }
}

/// Deepest nesting of lists and quotes kept in the paper; deeper ones are flattened.
const MAX_NESTING: usize = 8;

/// Convert a page's `body` to Typst markup; chart directives become
/// numbered figures of `charts/ID.svg` and `@fig-ID` becomes a Typst reference.
pub fn convert(body: &Body, refs: &Refs) -> Markup {
    convert_page(body, refs, None)
}

/// [`convert`] a paper page's `body`, less the headings the layout's rules
/// leave out ([`super::outline`]): empty ones, and a first one that repeats
/// the study's `title` (given for the paper's first page), which the title
/// block shows; its `##` sections then become the paper's top sections.
pub fn convert_page(body: &Body, refs: &Refs, title: Option<&str>) -> Markup {
    let (shown, promote) = super::outline::shown(&body.blocks, title, Output::Paper);
    let mut converter = Converter { refs: Some(*refs), promote, ..Converter::default() };
    for block in shown {
        converter.block(block);
    }
    converter.finish()
}

#[derive(Default)]
struct Converter<'c> {
    /// Author text not yet written: consecutive text is escaped as one run.
    run: String,
    paragraph: Paragraph,
    refs: Option<Refs<'c>>,
    /// Open lists, items and quotes: true where flattened.
    nesting: Vec<bool>,
    out: String,
    markup: Markup,
    footnotes: BTreeMap<String, String>,
    /// The footnote being written: its label and its markup so far.
    footnote: Option<(String, String)>,
    in_heading: bool,
    /// Chart figures met one after another, not yet written: set two-up.
    charts: Vec<String>,
    /// Headings move one level up: the page's title heading is gone
    /// ([`super::outline::shown`]).
    promote: bool,
}

/// A formula as a Typst equation with its source as alternative text, ended
/// by `;` so that nothing after it can continue the expression.
fn equation(formula: &str, block: bool) -> String {
    let alt = string(formula.trim());
    format!("#math.equation(block: {block}, alt: {alt}, ${formula}$.body);")
}

impl Converter<'_> {
    /// Write the blocks of `blocks` that go to the paper.
    fn blocks(&mut self, blocks: &[Block]) {
        for block in blocks.iter().filter(|b| b.shown_in(Output::Paper)) {
            self.block(block);
        }
    }

    /// Write one block, which starts at `block.at` of the Markdown.
    fn block(&mut self, block: &Block) {
        let at = block.at;
        if let BlockKind::Chart(figure) = &block.kind {
            return self.chart(figure, at);
        }
        self.settle();
        match &block.kind {
            BlockKind::Paragraph(inlines) => {
                self.mark(at);
                self.paragraph = Paragraph::new(at, true);
                self.inlines(inlines);
                self.push("\n\n");
            }
            BlockKind::Plain(inlines) => self.inlines(inlines),
            BlockKind::Heading(heading) => self.heading(heading, at),
            BlockKind::List(list) => self.list(list, at),
            BlockKind::Quote { alert, blocks } => self.quote(*alert, blocks, at),
            BlockKind::Code { lang, text } => {
                self.mark(at);
                self.push(&typst_syntax::raw_block(lang.as_deref(), text));
            }
            BlockKind::Table(table) => self.table(table, at, None),
            BlockKind::Captioned(caption, table) => self.captioned(caption, table, at),
            BlockKind::Rule => {
                self.mark(at);
                self.push("#line(length: 100%)\n\n")
            }
            // An HTML block has no PDF form: it is dropped, each line noted.
            BlockKind::Html(lines) => {
                for line in lines {
                    self.run.push_str(&line.indent);
                    self.flush();
                    self.markup.dropped_html.push(line.at);
                }
            }
            BlockKind::Footnote { label, blocks } => self.footnote(label, blocks),
            BlockKind::Environments => self.environments(at),
            BlockKind::Chart(_) => {}
        }
    }

    /// A quote, or a GFM alert of `kind`, that starts at `at`.
    fn quote(&mut self, kind: Option<pulldown_cmark::BlockQuoteKind>, blocks: &[Block], at: usize) {
        let open = match kind {
            Some(kind) => {
                let (title, colour) = alert(kind);
                format!(
                    "#block(width: 100%, inset: 8pt, radius: 2pt, fill: {colour}.lighten(90%), stroke: (left: 2pt + {colour}))[#strong[{title}.] "
                )
            }
            None => "#quote(block: true)[".to_string(),
        };
        self.nested(at, &open, "]\n\n", |c| c.blocks(blocks));
    }

    /// A footnote's definition: its markup is kept, to be set where it is
    /// referred to.
    fn footnote(&mut self, label: &str, blocks: &[Block]) {
        self.footnote = Some((label.to_string(), String::new()));
        self.blocks(blocks);
        self.settle();
        if let Some((label, text)) = self.footnote.take() {
            self.footnotes.insert(label, text.trim_end().to_string());
        }
    }

    /// Before anything but a chart is written: the chart figures gathered,
    /// then the author text gathered.
    fn settle(&mut self) {
        if !self.charts.is_empty() {
            self.flush_charts();
        }
        self.flush();
    }

    /// A list or quote that starts at `at`, written between `open` and
    /// `close` by `inside`; nested beyond [`MAX_NESTING`], only its inside.
    fn nested(&mut self, at: usize, open: &str, close: &str, inside: impl FnOnce(&mut Self)) {
        let flat = self.flattens(false);
        if !flat {
            self.mark(at);
            self.push(open);
        }
        inside(self);
        self.settle();
        if !self.nesting.pop().unwrap_or(false) {
            self.push(close);
        }
    }

    /// A list that starts at `at`: each item that goes to the paper.
    fn list(&mut self, list: &List, at: usize) {
        let open = list.start.map_or("#list(\n".into(), |n| format!("#enum(start: {n},\n"));
        self.nested(at, &open, ")\n\n", |c| {
            for item in list.items.iter().filter(|i| i.shown.paper) {
                c.settle();
                if !c.flattens(true) {
                    c.push("[");
                    c.paragraph = Paragraph::new(item.at, true);
                }
                c.blocks(&item.blocks);
                c.settle();
                if !c.nesting.pop().unwrap_or(false) {
                    c.push("],\n");
                }
            }
        });
    }

    /// Whether the list, item (`item`) or quote about to open is flattened,
    /// nested beyond MAX_NESTING (Typst refuses deep nesting, and no paper
    /// needs it); a flattened item becomes a bullet in the text.
    fn flattens(&mut self, item: bool) -> bool {
        let flatten = self.nesting.iter().filter(|n| !**n).count() >= MAX_NESTING;
        self.nesting.push(flatten);
        if flatten && item {
            self.push(" • ");
        }
        flatten
    }

    /// A heading that starts at `at`: its `paper="..."` title replaces its
    /// text, and its `{#id}` becomes a label at its end.
    fn heading(&mut self, heading: &Heading, at: usize) {
        self.mark(at);
        self.in_heading = true;
        let depth = heading_depth(heading.level) - usize::from(self.promote);
        self.push(&format!("{} ", "=".repeat(depth.max(1))));
        let title = heading.attr("paper");
        if let Some(title) = title {
            self.run.push_str(&title.replace('_', " "));
        }
        self.paragraph = Paragraph::new(at, true);
        if title.is_none() {
            self.inlines(&heading.inlines);
        }
        self.flush();
        self.in_heading = false;
        match &heading.id {
            Some(id) => self.push(&format!("\n#label({})\n\n", string(id))),
            None => self.push("\n\n"),
        }
    }

    /// A formula. One converted from LaTeX is in `refs.math`, as markup
    /// ([`super::latex::equation`]); else it is Typst math already. Its
    /// source is its alternative text (PDF/UA). One that holds code or does
    /// not parse is text (the page's build refuses it at its place).
    fn formula(&mut self, source: &str, display: bool) {
        let converted = self.refs.and_then(|r| r.math.get(&(source.to_string(), display)));
        if let Some(markup) = converted {
            self.push(markup);
        } else if super::pdf::math::valid(source) {
            self.push(&equation(source, display));
        } else if display {
            self.run.push_str(&format!("$${source}$$"));
        } else {
            self.run.push_str(&format!("${source}$"));
        }
    }

    /// A captioned table that starts at `at`: a numbered figure of kind table.
    fn captioned(&mut self, c: &TableCaption, table: &Table, at: usize) {
        self.push(&format!(
            "#figure(kind: table, caption: [{}])[",
            typst_syntax::caption(&c.caption)
        ));
        let label = c.id.as_ref().map(|id| format!(" <tbl-{id}>")).unwrap_or_default();
        self.table(table, at, Some(label));
    }

    /// A table that starts at `at`; in a captioned table's figure, closed
    /// by the figure's `label`.
    fn table(&mut self, table: &Table, at: usize, label: Option<String>) {
        self.mark(at);
        let aligns: Vec<&str> = table.alignments.iter().map(align).collect();
        self.push(&format!(
            "#table(columns: {}, align: ({},),\n",
            table.alignments.len().max(1),
            aligns.join(", ")
        ));
        self.push("table.header(");
        table.head.iter().for_each(|cell| self.cell(&cell.inlines, cell.at));
        self.push("),\n");
        for row in &table.rows {
            row.iter().for_each(|cell| self.cell(&cell.inlines, cell.at));
            self.push("\n");
        }
        match label {
            Some(label) => self.push(&format!(")]{label}\n\n")),
            None => self.push(")\n\n"),
        }
    }

    /// A table cell that starts at `at`.
    fn cell(&mut self, inlines: &[Inline], at: usize) {
        self.push("[");
        self.paragraph = Paragraph::new(at, true);
        self.inlines(inlines);
        self.push("], ");
    }

    /// Write `inlines`.
    fn inlines(&mut self, inlines: &[Inline]) {
        for inline in inlines {
            self.inline(inline);
        }
    }

    /// Write one inline.
    fn inline(&mut self, inline: &Inline) {
        match inline {
            Inline::Text(t) | Inline::Html(t) => self.run.push_str(t),
            Inline::SoftBreak => self.run.push(' '),
            Inline::Math { source, display, .. } => self.formula(source, *display),
            Inline::Code(c) => self.push(&format!("#raw({})", string(c))),
            Inline::HardBreak => self.push(if self.in_heading { " " } else { "\\\n" }),
            Inline::FootnoteReference(label) => self.push(&format!("\u{0}{label}\u{0}")),
            Inline::Task(done) => self.push(if *done { "☒ " } else { "☐ " }),
            Inline::Emphasis(i) => self.wrap("#emph[", i),
            Inline::Strong(i) => self.wrap("#strong[", i),
            Inline::Strikethrough(i) => self.wrap("#strike[", i),
            Inline::Link(link) => {
                self.wrap(&format!("#link({})[", string(&link.url)), &link.inlines)
            }
            Inline::Image(image) => self.image(image),
            Inline::Ref(r) => self.push(&typst_syntax::reference(r)),
            Inline::Cite(c) => self.push(&typst_syntax::citation(c)),
        }
    }

    /// `inlines` between `open` and `]`.
    fn wrap(&mut self, open: &str, inlines: &[Inline]) {
        self.push(open);
        self.inlines(inlines);
        self.push("]");
    }

    /// Write the author text gathered so far, then `text`.
    fn push(&mut self, text: &str) {
        self.flush();
        self.write(text);
    }

    /// Write the author text gathered so far: escaped while the paragraph's
    /// escapes last, else as a string.
    fn flush(&mut self) {
        if !self.run.is_empty() {
            let run = std::mem::take(&mut self.run);
            let text = prose(&run, &mut self.paragraph.escapes);
            self.write(&text);
        }
    }

    /// Write `text` to the footnote being gathered or the markup, counting it
    /// against the open paragraph.
    fn write(&mut self, text: &str) {
        match &mut self.footnote {
            Some((_, buffer)) => buffer.push_str(text),
            None => self.out.push_str(text),
        }
        if let Some(start) = self.paragraph.count(text.len()) {
            self.markup.too_long.push(start);
        }
    }

    /// A block starts at `offset` of the Markdown: note it in the source map;
    /// until a paragraph opens, what is written is not counted.
    fn mark(&mut self, offset: usize) {
        if self.footnote.is_none() {
            self.markup.source_map.push((self.out.len(), offset));
        }
        self.paragraph = Paragraph::new(offset, false);
    }

    fn finish(mut self) -> Markup {
        self.settle();
        self.markup.text = typst_syntax::footnotes(&self.out, &self.footnotes);
        self.markup
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn convert_plain(source: &str) -> Markup {
        convert(&crate::markdown::parse::text(source), &Refs::none())
    }

    /// The paper's first page: a first heading that repeats the study's
    /// title goes (the title block shows it) and its sections move up; an
    /// empty heading goes; another title keeps every heading.
    #[test]
    fn a_heading_repeating_the_title_leaves_the_paper() {
        let body = crate::markdown::parse::text(
            "# Which one, at which level?\n\n## Method\n\nText.\n\n## Empty\n",
        );
        let m = convert_page(&body, &Refs::none(), Some("Which one at which level"));
        assert_eq!(m.text, "= Method\n\nText\\.\n\n", "{}", m.text);
        let m = convert_page(&body, &Refs::none(), Some("Another"));
        assert!(m.text.starts_with("= Which one") && m.text.contains("== Method"), "{}", m.text);
        assert!(!m.text.contains("Empty"), "{}", m.text);
    }

    #[test]
    fn converts_basic_blocks() {
        let m = convert_plain("# Title\n\nSome *emph* and **strong** `x`.\n\n- a\n- b\n");
        assert!(m.text.starts_with("= Title\n\n"), "{}", m.text);
        assert!(
            m.text.contains("Some #emph[emph] and #strong[strong] #raw(\"x\")\\."),
            "{}",
            m.text
        );
        assert!(m.text.contains("#list(\n[a],\n[b],\n)"), "{}", m.text);
    }

    #[test]
    fn footnotes_are_inlined() {
        let m = convert_plain("Text[^1].\n\n[^1]: The note.\n");
        assert!(m.text.contains("Text#footnote[The note\\.]\\."), "{}", m.text);
    }

    #[test]
    fn maps_markup_back_to_markdown() {
        let source = "First.\n\nSecond.\n";
        let m = convert_plain(source);
        let second = m.text.find("Second").unwrap();
        assert_eq!(m.markdown_offset(second), source.find("Second").unwrap());
    }
}
