//! The `report` command line: parses the arguments (the grammar is
//! src/cli/args.rs), dispatches to the command's module under src/cli/,
//! prints its error once, and returns the exit code.
//!
//! Exit codes: 0 success; 1 the study has errors (or a command failed);
//! 2 the command line itself is wrong.

// The binary is where results reach the terminal; the library prints nothing.
#![allow(clippy::print_stdout)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

mod cli;

use cli::args::{Args, Command};
use cli::{Cli, resolve};
use cli::{build, check, diff, export, import, manual, new, print, serve, typst};

/// Parse the command line, run the command, and print its error chain once.
fn main() -> ExitCode {
    // `report __typeset` and `report __render`: the children that typeset
    // the paper and render the study's templates under limits.
    if let Some(code) = report::render::enter() {
        return code;
    }
    let args = parse();
    let cli = resolve::resolve(&args).unwrap_or_else(|err| err.exit());
    print::set_color(cli.color);
    let code = match run(&args.command, &cli) {
        Ok(code) => code,
        Err(err) => {
            print::error(&err, cli.format);
            ExitCode::FAILURE
        }
    };
    // The children that typeset papers wait for more; none will come.
    report::render::sandbox::end();
    code
}

/// The command line, parsed, with clap's own colours following `--color`.
fn parse() -> Args {
    let words: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let matches = Args::command().color(resolve::clap_colour(&words)).get_matches_from(words);
    Args::from_arg_matches(&matches).unwrap_or_else(|err| err.exit())
}

/// Run `command` with the options of `cli`.
fn run(command: &Command, cli: &Cli) -> anyhow::Result<ExitCode> {
    match command {
        Command::New { dir, example, .. } => new::run(cli, dir, *example),
        Command::Build { out, base_url, previous, .. } => {
            build::run(cli, out.clone(), base_url.clone(), previous.as_deref())
        }
        Command::Check { .. } => check::run(cli),
        Command::Serve { port, bind_all, open, .. } => serve::run(cli, *port, *bind_all, *open),
        Command::Typst { out, .. } => typst::run(cli, out),
        Command::Export { out, .. } => export::run(cli, out),
        Command::Diff { files, against, .. } => diff::run(cli, files, against.as_deref()),
        Command::Import { importer, .. } => import::run(cli, importer),
        Command::Completions { shell } => manual::completions(*shell),
        Command::Man { dir } => manual::man(dir.as_deref()),
    }
}
