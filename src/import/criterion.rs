//! criterion.rs measurements (`target/criterion/**/new/sample.json`, with
//! `benchmark.json` beside it): one row per sample, its time per iteration
//! in seconds. criterion keeps the previous run in `base/` and its
//! summaries (`estimates.json`, `tukey.json`) and reports beside them: a
//! folder walk passes over those, saying why, so that no run is counted
//! twice.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Refusal;
use super::format::{self, Format, Input, Read, Table, json_cell};
use crate::format::plain;

/// `report import criterion`.
#[derive(Debug)]
pub struct Criterion;

/// The columns of every row, in order; throughput columns follow.
const COLUMNS: [&str; 13] = [
    "environment",
    "run",
    "benchmark",
    "group_id",
    "function_id",
    "value",
    "sampling_mode",
    "iterations",
    "sample_time_s",
    "time_s",
    "run_in_file",
    "source",
    "source_sha256",
];

impl Format for Criterion {
    fn name(&self) -> &'static str {
        "criterion"
    }

    fn about(&self) -> &'static str {
        "Turn criterion's target/criterion/ into rows of results/criterion.csv, one per sample"
    }

    fn examples(&self) -> &'static str {
        "Examples:
  cargo bench
  report import criterion --env laptop target/criterion/"
    }

    fn columns(&self) -> &'static str {
        "One row per sample of each benchmark (new/sample.json, named by the benchmark.json beside it): `time_s` per iteration, `iterations`, `sample_time_s`. The run before (base/), summaries and reports are passed over, each said. Goes to results/criterion.csv."
    }

    fn accepts(&self, path: &Path) -> Result<(), String> {
        let parts: Vec<String> =
            path.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        let name = parts.last().map(String::as_str).unwrap_or("");
        let folder = parts.len().checked_sub(2).map_or("", |i| parts[i].as_str());
        match (folder, name) {
            ("new", "sample.json") => Ok(()),
            ("new", "benchmark.json") => Err("read with the sample.json beside it".into()),
            ("base", _) => Err("criterion's copy of the run before (base/): its samples were imported then, from new/".into()),
            ("change", _) => Err("criterion's comparison of two runs (change/), not a run".into()),
            (_, "estimates.json" | "tukey.json") => Err("criterion's summaries of the samples in sample.json".into()),
            _ if parts.iter().any(|p| p == "report") => Err("criterion's report, not a measurement".into()),
            _ => Err("not a criterion measurement (new/sample.json)".into()),
        }
    }

    fn read(&self, file: &Input<'_>) -> Result<Read, Refusal> {
        let hint = "give target/criterion/ (or a benchmark's new/sample.json) after `cargo bench`";
        let doc = format::json(file, "criterion's sample.json", hint)?;
        let (Some(iters), Some(times)) = (array(&doc, "iters"), array(&doc, "times")) else {
            return Err(Refusal::new("not criterion's sample.json: it has no `iters` and `times`")
                .hint(hint));
        };
        if iters.len() != times.len() || iters.is_empty() {
            return Err(Refusal::new(format!(
                "`iters` has {} values and `times` {}: one of each per sample",
                iters.len(),
                times.len()
            )));
        }
        let identity = benchmark_json(file.path)?;
        let mut shared = identity_cells(&identity);
        shared.push((
            "sampling_mode".into(),
            doc.get("sampling_mode").map(json_cell).unwrap_or_default(),
        ));
        let mut table = Table::new("criterion", &COLUMNS, &["benchmark"]);
        for (i, (n, t)) in iters.iter().zip(times).enumerate() {
            let sample = format!("sample {}", i + 1);
            let n = format::measure(n, &format!("{sample}'s iterations")).map_err(Refusal::new)?;
            let t = format::measure(t, &format!("{sample}'s time")).map_err(Refusal::new)?;
            if n == 0.0 {
                return Err(Refusal::new(format!("{sample} ran 0 iterations")));
            }
            let mut cells = vec![
                ("iterations".to_string(), plain(n)),
                ("sample_time_s".to_string(), plain(t / 1e9)),
                ("time_s".to_string(), plain(t / n / 1e9)),
            ];
            cells.extend(shared.iter().cloned());
            table.push(i + 1, cells);
        }
        Ok(Read { tables: vec![table], ..Read::default() })
    }
}

/// The array `key` of `doc`.
fn array<'a>(doc: &'a Value, key: &str) -> Option<&'a Vec<Value>> {
    doc.get(key).and_then(Value::as_array)
}

/// The `benchmark.json` beside `sample`, which names the benchmark.
fn benchmark_json(sample: &Path) -> Result<Value, Refusal> {
    let path: PathBuf = sample.with_file_name("benchmark.json");
    let bytes = crate::project::read_regular(&path).map_err(|err| {
        Refusal::new(format!(
            "cannot read benchmark.json beside it ({err}): the benchmark has no name"
        ))
        .hint("import the whole target/criterion/ folder as cargo bench left it")
    })?;
    serde_json::from_slice(&bytes)
        .map_err(|err| Refusal::new(format!("benchmark.json beside it is not JSON: {err}")))
}

/// The benchmark's id, group, function, value and throughput per iteration.
fn identity_cells(identity: &Value) -> Vec<(String, String)> {
    let get = |key: &str| identity.get(key).map(json_cell).unwrap_or_default();
    let mut cells = vec![
        ("benchmark".to_string(), get("full_id")),
        ("group_id".to_string(), get("group_id")),
        ("function_id".to_string(), get("function_id")),
        ("value".to_string(), get("value_str")),
    ];
    if let Some(Value::Object(throughput)) = identity.get("throughput") {
        for (kind, amount) in throughput {
            let name = format!("throughput_{}", format::column_name(kind, ""));
            cells.push((name, json_cell(amount)));
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_new_samples_are_read_and_every_other_file_is_said_why() {
        let ok = Path::new("target/criterion/sum/iter/64/new/sample.json");
        assert!(Criterion.accepts(ok).is_ok());
        for (path, why) in [
            ("target/criterion/sum/iter/64/base/sample.json", "base/"),
            ("target/criterion/sum/iter/64/new/benchmark.json", "beside it"),
            ("target/criterion/sum/iter/64/new/estimates.json", "summaries"),
            ("target/criterion/sum/iter/64/change/estimates.json", "comparison"),
            ("target/criterion/sum/report/index.html", "report"),
            ("target/criterion/sum/iter/64/new/raw.csv", "not a criterion measurement"),
        ] {
            let err = Criterion.accepts(Path::new(path)).unwrap_err();
            assert!(err.contains(why), "{path}: {err}");
        }
    }
}
