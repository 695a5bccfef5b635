//! The `report` command line: parses arguments (the grammar is
//! src/cli/args.rs), calls the library, prints diagnostics once, and returns
//! the exit code.
//!
//! Exit codes: 0 success; 1 the study has errors (or a command failed);
//! 2 the command line itself is wrong.

// The binary is where results reach the terminal; the library prints nothing.
#![allow(clippy::print_stdout)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use clap::{CommandFactory, FromArgMatches};
use report::diagnostic::render::{self, Format, Level};
use report::diagnostic::{Diagnostic, Diagnostics};

#[path = "cli/args.rs"]
mod args;
#[path = "cli/browser.rs"]
mod browser;
#[path = "cli/import.rs"]
mod import_cli;
#[path = "cli/manual.rs"]
mod manual;
#[path = "cli/resolve.rs"]
mod resolve;

use args::{Args, Command};
use resolve::Cli;

/// Whether diagnostics on standard error are coloured, decided once.
static COLOR: OnceLock<bool> = OnceLock::new();

/// Parse the command line, run the command, and print its error chain once.
fn main() -> ExitCode {
    // `report __typeset`: the child that typesets the paper under limits.
    if let Some(code) = report::render::enter() {
        return code;
    }
    let args = parse();
    let cli = resolve::resolve(&args).unwrap_or_else(|err| err.exit());
    let _ = COLOR.set(cli.color);
    match run(&args.command, &cli) {
        Ok(code) => code,
        Err(err) => {
            print_error(&err, cli.format);
            ExitCode::FAILURE
        }
    }
}

/// The command line, parsed, with clap's own colours following `--color`.
fn parse() -> Args {
    let words: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let matches = Args::command().color(resolve::clap_colour(&words)).get_matches_from(words);
    Args::from_arg_matches(&matches).unwrap_or_else(|err| err.exit())
}

/// The build date from `SOURCE_DATE_EPOCH`, for reproducible output.
fn epoch() -> Option<i64> {
    std::env::var("SOURCE_DATE_EPOCH").ok().and_then(|s| s.trim().parse().ok())
}

/// Run `command` with the options of `cli`.
fn run(command: &Command, cli: &Cli) -> anyhow::Result<ExitCode> {
    let format = cli.format;
    match command {
        Command::New { dir, example, .. } => new(cli, dir, *example),
        Command::Build { out, base_url, .. } => build(cli, out.clone(), base_url.clone()),
        Command::Check { .. } => check(cli),
        Command::Serve { port, bind_all, open, .. } => serve(cli, *port, *bind_all, *open),
        Command::Typst { out, .. } => typst(cli, out),
        Command::Diff { files, against, .. } => diff(cli, files, against.as_deref()),
        Command::Import { importer, .. } => import_cli::run(cli, importer, format),
        Command::Completions { shell } => {
            manual::completions(*shell, &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Man { dir: None } => {
            manual::man(&mut std::io::stdout()).map(|()| ExitCode::SUCCESS)
        }
        Command::Man { dir: Some(dir) } => {
            let pages = manual::man_pages(dir)?;
            eprintln!("wrote {} man pages to {}", pages.len(), dir.display());
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `report check`: every check of a build, with nothing written.
fn check(cli: &Cli) -> anyhow::Result<ExitCode> {
    let options = report::BuildOptions { out: None, source_date_epoch: epoch(), base_url: None };
    let warnings = report::check(&cli.root, &options)?;
    finish(&warnings, cli.format);
    if !cli.quiet && cli.format != Format::Json {
        eprintln!("no errors in {}", cli.root.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// `report new`: a study in `dir` that builds right away, dated today.
fn new(cli: &Cli, dir: &Path, example: report::scaffold::Example) -> anyhow::Result<ExitCode> {
    let date = report::scaffold::date(epoch());
    let created = report::scaffold::create(dir, example, &date)?;
    finish(&created.warnings, cli.format);
    if !cli.quiet && cli.format != Format::Json {
        let shown = dir.display();
        eprintln!("created a study in {shown} ({} files)", created.files.len());
        eprintln!("next: cd {shown} && report serve --open");
    }
    Ok(ExitCode::SUCCESS)
}

/// `report typst`: the paper as a Typst project in `out`.
fn typst(cli: &Cli, out: &Path) -> anyhow::Result<ExitCode> {
    let options = report::BuildOptions {
        out: Some(out.to_path_buf()),
        source_date_epoch: epoch(),
        base_url: None,
    };
    let summary = report::typst(&cli.root, &options)?;
    finish(&summary.warnings, cli.format);
    if !cli.quiet && cli.format != Format::Json {
        eprintln!(
            "wrote the paper's Typst project ({} files) to {}/; typeset it with `typst compile --font-path fonts main.typ`",
            summary.files.len(),
            summary.out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `report diff`: how each headline metric moved between two stats.json
/// files, or between the results at git revision `against` and now; one
/// line each, or with `--message-format json` an array of objects.
fn diff(cli: &Cli, files: &[PathBuf], against: Option<&str>) -> anyhow::Result<ExitCode> {
    let (old, new) = match (files, against) {
        ([old, new], None) => (report::diff::read(old)?, report::diff::read(new)?),
        ([], Some(rev)) => {
            let new = current_stats(&cli.root)?;
            (report::diff::stats_at(&cli.root, rev)?, new)
        }
        _ => anyhow::bail!("give two stats.json files, or --against REV"),
    };
    let changes = report::diff::compare(&old, &new);
    if cli.format == Format::Json {
        let json: Vec<serde_json::Value> = changes
            .iter()
            .map(|c| {
                serde_json::json!({
                    "name": c.name, "label": c.label, "before": c.before, "after": c.after,
                    "overlap": c.overlap, "text": c.to_string(),
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        for change in changes {
            println!("- {change}");
        }
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
fn build(cli: &Cli, out: Option<PathBuf>, base_url: Option<String>) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let options = report::BuildOptions { out, source_date_epoch: epoch(), base_url };
    let spinner = (!cli.quiet && std::io::stderr().is_terminal()).then(progress);
    let result = report::build(&cli.root, &options);
    if let Some(spinner) = spinner {
        spinner.finish_and_clear();
    }
    let summary = result?;
    finish(&summary.warnings, cli.format);
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

/// `report serve`: serve the study, printing each rebuild in words and each
/// failure as diagnostics; with `open`, open the page in the browser.
fn serve(cli: &Cli, port: u16, bind_all: bool, open: bool) -> anyhow::Result<ExitCode> {
    use report::serve::Outcome;
    let options = report::serve::ServeOptions {
        root: cli.root.clone(),
        port,
        bind_all,
        source_date_epoch: epoch(),
    };
    let (quiet, format) = (cli.quiet, cli.format);
    let outcome = move |o: &Outcome| match o {
        Outcome::Built(trigger, time) if !quiet => eprintln!("{}", built(trigger, *time)),
        Outcome::Typeset(time) if !quiet => {
            eprintln!("typeset the paper in {}", milliseconds(*time))
        }
        Outcome::Failed(err) => print_error(err, format),
        _ => {}
    };
    report::serve::run(&options, Box::new(outcome), |address| {
        let url = format!("http://{address}/");
        eprintln!("serving {url} (Ctrl-C to stop)");
        if open && let Err(err) = browser::open(&url) {
            eprintln!("warning: could not open a browser ({err}); open {url} yourself");
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

/// A rebuild of `report serve`, in the user's words: what changed, and what
/// that made it do.
fn built(trigger: &report::serve::Trigger, time: Duration) -> String {
    use report::serve::{Trigger, session::Change};
    let Trigger::Edit(files, change) = trigger else {
        return format!("built the site in {}", milliseconds(time));
    };
    let mut names: Vec<String> =
        files.iter().take(3).map(|f| f.display().to_string().replace('\\', "/")).collect();
    if files.len() > 3 {
        names.push(format!("{} more", files.len() - 3));
    }
    let what = match names.len() {
        0 => "the study".to_string(),
        1 => names.remove(0),
        n => format!("{} and {}", names[..n - 1].join(", "), names[n - 1]),
    };
    let done = match change {
        Change::Content => "rebuilt the pages",
        Change::Results => "recomputed the statistics and rebuilt the site",
        Change::Study => "reloaded the study and rebuilt the site",
    };
    format!("{what} changed: {done} in {}", milliseconds(time))
}

/// `time` in whole milliseconds, for the log.
fn milliseconds(time: Duration) -> String {
    format!("{:.0} ms", time.as_secs_f64() * 1000.0)
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

/// The warnings of a command that succeeded: with `--message-format json`,
/// always one array on standard output (`[]` when there are none).
fn finish(warnings: &[Diagnostic], format: Format) {
    if format == Format::Json && warnings.is_empty() {
        println!("[]");
    } else {
        print_warnings(warnings, format);
    }
}

/// Print `warnings` as warnings, one per cause.
fn print_warnings(warnings: &[Diagnostic], format: Format) {
    let warnings = Diagnostics(warnings.to_vec()).grouped();
    print_diagnostics(&warnings.0.iter().map(|w| (Level::Warning, w)).collect::<Vec<_>>(), format);
}

/// Print diagnostics with the source lines they carry: JSON on standard
/// output, anything else on standard error, coloured as `--color` says.
fn print_diagnostics(diagnostics: &[(Level, &Diagnostic)], format: Format) {
    if diagnostics.is_empty() {
        return;
    }
    if format == Format::Json {
        print!("{}", render::render(diagnostics, format, false));
    } else {
        let color = format == Format::Human && COLOR.get().copied().unwrap_or(false);
        let text = render::render(diagnostics, format, color);
        let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), text.as_bytes());
    }
}
