//! `report completions SHELL` and `report man [DIR]`: the shell completion
//! scripts (clap_complete) and the man pages (clap_mangen), made from the
//! same grammar as the command line itself, so they never drift from it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::CommandFactory;

use super::args::Args;

/// `report completions SHELL`: the script on standard output.
pub fn completions(shell: clap_complete::Shell) -> anyhow::Result<ExitCode> {
    let mut script = Vec::new();
    write_completions(shell, &mut script);
    super::print::out(&String::from_utf8_lossy(&script));
    Ok(ExitCode::SUCCESS)
}

/// `report man [DIR]`: report.1 on standard output, or every page into `dir`.
pub fn man(dir: Option<&Path>) -> anyhow::Result<ExitCode> {
    match dir {
        None => {
            let mut page = Vec::new();
            write_man(&mut page)?;
            super::print::out(&String::from_utf8_lossy(&page));
        }
        Some(dir) => {
            let pages = man_pages(dir)?;
            eprintln!("wrote {} man pages to {}", pages.len(), dir.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Write the completion script of `shell` to `out`.
pub fn write_completions(shell: clap_complete::Shell, out: &mut dyn Write) {
    clap_complete::generate(shell, &mut Args::command(), "report", out);
}

/// Write report.1 to `out`.
pub fn write_man(out: &mut dyn Write) -> anyhow::Result<()> {
    clap_mangen::Man::new(Args::command()).render(out).context("cannot write the man page")
}

/// Write report.1 and one page per command (report-build.1,
/// report-import-lammps.1, ...) into `dir`, created if need be; the files
/// there, sorted.
pub fn man_pages(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create `{}`", dir.display()))?;
    clap_mangen::generate_to(Args::command(), dir)
        .with_context(|| format!("cannot write the man pages into `{}`", dir.display()))?;
    let mut pages: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read `{}`", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            name.starts_with("report") && name.ends_with(".1")
        })
        .collect();
    pages.sort();
    Ok(pages)
}
