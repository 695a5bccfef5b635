//! Computed tables: the cells of a ```` ```table ```` directive, each a
//! statistic of one configuration or a comparison with its interval and
//! verdict, computed from the results as a `[[metrics]]` entry would be,
//! with Holm's correction across the table's comparisons.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::value::MetricValue;
use crate::analysis::queries::filter::{self, KeyPart};
use crate::analysis::statistics::stats::Summary;
use crate::config::{Better, Compare, Config, Estimator, FilterValue, Level, Metric};
use crate::diagnostic::{Diagnostic, Location, suggest};
use crate::results::ResultSet;

/// A computed table, as the author wrote it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct TableSpec {
    /// Identifier: lowercase letters, digits and `-`; referenced as `@tbl-ID`.
    pub id: String,
    /// Results file: a stem (`runs`).
    pub data: String,
    /// The measured column.
    pub value: String,
    /// The factor whose levels are the rows.
    pub rows: String,
    /// The factor whose levels are the columns; without it, one column.
    #[serde(default)]
    pub columns: Option<String>,
    /// What each cell holds: `mean` or `median` of its runs, or its
    /// comparison with the baseline level: `relative`, `slowdown` or `ratio`.
    pub cell: CellKind,
    /// For comparisons: the factor compared along, named by its column or
    /// by the word `rows` (default) or `columns`; any other name is an
    /// error that lists the table's factors.
    #[serde(default)]
    pub compare: Option<String>,
    /// For comparisons: the baseline level of the compared factor, one of
    /// its levels in the selected rows; default the study's baseline when
    /// that factor is the environment column, else the factor's first level
    /// (the table's first row, or first column).
    /// `"best"`: in each cell, the best of the other levels in the cell's
    /// rows, chosen from the data by `better` and `estimator`, as a
    /// metric's `baseline = "best"` (docs/factors.md), and named in the cell.
    #[serde(default)]
    pub baseline: Option<Level>,
    /// Row filter, as a metric's `where`.
    #[serde(default, rename = "where")]
    pub filter: BTreeMap<String, FilterValue>,
    /// For comparisons: `mean` (default) or `median`, as a metric's.
    #[serde(default)]
    pub estimator: Estimator,
    /// For comparisons: whether a higher or a lower value is good news.
    #[serde(default)]
    pub better: Option<Better>,
    /// Decimals shown; default 1.
    #[serde(default = "one")]
    pub decimals: usize,
    /// Unit of `mean` and `median` cells, such as `s`.
    #[serde(default)]
    pub unit: Option<String>,
    /// Caption, in the page and the paper.
    pub caption: String,
    /// Where the directive is (filled in after parsing).
    #[serde(skip)]
    pub location: Option<Location>,
    /// Where each key is (filled in after parsing).
    #[serde(skip)]
    pub key_at: crate::config::spans::Locations,
}

fn one() -> usize {
    1
}

/// What a table's cell holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CellKind {
    /// The mean of the cell's runs.
    Mean,
    /// The median of the cell's runs.
    Median,
    /// Candidate / baseline − 1, in percent.
    Relative,
    /// 1 − candidate / baseline, in percent.
    Slowdown,
    /// Candidate / baseline.
    Ratio,
}

impl CellKind {
    /// Whether the cells are comparisons.
    pub fn compared(self) -> bool {
        self.compare().is_some()
    }

    /// The metric comparison of a comparison cell.
    fn compare(self) -> Option<Compare> {
        match self {
            CellKind::Mean | CellKind::Median => None,
            CellKind::Relative => Some(Compare::Relative),
            CellKind::Slowdown => Some(Compare::Slowdown),
            CellKind::Ratio => Some(Compare::Ratio),
        }
    }
}

/// One cell of a computed table.
#[derive(Debug, Clone, Serialize)]
pub enum Cell {
    /// A statistic of the cell's runs.
    Statistic {
        /// The mean or the median.
        value: f64,
        /// Runs.
        n: usize,
    },
    /// The baseline level itself.
    Baseline,
    /// A comparison with the baseline level.
    Comparison(Box<MetricValue>),
    /// Runs of the candidate, but none of the baseline level to compare
    /// them with (the baseline level named).
    Unmatched(String),
    /// No runs at this row and column.
    Empty,
}

/// A computed table: its levels and cells, row by row.
#[derive(Debug, Clone)]
pub struct Computed {
    /// The directive.
    pub spec: TableSpec,
    /// The rows' levels.
    pub rows: Vec<KeyPart>,
    /// The columns' levels (one empty level without `columns`).
    pub columns: Vec<Option<KeyPart>>,
    /// The cells, `cells[row][column]`.
    pub cells: Vec<Vec<Cell>>,
}

/// Parse a directive's TOML `body`; `location` is its fence line.
pub fn parse(body: &str, location: &Location) -> Result<TableSpec, Diagnostic> {
    let locate = |span: std::ops::Range<usize>| {
        let inner = Location::at_offset(&location.path, body, span.start);
        Location::new(&location.path, location.line + inner.line, inner.column)
    };
    let (mut spec, spans): (TableSpec, crate::config::spans::Spans) =
        crate::config::spans::Spans::parse(body).map_err(|err| {
            let message = crate::diagnostic::lowercase_first(err.message().trim_end_matches('.'));
            Diagnostic::new(locate(err.span().unwrap_or(0..0)), format!("table: {message}"))
                .hint("see docs/tables.md for the keys a table accepts")
        })?;
    spec.location = Some(location.clone());
    spec.key_at = spans.locations("", locate);
    if spec.id.is_empty()
        || !spec.id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        let message = format!("invalid id `{}`", spec.id);
        let hint =
            "use lowercase letters, digits and `-`, such as `times`; refer to it as `@tbl-times`";
        return Err(blame(&spec, "id", message, hint.into()));
    }
    Ok(spec)
}

impl Computed {
    /// How many of the cells are tested comparisons (with a p-value).
    pub fn tested(&self) -> usize {
        let tested = |c: &&Cell| matches!(c, Cell::Comparison(m) if m.p_value.is_some());
        self.cells.iter().flatten().filter(tested).count()
    }
}

/// Where a table's problem lies, and its message and hint.
fn blame(spec: &TableSpec, key: &str, message: String, hint: String) -> Diagnostic {
    let at =
        spec.key_at.or(key, &spec.location.clone().unwrap_or_else(|| Location::file("content")));
    Diagnostic::new(at, format!("table `{}`: {message}", spec.id)).hint(hint)
}

/// Compute the cells of `spec` from `results`.
pub fn compute(
    spec: &TableSpec,
    results: &ResultSet,
    config: &Config,
) -> Result<Computed, Diagnostic> {
    let table = results.tables.get(&spec.data).ok_or_else(|| {
        let message = format!("unknown data file `{}`", spec.data);
        blame(spec, "data", message, suggest(&spec.data, results.tables.keys().map(String::as_str)))
    })?;
    known_columns(spec, table)?;
    let levels = |column: &str| -> Result<Vec<KeyPart>, Diagnostic> {
        let groups = filter::aggregate(table, &spec.filter, &[column], &[]).map_err(|c| {
            blame(
                spec,
                &format!("where.{c}"),
                format!("unknown column `{c}` in `where`"),
                suggest(&c, table.column_names()),
            )
        })?;
        let mut levels: Vec<KeyPart> = groups.into_iter().map(|g| g.key[0].clone()).collect();
        crate::config::sort_levels(&mut levels, &config.level_order(&spec.data, column));
        Ok(levels)
    };
    let along = compared_factor(spec)?;
    selectable(spec, &along, &levels)?;
    let rows = levels(&spec.rows)?;
    let columns: Vec<Option<KeyPart>> = match &spec.columns {
        Some(c) => levels(c)?.into_iter().map(Some).collect(),
        None => vec![None],
    };
    let compared = match &along {
        Some(along) => {
            let levels: Vec<KeyPart> = match along.rows {
                true => rows.clone(),
                false => columns.iter().flatten().cloned().collect(),
            };
            Some((along, baseline_level(spec, &along.factor, &levels, config)?))
        }
        None => None,
    };
    let mut cells = Vec::new();
    for row in &rows {
        let line = columns.iter().map(|column| {
            let at = (row, column.as_ref());
            match &compared {
                Some((along, baseline)) => cell(spec, at, (along, baseline), results, config),
                None => statistic(spec, at, results, config),
            }
        });
        cells.push(line.collect::<Result<Vec<Cell>, Diagnostic>>()?);
    }
    holm(&mut cells, config.study.negligible());
    unmeasured(spec, config, &mut cells);
    Ok(Computed { spec: spec.clone(), rows, columns, cells })
}

/// An error at the key of the first of `rows`, `columns` and `value` that
/// names a column `table` lacks.
fn known_columns(spec: &TableSpec, table: &crate::results::Table) -> Result<(), Diagnostic> {
    for (key, column) in [
        ("rows", Some(&spec.rows)),
        ("columns", spec.columns.as_ref()),
        ("value", Some(&spec.value)),
    ] {
        if let Some(column) = column.filter(|c| table.column(c).is_none()) {
            let message = format!("unknown column `{column}` in {}", table.path.display());
            return Err(blame(spec, key, message, suggest(column, table.column_names())));
        }
    }
    Ok(())
}

/// Whether the table chooses each comparison's baseline from the data
/// (`baseline = "best"`).
pub fn selects_baseline(spec: &TableSpec) -> bool {
    spec.cell.compared()
        && matches!(&spec.baseline, Some(Level::Text(t)) if t == super::sides::BEST)
}

/// The errors of `baseline = "best"`: for a statistic, which has no
/// baseline; without `better`, which the choice needs; and along a factor
/// with a level named `best`.
fn selectable(
    spec: &TableSpec,
    along: &Option<Along>,
    levels: &dyn Fn(&str) -> Result<Vec<KeyPart>, Diagnostic>,
) -> Result<(), Diagnostic> {
    let best = super::sides::BEST;
    if !matches!(&spec.baseline, Some(Level::Text(t)) if t == best) {
        return Ok(());
    }
    let problem =
        |message: &str, hint: &str| Err(blame(spec, "baseline", message.into(), hint.into()));
    if !spec.cell.compared() {
        return problem(
            "a statistic cell compares nothing, so it has no baseline to choose",
            "drop `baseline`, or make the cells comparisons (`cell = \"relative\"`)",
        );
    }
    if spec.better.is_none() {
        return problem(
            "`baseline = \"best\"` chooses the best level by `better`, which is not set",
            "set `better = \"lower\"` or `better = \"higher\"`",
        );
    }
    let factor = along.as_ref().map_or(&spec.rows, |a| &a.factor);
    if levels(factor)?.iter().any(|l| l.to_string() == best) {
        let message = format!(
            "`{factor}` has a level named `{best}`, so `baseline = \"{best}\"` is ambiguous"
        );
        return problem(&message, "rename that level in the results");
    }
    Ok(())
}

/// The filter of the cell at `row` and `column`.
fn cell_filter(
    spec: &TableSpec,
    (row, column): (&KeyPart, Option<&KeyPart>),
) -> BTreeMap<String, FilterValue> {
    let mut filter = spec.filter.clone();
    filter.insert(spec.rows.clone(), equal(row));
    if let (Some(name), Some(level)) = (&spec.columns, column) {
        filter.insert(name.clone(), equal(level));
    }
    filter
}

/// The error for a cell whose runs span several values of a `group-by`
/// column or factor that neither its row nor its column fixes.
fn pooled(
    spec: &TableSpec,
    table: &crate::results::Table,
    filter: &BTreeMap<String, FilterValue>,
    config: &Config,
) -> Result<(), Diagnostic> {
    let dataset = config.data.get(&spec.data);
    let group_by = dataset.map(|d| d.group_by.as_slice()).unwrap_or_default();
    for column in group_by.iter().chain(&config.study.factors).filter(|c| !filter.contains_key(*c))
    {
        let values = filter::aggregate(table, filter, &[column.as_str()], &[]).unwrap_or_default();
        if values.len() > 1 {
            let listed: Vec<String> = values.iter().map(|g| g.key[0].to_string()).collect();
            let message = format!(
                "a cell pools {} values of `{column}` ({})",
                listed.len(),
                crate::diagnostic::list(listed.iter().map(String::as_str))
            );
            let hint = format!(
                "fix it with `where = {{ {column} = {} }}`, or make it the table's `rows` or `columns`",
                listed[0]
            );
            return Err(blame(spec, "where", message, hint));
        }
    }
    Ok(())
}

/// The filter condition equal to `level`.
fn equal(level: &KeyPart) -> FilterValue {
    match level {
        KeyPart::Number(n) => FilterValue::Number(*n),
        KeyPart::Text(t) => FilterValue::Text(t.clone()),
    }
}

/// The factor a table of comparisons compares along: its name, and
/// whether its levels are the rows (else the columns).
#[derive(Debug, Clone)]
pub struct Along {
    /// The factor's column.
    pub factor: String,
    /// Whether the factor is the rows' (else the columns').
    pub rows: bool,
}

/// The factor the comparisons of `spec` run along: `compare` names the
/// rows' or the columns' factor, or says `rows` or `columns`; none for a
/// table of statistics. An error at `compare` for any other name, listing
/// the table's factors, or for `columns` in a table without columns.
pub fn compared_factor(spec: &TableSpec) -> Result<Option<Along>, Diagnostic> {
    if !spec.cell.compared() {
        return Ok(None);
    }
    let rows = Along { factor: spec.rows.clone(), rows: true };
    let columns = spec.columns.clone().map(|factor| Along { factor, rows: false });
    let Some(name) = spec.compare.as_deref() else { return Ok(Some(rows)) };
    match (name, &columns) {
        (n, _) if n == spec.rows => Ok(Some(rows)),
        (n, Some(c)) if n == c.factor => Ok(columns),
        ("rows", _) => Ok(Some(rows)),
        ("columns", Some(_)) => Ok(columns),
        _ => {
            let factors = match &spec.columns {
                Some(c) => format!("its rows are `{}` and its columns `{c}`", spec.rows),
                None => format!("its rows are `{}`, and it has no columns", spec.rows),
            };
            let hint = match &spec.columns {
                Some(c) => format!(
                    "write `compare = \"rows\"` (or `\"{}\"`) or `compare = \"columns\"` (or `\"{c}\"`)",
                    spec.rows
                ),
                None => "write `compare = \"rows\"`, or add `columns` to compare along them".into(),
            };
            let message = format!("`compare = \"{name}\"` names no factor of the table: {factors}");
            Err(blame(spec, "compare", message, hint))
        }
    }
}

/// One comparison cell: the candidate level at `row` and `column` against
/// the `baseline` level of the factor compared `along`.
fn cell(
    spec: &TableSpec,
    (row, column): (&KeyPart, Option<&KeyPart>),
    (along, baseline): (&Along, &str),
    results: &ResultSet,
    config: &Config,
) -> Result<Cell, Diagnostic> {
    let compare = spec.cell.compare().unwrap_or(Compare::Relative);
    let (candidate, at) = if along.rows { (Some(row), column) } else { (column, Some(row)) };
    let Some(candidate) = candidate else { return Ok(Cell::Empty) };
    let mut filter = spec.filter.clone();
    let other = if along.rows { spec.columns.clone() } else { Some(spec.rows.clone()) };
    if let (Some(name), Some(level)) = (other, at) {
        filter.insert(name, equal(level));
    }
    let sides = (along.factor.clone(), candidate.to_string(), baseline.to_string());
    let metric = cell_metric(spec, filter, compare, sides);
    comparison(spec, metric, results, config)
}

/// A statistic cell: the mean or median of its runs.
fn statistic(
    spec: &TableSpec,
    (row, column): (&KeyPart, Option<&KeyPart>),
    results: &ResultSet,
    config: &Config,
) -> Result<Cell, Diagnostic> {
    let table = &results.tables[&spec.data];
    let filter = cell_filter(spec, (row, column));
    pooled(spec, table, &filter, config)?;
    let groups = filter::aggregate(table, &filter, &[], &[spec.value.as_str()]).unwrap_or_default();
    let summary = groups.first().and_then(|g| Summary::of(&g.samples[0]));
    Ok(summary.map_or(Cell::Empty, |s| Cell::Statistic {
        value: if spec.cell == CellKind::Median { s.median } else { s.mean },
        n: s.n,
    }))
}

/// A comparison cell computed as `metric`, its baseline first chosen from
/// the data with `baseline = "best"`; empty without runs on a side.
fn comparison(
    spec: &TableSpec,
    mut metric: Metric,
    results: &ResultSet,
    config: &Config,
) -> Result<Cell, Diagnostic> {
    let table = &results.tables[&spec.data];
    let has_rows = |metric: &Metric, level: &str| {
        let mut rows = metric.filter.clone();
        rows.insert(spec_factor(metric), super::sides::either(level, level));
        !filter::aggregate(table, &rows, &[], &[]).unwrap_or_default().is_empty()
    };
    let candidate = metric.candidate.as_ref().map(ToString::to_string).unwrap_or_default();
    let selected = match selects_baseline(spec) && has_rows(&metric, &candidate) {
        // No other level with runs in the cell's rows: nothing to compare with.
        true => match super::sides::best_of_others(&metric, table, config, &candidate) {
            Ok(selected) => Some(selected),
            Err(_) => return Ok(Cell::Empty),
        },
        false => None,
    };
    if let Some(s) = &selected {
        metric.baseline = Some(Level::Text(s.level.clone()));
    }
    let baseline = metric.baseline.as_ref().map(ToString::to_string).unwrap_or_default();
    match (has_rows(&metric, &candidate), has_rows(&metric, &baseline)) {
        (true, true) if candidate == baseline => return Ok(Cell::Baseline),
        (true, true) => {}
        (true, false) => return Ok(Cell::Unmatched(baseline)),
        (false, _) => return Ok(Cell::Empty),
    }
    let mut value = super::evaluate_one(&metric, results, config)?;
    value.baseline_selected = selected;
    Ok(Cell::Comparison(Box::new(value)))
}

/// The metric a comparison cell computes: `candidate` against `baseline`
/// along `factor`, in the rows `filter` selects.
fn cell_metric(
    spec: &TableSpec,
    filter: BTreeMap<String, FilterValue>,
    compare: Compare,
    (factor, candidate, baseline): (String, String, String),
) -> Metric {
    Metric {
        name: format!("tbl-{}", spec.id),
        label: spec.caption.clone(),
        definition: None,
        data: spec.data.clone(),
        value: spec.value.clone(),
        filter,
        compare,
        factor: Some(factor),
        candidate: Some(Level::Text(candidate)),
        baseline: Some(Level::Text(baseline)),
        candidates: None,
        per: None,
        each: false,
        better: spec.better.unwrap_or(Better::Lower),
        unit: None,
        decimals: spec.decimals,
        headline: false,
        estimator: spec.estimator,
        average: Default::default(),
        generalise: false,
        interaction: None,
        within_run: false,
        location: spec.location.clone(),
        at: spec.key_at.clone(),
    }
}

/// The factor a cell's metric compares along.
fn spec_factor(metric: &Metric) -> String {
    metric.factor.clone().unwrap_or_default()
}

/// The baseline level of the compared `factor`, whose levels in the
/// selected rows are `levels`: as written (`best` is chosen per cell),
/// else the study's baseline for the environment column, else the first
/// level. An error at `baseline` for a level the factor lacks, naming its
/// levels.
fn baseline_level(
    spec: &TableSpec,
    factor: &str,
    levels: &[KeyPart],
    config: &Config,
) -> Result<String, Diagnostic> {
    let names: Vec<String> = levels.iter().map(ToString::to_string).collect();
    let (level, key) = match &spec.baseline {
        Some(level) if selects_baseline(spec) => return Ok(level.to_string()),
        Some(level) => (level.to_string(), "baseline"),
        None if factor == config.study.environment_column => {
            (config.study.baseline.clone(), "compare")
        }
        None => return Ok(names.first().cloned().unwrap_or_default()),
    };
    if names.contains(&level) {
        return Ok(level);
    }
    let listed = crate::diagnostic::list(names.iter().map(String::as_str));
    let message = match &spec.baseline {
        Some(_) => format!("`{factor}` has no level `{level}` in the table's rows ({listed})"),
        None => format!(
            "the study's baseline `{level}` is not a level of `{factor}` in the table's rows ({listed})"
        ),
    };
    let hint = format!(
        "name one of its levels, such as `baseline = \"{}\"`, or check `where`",
        names.first().map_or("", String::as_str)
    );
    Err(blame(spec, key, message, hint))
}

/// The comparisons of a table of data that were not measured (`[data.NAME]
/// provenance`): marked as such, with neither interval, p nor verdict.
fn unmeasured(spec: &TableSpec, config: &Config, cells: &mut [Vec<Cell>]) {
    let provenance = config.data.get(&spec.data).map(|d| d.provenance).unwrap_or_default();
    if provenance.measured() {
        return;
    }
    for cell in cells.iter_mut().flatten() {
        if let Cell::Comparison(m) = cell {
            m.provenance = provenance;
            crate::analysis::provenance::without_inference(m);
        }
    }
}

/// Holm's correction across the table's comparisons, then each one's
/// claim by its adjusted p ([`super::decide`]).
fn holm(cells: &mut [Vec<Cell>], negligible: Option<f64>) {
    let mut tested: Vec<&mut MetricValue> = cells
        .iter_mut()
        .flatten()
        .filter_map(|c| match c {
            Cell::Comparison(m) if m.p_value.is_some() => Some(m.as_mut()),
            _ => None,
        })
        .collect();
    let ps: Vec<f64> = tested.iter().map(|m| m.p_value.unwrap_or(1.0)).collect();
    for (m, p) in tested.iter_mut().zip(super::sides::adjusted(&ps)) {
        m.p_holm = Some(p);
    }
    for cell in cells.iter_mut().flatten() {
        if let Cell::Comparison(m) = cell {
            super::decide(std::slice::from_mut(m.as_mut()), negligible);
        }
    }
}

pub use super::claim::Verdict;

/// The verdict of a comparison cell, Holm's correction applied: its
/// claim's ([`super::claim`]).
pub fn verdict(m: &MetricValue) -> Verdict {
    m.claim.map_or(Verdict::Inconclusive, |c| c.verdict)
}
