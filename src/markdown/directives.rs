//! The syntax of references in prose (`@fig-ID`, `@tbl-ID`, `[@key]`), and
//! what a page refers to, with locations ([`Found`], filled by
//! [`super::parse`]).

use std::ops::Range;

use crate::charts::spec::ChartSpec;
use crate::diagnostic::Location;

/// A piece of prose: plain text, or a reference to a figure or table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment<'a> {
    /// Text as written.
    Text(&'a str),
    /// `@fig-ID`: the chart id.
    Figure(&'a str),
    /// `@tbl-ID`: the table id.
    Table(&'a str),
    /// `[@key]` or `[@a; @b]`: citation keys.
    Cite(Vec<&'a str>),
}

/// Characters of a citation key (also valid in a Typst label).
fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | ':' | '.')
}

/// `[@a; @b]` at the start of `text`: the keys and the length consumed.
fn citation(text: &str) -> Option<(Vec<&str>, usize)> {
    let inner = text.strip_prefix("[@")?;
    let end = inner.find(']')?;
    let keys: Option<Vec<&str>> = inner[..end]
        .split(';')
        .enumerate()
        .map(|(i, part)| {
            let part = part.trim();
            let key = if i == 0 { part } else { part.strip_prefix('@')? };
            (!key.is_empty() && key.chars().all(is_key_char)).then_some(key)
        })
        .collect();
    let keys: Vec<&str> = keys?.into_iter().map(|k| k.trim_end_matches(['.', ':'])).collect();
    Some((keys, end + 3))
}

/// Split `text` at `@fig-ID` and `@tbl-ID` references. An `@` after a letter or
/// digit (as in an e-mail address) is not a reference.
pub fn split(text: &str) -> Vec<Segment<'_>> {
    split_spans(text).into_iter().map(|(segment, _)| segment).collect()
}

/// [`split`], with the bytes of `text` each segment was written as.
pub fn split_spans(text: &str) -> Vec<(Segment<'_>, Range<usize>)> {
    let mut out = Vec::new();
    let (mut start, mut at) = (0, 0);
    while let Some(found) = text[at..].find('@').map(|i| i + at) {
        if found > 0
            && text.as_bytes()[found - 1] == b'['
            && let Some((keys, len)) = citation(&text[found - 1..])
        {
            if found - 1 > start {
                out.push((Segment::Text(&text[start..found - 1]), start..found - 1));
            }
            out.push((Segment::Cite(keys), found - 1..found - 1 + len));
            start = found - 1 + len;
            at = start;
            continue;
        }
        let kind = &text[found + 1..];
        let prefix = if kind.starts_with("fig-") {
            Some(true)
        } else if kind.starts_with("tbl-") {
            Some(false)
        } else {
            None
        };
        let before = text[..found].chars().next_back();
        let id_start = found + 5;
        let id_len = text.get(id_start..).map_or(0, |rest| {
            rest.find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
                .unwrap_or(rest.len())
        });
        let id = text.get(id_start..id_start + id_len).unwrap_or("").trim_end_matches('-');
        match prefix {
            Some(figure) if !before.is_some_and(char::is_alphanumeric) && !id.is_empty() => {
                if found > start {
                    out.push((Segment::Text(&text[start..found]), start..found));
                }
                let segment = if figure { Segment::Figure(id) } else { Segment::Table(id) };
                out.push((segment, found..id_start + id.len()));
                start = id_start + id.len();
                at = start;
            }
            _ => at = found + 1,
        }
    }
    if start < text.len() {
        out.push((Segment::Text(&text[start..]), start..text.len()));
    }
    out
}

/// What a cross-reference points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RefKind {
    /// A chart, `@fig-ID`.
    Figure,
    /// A captioned table, `@tbl-ID`.
    Table,
}

/// What a page holds besides prose: charts, captioned tables, references.
#[derive(Debug, Clone, Default)]
pub struct Found {
    /// Chart directives, in order.
    pub charts: Vec<ChartSpec>,
    /// Ids of captioned tables (None when unnamed), in order.
    pub tables: Vec<Option<String>>,
    /// Cross-references with their locations.
    pub references: Vec<(RefKind, String, Location)>,
    /// Citations: the keys cited together, with their location.
    pub citations: Vec<(Vec<String>, Location)>,
    /// Images: their URL and location.
    pub images: Vec<(String, Location)>,
    /// Links: their URL and location.
    pub links: Vec<(String, Location)>,
    /// The computed tables (```` ```table ````), as written to the site.
    pub computed: Vec<super::tables::Written>,
    /// Where a `{{ caveats() }}` stands elsewhere than alone in a paragraph
    /// (it is nothing there): an error when there are caveats.
    pub caveats_elsewhere: Vec<Location>,
    /// The numbers typed into the prose that a statistic computes: warnings.
    pub typed: Vec<crate::diagnostic::Diagnostic>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_references_but_not_emails() {
        assert_eq!(
            split("see @fig-scaling."),
            vec![Segment::Text("see "), Segment::Figure("scaling"), Segment::Text(".")]
        );
        assert_eq!(split("me@fig-x.org"), vec![Segment::Text("me@fig-x.org")]);
        assert_eq!(
            split("(@tbl-setup)"),
            vec![Segment::Text("("), Segment::Table("setup"), Segment::Text(")")]
        );
        assert_eq!(
            split("as shown [@beltre2019; @x:y]."),
            vec![
                Segment::Text("as shown "),
                Segment::Cite(vec!["beltre2019", "x:y"]),
                Segment::Text(".")
            ]
        );
        assert_eq!(split("[@not a key]"), vec![Segment::Text("[@not a key]")]);
        assert_eq!(
            split("@fig-a-b, @fig-c-"),
            vec![
                Segment::Figure("a-b"),
                Segment::Text(", "),
                Segment::Figure("c"),
                Segment::Text("-")
            ]
        );
    }
}
