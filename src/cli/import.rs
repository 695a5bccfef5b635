//! `report import`: one subcommand per importer, each with its own help and
//! examples, and the printing of what an import did, one diagnostic per
//! cause (a folder of a thousand refused files gives one error, with the
//! count and a few of them).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use report::diagnostic::render::{Format, Level};
use report::diagnostic::{Diagnostic, Location, Tally};
use report::import::{Figure, ImportOptions, Pattern, Summary};

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

/// Examples of `report import hyperfine`.
const HYPERFINE_EXAMPLES: &str = "Examples:
  hyperfine --runs 20 --export-json zstd.json -L level 1,3,19 'zstd -{level} -c big.tar'
  report import hyperfine --env laptop zstd.json
  # A folder of exports, the environment from each one's folder:
  report import hyperfine --pattern '{env}/*.json' exports/

One row per timed run of each command (`times`), with `exit_code`, per-run `user_s`, `system_s` and `memory_usage_bytes` when the export has them, and each parameter of a scan (-L, -P) as a column. Goes to results/hyperfine.csv.";

/// Examples of `report import gbench`.
const GBENCH_EXAMPLES: &str = "Examples:
  ./bench --benchmark_repetitions=10 --benchmark_out=run.json --benchmark_out_format=json
  report import gbench --env gcc-13 run.json

One row per iteration row (each repetition), `real_time_s` and `cpu_time_s` in seconds whatever the time_unit, `threads`, every counter a column, the host and CPU count on each row; aggregates (mean, median, stddev) are left out. Goes to results/gbench.csv.";

/// Examples of `report import pytest-benchmark`.
const PYTEST_EXAMPLES: &str = "Examples:
  pytest --benchmark-json=run.json
  report import pytest-benchmark --env py311 run.json
  # Saved runs keep each round only with --benchmark-save-data:
  pytest --benchmark-autosave --benchmark-save-data
  report import pytest-benchmark --env py311 .benchmarks/

One row per round of each test (`time_s`, per iteration), its parameters and extra info as columns, the machine on each row. Goes to results/pytest_benchmark.csv.";

/// Examples of `report import reframe`.
const REFRAME_EXAMPLES: &str = "Examples:
  reframe -c checks/ -r --perflogdir=perflogs
  report import reframe --env cluster-a perflogs/

One row per perflog line (a test run), every header field a column, each performance variable with its unit and reference (times in seconds, as VAR_s). Reads the header line ReFrame 4 writes. Goes to results/reframe.csv.";

/// Examples of `report import criterion`.
const CRITERION_EXAMPLES: &str = "Examples:
  cargo bench
  report import criterion --env laptop target/criterion/

One row per sample of each benchmark (new/sample.json, named by the benchmark.json beside it): `time_s` per iteration, `iterations`, `sample_time_s`. The run before (base/), summaries and reports are passed over, each said. Goes to results/criterion.csv.";

/// Examples of `report import log`.
const LOG_EXAMPLES: &str = "Examples:
  # HPL: the Gflops of each WR line, one run each:
  report import log --env a --figure 'gflops=WR\\S+(?:\\s+\\S+){5}\\s+(\\S+)' hpl.out
  # STREAM: Copy starts each run, Triad follows it:
  report import log --env a --into stream --figure 'copy_mb_s=Copy:\\s+([0-9.]+)' --figure 'triad_mb_s=Triad:\\s+([0-9.]+)' out/
  # AMG's figure of merit, nodes and ranks from the srun line before it:
  report import log --env a --into amg --figure 'fom=Figure of Merit \\(FOM\\):\\s+(\\S+)' amg.out

Each match of the first --figure is one run; each other figure takes its first match from there to the next run. The number is the pattern's group named `value`, else its first group. Labels as for lammps and osu (--pattern, --env, --nodes, --procs, launcher lines). Goes to results/log.csv unless --into.";

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
    /// Turn hyperfine's JSON export into rows of results/hyperfine.csv, one per run.
    #[command(after_help = HYPERFINE_EXAMPLES)]
    Hyperfine(HarnessArgs),
    /// Turn Google Benchmark JSON into rows of results/gbench.csv, one per repetition.
    #[command(after_help = GBENCH_EXAMPLES)]
    Gbench(HarnessArgs),
    /// Turn pytest-benchmark JSON into rows of results/pytest_benchmark.csv, one per round.
    #[command(name = "pytest-benchmark", after_help = PYTEST_EXAMPLES)]
    PytestBenchmark(HarnessArgs),
    /// Turn ReFrame perflogs into rows of results/reframe.csv, one per test run.
    #[command(after_help = REFRAME_EXAMPLES)]
    Reframe(HarnessArgs),
    /// Turn criterion's target/criterion/ into rows of results/criterion.csv, one per sample.
    #[command(after_help = CRITERION_EXAMPLES)]
    Criterion(HarnessArgs),
    /// Find figures of merit in any text output by patterns: one row per run.
    #[command(after_help = LOG_EXAMPLES)]
    Log(LogArgs),
}

/// The arguments of the importers of MPI programs' output.
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
    /// (default: the format's, such as lammps or osu_latency).
    #[arg(long)]
    into: Option<String>,
    /// Print the rows that would be added and which files would give them
    /// (or why each is skipped), and write nothing.
    #[arg(long)]
    dry_run: bool,
}

/// The arguments of `report import log`.
#[derive(Debug, clap::Args)]
pub struct LogArgs {
    /// A figure of merit, NAME=REGEX: the column, and a pattern whose group
    /// (the one named `value`, else the first) is the number. The first
    /// figure marks the runs.
    #[arg(long = "figure", required = true)]
    figures: Vec<Figure>,
    #[command(flatten)]
    args: Args,
}

/// The arguments of the importers of benchmark harnesses' output.
#[derive(Debug, clap::Args)]
pub struct HarnessArgs {
    /// Files or folders to import (folders are walked in sorted order).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Environment of the runs (unless the pattern gives {env}); without
    /// either, the rows have no `environment` column.
    #[arg(long)]
    env: Option<String>,
    /// Path pattern with {env}, `*` for any text within one path part and
    /// `**` for any parts, such as '{env}/*.json'.
    #[arg(long)]
    pattern: Option<Pattern>,
    /// Results file to append to, a plain name: results/NAME.csv.
    #[arg(long)]
    into: Option<String>,
    /// Print the rows that would be added and which files would give them
    /// (or why each is skipped), and write nothing.
    #[arg(long)]
    dry_run: bool,
}

impl Importer {
    /// The options of this import into the study at `root`.
    fn options(&self, root: &Path) -> ImportOptions {
        let (name, args, figures) = match self {
            Importer::Lammps(args) => ("lammps", Some(args), Vec::new()),
            Importer::Osu(args) => ("osu", Some(args), Vec::new()),
            Importer::Log(log) => ("log", Some(&log.args), log.figures.clone()),
            Importer::Hyperfine(h) => return h.options(root, "hyperfine"),
            Importer::Gbench(h) => return h.options(root, "gbench"),
            Importer::PytestBenchmark(h) => return h.options(root, "pytest-benchmark"),
            Importer::Reframe(h) => return h.options(root, "reframe"),
            Importer::Criterion(h) => return h.options(root, "criterion"),
        };
        let args = args.expect("MPI formats have their arguments");
        ImportOptions {
            root: root.to_path_buf(),
            format: report::import::by_name(name).expect("every subcommand is a format"),
            paths: args.paths.clone(),
            env: args.env.clone(),
            nodes: args.nodes,
            procs: args.procs,
            pattern: args.pattern.clone(),
            into: args.into.clone(),
            dry_run: args.dry_run,
            figures,
        }
    }
}

impl HarnessArgs {
    /// The options of an import of `name` into the study at `root`.
    fn options(&self, root: &Path, name: &str) -> ImportOptions {
        ImportOptions {
            root: root.to_path_buf(),
            format: report::import::by_name(name).expect("every subcommand is a format"),
            paths: self.paths.clone(),
            env: self.env.clone(),
            nodes: None,
            procs: None,
            pattern: self.pattern.clone(),
            into: self.into.clone(),
            dry_run: self.dry_run,
            figures: Vec::new(),
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
    if (options.dry_run || cli.verbose) && format != Format::Json {
        eprint!("{}", file_list(&summary, options.dry_run));
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

/// Each file and what it gives (or, in a dry run, would give), or why it
/// gives nothing: skipped, or passed over in a folder.
fn file_list(summary: &Summary, dry_run: bool) -> String {
    let verb = if dry_run { "would add" } else { "added" };
    let mut out = String::new();
    for report in &summary.files {
        let file = report.file.display();
        match &report.skipped {
            None => out.push_str(&format!(
                "{verb} {} from {file} (source `{}`) to {}\n",
                count(report.rows, "row", "rows"),
                report.source,
                report.target
            )),
            Some(why) => out.push_str(&format!("skip {file}: {why}\n")),
        }
    }
    for (file, why) in &summary.passed_over {
        out.push_str(&format!("pass over {}: {why}\n", file.display()));
    }
    out
}

/// The closing lines: rows added per file, files skipped and refused.
fn tally(summary: &Summary, dry_run: bool) -> String {
    let verb = if dry_run { "would add" } else { "added" };
    let mut out = String::new();
    for (file, rows) in &summary.added {
        out.push_str(&format!("{verb} {} to {file}\n", count(*rows, "row", "rows")));
    }
    let skipped = summary.skipped.len();
    let passed = match summary.passed_over.len() {
        0 => String::new(),
        n => format!(", {n} passed over (not this format's measurements; --dry-run lists them)"),
    };
    out.push_str(&format!(
        "{} skipped as already imported, {} refused{passed}\n",
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
