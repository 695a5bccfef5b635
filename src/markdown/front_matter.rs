//! Front matter: an optional TOML block between `+++` lines at the top of a
//! content file, with the page's title, order and outputs.

use serde::Deserialize;

use crate::diagnostic::{Diagnostic, Location};

/// The keys a content file's front matter accepts.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrontMatter {
    /// Title in navigation and the browser tab; default: the first heading.
    #[serde(default)]
    pub title: Option<String>,
    /// Position among the pages (ascending); default: `index.md` first, then by file name.
    #[serde(default)]
    pub order: Option<i64>,
    /// Which outputs include the file: `["page", "paper"]` (the default), `["page"]` or `["paper"]`.
    #[serde(default)]
    pub outputs: Option<Vec<OutputName>>,
}

/// An output a content file can go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OutputName {
    /// The web site.
    Page,
    /// The PDF paper.
    Paper,
}

impl FrontMatter {
    /// Whether the file goes into `output`.
    pub fn includes(&self, output: OutputName) -> bool {
        self.outputs.as_ref().is_none_or(|o| o.contains(&output))
    }
}

/// Split front matter off `text`. The returned Markdown keeps the file's line
/// numbers: the front matter is replaced by blank lines.
pub fn split(path: &std::path::Path, text: &str) -> Result<(FrontMatter, String), Diagnostic> {
    let Some(rest) = text.strip_prefix("+++\n").or_else(|| text.strip_prefix("+++\r\n")) else {
        return Ok((FrontMatter::default(), text.to_string()));
    };
    // An empty front matter closes on the line right after it opens.
    let closing = if rest.starts_with("+++") { Some(0) } else { rest.find("\n+++").map(|i| i + 1) };
    let end = closing.ok_or_else(|| {
        Diagnostic::new(Location::new(path, 1, 1), "front matter is not closed")
            .hint("end it with a line `+++`")
    })?;
    let toml_text = &rest[..end];
    let front: FrontMatter = toml::from_str(toml_text).map_err(|err| {
        let offset = 4 + err.span().map_or(0, |s| s.start);
        Diagnostic::new(
            Location::at_offset(path, text, offset),
            format!("front matter: {}", err.message().trim_end_matches('.')),
        )
        .hint("front matter accepts `title`, `order` and `outputs`")
    })?;
    let after = &rest[end..];
    let closing_end = after.find('\n').map_or(after.len(), |i| i + 1);
    let lines = text[..4 + end + closing_end].matches('\n').count();
    Ok((front, "\n".repeat(lines) + &after[closing_end..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn front_matter_is_parsed_and_lines_are_kept() {
        let (front, body) = split(
            Path::new("a.md"),
            "+++\ntitle = \"T\"\norder = 2\noutputs = [\"page\"]\n+++\n# H\n",
        )
        .unwrap();
        assert_eq!(front.title.as_deref(), Some("T"));
        assert_eq!(front.order, Some(2));
        assert!(front.includes(OutputName::Page) && !front.includes(OutputName::Paper));
        assert_eq!(body, "\n\n\n\n\n# H\n");
    }

    #[test]
    fn bad_front_matter_is_located() {
        let err = split(Path::new("a.md"), "+++\ntitle = \"T\"\ncolour = 1\n+++\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("a.md:3:1: front matter: unknown field `colour`"), "{err}");
        assert!(split(Path::new("a.md"), "+++\ntitle = \"T\"\n").is_err());
        assert_eq!(
            split(Path::new("a.md"), "# No front matter\n").unwrap().0,
            FrontMatter::default()
        );
    }
}
