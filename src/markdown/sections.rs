//! Pieces of the Markdown both renderers read the same way: the outputs a
//! section may be limited to, heading attributes, and a chart block's id.

/// The `id` of a chart block's TOML body (validated by [`super::parse`] when the page is parsed).
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

/// The value of heading attribute `key`, such as `paper="Introduction"`.
pub fn heading_attr<'a>(
    attrs: &'a [(pulldown_cmark::CowStr<'a>, Option<pulldown_cmark::CowStr<'a>>)],
    key: &str,
) -> Option<&'a str> {
    attrs.iter().find(|(k, _)| k.as_ref() == key).and_then(|(_, v)| v.as_deref())
}
