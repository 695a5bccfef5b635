//! Reading a file's rows in spans of whole records, one span per core, and
//! joining the spans' columns as if one reader had read them all.

use csv::{ByteRecord, ReaderBuilder};

use super::cells::Builder;
use super::position::{field_column, field_range, position_at};
use crate::config::ColumnType;
use crate::diagnostic::{Cause, Diagnostic, Excerpt, Location, MAX_QUOTED_CHARS, Tally, excerpt};
use crate::project::SourceFile;

/// Spans are at least this long: for smaller ones threads would cost more than they save.
pub(super) const MIN_SPAN_BYTES: usize = 1 << 20;

/// A run of whole rows of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    /// Byte offset of the first row.
    pub start: usize,
    /// Byte offset just past the last row.
    pub end: usize,
    /// 1-based line of the first row.
    pub line: u64,
}

/// The rows from byte `start` (on line `line`, at a record's start) to the end
/// of the file, cut into at most `parts` spans of at least `min_span` bytes at
/// line ends that end a record (not inside a quoted field, which may hold a
/// line break).
pub(super) fn spans(
    bytes: &[u8],
    start: usize,
    line: u64,
    parts: usize,
    min_span: usize,
) -> Vec<Span> {
    let whole = Span { start, end: bytes.len(), line };
    let length = bytes.len().saturating_sub(start);
    let parts = parts.min(length / min_span.max(1)).max(1);
    if parts == 1 {
        return vec![whole];
    }
    let quoted = memchr::memchr(b'"', &bytes[start..]).is_some();
    let mut spans = Vec::with_capacity(parts);
    let mut current = whole;
    for part in 1..parts {
        let target = (start + length * part / parts).max(current.start);
        let end = if quoted {
            super::records::record_ends(bytes, current.start).find(|&end| end > target)
        } else {
            memchr::memchr(b'\n', &bytes[target..]).map(|newline| target + newline + 1)
        };
        let Some(end) = end else { break };
        let lines = memchr::memchr_iter(b'\n', &bytes[current.start..end]).count() as u64;
        spans.push(Span { end, ..current });
        current = Span { start: end, end: bytes.len(), line: current.line + lines };
    }
    spans.push(current);
    spans.retain(|s| s.start < s.end);
    spans
}

/// Rows to make room for to read `span`, from the lines per byte of the
/// first of `spans` (cut at line ends, so its lines are known), with a
/// tenth more: room never used is never touched.
pub(super) fn room(spans: &[Span], span: Span) -> usize {
    let (Some(first), Some(second)) = (spans.first(), spans.get(1)) else { return 0 };
    let per_byte = (second.line - first.line) as f64 / (first.end - first.start).max(1) as f64;
    (1.1 * per_byte * (span.end - span.start) as f64) as usize + 16
}

/// What every span's reader needs to know about the file.
pub(super) struct Context<'a> {
    /// The whole file.
    pub bytes: &'a [u8],
    pub names: &'a [String],
    pub file: &'a SourceFile,
    pub types: &'a [Option<ColumnType>],
    /// The cells that mark a missing value (`[data.NAME] missing`).
    pub missing: &'a [String],
    /// The file's section of book.toml, for hints: `[data.runs]`.
    pub section: &'a str,
}

/// The rows of one span, typed into columns, with the problems found.
pub(super) struct Rows {
    pub builders: Vec<Builder>,
    /// The line each row starts on.
    pub lines: Vec<u32>,
    /// The problems found, grouped by cause.
    pub errors: Tally,
    /// The CSV reader stopped on an error before the span's end.
    pub malformed: bool,
}

impl Rows {
    /// No rows yet, with room for `capacity` in columns of `types`.
    pub(super) fn new(types: &[Option<ColumnType>], capacity: usize) -> Self {
        Rows {
            builders: types.iter().map(|t| Builder::new(*t, capacity)).collect(),
            lines: Vec::with_capacity(capacity),
            errors: Tally::default(),
            malformed: false,
        }
    }

    /// Append the rows of the span after this one. `None` when the spans cannot
    /// be joined as if read in one go: a span stopped early, or an undeclared
    /// column was inferred as numbers in one span and as text in another.
    pub(super) fn append(&mut self, next: &mut Rows) -> Option<()> {
        if self.malformed || next.malformed {
            return None;
        }
        for (builder, other) in self.builders.iter_mut().zip(next.builders.iter_mut()) {
            builder.append(other)?;
        }
        self.lines.extend_from_slice(&next.lines);
        next.lines.clear();
        self.errors.append(&mut next.errors);
        Some(())
    }

    /// Room for at least `rows` more rows in every column.
    pub(super) fn reserve(&mut self, rows: usize) {
        self.builders.iter_mut().for_each(|b| b.reserve(rows));
        self.lines.reserve(rows);
    }

    /// Empty, ready for the next span, keeping the room already taken.
    pub(super) fn reset(&mut self, types: &[Option<ColumnType>]) {
        self.builders.iter_mut().zip(types).for_each(|(b, t)| b.reset(*t));
        self.lines.clear();
        (self.errors, self.malformed) = (Tally::default(), false);
    }

    /// Count `problem` with the others of its cause.
    pub(super) fn report(&mut self, problem: Diagnostic) {
        self.errors.push(problem);
    }
}

/// Read the spans on every core and append their rows to `rows`, in file
/// order, reading all but the first span into `spare`; `None` when they must be read again by
/// one reader.
pub(super) fn read_spans(
    context: &Context,
    spans: &[Span],
    rows: &mut Rows,
    spare: &mut Vec<Rows>,
) -> Option<()> {
    use rayon::prelude::*;
    let (first, rest) = spans.split_first()?;
    spare.resize_with(rest.len().max(spare.len()), || Rows::new(context.types, 0));
    for (span, part) in rest.iter().zip(spare.iter_mut()) {
        part.reserve(room(spans, *span));
    }
    // The first span continues `rows` in place; the others are read beside it and appended.
    rayon::join(
        || read_span_into(context, *first, rows),
        || {
            rest.par_iter().zip(spare.par_iter_mut()).for_each(|(span, part)| {
                part.reset(context.types);
                read_span_into(context, *span, part);
            })
        },
    );
    for part in &mut spare[..rest.len()] {
        rows.append(part)?;
    }
    (!rows.malformed).then_some(())
}

/// Read every row of `span` into `rows`, after the rows already there.
pub(super) fn read_span_into(context: &Context, span: Span, rows: &mut Rows) {
    let Context { bytes, names, .. } = *context;
    let mut reader = ReaderBuilder::new()
        .flexible(true)
        .has_headers(false)
        .from_reader(&bytes[span.start..span.end]);
    let mut record = ByteRecord::new();
    let lines = Lines { line: span.line };
    loop {
        match reader.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(err) => {
                let line = err
                    .position()
                    .map_or(0, |p| lines.at(bytes, span.start + p.byte() as usize, p.line()).0);
                rows.errors.push(Diagnostic::new(
                    context.located(line, 1),
                    format!("malformed CSV: {err}"),
                ));
                rows.malformed = true;
                break;
            }
        }
        let (line, offset) = record
            .position()
            .map_or((0, 0), |p| lines.at(bytes, span.start + p.byte() as usize, p.line()));
        if record.len() != names.len() {
            rows.report(wrong_field_count(context, &record, line, offset));
            continue;
        }
        push_fields(context, &record, line, offset, rows);
        rows.lines.push(u32::try_from(line).unwrap_or(u32::MAX));
    }
}

/// The problem with a record (starting on `line`, at byte `offset`) that has
/// more or fewer fields than the header, at the first field too many or missing.
fn wrong_field_count(
    context: &Context,
    record: &ByteRecord,
    line: u64,
    offset: usize,
) -> Diagnostic {
    let expected = context.names.len();
    let column = field_column(context.bytes, offset, record.len().min(expected));
    let path = context.file.path.display();
    let cause = Cause::new(
        format!("{path}\0field count"),
        format!("rows have {{values}} fields but the header has {expected}"),
    )
    .rows();
    let field = field_range(context.bytes, offset, record.len().min(expected));
    Diagnostic::new(
        context.located(line, column),
        format!("row has {} fields but the header has {expected}", record.len()),
    )
    .hint("every row needs one value per header column; quote values that contain commas")
    .cause(cause, record.len().to_string())
    .excerpt(Excerpt::of_range(context.bytes, field))
}

/// Add each field of `record` (starting on `line`, at byte `offset`) to its column of `rows`;
/// a bad cell is added as empty and reported at its line and column.
fn push_fields(context: &Context, record: &ByteRecord, line: u64, offset: usize, rows: &mut Rows) {
    for (i, field) in record.iter().enumerate() {
        let builder = &mut rows.builders[i];
        let marked = !context.missing.is_empty() && context.marks_missing(field);
        if !marked && builder.push_number(field) {
            continue;
        }
        let field_text = std::str::from_utf8(field).map(|t| if marked { "" } else { t });
        let problem = match field_text {
            Ok(text) => builder.push(trim(text), context.section).err().map(|(message, hint)| {
                let found = excerpt(text.trim(), MAX_QUOTED_CHARS).into_owned();
                let name = &context.names[i];
                let path = context.file.path.display();
                let cause = Cause::new(
                    format!("{path}\0column {name}\0{message}\0{hint}"),
                    format!("column `{name}`: {message}, found {{values}}"),
                )
                .rows();
                (format!("column `{name}`: {message}, found `{found}`"), hint, Some((cause, found)))
            }),
            Err(_) => {
                builder.push("", context.section).ok();
                let message = "value is not valid UTF-8".to_string();
                Some((message, "save the file as UTF-8".to_string(), None))
            }
        };
        if let Some((message, hint, cause)) = problem {
            let (l, c) = position_at(context.bytes, offset, line, i);
            let field = Excerpt::of_range(context.bytes, field_range(context.bytes, offset, i));
            let problem = Diagnostic::new(context.located(l, c), message).hint(hint).excerpt(field);
            rows.report(match cause {
                Some((cause, found)) => problem.cause(cause, found),
                None => problem,
            });
        }
    }
}

/// Line numbers of records. The reader's own count is one short after a
/// `\r\n` line end or a blank line, because a record's position is taken
/// before the line ends that precede it; those are counted here.
struct Lines {
    /// The line of the span's first byte.
    line: u64,
}

impl Lines {
    /// The line and byte offset at which the record read from `offset` (on
    /// `line`, by the reader's count) starts, past the line ends before it.
    fn at(&self, bytes: &[u8], offset: usize, line: u64) -> (u64, usize) {
        let skipped = &bytes[offset
            ..offset + bytes[offset..].iter().take_while(|&&b| b == b'\r' || b == b'\n').count()];
        (
            self.line + line - 1 + memchr::memchr_iter(b'\n', skipped).count() as u64,
            offset + skipped.len(),
        )
    }
}

impl Context<'_> {
    /// Whether `field` is, spaces aside, one of the declared markers of a
    /// missing value: then it is read as an empty cell.
    fn marks_missing(&self, field: &[u8]) -> bool {
        let field = field.trim_ascii();
        self.missing.iter().any(|m| m.trim().as_bytes() == field)
    }

    /// The location of `line` and `column` in the file.
    fn located(&self, line: u64, column: usize) -> Location {
        Location::new(&self.file.path, line as usize, column)
    }
}

/// `text` without surrounding whitespace; most cells have none, and are returned as they are.
fn trim(text: &str) -> &str {
    match (text.as_bytes().first(), text.as_bytes().last()) {
        (Some(a), Some(b)) if a.is_ascii_graphic() && b.is_ascii_graphic() => text,
        _ => text.trim(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_cover_the_rows_once_and_end_on_line_ends() {
        let row = "base,1,1,10.5\n";
        let text = format!("a,b,c,d\n{}", row.repeat(300_000));
        let bytes = text.as_bytes();
        let found = spans(bytes, 8, 2, 3, MIN_SPAN_BYTES);
        assert_eq!(found.len(), 3);
        assert_eq!(found[0].start, 8);
        assert_eq!(found[2].end, bytes.len());
        for pair in found.windows(2) {
            assert_eq!(pair[0].end, pair[1].start);
            assert_eq!(bytes[pair[0].end - 1], b'\n');
            // The next span's line is one past the newlines before it.
            let newlines = bytes[..pair[1].start].iter().filter(|&&b| b == b'\n').count() as u64;
            assert_eq!(pair[1].line, newlines + 1);
        }
    }

    /// Room for a span: its rows (counted by hand: 14 bytes a row), and a
    /// tenth more; none to guess from for a file left whole.
    #[test]
    fn room_is_the_rows_of_the_span_and_a_tenth() {
        let text = format!("a,b,c,d\n{}", "base,1,1,10.5\n".repeat(300_000));
        let bytes = text.as_bytes();
        let found = spans(bytes, 8, 2, 3, MIN_SPAN_BYTES);
        let rows = |s: Span| (s.end - s.start) / 14;
        for span in &found {
            let room = room(&found, *span);
            assert!(room >= rows(*span) * 11 / 10 && room <= rows(*span) * 11 / 10 + 17, "{room}");
        }
        let whole = Span { start: 8, end: bytes.len(), line: 2 };
        assert!(room(&found, whole) >= 330_000);
        assert_eq!(room(&[whole], whole), 0);
    }

    #[test]
    fn small_files_stay_whole_and_quoted_ones_are_cut_between_records() {
        let small = b"a\n1\n2\n";
        assert_eq!(spans(small, 2, 2, 4, MIN_SPAN_BYTES), vec![Span { start: 2, end: 6, line: 2 }]);
        // Halfway through, a quoted field holds a line break: the cut comes after its record.
        let half = "1\n".repeat(1 << 20);
        let quoted = format!("a\n{half}\"x\ny\"\n{half}");
        let found = spans(quoted.as_bytes(), 2, 2, 2, MIN_SPAN_BYTES);
        let after = 2 + half.len() + "\"x\ny\"\n".len();
        assert_eq!(
            found,
            vec![
                Span { start: 2, end: after, line: 2 },
                Span { start: after, end: quoted.len(), line: 2 + (1 << 20) + 2 }
            ]
        );
    }
}
