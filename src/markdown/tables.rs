//! ```` ```table ```` directives: each parsed, computed from the results
//! ([`crate::analysis::tables`]) and written in its place as a captioned
//! Markdown table, which both renderers number and set like any other.

use std::ops::Range;
use std::path::Path;

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

use super::expand::{SourceMap, escape_markdown};
use crate::analysis::tables::{self, Cell, Computed, Verdict};
use crate::config::Config;
use crate::diagnostic::Diagnostics;
use crate::prose::metric as wording;
use crate::results::ResultSet;

/// A computed table as written: its id, its data as CSV, and each cell's
/// verdict (`None` for statistics, the baseline and empty cells).
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// The table's id, without `tbl-`.
    pub id: String,
    /// Its cells as CSV, one line per cell.
    pub csv: String,
    /// Each cell's verdict, `verdicts[row][column]`.
    pub verdicts: Vec<Vec<Option<Verdict>>>,
}

/// The ```` ```table ```` blocks of `markdown`: their byte ranges and bodies.
fn blocks(markdown: &str) -> Vec<(Range<usize>, String)> {
    let mut out = Vec::new();
    let mut open: Option<(Range<usize>, String)> = None;
    for (event, range) in Parser::new_ext(markdown, super::options()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang)))
                if lang.as_ref() == "table" =>
            {
                open = Some((range, String::new()));
            }
            Event::Text(text) => open.iter_mut().for_each(|(_, body)| body.push_str(&text)),
            Event::End(TagEnd::CodeBlock) => out.extend(open.take()),
            _ => {}
        }
    }
    out
}

/// `markdown` (of the file `path`, mapped by `map`) with each table
/// directive replaced by its computed table.
pub fn expand(
    path: &Path,
    (markdown, map): (&str, &SourceMap),
    results: &ResultSet,
    config: &Config,
) -> Result<(String, SourceMap, Vec<Written>), Diagnostics> {
    let mut errors = Diagnostics::default();
    let mut replacements = Vec::new();
    let mut written = Vec::new();
    for (range, body) in blocks(markdown) {
        let location = map.locate(path, range.start);
        let computed = tables::parse(&body, &location)
            .and_then(|spec| tables::compute(&spec, results, config));
        match computed {
            Ok(table) => {
                replacements.push((range, markdown_table(&table, config)));
                written.push(Written {
                    id: table.spec.id.clone(),
                    csv: csv(&table),
                    verdicts: verdicts(&table),
                });
            }
            Err(error) => errors.push(error),
        }
    }
    let (text, map) = map.splice(markdown, &replacements);
    errors.into_result((text, map, written))
}

/// A level as a reader sees it: an environment's label, or the value.
fn label(level: &impl ToString, factor: &str, config: &Config) -> String {
    let level = level.to_string();
    match config.environments.get(&level) {
        Some(env) if factor == config.study.environment_column => env.label.clone(),
        _ => level,
    }
}

/// The table as Markdown: a header of the columns' levels, a row per level
/// of `rows`, and the caption with its id.
fn markdown_table(table: &Computed, config: &Config) -> String {
    let spec = &table.spec;
    let cell = |s: &str| escape_markdown(s).replace('\n', " ");
    let heading = |level: &Option<crate::analysis::filter::KeyPart>| match (level, &spec.columns) {
        (Some(level), Some(column)) => format!("{column} = {}", label(level, column, config)),
        _ => spec.value.clone(),
    };
    let mut out = format!("| {} |", cell(&spec.rows));
    for column in &table.columns {
        out.push_str(&format!(" {} |", cell(&heading(column))));
    }
    out.push_str("\n|:--|");
    out.push_str(&"--:|".repeat(table.columns.len()));
    out.push('\n');
    for (row, cells) in table.rows.iter().zip(&table.cells) {
        out.push_str(&format!("| {} |", cell(&label(row, &spec.rows, config))));
        for c in cells {
            out.push_str(&format!(" {} |", cell(&cell_text(c, spec))));
        }
        out.push('\n');
    }
    let caption = match spec.cell.compared() {
        true => format!("{} {}", spec.caption, wording::table_note(table.tested())),
        false => spec.caption.clone(),
    };
    out.push_str(&format!("\nTable: {} {{#tbl-{}}}\n\n", cell(&caption), spec.id));
    out
}

/// A cell in words.
fn cell_text(c: &Cell, spec: &tables::TableSpec) -> String {
    match c {
        Cell::Statistic { value, .. } => {
            wording::statistic(*value, spec.decimals, spec.unit.as_deref())
        }
        Cell::Baseline => "baseline".into(),
        Cell::Comparison(m) => wording::table_cell(m, tables::verdict(m)),
        Cell::Empty => "no runs".into(),
    }
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
/// p, Holm's p, verdict and runs.
fn csv(table: &Computed) -> String {
    let mut out = csv::Writer::from_writer(Vec::new());
    let header =
        ["row", "column", "cell", "value", "ci_low", "ci_high", "p", "p_holm", "verdict", "n"];
    let _ = out.write_record(header);
    let number = |x: Option<f64>| x.map(|x| format!("{x}")).unwrap_or_default();
    for (row, cells) in table.rows.iter().zip(&table.cells) {
        for (column, c) in table.columns.iter().zip(cells) {
            let column = column.as_ref().map(ToString::to_string).unwrap_or_default();
            let (kind, value, ci, p, holm, verdict, n) = match c {
                Cell::Statistic { value, n } => {
                    ("statistic", Some(*value), None, None, None, None, Some(*n))
                }
                Cell::Baseline => ("baseline", None, None, None, None, None, None),
                Cell::Empty => ("empty", None, None, None, None, None, None),
                Cell::Comparison(m) => {
                    let n = m.baseline.as_ref().map_or(m.candidate.n, |b| b.n.min(m.candidate.n));
                    (
                        "comparison",
                        Some(m.value),
                        m.ci,
                        m.p_value,
                        m.p_holm,
                        Some(tables::verdict(m)),
                        Some(n),
                    )
                }
            };
            let verdict = verdict.map(|v| format!("{v:?}").to_lowercase()).unwrap_or_default();
            let [lo, hi] = ci.map_or([None, None], |[a, b]| [Some(a), Some(b)]);
            let n = n.map(|n| n.to_string()).unwrap_or_default();
            let record = [
                row.to_string(),
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
            let _ = out.write_record(&record);
        }
    }
    String::from_utf8(out.into_inner().unwrap_or_default()).unwrap_or_default()
}
