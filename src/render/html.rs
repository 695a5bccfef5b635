//! The web page: Markdown to HTML with pulldown-cmark, laid out by a Tera template
//! (`templates/page.html`, or the built-in default).

use pulldown_cmark::{Event, Parser, Tag, TagEnd, html};
use serde::Serialize;
use tera::{Context, Tera};

use super::BookView;
use crate::diagnostic::{Diagnostic, Diagnostics, Location};
use crate::markdown::{self, Document};
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

/// Markdown to HTML, with headings one level down (the page title is the `<h1>`).
pub fn to_html(source: &str) -> String {
    let events = Parser::new_ext(source, markdown::options()).map(|event| match event {
        Event::Start(Tag::Heading { level, id, classes, attrs }) => {
            Event::Start(Tag::Heading { level: demote(level), id, classes, attrs })
        }
        Event::End(TagEnd::Heading(level)) => Event::End(TagEnd::Heading(demote(level))),
        other => other,
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
    out
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
pub fn render(document: &Document, book: &BookView, template: Option<&SourceFile>) -> Result<String, Diagnostics> {
    let (name, text) = match template {
        Some(file) => (file.path.display().to_string(), file.text()?.to_string()),
        None => ("page.html (built-in)".to_string(), DEFAULT_TEMPLATE.to_string()),
    };
    let pages: Vec<PageView> = document
        .pages
        .iter()
        .map(|p| PageView { slug: p.slug.clone(), title: p.title.clone(), html: to_html(&p.markdown) })
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
        assert_eq!(to_html("# A\n\n## B\n"), "<h2>A</h2>\n<h3>B</h3>\n");
    }

    #[test]
    fn raw_text_is_escaped() {
        assert_eq!(to_html("a < b & c"), "<p>a &lt; b &amp; c</p>\n");
    }
}
