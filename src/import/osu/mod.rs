//! OSU micro-benchmark output: every benchmark of the suite (point-to-point,
//! collective, one-sided, startup), versions 5.x to 7.x, every column its
//! table prints, tables without a size column (`osu_barrier`), several
//! tables and benchmarks in one file, noise around them. Each title line
//! followed by its table is one run.

mod format;
pub mod titles;

pub use format::Osu;

use std::collections::BTreeMap;

use super::launcher::{self, Launch};
use super::unwrap::Line;
use super::{Note, Refusal};
use crate::format::plain;

/// Columns a table may have, past which its header is not believed.
const MAX_COLUMNS: usize = 32;

/// One table: a benchmark run.
#[derive(Debug, Clone, PartialEq)]
pub struct OsuTable {
    /// The program: `osu_latency`, `osu_mbw_mr`, `osu_barrier`…
    pub benchmark: String,
    /// Version from the title, such as `5.8`.
    pub version: String,
    /// The 1-based line of its title.
    pub at: usize,
    /// The CSV columns of its headings (`size_bytes` first when it has sizes).
    pub columns: Vec<String>,
    /// One row per line of the table, a cell per column, numbers as text.
    pub rows: Vec<Vec<String>>,
    /// The last launcher line before the title, if any.
    pub launch: Option<Launch>,
}

/// The tables of one file, and what could not be read.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    /// Tables with rows, in file order.
    pub tables: Vec<OsuTable>,
    /// Tables skipped, and why.
    pub notes: Vec<Note>,
}

/// The table being read: its headings and where its rows are.
struct Open {
    table: OsuTable,
    headings: Option<Vec<String>>,
}

/// Every table in `lines`, in order. A value that no run measures (NaN,
/// infinite, negative) refuses the whole file at its line: a file imports
/// whole or not at all, so that once fixed it imports without doubling the
/// good tables.
pub fn parse(text: &str) -> Result<Parsed, Refusal> {
    parse_lines(&super::unwrap::lines(std::path::Path::new(""), text).1)
}

/// [`parse`] of the lines of a file, unwrapped ([`super::unwrap::lines`]).
pub fn parse_lines(lines: &[Line]) -> Result<Parsed, Refusal> {
    let (mut parsed, mut open, mut launch) = (Parsed::default(), None::<Open>, None);
    let mut headless: Option<usize> = None;
    for line in lines {
        let text = line.text.trim();
        if let Some(l) = launcher::parse(text, line.at) {
            launch = Some(l);
        }
        if let Some(title) = text.strip_prefix("# OSU ") {
            close(&mut parsed, open.take());
            let (benchmark, version) = titles::benchmark(title);
            let table = OsuTable {
                benchmark,
                version,
                at: line.at,
                columns: Vec::new(),
                rows: Vec::new(),
                launch,
            };
            open = Some(Open { table, headings: None });
        } else if let Some(heading) = text.strip_prefix('#') {
            match open.as_mut() {
                Some(o) if o.table.rows.is_empty() => {
                    o.headings = headings(heading).or(o.headings.take())
                }
                Some(_) => close(&mut parsed, open.take()),
                None if headings(heading).is_some() => headless = headless.or(Some(line.at)),
                None => {}
            }
        } else if let Some(o) = open.as_mut().filter(|o| o.headings.is_none())
            && let Some(names) = bare_headings(text)
        {
            // osu_ibarrier prints its headings without `#`.
            o.headings = Some(names);
        } else if let Some(o) = open.as_mut().filter(|o| o.headings.is_some()) {
            match row(o, text, line.at)? {
                Some(cells) => o.table.rows.push(cells),
                None if !o.table.rows.is_empty() => close(&mut parsed, open.take()),
                None => {}
            }
        }
    }
    close(&mut parsed, open.take());
    if parsed.tables.is_empty() {
        return Err(nothing(&parsed, headless));
    }
    Ok(parsed)
}

/// Keep a finished table, or say why it gives no row.
fn close(parsed: &mut Parsed, open: Option<Open>) {
    let Some(Open { table, headings }) = open else { return };
    let name = &table.benchmark;
    if titles::WITHOUT_MEASUREMENTS.contains(&name.as_str()) {
        parsed.notes.push(Note::new(table.at, format!("{name} holds no measurements: skipped")));
    } else if headings.is_none() {
        parsed.notes.push(Note::new(
            table.at,
            format!(
                "the {name} table has no column headings (a `# Size  Latency (us)` line): skipped"
            ),
        ));
    } else if table.rows.is_empty() {
        parsed.notes.push(Note::new(
            table.at,
            format!("the {name} table has no rows: the benchmark did not finish; skipped"),
        ));
    } else {
        parsed.tables.push(table);
    }
}

/// Why a file gives no table.
fn nothing(parsed: &Parsed, headless: Option<usize>) -> Refusal {
    if let Some(note) = parsed.notes.first() {
        return Refusal::new(format!("no OSU measurements: {}", note.message))
            .at(note.at)
            .hint("give the output of a benchmark that measures, such as osu_latency");
    }
    match headless {
        Some(at) => Refusal::new(
            "an OSU table without its `# OSU MPI … Test` title: the benchmark cannot be told",
        )
        .at(at)
        .hint("keep the title line that the benchmark prints above its table"),
        None => Refusal::new("no OSU output: no `# OSU MPI … Test` title line")
            .hint("give files holding OSU micro-benchmark output"),
    }
}

/// The column names of a heading line (the text after `#`), or `None` when
/// it is not one (`# Datatype: MPI_CHAR.`, `# [ pairs: 2 ]`, `# Overall = …`).
/// Headings are separated by two or more spaces: `Latency (us)` is one.
fn headings(text: &str) -> Option<Vec<String>> {
    if text.contains([':', '=', '[']) || !text.contains(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let names: Vec<String> =
        text.split("  ").map(str::trim).filter(|s| !s.is_empty()).map(titles::column).collect();
    (!names.is_empty() && names.len() <= MAX_COLUMNS).then_some(names)
}

/// Headings printed without `#`, as `osu_ibarrier` of OSU 5.x prints
/// `Overall(us)  Compute(us)  Pure Comm.(us)  Overlap(%)`: believed only
/// when every one names its unit in parentheses, so that no other text
/// passes for them.
fn bare_headings(text: &str) -> Option<Vec<String>> {
    let units = text.split("  ").map(str::trim).filter(|s| !s.is_empty());
    if !units.clone().all(|h| h.ends_with(')') && h.contains('(')) {
        return None;
    }
    headings(text)
}

/// The cells of a table row, `None` when `text` is not one. A value that no
/// run measures refuses the file at line `at`.
fn row(open: &mut Open, text: &str, at: usize) -> Result<Option<Vec<String>>, Refusal> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let Some(headings) = open.headings.as_mut() else { return Ok(None) };
    // `# Size Latency (us)`, one space apart: two headings when the rows have two fields.
    if fields.len() == 2 && headings.len() == 1 && headings[0].starts_with("size_") {
        headings.push(titles::column(&headings[0]["size_".len()..]));
        headings[0] = "size_bytes".into();
    }
    if fields.len() != headings.len() {
        return Ok(None);
    }
    let mut cells = Vec::with_capacity(fields.len());
    for (word, column) in fields.iter().zip(headings.iter()) {
        match cell(word, column) {
            Some(Ok(cell)) => cells.push(cell),
            Some(Err(why)) => return Err(refuse(&open.table.benchmark, column, word, &why).at(at)),
            None => return Ok(None),
        }
    }
    open.table.columns.clone_from(headings);
    Ok(Some(cells))
}

/// One cell: a message size (a whole number), a validation word, or a
/// number; `None` when `word` is none of these (the line is not a row),
/// an error when it is a number that no run measures.
fn cell(word: &str, column: &str) -> Option<Result<String, String>> {
    if column == "size_bytes" {
        return word.parse::<u64>().ok().map(|s| Ok(s.to_string()));
    }
    if column == "validation" {
        let ok =
            matches!(word.to_ascii_lowercase().as_str(), "pass" | "fail" | "passed" | "failed");
        return ok.then(|| Ok(word.to_ascii_lowercase()));
    }
    let value = word.parse::<f64>().ok()?;
    let signed = column.starts_with("overlap");
    Some(if value.is_finite() && (signed || value >= 0.0) {
        Ok(plain(value))
    } else {
        Err("not a finite number of zero or more".into())
    })
}

/// The refusal of a value that no run measures.
fn refuse(benchmark: &str, column: &str, word: &str, why: &str) -> Refusal {
    Refusal::new(format!("the {benchmark} table gives {column} `{word}`, which is {why}; no row of this file was imported"))
        .hint("the benchmark failed there: run it again, or remove the broken table from the file (the file's other tables are then imported)")
}

/// The tables of `parsed` by benchmark, in file order within each.
pub fn by_benchmark(parsed: &Parsed) -> BTreeMap<&str, Vec<&OsuTable>> {
    let mut out: BTreeMap<&str, Vec<&OsuTable>> = BTreeMap::new();
    for table in &parsed.tables {
        out.entry(table.benchmark.as_str()).or_default().push(table);
    }
    out
}

#[cfg(test)]
mod tests;
