//! The resolved document: each page parsed once ([`super::parse`]) into a
//! sequence of nodes that both renderers walk. Markdown's own structure
//! stays as pulldown-cmark's events (blocks open and close, inlines between);
//! what `report` adds is resolved in place: cross-references with their
//! numbers and links, citations with their keys, chart figures, captioned
//! and computed tables with their numbers and verdicts, and which output a
//! section is for.

use pulldown_cmark::Event;

use super::directives::RefKind;
use super::sections::Output;
use crate::analysis::metrics::tables::Verdict;
use crate::charts::spec::ChartSpec;

/// A page's content, parsed once, in document order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Body {
    /// The nodes, blocks and inlines alike, as they open and close.
    pub nodes: Vec<Node>,
}

/// One node of a page, with where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Byte offset in the page's expanded Markdown (locate it with the
    /// page's [`SourceMap`](super::SourceMap)).
    pub at: usize,
    /// Whether the node goes to the page: not in a section under a heading
    /// marked `{only=paper}`.
    pub page: bool,
    /// Whether the node goes to the paper: not in a section under a heading
    /// marked `{only=page}`.
    pub paper: bool,
    /// What the node is.
    pub item: Item,
}

impl Node {
    /// Whether the node goes to `output`.
    pub fn shown_in(&self, output: Output) -> bool {
        match output {
            Output::Page => self.page,
            Output::Paper => self.paper,
        }
    }
}

/// What a node is.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// Markdown as pulldown-cmark parses it: the start or end of a block or
    /// inline element, text (without references; merged, so that a run of
    /// text is one node), code, math, breaks, HTML, footnotes.
    Markdown(Event<'static>),
    /// `@fig-ID` or `@tbl-ID`, resolved.
    Ref(Reference),
    /// `[@key]` or `[@a; @b]`.
    Cite(Citation),
    /// A ```` ```chart ```` directive: the chart's figure.
    Chart(ChartFigure),
    /// An ```` ```environments ```` directive: the environments side by side.
    Environments,
    /// A captioned table starts: its table follows, then [`Item::TableEnd`].
    /// The caption's own paragraph is not in the body.
    TableStart(TableCaption),
    /// The end of a captioned table, after its table's end.
    TableEnd,
}

/// A piece of a caption: text, a cross-reference or a citation.
#[derive(Debug, Clone, PartialEq)]
pub enum Inline {
    /// Text as written.
    Text(String),
    /// A cross-reference.
    Ref(Reference),
    /// A citation.
    Cite(Citation),
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
    /// Its caption (from the directive), resolved like prose.
    pub caption: Vec<Inline>,
}

/// A table with a caption (`Table: … {#tbl-ID}` after it), or computed
/// from the results (```` ```table ````).
#[derive(Debug, Clone, PartialEq)]
pub struct TableCaption {
    /// Its number, 1-based in document order; 0 while unresolved.
    pub number: usize,
    /// The id, without `tbl-`.
    pub id: Option<String>,
    /// The caption, without `Table:` and the id.
    pub caption: Vec<Inline>,
    /// A computed table's verdicts, `verdicts[row][column]`.
    pub verdicts: Option<Vec<Vec<Option<Verdict>>>>,
}

impl Body {
    /// The plain text of the first paragraph that cites nothing and is not
    /// inside a quote or callout (the caveats): the abstract of a paper whose
    /// book.toml has none.
    pub fn first_paragraph(&self) -> Option<String> {
        use pulldown_cmark::{Tag, TagEnd};
        let mut text: Option<String> = None;
        // Quotes and callouts (the caveats) are not the page's own summary.
        let mut quoted = 0usize;
        for node in &self.nodes {
            match &node.item {
                Item::Markdown(Event::Start(Tag::BlockQuote(_))) => quoted += 1,
                Item::Markdown(Event::End(TagEnd::BlockQuote(_))) => {
                    quoted = quoted.saturating_sub(1)
                }
                Item::Markdown(Event::Start(Tag::Paragraph)) if quoted == 0 => {
                    text = Some(String::new())
                }
                Item::Markdown(Event::End(TagEnd::Paragraph)) => match text.take() {
                    Some(t) if !t.trim().is_empty() && !cites(&t) => return Some(t),
                    _ => {}
                },
                item => {
                    if let (Some(text), Some(plain)) = (&mut text, plain(item, true)) {
                        text.push_str(&plain);
                    }
                }
            }
        }
        None
    }

    /// The plain text of the first heading.
    pub fn first_heading(&self) -> Option<String> {
        use pulldown_cmark::{Tag, TagEnd};
        let mut title: Option<String> = None;
        for node in &self.nodes {
            match &node.item {
                Item::Markdown(Event::Start(Tag::Heading { .. })) => title = Some(String::new()),
                Item::Markdown(Event::End(TagEnd::Heading(_))) if title.is_some() => return title,
                item => {
                    if let (Some(title), Some(plain)) = (&mut title, plain(item, false)) {
                        title.push_str(&plain);
                    }
                }
            }
        }
        None
    }

    /// Every formula (`$…$`, `$$…$$`): its source, whether it is displayed,
    /// and where it starts.
    pub fn formulas(&self) -> impl Iterator<Item = (&str, bool, usize)> {
        self.nodes.iter().filter_map(|node| match &node.item {
            Item::Markdown(Event::InlineMath(f)) => Some((f.as_ref(), false, node.at)),
            Item::Markdown(Event::DisplayMath(f)) => Some((f.as_ref(), true, node.at)),
            _ => None,
        })
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

/// The text a node stands for in plain text, references as written; with
/// `math`, formulas and breaks too (a break is a space).
pub fn plain(item: &Item, math: bool) -> Option<String> {
    match item {
        Item::Markdown(Event::Text(t) | Event::Code(t)) => Some(t.to_string()),
        Item::Markdown(Event::InlineMath(t) | Event::DisplayMath(t)) if math => Some(t.to_string()),
        Item::Markdown(Event::SoftBreak | Event::HardBreak) if math => Some(" ".into()),
        Item::Ref(r) => Some(r.source()),
        Item::Cite(c) => Some(c.source.clone()),
        _ => None,
    }
}

/// Number and link every page's references, tables and figures for the
/// whole document: figures by the order of `charts`, captioned tables by
/// the order of `tables`, both counted across pages; a figure on another
/// page is linked at that page.
pub fn resolve(pages: &mut [super::Page], charts: &[ChartSpec], tables: &[Option<String>]) {
    let mut numbered = 0;
    for page in pages {
        let targets = Targets { charts, tables, here: &page.slug };
        for node in &mut page.body.nodes {
            match &mut node.item {
                Item::Ref(r) => targets.resolve(r),
                Item::Chart(figure) => targets.resolve_all(&mut figure.caption),
                Item::TableStart(table) => {
                    numbered += 1;
                    table.number = numbered;
                    targets.resolve_all(&mut table.caption);
                }
                _ => {}
            }
        }
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
                let table = self.tables.iter().position(|t| t.as_deref() == Some(&r.id));
                r.number = table.map_or(0, |i| i + 1);
            }
        }
    }

    /// Resolve the references among `inlines`.
    fn resolve_all(&self, inlines: &mut [Inline]) {
        for inline in inlines {
            if let Inline::Ref(r) = inline {
                self.resolve(r);
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
    }

    #[test]
    fn first_heading_keeps_references_as_written() {
        assert_eq!(
            text("Intro.\n\n## See @fig-a `x`\n").first_heading().as_deref(),
            Some("See @fig-a x")
        );
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
            let (body, found) = page(&path, markdown, &map, None).unwrap();
            charts.extend(found.charts);
            tables.extend(found.tables);
            let (slug, title) = (slug.to_string(), String::new());
            let front = Default::default();
            pages.push(super::super::Page { path, slug, title, body, source_map: map, front });
        }
        resolve(&mut pages, &charts, &tables);
        let refs = |p: &super::super::Page| -> Vec<(usize, String)> {
            let r = p.body.nodes.iter().filter_map(|n| match &n.item {
                Item::Ref(r) => Some((r.number, r.href.clone())),
                _ => None,
            });
            r.collect()
        };
        let numbers = |p: &super::super::Page| -> Vec<usize> {
            let t = p.body.nodes.iter().filter_map(|n| match &n.item {
                Item::TableStart(t) => Some(t.number),
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
