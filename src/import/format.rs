//! The extension point of `report import`: one [`Format`] per kind of
//! benchmark output, each in its own module, and the list of them. A format
//! reads one file into tables of rows; labelling (environment, nodes,
//! processes), run numbers, provenance and the results file are the same for
//! every format and done around it.

use std::path::Path;

use serde_json::Value;

use super::launcher::Launch;
use super::unwrap::Line;
use super::{ImportOptions, Note, Refusal};

/// One kind of benchmark output that `report import NAME` reads.
///
/// A new format is a module with a unit struct implementing this trait and
/// one line in the list of [`super::FORMATS`] (which also declares the
/// module); the command line makes its subcommand, help and options from
/// the trait. docs/importing.md gives it a section.
pub trait Format: Sync + std::fmt::Debug {
    /// The subcommand that imports it: `hyperfine`.
    fn name(&self) -> &'static str;

    /// What it does, one line of `report import --help`.
    fn about(&self) -> &'static str;

    /// Examples of `report import NAME`, shown after its options.
    fn examples(&self) -> &'static str;

    /// The rows and columns it writes, in words, and the results file they
    /// go to, shown after the examples.
    fn columns(&self) -> &'static str;

    /// Options of its own, beyond those every format takes
    /// (`report import log --figure`).
    fn options(&self) -> &'static [Opt] {
        &[]
    }

    /// How its runs are labelled: by MPI launches (an environment is
    /// required; nodes and processes from the path, the flags or launcher
    /// lines) or by the tool's own fields (the environment optional).
    fn labelling(&self) -> Labelling {
        Labelling::Plain
    }

    /// The programs it reads the output of, as their names start (`osu_`):
    /// in a launcher line, the launcher's own flags end at such a word,
    /// and what follows is the program's.
    fn programs(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether a file met while walking a folder is one this format reads;
    /// `Err(why)` passes it over, and the summary says so. A file named on
    /// the command line is always read.
    fn accepts(&self, _path: &Path) -> Result<(), String> {
        Ok(())
    }

    /// The tables of one file, or why it has none.
    fn read(&self, file: &Input<'_>) -> Result<Read, Refusal>;
}

/// An option of one format's own, `--NAME VALUE`; its values reach the
/// format through [`ImportOptions::values`].
#[derive(Debug, Clone, Copy)]
pub struct Opt {
    /// The long name, without `--`.
    pub name: &'static str,
    /// What a value looks like in the help: `NAME=REGEX`.
    pub value_name: &'static str,
    /// The help of the option.
    pub help: &'static str,
    /// Whether it must be given at least once.
    pub required: bool,
    /// Whether it may be given more than once.
    pub repeated: bool,
    /// Why a value cannot be right, checked as the command line is read.
    pub check: fn(&str) -> Result<(), String>,
}

/// How the runs of a format are labelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Labelling {
    /// MPI programs: an environment is required; `nodes` and `procs` come
    /// from the pattern, the flags or the launcher line before each run,
    /// else `procs` defaults to the value given here.
    Mpi {
        /// Processes when nothing says how many (OSU: a point-to-point pair).
        default_procs: Option<u64>,
    },
    /// Harness output that names its own configurations: `--env` or
    /// `{env}` is optional (without it, no `environment` column).
    Plain,
}

/// One file as a format reads it.
pub struct Input<'a> {
    /// The file, as given or found.
    pub path: &'a Path,
    /// Its bytes.
    pub bytes: &'a [u8],
    /// Its text (bytes that are not UTF-8 replaced).
    pub text: &'a str,
    /// Its lines, unwrapped from a JSON or YAML capture.
    pub lines: &'a [Line],
    /// The import's options (`--figure` patterns and the like).
    pub options: &'a ImportOptions,
}

/// What one file holds.
#[derive(Debug, Default)]
pub struct Read {
    /// Its tables, one per results file the rows go to.
    pub tables: Vec<Table>,
    /// What it holds that gives no row, and why.
    pub notes: Vec<Note>,
    /// Nodes that a wrapper's metadata gives for the whole file (a
    /// Metrics Operator capture's `pods`), used when nothing closer does.
    pub nodes: Option<u64>,
}

/// The rows of one file for one results file.
#[derive(Debug, Clone)]
pub struct Table {
    /// The results file stem (`results/NAME.csv`), unless `--into` names one.
    pub target: String,
    /// Every column, in order. Those named in [`LABELS`] are filled around
    /// the format (their cells in `rows` are left empty); the rest are the
    /// format's own.
    pub columns: Vec<String>,
    /// The format's columns whose values tell configurations apart: runs
    /// are numbered within each configuration (and environment, nodes and
    /// processes).
    pub config: Vec<String>,
    /// Its runs, in file order.
    pub runs: Vec<TableRun>,
}

/// Columns that are filled the same way for every format: labels, run
/// numbers and provenance.
pub const LABELS: [&str; 7] =
    ["environment", "nodes", "procs", "run", "run_in_file", "source", "source_sha256"];

/// One run: its rows (several for a table of message sizes), aligned with
/// [`Table::columns`].
#[derive(Debug, Clone, Default)]
pub struct TableRun {
    /// The launcher line before it, if any (MPI labelling).
    pub launch: Option<Launch>,
    /// Processes the output itself states (LAMMPS's Loop time line).
    pub procs: Option<u64>,
    /// The run's position among the runs of its configuration in the file,
    /// from 1 (`run_in_file`).
    pub in_file: usize,
    /// The rows, a cell per column.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table of `columns` for `target`.
    pub fn new(target: impl Into<String>, columns: &[&str], config: &[&str]) -> Self {
        Self {
            target: target.into(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            config: config.iter().map(|c| c.to_string()).collect(),
            runs: Vec::new(),
        }
    }

    /// The index of `column`, adding it at the end (before the provenance
    /// columns) when the table lacks it; existing rows get an empty cell.
    pub fn column(&mut self, column: &str) -> usize {
        if let Some(i) = self.columns.iter().position(|c| c == column) {
            return i;
        }
        let at = self
            .columns
            .iter()
            .position(|c| ["run_in_file", "source", "source_sha256"].contains(&c.as_str()))
            .unwrap_or(self.columns.len());
        self.columns.insert(at, column.to_string());
        for run in &mut self.runs {
            for row in &mut run.rows {
                row.insert(at, String::new());
            }
        }
        at
    }

    /// A row of empty cells.
    pub fn blank(&self) -> Vec<String> {
        vec![String::new(); self.columns.len()]
    }

    /// Add a run of one row given as (column, value) pairs, columns added
    /// as needed.
    pub fn push(&mut self, in_file: usize, cells: Vec<(String, String)>) {
        let indices: Vec<usize> = cells.iter().map(|(c, _)| self.column(c)).collect();
        let mut row = self.blank();
        for (i, (_, value)) in indices.into_iter().zip(cells) {
            row[i] = value;
        }
        self.runs.push(TableRun { in_file, rows: vec![row], ..TableRun::default() });
    }
}

/// `text` as a column name: lowercase ASCII letters, digits and `_`, at
/// most 64 characters, never empty; a name the labels use gets `prefix`.
pub fn column_name(text: &str, prefix: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
        if out.len() >= 64 {
            break;
        }
    }
    let out = out.trim_end_matches('_').to_string();
    if out.is_empty() {
        return format!("{prefix}value");
    }
    if LABELS.contains(&out.as_str()) || out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("{prefix}{out}")
    } else {
        out
    }
}

/// A JSON number or string as a cell: numbers as report writes them
/// (shortest round trip), strings as they are, `null` empty.
pub fn json_cell(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Null => String::new(),
        serde_json::Value::Bool(b) => b.to_string(),
        serde_json::Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() => crate::format::plain(f),
            _ => n.to_string(),
        },
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Seconds from a time in `unit` (`ns`, `us`, `ms`, `s`), or `None` for a
/// unit not known.
pub fn seconds(value: f64, unit: &str) -> Option<f64> {
    // Divided by an exact power of ten: the nearest double to the true
    // quotient, as an independent reader computes it.
    Some(match unit {
        "ns" => value / 1e9,
        "us" | "µs" | "μs" => value / 1e6,
        "ms" => value / 1e3,
        "s" => value,
        "min" => value * 60.0,
        _ => return None,
    })
}

/// The JSON document of a file, which must hold a list under `key`, with
/// that list; or a refusal: where it stops parsing, or that it has no such
/// list (it is not `what`).
pub fn json_list(
    file: &Input<'_>,
    what: &str,
    key: &str,
    hint: &str,
) -> Result<(Value, Vec<Value>), Refusal> {
    let doc = json(file, what, hint)?;
    match doc.get(key) {
        Some(Value::Array(list)) => {
            let list = list.clone();
            Ok((doc, list))
        }
        _ => {
            Err(Refusal::new(format!("not {what}: it has no `{key}` list")).hint(hint.to_string()))
        }
    }
}

/// The JSON document of a file, or a refusal at the place it stops parsing.
pub fn json(file: &Input<'_>, what: &str, hint: &str) -> Result<Value, Refusal> {
    serde_json::from_str(file.text).map_err(|err| {
        Refusal::new(format!("not {what}: {err}")).at(err.line().max(1)).hint(hint.to_string())
    })
}

/// The 1-based lines where `"key":` appears in the JSON `text`, in order:
/// where each object holding that key is, for messages (serde_json's
/// values carry no position).
pub fn key_lines(text: &str, key: &str) -> Vec<usize> {
    let needle = format!("\"{key}\"");
    let mut out = Vec::new();
    let (mut line, mut from) = (1, 0);
    while let Some(found) = text[from..].find(&needle) {
        let at = from + found;
        line += text[from..at].matches('\n').count();
        from = at + needle.len();
        if text[from..].trim_start().starts_with(':') {
            out.push(line);
        }
    }
    out
}

/// A finite number of zero or more, or why `value` (field `what`) is not one.
pub fn measure(value: &serde_json::Value, what: &str) -> Result<f64, String> {
    match value.as_f64() {
        Some(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("{what} is `{value}`, not a finite number of zero or more")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_plain_and_never_take_a_label() {
        for (text, name) in [
            ("Bytes Per Second", "bytes_per_second"),
            ("run", "p_run"),
            ("7zip", "p_7zip"),
            ("", "p_value"),
            ("<b>x</b>", "b_x_b"),
        ] {
            assert_eq!(column_name(text, "p_"), name, "{text}");
        }
        assert!(column_name(&"x".repeat(500), "").len() <= 64);
    }

    #[test]
    fn units_become_seconds() {
        let got: Vec<Option<f64>> = [("ns", 2.0), ("us", 2.0), ("ms", 2.0), ("s", 2.0), ("d", 1.0)]
            .iter()
            .map(|(u, v)| seconds(*v, u))
            .collect();
        assert_eq!(got, [Some(2e-9), Some(2e-6), Some(2e-3), Some(2.0), None]);
    }

    #[test]
    fn keys_are_found_on_their_lines() {
        let text = "{\"a\": 1,\n \"times\": [1,\n2],\n\"x\": \"times\", \"times\" :3}";
        assert_eq!(key_lines(text, "times"), [2, 4]);
    }
}
