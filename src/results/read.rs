//! A results file's rows read into typed columns by the csv crate's reader
//! (see [`super::rows`]), and where a bad cell is, for messages.

use super::cells::Builder;
use super::position::position;
use super::rows::{Body, Context, Rows, read_body};
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
    /// Where the first row starts.
    pub body: Body,
}

/// Every row of `bytes` (the whole file) after the header.
pub(super) fn read_rows(
    file: &SourceFile,
    bytes: &[u8],
    header: &Header,
) -> Result<Rows, Diagnostics> {
    let context = Context {
        bytes,
        names: header.names,
        file,
        missing: header.missing,
        section: header.section,
    };
    let mut rows = Rows::new(header.types, 0);
    read_body(&context, header.body, &mut rows)?;
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
                Builder::Text(texts) => {
                    let (words, codes) = texts.finish();
                    Values::Text(Texts { words, codes })
                }
            };
            Column { name: name.clone(), values }
        })
        .collect();
    (columns, rows.lines)
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
    use crate::results::parse::parse;
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
            let errors = parse(&file, &dataset).unwrap_err();
            assert_eq!(errors.0[0].location.to_string(), "results/r.csv:4:3", "{text:?}");
        }
    }

    #[test]
    fn quotes_marks_and_bad_rows_read_as_the_csv_crate_reads_them() {
        let rows = "base,1,2.5\n".repeat(3);
        let mut dataset = Dataset::default();
        dataset.columns.insert("time_s".into(), ColumnType::Positive);
        let read = |text: String| {
            render(parse(&SourceFile::new("results/runs.csv", text.into_bytes()), &dataset))
        };
        let bad = "column `time_s`: expected a number greater than zero, found `x`";
        // A quoted field with a line break: the next row is on line 7.
        let text = format!("environment,procs,time_s\n{rows}\"ba\nse\",2,3.5\nbase,4,x\n");
        assert_eq!(read(text), format!("results/runs.csv:7:8: {bad}"));
        // A byte order mark and Windows line ends: the bad cell is on line 5.
        let crlf = rows.replace('\n', "\r\n");
        let text = format!("\u{feff}environment,procs,time_s\r\n{crlf}base,2,x\r\n");
        assert_eq!(read(text), format!("results/runs.csv:5:8: {bad}"));
        // A row with too few fields.
        let short = read(format!("environment,procs,time_s\n{rows}base,2\n"));
        assert_eq!(short, "results/runs.csv:5:7: row has 2 fields but the header has 3");
    }

    /// A line ended by a carriage return alone, outside quotes, is refused at
    /// it (counted by hand); inside quotes it is data.
    #[test]
    fn lone_carriage_returns_are_refused_outside_quotes_only() {
        let read = |text: &str| {
            let file = SourceFile::new("results/r.csv", text.as_bytes().to_vec());
            render(parse(&file, &Dataset::default()))
        };
        let lone = "this line ends in a carriage return alone (classic Mac OS line ends)";
        assert_eq!(read("a,b\r1,2\r3,4\r"), format!("results/r.csv:1:4: {lone}"));
        assert_eq!(read("a,b\n1,2\r3,4\n"), format!("results/r.csv:2:4: {lone}"));
        assert_eq!(read("a,b\n\"x\ry\",2\n\"z\"\r1,2\n"), format!("results/r.csv:3:4: {lone}"));
        assert!(read("a,b\r\n1,2\r\n\"x\ry\",3\r\n").starts_with("([2, 3]"));
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
}
