//! A results file's rows read into typed columns: the rows after the header
//! cut into spans of whole records, read on every core, and joined as one
//! reader would have read them.

use super::cells::Builder;
use super::position::position;
use super::split::{self, Context, Rows, Span, read_span_into, read_spans};
use super::{Column, Texts, Values};
use crate::config::ColumnType;
use crate::diagnostic::{Diagnostic, Diagnostics, Location};
use crate::project::SourceFile;

/// The header of a file: its column names and types, and where its rows begin.
pub(super) struct Header<'a> {
    pub names: &'a [String],
    pub types: &'a [Option<ColumnType>],
    /// The cells that mark a missing value (`[data.NAME] missing`).
    pub missing: &'a [String],
    /// The file's section of book.toml, for hints: `[data.runs]`.
    pub section: &'a str,
    /// Where the first row starts (`end` unused).
    pub body: Span,
}

/// Every row of `bytes` (the whole file) after the header, in spans of at
/// least `min_span` bytes, at most `parts` of them, read on every core; read
/// again by one reader when the spans cannot be joined as if one reader had
/// read them (malformed CSV, or an undeclared column typed differently in two
/// spans).
pub(super) fn read_rows(
    file: &SourceFile,
    bytes: &[u8],
    header: &Header,
    parts: usize,
    min_span: usize,
) -> Result<Rows, Diagnostics> {
    refuse_lone_carriage_returns(file, bytes)?;
    let context = Context {
        bytes,
        names: header.names,
        file,
        types: header.types,
        missing: header.missing,
        section: header.section,
    };
    let Span { start, line, .. } = header.body;
    let whole = Span { start: start.min(bytes.len()), end: bytes.len(), line };
    if parts > 1 {
        let spans = split::spans(bytes, whole.start, line, parts, min_span);
        // Room for every row at once: the columns never grow by copying.
        let room = split::room(&spans, whole);
        let (mut rows, mut spare) = (Rows::new(header.types, room), Vec::new());
        if spans.len() > 1 && read_spans(&context, &spans, &mut rows, &mut spare).is_some() {
            return Ok(rows);
        }
    }
    let mut rows = Rows::new(header.types, 0);
    read_span_into(&context, whole, &mut rows);
    Ok(rows)
}

/// The columns of the rows read, named, and the line of each row. A column
/// of only empty cells is text (of empty values).
pub(super) fn columns(names: &[String], rows: Rows) -> (Vec<Column>, Vec<u32>) {
    let columns = names
        .iter()
        .zip(rows.builders)
        .map(|(name, builder)| {
            let values = match builder {
                Builder::Number(_, values)
                    if !values.is_empty() && values.iter().all(|v| v.is_nan()) =>
                {
                    let codes = vec![0; values.len()];
                    Values::Text(Texts { words: vec![String::new()], codes })
                }
                Builder::Number(_, values) => Values::Number(values),
                Builder::Text(texts, _) => {
                    let (words, codes) = texts.finish();
                    Values::Text(Texts { words, codes })
                }
            };
            Column { name: name.clone(), values }
        })
        .collect();
    (columns, rows.lines)
}

/// The error for a line of the file that ends in a carriage return alone
/// (classic Mac OS line ends), at that carriage return.
fn refuse_lone_carriage_returns(file: &SourceFile, bytes: &[u8]) -> Result<(), Diagnostics> {
    let Some(at) = super::records::lone_carriage_return(bytes) else { return Ok(()) };
    let before = &bytes[..at];
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    let line = 1 + memchr::memchr_iter(b'\n', before).count();
    let column = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
    let name = file.path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    Err(Diagnostic::new(
        Location::new(&file.path, line, column),
        "this line ends in a carriage return alone (classic Mac OS line ends)",
    )
    .hint(format!(
        "lines of a results file end in \\n or \\r\\n; convert the file, for example with \
         `tr '\\r' '\\n' < {name} > {name}.new && mv {name}.new {name}`"
    ))
    .into())
}

/// The error for a results file that cannot be read.
pub(super) fn cannot_read(file: &SourceFile, err: &std::io::Error) -> Diagnostics {
    Diagnostic::new(Location::file(&file.path), format!("cannot read the file: {err}"))
        .hint("check that the file exists and is readable, then build again")
        .into()
}

/// Line and 1-based character column of field `index` of the records starting
/// on each of the `wanted` lines of `bytes`, the file as read: for error
/// messages only.
pub(super) fn locate(bytes: &[u8], wanted: &[(u64, usize)]) -> Vec<(u64, usize)> {
    wanted.iter().map(|&(line, index)| position(bytes, line, index)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Dataset;
    use crate::results::parse::parse_in;
    use crate::results::{Table, Values};

    /// A column's values as text, however they are stored.
    fn show(values: &Values) -> String {
        match values {
            Values::Number(v) => format!("{:?}", v.to_vec()),
            Values::Text(t) => format!("{:?}", (&t.words, t.codes.to_vec())),
        }
    }

    /// A parsed table (lines, columns) or its errors, as text to compare.
    fn render(result: Result<Table, Diagnostics>) -> String {
        match result {
            Ok(t) => format!(
                "{:?}",
                (
                    t.lines.to_vec(),
                    t.columns
                        .iter()
                        .map(|c| format!("{}={}", c.name, show(&c.values)))
                        .collect::<Vec<_>>()
                )
            ),
            Err(d) => {
                d.0.iter()
                    .map(|d| format!("{}: {}", d.location, d.message))
                    .collect::<Vec<_>>()
                    .join("\n")
            }
        }
    }

    #[test]
    fn bad_cells_are_found_on_their_line_after_crlf_and_blank_lines() {
        let mut dataset = Dataset::default();
        dataset.columns.insert("b".into(), ColumnType::Positive);
        // Counted by hand: `x` sits on line 4, column 3, in every file.
        for text in ["a,b\r\n1,2\r\n3,4\r\n5,x\r\n", "a,b\n1,2\n\n5,x\n", "a,b\r\n\r\n1,2\r\n5,x"] {
            let file = SourceFile::new("results/r.csv", text.as_bytes().to_vec());
            for (parts, span) in [(1, usize::MAX / 2), (1, 3)] {
                let errors = parse_in(&file, &dataset, parts, span).unwrap_err();
                assert_eq!(
                    errors.0[0].location.to_string(),
                    "results/r.csv:4:3",
                    "{text:?} in spans of at least {span} bytes"
                );
            }
        }
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
        // One reader is the reference; up to four spans of at least 1 KB to
        // 1 MiB, on several cores, must give the same.
        let all = usize::MAX / 2;
        let one = render(parse_in(&file, &dataset, 1, all));
        assert!(one.contains("results/runs.csv:150002:"), "{}", &one[..one.len().min(400)]);
        assert!(one.contains("results/runs.csv:200002:"), "{}", &one[..one.len().min(400)]);
        for (parts, span) in [(4, all), (4, 1 << 20), (1, 1000), (2, 1000), (4, 70_001)] {
            assert_eq!(
                render(parse_in(&file, &dataset, parts, span)),
                one,
                "{parts} spans of at least {span} bytes"
            );
        }
        // Without the bad cells, the table itself (an inferred column turning to text late) matches too.
        let clean = String::from_utf8(file.bytes.clone())
            .unwrap()
            .replace("oops", "2.5")
            .replace("cand,1\n", "");
        let file = SourceFile::new("results/runs.csv", clean.into_bytes());
        let one = render(parse_in(&file, &dataset, 1, all));
        assert!(one.starts_with("([2, 3, 4"), "{}", &one[..100]);
        for (parts, span) in [(4, all), (1, 1000), (4, 1000), (4, 70_001)] {
            assert_eq!(
                render(parse_in(&file, &dataset, parts, span)),
                one,
                "{parts} spans of at least {span} bytes"
            );
        }
    }

    #[test]
    fn small_spans_read_quotes_marks_and_bad_rows_as_one_reader_does() {
        let rows = "base,1,2.5\n".repeat(40);
        let cases = [
            // A quoted field with a line break, past the first spans.
            format!("environment,procs,time_s\n{rows}\"ba\nse\",2,3.5\n{rows}"),
            // A byte order mark, Windows line ends and a bad cell near the end.
            format!(
                "\u{feff}environment,procs,time_s\r\n{}base,2,x\r\nbase,4,1\r\n",
                rows.replace('\n', "\r\n")
            ),
            // Malformed CSV (a quote left open) past the first spans.
            format!("environment,procs,time_s\n{rows}base,\"2,3\n{rows}"),
            // A row with too few fields, and a file without a final line end.
            format!("environment,procs,time_s\n{rows}base,2\n{rows}base,8,9"),
        ];
        let mut dataset = Dataset::default();
        dataset.columns.insert("time_s".into(), ColumnType::Positive);
        for text in cases {
            let file = SourceFile::new("results/runs.csv", text.into_bytes());
            let one = render(parse_in(&file, &dataset, 1, usize::MAX / 2));
            for (parts, span) in [(1, 7), (2, 7), (2, 64), (4, 100)] {
                assert_eq!(
                    render(parse_in(&file, &dataset, parts, span)),
                    one,
                    "{parts} spans of at least {span} bytes"
                );
            }
        }
    }

    /// An undeclared column turns to text partway: one reader writes the
    /// numbers before as `1.1` and keeps the cells after as written, `1.10`.
    /// Blocks and spans that start with numbers must not write `1.1` instead.
    #[test]
    fn numbers_turned_to_text_read_as_one_reader_reads_them() {
        let rows = |n: usize| "base,1,2.5,1.10\n".repeat(n);
        let text = format!(
            "environment,procs,time_s,version\n{}base,1,2.5,dev\n{}base,1,2.5,dev\n{}",
            rows(30),
            rows(3000),
            rows(30)
        );
        let file = SourceFile::new("results/runs.csv", text.into_bytes());
        let parse = |parts, span| match parse_in(&file, &Dataset::default(), parts, span) {
            Ok(t) => show(&t.columns[3].values),
            Err(d) => format!("{d:?}"),
        };
        let one = parse(1, usize::MAX / 2);
        assert!(one.contains("\"1.1\"") && one.contains("\"1.10\""), "{one}");
        for (parts, span) in [(2, usize::MAX / 2), (1, 100), (2, 100), (4, 1000)] {
            assert_eq!(parse(parts, span), one, "{parts} spans of at least {span} bytes");
        }
    }

    #[test]
    fn locate_finds_columns_on_any_line() {
        let text = format!("a,b,c\n{}x,yy,zzz\n", "1,2,3\n".repeat(100));
        let file = SourceFile::new("results/r.csv", text.into_bytes());
        // Line 102 holds `x,yy,zzz`: field 2 starts at column 6.
        assert_eq!(
            locate(&file.bytes, &[(102, 2), (2, 1), (200, 0)]),
            [(102, 6), (2, 3), (200, 1)]
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, ..Default::default() })]

        /// Any text made of the characters that matter to CSV (quotes, commas,
        /// line ends, numbers and words) reads the same in tiny spans on
        /// several cores as by one reader: rows, lines, types and errors.
        #[test]
        fn any_text_reads_the_same_in_spans(body in "([a1.,\"\r\n ]|1\\.10|x){0,120}", parts in 1usize..4, span in 1usize..40) {
            let file = SourceFile::new("results/r.csv", format!("a,b\n{body}").into_bytes());
            let read = |parts, span| render(parse_in(&file, &Dataset::default(), parts, span));
            proptest::prop_assert_eq!(read(parts, span), read(1, usize::MAX / 2));
        }
    }
}
