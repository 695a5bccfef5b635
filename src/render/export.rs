//! `report export`: the study's runs and claims as Parquet, for engines
//! (DuckDB, Spark) to query across studies. The schema is documented in
//! docs/results.md (*Export for engines*); the claims are those of
//! stats.json, read from it, so that the two never disagree.

use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use serde_json::Value;

use crate::results::{Table, Values};

/// Where a study's values were built from: its title, commit and tables' provenance.
pub struct Origin<'a> {
    /// `[book] title`.
    pub study: &'a str,
    /// The commit the study was built from, if it is in git.
    pub commit: Option<&'a str>,
}

/// The columns of a Parquet file, in order: name and values.
type Columns = Vec<(&'static str, ArrayRef)>;

/// `columns` as a Parquet file (snappy; no timestamps, so the same inputs
/// give the same bytes).
fn parquet(columns: Columns) -> Vec<u8> {
    let names: Vec<(String, ArrayRef)> =
        columns.into_iter().map(|(n, a)| (n.to_string(), a)).collect();
    parquet_named(names)
}

/// [`parquet`] for columns with names of their own.
fn parquet_named(columns: Vec<(String, ArrayRef)>) -> Vec<u8> {
    let batch = RecordBatch::try_from_iter(columns).expect("columns of one length");
    let properties = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
    let mut bytes = Vec::new();
    let mut writer =
        ArrowWriter::try_new(&mut bytes, batch.schema(), Some(properties)).expect("a valid schema");
    writer.write(&batch).expect("writing to memory");
    writer.close().expect("writing to memory");
    bytes
}

/// The runs of `table` the study used (after its exclusions), every column
/// as read (numbers as DOUBLE, text as VARCHAR), then where each row comes
/// from: `_study`, `_commit`, `_table`, `_source` (the file or dataset),
/// `_source_sha256`, `_row` (its line or row there) and `_provenance`.
pub fn runs(table: &Table, sha256: &str, provenance: &str, origin: &Origin) -> Vec<u8> {
    let rows = table.len();
    let mut columns: Vec<(String, ArrayRef)> = table
        .columns
        .iter()
        .map(|c| {
            let array: ArrayRef = match &c.values {
                Values::Number(v) => {
                    Arc::new(Float64Array::from_iter(v.iter().map(|x| (!x.is_nan()).then_some(*x))))
                }
                Values::Text(t) => Arc::new(StringArray::from_iter_values(
                    t.codes.iter().map(|&code| t.words[code as usize].as_str()),
                )),
            };
            (c.name.clone(), array)
        })
        .collect();
    let repeat = |text: Option<&str>| -> ArrayRef {
        Arc::new(StringArray::from_iter(std::iter::repeat_n(text, rows)))
    };
    let path = table.path.to_string_lossy().replace('\\', "/");
    columns.push(("_study".into(), repeat(Some(origin.study))));
    columns.push(("_commit".into(), repeat(origin.commit)));
    columns.push(("_table".into(), repeat(Some(&table.name))));
    columns.push(("_source".into(), repeat(Some(&path))));
    columns.push(("_source_sha256".into(), repeat(Some(sha256))));
    let lines = table.lines.iter().map(|&l| i64::from(l));
    columns.push(("_row".into(), Arc::new(Int64Array::from_iter_values(lines))));
    columns.push(("_provenance".into(), repeat(Some(provenance))));
    parquet_named(columns)
}

/// One claim of stats.json, flattened.
#[derive(Debug, Default)]
struct Claim {
    kind: &'static str,
    id: String,
    label: Option<String>,
    value: Option<f64>,
    ci: Option<(f64, f64)>,
    p: Option<f64>,
    verdict: Option<String>,
    n: Option<i64>,
    n_baseline: Option<i64>,
    n_candidate: Option<i64>,
    inputs: String,
    provenance: Option<String>,
}

/// Every claim of `stats` (stats.json): each metric, group, comparison,
/// computed table cell and change point of the history, with value, interval, p-value, verdict, sizes,
/// inputs and provenance, as one Parquet file.
pub fn claims(stats: &Value, origin: &Origin) -> Vec<u8> {
    let mut all = Vec::new();
    for m in items(stats, "metrics") {
        all.push(Claim {
            kind: "metric",
            id: text(m, "name").unwrap_or_default(),
            label: text(m, "label"),
            verdict: m.pointer("/claim/verdict").and_then(Value::as_str).map(str::to_string),
            ..sided(m, m.get("value"), m.get("ci"), m.get("p_value"))
        });
    }
    for g in items(stats, "groups") {
        let summary = g.get("summary").unwrap_or(&Value::Null);
        all.push(Claim {
            kind: "group",
            id: text(g, "id").unwrap_or_default(),
            n: summary.get("n").and_then(Value::as_i64),
            ..sided(g, summary.get("mean"), summary.get("ci"), None)
        });
    }
    for c in items(stats, "comparisons") {
        all.push(Claim {
            kind: "comparison",
            id: text(c, "id").unwrap_or_default(),
            ..sided(c, c.get("relative"), c.get("ci"), c.get("p_value"))
        });
    }
    for t in items(stats, "tables") {
        all.extend(cells(t));
    }
    if let Some(history) = stats.get("history") {
        all.extend(change_points(history));
    }
    claims_file(&all, origin)
}

/// The change points of the history (`history` of stats.json), then the
/// candidates its runs could not decide, series by series: the shift with
/// its interval, Mann–Whitney's p, the verdict, the runs either side, and
/// as inputs the file, column, configuration, version, range and Holm's p.
fn change_points(history: &Value) -> Vec<Claim> {
    let texts: Vec<&Value> = items(history, "text").collect();
    let mut all = Vec::new();
    for (i, series) in items(history, "series").enumerate() {
        for key in ["changes", "inconclusive"] {
            for (j, c) in items(series, key).enumerate() {
                let sentence = texts.get(i).and_then(|t| t.get(key)?.get(j)?.as_str());
                let runs =
                    |side: usize| c.pointer(&format!("/runs/{side}")).and_then(Value::as_i64);
                let inputs = serde_json::json!({
                    "file": history.get("file"), "column": history.get("column"),
                    "config": series.get("config"), "version": c.get("version"),
                    "range": c.get("range"), "versions": c.get("versions"),
                    "p_holm": c.get("p_holm"),
                });
                all.push(Claim {
                    kind: "change-point",
                    id: format!(
                        "{}@{}",
                        text(series, "id").unwrap_or_default(),
                        text(c, "version").unwrap_or_default()
                    ),
                    label: sentence.map(str::to_string),
                    verdict: c.pointer("/claim/verdict").map(verdict),
                    n: runs(0).zip(runs(1)).map(|(a, b)| a + b),
                    n_baseline: runs(0),
                    n_candidate: runs(1),
                    inputs: inputs.to_string(),
                    provenance: Some(measured(history)),
                    ..sided(c, c.get("shift"), c.get("ci"), c.get("p"))
                });
            }
        }
    }
    all
}

/// `measured` when the history's values were measured, else `not measured`.
fn measured(history: &Value) -> String {
    match history.get("measured").and_then(Value::as_bool) {
        Some(false) => "not measured".to_string(),
        _ => "measured".to_string(),
    }
}

/// The claims of computed table `t`, one per cell.
fn cells(t: &Value) -> Vec<Claim> {
    let id = text(t, "id").unwrap_or_default();
    let inputs = serde_json::json!({
        "data": t.get("data"), "value": t.get("value"), "rows": t.get("rows"), "columns": t.get("columns")
    });
    items(t, "cells")
        .map(|cell| {
            let column = text(cell, "column").map(|c| format!("/{c}")).unwrap_or_default();
            Claim {
                kind: "table-cell",
                id: format!("{id}/{}{column}", text(cell, "row").unwrap_or_default()),
                label: text(cell, "text"),
                verdict: cell.get("verdict").filter(|v| !v.is_null()).map(verdict),
                n: cell.get("n").and_then(Value::as_i64),
                inputs: inputs.to_string(),
                provenance: text(t, "provenance"),
                ..sided(cell, cell.get("value"), cell.get("ci"), cell.get("p"))
            }
        })
        .collect()
}

/// A verdict as text: a string as it is, else its JSON.
fn verdict(value: &Value) -> String {
    value.as_str().map_or_else(|| value.to_string(), str::to_string)
}

/// The fields an entry with sides (baseline, candidate) and inputs shares.
fn sided(entry: &Value, value: Option<&Value>, ci: Option<&Value>, p: Option<&Value>) -> Claim {
    let n = |side: &str| entry.pointer(&format!("/{side}/n")).and_then(Value::as_i64);
    let ci = ci
        .and_then(Value::as_array)
        .and_then(|ci| Some((ci.first()?.as_f64()?, ci.get(1)?.as_f64()?)));
    Claim {
        value: value.and_then(Value::as_f64),
        ci,
        p: p.and_then(Value::as_f64),
        n_baseline: n("baseline"),
        n_candidate: n("candidate"),
        inputs: entry.get("inputs").map(Value::to_string).unwrap_or_default(),
        provenance: text(entry, "provenance"),
        ..Claim::default()
    }
}

/// The entries of the list `key` of `value`.
fn items<'a>(value: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    value.get(key).and_then(Value::as_array).into_iter().flatten()
}

/// The text of field `key`, if it is a string.
fn text(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_string)
}

/// The claims as a Parquet file of the documented schema.
fn claims_file(all: &[Claim], origin: &Origin) -> Vec<u8> {
    let floats = |f: fn(&Claim) -> Option<f64>| -> ArrayRef {
        Arc::new(Float64Array::from_iter(all.iter().map(f)))
    };
    let ints = |f: fn(&Claim) -> Option<i64>| -> ArrayRef {
        Arc::new(Int64Array::from_iter(all.iter().map(f)))
    };
    parquet(vec![
        ("study", strings(all.iter().map(|_| Some(origin.study)))),
        ("commit", strings(all.iter().map(|_| origin.commit))),
        ("kind", strings(all.iter().map(|c| Some(c.kind)))),
        ("id", strings(all.iter().map(|c| Some(c.id.as_str())))),
        ("label", strings(all.iter().map(|c| c.label.as_deref()))),
        ("value", floats(|c| c.value)),
        ("ci_low", floats(|c| c.ci.map(|ci| ci.0))),
        ("ci_high", floats(|c| c.ci.map(|ci| ci.1))),
        ("p_value", floats(|c| c.p)),
        ("verdict", strings(all.iter().map(|c| c.verdict.as_deref()))),
        ("n", ints(|c| c.n)),
        ("n_baseline", ints(|c| c.n_baseline)),
        ("n_candidate", ints(|c| c.n_candidate)),
        ("inputs", strings(all.iter().map(|c| Some(c.inputs.as_str())))),
        ("provenance", strings(all.iter().map(|c| c.provenance.as_deref()))),
    ])
}

/// A text column of `values`.
fn strings<'s>(values: impl Iterator<Item = Option<&'s str>>) -> ArrayRef {
    Arc::new(StringArray::from_iter(values))
}
