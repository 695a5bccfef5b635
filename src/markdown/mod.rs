//! The markdown stage: each content page parsed once ([`parse`]) into the
//! resolved [`document`], a tree of blocks and inlines that both renderers
//! walk: shortcodes (`{{ stat(name="throughput_32", field="full") }}`,
//! `{{ caveats() }}`; see [`shortcodes`] and [`expand`](mod@expand)), directives,
//! numbered figures and tables, cross-references, citations and links to
//! other studies resolved from that one parse.

pub mod changes;
pub mod checks;
pub mod directives;
pub mod document;
pub mod expand;
pub mod facts;
pub mod front_matter;
#[cfg(test)]
pub(crate) mod generate;
#[cfg(test)]
mod oracle;
pub mod parse;
pub mod readers;
pub mod shortcodes;
pub mod tables;
pub mod typed;

use std::path::PathBuf;

use pulldown_cmark::Options;

pub use expand::SourceMap;
use expand::{Fields, Shortcodes};

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
    /// The page's content, parsed once from its file; its offsets are
    /// bytes of the file.
    pub body: document::Body,
    /// The file's text, to locate those offsets.
    pub source_map: SourceMap,
    /// The front matter.
    pub front: front_matter::FrontMatter,
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
    /// Every link of the pages as written, with where it is, in document
    /// order: a site of studies resolves those to other studies.
    pub links: Vec<(String, crate::diagnostic::Location)>,
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
#[derive(Clone, Copy)]
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
    /// Whether a folder a link leads to (`examples/NAME/`, `../`, relative
    /// to the study) is another study: holds a book.toml.
    pub studies: &'a dyn Fn(&str) -> bool,
}

/// Parse every page, once each, with its shortcodes expanded. Unknown
/// shortcodes, statistics or fields are reported at file:line:column with
/// the names that exist.
pub fn expand(
    content: &[SourceFile],
    analysis: &Analysis,
    known: Known,
) -> Result<Document, Diagnostics> {
    let fields = fields(analysis, known.labels);
    let facts = facts::Facts { analysis, labels: known.labels, config: known.config };
    let shortcodes = Shortcodes { fields: &fields, caveats: true, facts: Some(facts) };
    let tables = parse::Tables {
        results: known.results,
        config: known.config,
        history: analysis.history.as_ref(),
    };
    let mut errors = Diagnostics::default();
    let mut parsed = Vec::new();
    for file in content {
        match parse_page(file, shortcodes, tables) {
            Ok(page) => parsed.push(page),
            Err(e) => errors.0.extend(e.0),
        }
    }
    parsed.sort_by_key(|(p, _)| {
        (p.front.order.unwrap_or(if p.slug == "index" { i64::MIN } else { 0 }), p.path.clone())
    });
    let (mut pages, found) = gather(parsed);
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
    let mut warnings = checks::check_studies(&found.links, known.studies);
    let links = found.links.clone();
    let directives::Found { charts, tables, citations, computed, caveats_elsewhere, typed, .. } =
        found;
    warnings.extend(typed);
    document::resolve(&mut pages, &charts, &targets, before.len());
    // Numbered as the captions are: after the headline table, if any.
    let limitations = limitations(analysis, known, &targets, &computed);
    errors.0.extend(check_caveats_elsewhere(&caveats_elsewhere, !limitations.is_empty()).0);
    let callout = callout(limitations.iter().map(|c| c.text.as_str()));
    pages.iter_mut().for_each(|p| place_caveats(&mut p.body.blocks, &callout));
    let citations = citations.into_iter().map(|(keys, _)| keys).collect();
    let document =
        Document { pages, charts, tables, citations, computed, limitations, warnings, links };
    errors.into_result(document)
}

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
        findings: &analysis.caveats,
    };
    crate::prose::limitations::derive(known.config, inputs, known.labels)
}

/// Replace each [`CAVEATS`](expand::CAVEATS) marker among `blocks` (and the blocks they
/// hold) by the `callout`'s blocks, located at the comment and shown where
/// it is.
fn place_caveats(blocks: &mut Vec<document::Block>, callout: &[document::Block]) {
    use document::BlockKind;
    let mut i = 0;
    while i < blocks.len() {
        let block = &mut blocks[i];
        match &mut block.kind {
            BlockKind::Html(lines)
                if lines.iter().map(|l| l.html.as_str()).eq([expand::CAVEATS]) =>
            {
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

/// The reader's caveats as a warning callout, a tight list of one item
/// each, made as blocks (the caveats name environments and labels: text,
/// never Markdown); none when there are none. Located by [`place_caveats`].
fn callout<'a>(caveats: impl IntoIterator<Item = &'a str>) -> Vec<document::Block> {
    use document::{Block, BlockKind, Inline, Shown};
    let block = |kind| Block { at: 0, shown: Shown::BOTH, kind };
    let items: Vec<_> = caveats
        .into_iter()
        .map(|caveat| {
            let text = caveat.trim();
            let plain =
                (!text.is_empty()).then(|| BlockKind::Plain(vec![Inline::Text(text.into())]));
            let blocks = plain.map(block).into_iter().collect();
            document::ListItem { at: 0, shown: Shown::BOTH, blocks }
        })
        .collect();
    if items.is_empty() {
        return Vec::new();
    }
    let list = block(BlockKind::List(document::List { start: None, tight: true, items }));
    let alert = Some(pulldown_cmark::BlockQuoteKind::Warning);
    vec![block(BlockKind::Quote { alert, blocks: vec![list] })]
}

/// An error at each `{{ caveats() }}` that stands elsewhere than alone in
/// a paragraph (`at`), if there are caveats to show; without, such a call
/// is nothing.
fn check_caveats_elsewhere(at: &[crate::diagnostic::Location], caveats: bool) -> Diagnostics {
    let mut errors = Diagnostics::default();
    for location in at.iter().filter(|_| caveats) {
        let message = "`caveats()` writes a callout of its own";
        let hint = "write {{ caveats() }} alone on its line, with a blank line before and after it";
        errors.push(crate::diagnostic::Diagnostic::new(location.clone(), message).hint(hint));
    }
    errors
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

/// The pages, in page order, and what they refer to, gathered in that order.
fn gather(parsed: Vec<(Page, directives::Found)>) -> (Vec<Page>, directives::Found) {
    let mut found = directives::Found::default();
    let mut pages = Vec::with_capacity(parsed.len());
    for (page, f) in parsed {
        found.charts.extend(f.charts);
        found.tables.extend(f.tables);
        found.references.extend(f.references);
        found.citations.extend(f.citations);
        found.images.extend(f.images);
        found.links.extend(f.links);
        found.computed.extend(f.computed);
        found.caveats_elsewhere.extend(f.caveats_elsewhere);
        found.typed.extend(f.typed);
        pages.push(page);
    }
    (pages, found)
}

/// The page of `file`, parsed once with its shortcodes expanded, and what
/// it refers to.
fn parse_page(
    file: &SourceFile,
    shortcodes: Shortcodes,
    tables: parse::Tables,
) -> Result<(Page, directives::Found), Diagnostics> {
    let (front, text) = front_matter::split(&file.path, file.text()?)?;
    let (body, found) = parse::page(&file.path, &text, Some(shortcodes), Some(tables))?;
    let slug = file.stem();
    let title = (front.title.clone()).or_else(|| body.first_heading()).unwrap_or(slug.clone());
    let source_map = SourceMap::identity(&text);
    Ok((Page { path: file.path.clone(), slug, title, body, source_map, front }, found))
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

/// A warning at each percentage or ratio in the label or definition of
/// a headline metric (a card) that no statistic of the study equals
/// ([`typed::unbacked`]), at its value in book.toml.
pub fn cards(
    analysis: &Analysis,
    labels: &crate::prose::labels::Labels,
    config: &crate::config::Config,
) -> Vec<crate::diagnostic::Diagnostic> {
    let printed = typed::printed(&fields(analysis, labels));
    let mut warnings = Vec::new();
    for metric in config.metrics.iter().filter(|m| m.headline) {
        let texts = [("label", Some(&metric.label)), ("definition", metric.definition.as_ref())];
        for (key, text) in texts {
            let Some(text) = text else { continue };
            for number in typed::unbacked(text, 0..text.len(), &printed) {
                let at = metric.at.or(key, &crate::diagnostic::Location::file("book.toml"));
                let typed = &text[number.span];
                let message = format!(
                    "`{typed}` in the {key} of the card `{}` is a figure no computation backs",
                    metric.name
                );
                let hint = "a card's figures are computed: state the number in prose with \
                            {{ stat(...) }}, or leave it out of the label and definition";
                warnings.push(crate::diagnostic::Diagnostic::new(at, message).hint(hint));
            }
        }
    }
    warnings
}

/// The author's answer (`[book] answer`, at `at` in book.toml) with its
/// statistics filled in, parsed: one paragraph, and the warnings of the
/// numbers typed into it. A problem is reported at the answer in book.toml.
pub fn answer(
    text: &str,
    analysis: &Analysis,
    (labels, config): (&crate::prose::labels::Labels, &crate::config::Config),
    at: &crate::diagnostic::Location,
) -> Result<(document::Body, Vec<crate::diagnostic::Diagnostic>), Diagnostics> {
    let fields = fields(analysis, labels);
    let facts = facts::Facts { analysis, labels, config };
    let shortcodes = Shortcodes { fields: &fields, caveats: false, facts: Some(facts) };
    let moved = |message: String, hint: Option<String>| {
        let mut moved =
            crate::diagnostic::Diagnostic::new(at.clone(), format!("[book] answer: {message}"));
        moved.hint = hint;
        moved
    };
    match parse::with_shortcodes(text, shortcodes) {
        Ok((body, typed)) => {
            Ok((body, typed.into_iter().map(|(m, h)| moved(m, Some(h))).collect()))
        }
        Err(errors) => {
            Err(Diagnostics(errors.0.into_iter().map(|e| moved(e.message, e.hint)).collect()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Location;
    use std::collections::BTreeMap;
    use std::path::Path;

    fn fields() -> Fields {
        BTreeMap::from([(
            "tp".to_string(),
            BTreeMap::from([("value", "+8.8%".to_string()), ("full", "x".to_string())]),
        )])
    }

    /// `text` as the page content/a.md.
    fn page(text: &str) -> Result<(Page, directives::Found), String> {
        let fields = fields();
        let shortcodes = Shortcodes { fields: &fields, caveats: true, facts: None };
        let (front, text) = front_matter::split(Path::new("content/a.md"), text).unwrap();
        let path = Path::new("content/a.md");
        let (body, found) =
            parse::page(path, &text, Some(shortcodes), None).map_err(|e| e.to_string())?;
        let (slug, title, source_map) = ("a".into(), String::new(), SourceMap::identity(&text));
        Ok((Page { path: path.into(), slug, title, body, source_map, front }, found))
    }

    /// Lines after a multi-line `caveats()` callout are located on their line
    /// of the file (counted by hand).
    #[test]
    fn locations_past_a_caveats_callout_are_lines_of_the_file() {
        let text = "# T\n\n{{ caveats() }}\n\n```chart\nid = 3\n```\n\n{{ caveats() }}\n\n@fig-x\n";
        let err = page(text).unwrap_err();
        assert!(err.starts_with("content/a.md:6:6: chart: invalid type"), "{err}");
    }

    #[test]
    fn expands_stat_calls_below_front_matter() {
        let text = "+++\ntitle = \"F\"\n+++\n# T\n\nUp {{ stat(name=\"tp\", field=\"value\") }}.\n";
        let (page, _) = page(text).unwrap();
        assert_eq!(page.body.first_paragraph().as_deref(), Some("Up +8.8%."));
        assert_eq!(page.front.title.as_deref(), Some("F"));
        let err = super::tests::page("+++\n+++\n{{ stat(name=\"x\") }}").unwrap_err();
        assert!(err.starts_with("content/a.md:3:14: unknown statistic `x`"), "{err}");
    }

    /// A reference after a statistic, an escape or an entity on its line is
    /// located at its own column (counted by hand), not shifted by the
    /// value's length.
    #[test]
    fn references_after_a_statistic_are_located_at_their_bytes() {
        let text = "# T\n\nUp {{ stat(name=\"tp\", field=\"full\") }} \\* &amp; @fig-x and [@k].\n";
        let (_, found) = page(text).unwrap();
        assert_eq!(found.references[0].2, Location::new("content/a.md", 3, 49));
        assert_eq!(found.citations[0].1, Location::new("content/a.md", 3, 60));
    }

    /// A `caveats()` that does not stand alone in its paragraph is nothing
    /// without caveats, and an error at the call (line and column counted
    /// by hand) with them; alone it leaves the marker the callout replaces.
    #[test]
    fn caveats_elsewhere_are_refused_when_there_are_caveats() {
        let text = "# T\n\nSee {{ caveats() }}.\n\n{{ caveats() }}\n";
        let (page, found) = page(text).unwrap();
        let at = Location::new("content/a.md", 3, 5);
        assert_eq!(found.caveats_elsewhere, [at]);
        assert!(check_caveats_elsewhere(&found.caveats_elsewhere, false).is_empty());
        let err = check_caveats_elsewhere(&found.caveats_elsewhere, true).to_string();
        assert!(err.starts_with("content/a.md:3:5: `caveats()` writes a callout"), "{err}");
        let mut blocks = page.body.blocks;
        assert!(
            matches!(&blocks[2].kind, document::BlockKind::Html(l) if l[0].html == expand::CAVEATS)
        );
        place_caveats(&mut blocks, &callout(["A *b*.", " C "]));
        let written = parse::text("# T\n\nSee .\n\n> [!WARNING]\n> - A \\*b\\*.\n> - C\n");
        let mut expected = written.blocks;
        locate_at(&mut expected[2..], blocks[2].at, blocks[2].shown);
        assert_eq!(blocks, expected);
    }

    #[test]
    fn heading_attributes_and_braces_are_text() {
        let text = "# T {#t only=page}\n\nTable: x {#tbl-a} { a } {#\n";
        assert_eq!(page(text).unwrap().0.body, parse::text(text));
    }

    /// Every page of the shipped study is parsed by pulldown-cmark once:
    /// its shortcodes (statistics, the caveats), chart directives and its
    /// link to the other shipped study all come from that one parse.
    #[test]
    fn each_page_is_parsed_once() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let project = crate::project::load(root).unwrap();
        let analyzed = crate::pipeline::analyze(&project).unwrap();
        let config = &project.config;
        let labels = crate::prose::labels::Labels::new(config);
        let asked = std::cell::RefCell::new(Vec::new());
        let studies = |folder: &str| {
            asked.borrow_mut().push(folder.to_string());
            project.is_study(folder)
        };
        let bibliography = crate::references::load(project.bibliography.as_ref()).unwrap();
        let keys = bibliography.as_ref().map(crate::references::Bibliography::keys);
        let assets: Vec<String> = project
            .assets
            .iter()
            .map(|a| a.path.file_name().unwrap().to_string_lossy().into())
            .collect();
        let known = Known {
            bibliography_keys: keys.as_deref(),
            assets: &assets,
            pdf: "paper.pdf",
            results: &analyzed.results,
            config,
            labels: &labels,
            studies: &studies,
        };
        let before = parse::parses();
        let document = expand(&project.content, &analyzed.analysis, known).unwrap();
        assert_eq!(parse::parses() - before, project.content.len());
        assert!(document.warnings.is_empty(), "{:?}", document.warnings);
        assert!(asked.borrow().contains(&"examples/usernetes/".to_string()), "{asked:?}");
    }
}
