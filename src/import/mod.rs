//! `report import FORMAT`: raw benchmark output turned into rows of the
//! results CSVs, one row per run (per message size for OSU) whatever wraps
//! the output. Each format is one module behind the [`format::Format`]
//! trait. Nothing is lost (every refused or passed-over file is named, with
//! why, and what could not be read is noted) and nothing is doubled (a file
//! whose source path and content are both in the target already is
//! skipped). Existing rows keep their values, and the file is replaced
//! atomically.

mod environments;
mod existing;
mod files;
pub mod format;
mod launcher;
mod pattern;
mod rows;
mod target;
pub mod unwrap;

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Result;

use crate::diagnostic::Diagnostic;
pub use pattern::Pattern;

/// Declares each format's module and lists the formats, in the order of
/// `report import --help`.
macro_rules! formats {
    ($($module:ident :: $format:ident),* $(,)?) => {
        $(pub mod $module;)*

        /// Every format, in the order of `report import --help`: one line
        /// each, the module and its [`format::Format`].
        pub static FORMATS: &[&dyn format::Format] = &[$(&$module::$format),*];
    };
}

formats![
    lammps::Lammps,
    osu::Osu,
    hyperfine::Hyperfine,
    gbench::Gbench,
    pytest_benchmark::PytestBenchmark,
    reframe::Reframe,
    criterion::Criterion,
    log::Log,
];

/// The format `report import NAME` reads.
pub fn by_name(name: &str) -> Option<&'static dyn format::Format> {
    FORMATS.iter().copied().find(|f| f.name() == name)
}

/// Why a file yields no row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The reason, lowercase.
    pub reason: String,
    /// The 1-based line of the file the reason is about, if one is.
    pub line: Option<usize>,
    /// How to fix it, when we can tell.
    pub hint: Option<String>,
}

impl Refusal {
    /// A refusal with `reason`, of the whole file.
    pub fn new(reason: impl Into<String>) -> Self {
        Self { reason: reason.into(), line: None, hint: None }
    }

    /// The same refusal, at `line` of the file.
    #[must_use]
    pub fn at(mut self, line: usize) -> Self {
        self.line = Some(line);
        self
    }

    /// The same refusal, with a hint on how to fix it.
    #[must_use]
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

/// Something a file held that gives no row, at its line: a run that did not
/// finish, a table without measurements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// The 1-based line of the file.
    pub at: usize,
    /// What was left out, and why.
    pub message: String,
}

impl Note {
    /// A note at line `at`.
    pub fn new(at: usize, message: impl Into<String>) -> Self {
        Self { at, message: message.into() }
    }
}

/// What to import and how to label it.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The study folder.
    pub root: PathBuf,
    /// The format of the output.
    pub format: &'static dyn format::Format,
    /// Files and folders (walked in sorted order).
    pub paths: Vec<PathBuf>,
    /// Environment label, unless the pattern gives `{env}`.
    pub env: Option<String>,
    /// Node count, unless the pattern gives `{nodes}` (else the launcher line's).
    pub nodes: Option<u64>,
    /// Process count, unless the pattern gives `{procs}` (else the launcher
    /// line's; OSU default 2).
    pub procs: Option<u64>,
    /// Path pattern such as `{env}/lammps-{nodes}-{procs}-{run}.out`.
    pub pattern: Option<Pattern>,
    /// Results file stem to append to (default `lammps` or the OSU benchmark).
    pub into: Option<String>,
    /// Print the rows instead of writing them.
    pub dry_run: bool,
    /// The values of the format's own options ([`format::Format::options`]),
    /// by option, in the order given: `("figure", "gflops=...")`.
    pub values: Vec<(String, String)>,
}

impl ImportOptions {
    /// The values given to the format's own option `name`, in order.
    pub fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.values.iter().filter(move |(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// What an import did.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Rows added (or, in a dry run, that would be) per results file.
    pub added: BTreeMap<String, usize>,
    /// Files skipped because the target holds their source path and
    /// content already (or the same file was given twice).
    pub skipped: Vec<PathBuf>,
    /// What became of each file read: rows added, or skipped and why.
    pub files: Vec<FileReport>,
    /// Files met while walking a folder that the format does not read
    /// (criterion's `base/` copies, its reports), with why.
    pub passed_over: Vec<(PathBuf, String)>,
    /// Files refused, with the reason (a file yields all its rows or none).
    pub refused: Vec<(PathBuf, Refusal)>,
    /// What imported files held that gives no row, per file.
    pub notes: Vec<(PathBuf, Note)>,
    /// Launcher lines that disagree with the flags, columns added to a
    /// results file, environments that book.toml does not declare.
    pub warnings: Vec<Diagnostic>,
    /// In a dry run: the CSV text that would be appended, per results file.
    pub preview: BTreeMap<String, String>,
}

/// What became of one file's rows for one results file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileReport {
    /// The file, as given or found.
    pub file: PathBuf,
    /// Its `source` (path relative to the study or the folder given).
    pub source: String,
    /// The results file, `results/NAME.csv`.
    pub target: String,
    /// Rows added (or that would be), 0 when skipped.
    pub rows: usize,
    /// Why it was skipped, when it was.
    pub skipped: Option<String>,
}

/// The rows one file gives one results file, before runs are numbered.
struct Pending {
    /// The results file stem.
    target: String,
    /// The importer's columns for these rows, `run` among them.
    columns: Vec<String>,
    /// The columns whose values tell configurations apart (runs are
    /// numbered within each).
    config: Vec<String>,
    /// The file, as given (for the summary).
    file: PathBuf,
    /// Its place among the files read: one file's tables share it.
    input: usize,
    /// Its `source` cell: with `hash`, what identifies it.
    source: String,
    /// SHA-256 of its bytes.
    hash: String,
    /// Its runs.
    runs: Vec<Run>,
}

/// The rows of one run, aligned with [`Pending::columns`] (the `run` cell
/// is filled when the run is numbered).
struct Run {
    /// The values of [`Pending::config`]: the configuration runs are numbered in.
    config: Vec<String>,
    /// Its environment, when it has one (to count rows per environment).
    env: Option<String>,
    /// The run number from the path, when the file holds this one run.
    given: Option<u64>,
    rows: Vec<Vec<String>>,
}

/// Import every file under `options.paths`. Options that cannot be right
/// (a `--into` that is not a plain name, a count of zero) and a study folder
/// that does not exist stop the import before anything is read.
pub fn run(options: &ImportOptions) -> Result<Summary> {
    let root = existing::check_options(options)?;
    let mut summary = Summary::default();
    let mut targets: BTreeMap<String, Vec<Pending>> = BTreeMap::new();
    for (index, input) in files::inputs(&options.paths, &mut summary)?.into_iter().enumerate() {
        if input.folder
            && let Err(why) = options.format.accepts(&input.path)
        {
            summary.passed_over.push((input.path, why));
            continue;
        }
        let bytes = match files::read(&input.path) {
            Ok(bytes) => bytes,
            Err(refusal) => {
                summary.refused.push((input.path, refusal));
                continue;
            }
        };
        let source = files::source(&root, &input);
        match rows::pending(options, &input.path, source, &bytes, &mut summary) {
            Ok(pending) => {
                for mut p in pending {
                    p.input = index;
                    targets.entry(p.target.clone()).or_default().push(p);
                }
            }
            Err(refusal) => summary.refused.push((input.path, refusal)),
        }
    }
    let mut environments: BTreeMap<String, usize> = BTreeMap::new();
    for (target, items) in targets {
        target::append(options, &root, &target, items, &mut summary, &mut environments)?;
    }
    summary.warnings.extend(environments::undeclared(&root, &environments));
    summary.refused.sort_by(|a, b| a.0.cmp(&b.0));
    summary.skipped.sort();
    summary.skipped.dedup();
    summary.files.sort_by(|a, b| (&a.file, &a.target).cmp(&(&b.file, &b.target)));
    Ok(summary)
}

/// Helpers of the formats' unit tests.
#[cfg(test)]
pub(crate) mod tests {
    use std::path::Path;

    use super::format::{self, Input, Read};
    use super::{ImportOptions, Refusal, unwrap};

    #[test]
    fn formats_are_listed_once_each() {
        let mut names: Vec<&str> = super::FORMATS.iter().map(|f| f.name()).collect();
        for format in super::FORMATS {
            assert!(!format.about().is_empty() && format.examples().starts_with("Examples:"));
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), super::FORMATS.len());
        assert!(super::by_name("hyperfine").is_some() && super::by_name("nope").is_none());
    }

    /// Options of an import of `format`, with `figures` for `log`.
    pub fn options(format: &str, figures: &[&str]) -> ImportOptions {
        let values = figures.iter().map(|f| ("figure".to_string(), f.to_string())).collect();
        ImportOptions {
            root: ".".into(),
            format: super::by_name(format).expect("a format"),
            paths: Vec::new(),
            env: Some("e".into()),
            nodes: None,
            procs: None,
            pattern: None,
            into: None,
            dry_run: true,
            values,
        }
    }

    /// What `format` reads in `text`, a file named `name`.
    pub fn read(format: &str, name: &str, text: &str, figures: &[&str]) -> Result<Read, Refusal> {
        read_with(options(format, figures), name, text)
    }

    /// What the format of `options` reads in `text`, a file named `name`.
    pub fn read_with(options: ImportOptions, name: &str, text: &str) -> Result<Read, Refusal> {
        let path = Path::new(name);
        let lines = unwrap::lines(path, text).1;
        let input = Input { path, bytes: text.as_bytes(), text, lines: &lines, options: &options };
        options.format.read(&input)
    }

    /// The cell of `column` in row `row` of run `run` of `table`.
    pub fn cell(table: &format::Table, run: usize, row: usize, column: &str) -> String {
        let at = table.columns.iter().position(|c| c == column);
        at.map(|i| table.runs[run].rows[row][i].clone()).unwrap_or_else(|| format!("no {column}"))
    }
}
