//! CSV text to a columnar [`Table`], checking each cell against its declared type.

use csv::{ByteRecord, ReaderBuilder};

use super::split::{self, Context, Rows, Span, estimate_rows, read_span_into, read_spans};
use super::stream::{BLOCK_BYTES, Block, Blocks};
use super::{Column, Table, TextsBuilder, Values};
use crate::config::{ColumnType, Dataset};
use crate::diagnostic::{Diagnostic, Diagnostics, Location, suggest};
use crate::project::SourceFile;

/// Most problems reported per file; the rest are counted.
pub(super) const MAX_ERRORS: usize = 50;

/// Parse one CSV file, on every core for a large file. Every bad cell is
/// reported with its line and column.
pub(super) fn parse(file: &SourceFile, dataset: &Dataset) -> Result<Table, Diagnostics> {
    parse_in(file, dataset, rayon::current_num_threads(), BLOCK_BYTES)
}

/// [`parse`] in blocks of about `block` bytes, each in at most `parts` spans.
fn parse_in(file: &SourceFile, dataset: &Dataset, parts: usize, block: usize) -> Result<Table, Diagnostics> {
    let mut blocks = open(file, block)?;
    let first = blocks.next_block().map_err(|err| cannot_read(file, &err))?.unwrap_or(Block { bytes: Vec::new(), line: 1 });
    let bom = if first.bytes.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
    let bytes = &first.bytes[bom..];
    let mut errors = Diagnostics::default();
    let located = |line: u64, column: usize| Location::new(&file.path, line as usize, column);
    if bytes.iter().all(u8::is_ascii_whitespace) && blocks.done() {
        let hint = "add a header row and one row per run, or delete the file";
        return Err(Diagnostic::new(Location::file(&file.path), "results file is empty").hint(hint).into());
    }
    let mut reader = ReaderBuilder::new().flexible(true).from_reader(bytes);
    let headers = match reader.byte_headers() {
        Ok(h) => h.clone(),
        Err(err) => return Err(Diagnostic::new(located(1, 1), format!("cannot read the header: {err}")).into()),
    };
    let names = header_names(&headers, bytes, file, &mut errors);
    let types = column_types(&names, dataset, file, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    let start = reader.position().byte() as usize;
    let body = Span { start: bom + start, end: 0, line: 1 + memchr::memchr_iter(b'\n', &bytes[..start]).count() as u64 };
    let header = Header { names: &names, types: &types, body };
    // On every core; then by one reader if the spans cannot be joined.
    let (rows, hash) = match read_blocks(file, &header, parts, blocks, Some(first))? {
        Some(read) => read,
        None => read_blocks(file, &header, 1, open(file, block)?, None)?
            .ok_or_else(|| cannot_read(file, &std::io::ErrorKind::Other.into()))?,
    };
    if let Some(hash) = hash {
        file.hash.set(hash).ok();
    }
    let Rows { builders, lines, mut errors, dropped, .. } = rows;
    if lines.is_empty() && errors.is_empty() {
        return Err(Diagnostic::new(located(1, 1), "results file has a header but no rows")
            .hint("add one row per run below the header, or delete the file")
            .into());
    }
    let columns = names.iter().zip(builders).map(|(name, b)| Column { name: name.clone(), values: b.finish() }).collect();
    if dropped > 0 {
        errors.push(Diagnostic::new(Location::file(&file.path), format!("{dropped} more errors in this file not shown")));
    }
    errors.into_result(Table { name: file.stem(), path: file.path.clone(), columns, lines })
}

/// The header of a file: its column names and types, and where its rows begin.
struct Header<'a> {
    names: &'a [String],
    types: &'a [Option<ColumnType>],
    /// Where the first row starts, in the first block (`end` unused).
    body: Span,
}

/// The file's blocks of about `block` bytes, from its start.
fn open(file: &SourceFile, block: usize) -> Result<Blocks<'_>, Diagnostics> {
    Ok(Blocks::new(file.open().map_err(|err| cannot_read(file, &err))?, block))
}

/// Read every row of the file, block by block (`first`, if already read,
/// then the rest of `blocks`), each block in at most `parts` spans, with the
/// file's SHA-256 if it was read to the end. `None` when spans cannot be
/// joined as if one reader had read them (never for `parts` = 1).
fn read_blocks(
    file: &SourceFile, header: &Header, parts: usize, mut blocks: Blocks, mut first: Option<Block>,
) -> Result<Option<(Rows, Option<String>)>, Diagnostics> {
    let mut rows: Option<Rows> = None;
    let mut start = header.body.start;
    loop {
        let block = match first.take() {
            Some(block) => block,
            None => match blocks.next_block().map_err(|err| cannot_read(file, &err))? {
                Some(block) => block,
                None => break,
            },
        };
        let context = Context { bytes: &block.bytes, line: block.line, names: header.names, file, types: header.types };
        let line = if start > 0 { header.body.line } else { block.line };
        let span = Span { start: start.min(block.bytes.len()), end: block.bytes.len(), line };
        start = 0;
        // The columns get room for the whole file's rows at the first block.
        let all = rows.get_or_insert_with(|| Rows::new(header.types, estimate_rows(&block.bytes[span.start..], file.len() as usize)));
        if parts == 1 {
            read_span_into(&context, span, all);
            if all.malformed {
                break; // One reader stops at malformed CSV.
            }
        } else if read_spans(&context, &split::spans(&block.bytes, span.start, span.line, parts), all).is_none() {
            return Ok(None);
        }
    }
    Ok(Some((rows.unwrap_or_else(|| Rows::new(header.types, 0)), blocks.sha256())))
}

/// The error for a results file that cannot be read.
fn cannot_read(file: &SourceFile, err: &std::io::Error) -> Diagnostics {
    Diagnostic::new(Location::file(&file.path), format!("cannot read the file: {err}"))
        .hint("check that the file exists and is readable, then build again")
        .into()
}

/// One column being read: typed as declared, or numeric until a cell says otherwise.
pub(super) enum Builder {
    /// Numbers, with the declared type if any (`None`: inferred, may turn to text).
    Number(Option<ColumnType>, Vec<f64>),
    /// Text, each distinct value stored once.
    Text(TextsBuilder),
}

impl Builder {
    pub(super) fn new(declared: Option<ColumnType>, capacity: usize) -> Self {
        match declared {
            Some(ColumnType::Text) => Builder::Text(TextsBuilder::with_capacity(capacity)),
            other => Builder::Number(other, Vec::with_capacity(capacity)),
        }
    }

    /// Add one cell; a bad value is stored as empty and reported.
    pub(super) fn push(&mut self, text: &str) -> Result<(), (String, String)> {
        match self {
            Builder::Text(texts) => {
                texts.push(text);
                Ok(())
            }
            Builder::Number(declared, values) => match check_cell(text, declared.unwrap_or(ColumnType::Number), declared.is_some()) {
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
                    *self = Builder::Text(texts);
                    Ok(())
                }
                Err(problem) => {
                    values.push(f64::NAN);
                    Err(problem)
                }
            },
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

    /// Append the cells of the same column from the next span; `None` when
    /// the two spans inferred different types for an undeclared column.
    pub(super) fn append(&mut self, next: Builder) -> Option<()> {
        match (self, next) {
            (Builder::Number(_, values), Builder::Number(_, more)) => values.extend(more),
            (Builder::Text(texts), Builder::Text(more)) => texts.append(more.finish()),
            _ => return None,
        }
        Some(())
    }

    fn finish(self) -> Values {
        match self {
            Builder::Number(_, values) if values.iter().all(|v| v.is_nan()) && !values.is_empty() => {
                Values::Text(values.iter().map(|_| "").collect())
            }
            Builder::Number(_, values) => Values::Number(values),
            Builder::Text(texts) => Values::Text(texts.finish()),
        }
    }
}

/// Header names, checked for emptiness, duplicates and encoding.
fn header_names(headers: &ByteRecord, bytes: &[u8], file: &SourceFile, errors: &mut Diagnostics) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (i, raw) in headers.iter().enumerate() {
        let column = field_column(bytes, 0, i);
        let name = String::from_utf8_lossy(raw).trim().to_string();
        let at = Location::new(&file.path, 1, column);
        if name.is_empty() {
            errors.push(Diagnostic::new(at, format!("column {} has no name", i + 1)).hint("give every column a header"));
        } else if names.contains(&name) {
            errors.push(Diagnostic::new(at, format!("column `{name}` appears twice in the header"))
                .hint("rename or remove one of the two columns"));
        }
        names.push(name);
    }
    names
}

/// The declared type of each header column; `None` for undeclared ones (inferred later).
fn column_types(names: &[String], dataset: &Dataset, file: &SourceFile, errors: &mut Diagnostics) -> Vec<Option<ColumnType>> {
    let required: std::collections::BTreeSet<&String> = dataset.columns.keys().chain(&dataset.key).chain(&dataset.group_by).collect();
    for name in required {
        if !names.contains(name) {
            errors.push(
                Diagnostic::new(Location::new(&file.path, 1, 1), format!("required column `{name}` is missing"))
                    .hint(format!("book.toml's [data.{}] requires it; {}", file.stem(),
                        suggest(name, names.iter().map(String::as_str)))),
            );
        }
    }
    names.iter().map(|n| dataset.columns.get(n).copied()).collect()
}

/// Check one cell against `kind`; empty cells are allowed only in undeclared columns.
fn check_cell(text: &str, kind: ColumnType, declared: bool) -> Result<f64, (String, String)> {
    if text.is_empty() {
        return if declared {
            Err(("value is missing".into(), "every run needs this value; fill it in or remove the row".into()))
        } else {
            Ok(f64::NAN)
        };
    }
    let value: f64 = text.parse().map_err(|_| (format!("expected {}", describe(kind)), "write a plain number such as 42 or 0.5".to_string()))?;
    check_value(value, kind)
}

/// Check a parsed number against `kind`.
fn check_value(value: f64, kind: ColumnType) -> Result<f64, (String, String)> {
    if !value.is_finite() {
        return Err(("expected a finite number".into(), "NaN and infinite values are not results; remove the row of a failed run".into()));
    }
    let (ok, hint) = match kind {
        ColumnType::Integer => (value.fract() == 0.0, "write a whole number such as 32"),
        ColumnType::Positive => (value > 0.0, "a time or rate must be greater than zero; remove the row of a failed run"),
        ColumnType::NonNegative => (value >= 0.0, "this value cannot be negative"),
        ColumnType::Percent => ((0.0..=100.0).contains(&value), "a percentage lies between 0 and 100"),
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

/// Line and 1-based character column of field `index` of the records starting
/// on each of the `wanted` lines, read again from the file: for error
/// messages only. Column 1 where the file cannot be read again.
pub(super) fn locate(file: &SourceFile, wanted: &[(u64, usize)]) -> Vec<(u64, usize)> {
    let mut found: Vec<(u64, usize)> = wanted.iter().map(|&(line, _)| (line, 1)).collect();
    let Ok(mut blocks) = open(file, BLOCK_BYTES) else { return found };
    while let Ok(Some(block)) = blocks.next_block() {
        let last = block.line + memchr::memchr_iter(b'\n', &block.bytes).count() as u64;
        // A record starts in the block that holds its line; a line at a block's
        // end belongs to the next block, which is read later and wins.
        for (at, &(line, index)) in found.iter_mut().zip(wanted) {
            if (block.line..=last).contains(&line) {
                let (l, c) = position(&block.bytes, line + 1 - block.line, index);
                *at = (l + block.line - 1, c);
            }
        }
        if wanted.iter().all(|&(line, _)| line < last) {
            break;
        }
    }
    found
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
    bytes.iter().enumerate().filter(|(_, b)| **b == b'\n').nth(line as usize - 2).map_or(bytes.len(), |(i, _)| i + 1)
}

/// 1-based column of field `index` in a record that starts at byte `offset` (on one line).
pub(super) fn field_column(bytes: &[u8], offset: usize, index: usize) -> usize {
    let start = field_start(bytes, offset, index);
    String::from_utf8_lossy(&bytes[offset..start]).chars().count() + 1
}

/// Byte offset where field `index` starts, skipping commas inside quotes.
fn field_start(bytes: &[u8], offset: usize, index: usize) -> usize {
    let (mut field, mut quoted) = (0, false);
    for (i, &b) in bytes.iter().enumerate().skip(offset) {
        if field == index {
            return i;
        }
        match b {
            b'"' => quoted = !quoted,
            b',' if !quoted => field += 1,
            b'\n' if !quoted => return i,
            _ => {}
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn bad_cells_are_found_on_their_line_after_crlf_and_blank_lines() {
        let mut dataset = Dataset::default();
        dataset.columns.insert("b".into(), ColumnType::Positive);
        // Counted by hand: `x` sits on line 4, column 3, in every file.
        for text in ["a,b\r\n1,2\r\n3,4\r\n5,x\r\n", "a,b\n1,2\n\n5,x\n", "a,b\r\n\r\n1,2\r\n5,x"] {
            let file = SourceFile::new("results/r.csv", text.as_bytes().to_vec());
            for (parts, block) in [(1, usize::MAX / 2), (1, 3)] {
                let errors = parse_in(&file, &dataset, parts, block).unwrap_err();
                assert_eq!(errors.0[0].location.to_string(), "results/r.csv:4:3", "{text:?} in blocks of {block}");
            }
        }
    }

    #[test]
    fn infers_numbers_and_text() {
        let column = |cells: &[&str]| {
            let mut b = Builder::new(None, 0);
            for c in cells {
                let _ = b.push(c);
            }
            b.finish()
        };
        assert!(matches!(column(&["1", "", "2.5"]), Values::Number(v) if v[0] == 1.0 && v[1].is_nan()));
        assert!(matches!(column(&["1", "x"]), Values::Text(t) if t.get(0) == "1" && t.get(1) == "x"));
        assert!(matches!(column(&[""]), Values::Text(_)));
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

    #[test]
    fn spans_read_in_parallel_give_what_one_reader_gives() {
        let mut text = String::from("environment,procs,time_s,note\n");
        for i in 0..200_000 {
            let time = if i == 150_000 { "oops".to_string() } else { format!("{}.5", i % 7 + 1) };
            let note = if i == 190_000 { "text".to_string() } else { format!("{}", i % 3) };
            text.push_str(&format!("{},{},{time},{note}\n", ["base", "cand"][i % 2], 1 << (i % 4)));
        }
        text.push_str("cand,1\n");
        let file = SourceFile::new("results/runs.csv", text.into_bytes());
        let mut dataset = Dataset::default();
        dataset.columns.insert("time_s".into(), ColumnType::Positive);
        let render = |r: Result<Table, Diagnostics>| match r {
            Ok(t) => format!("{:?}", (t.lines, t.columns.iter().map(|c| format!("{}={:?}", c.name, c.values)).collect::<Vec<_>>())),
            Err(d) => d.0.iter().map(|d| format!("{}: {}", d.location, d.message)).collect::<Vec<_>>().join("\n"),
        };
        // One reader reading one block is the reference; blocks of 1 KB to 16 MB
        // (about 2,500 blocks down to one), one span or four per block, must give the same.
        let all = usize::MAX / 2;
        let one = render(parse_in(&file, &dataset, 1, all));
        assert!(one.contains("results/runs.csv:150002:"), "{}", &one[..one.len().min(400)]);
        assert!(one.contains("results/runs.csv:200002:"), "{}", &one[..one.len().min(400)]);
        for (parts, block) in [(4, all), (4, BLOCK_BYTES), (4, 1 << 20), (1, 1000), (2, 1000), (4, 70_001)] {
            assert_eq!(render(parse_in(&file, &dataset, parts, block)), one, "{parts} spans, blocks of {block} bytes");
        }
        // Without the bad cells, the table itself (an inferred column turning to text late) matches too.
        let clean = String::from_utf8(file.bytes.clone()).unwrap().replace("oops", "2.5").replace("cand,1\n", "");
        let file = SourceFile::new("results/runs.csv", clean.into_bytes());
        let one = render(parse_in(&file, &dataset, 1, all));
        assert!(one.starts_with("([2, 3, 4"), "{}", &one[..100]);
        for (parts, block) in [(4, all), (1, 1000), (4, 1000), (4, 70_001)] {
            assert_eq!(render(parse_in(&file, &dataset, parts, block)), one, "{parts} spans, blocks of {block} bytes");
        }
    }

    #[test]
    fn small_blocks_read_quotes_marks_and_bad_rows_as_one_block_does() {
        let rows = "base,1,2.5\n".repeat(40);
        let cases = [
            // A quoted field with a line break, after the first blocks.
            format!("environment,procs,time_s\n{rows}\"ba\nse\",2,3.5\n{rows}"),
            // A byte order mark, Windows line ends and a bad cell near the end.
            format!("\u{feff}environment,procs,time_s\r\n{}base,2,x\r\nbase,4,1\r\n", rows.replace('\n', "\r\n")),
            // Malformed CSV (a quote left open) after the first blocks.
            format!("environment,procs,time_s\n{rows}base,\"2,3\n{rows}"),
            // A row with too few fields, and a file without a final line end.
            format!("environment,procs,time_s\n{rows}base,2\n{rows}base,8,9"),
        ];
        let mut dataset = Dataset::default();
        dataset.columns.insert("time_s".into(), ColumnType::Positive);
        let render = |r: Result<Table, Diagnostics>| match r {
            Ok(t) => format!("{:?}", (t.lines, t.columns.iter().map(|c| format!("{}={:?}", c.name, c.values)).collect::<Vec<_>>())),
            Err(d) => d.0.iter().map(|d| format!("{}: {}", d.location, d.message)).collect::<Vec<_>>().join("\n"),
        };
        for text in cases {
            let file = SourceFile::new("results/runs.csv", text.into_bytes());
            let one = render(parse_in(&file, &dataset, 1, usize::MAX / 2));
            for (parts, block) in [(1, 7), (2, 7), (2, 64), (4, 100)] {
                assert_eq!(render(parse_in(&file, &dataset, parts, block)), one, "{parts} spans, blocks of {block} bytes");
            }
        }
    }

    #[test]
    fn locate_finds_columns_in_any_block() {
        let text = format!("a,b,c\n{}x,yy,zzz\n", "1,2,3\n".repeat(100));
        let file = SourceFile::new("results/r.csv", text.into_bytes());
        // Line 102 holds `x,yy,zzz`: field 2 starts at column 6.
        assert_eq!(locate(&file, &[(102, 2), (2, 1), (200, 0)]), [(102, 6), (2, 3), (200, 1)]);
    }

    /// The fast path may only accept what std's parser accepts, with the same bits.
    #[test]
    fn the_fast_number_path_agrees_with_std() {
        let mut cases: Vec<String> = [
            "1", "+1", "-1", "1.", ".5", "+.5", "-.5", ".", "+", "-", "", "1e", "1e+", "1e5", "1E-5", "1e+5",
            "0x10", "1_0", "1,5", "١", "inf", "+inf", "-inf", "infinity", "Infinity", "INF", "nan", "NaN",
            "-nan", "nan(1)", "1.5e308", "1e309", "4.9e-324", "1e-400", "00012", "1.2.3", "1e5.5", "e5", " 1",
            "1 ", "\t2\t", "1\u{a0}", "\u{b}3", "0.1000000000000000055511151231257827", "-0", "-0.0", "1d", "1f",
            "123456789012345678901234567890", "2.2250738585072011e-308", "9007199254740993", "0.30000000000000004",
        ].iter().map(|s| s.to_string()).collect();
        cases.push("1".repeat(800));
        cases.push(format!("0.{}1", "0".repeat(400)));
        // A deterministic spray of strings over the characters numbers are made of.
        let alphabet = b"0123456789.eE+- in";
        let mut x = 0x2545F4914F6CDD1Du64;
        for _ in 0..20_000 {
            let mut s = String::new();
            for _ in 0..(x % 9) {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                s.push(alphabet[(x % alphabet.len() as u64) as usize] as char);
            }
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            cases.push(s);
        }
        assert!(Builder::new(None, 0).push_number(b" 2.5e3 "), "the fast path reads plain numbers");
        for case in &cases {
            for kind in [None, Some(ColumnType::Number), Some(ColumnType::Positive), Some(ColumnType::Integer)] {
                let mut fast = Builder::new(kind, 0);
                if fast.push_number(case.as_bytes()) {
                    let Builder::Number(_, values) = fast else { unreachable!() };
                    let slow = check_cell(case.trim(), kind.unwrap_or(ColumnType::Number), kind.is_some());
                    assert_eq!(slow.map(f64::to_bits), Ok(values[0].to_bits()), "{case:?} as {kind:?}");
                }
            }
        }
    }
}
