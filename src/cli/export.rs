//! `report export OUT`: the study's runs and claims as Parquet, for engines.

use std::path::Path;
use std::process::ExitCode;

use report::diagnostic::render::Format;

use super::Cli;
use super::print;
use super::resolve::epoch;

/// Write the study's runs and claims to `out`.
pub fn run(cli: &Cli, out: &Path) -> anyhow::Result<ExitCode> {
    let options = report::BuildOptions {
        out: Some(out.to_path_buf()),
        source_date_epoch: epoch(),
        base_url: None,
    };
    let summary = report::export(&cli.root, &options)?;
    print::finish(&summary.warnings, cli.format);
    if !cli.quiet && cli.format != Format::Json {
        eprintln!(
            "wrote the study's claims and runs as Parquet ({} files) to {}/",
            summary.files.len(),
            summary.out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
