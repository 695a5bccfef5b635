//! pytest-benchmark's JSON (`--benchmark-json=FILE`, or a saved run of
//! `--benchmark-autosave --benchmark-save-data`): one row per round of each
//! test, its time per iteration in seconds, the test's parameters and extra
//! info as columns, the machine and commit on every row. A file saved
//! without `--benchmark-save-data` holds only summaries and is refused.

use serde_json::{Map, Value};

use super::Refusal;
use super::format::{self, Format, Input, Read, Table, json_cell, key_lines, measure};
use crate::format::plain;

/// `report import pytest-benchmark`.
#[derive(Debug)]
pub struct PytestBenchmark;

/// The columns of every row, in order; parameters, extra info and the
/// machine follow.
const COLUMNS: [&str; 10] = [
    "environment",
    "run",
    "fullname",
    "name",
    "group",
    "time_s",
    "iterations",
    "run_in_file",
    "source",
    "source_sha256",
];

impl Format for PytestBenchmark {
    fn name(&self) -> &'static str {
        "pytest-benchmark"
    }

    fn about(&self) -> &'static str {
        "Turn pytest-benchmark JSON into rows of results/pytest_benchmark.csv, one per round"
    }

    fn examples(&self) -> &'static str {
        "Examples:
  pytest --benchmark-json=run.json
  report import pytest-benchmark --env py311 run.json
  # Saved runs keep each round only with --benchmark-save-data:
  pytest --benchmark-autosave --benchmark-save-data
  report import pytest-benchmark --env py311 .benchmarks/"
    }

    fn columns(&self) -> &'static str {
        "One row per round of each test (`time_s`, per iteration), its parameters and extra info as columns, the machine on each row. Goes to results/pytest_benchmark.csv."
    }

    fn read(&self, file: &Input<'_>) -> Result<Read, Refusal> {
        let hint = "give the file of `pytest --benchmark-json=FILE`, or one saved with --benchmark-autosave --benchmark-save-data";
        let (doc, benchmarks) =
            format::json_list(file, "pytest-benchmark JSON", "benchmarks", hint)?;
        let machine = machine_cells(&doc);
        let lines = key_lines(file.text, "fullname");
        let mut table = Table::new("pytest_benchmark", &COLUMNS, &["fullname"]);
        for (i, bench) in benchmarks.iter().enumerate() {
            let at = lines.get(i).copied().unwrap_or(1);
            let Some(fields) = bench.as_object() else { continue };
            rounds(fields, &machine, &mut table).map_err(|r| r.at(at))?;
        }
        if table.runs.is_empty() {
            return Err(Refusal::new("the file holds no benchmark").hint(hint));
        }
        Ok(Read { tables: vec![table], ..Read::default() })
    }
}

/// The rounds of one test into `table`, or why they cannot be read.
fn rounds(
    fields: &Map<String, Value>,
    machine: &[(String, String)],
    table: &mut Table,
) -> Result<(), Refusal> {
    let fullname = fields.get("fullname").map(json_cell).unwrap_or_default();
    let stats = fields.get("stats").and_then(Value::as_object);
    let Some(data) = stats.and_then(|s| s.get("data")).and_then(Value::as_array) else {
        return Err(Refusal::new(format!(
            "{fullname}: the file holds only summaries (min, mean, stddev), not each round's time"
        ))
        .hint("save the rounds: pytest --benchmark-autosave --benchmark-save-data (or --benchmark-json=FILE, which always has them), then import that file"));
    };
    let iterations = stats.and_then(|s| s.get("iterations")).map(json_cell).unwrap_or_default();
    let mut shared = vec![
        ("fullname".to_string(), fullname.clone()),
        ("name".to_string(), fields.get("name").map(json_cell).unwrap_or_default()),
        ("group".to_string(), fields.get("group").map(json_cell).unwrap_or_default()),
        ("iterations".to_string(), iterations),
    ];
    for (key, prefix) in [("params", "param_"), ("extra_info", "extra_")] {
        if let Some(Value::Object(map)) = fields.get(key) {
            for (name, value) in map {
                shared
                    .push((format!("{prefix}{}", format::column_name(name, "")), json_cell(value)));
            }
        }
    }
    shared.extend(machine.iter().cloned());
    for (i, time) in data.iter().enumerate() {
        let seconds =
            measure(time, &format!("{fullname}: round {}'s time", i + 1)).map_err(Refusal::new)?;
        let mut cells = vec![("time_s".to_string(), plain(seconds))];
        cells.extend(shared.iter().cloned());
        table.push(i + 1, cells);
    }
    Ok(())
}

/// The machine, commit and date of the run, as cells of every row.
fn machine_cells(doc: &Value) -> Vec<(String, String)> {
    let get = |path: &[&str]| {
        let mut value = doc;
        for key in path {
            value = value.get(key)?;
        }
        Some(json_cell(value))
    };
    let fields: [(&str, &[&str]); 9] = [
        ("host_name", &["machine_info", "node"]),
        ("cpu_count", &["machine_info", "cpu", "count"]),
        ("cpu_brand", &["machine_info", "cpu", "brand_raw"]),
        ("machine", &["machine_info", "machine"]),
        ("python_implementation", &["machine_info", "python_implementation"]),
        ("python_version", &["machine_info", "python_version"]),
        ("commit_id", &["commit_info", "id"]),
        ("datetime", &["datetime"]),
        ("pytest_benchmark_version", &["version"]),
    ];
    fields.iter().filter_map(|(name, path)| get(path).map(|v| (name.to_string(), v))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::tests::cell;

    fn read(text: &str) -> Result<Read, Refusal> {
        crate::import::tests::read("pytest-benchmark", "p.json", text, &[])
    }

    const DOC: &str = r#"{"machine_info": {"node": "vm", "cpu": {"count": 2}},
"benchmarks": [
{"group": null, "name": "test_join[10]", "fullname": "t.py::test_join[10]", "params": {"n": 10},
 "extra_info": {"parts": 10}, "stats": {"iterations": 21, "mean": 2, "data": [1e-7, 3e-7]}},
{"group": "g", "name": "test_sorted", "fullname": "t.py::test_sorted",
 "stats": {"iterations": 1, "mean": 2, "data": [0.5]}}
], "datetime": "2026-12-02T07:15:37", "version": "5.3.1"}"#;

    #[test]
    fn each_round_is_a_row_with_the_test_parameters_and_machine() {
        let table = &read(DOC).unwrap().tables[0];
        assert_eq!(table.runs.len(), 3);
        let cols = ["fullname", "time_s", "iterations", "param_n", "extra_parts", "cpu_count"];
        assert_eq!(
            cols.map(|c| cell(table, 1, 0, c)),
            ["t.py::test_join[10]", "0.0000003", "21", "10", "10", "2"]
        );
        assert_eq!(cell(table, 2, 0, "group"), "g");
        assert_eq!((table.runs[1].in_file, table.runs[2].in_file), (2, 1));
    }

    #[test]
    fn summaries_alone_are_refused_naming_the_option() {
        let saved = DOC.replace(", \"data\": [0.5]", "");
        let refusal = read(&saved).unwrap_err();
        assert_eq!(refusal.line, Some(5));
        assert!(refusal.reason.contains("t.py::test_sorted: the file holds only summaries"));
        assert!(refusal.hint.unwrap().contains("--benchmark-save-data"));
    }
}
