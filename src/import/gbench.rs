//! Google Benchmark's JSON output (`--benchmark_out=FILE
//! --benchmark_out_format=json`, or `--benchmark_format=json`): one row per
//! iteration row (each repetition), times in seconds, every counter a
//! column, the context (host, CPUs) on each row. Aggregates (mean, median,
//! stddev) summarise rows that are imported, and are left out.

use serde_json::{Map, Value};

use super::format::{self, Format, Input, Read, Table, json_cell, key_lines, measure};
use super::{Note, Refusal};
use crate::format::plain;

/// `report import gbench`.
#[derive(Debug)]
pub struct Gbench;

/// The columns of every row, in order; counters and the context follow.
const COLUMNS: [&str; 14] = [
    "environment",
    "run",
    "benchmark",
    "family_index",
    "per_family_instance_index",
    "threads",
    "repetitions",
    "repetition_index",
    "iterations",
    "real_time_s",
    "cpu_time_s",
    "run_in_file",
    "source",
    "source_sha256",
];

/// Fields of a benchmark row that are not counters.
const FIELDS: [&str; 17] = [
    "name",
    "run_name",
    "run_type",
    "family_index",
    "per_family_instance_index",
    "threads",
    "repetitions",
    "repetition_index",
    "iterations",
    "real_time",
    "cpu_time",
    "time_unit",
    "aggregate_name",
    "aggregate_unit",
    "error_occurred",
    "error_message",
    "label",
];

/// Fields of the context kept on every row (`caches` and `load_avg` are not).
const CONTEXT: [&str; 8] = [
    "host_name",
    "num_cpus",
    "mhz_per_cpu",
    "cpu_scaling_enabled",
    "library_build_type",
    "library_version",
    "date",
    "executable",
];

impl Format for Gbench {
    fn name(&self) -> &'static str {
        "gbench"
    }

    fn about(&self) -> &'static str {
        "Turn Google Benchmark JSON into rows of results/gbench.csv, one per repetition"
    }

    fn examples(&self) -> &'static str {
        "Examples:
  ./bench --benchmark_repetitions=10 --benchmark_out=run.json --benchmark_out_format=json
  report import gbench --env gcc-13 run.json"
    }

    fn columns(&self) -> &'static str {
        "One row per iteration row (each repetition), `real_time_s` and `cpu_time_s` in seconds whatever the time_unit, `threads`, every counter a column, the host and CPU count on each row; aggregates (mean, median, stddev) are left out. Goes to results/gbench.csv."
    }

    fn read(&self, file: &Input<'_>) -> Result<Read, Refusal> {
        let hint = "give the file of `--benchmark_out=FILE --benchmark_out_format=json`";
        let doc = format::json(file, "Google Benchmark JSON", hint)?;
        let Some(benchmarks) = doc.get("benchmarks").and_then(Value::as_array) else {
            return Err(
                Refusal::new("not Google Benchmark JSON: it has no `benchmarks` list").hint(hint)
            );
        };
        let context = context_cells(doc.get("context"));
        let lines = key_lines(file.text, "run_type");
        let (mut table, mut notes) = (Table::new("gbench", &COLUMNS, &["benchmark"]), Vec::new());
        let mut aggregates = 0;
        for (i, bench) in benchmarks.iter().enumerate() {
            let at = lines.get(i).copied().unwrap_or(1);
            let Some(fields) = bench.as_object() else { continue };
            match fields.get("run_type").and_then(Value::as_str) {
                Some("aggregate") => aggregates += 1,
                _ if fields.get("error_occurred") == Some(&Value::Bool(true)) => {
                    notes.push(Note::new(at, failed(fields)));
                }
                _ => {
                    let mut cells = row(fields).map_err(|why| Refusal::new(why).at(at))?;
                    cells.extend(context.iter().cloned());
                    let index = fields.get("repetition_index").and_then(Value::as_u64);
                    table.push(index.map_or(1, |r| r as usize + 1), cells);
                }
            }
        }
        if table.runs.is_empty() {
            return Err(nothing(aggregates, &notes));
        }
        Ok(Read { tables: vec![table], notes, nodes: None })
    }
}

/// Why a file gives no row.
fn nothing(aggregates: usize, notes: &[Note]) -> Refusal {
    if aggregates > 0 {
        return Refusal::new(format!(
            "the file holds only {aggregates} aggregates (mean, median, stddev): not the repetitions they summarise"
        ))
        .hint("run without --benchmark_report_aggregates_only (--benchmark_display_aggregates_only keeps every repetition in the file)");
    }
    match notes.first() {
        Some(note) => Refusal::new(format!("no benchmark finished: {}", note.message)).at(note.at),
        None => Refusal::new("the file holds no benchmark")
            .hint("give the JSON of a run that measured at least one benchmark"),
    }
}

/// The note of a benchmark that stopped with an error: it measured nothing.
fn failed(fields: &Map<String, Value>) -> String {
    let name = fields.get("name").and_then(Value::as_str).unwrap_or("a benchmark");
    let message = fields.get("error_message").and_then(Value::as_str).unwrap_or("no message");
    let repetition = fields.get("repetition_index").and_then(Value::as_u64).unwrap_or(0);
    format!(
        "{name} (repetition {}) stopped with an error, `{message}`: it measured nothing and gives no row",
        repetition + 1
    )
}

/// The cells of one iteration row: times in seconds, every other number a
/// column (counters), or why a time cannot be read.
fn row(fields: &Map<String, Value>) -> Result<Vec<(String, String)>, String> {
    let name = fields.get("run_name").or(fields.get("name")).map(json_cell).unwrap_or_default();
    let unit = fields.get("time_unit").and_then(Value::as_str).unwrap_or("ns");
    let mut cells = vec![("benchmark".to_string(), name.clone())];
    for key in ["family_index", "per_family_instance_index", "threads", "repetitions"] {
        cells.push((key.to_string(), fields.get(key).map(json_cell).unwrap_or_default()));
    }
    for key in ["repetition_index", "iterations"] {
        cells.push((key.to_string(), fields.get(key).map(json_cell).unwrap_or_default()));
    }
    for key in ["real_time", "cpu_time"] {
        let value = measure(fields.get(key).unwrap_or(&Value::Null), &format!("{name}: {key}"))?;
        let seconds = format::seconds(value, unit)
            .ok_or_else(|| format!("{name}: time unit `{unit}` is not ns, us, ms or s"))?;
        cells.push((format!("{key}_s"), plain(seconds)));
    }
    if let Some(label) = fields.get("label") {
        cells.push(("label".to_string(), json_cell(label)));
    }
    for (key, value) in fields.iter().filter(|(k, _)| !FIELDS.contains(&k.as_str())) {
        if value.is_number() {
            cells.push((format::column_name(key, "counter_"), json_cell(value)));
        }
    }
    Ok(cells)
}

/// The context's host, CPUs and build, as cells of every row.
fn context_cells(context: Option<&Value>) -> Vec<(String, String)> {
    let Some(Value::Object(context)) = context else { return Vec::new() };
    CONTEXT
        .iter()
        .filter_map(|key| context.get(*key).map(|v| (key.to_string(), json_cell(v))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::tests::cell;

    fn read(text: &str) -> Result<Read, Refusal> {
        crate::import::tests::read("gbench", "g.json", text, &[])
    }

    const DOC: &str = r#"{"context": {"host_name": "vm", "num_cpus": 2, "caches": []},
"benchmarks": [
{"name": "BM_A/8", "run_name": "BM_A/8", "run_type": "iteration", "repetitions": 2, "repetition_index": 0,
 "threads": 1, "iterations": 10, "real_time": 1500, "cpu_time": 1000, "time_unit": "us", "items_per_second": 5.5},
{"name": "BM_A/8", "run_name": "BM_A/8", "run_type": "iteration", "repetitions": 2, "repetition_index": 1,
 "threads": 1, "iterations": 10, "real_time": 2, "cpu_time": 1, "time_unit": "ms", "items_per_second": 6},
{"name": "BM_A/8_mean", "run_name": "BM_A/8", "run_type": "aggregate", "aggregate_name": "mean",
 "real_time": 1.75, "cpu_time": 1, "time_unit": "ms"},
{"name": "BM_F", "run_name": "BM_F", "run_type": "iteration", "repetition_index": 0,
 "error_occurred": true, "error_message": "no input", "real_time": 0, "cpu_time": 0, "time_unit": "ns"}
]}"#;

    #[test]
    fn repetitions_are_rows_in_seconds_and_aggregates_are_left_out() {
        let read = read(DOC).unwrap();
        let table = &read.tables[0];
        assert_eq!(table.runs.len(), 2);
        let got: Vec<[String; 5]> = (0..2)
            .map(|i| {
                ["real_time_s", "cpu_time_s", "items_per_second", "host_name", "num_cpus"]
                    .map(|c| cell(table, i, 0, c))
            })
            .collect();
        assert_eq!(got[0], ["0.0015", "0.001", "5.5", "vm", "2"]);
        assert_eq!(got[1], ["0.002", "0.001", "6", "vm", "2"]);
        assert_eq!((table.runs[0].in_file, table.runs[1].in_file), (1, 2));
        assert_eq!(read.notes.len(), 1);
        assert_eq!(read.notes[0].at, 9);
        assert!(
            read.notes[0].message.contains("BM_F (repetition 1) stopped with an error, `no input`")
        );
    }

    #[test]
    fn aggregates_alone_are_refused_with_the_option_that_keeps_the_runs() {
        let only = DOC.replace("\"iteration\"", "\"aggregate\"");
        let refusal = read(&only).unwrap_err();
        assert!(refusal.reason.contains("only 4 aggregates"), "{}", refusal.reason);
        assert!(refusal.hint.unwrap().contains("--benchmark_display_aggregates_only"));
        let unit = DOC.replace("\"us\"", "\"days\"");
        assert!(read(&unit).unwrap_err().reason.contains("`days`"));
    }
}
