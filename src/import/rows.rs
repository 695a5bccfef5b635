//! From one file's bytes to its rows: the output unwrapped, read by its
//! format ([`super::format::Format`]), and labelled the same way for every
//! format: environment, nodes and processes from the pattern and flags,
//! else from the launcher line before each run (MPI formats), then the
//! provenance columns.

use std::path::Path;

use super::format::{Input, Labelling, Table, TableRun};
use super::launcher::Launch;
use super::pattern::{self, Labels};
use super::{ImportOptions, Pending, Refusal, Run, Summary, unwrap};
use crate::diagnostic::{Diagnostic, Location};

/// The rows of one file, per results file they go to, or why it has none.
/// Notes and warnings about the file go to `summary`.
pub(super) fn pending(
    options: &ImportOptions,
    file: &Path,
    source: String,
    bytes: &[u8],
    summary: &mut Summary,
) -> Result<Vec<Pending>, Refusal> {
    let format = options.format;
    let labelling = format.labelling();
    let labels = pattern::labels(options, file, matches!(labelling, Labelling::Mpi { .. }))?;
    let text = String::from_utf8_lossy(bytes);
    let (_, lines) = unwrap::lines(file, &text);
    let input = Input { path: file, bytes, text: &text, lines: &lines, options };
    let read = format.read(&input)?;
    summary.notes.extend(read.notes.iter().map(|n| (file.to_path_buf(), n.clone())));
    let hash = crate::project::sha256_hex(bytes);
    let nodes = read.nodes.or_else(|| unwrap::pods(&text));
    let mut label = Labeller { file, labels: &labels, options, nodes, warnings: Vec::new() };
    let pending = read
        .tables
        .into_iter()
        .map(|table| {
            let target = options.into.clone().unwrap_or_else(|| table.target.clone());
            let (columns, config, runs) = label.table(table, labelling, &source);
            Pending {
                target,
                columns,
                config,
                file: file.to_path_buf(),
                input: 0,
                source: source.clone(),
                hash: hash.clone(),
                runs,
            }
        })
        .collect();
    summary.warnings.append(&mut label.warnings);
    Ok(pending)
}

/// Labels a file's runs: the pattern and flags first, then the launcher
/// line, then a wrapper's metadata; a launcher line that disagrees with the
/// flags is a warning naming both.
struct Labeller<'a> {
    file: &'a Path,
    labels: &'a Labels,
    options: &'a ImportOptions,
    /// Nodes from a wrapper's metadata, for the whole file.
    nodes: Option<u64>,
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

    /// Nodes and processes of a run started by `launch` (`procs` when the
    /// output itself says how many), `default_procs` when nothing says.
    fn counts(
        &mut self,
        launch: Option<Launch>,
        procs: Option<u64>,
        default_procs: Option<u64>,
    ) -> (Option<u64>, Option<u64>) {
        let at = launch.map_or(1, |l| l.at);
        let launched = launch.and_then(|l| l.nodes).or(self.nodes);
        let nodes = self.pick("nodes", "--nodes", self.labels.nodes, launched, at);
        let procs = match procs {
            Some(p) => Some(self.labels.procs.unwrap_or(p)),
            None => {
                self.pick("ranks", "--procs", self.labels.procs, launch.and_then(|l| l.ranks), at)
            }
        };
        (nodes, procs.or(default_procs))
    }

    /// The columns, configuration columns and runs of `table`, its label
    /// and provenance cells filled. Without an environment (a harness
    /// format imported without `--env`), the `environment` column is left out.
    fn table(
        &mut self,
        table: Table,
        labelling: Labelling,
        source: &str,
    ) -> (Vec<String>, Vec<String>, Vec<Run>) {
        let Table { columns, config: own, runs, .. } = table;
        let env = self.labels.env.clone();
        let mut config: Vec<String> = Vec::new();
        if env.is_some() {
            config.push("environment".into());
        }
        if let Labelling::Mpi { .. } = labelling {
            config.extend(["nodes".to_string(), "procs".to_string()]);
        }
        config.extend(own);
        let given = if runs.len() == 1 { self.labels.run } else { None };
        let runs = runs
            .into_iter()
            .map(|run| {
                let (nodes, procs) = match labelling {
                    Labelling::Mpi { default_procs } => {
                        let default = default_procs.filter(|_| self.labels.procs.is_none());
                        self.counts(run.launch, run.procs, default)
                    }
                    Labelling::Plain => (None, None),
                };
                let labels = RunLabels { env: env.clone(), nodes, procs, source, given };
                labels.apply(run, &columns, &config)
            })
            .collect();
        let keep: Vec<bool> = columns.iter().map(|c| env.is_some() || c != "environment").collect();
        (only(columns, &keep), config, runs)
    }
}

/// The labels of one run.
struct RunLabels<'a> {
    env: Option<String>,
    nodes: Option<u64>,
    procs: Option<u64>,
    source: &'a str,
    given: Option<u64>,
}

impl RunLabels<'_> {
    /// `run` with its label and provenance cells filled (the `environment`
    /// column left out when there is none), and its configuration's values.
    fn apply(self, run: TableRun, columns: &[String], config: &[String]) -> Run {
        let position = |name: &str| columns.iter().position(|c| c == name);
        let fill = [
            (position("environment"), self.env.clone().unwrap_or_default()),
            (position("nodes"), cell(self.nodes)),
            (position("procs"), cell(self.procs)),
            (position("run_in_file"), run.in_file.to_string()),
            (position("source"), self.source.to_string()),
        ];
        let mut rows = run.rows;
        for row in &mut rows {
            for (at, value) in &fill {
                if let Some(c) = at.and_then(|i| row.get_mut(i)) {
                    c.clone_from(value);
                }
            }
        }
        let first = rows.first().cloned().unwrap_or_default();
        let config = config
            .iter()
            .map(|c| position(c).and_then(|i| first.get(i)).cloned().unwrap_or_default())
            .collect();
        let keep: Vec<bool> =
            columns.iter().map(|c| self.env.is_some() || c != "environment").collect();
        let rows = rows.into_iter().map(|row| only(row, &keep)).collect();
        Run { config, env: self.env, given: self.given, rows }
    }
}

/// The cells of `row` whose `keep` is true.
fn only(row: Vec<String>, keep: &[bool]) -> Vec<String> {
    row.into_iter().zip(keep).filter(|(_, k)| **k).map(|(c, _)| c).collect()
}

/// A count as a cell.
fn cell(value: Option<u64>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}
