//! Where the data come from: each results table's provenance (`[data.NAME]
//! provenance`) and the figures a study published (`[[published]]`), which
//! the build checks against what it computes.

use serde::{Deserialize, Serialize};

use super::Config;
pub use super::data::Provenance;
use crate::diagnostic::{Diagnostic, Diagnostics, Location};

/// A figure the study published (`[[published]]`), such as `metric =
/// "throughput_32", value = "+8.8%", source = "the study's page"`: the
/// build computes the metric and fails, at `value`, unless it prints the
/// same at the published figure's precision. A published figure is stated
/// as published, without the mark of data that were not measured.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Published {
    /// The metric that computes the figure, by name.
    pub metric: String,
    /// The figure as published: a number with its sign and unit, such as
    /// `"+8.8%"`, `"−2.4%"`, `"45.7 timesteps/s"` or `"500,000"`; its
    /// decimals are the precision it is checked at.
    pub value: String,
    /// What the figure is, in words; default: the metric's label.
    #[serde(default)]
    pub what: Option<String>,
    /// Where it was published: a citation, a page, a report.
    pub source: String,
}

/// A published figure read as a number: its value, decimals and unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// The number (a percentage is in percent: 8.8 for `+8.8%`).
    pub number: f64,
    /// Decimals written.
    pub decimals: usize,
    /// What follows the number, trimmed (`%`, `timesteps/s`, or empty).
    pub unit: String,
}

/// Read a published figure: an optional sign (`+`, `-`, `−`), digits with
/// optional thousands commas and decimals, then a unit; `None` when it
/// does not start with a number.
pub fn figure(text: &str) -> Option<Figure> {
    let text = text.trim();
    let (negative, rest) = match text.chars().next()? {
        '+' => (false, &text[1..]),
        '-' => (true, &text[1..]),
        '\u{2212}' => (true, &text['\u{2212}'.len_utf8()..]),
        _ => (false, text),
    };
    let end =
        rest.find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.')).unwrap_or(rest.len());
    let digits = rest[..end].replace(',', "");
    if !digits.starts_with(|c: char| c.is_ascii_digit()) || digits.ends_with('.') {
        return None;
    }
    let number: f64 = digits.parse().ok()?;
    let decimals = digits.split_once('.').map_or(0, |(_, d)| d.len());
    let unit = rest[end..].trim().to_string();
    Some(Figure { number: if negative { -number } else { number }, decimals, unit })
}

/// Checks of provenance in book.toml: a table that was not measured says
/// why, and each published figure names a metric and reads as a number.
pub(super) fn check(config: &Config, file: &Location, errors: &mut Diagnostics) {
    for (name, dataset) in &config.data {
        let note = dataset.provenance_note.as_deref().map(str::trim).unwrap_or_default();
        if !dataset.provenance.measured() && note.is_empty() {
            errors.push(
                Diagnostic::new(
                    dataset.at.or("provenance", file),
                    format!(
                        "the table `{name}` is {} but does not say how or why",
                        dataset.provenance.word()
                    ),
                )
                .hint(
                    "add `provenance-note = \"...\"`: a sentence on how the values were made, \
                     shown with every number derived from them",
                ),
            );
        }
    }
    let names = || config.metrics.iter().map(|m| m.name.as_str());
    for (i, figure) in config.published.iter().enumerate() {
        if !names().any(|n| n == figure.metric) {
            errors.push(
                Diagnostic::new(
                    config.at.or(&format!("published.{i}.metric"), file),
                    format!("published figure names no metric `{}`", figure.metric),
                )
                .hint(crate::diagnostic::suggest(&figure.metric, names())),
            );
        }
        if self::figure(&figure.value).is_none() {
            errors.push(
                Diagnostic::new(
                    config.at.or(&format!("published.{i}.value"), file),
                    format!("published figure `{}` is not a number", figure.value.escape_debug()),
                )
                .hint("write it as published, a number first: \"+8.8%\", \"45.7 timesteps/s\""),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Published figures read by hand: sign, thousands, decimals and unit.
    #[test]
    fn figures_read_as_published() {
        let f = |t: &str| figure(t).map(|f| (f.number, f.decimals, f.unit));
        assert_eq!(f("+8.8%"), Some((8.8, 1, "%".into())));
        assert_eq!(f("\u{2212}2.4%"), Some((-2.4, 1, "%".into())));
        assert_eq!(f("-6.9 %"), Some((-6.9, 1, "%".into())));
        assert_eq!(f("45.7 timesteps/s"), Some((45.7, 1, "timesteps/s".into())));
        assert_eq!(f("500,000"), Some((500_000.0, 0, String::new())));
        assert_eq!(f("7.60%"), Some((7.6, 2, "%".into())));
        assert_eq!(f("faster"), None);
        assert_eq!(f("8.%"), None);
        assert_eq!(f(""), None);
    }
}
