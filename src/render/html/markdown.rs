//! Markdown to HTML with pulldown-cmark: chart figures (grouped into a
//! dashboard grid), numbered tables, cross-references, citations, heading
//! anchors and the environments block.

use std::collections::BTreeMap;

use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Tag, TagEnd, html};

use super::super::Refs;
use super::urls;
use crate::charts::Chart;
use crate::charts::svg::escape;
use crate::markdown::directives::{self, Segment, TableCaption};
use crate::markdown::sections;

/// Markdown to HTML, with headings one level down (the page title is the
/// `<h1>`), every heading anchored, chart blocks replaced by their figures,
/// captioned tables numbered, and references and citations resolved.
pub fn to_html(source: &str, refs: Refs) -> String {
    let all = sections::for_output(directives::events(source), sections::Output::Page);
    let mut page = Page {
        captions: directives::table_captions(&all),
        anchors: anchors(&all),
        refs,
        events: Vec::new(),
        block: None,
        tables: refs.tables_before,
        open_figure: false,
        kept: Vec::new(),
        verdicts: None,
        formulas: 0,
    };
    for (i, (event, _)) in all.into_iter().enumerate() {
        page.event(i, event);
    }
    let mut out = String::new();
    html::push_html(&mut out, group_figures(page.events).into_iter());
    out
}

/// A computed table's verdicts, `grid[row][column]`.
type Grid<'r> = &'r [Vec<Option<crate::analysis::tables::Verdict>>];

/// The page's Markdown events as they are rewritten for HTML, with what one
/// event leaves open for the next.
struct Page<'a, 'r> {
    /// Captioned tables, by the index of their events.
    captions: Vec<TableCaption>,
    /// The anchor of each heading, by the index of its start event.
    anchors: BTreeMap<usize, String>,
    refs: Refs<'r>,
    /// The rewritten events.
    events: Vec<Event<'a>>,
    /// An open ```` ```chart ```` or ```` ```environments ```` block: its
    /// language and its body so far.
    block: Option<(String, String)>,
    /// Captioned tables numbered so far, earlier pages included.
    tables: usize,
    /// A captioned table's `<figure>` waits for the table's end.
    open_figure: bool,
    /// For each open link and image, whether its URL was kept.
    kept: Vec<bool>,
    /// In a computed table: its verdicts, and the body row and column of
    /// the cell open (`None` in the header).
    verdicts: Option<(Grid<'r>, Option<usize>, usize)>,
    /// Formulas shown so far, to give each one's ids their own prefix.
    formulas: usize,
}

impl<'a> Page<'a, '_> {
    /// Rewrite the `i`th event of the page.
    fn event(&mut self, i: usize, event: Event<'a>) {
        if self.captions.iter().any(|c| c.skip.contains(&i)) {
            return;
        }
        let Some(event) = self.neutralise(event) else { return };
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang))) if is_directive(&lang) => {
                self.block = Some((lang.to_string(), String::new()))
            }
            Event::Text(text) if self.block.is_some() => {
                self.block.iter_mut().for_each(|b| b.1.push_str(&text))
            }
            Event::End(TagEnd::CodeBlock) if self.block.is_some() => {
                let (lang, body) = self.block.take().unwrap_or_default();
                self.events.push(Event::Html(directive(&lang, &body, &self.refs).into()));
            }
            Event::Start(Tag::Table(alignments)) => self.start_table(i, alignments),
            Event::Start(Tag::TableRow)
            | Event::Start(Tag::TableCell)
            | Event::End(TagEnd::TableCell)
                if self.verdicts.is_some() =>
            {
                self.verdict_cell(event)
            }
            Event::End(TagEnd::Table) => self.end_table(),
            Event::Start(Tag::Heading { level, classes, .. }) => {
                let id = self.anchors.get(&i).cloned().unwrap_or_default();
                self.events.push(Event::Start(Tag::Heading {
                    level: demote(level),
                    id: Some(id.into()),
                    classes,
                    attrs: Vec::new(),
                }));
            }
            Event::End(TagEnd::Heading(level)) => self.end_heading(level),
            Event::Text(text) => self
                .events
                .extend(directives::split(&text).into_iter().map(|s| segment(s, &self.refs))),
            // Raw HTML is the author's to allow: without `[output] raw-html`, it shows as text.
            Event::Html(html) if !self.refs.raw_html => {
                self.events.push(Event::Start(Tag::Paragraph));
                self.events.push(Event::Text(html.trim_end().to_string().into()));
                self.events.push(Event::End(TagEnd::Paragraph));
            }
            Event::InlineHtml(html) if !self.refs.raw_html => self.events.push(Event::Text(html)),
            Event::InlineMath(formula) => self.formula(&formula, false),
            Event::DisplayMath(formula) => self.formula(&formula, true),
            other => self.events.push(other),
        }
    }

    /// A link or image whose URL a browser could run (`javascript:`,
    /// `vbscript:`, a `data:` document, any scheme but a few) loses its
    /// URL and keeps its text: `None` for the start and end that go. However
    /// the URL was written (reference, autolink, entities, mixed case),
    /// pulldown-cmark hands it over decoded, as the browser would read it.
    fn neutralise(&mut self, event: Event<'a>) -> Option<Event<'a>> {
        let kept = match &event {
            Event::Start(Tag::Link { dest_url, .. }) => {
                self.kept.push(urls::link_allowed(dest_url));
                self.kept.last().copied()
            }
            Event::Start(Tag::Image { dest_url, .. }) => {
                self.kept.push(urls::image_allowed(dest_url));
                self.kept.last().copied()
            }
            Event::End(TagEnd::Link | TagEnd::Image) => self.kept.pop(),
            _ => Some(true),
        };
        kept.unwrap_or(true).then_some(event)
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

    /// Open the table whose start is the `i`th event, inside a numbered
    /// `<figure>` if it has a caption.
    fn start_table(&mut self, i: usize, alignments: Vec<Alignment>) {
        if let Some(c) = self.captions.iter().find(|c| c.start == i) {
            self.tables += 1;
            let tables = self.tables;
            let id =
                c.id.as_ref().map(|id| format!(" id=\"tbl-{}\"", escape(id))).unwrap_or_default();
            self.events.push(Event::Html(format!("<figure class=\"table\"{id}>\n<figcaption><span class=\"table-number\">Table {tables}.</span> {}</figcaption>\n", prose(&c.caption, &self.refs)).into()));
            self.open_figure = true;
            let written =
                self.refs.computed.iter().find(|t| c.id.as_deref() == Some(t.id.as_str()));
            self.verdicts = written.map(|t| (t.verdicts.as_slice(), None, 0));
        }
        self.events.push(Event::Start(Tag::Table(alignments)));
    }

    /// Close a table, and its `<figure>` if it has a caption.
    fn end_table(&mut self) {
        self.verdicts = None;
        self.events.push(Event::End(TagEnd::Table));
        if std::mem::take(&mut self.open_figure) {
            self.events.push(Event::Html("</figure>\n".into()));
        }
    }

    /// A row or cell of a computed table: a comparison's cell is classed by
    /// its verdict (better, worse, unclear, same), for its colour.
    fn verdict_cell(&mut self, event: Event<'a>) {
        let Some((grid, row, column)) = self.verdicts.as_mut() else { return };
        match event {
            Event::Start(Tag::TableRow) => (*row, *column) = (Some(row.map_or(0, |r| r + 1)), 0),
            Event::Start(Tag::TableCell) => {
                let verdict = row.and_then(|r| grid.get(r)?.get(column.checked_sub(1)?)?.as_ref());
                *column += 1;
                let number = if *column > 1 { " num" } else { "" };
                let html = match verdict {
                    Some(v) => {
                        format!("<td class=\"verdict verdict-{}{number}\">", verdict_class(*v))
                    }
                    None if row.is_none() => format!("<th class=\"cell{number}\">"),
                    None => format!("<td class=\"cell{number}\">"),
                };
                self.events.push(Event::Html(html.into()));
                return;
            }
            Event::End(TagEnd::TableCell) => {
                let close = if row.is_none() { "</th>" } else { "</td>" };
                self.events.push(Event::Html(close.into()));
                return;
            }
            _ => {}
        }
        self.events.push(event);
    }

    /// Close a heading after its `#` anchor link.
    fn end_heading(&mut self, level: HeadingLevel) {
        if let Some(Event::Start(Tag::Heading { id: Some(id), .. })) =
            self.events.iter().rev().find(|e| matches!(e, Event::Start(Tag::Heading { .. })))
        {
            let link = format!(
                "<a class=\"anchor\" href=\"#{}\" aria-label=\"Link to this section\">#</a>",
                escape(id)
            );
            self.events.push(Event::InlineHtml(link.into()));
        }
        self.events.push(Event::End(TagEnd::Heading(demote(level))));
    }
}

/// Whether a fenced block's language makes it a `report` directive.
fn is_directive(lang: &str) -> bool {
    matches!(lang, "chart" | "environments")
}

/// The HTML of a ```` ```chart ```` or ```` ```environments ```` block.
fn directive(lang: &str, body: &str, refs: &Refs) -> String {
    match lang {
        "chart" => sections::chart_id(body)
            .and_then(|id| refs.charts.get(&id))
            .map(|chart| figure(chart, refs))
            .unwrap_or_default(),
        _ => environments(refs),
    }
}

/// Consecutive chart figures go into one dashboard grid: two columns on wide
/// screens, stacked on narrow ones.
fn group_figures(events: Vec<Event>) -> Vec<Event> {
    let is_chart = |e: &Event| matches!(e, Event::Html(h) if h.starts_with("<div class=\"chart\""));
    let mut out = Vec::with_capacity(events.len() + 4);
    let mut i = 0;
    while i < events.len() {
        let run = events[i..].iter().take_while(|e| is_chart(e)).count();
        if run >= 2 {
            out.push(Event::Html("<div class=\"dashboard\">\n".into()));
            out.extend(events[i..i + run].iter().cloned());
            out.push(Event::Html("</div>\n".into()));
            i += run;
        } else {
            out.push(events[i].clone());
            i += 1;
        }
    }
    out
}

/// A stable, unique id for every heading: its `{#id}`, or a slug of its text.
fn anchors(events: &[(Event, std::ops::Range<usize>)]) -> BTreeMap<usize, String> {
    let mut out = BTreeMap::new();
    let mut used: BTreeMap<String, usize> = BTreeMap::new();
    for (i, (event, _)) in events.iter().enumerate() {
        let Event::Start(Tag::Heading { id, .. }) = event else { continue };
        let base = id.as_ref().map(|id| id.to_string()).unwrap_or_else(|| {
            let text: String = events[i + 1..]
                .iter()
                .take_while(|(e, _)| !matches!(e, Event::End(TagEnd::Heading(_))))
                .filter_map(|(e, _)| match e {
                    Event::Text(t) | Event::Code(t) => Some(t.to_string()),
                    _ => None,
                })
                .collect();
            slug(&text)
        });
        let count = used.entry(base.clone()).or_insert(0);
        *count += 1;
        out.insert(i, if *count == 1 { base } else { format!("{base}-{count}") });
    }
    out
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
fn verdict_class(verdict: crate::analysis::tables::Verdict) -> &'static str {
    use crate::analysis::tables::Verdict;
    match verdict {
        Verdict::Better => "better",
        Verdict::Worse => "worse",
        Verdict::Unclear => "unclear",
        Verdict::Same => "same",
    }
}

/// Prose text, or the HTML of a cross-reference or citation.
fn segment<'a>(segment: Segment, refs: &Refs) -> Event<'a> {
    match segment {
        Segment::Text(t) => Event::Text(t.to_string().into()),
        Segment::Figure(id) => {
            let number = refs.charts.get(id).map_or(0, |c| c.number);
            let href = escape(&refs.figure_href(id));
            Event::InlineHtml(
                format!("<a class=\"xref\" href=\"{href}\">Figure {number}</a>").into(),
            )
        }
        Segment::Table(id) => {
            let number = refs.table_number(id);
            Event::InlineHtml(
                format!("<a class=\"xref\" href=\"#tbl-{}\">Table {number}</a>", escape(id)).into(),
            )
        }
        Segment::Cite(keys) => {
            let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
            let text = refs.citations.get(&keys).cloned().unwrap_or_default();
            Event::InlineHtml(
                format!("<a class=\"citation\" href=\"#ref-{}\">{text}</a>", escape(&keys[0]))
                    .into(),
            )
        }
    }
}

/// A caption's text as HTML: escaped, with its cross-references and
/// citations resolved as in prose.
fn prose(text: &str, refs: &Refs) -> String {
    let mut out = String::with_capacity(text.len());
    for part in directives::split(text) {
        match segment(part, refs) {
            Event::Text(t) => out.push_str(&escape(&t)),
            Event::InlineHtml(html) => out.push_str(&html),
            _ => {}
        }
    }
    out
}

/// The figure of a chart: numbered caption above the inline SVG (with what
/// its error bars show), then the data table and the CSV link.
fn figure(chart: &Chart, refs: &Refs) -> String {
    let id = escape(&chart.spec.id);
    let caption = chart.spec.caption.as_deref().map(|c| prose(c, refs)).unwrap_or_default();
    let series = serde_json::to_string(&chart.series).unwrap_or_default();
    format!(
        "<div class=\"chart\" id=\"fig-{id}\" data-series=\"{}\">\n<figure>\n<figcaption><span class=\"figure-number\">Figure {}.</span> {caption} <span class=\"intervals\">{}</span></figcaption>\n{}</figure>\n\
         <details><summary>Data behind Figure {}</summary>\n\
         <div class=\"table-scroll\" role=\"region\" tabindex=\"0\" aria-label=\"Data behind Figure {}\">{}</div>\n<p><a href=\"data/charts/{id}.csv\" download>Download the data (CSV)</a></p></details>\n</div>\n",
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
        let description =
            env.description.as_deref().map(|d| format!("<p>{}</p>", escape(d))).unwrap_or_default();
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

    #[test]
    fn headings_move_down_and_get_anchors() {
        let html = to_html("# A b\n\n## B\n\n# A b\n", Refs::none());
        assert_eq!(
            html,
            "<h2 id=\"a-b\">A b<a class=\"anchor\" href=\"#a-b\" aria-label=\"Link to this section\">#</a></h2>\n\
            <h3 id=\"b\">B<a class=\"anchor\" href=\"#b\" aria-label=\"Link to this section\">#</a></h3>\n\
            <h2 id=\"a-b-2\">A b<a class=\"anchor\" href=\"#a-b-2\" aria-label=\"Link to this section\">#</a></h2>\n"
        );
    }

    #[test]
    fn raw_text_is_escaped() {
        assert_eq!(to_html("a < b & c", Refs::none()), "<p>a &lt; b &amp; c</p>\n");
    }

    #[test]
    fn links_that_could_run_a_script_keep_only_their_text() {
        let md = "[a](javascript:alert(1)) <javascript:alert(2)> [r][x] [m](JaVa\tScRiPt:alert(3)) \
                  [e](jav&#x61;script&colon;alert(4)) [d](data:text/html,x) ![i *b*](vbscript:x) \
                  [ok](https://example.org/) [![img](f.png)](notes.html#a)\n\n[x]: javascript:alert(5)\n";
        assert_eq!(
            to_html(md, Refs::none()),
            "<p>a javascript:alert(2) r [m](JaVa\tScRiPt:alert(3)) e d i <em>b</em> \
             <a href=\"https://example.org/\">ok</a> <a href=\"notes.html#a\"><img src=\"f.png\" alt=\"img\" /></a></p>\n"
        );
    }

    #[test]
    fn slugs_are_stable() {
        assert_eq!(slug("What we found!"), "what-we-found");
        assert_eq!(slug("Café 2"), "café-2");
        assert_eq!(slug("!!"), "section");
    }
}
