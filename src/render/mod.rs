//! The renderers: the web page (HTML through Tera), the paper (Typst to PDF)
//! and the machine-readable statistics (JSON), all from the same inputs.

pub mod html;
pub mod json;
pub mod paper;
pub mod pdf;
pub mod typst_markup;

use serde::Serialize;

use crate::analysis::MetricValue;
use crate::config::{Better, Compare, Config};
use crate::format;

/// A metric as both templates see it: the numbers and their formatted text.
#[derive(Debug, Clone, Serialize)]
pub struct MetricView {
    /// Name used in prose.
    pub name: String,
    /// Short label.
    pub label: String,
    /// Definition in words.
    pub definition: Option<String>,
    /// Shown as a summary card.
    pub headline: bool,
    /// `higher` or `lower`.
    pub better: Better,
    /// True when the value is good news, false when bad, absent for summaries.
    pub good: Option<bool>,
    /// Whether the interval excludes "no difference".
    pub significant: Option<bool>,
    /// Formatted fields: value, ci, full, n, p, significance, ...
    pub text: std::collections::BTreeMap<&'static str, String>,
}

impl MetricView {
    /// The view of one computed metric.
    pub fn of(m: &MetricValue) -> Self {
        let null = if m.compare == Compare::Ratio { 1.0 } else { 0.0 };
        let good = (m.compare != Compare::Summary).then_some(match m.better {
            Better::Higher => m.value > null,
            Better::Lower => m.value < null,
        });
        MetricView {
            name: m.name.clone(), label: m.label.clone(), definition: m.definition.clone(), headline: m.headline,
            better: m.better, good, significant: m.significant, text: format::metric_fields(m),
        }
    }
}

/// Facts about the study both templates show.
#[derive(Debug, Clone, Serialize)]
pub struct BookView {
    /// Title.
    pub title: String,
    /// Subtitle.
    pub subtitle: Option<String>,
    /// Authors with affiliations.
    pub authors: Vec<AuthorView>,
    /// Date as written in book.toml.
    pub date: Option<String>,
    /// Abstract.
    #[serde(rename = "abstract")]
    pub summary: Option<String>,
    /// Keywords.
    pub keywords: Vec<String>,
    /// `a4` or `us-letter`.
    pub paper: &'static str,
    /// Environments in name order.
    pub environments: Vec<EnvironmentView>,
    /// Every metric, in book.toml order.
    pub metrics: Vec<MetricView>,
    /// Caveats derived from the data, as sentences.
    pub caveats: Vec<String>,
    /// The reference list: key and formatted HTML, in citation order.
    pub references: Vec<ReferenceView>,
    /// True when the study has a bibliography that the paper should print.
    pub has_bibliography: bool,
    /// File name of the PDF.
    pub pdf: String,
    /// `report` and its version.
    pub generator: String,
}

/// One entry of the reference list.
#[derive(Debug, Clone, Serialize)]
pub struct ReferenceView {
    /// Citation key.
    pub key: String,
    /// The formatted entry, as HTML.
    pub html: String,
}

/// An author.
#[derive(Debug, Clone, Serialize)]
pub struct AuthorView {
    /// Name.
    pub name: String,
    /// Affiliation.
    pub affiliation: Option<String>,
}

/// An environment.
#[derive(Debug, Clone, Serialize)]
pub struct EnvironmentView {
    /// Name in the results.
    pub name: String,
    /// Label.
    pub label: String,
    /// Description.
    pub description: Option<String>,
    /// True for the baseline.
    pub baseline: bool,
}

impl BookView {
    /// The view of `config` and the computed `metrics`.
    pub fn new(config: &Config, analysis: &crate::analysis::Analysis, cited: &crate::references::Formatted) -> Self {
        let metrics = &analysis.metrics;
        let book = &config.book;
        BookView {
            title: book.title.clone(),
            subtitle: book.subtitle.clone(),
            authors: book.authors.iter().map(|a| AuthorView { name: a.name.clone(), affiliation: a.affiliation.clone() }).collect(),
            date: book.date.clone(),
            summary: book.summary.clone(),
            keywords: book.keywords.clone(),
            paper: match config.paper.size {
                crate::config::PaperSize::A4 => "a4",
                crate::config::PaperSize::UsLetter => "us-letter",
            },
            environments: config.environments.iter().map(|(name, e)| EnvironmentView {
                name: name.clone(), label: e.label.clone(), description: e.description.clone(),
                baseline: *name == config.study.baseline,
            }).collect(),
            metrics: metrics.iter().map(MetricView::of).collect(),
            caveats: analysis.caveats.iter().map(|c| c.text.clone()).collect(),
            references: cited.entries.iter().map(|(key, html)| ReferenceView { key: key.clone(), html: html.clone() }).collect(),
            has_bibliography: !cited.entries.is_empty(),
            pdf: config.output.pdf.clone(),
            generator: format!("report {}", env!("CARGO_PKG_VERSION")),
        }
    }
}
