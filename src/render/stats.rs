//! `data/stats.json` as types, read back: what `report diff` and other
//! readers of a build's statistics take from it ([`Stats`]). [`super::json`]
//! writes the document; these types name the part of it a reader relies
//! on, each field as written, and they read the files of older builds too:
//! every field added after the first stats.json (the computed tables, their
//! cells, the history) is optional or defaults to empty, a table's cells
//! are also read from `baselines` (files written before every cell was
//! listed), and fields a reader does not name are left unread.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analysis::metrics::tables::CellKind;
use crate::config::Compare;

/// A stats.json document, as a reader sees it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// `report` and its version, of the build that wrote it.
    #[serde(default)]
    pub generator: String,
    /// Every metric of book.toml, in its order.
    #[serde(default)]
    pub metrics: Vec<Metric>,
    /// The computed tables, in document order (absent without any).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tables: Vec<Table>,
    /// The history across versions (absent without `[history]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<History>,
}

/// A metric: its name, label, what it compares, its value and interval,
/// and its formatted fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Metric {
    /// Its name in book.toml.
    pub name: String,
    /// Its label, as the page shows it.
    #[serde(default)]
    pub label: Option<String>,
    /// Whether it is a headline metric (a card).
    #[serde(default)]
    pub headline: bool,
    /// How it compares environments.
    #[serde(default)]
    pub compare: Compare,
    /// Its value.
    #[serde(default)]
    pub value: Option<f64>,
    /// Its 95% confidence interval (absent when none was computed, or
    /// when an end is open, which JSON writes as `null`).
    #[serde(default, deserialize_with = "interval")]
    pub ci: Option<[f64; 2]>,
    /// Its formatted fields (`value`, `ci`, `words`…).
    #[serde(default)]
    pub text: BTreeMap<String, String>,
}

/// A computed table: its id, what its cells hold, and its cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Its id (`grid` for `tbl-grid`).
    pub id: String,
    /// What its cells hold (files written before it was listed: `relative`).
    #[serde(default = "relative")]
    pub cell: CellKind,
    /// Its cells, row by row (`baselines` in files written before every
    /// cell was listed: the cells of a `baseline = "best"` table).
    #[serde(default, alias = "baselines")]
    pub cells: Vec<Cell>,
}

/// What a table's cells held before stats.json said.
fn relative() -> CellKind {
    CellKind::Relative
}

/// A cell of a computed table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    /// Its row's level.
    #[serde(default)]
    pub row: String,
    /// Its column's level (absent in a table of one column).
    #[serde(default)]
    pub column: Option<String>,
    /// Its words, as the table shows them.
    #[serde(default)]
    pub text: Option<String>,
    /// Its verdict, for a comparison (`better`, `worse`…, or words of
    /// older builds).
    #[serde(default)]
    pub verdict: Option<String>,
    /// Its value.
    #[serde(default)]
    pub value: Option<f64>,
    /// Its 95% confidence interval (absent as a metric's may be).
    #[serde(default, deserialize_with = "interval")]
    pub ci: Option<[f64; 2]>,
}

/// The history across versions: each series and its sentences.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct History {
    /// Every series, in order.
    #[serde(default)]
    pub series: Vec<Series>,
    /// Each series' sentences, in the same order.
    #[serde(default)]
    pub text: Vec<SeriesText>,
}

/// One series of a history and its change points.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Its id.
    pub id: String,
    /// Its change points, in order.
    #[serde(default)]
    pub changes: Vec<ChangePoint>,
}

/// A change point of a series.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChangePoint {
    /// The version it is placed at.
    pub version: String,
}

/// A series' sentences.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesText {
    /// One sentence per change point, in order.
    #[serde(default)]
    pub changes: Vec<String>,
}

/// An interval as written, `[low, high]`; none when absent or when an end
/// is not a finite number (`null`).
fn interval<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<[f64; 2]>, D::Error> {
    let ends: Option<[Option<f64>; 2]> = Option::deserialize(d)?;
    Ok(ends.and_then(|[low, high]| Some([low?, high?])))
}

/// Read a stats.json document from its bytes.
pub fn read(bytes: &[u8]) -> serde_json::Result<Stats> {
    serde_json::from_slice(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of the first shape (metrics only) and one of the shape
    /// before every cell was listed (`baselines`, no `cell`) both read,
    /// with what they lack left empty; a field no reader names is skipped.
    #[test]
    fn older_shapes_read() {
        let first = br#"{ "generator": "report 0.1.0", "confidence": 0.95, "metrics": [
            { "name": "t", "label": "Time", "headline": true, "compare": "slowdown",
              "value": -0.25, "ci": [-0.37, -0.14], "text": { "value": "-25.0%" },
              "claim": { "verdict": "better" } } ] }"#;
        let stats = read(first).unwrap();
        assert_eq!(stats.generator, "report 0.1.0");
        assert_eq!(stats.metrics[0].compare, Compare::Slowdown);
        assert_eq!(stats.metrics[0].ci, Some([-0.37, -0.14]));
        assert_eq!(stats.metrics[0].text["value"], "-25.0%");
        assert!(stats.tables.is_empty() && stats.history.is_none());
        let baselines = br#"{ "metrics": [], "tables": [{ "id": "grid", "baselines": [
            { "row": "xz", "column": "9", "level": "zstd", "text": "-11.1% vs zstd" } ] }] }"#;
        let table = &read(baselines).unwrap().tables[0];
        assert_eq!(table.cell, CellKind::Relative);
        assert_eq!(table.cells[0].column.as_deref(), Some("9"));
        assert_eq!(table.cells[0].verdict, None);
        assert!(read(b"{ \"metrics\": 3 }").is_err());
        let open = br#"{ "metrics": [{ "name": "r", "value": 2.0, "ci": [1.5, null] }] }"#;
        assert_eq!(read(open).unwrap().metrics[0].ci, None);
    }
}
