//! `exclude` of `[data.NAME]`: the runs removed, each with its reason,
//! before any statistic or chart sees the results.

use std::collections::BTreeMap;

use serde::Serialize;

use super::filter::{self, key_part};
use crate::config::{Config, Dataset, Exclusion, FilterValue};
use crate::diagnostic::{Diagnostic, Diagnostics, Location, suggest};
use crate::results::{Column, ResultSet, Table, Texts, Values};

/// Most runs of one exclusion named.
const NAMED: usize = 20;

/// One exclusion of book.toml as applied: what it removed and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Excluded {
    /// Results file, relative to the study root.
    pub file: String,
    /// The rows removed, in words (`environment = bare-metal, procs = 256, run = 1`).
    pub filter: String,
    /// Why, as book.toml gives it.
    pub reason: String,
    /// How many rows it removed.
    pub rows: usize,
    /// The runs removed, named by the file's key (else by line); at most 20.
    pub runs: Vec<String>,
}

/// Remove the rows of every `exclude` of book.toml from `results`, and
/// say what was removed. An exclusion that names a column the file lacks,
/// or matches no row, is an error at its place in book.toml.
pub fn exclude(
    mut results: ResultSet,
    config: &Config,
) -> Result<(ResultSet, Vec<Excluded>), Diagnostics> {
    let (mut excluded, mut errors) = (Vec::new(), Diagnostics::default());
    for (name, dataset) in config.data.iter().filter(|(_, d)| !d.exclude.is_empty()) {
        let Some(table) = results.tables.get_mut(name) else { continue };
        let mut removed = vec![false; table.len()];
        for (i, exclusion) in dataset.exclude.iter().enumerate() {
            match matched(table, dataset, i, exclusion) {
                Ok((rows, applied)) => {
                    removed.iter_mut().zip(rows).for_each(|(r, m)| *r |= m);
                    excluded.push(applied);
                }
                Err(error) => errors.push(error),
            }
        }
        if removed.contains(&true) {
            *table = without(table, &removed);
        }
    }
    errors.into_result((results, excluded))
}

/// The rows exclusion `i` of `dataset` matches in `table`, and its record.
fn matched(
    table: &Table,
    dataset: &Dataset,
    i: usize,
    exclusion: &Exclusion,
) -> Result<(Vec<bool>, Excluded), Diagnostic> {
    let at = |path: &str| {
        let fallback = || Location::file("book.toml");
        dataset
            .at
            .get(path)
            .or_else(|| dataset.at.get(&format!("exclude.{i}")))
            .cloned()
            .unwrap_or_else(fallback)
    };
    let file = table.path.display().to_string();
    let rows = filter::rows(table, &exclusion.rows).map_err(|column| {
        let location = dataset
            .keys_at
            .get(&format!("exclude.{i}.where.{column}"))
            .cloned()
            .unwrap_or_else(|| at(&format!("exclude.{i}.where")));
        Diagnostic::new(location, format!("exclusion: {file} has no column `{column}`"))
            .hint(suggest(&column, table.column_names()))
    })?;
    let count = rows.iter().filter(|r| **r).count();
    if count == 0 {
        return Err(no_match(table, exclusion, at(&format!("exclude.{i}.where"))));
    }
    let runs = named(table, &dataset.key, &rows);
    let filter = filter::describe(&exclusion.rows);
    Ok((rows, Excluded { file, filter, reason: exclusion.reason.clone(), rows: count, runs }))
}

/// The error for an exclusion that matches no row: which condition alone
/// matches none, if one does.
fn no_match(table: &Table, exclusion: &Exclusion, at: Location) -> Diagnostic {
    let file = table.path.display();
    let alone = exclusion.rows.iter().find(|(column, condition)| {
        let one: BTreeMap<String, FilterValue> =
            [((*column).clone(), (*condition).clone())].into_iter().collect();
        filter::rows(table, &one).is_ok_and(|rows| !rows.contains(&true))
    });
    let hint = match alone {
        Some((column, condition)) => {
            let one: BTreeMap<String, FilterValue> =
                [(column.clone(), condition.clone())].into_iter().collect();
            format!(
                "no row of {file} has {}; values are matched as the file writes them",
                filter::describe(&one)
            )
        }
        None => format!("each condition matches some row of {file}, but no row matches them all"),
    };
    let message =
        format!("exclusion matches no row of {file}: {}", filter::describe(&exclusion.rows));
    Diagnostic::new(at, message).hint(format!("{hint}; remove the exclusion if the run is gone"))
}

/// The first [`NAMED`] rows of `rows`, by the `key` columns of `table` (else by line).
fn named(table: &Table, key: &[String], rows: &[bool]) -> Vec<String> {
    let columns: Vec<(&str, &Values)> =
        key.iter().filter_map(|k| table.column(k).map(|c| (k.as_str(), &c.values))).collect();
    let chosen = rows.iter().enumerate().filter(|(_, r)| **r).map(|(row, _)| row).take(NAMED);
    chosen
        .map(|row| {
            if columns.is_empty() {
                return table.place(row);
            }
            let parts: Vec<String> =
                columns.iter().map(|(k, v)| format!("{k} = {}", key_part(v, row))).collect();
            parts.join(", ")
        })
        .collect()
}

/// `table` without the rows marked in `removed`.
fn without(table: &Table, removed: &[bool]) -> Table {
    fn keep<T: Copy>(values: &[T], removed: &[bool]) -> Vec<T> {
        values.iter().zip(removed).filter(|(_, r)| !**r).map(|(v, _)| *v).collect()
    }
    let columns = table
        .columns
        .iter()
        .map(|c| Column {
            name: c.name.clone(),
            values: match &c.values {
                Values::Number(v) => Values::Number(keep(v, removed)),
                Values::Text(t) => {
                    Values::Text(Texts { words: t.words.clone(), codes: keep(&t.codes, removed) })
                }
            },
        })
        .collect();
    Table {
        name: table.name.clone(),
        path: table.path.clone(),
        columns,
        lines: keep(&table.lines, removed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        Table::new(
            "t",
            "results/t.csv",
            vec![
                ("env", Values::Text(["a", "a", "b", "b"].into_iter().collect())),
                ("run", Values::numbers_of(&[1.0, 2.0, 1.0, 2.0])),
                ("time", Values::numbers_of(&[10.0, 20.0, 30.0, 40.0])),
            ],
        )
    }

    #[test]
    fn removes_only_the_marked_rows() {
        let t = without(&table(), &[false, true, false, false]);
        assert_eq!(t.len(), 3);
        assert_eq!(
            t.column("time").unwrap().values.numbers().unwrap().to_vec(),
            [10.0, 30.0, 40.0]
        );
        assert_eq!(t.column("env").unwrap().values.text_at(1), "b");
        assert_eq!(t.lines.to_vec(), [2, 4, 5]);
    }

    #[test]
    fn runs_are_named_by_key_or_line() {
        let rows = [false, true, false, true];
        assert_eq!(
            named(&table(), &["env".into(), "run".into()], &rows),
            ["env = a, run = 2", "env = b, run = 2"]
        );
        assert_eq!(named(&table(), &[], &rows), ["line 3", "line 5"]);
    }
}
