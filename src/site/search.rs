//! The site's search index, `search.json`: each study's title, answer,
//! headline claims with their values and verdicts, and the start of its
//! prose. The site's script loads it only when the search box is first
//! used, and searches it in the browser: no external service.

use serde::Serialize;

use super::entry::Entry;

/// The search index's file.
pub const FILE: &str = "search.json";

/// One study as the search sees it, in short keys: the file is downloaded
/// whole.
#[derive(Debug, Serialize)]
struct Doc<'a> {
    /// Where it is published.
    u: &'a str,
    /// Its title.
    t: &'a str,
    /// Its answer, as text.
    a: &'a str,
    /// Its claims: name, label, value, verdict.
    c: Vec<[&'a str; 4]>,
    /// The start of its prose.
    x: &'a str,
}

/// `search.json` of `entries`, in site.toml's order.
pub fn json(entries: &[&Entry]) -> Vec<u8> {
    let docs: Vec<Doc> = entries
        .iter()
        .map(|e| Doc {
            u: &e.url,
            t: &e.title,
            a: &e.answer,
            c: e.claims.iter().map(|c| [c.name.as_str(), &c.label, &c.value, &c.verdict]).collect(),
            x: &e.text,
        })
        .collect();
    let mut bytes = serde_json::to_vec(&docs).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}
