//! CSV text to a columnar [`Table`], checking each cell against its declared type.

use csv::{ByteRecord, ReaderBuilder};

use std::sync::Arc;

use super::read::{Header, cannot_read, open, read_blocks};
use super::split::{Rows, Span};
use super::stream::{BLOCK_BYTES, Block, Quoting, Step};
use super::{Store, Table, TextsBuilder};
use crate::config::{ColumnType, Dataset};
use crate::diagnostic::{Diagnostic, Diagnostics, Location, suggest};
use crate::project::SourceFile;

/// Most problems reported per file; the rest are counted.
pub(super) const MAX_ERRORS: usize = 50;

/// Parse one CSV file, on every core for a large file. Every bad cell is
/// reported with its line and column.
pub(super) fn parse(
    file: &SourceFile,
    dataset: &Dataset,
    store: &Arc<Store>,
) -> Result<Table, Diagnostics> {
    parse_in(file, dataset, store, rayon::current_num_threads(), BLOCK_BYTES)
}

/// [`parse`] in blocks of about `block` bytes, each in at most `parts` spans.
pub(super) fn parse_in(
    file: &SourceFile,
    dataset: &Dataset,
    store: &Arc<Store>,
    parts: usize,
    block: usize,
) -> Result<Table, Diagnostics> {
    let mut blocks = open(file, block)?;
    let first = blocks
        .next_block()
        .map_err(|err| cannot_read(file, &err))?
        .unwrap_or(Block { bytes: Vec::new(), line: 1 });
    let bom = if first.bytes.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
    let bytes = &first.bytes[bom..];
    let mut errors = Diagnostics::default();
    let located = |line: u64, column: usize| Location::new(&file.path, line as usize, column);
    if bytes.iter().all(u8::is_ascii_whitespace) && blocks.done() {
        let hint = "add a header row and one row per run, or delete the file";
        return Err(Diagnostic::new(Location::file(&file.path), "results file is empty")
            .hint(hint)
            .into());
    }
    let mut reader = ReaderBuilder::new().flexible(true).from_reader(bytes);
    let headers = match reader.byte_headers() {
        Ok(h) => h.clone(),
        Err(err) => {
            return Err(
                Diagnostic::new(located(1, 1), format!("cannot read the header: {err}")).into()
            );
        }
    };
    let names = header_names(&headers, bytes, file, &mut errors);
    let types = column_types(&names, dataset, file, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    let start = reader.position().byte() as usize;
    let body = Span {
        start: bom + start,
        end: 0,
        line: 1 + memchr::memchr_iter(b'\n', &bytes[..start]).count() as u64,
    };
    let header = Header { names: &names, types: &types, body };
    // On every core; then by one reader if the spans cannot be joined.
    let (filled, rows, hash) = match read_blocks(file, &header, store, parts, blocks, Some(first))?
    {
        Some(read) => read,
        None => read_blocks(file, &header, store, 1, open(file, block)?, None)?
            .ok_or_else(|| cannot_read(file, &std::io::ErrorKind::Other.into()))?,
    };
    if let Some(hash) = hash {
        file.hash.set(hash).ok();
    }
    let Rows { mut errors, dropped, .. } = rows;
    if filled.len() == 0 && errors.is_empty() {
        return Err(Diagnostic::new(located(1, 1), "results file has a header but no rows")
            .hint("add one row per run below the header, or delete the file")
            .into());
    }
    let (columns, lines) = filled.finish(&names);
    if dropped > 0 {
        errors.push(Diagnostic::new(
            Location::file(&file.path),
            format!("{dropped} more errors in this file not shown"),
        ));
    }
    errors.into_result(Table { name: file.stem(), path: file.path.clone(), columns, lines })
}

/// One column being read: typed as declared, or numeric until a cell says otherwise.
pub(super) enum Builder {
    /// Numbers, with the declared type if any (`None`: inferred, may turn to text).
    Number(Option<ColumnType>, Vec<f64>),
    /// Text, each distinct value stored once; `true` if the column turned to
    /// text after numbers, which were then written in their shortest form
    /// (`1.10` as `1.1`).
    Text(TextsBuilder, bool),
}

impl Builder {
    pub(super) fn new(declared: Option<ColumnType>, capacity: usize) -> Self {
        match declared {
            Some(ColumnType::Text) => Builder::Text(TextsBuilder::with_capacity(capacity), false),
            other => Builder::Number(other, Vec::with_capacity(capacity)),
        }
    }

    /// Add one cell; a bad value is stored as empty and reported.
    pub(super) fn push(&mut self, text: &str) -> Result<(), (String, String)> {
        match self {
            Builder::Text(texts, _) => {
                texts.push(text);
                Ok(())
            }
            Builder::Number(declared, values) => {
                match check_cell(text, declared.unwrap_or(ColumnType::Number), declared.is_some()) {
                    Ok(v) => {
                        values.push(v);
                        Ok(())
                    }
                    // An undeclared column with a non-number becomes a text column.
                    Err(_) if declared.is_none() && text.parse::<f64>().is_err() => {
                        let mut texts = TextsBuilder::default();
                        for v in values.iter() {
                            texts.push(&crate::format::plain(*v));
                        }
                        texts.push(text);
                        // Empty cells convert to empty text, as one reader keeps them.
                        *self = Builder::Text(texts, values.iter().any(|v| !v.is_nan()));
                        Ok(())
                    }
                    Err(problem) => {
                        values.push(f64::NAN);
                        Err(problem)
                    }
                }
            }
        }
    }

    /// Add a well-formed number straight from the cell's bytes, skipping the
    /// UTF-8 check and the text path (most cells of a results file). Returns
    /// false, having added nothing, for anything else, which [`Builder::push`]
    /// then handles and reports.
    pub(super) fn push_number(&mut self, field: &[u8]) -> bool {
        let Builder::Number(declared, values) = self else { return false };
        // fast-float2 reads what std's `f64::from_str` reads, rounding the same
        // way, only faster (a unit test compares the two).
        let Ok(value) = fast_float2::parse::<f64, _>(field.trim_ascii()) else { return false };
        if check_value(value, declared.unwrap_or(ColumnType::Number)).is_err() {
            return false;
        }
        values.push(value);
        true
    }

    /// Move the cells of the same column from the next span to the end of
    /// this one; `None` when the two spans inferred different types for an
    /// undeclared column, or when the next span turned numbers to text that one
    /// reader, already reading text, would have kept as written (`1.10`, not `1.1`).
    pub(super) fn append(&mut self, next: &mut Builder) -> Option<()> {
        match (self, next) {
            (Builder::Number(_, values), Builder::Number(_, more)) => {
                values.extend_from_slice(more);
                more.clear();
            }
            (Builder::Text(texts, _), Builder::Text(more, false)) => texts.append_from(more),
            _ => return None,
        }
        Some(())
    }

    /// Empty, ready for the next span: of the declared type, or numeric until a
    /// cell says otherwise (a numeric column keeps the room it took).
    pub(super) fn reset(&mut self, declared: Option<ColumnType>) {
        match self {
            Builder::Number(_, values) => values.clear(),
            // A fresh text column: the next block maps only its own distinct values.
            Builder::Text(..) => *self = Builder::new(declared, 0),
        }
    }
}

/// Header names, checked for emptiness, duplicates and encoding.
fn header_names(
    headers: &ByteRecord,
    bytes: &[u8],
    file: &SourceFile,
    errors: &mut Diagnostics,
) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (i, raw) in headers.iter().enumerate() {
        let column = field_column(bytes, 0, i);
        let name = String::from_utf8_lossy(raw).trim().to_string();
        let at = Location::new(&file.path, 1, column);
        if name.is_empty() {
            errors.push(
                Diagnostic::new(at, format!("column {} has no name", i + 1))
                    .hint("give every column a header"),
            );
        } else if names.contains(&name) {
            errors.push(
                Diagnostic::new(at, format!("column `{name}` appears twice in the header"))
                    .hint("rename or remove one of the two columns"),
            );
        }
        names.push(name);
    }
    names
}

/// The declared type of each header column; `None` for undeclared ones (inferred later).
fn column_types(
    names: &[String],
    dataset: &Dataset,
    file: &SourceFile,
    errors: &mut Diagnostics,
) -> Vec<Option<ColumnType>> {
    let required: std::collections::BTreeSet<&String> =
        dataset.columns.keys().chain(&dataset.key).chain(&dataset.group_by).collect();
    for name in required {
        if !names.contains(name) {
            errors.push(
                Diagnostic::new(
                    Location::new(&file.path, 1, 1),
                    format!("required column `{name}` is missing"),
                )
                .hint(format!(
                    "book.toml's [data.{}] requires it; {}",
                    file.stem(),
                    suggest(name, names.iter().map(String::as_str))
                )),
            );
        }
    }
    names.iter().map(|n| dataset.columns.get(n).copied()).collect()
}

/// Check one cell against `kind`; empty cells are allowed only in undeclared columns.
fn check_cell(text: &str, kind: ColumnType, declared: bool) -> Result<f64, (String, String)> {
    if text.is_empty() {
        return if declared {
            Err((
                "value is missing".into(),
                "every run needs this value; fill it in or remove the row".into(),
            ))
        } else {
            Ok(f64::NAN)
        };
    }
    let value: f64 = text.parse().map_err(|_| {
        (
            format!("expected {}", describe(kind)),
            "write a plain number such as 42 or 0.5".to_string(),
        )
    })?;
    check_value(value, kind)
}

/// Check a parsed number against `kind`.
fn check_value(value: f64, kind: ColumnType) -> Result<f64, (String, String)> {
    if !value.is_finite() {
        return Err((
            "expected a finite number".into(),
            "NaN and infinite values are not results; remove the row of a failed run".into(),
        ));
    }
    let (ok, hint) = match kind {
        ColumnType::Integer => (value.fract() == 0.0, "write a whole number such as 32"),
        ColumnType::Positive => (
            value > 0.0,
            "a time or rate must be greater than zero; remove the row of a failed run",
        ),
        ColumnType::NonNegative => (value >= 0.0, "this value cannot be negative"),
        ColumnType::Percent => {
            ((0.0..=100.0).contains(&value), "a percentage lies between 0 and 100")
        }
        ColumnType::Number | ColumnType::Text => (true, ""),
    };
    if ok { Ok(value) } else { Err((format!("expected {}", describe(kind)), hint.to_string())) }
}

fn describe(kind: ColumnType) -> &'static str {
    match kind {
        ColumnType::Text => "text",
        ColumnType::Integer => "a whole number",
        ColumnType::Number => "a number",
        ColumnType::Positive => "a number greater than zero",
        ColumnType::NonNegative => "a number of zero or more",
        ColumnType::Percent => "a percentage from 0 to 100",
    }
}

/// Line and 1-based character column of field `index` of the record starting on `line`.
pub(super) fn position(bytes: &[u8], line: u64, index: usize) -> (u64, usize) {
    let offset = line_offset(bytes, line);
    let start = field_start(bytes, offset, index);
    let newlines = bytes[offset..start].iter().filter(|&&b| b == b'\n').count() as u64;
    let line_start = bytes[..start].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    (line + newlines, String::from_utf8_lossy(&bytes[line_start..start]).chars().count() + 1)
}

fn line_offset(bytes: &[u8], line: u64) -> usize {
    if line <= 1 {
        return 0;
    }
    bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(line as usize - 2)
        .map_or(bytes.len(), |(i, _)| i + 1)
}

/// 1-based column of field `index` in a record that starts at byte `offset` (on one line).
pub(super) fn field_column(bytes: &[u8], offset: usize, index: usize) -> usize {
    let start = field_start(bytes, offset, index);
    String::from_utf8_lossy(&bytes[offset..start]).chars().count() + 1
}

/// Byte offset where field `index` starts, skipping commas inside quotes, or
/// where the record ends if it has fewer fields.
fn field_start(bytes: &[u8], offset: usize, index: usize) -> usize {
    let (mut field, mut quoting) = (0, Quoting::Start);
    for (i, &b) in bytes.iter().enumerate().skip(offset) {
        if field == index {
            return i;
        }
        match quoting.step(b) {
            Step::FieldEnd => field += 1,
            Step::LineEnd => return i,
            Step::Inside => {}
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Values;

    #[test]
    fn field_columns_skip_quoted_commas() {
        let text = b"a,\"b,c\",d\n";
        assert_eq!(field_column(text, 0, 0), 1);
        assert_eq!(field_column(text, 0, 1), 3);
        assert_eq!(field_column(text, 0, 2), 9);
    }

    #[test]
    fn cell_positions_follow_lines() {
        let text = b"x,y\n1,2\n3,\"4\n5\",6\n";
        assert_eq!(position(text, 2, 1), (2, 3));
        assert_eq!(position(text, 3, 2), (4, 4));
    }

    #[test]
    fn infers_numbers_and_text() {
        let column = |cells: &[&str]| {
            let text =
                format!("c,d\n{}", cells.iter().map(|c| format!("{c},1\n")).collect::<String>());
            let file = SourceFile::new("results/r.csv", text.into_bytes());
            parse_in(&file, &Dataset::default(), &Store::new(0), 1, usize::MAX / 2)
                .unwrap()
                .columns
                .remove(0)
                .values
        };
        assert!(
            matches!(column(&["1", "", "2.5"]), Values::Number(v) if v.get(0) == 1.0 && v.get(1).is_nan())
        );
        assert!(
            matches!(column(&["1", "x"]), Values::Text(t) if t.get(0) == "1" && t.get(1) == "x")
        );
        assert!(matches!(column(&["", ""]), Values::Text(t) if t.words == [""]));
    }

    #[test]
    fn checks_cells_by_type() {
        assert!(check_cell("0", ColumnType::Positive, true).is_err());
        assert!(check_cell("-1", ColumnType::Positive, true).is_err());
        assert!(check_cell("NaN", ColumnType::Number, true).is_err());
        assert!(check_cell("inf", ColumnType::Number, false).is_err());
        assert!(check_cell("1e999", ColumnType::Number, true).is_err());
        assert!(check_cell("2.5", ColumnType::Integer, true).is_err());
        assert_eq!(check_cell("32", ColumnType::Integer, true), Ok(32.0));
        assert_eq!(check_cell("", ColumnType::Number, false).map(f64::is_nan), Ok(true));
        assert!(check_cell("", ColumnType::Number, true).is_err());
    }

    /// The fast path may only accept what std's parser accepts, with the same bits.
    #[test]
    fn the_fast_number_path_agrees_with_std() {
        let mut cases: Vec<String> = [
            "1",
            "+1",
            "-1",
            "1.",
            ".5",
            "+.5",
            "-.5",
            ".",
            "+",
            "-",
            "",
            "1e",
            "1e+",
            "1e5",
            "1E-5",
            "1e+5",
            "0x10",
            "1_0",
            "1,5",
            "١",
            "inf",
            "+inf",
            "-inf",
            "infinity",
            "Infinity",
            "INF",
            "nan",
            "NaN",
            "-nan",
            "nan(1)",
            "1.5e308",
            "1e309",
            "4.9e-324",
            "1e-400",
            "00012",
            "1.2.3",
            "1e5.5",
            "e5",
            " 1",
            "1 ",
            "\t2\t",
            "1\u{a0}",
            "\u{b}3",
            "0.1000000000000000055511151231257827",
            "-0",
            "-0.0",
            "1d",
            "1f",
            "123456789012345678901234567890",
            "2.2250738585072011e-308",
            "9007199254740993",
            "0.30000000000000004",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        cases.push("1".repeat(800));
        cases.push(format!("0.{}1", "0".repeat(400)));
        // A deterministic spray of strings over the characters numbers are made of.
        let alphabet = b"0123456789.eE+- in";
        let mut x = 0x2545F4914F6CDD1Du64;
        for _ in 0..20_000 {
            let mut s = String::new();
            for _ in 0..(x % 9) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.push(alphabet[(x % alphabet.len() as u64) as usize] as char);
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            cases.push(s);
        }
        assert!(Builder::new(None, 0).push_number(b" 2.5e3 "), "the fast path reads plain numbers");
        for case in &cases {
            for kind in [
                None,
                Some(ColumnType::Number),
                Some(ColumnType::Positive),
                Some(ColumnType::Integer),
            ] {
                let mut fast = Builder::new(kind, 0);
                if fast.push_number(case.as_bytes()) {
                    let Builder::Number(_, values) = fast else { unreachable!() };
                    let slow =
                        check_cell(case.trim(), kind.unwrap_or(ColumnType::Number), kind.is_some());
                    assert_eq!(
                        slow.map(f64::to_bits),
                        Ok(values[0].to_bits()),
                        "{case:?} as {kind:?}"
                    );
                }
            }
        }
    }
}
