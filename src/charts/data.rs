//! The numbers behind a chart: rows selected, grouped and aggregated into a few
//! points per series, whatever the number of result rows; and their last
//! check: every point, interval and ideal line is finite, so that no NaN or
//! infinity reaches the SVG, its data table or its CSV download, and there
//! are few enough points to draw.

use std::collections::{BTreeMap, BTreeSet};

use super::numbers::{ChartData, Runs, Samples, Series};
use super::spec::ChartSpec;
use crate::analysis::Group;
use crate::analysis::queries::filter::{self, Grouped, KeyPart};
use crate::analysis::statistics::stats::Summary;
use crate::config::Config;
use crate::diagnostic::{Diagnostic, suggest};
use crate::results::{ResultSet, Table, Values};

/// Compute the data of `spec` from `results`, drawing the summaries of
/// the statistics' `known` groups where the chart's groups are theirs.
pub fn compute(
    spec: &ChartSpec,
    results: &ResultSet,
    known: &[Group],
    config: &Config,
) -> Result<ChartData, Diagnostic> {
    let series_column = spec.series.as_deref().unwrap_or(config.study.environment_column.as_str());
    let table = plotted_table(spec, results, series_column)?;
    // Without x, each series is its own category of x.
    let x_column = spec.x_column().unwrap_or(series_column);
    let groups = selected_groups(spec, table, [series_column, x_column])?;
    check_pooled(spec, table, config, [series_column, x_column])?;
    check_log_scales(spec, table).map_err(|(key, m)| spec.key_error(key, m, "a logarithmic scale needs values > 0; filter them out with `where`, or use a linear scale".into()))?;
    check_empty_x(spec, table)?;
    let mut models = BTreeSet::new();
    let known = Known::of(spec, table, known, [series_column, x_column], config);
    let summaries = summaries(&groups, &known);
    let runs = Runs { summaries: &summaries, groups: &groups, config };
    let series = series(spec, &runs, &mut models)?;
    let x_levels = spec.kind.chart().x_levels(spec, &runs);
    let ideal = spec.ideal.then(|| ideal(spec, &series, config)).flatten();
    let ratio = super::ratio::compute(spec, &groups, &series, config)?;
    let data = ChartData {
        ideal,
        ratio,
        models,
        x_label: axis_label(spec.x_label.as_deref(), x_column, spec.x_unit.as_deref()),
        y_label: y_label(spec),
        series,
        x_levels,
        measured: true,
        versions: None,
    };
    check_finite(spec, &data)?;
    Ok(data)
}

/// The factors of the chart's file: the study's `factors`, the file's
/// `group-by` and the environment column, those the file has.
fn factors<'c>(config: &'c Config, spec: &ChartSpec, table: &Table) -> Vec<&'c str> {
    let stem = spec.data.trim_end_matches(".csv").trim_end_matches(".parquet");
    let group_by = config.data.get(stem).map(|d| d.group_by.as_slice()).unwrap_or_default();
    let env = std::iter::once(&config.study.environment_column);
    let mut factors: Vec<&str> = (config.study.factors.iter().chain(group_by).chain(env))
        .map(String::as_str)
        .filter(|f| table.column(f).is_some())
        .collect();
    factors.sort_unstable();
    factors.dedup();
    factors
}

/// An error at the directive when one point (box, bar) would pool the runs
/// of several levels of a factor that is neither on an axis, nor the
/// series (`by`: series and x), nor fixed by `where`: it names the factor,
/// its levels and the fixes.
fn check_pooled(
    spec: &ChartSpec,
    table: &Table,
    config: &Config,
    by: [&str; 2],
) -> Result<(), Diagnostic> {
    for factor in factors(config, spec, table).into_iter().filter(|f| !by.contains(f)) {
        let groups = filter::aggregate(table, &spec.filter, &[by[0], by[1], factor], &[])
            .unwrap_or_default();
        let pooling = groups.windows(2).any(|w| w[0].key[..2] == w[1].key[..2]);
        if !pooling {
            continue;
        }
        let mut levels: Vec<&filter::KeyPart> = groups.iter().map(|g| &g.key[2]).collect();
        levels.sort();
        levels.dedup();
        let names: Vec<String> = levels.iter().map(ToString::to_string).collect();
        let point = if spec.kind.chart().slots() { "box or bar" } else { "point" };
        let message = format!(
            "each {point} would pool the runs of {} levels of the factor `{factor}` ({}), \
             which is neither on an axis, nor the series, nor fixed by `where`",
            names.len(),
            crate::diagnostic::list(names.iter().map(String::as_str))
        );
        let level = match levels[0] {
            filter::KeyPart::Number(_) => names[0].clone(),
            filter::KeyPart::Text(t) => format!("\"{t}\""),
        };
        let hint = format!(
            "fix it with `where = {{ {factor} = {level} }}` (one chart per level), \
             or draw it as the series (`series = \"{factor}\"`) or on the x axis"
        );
        return Err(spec.error(message, hint));
    }
    Ok(())
}

/// An error at `x` for the first selected row whose x is empty: it has no place on the axis.
fn check_empty_x(spec: &ChartSpec, table: &Table) -> Result<(), Diagnostic> {
    let Some(x) = spec.x_column() else { return Ok(()) };
    let row = match table.column(x).map(|c| &c.values) {
        Some(Values::Text(texts)) => filter::rows(table, &spec.filter)
            .ok()
            .and_then(|pass| (0..texts.len()).find(|&r| pass[r] && texts.get(r).is_empty())),
        _ => filter::first_row(table, &spec.filter, x, f64::is_nan),
    };
    let Some(row) = row else { return Ok(()) };
    Err(spec.key_error(
        "x",
        format!(
            "`{x}` is empty on {} of {}, and a point needs its x",
            table.place(row),
            table.path.display()
        ),
        "fill in the cell, or leave such rows out with `where`".into(),
    ))
}

/// The chart's data file, checked to have its x, y and series columns, x and y numeric.
fn plotted_table<'r>(
    spec: &ChartSpec,
    results: &'r ResultSet,
    series_column: &str,
) -> Result<&'r Table, Diagnostic> {
    let stem = spec.data.trim_end_matches(".csv").trim_end_matches(".parquet");
    let table = results.tables.get(stem).ok_or_else(|| {
        spec.key_error(
            "data",
            format!("unknown data file `{}`", spec.data),
            suggest(stem, results.tables.keys().map(String::as_str)),
        )
    })?;
    let text_x = spec.kind.chart().text_x();
    let x = spec.x_column().map(|x| ("x", x));
    for (role, column) in x.into_iter().chain([("y", spec.y.as_str()), ("series", series_column)]) {
        match table.column(column).map(|c| &c.values) {
            None => {
                return Err(spec.key_error(
                    role,
                    format!("unknown {role} column `{column}` in {}", table.path.display()),
                    suggest(column, table.column_names()),
                ));
            }
            Some(Values::Text(_)) if role == "y" || (role == "x" && !text_x) => {
                let hint = if role == "x" {
                    "plot a numeric column; text columns can be a `series`, or the x of \
                     `kind = \"box-plot\"` (boxes of the runs per value, or per series \
                     without `x`)"
                } else {
                    "plot a numeric column; text columns can be a `series`"
                };
                return Err(spec.key_error(
                    role,
                    format!("{role} column `{column}` is not numeric"),
                    hint.into(),
                ));
            }
            _ => {}
        }
    }
    Ok(table)
}

/// The rows that pass the chart's `where`, grouped `by` series and x; an error
/// when none pass.
fn selected_groups(
    spec: &ChartSpec,
    table: &Table,
    by: [&str; 2],
) -> Result<Vec<Grouped>, Diagnostic> {
    let groups = filter::aggregate(table, &spec.filter, &by, &[spec.y.as_str()]).map_err(|c| {
        spec.key_error(
            "where",
            format!("unknown column `{c}` in `where`"),
            suggest(&c, table.column_names()),
        )
    })?;
    if groups.is_empty() {
        return Err(spec.error(
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
    let column = spec.series.as_deref().unwrap_or(&config.study.environment_column);
    let styles = style_order(config, runs.summaries, &config.level_order(&spec.data, column));
    let labels = crate::prose::labels::Labels::new(config);
    let label = |key: &str| match labels.level_label(&spec.data, column, key) {
        Some(label) => label.to_string(),
        None => config.environments.get(key).map_or_else(|| key.to_string(), |e| e.label.clone()),
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

/// The statistics' summaries of `y` by (series, x), for a chart whose
/// groups are the statistics' own: no `where`, the environments as its
/// series and the file's one configuration column as its x. Only measured
/// groups, whose summaries are as their runs give them.
struct Known<'a>(BTreeMap<(String, String), &'a Summary>);

impl<'a> Known<'a> {
    fn of(
        spec: &ChartSpec,
        table: &Table,
        known: &'a [Group],
        [series, x]: [&str; 2],
        config: &Config,
    ) -> Known<'a> {
        let drawn = spec.filter.is_empty() && series == config.study.environment_column;
        if !drawn || x == series {
            return Known(BTreeMap::new());
        }
        let file = table.path.display().to_string();
        let theirs = |g: &&Group| {
            g.inputs.file == file
                && g.inputs.column == spec.y
                && g.provenance.measured()
                && g.config.len() == 1
        };
        let summaries = known.iter().filter(theirs).filter_map(|g| {
            let value = g.config.get(x)?;
            Some(((g.environment.clone()?, value.clone()), &g.summary))
        });
        Known(summaries.collect())
    }

    /// The summary of the group keyed (series, x), when known.
    fn get(&self, key: &[KeyPart]) -> Option<&'a Summary> {
        self.0.get(&(key[0].to_string(), key[1].to_string())).copied()
    }
}

/// Summarise `y` in every group, on every core; a group `known` already
/// takes its summary from there.
fn summaries(groups: &[Grouped], known: &Known) -> Samples {
    use rayon::prelude::*;
    let summaries: Vec<Option<Summary>> = groups
        .par_iter()
        .map(|g| match known.get(&g.key) {
            Some(summary) => Some(summary.clone()),
            None => Summary::of_sample(&g.samples[0]),
        })
        .collect();
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
/// order their labels are written in, then series book.toml does not declare;
/// another series column's levels in its `order` (`declared`), then the rest.
fn style_order(config: &Config, samples: &Samples, declared: &[String]) -> BTreeMap<String, usize> {
    let mut order: Vec<String> =
        config.environments_in_order().into_iter().map(|(k, _)| k.clone()).collect();
    let mut rest: Vec<String> = samples.keys().filter(|k| !order.contains(*k)).cloned().collect();
    crate::config::sort_levels(&mut rest, declared);
    order.extend(rest);
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
    let x = spec.x_column().unwrap_or_default();
    for (scale, column, axis) in [(spec.x_scale, x, "x"), (spec.y_scale, spec.y.as_str(), "y")] {
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

/// Most points a chart draws: each is an SVG mark with a hover title and a
/// row of the data table, in the page and in the paper.
pub const MAX_POINTS: usize = 10_000;

/// An error at the chart's `x` or `y` for the first number of `data` that is
/// not finite, naming its series and x; or at `x` for more than
/// [`MAX_POINTS`] points.
pub(super) fn check_finite(spec: &ChartSpec, data: &ChartData) -> Result<(), Diagnostic> {
    let points: usize = data.series.iter().map(|s| s.points.len()).sum();
    if points > MAX_POINTS {
        return Err(Diagnostic::new(
            spec.key_location("x"),
            format!("chart `{}` has {points} points; a chart draws at most {MAX_POINTS}", spec.id),
        )
        .hint("a point is one x value of one series: plot fewer x values (`where`), or a column with fewer distinct values"));
    }
    for series in &data.series {
        for point in &series.points {
            let mut numbers = vec![("x", "x", point.x), ("y", "y", point.y)];
            if let Some([lo, hi]) = point.ci {
                numbers.extend([("y", "lower end of the 95% CI", lo), ("y", "upper end", hi)]);
            }
            numbers.extend(point.runs.iter().map(|&run| ("y", "value of a run", run)));
            if let Some((key, what, number)) = numbers.into_iter().find(|n| !n.2.is_finite()) {
                let x = crate::format::plain(point.x);
                let message = format!("the {what} of `{}` at x = {x} is {number}", series.key);
                return Err(finite_error(spec, key, message));
            }
        }
    }
    let log_y = spec.kind.chart().y_scale(spec).is_log();
    if let Some((s, p)) = data
        .series
        .iter()
        .find_map(|s| s.points.iter().find(|p| log_y && p.y <= 0.0).map(|p| (s, p)))
    {
        let x = crate::format::plain(p.x);
        let y = crate::format::minus(&crate::format::significant(p.y, 4));
        let message = format!("the log y axis cannot show the {y} of `{}` at x = {x}", s.key);
        return Err(finite_error(spec, "y-scale", message));
    }
    let ideal = data.ideal.iter().flatten();
    if let Some((x, y)) = ideal.copied().find(|(x, y)| !x.is_finite() || !y.is_finite()) {
        let message = format!("the ideal line at x = {x} is at y = {y}");
        return Err(finite_error(spec, "ideal", message));
    }
    Ok(())
}

/// The error `message` at `key` of the chart, whose numbers are not finite.
fn finite_error(spec: &ChartSpec, key: &str, message: String) -> Diagnostic {
    Diagnostic::new(spec.key_location(key), format!("chart `{}`: {message}", spec.id)).hint(
        "a chart plots finite numbers only: its values overflow, or it divides by zero \
         (an x of 0 on an efficiency chart, a mean of 0): leave those rows out with `where`",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Table;
    use crate::seeded::stream;

    /// A study of environments `a` and `b`, `group-by` the x column `s` (and
    /// a factor `f` when `factor`), the runs' values `v` drawn from `seed`
    /// with some cells empty.
    fn study(seed: u64, factor: bool) -> (ResultSet, Config) {
        let mut next = stream(seed);
        let rows = 12 + (next() % 60) as usize;
        let draw = |n: u64, next: &mut dyn FnMut() -> u64| (next() % n) as f64;
        let mut columns = vec![
            ("environment", Values::Text((0..rows).map(|r| ["a", "b"][r % 2]).collect())),
            (
                "s",
                Values::numbers_of(
                    &(0..rows).map(|r| [1.0, 2.0, 4.0][r / 2 % 3]).collect::<Vec<_>>(),
                ),
            ),
        ];
        let values: Vec<f64> = (0..rows)
            .map(|_| {
                if next().is_multiple_of(9) { f64::NAN } else { 1.0 + draw(1000, &mut next) / 7.0 }
            })
            .collect();
        columns.push(("v", Values::numbers_of(&values)));
        let mut toml = String::from(
            "[book]\ntitle = \"T\"\n[study]\nbaseline = \"a\"\n[environments.a]\nlabel = \"A\"\n\
             [environments.b]\nlabel = \"B\"\n[data.d]\ngroup-by = [\"s\"]\n",
        );
        if factor {
            let f: Vec<f64> = (0..rows).map(|r| (r / 6 % 2) as f64).collect();
            columns.push(("f", Values::numbers_of(&f)));
            toml = toml.replace("[study]\n", "[study]\nfactors = [\"f\"]\n");
        }
        let table = Table::new("d", "results/d.csv", columns);
        let config = crate::config::parse(std::path::Path::new("book.toml"), &toml).unwrap();
        (ResultSet { tables: BTreeMap::from([("d".to_string(), table)]) }, config)
    }

    /// A chart drawn from the statistics' summaries is the chart drawn from
    /// its runs, for studies of many shapes and charts that can and cannot
    /// take them (a `where`, a factor in the groups, another series).
    #[test]
    fn summaries_taken_from_the_statistics_draw_the_same_chart() {
        let mut taken = 0;
        for seed in 1..=60 {
            let factor = seed % 3 == 0;
            let (results, config) = study(seed * 0x9E37_79B9, factor);
            let analysis = crate::analysis::analyze(&results, &config).unwrap();
            let table = &results.tables["d"];
            let extras: &[&str] = match factor {
                true => &["where = { f = 1 }", "series = \"f\"\nwhere = { environment = \"a\" }"],
                false => &["", "where = { s = [1, 2] }"],
            };
            for extra in extras {
                let spec = crate::charts::spec::line_of("v", extra);
                let series = spec.series.as_deref().unwrap_or("environment");
                let known = Known::of(&spec, table, &analysis.groups, [series, "s"], &config);
                taken += known.0.len();
                let drawn = compute(&spec, &results, &analysis.groups, &config);
                assert_eq!(drawn, compute(&spec, &results, &[], &config), "seed {seed}, {extra}");
            }
        }
        // The plain charts of the studies without a factor take them all.
        assert!(taken >= 40 * 6, "{taken}");
    }
}
