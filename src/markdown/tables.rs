//! ```` ```table ```` directives: each parsed, computed from the results
//! ([`crate::analysis::metrics::tables`]) and worded, cell by cell; the parse puts
//! it in the page as a captioned table ([`super::parse`]), which both
//! renderers number and set like any other.

use crate::analysis::metrics::tables::{self, Cell, Computed, Verdict};
use crate::config::Config;
use crate::diagnostic::{Diagnostic, Location};
use crate::prose::metric as wording;
use crate::results::ResultSet;

/// A computed table as written: its id, its data as CSV, each cell's
/// verdict (`None` for statistics, the baseline and empty cells), and the
/// table as computed, which stats.json and the caveats are made of.
#[derive(Debug, Clone)]
pub struct Written {
    /// The table's id, without `tbl-`.
    pub id: String,
    /// Its cells as CSV, one line per cell.
    pub csv: String,
    /// Each cell's verdict, `verdicts[row][column]`.
    pub verdicts: Vec<Vec<Option<Verdict>>>,
    /// With `baseline = "best"`: each comparison cell's baseline, as chosen.
    pub chosen: Vec<Chosen>,
    /// The table as computed: its directive, levels and cells.
    pub table: Computed,
}

/// The baseline of a comparison cell chosen from the data
/// (`baseline = "best"`), as stats.json lists it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Chosen {
    /// The cell's row level.
    pub row: String,
    /// The cell's column level, if the table has columns.
    pub column: Option<String>,
    /// The level chosen, the levels it was chosen among and their scores.
    #[serde(flatten)]
    pub selected: crate::analysis::metrics::sides::Selected,
    /// The cell's comparison with that level: its value and 95% interval.
    pub value: f64,
    /// The 95% interval of `value`, if any.
    pub ci: Option<[f64; 2]>,
    /// The cell in words, as the table shows it (`+12.5% vs xz, …`).
    pub text: String,
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
    let written = Written {
        id: table.spec.id.clone(),
        csv: csv(&table),
        verdicts: verdicts(&table),
        chosen: chosen(&table, config),
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
    let line = |s: &str| s.replace('\n', " ");
    let heading =
        |level: &Option<crate::analysis::queries::filter::KeyPart>| match (level, &spec.columns) {
            // Unbreakable, as a narrow column in the paper would split it.
            (Some(level), Some(column)) => {
                format!("{column}\u{a0}=\u{a0}{}", label(level, column, config))
            }
            _ => spec.value.clone(),
        };
    let mut header = vec![line(&spec.rows)];
    header.extend(table.columns.iter().map(|c| line(&heading(c))));
    let rows = (table.rows.iter().zip(&table.cells))
        .map(|(row, cells)| {
            let mut out = vec![line(&label(row, &spec.rows, config))];
            out.extend(cells.iter().map(|c| line(&cell_text(c, spec, config))));
            out
        })
        .collect();
    let mut caption = match spec.cell.compared() {
        true => format!("{} {}", spec.caption, wording::table_note(table.tested())),
        false => spec.caption.clone(),
    };
    if let Some(note) = crate::prose::caveats::selected_baselines(spec, &[]) {
        caption.push(' ');
        caption.push_str(&note);
    }
    (line(&caption), header, rows)
}

/// A cell in words.
fn cell_text(c: &Cell, spec: &tables::TableSpec, config: &Config) -> String {
    match c {
        Cell::Statistic { value, .. } => {
            // A number and its unit stay together.
            wording::statistic(*value, spec.decimals, spec.unit.as_deref()).replace(' ', "\u{a0}")
        }
        Cell::Baseline => "baseline".into(),
        Cell::Comparison(m) => {
            let against = m.baseline_selected.as_ref().map(|s| label(&s.level, &m.factor, config));
            wording::table_cell(m, tables::verdict(m), against.as_deref())
        }
        Cell::Empty => "no runs".into(),
    }
}

/// Each comparison cell's baseline chosen from the data, row by row, with
/// the cell's figures and words.
fn chosen(table: &Computed, config: &Config) -> Vec<Chosen> {
    let mut out = Vec::new();
    for (row, cells) in table.rows.iter().zip(&table.cells) {
        for (column, c) in table.columns.iter().zip(cells) {
            if let Cell::Comparison(m) = c
                && let Some(selected) = &m.baseline_selected
            {
                let (row, column) = (row.to_string(), column.as_ref().map(ToString::to_string));
                let text = cell_text(c, &table.spec, config).replace('\u{a0}', " ");
                let selected = selected.clone();
                out.push(Chosen { row, column, selected, value: m.value, ci: m.ci, text });
            }
        }
    }
    out
}

/// Each cell's verdict.
fn verdicts(table: &Computed) -> Vec<Vec<Option<Verdict>>> {
    let verdict = |c: &Cell| match c {
        Cell::Comparison(m) => Some(tables::verdict(m)),
        _ => None,
    };
    table.cells.iter().map(|row| row.iter().map(verdict).collect()).collect()
}

/// The cells as CSV: row, column, what the cell holds, its value, interval,
/// p, Holm's p, verdict and runs; with `baseline = "best"`, each
/// comparison's baseline as chosen.
fn csv(table: &Computed) -> String {
    let mut out = csv::Writer::from_writer(Vec::new());
    let chosen = tables::selects_baseline(&table.spec);
    let mut header =
        vec!["row", "column", "cell", "value", "ci_low", "ci_high", "p", "p_holm", "verdict", "n"];
    if chosen {
        header.push("baseline");
    }
    let _ = out.write_record(header);
    for (row, cells) in table.rows.iter().zip(&table.cells) {
        for (column, c) in table.columns.iter().zip(cells) {
            let column = column.as_ref().map(ToString::to_string).unwrap_or_default();
            let _ = out.write_record(record(row.to_string(), column, c, chosen));
        }
    }
    String::from_utf8(out.into_inner().unwrap_or_default()).unwrap_or_default()
}

/// One cell's line of the CSV, with its chosen baseline if `chosen`.
fn record(row: String, column: String, c: &Cell, chosen: bool) -> Vec<String> {
    let number = |x: Option<f64>| x.map(|x| format!("{x}")).unwrap_or_default();
    let (kind, value, ci, p, holm, verdict, n) = match c {
        Cell::Statistic { value, n } => {
            ("statistic", Some(*value), None, None, None, None, Some(*n))
        }
        Cell::Baseline => ("baseline", None, None, None, None, None, None),
        Cell::Empty => ("empty", None, None, None, None, None, None),
        Cell::Comparison(m) => {
            let n = m.baseline.as_ref().map_or(m.candidate.n, |b| b.n.min(m.candidate.n));
            let verdict = Some(tables::verdict(m));
            ("comparison", Some(m.value), m.ci, m.p_value, m.p_holm, verdict, Some(n))
        }
    };
    let verdict = verdict.map(|v| format!("{v:?}").to_lowercase()).unwrap_or_default();
    let [lo, hi] = ci.map_or([None, None], |[a, b]| [Some(a), Some(b)]);
    let n = n.map(|n| n.to_string()).unwrap_or_default();
    let mut record = vec![
        row,
        column,
        kind.into(),
        number(value),
        number(lo),
        number(hi),
        number(p),
        number(holm),
        verdict,
        n,
    ];
    if chosen {
        let level = match c {
            Cell::Comparison(m) => m.baseline_selected.as_ref().map(|s| s.level.clone()),
            _ => None,
        };
        record.push(level.unwrap_or_default());
    }
    record
}
