//! The resolved study: everything an output is rendered from, in one value
//! that every [`Renderer`](super::renderer::Renderer) reads, so that the
//! page, the paper and the files beside them take the same inputs.

use std::sync::OnceLock;

use super::{BookView, Refs, math};
use crate::analysis::Analysis;
use crate::charts::ChartSet;
use crate::config::Config;
use crate::markdown::Document;
use crate::project::Project;
use crate::references::{Bibliography, Formatted};
use crate::results::ResultSet;

/// The build's date and time (UTC): year, month, day, hour, minute, second.
pub type Date = (i32, u8, u8, u8, u8, u8);

/// The study resolved, as every output sees it: read, analysed, its
/// content expanded and resolved, its charts drawn and its citations
/// formatted. Nothing in it is written for one output only.
#[derive(Debug, Clone, Copy)]
pub struct Resolved<'a> {
    /// The study as read: book.toml, content, templates, images, fonts and
    /// the results files (with their digests).
    pub project: &'a Project,
    /// The parsed results.
    pub results: &'a ResultSet,
    /// Every statistic and finding.
    pub analysis: &'a Analysis,
    /// The content pages, resolved: blocks, numbered figures and tables,
    /// cross-references, citations, computed tables, the reader's caveats.
    pub document: &'a Document,
    /// Every chart, drawn.
    pub charts: &'a ChartSet,
    /// The bibliography, if the study has one.
    pub bibliography: Option<&'a Bibliography>,
    /// The citations and the reference list, formatted.
    pub cited: &'a Formatted,
    /// What both templates show of the study: metadata, metrics, caveats,
    /// the author's answer, the provenance of the build.
    pub book: &'a BookView,
    /// Every formula of the content typeset for the page ([`math::formulas`]).
    pub math: &'a math::Formulas,
    /// The build's date: `SOURCE_DATE_EPOCH`, else book.toml's date.
    pub date: Option<Date>,
    /// `data/stats.json` as written, made once by the first output that
    /// asks for it (`render::json::bytes`: the statistics' own and the paper).
    pub stats: &'a OnceLock<Vec<u8>>,
}

impl<'a> Resolved<'a> {
    /// book.toml.
    pub fn config(&self) -> &'a Config {
        &self.project.config
    }

    /// What the page's walk of a body takes from later stages: the charts,
    /// the page's citations, the environments, raw HTML as book.toml allows
    /// it, and the page's formulas.
    pub fn page_refs(&self) -> Refs<'a> {
        Refs {
            charts: self.charts,
            citations: &self.cited.citations,
            environments: &self.book.environments,
            raw_html: self.book.raw_html,
            math: self.math,
        }
    }
}
