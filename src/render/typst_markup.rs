//! A page's resolved body to Typst markup, with every character of author
//! text escaped so that prose can never inject Typst code.

use std::collections::BTreeMap;

use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Tag, TagEnd};

use super::typst_syntax::{alert, align, heading_depth, prose};
pub use super::typst_syntax::{escape, string};
use super::{Refs, typst_syntax};
use crate::markdown::document::{self, Body, Item, Node};
use crate::markdown::sections::{self, Output};
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
    let mut converter = Converter { refs: Some(*refs), ..Converter::default() };
    for node in body.nodes.iter().filter(|n| n.shown_in(Output::Paper)) {
        converter.node(node);
    }
    converter.finish()
}

#[derive(Default)]
struct Converter<'c> {
    /// Author text not yet written: consecutive text is escaped as one run.
    run: String,
    paragraph: Paragraph,
    refs: Option<Refs<'c>>,
    /// Set while a captioned table is open: the label to put after its figure.
    table_label: Option<String>,
    /// Open lists, items and quotes: true where flattened.
    nesting: Vec<bool>,
    out: String,
    markup: Markup,
    footnotes: BTreeMap<String, String>,
    footnote: Option<(String, String)>,
    table_alignments: Vec<Alignment>,
    in_heading: bool,
    heading_label: Option<String>,
    /// The heading's text is replaced by its `paper="..."` title.
    heading_replaced: bool,
    code: Option<(Option<String>, String)>,
    /// Chart figures met one after another, not yet written: set two-up.
    charts: Vec<String>,
    image_alt: Option<String>,
    image_url: String,
}

/// A formula as a Typst equation with its source as alternative text, ended
/// by `;` so that nothing after it can continue the expression.
fn equation(formula: &str, block: bool) -> String {
    let alt = string(formula.trim());
    format!("#math.equation(block: {block}, alt: {alt}, ${formula}$.body);")
}

impl Converter<'_> {
    /// Write one node of the page.
    fn node(&mut self, node: &Node) {
        let item = &node.item;
        if let Item::TableStart(c) = item {
            self.push(&format!(
                "#figure(kind: table, caption: [{}])[",
                typst_syntax::caption(&c.caption)
            ));
            self.table_label =
                Some(c.id.as_ref().map(|id| format!(" <tbl-{id}>")).unwrap_or_default());
            return;
        }
        if !self.charts.is_empty() && self.code.is_none() && !matches!(item, Item::Chart(_)) {
            self.flush_charts();
        }
        if let Some((_, code)) = &mut self.code {
            match item {
                Item::Markdown(Event::Text(t)) => return code.push_str(t),
                Item::Markdown(Event::End(TagEnd::CodeBlock)) => {}
                _ => return,
            }
        }
        if self.heading_replaced && !matches!(item, Item::Markdown(Event::End(TagEnd::Heading(_))))
        {
            return;
        }
        if let Some(alt) = &mut self.image_alt {
            match item {
                Item::Markdown(Event::End(TagEnd::Image)) => {}
                other => return alt.push_str(&document::plain(other, false).unwrap_or_default()),
            }
        }
        match item {
            Item::Markdown(event) => self.event(event.clone(), node.at),
            Item::Ref(r) => self.push(&typst_syntax::reference(r)),
            Item::Cite(c) => self.push(&typst_syntax::citation(c)),
            Item::Chart(figure) => self.chart(figure, node.at),
            Item::Environments => self.environments(node.at),
            Item::TableStart(_) | Item::TableEnd => {}
        }
    }

    /// Write one Markdown event, which starts at `offset` of the Markdown.
    fn event(&mut self, event: Event, offset: usize) {
        match event {
            Event::Text(t) => return self.run.push_str(&t),
            Event::SoftBreak => return self.run.push(' '),
            Event::InlineHtml(text) => return self.run.push_str(&text),
            // A formula is Typst math already; its source is its alternative
            // text (PDF/UA). One that holds code or does not parse is text (the
            // page's build refuses it at its place).
            Event::InlineMath(f) if super::pdf::math::valid(&f) => {
                return self.push(&equation(&f, false));
            }
            Event::DisplayMath(f) if super::pdf::math::valid(&f) => {
                return self.push(&equation(&f, true));
            }
            Event::InlineMath(f) => return self.run.push_str(&format!("${f}$")),
            Event::DisplayMath(f) => return self.run.push_str(&format!("$${f}$$")),
            _ => self.flush(),
        }
        match event {
            Event::Start(tag) => self.start(tag, offset),
            Event::End(tag) => self.end(tag),
            Event::Code(c) => self.push(&format!("#raw({})", string(&c))),
            Event::HardBreak => self.push(if self.in_heading { " " } else { "\\\n" }),
            Event::Rule => {
                self.block(offset);
                self.push("#line(length: 100%)\n\n")
            }
            Event::Html(_) => self.markup.dropped_html.push(offset),
            Event::FootnoteReference(label) => self.push(&format!("\u{0}{label}\u{0}")),
            Event::TaskListMarker(done) => self.push(if done { "☒ " } else { "☐ " }),
            _ => {}
        }
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
    fn block(&mut self, offset: usize) {
        if self.footnote.is_none() {
            self.markup.source_map.push((self.out.len(), offset));
        }
        self.paragraph = Paragraph::new(offset, false);
    }

    /// Open the element of `tag`; a block also records in the source map
    /// that it starts at `offset` of the Markdown, and a paragraph, heading,
    /// item or cell starts a paragraph's count.
    fn start(&mut self, tag: Tag, offset: usize) {
        if self.flattens(&tag) {
            return;
        }
        let paragraph =
            matches!(tag, Tag::Paragraph | Tag::Heading { .. } | Tag::Item | Tag::TableCell);
        self.start_block(tag, offset);
        if paragraph {
            self.paragraph = Paragraph::new(offset, true);
        }
    }

    /// Open the block of `tag`, or else the inline element.
    fn start_block(&mut self, tag: Tag, offset: usize) {
        match tag {
            Tag::Paragraph => self.block(offset),
            Tag::Heading { level, id, attrs, .. } => {
                self.block(offset);
                let title = sections::heading_attr(&attrs, "paper");
                self.start_heading(level, title, id.map(|id| id.to_string()));
            }
            Tag::BlockQuote(Some(kind)) => {
                self.block(offset);
                let (title, colour) = alert(kind);
                self.push(&format!("#block(width: 100%, inset: 8pt, radius: 2pt, fill: {colour}.lighten(90%), stroke: (left: 2pt + {colour}))[#strong[{title}.] "));
            }
            Tag::BlockQuote(None) => {
                self.block(offset);
                self.push("#quote(block: true)[")
            }
            Tag::CodeBlock(kind) => {
                self.block(offset);
                let lang = match kind {
                    CodeBlockKind::Fenced(l) if !l.is_empty() => Some(l.to_string()),
                    _ => None,
                };
                self.code = Some((lang, String::new()));
            }
            Tag::List(start) => {
                self.block(offset);
                let list = start.map_or("#list(\n".into(), |n| format!("#enum(start: {n},\n"));
                self.push(&list);
            }
            Tag::Table(alignments) => {
                self.block(offset);
                let aligns: Vec<&str> = alignments.iter().map(align).collect();
                self.push(&format!(
                    "#table(columns: {}, align: ({},),\n",
                    alignments.len().max(1),
                    aligns.join(", ")
                ));
                self.table_alignments = alignments;
            }
            other => self.start_inline(other),
        }
    }

    /// Open what starts no block of the source map: a list item, a footnote
    /// definition, a part of a table, or an inline element.
    fn start_inline(&mut self, tag: Tag) {
        match tag {
            Tag::Item => self.push("["),
            Tag::FootnoteDefinition(label) => {
                self.footnote = Some((label.to_string(), String::new()))
            }
            Tag::TableHead => self.push("table.header("),
            Tag::TableRow => {}
            Tag::TableCell => self.push("["),
            Tag::Emphasis => self.push("#emph["),
            Tag::Strong => self.push("#strong["),
            Tag::Strikethrough => self.push("#strike["),
            Tag::Link { dest_url, .. } => self.push(&format!("#link({})[", string(&dest_url))),
            Tag::Image { dest_url, .. } => {
                self.image_alt = Some(String::new());
                self.image_url = dest_url.to_string();
            }
            _ => {}
        }
    }

    /// Whether the list, item or quote that `tag` opens is flattened, nested
    /// beyond MAX_NESTING (Typst refuses deep nesting, and no paper needs it);
    /// a flattened item becomes a bullet in the text.
    fn flattens(&mut self, tag: &Tag) -> bool {
        if !matches!(tag, Tag::BlockQuote(_) | Tag::List(_) | Tag::Item) {
            return false;
        }
        let flatten = self.nesting.iter().filter(|n| !**n).count() >= MAX_NESTING;
        self.nesting.push(flatten);
        if flatten && matches!(tag, Tag::Item) {
            self.push(" • ");
        }
        flatten
    }

    /// Open a heading of `level`: its `paper="..."` `title` replaces its
    /// text, and its `{#id}` becomes a label at its end.
    fn start_heading(&mut self, level: HeadingLevel, title: Option<&str>, id: Option<String>) {
        self.in_heading = true;
        let depth = heading_depth(level);
        self.push(&format!("{} ", "=".repeat(depth)));
        if let Some(title) = title {
            self.run.push_str(&title.replace('_', " "));
            self.heading_replaced = true;
        }
        self.heading_label = id;
    }

    /// Close the element of `tag`.
    fn end(&mut self, tag: TagEnd) {
        if matches!(tag, TagEnd::BlockQuote(_) | TagEnd::List(_) | TagEnd::Item)
            && self.nesting.pop().unwrap_or(false)
        {
            return;
        }
        match tag {
            TagEnd::Paragraph => self.push("\n\n"),
            TagEnd::Heading(_) => self.end_heading(),
            TagEnd::BlockQuote(_) => self.push("]\n\n"),
            TagEnd::CodeBlock => self.end_code_block(),
            TagEnd::List(_) => self.push(")\n\n"),
            TagEnd::Item => self.push("],\n"),
            TagEnd::FootnoteDefinition => {
                if let Some((label, text)) = self.footnote.take() {
                    self.footnotes.insert(label, text.trim_end().to_string());
                }
            }
            TagEnd::Table => match self.table_label.take() {
                Some(label) => self.push(&format!(")]{label}\n\n")),
                None => self.push(")\n\n"),
            },
            TagEnd::TableHead => self.push("),\n"),
            TagEnd::TableRow => self.push("\n"),
            TagEnd::TableCell => self.push("], "),
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough | TagEnd::Link => {
                self.push("]")
            }
            TagEnd::Image => self.end_image(),
            _ => {}
        }
    }

    /// Close a heading, with its label if it has an id.
    fn end_heading(&mut self) {
        self.in_heading = false;
        self.heading_replaced = false;
        match self.heading_label.take() {
            Some(id) => self.push(&format!("\n#label({})\n\n", string(&id))),
            None => self.push("\n\n"),
        }
    }

    fn finish(mut self) -> Markup {
        if !self.charts.is_empty() {
            self.flush_charts();
        }
        self.flush();
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
