//! The markdown stage: content pages with their inline statistics expanded,
//! ready for both renderers. Inline statistics use Tera:
//! `{{ stat(name="throughput_32", field="full") }}`. Chart directives and figure
//! references are collected here too ([`directives`]).

pub mod directives;
pub mod front_matter;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use tera::{Context, Tera, Value};

use crate::analysis::Analysis;
use crate::diagnostic::{Diagnostic, Diagnostics, Location, list, nearest};
use crate::format;
use crate::project::SourceFile;

/// One content page, with inline statistics replaced by their values.
#[derive(Debug, Clone)]
pub struct Page {
    /// Path relative to the study root (`content/index.md`).
    pub path: PathBuf,
    /// File stem, used for anchors and output names.
    pub slug: String,
    /// The first heading's text, or the slug.
    pub title: String,
    /// Markdown after expansion: its line numbers match the original file but
    /// past each multi-line `caveats()` callout, which `lines` accounts for.
    pub markdown: String,
    /// The line of the original file behind each line of `markdown`.
    pub lines: LineMap,
    /// Captioned tables on earlier pages, so that numbering runs on.
    pub tables_before: usize,
    /// The front matter.
    pub front: front_matter::FrontMatter,
}

/// Where the expanded Markdown's lines come from: each `caveats()` call
/// expands to a callout of several lines, which all stand for the call's line,
/// and moves the lines after it down.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineMap {
    /// Per call, in order: its line in the expanded Markdown, its line in the
    /// original file, and how many lines its expansion adds.
    calls: Vec<(usize, usize, usize)>,
}

impl LineMap {
    /// The line of the original file behind line `line` of the expanded Markdown.
    pub fn source_line(&self, line: usize) -> usize {
        let mut added = 0;
        for &(expanded, source, extra) in &self.calls {
            if line < expanded {
                break;
            }
            if line <= expanded + extra {
                return source;
            }
            added += extra;
        }
        line - added
    }

    /// The location in the original file `path` of byte `offset` of the expanded Markdown `text`.
    pub fn locate(&self, path: &std::path::Path, text: &str, offset: usize) -> Location {
        let at = Location::at_offset(path, text, offset);
        Location::new(path, self.source_line(at.line), at.column)
    }
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
}

/// The Markdown dialect both renderers parse: CommonMark with GFM tables,
/// footnotes, strikethrough, task lists and `{#id}` heading attributes.
pub fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_GFM
}

/// Fields of every metric, formatted, by metric name.
type Fields = BTreeMap<String, BTreeMap<&'static str, String>>;

/// What references in the content may name besides what the content defines.
#[derive(Debug, Clone, Copy)]
pub struct Known<'a> {
    /// Keys of `content/references.bib`, if the study has one.
    pub bibliography_keys: Option<&'a [String]>,
    /// File names of the images in `content/`.
    pub assets: &'a [String],
    /// File name of the PDF in the site (`[output] pdf`).
    pub pdf: &'a str,
}

/// Expand the inline statistics of every page. Unknown statistics or fields are
/// reported at file:line:column with the names that exist.
pub fn expand(
    content: &[SourceFile],
    analysis: &Analysis,
    known: Known,
) -> Result<Document, Diagnostics> {
    let fields: Fields =
        analysis.metrics.iter().map(|m| (m.name.clone(), format::metric_fields(m))).collect();
    let caveats = callout(&analysis.caveats);
    let mut errors = Diagnostics::default();
    let mut pages = Vec::new();
    for file in content {
        match expand_page(file, &fields, &caveats) {
            Ok(page) => pages.push(page),
            Err(e) => errors.0.extend(e.0),
        }
    }
    pages.sort_by_key(|p| {
        (p.front.order.unwrap_or(if p.slug == "index" { i64::MIN } else { 0 }), p.path.clone())
    });
    let mut found = directives::Found::default();
    for page in &mut pages {
        page.tables_before = found.tables.len();
        match directives::scan(&page.path, &page.markdown, &page.lines) {
            Ok(f) => {
                found.charts.extend(f.charts);
                found.tables.extend(f.tables);
                found.references.extend(f.references);
                found.citations.extend(f.citations);
                found.images.extend(f.images);
                found.links.extend(f.links);
            }
            Err(e) => errors.0.extend(e.0),
        }
    }
    if errors.is_empty() {
        let checks = [
            directives::check_references(&found.references, &found.charts, &found.tables),
            directives::check_citations(&found.citations, known.bibliography_keys),
            directives::check_images(&found.images, known.assets),
            directives::check_links(&found.links, &site_files(&pages, known, &found.charts)),
        ];
        for check in checks {
            if let Err(e) = check {
                errors.0.extend(e.0);
            }
        }
    }
    let directives::Found { charts, tables, citations, .. } = found;
    let citations = citations.into_iter().map(|(keys, _)| keys).collect();
    errors.into_result(Document { pages, charts, tables, citations })
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

/// The caveats as a Markdown warning callout, one paragraph each.
fn callout(caveats: &[crate::analysis::Caveat]) -> String {
    let mut text = String::from("> [!WARNING]\n");
    for (i, caveat) in caveats.iter().enumerate() {
        if i > 0 {
            text.push_str(">\n");
        }
        text.push_str(&format!("> {}\n", caveat.text));
    }
    text
}

fn expand_page(file: &SourceFile, fields: &Fields, caveats: &str) -> Result<Page, Diagnostics> {
    let (front, text) = front_matter::split(&file.path, file.text()?)?;
    let text = text.as_str();
    check_calls(file, text, fields)?;
    let mut tera = Tera::default();
    let name = file.path.display().to_string();
    tera.register_function("stat", StatFunction(fields.clone()));
    let callout = caveats.to_string();
    tera.register_function("caveats", move |_: &HashMap<String, Value>| {
        Ok(Value::String(callout.clone()))
    });
    // `{#` opens heading attributes (`# Title {#id}`) in Markdown but a comment
    // in Tera: hide it from Tera, with a placeholder of the same length so that
    // error positions stay right.
    let protected = text.replace("{#", ATTRIBUTE_OPEN);
    let rendered = tera
        .add_raw_template(&name, &protected)
        .and_then(|_| tera.render(&name, &Context::new()))
        .map_err(|err| tera_error(file, &err))?
        .replace(ATTRIBUTE_OPEN, "{#");
    let slug = file.stem();
    let title =
        front.title.clone().or_else(|| first_heading(&rendered)).unwrap_or_else(|| slug.clone());
    let lines = line_map(text, caveats);
    Ok(Page {
        path: file.path.clone(),
        slug,
        title,
        markdown: rendered,
        lines,
        tables_before: 0,
        front,
    })
}

/// The [`LineMap`] of `text` once each `{{ caveats() }}` is replaced by `callout`.
fn line_map(text: &str, callout: &str) -> LineMap {
    let extra = callout.matches('\n').count();
    let mut calls = Vec::new();
    let mut from = 0;
    while let Some(open) = text[from..].find("{{").map(|i| i + from) {
        let close = text[open..].find("}}").map_or(text.len(), |i| i + open);
        if text[open..close].contains("caveats(") {
            let source = text[..open].matches('\n').count() + 1;
            let added: usize = calls.iter().map(|&(_, _, extra)| extra).sum();
            calls.push((source + added, source, extra));
        }
        from = close;
    }
    LineMap { calls }
}

/// Stands for `{#` while Tera renders a page (two bytes, like `{#`).
const ATTRIBUTE_OPEN: &str = "\u{1}\u{2}";

/// The `stat(...)` Tera function.
struct StatFunction(Fields);

impl tera::Function for StatFunction {
    fn call(&self, args: &HashMap<String, Value>) -> tera::Result<Value> {
        let name = args.get("name").and_then(Value::as_str).ok_or("stat() needs name=\"...\"")?;
        let field = args.get("field").and_then(Value::as_str).unwrap_or("full");
        let metric = self.0.get(name).ok_or_else(|| format!("unknown statistic `{name}`"))?;
        let value =
            metric.get(field).ok_or_else(|| format!("unknown field `{field}` of `{name}`"))?;
        Ok(Value::String(value.clone()))
    }

    fn is_safe(&self) -> bool {
        true
    }
}

/// Check every `stat(name=..., field=...)` call before rendering, so each bad
/// reference is reported at its own line and column.
fn check_calls(file: &SourceFile, text: &str, fields: &Fields) -> Result<(), Diagnostics> {
    let mut errors = Diagnostics::default();
    for (offset, args) in stat_calls(text) {
        let at = |key: &str| {
            let shift = args.get(key).map_or(0, |(o, _)| *o);
            Location::at_offset(&file.path, text, offset + shift)
        };
        let Some((_, name)) = args.get("name") else {
            errors.push(
                Diagnostic::new(at(""), "stat() without a name")
                    .hint("write stat(name=\"...\", field=\"...\")"),
            );
            continue;
        };
        let Some(metric) = fields.get(name) else {
            let names = list(fields.keys().map(String::as_str));
            let hint = match nearest(name, fields.keys().map(String::as_str)) {
                Some(best) => format!(
                    "did you mean `{best}`? the statistics are the [[metrics]] of book.toml: {names}"
                ),
                None => format!("the statistics are the [[metrics]] of book.toml: {names}"),
            };
            errors.push(
                Diagnostic::new(at("name"), format!("unknown statistic `{name}`")).hint(hint),
            );
            continue;
        };
        if let Some((_, field)) = args.get("field")
            && !metric.contains_key(field.as_str())
        {
            errors.push(
                Diagnostic::new(
                    at("field"),
                    format!("unknown field `{field}` of statistic `{name}`"),
                )
                .hint(format!("fields: {}", list(metric.keys().copied()))),
            );
        }
    }
    errors.into_result(())
}

/// Arguments of one call: name → (offset of the value relative to the call, value).
type Args = BTreeMap<String, (usize, String)>;

/// Every `stat(` call inside `{{ }}`: its offset and its `key="value"` arguments
/// (with each value's offset relative to the call).
fn stat_calls(text: &str) -> Vec<(usize, Args)> {
    let mut calls = Vec::new();
    let mut from = 0;
    while let Some(open) = text[from..].find("{{").map(|i| i + from) {
        let close = text[open..].find("}}").map_or(text.len(), |i| i + open);
        let inner = &text[open..close];
        let mut search = 0;
        while let Some(call) = inner[search..].find("stat(").map(|i| i + search) {
            let args_end = inner[call..].find(')').map_or(inner.len(), |i| i + call);
            calls.push((open + call, parse_args(&inner[call + 5..args_end], 5)));
            search = args_end;
        }
        from = close.max(open + 2);
    }
    calls
}

fn parse_args(args: &str, base: usize) -> Args {
    let mut out = BTreeMap::new();
    for part in args.split(',') {
        let Some((key, value)) = part.split_once('=') else { continue };
        let value_start =
            part.find('=').map_or(0, |i| i + 1) + (value.len() - value.trim_start().len());
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
        let part_start = args.find(part).unwrap_or(0);
        out.insert(key.trim().to_string(), (base + part_start + value_start, value.to_string()));
    }
    out
}

/// A Tera error in a content file as a located diagnostic.
fn tera_error(file: &SourceFile, err: &tera::Error) -> Diagnostics {
    let (line, column, message) = crate::diagnostic::tera_error_parts(err);
    Diagnostic::new(Location::new(&file.path, line.max(1), column), format!("in inline template: {message}"))
        .hint("inline statistics are written {{ stat(name=\"...\", field=\"...\") }}; to show `{{` literally, wrap the text in {% raw %}...{% endraw %}")
        .into()
}

/// The plain text of the first paragraph of `markdown`: the abstract of a paper
/// whose book.toml has none.
pub fn first_paragraph(markdown: &str) -> Option<String> {
    let mut text: Option<String> = None;
    for event in Parser::new_ext(markdown, options()) {
        match event {
            Event::Start(Tag::Paragraph) => text = Some(String::new()),
            Event::End(TagEnd::Paragraph)
                if text.as_ref().is_some_and(|t| !t.trim().is_empty()) =>
            {
                return text;
            }
            Event::Text(t) | Event::Code(t) => text.iter_mut().for_each(|x| x.push_str(&t)),
            Event::SoftBreak | Event::HardBreak => text.iter_mut().for_each(|x| x.push(' ')),
            _ => {}
        }
    }
    None
}

/// The plain text of the first heading of `markdown`.
fn first_heading(markdown: &str) -> Option<String> {
    let mut title = None;
    for event in Parser::new_ext(markdown, options()) {
        match event {
            Event::Start(Tag::Heading { .. }) => title = Some(String::new()),
            Event::End(TagEnd::Heading(_)) if title.is_some() => return title,
            Event::Text(t) | Event::Code(t) => {
                if let Some(title) = &mut title {
                    title.push_str(&t);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields() -> Fields {
        BTreeMap::from([(
            "tp".to_string(),
            BTreeMap::from([("value", "+8.8%".to_string()), ("full", "x".to_string())]),
        )])
    }

    fn file(text: &str) -> SourceFile {
        SourceFile::new("content/a.md", text.as_bytes().to_vec())
    }

    fn expand_page_plain(file: &SourceFile, fields: &Fields) -> Result<Page, Diagnostics> {
        expand_page(file, fields, "")
    }

    /// Lines after a multi-line `caveats()` callout are located on their line
    /// of the file, and the callout's lines on the call's line (counted by hand).
    #[test]
    fn locations_past_a_caveats_callout_are_lines_of_the_file() {
        let text = "# T\n\n{{ caveats() }}\n\n```chart\nid = 3\n```\n\n{{ caveats() }}\n@fig-x\n";
        let page = expand_page(&file(text), &fields(), "> [!WARNING]\n> a\n>\n> b\n").unwrap();
        let err =
            directives::scan(&page.path, &page.markdown, &page.lines).unwrap_err().to_string();
        assert!(err.starts_with("content/a.md:6:6: chart: invalid type"), "{err}");
        let expanded: Vec<usize> =
            (1..=page.markdown.lines().count()).map(|l| page.lines.source_line(l)).collect();
        assert_eq!(expanded, [1, 2, 3, 3, 3, 3, 3, 4, 5, 6, 7, 8, 9, 9, 9, 9, 9, 10]);
    }

    #[test]
    fn first_paragraph_is_plain_text() {
        assert_eq!(first_paragraph("# T\n\nA *b* `c`\nd.\n\nNext.").as_deref(), Some("A b c d."));
        assert_eq!(first_paragraph("# Only a heading"), None);
    }

    #[test]
    fn expands_stat_calls() {
        let page = expand_page_plain(
            &file("# T\n\nUp {{ stat(name=\"tp\", field=\"value\") }}.\n"),
            &fields(),
        )
        .unwrap();
        assert_eq!(page.markdown, "# T\n\nUp +8.8%.\n");
        assert_eq!(page.title, "T");
    }

    #[test]
    fn unknown_statistic_is_located_and_lists_names() {
        let err = expand_page_plain(&file("a\nb {{ stat(name=\"tq\") }}\n"), &fields())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("content/a.md:2:16: unknown statistic `tq`"), "{err}");
        assert!(err.contains("did you mean `tp`?"), "{err}");
    }

    #[test]
    fn unknown_field_lists_fields() {
        let err = expand_page_plain(&file("{{ stat(name=\"tp\", field=\"delta\") }}"), &fields())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("content/a.md:1:26: unknown field `delta`"), "{err}");
        assert!(err.contains("`full`, `value`"), "{err}");
    }

    #[test]
    fn heading_attributes_are_not_tera_comments() {
        let page = expand_page_plain(&file("# T {#t only=page}\n\nTable: x {#tbl-a}\n"), &fields())
            .unwrap();
        assert_eq!(page.markdown, "# T {#t only=page}\n\nTable: x {#tbl-a}\n");
    }

    #[test]
    fn tera_syntax_errors_are_located() {
        let err = expand_page_plain(&file("ok\n{{ stat(name=\"tp\" }}\n"), &fields())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("content/a.md:2:"), "{err}");
    }
}
