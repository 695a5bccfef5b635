//! Pieces of the Markdown both renderers read the same way: which sections
//! go to which output, heading attributes, and a chart block's id.

use pulldown_cmark::{Event, Tag};

/// The `id` of a chart block's TOML body (already validated by [`scan`](super::directives::scan)).
pub fn chart_id(body: &str) -> Option<String> {
    let table: toml::Table = toml::from_str(body).ok()?;
    table.get("id")?.as_str().map(str::to_string)
}

/// Which output a pass renders for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// The web page.
    Page,
    /// The PDF paper.
    Paper,
}

/// Drop the sections meant for the other output: a heading with the attribute
/// `only=page` (or `only=paper`) and everything up to the next heading of the
/// same or a higher level.
pub fn for_output(
    events: Vec<(Event<'_>, std::ops::Range<usize>)>,
    output: Output,
) -> Vec<(Event<'_>, std::ops::Range<usize>)> {
    let other = match output {
        Output::Page => "paper",
        Output::Paper => "page",
    };
    let mut skipping: Option<pulldown_cmark::HeadingLevel> = None;
    events
        .into_iter()
        .filter(|(event, _)| {
            if let Event::Start(Tag::Heading { level, attrs, .. }) = event {
                if skipping.is_some_and(|s| *level <= s) {
                    skipping = None;
                }
                if skipping.is_none()
                    && attrs
                        .iter()
                        .any(|(k, v)| k.as_ref() == "only" && v.as_deref() == Some(other))
                {
                    skipping = Some(*level);
                }
            }
            skipping.is_none()
        })
        .collect()
}

/// The value of heading attribute `key`, such as `paper="Introduction"`.
pub fn heading_attr<'a>(
    attrs: &'a [(pulldown_cmark::CowStr<'a>, Option<pulldown_cmark::CowStr<'a>>)],
    key: &str,
) -> Option<&'a str> {
    attrs.iter().find(|(k, _)| k.as_ref() == key).and_then(|(_, v)| v.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::directives::{events, table_captions};

    #[test]
    fn table_captions_are_found() {
        let source = "| a |\n|---|\n| 1 |\n\nTable: Setup *of* runs. {#tbl-setup}\n\n| b |\n|---|\n| 2 |\n\nNot a caption.\n";
        let events = events(source);
        let captions = table_captions(&events);
        assert_eq!(captions.len(), 1);
        assert_eq!(captions[0].caption, "Setup of runs.");
        assert_eq!(captions[0].id.as_deref(), Some("setup"));
    }

    #[test]
    fn sections_for_the_other_output_are_dropped() {
        let source = "# A\n\na\n\n# B {only=page}\n\nb\n\n## B2\n\nb2\n\n# C\n\nc\n";
        let text = |events: Vec<(Event, std::ops::Range<usize>)>| -> String {
            events
                .into_iter()
                .filter_map(
                    |(e, _)| if let Event::Text(t) = e { Some(t.to_string()) } else { None },
                )
                .collect()
        };
        assert_eq!(text(for_output(events(source), Output::Paper)), "AaCc");
        assert_eq!(text(for_output(events(source), Output::Page)), "AaBbB2b2Cc");
    }
}
