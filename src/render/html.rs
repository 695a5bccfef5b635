//! The web page: Markdown to HTML with pulldown-cmark, laid out by a Tera template
//! (`templates/page.html`, or the built-in default).

use pulldown_cmark::{CodeBlockKind, Event, Tag, TagEnd, html};
use serde::Serialize;
use tera::{Context, Tera};

use super::BookView;
use crate::diagnostic::{Diagnostic, Diagnostics, Location};
use crate::charts::svg::escape;
use crate::charts::{Chart, ChartSet};
use crate::markdown::Document;
use crate::markdown::directives::{self, Segment};
use crate::project::SourceFile;

/// The built-in page template.
pub const DEFAULT_TEMPLATE: &str = include_str!("../defaults/page.html");

/// One rendered content page.
#[derive(Debug, Clone, Serialize)]
pub struct PageView {
    /// File stem.
    pub slug: String,
    /// Title.
    pub title: String,
    /// The page's HTML body.
    pub html: String,
}

/// What cross-references resolve against: the charts and the captioned tables
/// of the whole document.
#[derive(Debug, Clone, Copy)]
pub struct Refs<'a> {
    /// Every chart.
    pub charts: &'a ChartSet,
    /// Ids of every captioned table, in document order.
    pub tables: &'a [Option<String>],
    /// Captioned tables on earlier pages.
    pub tables_before: usize,
    /// Formatted citations by the keys cited together.
    pub citations: &'a std::collections::BTreeMap<Vec<String>, String>,
}

impl Refs<'static> {
    /// No charts, tables or citations: for rendering Markdown on its own.
    pub fn none() -> Self {
        static CHARTS: std::sync::OnceLock<ChartSet> = std::sync::OnceLock::new();
        static CITATIONS: std::collections::BTreeMap<Vec<String>, String> = std::collections::BTreeMap::new();
        Refs { charts: CHARTS.get_or_init(ChartSet::default), tables: &[], tables_before: 0, citations: &CITATIONS }
    }
}

impl Refs<'_> {
    fn table_number(&self, id: &str) -> usize {
        self.tables.iter().position(|t| t.as_deref() == Some(id)).map_or(0, |i| i + 1)
    }
}

/// Markdown to HTML, with headings one level down (the page title is the
/// `<h1>`), chart blocks replaced by their figures, captioned tables numbered,
/// and `@fig-ID` / `@tbl-ID` replaced by links.
pub fn to_html(source: &str, refs: Refs) -> String {
    let all = directives::for_output(directives::events(source), directives::Output::Page);
    let captions = directives::table_captions(&all);
    let mut events = Vec::new();
    let mut chart: Option<String> = None;
    let mut tables = refs.tables_before;
    let mut caption_end: Option<String> = None;
    for (i, (event, _)) in all.into_iter().enumerate() {
        if captions.iter().any(|c| c.skip.contains(&i)) {
            continue;
        }
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang))) if lang.as_ref() == "chart" => chart = Some(String::new()),
            Event::Text(text) if chart.is_some() => chart.as_mut().map(|c| c.push_str(&text)).unwrap_or_default(),
            Event::End(TagEnd::CodeBlock) if chart.is_some() => {
                let body = chart.take().unwrap_or_default();
                let figure = directives::chart_id(&body).and_then(|id| refs.charts.get(&id)).map(figure).unwrap_or_default();
                events.push(Event::Html(figure.into()));
            }
            Event::Start(Tag::Table(alignments)) => {
                if let Some(c) = captions.iter().find(|c| c.start == i) {
                    tables += 1;
                    let id = c.id.as_ref().map(|id| format!(" id=\"tbl-{}\"", escape(id))).unwrap_or_default();
                    events.push(Event::Html(format!("<figure class=\"table\"{id}>\n<figcaption><span class=\"table-number\">Table {tables}.</span> {}</figcaption>\n", escape(&c.caption)).into()));
                    caption_end = Some("</figure>\n".into());
                }
                events.push(Event::Start(Tag::Table(alignments)));
            }
            Event::End(TagEnd::Table) => {
                events.push(Event::End(TagEnd::Table));
                if let Some(end) = caption_end.take() {
                    events.push(Event::Html(end.into()));
                }
            }
            Event::Start(Tag::Heading { level, id, classes, .. }) => {
                events.push(Event::Start(Tag::Heading { level: demote(level), id, classes, attrs: Vec::new() }));
            }
            Event::End(TagEnd::Heading(level)) => events.push(Event::End(TagEnd::Heading(demote(level)))),
            Event::Text(text) => events.extend(directives::split(&text).into_iter().map(|s| segment(s, &refs))),
            other => events.push(other),
        }
    }
    let mut out = String::new();
    html::push_html(&mut out, events.into_iter());
    out
}

/// Prose text, or the HTML of a cross-reference or citation.
fn segment(segment: Segment, refs: &Refs) -> Event<'static> {
    match segment {
        Segment::Text(t) => Event::Text(t.to_string().into()),
        Segment::Figure(id) => {
            let number = refs.charts.get(id).map_or(0, |c| c.number);
            Event::InlineHtml(format!("<a class=\"xref\" href=\"#fig-{id}\">Figure {number}</a>").into())
        }
        Segment::Table(id) => {
            let number = refs.table_number(id);
            Event::InlineHtml(format!("<a class=\"xref\" href=\"#tbl-{id}\">Table {number}</a>").into())
        }
        Segment::Cite(keys) => {
            let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
            let text = refs.citations.get(&keys).cloned().unwrap_or_default();
            Event::InlineHtml(format!("<a class=\"citation\" href=\"#ref-{}\">{text}</a>", escape(&keys[0])).into())
        }
    }
}

/// The figure of a chart: inline SVG, numbered caption, data table and CSV link.
fn figure(chart: &Chart) -> String {
    let id = &chart.spec.id;
    let caption = chart.spec.caption.as_deref().map(escape).unwrap_or_default();
    let mut table = String::from("<table>\n");
    for (i, row) in chart.table.iter().enumerate() {
        let cell = if i == 0 { "th" } else { "td" };
        table.push_str("<tr>");
        for value in row {
            table.push_str(&format!("<{cell}>{}</{cell}>", escape(value)));
        }
        table.push_str("</tr>\n");
    }
    table.push_str("</table>");
    format!(
        "<figure class=\"chart\" id=\"fig-{id}\">\n{}<figcaption><span class=\"figure-number\">Figure {}.</span> {caption}</figcaption>\n\
         <details><summary>Data behind Figure {}</summary>\n{table}\n<p><a href=\"data/charts/{id}.csv\" download>Download the data (CSV)</a></p></details>\n</figure>\n",
        chart.svg, chart.number, chart.number
    )
}

fn demote(level: pulldown_cmark::HeadingLevel) -> pulldown_cmark::HeadingLevel {
    use pulldown_cmark::HeadingLevel::*;
    match level {
        H1 => H2,
        H2 => H3,
        H3 => H4,
        H4 => H5,
        _ => H6,
    }
}

/// Render `index.html`.
pub fn render(
    document: &Document, charts: &ChartSet, cited: &crate::references::Formatted, book: &BookView, template: Option<&SourceFile>,
) -> Result<String, Diagnostics> {
    let refs = |page: &crate::markdown::Page| Refs {
        charts, tables: &document.tables, tables_before: page.tables_before, citations: &cited.citations,
    };
    let (name, text) = match template {
        Some(file) => (file.path.display().to_string(), file.text()?.to_string()),
        None => ("page.html (built-in)".to_string(), DEFAULT_TEMPLATE.to_string()),
    };
    let pages: Vec<PageView> = document
        .pages
        .iter()
        .map(|p| PageView { slug: p.slug.clone(), title: p.title.clone(), html: to_html(&p.markdown, refs(p)) })
        .collect();
    let mut context = Context::new();
    context.insert("book", book);
    context.insert("pages", &pages);
    let mut tera = Tera::default();
    tera.autoescape_on(vec![".html", "page.html (built-in)"]);
    tera.add_raw_template(&name, &text)
        .and_then(|_| tera.render(&name, &context))
        .map_err(|err| template_error(&name, &err))
}

/// A Tera error in the page template, located where Tera says.
fn template_error(name: &str, err: &tera::Error) -> Diagnostics {
    let (line, column, message) = crate::diagnostic::tera_error_parts(err);
    Diagnostic::new(Location::new(name, line, column), format!("page template: {message}"))
        .hint("fix the template, or delete templates/page.html to use the built-in one")
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_move_down_one_level() {
        assert_eq!(to_html("# A\n\n## B\n", Refs::none()), "<h2>A</h2>\n<h3>B</h3>\n");
    }

    #[test]
    fn raw_text_is_escaped() {
        assert_eq!(to_html("a < b & c", Refs::none()), "<p>a &lt; b &amp; c</p>\n");
    }
}
