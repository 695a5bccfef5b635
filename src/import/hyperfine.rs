//! hyperfine's JSON export (`--export-json`): one row per timed run of each
//! command, with its exit code, its memory and CPU times when the export
//! has them per run, and each parameter of a scan as a column.

use serde_json::Value;

use super::Refusal;
use super::format::{self, Format, Input, Read, Table, json_cell, key_lines, measure};
use crate::format::plain;

/// `report import hyperfine`.
#[derive(Debug)]
pub struct Hyperfine;

/// The columns every hyperfine row has, in order; parameters and per-run
/// fields are added before the provenance.
const COLUMNS: [&str; 8] = [
    "environment",
    "run",
    "command",
    "time_s",
    "exit_code",
    "run_in_file",
    "source",
    "source_sha256",
];

/// What a result holds besides its runs: the summaries hyperfine computes.
const SUMMARIES: [&str; 6] = ["mean", "stddev", "median", "min", "max", "command"];

impl Format for Hyperfine {
    fn name(&self) -> &'static str {
        "hyperfine"
    }

    fn about(&self) -> &'static str {
        "Turn hyperfine's JSON export into rows of results/hyperfine.csv, one per run"
    }

    fn examples(&self) -> &'static str {
        "Examples:
  hyperfine --runs 20 --export-json zstd.json -L level 1,3,19 'zstd -{level} -c big.tar'
  report import hyperfine --env laptop zstd.json
  # A folder of exports, the environment from each one's folder:
  report import hyperfine --pattern '{env}/*.json' exports/"
    }

    fn columns(&self) -> &'static str {
        "One row per timed run of each command (`times`), with `exit_code`, per-run `user_s`, `system_s` and `memory_usage_bytes` when the export has them, and each parameter of a scan (-L, -P) as a column. Goes to results/hyperfine.csv."
    }

    fn read(&self, file: &Input<'_>) -> Result<Read, Refusal> {
        let hint = "give the file that `hyperfine --export-json FILE` writes";
        let (_, results) = format::json_list(file, "a hyperfine export", "results", hint)?;
        let lines = key_lines(file.text, "command");
        let mut table = Table::new("hyperfine", &COLUMNS, &["command"]);
        for (i, result) in results.iter().enumerate() {
            let at = lines.get(i).copied().unwrap_or(1);
            runs(result, &mut table).map_err(|why| {
                Refusal::new(why).at(at).hint(
                    "export again with `hyperfine --export-json` (1.6 or later writes every run's time)",
                )
            })?;
        }
        if table.runs.is_empty() {
            return Err(Refusal::new("the export holds no command").hint(hint));
        }
        Ok(Read { tables: vec![table], ..Read::default() })
    }
}

/// The runs of one command into `table`, or why they cannot be read.
fn runs(result: &Value, table: &mut Table) -> Result<(), String> {
    let command = result.get("command").and_then(Value::as_str).unwrap_or_default().to_string();
    let Some(times) = result.get("times").and_then(Value::as_array) else {
        return Err(format!(
            "`{command}`: the export holds only summaries (mean, stddev), not each run's time"
        ));
    };
    let per_run = |key: &str| -> Result<Option<&Vec<Value>>, String> {
        match result.get(key) {
            Some(Value::Array(values)) if values.len() == times.len() => Ok(Some(values)),
            Some(Value::Array(values)) => Err(format!(
                "`{command}`: `{key}` has {} values for {} runs",
                values.len(),
                times.len()
            )),
            _ => Ok(None),
        }
    };
    let (exit_codes, memory) = (per_run("exit_codes")?, per_run("memory_usage_byte")?);
    let (user, system) = (per_run("user")?, per_run("system")?);
    let shared = shared_cells(result, user.is_none(), system.is_none());
    for (i, time) in times.iter().enumerate() {
        let mut cells = vec![
            ("command".to_string(), command.clone()),
            (
                "time_s".to_string(),
                plain(measure(time, &format!("`{command}`: run {}'s time", i + 1))?),
            ),
        ];
        let extra = [("exit_code", exit_codes), ("user_s", user), ("system_s", system)];
        for (name, values) in extra.into_iter().chain([("memory_usage_bytes", memory)]) {
            if let Some(values) = values {
                cells.push((name.to_string(), json_cell(&values[i])));
            }
        }
        cells.extend(shared.iter().cloned());
        table.push(i + 1, cells);
    }
    Ok(())
}

/// The cells every run of a command shares: its parameters, each a column
/// named as the parameter, and the mean user and system times when the
/// export gives them for the command only.
fn shared_cells(result: &Value, user_mean: bool, system_mean: bool) -> Vec<(String, String)> {
    let mut cells = Vec::new();
    if let Some(Value::Object(parameters)) = result.get("parameters") {
        for (name, value) in parameters {
            cells.push((format::column_name(name, "parameter_"), json_cell(value)));
        }
    }
    for (key, column, wanted) in
        [("user", "mean_user_s", user_mean), ("system", "mean_system_s", system_mean)]
    {
        if let Some(value) = result.get(key).filter(|v| wanted && v.is_number()) {
            cells.push((column.to_string(), json_cell(value)));
        }
    }
    // A parameter named like a summary or a fixed column keeps its own name.
    for cell in &mut cells {
        if SUMMARIES.contains(&cell.0.as_str()) || COLUMNS.contains(&cell.0.as_str()) {
            cell.0 = format!("parameter_{}", cell.0);
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::tests::cell;

    fn read(text: &str) -> Result<Read, Refusal> {
        crate::import::tests::read("hyperfine", "h.json", text, &[])
    }

    #[test]
    fn each_time_is_a_row_with_its_exit_code_and_parameters() {
        let text = r#"{"results": [{"command": "sleep 0.1", "mean": 0.2, "user": 0.001, "system": 0.002,
            "times": [0.1, 0.3], "exit_codes": [0, 1], "parameters": {"delay": "0.1", "run": "x"}}]}"#;
        let table = &read(text).unwrap().tables[0];
        let row = |i: usize, c: &str| cell(table, i, 0, c);
        assert_eq!(table.runs.len(), 2);
        assert_eq!((row(1, "time_s"), row(1, "exit_code")), ("0.3".into(), "1".into()));
        assert_eq!((row(0, "delay"), row(0, "parameter_run")), ("0.1".into(), "x".into()));
        assert_eq!(
            (row(0, "mean_user_s"), row(0, "mean_system_s")),
            ("0.001".into(), "0.002".into())
        );
        assert_eq!(table.runs[1].in_file, 2);
    }
    #[test]
    fn summaries_alone_and_broken_exports_are_refused_at_their_command() {
        let summary = "{\"results\": [\n{\"command\": \"a\", \"times\": [1]},\n{\"command\": \"b\", \"mean\": 1}]}";
        let refusal = read(summary).unwrap_err();
        assert_eq!(refusal.line, Some(3));
        assert!(refusal.reason.contains("only summaries"), "{}", refusal.reason);
        for (text, why) in [
            (r#"{"results": [{"command": "a", "times": [1, -2]}]}"#, "not a finite number"),
            (
                r#"{"results": [{"command": "a", "times": [1], "exit_codes": [0, 0]}]}"#,
                "2 values for 1 runs",
            ),
            (r#"{"results": []}"#, "no command"),
            (r#"{"benchmarks": []}"#, "no `results` list"),
            ("{\"results\": [", "not a hyperfine export"),
        ] {
            let refusal = read(text).unwrap_err();
            assert!(refusal.reason.contains(why), "{text}: {}", refusal.reason);
        }
    }
}
