//! `report import lammps|osu`: raw benchmark output turned into rows of the
//! results CSVs, one row per run (per message size for OSU) whatever wraps
//! the output. Nothing is lost (every refused file is named, with why, and
//! what could not be read is noted) and nothing is doubled (a file whose
//! content hash is already in the target is skipped). Existing rows keep
//! their values, and the file is replaced atomically.

mod environments;
mod existing;
mod files;
pub mod lammps;
mod launcher;
pub mod osu;
mod pattern;
mod rows;
mod target;
pub mod unwrap;

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Result;

use crate::diagnostic::Diagnostic;
pub use pattern::Pattern;

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

/// Which tool's output is imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// LAMMPS logs: one row per run.
    Lammps,
    /// OSU micro-benchmarks: one row per run and message size.
    Osu,
}

/// What to import and how to label it.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The study folder.
    pub root: PathBuf,
    /// LAMMPS or OSU.
    pub tool: Tool,
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
}

/// What an import did.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Rows added (or, in a dry run, that would be) per results file.
    pub added: BTreeMap<String, usize>,
    /// Files skipped because their content is already in the target.
    pub skipped: Vec<PathBuf>,
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

/// The rows one file gives one results file, before runs are numbered.
struct Pending {
    /// The results file stem.
    target: String,
    /// The importer's columns for these rows, `run` among them.
    columns: Vec<String>,
    /// The file, as given (for the summary).
    file: PathBuf,
    /// SHA-256 of its bytes.
    hash: String,
    /// Its runs.
    runs: Vec<Run>,
}

/// The rows of one run, aligned with [`Pending::columns`] (the `run` cell
/// is filled when the run is numbered).
struct Run {
    /// Environment, nodes and processes: the configuration runs are numbered in.
    config: (String, String, String),
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
    for input in files::inputs(&options.paths, &mut summary)? {
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
                for p in pending {
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
    Ok(summary)
}
