//! From one file's bytes to its rows: the output unwrapped, parsed by the
//! tool's reader, and labelled (environment, nodes, processes) from the
//! pattern and flags, else from the launcher line before each run.

use std::collections::BTreeMap;
use std::path::Path;

use super::launcher::Launch;
use super::pattern::{self, Labels};
use super::{ImportOptions, Pending, Refusal, Run, Summary, Tool, lammps, osu, unwrap};
use crate::diagnostic::{Diagnostic, Location};
use crate::format::plain;

/// Columns of the LAMMPS results file.
pub const LAMMPS_COLUMNS: [&str; 22] = [
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
    "total_wall_time_s",
    "lammps_version",
    "run_in_file",
    "source",
    "source_sha256",
];

/// Columns of every OSU results file around those of the benchmark's table.
const OSU_FIRST: [&str; 5] = ["environment", "nodes", "procs", "run", "benchmark"];
const OSU_LAST: [&str; 4] = ["osu_version", "run_in_file", "source", "source_sha256"];

/// OSU processes when neither the flags nor a launcher line say: a point-to-point pair.
const OSU_DEFAULT_PROCS: u64 = 2;

/// The rows of one file, per results file they go to, or why it has none.
/// Notes and warnings about the file go to `summary`.
pub(super) fn pending(
    options: &ImportOptions,
    file: &Path,
    source: String,
    bytes: &[u8],
    summary: &mut Summary,
) -> Result<Vec<Pending>, Refusal> {
    let text = String::from_utf8_lossy(bytes);
    let labels = pattern::labels(options, file)?;
    let (_, lines) = unwrap::lines(file, &text);
    let make = |target: String, columns: Vec<String>, runs: Vec<Run>| Pending {
        target,
        columns,
        file: file.to_path_buf(),
        hash: crate::project::sha256_hex(bytes),
        runs,
    };
    let mut label = Labeller { file, labels: &labels, options, warnings: Vec::new() };
    let pending = match options.tool {
        Tool::Lammps => {
            let parsed = lammps::parse_lines(&lines)?;
            summary.notes.extend(parsed.notes.iter().map(|n| (file.to_path_buf(), n.clone())));
            let runs = lammps_runs(&parsed.runs, &mut label, &source);
            let target = options.into.clone().unwrap_or_else(|| "lammps".into());
            vec![make(target, LAMMPS_COLUMNS.iter().map(|c| c.to_string()).collect(), runs)]
        }
        Tool::Osu => {
            let parsed = osu::parse_lines(&lines)?;
            summary.notes.extend(parsed.notes.iter().map(|n| (file.to_path_buf(), n.clone())));
            osu::by_benchmark(&parsed)
                .into_iter()
                .map(|(benchmark, tables)| {
                    let (columns, runs) = osu_runs(benchmark, &tables, &mut label, &source);
                    make(options.into.clone().unwrap_or_else(|| benchmark.into()), columns, runs)
                })
                .collect()
        }
    };
    summary.warnings.append(&mut label.warnings);
    Ok(pending)
}

/// Labels a file's runs: the pattern and flags first, then the launcher
/// line; a launcher line that disagrees with them is a warning naming both.
struct Labeller<'a> {
    file: &'a Path,
    labels: &'a Labels,
    options: &'a ImportOptions,
    warnings: Vec<Diagnostic>,
}

impl Labeller<'_> {
    /// `given` (from the pattern or a flag named `flag`), else the launcher's `launched`.
    fn pick(
        &mut self,
        what: &str,
        flag: &str,
        given: Option<u64>,
        launched: Option<u64>,
        at: usize,
    ) -> Option<u64> {
        if let (Some(g), Some(l)) = (given, launched)
            && g != l
        {
            let from = if self.options.pattern.is_some() {
                format!("the path or {flag}")
            } else {
                flag.to_string()
            };
            self.warnings.push(
                Diagnostic::new(Location::new(self.file, at, 1), format!("the launcher line starts {l} {what}, {from} gives {g}: {g} is used"))
                    .hint(format!("the flags and the pattern override the launcher line; leave out {flag} to take the launcher's count")),
            );
        }
        given.or(launched)
    }

    /// Environment, nodes and processes of a run started by `launch`
    /// (`procs` when the output itself says how many).
    fn config(
        &mut self,
        launch: Option<Launch>,
        procs: Option<u64>,
    ) -> (String, Option<u64>, Option<u64>) {
        let at = launch.map_or(1, |l| l.at);
        let nodes =
            self.pick("nodes", "--nodes", self.labels.nodes, launch.and_then(|l| l.nodes), at);
        let procs = match procs {
            Some(p) => Some(self.labels.procs.unwrap_or(p)),
            None => {
                self.pick("ranks", "--procs", self.labels.procs, launch.and_then(|l| l.ranks), at)
            }
        };
        (self.labels.env.clone().unwrap_or_default(), nodes, procs)
    }
}

/// A count as a cell.
fn cell(value: Option<u64>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// One run per LAMMPS run, its row in [`LAMMPS_COLUMNS`] order.
fn lammps_runs(runs: &[lammps::LammpsRun], label: &mut Labeller, source: &str) -> Vec<Run> {
    let opt = |v: Option<f64>| v.map(plain).unwrap_or_default();
    let given = if runs.len() == 1 { label.labels.run } else { None };
    runs.iter()
        .enumerate()
        .map(|(i, run)| {
            let (env, nodes, procs) = label.config(run.launch, Some(run.procs));
            let (nodes, procs) = (cell(nodes), cell(procs));
            let mut row = vec![
                env.clone(),
                nodes.clone(),
                procs.clone(),
                cell(run.mpi_tasks),
                cell(run.omp_threads),
            ];
            row.extend([String::new(), run.atoms.to_string(), run.steps.to_string()]);
            row.extend([plain(run.loop_time_s), plain(run.timesteps_per_s), opt(run.cpu_use_pct)]);
            row.extend(run.breakdown.iter().map(|v| opt(*v)));
            row.extend([opt(run.total_wall_time_s), run.version.clone(), (i + 1).to_string()]);
            row.extend([source.to_string(), String::new()]);
            Run { config: (env, nodes, procs), given, rows: vec![row] }
        })
        .collect()
}

/// A table's column as a column of the results file: renamed if it would
/// take the name of one the importer fills.
fn rename(column: &str) -> String {
    if OSU_FIRST.contains(&column) || OSU_LAST.contains(&column) {
        format!("value_{column}")
    } else {
        column.to_string()
    }
}

/// The columns of one benchmark's results: the labels, every column any of
/// its tables prints, then version and provenance.
fn osu_columns(tables: &[&osu::OsuTable]) -> Vec<String> {
    let mut columns: Vec<String> = OSU_FIRST.iter().map(|c| c.to_string()).collect();
    for table in tables {
        for c in &table.columns {
            let c = rename(c);
            if !columns.contains(&c) {
                columns.push(c);
            }
        }
    }
    columns.extend(OSU_LAST.iter().map(|c| c.to_string()));
    columns
}

/// The columns and runs of one benchmark's tables: every column any of its
/// tables prints, each table one run.
fn osu_runs(
    benchmark: &str,
    tables: &[&osu::OsuTable],
    label: &mut Labeller,
    source: &str,
) -> (Vec<String>, Vec<Run>) {
    let columns = osu_columns(tables);
    let index: BTreeMap<&str, usize> =
        columns.iter().enumerate().map(|(i, c)| (c.as_str(), i)).collect();
    let given = if tables.len() == 1 { label.labels.run } else { None };
    let runs = tables
        .iter()
        .enumerate()
        .map(|(i, table)| {
            let (env, nodes, procs) = label.config(table.launch, None);
            let procs = procs.or((label.labels.procs.is_none()).then_some(OSU_DEFAULT_PROCS));
            let (nodes, procs) = (cell(nodes), cell(procs));
            let mut template = vec![String::new(); columns.len()];
            template[..5].clone_from_slice(&[
                env.clone(),
                nodes.clone(),
                procs.clone(),
                String::new(),
                benchmark.to_string(),
            ]);
            let last = columns.len() - OSU_LAST.len();
            template[last..last + 3].clone_from_slice(&[
                table.version.clone(),
                (i + 1).to_string(),
                source.to_string(),
            ]);
            let rows = table
                .rows
                .iter()
                .map(|cells| {
                    let mut row = template.clone();
                    for (c, value) in table.columns.iter().zip(cells) {
                        row[index[rename(c).as_str()]].clone_from(value);
                    }
                    row
                })
                .collect();
            Run { config: (env, nodes, procs), given, rows }
        })
        .collect();
    (columns, runs)
}
