//! `report check`: every check of a build, the paper included, with
//! nothing written.

use std::process::ExitCode;

use report::diagnostic::render::Format;

use super::Cli;
use super::print;
use super::resolve::epoch;

/// Check the study of `cli`, printing its warnings.
pub fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    let options = report::BuildOptions { out: None, source_date_epoch: epoch(), base_url: None };
    let warnings = report::check(&cli.root, &options)?;
    print::finish(&warnings, cli.format);
    if !cli.quiet && cli.format != Format::Json {
        eprintln!("no errors in {}", cli.root.display());
    }
    Ok(ExitCode::SUCCESS)
}
