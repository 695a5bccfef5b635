//! How results reach the terminal: an error chain printed once, each
//! diagnostic rendered with its source line (coloured as `--color` says),
//! or with `--message-format json` one array on standard output.

use std::sync::OnceLock;

use report::diagnostic::render::{self, Format, Level};
use report::diagnostic::{Diagnostic, Diagnostics};

/// Whether diagnostics on standard error are coloured, decided once.
static COLOR: OnceLock<bool> = OnceLock::new();

/// Decide, once, whether diagnostics on standard error are coloured.
pub fn set_color(color: bool) {
    let _ = COLOR.set(color);
}

/// Write `text` to standard output. A reader that has gone (`report diff |
/// head`, a closed pipe) ends the command quietly with success, as it ends
/// `cat` or ripgrep: what was asked for was read; any other failure to
/// write is an error. Nothing the commands print to standard output panics.
pub fn out(text: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "error: cannot write to standard output: {e}");
            std::process::exit(1)
        }
    }
}

/// [`out`] with a line break after `text`.
pub fn line(text: &str) {
    out(&format!("{text}\n"));
}

/// Print the error chain once: each diagnostic rendered, or anyhow's chain.
pub fn error(err: &anyhow::Error, format: Format) {
    match err.downcast_ref::<Diagnostics>() {
        Some(diagnostics) => {
            let diagnostics = diagnostics.clone().grouped();
            diagnostics_of(
                &diagnostics.0.iter().map(|d| (Level::Error, d)).collect::<Vec<_>>(),
                format,
            );
            if diagnostics.total() > 1 && format != Format::Json {
                eprintln!("error: {}; nothing was written", diagnostics.summary());
            }
        }
        None if format == Format::Json => line(
            &serde_json::json!([{ "level": "error", "message": format!("{err:#}") }]).to_string(),
        ),
        None => eprintln!("error: {err:#}"),
    }
}

/// The warnings of a command that succeeded: with `--message-format json`,
/// always one array on standard output (`[]` when there are none).
pub fn finish(warnings: &[Diagnostic], format: Format) {
    if format == Format::Json && warnings.is_empty() {
        line("[]");
    } else {
        warnings_of(warnings, format);
    }
}

/// Print `warnings` as warnings, one per cause.
pub fn warnings_of(warnings: &[Diagnostic], format: Format) {
    let warnings = Diagnostics(warnings.to_vec()).grouped();
    diagnostics_of(&warnings.0.iter().map(|w| (Level::Warning, w)).collect::<Vec<_>>(), format);
}

/// Print diagnostics with the source lines they carry: JSON on standard
/// output, anything else on standard error, coloured as `--color` says.
pub fn diagnostics_of(diagnostics: &[(Level, &Diagnostic)], format: Format) {
    if diagnostics.is_empty() {
        return;
    }
    if format == Format::Json {
        out(&render::render(diagnostics, format, false));
    } else {
        let color = format == Format::Human && COLOR.get().copied().unwrap_or(false);
        let text = render::render(diagnostics, format, color);
        let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), text.as_bytes());
    }
}
