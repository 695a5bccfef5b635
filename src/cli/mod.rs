//! The command line's parts, as typst-cli lays them out: the grammar
//! ([`args`]), the options a command runs with ([`resolve`]), how results
//! and diagnostics reach the terminal ([`print`]), and one module per
//! command, each with a `run` that `main` dispatches to.

pub mod args;
pub mod browser;
pub mod build;
pub mod check;
pub mod diff;
pub mod export;
pub mod import;
pub mod manual;
pub mod new;
pub mod print;
pub mod resolve;
pub mod serve;
pub mod typst;

use std::path::PathBuf;

use report::diagnostic::render::Format;

/// What the command line asks of the command, resolved ([`resolve`]).
#[derive(Debug)]
pub struct Cli {
    /// The study folder.
    pub root: PathBuf,
    /// Print only errors.
    pub quiet: bool,
    /// Print more.
    pub verbose: bool,
    /// How to print errors and warnings.
    pub format: Format,
    /// Whether diagnostics on standard error are coloured.
    pub color: bool,
}
