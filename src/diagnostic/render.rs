//! Rendering diagnostics like rustc, with codespan-reporting: the path, line and
//! column, the source line with a caret under the offending span, the message
//! and a `help:` line. Also a one-line short form and JSON for CI annotations.

use std::path::Path;

use codespan_reporting::diagnostic::{Diagnostic as Report, Label, Severity};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, Chars, Config};
use serde::Serialize;
use termcolor::{Buffer, ColorChoice, StandardStream, WriteColor};

use super::Diagnostic;

/// How diagnostics are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// rustc-like, with the source line and a caret.
    #[default]
    Human,
    /// One line each: `path:line:col: message`.
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

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    level: Level,
    path: String,
    line: usize,
    column: usize,
    message: &'a str,
    hint: Option<&'a str>,
}

/// Render `diagnostics` in `format`. `read` returns a file's text for the
/// snippet (by its path as shown); `color` adds ANSI colours.
pub fn render(
    diagnostics: &[(Level, &Diagnostic)],
    format: Format,
    read: &dyn Fn(&Path) -> Option<String>,
    color: bool,
) -> String {
    match format {
        Format::Json => {
            let items: Vec<JsonDiagnostic> = diagnostics
                .iter()
                .map(|(level, d)| JsonDiagnostic {
                    level: *level,
                    path: d.location.path.display().to_string(),
                    line: d.location.line,
                    column: d.location.column,
                    message: &d.message,
                    hint: d.hint.as_deref(),
                })
                .collect();
            serde_json::to_string_pretty(&items).unwrap_or_default() + "\n"
        }
        Format::Short => {
            diagnostics.iter().map(|(level, d)| format!("{}: {d}\n", label(*level))).collect()
        }
        Format::Human => {
            let mut buffer = if color { Buffer::ansi() } else { Buffer::no_color() };
            for (level, d) in diagnostics {
                human(&mut buffer, *level, d, read);
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

/// One diagnostic, rustc style.
fn human(
    out: &mut dyn WriteColor,
    level: Level,
    d: &Diagnostic,
    read: &dyn Fn(&Path) -> Option<String>,
) {
    let severity = if level == Level::Error { Severity::Error } else { Severity::Warning };
    let notes: Vec<String> = d.hint.iter().map(|h| format!("help: {h}")).collect();
    let report = Report::new(severity).with_message(&d.message).with_notes(notes.clone());
    let config = Config { chars: Chars::ascii(), ..Config::default() };
    let text = (d.location.line > 0).then(|| read(&d.location.path)).flatten();
    if let Some(text) = text {
        let span = span(&text, d.location.line, d.location.column);
        let file = SimpleFile::new(d.location.path.display().to_string(), text);
        let report = report.with_labels(vec![Label::primary((), span)]);
        if term::emit(out, &config, &file, &report).is_ok() {
            return;
        }
    }
    let file = SimpleFile::new(d.location.to_string(), String::new());
    let report = Report::new(severity)
        .with_message(format!("{}\n  --> {}", d.message, d.location))
        .with_notes(notes);
    let _ = term::emit(out, &config, &file, &report);
}

/// The byte span of the token at `line:column` (1-based; column 0 means the
/// whole line), clamped to the text.
fn span(text: &str, line: usize, column: usize) -> std::ops::Range<usize> {
    let start_of_line =
        text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum::<usize>();
    let line_text = text[start_of_line.min(text.len())..].split('\n').next().unwrap_or("");
    if column == 0 {
        return start_of_line..start_of_line + line_text.trim_end_matches('\r').len();
    }
    let start = line_text.char_indices().nth(column - 1).map_or(line_text.len(), |(i, _)| i);
    let rest = &line_text[start..];
    let quoted = rest.starts_with('"');
    let len = if quoted {
        rest[1..].find('"').map_or(rest.len(), |i| i + 2)
    } else {
        rest.find(|c: char| c.is_whitespace() || ",;)]}\"'".contains(c)).unwrap_or(rest.len())
    };
    let begin = start_of_line + start;
    begin..begin + len.max(rest.chars().next().map_or(0, char::len_utf8))
}

/// Print diagnostics to standard error, coloured only on a terminal and never
/// when `NO_COLOR` is set.
pub fn eprint(
    diagnostics: &[(Level, &Diagnostic)],
    format: Format,
    read: &dyn Fn(&Path) -> Option<String>,
) {
    use std::io::{IsTerminal, Write};
    let color = format == Format::Human
        && std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let text = render(diagnostics, format, read, color);
    let stream = StandardStream::stderr(ColorChoice::Never);
    let mut lock = stream.lock();
    let _ = lock.write_all(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Location;

    #[test]
    fn spans_cover_the_token_or_quoted_string() {
        let text = "a,bb,c\nname = \"tq\" x\n";
        assert_eq!(&text[span(text, 1, 3)], "bb");
        assert_eq!(&text[span(text, 2, 8)], "\"tq\"");
        assert_eq!(&text[span(text, 2, 0)], "name = \"tq\" x");
    }

    #[test]
    fn human_rendering_shows_the_line_and_a_caret() {
        let d = Diagnostic::new(Location::new("results/a.csv", 2, 3), "bad value")
            .hint("write a number");
        let read = |_: &Path| Some("x,y\n1,abc\n".to_string());
        let text = render(&[(Level::Error, &d)], Format::Human, &read, false);
        assert!(text.contains("error: bad value"), "{text}");
        assert!(text.contains("--> results/a.csv:2:3"), "{text}");
        assert!(text.contains("2 | 1,abc"), "{text}");
        assert!(text.contains("^^^"), "{text}");
        assert!(text.contains("= help: write a number"), "{text}");
    }
}
