//! Derived columns: per-row arithmetic over other columns, declared in book.toml.

use evalexpr::{ContextWithMutableVariables, DefaultNumericTypes, HashMapContext, Node, Value};

use super::{Column, Table, Values};
use crate::config::{Config, Dataset};
use crate::diagnostic::{Diagnostic, Diagnostics, Location, suggest};

/// Append each `derive` column of `dataset` to `table`. A row where an input is
/// empty gets an empty (NaN) derived value.
pub(super) fn derive(table: &mut Table, dataset: &Dataset, _config: &Config) -> Result<(), Diagnostics> {
    let mut errors = Diagnostics::default();
    for (name, expression) in &dataset.derive {
        let at = || dataset.derive_at.get(name).cloned().unwrap_or_else(|| Location::file("book.toml"));
        let node: Node<DefaultNumericTypes> = match evalexpr::build_operator_tree(expression) {
            Ok(node) => node,
            Err(err) => {
                errors.push(Diagnostic::new(at(), format!("derived column `{name}`: cannot parse `{expression}`: {err}"))
                    .hint("use column names, numbers and + - * / ( )"));
                continue;
            }
        };
        let inputs: Vec<String> = node.iter_variable_identifiers().map(str::to_string).collect();
        let mut columns = Vec::new();
        for input in &inputs {
            match table.column(input).map(|c| &c.values) {
                Some(Values::Number(v)) => columns.push(v.clone()),
                Some(Values::Text(_)) => errors.push(Diagnostic::new(at(),
                    format!("derived column `{name}`: column `{input}` is not numeric"))
                    .hint("a derived column can only use numeric columns")),
                None => errors.push(Diagnostic::new(at(), format!("derived column `{name}`: unknown column `{input}`"))
                    .hint(suggest(input, table.column_names()))),
            }
        }
        if columns.len() != inputs.len() {
            continue;
        }
        match evaluate(&node, &inputs, &columns, table.len()) {
            Ok(values) => table.columns.push(Column { name: name.clone(), values: Values::Number(values) }),
            Err(err) => errors.push(Diagnostic::new(at(), format!("derived column `{name}`: {err}"))
                .hint("check the expression in book.toml")),
        }
    }
    errors.into_result(())
}

/// Evaluate `node` once per row with `inputs` bound to that row's values.
fn evaluate(node: &Node<DefaultNumericTypes>, inputs: &[String], columns: &[Vec<f64>], rows: usize) -> Result<Vec<f64>, String> {
    let mut context = HashMapContext::<DefaultNumericTypes>::new();
    let mut out = Vec::with_capacity(rows);
    for row in 0..rows {
        if columns.iter().any(|c| c[row].is_nan()) {
            out.push(f64::NAN);
            continue;
        }
        for (input, column) in inputs.iter().zip(columns) {
            context.set_value(input.clone(), Value::Float(column[row])).map_err(|e| e.to_string())?;
        }
        let value = node.eval_number_with_context(&context).map_err(|e| e.to_string())?;
        out.push(value);
    }
    Ok(out)
}
