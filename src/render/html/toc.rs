//! A page's table of contents: its sections (the headings written as
//! `<h2>`), taken from the heading events the page's document tree is
//! written as ([`super::markdown`]), so that each entry links to the anchor
//! its heading was given and reads as its text, without reading the page's
//! HTML back.

use pulldown_cmark::{Event, HeadingLevel, Tag, TagEnd, html};
use serde::Serialize;

/// One entry of the table of contents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// The heading's anchor.
    pub id: String,
    /// The heading's text, as HTML-escaped text.
    pub title: String,
}

/// The sections of a page written as `events`: each `<h2>` heading's
/// anchor and text, in order. The text is what pulldown-cmark writes of
/// the heading's text and code, with the text of its raw HTML (formulas,
/// cross-references, citations) and without its images' alternative text
/// or the `#` anchor link written last.
pub fn entries(events: &[Event]) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut open: Option<(String, String)> = None;
    let mut walk = Walk::default();
    for event in events {
        match event {
            Event::Start(Tag::Heading { level: HeadingLevel::H2, id, .. }) => {
                open = Some((id.as_deref().unwrap_or_default().to_string(), String::new()));
            }
            Event::End(TagEnd::Heading(HeadingLevel::H2)) => {
                if let Some((id, title)) = open.take() {
                    out.push(Entry { id, title: title.trim().to_string() });
                }
            }
            Event::Start(Tag::FootnoteDefinition(name)) => {
                walk.number(name);
            }
            _ => {
                let text = walk.text(event);
                if let Some((_, title)) = open.as_mut() {
                    title.push_str(&text);
                }
            }
        }
    }
    out
}

/// What the events before one tell of it: whether it is inside an image
/// (whose alternative text is no text of a heading), and the footnotes'
/// numbers so far.
#[derive(Default)]
struct Walk {
    /// Each footnote's number, as pulldown-cmark's writer gives them: in the
    /// order first referred to or defined.
    numbers: std::collections::BTreeMap<String, usize>,
    /// How many images the events are inside.
    in_image: usize,
}

impl Walk {
    /// The number of footnote `name`, given when first met.
    fn number(&mut self, name: &str) -> usize {
        let next = self.numbers.len() + 1;
        *self.numbers.entry(name.to_string()).or_insert(next)
    }

    /// The escaped text `event` adds to a heading: what pulldown-cmark
    /// writes of its text and code, the text of raw HTML (formulas,
    /// cross-references, citations), a footnote's number; nothing of an
    /// image, nor of the `#` anchor link that ends every heading.
    fn text(&mut self, event: &Event) -> String {
        match event {
            Event::Start(Tag::Image { .. }) => self.in_image += 1,
            Event::End(TagEnd::Image) => self.in_image = self.in_image.saturating_sub(1),
            Event::FootnoteReference(name) => {
                let number = self.number(name);
                if self.in_image == 0 {
                    return number.to_string();
                }
            }
            _ if self.in_image > 0 => {}
            Event::Text(_) | Event::Code(_) | Event::SoftBreak | Event::HardBreak => {
                let plain = match event {
                    Event::Code(code) => Event::Text(code.clone()),
                    Event::HardBreak => Event::SoftBreak,
                    other => other.clone(),
                };
                let mut written = String::new();
                html::push_html(&mut written, std::iter::once(plain));
                return written;
            }
            Event::InlineHtml(fragment) if fragment.starts_with("<a class=\"anchor\"") => {}
            Event::Html(fragment) | Event::InlineHtml(fragment) => return without_tags(fragment),
            _ => {}
        }
        String::new()
    }
}

/// A raw HTML fragment's text: its tags removed, its entities kept, so it
/// stays escaped.
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
    use crate::render::Refs;

    /// The sections of a page written from Markdown: each `#` heading's
    /// anchor (made unique, or its `{#id}`) and text, escaped as the page
    /// writes it, with its code's text and without its image's alternative
    /// text or its anchor link; `##` headings are subsections. (A heading
    /// with nothing under it is not shown, so each has a paragraph.)
    #[test]
    fn sections_are_the_page_s_top_headings() {
        let body = crate::markdown::parse::text(
            "# The *question* & `x<y`\n\nA.\n\n## Sub\n\nB.\n\n# C {#c-2}\n\nC.\n\n\
             # The *question* & `x<y`\n\nD.\n\n# Logo ![alt text](a.png) here {#logo}\n\nE.\n",
        );
        let (_, toc) = super::super::markdown::page(&body, Refs::none(), None);
        let question = "The question &amp; x&lt;y";
        assert_eq!(
            toc,
            [
                Entry { id: "the-question-x-y".into(), title: question.into() },
                Entry { id: "c-2".into(), title: "C".into() },
                Entry { id: "the-question-x-y-2".into(), title: question.into() },
                Entry { id: "logo".into(), title: "Logo  here".into() },
            ]
        );
    }

    /// The table of contents as it was read back from a page's HTML before
    /// it came from the headings: the oracle of the property below.
    fn read_back(html: &str) -> Vec<Entry> {
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

    /// A page of headings of many shapes (text to escape, emphasis, code,
    /// links, images, raw HTML, footnotes, explicit ids, repeats, deeper
    /// levels, a first heading that repeats the title), drawn from `seed`.
    fn page(mut seed: u64) -> String {
        const PIECES: &[&str] = &[
            "Word",
            "a & b < c",
            "Café",
            "*em*",
            "**strong**",
            "`co<de>`",
            "[link](https://e.org)",
            "![alt *b*](f.png)",
            "<span>raw</span>",
            "&amp;",
            "[^n]",
            "\"q\"",
            "Results",
        ];
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            usize::try_from(seed >> 33).unwrap_or_default() % n
        };
        let mut lines = Vec::new();
        for _ in 0..1 + next(6) {
            let level = ["#", "#", "##", "###"][next(4)];
            let words: Vec<&str> = (0..1 + next(3)).map(|_| PIECES[next(PIECES.len())]).collect();
            let id = if next(5) == 0 { " {#same}" } else { "" };
            lines.push(format!("{level} {}{id}\n\nText[^n].\n", words.join(" ")));
        }
        lines.push("[^n]: A note.\n".into());
        lines.join("\n")
    }

    proptest::proptest! {
        /// The sections taken from the headings' events are those the
        /// page's HTML shows, with raw HTML allowed or not and with or
        /// without a title that the first heading may repeat.
        #[test]
        fn the_sections_are_those_the_page_shows(seed in proptest::prelude::any::<u64>()) {
            let markdown = page(seed);
            let body = crate::markdown::parse::text(&markdown);
            for (raw_html, title) in [(false, None), (true, Some("Results"))] {
                let refs = Refs { raw_html, ..Refs::none() };
                let (html, toc) = super::super::markdown::page(&body, refs, title);
                proptest::prop_assert_eq!(&toc, &read_back(&html), "{}", markdown);
            }
        }
    }
}
