//! `report` turns raw benchmark results and Markdown into a case-study web page
//! and a typeset PDF paper, built from the same data and the same words.
//!
//! A build runs these steps, one module each:
//!
//! 1. [`project::load`] reads `book.toml` ([`config`]), `content/*.md`,
//!    `templates/` and `fonts/` into memory, and lists `results/*.csv` and
//!    `results/*.parquet`.
//! 2. [`results::load`] reads each results file whole, parsing a CSV on every
//!    core (a Parquet file by row group) and validating it into a
//!    [`results::ResultSet`] of typed columns in memory (plain vectors).
//!    `[output] max-results-mb` bounds what a build reads; results larger
//!    than one machine belong in an engine, which hands them over
//!    aggregated. Steps 1, 2 and 8 are the only ones that open files.
//! 3. [`analysis::analyze`] computes every statistic and finding into an
//!    [`analysis::Analysis`]; [`prose`] writes its findings as caveats.
//! 4. [`markdown::expand`](fn@markdown::expand) replaces the content's shortcodes
//!    ([`markdown::shortcodes`]: `stat`, the computed facts of
//!    [`markdown::facts`] and `caveats`, parsed here, not by a template engine), then parses each page once ([`markdown::parse`]) into
//!    the resolved [`markdown::document`] of a [`markdown::Document`]: a
//!    tree of blocks and inlines with chart directives, computed tables,
//!    numbered figures and tables, cross-references and citations, which
//!    both renderers walk.
//! 5. [`charts::render`] computes and draws every chart into a [`charts::ChartSet`].
//! 6. [`render`] writes each output from the study resolved
//!    ([`render::resolved::Resolved`]), one module behind the
//!    [`render::renderer::Renderer`] trait each: the page ([`render::html`]),
//!    the paper ([`render::paper`], through Typst in [`render::pdf`]),
//!    `data/stats.json` ([`render::json`]), the images and the figures' and
//!    tables' data, into an [`output::Site`] held in memory. [`pipeline`] runs steps 2 to 6;
//!    `report serve` ([`serve`]) reruns only the steps a change touches.
//! 7. [`format`](mod@format) is the one place where numbers become text, for every output.
//! 8. [`output::write`] writes the site atomically.
//!
//! `report typst` ([`typst`](fn@typst)) runs steps 1 to 5 and writes the paper's Typst
//! project ([`pipeline::typst_source`]) instead of typesetting it.
//!
//! What a build reads and writes: every input is a regular file inside the
//! study, read through [`project::regular_file`], which refuses by name,
//! before opening it, a path or symbolic link that leaves the study, a broken
//! link, a folder, a FIFO, a socket or a device. The output folder is
//! resolved through its links and `..` before [`output::check_target`]
//! decides, and is never the study, a folder holding it, an input folder or a
//! folder `report` did not write; only one named on the command line may lie
//! outside the study. `report import` writes only to `results/NAME.csv` of
//! the study, and `report new` creates every entry it writes.

#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod analysis;
pub mod charts;
pub mod config;
pub mod diagnostic;
pub mod diff;
pub mod format;
pub mod import;
pub mod markdown;
pub mod math;
pub mod output;
pub mod pipeline;
pub mod project;
pub mod prose;
pub mod references;
pub mod render;
pub mod results;
pub mod scaffold;
#[cfg(test)]
mod seeded;
pub mod serve;
pub mod site;

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::diagnostic::Diagnostic;
use crate::pipeline::Timings;

/// What a build needs besides the study itself.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Output folder; default: `[output] dir` of book.toml, relative to the root.
    pub out: Option<PathBuf>,
    /// Seconds since the Unix epoch to stamp the build with (`SOURCE_DATE_EPOCH`);
    /// default: the date in book.toml.
    pub source_date_epoch: Option<i64>,
    /// The site's public URL (overrides `[output] base-url`).
    pub base_url: Option<String>,
}

/// What a successful build produced.
#[derive(Debug, Clone)]
pub struct BuildSummary {
    /// The output folder.
    pub out: PathBuf,
    /// The files written, relative to the output folder.
    pub files: Vec<PathBuf>,
    /// Warnings, such as HTML left out of the paper.
    pub warnings: Vec<Diagnostic>,
    /// Time per stage, loading and writing included.
    pub timings: Timings,
}

/// Write the paper as a Typst project to `options.out` (atomically, like a
/// build), to edit by hand or to compile with the typst CLI:
/// `typst compile --font-path fonts main.typ`.
pub fn typst(root: &Path, options: &BuildOptions) -> Result<BuildSummary> {
    let (project, out, mut timings) = open(root, options)?;
    let sourced = |d| project.attach(d);
    let analyzed = pipeline::analyze(&project).map_err(sourced)?;
    let prepared = pipeline::prepare(&project, &analyzed, options.source_date_epoch, &mut timings)
        .map_err(sourced)?;
    let (site, mut warnings) =
        pipeline::typst_source(&project, &analyzed, &prepared).map_err(sourced)?;
    project.attach_to(&mut warnings);
    write(&site, out, warnings, timings)
}

/// Write the study's runs and claims as Parquet to `options.out`
/// (`report export`), replacing that folder whole.
pub fn export(root: &Path, options: &BuildOptions) -> Result<BuildSummary> {
    let (project, out, timings) = open(root, options)?;
    let site = pipeline::export(&project).map_err(|d| project.attach(d))?;
    write(&site, out, Vec::new(), timings)
}

/// Load the study, with the options that override book.toml.
fn load(root: &Path, options: &BuildOptions) -> Result<project::Project> {
    let mut project = project::load(root)?;
    if options.base_url.is_some() {
        project.config.output.base_url.clone_from(&options.base_url);
    }
    Ok(project)
}

/// Where the build would write, after checking that it may: the output
/// folder with its symbolic links and `..` resolved ([`output::check_target`]).
/// A folder named on the command line (`--out`, `report typst DIR`) may lie
/// outside the study; `[output] dir`, which comes with the study, may not,
/// nor may a link in the study lead it out.
fn target(project: &project::Project, options: &BuildOptions) -> Result<PathBuf> {
    let out = match &options.out {
        Some(out) if out.is_absolute() => out.clone(),
        Some(out) => std::env::current_dir()?.join(out),
        None => project.config.output_dir(&project.root),
    };
    let resolved = output::check_target(&out, &project.root)?;
    if options.out.is_none() && !resolved.starts_with(&project.root) {
        let at = project.config.at.or("output.dir", &diagnostic::Location::file("book.toml"));
        return Err(diagnostic::Diagnostics::from(
            Diagnostic::new(at, format!("`[output] dir` leads out of the study, to `{}`", resolved.display()))
                .hint("book.toml may only name an output folder inside the study, such as `site`; to write elsewhere, pass --out DIR"),
        )
        .into());
    }
    Ok(resolved)
}

/// Run every check of a build, the paper's compilation included, without
/// writing anything, and check that the study's workflows name report's
/// action ([`scaffold::workflow::unedited`]). A folder with a site.toml is
/// checked as a site ([`site::check`]). Returns the warnings.
pub fn check(root: &Path, options: &BuildOptions) -> Result<Vec<Diagnostic>> {
    let workflows = scaffold::workflow::unedited(root);
    let checked =
        if site::is_site(root) { site::check(root, options) } else { check_study(root, options) };
    if workflows.is_empty() {
        return checked;
    }
    match checked {
        Err(err) => match err.downcast::<diagnostic::Diagnostics>() {
            Ok(mut errors) => {
                errors.0.extend(workflows);
                Err(errors.into())
            }
            Err(err) => Err(err),
        },
        Ok(_) => Err(diagnostic::Diagnostics(workflows).into()),
    }
}

/// Every check of a build, without writing anything: the warnings.
fn check_study(root: &Path, options: &BuildOptions) -> Result<Vec<Diagnostic>> {
    let project = load(root, options)?;
    target(&project, options)?;
    let mut warnings = pipeline::render(&project, options.source_date_epoch)
        .map_err(|d| project.attach(d))?
        .warnings;
    warnings.extend(project.unread.iter().cloned());
    project.attach_to(&mut warnings);
    Ok(warnings)
}

/// Build the study at `root`: load, render, and write the output folder atomically.
pub fn build(root: &Path, options: &BuildOptions) -> Result<BuildSummary> {
    let (project, out, mut timings) = open(root, options)?;
    let mut rendered =
        pipeline::render(&project, options.source_date_epoch).map_err(|d| project.attach(d))?;
    timings.0.extend(rendered.timings.0);
    rendered.warnings.extend(project.unread.iter().cloned());
    project.attach_to(&mut rendered.warnings);
    write(&rendered.site, out, rendered.warnings, timings)
}

/// Load the study, timed, and where it may write: how `build` and `typst` begin.
fn open(root: &Path, options: &BuildOptions) -> Result<(project::Project, PathBuf, Timings)> {
    let mut clock = std::time::Instant::now();
    let project = load(root, options)?;
    let mut timings = Timings::default();
    timings.lap("load", &mut clock);
    let out = target(&project, options)?;
    Ok((project, out, timings))
}

/// Write `site` to `out` atomically, timed: how `build` and `typst` end.
fn write(
    site: &output::Site,
    out: PathBuf,
    warnings: Vec<Diagnostic>,
    mut timings: Timings,
) -> Result<BuildSummary> {
    let mut clock = std::time::Instant::now();
    output::write(site, &out)?;
    timings.lap("write", &mut clock);
    Ok(BuildSummary { out, files: site.files.keys().cloned().collect(), warnings, timings })
}
