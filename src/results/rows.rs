//! A results file's rows read by the csv crate's own reader, one record at
//! a time, each cell into its typed column, every bad cell reported at its
//! line and column.

use csv::{ByteRecord, ReaderBuilder};

use super::cells::Builder;
use super::position::{field_column, field_range, position_at};
use crate::config::ColumnType;
use crate::diagnostic::{Cause, Diagnostic, Excerpt, Location, MAX_QUOTED_CHARS, Tally, excerpt};
use crate::project::SourceFile;

/// Where a file's rows begin: the byte after its header, on a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Body {
    /// Byte offset of the first row.
    pub start: usize,
    /// 1-based line of that byte.
    pub line: u64,
}

/// What the reader of a file's rows needs to know about the file.
pub(super) struct Context<'a> {
    /// The whole file.
    pub bytes: &'a [u8],
    pub names: &'a [String],
    pub file: &'a SourceFile,
    /// The cells that mark a missing value (`[data.NAME] missing`).
    pub missing: &'a [String],
    /// The file's section of book.toml, for hints: `[data.runs]`.
    pub section: &'a str,
}

/// The rows of a file, typed into columns, with the problems found.
pub(super) struct Rows {
    pub builders: Vec<Builder>,
    /// The line each row starts on.
    pub lines: Vec<u32>,
    /// The problems found, grouped by cause.
    pub errors: Tally,
}

impl Rows {
    /// No rows yet, with room for `capacity` in columns of `types`.
    pub(super) fn new(types: &[Option<ColumnType>], capacity: usize) -> Self {
        Rows {
            builders: types.iter().map(|t| Builder::new(*t, capacity)).collect(),
            lines: Vec::with_capacity(capacity),
            errors: Tally::default(),
        }
    }

    /// Count `problem` with the others of its cause.
    pub(super) fn report(&mut self, problem: Diagnostic) {
        self.errors.push(problem);
    }
}

/// Read every row of the file after its header (`body`) into `rows`; the
/// error of a carriage return alone ending a line (every later line number
/// would be wrong), found where two records start on one line.
pub(super) fn read_body(context: &Context, body: Body, rows: &mut Rows) -> Result<(), Diagnostic> {
    let Context { bytes, .. } = *context;
    let start = body.start.min(bytes.len());
    let mut reader =
        ReaderBuilder::new().flexible(true).has_headers(false).from_reader(&bytes[start..]);
    let mut record = ByteRecord::new();
    let lines = Lines { line: body.line };
    // The header's line: a row on it followed a lone carriage return.
    let mut previous = (start > 0).then_some(1);
    loop {
        match reader.read_byte_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(err) => {
                let line = err
                    .position()
                    .map_or(0, |p| lines.at(bytes, start + p.byte() as usize, p.line()).0);
                rows.errors.push(Diagnostic::new(
                    context.located(line, 1),
                    format!("malformed CSV: {err}"),
                ));
                break;
            }
        }
        let (line, offset) = record
            .position()
            .map_or((0, 0), |p| lines.at(bytes, start + p.byte() as usize, p.line()));
        if previous == Some(line) {
            return Err(lone_carriage_return(context, offset));
        }
        previous = Some(line);
        if record.len() != context.names.len() {
            rows.report(wrong_field_count(context, &record, line, offset));
            continue;
        }
        push_fields(context, &record, line, offset, rows);
        rows.lines.push(u32::try_from(line).unwrap_or(u32::MAX));
    }
    Ok(())
}

/// The error for a record that starts at byte `offset` on the line of the
/// one before it: a carriage return alone (classic Mac OS line ends) ended
/// that one, at the last `\r` before `offset`.
fn lone_carriage_return(context: &Context, offset: usize) -> Diagnostic {
    let bytes = context.bytes;
    let at = memchr::memrchr(b'\r', &bytes[..offset]).unwrap_or(offset);
    let before = &bytes[..at];
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    let line = 1 + memchr::memchr_iter(b'\n', before).count();
    let column = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
    let file = context.file;
    let name = file.path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    Diagnostic::new(
        Location::new(&file.path, line, column),
        "this line ends in a carriage return alone (classic Mac OS line ends)",
    )
    .hint(format!(
        "lines of a results file end in \\n or \\r\\n; convert the file, for example with \
         `tr '\\r' '\\n' < {name} > {name}.new && mv {name}.new {name}`"
    ))
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
    /// The line of the first byte read.
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
