//! The slice of a table a study reads (`[data.NAME] where`): which columns it
//! uses, which row groups of a Parquet file can hold its rows (by their
//! statistics), and which rows are in it.

use std::collections::{BTreeMap, BTreeSet};

use parquet::basic::{ConvertedType, LogicalType, Type as Physical};
use parquet::file::metadata::{ColumnChunkMetaData, RowGroupMetaData};
use parquet::file::statistics::Statistics;

use super::parquet::Plain;
use super::{Table, Values};
use crate::config::{Config, Dataset, FilterValue};

/// The columns of table `name` that book.toml names anywhere a build reads
/// them: its `[data.NAME]` section (`columns`, `key`, `group-by`,
/// `problem-size`, `where`, `exclude`, `labels`, `scaling`, the columns in
/// `derive`), the metrics of the table (`value`, `where`, `factor`, `per`,
/// `interaction`) and the study's columns (`environment-column`,
/// `nodes-column`, `factors`). Names that are not columns are harmless.
pub(super) fn used_columns(name: &str, dataset: &Dataset, config: &Config) -> BTreeSet<String> {
    let mut used: BTreeSet<String> = BTreeSet::new();
    used.extend(dataset.columns.keys().cloned());
    used.extend(dataset.key.iter().chain(&dataset.group_by).chain(&dataset.problem_size).cloned());
    used.extend(dataset.slice.keys().cloned());
    used.extend(dataset.exclude.iter().flat_map(|e| e.rows.keys().cloned()));
    used.extend(dataset.labels.keys().cloned());
    if let Some(scaling) = &dataset.scaling {
        used.extend([scaling.by.clone(), scaling.value.clone()]);
    }
    used.extend(dataset.derive.values().flat_map(|e| identifiers(e)));
    for metric in config.metrics.iter().filter(|m| m.data == name) {
        used.insert(metric.value.clone());
        used.extend(metric.filter.keys().cloned());
        used.extend(metric.factor.iter().chain(&metric.per).chain(&metric.interaction).cloned());
    }
    let study = &config.study;
    used.extend([study.environment_column.clone(), study.nodes_column.clone()]);
    used.extend(study.factors.iter().cloned());
    used
}

/// The names in an arithmetic expression (`loop_time_s * procs / 100`).
fn identifiers(expression: &str) -> Vec<String> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    expression
        .split(|c: char| !word(c))
        .filter(|w| w.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_'))
        .map(str::to_string)
        .collect()
}

/// Whether row group `group` can hold a row meeting every condition of
/// `slice` (on the file's columns), by the minimum and maximum its footer
/// records for each column: false only when a column's statistics rule
/// every wanted value out. Statistics of a kind not compared here (decimals,
/// dates, unsigned integers) keep the group.
pub(super) fn may_match(group: &RowGroupMetaData, slice: &BTreeMap<String, FilterValue>) -> bool {
    slice.iter().all(|(name, condition)| {
        let chunk = group.columns().iter().find(|c| c.column_path().string() == *name);
        chunk.and_then(bounds).is_none_or(|bounds| bounds.admit(condition))
    })
}

/// The least and greatest value of a column chunk, by its statistics.
enum Bounds {
    Number(f64, f64),
    Text(Vec<u8>, Vec<u8>),
}

/// The bounds of `chunk` when its statistics are exact enough to compare:
/// signed integers and floats as numbers, UTF-8 strings as bytes.
fn bounds(chunk: &ColumnChunkMetaData) -> Option<Bounds> {
    let descr = chunk.column_descr();
    let plain = descr.logical_type_ref().is_none_or(|t| match t {
        LogicalType::Integer(int) => int.is_signed,
        t => matches!(t, LogicalType::String),
    }) && matches!(
        descr.converted_type(),
        ConvertedType::NONE
            | ConvertedType::UTF8
            | ConvertedType::INT_8
            | ConvertedType::INT_16
            | ConvertedType::INT_32
            | ConvertedType::INT_64
    );
    if !plain {
        return None;
    }
    let number = |min: Option<f64>, max: Option<f64>| Some(Bounds::Number(min?, max?));
    match (chunk.statistics()?, descr.physical_type()) {
        (Statistics::Int32(s), Physical::INT32) => {
            number(s.min_opt().map(|&v| f64::from(v)), s.max_opt().map(|&v| f64::from(v)))
        }
        (Statistics::Int64(s), Physical::INT64) => {
            number(s.min_opt().map(|&v| v as f64), s.max_opt().map(|&v| v as f64))
        }
        (Statistics::Float(s), _) => {
            number(s.min_opt().map(|&v| f64::from(v)), s.max_opt().map(|&v| f64::from(v)))
        }
        (Statistics::Double(s), _) => number(s.min_opt().copied(), s.max_opt().copied()),
        (Statistics::ByteArray(s), Physical::BYTE_ARRAY)
            if descr.logical_type_ref().is_some()
                || descr.converted_type() == ConvertedType::UTF8 =>
        {
            let (min, max) = (s.min_opt()?, s.max_opt()?);
            Some(Bounds::Text(min.data().to_vec(), max.data().to_vec()))
        }
        _ => None,
    }
}

impl Bounds {
    /// Whether a value within the bounds can meet `condition`.
    fn admit(&self, condition: &FilterValue) -> bool {
        match (self, condition) {
            (_, FilterValue::AnyOf(options)) => options.iter().any(|o| self.admit(o)),
            (Bounds::Number(min, max), FilterValue::Number(n)) => min <= n && n <= max,
            (Bounds::Number(min, max), FilterValue::Range(range)) => {
                range.min.is_none_or(|m| m <= *max) && range.max.is_none_or(|m| m >= *min)
            }
            (Bounds::Text(min, max), FilterValue::Text(t)) => {
                min.as_slice() <= t.as_bytes() && t.as_bytes() <= max.as_slice()
            }
            // A text condition on numbers, or a number on text: compared as
            // text after reading, never ruled out here.
            _ => !matches!((self, condition), (Bounds::Text(..), FilterValue::Range(_))),
        }
    }
}

/// Which rows of `columns` meet every condition of `slice` on them (`None`
/// when all do: no condition names one of them).
pub(super) fn rows(
    columns: &[(String, Plain)],
    slice: &BTreeMap<String, FilterValue>,
) -> Option<Vec<bool>> {
    let mut keep: Option<Vec<bool>> = None;
    for (name, plain) in columns {
        let Some(condition) = slice.get(name) else { continue };
        let pass: Vec<bool> = match plain {
            Plain::Number(values) => {
                values.iter().map(|&v| condition.holds_for_number(v)).collect()
            }
            Plain::Text(words, codes) => {
                let holds: Vec<bool> = words.iter().map(|w| condition.holds_for_text(w)).collect();
                codes.iter().map(|&c| holds[c as usize]).collect()
            }
        };
        keep = Some(match keep {
            None => pass,
            Some(keep) => keep.iter().zip(pass).map(|(a, b)| *a && b).collect(),
        });
    }
    keep
}

/// `values` without the rows `keep` leaves out.
pub(super) fn kept<T: Copy>(values: &[T], keep: &[bool]) -> Vec<T> {
    values.iter().zip(keep).filter(|(_, k)| **k).map(|(v, _)| *v).collect()
}

/// `table` without the rows outside `slice` (a CSV or single Parquet file,
/// read whole, then sliced).
pub(super) fn sliced(mut table: Table, slice: &BTreeMap<String, FilterValue>) -> Table {
    if slice.is_empty() {
        return table;
    }
    let mut keep = vec![true; table.len()];
    for column in &table.columns {
        let Some(condition) = slice.get(&column.name) else { continue };
        for (row, k) in keep.iter_mut().enumerate() {
            *k = *k
                && match &column.values {
                    Values::Number(v) => condition.holds_for_number(v[row]),
                    Values::Text(t) => condition.holds_for_text(t.get(row)),
                };
        }
    }
    table.lines = kept(&table.lines, &keep);
    for column in &mut table.columns {
        match &mut column.values {
            Values::Number(v) => *v = kept(v, &keep),
            Values::Text(t) => t.codes = kept(&t.codes, &keep),
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Range;

    #[test]
    fn identifiers_are_the_names_of_an_expression() {
        assert_eq!(
            identifiers("loop_time_s * procs / 100 + (x2-_y)"),
            ["loop_time_s", "procs", "x2", "_y"]
        );
    }

    /// Bounds admit a condition exactly when some value between them meets it.
    #[test]
    fn bounds_admit_what_lies_between_them() {
        let numbers = Bounds::Number(2.0, 8.0);
        let range = |min, max| FilterValue::Range(Range { min, max });
        assert!(numbers.admit(&FilterValue::Number(2.0)));
        assert!(!numbers.admit(&FilterValue::Number(9.0)));
        assert!(numbers.admit(&range(Some(8.0), None)));
        assert!(!numbers.admit(&range(Some(8.5), None)));
        assert!(!numbers.admit(&range(None, Some(1.0))));
        let any = FilterValue::AnyOf(vec![FilterValue::Number(1.0), FilterValue::Number(4.0)]);
        assert!(numbers.admit(&any));
        let text = Bounds::Text(b"b010".to_vec(), b"b019".to_vec());
        assert!(text.admit(&FilterValue::Text("b012".into())));
        assert!(!text.admit(&FilterValue::Text("b042".into())));
        assert!(!text.admit(&range(Some(1.0), None)));
    }

    #[test]
    fn rows_meet_every_condition() {
        let columns = vec![
            ("a".to_string(), Plain::Number(vec![1.0, 2.0, 3.0])),
            ("b".to_string(), Plain::Text(vec!["x".into(), "y".into()], vec![0, 1, 0])),
        ];
        let slice = BTreeMap::from([
            ("a".to_string(), FilterValue::Range(Range { min: Some(2.0), max: None })),
            ("b".to_string(), FilterValue::Text("x".into())),
        ]);
        assert_eq!(rows(&columns, &slice), Some(vec![false, false, true]));
        assert_eq!(rows(&columns, &BTreeMap::new()), None);
        assert_eq!(kept(&[1, 2, 3], &[true, false, true]), [1, 3]);
    }

    /// A CSV file's slice keeps the rows that meet it, with their lines.
    #[test]
    fn a_table_is_sliced_row_by_row() {
        let texts: crate::results::Texts = ["b1", "b2", "b2", "b3"].into_iter().collect();
        let table = Table::new(
            "runs",
            "results/runs.csv",
            vec![
                ("bench", Values::Text(texts)),
                ("procs", Values::numbers_of(&[2.0, 2.0, 4.0, 4.0])),
            ],
        );
        let slice = BTreeMap::from([
            (
                "bench".to_string(),
                FilterValue::AnyOf(vec![
                    FilterValue::Text("b2".into()),
                    FilterValue::Text("b3".into()),
                ]),
            ),
            ("procs".to_string(), FilterValue::Number(4.0)),
        ]);
        let sliced = sliced(table, &slice);
        assert_eq!(sliced.lines, [4, 5]);
        assert_eq!(sliced.columns[0].values.text_at(0), "b2");
        assert_eq!(sliced.columns[0].values.text_at(1), "b3");
        assert_eq!(sliced.columns[1].values, Values::numbers_of(&[4.0, 4.0]));
    }
}
