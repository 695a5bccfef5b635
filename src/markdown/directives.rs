//! Directives inside the Markdown: ```` ```chart ```` blocks and `@fig-ID`
//! cross-references, found with their locations.

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

use crate::charts::spec::{self, ChartSpec};
use crate::diagnostic::{Diagnostic, Diagnostics, Location};

/// A piece of prose: plain text, or a reference to a figure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment<'a> {
    /// Text as written.
    Text(&'a str),
    /// `@fig-ID`: the chart id.
    Figure(&'a str),
}

/// Split `text` at `@fig-ID` references. An `@` after a letter or digit (as in
/// an e-mail address) is not a reference.
pub fn split(text: &str) -> Vec<Segment<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut consumed = 0;
    while let Some(i) = rest.find("@fig-") {
        let before = text[..consumed + i].chars().next_back();
        let id_len = rest[i + 5..].find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')).unwrap_or(rest.len() - i - 5);
        let id = rest[i + 5..i + 5 + id_len].trim_end_matches('-');
        if before.is_some_and(char::is_alphanumeric) || id.is_empty() {
            out.push(Segment::Text(&rest[..i + 5]));
            consumed += i + 5;
            rest = &rest[i + 5..];
            continue;
        }
        if i > 0 {
            out.push(Segment::Text(&rest[..i]));
        }
        out.push(Segment::Figure(id));
        consumed += i + 5 + id.len();
        rest = &rest[i + 5 + id.len()..];
    }
    if !rest.is_empty() {
        out.push(Segment::Text(rest));
    }
    out
}

/// Events of `source` with adjacent text merged, so that references are never
/// split across events.
pub fn events(source: &str) -> Vec<(Event<'_>, std::ops::Range<usize>)> {
    let mut out: Vec<(Event, std::ops::Range<usize>)> = Vec::new();
    for (event, range) in Parser::new_ext(source, super::options()).into_offset_iter() {
        if let (Event::Text(t), Some((Event::Text(prev), prev_range))) = (&event, out.last_mut()) {
            *prev = format!("{prev}{t}").into();
            prev_range.end = range.end;
            continue;
        }
        out.push((event, range));
    }
    out
}

/// The chart directives of a page and the figure ids it references.
pub fn scan(path: &std::path::Path, source: &str) -> Result<(Vec<ChartSpec>, Vec<(String, Location)>), Diagnostics> {
    let mut errors = Diagnostics::default();
    let (mut charts, mut references) = (Vec::new(), Vec::new());
    let mut chart: Option<(usize, String)> = None;
    let mut in_code = false;
    for (event, range) in events(source) {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang))) if lang.as_ref() == "chart" => chart = Some((range.start, String::new())),
            Event::Start(Tag::CodeBlock(_)) => in_code = true,
            Event::Text(text) if chart.is_some() => chart.as_mut().map(|c| c.1.push_str(&text)).unwrap_or_default(),
            Event::End(TagEnd::CodeBlock) => {
                in_code = false;
                if let Some((start, body)) = chart.take() {
                    match spec::parse(&body, &Location::at_offset(path, source, start)) {
                        Ok(spec) => charts.push(spec),
                        Err(d) => errors.push(d),
                    }
                }
            }
            Event::Text(text) if !in_code => {
                let mut offset = range.start;
                for segment in split(&text) {
                    match segment {
                        Segment::Text(t) => offset += t.len(),
                        Segment::Figure(id) => {
                            references.push((id.to_string(), Location::at_offset(path, source, offset)));
                            offset += id.len() + 5;
                        }
                    }
                }
            }
            _ => {}
        }
    }
    errors.into_result((charts, references))
}

/// Chart ids must be unique and every reference must name a chart.
pub fn check_references(references: &[(String, Location)], charts: &[ChartSpec]) -> Result<(), Diagnostics> {
    let mut errors = Diagnostics::default();
    let mut seen: std::collections::BTreeMap<&str, &ChartSpec> = std::collections::BTreeMap::new();
    for spec in charts {
        if let Some(first) = seen.insert(&spec.id, spec) {
            let at = spec.location.clone().unwrap_or_else(|| Location::file("content"));
            let first_at = first.location.as_ref().map(|l| l.to_string()).unwrap_or_default();
            errors.push(Diagnostic::new(at, format!("two charts have the id `{}`", spec.id))
                .hint(format!("the first is at {first_at}; give each chart a unique id")));
        }
    }
    if !errors.is_empty() {
        return errors.into_result(());
    }
    let ids: Vec<&str> = charts.iter().map(|c| c.id.as_str()).collect();
    for (id, at) in references {
        if !ids.contains(&id.as_str()) {
            let hint = match crate::diagnostic::nearest(id, ids.iter().copied()) {
                Some(best) => format!("did you mean `@fig-{best}`? figures: {}", crate::diagnostic::list(ids.iter().copied())),
                None => format!("figures are the ids of ```chart blocks: {}", crate::diagnostic::list(ids.iter().copied())),
            };
            errors.push(Diagnostic::new(at.clone(), format!("unknown figure `@fig-{id}`")).hint(hint));
        }
    }
    errors.into_result(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_references_but_not_emails() {
        assert_eq!(split("see @fig-scaling."), vec![Segment::Text("see "), Segment::Figure("scaling"), Segment::Text(".")]);
        assert_eq!(split("me@fig-x.org"), vec![Segment::Text("me@fig-"), Segment::Text("x.org")]);
        assert_eq!(split("@fig-a-b, @fig-c-"), vec![Segment::Figure("a-b"), Segment::Text(", "), Segment::Figure("c"), Segment::Text("-")]);
    }

    #[test]
    fn finds_charts_and_references_with_locations() {
        let source = "Intro @fig-a.\n\n```chart\nid = \"a\"\nkind = \"line\"\ndata = \"d\"\nx = \"x\"\ny = \"y\"\n```\n";
        let (charts, refs) = scan(std::path::Path::new("c.md"), source).unwrap();
        assert_eq!(charts[0].id, "a");
        assert_eq!(charts[0].location.as_ref().unwrap().to_string(), "c.md:3:1");
        assert_eq!(refs, vec![("a".to_string(), Location::new("c.md", 1, 7))]);
        let err = check_references(&[("b".into(), Location::new("c.md", 1, 7))], &charts).unwrap_err().to_string();
        assert!(err.starts_with("c.md:1:7: unknown figure `@fig-b`"), "{err}");
    }
}

/// The `id` of a chart block's TOML body (already validated by [`scan`]).
pub fn chart_id(body: &str) -> Option<String> {
    let table: toml::Table = toml::from_str(body).ok()?;
    table.get("id")?.as_str().map(str::to_string)
}
