//! The `report` command line: parses arguments, calls the library, prints
//! diagnostics once, and returns the exit code.
//!
//! Exit codes: 0 success; 1 the study has errors (or a command failed);
//! 2 the command line itself is wrong.

// The binary is where results reach the terminal; the library prints nothing.
#![allow(clippy::print_stdout)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use report::diagnostic::render::{self, Format, Level};
use report::diagnostic::{Diagnostic, Diagnostics};

#[path = "cli/import.rs"]
mod import_cli;

/// Turn benchmark results and Markdown into a web page and a PDF paper.
#[derive(Debug, Parser)]
#[command(version = env!("REPORT_LONG_VERSION"), about)]
struct Cli {
    /// The study folder (holding book.toml).
    #[arg(long, global = true, default_value = ".")]
    root: PathBuf,
    /// Print only errors.
    #[arg(long, short, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Also print the time each stage took.
    #[arg(long, short, global = true)]
    verbose: bool,
    /// How to print errors and warnings.
    #[arg(long, global = true, value_enum, default_value_t = Format::Human)]
    message_format: Format,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Build the page, the paper and data/stats.json into the output folder.
    Build {
        /// Output folder (default: [output] dir in book.toml, `site`).
        #[arg(long)]
        out: Option<PathBuf>,
        /// The site's public URL, for canonical links (default: [output] base-url).
        #[arg(long)]
        base_url: Option<String>,
    },
    /// Run every check of a build, the paper included, without writing anything.
    Check {
        /// `human`, or `json` for CI annotations (same as --message-format).
        #[arg(long, value_enum)]
        format: Option<Format>,
    },
    /// Create a new study that builds right away.
    New {
        /// The folder to create.
        dir: PathBuf,
    },
    /// Show how each headline metric moved between two stats.json files, or
    /// between the results at a git revision and now.
    Diff {
        /// The old and new stats.json (omit with --against).
        files: Vec<PathBuf>,
        /// Compare the results at this git revision with the current ones.
        #[arg(long, conflicts_with = "files")]
        against: Option<String>,
    },
    /// Turn LAMMPS logs or OSU output into rows of results/*.csv.
    #[command(
        after_help = "Examples:\n  report import lammps --pattern '{env}/lammps-{nodes}-{procs}-{run}.out' logs/\n  report import osu --env kubernetes --nodes 2 osu-output/\n\nSee `report import lammps --help` and `report import osu --help`."
    )]
    Import {
        #[command(subcommand)]
        importer: import_cli::Importer,
    },
    /// Write the paper as a Typst project (main.typ, content.typ, data, charts,
    /// fonts) to edit by hand or compile with `typst compile --font-path fonts main.typ`.
    Typst {
        /// The folder to write (replaced whole, like the output folder).
        out: PathBuf,
    },
    /// Serve the study on 127.0.0.1, rebuilding and reloading on every change.
    Serve {
        /// Port to listen on (0 picks a free one).
        #[arg(long, default_value_t = 8000)]
        port: u16,
        /// Listen on every network interface, not only 127.0.0.1.
        #[arg(long)]
        bind_all: bool,
    },
}

/// Parse the command line, run the command, and print its error chain once.
fn main() -> ExitCode {
    // `report __typeset`: the child that typesets the paper under limits.
    if let Some(code) = report::render::enter() {
        return code;
    }
    let cli = Cli::parse();
    let format = match &cli.command {
        Command::Check { format: Some(f) } => *f,
        _ => cli.message_format,
    };
    match run(&cli, format) {
        Ok(code) => code,
        Err(err) => {
            print_error(&err, format);
            ExitCode::FAILURE
        }
    }
}

/// The build date from `SOURCE_DATE_EPOCH`, for reproducible output.
fn epoch() -> Option<i64> {
    std::env::var("SOURCE_DATE_EPOCH").ok().and_then(|s| s.trim().parse().ok())
}

/// Run the subcommand of `cli`, printing diagnostics in `format`.
fn run(cli: &Cli, format: Format) -> anyhow::Result<ExitCode> {
    match &cli.command {
        Command::Build { out, base_url } => build(cli, out.clone(), base_url.clone(), format),
        Command::Check { .. } => check(cli, format),
        Command::New { dir } => new(cli, dir),
        Command::Serve { port, bind_all } => serve(cli, *port, *bind_all, format),
        Command::Typst { out } => typst(cli, out, format),
        Command::Diff { files, against } => diff(cli, files, against.as_deref()),
        Command::Import { importer } => import_cli::run(cli, importer, format),
    }
}

/// `report check`: every check of a build, with nothing written.
fn check(cli: &Cli, format: Format) -> anyhow::Result<ExitCode> {
    let options = report::BuildOptions { out: None, source_date_epoch: epoch(), base_url: None };
    let warnings = report::check(&cli.root, &options)?;
    print_warnings(&warnings, format);
    if format == Format::Json && warnings.is_empty() {
        println!("[]");
    } else if !cli.quiet && format != Format::Json {
        eprintln!("no errors in {}", cli.root.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `report new`: a study in `dir` that builds right away.
fn new(cli: &Cli, dir: &Path) -> anyhow::Result<ExitCode> {
    let files = report::scaffold::create(dir)?;
    if !cli.quiet {
        eprintln!(
            "created a study in {} ({} files); build it with `report --root {} build`",
            dir.display(),
            files.len(),
            dir.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `report typst`: the paper as a Typst project in `out`.
fn typst(cli: &Cli, out: &Path, format: Format) -> anyhow::Result<ExitCode> {
    let options = report::BuildOptions {
        out: Some(out.to_path_buf()),
        source_date_epoch: epoch(),
        base_url: None,
    };
    let summary = report::typst(&cli.root, &options)?;
    print_warnings(&summary.warnings, format);
    if !cli.quiet {
        eprintln!(
            "wrote the paper's Typst project ({} files) to {}/; typeset it with `typst compile --font-path fonts main.typ`",
            summary.files.len(),
            summary.out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `report diff`: how each headline metric moved between two stats.json
/// files, or between the results at git revision `against` and now.
fn diff(cli: &Cli, files: &[PathBuf], against: Option<&str>) -> anyhow::Result<ExitCode> {
    let (old, new) = match (files, against) {
        ([old, new], None) => (report::diff::read(old)?, report::diff::read(new)?),
        ([], Some(rev)) => {
            let new = current_stats(&cli.root)?;
            (report::diff::stats_at(&cli.root, rev)?, new)
        }
        _ => anyhow::bail!("give two stats.json files, or --against REV"),
    };
    for change in report::diff::compare(&old, &new) {
        println!("- {change}");
    }
    Ok(ExitCode::SUCCESS)
}

/// What stats.json of the study in `root` would hold now (nothing is written).
fn current_stats(root: &Path) -> anyhow::Result<serde_json::Value> {
    let project = report::project::load(root)?;
    let now = report::pipeline::analyze(&project)?;
    Ok(serde_json::from_slice(&report::render::json::render(&now.analysis, &project.config))?)
}

/// `report build`: the page, the paper and data/stats.json, with a spinner
/// for slow builds and, with `--verbose`, the time of each stage.
fn build(
    cli: &Cli,
    out: Option<PathBuf>,
    base_url: Option<String>,
    format: Format,
) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let options = report::BuildOptions { out, source_date_epoch: epoch(), base_url };
    let spinner = (!cli.quiet && std::io::stderr().is_terminal()).then(progress);
    let result = report::build(&cli.root, &options);
    if let Some(spinner) = spinner {
        spinner.finish_and_clear();
    }
    let summary = result?;
    print_warnings(&summary.warnings, format);
    if !cli.quiet {
        let out = summary.out.display();
        eprintln!(
            "wrote {} files to {out}/ in {:.2} s",
            summary.files.len(),
            started.elapsed().as_secs_f64()
        );
        if cli.verbose {
            for (stage, time) in &summary.timings.0 {
                eprintln!("  {stage:<9} {:>7.1} ms", time.as_secs_f64() * 1000.0);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A spinner that appears only if the build takes more than a second.
fn progress() -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::hidden();
    bar.set_message("building");
    let shown = bar.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(1));
        if !shown.is_finished() {
            shown.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            shown.enable_steady_tick(Duration::from_millis(100));
        }
    });
    bar
}

/// `report serve`: serve the study, printing each rebuild and failure.
fn serve(cli: &Cli, port: u16, bind_all: bool, format: Format) -> anyhow::Result<ExitCode> {
    use report::serve::Outcome;
    let options = report::serve::ServeOptions {
        root: cli.root.clone(),
        port,
        bind_all,
        source_date_epoch: epoch(),
    };
    let quiet = cli.quiet;
    let outcome = move |o: &Outcome| match o {
        Outcome::Built(change, time) if !quiet => {
            eprintln!("rebuilt ({change:?}) in {:.0} ms", time.as_secs_f64() * 1000.0)
        }
        Outcome::Typeset(time) if !quiet => {
            eprintln!("typeset the paper in {:.0} ms", time.as_secs_f64() * 1000.0)
        }
        Outcome::Failed(err) => print_error(err, format),
        _ => {}
    };
    report::serve::run(&options, Box::new(outcome), |address| {
        eprintln!("serving http://{address}/ (Ctrl-C to stop)");
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Print the error chain once: each diagnostic rendered, or anyhow's chain.
fn print_error(err: &anyhow::Error, format: Format) {
    match err.downcast_ref::<Diagnostics>() {
        Some(diagnostics) => {
            let diagnostics = diagnostics.clone().grouped();
            print_diagnostics(
                &diagnostics.0.iter().map(|d| (Level::Error, d)).collect::<Vec<_>>(),
                format,
            );
            if diagnostics.total() > 1 && format != Format::Json {
                eprintln!("error: {}; nothing was written", diagnostics.summary());
            }
        }
        None if format == Format::Json => {
            println!("{}", serde_json::json!([{ "level": "error", "message": format!("{err:#}") }]))
        }
        None => eprintln!("error: {err:#}"),
    }
}

/// Print `warnings` as warnings, one per cause.
fn print_warnings(warnings: &[Diagnostic], format: Format) {
    let warnings = Diagnostics(warnings.to_vec()).grouped();
    print_diagnostics(&warnings.0.iter().map(|w| (Level::Warning, w)).collect::<Vec<_>>(), format);
}

/// Print diagnostics with the source lines they carry: JSON on standard
/// output, anything else on standard error.
fn print_diagnostics(diagnostics: &[(Level, &Diagnostic)], format: Format) {
    if diagnostics.is_empty() {
        return;
    }
    if format == Format::Json {
        print!("{}", render::render(diagnostics, format, false));
    } else {
        render::eprint(diagnostics, format);
    }
}
