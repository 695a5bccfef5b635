//! Naming the runs behind outlying values: each outlier of a group is
//! found among the group's rows and named by the file's key (`run = 7`),
//! or by its line in the file when the file declares no key.

use super::filter::{KeyPart, key_part};
use crate::analysis::statistics::robust::Outlier;
use crate::results::Table;

/// Largest table whose rows are searched for the runs of outliers.
const SEARCHED_ROWS: usize = 200_000;

/// Most outliers of a group named.
const NAMED: usize = 20;

/// Name each of `outliers` (values of `column` in the group of `table`
/// whose columns `by` hold `key`) by the key columns of `key_columns` not in
/// `by`, or by its line.
pub(crate) fn name(
    outliers: &mut [Outlier],
    table: &Table,
    (by, key): (&[&str], &[KeyPart]),
    column: &str,
    key_columns: &[String],
) {
    if outliers.is_empty() || outliers.len() > NAMED || table.len() > SEARCHED_ROWS {
        return;
    }
    let Some(values) = table.column(column).and_then(|c| c.values.numbers()) else { return };
    let naming: Vec<(&str, &crate::results::Values)> = key_columns
        .iter()
        .filter(|k| !by.contains(&k.as_str()))
        .filter_map(|k| table.column(k).map(|c| (k.as_str(), &c.values)))
        .collect();
    let by: Vec<_> = by.iter().filter_map(|c| table.column(c)).map(|c| &c.values).collect();
    let mut used = vec![false; outliers.len()];
    for (row, &value) in values.iter().enumerate() {
        let Some(i) = (0..outliers.len()).find(|&i| !used[i] && outliers[i].value == value) else {
            continue;
        };
        if by.iter().zip(key).any(|(v, k)| key_part(v, row) != *k) {
            continue;
        }
        used[i] = true;
        outliers[i].run = Some(if naming.is_empty() {
            table.place(row)
        } else {
            let parts: Vec<String> =
                naming.iter().map(|(k, v)| format!("{k} = {}", key_part(v, row))).collect();
            parts.join(", ")
        });
    }
}
