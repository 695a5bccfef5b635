//! The results stage: raw CSV and Parquet files read, parsed and validated into a typed,
//! columnar [`ResultSet`] held in memory.

mod cells;
mod counts;
mod dataset;
mod derive;
mod encoding;
mod flagged;
mod parquet;
mod parse;
mod partitions;
mod position;
mod read;
pub mod readers;
mod rows;
mod slice;
mod validate;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::config::{Config, Dataset};
use crate::diagnostic::Diagnostics;
use crate::project::SourceFile;
pub use parquet::is_parquet;

/// Rows per part when a table is scanned on several cores: part `i` of every
/// column holds rows `i * PART_ROWS ..`.
pub const PART_ROWS: usize = 1 << 16;

/// Every results file of the study, keyed by file stem.
#[derive(Debug, Clone, Default)]
pub struct ResultSet {
    /// Tables keyed by name (the file stem, `lammps` for `results/lammps.csv`).
    pub tables: BTreeMap<String, Table>,
}

/// One results file (CSV or Parquet): one row per run, stored by column.
#[derive(Debug, Clone)]
pub struct Table {
    /// File stem, used by metrics and charts to name the table.
    pub name: String,
    /// Path relative to the study root.
    pub path: PathBuf,
    /// Columns in file order, derived columns last.
    pub columns: Vec<Column>,
    /// The 1-based line on which each row starts (`u32::MAX` past four
    /// billion lines); in a Parquet file, which has no lines, the 1-based row.
    pub lines: Vec<u32>,
}

/// One column of a table.
#[derive(Debug, Clone)]
pub struct Column {
    /// Header name.
    pub name: String,
    /// The values, one per row.
    pub values: Values,
}

/// A column's values: numbers (`NaN` marks an empty cell) or text.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// Numeric values.
    Number(Vec<f64>),
    /// Text values.
    Text(Texts),
}

/// A text column, each distinct value stored once (a million rows of a few
/// environment names cost four bytes each).
#[derive(Debug, Clone, PartialEq)]
pub struct Texts {
    /// The distinct values, in order of first appearance.
    pub words: Vec<String>,
    /// Per row, the index of its value in `words`.
    pub codes: Vec<u32>,
}

impl Texts {
    /// The value at `row`.
    pub fn get(&self, row: usize) -> &str {
        &self.words[self.codes[row] as usize]
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.codes.len()
    }

    /// True without rows.
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }
}

impl<S: AsRef<str>> FromIterator<S> for Texts {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        let mut builder = TextsBuilder::default();
        for s in iter {
            builder.push(s.as_ref());
        }
        let (words, codes) = builder.finish();
        Texts { words, codes }
    }
}

/// Builds a text column one value at a time, storing each distinct value once.
#[derive(Debug)]
pub struct TextsBuilder {
    /// The distinct values, in order of first appearance.
    words: Vec<String>,
    /// Per row, the index of its value in `words`.
    codes: Vec<u32>,
    index: rustc_hash::FxHashMap<String, u32>,
    /// The codes of the last two distinct values pushed (`u32::MAX`: none yet).
    recent: [u32; 2],
}

impl Default for TextsBuilder {
    fn default() -> Self {
        Self {
            words: Vec::new(),
            codes: Vec::new(),
            index: Default::default(),
            recent: [u32::MAX; 2],
        }
    }
}

impl TextsBuilder {
    /// A builder with room for `rows` rows.
    pub fn with_capacity(rows: usize) -> Self {
        Self { codes: Vec::with_capacity(rows), ..Self::default() }
    }

    /// Room for at least `rows` more rows.
    pub fn reserve(&mut self, rows: usize) {
        self.codes.reserve(rows);
    }

    /// Append `text` as the next row.
    pub fn push(&mut self, text: &str) {
        // Results are written grouped or interleaved: try the last two distinct values first.
        for recent in self.recent {
            if self.words.get(recent as usize).is_some_and(|w| w == text) {
                self.codes.push(recent);
                return;
            }
        }
        let code = self.code(text);
        self.codes.push(code);
        if self.recent[0] != code {
            self.recent = [code, self.recent[0]];
        }
    }

    /// The rows of `other` as codes of this column's distinct values, adding
    /// those it lacks (without adding rows).
    pub fn translate(&mut self, other: &TextsBuilder) -> Vec<u32> {
        let map: Vec<u32> = other.words.iter().map(|word| self.code(word)).collect();
        other.codes.iter().map(|&c| map[c as usize]).collect()
    }

    /// Move every row of `other` to the end of this column (`other` keeps its distinct values).
    pub fn append_from(&mut self, other: &mut TextsBuilder) {
        let codes = self.translate(other);
        self.codes.extend(codes);
        other.codes.clear();
    }

    /// The code of `text`, adding it as a new distinct value if needed.
    fn code(&mut self, text: &str) -> u32 {
        if let Some(&code) = self.index.get(text) {
            return code;
        }
        let code = self.words.len() as u32;
        self.words.push(text.to_string());
        self.index.insert(text.to_string(), code);
        code
    }

    /// The distinct values and the codes of the rows.
    pub fn finish(self) -> (Vec<String>, Vec<u32>) {
        (self.words, self.codes)
    }
}

impl Table {
    /// A table of `columns` (all of the same length), rows on lines 2, 3, ...
    pub fn new(name: &str, path: &str, columns: Vec<(&str, Values)>) -> Table {
        let rows = columns.first().map_or(0, |(_, v)| v.len());
        Table {
            name: name.into(),
            path: path.into(),
            columns: columns
                .into_iter()
                .map(|(name, values)| Column { name: name.into(), values })
                .collect(),
            lines: (2..rows as u32 + 2).collect(),
        }
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// True when the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// Column names, in order.
    pub fn column_names(&self) -> impl Iterator<Item = &str> + Clone {
        self.columns.iter().map(|c| c.name.as_str())
    }

    /// Where row `row` is, for messages: `line 12` of a CSV file, `row 11`
    /// of a Parquet file.
    pub fn place(&self, row: usize) -> String {
        let unit = if counts_rows(&self.path) { "row" } else { "line" };
        format!("{unit} {}", self.lines[row])
    }

    /// For a text column `name` that a number was wanted from: its first
    /// cells that are not numbers, with their places, as `: `NA` at line 3,
    /// `-` at line 4 (2 cells of 40 are not numbers)`; empty when the column
    /// is numeric or absent.
    pub fn not_numbers(&self, name: &str) -> String {
        let Some(Values::Text(texts)) = self.column(name).map(|c| &c.values) else {
            return String::new();
        };
        let bad: Vec<usize> = (0..texts.len())
            .filter(|&row| {
                let cell = texts.get(row).trim();
                !cell.is_empty() && cell.parse::<f64>().is_err()
            })
            .collect();
        let shown: Vec<String> = bad
            .iter()
            .take(3)
            .map(|&row| format!("`{}` at {}", texts.get(row), self.place(row)))
            .collect();
        if shown.is_empty() {
            return String::new();
        }
        format!(
            ": {} ({} cells of {} are not numbers; a missing value is an empty cell)",
            shown.join(", "),
            bad.len(),
            texts.len()
        )
    }

    /// The location of row `row`, at character `column` of its line in a CSV
    /// file (0: the whole line); a Parquet row has no columns.
    pub fn location(&self, row: usize, column: usize) -> crate::diagnostic::Location {
        use crate::diagnostic::Location;
        let line = self.lines[row] as usize;
        if counts_rows(&self.path) {
            Location::row(&self.path, line)
        } else {
            Location::new(&self.path, line, column)
        }
    }
}

impl Values {
    /// Numbers, from a slice (for tests and small data).
    pub fn numbers_of(values: &[f64]) -> Values {
        Values::Number(values.to_vec())
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            Values::Number(v) => v.len(),
            Values::Text(t) => t.len(),
        }
    }

    /// True without rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value at `row` as display text (numbers in their shortest exact form).
    pub fn text_at(&self, row: usize) -> String {
        match self {
            Values::Number(v) => crate::format::plain(v[row]),
            Values::Text(v) => v.get(row).to_string(),
        }
    }

    /// The numbers, when the column is numeric.
    pub fn numbers(&self) -> Option<&[f64]> {
        match self {
            Values::Number(v) => Some(v),
            Values::Text(_) => None,
        }
    }

    /// The value at `row` as a compact key part, for grouping and comparing
    /// rows without allocating: a number's bits, a text's code.
    pub fn key_bits(&self, row: usize) -> u64 {
        match self {
            Values::Number(v) => v[row].to_bits(),
            Values::Text(t) => u64::from(t.codes[row]),
        }
    }

    /// Part `i` (rows `i * PART_ROWS ..`) as compact key parts (see [`Values::key_bits`]).
    pub fn part_bits(&self, i: usize) -> Vec<u64> {
        match self {
            Values::Number(v) => part(v, i).iter().map(|x| x.to_bits()).collect(),
            Values::Text(t) => part(&t.codes, i).iter().map(|&c| u64::from(c)).collect(),
        }
    }
}

/// Whether the rows of the table at `path` are numbered, not placed on
/// lines: a Parquet file's, or a dataset's (a folder, without extension).
fn counts_rows(path: &std::path::Path) -> bool {
    is_parquet(path) || path.extension().is_none()
}

/// Part `i` of `values`: rows `i * PART_ROWS ..`, at most [`PART_ROWS`] of them.
pub fn part<T>(values: &[T], i: usize) -> &[T] {
    let start = (i * PART_ROWS).min(values.len());
    &values[start..(start + PART_ROWS).min(values.len())]
}

/// How many parts of [`PART_ROWS`] rows `rows` rows make.
pub fn part_count(rows: usize) -> usize {
    rows.div_ceil(PART_ROWS)
}

/// Read, parse and validate every results file against the schemas in
/// `config`. Reports every problem in every file, not just the first.
pub fn load(files: &[SourceFile], config: &Config) -> Result<ResultSet, Diagnostics> {
    load_read_by(files, config, None)
}

/// [`load`], reading of each partitioned dataset only what its readers can
/// select: book.toml's and those of the content pages, `content` (every row
/// of a dataset without it).
pub fn load_read_by(
    files: &[SourceFile],
    config: &Config,
    content: Option<&readers::Readers>,
) -> Result<ResultSet, Diagnostics> {
    let mut errors = Diagnostics::default();
    let mut tables = BTreeMap::new();
    for file in files {
        let name = file.stem();
        let dataset = config
            .data
            .iter()
            .find(|(key, d)| d.file.as_deref().map_or(**key == name, |f| file.path.ends_with(f)))
            .map(|(_, d)| d.clone())
            .unwrap_or_default();
        match load_file(file, &dataset, config, content) {
            Ok(table) => {
                tables.insert(table.name.clone(), table);
            }
            Err(problems) => errors.0.extend(problems.0),
        }
    }
    missing_files(config, files, &mut errors);
    one_file_per_table(files, &mut errors);
    errors.into_result(ResultSet { tables })
}

/// One results file read (if it was left on disk), parsed, validated and
/// given its derived columns; a CSV's SHA-256 recorded on `file`.
fn load_file(
    file: &SourceFile,
    dataset: &Dataset,
    config: &Config,
    content: Option<&readers::Readers>,
) -> Result<Table, Diagnostics> {
    // A Parquet row has no source line to show; a CSV diagnostic keeps its line.
    let (mut table, source) = if file.is_dataset() {
        (dataset::read(file, dataset, config, content)?, None)
    } else if is_parquet(&file.path) {
        (slice::sliced(parquet::parse(file, dataset)?, &dataset.slice), None)
    } else {
        let (table, whole) = read_csv(file, dataset)?;
        (slice::sliced(table, &dataset.slice), Some(whole))
    };
    // The CSV is hashed beside the checks, which leave a core idle; the
    // parse before them takes both.
    let (checked, ()) = rayon::join(
        || validate::validate(&table, dataset, config, source.as_deref().unwrap_or(file)),
        || {
            if let Some(whole) = &source {
                file.hash.set(crate::project::sha256_hex(&whole.bytes)).ok();
            }
        },
    );
    checked.into_result(()).map_err(|d| match &source {
        Some(whole) => whole.attach(d),
        None => d,
    })?;
    derive::derive(&mut table, dataset, config)?;
    Ok(table)
}

/// The table of a CSV file and the file whole (read from disk now when it
/// was not read yet).
fn read_csv<'a>(
    file: &'a SourceFile,
    dataset: &Dataset,
) -> Result<(Table, Cow<'a, SourceFile>), Diagnostics> {
    let whole = match &file.disk {
        Some(path) => {
            let bytes =
                crate::project::read_regular(path).map_err(|err| read::cannot_read(file, &err))?;
            Cow::Owned(SourceFile::new(file.path.clone(), bytes))
        }
        None => Cow::Borrowed(file),
    };
    let whole = if file.path.extension().is_some_and(|e| e == "tsv") {
        Cow::Owned(SourceFile::new(file.path.clone(), encoding::tsv_as_csv(&whole)?))
    } else {
        whole
    };
    let table = parse::parse(&whole, dataset).map_err(|d| whole.attach(d))?;
    Ok((table, whole))
}

/// Every `[data.NAME]` in book.toml must have its file (by default
/// `NAME.csv` or `NAME.parquet`).
fn missing_files(config: &Config, files: &[SourceFile], errors: &mut Diagnostics) {
    use crate::diagnostic::{Diagnostic, Location};
    for (name, dataset) in &config.data {
        let file = dataset.file.clone().unwrap_or_else(|| format!("{name}.csv"));
        let found = |f: &SourceFile| match &dataset.file {
            Some(file) => f.path.ends_with(file),
            None => f.stem() == *name,
        };
        if !files.iter().any(found) {
            errors.push(
                Diagnostic::new(
                    Location::file(format!("results/{file}")),
                    "results file not found",
                )
                .hint(match &dataset.file {
                    Some(_) => format!(
                        "book.toml declares `[data.{name}]`; add the file or remove the section"
                    ),
                    None => format!(
                        "book.toml declares `[data.{name}]`; add the file (or \
                         results/{name}.parquet) or remove the section"
                    ),
                }),
            );
        }
    }
}

/// Two results files of one name (`runs.csv` and `runs.parquet`) would be
/// one table: an error at the second.
fn one_file_per_table(files: &[SourceFile], errors: &mut Diagnostics) {
    use crate::diagnostic::{Diagnostic, Location};
    for (i, file) in files.iter().enumerate() {
        let Some(other) = files[..i].iter().find(|f| f.stem() == file.stem()) else { continue };
        errors.push(
            Diagnostic::new(
                Location::file(&file.path),
                format!(
                    "`{}` and `{}` are both table `{}`",
                    other.path.display(),
                    file.path.display(),
                    file.stem()
                ),
            )
            .hint("a table is read from one file: remove or rename one of them"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bad cell's diagnostic carries its line as read and the cell's bytes
    /// as the parser had them: printed after the file was fixed (or removed),
    /// it still shows the line it was made from.
    #[test]
    fn a_diagnostic_keeps_the_line_it_was_made_from() {
        use crate::diagnostic::render::{Format, Level, render};
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("runs.csv");
        std::fs::write(&path, "environment,time_s\nbase,1.5\nbase,\"1,5\"\n").unwrap();
        let file = SourceFile::on_disk("results/runs.csv", path.clone());
        let book = "[book]\ntitle = \"T\"\n[study]\nbaseline = \"base\"\n\
                    [environments.base]\nlabel = \"B\"\n[data.runs.columns]\ntime_s = \"positive\"\n";
        let config = crate::config::parse(std::path::Path::new("book.toml"), book).unwrap();
        let errors = load(&[file], &config).unwrap_err();
        std::fs::write(&path, "environment,time_s\nbase,1.5\nbase,1.5\n").unwrap();
        std::fs::remove_file(&path).unwrap();
        let d = &errors.0[0];
        let text = render(&[(Level::Error, d)], Format::Human, false);
        assert!(text.contains("--> results/runs.csv:3:6"), "{text}");
        assert!(text.contains("3 | base,\"1,5\""), "{text}");
        // The caret spans the quoted cell, quotes included: 5 characters.
        assert!(text.contains(&format!("  | {}^^^^^\n", " ".repeat(5))), "{text}");
    }

    #[test]
    fn texts_store_each_value_once_in_any_order() {
        let texts: Texts = ["a", "b", "a", "c", "b", "a", "a"].into_iter().collect();
        assert_eq!(texts.words, ["a", "b", "c"]);
        assert_eq!(texts.codes, [0, 1, 0, 2, 1, 0, 0]);
        let mut other = TextsBuilder::default();
        texts.words.iter().for_each(|w| {
            other.code(w);
        });
        other.codes = texts.codes.clone();
        let mut builder = TextsBuilder::with_capacity(2);
        builder.push("c");
        builder.append_from(&mut other);
        assert!(other.codes.is_empty());
        let (words, codes) = builder.finish();
        assert_eq!(words, ["c", "a", "b"]);
        assert_eq!(codes, [0, 1, 2, 1, 0, 2, 1, 1]);
    }
}
