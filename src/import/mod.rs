//! `report import lammps|osu`: raw benchmark output turned into rows of the
//! results CSVs. Nothing is lost (every refused file is named, with why) and
//! nothing is doubled (a file whose content hash is already in the target is
//! skipped). Existing rows are never rewritten, and the file is replaced
//! atomically.

mod existing;
pub mod lammps;
pub mod osu;
mod pattern;
mod target;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use walkdir::WalkDir;

use crate::diagnostic::{Diagnostic, Diagnostics, Location};
use crate::format::plain;
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

/// Which tool's output is imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Tool {
    /// LAMMPS logs: one row per log.
    Lammps,
    /// OSU micro-benchmarks: one row per message size.
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
    /// Node count, unless the pattern gives `{nodes}`.
    pub nodes: Option<u64>,
    /// Process count for OSU, unless the pattern gives `{procs}` (default 2).
    pub procs: Option<u64>,
    /// Path pattern such as `{env}/lammps-{nodes}-{procs}-{run}.out`.
    pub pattern: Option<Pattern>,
    /// Results file stem to append to (default `lammps` or `osu_<benchmark>`).
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
    /// In a dry run: the CSV text that would be appended, per results file.
    pub preview: BTreeMap<String, String>,
}

/// A parsed file's rows for one results file, before runs are numbered.
struct Pending {
    target: String,
    header: Vec<&'static str>,
    source: PathBuf,
    hash: String,
    labels: pattern::Labels,
    rows: Vec<Vec<String>>,
}

/// Import every file under `options.paths`. Options that cannot be right
/// (a `--into` that is not a plain name, a count of zero) and a study folder
/// that does not exist stop the import before anything is read.
pub fn run(options: &ImportOptions) -> Result<Summary> {
    let root = existing::check_options(options)?;
    let mut summary = Summary::default();
    let mut pending = Vec::new();
    for file in files(&options.paths, &mut summary)? {
        let bytes = fs::read(&file).with_context(|| format!("cannot read `{}`", file.display()))?;
        match parse_file(options, &file, &bytes) {
            Ok(p) => pending.extend(p),
            Err(refusal) => summary.refused.push((file, refusal)),
        }
    }
    let mut targets: BTreeMap<String, Vec<Pending>> = BTreeMap::new();
    for p in pending {
        targets.entry(p.target.clone()).or_default().push(p);
    }
    for (target, items) in targets {
        target::append(options, &root, &target, items, &mut summary)?;
    }
    summary.refused.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(summary)
}

/// Every file under `paths`, folders walked in sorted order. Only regular
/// files are read (a symbolic link is followed to one); anything else met
/// in a folder (a FIFO, socket or device, which could block a read forever,
/// or a link to a folder or to nothing) is refused by name in `summary`.
fn files(paths: &[PathBuf], summary: &mut Summary) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for path in paths {
        let Ok(meta) = fs::metadata(path) else {
            bail!(Diagnostics::from(
                Diagnostic::new(Location::file(path), "no such file or folder to import")
                    .hint("give LAMMPS logs or OSU output files, or folders that hold them"),
            ));
        };
        if !meta.is_dir() {
            match regular(path, meta.file_type()) {
                Ok(()) => out.push(path.clone()),
                Err(refusal) => summary.refused.push((path.clone(), refusal)),
            }
            continue;
        }
        for entry in WalkDir::new(path).min_depth(1).sort_by_file_name() {
            let entry = entry.with_context(|| format!("cannot list `{}`", path.display()))?;
            if entry.file_type().is_dir() {
                continue;
            }
            match fs::metadata(entry.path()).map(|m| m.file_type()) {
                Ok(kind) => match regular(entry.path(), kind) {
                    Ok(()) => out.push(entry.into_path()),
                    Err(refusal) => summary.refused.push((entry.into_path(), refusal)),
                },
                Err(err) => summary.refused.push((
                    entry.into_path(),
                    Refusal::new(format!("a broken symbolic link ({err}); it was not opened"))
                        .hint("point the link at a log, or remove it"),
                )),
            }
        }
    }
    Ok(out)
}

/// Whether a file of `kind` (symbolic links followed) at `path` may be read.
fn regular(path: &Path, kind: fs::FileType) -> Result<(), Refusal> {
    if kind.is_file() {
        return Ok(());
    }
    let link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let what = crate::project::describe_kind(kind);
    let what = if link { format!("a symbolic link to {what}") } else { what };
    let refusal = Refusal::new(format!("not a regular file but {what}; it was not opened"));
    Err(refusal.hint(if kind.is_dir() {
        "a folder reached through a link is not walked: give the folder itself"
    } else {
        "give regular files only: report never reads pipes, sockets or devices, whose reads can block forever"
    }))
}

/// The rows of one file, per results file they go to, or why it has none.
fn parse_file(options: &ImportOptions, file: &Path, bytes: &[u8]) -> Result<Vec<Pending>, Refusal> {
    let text = String::from_utf8_lossy(bytes);
    let labels = pattern::labels(options, file)?;
    let hash = crate::project::sha256_hex(bytes);
    let source = file.to_path_buf();
    match options.tool {
        Tool::Lammps => {
            let run = lammps::parse(&text)?;
            let target = options.into.clone().unwrap_or_else(|| "lammps".into());
            let row = lammps_row(&run, &labels);
            Ok(vec![Pending {
                target,
                header: LAMMPS_HEADER.to_vec(),
                source,
                hash,
                labels,
                rows: vec![row],
            }])
        }
        Tool::Osu => {
            let tables = osu::parse(&text)?;
            Ok(osu_pending(options, &tables, &source, &hash, &labels))
        }
    }
}

/// The rows of an OSU file's tables: one [`Pending`] per benchmark, since
/// each benchmark has a results file of its own.
fn osu_pending(
    options: &ImportOptions,
    tables: &[osu::OsuTable],
    source: &Path,
    hash: &str,
    labels: &pattern::Labels,
) -> Vec<Pending> {
    let mut by_benchmark: BTreeMap<osu::Benchmark, Vec<&osu::OsuTable>> = BTreeMap::new();
    for t in tables {
        by_benchmark.entry(t.benchmark).or_default().push(t);
    }
    by_benchmark
        .into_iter()
        .map(|(benchmark, tables)| Pending {
            target: options.into.clone().unwrap_or_else(|| benchmark.file().to_string()),
            header: osu_header(benchmark),
            source: source.to_path_buf(),
            hash: hash.to_string(),
            labels: labels.clone(),
            rows: osu_rows(&tables),
        })
        .collect()
}

/// The measured part of the rows of one benchmark's tables: run, message
/// size, value and OSU version (labels and provenance are added later).
fn osu_rows(tables: &[&osu::OsuTable]) -> Vec<Vec<String>> {
    // Each table is a run of its own; several tables in one file are numbered in order.
    tables
        .iter()
        .enumerate()
        .flat_map(|(i, t)| {
            t.rows.iter().map(move |(size, value)| {
                vec![i.to_string(), size.to_string(), plain(*value), t.version.clone()]
            })
        })
        .collect()
}

/// Columns of the LAMMPS results file.
pub const LAMMPS_HEADER: [&str; 20] = [
    "environment",
    "nodes",
    "procs",
    "mpi_tasks",
    "omp_threads",
    "run",
    "atoms",
    "steps",
    "loop_time_s",
    "timesteps_per_s",
    "cpu_use_pct",
    "pair_pct",
    "neigh_pct",
    "comm_pct",
    "output_pct",
    "modify_pct",
    "other_pct",
    "lammps_version",
    "source",
    "source_sha256",
];

/// Columns of the results file of an OSU `benchmark`.
fn osu_header(benchmark: osu::Benchmark) -> Vec<&'static str> {
    vec![
        "environment",
        "nodes",
        "procs",
        "run",
        "size_bytes",
        benchmark.column(),
        "osu_version",
        "source",
        "source_sha256",
    ]
}

/// The measured part of a LAMMPS row (labels, run and provenance are added later).
fn lammps_row(run: &lammps::LammpsRun, labels: &pattern::Labels) -> Vec<String> {
    let opt = |v: Option<f64>| v.map(plain).unwrap_or_default();
    let procs = labels.procs.unwrap_or(run.procs);
    let mut row = vec![
        procs.to_string(),
        run.mpi_tasks.map(|v| v.to_string()).unwrap_or_default(),
        run.omp_threads.map(|v| v.to_string()).unwrap_or_default(),
        run.atoms.to_string(),
        run.steps.to_string(),
        plain(run.loop_time_s),
        plain(run.timesteps_per_s),
        opt(run.cpu_use_pct),
    ];
    row.extend(run.breakdown.iter().map(|v| opt(*v)));
    row.push(run.version.clone());
    row
}
