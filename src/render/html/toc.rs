//! A page's table of contents: its sections (`<h2>` headings), read back
//! from the page's HTML so that each entry links to the anchor the heading
//! has.

use serde::Serialize;

/// One entry of the table of contents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// The heading's anchor.
    pub id: String,
    /// The heading's text, as HTML-escaped text.
    pub title: String,
}

/// The `<h2 id="…">` headings of `html`, in order, their text without tags
/// and without the `#` anchor link.
pub fn entries(html: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<h2 id=\"") {
        rest = &rest[start + 8..];
        let Some(quote) = rest.find('"') else { break };
        let id = rest[..quote].to_string();
        let Some(open) = rest.find('>') else { break };
        let Some(close) = rest.find("</h2>") else { break };
        let inner = &rest[open + 1..close];
        let inner = inner.find("<a class=\"anchor\"").map_or(inner, |a| &inner[..a]);
        out.push(Entry { id, title: without_tags(inner).trim().to_string() });
        rest = &rest[close..];
    }
    out
}

/// `html` with its tags removed (entities kept, so it stays escaped).
fn without_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_are_read_from_the_headings() {
        let html = "<h2 id=\"a\">The <em>question</em> &amp; more<a class=\"anchor\" href=\"#a\">#</a></h2>\n\
                    <h3 id=\"b\">Sub</h3><h2 id=\"c-2\">C</h2>";
        assert_eq!(
            entries(html),
            [
                Entry { id: "a".into(), title: "The question &amp; more".into() },
                Entry { id: "c-2".into(), title: "C".into() }
            ]
        );
    }
}
