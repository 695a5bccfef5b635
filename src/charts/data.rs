//! The numbers behind a chart: rows selected, grouped and aggregated into a few
//! points per series, whatever the number of result rows.

use std::collections::{BTreeMap, BTreeSet};

use super::kinds::Runs;
use super::numbers::{ChartData, Samples, Series};
use super::spec::ChartSpec;
use crate::analysis::filter::{self, Grouped};
use crate::analysis::stats::Summary;
use crate::config::Config;
use crate::diagnostic::{Diagnostic, suggest};
use crate::results::{ResultSet, Table, Values};

/// Compute the data of `spec` from `results`.
pub fn compute(
    spec: &ChartSpec,
    results: &ResultSet,
    config: &Config,
) -> Result<ChartData, Diagnostic> {
    let series_column = spec.series.as_deref().unwrap_or(config.study.environment_column.as_str());
    let table = plotted_table(spec, results, series_column)?;
    let groups = selected_groups(spec, table, series_column)?;
    check_log_scales(spec, table).map_err(|(key, m)| key_error(spec, key, m, "a logarithmic scale needs values > 0; filter them out with `where`, or use a linear scale".into()))?;
    check_empty_x(spec, table)?;
    let mut models = BTreeSet::new();
    let summaries = summaries(&groups);
    let runs = Runs { summaries: &summaries, groups: &groups, config };
    let series = series(spec, &runs, &mut models)?;
    let ideal = spec.ideal.then(|| ideal(spec, &series, config)).flatten();
    let ratio = super::ratio::compute(spec, &groups, &series, config)?;
    let data = ChartData {
        ideal,
        ratio,
        models,
        x_label: axis_label(spec.x_label.as_deref(), &spec.x, spec.x_unit.as_deref()),
        y_label: y_label(spec),
        series,
    };
    super::finite::check(spec, &data)?;
    Ok(data)
}

/// An error at `x` for the first selected row whose x is empty: it has no place on the axis.
fn check_empty_x(spec: &ChartSpec, table: &Table) -> Result<(), Diagnostic> {
    let Some(row) = filter::first_row(table, &spec.filter, &spec.x, f64::is_nan) else {
        return Ok(());
    };
    Err(key_error(
        spec,
        "x",
        format!(
            "`{}` is empty on {} of {}, and a point needs its x",
            spec.x,
            table.place(row),
            table.path.display()
        ),
        "fill in the cell, or leave such rows out with `where`".into(),
    ))
}

/// A problem with the chart as a whole, at its directive.
pub(super) fn chart_error(spec: &ChartSpec, message: String, hint: String) -> Diagnostic {
    Diagnostic::new(spec.at(), format!("chart `{}`: {message}", spec.id)).hint(hint)
}

/// A problem with the chart's `key`, at its value in the directive.
pub(super) fn key_error(spec: &ChartSpec, key: &str, message: String, hint: String) -> Diagnostic {
    Diagnostic::new(spec.key_location(key), format!("chart `{}`: {message}", spec.id)).hint(hint)
}

/// The chart's data file, checked to have its x, y and series columns, x and y numeric.
fn plotted_table<'r>(
    spec: &ChartSpec,
    results: &'r ResultSet,
    series_column: &str,
) -> Result<&'r Table, Diagnostic> {
    let stem = spec.data.trim_end_matches(".csv").trim_end_matches(".parquet");
    let table = results.tables.get(stem).ok_or_else(|| {
        key_error(
            spec,
            "data",
            format!("unknown data file `{}`", spec.data),
            suggest(stem, results.tables.keys().map(String::as_str)),
        )
    })?;
    for (role, column) in
        [("x", spec.x.as_str()), ("y", spec.y.as_str()), ("series", series_column)]
    {
        match table.column(column).map(|c| &c.values) {
            None => {
                return Err(key_error(
                    spec,
                    role,
                    format!("unknown {role} column `{column}` in {}", table.path.display()),
                    suggest(column, table.column_names()),
                ));
            }
            Some(Values::Text(_)) if role != "series" => {
                return Err(key_error(
                    spec,
                    role,
                    format!("{role} column `{column}` is not numeric"),
                    "plot a numeric column; text columns can be a `series`".into(),
                ));
            }
            _ => {}
        }
    }
    Ok(table)
}

/// The rows that pass the chart's `where`, grouped by series and x; an error
/// when none pass.
fn selected_groups(
    spec: &ChartSpec,
    table: &Table,
    series_column: &str,
) -> Result<Vec<Grouped>, Diagnostic> {
    let groups =
        filter::aggregate(table, &spec.filter, &[series_column, &spec.x], &[spec.y.as_str()])
            .map_err(|c| {
                key_error(
                    spec,
                    "where",
                    format!("unknown column `{c}` in `where`"),
                    suggest(&c, table.column_names()),
                )
            })?;
    if groups.is_empty() {
        return Err(chart_error(
            spec,
            format!("no rows left after `where` ({})", filter::describe(&spec.filter)),
            "check the filter against the values in the file".into(),
        ));
    }
    Ok(groups)
}

/// The points of every series as the chart's kind plots them, each series
/// with its environment's label and style.
/// The models of the intervals the chart draws go into `models`.
fn series(
    spec: &ChartSpec,
    runs: &Runs,
    models: &mut BTreeSet<&'static str>,
) -> Result<Vec<Series>, Diagnostic> {
    let config = runs.config;
    let styles = style_order(config, runs.summaries);
    let label = |key: &str| {
        config.environments.get(key).map_or_else(|| key.to_string(), |e| e.label.clone())
    };
    let series = spec.kind.chart().series(spec, runs, models)?;
    let mut series: Vec<Series> = series
        .into_iter()
        .map(|(key, points)| Series {
            label: label(&key),
            style: styles.get(&key).copied().unwrap_or(0),
            key,
            points,
        })
        .collect();
    series.sort_by_key(|s| s.style);
    Ok(series)
}

/// Summarise `y` in every group, on every core.
fn summaries(groups: &[Grouped]) -> Samples {
    use rayon::prelude::*;
    let summaries: Vec<Option<Summary>> =
        groups.par_iter().map(|g| Summary::of_sample(&g.samples[0])).collect();
    let mut out: Samples = BTreeMap::new();
    for (group, summary) in groups.iter().zip(summaries) {
        let series = out.entry(group.key[0].to_string()).or_default();
        if let Some(summary) = summary {
            series.insert(group.key[1].clone(), summary);
        }
    }
    out
}

/// Environments keep their book.toml order (and colour) in every chart: the
/// order their labels are written in, then series book.toml does not declare.
fn style_order(config: &Config, samples: &Samples) -> BTreeMap<String, usize> {
    let mut order: Vec<String> =
        config.environments_in_order().into_iter().map(|(k, _)| k.clone()).collect();
    order.extend(samples.keys().filter(|k| !config.environments.contains_key(*k)).cloned());
    order.into_iter().enumerate().map(|(i, k)| (k, i)).collect()
}

/// Ideal scaling from the smallest x of the baseline series (or the first).
fn ideal(spec: &ChartSpec, series: &[Series], config: &Config) -> Option<Vec<(f64, f64)>> {
    let reference = series.iter().find(|s| s.key == config.study.baseline).or(series.first())?;
    spec.kind.chart().ideal(&reference.points)
}

/// The scale's key and an error naming the first selected row whose value a logarithmic
/// axis cannot show (zero or less); y values are checked here on line charts only.
fn check_log_scales(spec: &ChartSpec, table: &Table) -> Result<(), (&'static str, String)> {
    for (scale, column, axis) in [(spec.x_scale, &spec.x, "x"), (spec.y_scale, &spec.y, "y")] {
        if !scale.is_log() || (axis == "y" && !spec.kind.chart().measures_y()) {
            continue;
        }
        if let Some(row) = filter::first_row(table, &spec.filter, column, |v| v <= 0.0) {
            let value = table.column(column).map(|c| c.values.text_at(row)).unwrap_or_default();
            let message = format!(
                "the log {axis} axis cannot show `{column}` = {value} ({})",
                table.location(row, 0)
            );
            return Err((if axis == "x" { "x-scale" } else { "y-scale" }, message));
        }
    }
    Ok(())
}

/// An axis label: as written, else the column with its unit.
fn axis_label(label: Option<&str>, column: &str, unit: Option<&str>) -> String {
    match (label, unit) {
        (Some(label), _) => label.to_string(),
        (None, Some("bytes")) => format!("{column} (bytes)"),
        (None, Some(unit)) => format!("{column} ({unit})"),
        (None, None) => column.to_string(),
    }
}

/// The y axis label: as written, else what the chart's kind plots.
fn y_label(spec: &ChartSpec) -> String {
    spec.y_label.clone().unwrap_or_else(|| spec.kind.chart().y_label(spec))
}
