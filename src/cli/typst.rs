//! `report typst OUT`: the paper as a Typst project, to edit by hand or
//! compile with `typst compile`.

use std::path::Path;
use std::process::ExitCode;

use report::diagnostic::render::Format;

use super::Cli;
use super::print;
use super::resolve::epoch;

/// Write the paper's Typst project to `out`.
pub fn run(cli: &Cli, out: &Path) -> anyhow::Result<ExitCode> {
    let options = report::BuildOptions {
        out: Some(out.to_path_buf()),
        source_date_epoch: epoch(),
        base_url: None,
    };
    let summary = report::typst(&cli.root, &options)?;
    print::finish(&summary.warnings, cli.format);
    if !cli.quiet && cli.format != Format::Json {
        eprintln!(
            "wrote the paper's Typst project ({} files) to {}/; typeset it with `typst compile --font-path fonts main.typ`",
            summary.files.len(),
            summary.out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
