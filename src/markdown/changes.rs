//! ```` ```changes ```` directives: the change points of the study's
//! history (`[history]`) as a numbered table in the page and the paper
//! (`@tbl-ID`), worded by `prose::history::table`.

use serde::Deserialize;

use crate::analysis::history::HistoryAnalysis;
use crate::config::spans::Spans;
use crate::diagnostic::{Diagnostic, Location};

/// A table of change points, as the author wrote it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChangesSpec {
    /// Identifier: lowercase letters, digits and `-`; referenced as `@tbl-ID`.
    pub id: String,
    /// Caption, in the page and the paper.
    pub caption: String,
}

/// A table of change points: its id, caption, header and rows.
pub type Tabulated = (String, String, Vec<String>, Vec<Vec<String>>);

/// The directive with `body` at `location` (its fence line): its id,
/// caption, header and rows; an error without a history, or for a bad key.
pub fn compute(
    body: &str,
    location: &Location,
    history: Option<&HistoryAnalysis>,
    labels: &crate::prose::labels::Labels,
) -> Result<Tabulated, Diagnostic> {
    let (spec, _): (ChangesSpec, Spans) = Spans::parse(body).map_err(|err| {
        let inner = Location::at_offset(&location.path, body, err.span().unwrap_or(0..0).start);
        let at = Location::new(&location.path, location.line + inner.line, inner.column);
        let message = err.message().trim_end_matches('.');
        Diagnostic::new(at, format!("changes: {}", crate::diagnostic::lowercase_first(message)))
            .hint("a ```changes``` block takes `id` and `caption` (docs/history.md)")
    })?;
    if spec.id.is_empty()
        || !spec.id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(Diagnostic::new(
            location.clone(),
            format!("changes: invalid id `{}`", spec.id),
        )
        .hint("use lowercase letters, digits and `-`, such as `changes`"));
    }
    let Some(history) = history else {
        return Err(Diagnostic::new(
            location.clone(),
            "changes: the study has no history across versions".to_string(),
        )
        .hint("declare one in book.toml: `[history]` (docs/history.md)"));
    };
    let (header, rows) = crate::prose::history::table(history, labels);
    Ok((spec.id, crate::prose::sentence(&spec.caption), header, rows))
}
