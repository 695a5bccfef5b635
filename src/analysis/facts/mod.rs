//! Facts the prose states beyond one comparison, computed from the
//! analysis as typed values, no words: where a column's mean is largest or
//! smallest ([`peak`]), whether a comparison holds at every level of a
//! family, at some or at none ([`tally`]), and how many levels a column
//! has and what they span ([`levels`]). `crate::prose::facts` words them,
//! the same for the page and the paper; the `peak`, `every`, `count` and
//! `range` shortcodes of the content cite them.

pub mod levels;
pub mod peak;
pub mod tally;

use std::cmp::Ordering;

use super::{Analysis, Group};

/// The groups of the results file `file` (a path as the analysis names
/// it) and its column `column`.
fn groups<'a>(
    analysis: &'a Analysis,
    file: &'a str,
    column: &'a str,
) -> impl Iterator<Item = &'a Group> {
    analysis.groups.iter().filter(move |g| g.inputs.file == file && g.inputs.column == column)
}

/// The results file of the analysis that `names` name: a stem
/// (`lammps`) or a file name (`lammps.csv`), as the analysis's inputs
/// give it (`results/lammps.csv`).
pub fn file<'a>(analysis: &'a Analysis, names: &[&str]) -> Option<&'a str> {
    analysis.groups.iter().map(|g| g.inputs.file.as_str()).find(|file| {
        let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
        let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
        names.iter().any(|n| *n == name || *n == stem)
    })
}

/// The measured columns of `file`, in the order of the analysis.
pub fn columns<'a>(analysis: &'a Analysis, file: &str) -> Vec<&'a str> {
    let mut columns: Vec<&str> = Vec::new();
    for g in analysis.groups.iter().filter(|g| g.inputs.file == file) {
        if !columns.contains(&g.inputs.column.as_str()) {
            columns.push(&g.inputs.column);
        }
    }
    columns
}

/// The configuration columns (`group-by`) of `file`.
pub fn factors<'a>(analysis: &'a Analysis, file: &str) -> Vec<&'a str> {
    let mut factors: Vec<&str> = Vec::new();
    for g in analysis.groups.iter().filter(|g| g.inputs.file == file) {
        for key in g.config.keys() {
            if !factors.contains(&key.as_str()) {
                factors.push(key);
            }
        }
    }
    factors
}

/// The order of two levels of a column: as numbers when both are, else as text.
pub fn level_order(a: &str, b: &str) -> Ordering {
    match (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
        (Ok(x), Ok(y)) => x.total_cmp(&y),
        _ => a.cmp(b),
    }
}
