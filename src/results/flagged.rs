//! The rows a check flags: how many, the first few, and where their cells are
//! in the file, for the diagnostics of [`super::validate`] and [`super::counts`].

use super::Table;
use crate::diagnostic::Location;
use crate::project::SourceFile;

/// Most duplicate runs or bad counts whose values are named per file (all are counted).
pub(super) const MAX_SHOWN: usize = 50;

/// The locations of the cells of column `index` in `rows` of `table`, read
/// from `file` (its content in memory); a Parquet row has no columns.
pub(super) fn locations(
    table: &Table,
    file: &SourceFile,
    rows: &[usize],
    index: usize,
) -> Vec<Location> {
    if super::is_parquet(&file.path) {
        return rows.iter().map(|&row| table.location(row, 0)).collect();
    }
    let wanted: Vec<(u64, usize)> =
        rows.iter().map(|&row| (u64::from(table.lines[row]), index)).collect();
    super::read::locate(&file.bytes, &wanted)
        .into_iter()
        .map(|(line, column)| Location::new(&file.path, line as usize, column))
        .collect()
}

/// The first `limit` rows of `values` that pass `bad`.
pub(super) fn first_rows<T: Copy>(
    values: &[T],
    limit: usize,
    bad: impl Fn(T) -> bool,
) -> Vec<usize> {
    values.iter().enumerate().filter(|(_, v)| bad(**v)).map(|(r, _)| r).take(limit).collect()
}

/// How many values of `values` pass `bad`.
pub(super) fn count<T: Copy>(values: &[T], bad: impl Fn(T) -> bool) -> usize {
    values.iter().filter(|v| bad(**v)).count()
}
