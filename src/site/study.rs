//! One study of a site: loaded, analysed, then rendered in its place, its
//! errors located in the site (`examples/usernetes/content/index.md:3:5`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::entry::Entry;
use super::place::Place;
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::output::Site;
use crate::pipeline::{self, Analyzed, Timings};
use crate::project::Project;

/// A study of the site: its folder and where it is published.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Study {
    /// Its folder relative to site.toml, slashed; `""` for that folder.
    pub folder: String,
    /// Where it is published, relative to the site's root, with a trailing slash.
    pub url: String,
}

impl Study {
    /// The study's folder on disk, under the site's `root`.
    pub fn root(&self, root: &Path) -> PathBuf {
        if self.folder.is_empty() { root.to_path_buf() } else { root.join(&self.folder) }
    }
}

/// A study loaded and analysed: what the other studies' links need of it.
#[derive(Debug, Clone)]
pub struct Analysed {
    /// Which study.
    pub study: Study,
    /// The study, as read.
    pub project: Project,
    /// Its results and statistics.
    pub analyzed: Analyzed,
}

/// A study rendered in its place.
#[derive(Debug, Clone)]
pub struct Built {
    /// Which study.
    pub study: Study,
    /// What the index, search and feed show of it.
    pub entry: Entry,
    /// Its files, relative to its own folder of the site.
    pub site: Site,
    /// Its warnings, located in the site.
    pub warnings: Vec<Diagnostic>,
    /// Its time per stage.
    pub timings: Timings,
    /// The folders of the studies whose claims it refers to.
    pub refers: Vec<String>,
}

/// Load and analyse `study` of the site at `root`, with `base_url` for its page.
pub fn analyse(root: &Path, study: &Study, base_url: Option<&str>) -> anyhow::Result<Analysed> {
    let mut project = crate::project::load(&study.root(root)).map_err(|e| located(e, study))?;
    if let Some(base) = base_url {
        project.config.output.base_url = Some(format!("{base}{}", study.url));
    }
    let analyzed =
        pipeline::analyze(&project).map_err(|d| located(project.attach(d).into(), study))?;
    Ok(Analysed { study: study.clone(), project, analyzed })
}

/// Render the analysed study in `place`; `before` is its previous build in
/// this process, whose card image is kept if its card did not change.
pub fn render(
    mut analysed: Analysed,
    place: Arc<Place>,
    epoch: Option<i64>,
    before: Option<&Built>,
) -> anyhow::Result<Built> {
    analysed.project.site = Some(place);
    let Analysed { study, project, analyzed } = analysed;
    let (rendered, prepared) = pipeline::finish(&project, &analyzed, epoch, Timings::default())
        .map_err(|d| located(project.attach(d).into(), &study))?;
    let mut warnings = rendered.warnings;
    warnings.extend(project.unread.iter().cloned());
    project.attach_to(&mut warnings);
    let entry = Entry::of(&study.url, &prepared.book, &prepared.document);
    let place = project.site.as_deref();
    let mut refers: Vec<String> = prepared
        .document
        .links
        .iter()
        .filter_map(|(url, _)| place?.resolve(url)?.ok())
        .filter(|r| r.claim.is_some())
        .map(|r| r.folder)
        .collect();
    refers.sort();
    refers.dedup();
    let warnings = prefixed(Diagnostics(warnings), &study.folder).0;
    let mut site = rendered.site;
    if let Some(place) = place {
        let svg = super::card::svg(&entry, &place.title);
        let png = match before.and_then(|b| super::card::kept(&b.site, &svg)) {
            Some(png) => png.to_vec(),
            None => super::card::png(&svg)?,
        };
        site.insert(super::card::PNG, png);
        site.insert(super::card::SVG, svg.into_bytes());
    }
    Ok(Built { study, entry, site, warnings, timings: rendered.timings, refers })
}

/// `err`, its diagnostics' files named from site.toml's folder.
fn located(err: anyhow::Error, study: &Study) -> anyhow::Error {
    match err.downcast::<Diagnostics>() {
        Ok(diagnostics) => prefixed(diagnostics, &study.folder).into(),
        Err(err) => err.context(format!("in the study `{}`", display(&study.folder))),
    }
}

/// `diagnostics` with each relative path under `folder`.
pub fn prefixed(mut diagnostics: Diagnostics, folder: &str) -> Diagnostics {
    if folder.is_empty() {
        return diagnostics;
    }
    let under = |path: &mut PathBuf| {
        if path.is_relative() {
            *path = Path::new(folder).join(&*path);
        }
    };
    for d in &mut diagnostics.0 {
        under(&mut d.location.path);
        if let Some(repeats) = d.repeats.as_mut() {
            repeats.also.iter_mut().for_each(|l| under(&mut l.path));
        }
    }
    diagnostics
}

/// A study's folder as the user reads it: `.` for site.toml's own.
pub fn display(folder: &str) -> &str {
    if folder.is_empty() { "." } else { folder }
}
