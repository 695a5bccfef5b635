//! `book.toml`: the study's configuration, parsed into typed structs.
//!
//! Every field's doc comment is the user documentation of that key; `docs/book-toml.md`
//! is generated from them by `tests/docs.rs`, which fails when the two drift apart.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::diagnostic::{Diagnostic, Diagnostics, Location};

/// The whole `book.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Title, authors and other facts about the write-up.
    pub book: Book,
    /// The environments compared and which one is the baseline.
    pub study: Study,
    /// The environments, keyed by the name used in the results' environment column.
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
    /// Name of the baseline environment; every comparison is candidate against it.
    pub baseline: String,
    /// Name of the results column that holds the environment of each run.
    #[serde(default = "default_environment_column")]
    pub environment_column: String,
    /// Name of the results column that holds the node count of each run; the
    /// Limitations section states which node counts the data cover.
    #[serde(default = "default_nodes_column")]
    pub nodes_column: String,
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

/// The schema of one results CSV.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Dataset {
    /// File name under `results/`; default `<name>.csv`.
    #[serde(default)]
    pub file: Option<String>,
    /// Required columns and their types: `text`, `integer`, `number`, `positive`
    /// (a number > 0, such as a time), `non-negative` or `percent` (0 to 100).
    #[serde(default)]
    pub columns: BTreeMap<String, ColumnType>,
    /// Columns whose values identify one run; two rows with the same values are an error.
    #[serde(default)]
    pub key: Vec<String>,
    /// Columns that define a configuration (besides the environment); statistics are
    /// computed per environment and configuration.
    #[serde(default)]
    pub group_by: Vec<String>,
    /// Derived columns, computed per row from an arithmetic expression over other
    /// columns, for example `cpu_seconds = "loop_time_s * procs * cpu_use_pct / 100"`.
    #[serde(default)]
    pub derive: BTreeMap<String, String>,
    /// Strong-scaling analysis: speedup and parallel efficiency.
    #[serde(default)]
    pub scaling: Option<Scaling>,
    /// Where each derived column's expression is in book.toml (filled in after parsing).
    #[serde(skip)]
    pub derive_at: BTreeMap<String, Location>,
}

/// The type a column's values must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ColumnType {
    /// Any text.
    Text,
    /// A whole number.
    Integer,
    /// A finite number.
    Number,
    /// A finite number greater than zero.
    Positive,
    /// A finite number, zero or more.
    NonNegative,
    /// A finite number from 0 to 100.
    Percent,
}

/// Which columns a scaling analysis uses.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scaling {
    /// Column holding the number of processes (the smallest count is the reference).
    pub by: String,
    /// Column measured, such as throughput or time.
    pub value: String,
    /// `higher` when the value is a throughput, `lower` when it is a time.
    pub better: Better,
}

/// Which direction of a value is an improvement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Better {
    /// Larger values are better.
    Higher,
    /// Smaller values are better.
    Lower,
}

/// A named statistic, computed from one results file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Metric {
    /// Identifier used in prose: `{{ stat(name="...") }}`.
    pub name: String,
    /// Short label for cards and tables.
    pub label: String,
    /// Definition in words, shown with the metric in the page and the paper.
    #[serde(default)]
    pub definition: Option<String>,
    /// Results file stem, such as `lammps`.
    pub data: String,
    /// Column (or derived column) whose values are compared.
    pub value: String,
    /// Row filter: `{ procs = 32 }`, a list `{ procs = [2, 4] }`, or a range
    /// `{ procs = { min = 2, max = 32 } }` (inclusive).
    #[serde(default, rename = "where")]
    pub filter: BTreeMap<String, FilterValue>,
    /// `relative` (candidate / baseline − 1), `slowdown` (1 − candidate / baseline),
    /// `ratio` (candidate / baseline) or `summary` (the value in one environment).
    #[serde(default)]
    pub compare: Compare,
    /// Environment compared against the baseline (or summarised); default: the one
    /// environment that is not the baseline.
    #[serde(default)]
    pub candidate: Option<String>,
    /// Compute the comparison per value of this column, then average over them.
    #[serde(default)]
    pub per: Option<String>,
    /// Whether a higher or a lower value of this metric is good news.
    pub better: Better,
    /// Unit of a `summary` metric, such as `timesteps/s`; comparisons are in %.
    #[serde(default)]
    pub unit: Option<String>,
    /// Decimals shown; default 1.
    #[serde(default = "default_decimals")]
    pub decimals: usize,
    /// Show the metric as a summary card on the page.
    #[serde(default)]
    pub headline: bool,
    /// Where the metric is defined in book.toml (filled in after parsing).
    #[serde(skip)]
    pub location: Option<Location>,
}

fn default_decimals() -> usize {
    1
}

/// How a metric compares environments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Compare {
    /// candidate / baseline − 1, in percent.
    #[default]
    Relative,
    /// 1 − candidate / baseline, in percent.
    Slowdown,
    /// candidate / baseline.
    Ratio,
    /// Mean of the candidate environment alone.
    Summary,
}

/// One condition of a metric's `where` filter.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum FilterValue {
    /// Equal to this number.
    Number(f64),
    /// Equal to this text.
    Text(String),
    /// Equal to any of these.
    AnyOf(Vec<FilterValue>),
    /// Within an inclusive range.
    Range(Range),
}

/// An inclusive numeric range; either end may be open.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Range {
    /// Smallest value kept.
    #[serde(default)]
    pub min: Option<f64>,
    /// Largest value kept.
    #[serde(default)]
    pub max: Option<f64>,
}

/// Output settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Output {
    /// Output folder, relative to the study root; `--out` overrides it.
    #[serde(default = "default_output_dir")]
    pub dir: PathBuf,
    /// File name of the PDF paper inside the output folder.
    #[serde(default = "default_pdf_name")]
    pub pdf: String,
}

impl Default for Output {
    fn default() -> Self {
        Self { dir: default_output_dir(), pdf: default_pdf_name() }
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
}

/// A PDF standard to conform to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
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
    let config: Config = toml::from_str(text).map_err(|err| {
        let offset = err.span().map_or(0, |span| span.start);
        let message = err.message().trim_end_matches('.').to_string();
        let message = message[..1].to_lowercase() + &message[1..];
        Diagnostic::new(Location::at_offset(path, text, offset), message)
            .hint("see docs/book-toml.md for every key book.toml accepts")
    })?;
    let mut config = config;
    for metric in &mut config.metrics {
        let offset = text.find(&format!("\"{}\"", metric.name)).unwrap_or(0);
        metric.location = Some(Location::at_offset(path, text, offset));
    }
    for dataset in config.data.values_mut() {
        for (name, expression) in &dataset.derive {
            let offset = text.find(&format!("\"{expression}\"")).map_or(0, |i| i + 1);
            dataset.derive_at.insert(name.clone(), Location::at_offset(path, text, offset));
        }
    }
    check(path, text, &config)?;
    Ok(config)
}

/// Cross-field checks that serde cannot express.
fn check(path: &Path, text: &str, config: &Config) -> Result<(), Diagnostics> {
    let mut errors = Diagnostics::default();
    let at = |needle: &str| {
        Location::at_offset(path, text, text.find(needle).unwrap_or(0))
    };
    let envs = config.environments.keys().map(String::as_str);
    if !config.environments.contains_key(&config.study.baseline) {
        errors.push(
            Diagnostic::new(at("baseline"), format!("baseline `{}` is not an environment", config.study.baseline))
                .hint(crate::diagnostic::suggest(&config.study.baseline, envs.clone())),
        );
    }
    let mut names = BTreeMap::new();
    for metric in &config.metrics {
        let location = at(&format!("\"{}\"", metric.name));
        if names.insert(metric.name.as_str(), ()).is_some() {
            errors.push(Diagnostic::new(location.clone(), format!("metric `{}` is defined twice", metric.name))
                .hint("give each metric a unique name"));
        }
        if let Some(candidate) = &metric.candidate
            && !config.environments.contains_key(candidate) {
                errors.push(Diagnostic::new(location, format!("candidate `{candidate}` is not an environment"))
                    .hint(crate::diagnostic::suggest(candidate, envs.clone())));
            }
    }
    errors.into_result(())
}

impl Config {
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
}
