//! `book.toml`: the study's configuration, parsed into typed structs.
//!
//! Every field's doc comment is the user documentation of that key; `docs/book-toml.md`
//! is generated from them by `tests/docs.rs`, which fails when the two drift apart.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::diagnostic::{Diagnostic, Diagnostics, Location};

mod check;
mod data;
mod history;
mod metrics;
mod order;
mod provenance;
pub mod spans;

pub use check::{CAVEAT_KINDS, authorless};
pub use data::{Better, ColumnLabel, ColumnType, Dataset, Exclusion, Scaling};
pub use history::{Acknowledgement, GitCommit, History};
pub use metrics::{Average, Candidates, Compare, Estimator, FilterValue, Level, Metric, Range};
pub use order::sort_levels;
pub use provenance::{Figure, Provenance, Published, figure};

/// The whole `book.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Title, authors and other facts about the write-up.
    pub book: Book,
    /// The environments compared and which one is the baseline.
    #[serde(default)]
    pub study: Study,
    /// The environments, keyed by the name used in the results' environment column.
    #[serde(default)]
    pub environments: BTreeMap<String, Environment>,
    /// Schemas of results files, keyed by file stem (`lammps` for `results/lammps.csv`).
    /// A CSV without an entry here is still loaded, with its column types inferred.
    #[serde(default)]
    pub data: BTreeMap<String, Dataset>,
    /// Named statistics: the headline metrics and any number the prose cites.
    #[serde(default)]
    pub metrics: Vec<Metric>,
    /// Where and how the build writes its output.
    #[serde(default)]
    pub output: Output,
    /// Settings of the PDF paper.
    #[serde(default)]
    pub paper: Paper,
    /// The author's caveats about the setting, which the data cannot know:
    /// shown first among the caveats of the page and the paper's Limitations.
    #[serde(default)]
    pub caveats: Vec<AuthorCaveat>,
    /// Figures the study published (`[[published]]`), each checked against
    /// the metric that computes it: `metric = "throughput_32", value =
    /// "+8.8%", source = "the study's page"`.
    #[serde(default)]
    pub published: Vec<Published>,
    /// A history across versions (`[history]`), in which change points are
    /// found and published as claims (docs/history.md).
    #[serde(default)]
    pub history: Option<History>,
    /// Where each value is in book.toml (filled in after parsing).
    #[serde(skip)]
    pub at: spans::Locations,
}

/// Facts about the write-up itself.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Book {
    /// Title of the study, used by the page and the paper.
    pub title: String,
    /// One-line subtitle shown under the title.
    #[serde(default)]
    pub subtitle: Option<String>,
    /// Authors, in order.
    #[serde(default)]
    pub authors: Vec<Author>,
    /// Date of the write-up, `YYYY-MM-DD`; the paper's date and, unless
    /// `SOURCE_DATE_EPOCH` is set, its creation date.
    #[serde(default)]
    pub date: Option<String>,
    /// Abstract of the paper; when absent the paper has none.
    #[serde(default, rename = "abstract")]
    pub summary: Option<String>,
    /// Keywords, written into the PDF's metadata.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Language of the text, as a BCP 47 tag (`en`, `de`), for the page and the paper.
    #[serde(default = "default_language")]
    pub language: String,
    /// When the study ran, shown under the title (`Spring 2025`).
    #[serde(default)]
    pub period: Option<String>,
    /// Where or why it ran, shown under the title.
    #[serde(default)]
    pub context: Option<String>,
    /// The author's role, shown under the title.
    #[serde(default)]
    pub role: Option<String>,
    /// Who took part, shown under the title.
    #[serde(default)]
    pub team: Option<String>,
    /// Tools used, shown as tags under the title.
    #[serde(default)]
    pub tools: Vec<String>,
    /// The answer to the study's question in one paragraph, shown above the
    /// headline cards; Markdown with inline statistics
    /// (`{{ stat(name="...", field="...") }}`).
    #[serde(default)]
    pub answer: Option<String>,
}

fn default_language() -> String {
    "en".to_string()
}

/// One author of the study.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Author {
    /// Full name.
    pub name: String,
    /// Affiliation, printed under the name in the paper.
    #[serde(default)]
    pub affiliation: Option<String>,
}

/// What is compared.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Study {
    /// Name of the baseline environment; every comparison is candidate
    /// against it. Required, but for a study with a `[history]`.
    #[serde(default)]
    pub baseline: String,
    /// Name of the results column that holds the environment of each run.
    #[serde(default = "default_environment_column")]
    pub environment_column: String,
    /// Name of the results column that holds the node count of each run; the
    /// Limitations section states which node counts the data cover. Its values
    /// are whole numbers of 1 or more (an empty cell: not recorded).
    #[serde(default = "default_nodes_column")]
    pub nodes_column: String,
    /// The results columns that describe a configuration rather than
    /// measure it (`compressor`, `level`, `size`), besides the environment
    /// column and each file's `key` and `group-by`: metrics compare along
    /// them, and no summary or comparison is made of them.
    #[serde(default)]
    pub factors: Vec<String>,
    /// Where the data come from, in words, for every table: `"the published raw
    /// logs of ..., imported unchanged"`. Shown beside the title of the page, in
    /// the paper's abstract area and in its data-availability statement. Data
    /// that were not measured say so per table instead (`[data.NAME]
    /// provenance`), which marks every number derived from them.
    #[serde(default)]
    pub data: Option<String>,
    /// The smallest difference that matters in practice, as a percentage such as
    /// `"1%"`: a comparison whose whole 95% interval lies within ±1% of no change
    /// is negligible, whatever its p-value; one whose interval holds both no
    /// change and differences beyond it is inconclusive (docs/methods.md,
    /// Verdicts). A `difference` is held against it as a share of the baseline.
    #[serde(default)]
    pub negligible: Option<String>,
}

/// A caveat the author states about the setting (`[[caveats]]`), such as
/// `text = "Every run used one node: ..."`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthorCaveat {
    /// The caveat in plain words (no Markdown), one or two sentences.
    pub text: String,
    /// Names of the metrics whose claims it qualifies; default: every headline metric.
    #[serde(default)]
    pub metrics: Vec<String>,
    /// Built-in caveats this one says better, by kind (`single-node`,
    /// `node-counts`, `few-runs`, ...): they move to the diagnostics, so that
    /// nothing is said twice.
    #[serde(default)]
    pub replaces: Vec<String>,
}

impl Default for Study {
    fn default() -> Self {
        Self {
            baseline: String::new(),
            environment_column: default_environment_column(),
            nodes_column: default_nodes_column(),
            factors: Vec::new(),
            data: None,
            negligible: None,
        }
    }
}

impl Study {
    /// `negligible` as a fraction (`"1%"` is 0.01), if it is set and valid.
    pub fn negligible(&self) -> Option<f64> {
        self.negligible.as_deref().and_then(percent)
    }
}

/// `"1%"`, `"0.5 %"` as a fraction; `None` when it is not a finite, non-negative percentage.
pub fn percent(text: &str) -> Option<f64> {
    let number = text.trim().strip_suffix('%')?.trim();
    number.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0).map(|x| x / 100.0)
}

fn default_nodes_column() -> String {
    "nodes".to_string()
}

fn default_environment_column() -> String {
    "environment".to_string()
}

/// One environment the benchmarks ran in.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Environment {
    /// Human-readable name, for legends and tables.
    pub label: String,
    /// What the environment is: software stack, network, versions.
    #[serde(default)]
    pub description: Option<String>,
}

/// Output settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Output {
    /// Output folder, relative to the study root; `--out` overrides it.
    #[serde(default = "default_output_dir")]
    pub dir: PathBuf,
    /// File name of the PDF paper inside the output folder: a plain file name
    /// ending in `.pdf`, such as `paper.pdf`, without a folder, `:`, `#`, `%`,
    /// `?` or another character Windows refuses in a name, so that it can
    /// never overwrite a page, an asset or a data file of the site.
    #[serde(default = "default_pdf_name")]
    pub pdf: String,
    /// Public URL of the site, such as `https://user.github.io/study/`; used
    /// for canonical links only (every link in the site is relative).
    /// `--base-url` overrides it.
    #[serde(default, rename = "base-url")]
    pub base_url: Option<String>,
    /// Pass raw HTML in content through to the page. Off by default: raw HTML is
    /// shown as text, so that content can never run a script in the page.
    #[serde(default, rename = "raw-html")]
    pub raw_html: bool,
    /// Most megabytes of results files a build reads (2048 by default);
    /// beyond it, the build stops with an error before reading any. A build
    /// holds the results in memory: about three bytes per byte of CSV at its
    /// peak; a Parquet file is read whole, and so are its columns (8 bytes
    /// per number, 4 per text value, per row). Results larger than one
    /// machine belong in an engine such as DuckDB or Spark, aggregated or
    /// sampled to the runs the study compares and handed over as Parquet
    /// ([Results too big for one machine](big-results.md)).
    #[serde(default = "default_max_results_mb", rename = "max-results-mb")]
    pub max_results_mb: u64,
    /// The syntax of the formulas in content, `$…$` in line and `$$…$$`
    /// displayed: `latex` (the default), as GitHub, pandoc, Quarto and
    /// Jupyter read them (`$\frac{T_1}{T_p}$`), or `typst`, Typst's own
    /// math (`$T_1 / T_p$`). See docs/writing.md.
    #[serde(default)]
    pub math: MathSyntax,
}

fn default_max_results_mb() -> u64 {
    2048
}

impl Default for Output {
    fn default() -> Self {
        Self {
            dir: default_output_dir(),
            pdf: default_pdf_name(),
            base_url: None,
            raw_html: false,
            max_results_mb: default_max_results_mb(),
            math: MathSyntax::default(),
        }
    }
}

fn default_output_dir() -> PathBuf {
    PathBuf::from("site")
}

fn default_pdf_name() -> String {
    "paper.pdf".to_string()
}

/// Paper settings.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Paper {
    /// `a4` or `us-letter`.
    #[serde(default)]
    pub size: PaperSize,
    /// PDF standard the paper conforms to: `ua-1` (tagged and accessible, the
    /// default), `a-2b` (archival) or `none` (tagged, without a standard).
    #[serde(default)]
    pub standard: PdfStandard,
    /// Font families to typeset the text in, tried in order before the built-in
    /// ones (Libertinus Serif, then Noto Naskh Arabic, WenQuanYi Micro Hei and
    /// Noto Emoji for other scripts). Put the font files in the study's `fonts/`
    /// folder (.ttf, .otf, .ttc); they are embedded in the PDF. For a Chinese
    /// paper that keeps Latin text in Libertinus:
    /// `fonts = ["Libertinus Serif", "Noto Serif CJK SC"]`.
    #[serde(default)]
    pub fonts: Vec<String>,
}

/// A PDF standard to conform to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PdfStandard {
    /// PDF/UA-1: universally accessible, with tags and alt texts.
    #[default]
    Ua1,
    /// PDF/A-2b: archival.
    A2b,
    /// No standard (still tagged).
    None,
}

/// The syntax of the formulas in content.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MathSyntax {
    /// LaTeX math: converted for the paper by the mitex crate and written
    /// into the page as MathML at build time (no script).
    #[default]
    Latex,
    /// Typst's math syntax: typeset by Typst in both outputs (an SVG in the page).
    Typst,
}

/// Page size of the paper.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PaperSize {
    /// ISO A4.
    #[default]
    A4,
    /// US Letter.
    UsLetter,
}

/// Parse `book.toml`'s text; `path` names it in errors.
pub fn parse(path: &Path, text: &str) -> Result<Config, Diagnostics> {
    let (mut config, spans): (Config, spans::Spans) = spans::Spans::parse(text).map_err(|err| {
        let offset = err.span().map_or(0, |span| span.start);
        let message = crate::diagnostic::lowercase_first(err.message().trim_end_matches('.'));
        Diagnostic::new(Location::at_offset(path, text, offset), message)
            .hint("see docs/book-toml.md for every key book.toml accepts")
    })?;
    let locate = |span: std::ops::Range<usize>| Location::at_offset(path, text, span.start);
    config.at = spans.locations("", locate);
    for (i, metric) in config.metrics.iter_mut().enumerate() {
        metric.at = spans.locations(&format!("metrics.{i}"), locate);
        metric.location = metric.at.get("name").cloned();
    }
    for (name, dataset) in &mut config.data {
        dataset.at = spans.locations(&format!("data.{name}"), locate);
        dataset.keys_at = spans.key_locations(&format!("data.{name}"), locate);
        let at = spans.locations(&format!("data.{name}.derive"), locate);
        let keys = spans.key_locations(&format!("data.{name}.derive"), locate);
        for expression in dataset.derive.keys() {
            if let Some(quote) = at.get(expression) {
                // Past the opening quote: errors point into the expression.
                let location = Location::new(path, quote.line, quote.column + 1);
                dataset.derive_at.insert(expression.clone(), location);
            }
            if let Some(key) = keys.get(expression) {
                dataset.derive_key_at.insert(expression.clone(), key.clone());
            }
        }
    }
    check::check(path, &config)?;
    Ok(config)
}

/// Most decimals a metric may show.
pub const MAX_DECIMALS: usize = 12;

impl Config {
    /// The environments in the order book.toml declares them (by where
    /// their labels are written), not by name.
    pub fn environments_in_order(&self) -> Vec<(&String, &Environment)> {
        let mut order: Vec<(&String, &Environment)> = self.environments.iter().collect();
        order.sort_by_key(|(name, _)| {
            self.at
                .get(&format!("environments.{name}.label"))
                .map_or((usize::MAX, usize::MAX), |at| (at.line, at.column))
        });
        order
    }

    /// The output folder, resolved against `root`.
    pub fn output_dir(&self, root: &Path) -> PathBuf {
        root.join(&self.output.dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
[book]
title = "T"
[study]
baseline = "a"
[environments.a]
label = "A"
"#;

    #[test]
    fn parses_minimal_config_with_defaults() {
        let config = parse(Path::new("book.toml"), MINIMAL).unwrap();
        assert_eq!(config.output.dir, PathBuf::from("site"));
        assert_eq!(config.study.environment_column, "environment");
        assert_eq!(config.paper.size, PaperSize::A4);
    }

    #[test]
    fn unknown_key_is_located() {
        let text = MINIMAL.replace("title = \"T\"", "title = \"T\"\ntitel = \"x\"");
        let err = parse(Path::new("book.toml"), &text).unwrap_err().to_string();
        assert!(err.starts_with("book.toml:4:1: unknown field `titel`"), "{err}");
    }

    #[test]
    fn wrong_type_is_located() {
        let text = MINIMAL.replace("title = \"T\"", "title = 3");
        let err = parse(Path::new("book.toml"), &text).unwrap_err().to_string();
        assert!(err.starts_with("book.toml:3:9: invalid type"), "{err}");
    }

    #[test]
    fn unknown_baseline_suggests_environment() {
        let text = MINIMAL.replace("baseline = \"a\"", "baseline = \"b\"");
        let err = parse(Path::new("book.toml"), &text).unwrap_err().to_string();
        assert!(err.contains("baseline `b` is not an environment"), "{err}");
    }

    /// Names repeated elsewhere in the file: every error is at its own value
    /// (lines counted by hand), not at the first occurrence of the text.
    #[test]
    fn repeated_names_are_located_at_the_right_value() {
        let text = format!(
            "{MINIMAL}[data.runs]\nderive = {{ rate = \"1 / t\" }}\n[data.other]\nderive = {{ rate = \"1 / t\" }}\n\
             [[metrics]]\nname = \"m\"\nlabel = \"m\"\ndata = \"runs\"\nvalue = \"t\"\nbetter = \"lower\"\n\
             [[metrics]]\nname = \"m\"\nlabel = \"m\"\ndata = \"runs\"\nvalue = \"t\"\nbetter = \"lower\"\ncandidate = \"baseline\"\n"
        );
        let config = parse(Path::new("book.toml"), &text.replace("candidate = \"baseline\"\n", ""));
        let err = config.unwrap_err().to_string();
        assert!(err.starts_with("book.toml:19:8: metric `m` is defined twice"), "{err}");
        let err = parse(Path::new("book.toml"), &text).unwrap_err().to_string();
        assert!(
            err.contains("book.toml:24:13: candidate `baseline` is not an environment"),
            "{err}"
        );
        let text = text
            .replacen("name = \"m\"", "name = \"n\"", 1)
            .replace("candidate = \"baseline\"\n", "");
        let config = parse(Path::new("book.toml"), &text).unwrap();
        assert_eq!(config.data["other"].derive_at["rate"].to_string(), "book.toml:11:20");
        assert_eq!(config.data["runs"].derive_at["rate"].to_string(), "book.toml:9:20");
        assert_eq!(config.metrics[1].at.get("value").unwrap().to_string(), "book.toml:22:9");
    }
}
