//! An output of a build, one module over the [`Resolved`] study, as
//! mdBook's `Renderer` is for its outputs: the web page ([`super::html`]),
//! the paper ([`super::paper`]), the statistics ([`super::json`]), the
//! study's images ([`super::images`]) and the data behind each figure and
//! table ([`super::downloads`]). The pipeline runs [`super::outputs`] in
//! order; adding an output is one module with a type that implements
//! [`Renderer`] and its line in [`super::outputs`].

use std::path::PathBuf;

use super::resolved::Resolved;
use crate::diagnostic::{Diagnostic, Diagnostics};

/// One output of a build.
pub trait Renderer: Sync {
    /// Its name, as `report build --verbose` times it (`html`, `pdf`…).
    fn name(&self) -> &'static str;

    /// Whether it may come after the others: `report serve` serves the
    /// site without it and adds its files when they are ready (the paper,
    /// which takes seconds to typeset).
    fn deferred(&self) -> bool {
        false
    }

    /// Its files, by path in the output folder, and its warnings.
    fn render(&self, study: &Resolved) -> Result<Files, Diagnostics>;
}

/// What one output adds to a build.
#[derive(Debug, Clone, Default)]
pub struct Files {
    /// Each file's path in the output folder and its bytes, in the order
    /// made (a later file of the same path replaces an earlier one).
    pub files: Vec<(PathBuf, Vec<u8>)>,
    /// Things the author should know, located.
    pub warnings: Vec<Diagnostic>,
}

impl Files {
    /// Add a file at `path` in the output folder.
    pub fn insert(&mut self, path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) {
        self.files.push((path.into(), bytes.into()));
    }
}
