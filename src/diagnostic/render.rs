//! Rendering diagnostics like rustc, with codespan-reporting: the path, line and
//! column, the source line with a caret under the offending span, the message
//! and a `help:` line. Also a one-line short form and JSON for CI annotations.

use codespan_reporting::diagnostic::{Diagnostic as Report, Label, Severity};
use codespan_reporting::files::{Error as FilesError, SimpleFile};
use codespan_reporting::term::{self, Chars, Config};
use serde::Serialize;
use termcolor::{Buffer, ColorChoice, StandardStream, WriteColor};

use super::{Diagnostic, Excerpt};

/// How diagnostics are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// rustc-like, with the source line and a caret.
    #[default]
    Human,
    /// One line each: `error: path:line:col: message (N places) = help: hint`.
    Short,
    /// A JSON array, for CI annotations.
    Json,
}

/// Whether a diagnostic stops the build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// The build fails.
    Error,
    /// The build goes on.
    Warning,
}

/// One diagnostic in `--message-format json`: where (its first place), what,
/// how to fix it, and for a cause at several places their count, the first
/// places and the distinct values.
#[derive(Serialize)]
struct JsonDiagnostic {
    level: Level,
    /// The first place: `path`, `line`, `column` (and `row`).
    #[serde(flatten)]
    at: JsonLocation,
    message: String,
    hint: Option<String>,
    /// Problems of this cause (1 for a single one).
    count: usize,
    /// The first places, at most [`MAX_LOCATIONS`](super::group::MAX_LOCATIONS), the first
    /// being `path`, `line`, `column`.
    locations: Vec<JsonLocation>,
    /// The distinct values the problems name (an environment, a cell), sorted,
    /// at most [`MAX_VALUES`](super::group::MAX_VALUES); empty when they name none.
    values: Vec<String>,
}

/// A place in a file, as in [`JsonDiagnostic`]: a line and column, or in a
/// file without lines (Parquet) a row, line and column then being 0.
#[derive(Serialize)]
struct JsonLocation {
    path: String,
    line: usize,
    column: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    row: Option<usize>,
}

impl JsonLocation {
    fn of(location: &super::Location) -> Self {
        let row = location.row.then_some(location.line);
        JsonLocation {
            path: location.path.display().to_string(),
            line: if row.is_some() { 0 } else { location.line },
            column: location.column,
            row,
        }
    }
}

impl JsonDiagnostic {
    fn of(level: Level, d: &Diagnostic) -> Self {
        let cut = |text: &str| super::excerpt(text, super::MAX_MESSAGE_CHARS).into_owned();
        JsonDiagnostic {
            level,
            at: JsonLocation::of(&d.location),
            message: cut(&d.shown_message()),
            hint: d.shown_hint().map(cut),
            count: d.count(),
            locations: std::iter::once(&d.location)
                .chain(&d.repeats().also)
                .map(JsonLocation::of)
                .collect(),
            values: d.repeats().values.iter().map(|v| cut(v)).collect(),
        }
    }
}

/// Render `diagnostics` in `format`, each with the excerpt of its source
/// line it carries (never read again from the file); `color` adds ANSI
/// colours. Messages and hints are cut to
/// [`MAX_MESSAGE_CHARS`](super::MAX_MESSAGE_CHARS) in every format.
pub fn render(diagnostics: &[(Level, &Diagnostic)], format: Format, color: bool) -> String {
    match format {
        Format::Json => {
            let items: Vec<JsonDiagnostic> =
                diagnostics.iter().map(|(level, d)| JsonDiagnostic::of(*level, d)).collect();
            serde_json::to_string_pretty(&items).unwrap_or_default() + "\n"
        }
        Format::Short => diagnostics.iter().map(|(level, d)| short(*level, d)).collect(),
        Format::Human => {
            let mut buffer = if color { Buffer::ansi() } else { Buffer::no_color() };
            for (level, d) in diagnostics {
                human(&mut buffer, *level, d);
            }
            String::from_utf8_lossy(buffer.as_slice()).into_owned()
        }
    }
}

fn label(level: Level) -> &'static str {
    match level {
        Level::Error => "error",
        Level::Warning => "warning",
    }
}

/// One diagnostic on one line: `error: path:line:col: message (400 rows) = help: hint`,
/// line breaks in the message or hint made spaces.
fn short(level: Level, d: &Diagnostic) -> String {
    let one_line = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let message = one_line(&super::shown(&d.shown_message()));
    let hint = d.shown_hint().map(|h| format!(" = help: {}", one_line(&super::shown(h))));
    format!(
        "{}: {}: {message}{}{}\n",
        label(level),
        d.location,
        d.count_suffix(),
        hint.unwrap_or_default()
    )
}

/// One diagnostic, rustc style, with the window of its source line.
fn human(out: &mut dyn WriteColor, level: Level, d: &Diagnostic) {
    let severity = if level == Level::Error { Severity::Error } else { Severity::Warning };
    let message = super::shown(&d.shown_message()).into_owned() + &d.count_suffix();
    let notes: Vec<String> = d
        .also_note()
        .map(|n| format!("note: {}", super::shown(&n)))
        .into_iter()
        .chain(d.shown_hint().map(|h| format!("help: {}", super::shown(h))))
        .collect();
    let report = Report::new(severity).with_message(&message).with_notes(notes.clone());
    let config = Config { chars: Chars::ascii(), ..Config::default() };
    if let Some(excerpt) = d.excerpt.as_deref().filter(|_| d.location.line > 0) {
        let name = d.location.path.display().to_string();
        let snippet = Snippet { name, line: d.location.line, excerpt };
        let report = report.with_labels(vec![Label::primary((), excerpt.span.0..excerpt.span.1)]);
        if term::emit(out, &config, &snippet, &report).is_ok() {
            return;
        }
    }
    let file = SimpleFile::new(d.location.to_string(), String::new());
    let report = Report::new(severity)
        .with_message(format!("{message}\n  --> {}", d.location))
        .with_notes(notes);
    let _ = term::emit(out, &config, &file, &report);
}

/// A diagnostic's excerpt as a file of one line for codespan, which numbers
/// it as the diagnostic's line and its columns as in the whole line.
struct Snippet<'e> {
    /// The file's path, as shown.
    name: String,
    /// The 1-based line number.
    line: usize,
    excerpt: &'e Excerpt,
}

impl<'a> codespan_reporting::files::Files<'a> for Snippet<'_> {
    type FileId = ();
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, (): ()) -> Result<&'a str, FilesError> {
        Ok(&self.name)
    }

    fn source(&'a self, (): ()) -> Result<&'a str, FilesError> {
        Ok(&self.excerpt.text)
    }

    fn line_index(&'a self, (): (), _: usize) -> Result<usize, FilesError> {
        Ok(0)
    }

    fn line_number(&'a self, (): (), _: usize) -> Result<usize, FilesError> {
        Ok(self.line)
    }

    fn column_number(&'a self, (): (), _: usize, byte: usize) -> Result<usize, FilesError> {
        let Excerpt { text, prefix, shift, .. } = self.excerpt;
        let shown = text.get(*prefix..byte.max(*prefix)).unwrap_or("");
        Ok(shift + shown.chars().count() + 1)
    }

    fn line_range(&'a self, (): (), line: usize) -> Result<std::ops::Range<usize>, FilesError> {
        match line {
            0 => Ok(0..self.excerpt.text.len()),
            _ => Err(FilesError::LineTooLarge { given: line, max: 0 }),
        }
    }
}

/// Print diagnostics to standard error, coloured only on a terminal and never
/// when `NO_COLOR` is set.
pub fn eprint(diagnostics: &[(Level, &Diagnostic)], format: Format) {
    use std::io::{IsTerminal, Write};
    let color = format == Format::Human
        && std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let text = render(diagnostics, format, color);
    let stream = StandardStream::stderr(ColorChoice::Never);
    let mut lock = stream.lock();
    let _ = lock.write_all(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Location;

    #[test]
    fn human_rendering_shows_the_line_and_a_caret() {
        let d = Diagnostic::new(Location::new("results/a.csv", 2, 3), "bad value")
            .hint("write a number")
            .excerpt(Excerpt::at(b"x,y\n1,abc\n", 2, 3).unwrap());
        let text = render(&[(Level::Error, &d)], Format::Human, false);
        assert!(text.contains("error: bad value"), "{text}");
        assert!(text.contains("--> results/a.csv:2:3"), "{text}");
        assert!(text.contains("2 | 1,abc"), "{text}");
        assert!(text.contains("^^^"), "{text}");
        assert!(text.contains("= help: write a number"), "{text}");
    }

    /// A bad cell in the middle of a line of a million characters: the
    /// snippet shows 120 of them around the cell, numbered as in the file.
    #[test]
    fn a_long_line_is_cut_to_a_window_around_the_column() {
        let line = format!("{}\u{1b},abc,{}", "x".repeat(500_000), "é".repeat(500_000));
        let file = format!("h\n{line}\n");
        let at = |column| {
            Diagnostic::new(Location::new("results/a.csv", 2, column), "bad value")
                .excerpt(Excerpt::at(file.as_bytes(), 2, column).unwrap())
        };
        let d = at(500_003);
        let text = render(&[(Level::Error, &d)], Format::Human, false);
        assert!(text.len() < 1_000, "{text}");
        assert!(text.contains("--> results/a.csv:2:500003"), "{text}");
        // 40 characters before the column (the escape shown as �), 80 from it.
        let shown = format!("…{}\u{FFFD},abc,{}…", "x".repeat(38), "é".repeat(76));
        assert!(text.contains(&format!("2 | {shown}")), "{text}");
        assert!(text.contains(&format!("  | {}^^^\n", " ".repeat(41))), "{text}");
        // At the start and at the end of the line.
        for (column, expected) in [(1, "2 | xxx"), (1_000_005, "é|")] {
            let d = at(column);
            let text = render(&[(Level::Error, &d)], Format::Human, false);
            let shown = text.lines().find(|l| l.starts_with("2 | ")).unwrap_or_default();
            assert_eq!(shown.chars().count(), 4 + 120 + 1, "{text}");
            assert!(format!("{shown}|").contains(expected), "{text}");
            assert!(text.contains(&format!("--> results/a.csv:2:{column}")), "{text}");
        }
    }
}
