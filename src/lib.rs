//! `report` turns raw benchmark results and Markdown into a case-study web page
//! and a typeset PDF paper, built from the same data and the same words.
//!
//! A build runs these steps, one module each:
//!
//! 1. [`project::load`] reads `book.toml` ([`config`]), `results/*.csv`,
//!    `content/*.md` and `templates/` into memory. This and step 8 are the only
//!    steps that touch the filesystem.
//! 2. [`results::load`] parses and validates the CSVs into a [`results::ResultSet`].
//! 3. [`analysis::analyze`] computes every statistic into an [`analysis::Analysis`].
//! 4. [`markdown::expand`] fills the inline statistics into the pages of a
//!    [`markdown::Document`] and collects its chart directives.
//! 5. [`charts::render`] computes and draws every chart into a [`charts::ChartSet`].
//! 6. [`render`] writes the page ([`render::html`]), the paper ([`render::paper`],
//!    through Typst in [`render::pdf`]) and `data/stats.json` ([`render::json`])
//!    into an [`output::Site`] held in memory.
//! 7. [`format`] is the one place where numbers become text, for every output.
//! 8. [`output::write`] writes the site atomically.

pub mod analysis;
pub mod charts;
pub mod config;
pub mod diagnostic;
pub mod format;
pub mod markdown;
pub mod output;
pub mod project;
pub mod references;
pub mod render;
pub mod results;

use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::output::Site;
use crate::project::Project;

/// What a build needs besides the study itself.
#[derive(Debug, Clone, Default)]
pub struct BuildOptions {
    /// Output folder; default: `[output] dir` of book.toml, relative to the root.
    pub out: Option<PathBuf>,
    /// Seconds since the Unix epoch to stamp the build with (`SOURCE_DATE_EPOCH`);
    /// default: the date in book.toml.
    pub source_date_epoch: Option<i64>,
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

/// A finished build in memory.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// The files of the output folder.
    pub site: Site,
    /// Warnings.
    pub warnings: Vec<Diagnostic>,
    /// Time per stage.
    pub timings: Timings,
}

/// Build the study at `root`: load, render, and write the output folder atomically.
pub fn build(root: &Path, options: &BuildOptions) -> Result<BuildSummary> {
    let mut clock = std::time::Instant::now();
    let project = project::load(root)?;
    let mut timings = Timings::default();
    timings.lap("load", &mut clock);
    let out = match &options.out {
        Some(out) if out.is_absolute() => out.clone(),
        Some(out) => std::env::current_dir()?.join(out),
        None => project.config.output_dir(&project.root),
    };
    output::check_target(&out, &project.root)?;
    let rendered = render(&project, options.source_date_epoch)?;
    clock = std::time::Instant::now();
    timings.0.extend(rendered.timings.0);
    output::write(&rendered.site, &out)?;
    timings.lap("write", &mut clock);
    Ok(BuildSummary { out, files: rendered.site.files.keys().cloned().collect(), warnings: rendered.warnings, timings })
}

/// Time spent per stage, in order.
#[derive(Debug, Clone, Default)]
pub struct Timings(pub Vec<(&'static str, std::time::Duration)>);

impl Timings {
    fn lap(&mut self, stage: &'static str, since: &mut std::time::Instant) {
        let now = std::time::Instant::now();
        self.0.push((stage, now - *since));
        *since = now;
    }
}

/// Run every stage between loading and writing: a pure function of the project
/// (the clock is read only to report the time per stage).
pub fn render(project: &Project, source_date_epoch: Option<i64>) -> Result<Rendered, Diagnostics> {
    let config = &project.config;
    let (mut timings, mut clock) = (Timings::default(), std::time::Instant::now());
    let results = results::load(&project.results, config)?;
    timings.lap("results", &mut clock);
    let analysis = analysis::analyze(&results, config)?;
    timings.lap("analysis", &mut clock);
    let bibliography = references::load(project.bibliography.as_ref())?;
    let keys = bibliography.as_ref().map(references::Bibliography::keys);
    let assets: Vec<String> = project.assets.iter().filter_map(|a| a.path.file_name()).map(|n| n.to_string_lossy().into_owned()).collect();
    let document = markdown::expand(&project.content, &analysis, keys.as_deref(), &assets)?;
    let cited = bibliography.as_ref().map(|b| references::format(b, &document.citations)).unwrap_or_default();
    timings.lap("markdown", &mut clock);
    let charts = charts::render(&document.charts, &results, config)?;
    timings.lap("charts", &mut clock);
    let mut book = render::BookView::new(config, &analysis, &cited);
    if book.summary.is_none() {
        book.summary = document.pages.first().and_then(|p| markdown::first_paragraph(&p.markdown));
    }
    let stats = render::json::render(&analysis);
    let date = build_date(source_date_epoch, config.book.date.as_deref());
    let provenance = render::html::Provenance {
        generator: book.generator.clone(),
        results_hash: results_hash(&project.results),
        commit: project.results_commit.clone(),
        date: date.map(|(y, m, d, ..)| format!("{y:04}-{m:02}-{d:02}")),
    };
    let pages = render::html::render(&render::html::SiteInputs {
        document: &document, charts: &charts, cited: &cited, book: &book, templates: &project.templates, provenance: &provenance,
    })?;
    timings.lap("html", &mut clock);
    let paper = render::paper::render(&render::paper::PaperInputs {
        document: &document, charts: &charts, bibliography: bibliography.as_ref(), assets: &project.assets, book: &book,
        stats_json: &stats, template: project.templates.iter().find(|f| f.path.ends_with("paper.typ")), date,
        standard: config.paper.standard,
    })?;
    timings.lap("pdf", &mut clock);
    let site = assemble(project, pages, paper.pdf, stats, &charts);
    Ok(Rendered { site, warnings: paper.warnings, timings })
}

/// Every output file in one [`Site`].
fn assemble(project: &Project, pages: std::collections::BTreeMap<String, String>, pdf: Vec<u8>, stats: Vec<u8>, charts: &charts::ChartSet) -> Site {
    let mut site = Site::default();
    for (name, content) in pages {
        site.insert(name, content);
    }
    site.insert(project.config.output.pdf.as_str(), pdf);
    site.insert("data/stats.json", stats);
    for asset in &project.assets {
        if let Some(name) = asset.path.file_name() {
            site.insert(name, asset.bytes.clone());
        }
    }
    for chart in &charts.charts {
        site.insert(format!("charts/{}.svg", chart.spec.id), chart.svg.clone());
        site.insert(format!("data/charts/{}.csv", chart.spec.id), chart.csv());
    }
    site
}

/// The first 12 hex digits of the SHA-256 over every results file (path and bytes).
fn results_hash(files: &[project::SourceFile]) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for file in files {
        hasher.update(file.path.to_string_lossy().as_bytes());
        hasher.update([0]);
        hasher.update(&file.bytes);
    }
    hasher.finalize().iter().take(6).map(|b| format!("{b:02x}")).collect()
}

/// The build's timestamp: `SOURCE_DATE_EPOCH` if given, else book.toml's date at midnight UTC.
fn build_date(epoch: Option<i64>, book_date: Option<&str>) -> Option<(i32, u8, u8, u8, u8, u8)> {
    let datetime = match epoch {
        Some(secs) => time::OffsetDateTime::from_unix_timestamp(secs).ok()?,
        None => {
            let mut parts = book_date?.splitn(3, '-').map(str::parse::<i32>);
            let (y, m, d) = (parts.next()?.ok()?, parts.next()?.ok()?, parts.next()?.ok()?);
            let month = time::Month::try_from(u8::try_from(m).ok()?).ok()?;
            time::Date::from_calendar_date(y, month, u8::try_from(d).ok()?).ok()?.midnight().assume_utc()
        }
    };
    Some((datetime.year(), datetime.month() as u8, datetime.day(), datetime.hour(), datetime.minute(), datetime.second()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_date_prefers_source_date_epoch() {
        // 1700000000 = 2023-11-14T22:13:20Z (date -u -d @1700000000).
        assert_eq!(build_date(Some(1_700_000_000), Some("2025-01-02")), Some((2023, 11, 14, 22, 13, 20)));
        assert_eq!(build_date(None, Some("2025-01-02")), Some((2025, 1, 2, 0, 0, 0)));
        assert_eq!(build_date(None, Some("soon")), None);
    }
}
