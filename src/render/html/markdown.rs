//! A page's resolved body to HTML, through pulldown-cmark's writer: chart
//! figures (grouped into a dashboard grid), numbered tables,
//! cross-references, citations, heading anchors and the environments block.

use std::collections::BTreeMap;

use pulldown_cmark::{Event, HeadingLevel, Tag, TagEnd, html};

use super::super::Refs;
use super::urls;
use crate::charts::Chart;
use crate::charts::svg::escape;
use crate::markdown::document::{
    self, Body, Citation, Inline, Item, Node, Reference, TableCaption,
};
use crate::markdown::sections::Output;

/// A page's body as HTML, with headings one level down (the page title is
/// the `<h1>`), every heading anchored, chart directives as their figures,
/// captioned tables numbered, and references and citations as links.
pub fn to_html(body: &Body, refs: Refs) -> String {
    let nodes: Vec<&Node> = body.nodes.iter().filter(|n| n.shown_in(Output::Page)).collect();
    let mut page = Page {
        anchors: anchors(&nodes),
        refs,
        events: Vec::new(),
        kept: Vec::new(),
        verdicts: None,
        formulas: 0,
    };
    for (i, node) in nodes.into_iter().enumerate() {
        page.node(i, &node.item);
    }
    let mut out = String::new();
    html::push_html(&mut out, group_figures(page.events).into_iter());
    out
}

/// A computed table's verdicts, `grid[row][column]`.
type Grid<'b> = &'b [Vec<Option<crate::analysis::metrics::tables::Verdict>>];

/// The page's nodes as they are written as Markdown events for HTML, with
/// what one node leaves open for the next.
struct Page<'b, 'r> {
    /// The anchor of each heading, by the index of its start node.
    anchors: BTreeMap<usize, String>,
    refs: Refs<'r>,
    /// The events written.
    events: Vec<Event<'b>>,
    /// For each open link and image, whether its URL was kept.
    kept: Vec<bool>,
    /// In a computed table: its verdicts, and the body row and column of
    /// the cell open (`None` in the header).
    verdicts: Option<(Grid<'b>, Option<usize>, usize)>,
    /// Formulas shown so far, to give each one's ids their own prefix.
    formulas: usize,
}

impl<'b> Page<'b, '_> {
    /// Write the `i`th node of the page.
    fn node(&mut self, i: usize, item: &'b Item) {
        match item {
            Item::Markdown(event) => self.event(i, event.clone()),
            Item::Ref(r) => self.events.push(reference(r)),
            Item::Cite(c) => self.events.push(citation(c, &self.refs)),
            Item::Chart(c) => {
                let chart = self.refs.charts.get(&c.id);
                let html = chart.map(|chart| figure(chart, &c.caption, &self.refs));
                self.events.push(Event::Html(html.unwrap_or_default().into()));
            }
            Item::Environments => self.events.push(Event::Html(environments(&self.refs).into())),
            Item::TableStart(c) => self.start_table(c),
            Item::TableEnd => self.events.push(Event::Html("</figure>\n".into())),
        }
    }

    /// Write the Markdown event of the `i`th node.
    fn event(&mut self, i: usize, event: Event<'b>) {
        let Some(event) = self.neutralise(event) else { return };
        match event {
            Event::Start(Tag::TableRow)
            | Event::Start(Tag::TableCell)
            | Event::End(TagEnd::TableCell)
                if self.verdicts.is_some() =>
            {
                self.verdict_cell(event)
            }
            Event::End(TagEnd::Table) => {
                self.verdicts = None;
                self.events.push(Event::End(TagEnd::Table));
            }
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
    fn neutralise(&mut self, event: Event<'b>) -> Option<Event<'b>> {
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

    /// Open a captioned table's numbered `<figure>`; its table follows.
    fn start_table(&mut self, c: &'b TableCaption) {
        let id = c.id.as_ref().map(|id| format!(" id=\"tbl-{}\"", escape(id))).unwrap_or_default();
        self.events.push(Event::Html(format!("<figure class=\"table\"{id}>\n<figcaption><span class=\"table-number\">Table {}.</span> {}</figcaption>\n", c.number, prose(&c.caption, &self.refs)).into()));
        self.verdicts = c.verdicts.as_ref().map(|v| (v.as_slice(), None, 0));
    }

    /// A row or cell of a computed table: a comparison's cell is classed by
    /// its verdict (better, worse, unclear, same), for its colour.
    fn verdict_cell(&mut self, event: Event<'b>) {
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
fn anchors(nodes: &[&Node]) -> BTreeMap<usize, String> {
    let mut out = BTreeMap::new();
    let mut used: BTreeMap<String, usize> = BTreeMap::new();
    for (i, node) in nodes.iter().enumerate() {
        let Item::Markdown(Event::Start(Tag::Heading { id, .. })) = &node.item else { continue };
        let base = id.as_ref().map(|id| id.to_string()).unwrap_or_else(|| {
            let text: String = nodes[i + 1..]
                .iter()
                .take_while(|n| !matches!(n.item, Item::Markdown(Event::End(TagEnd::Heading(_)))))
                .filter_map(|n| document::plain(&n.item, false))
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
fn verdict_class(verdict: crate::analysis::metrics::tables::Verdict) -> &'static str {
    use crate::analysis::metrics::tables::Verdict;
    match verdict {
        Verdict::Better => "better",
        Verdict::Worse => "worse",
        Verdict::Unclear => "unclear",
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
            Inline::Text(t) => {
                out.push_str(&escape(t));
                continue;
            }
            Inline::Ref(r) => reference(r),
            Inline::Cite(c) => citation(c, refs),
        };
        if let Event::InlineHtml(html) = event {
            out.push_str(&html);
        }
    }
    out
}

/// The figure of a chart: numbered caption above the inline SVG (with what
/// its error bars show), then the data table and the CSV link.
fn figure(chart: &Chart, caption: &[Inline], refs: &Refs) -> String {
    let id = escape(&chart.spec.id);
    let caption = prose(caption, refs);
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

    #[test]
    fn slugs_are_stable() {
        assert_eq!(slug("What we found!"), "what-we-found");
        assert_eq!(slug("Café 2"), "café-2");
        assert_eq!(slug("!!"), "section");
    }
}
