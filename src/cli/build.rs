//! `report build`: the page, the paper and data/stats.json (of every study,
//! with the site's index, in a folder with a site.toml), with a spinner
//! for slow builds and, with `--verbose`, the time of each stage.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use report::diagnostic::render::Format;

use super::Cli;
use super::print;
use super::resolve::epoch;

/// Build the study of `cli` into `out` (else book.toml's), linked from
/// `base_url`; a site's feed compares with the build in `previous`.
pub fn run(
    cli: &Cli,
    out: Option<PathBuf>,
    base_url: Option<String>,
    previous: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let options = report::BuildOptions { out, source_date_epoch: epoch(), base_url };
    let site = report::site::is_site(&cli.root);
    if previous.is_some() && !site {
        anyhow::bail!(
            "`--previous` is for a site of studies (its feed), and `{}` holds no site.toml",
            cli.root.display()
        );
    }
    let spinner = (!cli.quiet && std::io::stderr().is_terminal()).then(progress);
    // A folder with a site.toml is a site of studies (`report::site`).
    let result = if site {
        report::site::build(&cli.root, &options, previous)
    } else {
        report::build(&cli.root, &options)
    };
    if let Some(spinner) = spinner {
        spinner.finish_and_clear();
    }
    let summary = result?;
    print::finish(&summary.warnings, cli.format);
    if !cli.quiet && cli.format != Format::Json {
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
