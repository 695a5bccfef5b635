//! The study's images (`content/` files the pages and the paper show),
//! copied beside the page under their file names.

use super::renderer::{Files, Renderer};
use super::resolved::Resolved;
use crate::diagnostic::Diagnostics;

/// The output of the study's images.
#[derive(Debug, Clone, Copy)]
pub struct Images;

impl Renderer for Images {
    fn name(&self) -> &'static str {
        "images"
    }

    fn render(&self, study: &Resolved) -> Result<Files, Diagnostics> {
        let mut out = Files::default();
        for asset in &study.project.assets {
            if let Some(name) = asset.path.file_name() {
                out.insert(name, asset.bytes.clone());
            }
        }
        Ok(out)
    }
}
