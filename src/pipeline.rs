//! The stages between loading and writing, run in order by [`render`](fn@render); `report
//! serve` runs them separately to rebuild only what a change touches.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::analysis::Analysis;
use crate::charts::ChartSet;
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::markdown::Document;
use crate::output::Site;
use crate::project::Project;
use crate::references::{Bibliography, Formatted};
use crate::render::BookView;
use crate::render::renderer::Renderer;
use crate::render::resolved::{Date, Resolved};
use crate::results::ResultSet;
use crate::{analysis, charts, markdown, references, render, results};

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

/// Time spent per stage, in order.
#[derive(Debug, Clone, Default)]
pub struct Timings(pub Vec<(&'static str, std::time::Duration)>);

impl Timings {
    /// Record the time since `since` for `stage`, and restart the clock.
    pub fn lap(&mut self, stage: &'static str, since: &mut std::time::Instant) {
        let now = std::time::Instant::now();
        self.0.push((stage, now - *since));
        *since = now;
    }
}

/// The results stage and the statistics: what a CSV change recomputes.
#[derive(Debug, Clone)]
pub struct Analyzed {
    /// The parsed results.
    pub results: ResultSet,
    /// Every statistic.
    pub analysis: Analysis,
}

/// Parse the results and compute the statistics.
pub fn analyze(project: &Project) -> Result<Analyzed, Diagnostics> {
    analyze_timed(project, &mut Timings::default())
}

/// [`analyze`], timing the results stage and the statistics in `timings`:
/// the one place where results are loaded, excluded and analysed.
pub fn analyze_timed(project: &Project, timings: &mut Timings) -> Result<Analyzed, Diagnostics> {
    let mut clock = std::time::Instant::now();
    // A partitioned dataset is read as what its readers select, which the
    // content pages say too: they are read for it first.
    let content = project
        .results
        .iter()
        .any(crate::project::SourceFile::is_dataset)
        .then(|| markdown::readers::readers(&project.content, &project.config));
    let results = results::load_read_by(&project.results, &project.config, content.as_ref())?;
    let (results, excluded) = analysis::exclude(results, &project.config)?;
    timings.lap("results", &mut clock);
    let analysis = analysis::analyze_excluding(&results, &project.config, excluded)?;
    timings.lap("analysis", &mut clock);
    Ok(Analyzed { results, analysis })
}

/// The study resolved, but for what a results file or book.toml holds:
/// what a content edit recomputes, and what every output is rendered from
/// ([`Prepared::resolved`]).
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The content pages with their statistics filled in.
    pub document: Document,
    /// The drawn charts.
    pub charts: ChartSet,
    /// The bibliography, if any.
    pub bibliography: Option<Bibliography>,
    /// Formatted citations.
    pub cited: Formatted,
    /// What both templates see.
    pub book: BookView,
    /// Every formula of the content, typeset for the page.
    pub math: render::math::Formulas,
    /// The build's date (UTC).
    pub date: Option<Date>,
    /// `data/stats.json`, once an output has asked for it.
    pub stats: OnceLock<Vec<u8>>,
}

impl Prepared {
    /// The study resolved, as every output reads it.
    pub fn resolved<'a>(&'a self, project: &'a Project, analyzed: &'a Analyzed) -> Resolved<'a> {
        Resolved {
            project,
            results: &analyzed.results,
            analysis: &analyzed.analysis,
            document: &self.document,
            charts: &self.charts,
            bibliography: self.bibliography.as_ref(),
            cited: &self.cited,
            book: &self.book,
            math: &self.math,
            date: self.date,
            stats: &self.stats,
        }
    }
}

/// The markdown and chart stages and what the templates show, from
/// analysed results: the study resolved for its outputs.
pub fn prepare(
    project: &Project,
    analyzed: &Analyzed,
    source_date_epoch: Option<i64>,
    timings: &mut Timings,
) -> Result<Prepared, Diagnostics> {
    let (config, mut clock) = (&project.config, std::time::Instant::now());
    let (mut document, bibliography) = document(project, analyzed)?;
    let cited = bibliography
        .as_ref()
        .map(|b| references::format(b, &document.citations))
        .unwrap_or_default();
    timings.lap("markdown", &mut clock);
    let inputs = charts::source::Inputs {
        results: &analyzed.results,
        history: analyzed.analysis.history.as_ref(),
        groups: &analyzed.analysis.groups,
    };
    let charts = charts::render_from(&document.charts, inputs, config)?;
    timings.lap("charts", &mut clock);
    let labels = crate::prose::labels::Labels::new(config);
    let mut book = BookView::new(config, &analyzed.analysis, &document.limitations, &cited);
    book.site = project.site.as_deref().map(|place| crate::site::view::view(place, config));
    if book.summary.is_none() {
        book.summary = document.pages.first().and_then(|p| p.body.first_paragraph());
    }
    let typed = answer(config, &analyzed.analysis, &labels, &mut book)?;
    document.warnings.extend(typed);
    book.description = description(&book);
    document.warnings.extend(advice(config, &analyzed.analysis, &labels));
    let date = build_date(source_date_epoch, config.book.date.as_deref());
    book.provenance = render::html::Provenance {
        generator: book.generator.clone(),
        results_hash: results_hash(&project.results),
        commit: project.commit.as_ref().map(|c| c.hash.clone()),
        uncommitted: project.commit.as_ref().is_some_and(|c| c.uncommitted),
        date: date.map(|(y, m, d, ..)| format!("{y:04}-{m:02}-{d:02}")),
    };
    let math = render::math::formulas(&document, config.output.math)?;
    let stats = OnceLock::new();
    Ok(Prepared { document, charts, bibliography, cited, book, math, date, stats })
}

/// Run `renderers` over the study in order, each timed by its name in
/// `timings`: their files in one [`Site`] (a later file of a path replaces
/// an earlier one) and their warnings.
pub fn outputs(
    study: &Resolved,
    renderers: &[&dyn Renderer],
    timings: &mut Timings,
) -> Result<(Site, Vec<Diagnostic>), Diagnostics> {
    let (mut site, mut warnings) = (Site::default(), Vec::new());
    let mut clock = std::time::Instant::now();
    for renderer in renderers {
        let files = renderer.render(study)?;
        for (path, bytes) in files.files {
            site.insert(path, bytes);
        }
        warnings.extend(files.warnings);
        timings.lap(renderer.name(), &mut clock);
    }
    Ok((site, warnings))
}

/// The outputs a build makes at once, without those that may come later
/// ([`Renderer::deferred`]: the paper): what `report serve` serves first.
pub fn quick(
    study: &Resolved,
    timings: &mut Timings,
) -> Result<(Site, Vec<Diagnostic>), Diagnostics> {
    let quick: Vec<&dyn Renderer> =
        render::outputs().into_iter().filter(|r| !r.deferred()).collect();
    outputs(study, &quick, timings)
}

/// The advice to the author that the caveats call for (exclude a run that
/// carries a headline, choose the median for skewed runs), as warnings of
/// the build and of `report check`, each at the metric it is about when it
/// is about one: the reader's caveats never give it.
fn advice(
    config: &crate::config::Config,
    analysis: &analysis::Analysis,
    labels: &crate::prose::labels::Labels,
) -> Vec<Diagnostic> {
    let file = crate::diagnostic::Location::file("book.toml");
    let at = |metric: Option<&String>| {
        let index = metric.and_then(|name| config.metrics.iter().position(|m| &m.name == name));
        index.map_or_else(|| file.clone(), |i| config.at.or(&format!("metrics.{i}.name"), &file))
    };
    crate::prose::caveats::caveats(analysis, labels)
        .into_iter()
        .filter_map(|c| Some(Diagnostic::new(at(c.metric.as_ref()), c.advice?)))
        .collect()
}

/// The markdown stage: every page expanded, parsed and resolved, its
/// tables computed, with the bibliography it cites from.
pub fn document(
    project: &Project,
    analyzed: &Analyzed,
) -> Result<(Document, Option<Bibliography>), Diagnostics> {
    let config = &project.config;
    let bibliography = references::load(project.bibliography.as_ref())?;
    let keys = bibliography.as_ref().map(Bibliography::keys);
    let assets = asset_names(project);
    let labels = crate::prose::labels::Labels::new(config);
    let known = markdown::Known {
        bibliography_keys: keys.as_deref(),
        assets: &assets,
        pdf: &config.output.pdf,
        results: &analyzed.results,
        config,
        labels: &labels,
        // In a site of studies, its own check below decides.
        studies: &|folder| project.site.is_some() || project.is_study(folder),
    };
    let mut document = markdown::expand(&project.content, &analyzed.analysis, known)?;
    if let Some(place) = &project.site {
        crate::site::links::resolve(&mut document, place)?;
    }
    Ok((document, bibliography))
}

/// What `data/stats.json` of a build of `project` holds, without the
/// charts, the pages or the paper: the results, the statistics and the
/// document, whose computed tables and reader's caveats it lists.
pub fn stats(project: &Project) -> Result<Vec<u8>, Diagnostics> {
    let analyzed = analyze(project)?;
    let (document, _) = document(project, &analyzed)?;
    Ok(render::json::render(&analyzed.analysis, &project.config, &document))
}

/// What `report export` writes: `claims.parquet`, every claim of the
/// study's stats.json, and `runs/NAME.parquet`, the runs of each table the
/// study used, with where each comes from.
pub fn export(project: &Project) -> Result<Site, Diagnostics> {
    let analyzed = analyze(project)?;
    let (document, _) = document(project, &analyzed)?;
    let stats = render::json::render(&analyzed.analysis, &project.config, &document);
    let stats: serde_json::Value = serde_json::from_slice(&stats).unwrap_or_default();
    let commit = project.commit.as_ref().map(|c| c.hash.as_str());
    let origin = render::export::Origin { study: &project.config.book.title, commit };
    let mut site = Site::default();
    site.insert("claims.parquet", render::export::claims(&stats, &origin));
    for (name, table) in &analyzed.results.tables {
        let file = project.results.iter().find(|f| f.path == table.path);
        let sha256 = file.map(|f| f.sha256().to_string()).unwrap_or_default();
        let provenance = project.config.data.get(name).map(|d| d.provenance).unwrap_or_default();
        let provenance = serde_json::to_value(provenance).unwrap_or_default();
        let provenance = provenance.as_str().unwrap_or("measured");
        site.insert(
            format!("runs/{name}.parquet"),
            render::export::runs(table, &sha256, provenance, &origin),
        );
    }
    Ok(site)
}

/// The file names of the study's images.
fn asset_names(project: &Project) -> Vec<String> {
    project
        .assets
        .iter()
        .filter_map(|a| a.path.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .collect()
}

/// The author's answer (`[book] answer`) with its statistics, as HTML and
/// Typst markup, into `book`.
fn answer(
    config: &crate::config::Config,
    analysis: &Analysis,
    labels: &crate::prose::labels::Labels,
    book: &mut BookView,
) -> Result<Vec<Diagnostic>, Diagnostics> {
    let mut warnings = markdown::cards(analysis, labels, config);
    let Some(text) = &config.book.answer else { return Ok(warnings) };
    let at = config.at.or("book.answer", &crate::diagnostic::Location::file("book.toml"));
    let (answer, typed) = markdown::answer(text, analysis, (labels, config), &at)?;
    book.answer = Some(render::html::to_html(&answer, render::Refs::none()));
    book.answer_plain = answer.first_paragraph();
    book.answer_typst = Some(render::typst_markup::convert(&answer, &render::Refs::none()).text);
    warnings.extend(typed);
    Ok(warnings)
}

/// The page's description: the answer's text, else each headline card's
/// label and difference (`Run time: 8.8% faster`, with `, inconclusive` or
/// `, negligible` when that is its verdict), else the abstract; in at most
/// 160 characters.
fn description(book: &BookView) -> Option<String> {
    let answer = book.answer_plain.as_deref();
    // A card's difference with its verdict when the data do not back it.
    let card = |m: &render::MetricView| {
        let text = m.text.get("words").or(m.text.get("value"))?;
        let verdict = m.verdict.filter(|v| ["inconclusive", "negligible"].contains(v));
        Some(format!(
            "{}: {text}{}",
            m.label,
            verdict.map(|v| format!(", {v}")).unwrap_or_default()
        ))
    };
    let cards: Vec<String> = book.metrics.iter().filter(|m| m.headline).filter_map(card).collect();
    let cards = (!cards.is_empty()).then(|| cards.join(". ") + ".");
    let text = answer.map(str::to_string).or(cards).or_else(|| book.summary.clone())?;
    crate::prose::snippet::description(&text)
}

/// The paper as a Typst project, as files ([`render::paper::TypstProject`]),
/// with its warnings.
pub fn typst_source(
    project: &Project,
    analyzed: &Analyzed,
    prepared: &Prepared,
) -> Result<(Site, Vec<Diagnostic>), Diagnostics> {
    let study = prepared.resolved(project, analyzed);
    outputs(&study, &[&render::paper::TypstProject], &mut Timings::default())
}

/// Run every stage between loading and writing: a pure function of the project
/// (the clock is read only to report the time per stage), but for the results
/// files, which [`results::load`] reads from disk.
pub fn render(project: &Project, source_date_epoch: Option<i64>) -> Result<Rendered, Diagnostics> {
    let mut timings = Timings::default();
    // The one-off costs of later stages (the citation style and the fonts)
    // are paid on a worker thread, or in the typesetting child, while the
    // results are read.
    render::pdf::warm_up(project.bibliography.is_some());
    if project.bibliography.is_some() {
        rayon::spawn(references::warm_up);
    }
    // Hash the inputs (for provenance and the manifest) on the other core while
    // the CSVs are parsed; the results stage hashes the CSVs as it reads them.
    let (analyzed, ()) = rayon::join(
        || analyze_timed(project, &mut timings),
        || {
            project.inputs().iter().filter(|f| f.disk.is_none()).for_each(|f| {
                f.sha256();
            })
        },
    );
    let analyzed = analyzed?;
    finish(project, &analyzed, source_date_epoch, timings).map(|(rendered, _)| rendered)
}

/// The stages after the statistics: every output of the build
/// ([`render::outputs`]) in one [`Site`] with its manifest, and the
/// study as resolved ([`Prepared`]), which a site of studies shows on its
/// index.
pub fn finish(
    project: &Project,
    analyzed: &Analyzed,
    source_date_epoch: Option<i64>,
    mut timings: Timings,
) -> Result<(Rendered, Prepared), Diagnostics> {
    let prepared = prepare(project, analyzed, source_date_epoch, &mut timings)?;
    let study = prepared.resolved(project, analyzed);
    let (mut site, rendered) = outputs(&study, &render::outputs(), &mut timings)?;
    // A dataset rewritten while it was read would leave a site of two versions of it.
    crate::project::unchanged(&project.results)?;
    let manifest = manifest(project, &prepared, &site);
    site.insert("data/manifest.json", manifest);
    let warnings =
        [analyzed.analysis.warnings.clone(), prepared.document.warnings.clone(), rendered].concat();
    Ok((Rendered { site, warnings, timings }, prepared))
}

/// `data/manifest.json`: every input file and every output file with its SHA-256,
/// and the provenance of the build.
fn manifest(project: &Project, prepared: &Prepared, site: &Site) -> Vec<u8> {
    let inputs: BTreeMap<String, String> = project
        .inputs()
        .iter()
        .map(|f| (f.path.to_string_lossy().replace('\\', "/"), f.sha256().to_string()))
        .collect();
    let outputs: BTreeMap<String, String> = site
        .files
        .iter()
        .map(|(p, b)| (p.to_string_lossy().replace('\\', "/"), crate::project::sha256_hex(b)))
        .collect();
    let mut manifest = serde_json::json!({ "provenance": prepared.book.provenance, "inputs": inputs, "outputs": outputs });
    let datasets = datasets(project);
    if !datasets.is_empty() {
        manifest["datasets"] = serde_json::json!(datasets);
    }
    let mut bytes = serde_json::to_vec_pretty(&manifest).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// What the build read of each partitioned dataset, by its folder: every
/// file read with its size and SHA-256, and the partitions pruned unread.
fn datasets(project: &Project) -> BTreeMap<String, serde_json::Value> {
    let slashed = |p: &std::path::Path| p.to_string_lossy().replace('\\', "/");
    project
        .results
        .iter()
        .filter_map(|file| Some((file, file.scan.get()?)))
        .map(|(file, scan)| {
            let read: BTreeMap<String, serde_json::Value> = scan
                .read
                .iter()
                .map(|r| {
                    (slashed(&r.path), serde_json::json!({ "bytes": r.size, "sha256": r.sha256 }))
                })
                .collect();
            (slashed(&file.path), serde_json::json!({ "read": read, "pruned": scan.pruned }))
        })
        .collect()
}

/// The first 12 hex digits of the SHA-256 over every results file (path and bytes).
fn results_hash(files: &[crate::project::SourceFile]) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for file in files {
        hasher.update(file.path.to_string_lossy().as_bytes());
        hasher.update([0]);
        hasher.update(file.sha256().as_bytes());
    }
    crate::project::hex(&hasher.finalize()[..6])
}

/// The build's timestamp: `SOURCE_DATE_EPOCH` if given, else book.toml's date at midnight UTC.
fn build_date(epoch: Option<i64>, book_date: Option<&str>) -> Option<Date> {
    let datetime = match epoch {
        Some(secs) => time::OffsetDateTime::from_unix_timestamp(secs).ok()?,
        None => {
            let mut parts = book_date?.splitn(3, '-').map(str::parse::<i32>);
            let (y, m, d) = (parts.next()?.ok()?, parts.next()?.ok()?, parts.next()?.ok()?);
            let month = time::Month::try_from(u8::try_from(m).ok()?).ok()?;
            time::Date::from_calendar_date(y, month, u8::try_from(d).ok()?)
                .ok()?
                .midnight()
                .assume_utc()
        }
    };
    Some((
        datetime.year(),
        datetime.month() as u8,
        datetime.day(),
        datetime.hour(),
        datetime.minute(),
        datetime.second(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_date_prefers_source_date_epoch() {
        // 1700000000 = 2023-11-14T22:13:20Z (date -u -d @1700000000).
        assert_eq!(
            build_date(Some(1_700_000_000), Some("2025-01-02")),
            Some((2023, 11, 14, 22, 13, 20))
        );
        assert_eq!(build_date(None, Some("2025-01-02")), Some((2025, 1, 2, 0, 0, 0)));
        assert_eq!(build_date(None, Some("soon")), None);
    }
}
