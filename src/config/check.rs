//! Cross-field checks of book.toml that serde cannot express, each located
//! at the value at fault.

use std::collections::BTreeMap;
use std::path::Path;

use super::metrics::{Candidates, Metric};
use super::{Config, MAX_DECIMALS};
use crate::diagnostic::{Diagnostic, Diagnostics, Location};

/// The warning for a study that names no author (`[book] authors`): its
/// paper would have a title block without a name, and its page no byline.
pub fn authorless(config: &Config) -> Option<Diagnostic> {
    if !config.book.authors.is_empty() {
        return None;
    }
    let at =
        config.at.or("book.authors", &config.at.or("book.title", &Location::file("book.toml")));
    let diagnostic = Diagnostic::new(at, "the study names no author")
        .hint("add them to [book], each with an affiliation: authors = [{ name = \"Ada Lovelace\", affiliation = \"University of London\" }]");
    Some(diagnostic)
}

/// Cross-field checks that serde cannot express.
pub(super) fn check(path: &Path, config: &Config) -> Result<(), Diagnostics> {
    let mut errors = Diagnostics::default();
    let file = Location::file(path);
    let envs = config.environments.keys().map(String::as_str);
    let without_baseline = config.history.is_some() && config.study.baseline.is_empty();
    if !without_baseline && !config.environments.contains_key(&config.study.baseline) {
        errors.push(
            Diagnostic::new(
                config.at.or("study.baseline", &file),
                format!("baseline `{}` is not an environment", config.study.baseline),
            )
            .hint(crate::diagnostic::suggest(&config.study.baseline, envs.clone())),
        );
    }
    if let Err(problem) = plain_pdf_name(&config.output.pdf) {
        let name =
            crate::diagnostic::excerpt(&config.output.pdf, crate::diagnostic::MAX_QUOTED_CHARS);
        errors.push(
            Diagnostic::new(
                config.at.or("output.pdf", &file),
                format!("the paper's file name `{name}` {problem}"),
            )
            .hint(
                "name the paper with a plain file name ending in `.pdf`, such as `paper.pdf`: \
                 the site writes its pages, style, script, data and charts under other names",
            ),
        );
    }
    metrics(config, &file, &mut errors);
    for (key, message) in config.history.iter().flat_map(super::History::problems) {
        let at = config.at.or(&format!("history.{key}"), &config.at.or("history.data", &file));
        errors.push(Diagnostic::new(at, message).hint("see docs/history.md"));
    }
    super::provenance::check(config, &file, &mut errors);
    presentation(config, &file, &mut errors);
    errors.into_result(())
}

/// The kinds of built-in caveats an author caveat may replace.
pub const CAVEAT_KINDS: [&str; 16] = [
    "single-node",
    "node-counts",
    "not-significant",
    "few-runs",
    "unmatched",
    "outliers",
    "estimators-disagree",
    "high-variation",
    "sign-change",
    "multiplicity",
    "excluded",
    "not-normal",
    "influential",
    "resolution",
    "selected-baseline",
    "sources",
];

/// Checks of what the page and the paper show: the practical threshold,
/// and the metrics and kinds the author's caveats name.
fn presentation(config: &Config, file: &Location, errors: &mut Diagnostics) {
    if let Some(text) = &config.study.negligible
        && super::percent(text).is_none_or(|x| x >= 1.0)
    {
        errors.push(
            Diagnostic::new(
                config.at.or("study.negligible", file),
                format!(
                    "`negligible = \"{}\"` is not a percentage below 100%",
                    text.escape_debug()
                ),
            )
            .hint("write the smallest difference that matters as a percentage, such as \"1%\""),
        );
    }
    let names = || config.metrics.iter().map(|m| m.name.as_str());
    for (i, caveat) in config.caveats.iter().enumerate() {
        let at = |key: &str| config.at.or(&format!("caveats.{i}.{key}"), file);
        if caveat.text.trim().is_empty() {
            errors.push(
                Diagnostic::new(at("text"), "a caveat without text")
                    .hint("write the caveat in plain words, or remove the `[[caveats]]` entry"),
            );
        }
        for (j, name) in caveat.metrics.iter().enumerate() {
            if !names().any(|n| n == name) {
                errors.push(
                    Diagnostic::new(
                        at(&format!("metrics.{j}")),
                        format!("caveat names no metric `{name}`"),
                    )
                    .hint(crate::diagnostic::suggest(name, names())),
                );
            }
        }
        for (j, kind) in caveat.replaces.iter().enumerate() {
            if !CAVEAT_KINDS.contains(&kind.as_str()) {
                errors.push(
                    Diagnostic::new(
                        at(&format!("replaces.{j}")),
                        format!("no built-in caveat `{kind}`"),
                    )
                    .hint(crate::diagnostic::suggest(kind, CAVEAT_KINDS)),
                );
            }
        }
    }
}

/// Characters a plain file name may not hold: folder separators, what
/// Windows refuses in a name, and what a link would read as other than a
/// file name (`:` makes `javascript:x.pdf` a URL scheme, `#` and `?` end the
/// path, `%` starts an escape).
const NOT_IN_A_FILE_NAME: [char; 11] = ['/', '\\', ':', '*', '?', '"', '<', '>', '|', '#', '%'];

/// Why `name` cannot be the paper's file name in the output folder, if it
/// cannot: it must be a plain file name (no folder, not hidden, none of
/// [`NOT_IN_A_FILE_NAME`], no control characters) ending in `.pdf`, so that it
/// can never be a file the site writes (`index.html`, `style.HASH.css`,
/// `data/stats.json`, `charts/ID.svg`), nor a link to anything but itself.
fn plain_pdf_name(name: &str) -> Result<(), &'static str> {
    let stem = name.len().checked_sub(4).and_then(|end| name.get(..end));
    let extension = stem.map(|stem| &name[stem.len()..]);
    if name.contains(['/', '\\']) {
        Err("is a path; the paper is written at the top of the output folder")
    } else if name.contains(NOT_IN_A_FILE_NAME) || name.chars().any(char::is_control) {
        Err(
            "holds a character that is not plain in a file name or a link (one of / \\ : * ? \" < > | # % or a control character)",
        )
    } else if !extension.is_some_and(|e| e.eq_ignore_ascii_case(".pdf")) {
        Err("does not end in `.pdf`, and could overwrite a file of the site")
    } else if stem.is_none_or(|stem| stem.is_empty() || stem.starts_with('.')) {
        Err("is hidden or has no name before `.pdf`")
    } else {
        Ok(())
    }
}

/// Checks of each metric: unique names, decimals shown, a declared candidate.
fn metrics(config: &Config, file: &Location, errors: &mut Diagnostics) {
    let mut names = BTreeMap::new();
    for metric in &config.metrics {
        let location = metric.location.clone().unwrap_or_else(|| file.clone());
        if names.insert(metric.name.as_str(), ()).is_some() {
            errors.push(
                Diagnostic::new(
                    location.clone(),
                    format!("metric `{}` is defined twice", metric.name),
                )
                .hint("give each metric a unique name"),
            );
        }
        if metric.decimals > MAX_DECIMALS {
            errors.push(
                Diagnostic::new(
                    metric.at.or("decimals", &location),
                    format!("metric `{}` asks for {} decimals", metric.name, metric.decimals),
                )
                .hint(format!("use at most {MAX_DECIMALS} decimals")),
            );
        }
        levels(config, metric, &location, errors);
    }
}

/// Checks of a metric's factor keys: levels of the environment column are
/// declared environments, and the keys that exclude each other are not
/// given together.
fn levels(config: &Config, metric: &Metric, location: &Location, errors: &mut Diagnostics) {
    let envs = config.environments.keys().map(String::as_str);
    let along_environments =
        metric.factor.as_ref().is_none_or(|f| *f == config.study.environment_column);
    let listed = match &metric.candidates {
        Some(Candidates::List(list)) => list.iter().map(|l| ("candidates", l)).collect(),
        _ => Vec::new(),
    };
    let given = [("candidate", metric.candidate.as_ref()), ("baseline", metric.baseline.as_ref())];
    let given = given.into_iter().filter_map(|(k, l)| l.map(|l| (k, l))).chain(listed);
    for (key, level) in given.filter(|_| along_environments) {
        let level = level.to_string();
        // `baseline = "best"`: chosen from the data (analysis::metrics::sides).
        let best = key == "baseline" && level == "best";
        if !config.environments.contains_key(&level) && !best {
            let message = format!("{key} `{level}` is not an environment");
            errors.push(
                Diagnostic::new(metric.at.or(key, location), message)
                    .hint(crate::diagnostic::suggest(&level, envs.clone())),
            );
        }
    }
    conflicts(config, metric, location, errors);
}

/// Errors for keys of a metric that exclude each other.
fn conflicts(config: &Config, metric: &Metric, location: &Location, errors: &mut Diagnostics) {
    let along_environments =
        metric.factor.as_ref().is_none_or(|f| *f == config.study.environment_column);
    let every = matches!(&metric.candidates, Some(Candidates::Every(l)) if l.to_string() == "*");
    let conflicts = [
        (
            "candidates",
            metric.candidates.is_some() && metric.candidate.is_some(),
            "give `candidate` or `candidates`, not both",
        ),
        (
            "candidates",
            matches!(metric.candidates, Some(Candidates::Every(_))) && !every,
            "write `candidates = \"*\"` for every level, or a list such as `[\"a\", \"b\"]`",
        ),
        (
            "each",
            metric.each && metric.per.is_none(),
            "`each` makes one comparison per value of `per`: set `per`",
        ),
        (
            "each",
            metric.each && metric.within_run,
            "`within-run` averages over `per`; drop one of `each` and `within-run`",
        ),
        (
            "baseline",
            metric.compare == super::Compare::Summary
                && matches!(&metric.baseline, Some(super::Level::Text(t)) if t == "best"),
            "a summary compares nothing, so it has no baseline to choose: drop `baseline`",
        ),
        (
            "interaction",
            metric.interaction.is_some() && metric.compare == super::Compare::Difference,
            "an interaction is a ratio of ratios; compare by `relative`, `slowdown` or `ratio`",
        ),
        (
            "within-run",
            metric.within_run && metric.compare == super::Compare::Difference,
            "a difference averages its configurations' differences: drop `within-run`",
        ),
        (
            "baseline",
            !along_environments && metric.baseline.is_none(),
            "a comparison along a factor other than the environment names its `baseline` level",
        ),
    ];
    for (key, _, hint) in conflicts.into_iter().filter(|c| c.1) {
        let message = format!("metric `{}`: `{key}` cannot be used here", metric.name);
        errors.push(Diagnostic::new(metric.at.or(key, location), message).hint(hint.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paper_is_a_plain_pdf_file_name() {
        for good in ["paper.pdf", "Paper 2025.PDF", "a.b.pdf", "étude.pdf"] {
            assert_eq!(plain_pdf_name(good), Ok(()), "{good}");
        }
        for bad in [
            "index.html",
            "style.css",
            "data/stats.json",
            "data/manifest.json",
            "charts/c.svg",
            "../paper.pdf",
            "sub\\paper.pdf",
            ".pdf",
            ".hidden.pdf",
            "pdf",
            "",
            "paper.pdf\n",
            "javascript:alert(1).pdf",
            "a#b.pdf",
            "a?.pdf",
            "100%.pdf",
            "paper",
            "é.pd",
        ] {
            assert!(plain_pdf_name(bad).is_err(), "{bad:?}");
        }
    }
}
