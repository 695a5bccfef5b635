//! `report import`: one subcommand per importer, each with its own help and
//! examples, and the printing of what an import did, one diagnostic per
//! cause (a folder of a thousand refused files gives one error, with the
//! count and a few of them).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use report::diagnostic::render::{Format, Level};
use report::diagnostic::{Diagnostic, Location, Tally};
use report::import::{ImportOptions, Pattern, Summary, Tool};

use super::Cli;

/// Examples of `report import lammps`.
const LAMMPS_EXAMPLES: &str = "Examples:
  # 160 logs whose paths give the environment, nodes, ranks and run:
  report import lammps --pattern '{env}/lammps-{nodes}-{procs}-{run}.out' logs/
  # Any file name under any folder of each environment (* one path part, ** any):
  report import lammps --pattern '{env}/**/*.out' logs/
  # A Metrics Operator capture (JSON) of five runs: five rows:
  report import lammps --env kubernetes --nodes 16 crd-lammps.json
  # See the rows without writing them:
  report import lammps --env bare-metal --dry-run run-7.out

One row per `Loop time` line, in plain logs, concatenated logs, job output (Slurm, Flux, LSF, ReFrame, kubectl logs) or JSON and YAML documents whose strings hold the log. Ranks come from the log, nodes from --nodes, the pattern, or the launcher line (srun -N, flux run -N, jsrun -r).";

/// Examples of `report import osu`.
const OSU_EXAMPLES: &str = "Examples:
  # Output of one environment between two nodes:
  report import osu --env kubernetes --nodes 2 osu-output/
  # Job output of many benchmarks and runs, ranks and nodes from each `jsrun -n 4 -r 1` line:
  report import osu --env lassen lassen_osu_4_nodes.out
  # Files named osu_latency-3.out or osu-latency-32-3.out, in a folder per environment:
  report import osu --nodes 2 --pattern '{env}/*-{run}.out' osu/

Every benchmark of the suite goes to its own file, results/osu_BENCHMARK.csv (osu_latency, osu_bw, osu_mbw_mr, osu_barrier, ...), with a `benchmark` column and every column its table prints. Ranks come from --procs, the pattern, or the launcher line (mpirun -np, mpiexec -n, srun -n, flux run -n, jsrun -n), else 2.";

/// Which importer, with its arguments.
#[derive(Debug, clap::Subcommand)]
pub enum Importer {
    /// Turn LAMMPS logs into rows of results/lammps.csv, one per run.
    #[command(after_help = LAMMPS_EXAMPLES)]
    Lammps(Args),
    /// Turn OSU micro-benchmark output into rows of results/osu_BENCHMARK.csv,
    /// one per run and message size.
    #[command(after_help = OSU_EXAMPLES)]
    Osu(Args),
}

/// The arguments every importer takes.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files or folders to import (folders are walked in sorted order).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Environment of the runs (unless the pattern gives {env}).
    #[arg(long)]
    env: Option<String>,
    /// Nodes of the runs (unless the pattern gives {nodes}; else the launcher line's), 1 or more.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Processes of the runs (unless the pattern gives {procs}; else the launcher line's;
    /// LAMMPS: the log's, OSU: 2), 1 or more.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    procs: Option<u64>,
    /// Path pattern with {env}, {nodes}, {procs} and {run}, `*` for any text
    /// within one path part and `**` for any parts, such as
    /// '{env}/lammps-{nodes}-{procs}-{run}.out'.
    #[arg(long)]
    pattern: Option<Pattern>,
    /// Results file to append to, a plain name: results/NAME.csv
    /// (default: lammps, or the OSU benchmark such as osu_latency).
    #[arg(long)]
    into: Option<String>,
    /// Print the rows that would be added, and write nothing.
    #[arg(long)]
    dry_run: bool,
}

impl Importer {
    /// The options of this import into the study at `root`.
    fn options(&self, root: &Path) -> ImportOptions {
        let (tool, args) = match self {
            Importer::Lammps(args) => (Tool::Lammps, args),
            Importer::Osu(args) => (Tool::Osu, args),
        };
        ImportOptions {
            root: root.to_path_buf(),
            tool,
            paths: args.paths.clone(),
            env: args.env.clone(),
            nodes: args.nodes,
            procs: args.procs,
            pattern: args.pattern.clone(),
            into: args.into.clone(),
            dry_run: args.dry_run,
        }
    }
}

/// `report import`: rows appended (or, in a dry run, printed), refusals
/// and warnings printed one per cause.
pub fn run(cli: &Cli, importer: &Importer, format: Format) -> anyhow::Result<ExitCode> {
    let options = importer.options(&cli.root);
    let summary = report::import::run(&options)?;
    for (file, text) in &summary.preview {
        // The rows are the output, on standard output, unless JSON diagnostics are.
        if format == Format::Json {
            eprintln!("# would append to {file}:\n{text}");
        } else {
            println!("# would append to {file}:\n{text}");
        }
    }
    print_findings(cli, &summary, format);
    if cli.verbose {
        for file in &summary.skipped {
            eprintln!("skipped {} (already imported)", file.display());
        }
    }
    if !cli.quiet && format != Format::Json {
        eprint!("{}", tally(&summary, options.dry_run));
    }
    Ok(if summary.refused.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// Refusals as errors and, unless `--quiet`, warnings and notes, one per
/// cause; with `--message-format json`, all in one array.
fn print_findings(cli: &Cli, summary: &Summary, format: Format) {
    let refusals = by_cause(
        summary.refused.iter().map(|(file, refusal)| Diagnostic {
            hint: refusal.hint.clone(),
            ..Diagnostic::new(
                refusal
                    .line
                    .map_or_else(|| Location::file(file), |line| Location::new(file, line, 1)),
                refusal.reason.clone(),
            )
        }),
        "files refused",
    );
    let notes = by_cause(
        summary.notes.iter().map(|(file, note)| {
            Diagnostic::new(Location::new(file, note.at, 1), note.message.clone())
        }),
        "places",
    );
    let warnings: Vec<Diagnostic> = if cli.quiet {
        Vec::new()
    } else {
        summary.warnings.iter().cloned().chain(notes).collect()
    };
    if format == Format::Json {
        let warnings = report::diagnostic::Diagnostics(warnings).grouped();
        let all: Vec<(Level, &Diagnostic)> = refusals
            .iter()
            .map(|d| (Level::Error, d))
            .chain(warnings.0.iter().map(|d| (Level::Warning, d)))
            .collect();
        if all.is_empty() {
            println!("[]");
        }
        super::print_diagnostics(&all, format);
        return;
    }
    let errors: Vec<(Level, &Diagnostic)> = refusals.iter().map(|d| (Level::Error, d)).collect();
    super::print_diagnostics(&errors, format);
    super::print_warnings(&warnings, format);
}

/// `n` and the noun, singular or plural.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The closing lines: rows added per file, files skipped and refused.
fn tally(summary: &Summary, dry_run: bool) -> String {
    let verb = if dry_run { "would add" } else { "added" };
    let mut out = String::new();
    for (file, rows) in &summary.added {
        out.push_str(&format!("{verb} {} to {file}\n", count(*rows, "row", "rows")));
    }
    let skipped = summary.skipped.len();
    out.push_str(&format!(
        "{} skipped as already imported, {} refused\n",
        count(skipped, "file", "files"),
        summary.refused.len()
    ));
    out
}

/// Diagnostics grouped one per cause by the diagnostic module's [`Tally`],
/// each several-place cause written as one message naming its count and
/// first places: `reason (12 files refused: a, b, c and 9 more)`.
fn by_cause(diagnostics: impl IntoIterator<Item = Diagnostic>, what: &str) -> Vec<Diagnostic> {
    let mut tally = Tally::default();
    tally.extend(diagnostics);
    tally.into_diagnostics().0.into_iter().map(|d| inline(d, what)).collect()
}

/// `diagnostic` with its count and kept places in its message, standing for one problem.
fn inline(mut diagnostic: Diagnostic, what: &str) -> Diagnostic {
    let count = diagnostic.count();
    if count > 1 {
        // A place as `file:line`, or `file` when the whole file is meant.
        let place = |l: &Location| match l.line {
            0 => l.path.display().to_string(),
            line => format!("{}:{line}", l.path.display()),
        };
        let shown: Vec<String> = std::iter::once(&diagnostic.location)
            .chain(&diagnostic.repeats().also)
            .map(place)
            .collect();
        let more = count.saturating_sub(shown.len());
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        diagnostic.message =
            format!("{} ({count} {what}: {}{more})", diagnostic.message, shown.join(", "));
    }
    diagnostic.repeats = None;
    diagnostic
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A refusal of `file`, at `line` when given, with `reason` and hint `fix`.
    fn refusal(file: &str, line: Option<usize>, reason: &str) -> Diagnostic {
        let at = line.map_or_else(|| Location::file(file), |line| Location::new(file, line, 1));
        Diagnostic::new(at, reason).hint("fix")
    }

    #[test]
    fn one_diagnostic_per_cause_naming_the_count_and_the_first_three_places() {
        let refused = vec![
            refusal("e.out", None, "not a log"),
            refusal("b.out", Some(7), "not a log"),
            refusal("a.out", None, "truncated"),
            refusal("d.out", None, "not a log"),
            refusal("c.out", None, "not a log"),
            // The same reason with another hint is another cause.
            refusal("f.out", None, "not a log").hint("other"),
        ];
        let shown: Vec<String> =
            by_cause(refused, "files refused").iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "a.out: truncated\n  = help: fix",
                "b.out:7:1: not a log (4 files refused: b.out:7, c.out, d.out and 1 more)\n  \
                 = help: fix",
                "f.out: not a log\n  = help: other",
            ]
        );
    }
}
