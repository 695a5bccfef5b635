//! Row selection: a metric's `where` filter and grouping rows by column values.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::config::{FilterValue, Range};
use crate::format;
use crate::results::{Table, Values};

/// One value of a grouping column, ordered numerically when numeric.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyPart {
    /// A number.
    Number(f64),
    /// Text.
    Text(String),
}

impl Eq for KeyPart {}

impl Ord for KeyPart {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (KeyPart::Number(a), KeyPart::Number(b)) => a.total_cmp(b),
            (KeyPart::Number(_), KeyPart::Text(_)) => Ordering::Less,
            (KeyPart::Text(_), KeyPart::Number(_)) => Ordering::Greater,
            (KeyPart::Text(a), KeyPart::Text(b)) => a.cmp(b),
        }
    }
}

impl PartialOrd for KeyPart {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for KeyPart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyPart::Number(n) => f.write_str(&format::plain(*n)),
            KeyPart::Text(t) => f.write_str(t),
        }
    }
}

/// The value of `values` at `row` as a key part.
pub fn key_part(values: &Values, row: usize) -> KeyPart {
    match values {
        Values::Number(v) => KeyPart::Number(v[row]),
        Values::Text(v) => KeyPart::Text(v.get(row).to_string()),
    }
}

/// Rows of `rows` grouped by the values of `columns`, in sorted key order;
/// each group's rows keep their order.
pub fn group_rows(table: &Table, columns: &[&str], rows: &[usize]) -> BTreeMap<Vec<KeyPart>, Vec<usize>> {
    use rayon::prelude::*;
    let columns: Vec<&Values> = columns.iter().filter_map(|c| table.column(c)).map(|c| &c.values).collect();
    // Group slices of the rows on every core, then join the slices' groups in order.
    let parts: Vec<Compact> = rows.par_chunks(1 << 16).map(|chunk| group_compact(&columns, chunk)).collect();
    let mut parts = parts.into_iter();
    let mut all = parts.next().unwrap_or_default();
    for part in parts {
        for (key, rows) in part {
            all.entry(key).or_default().extend(rows);
        }
    }
    all.into_values().map(|rows| (columns.iter().map(|v| key_part(v, rows[0])).collect(), rows)).collect()
}

/// Rows grouped on compact keys: a number's bits, a text's code.
type Compact = rustc_hash::FxHashMap<Vec<u64>, Vec<usize>>;

/// Group `rows` on compact keys, without allocating per row (the few groups
/// are named afterwards).
fn group_compact(columns: &[&Values], rows: &[usize]) -> Compact {
    let mut compact = Compact::default();
    let mut key = Vec::with_capacity(columns.len());
    for &row in rows {
        key.clear();
        key.extend(columns.iter().map(|v| v.key_bits(row)));
        match compact.get_mut(key.as_slice()) {
            Some(rows) => rows.push(row),
            None => {
                compact.insert(key.clone(), vec![row]);
            }
        }
    }
    compact
}

/// Does `condition` hold for the value at `row`?
fn matches(values: &Values, row: usize, condition: &FilterValue) -> bool {
    match (condition, values) {
        (FilterValue::Number(n), Values::Number(v)) => v[row] == *n,
        (FilterValue::Text(t), Values::Text(v)) => v.get(row) == t,
        (FilterValue::Number(n), Values::Text(v)) => v.get(row) == format::plain(*n),
        (FilterValue::Text(t), Values::Number(v)) => format::plain(v[row]) == *t,
        (FilterValue::AnyOf(options), _) => options.iter().any(|o| matches(values, row, o)),
        (FilterValue::Range(Range { min, max }), Values::Number(v)) => {
            min.is_none_or(|m| v[row] >= m) && max.is_none_or(|m| v[row] <= m)
        }
        (FilterValue::Range(_), Values::Text(_)) => false,
    }
}

/// The rows of `table` that satisfy every condition of `filter`, or the name of
/// the first filter column the table lacks.
pub fn select(table: &Table, filter: &BTreeMap<String, FilterValue>) -> Result<Vec<usize>, String> {
    let mut conditions = Vec::new();
    for (column, condition) in filter {
        let values = &table.column(column).ok_or_else(|| column.clone())?.values;
        conditions.push((values, condition));
    }
    use rayon::prelude::*;
    // In row order, on every core.
    Ok((0..table.len()).into_par_iter().filter(|&row| conditions.iter().all(|(v, c)| matches(v, row, c))).collect())
}

/// A filter in words, such as `procs = 32` or `procs in 2..=32`.
pub fn describe(filter: &BTreeMap<String, FilterValue>) -> String {
    let parts: Vec<String> = filter.iter().map(|(column, c)| format!("{column} {}", describe_one(c))).collect();
    if parts.is_empty() { "all rows".to_string() } else { parts.join(", ") }
}

fn describe_one(condition: &FilterValue) -> String {
    match condition {
        FilterValue::Number(n) => format!("= {}", format::plain(*n)),
        FilterValue::Text(t) => format!("= {t}"),
        FilterValue::AnyOf(options) => {
            let options: Vec<String> = options.iter().map(|o| describe_one(o).trim_start_matches("= ").to_string()).collect();
            format!("in {{{}}}", options.join(", "))
        }
        FilterValue::Range(Range { min, max }) => {
            let end = |v: &Option<f64>| v.map(format::plain).unwrap_or_default();
            format!("in {}..={}", end(min), end(max))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Column;

    fn table() -> Table {
        Table {
            name: "t".into(),
            path: "results/t.csv".into(),
            columns: vec![
                Column { name: "procs".into(), values: Values::Number(vec![1.0, 2.0, 4.0, 32.0]) },
                Column { name: "env".into(), values: Values::Text(["a", "b", "a", "b"].into_iter().collect()) },
            ],
            lines: vec![2, 3, 4, 5],
        }
    }

    #[test]
    fn selects_by_value_list_and_range() {
        let t = table();
        let f = |s: &str| -> BTreeMap<String, FilterValue> { toml::from_str(s).unwrap() };
        assert_eq!(select(&t, &f("procs = 32")).unwrap(), vec![3]);
        assert_eq!(select(&t, &f("procs = [1, 4]")).unwrap(), vec![0, 2]);
        assert_eq!(select(&t, &f("procs = { min = 2, max = 4 }")).unwrap(), vec![1, 2]);
        assert_eq!(select(&t, &f("env = \"b\"\nprocs = { min = 4 }")).unwrap(), vec![3]);
        assert_eq!(select(&t, &f("nope = 1")), Err("nope".to_string()));
        assert_eq!(describe(&f("procs = { min = 2, max = 32 }")), "procs in 2..=32");
    }

    #[test]
    fn groups_sort_numerically() {
        let t = table();
        let groups = group_rows(&t, &["procs"], &[3, 0, 1]);
        let keys: Vec<String> = groups.keys().map(|k| k[0].to_string()).collect();
        assert_eq!(keys, ["1", "2", "32"]);
    }

    #[test]
    fn groups_of_many_rows_keep_row_order() {
        let n = 200_003;
        let t = Table {
            name: "t".into(),
            path: "results/t.csv".into(),
            columns: vec![Column { name: "procs".into(), values: Values::Number((0..n).map(|i| (i % 3) as f64).collect()) }],
            lines: vec![0; n],
        };
        let rows: Vec<usize> = (0..n).collect();
        let groups = group_rows(&t, &["procs"], &rows);
        assert_eq!(groups.len(), 3);
        for (i, (key, rows)) in groups.iter().enumerate() {
            assert_eq!(key[0], KeyPart::Number(i as f64));
            let expected: Vec<usize> = (i..n).step_by(3).collect();
            assert!(rows == &expected, "group {i} lost its order");
        }
    }
}
