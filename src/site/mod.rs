//! A site of studies: a folder with a `site.toml` ([`config`]) built into
//! one site. Each study ([`discover`]) is built in its place ([`place`],
//! [`study`]) under its own path, its links to the others resolved
//! ([`links`]); the site adds one stylesheet and one script for all, an
//! index of the studies' claims ([`index`]), a search loaded on first use
//! ([`search`]), an Atom feed of studies and claim changes ([`feed`]) and a
//! card image per study for shared links ([`card`]). [`Cache`] keeps each
//! study's build, so that `report serve` rebuilds only the one that changed.

pub mod card;
pub mod config;
pub mod discover;
pub mod entry;
pub mod feed;
pub mod index;
pub mod links;
pub mod place;
pub mod search;
pub mod serve;
pub mod study;
pub mod view;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;
use rayon::prelude::*;

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::output::Site;
use place::{Neighbour, Place};
use study::{Analysed, Built, Study};

/// Whether `root` is a site of studies: holds a site.toml.
pub fn is_site(root: &Path) -> bool {
    root.join(config::FILE).is_file()
}

/// A site read: its configuration, its studies and where it is written.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The site's folder (of site.toml), resolved.
    pub root: PathBuf,
    /// `[site]`.
    pub config: config::SiteConfig,
    /// Its studies, in site.toml's order (or path order).
    pub studies: Vec<Study>,
    /// The output folder.
    pub out: PathBuf,
    /// The base URL, with a trailing slash, if any.
    pub base_url: Option<String>,
}

/// Read site.toml at `root` and find its studies.
pub fn load(root: &Path, options: &crate::BuildOptions) -> Result<Loaded> {
    let root = dunce::canonicalize(root)?;
    let path = Path::new(config::FILE);
    let text = std::fs::read_to_string(root.join(path))
        .map_err(|e| anyhow::anyhow!("cannot read `{}`: {e}", root.join(path).display()))?;
    let config = config::parse(path, &text)?.site;
    let out = match (&options.out, &config.out) {
        (Some(out), _) if out.is_absolute() => out.clone(),
        (Some(out), _) => std::env::current_dir()?.join(out),
        (None, Some(dir)) => root.join(dir),
        (None, None) => root.join("site"),
    };
    let out = crate::output::check_target(&out, &root)?;
    let studies = discover::studies(&root, &config, (path, &text), &out)?;
    let base_url = options
        .base_url
        .clone()
        .or_else(|| config.base_url.clone())
        .map(|b| if b.ends_with('/') { b } else { format!("{b}/") });
    Ok(Loaded { root, config, studies, out, base_url })
}

/// Every study's build, kept between rebuilds.
#[derive(Debug, Clone)]
pub struct Cache {
    /// The site.
    pub site: Loaded,
    /// `SOURCE_DATE_EPOCH`.
    pub epoch: Option<i64>,
    /// Each study's claims by its folder, as the others' links see them.
    pub neighbours: BTreeMap<String, Neighbour>,
    /// Each study's build by its folder.
    pub built: BTreeMap<String, Built>,
}

impl Cache {
    /// Build every study of `site`: all are analysed first (in parallel),
    /// so that each can refer to the others' claims, then rendered.
    pub fn build(site: Loaded, epoch: Option<i64>) -> Result<Self> {
        crate::render::pdf::warm_up(false);
        let base = site.base_url.as_deref();
        let analysed: Vec<Result<Analysed>> =
            site.studies.par_iter().map(|s| study::analyse(&site.root, s, base)).collect();
        let analysed = gathered(analysed)?;
        let neighbours = analysed.iter().map(|a| (a.study.folder.clone(), neighbour(a))).collect();
        let mut cache = Cache { site, epoch, neighbours, built: BTreeMap::new() };
        let built: Vec<Result<Built>> = analysed
            .into_par_iter()
            .map(|a| {
                let place = cache.place(&a.study);
                study::render(a, place, epoch, None)
            })
            .collect();
        cache.built = gathered(built)?.into_iter().map(|b| (b.study.folder.clone(), b)).collect();
        Ok(cache)
    }

    /// Build the study of `folder` again, and every study that refers to
    /// one of its claims when its claims changed.
    pub fn rebuild(&mut self, folder: &str) -> Result<Vec<String>> {
        let Some(study) = self.site.studies.iter().find(|s| s.folder == folder).cloned() else {
            return Ok(Vec::new());
        };
        let analysed = study::analyse(&self.site.root, &study, self.site.base_url.as_deref())?;
        let claims = neighbour(&analysed);
        let changed = self.neighbours.get(folder).map(|n| &n.claims) != Some(&claims.claims);
        self.neighbours.insert(folder.to_string(), claims);
        let built =
            study::render(analysed, self.place(&study), self.epoch, self.built.get(folder))?;
        self.built.insert(folder.to_string(), built);
        let mut rebuilt = vec![folder.to_string()];
        if changed {
            // The others show its claims only where they link to them: those
            // are rebuilt, which a change of its prose never requires.
            let others: Vec<Study> =
                self.site.studies.iter().filter(|s| s.folder != folder).cloned().collect();
            for other in others {
                if self.built.get(&other.folder).is_some_and(|b| refers_to(b, &study)) {
                    let analysed =
                        study::analyse(&self.site.root, &other, self.site.base_url.as_deref())?;
                    let before = self.built.get(&other.folder);
                    let built = study::render(analysed, self.place(&other), self.epoch, before)?;
                    self.built.insert(other.folder.clone(), built);
                    rebuilt.push(other.folder);
                }
            }
        }
        Ok(rebuilt)
    }

    /// The place of `study` in the site.
    fn place(&self, study: &Study) -> Arc<Place> {
        Arc::new(Place {
            folder: study.folder.clone(),
            url: study.url.clone(),
            title: self.site.config.title.clone(),
            studies: self.neighbours.clone(),
        })
    }

    /// The whole site in memory, and the warnings of its studies.
    pub fn assemble(&self, previous: Option<&feed::Previous>) -> Result<(Site, Vec<Diagnostic>)> {
        let mut site = Site::default();
        let mut warnings = Vec::new();
        let order = self.site.studies.iter().filter_map(|s| self.built.get(&s.folder));
        let built: Vec<&Built> = order.collect();
        for b in &built {
            for (path, bytes) in &b.site.files {
                site.insert(Path::new(&b.study.url).join(path), bytes.clone());
            }
            warnings.extend(b.warnings.iter().cloned());
        }
        let assets = crate::render::html::shared_assets();
        for (name, content) in assets.into_iter().chain(crate::render::html::index_assets()) {
            site.insert(name, content.into_bytes());
        }
        let entries: Vec<&entry::Entry> = built.iter().map(|b| &b.entry).collect();
        let date = feed::date(self.epoch, &entries);
        let claims = feed::claims_json(&entries);
        let changes = feed::changes(previous, &entries, &date);
        site.insert(
            index::FILE,
            index::render(&self.site.config, &entries, self.site.base_url.as_deref())?,
        );
        site.insert(search::FILE, search::json(&entries));
        site.insert(feed::FILE, feed::atom(&self.site, &entries, &changes, &date));
        site.insert(feed::CLAIMS, claims);
        site.insert(feed::CHANGES, feed::changes_json(&changes));
        Ok((site, warnings))
    }
}

/// What the other studies see of `analysed`: where it is, its title, its claims.
fn neighbour(analysed: &Analysed) -> Neighbour {
    let config = &analysed.project.config;
    let labels = crate::prose::labels::Labels::new(config);
    let claims = analysed
        .analyzed
        .analysis
        .metrics
        .iter()
        .map(|m| {
            (m.name.clone(), entry::Claim::of(&crate::render::MetricView::of(m, &labels)).text())
        })
        .collect();
    Neighbour { url: analysed.study.url.clone(), title: config.book.title.clone(), claims }
}

/// Whether the build `b` links to a claim of `study`.
fn refers_to(b: &Built, study: &Study) -> bool {
    b.refers.contains(&study.folder)
}

/// The results of the studies, or every error of them all.
fn gathered<T>(results: Vec<Result<T>>) -> Result<Vec<T>> {
    let mut errors = Diagnostics::default();
    let mut done = Vec::new();
    for result in results {
        match result {
            Ok(value) => done.push(value),
            Err(err) => match err.downcast::<Diagnostics>() {
                Ok(d) => errors.0.extend(d.0),
                Err(other) => return Err(other),
            },
        }
    }
    if errors.is_empty() { Ok(done) } else { Err(errors.into()) }
}

/// Every check of a build of the site at `root`, with nothing written
/// (`report check` of a site.toml): site.toml, every study with its paper,
/// and every link and reference from one study to another, each error
/// located in the site. Returns the warnings.
pub fn check(root: &Path, options: &crate::BuildOptions) -> Result<Vec<Diagnostic>> {
    let site = load(root, options)?;
    let cache = Cache::build(site, options.source_date_epoch)?;
    Ok(cache.assemble(None)?.1)
}

/// Build the site at `root` and write it: `report build --root FOLDER` of a
/// site.toml. The feed's claim changes are since the build in `previous`
/// (`--previous`: a folder holding its `claims.json` and `changes.json`, as
/// fetched from the published site), else in the output folder; without
/// its `claims.json` there is no build before.
pub fn build(
    root: &Path,
    options: &crate::BuildOptions,
    previous: Option<&Path>,
) -> Result<crate::BuildSummary> {
    let mut clock = std::time::Instant::now();
    let mut timings = crate::pipeline::Timings::default();
    let site = load(root, options)?;
    timings.lap("load", &mut clock);
    let out = site.out.clone();
    let before = previous.unwrap_or(&out);
    let previous = std::fs::read(before.join(feed::CLAIMS)).ok();
    let previous_changes = std::fs::read(before.join(feed::CHANGES)).ok();
    let cache = Cache::build(site, options.source_date_epoch)?;
    timings.lap("studies", &mut clock);
    let (site, warnings) = cache
        .assemble(feed::Previous::of(previous.as_deref(), previous_changes.as_deref()).as_ref())?;
    timings.lap("site", &mut clock);
    crate::output::write(&site, &out)?;
    timings.lap("write", &mut clock);
    Ok(crate::BuildSummary { out, files: site.files.keys().cloned().collect(), warnings, timings })
}
