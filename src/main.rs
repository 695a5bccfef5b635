//! The `report` command line: parses arguments, calls the library, prints errors once.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use report::diagnostic::Diagnostics;

/// Turn benchmark results and Markdown into a web page and a PDF paper.
#[derive(Debug, Parser)]
#[command(version, about)]
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
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            report_error(&err);
            ExitCode::FAILURE
        }
    }
}

fn run(cli: &Cli) -> anyhow::Result<()> {
    match &cli.command {
        Command::Build { out } => {
            let started = Instant::now();
            let epoch = std::env::var("SOURCE_DATE_EPOCH").ok().and_then(|s| s.trim().parse().ok());
            let options = report::BuildOptions { out: out.clone(), source_date_epoch: epoch };
            let summary = report::build(&cli.root, &options)?;
            for warning in &summary.warnings {
                eprintln!("warning: {warning}");
            }
            if cli.quiet {
                return Ok(());
            }
            let out = summary.out.display();
            eprintln!("wrote {} files to {out}/ in {:.2} s", summary.files.len(), started.elapsed().as_secs_f64());
            if cli.verbose {
                for (stage, time) in &summary.timings.0 {
                    eprintln!("  {stage:<9} {:>7.1} ms", time.as_secs_f64() * 1000.0);
                }
            }
            Ok(())
        }
    }
}

/// Print the error chain once: each diagnostic on its own, or anyhow's chain.
fn report_error(err: &anyhow::Error) {
    if let Some(diagnostics) = err.downcast_ref::<Diagnostics>() {
        for diagnostic in &diagnostics.0 {
            eprintln!("error: {diagnostic}");
        }
        if diagnostics.0.len() > 1 {
            eprintln!("error: build failed with {} errors; the previous output is unchanged", diagnostics.0.len());
        }
    } else {
        eprintln!("error: {err:#}");
    }
}
