//! A study as the site's index, search, feed and cards show it: its title,
//! answer, period, date and tags, and its headline claims with their
//! verdicts and provenance marks, taken from what its own page showed.

use serde::{Deserialize, Serialize};

use crate::markdown::Document;
use crate::markdown::document::{all_blocks, plain};
use crate::render::{BookView, MetricView};

/// How much of a study's prose the search holds: enough to find it by a
/// word of its text, little enough that fifty studies stay small.
pub const TEXT_CHARS: usize = 1_200;

/// One study of the site.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Where it is published, relative to the site's root: `examples/usernetes/`.
    pub url: String,
    /// Its title.
    pub title: String,
    /// Its answer (`[book] answer`) as HTML, else its abstract as text.
    pub answer_html: String,
    /// The same as plain text.
    pub answer: String,
    /// `[book] period`, as written.
    pub period: Option<String>,
    /// `[book] date` (`YYYY-MM-DD`), by which the index sorts.
    pub date: Option<String>,
    /// `[book] keywords`: the tags the index filters by.
    pub tags: Vec<String>,
    /// The headline claims, in book.toml order.
    pub claims: Vec<Claim>,
    /// The start of its prose, as plain text, for the search.
    pub text: String,
    /// Its paper's file name (`[output] pdf`).
    pub pdf: String,
}

/// One headline claim as a compact card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    /// The metric's name: `#metric-NAME` on the study's page.
    pub name: String,
    /// Its label.
    pub label: String,
    /// Its value as the card shows it, mark included: `8.8% faster`, `45.7†`.
    pub value: String,
    /// The verdict: `better`, `worse`, `negligible`, `inconclusive`, …; a
    /// figure not tested says where it comes from instead: `published`,
    /// `reconstructed`.
    pub verdict: String,
    /// `good`, `bad`, `negligible`, `untested` or empty: the card's tone.
    pub tone: String,
}

impl Claim {
    /// The card of the headline metric `m`, as the study's own card has it.
    pub fn of(m: &MetricView) -> Self {
        let value = match &m.words {
            Some(words) => format!("{}{}", words.text, m.mark),
            None => m.text.get("value").cloned().unwrap_or_default(),
        };
        let verdict = match (m.origin.is_some(), m.verdict) {
            (true, _) => m.provenance.to_string(),
            (false, Some(verdict)) => verdict.to_string(),
            (false, None) => String::new(),
        };
        let tone = match (m.origin.is_some(), m.verdict, m.good) {
            (true, ..) => "untested",
            (_, Some("negligible"), _) => "negligible",
            (_, _, Some(true)) => "good",
            (_, _, Some(false)) => "bad",
            _ => "",
        };
        Claim { name: m.name.clone(), label: m.label.clone(), value, verdict, tone: tone.into() }
    }

    /// `Label: value`, as a reference to the claim from another study shows it.
    pub fn text(&self) -> String {
        format!("{}: {}", self.label, self.value)
    }
}

impl Entry {
    /// The entry of the study published at `url`, from what its templates saw.
    pub fn of(url: &str, book: &BookView, document: &Document) -> Self {
        let answer_html = book
            .answer
            .clone()
            .unwrap_or_else(|| tera::escape_html(book.summary.as_deref().unwrap_or_default()));
        Entry {
            url: url.to_string(),
            title: book.title.clone(),
            answer: text_of_html(&answer_html),
            answer_html,
            period: book.meta.iter().find(|m| m.label == "Period").map(|m| m.value.clone()),
            date: book.date.clone(),
            tags: book.keywords.clone(),
            claims: book.metrics.iter().filter(|m| m.headline).map(Claim::of).collect(),
            text: prose(document),
            pdf: book.pdf.clone(),
        }
    }
}

/// The first [`TEXT_CHARS`] characters of the prose of `document`'s pages,
/// cut at a word.
fn prose(document: &Document) -> String {
    let mut text = String::new();
    'pages: for page in &document.pages {
        for block in all_blocks(&page.body.blocks) {
            for inlines in block.kind.inlines() {
                for word in plain(inlines, false).split_whitespace() {
                    if text.chars().count() + word.chars().count() >= TEXT_CHARS {
                        break 'pages;
                    }
                    if !text.is_empty() {
                        text.push(' ');
                    }
                    text.push_str(word);
                }
            }
        }
    }
    text
}

/// The text of `html` made by the renderer: its tags dropped, its
/// character references read back.
pub fn text_of_html(html: &str) -> String {
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
    let out = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&nbsp;", "\u{a0}")
        .replace("&amp;", "&");
    out.split_ascii_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_reads_as_text() {
        let html = "<p>Not <em>at</em> the top: 8.8&nbsp;% &amp; <a href=\"x\">more</a>\n</p>";
        assert_eq!(text_of_html(html), "Not at the top: 8.8\u{a0}% & more");
    }
}
