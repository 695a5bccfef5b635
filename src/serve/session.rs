//! The state `report serve` keeps between rebuilds, so that a change reruns
//! only the stages it touches: a content edit re-renders the pages without
//! re-reading the CSVs or recomputing the statistics; a CSV change recomputes
//! the statistics and the charts; a template or book.toml change reloads all.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;

use crate::output::Site;
use crate::pipeline::{self, Analyzed, Prepared, Timings};
use crate::project::{self, Project};

/// What a set of changed files requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// Only `content/` changed: re-render pages, reuse the statistics.
    Content,
    /// `results/` changed: reload the CSVs and recompute everything after.
    Results,
    /// `book.toml`, `templates/` or `fonts/` changed: reload the whole study.
    Study,
}

/// Whether a file event of this kind can change what a build reads: a
/// creation, a removal, a rename, a write or a change of permissions. Opening,
/// reading and closing a file without writing do not, and a rebuild causes
/// exactly those on every input.
pub fn changes_input(kind: &notify::EventKind) -> bool {
    use notify::EventKind;
    use notify::event::{AccessKind, AccessMode};
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) | EventKind::Other | EventKind::Any => false,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) => true,
    }
}

/// Whether an event of this kind can put a new file or folder in place: a
/// creation or a rename.
pub fn places_input(kind: &notify::EventKind) -> bool {
    use notify::EventKind;
    use notify::event::ModifyKind;
    matches!(kind, EventKind::Create(_) | EventKind::Modify(ModifyKind::Name(_)))
}

/// Whether a file name is an editor's scratch file, which no build reads:
/// hidden files (`.index.md.swp`), backups (`index.md~`) and Vim's
/// write test (`4913`).
fn is_scratch(name: &str) -> bool {
    name.starts_with('.') || name.ends_with('~') || name.ends_with(".swp") || name == "4913"
}

/// What `paths` (absolute, inside `root`) require, if anything.
pub fn classify(root: &Path, paths: &[PathBuf]) -> Option<Change> {
    paths
        .iter()
        .filter_map(|path| {
            let relative = path.strip_prefix(root).ok()?;
            let name = relative.file_name()?.to_str()?;
            if is_scratch(name) {
                return None;
            }
            let first = relative.components().next()?.as_os_str().to_str()?;
            match first {
                "content" => Some(Change::Content),
                "results" => Some(Change::Results),
                "templates" | "fonts" | "book.toml" => Some(Change::Study),
                _ => None,
            }
        })
        .max()
}

/// The inputs among `paths` (absolute, inside `root`), relative to `root`,
/// sorted, each once: what [`classify`] counts, for the log.
pub fn inputs(root: &Path, paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut inputs: Vec<PathBuf> = paths
        .iter()
        .filter(|path| classify(root, std::slice::from_ref(path)).is_some())
        .filter_map(|path| path.strip_prefix(root).ok().map(Path::to_path_buf))
        .collect();
    inputs.sort();
    inputs.dedup();
    inputs
}

/// A rebuilt site, without its PDF, and the job that typesets the PDF.
pub struct Rebuilt {
    /// Every file but the PDF.
    pub site: Site,
    /// Typesets the PDF; run it off the request path.
    pub pdf: PdfJob,
    /// Time per stage.
    pub timings: Timings,
}

/// The inputs of the paper, owned, so that it can be typeset on another thread.
pub struct PdfJob {
    project: Project,
    analyzed: Arc<Analyzed>,
    prepared: Prepared,
}

impl PdfJob {
    /// The PDF's file name in the site (`[output] pdf`).
    pub fn name(&self) -> &str {
        &self.project.config.output.pdf
    }

    /// Typeset the paper: its file name and bytes.
    pub fn run(self) -> Result<(String, Vec<u8>), crate::diagnostic::Diagnostics> {
        let study = self.prepared.resolved(&self.project, &self.analyzed);
        let paper = crate::render::paper::render(&study)?;
        Ok((self.project.config.output.pdf.clone(), paper.pdf))
    }
}

/// The cached stages of a served study.
pub struct Session {
    root: PathBuf,
    epoch: Option<i64>,
    project: Option<Project>,
    analyzed: Option<Arc<Analyzed>>,
}

impl Session {
    /// A session for the study at `root`; nothing is loaded yet.
    pub fn new(root: &Path, epoch: Option<i64>) -> Self {
        Self { root: root.to_path_buf(), epoch, project: None, analyzed: None }
    }

    /// Rebuild after `change`, rerunning only the stages it touches.
    pub fn rebuild(&mut self, change: Change) -> Result<Rebuilt> {
        let mut timings = Timings::default();
        let mut clock = std::time::Instant::now();
        // The typesetting child starts now and loads its fonts meanwhile.
        crate::render::pdf::warm_up(self.project.as_ref().is_none_or(|p| p.bibliography.is_some()));
        let change = if self.project.is_none() { Change::Study } else { change };
        match (&mut self.project, change) {
            (Some(project), Change::Content) => project.reload_content()?,
            (Some(project), Change::Results) => {
                project.reload_results()?;
                self.analyzed = None;
            }
            _ => {
                self.project = Some(project::load(&self.root)?);
                self.analyzed = None;
            }
        }
        timings.lap("load", &mut clock);
        let project = self.project.as_ref().expect("loaded above");
        let sourced = |d| project.attach(d);
        if self.analyzed.is_none() {
            self.analyzed = Some(Arc::new(pipeline::analyze(project).map_err(sourced)?));
            timings.lap("analysis", &mut clock);
        }
        let analyzed = self.analyzed.as_ref().expect("analysed above");
        let prepared =
            pipeline::prepare(project, analyzed, self.epoch, &mut timings).map_err(sourced)?;
        let (site, _) = pipeline::quick(&prepared.resolved(project, analyzed), &mut timings)
            .map_err(sourced)?;
        let analyzed = Arc::clone(analyzed);
        Ok(Rebuilt { site, pdf: PdfJob { project: project.clone(), analyzed, prepared }, timings })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_classified_by_folder() {
        let root = Path::new("/s");
        assert_eq!(classify(root, &[root.join("content/a.md")]), Some(Change::Content));
        assert_eq!(
            classify(root, &[root.join("content/a.md"), root.join("results/r.csv")]),
            Some(Change::Results)
        );
        assert_eq!(classify(root, &[root.join("book.toml")]), Some(Change::Study));
        assert_eq!(classify(root, &[root.join("site/index.html"), root.join("target/x")]), None);
        assert_eq!(classify(root, &[root.join("content/.index.md.swp")]), None);
        assert_eq!(classify(root, &[root.join("content/index.md~")]), None);
    }

    #[test]
    fn the_inputs_changed_are_named_once_each_without_scratch_files() {
        let root = Path::new("/s");
        let paths = [
            root.join("results/r.csv"),
            root.join("content/a.md"),
            root.join("content/.a.md.swp"),
            root.join("site/index.html"),
            root.join("content/a.md"),
        ];
        assert_eq!(
            inputs(root, &paths),
            [PathBuf::from("content/a.md"), PathBuf::from("results/r.csv")]
        );
    }

    #[test]
    fn reading_an_input_is_not_a_change() {
        use notify::EventKind;
        use notify::event::{AccessKind, AccessMode, CreateKind, ModifyKind};
        assert!(!changes_input(&EventKind::Access(AccessKind::Open(AccessMode::Any))));
        assert!(!changes_input(&EventKind::Access(AccessKind::Close(AccessMode::Read))));
        assert!(!changes_input(&EventKind::Access(AccessKind::Read)));
        assert!(changes_input(&EventKind::Access(AccessKind::Close(AccessMode::Write))));
        assert!(changes_input(&EventKind::Modify(ModifyKind::Any)));
        assert!(changes_input(&EventKind::Create(CreateKind::File)));
    }
}
