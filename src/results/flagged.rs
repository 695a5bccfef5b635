//! The rows a check flags: how many, the first few, and where their cells are
//! in the file, for the diagnostics of [`super::validate`] and [`super::counts`].

use super::{CHUNK_ROWS, Chunks, Table};
use crate::diagnostic::Location;
use crate::project::SourceFile;

/// Most duplicate runs or bad counts whose values are named per file (all are counted).
pub(super) const MAX_SHOWN: usize = 50;

/// The locations of the cells of column `index` in `rows` of `table` (a CSV
/// file is read again for their columns: this is the error path; a Parquet
/// row has no columns).
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
        rows.iter().map(|&row| (u64::from(table.lines.get(row)), index)).collect();
    super::read::locate(file, &wanted)
        .into_iter()
        .map(|(line, column)| Location::new(&file.path, line as usize, column))
        .collect()
}

/// The first `limit` rows of `values` (chunk by chunk) that pass `bad`.
pub(super) fn first_rows<T: bytemuck::Pod>(
    values: &Chunks<T>,
    limit: usize,
    bad: impl Fn(T) -> bool,
) -> Vec<usize> {
    let mut rows: Vec<usize> = Vec::new();
    for i in 0..values.chunk_count() {
        if rows.len() == limit {
            break;
        }
        let chunk = values.chunk(i);
        let found =
            chunk.iter().enumerate().filter(|(_, v)| bad(**v)).map(|(r, _)| i * CHUNK_ROWS + r);
        rows.extend(found.take(limit - rows.len()));
    }
    rows
}

/// How many values of `values` pass `bad`.
pub(super) fn count<T: bytemuck::Pod>(values: &Chunks<T>, bad: impl Fn(T) -> bool) -> usize {
    (0..values.chunk_count()).map(|i| values.chunk(i).iter().filter(|v| bad(**v)).count()).sum()
}
