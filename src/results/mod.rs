//! The results stage: raw CSV files streamed, parsed and validated into a
//! typed, columnar [`ResultSet`], its columns in chunks that leave memory past
//! a budget ([`store`]).

mod cells;
mod counts;
mod derive;
mod filling;
mod flagged;
mod parquet;
mod parse;
mod position;
mod read;
mod spill;
mod split;
pub mod store;
mod stream;
mod validate;

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::config::Config;
use crate::diagnostic::Diagnostics;
use crate::project::SourceFile;
pub use parquet::is_parquet;
pub use store::{CHUNK_ROWS, Chunks, Store};

/// Every results file of the study, keyed by file stem.
#[derive(Debug, Clone, Default)]
pub struct ResultSet {
    /// Tables keyed by name (the file stem, `lammps` for `results/lammps.csv`).
    pub tables: BTreeMap<String, Table>,
}

/// One results file (CSV or Parquet): one row per run, stored by column in chunks of
/// [`store::CHUNK_ROWS`] rows (chunk `i` of every column holds the same rows).
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
    pub lines: Chunks<u32>,
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
    Number(Chunks<f64>),
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
    pub codes: Chunks<u32>,
}

impl Texts {
    /// The value at `row`.
    pub fn get(&self, row: usize) -> &str {
        &self.words[self.codes.get(row) as usize]
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
        Texts { words, codes: Chunks::of(&codes) }
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

impl ResultSet {
    /// Bytes of columns and samples written to the temporary file so far,
    /// past the memory budget.
    pub fn spilled(&self) -> u64 {
        self.tables.values().next().map_or(0, |t| t.lines.store().spilled())
    }

    /// `Err` if a read of the temporary file failed since the results were
    /// loaded: the values read are wrong, so the stage that read them must
    /// stop the build. Every stage that reads columns ends with this check.
    pub fn check_store(&self) -> Result<(), Diagnostics> {
        self.tables.values().next().map_or(Ok(()), |t| store_failure(t.lines.store()))
    }
}

/// The error of a failed read of `store`'s temporary file, if one failed.
fn store_failure(store: &Store) -> Result<(), Diagnostics> {
    store.check().map_err(|failure| {
        let at = crate::diagnostic::Location::file(&failure.path);
        crate::diagnostic::Diagnostic::new(at, failure.to_string())
            .hint(
                "the build stopped, and nothing was written; results past the memory \
                 budget go to this file in TMPDIR: check that its file system is \
                 healthy and has room, or point TMPDIR at another folder",
            )
            .into()
    })
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
        let unit = if is_parquet(&self.path) { "row" } else { "line" };
        format!("{unit} {}", self.lines.get(row))
    }

    /// The location of row `row`, at character `column` of its line in a CSV
    /// file (0: the whole line); a Parquet row has no columns.
    pub fn location(&self, row: usize, column: usize) -> crate::diagnostic::Location {
        use crate::diagnostic::Location;
        let line = self.lines.get(row) as usize;
        if is_parquet(&self.path) {
            Location::row(&self.path, line)
        } else {
            Location::new(&self.path, line, column)
        }
    }
}

impl Values {
    /// Numbers, from a slice (for tests and small data).
    pub fn numbers_of(values: &[f64]) -> Values {
        Values::Number(Chunks::of(values))
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
            Values::Number(v) => crate::format::plain(v.get(row)),
            Values::Text(v) => v.get(row).to_string(),
        }
    }

    /// The numbers, when the column is numeric.
    pub fn numbers(&self) -> Option<&Chunks<f64>> {
        match self {
            Values::Number(v) => Some(v),
            Values::Text(_) => None,
        }
    }

    /// The value at `row` as a compact key part, for grouping and comparing
    /// rows without allocating: a number's bits, a text's code.
    pub fn key_bits(&self, row: usize) -> u64 {
        match self {
            Values::Number(v) => v.get(row).to_bits(),
            Values::Text(t) => u64::from(t.codes.get(row)),
        }
    }

    /// Chunk `i` as compact key parts (see [`Values::key_bits`]).
    pub fn chunk_bits(&self, i: usize) -> Vec<u64> {
        match self {
            Values::Number(v) => v.chunk(i).iter().map(|x| x.to_bits()).collect(),
            Values::Text(t) => t.codes.chunk(i).iter().map(|&c| u64::from(c)).collect(),
        }
    }
}

/// Parse and validate every results file against the schemas in `config`.
/// Reports every problem in every file, not just the first. The columns stay
/// in memory up to [`store::MEMORY_BUDGET`] and go to a temporary file past it.
pub fn load(files: &[SourceFile], config: &Config) -> Result<ResultSet, Diagnostics> {
    load_in(files, config, &Store::new(store::MEMORY_BUDGET))
}

/// [`load`] into `store`.
pub fn load_in(
    files: &[SourceFile],
    config: &Config,
    store: &std::sync::Arc<Store>,
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
        let parsed = match is_parquet(&file.path) {
            true => parquet::parse(file, &dataset),
            false => parse::parse(file, &dataset, store),
        };
        match parsed {
            Ok(mut table) => {
                let problems = validate::validate(&table, &dataset, config, file);
                if problems.is_empty() {
                    if let Err(problems) = derive::derive(&mut table, &dataset, config) {
                        errors.0.extend(problems.0);
                    }
                } else {
                    errors.0.extend(problems.0);
                }
                tables.insert(table.name.clone(), table);
            }
            Err(problems) => errors.0.extend(problems.0),
        }
    }
    missing_files(config, files, &mut errors);
    one_file_per_table(files, &mut errors);
    store_failure(store)?;
    errors.into_result(ResultSet { tables })
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
                    Location::file(PathBuf::from("results").join(&file)),
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

    #[test]
    fn texts_store_each_value_once_in_any_order() {
        let texts: Texts = ["a", "b", "a", "c", "b", "a", "a"].into_iter().collect();
        assert_eq!(texts.words, ["a", "b", "c"]);
        assert_eq!(texts.codes.to_vec(), [0, 1, 0, 2, 1, 0, 0]);
        let mut other = TextsBuilder::default();
        texts.words.iter().for_each(|w| {
            other.code(w);
        });
        other.codes = texts.codes.to_vec();
        let mut builder = TextsBuilder::with_capacity(2);
        builder.push("c");
        builder.append_from(&mut other);
        assert!(other.codes.is_empty());
        let (words, codes) = builder.finish();
        assert_eq!(words, ["c", "a", "b"]);
        assert_eq!(codes, [0, 1, 2, 1, 0, 2, 1, 1]);
    }
}
