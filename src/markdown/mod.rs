//! The markdown stage: content pages with their shortcodes expanded
//! (`{{ stat(name="throughput_32", field="full") }}`, `{{ caveats() }}`; see
//! [`shortcodes`]), then each parsed once ([`parse`]) into the resolved
//! [`document`], a tree of blocks and inlines that both renderers walk:
//! directives, numbered figures and tables, cross-references and citations
//! resolved in place.

pub mod checks;
pub mod directives;
pub mod document;
pub mod expand;
pub mod front_matter;
pub mod parse;
pub mod shortcodes;
pub mod tables;

use std::path::PathBuf;

use pulldown_cmark::Options;

use expand::Fields;
pub use expand::SourceMap;

use crate::analysis::Analysis;
use crate::analysis::metrics::sides;
use crate::diagnostic::Diagnostics;
use crate::project::SourceFile;

/// One content page, parsed and resolved.
#[derive(Debug, Clone)]
pub struct Page {
    /// Path relative to the study root (`content/index.md`).
    pub path: PathBuf,
    /// File stem, used for anchors and output names.
    pub slug: String,
    /// The first heading's text, or the slug.
    pub title: String,
    /// The page's content, parsed once from its Markdown after expansion;
    /// its offsets are bytes of that Markdown.
    pub body: document::Body,
    /// Where each byte of the expanded Markdown comes from in the file.
    pub source_map: SourceMap,
    /// The front matter.
    pub front: front_matter::FrontMatter,
}

/// A page with its shortcodes expanded, not yet parsed.
#[derive(Debug)]
struct Expanded {
    path: PathBuf,
    slug: String,
    markdown: String,
    source_map: SourceMap,
    front: front_matter::FrontMatter,
}

impl Page {
    /// The file the page is written to: `index.html` for `index.md`, else `SLUG.html`.
    pub fn url(&self) -> String {
        format!("{}.html", self.slug)
    }
}

/// Every content page, in file-name order (`index.md` first), and its charts.
#[derive(Debug, Clone, Default)]
pub struct Document {
    /// The pages.
    pub pages: Vec<Page>,
    /// The chart directives of all pages, in document order.
    pub charts: Vec<crate::charts::ChartSpec>,
    /// Ids of the captioned tables of all pages, in document order.
    pub tables: Vec<Option<String>>,
    /// Citation keys cited together, in document order.
    pub citations: Vec<Vec<String>>,
    /// The computed tables (```` ```table ````), in document order.
    pub computed: Vec<tables::Written>,
    /// The caveats a reader sees (the page's callout, the paper's
    /// Limitations), the computed tables' included
    /// ([`crate::prose::limitations`]).
    pub limitations: Vec<crate::analysis::Limitation>,
    /// What the author should know: links to folders that are no study.
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
}

/// The Markdown dialect of the content: CommonMark with GFM tables,
/// footnotes, strikethrough, task lists, `{#id}` heading attributes and
/// math (`$…$` in line, `$$…$$` displayed, in Typst's math syntax).
pub fn options() -> Options {
    Options::ENABLE_MATH
        | Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_GFM
}

/// What references in the content may name besides what the content defines.
#[derive(Debug, Clone, Copy)]
pub struct Known<'a> {
    /// Keys of `content/references.bib`, if the study has one.
    pub bibliography_keys: Option<&'a [String]>,
    /// File names of the images in `content/`.
    pub assets: &'a [String],
    /// File name of the PDF in the site (`[output] pdf`).
    pub pdf: &'a str,
    /// The results, which computed tables are made of.
    pub results: &'a crate::results::ResultSet,
    /// The study's configuration.
    pub config: &'a crate::config::Config,
    /// How statistics name configurations and directions (`[data.NAME] labels`).
    pub labels: &'a crate::prose::labels::Labels,
    /// The other studies a link may lead to, by their folders (`examples/NAME/`).
    pub studies: &'a [String],
}

/// Expand the shortcodes of every page. Unknown shortcodes, statistics or
/// fields are reported at file:line:column with the names that exist.
pub fn expand(
    content: &[SourceFile],
    analysis: &Analysis,
    known: Known,
) -> Result<Document, Diagnostics> {
    let fields = fields(analysis, known.labels);
    let mut errors = Diagnostics::default();
    let mut expanded = Vec::new();
    for file in content {
        match expand_page(file, &fields, CAVEATS) {
            Ok(page) => expanded.push(page),
            Err(e) => errors.0.extend(e.0),
        }
    }
    expanded.sort_by_key(|p| {
        (p.front.order.unwrap_or(if p.slug == "index" { i64::MIN } else { 0 }), p.path.clone())
    });
    let tables = parse::Tables { results: known.results, config: known.config };
    let (mut pages, found) = parse_pages(expanded, tables, &mut errors);
    // The headline results are Table 1 (`@tbl-headline`) when there are any.
    let before = document::tables_before(&analysis.metrics);
    let targets: Vec<_> = before.iter().cloned().chain(found.tables.iter().cloned()).collect();
    if errors.is_empty() {
        let checks = [
            checks::check_references(&found.references, &found.charts, &targets),
            checks::check_citations(&found.citations, known.bibliography_keys),
            checks::check_images(&found.images, known.assets),
            checks::check_links(&found.links, &site_files(&pages, known, &found.charts)),
        ];
        for check in checks {
            if let Err(e) = check {
                errors.0.extend(e.0);
            }
        }
    }
    let warnings = checks::check_studies(&found.links, known.studies);
    let directives::Found { charts, tables, citations, computed, .. } = found;
    document::resolve(&mut pages, &charts, &targets, before.len());
    // Numbered as the captions are: after the headline table, if any.
    let limitations = limitations(analysis, known, &targets, &computed);
    let callout = parse::text(&callout(&limitations)).blocks;
    pages.iter_mut().for_each(|p| place_caveats(&mut p.body.blocks, &callout));
    let citations = citations.into_iter().map(|(keys, _)| keys).collect();
    let document = Document { pages, charts, tables, citations, computed, limitations, warnings };
    errors.into_result(document)
}

/// What `{{ caveats() }}` expands to before the parse: a comment block that
/// the reader's caveats replace once the tables they include are computed.
const CAVEATS: &str = "<!-- report: the reader's caveats -->\n";

/// The reader's caveats: the analysis's and those of the computed tables,
/// each named by its number among the captioned `tables`.
fn limitations(
    analysis: &Analysis,
    known: Known,
    tables: &[Option<String>],
    computed: &[tables::Written],
) -> Vec<crate::analysis::Limitation> {
    let numbered: Vec<(usize, &crate::analysis::metrics::tables::TableSpec)> = computed
        .iter()
        .filter_map(|w| {
            let number = tables.iter().position(|t| t.as_deref() == Some(w.id.as_str()))?;
            Some((number + 1, &w.table.spec))
        })
        .collect();
    let inputs = crate::prose::limitations::Inputs {
        metrics: &analysis.metrics,
        caveats: &crate::prose::caveats::caveats(analysis, known.labels),
        excluded: &analysis.excluded,
        tables: &numbered,
    };
    crate::prose::limitations::derive(known.config, inputs, known.labels)
}

/// Replace each [`CAVEATS`] comment among `blocks` (and the blocks they
/// hold) by the `callout`'s blocks, located at the comment and shown where
/// it is.
fn place_caveats(blocks: &mut Vec<document::Block>, callout: &[document::Block]) {
    use document::BlockKind;
    let mut i = 0;
    while i < blocks.len() {
        let block = &mut blocks[i];
        match &mut block.kind {
            BlockKind::Html(lines) if lines.iter().map(|l| l.html.as_str()).eq([CAVEATS]) => {
                let mut placed = callout.to_vec();
                locate_at(&mut placed, block.at, block.shown);
                let count = placed.len();
                blocks.splice(i..=i, placed);
                i += count;
                continue;
            }
            BlockKind::Quote { blocks, .. } | BlockKind::Footnote { blocks, .. } => {
                place_caveats(blocks, callout)
            }
            BlockKind::List(list) => {
                list.items.iter_mut().for_each(|item| place_caveats(&mut item.blocks, callout))
            }
            _ => {}
        }
        i += 1;
    }
}

/// Give `blocks`, their items and what they hold the place `at` and the
/// outputs `shown` of the block they replace.
fn locate_at(blocks: &mut [document::Block], at: usize, shown: document::Shown) {
    for block in blocks {
        (block.at, block.shown) = (at, shown);
        match &mut block.kind {
            document::BlockKind::Quote { blocks, .. } => locate_at(blocks, at, shown),
            document::BlockKind::List(list) => list.items.iter_mut().for_each(|item| {
                (item.at, item.shown) = (at, shown);
                locate_at(&mut item.blocks, at, shown);
            }),
            _ => {}
        }
    }
}

/// Parse every page, in page order, and gather what they refer to.
fn parse_pages(
    expanded: Vec<Expanded>,
    tables: parse::Tables,
    errors: &mut Diagnostics,
) -> (Vec<Page>, directives::Found) {
    let mut found = directives::Found::default();
    let mut pages = Vec::new();
    for page in expanded {
        match parse::page(&page.path, &page.markdown, &page.source_map, Some(tables)) {
            Ok((body, f)) => {
                found.charts.extend(f.charts);
                found.tables.extend(f.tables);
                found.references.extend(f.references);
                found.citations.extend(f.citations);
                found.images.extend(f.images);
                found.links.extend(f.links);
                found.computed.extend(f.computed);
                let title = (page.front.title.clone())
                    .or_else(|| body.first_heading())
                    .unwrap_or_else(|| page.slug.clone());
                let Expanded { path, slug, source_map, front, .. } = page;
                pages.push(Page { path, slug, title, body, source_map, front });
            }
            Err(e) => errors.0.extend(e.0),
        }
    }
    (pages, found)
}

/// The files a content link may point to: the pages, the images, and what
/// every build writes.
fn site_files(pages: &[Page], known: Known, charts: &[crate::charts::ChartSpec]) -> Vec<String> {
    let mut files: Vec<String> = pages
        .iter()
        .filter(|p| p.front.includes(front_matter::OutputName::Page))
        .map(Page::url)
        .collect();
    files.extend(known.assets.iter().cloned());
    files.extend([known.pdf, "data/stats.json", "data/manifest.json"].map(String::from));
    for chart in charts {
        files.push(format!("charts/{}.svg", chart.id));
        files.push(format!("data/charts/{}.csv", chart.id));
    }
    files
}

/// Every metric's fields, worded by `labels`, by metric name.
fn fields(analysis: &Analysis, labels: &crate::prose::labels::Labels) -> Fields {
    let key = |m: &crate::analysis::MetricValue| sides::key(&m.name, m.member.as_ref());
    analysis.metrics.iter().map(|m| (key(m), labels.fields(m))).collect()
}

/// The reader's caveats as a Markdown warning callout, a list of one item
/// each; empty when there are none.
fn callout(caveats: &[crate::analysis::Limitation]) -> String {
    if caveats.is_empty() {
        return String::new();
    }
    let mut text = String::from("> [!WARNING]\n");
    for caveat in caveats {
        // The caveats name environments and labels: text, never Markdown.
        text.push_str(&format!("> - {}\n", expand::escape_markdown(&caveat.text)));
    }
    text
}

/// The author's answer (`[book] answer`, at `at` in book.toml) with its
/// statistics filled in, parsed: one paragraph. A problem is reported at
/// the answer in book.toml.
pub fn answer(
    text: &str,
    analysis: &Analysis,
    labels: &crate::prose::labels::Labels,
    at: &crate::diagnostic::Location,
) -> Result<document::Body, Diagnostics> {
    let fields = fields(analysis, labels);
    match expand::expand(&at.path, text, &fields, "") {
        Ok((markdown, _)) => Ok(parse::text(&markdown)),
        Err(errors) => Err(Diagnostics(
            errors
                .0
                .into_iter()
                .map(|e| {
                    let mut moved = crate::diagnostic::Diagnostic::new(
                        at.clone(),
                        format!("[book] answer: {}", e.message),
                    );
                    moved.hint = e.hint;
                    moved
                })
                .collect(),
        )),
    }
}

fn expand_page(file: &SourceFile, fields: &Fields, caveats: &str) -> Result<Expanded, Diagnostics> {
    let (front, text) = front_matter::split(&file.path, file.text()?)?;
    let (markdown, source_map) = expand::expand(&file.path, &text, fields, caveats)?;
    Ok(Expanded { path: file.path.clone(), slug: file.stem(), markdown, source_map, front })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn fields() -> Fields {
        BTreeMap::from([(
            "tp".to_string(),
            BTreeMap::from([("value", "+8.8%".to_string()), ("full", "x".to_string())]),
        )])
    }

    fn file(text: &str) -> SourceFile {
        SourceFile::new("content/a.md", text.as_bytes().to_vec())
    }

    /// Lines after a multi-line `caveats()` callout are located on their line
    /// of the file (counted by hand).
    #[test]
    fn locations_past_a_caveats_callout_are_lines_of_the_file() {
        let text = "# T\n\n{{ caveats() }}\n\n```chart\nid = 3\n```\n\n{{ caveats() }}\n@fig-x\n";
        let page = expand_page(&file(text), &fields(), "> [!WARNING]\n> a\n>\n> b\n").unwrap();
        let err = parse::page(&page.path, &page.markdown, &page.source_map, None)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("content/a.md:6:6: chart: invalid type"), "{err}");
    }

    #[test]
    fn expands_stat_calls_below_front_matter() {
        let text = "+++\ntitle = \"F\"\n+++\n# T\n\nUp {{ stat(name=\"tp\", field=\"value\") }}.\n";
        let page = expand_page(&file(text), &fields(), "").unwrap();
        assert_eq!(page.markdown, "\n\n\n# T\n\nUp \\+8\\.8\\%.\n");
        assert_eq!(page.front.title.as_deref(), Some("F"));
        let err = expand_page(&file("+++\n+++\n{{ stat(name=\"x\") }}"), &fields(), "")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("content/a.md:3:14: unknown statistic `x`"), "{err}");
    }

    #[test]
    fn heading_attributes_and_braces_are_text() {
        let text = "# T {#t only=page}\n\nTable: x {#tbl-a} { a } {#\n";
        let page = expand_page(&file(text), &fields(), "").unwrap();
        assert_eq!(page.markdown, text);
    }
}
