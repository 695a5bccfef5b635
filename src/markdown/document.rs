//! The resolved document: each page parsed once ([`super::parse`]) into a
//! tree of [`Block`]s and [`Inline`]s that both renderers walk. Markdown's
//! structure is typed (paragraphs, headings, lists of items, quotes, code,
//! tables of cells, emphasis, links, formulas…), and what `report` adds is
//! resolved in the tree: cross-references with their numbers and links,
//! citations with their keys, chart figures, captioned and computed tables
//! with their numbers and verdicts, and which output each block is for.

use pulldown_cmark::{Alignment, BlockQuoteKind, HeadingLevel};

use super::directives::RefKind;
use crate::analysis::metrics::tables::Verdict;
use crate::charts::spec::ChartSpec;

/// Which output a pass renders for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// The web page.
    Page,
    /// The PDF paper.
    Paper,
}

/// A page's content, parsed once: its blocks in document order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Body {
    /// The top-level blocks.
    pub blocks: Vec<Block>,
}

/// One block of a page, with where it starts and which outputs it goes to.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// Byte offset in the page's expanded Markdown (locate it with the
    /// page's [`SourceMap`](super::SourceMap)).
    pub at: usize,
    /// Which outputs the block goes to ([`Shown`]).
    pub shown: Shown,
    /// What the block is.
    pub kind: BlockKind,
}

/// Which outputs a block or list item goes to: a heading marked
/// `{only=page}` (or `{only=paper}`) and everything after it up to the next
/// heading of the same or a higher level go to that output only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shown {
    /// Whether it goes to the web page.
    pub page: bool,
    /// Whether it goes to the paper.
    pub paper: bool,
}

impl Shown {
    /// Shown in both outputs.
    pub const BOTH: Shown = Shown { page: true, paper: true };

    /// Whether it goes to `output`.
    pub fn includes(self, output: Output) -> bool {
        match output {
            Output::Page => self.page,
            Output::Paper => self.paper,
        }
    }
}

impl Block {
    /// Whether the block goes to `output`.
    pub fn shown_in(&self, output: Output) -> bool {
        self.shown.includes(output)
    }
}

/// What a block is.
#[derive(Debug, Clone, PartialEq)]
pub enum BlockKind {
    /// A paragraph.
    Paragraph(Vec<Inline>),
    /// Text of a tight list item, written without a paragraph around it.
    Plain(Vec<Inline>),
    /// A heading.
    Heading(Heading),
    /// A bulleted or numbered list.
    List(List),
    /// A block quote, or a GFM alert (`> [!WARNING]`, the caveats).
    Quote {
        /// The alert's kind; `None` for a plain quote.
        alert: Option<BlockQuoteKind>,
        /// What the quote holds.
        blocks: Vec<Block>,
    },
    /// A code block.
    Code {
        /// A fenced block's info string (its language first); `None` when
        /// indented or fenced without one.
        lang: Option<String>,
        /// The code.
        text: String,
    },
    /// A GFM table without a caption.
    Table(Table),
    /// A thematic break.
    Rule,
    /// An HTML block, line by line.
    Html(Vec<HtmlLine>),
    /// A footnote's definition (`[^label]: …`).
    Footnote {
        /// The footnote's label.
        label: String,
        /// What the footnote says.
        blocks: Vec<Block>,
    },
    /// A ```` ```chart ```` directive: the chart's figure.
    Chart(ChartFigure),
    /// An ```` ```environments ```` directive: the environments side by side.
    Environments,
    /// A table with a caption (`Table: … {#tbl-ID}` after it, whose
    /// paragraph is not in the body), or computed (```` ```table ````).
    Captioned(TableCaption, Table),
}

/// A line of an HTML block.
#[derive(Debug, Clone, PartialEq)]
pub struct HtmlLine {
    /// Byte offset where the line's HTML starts.
    pub at: usize,
    /// The spaces of its indentation inside a list item beyond the item's
    /// own, which pulldown-cmark gives as text before the line.
    pub indent: String,
    /// The HTML as written, with its line break.
    pub html: String,
}

/// A heading.
#[derive(Debug, Clone, PartialEq)]
pub struct Heading {
    /// Its level, `#` to `######`.
    pub level: HeadingLevel,
    /// Its `{#id}`.
    pub id: Option<String>,
    /// Its `{.class}`es.
    pub classes: Vec<String>,
    /// Its other attributes (`{only=page paper="Title"}`).
    pub attrs: Vec<(String, Option<String>)>,
    /// Its text.
    pub inlines: Vec<Inline>,
}

impl Heading {
    /// The value of attribute `key`, such as `paper="Introduction"`.
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == key).and_then(|(_, v)| v.as_deref())
    }
}

/// A list.
#[derive(Debug, Clone, PartialEq)]
pub struct List {
    /// A numbered list's first number; `None` for bullets.
    pub start: Option<u64>,
    /// Whether the list is tight: no item holds a paragraph (its text is
    /// [`BlockKind::Plain`]).
    pub tight: bool,
    /// The items.
    pub items: Vec<ListItem>,
}

/// An item of a list.
#[derive(Debug, Clone, PartialEq)]
pub struct ListItem {
    /// Byte offset where the item starts.
    pub at: usize,
    /// Which outputs it goes to.
    pub shown: Shown,
    /// What the item holds.
    pub blocks: Vec<Block>,
}

/// A table: its columns' alignments, its header and body rows of cells.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// Each column's alignment.
    pub alignments: Vec<Alignment>,
    /// The header row.
    pub head: Vec<Cell>,
    /// The body rows.
    pub rows: Vec<Vec<Cell>>,
}

/// A table cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Byte offset where the cell starts.
    pub at: usize,
    /// Its text.
    pub inlines: Vec<Inline>,
}

/// A piece of a paragraph, heading, cell or caption.
#[derive(Debug, Clone, PartialEq)]
pub enum Inline {
    /// Text as written (a run of text is one piece).
    Text(String),
    /// A code span.
    Code(String),
    /// `*emphasis*`.
    Emphasis(Vec<Inline>),
    /// `**strong**`.
    Strong(Vec<Inline>),
    /// `~~struck~~`.
    Strikethrough(Vec<Inline>),
    /// A link: its text is [`Link::inlines`].
    Link(Link),
    /// An image: its alternative text is [`Link::inlines`].
    Image(Link),
    /// A formula, `$…$` or `$$…$$`.
    Math {
        /// The formula as written, in Typst's math syntax.
        source: String,
        /// Whether it is displayed (`$$…$$`).
        display: bool,
        /// Byte offset where it starts.
        at: usize,
    },
    /// `[^label]`.
    FootnoteReference(String),
    /// A task list item's box: whether it is ticked.
    Task(bool),
    /// A line break within a paragraph that is a space.
    SoftBreak,
    /// A hard line break.
    HardBreak,
    /// Inline HTML as written.
    Html(String),
    /// `@fig-ID` or `@tbl-ID`, resolved.
    Ref(Reference),
    /// `[@key]` or `[@a; @b]`.
    Cite(Citation),
}

/// A link's or image's target and what it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    /// The URL, decoded.
    pub url: String,
    /// The title, empty without one.
    pub title: String,
    /// Whether it is an e-mail autolink (`<a@b.org>`), whose URL is the address.
    pub email: bool,
    /// The link's text or the image's alternative text.
    pub inlines: Vec<Inline>,
}

/// A cross-reference to a figure or table.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    /// What it points to.
    pub kind: RefKind,
    /// The chart or table id, without `fig-` or `tbl-`.
    pub id: String,
    /// The number of its target, 1-based in document order; 0 while
    /// unresolved or unknown.
    pub number: usize,
    /// The link to its target on the site: `#fig-ID`, or `PAGE.html#fig-ID`
    /// for a figure on another page.
    pub href: String,
}

impl Reference {
    /// The reference as the author wrote it (`@fig-ID`).
    pub fn source(&self) -> String {
        let prefix = if self.kind == RefKind::Figure { "fig" } else { "tbl" };
        format!("@{prefix}-{}", self.id)
    }
}

/// A citation: the keys cited together.
#[derive(Debug, Clone, PartialEq)]
pub struct Citation {
    /// The keys, in the order written.
    pub keys: Vec<String>,
    /// The citation as written (`[@a; @b]`).
    pub source: String,
}

/// A chart's figure, where its directive was.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartFigure {
    /// The chart's id.
    pub id: String,
    /// Its caption (from the directive): text, references and citations.
    pub caption: Vec<Inline>,
}

/// The caption of a table with a caption (`Table: … {#tbl-ID}` after it),
/// or computed from the results (```` ```table ````).
#[derive(Debug, Clone, PartialEq)]
pub struct TableCaption {
    /// Its number, 1-based in document order; 0 while unresolved.
    pub number: usize,
    /// The id, without `tbl-`.
    pub id: Option<String>,
    /// The caption, without `Table:` and the id: text, references and
    /// citations.
    pub caption: Vec<Inline>,
    /// A computed table's verdicts, `verdicts[row][column]`.
    pub verdicts: Option<Vec<Vec<Option<Verdict>>>>,
}

/// The `id` of a chart block's TOML body (validated by [`super::parse`] when
/// the page is parsed).
pub fn chart_id(body: &str) -> Option<String> {
    let table: toml::Table = toml::from_str(body).ok()?;
    table.get("id")?.as_str().map(str::to_string)
}

impl BlockKind {
    /// The blocks this block holds (a quote's, a footnote's, every list
    /// item's), in order.
    pub fn children(&self) -> Vec<&Block> {
        match self {
            BlockKind::Quote { blocks, .. } | BlockKind::Footnote { blocks, .. } => {
                blocks.iter().collect()
            }
            BlockKind::List(list) => list.items.iter().flat_map(|i| &i.blocks).collect(),
            _ => Vec::new(),
        }
    }

    /// The runs of inlines this block holds directly: a paragraph's, a
    /// heading's, each cell's, a caption's.
    pub fn inlines(&self) -> Vec<&[Inline]> {
        fn cells(t: &Table) -> Vec<&[Inline]> {
            let cells = t.head.iter().chain(t.rows.iter().flatten());
            cells.map(|c| c.inlines.as_slice()).collect()
        }
        match self {
            BlockKind::Paragraph(inlines) | BlockKind::Plain(inlines) => vec![inlines],
            BlockKind::Heading(h) => vec![&h.inlines],
            BlockKind::Table(t) => cells(t),
            BlockKind::Captioned(c, t) => [vec![c.caption.as_slice()], cells(t)].concat(),
            BlockKind::Chart(c) => vec![&c.caption],
            _ => Vec::new(),
        }
    }
}

impl Inline {
    /// The inlines this one holds: emphasis', a link's text, an image's
    /// alternative text.
    pub fn children(&self) -> &[Inline] {
        match self {
            Inline::Emphasis(i) | Inline::Strong(i) | Inline::Strikethrough(i) => i,
            Inline::Link(l) | Inline::Image(l) => &l.inlines,
            _ => &[],
        }
    }
}

/// Every block of `blocks` and of the blocks they hold, depth first in
/// document order.
pub fn all_blocks(blocks: &[Block]) -> Vec<&Block> {
    let mut out = Vec::new();
    let mut stack: Vec<&Block> = blocks.iter().rev().collect();
    while let Some(block) = stack.pop() {
        out.push(block);
        stack.extend(block.kind.children().into_iter().rev());
    }
    out
}

/// Every inline of `inlines` and of the inlines they hold, depth first in
/// document order.
pub fn all_inlines(inlines: &[Inline]) -> Vec<&Inline> {
    let mut out = Vec::new();
    let mut stack: Vec<&Inline> = inlines.iter().rev().collect();
    while let Some(inline) = stack.pop() {
        out.push(inline);
        stack.extend(inline.children().iter().rev());
    }
    out
}

/// The plain text of `inlines`, references as written; with `math`,
/// formulas and breaks too (a break is a space).
pub fn plain(inlines: &[Inline], math: bool) -> String {
    let piece = |inline: &Inline| match inline {
        Inline::Text(t) | Inline::Code(t) => Some(t.clone()),
        Inline::Math { source, .. } if math => Some(source.clone()),
        Inline::SoftBreak | Inline::HardBreak if math => Some(" ".into()),
        Inline::Ref(r) => Some(r.source()),
        Inline::Cite(c) => Some(c.source.clone()),
        _ => None,
    };
    all_inlines(inlines).into_iter().filter_map(piece).collect()
}

impl Body {
    /// The plain text of the first paragraph that cites nothing and is not
    /// inside a quote or callout (the caveats): the abstract of a paper whose
    /// book.toml has none.
    pub fn first_paragraph(&self) -> Option<String> {
        // Quotes and callouts (the caveats) are not the page's own summary.
        let mut stack: Vec<&Block> = self.blocks.iter().rev().collect();
        while let Some(block) = stack.pop() {
            match &block.kind {
                BlockKind::Quote { .. } => {}
                BlockKind::Paragraph(inlines) => {
                    let text = plain(inlines, true);
                    if !text.trim().is_empty() && !cites(&text) {
                        return Some(text);
                    }
                }
                kind => stack.extend(kind.children().into_iter().rev()),
            }
        }
        None
    }

    /// The plain text of the first heading.
    pub fn first_heading(&self) -> Option<String> {
        all_blocks(&self.blocks).into_iter().find_map(|b| match &b.kind {
            BlockKind::Heading(h) => Some(plain(&h.inlines, false)),
            _ => None,
        })
    }

    /// Every formula (`$…$`, `$$…$$`): its source, whether it is displayed,
    /// and where it starts.
    pub fn formulas(&self) -> Vec<(&str, bool, usize)> {
        let blocks = all_blocks(&self.blocks).into_iter();
        let inlines = blocks.flat_map(|b| b.kind.inlines()).flat_map(all_inlines);
        fn formula(inline: &Inline) -> Option<(&str, bool, usize)> {
            match inline {
                Inline::Math { source, display, at } => Some((source.as_str(), *display, *at)),
                _ => None,
            }
        }
        inlines.filter_map(formula).collect()
    }
}

/// Whether plain text holds a cross-reference or citation (`@fig-a`,
/// `[@key]`), which means nothing outside its page: such a paragraph cannot
/// stand alone as a summary. An `@` inside a word (an e-mail address) is not one.
fn cites(text: &str) -> bool {
    text.match_indices('@').any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + 1..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && after.is_some_and(char::is_alphanumeric)
    })
}

/// The id of the table of headline results (`@tbl-headline`), which the
/// templates set before the content: Table 1 of the page and of the paper.
pub const HEADLINE: &str = "headline";

/// The tables that come before the content's, as ids: the headline table
/// when a metric is a headline (it is then Table 1, and the content's
/// tables are numbered from 2), else none.
pub fn tables_before(metrics: &[crate::analysis::MetricValue]) -> Vec<Option<String>> {
    let shown = metrics.iter().any(|m| m.headline);
    shown.then(|| Some(HEADLINE.to_string())).into_iter().collect()
}

/// Number and link every page's references, tables and figures for the
/// whole document: figures by the order of `charts`, tables by the order of
/// `tables`, both counted across pages; a figure on another page is linked
/// at that page. The first `before` of `tables` come before the content's
/// (the headline results, Table 1 on the index page, as in the paper), whose
/// captioned tables are numbered after them.
pub fn resolve(
    pages: &mut [super::Page],
    charts: &[ChartSpec],
    tables: &[Option<String>],
    before: usize,
) {
    let mut numbered = before;
    for page in pages {
        let targets = Targets { charts, tables, here: &page.slug };
        targets.blocks(&mut page.body.blocks, &mut numbered);
    }
}

/// What references on one page resolve against.
struct Targets<'a> {
    charts: &'a [ChartSpec],
    tables: &'a [Option<String>],
    /// The slug of the page.
    here: &'a str,
}

impl Targets<'_> {
    /// Resolve the references of `blocks` and what they hold, and number
    /// their captioned tables after the `numbered` before them.
    fn blocks(&self, blocks: &mut [Block], numbered: &mut usize) {
        let cells = |t: &mut Table| {
            let cells = t.head.iter_mut().chain(t.rows.iter_mut().flatten());
            cells.for_each(|c| self.inlines(&mut c.inlines));
        };
        for block in blocks {
            match &mut block.kind {
                BlockKind::Paragraph(inlines) | BlockKind::Plain(inlines) => self.inlines(inlines),
                BlockKind::Heading(h) => self.inlines(&mut h.inlines),
                BlockKind::Quote { blocks, .. } | BlockKind::Footnote { blocks, .. } => {
                    self.blocks(blocks, numbered)
                }
                BlockKind::List(list) => {
                    list.items.iter_mut().for_each(|i| self.blocks(&mut i.blocks, numbered))
                }
                BlockKind::Table(t) => cells(t),
                BlockKind::Captioned(c, t) => {
                    *numbered += 1;
                    c.number = *numbered;
                    self.inlines(&mut c.caption);
                    cells(t);
                }
                BlockKind::Chart(figure) => self.inlines(&mut figure.caption),
                BlockKind::Code { .. } | BlockKind::Rule | BlockKind::Html(_) => {}
                BlockKind::Environments => {}
            }
        }
    }

    /// Resolve the references among `inlines` and what they hold.
    fn inlines(&self, inlines: &mut [Inline]) {
        for inline in inlines {
            match inline {
                Inline::Ref(r) => self.resolve(r),
                Inline::Emphasis(i) | Inline::Strong(i) | Inline::Strikethrough(i) => {
                    self.inlines(i)
                }
                Inline::Link(l) | Inline::Image(l) => self.inlines(&mut l.inlines),
                _ => {}
            }
        }
    }

    /// Give `r` its target's number and link.
    fn resolve(&self, r: &mut Reference) {
        match r.kind {
            RefKind::Figure => {
                let chart = self.charts.iter().position(|c| c.id == r.id);
                r.number = chart.map_or(0, |i| i + 1);
                let page = chart
                    .and_then(|i| self.charts[i].location.as_ref())
                    .and_then(|l| l.path.file_stem().map(|s| s.to_string_lossy().into_owned()));
                if let Some(page) = page.filter(|p| p != self.here && !self.here.is_empty()) {
                    r.href = format!("{page}.html#fig-{}", r.id);
                }
            }
            RefKind::Table => {
                let table = self.tables.iter().position(|t| t.as_deref() == Some(r.id.as_str()));
                r.number = table.map_or(0, |i| i + 1);
                let headline = r.id == HEADLINE && r.number == 1;
                if headline && self.here != "index" && !self.here.is_empty() {
                    r.href = format!("index.html#tbl-{}", r.id);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::{page, text};
    use super::*;

    #[test]
    fn first_paragraph_is_plain_text() {
        let first = |markdown: &str| text(markdown).first_paragraph();
        assert_eq!(first("# T\n\nA *b* `c`\nd.\n\nNext.").as_deref(), Some("A b c d."));
        assert_eq!(first("# Only a heading"), None);
        let refs = "# T\n\nAs @fig-time shows.\n\nSee [@key].\n\nWrite to a@b.org.\n\nLast.";
        assert_eq!(first(refs).as_deref(), Some("Write to a@b.org."));
        assert_eq!(first("Only @fig-a here."), None);
        let callout = "# T\n\n> [!WARNING]\n> - A caveat.\n\n> Quoted.\n\nOwn words.";
        assert_eq!(first(callout).as_deref(), Some("Own words."));
        assert_eq!(first("> [!WARNING]\n> - Only a caveat.\n"), None);
        // A loose list's paragraph counts, a tight list's text does not.
        assert_eq!(first("- tight\n\n1. loose\n\n2. b\n").as_deref(), Some("loose"));
    }

    #[test]
    fn first_heading_keeps_references_as_written() {
        assert_eq!(
            text("Intro.\n\n## See @fig-a `x` $y$\n").first_heading().as_deref(),
            Some("See @fig-a x ")
        );
        assert_eq!(text("> # Quoted *h*\n").first_heading().as_deref(), Some("Quoted h"));
    }

    #[test]
    fn formulas_are_found_at_any_depth() {
        let body = text("$a$\n\n- > | $$b$$ |\n  > |---|\n\n## *$c$*\n");
        let formulas: Vec<(&str, bool, usize)> = body.formulas();
        assert_eq!(formulas, [("a", false, 0), ("b", true, 11), ("c", false, 34)]);
    }

    /// Figures and tables are numbered across pages in page order, and a
    /// figure on another page is linked at that page (worked by hand).
    #[test]
    fn references_resolve_across_pages() {
        let a = "```chart\nid = \"x\"\nkind = \"line\"\ndata = \"d\"\nx = \"x\"\ny = \"y\"\n```\n\n\
                 | a |\n|---|\n| 1 |\n\nTable: One {#tbl-one}\n\nHere @fig-x.\n";
        let b =
            "See @fig-x, @tbl-two and @tbl-one.\n\n| b |\n|---|\n| 2 |\n\nTable: Two {#tbl-two}\n";
        let (mut pages, mut charts, mut tables) = (Vec::new(), Vec::new(), Vec::new());
        for (slug, markdown) in [("a", a), ("b", b)] {
            let path = std::path::PathBuf::from(format!("content/{slug}.md"));
            let map = super::super::SourceMap::identity(markdown);
            let (body, found) = page(&path, markdown, None, None).unwrap();
            charts.extend(found.charts);
            tables.extend(found.tables);
            let (slug, title) = (slug.to_string(), String::new());
            let front = Default::default();
            pages.push(super::super::Page { path, slug, title, body, source_map: map, front });
        }
        resolve(&mut pages, &charts, &tables, 0);
        let refs = |p: &super::super::Page| -> Vec<(usize, String)> {
            let blocks = all_blocks(&p.body.blocks).into_iter();
            let inlines = blocks.flat_map(|b| b.kind.inlines()).flat_map(all_inlines);
            let r = inlines.filter_map(|i| match i {
                Inline::Ref(r) => Some((r.number, r.href.clone())),
                _ => None,
            });
            r.collect()
        };
        let numbers = |p: &super::super::Page| -> Vec<usize> {
            let t = all_blocks(&p.body.blocks).into_iter().filter_map(|b| match &b.kind {
                BlockKind::Captioned(c, _) => Some(c.number),
                _ => None,
            });
            t.collect()
        };
        assert_eq!(refs(&pages[0]), [(1, "#fig-x".to_string())]);
        assert_eq!(
            refs(&pages[1]),
            [(1, "a.html#fig-x".into()), (2, "#tbl-two".into()), (1, "#tbl-one".into())]
        );
        assert_eq!((numbers(&pages[0]), numbers(&pages[1])), (vec![1], vec![2]));
    }
}
