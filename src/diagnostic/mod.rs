//! User-facing diagnostics: located, rustc-style error messages with hints.

mod excerpt;
pub mod group;
pub mod render;
mod tally;

pub use excerpt::{Excerpt, WINDOW};
pub use group::{Cause, Repeats};
pub use tally::Tally;

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};

/// Where in a source file a diagnostic points (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Location {
    /// Path of the file, relative to the study root where possible.
    pub path: PathBuf,
    /// 1-based line; 0 when the whole file is meant.
    pub line: usize,
    /// 1-based column in characters; 0 when the whole line is meant.
    pub column: usize,
    /// True when `line` is a 1-based row of a file without lines (Parquet),
    /// shown as `path (row N)`.
    pub row: bool,
}

impl Location {
    /// A location at `line:column` of `path`.
    pub fn new(path: impl Into<PathBuf>, line: usize, column: usize) -> Self {
        Self { path: path.into(), line, column, row: false }
    }

    /// A location at the 1-based `row` of `path`, a file without lines (Parquet).
    pub fn row(path: impl Into<PathBuf>, row: usize) -> Self {
        Self { row: true, ..Self::new(path, row, 0) }
    }

    /// A location naming a whole file.
    pub fn file(path: impl Into<PathBuf>) -> Self {
        Self::new(path, 0, 0)
    }

    /// The location of byte `offset` in `text`, which is the content of `path`.
    pub fn at_offset(path: &Path, text: &str, offset: usize) -> Self {
        let offset = offset.min(text.len());
        let before = &text[..floor_char_boundary(text, offset)];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        Self::new(path, line, column)
    }
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match (self.line, self.column) {
            (0, _) => write!(f, "{path}"),
            (row, _) if self.row => write!(f, "{path} (row {row})"),
            (line, 0) => write!(f, "{path}:{line}"),
            (line, column) => write!(f, "{path}:{line}:{column}"),
        }
    }
}

/// One problem in the user's input: where it is, what is wrong, how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diagnostic {
    /// Where the problem is.
    pub location: Location,
    /// What is wrong, lowercase, without a trailing period.
    pub message: String,
    /// How to fix it, when we can tell.
    pub hint: Option<String>,
    /// What groups it with others when its message names a value (see [`group`]).
    pub cause: Option<Box<Cause>>,
    /// How many problems it stands for, where the others are and their
    /// values; `None` for a single problem ([`Diagnostic::repeats`]).
    pub repeats: Option<Box<Repeats>>,
    /// The source line it was made from, and its span there.
    pub excerpt: Option<Box<Excerpt>>,
}

impl Diagnostic {
    /// A diagnostic at `location` with `message` and no hint yet.
    pub fn new(location: Location, message: impl Into<String>) -> Self {
        Self {
            location,
            message: message.into(),
            hint: None,
            cause: None,
            repeats: None,
            excerpt: None,
        }
    }

    /// Attach the source line it was made from, and its span there.
    pub fn excerpt(mut self, excerpt: Excerpt) -> Self {
        self.excerpt = Some(Box::new(excerpt));
        self
    }

    /// Attach a hint on how to fix the problem.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = self.shown_message();
        write!(f, "{}: {}{}", self.location, shown(&message), self.count_suffix())?;
        if let Some(note) = self.also_note() {
            write!(f, "\n  = note: {note}")?;
        }
        if let Some(hint) = self.shown_hint() {
            write!(f, "\n  = help: {}", shown(hint))?;
        }
        Ok(())
    }
}

/// Most characters of a message or a hint as printed; the rest is cut (`…`),
/// so that no input, however long, floods the terminal.
pub const MAX_MESSAGE_CHARS: usize = 1_000;

/// Most characters of the user's text (a cell, a name, an expression) that a
/// message quotes.
pub const MAX_QUOTED_CHARS: usize = 60;

/// `text` cut to at most `max` characters (`max` > 0), its end replaced by `…`.
pub fn excerpt(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => Cow::Borrowed(text),
        Some(_) => {
            let keep = text.char_indices().nth(max.saturating_sub(1)).map_or(0, |(i, _)| i);
            Cow::Owned(format!("{}…", &text[..keep]))
        }
    }
}

/// `text` as it may be printed: at most [`MAX_MESSAGE_CHARS`] characters,
/// control characters other than line breaks and tabs (a carriage return, a
/// terminal escape) shown as `�`.
pub fn shown(text: &str) -> Cow<'_, str> {
    let cut = excerpt(text, MAX_MESSAGE_CHARS);
    if !cut.chars().any(is_hidden_control) {
        return cut;
    }
    Cow::Owned(cut.chars().map(|c| if is_hidden_control(c) { '\u{FFFD}' } else { c }).collect())
}

/// A control character that would move the cursor or change the terminal.
pub(crate) fn is_hidden_control(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
}

/// Every problem found by a stage; the error type of the pipeline's checks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    /// Add one diagnostic.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.0.push(diagnostic);
    }

    /// True when nothing was reported.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Give each diagnostic at a line of `path` without an excerpt the one
    /// of its position in `text`, the content of `path` as it was read.
    pub fn attach(&mut self, path: &Path, text: &[u8]) {
        attach(&mut self.0, path, text);
    }

    /// `Ok(value)` when nothing was reported, else every diagnostic, one per
    /// cause ([`Diagnostics::grouped`]), sorted by location.
    pub fn into_result<T>(self, value: T) -> Result<T, Diagnostics> {
        if self.0.is_empty() { Ok(value) } else { Err(self.grouped()) }
    }
}

/// [`Diagnostics::attach`] on any diagnostics, warnings among them.
pub fn attach(diagnostics: &mut [Diagnostic], path: &Path, text: &[u8]) {
    for d in diagnostics.iter_mut().filter(|d| d.excerpt.is_none() && d.location.path == path) {
        // A row of a file without lines (Parquet) has no source line.
        if d.location.line > 0 && !d.location.row {
            d.excerpt = Excerpt::at(text, d.location.line, d.location.column).map(Box::new);
        }
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(diagnostic: Diagnostic) -> Self {
        Self(vec![diagnostic])
    }
}

/// One diagnostic per cause ([`Diagnostics::grouped`]), then the totals.
impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let grouped = self.clone().grouped();
        for (i, diagnostic) in grouped.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{diagnostic}")?;
        }
        if grouped.total() > 1 {
            write!(f, "\n{}", grouped.summary())?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// The closest of `candidates` to `name`, if any is close enough to suggest:
/// within a third of its length in edits, or very similar by Jaro–Winkler,
/// case aside (`Brotli` is `brotli`; one that differs only in case comes first).
pub fn nearest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = name.to_lowercase();
    let within = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| {
            let folded = c.to_lowercase();
            let edits = strsim::levenshtein(&lower, &folded);
            (edits, c != name, strsim::jaro_winkler(&lower, &folded), c)
        })
        .filter(|(edits, _, similarity, _)| *edits <= within || *similarity > 0.85)
        .min_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(b.2.total_cmp(&a.2)).then(a.3.cmp(b.3)))
        .map(|(_, _, _, c)| c)
}

/// A hint naming the nearest candidate, or listing them all when none is close.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str> + Clone) -> String {
    match nearest(name, candidates.clone()) {
        Some(best) => format!("did you mean `{best}`?"),
        None => format!("expected one of: {}", list(candidates)),
    }
}

/// `a`, `b`, `c` — a sorted, quoted list for messages.
pub fn list<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    let mut items: Vec<&str> = items.into_iter().collect();
    items.sort_unstable();
    items.dedup();
    if items.is_empty() {
        return "(none)".to_string();
    }
    items.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
}

/// Line, column and innermost message of a Tera error: its parse errors carry
/// `--> line:col`; render errors carry no position (line and column 0).
pub fn tera_error_parts(err: &tera::Error) -> (usize, usize, String) {
    let chain = error_chain(err);
    let detail = chain.join("\n");
    let (line, column) = detail
        .split("--> ")
        .nth(1)
        .and_then(|rest| {
            let mut numbers = rest.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty());
            Some((numbers.next()?.parse().ok()?, numbers.next()?.parse().ok()?))
        })
        .unwrap_or((0, 0));
    let innermost = chain.last().map(String::as_str).unwrap_or_default();
    let message =
        innermost.lines().map(str::trim).rfind(|l| !l.is_empty()).unwrap_or("template error");
    (line, column, lowercase_first(message.trim_start_matches("= ")))
}

/// The messages of `err` and of every error behind it, outermost first.
pub fn error_chain(err: &dyn std::error::Error) -> Vec<String> {
    let mut chain = Vec::new();
    let mut source = Some(err);
    while let Some(e) = source {
        chain.push(e.to_string());
        source = e.source();
    }
    chain
}

/// `text` with its first letter in lowercase, as diagnostics are written.
pub fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_lowercase().collect::<String>() + chars.as_str()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_to_line_and_column() {
        let text = "ab\ncdé\nf";
        let loc = Location::at_offset(Path::new("x.md"), text, text.find('f').unwrap());
        assert_eq!(loc.to_string(), "x.md:3:1");
        let loc = Location::at_offset(Path::new("x.md"), text, text.find('é').unwrap() + 2);
        assert_eq!(loc.to_string(), "x.md:2:4");
    }

    #[test]
    fn suggests_nearest_name() {
        assert_eq!(
            nearest("timestep_per_s", ["procs", "timesteps_per_s"]),
            Some("timesteps_per_s")
        );
        assert_eq!(nearest("zzz", ["procs", "run"]), None);
        // Case aside: a name that differs only in case is the suggestion, even
        // where every letter differs (ZSTD: 4 edits), and before a nearer-cased one.
        assert_eq!(nearest("Brotli", ["brotli", "gzip"]), Some("brotli"));
        assert_eq!(nearest("ZSTD", ["zstd", "lz4"]), Some("zstd"));
        assert_eq!(nearest("LZ4", ["lz4", "LZ5"]), Some("lz4"));
        assert_eq!(nearest("Gzip", ["gzip", "Gzap"]), Some("gzip"));
        assert_eq!(suggest("zzz", ["run", "procs"]), "expected one of: `procs`, `run`");
    }

    #[test]
    fn long_and_hostile_text_is_cut_and_made_printable() {
        assert_eq!(excerpt("abc", 3), "abc");
        assert_eq!(excerpt("abcd", 3), "ab…");
        assert_eq!(excerpt("ééééé", 4), "ééé…");
        let d = Diagnostic::new(Location::file("a.csv"), format!("x{}", "y".repeat(5000)))
            .hint("red \u{1b}[31m\r");
        let text = d.to_string();
        // "a.csv: " (7) + 1,000 characters of message, the last one `…`.
        assert_eq!(text.lines().next().unwrap().chars().count(), 7 + MAX_MESSAGE_CHARS);
        assert!(text.ends_with("= help: red \u{FFFD}[31m\u{FFFD}"), "{text}");
    }

    #[test]
    fn rows_of_files_without_lines_are_named_as_rows() {
        assert_eq!(Location::row("results/a.parquet", 7).to_string(), "results/a.parquet (row 7)");
        assert_eq!(Location::row("results/a.parquet", 0).to_string(), "results/a.parquet");
    }

    #[test]
    fn renders_like_rustc() {
        let d = Diagnostic::new(Location::new("results/a.csv", 3, 7), "bad value").hint("fix it");
        assert_eq!(d.to_string(), "results/a.csv:3:7: bad value\n  = help: fix it");
    }
}
