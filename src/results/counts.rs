//! Node and process counts: the study's node-count column (`[study]
//! nodes-column`) and the process-count column of a scaling analysis
//! (`scaling.by`) hold whole numbers of 1 or more.

use super::flagged::{MAX_SHOWN, count, first_rows, locations};
use super::{Table, Values};
use crate::config::{Config, Dataset};
use crate::diagnostic::group::MAX_LOCATIONS;
use crate::diagnostic::{Cause, Diagnostic, Diagnostics, MAX_QUOTED_CHARS, excerpt};
use crate::project::SourceFile;

/// The largest count accepted, 2^53: every whole number up to it is exact in
/// a double.
pub const MAX_COUNT: f64 = 9_007_199_254_740_992.0;

/// One column of counts to check.
struct Counted<'a> {
    /// The column's name.
    name: &'a str,
    /// What it counts: `node` or `process`.
    what: &'a str,
    /// The same, in the plural.
    plural: &'a str,
    /// Where book.toml names it as a count column, for the hint.
    role: String,
    /// Whether an empty cell is allowed (a node count may be unknown; a
    /// scaling point needs its process count).
    may_be_empty: bool,
}

/// Report every cell of a count column of `table` that is not a whole number
/// from 1 to [`MAX_COUNT`]: one diagnostic per column, at its first bad
/// cell, counting them all.
pub(super) fn check(
    table: &Table,
    dataset: &Dataset,
    config: &Config,
    file: &SourceFile,
    errors: &mut Diagnostics,
) {
    let nodes = config.study.nodes_column.as_str();
    let mut columns = vec![Counted {
        name: nodes,
        what: "node",
        plural: "nodes",
        role: "the study's node-count column ([study] nodes-column)".into(),
        may_be_empty: true,
    }];
    if let Some(scaling) = dataset.scaling.as_ref().filter(|s| s.by != nodes) {
        columns.push(Counted {
            name: &scaling.by,
            what: "process",
            plural: "processes",
            role: format!("the process count of [data.{}] scaling", table.name),
            may_be_empty: false,
        });
    }
    for counted in &columns {
        if let Some(index) = table.columns.iter().position(|c| c.name == counted.name) {
            check_column(table, index, counted, file, errors);
        }
    }
}

/// Whether `value` is a count: a whole number from 1 to [`MAX_COUNT`].
fn is_count(value: f64) -> bool {
    (1.0..=MAX_COUNT).contains(&value) && value.fract() == 0.0
}

/// The errors of column `index` of `table`, counted as `counted` says: one
/// diagnostic for the column, at its first bad cell, counting them all and
/// naming the values of the first [`MAX_SHOWN`].
fn check_column(
    table: &Table,
    index: usize,
    counted: &Counted,
    file: &SourceFile,
    errors: &mut Diagnostics,
) {
    let values = &table.columns[index].values;
    let empty_ok = counted.may_be_empty;
    let (rows, total) = match values {
        Values::Number(v) => {
            let bad = |x: f64| !(is_count(x) || x.is_nan() && empty_ok);
            (first_rows(v, MAX_SHOWN, bad), count(v, bad))
        }
        Values::Text(t) => {
            let bad: Vec<bool> = t
                .words
                .iter()
                .map(|w| !(w.trim().parse().is_ok_and(is_count) || w.is_empty() && empty_ok))
                .collect();
            let bad = |code: u32| bad[code as usize];
            (first_rows(&t.codes, MAX_SHOWN, bad), count(&t.codes, bad))
        }
    };
    let Some(&first) = rows.first() else { return };
    let places = locations(table, file, &rows[..rows.len().min(MAX_LOCATIONS)], index);
    let found = |row: usize| match values.text_at(row).trim() {
        "" | "NaN" => "an empty cell".to_string(),
        text => format!("`{}`", excerpt(text, MAX_QUOTED_CHARS)),
    };
    let expected = format!(
        "column `{}`: expected a {} count, a whole number of 1 or more, found",
        counted.name, counted.what
    );
    let cause = Cause::new(
        format!("{}\0{expected}", file.path.display()),
        format!("{expected} {{values}}"),
    )
    .rows();
    let mut error = Diagnostic::new(places[0].clone(), format!("{expected} {}", found(first)))
        .hint(format!(
            "`{}` is {}: each run uses a whole number of {}, at least one; \
             fix the value or remove the row of a failed run",
            counted.name, counted.role, counted.plural
        ))
        .cause(cause, value(values, first))
        .repeated(total, places[1..].iter().cloned(), rows.iter().map(|&row| value(values, row)));
    error.repeats_mut().more_values |= total > rows.len();
    errors.push(error);
}

/// The value at `row`, as the list of values names it (an empty cell as ``).
fn value(values: &Values, row: usize) -> String {
    let text = values.text_at(row);
    let text = text.trim();
    excerpt(if text == "NaN" { "" } else { text }, MAX_QUOTED_CHARS).into_owned()
}
