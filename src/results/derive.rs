//! Derived columns: per-row arithmetic over other columns, declared in book.toml.

use evalexpr::{ContextWithMutableVariables, DefaultNumericTypes, HashMapContext, Node, Value};

use super::{Column, Table, Values};
use crate::config::{Config, Dataset};
use crate::diagnostic::{Diagnostic, Diagnostics, Location, MAX_QUOTED_CHARS, excerpt, suggest};

/// Most bytes of a derived column's expression. evalexpr builds and
/// evaluates its tree by recursion, so a long chain (`1+1+…+1`, `- - - x`)
/// is as deep as it is long: 1,024 bytes stay far inside any thread's stack,
/// and far above any formula a study needs.
pub const MAX_EXPRESSION_BYTES: usize = 1_024;

/// Deepest nesting of parentheses (and so of function calls) in an
/// expression; checked before parsing, which recurses once per level.
pub const MAX_EXPRESSION_DEPTH: usize = 64;

/// Append each `derive` column of `dataset` to `table`. A row where an input is
/// empty gets an empty (NaN) derived value; a value that is not finite (a
/// division by zero, an overflow) is an error at its expression, naming the row.
pub(super) fn derive(
    table: &mut Table,
    dataset: &Dataset,
    _config: &Config,
) -> Result<(), Diagnostics> {
    let mut errors = Diagnostics::default();
    for (name, expression) in &dataset.derive {
        let at =
            dataset.derive_at.get(name).cloned().unwrap_or_else(|| Location::file("book.toml"));
        if table.column(name).is_some() {
            errors.push(shadowing(table, name, dataset.derive_key_at.get(name).unwrap_or(&at)));
            continue;
        }
        match derived_values(table, name, expression, &at) {
            Ok(values) => {
                table.columns.push(Column { name: name.clone(), values: Values::Number(values) })
            }
            Err(problems) => problems.0.into_iter().for_each(|problem| errors.push(problem)),
        }
    }
    errors.into_result(())
}

/// The error for a derived column `name` that has the name of a column of `table`.
fn shadowing(table: &Table, name: &str, at: &Location) -> Diagnostic {
    Diagnostic::new(
        at.clone(),
        format!("derived column `{name}` has the name of a column of {}", table.path.display()),
    )
    .hint(
        "give the derived column a name of its own: it would hide the column read from \
         the file, and every statistic of that name would silently change meaning",
    )
}

/// The values of the derived column `name` = `expression` over `table`, or
/// the problems with it, each reported `at` its declaration.
fn derived_values(
    table: &Table,
    name: &str,
    expression: &str,
    at: &Location,
) -> Result<Vec<f64>, Diagnostics> {
    let error = |message: String, hint: &str| -> Diagnostics {
        Diagnostic::new(at.clone(), format!("derived column `{name}`: {message}")).hint(hint).into()
    };
    if let Some(problem) = too_large(expression) {
        return Err(error(problem, "write a shorter expression, or derive it in steps"));
    }
    let node: Node<DefaultNumericTypes> =
        evalexpr::build_operator_tree(expression).map_err(|err| {
            let shown = excerpt(expression, MAX_QUOTED_CHARS);
            error(
                format!("cannot parse `{shown}`: {err}"),
                "use column names, numbers and + - * / ( )",
            )
        })?;
    let mut inputs: Vec<String> = Vec::new();
    for input in node.iter_variable_identifiers() {
        if !inputs.iter().any(|i| i == input) {
            inputs.push(input.to_string());
        }
    }
    let columns = numeric_inputs(table, name, &inputs, at)?;
    evaluate(&node, &inputs, &columns, table.len()).map_err(|failure| match failure {
        Failure::Eval(err) => error(err, "check the expression in book.toml"),
        Failure::NotFinite { row, value, values } => {
            error(not_finite(table, &inputs, row, value, &values), NOT_FINITE_HINT)
        }
    })
}

const NOT_FINITE_HINT: &str = "a result must be a finite number: guard against a division by \
     zero or an overflow (`x ^ 1000`), or fix the row's values";

/// Why `expression` is refused before parsing, if it is: longer than
/// [`MAX_EXPRESSION_BYTES`] or nested deeper than [`MAX_EXPRESSION_DEPTH`].
fn too_large(expression: &str) -> Option<String> {
    if expression.len() > MAX_EXPRESSION_BYTES {
        return Some(format!(
            "the expression is {} bytes long; at most {MAX_EXPRESSION_BYTES} are allowed",
            expression.len()
        ));
    }
    let mut depth: usize = 0;
    for b in expression.bytes() {
        match b {
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > MAX_EXPRESSION_DEPTH {
            return Some(format!("parentheses are nested more than {MAX_EXPRESSION_DEPTH} deep"));
        }
    }
    None
}

/// The message for a value that is not finite: its row's line and inputs.
fn not_finite(
    table: &Table,
    inputs: &[String],
    row: Option<usize>,
    value: f64,
    values: &[f64],
) -> String {
    let value = if value.is_nan() { "NaN".to_string() } else { crate::format::plain(value) };
    let Some(row) = row else { return format!("the expression gives {value} in every row") };
    let shown: Vec<String> = inputs
        .iter()
        .zip(values)
        .map(|(input, v)| format!("{input} = {}", crate::format::plain(*v)))
        .collect();
    let with =
        if shown.is_empty() { String::new() } else { format!(", with {}", shown.join(", ")) };
    format!(
        "the expression gives {value} on {} of {}{with}",
        table.place(row),
        table.path.display()
    )
}

/// The columns of `table` named by `inputs`, in order; a problem for each
/// one that is missing or not numeric.
fn numeric_inputs<'t>(
    table: &'t Table,
    name: &str,
    inputs: &[String],
    at: &Location,
) -> Result<Vec<&'t [f64]>, Diagnostics> {
    let mut errors = Diagnostics::default();
    let mut columns = Vec::new();
    for input in inputs {
        match table.column(input).map(|c| &c.values) {
            Some(Values::Number(v)) => columns.push(v.as_slice()),
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

/// Why a derived column has no values.
enum Failure {
    /// evalexpr refused the expression or a row.
    Eval(String),
    /// The first row whose value is not finite (`None`: the expression has no
    /// inputs, so every row), the value, and the row's inputs.
    NotFinite { row: Option<usize>, value: f64, values: Vec<f64> },
}

/// Evaluate `node` once per row with `inputs` bound to that row's values.
fn evaluate(
    node: &Node<DefaultNumericTypes>,
    inputs: &[String],
    columns: &[&[f64]],
    rows: usize,
) -> Result<Vec<f64>, Failure> {
    let mut context = HashMapContext::<DefaultNumericTypes>::new();
    let mut out = Vec::with_capacity(rows);
    let failed = |e: evalexpr::EvalexprError<DefaultNumericTypes>| Failure::Eval(e.to_string());
    let Some(first) = columns.first() else {
        // No inputs: the same value in every row.
        let value = node.eval_number_with_context(&context).map_err(failed)?;
        if !value.is_finite() {
            return Err(Failure::NotFinite { row: None, value, values: Vec::new() });
        }
        out.resize(rows, value);
        return Ok(out);
    };
    for row in 0..first.len() {
        if columns.iter().any(|c| c[row].is_nan()) {
            out.push(f64::NAN);
            continue;
        }
        for (input, column) in inputs.iter().zip(columns) {
            context.set_value(input.clone(), Value::Float(column[row])).map_err(failed)?;
        }
        let value = node.eval_number_with_context(&context).map_err(failed)?;
        if !value.is_finite() {
            let values = columns.iter().map(|c| c[row]).collect();
            return Err(Failure::NotFinite { row: Some(row), value, values });
        }
        out.push(value);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        Table::new(
            "runs",
            "results/runs.csv",
            vec![
                ("t", Values::numbers_of(&[2.0, f64::NAN, 0.0, 4.0])),
                ("p", Values::numbers_of(&[1.0, 2.0, 4.0, 8.0])),
            ],
        )
    }

    /// The derived values of `expression` over [`table`], or the first error's message.
    fn derived(expression: &str) -> Result<Vec<f64>, String> {
        let at = Location::new("book.toml", 9, 20);
        derived_values(&table(), "d", expression, &at)
            .map_err(|e| format!("{}: {}", e.0[0].location, e.0[0].message))
    }

    #[test]
    fn values_that_are_not_finite_are_errors_at_the_expression_naming_the_row() {
        // Rows on lines 2 to 5; line 3's `t` is empty, line 4's is 0.
        assert_eq!(
            derived("p / t").unwrap_err(),
            "book.toml:9:20: derived column `d`: the expression gives inf on line 4 of results/runs.csv, with p = 4, t = 0"
        );
        assert_eq!(
            derived("t ^ 100000").unwrap_err(),
            "book.toml:9:20: derived column `d`: the expression gives inf on line 2 of results/runs.csv, with t = 2"
        );
        assert_eq!(
            derived("t / t").unwrap_err(),
            "book.toml:9:20: derived column `d`: the expression gives NaN on line 4 of results/runs.csv, with t = 0"
        );
        assert_eq!(
            derived("math::ln(t)").unwrap_err(),
            "book.toml:9:20: derived column `d`: the expression gives -inf on line 4 of results/runs.csv, with t = 0"
        );
        assert_eq!(
            derived("1.0 / 0").unwrap_err(),
            "book.toml:9:20: derived column `d`: the expression gives inf in every row"
        );
        let ok = derived("p * 2 + t").unwrap();
        assert_eq!((ok[0], ok[1].is_nan(), ok[2], ok[3]), (4.0, true, 8.0, 20.0));
    }

    #[test]
    fn deep_or_long_expressions_are_refused_before_parsing() {
        let deep = format!("{}t{}", "(".repeat(100_000), ")".repeat(100_000));
        assert_eq!(
            derived(&deep).unwrap_err(),
            "book.toml:9:20: derived column `d`: the expression is 200001 bytes long; at most 1024 are allowed"
        );
        let deep = format!("{}t{}", "(".repeat(65), ")".repeat(65));
        assert_eq!(
            derived(&deep).unwrap_err(),
            "book.toml:9:20: derived column `d`: parentheses are nested more than 64 deep"
        );
        let chain = vec!["p"; 512].join("+");
        assert_eq!(chain.len(), 1023);
        assert_eq!(derived(&chain).unwrap()[0], 512.0);
        let nested = format!("{}p{}", "(".repeat(64), ")".repeat(64));
        assert_eq!(derived(&nested).unwrap()[3], 8.0);
        let negated = format!("{}p", "-".repeat(1_023));
        assert_eq!(derived(&negated).unwrap()[0], -1.0);
    }
}
