//! The grammar of the command line: every command with the options it uses,
//! and only those, so that each command's help lists what it does.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueHint};
use report::diagnostic::render::Format;
use report::scaffold::Example;

use super::import;

/// Turn benchmark results and Markdown into a web page and a PDF paper.
#[derive(Debug, Parser)]
#[command(
    name = "report",
    version = env!("REPORT_LONG_VERSION"),
    about,
    after_help = "Start with `report new my-study`, then `report serve --open` in it.\nEach command's options: `report COMMAND --help`."
)]
pub struct Args {
    /// Options written before the command (`report --root DIR build`), as
    /// earlier versions took them; the command's own take precedence.
    #[command(flatten)]
    pub before: Before,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The options that earlier versions took before any command: hidden, and
/// refused where the command has no use for them.
#[derive(Debug, clap::Args)]
pub struct Before {
    /// The study folder.
    #[arg(long, hide = true, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Print only errors.
    #[arg(long, short, hide = true)]
    pub quiet: bool,
    /// Also print more.
    #[arg(long, short, hide = true)]
    pub verbose: bool,
    /// How to print errors and warnings.
    #[arg(long, hide = true, value_enum, value_name = "FORMAT")]
    pub message_format: Option<Format>,
    /// When to colour the output.
    #[arg(long, hide = true, value_enum, value_name = "WHEN")]
    pub color: Option<ColorWhen>,
}

/// The study a command works on.
#[derive(Debug, clap::Args)]
pub struct Study {
    /// The study folder, holding book.toml [default: .]
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub root: Option<PathBuf>,
}

/// How a command prints what it finds.
#[derive(Debug, clap::Args)]
pub struct Printing {
    /// Print only errors.
    #[arg(long, short)]
    pub quiet: bool,
    /// How to print errors and warnings.
    #[command(flatten)]
    pub style: Style,
}

/// How errors and warnings look.
#[derive(Debug, Clone, Copy, clap::Args)]
pub struct Style {
    /// Errors and warnings as `human` (with the source line), `short` (one
    /// line each) or `json` (an array on standard output) [default: human]
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub message_format: Option<Format>,
    /// Colour: `auto` (on a terminal, unless NO_COLOR is set), `always` or
    /// `never` [default: auto]
    #[arg(long, value_enum, value_name = "WHEN")]
    pub color: Option<ColorWhen>,
}

/// When to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    /// On a terminal, unless NO_COLOR is set to something.
    Auto,
    /// Always, even when NO_COLOR is set or the output is not a terminal.
    Always,
    /// Never.
    Never,
}

/// The commands, in the order a new user meets them.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a new study that builds right away, with a workflow that
    /// publishes it to GitHub Pages.
    #[command(after_help = "Example:\n  report new my-study && cd my-study && report serve --open")]
    New {
        /// The folder to create (it must not exist, or be empty).
        #[arg(value_hint = ValueHint::DirPath)]
        dir: PathBuf,
        /// The study to start from.
        #[arg(long, value_enum, default_value_t)]
        example: Example,
        #[command(flatten)]
        printing: Printing,
    },
    /// Build the page, the paper and data/stats.json into the output folder.
    Build {
        #[command(flatten)]
        study: Study,
        /// Output folder (default: [output] dir in book.toml, `site`).
        #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
        out: Option<PathBuf>,
        /// The site's public URL, for canonical links (default: [output] base-url).
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
        /// For a site: the build before, as a folder holding its claims.json and
        /// changes.json, for the feed's claim changes (default: the output folder).
        #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
        previous: Option<PathBuf>,
        /// Also print the time each stage took.
        #[arg(long, short, conflicts_with = "quiet")]
        verbose: bool,
        #[command(flatten)]
        printing: Printing,
    },
    /// Run every check of a build, the paper included, without writing anything.
    Check {
        #[command(flatten)]
        study: Study,
        /// `human`, `short` or `json` for CI annotations (same as --message-format).
        #[arg(long, value_enum, value_name = "FORMAT")]
        format: Option<Format>,
        #[command(flatten)]
        printing: Printing,
    },
    /// Serve the study on 127.0.0.1, rebuilding and reloading on every change.
    Serve {
        #[command(flatten)]
        study: Study,
        /// Port to listen on (0 picks a free one).
        #[arg(long, default_value_t = 8000)]
        port: u16,
        /// Listen on every network interface, not only 127.0.0.1.
        #[arg(long)]
        bind_all: bool,
        /// Open the page in the web browser (BROWSER, else the system's).
        #[arg(long)]
        open: bool,
        #[command(flatten)]
        printing: Printing,
    },
    /// Write the paper as a Typst project (main.typ, content.typ, data, charts,
    /// fonts) to edit by hand or compile with `typst compile --font-path fonts main.typ`.
    Typst {
        #[command(flatten)]
        study: Study,
        /// The folder to write (replaced whole, like the output folder).
        #[arg(value_hint = ValueHint::DirPath)]
        out: PathBuf,
        #[command(flatten)]
        printing: Printing,
    },
    /// Write the study's runs and claims as Parquet for engines (DuckDB,
    /// Spark): claims.parquet and runs/NAME.parquet.
    Export {
        #[command(flatten)]
        study: Study,
        /// The folder to write (replaced whole, like the output folder).
        #[arg(value_hint = ValueHint::DirPath)]
        out: PathBuf,
        #[command(flatten)]
        printing: Printing,
    },
    /// Show how each headline metric moved between two stats.json files, or
    /// between the results at a git revision and now, then each changed cell
    /// of every computed table.
    Diff {
        /// The old and new stats.json (omit with --against).
        #[arg(value_hint = ValueHint::FilePath)]
        files: Vec<PathBuf>,
        /// Compare the results at this git revision with the current ones.
        #[arg(long, conflicts_with = "files", value_name = "REV")]
        against: Option<String>,
        /// The study folder, for --against [default: .]
        #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
        root: Option<PathBuf>,
        #[command(flatten)]
        style: Style,
    },
    /// Turn benchmark output (of MPI programs, benchmark harnesses, any log)
    /// into rows of results/*.csv.
    #[command(
        after_help = "Examples:\n  report import lammps --pattern '{env}/lammps-{nodes}-{procs}-{run}.out' logs/\n  report import osu --env kubernetes --nodes 2 osu-output/\n  report import hyperfine --env laptop bench.json\n  report import log --env a --figure 'gflops=WR\\S+(?:\\s+\\S+){5}\\s+(\\S+)' hpl.out\n\nSee `report import FORMAT --help` for each format's columns and examples."
    )]
    Import {
        /// The study folder, holding book.toml [default: .]
        #[arg(long, global = true, value_name = "DIR", value_hint = ValueHint::DirPath)]
        root: Option<PathBuf>,
        /// Print only errors.
        #[arg(long, short, global = true)]
        quiet: bool,
        /// Also name each file skipped as already imported.
        #[arg(long, short, global = true, conflicts_with = "quiet")]
        verbose: bool,
        /// Errors and warnings as `human`, `short` or `json` [default: human]
        #[arg(long, global = true, value_enum, value_name = "FORMAT")]
        message_format: Option<Format>,
        /// Colour: `auto`, `always` or `never` [default: auto]
        #[arg(long, global = true, value_enum, value_name = "WHEN")]
        color: Option<ColorWhen>,
        #[command(subcommand)]
        importer: import::Importer,
    },
    /// Print a shell's completion script for report.
    #[command(
        after_help = "Install, for example:\n  bash: report completions bash > ~/.local/share/bash-completion/completions/report\n  zsh:  report completions zsh > ~/.zfunc/_report   (with fpath+=~/.zfunc before compinit)\n  fish: report completions fish > ~/.config/fish/completions/report.fish\n  PowerShell: report completions powershell >> $PROFILE"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print report's man page, or write one page per command into a folder.
    #[command(
        after_help = "Read it with `report man | man -l -`; install with `report man ~/.local/share/man/man1`."
    )]
    Man {
        /// The folder to write report.1 and report-COMMAND.1 into (created if need be).
        #[arg(value_hint = ValueHint::DirPath)]
        dir: Option<PathBuf>,
    },
}
