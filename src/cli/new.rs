//! `report new DIR`: a study that builds right away, dated today.

use std::path::Path;
use std::process::ExitCode;

use report::diagnostic::render::Format;

use super::Cli;
use super::print;
use super::resolve::epoch;

/// Create the study in `dir` from `example`, and say what to do next.
pub fn run(cli: &Cli, dir: &Path, example: report::scaffold::Example) -> anyhow::Result<ExitCode> {
    let date = report::scaffold::date(epoch());
    let created = report::scaffold::create(dir, example, &date)?;
    print::finish(&created.warnings, cli.format);
    if !cli.quiet && cli.format != Format::Json {
        let shown = dir.display();
        eprintln!("created a study in {shown} ({} files)", created.files.len());
        eprintln!("next: cd {shown} && report serve --open");
    }
    Ok(ExitCode::SUCCESS)
}
