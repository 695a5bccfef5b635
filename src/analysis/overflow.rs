//! The last check of the analysis stage: no number that is not finite (NaN,
//! an infinity) leaves it for the page, the paper or stats.json. Cells are
//! finite and derived values are checked row by row, so what is caught here
//! is arithmetic past the range of a double (a sum or a square of values
//! near 1e308) or a division the earlier checks did not foresee; each is an
//! error at what produced it.

use super::statistics::stats::Summary;
use super::{Analysis, Comparison, Group, ScalingPoint};
use crate::config::Config;
use crate::diagnostic::{Diagnostic, Diagnostics, Location};
use crate::results::ResultSet;

/// Most errors reported; the rest are counted.
const MAX_SHOWN: usize = 50;

/// An error for each statistic of `analysis` holding a number that is not
/// finite, at its metric, its column, or its scaling analysis in book.toml.
pub(super) fn check(
    analysis: &Analysis,
    results: &ResultSet,
    config: &Config,
) -> Result<(), Diagnostics> {
    let mut errors = Vec::new();
    for value in &analysis.metrics {
        let mut numbers = vec![("value", value.value), ("candidate's mean", value.candidate.mean)];
        numbers.extend(interval(value.ci));
        numbers.extend(value.p_value.map(|p| ("p-value", p)));
        numbers.extend(value.baseline.as_ref().map(|b| ("baseline's mean", b.mean)));
        if let Some((what, number)) = first_bad(&numbers) {
            let metric = config.metrics.iter().find(|m| m.name == value.name);
            let fallback = metric.and_then(|m| m.location.clone());
            let fallback = fallback.unwrap_or_else(|| Location::file("book.toml"));
            let at = metric.map_or_else(|| fallback.clone(), |m| m.at.or("value", &fallback));
            errors.push(
                Diagnostic::new(at, format!("metric `{}`: its {what} is {number}", value.name))
                    .hint(OVERFLOW_HINT),
            );
        }
    }
    analysis.groups.iter().for_each(|g| errors.extend(group(g, results, config)));
    analysis.comparisons.iter().for_each(|c| errors.extend(comparison(c, results, config)));
    analysis.scaling.iter().for_each(|p| errors.extend(scaling(p, results, config)));
    let mut diagnostics = Diagnostics::default();
    let more = errors.len().saturating_sub(MAX_SHOWN);
    errors.into_iter().take(MAX_SHOWN).for_each(|e| diagnostics.push(e));
    if more > 0 {
        let at = Location::file("book.toml");
        diagnostics.push(Diagnostic::new(at, format!("{more} more statistics are not finite")));
    }
    diagnostics.into_result(())
}

const OVERFLOW_HINT: &str = "the values overflow the range of a double (about 1.8e308) \
     when summed, squared or divided: check them, or rescale the column with a derived column";

/// The first of `numbers` that is not finite, as (what, its text).
fn first_bad<'a>(numbers: &[(&'a str, f64)]) -> Option<(&'a str, String)> {
    numbers.iter().find(|(_, n)| !n.is_finite()).map(|(what, n)| {
        let text = if n.is_nan() { "not a number (NaN)".into() } else { format!("{n}") };
        (*what, text)
    })
}

/// The ends of an interval, to check.
fn interval(ci: Option<[f64; 2]>) -> Vec<(&'static str, f64)> {
    ci.map_or_else(Vec::new, |[lo, hi]| {
        vec![("lower end of the 95% CI", lo), ("upper end of the 95% CI", hi)]
    })
}

/// The numbers of a summary, to check.
fn summary(s: &Summary) -> Vec<(&'static str, f64)> {
    let mut numbers = vec![("mean", s.mean), ("median", s.median)];
    numbers.extend(s.sd.map(|sd| ("standard deviation", sd)));
    numbers.extend(interval(s.ci));
    numbers
}

/// Where the column `column` of the results file `file` comes from: its
/// derived expression in book.toml, or the header of the file.
fn column_origin(file: &str, column: &str, results: &ResultSet, config: &Config) -> Location {
    let table = results.tables.values().find(|t| t.path.display().to_string() == file);
    let derived = table
        .and_then(|t| config.data.get(&t.name))
        .and_then(|dataset| dataset.derive_at.get(column));
    derived.cloned().unwrap_or_else(|| Location::new(file, 1, 0))
}

fn group(g: &Group, results: &ResultSet, config: &Config) -> Option<Diagnostic> {
    let (what, number) = first_bad(&summary(&g.summary))?;
    let at = column_origin(&g.inputs.file, &g.inputs.column, results, config);
    let message = format!(
        "column `{}` of {}: the {what} of {} is {number}",
        g.inputs.column, g.inputs.file, g.inputs.filter
    );
    Some(Diagnostic::new(at, message).hint(OVERFLOW_HINT))
}

fn comparison(c: &Comparison, results: &ResultSet, config: &Config) -> Option<Diagnostic> {
    let mut numbers = vec![
        ("ratio", c.ratio),
        ("relative difference", c.relative),
        ("baseline's mean", c.baseline.mean),
        ("candidate's mean", c.candidate.mean),
    ];
    numbers.extend(interval(c.ci));
    numbers.extend(c.p_value.map(|p| ("p-value", p)));
    let (what, number) = first_bad(&numbers)?;
    let at = column_origin(&c.inputs.file, &c.inputs.column, results, config);
    let message = format!(
        "column `{}` of {}: the {what} of `{}` against `{}` ({}) is {number}",
        c.inputs.column,
        c.inputs.file,
        c.candidate.environment,
        c.baseline.environment,
        c.inputs.filter
    );
    Some(Diagnostic::new(at, message).hint(OVERFLOW_HINT))
}

fn scaling(p: &ScalingPoint, results: &ResultSet, config: &Config) -> Option<Diagnostic> {
    let numbers = [
        ("process count", p.procs),
        ("mean", p.mean),
        ("speedup", p.speedup),
        ("efficiency", p.efficiency),
    ];
    let (what, number) = first_bad(&numbers)?;
    let table = results.tables.values().find(|t| t.path.display().to_string() == p.file);
    let path = table.map(|t| format!("data.{}.scaling.value", t.name)).unwrap_or_default();
    let at = config.at.or(&path, &Location::file("book.toml"));
    let env = p.environment.as_ref().map(|e| format!(" of `{e}`")).unwrap_or_default();
    let procs = crate::format::plain(p.procs);
    let message =
        format!("scaling of {}: the {what}{env} at {procs} processes is {number}", p.file);
    Some(Diagnostic::new(at, message).hint(OVERFLOW_HINT))
}
