//! ```` ```table ```` directives: each parsed, computed from the results
//! ([`crate::analysis::metrics::tables`]) and worded, cell by cell; the parse puts
//! it in the page as a captioned table ([`super::parse`]), which both
//! renderers number and set like any other.

use crate::analysis::metrics::tables::{self, Cell, Computed, Verdict};
use crate::config::Config;
use crate::diagnostic::{Diagnostic, Location};
use crate::prose::headings;
use crate::prose::metric as wording;
use crate::results::ResultSet;

/// A computed table as written: its id, its data as CSV, each cell's
/// verdict (`None` for statistics, the baseline and empty cells), every
/// cell's figures and words, and the table as computed, which stats.json
/// and the caveats are made of.
#[derive(Debug, Clone)]
pub struct Written {
    /// The table's id, without `tbl-`.
    pub id: String,
    /// Its cells as CSV, one line per cell.
    pub csv: String,
    /// Each cell's verdict, `verdicts[row][column]`.
    pub verdicts: Vec<Vec<Option<Verdict>>>,
    /// Every cell, row by row, as stats.json lists it.
    pub cells: Vec<TableCell>,
    /// The table as computed: its directive, levels and cells.
    pub table: Computed,
}

/// One cell of a computed table as stats.json and the CSV list it: where
/// it is, what it holds, its figures and its words.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TableCell {
    /// The cell's row level.
    pub row: String,
    /// The cell's column level, if the table has columns.
    pub column: Option<String>,
    /// What it holds: `statistic`, `baseline`, `comparison` or `empty`.
    pub kind: &'static str,
    /// The statistic, or the comparison's value.
    pub value: Option<f64>,
    /// The comparison's 95% interval, if any.
    pub ci: Option<[f64; 2]>,
    /// The comparison's p-value, if it was tested.
    pub p: Option<f64>,
    /// That p after Holm's correction across the table's comparisons.
    pub p_holm: Option<f64>,
    /// The comparison's verdict.
    pub verdict: Option<Verdict>,
    /// Runs: of the statistic; of the smaller side of a comparison.
    pub n: Option<usize>,
    /// The cell in words, as the table shows it (`+12.5% vs xz, …`).
    pub text: String,
    /// With `baseline = "best"`: the level chosen, the levels it was chosen
    /// among and their scores.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_selected: Option<crate::analysis::metrics::sides::Selected>,
}

impl TableCell {
    /// The entry of cell `c` at `row` and `column`, worded `text`.
    fn of(row: String, column: Option<String>, c: &Cell, text: String) -> TableCell {
        let mut cell = TableCell {
            row,
            column,
            kind: "empty",
            value: None,
            ci: None,
            p: None,
            p_holm: None,
            verdict: None,
            n: None,
            text,
            baseline_selected: None,
        };
        match c {
            Cell::Statistic { value, n } => {
                (cell.kind, cell.value, cell.n) = ("statistic", Some(*value), Some(*n));
            }
            Cell::Baseline => cell.kind = "baseline",
            Cell::Unmatched(_) => cell.kind = "unmatched",
            Cell::Empty => {}
            Cell::Comparison(m) => {
                cell.kind = "comparison";
                (cell.value, cell.ci, cell.p, cell.p_holm) =
                    (Some(m.value), m.ci, m.p_value, m.p_holm);
                cell.verdict = m.provenance.measured().then(|| tables::verdict(m));
                cell.n =
                    Some(m.baseline.as_ref().map_or(m.candidate.n, |b| b.n.min(m.candidate.n)));
                cell.baseline_selected = m.baseline_selected.clone();
            }
        }
        cell
    }
}

/// A computed table in words: its caption, its header and its rows, each
/// cell's text on one line; the first column is the rows' levels.
#[derive(Debug, Clone)]
pub struct Worded {
    /// The caption, with what the verdicts mean for a comparison.
    pub caption: String,
    /// The header: the rows' factor, then each column's level.
    pub header: Vec<String>,
    /// Each row: its level, then its cells.
    pub rows: Vec<Vec<String>>,
    /// The table as written to the site.
    pub written: Written,
}

/// The table directive with `body`, at `location`, computed from the
/// results and worded.
pub fn compute(
    body: &str,
    location: &Location,
    results: &ResultSet,
    config: &Config,
) -> Result<Worded, Diagnostic> {
    let table =
        tables::parse(body, location).and_then(|spec| tables::compute(&spec, results, config))?;
    let (caption, header, rows) = worded(&table, config);
    let cells = cells(&table, config);
    let written = Written {
        id: table.spec.id.clone(),
        csv: csv(&table, &cells),
        verdicts: verdicts(&table),
        cells,
        table,
    };
    Ok(Worded { caption, header, rows, written })
}

/// A level as a reader sees it: an environment's label, or the value.
fn label(level: &impl ToString, factor: &str, config: &Config) -> String {
    let level = level.to_string();
    match config.environments.get(&level) {
        Some(env) if factor == config.study.environment_column => env.label.clone(),
        _ => level,
    }
}

/// The table in words: the caption, a header of the columns' levels and a
/// row per level of `rows`.
fn worded(table: &Computed, config: &Config) -> (String, Vec<String>, Vec<Vec<String>>) {
    let spec = &table.spec;
    let labels = crate::prose::labels::Labels::new(config);
    let line = |s: &str| s.replace('\n', " ");
    // A statistic's unit is in the headings, not in every cell.
    let unit = (!spec.cell.compared()).then_some(spec.unit.as_deref()).flatten();
    let heading = |level: &Option<crate::analysis::queries::filter::KeyPart>| {
        let text = match (level, &spec.columns) {
            (Some(level), Some(column)) => {
                headings::level(&labels, &spec.data, column, &level.to_string())
            }
            _ => headings::column(&labels, &spec.data, &spec.value),
        };
        headings::with_unit(&text, unit)
    };
    let mut header = vec![line(&headings::column(&labels, &spec.data, &spec.rows))];
    header.extend(table.columns.iter().map(|c| line(&heading(c))));
    let rows = (table.rows.iter().zip(&table.cells))
        .map(|(row, cells)| {
            let mut out =
                vec![line(&headings::level(&labels, &spec.data, &spec.rows, &row.to_string()))];
            out.extend(cells.iter().map(|c| line(&cell_text(c, spec, config, unit.is_none()))));
            out
        })
        .collect();
    let mut caption = match spec.cell.compared() {
        true => format!(
            "{} {}",
            crate::prose::sentence(&spec.caption),
            wording::table_note(table.tested())
        ),
        false => spec.caption.clone(),
    };
    if let Some(note) = crate::prose::caveats::selected_baselines(spec, &[]) {
        caption.push(' ');
        caption.push_str(&note);
    }
    (line(&caption), header, rows)
}

/// A cell in words.
fn cell_text(c: &Cell, spec: &tables::TableSpec, config: &Config, unit: bool) -> String {
    match c {
        Cell::Statistic { value, .. } => {
            // A number and its unit stay together.
            let unit = spec.unit.as_deref().filter(|_| unit);
            wording::statistic(*value, spec.decimals, unit).replace(' ', "\u{a0}")
        }
        Cell::Baseline => "baseline".into(),
        Cell::Comparison(m) => {
            let against = m.baseline_selected.as_ref().map(|s| label(&s.level, &m.factor, config));
            wording::table_cell(m, tables::verdict(m), against.as_deref())
        }
        Cell::Unmatched(baseline) => {
            format!("no runs of {} to compare with", label(baseline, &table_factor(spec), config))
        }
        Cell::Empty => "no runs".into(),
    }
}

/// The factor a table's comparisons run along (the rows' when it has none).
fn table_factor(spec: &tables::TableSpec) -> String {
    tables::compared_factor(spec).ok().flatten().map_or_else(|| spec.rows.clone(), |a| a.factor)
}

/// Every cell, row by row, with its figures and words.
fn cells(table: &Computed, config: &Config) -> Vec<TableCell> {
    let mut out = Vec::new();
    for (row, cells) in table.rows.iter().zip(&table.cells) {
        for (column, c) in table.columns.iter().zip(cells) {
            let (row, column) = (row.to_string(), column.as_ref().map(ToString::to_string));
            let text = cell_text(c, &table.spec, config, true).replace('\u{a0}', " ");
            out.push(TableCell::of(row, column, c, text));
        }
    }
    out
}

/// Each cell's verdict.
fn verdicts(table: &Computed) -> Vec<Vec<Option<Verdict>>> {
    let verdict = |c: &Cell| match c {
        Cell::Comparison(m) => m.provenance.measured().then(|| tables::verdict(m)),
        _ => None,
    };
    table.cells.iter().map(|row| row.iter().map(verdict).collect()).collect()
}

/// The cells as CSV: row, column, what the cell holds, its value, interval,
/// p, Holm's p, verdict and runs; with `baseline = "best"`, each
/// comparison's baseline as chosen.
fn csv(table: &Computed, cells: &[TableCell]) -> String {
    let mut out = csv::Writer::from_writer(Vec::new());
    let chosen = tables::selects_baseline(&table.spec);
    let mut header =
        vec!["row", "column", "cell", "value", "ci_low", "ci_high", "p", "p_holm", "verdict", "n"];
    if chosen {
        header.push("baseline");
    }
    let _ = out.write_record(header);
    for c in cells {
        let _ = out.write_record(record(c, chosen));
    }
    String::from_utf8(out.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// One cell's line of the CSV, with its chosen baseline if `chosen`.
fn record(c: &TableCell, chosen: bool) -> Vec<String> {
    let number = |x: Option<f64>| x.map(|x| format!("{x}")).unwrap_or_default();
    let verdict = c.verdict.map(|v| format!("{v:?}").to_lowercase()).unwrap_or_default();
    let [lo, hi] = c.ci.map_or([None, None], |[a, b]| [Some(a), Some(b)]);
    let n = c.n.map(|n| n.to_string()).unwrap_or_default();
    let mut record = vec![
        c.row.clone(),
        c.column.clone().unwrap_or_default(),
        c.kind.into(),
        number(c.value),
        number(lo),
        number(hi),
        number(c.p),
        number(c.p_holm),
        verdict,
        n,
    ];
    if chosen {
        let level = c.baseline_selected.as_ref().map(|s| s.level.clone());
        record.push(level.unwrap_or_default());
    }
    record
}
