//! The source line a diagnostic was made from, cut to a window around the
//! span it points at, kept with the diagnostic so that printing it never
//! reads the file again (the file may be large, or changed since).

use std::ops::Range;

/// Most characters of a source line kept and shown under a diagnostic: a
/// longer line is cut to this many around the span, with `…` where it was cut.
pub const WINDOW: usize = 120;

/// A window of one source line and the span in it that a diagnostic points at.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Excerpt {
    /// The window of the line, with `…` marks where it was cut, control
    /// characters made visible (`�`).
    pub text: String,
    /// The span's bytes in `text` (start, end).
    pub span: (usize, usize),
    /// Characters of the line cut before the window.
    pub shift: usize,
    /// Bytes of the leading `…` mark in `text` (0 or 3).
    pub prefix: usize,
}

impl Excerpt {
    /// The excerpt of the line of `text` that holds byte `range.start`, the
    /// span being `range` clamped to that line: for parsers that give a byte
    /// range. The text may be any bytes; invalid UTF-8 is shown as `�`.
    pub fn of_range(text: &[u8], range: Range<usize>) -> Excerpt {
        let start = range.start.min(text.len());
        let line_start = memchr::memrchr(b'\n', &text[..start]).map_or(0, |i| i + 1);
        let line_end = memchr::memchr(b'\n', &text[start..]).map_or(text.len(), |i| start + i);
        let line = &text[line_start..line_end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        // A span at the stripped `\r` (or past the end) starts at the line's end.
        let from = (start - line_start).min(line.len());
        let start = line_start + from;
        // Only the part of a long line near the span is decoded.
        let lead = from.saturating_sub(4 * WINDOW);
        let tail = (from + 4 * WINDOW).min(line.len());
        let before = String::from_utf8_lossy(&line[lead..from]);
        let after = String::from_utf8_lossy(&line[from..tail]);
        let to = range.end.clamp(start, line_start + tail) - start;
        let token_end = String::from_utf8_lossy(&line[from..from + to]).len();
        let window = format!("{before}{after}");
        let shift = String::from_utf8_lossy(&line[..lead]).chars().count();
        let token = before.len()..before.len() + token_end;
        let mut excerpt = Excerpt::of_line(&window, token);
        excerpt.shift += shift;
        excerpt
    }

    /// The excerpt of line `line` (1-based) of `text` at `column` (1-based,
    /// in characters; 0 for the whole line), for parsers that give only a
    /// position: the span is the token there (a quoted string, or up to the
    /// next space or punctuation). `None` past the end of the text. The text
    /// may be any bytes; invalid UTF-8 is shown as `�`.
    pub fn at(text: &[u8], line: usize, column: usize) -> Option<Excerpt> {
        let start = match line {
            0 => return None,
            1 => 0,
            _ => memchr::memchr_iter(b'\n', text).nth(line - 2)? + 1,
        };
        let end = memchr::memchr(b'\n', &text[start..]).map_or(text.len(), |i| start + i);
        let bytes = &text[start..end];
        let line_text = String::from_utf8_lossy(bytes.strip_suffix(b"\r").unwrap_or(bytes));
        Some(Excerpt::of_line(&line_text, token(&line_text, column)))
    }

    /// The window of `line` (one line, without its line end) around the byte
    /// range `token`.
    pub fn of_line(line: &str, token: Range<usize>) -> Excerpt {
        let count = line.chars().count();
        let caret = line[..token.start.min(line.len())].chars().count();
        let shift =
            if count <= WINDOW { 0 } else { caret.saturating_sub(WINDOW / 3).min(count - WINDOW) };
        let byte = |chars: usize| line.char_indices().nth(chars).map_or(line.len(), |(i, _)| i);
        let (from, to) = (byte(shift), byte(shift + WINDOW));
        let mut text = String::from(if from > 0 { "…" } else { "" });
        let prefix = text.len();
        let (mut start, mut end) = (None, None);
        for (i, c) in line[from..to].char_indices().map(|(i, c)| (from + i, c)) {
            if i == token.start.max(from) {
                start = Some(text.len());
            }
            if i == token.end.min(to) {
                end = Some(text.len());
            }
            text.push(if super::is_hidden_control(c) { '\u{FFFD}' } else { c });
        }
        let start = start.unwrap_or(text.len());
        let end = end.unwrap_or(text.len()).max(start);
        if to < line.len() {
            text.push('…');
        }
        Excerpt { text, span: (start, end), shift, prefix }
    }
}

/// The byte span in `line` of the token at `column` (1-based; column 0
/// means the whole line), clamped to the line.
fn token(line: &str, column: usize) -> Range<usize> {
    if column == 0 {
        return 0..line.len();
    }
    let start = line.char_indices().nth(column - 1).map_or(line.len(), |(i, _)| i);
    let rest = &line[start..];
    let len = if let Some(quoted) = rest.strip_prefix('"') {
        quoted.find('"').map_or(rest.len(), |i| i + 2)
    } else {
        rest.find(|c: char| c.is_whitespace() || ",;)]}\"'".contains(c)).unwrap_or(rest.len())
    };
    start..start + len.max(rest.chars().next().map_or(0, char::len_utf8))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(e: &Excerpt) -> &str {
        &e.text[e.span.0..e.span.1]
    }

    #[test]
    fn positions_cover_the_token_or_quoted_string() {
        let text = b"a,bb,c\nname = \"tq\" x\r\n";
        assert_eq!(shown(&Excerpt::at(text, 1, 3).unwrap()), "bb");
        assert_eq!(shown(&Excerpt::at(text, 2, 8).unwrap()), "\"tq\"");
        assert_eq!(shown(&Excerpt::at(text, 2, 0).unwrap()), "name = \"tq\" x");
        assert_eq!(Excerpt::at(text, 9, 1), None);
    }

    /// A parser's range is kept as it is, clamped to its line, on any bytes.
    #[test]
    fn ranges_are_kept_and_clamped_to_their_line() {
        let text = b"a,b\n1,\"x y\",3\r\n\xff,z\n";
        let e = Excerpt::of_range(text, 6..11);
        assert_eq!((e.text.as_str(), shown(&e)), ("1,\"x y\",3", "\"x y\""));
        // A range past its line ends at the line's end.
        assert_eq!(shown(&Excerpt::of_range(text, 9..40)), "y\",3");
        let e = Excerpt::of_range(text, 17..18);
        assert_eq!((e.text.as_str(), shown(&e)), ("\u{FFFD},z", "z"));
    }

    /// A range in the middle of a line of a million characters keeps a
    /// window of 120 around it, and the count of characters cut before.
    #[test]
    fn a_long_line_keeps_a_window_around_the_range() {
        let line = format!("{}\u{1b},abc,{}", "x".repeat(500_000), "é".repeat(500_000));
        let text = format!("h\n{line}\n");
        let at = 2 + 500_002;
        let e = Excerpt::of_range(text.as_bytes(), at..at + 3);
        assert_eq!(shown(&e), "abc");
        assert_eq!(e.shift + e.text[e.prefix..e.span.0].chars().count(), 500_002);
        assert!(e.text.chars().count() <= WINDOW + 2, "{}", e.text);
    }
}
