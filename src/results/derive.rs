//! Derived columns: per-row arithmetic over other columns, declared in book.toml.

use evalexpr::{ContextWithMutableVariables, DefaultNumericTypes, HashMapContext, Node, Value};

use std::sync::Arc;

use super::{Chunks, Column, Store, Table, Values};
use crate::config::{Config, Dataset};
use crate::diagnostic::{Diagnostic, Diagnostics, Location, suggest};

/// Append each `derive` column of `dataset` to `table`. A row where an input is
/// empty gets an empty (NaN) derived value.
pub(super) fn derive(
    table: &mut Table,
    dataset: &Dataset,
    _config: &Config,
) -> Result<(), Diagnostics> {
    let mut errors = Diagnostics::default();
    for (name, expression) in &dataset.derive {
        let at =
            dataset.derive_at.get(name).cloned().unwrap_or_else(|| Location::file("book.toml"));
        match derived_values(table, name, expression, &at) {
            Ok(values) => {
                table.columns.push(Column { name: name.clone(), values: Values::Number(values) })
            }
            Err(problems) => problems.0.into_iter().for_each(|problem| errors.push(problem)),
        }
    }
    errors.into_result(())
}

/// The values of the derived column `name` = `expression` over `table`, or
/// the problems with it, each reported `at` its declaration.
fn derived_values(
    table: &Table,
    name: &str,
    expression: &str,
    at: &Location,
) -> Result<Chunks<f64>, Diagnostics> {
    let node: Node<DefaultNumericTypes> =
        evalexpr::build_operator_tree(expression).map_err(|err| {
            Diagnostic::new(
                at.clone(),
                format!("derived column `{name}`: cannot parse `{expression}`: {err}"),
            )
            .hint("use column names, numbers and + - * / ( )")
        })?;
    let inputs: Vec<String> = node.iter_variable_identifiers().map(str::to_string).collect();
    let columns = numeric_inputs(table, name, &inputs, at)?;
    evaluate(&node, &inputs, &columns, table.len(), table.lines.store()).map_err(|err| {
        Diagnostic::new(at.clone(), format!("derived column `{name}`: {err}"))
            .hint("check the expression in book.toml")
            .into()
    })
}

/// The columns of `table` named by `inputs`, in order; a problem for each
/// one that is missing or not numeric.
fn numeric_inputs<'t>(
    table: &'t Table,
    name: &str,
    inputs: &[String],
    at: &Location,
) -> Result<Vec<&'t Chunks<f64>>, Diagnostics> {
    let mut errors = Diagnostics::default();
    let mut columns = Vec::new();
    for input in inputs {
        match table.column(input).map(|c| &c.values) {
            Some(Values::Number(v)) => columns.push(v),
            Some(Values::Text(_)) => errors.push(
                Diagnostic::new(
                    at.clone(),
                    format!("derived column `{name}`: column `{input}` is not numeric"),
                )
                .hint("a derived column can only use numeric columns"),
            ),
            None => errors.push(
                Diagnostic::new(
                    at.clone(),
                    format!("derived column `{name}`: unknown column `{input}`"),
                )
                .hint(suggest(input, table.column_names())),
            ),
        }
    }
    if errors.is_empty() { Ok(columns) } else { Err(errors) }
}

/// Evaluate `node` once per row with `inputs` bound to that row's values, chunk by chunk.
fn evaluate(
    node: &Node<DefaultNumericTypes>,
    inputs: &[String],
    columns: &[&Chunks<f64>],
    rows: usize,
    store: &Arc<Store>,
) -> Result<Chunks<f64>, String> {
    let mut context = HashMapContext::<DefaultNumericTypes>::new();
    let mut out = Chunks::new(store);
    let Some(first) = columns.first() else {
        // No inputs: the same value in every row.
        let value = node.eval_number_with_context(&context).map_err(|e| e.to_string())?;
        (0..rows).for_each(|_| out.push(value));
        return Ok(out);
    };
    for i in 0..first.chunk_count() {
        let chunks: Vec<_> = columns.iter().map(|c| c.chunk(i)).collect();
        for row in 0..chunks[0].len() {
            if chunks.iter().any(|c| c[row].is_nan()) {
                out.push(f64::NAN);
                continue;
            }
            for (input, chunk) in inputs.iter().zip(&chunks) {
                context
                    .set_value(input.clone(), Value::Float(chunk[row]))
                    .map_err(|e| e.to_string())?;
            }
            out.push(node.eval_number_with_context(&context).map_err(|e| e.to_string())?);
        }
    }
    Ok(out)
}
