//! The results stage: raw CSV files parsed and validated into a typed, columnar
//! [`ResultSet`].

mod derive;
mod parse;
mod split;
mod stream;
mod validate;

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::config::Config;
use crate::diagnostic::Diagnostics;
use crate::project::SourceFile;

/// Every results file of the study, keyed by file stem.
#[derive(Debug, Clone, Default)]
pub struct ResultSet {
    /// Tables keyed by name (the file stem, `lammps` for `results/lammps.csv`).
    pub tables: BTreeMap<String, Table>,
}

/// One results file: one row per run, stored by column.
#[derive(Debug, Clone)]
pub struct Table {
    /// File stem, used by metrics and charts to name the table.
    pub name: String,
    /// Path relative to the study root.
    pub path: PathBuf,
    /// Columns in file order, derived columns last.
    pub columns: Vec<Column>,
    /// The 1-based line on which each row starts (`u32::MAX` past four billion lines).
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
#[derive(Debug, Clone)]
pub enum Values {
    /// Numeric values.
    Number(Vec<f64>),
    /// Text values.
    Text(Texts),
}

/// A text column, each distinct value stored once (a million rows of a few
/// environment names cost four bytes each).
#[derive(Debug, Clone, Default, PartialEq)]
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

    /// The values, row by row.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.codes.iter().map(|&c| self.words[c as usize].as_str())
    }
}

impl<S: AsRef<str>> FromIterator<S> for Texts {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Self {
        let mut builder = TextsBuilder::default();
        for s in iter {
            builder.push(s.as_ref());
        }
        builder.finish()
    }
}

/// Builds a [`Texts`] one value at a time, storing each distinct value once.
#[derive(Debug)]
pub struct TextsBuilder {
    texts: Texts,
    index: rustc_hash::FxHashMap<String, u32>,
    /// The codes of the last two distinct values pushed (`u32::MAX`: none yet).
    recent: [u32; 2],
}

impl Default for TextsBuilder {
    fn default() -> Self {
        Self { texts: Texts::default(), index: Default::default(), recent: [u32::MAX; 2] }
    }
}

impl TextsBuilder {
    /// A builder with room for `rows` rows.
    pub fn with_capacity(rows: usize) -> Self {
        Self { texts: Texts { words: Vec::new(), codes: Vec::with_capacity(rows) }, ..Self::default() }
    }

    /// Append `text` as the next row.
    pub fn push(&mut self, text: &str) {
        // Results are written grouped or interleaved: try the last two distinct values first.
        for recent in self.recent {
            if self.texts.words.get(recent as usize).is_some_and(|w| w == text) {
                self.texts.codes.push(recent);
                return;
            }
        }
        let code = self.code(text);
        self.texts.codes.push(code);
        if self.recent[0] != code {
            self.recent = [code, self.recent[0]];
        }
    }

    /// Append every row of `other`, mapping its distinct values onto this column's.
    pub fn append(&mut self, other: Texts) {
        let map: Vec<u32> = other.words.iter().map(|word| self.code(word)).collect();
        self.texts.codes.extend(other.codes.iter().map(|&c| map[c as usize]));
    }

    /// The code of `text`, adding it as a new distinct value if needed.
    fn code(&mut self, text: &str) -> u32 {
        if let Some(&code) = self.index.get(text) {
            return code;
        }
        let code = self.texts.words.len() as u32;
        self.texts.words.push(text.to_string());
        self.index.insert(text.to_string(), code);
        code
    }

    /// The finished column.
    pub fn finish(self) -> Texts {
        self.texts
    }
}

impl Table {
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
}

impl Values {
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
}

/// Parse and validate every results file against the schemas in `config`.
/// Reports every problem in every file, not just the first.
pub fn load(files: &[SourceFile], config: &Config) -> Result<ResultSet, Diagnostics> {
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
        match parse::parse(file, &dataset) {
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
    errors.into_result(ResultSet { tables })
}

/// Every `[data.NAME]` in book.toml must have its file.
fn missing_files(config: &Config, files: &[SourceFile], errors: &mut Diagnostics) {
    use crate::diagnostic::{Diagnostic, Location};
    for (name, dataset) in &config.data {
        let file = dataset.file.clone().unwrap_or_else(|| format!("{name}.csv"));
        if !files.iter().any(|f| f.path.ends_with(&file)) {
            errors.push(
                Diagnostic::new(Location::file(PathBuf::from("results").join(&file)), "results file not found")
                    .hint(format!("book.toml declares `[data.{name}]`; add the file or remove the section")),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_store_each_value_once_in_any_order() {
        let texts: Texts = ["a", "b", "a", "c", "b", "a", "a"].into_iter().collect();
        assert_eq!(texts.words, ["a", "b", "c"]);
        assert_eq!(texts.codes, [0, 1, 0, 2, 1, 0, 0]);
        let mut builder = TextsBuilder::with_capacity(2);
        builder.push("c");
        builder.append(texts);
        let joined = builder.finish();
        assert_eq!(joined.words, ["c", "a", "b"]);
        assert_eq!(joined.iter().collect::<Vec<_>>(), ["c", "a", "b", "a", "c", "b", "a", "a"]);
    }
}
