//! CSV text to a columnar [`Table`], checking each cell against its declared type.

use csv::{ByteRecord, ReaderBuilder};

use super::Table;
use super::position::field_column;
use super::read::{Header, columns, read_rows};
use super::rows::{Body, Rows};
use crate::config::{ColumnType, Dataset};
use crate::diagnostic::{Diagnostic, Diagnostics, Location, MAX_QUOTED_CHARS, excerpt, suggest};
use crate::project::SourceFile;

/// Parse one CSV file whose content is `file.bytes`. Every bad cell is
/// reported with its line and column.
pub(super) fn parse(file: &SourceFile, dataset: &Dataset) -> Result<Table, Diagnostics> {
    let bytes = file.bytes.as_slice();
    let row = read_header(file, dataset, bytes)?;
    let section = format!("[data.{}]", file.stem());
    let header = Header {
        names: &row.names,
        types: &row.types,
        missing: &dataset.missing,
        section: &section,
        body: row.body,
    };
    let rows = read_rows(file, bytes, &header)?;
    finish(file, &row.names, rows)
}

/// A file's header row as read, which a [`Header`] borrows.
struct HeaderRow {
    /// The column names, in file order.
    names: Vec<String>,
    /// The declared type of each column; `None` for undeclared ones.
    types: Vec<Option<ColumnType>>,
    /// Where the first row starts.
    body: Body,
}

/// The header row at the start of the file's `bytes` (past a byte order
/// mark): the column names, their declared types, and where the rows begin.
/// An error for an empty file, an unreadable header, or bad or missing
/// column names.
fn read_header(file: &SourceFile, dataset: &Dataset, all: &[u8]) -> Result<HeaderRow, Diagnostics> {
    let bom = if all.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
    let bytes = &all[bom..];
    super::encoding::check(file, bytes)?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        let hint = "add a header row and one row per run, or delete the file";
        return Err(Diagnostic::new(Location::file(&file.path), "results file is empty")
            .hint(hint)
            .into());
    }
    let mut reader = ReaderBuilder::new().flexible(true).from_reader(bytes);
    let headers = match reader.byte_headers() {
        Ok(h) => h.clone(),
        Err(err) => {
            let at = Location::new(&file.path, 1, 1);
            return Err(Diagnostic::new(at, format!("cannot read the header: {err}")).into());
        }
    };
    if headers.len() > MAX_COLUMNS {
        return Err(too_many_columns(file, bytes, headers.len()));
    }
    super::encoding::separator(file, &headers, bytes)?;
    let mut errors = Diagnostics::default();
    let names = header_names(&headers, bytes, file, &mut errors);
    let types = column_types(&names, dataset, file, &mut errors);
    if !errors.is_empty() {
        return Err(errors);
    }
    let start = reader.position().byte() as usize;
    let body = Body {
        start: bom + start,
        line: 1 + memchr::memchr_iter(b'\n', &bytes[..start]).count() as u64,
    };
    Ok(HeaderRow { names, types, body })
}

/// Most columns a results file may have: each costs a column builder and a
/// check per row, and a header of a million names would take minutes and
/// gigabytes before any row is read.
pub const MAX_COLUMNS: usize = 1_024;

/// The error for a header of `count` columns, more than [`MAX_COLUMNS`]: at
/// the first column too many.
fn too_many_columns(file: &SourceFile, bytes: &[u8], count: usize) -> Diagnostics {
    let at = Location::new(&file.path, 1, field_column(bytes, 0, MAX_COLUMNS));
    Diagnostic::new(at, format!("the header has {count} columns; a results file has at most {MAX_COLUMNS}"))
        .hint("one column per label or measured value, one row per run: split a wide table into several files, or write it in long form")
        .into()
}

/// The table of the rows read, or every problem found in them, one
/// diagnostic per cause: a header without rows is one.
fn finish(file: &SourceFile, names: &[String], mut rows: Rows) -> Result<Table, Diagnostics> {
    if rows.lines.is_empty() && rows.errors.is_empty() {
        return Err(Diagnostic::new(
            Location::new(&file.path, 1, 1),
            "results file has a header but no rows",
        )
        .hint("add one row per run below the header, or delete the file")
        .into());
    }
    let errors = std::mem::take(&mut rows.errors);
    let (columns, lines) = columns(names, rows);
    errors.into_diagnostics().into_result(Table {
        name: file.stem(),
        path: file.path.clone(),
        columns,
        lines,
    })
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
        let mut name = String::from_utf8_lossy(raw).trim().to_string();
        // pandas' `df.to_csv()` writes the index first, its header empty
        // (`Unnamed: 0` once read and written again): a row number, named `index`.
        let pandas = i == 0 && (name.is_empty() || name == "Unnamed: 0");
        if pandas && !headers.iter().any(|h| h == b"index") {
            name = "index".into();
        }
        let at = Location::new(&file.path, 1, column);
        let shown = excerpt(&name, MAX_QUOTED_CHARS);
        if name.is_empty() {
            errors.push(
                Diagnostic::new(at, format!("column {} has no name", i + 1))
                    .hint("give every column a header"),
            );
        } else if names.contains(&name) {
            errors.push(
                Diagnostic::new(at, format!("column `{shown}` appears twice in the header"))
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
    check_required(names, dataset, file, Location::new(&file.path, 1, 1), errors);
    names.iter().map(|n| dataset.columns.get(n).copied()).collect()
}

/// An error at `at` for each column book.toml requires that `names` lacks.
pub(super) fn check_required(
    names: &[String],
    dataset: &Dataset,
    file: &SourceFile,
    at: Location,
    errors: &mut Diagnostics,
) {
    let required: std::collections::BTreeSet<&String> =
        dataset.columns.keys().chain(&dataset.key).chain(&dataset.group_by).collect();
    for name in required {
        if !names.contains(name) {
            errors.push(
                Diagnostic::new(at.clone(), format!("required column `{name}` is missing")).hint(
                    format!(
                        "book.toml's [data.{}] requires it; {}",
                        file.stem(),
                        suggest(name, names.iter().map(String::as_str))
                    ),
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Values;

    #[test]
    fn infers_numbers_and_text() {
        let column = |cells: &[&str]| {
            let text =
                format!("c,d\n{}", cells.iter().map(|c| format!("{c},1\n")).collect::<String>());
            let file = SourceFile::new("results/r.csv", text.into_bytes());
            parse(&file, &Dataset::default()).unwrap().columns.remove(0).values
        };
        assert!(
            matches!(column(&["1", "", "2.5"]), Values::Number(v) if v[0] == 1.0 && v[1].is_nan())
        );
        assert!(
            matches!(column(&["1", "x"]), Values::Text(t) if t.get(0) == "1" && t.get(1) == "x")
        );
        assert!(matches!(column(&["", ""]), Values::Text(t) if t.words == [""]));
    }

    /// A header of a million columns is refused at once, at column 1,025
    /// (each name `cN,` is counted by hand: 10 of 3 characters, 90 of 4, 900
    /// of 5 and 24 of 6 before it).
    #[test]
    fn a_header_of_a_million_columns_is_refused_at_once() {
        let header: Vec<String> = (0..1_000_000).map(|i| format!("c{i}")).collect();
        let text = format!("{}\n{}\n", header.join(","), vec!["1"; 1_000_000].join(","));
        let file = SourceFile::new("results/wide.csv", text.into_bytes());
        let start = std::time::Instant::now();
        let errors = parse(&file, &Dataset::default()).unwrap_err();
        assert!(start.elapsed() < std::time::Duration::from_secs(10));
        let column = 10 * 3 + 90 * 4 + 900 * 5 + 24 * 6 + 1;
        assert_eq!(
            errors.to_string(),
            format!(
                "results/wide.csv:1:{column}: the header has 1000000 columns; a results file has at most 1024\n  = help: one column per label or measured value, one row per run: split a wide table into several files, or write it in long form"
            )
        );
        let ok: Vec<String> = (0..MAX_COLUMNS).map(|i| format!("c{i}")).collect();
        let text = format!("{}\n{}\n", ok.join(","), vec!["1"; MAX_COLUMNS].join(","));
        let file = SourceFile::new("results/wide.csv", text.into_bytes());
        assert!(parse(&file, &Dataset::default()).is_ok());
    }
}
