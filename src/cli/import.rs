//! `report import`: one subcommand per importer, each with its own help and
//! examples, and the printing of what an import did, one diagnostic per
//! cause (a folder of a thousand refused files gives one error, with the
//! count and a few of them).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{Arg, ArgAction, ArgMatches, Command};
use report::diagnostic::render::{Format as Printed, Level};
use report::diagnostic::{Diagnostic, Location, Tally};
use report::import::format::{Format, Labelling};
use report::import::{FORMATS, ImportOptions, Pattern, Summary};

use super::Cli;
use super::print;

/// Which importer, with the arguments given to it: the subcommands are
/// made from the list of formats ([`report::import::FORMATS`]), each with
/// the options every format takes, those of its labelling (nodes and
/// processes for MPI programs' output) and its own.
#[derive(Debug, Clone)]
pub struct Importer {
    format: &'static dyn Format,
    matches: ArgMatches,
}

impl clap::FromArgMatches for Importer {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let Some((name, matches)) = matches.subcommand() else {
            return Err(clap::Error::new(ErrorKind::MissingSubcommand));
        };
        let format = report::import::by_name(name).ok_or_else(|| {
            clap::Error::raw(ErrorKind::InvalidSubcommand, format!("no importer `{name}`\n"))
        })?;
        Ok(Self { format, matches: matches.clone() })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Subcommand for Importer {
    fn augment_subcommands(command: Command) -> Command {
        command.subcommands(FORMATS.iter().map(|format| subcommand(*format)))
    }

    fn augment_subcommands_for_update(command: Command) -> Command {
        Self::augment_subcommands(command)
    }

    fn has_subcommand(name: &str) -> bool {
        report::import::by_name(name).is_some()
    }
}

/// `report import NAME`: its own options first, then those of every format.
fn subcommand(format: &'static dyn Format) -> Command {
    let after = format!("{}\n\n{}", format.examples(), format.columns());
    let mut command = Command::new(format.name()).about(format.about()).after_help(after);
    for opt in format.options() {
        let check = opt.check;
        command = command.arg(
            Arg::new(opt.name)
                .long(opt.name)
                .value_name(opt.value_name)
                .help(opt.help)
                .required(opt.required)
                .action(if opt.repeated { ArgAction::Append } else { ArgAction::Set })
                .value_parser(move |text: &str| check(text).map(|()| text.to_string())),
        );
    }
    let mpi = matches!(format.labelling(), Labelling::Mpi { .. });
    command.args(common(mpi))
}

/// The options every format takes; with `mpi`, nodes and processes too.
fn common(mpi: bool) -> Vec<Arg> {
    let paths = Arg::new("paths")
        .value_name("PATHS")
        .help("Files or folders to import (folders are walked in sorted order)")
        .required(true)
        .num_args(1..)
        .value_parser(clap::value_parser!(PathBuf));
    let env = Arg::new("env").long("env").value_name("ENV").help(if mpi {
        "Environment of the runs (unless the pattern gives {env})"
    } else {
        "Environment of the runs (unless the pattern gives {env}); without either, the rows \
         have no `environment` column"
    });
    let count = |name: &'static str, value: &'static str, help: &'static str| {
        Arg::new(name)
            .long(name)
            .value_name(value)
            .help(help)
            .value_parser(clap::value_parser!(u64).range(1..))
    };
    let pattern = Arg::new("pattern")
        .long("pattern")
        .value_name("PATTERN")
        .value_parser(|text: &str| text.parse::<Pattern>())
        .help(if mpi {
            "Path pattern with {env}, {nodes}, {procs} and {run}, `*` for any text within one \
             path part and `**` for any parts, such as '{env}/lammps-{nodes}-{procs}-{run}.out'"
        } else {
            "Path pattern with {env}, `*` for any text within one path part and `**` for any \
             parts, such as '{env}/*.json'"
        });
    let into = Arg::new("into").long("into").value_name("INTO").help(if mpi {
        "Results file to append to, a plain name: results/NAME.csv (default: the format's, \
         such as lammps or osu_latency)"
    } else {
        "Results file to append to, a plain name: results/NAME.csv"
    });
    let dry_run = Arg::new("dry_run").long("dry-run").action(ArgAction::SetTrue).help(
        "Print the rows that would be added and which files would give them (or why each is \
         skipped), and write nothing",
    );
    let mut args = vec![paths, env];
    if mpi {
        args.push(count(
            "nodes",
            "NODES",
            "Nodes of the runs (unless the pattern gives {nodes}; else the launcher line's), 1 \
             or more",
        ));
        args.push(count(
            "procs",
            "PROCS",
            "Processes of the runs (unless the pattern gives {procs}; else the launcher line's; \
             LAMMPS: the log's, OSU: 2), 1 or more",
        ));
    }
    args.extend([pattern, into, dry_run]);
    args
}

impl Importer {
    /// The options of this import into the study at `root`.
    fn options(&self, root: &Path) -> ImportOptions {
        let m = &self.matches;
        // Options a format does not take are absent, not errors.
        let one = |name: &str| m.try_get_one::<String>(name).ok().flatten().cloned();
        let count = |name: &str| m.try_get_one::<u64>(name).ok().flatten().copied();
        let values = self
            .format
            .options()
            .iter()
            .flat_map(|opt| {
                let given = m.get_many::<String>(opt.name).into_iter().flatten();
                given.map(|value| (opt.name.to_string(), value.clone()))
            })
            .collect();
        ImportOptions {
            root: root.to_path_buf(),
            format: self.format,
            paths: m.get_many::<PathBuf>("paths").into_iter().flatten().cloned().collect(),
            env: one("env"),
            nodes: count("nodes"),
            procs: count("procs"),
            pattern: m.get_one::<Pattern>("pattern").cloned(),
            into: one("into"),
            dry_run: m.get_flag("dry_run"),
            values,
        }
    }
}

/// `report import`: rows appended (or, in a dry run, printed), refusals
/// and warnings printed one per cause.
pub fn run(cli: &Cli, importer: &Importer) -> anyhow::Result<ExitCode> {
    let format = cli.format;
    let options = importer.options(&cli.root);
    let summary = report::import::run(&options)?;
    for (file, text) in &summary.preview {
        // The rows are the output, on standard output, unless JSON diagnostics are.
        if format == Printed::Json {
            eprintln!("# would append to {file}:\n{text}");
        } else {
            super::print::line(&format!("# would append to {file}:\n{text}"));
        }
    }
    print_findings(cli, &summary, format);
    if (options.dry_run || cli.verbose) && format != Printed::Json {
        eprint!("{}", file_list(&summary, options.dry_run));
    }
    if !cli.quiet && format != Printed::Json {
        eprint!("{}", tally(&summary, options.dry_run));
    }
    Ok(if summary.refused.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// Refusals as errors and, unless `--quiet`, warnings and notes, one per
/// cause; with `--message-format json`, all in one array.
fn print_findings(cli: &Cli, summary: &Summary, format: Printed) {
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
    if format == Printed::Json {
        let warnings = report::diagnostic::Diagnostics(warnings).grouped();
        let all: Vec<(Level, &Diagnostic)> = refusals
            .iter()
            .map(|d| (Level::Error, d))
            .chain(warnings.0.iter().map(|d| (Level::Warning, d)))
            .collect();
        if all.is_empty() {
            super::print::line("[]");
        }
        print::diagnostics_of(&all, format);
        return;
    }
    let errors: Vec<(Level, &Diagnostic)> = refusals.iter().map(|d| (Level::Error, d)).collect();
    print::diagnostics_of(&errors, format);
    print::warnings_of(&warnings, format);
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
