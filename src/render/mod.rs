//! The renderers: every output of a build is one module over the
//! [`resolved::Resolved`] study behind the [`renderer::Renderer`] trait:
//! the web page (HTML through Tera, [`html`]), the paper (Typst to PDF,
//! [`paper`]), the machine-readable statistics (JSON, [`json`]), the
//! study's images ([`images`]) and the data behind its figures and tables
//! ([`downloads`]), all from the same inputs.

pub mod chart_meta;
pub mod downloads;
pub mod export;
pub mod headline;
pub mod html;
pub mod images;
pub mod json;
pub mod latex;
pub mod math;
mod outline;
pub mod paper;
pub mod pdf;
pub mod renderer;
pub mod resolved;
pub mod sandbox;
pub mod stats;
pub mod typst_markup;
mod typst_syntax;

use std::process::ExitCode;

use serde::Serialize;

use crate::analysis::MetricValue;
use crate::config::{Better, Compare, Config};

/// Every output of a build, in the order their files are laid down: the
/// page, the paper, the statistics, the images, the figures' and tables'
/// data. Adding an output is its module and its line here.
pub fn outputs() -> [&'static dyn renderer::Renderer; 5] {
    [&html::Page, &paper::Pdf, &json::Stats, &images::Images, &downloads::Downloads]
}

/// Call first thing in `main`. In a child process (`report __typeset`,
/// `report __render`) it does the job and returns the exit code to end
/// with; anywhere else it returns `None`, and the paper and the study's
/// templates are rendered in children from then on ([`sandbox`]).
pub fn enter() -> Option<ExitCode> {
    sandbox::enter(|job| match job {
        sandbox::Job::Typeset => sandbox::Work {
            prepare: pdf::prepare_child,
            answer: pdf::child_answer,
            between: pdf::between_papers,
        },
        sandbox::Job::Render => {
            sandbox::Work { prepare: |_| {}, answer: html::child_answer, between: || {} }
        }
    })
}

/// What both renderers take from later stages while they walk a page's
/// resolved [`Body`](crate::markdown::document::Body): the drawn charts,
/// the formatted citations, the typeset formulas and the environments.
#[derive(Debug, Clone, Copy)]
pub struct Refs<'a> {
    /// Every chart.
    pub charts: &'a crate::charts::ChartSet,
    /// Formatted citations by the keys cited together.
    pub citations: &'a std::collections::BTreeMap<Vec<String>, String>,
    /// The environments, for the ```` ```environments ```` block.
    pub environments: &'a [EnvironmentView],
    /// Pass raw HTML through to the page (else it is shown as text).
    pub raw_html: bool,
    /// Every formula typeset for the page, by source and display.
    pub math: &'a math::Formulas,
}

impl Refs<'static> {
    /// No charts, tables, citations or environments: Markdown on its own.
    pub fn none() -> Self {
        static CHARTS: std::sync::OnceLock<crate::charts::ChartSet> = std::sync::OnceLock::new();
        static CITATIONS: std::collections::BTreeMap<Vec<String>, String> =
            std::collections::BTreeMap::new();
        static MATH: math::Formulas = std::collections::BTreeMap::new();
        Refs {
            charts: CHARTS.get_or_init(Default::default),
            citations: &CITATIONS,
            environments: &[],
            raw_html: false,
            math: &MATH,
        }
    }
}

/// A metric as both templates see it: the numbers and their formatted text.
#[derive(Debug, Clone, Serialize)]
pub struct MetricView {
    /// Name used in prose.
    pub name: String,
    /// Short label.
    pub label: String,
    /// Definition in words.
    pub definition: Option<String>,
    /// The definition's Markdown as inline HTML, for the page's cards.
    pub definition_html: Option<String>,
    /// Shown as a summary card.
    pub headline: bool,
    /// `higher` or `lower`.
    pub better: Better,
    /// True when the value is good news, false when bad; absent for
    /// summaries and for a change of exactly zero, which is neither.
    pub good: Option<bool>,
    /// The card's word, the claim's verdict (`analysis::metrics::claim`):
    /// `better`, `worse`, `in every run` (exact), `negligible`,
    /// `inconclusive` or `no change`; absent for summaries.
    pub verdict: Option<&'static str>,
    /// `up` or `down`: the sign of the difference; absent for summaries and no change.
    pub direction: Option<&'static str>,
    /// Whether the interval excludes "no difference".
    pub significant: Option<bool>,
    /// The difference in words (`8.8% faster`), and whether it is smaller
    /// than `[study] negligible`; absent for summaries.
    pub words: Option<crate::prose::direction::Direction>,
    /// Formatted fields: value, ci, full, n, p, significance, words, interval, ...
    pub text: std::collections::BTreeMap<&'static str, String>,
    /// For a headline one run carries, the card's note: `significant only
    /// with run 20 of Candidate: without it 5.2% faster, not statistically
    /// significant` ([`crate::prose::carried::note`]).
    pub carried: Option<String>,
    /// `measured`, `published`, or the provenance of data that were not
    /// measured (`reconstructed`, ...).
    pub provenance: &'static str,
    /// `†` after each number derived from data that were not measured and
    /// not published; empty otherwise.
    pub mark: &'static str,
    /// Where the value comes from, for a card of data that were not
    /// measured, instead of its interval: `Published figure: ...`.
    pub origin: Option<String>,
}

impl MetricView {
    /// The view of one computed metric, worded by `labels`.
    pub fn of(m: &MetricValue, labels: &crate::prose::labels::Labels) -> Self {
        use crate::analysis::metrics::claim::Verdict;
        let null = if m.compare == Compare::Ratio { 1.0 } else { 0.0 };
        let change = m.compare != Compare::Summary && m.value != null;
        let words = labels.direction(m);
        let verdict = m.claim.map(|c| c.verdict);
        // Only a decided difference is news, good or bad: an exact value is
        // a fact, and a negligible or inconclusive one stays neutral.
        let good = match verdict {
            Some(Verdict::Better) if !m.exact => Some(true),
            Some(Verdict::Worse) if !m.exact => Some(false),
            _ => None,
        };
        MetricView {
            name: m.name.clone(),
            label: labels.metric(m),
            definition: m.definition.clone(),
            definition_html: m.definition.as_deref().map(html::inline_html),
            headline: m.headline,
            better: m.better,
            good,
            verdict: verdict.map(|v| match v {
                Verdict::Better | Verdict::Worse if m.exact => "in every run",
                Verdict::Better => "better",
                Verdict::Worse => "worse",
                Verdict::Negligible => "negligible",
                Verdict::Inconclusive => "inconclusive",
                Verdict::Same => "no change",
            }),
            direction: change.then_some(if m.value > null { "up" } else { "down" }),
            significant: m.significant,
            words,
            text: labels.fields(m),
            carried: crate::prose::carried::note(m, labels),
            provenance: crate::prose::provenance::word(m),
            mark: if m.marked() { crate::prose::provenance::MARK } else { "" },
            origin: crate::prose::provenance::origin(m),
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
    /// The date in words for the paper's title block (`7 December 2026`),
    /// or as written when it is no `YYYY-MM-DD` ([`crate::format::long_date`]).
    pub date_long: Option<String>,
    /// Abstract.
    #[serde(rename = "abstract")]
    pub summary: Option<String>,
    /// Keywords.
    pub keywords: Vec<String>,
    /// `a4` or `us-letter`.
    pub paper: &'static str,
    /// The paper's font families in the order Typst tries them: `[paper] fonts`,
    /// Libertinus Serif, then the embedded faces for other scripts.
    pub fonts: Vec<String>,
    /// Language of the text (`en`).
    pub language: String,
    /// Facts shown under the title: period, context, role, team.
    pub meta: Vec<MetaItem>,
    /// Tools used, shown as tags.
    pub tools: Vec<String>,
    /// Environments in name order.
    pub environments: Vec<EnvironmentView>,
    /// Every metric, in book.toml order.
    pub metrics: Vec<MetricView>,
    /// The headline metrics as Table 1 of the page and the paper; absent
    /// when no metric is a headline.
    pub headline_table: Option<headline::HeadlineTable>,
    /// The caveats for readers, as sentences: the author's first, then the
    /// few the data imply that could change a headline claim most.
    pub caveats: Vec<String>,
    /// The same caveats with the labels of the metrics each qualifies.
    pub limitations: Vec<LimitationView>,
    /// Every caveat the data imply, with its figures: the page's collapsed
    /// Diagnostics and the paper's appendix.
    pub diagnostics: Vec<String>,
    /// Where the data come from, in words (`[study] data`).
    pub data: Option<String>,
    /// The note on each kind of data that were not measured, `†` first:
    /// `† Reconstructed data (lammps), not measured: ...` (`[data.NAME]
    /// provenance` and `provenance-note`).
    pub data_notes: Vec<String>,
    /// The page's description for search engines, at most 160 characters:
    /// the answer's, else the headline cards' or the abstract's
    /// ([`crate::prose::snippet`]; filled in by the pipeline).
    pub description: Option<String>,
    /// The author's answer as plain text (filled in by the pipeline).
    #[serde(skip)]
    pub answer_plain: Option<String>,
    /// The author's answer as HTML of one paragraph (`[book] answer`; filled in by the pipeline).
    pub answer: Option<String>,
    /// The author's answer as Typst markup (filled in by the pipeline).
    pub answer_typst: Option<String>,
    /// The smallest difference that matters, as written (`[study] negligible`).
    pub negligible: Option<String>,
    /// The reference list: key and formatted HTML, in citation order.
    pub references: Vec<ReferenceView>,
    /// True when the study has a bibliography that the paper should print.
    pub has_bibliography: bool,
    /// File name of the PDF.
    pub pdf: String,
    /// The site's public URL, for canonical links.
    pub base_url: Option<String>,
    /// Where book.toml sets the base URL, for errors (absent when it does not;
    /// `--base-url` overrides the value, not this place).
    #[serde(skip)]
    pub base_url_at: Option<crate::diagnostic::Location>,
    /// Whether raw HTML in content reaches the page.
    pub raw_html: bool,
    /// The syntax of the content's formulas (`[output] math`).
    pub math: crate::config::MathSyntax,
    /// Where the results came from (filled in by the pipeline).
    pub provenance: html::Provenance,
    /// `report` and its version.
    pub generator: String,
    /// The site of studies this one is published in, if any (filled in by
    /// the pipeline): the page links back to its index and shares a card.
    pub site: Option<SiteView>,
}

/// The site of studies a study's page is published in, as its templates see it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SiteView {
    /// The site's title.
    pub title: String,
    /// From the study's page to the site's root: `../../`.
    pub root: String,
    /// The study's card image for shared links (`card.png`), absolute
    /// under the site's base URL when it has one.
    pub card: String,
    /// The study's page as shared, absolute under the base URL, else empty.
    pub url: String,
}

/// A caveat for readers and the claims it qualifies.
#[derive(Debug, Clone, Serialize)]
pub struct LimitationView {
    /// The caveat.
    pub text: String,
    /// `author` or `data`.
    pub source: &'static str,
    /// Labels of the metrics it qualifies, in book.toml order.
    pub claims: Vec<String>,
}

/// One fact about the study, with its label.
#[derive(Debug, Clone, Serialize)]
pub struct MetaItem {
    /// Label, such as `Period`.
    pub label: &'static str,
    /// Value from book.toml.
    pub value: String,
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
    /// The view of `config`, the computed `metrics` and the reader's caveats
    /// (`limitations`).
    pub fn new(
        config: &Config,
        analysis: &crate::analysis::Analysis,
        limitations: &[crate::analysis::Limitation],
        cited: &crate::references::Formatted,
    ) -> Self {
        let book = &config.book;
        let labels = crate::prose::labels::Labels::new(config);
        let metrics: Vec<MetricView> =
            analysis.metrics.iter().map(|m| MetricView::of(m, &labels)).collect();
        let negligible = config.study.negligible.as_deref();
        BookView {
            title: book.title.clone(),
            subtitle: book.subtitle.clone(),
            authors: book.authors.iter().map(AuthorView::of).collect(),
            date: book.date.clone(),
            date_long: book.date.as_deref().map(crate::format::long_date),
            summary: book.summary.clone(),
            keywords: book.keywords.clone(),
            language: book.language.clone(),
            meta: MetaItem::all(book),
            tools: book.tools.clone(),
            paper: match config.paper.size {
                crate::config::PaperSize::A4 => "a4",
                crate::config::PaperSize::UsLetter => "us-letter",
            },
            fonts: font_families(&config.paper),
            environments: EnvironmentView::all(config),
            headline_table: headline::HeadlineTable::new(&analysis.metrics, &metrics, negligible),
            metrics,
            caveats: limitations.iter().map(|c| c.text.clone()).collect(),
            limitations: LimitationView::all(analysis, limitations, &labels),
            diagnostics: crate::prose::caveats::sentences(analysis, &labels),
            data: config.study.data.clone(),
            data_notes: crate::prose::provenance::notes(config),
            description: None,
            answer_plain: None,
            answer: None,
            answer_typst: None,
            negligible: config.study.negligible.clone(),
            references: ReferenceView::all(cited),
            has_bibliography: !cited.entries.is_empty(),
            pdf: config.output.pdf.clone(),
            base_url: config.output.base_url.clone(),
            base_url_at: config.at.get("output.base-url").cloned(),
            raw_html: config.output.raw_html,
            math: config.output.math,
            provenance: html::Provenance::default(),
            generator: format!("report {}", env!("CARGO_PKG_VERSION")),
            site: None,
        }
    }
}

/// The paper's font families in the order Typst tries them: `[paper] fonts`,
/// Libertinus Serif, then the embedded faces for other scripts.
fn font_families(paper: &crate::config::Paper) -> Vec<String> {
    paper
        .fonts
        .iter()
        .map(String::as_str)
        .chain(std::iter::once("Libertinus Serif"))
        .chain(pdf::FALLBACK_FAMILIES)
        .map(str::to_string)
        .collect()
}

impl LimitationView {
    /// The reader's caveats, each with the labels of the metrics of
    /// `analysis` it qualifies.
    fn all(
        analysis: &crate::analysis::Analysis,
        limitations: &[crate::analysis::Limitation],
        words: &crate::prose::labels::Labels,
    ) -> Vec<Self> {
        let labels = |names: &[String]| {
            let qualified = analysis.metrics.iter().filter(|m| names.contains(&m.name));
            qualified.map(|m| words.metric(m)).collect()
        };
        limitations
            .iter()
            .map(|l| LimitationView {
                text: l.text.clone(),
                source: l.source,
                claims: labels(&l.metrics),
            })
            .collect()
    }
}

impl MetaItem {
    /// The facts of `book` shown under the title, in this order: period,
    /// context, role, team (those it gives).
    fn all(book: &crate::config::Book) -> Vec<Self> {
        [
            ("Period", &book.period),
            ("Context", &book.context),
            ("Role", &book.role),
            ("Team", &book.team),
        ]
        .into_iter()
        .filter_map(|(label, v)| v.clone().map(|value| MetaItem { label, value }))
        .collect()
    }
}

impl ReferenceView {
    /// The reference list of the `cited` entries, in citation order.
    fn all(cited: &crate::references::Formatted) -> Vec<Self> {
        cited
            .entries
            .iter()
            .map(|(key, html)| ReferenceView { key: key.clone(), html: html.clone() })
            .collect()
    }
}

impl AuthorView {
    /// The view of one author of book.toml.
    fn of(author: &crate::config::Author) -> Self {
        AuthorView { name: author.name.clone(), affiliation: author.affiliation.clone() }
    }
}

impl EnvironmentView {
    /// Every environment of `config` in book.toml's order, the baseline marked.
    fn all(config: &Config) -> Vec<Self> {
        config
            .environments_in_order()
            .into_iter()
            .map(|(name, e)| EnvironmentView {
                name: name.clone(),
                label: e.label.clone(),
                description: e.description.clone(),
                baseline: *name == config.study.baseline,
            })
            .collect()
    }
}
