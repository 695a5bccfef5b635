//! `report diff`: how each headline metric moved between two sets of results,
//! and which cells of the computed tables listed in stats.json changed, from
//! two `stats.json` files or from the results at a git revision.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// One metric's move.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The metric's name in book.toml.
    pub name: String,
    /// The metric's label.
    pub label: String,
    /// Formatted value before, if the metric existed.
    pub before: Option<String>,
    /// Formatted value after, if the metric exists.
    pub after: Option<String>,
    /// Whether the two 95% intervals overlap (None without both intervals).
    pub overlap: Option<bool>,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.before, &self.after) {
            (Some(b), Some(a)) => {
                write!(f, "{}: {b} → {a}", self.label)?;
                match self.overlap {
                    Some(true) => write!(f, " (CIs overlap: not a significant change)"),
                    Some(false) => write!(f, " (CIs do not overlap: a significant change)"),
                    None => write!(f, " (no CI to compare)"),
                }
            }
            (None, Some(a)) => write!(f, "{}: new, {a}", self.label),
            (Some(b), None) => write!(f, "{}: removed (was {b})", self.label),
            (None, None) => write!(f, "{}", self.label),
        }
    }
}

/// The headline metrics of two `stats.json` documents, compared by name,
/// then each cell of their computed tables that changed ([`tables`]).
pub fn compare(old: &Value, new: &Value) -> Vec<Change> {
    let mut changes = metrics(old, new);
    changes.extend(tables(old, new));
    changes
}

/// The headline metrics of two `stats.json` documents, compared by name.
fn metrics(old: &Value, new: &Value) -> Vec<Change> {
    let metrics = |v: &Value| -> Vec<Value> {
        v["metrics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|m| m["headline"] == true)
            .collect()
    };
    let (old, new) = (metrics(old), metrics(new));
    let mut names: Vec<String> =
        new.iter().chain(&old).filter_map(|m| m["name"].as_str().map(str::to_string)).collect();
    names.dedup();
    let mut seen = std::collections::BTreeSet::new();
    names.retain(|n| seen.insert(n.clone()));
    names
        .iter()
        .map(|name| {
            let find = |list: &[Value]| list.iter().find(|m| m["name"] == name.as_str()).cloned();
            let (b, a) = (find(&old), find(&new));
            let label = a
                .as_ref()
                .or(b.as_ref())
                .and_then(|m| m["label"].as_str())
                .unwrap_or(name)
                .to_string();
            let text = |m: &Option<Value>| {
                m.as_ref().and_then(|m| m["text"]["value"].as_str()).map(str::to_string)
            };
            let overlap = overlap(&b, &a);
            Change { name: name.clone(), label, before: text(&b), after: text(&a), overlap }
        })
        .collect()
}

/// The cells of the computed tables listed in two `stats.json` documents
/// (`tables`: those whose baselines are chosen from the data) whose words or
/// chosen baseline changed, or that one side lacks, by table and cell.
pub fn tables(old: &Value, new: &Value) -> Vec<Change> {
    let cells = |v: &Value| -> Vec<(String, Value)> {
        let tables = v["tables"].as_array().cloned().unwrap_or_default();
        let cell = |id: &str, c: &Value| {
            let (row, column) = (c["row"].as_str().unwrap_or_default(), c["column"].as_str());
            let at = column.map_or_else(|| row.to_string(), |column| format!("{row}, {column}"));
            (format!("tbl-{id} ({at})"), c.clone())
        };
        (tables.iter())
            .flat_map(|t| {
                let id = t["id"].as_str().unwrap_or_default().to_string();
                let baselines = t["baselines"].as_array().cloned().unwrap_or_default();
                baselines.into_iter().map(move |c| cell(&id, &c))
            })
            .collect()
    };
    let (old, new) = (cells(old), cells(new));
    let mut names: Vec<&String> = new.iter().chain(&old).map(|(name, _)| name).collect();
    let mut seen = std::collections::BTreeSet::new();
    names.retain(|n| seen.insert(*n));
    let find = |list: &[(String, Value)], name: &str| {
        list.iter().find(|(n, _)| n == name).map(|(_, c)| c.clone())
    };
    let text = |c: &Option<Value>| c.as_ref().and_then(|c| c["text"].as_str()).map(String::from);
    (names.into_iter())
        .map(|name| (name, find(&old, name), find(&new, name)))
        .filter(|(_, b, a)| text(b) != text(a))
        .map(|(name, b, a)| {
            let (before, after, overlap) = (text(&b), text(&a), overlap(&b, &a));
            Change { name: name.clone(), label: name.clone(), before, after, overlap }
        })
        .collect()
}

/// Whether the 95% intervals (`ci`) of a statistic before and after
/// overlap; `None` unless both have one.
fn overlap(before: &Option<Value>, after: &Option<Value>) -> Option<bool> {
    let ci = |v: &Option<Value>| {
        v.as_ref().and_then(|v| Some((v["ci"][0].as_f64()?, v["ci"][1].as_f64()?)))
    };
    ci(before).zip(ci(after)).map(|((b0, b1), (a0, a1))| b0 <= a1 && a0 <= b1)
}

/// Read a `stats.json` file.
pub fn read(path: &Path) -> Result<Value> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read `{}`", path.display()))?;
    serde_json::from_slice(&bytes)
        .with_context(|| format!("`{}` is not a stats.json file", path.display()))
}

/// The statistics of the study at `root` with its `results/` as of git
/// revision `rev` (everything else as it is now).
pub fn stats_at(root: &Path, rev: &str) -> Result<Value> {
    let git = |args: &[&str]| -> Result<Vec<u8>> {
        let output = std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .output()
            .context("cannot run git")?;
        if !output.status.success() {
            bail!("git {}: {}", args.join(" "), String::from_utf8_lossy(&output.stderr).trim());
        }
        Ok(output.stdout)
    };
    let prefix = String::from_utf8(git(&["rev-parse", "--show-prefix"])?)?.trim().to_string();
    let listing =
        String::from_utf8(git(&["ls-tree", "--name-only", rev, &format!("{prefix}results/")])?)?;
    let mut project = crate::project::load(root)?;
    project.results = Vec::new();
    for name in listing.lines().filter(|n| n.ends_with(".csv") || n.ends_with(".parquet")) {
        let bytes = git(&["show", &format!("{rev}:{name}")])?;
        let relative = PathBuf::from(name.strip_prefix(&prefix).unwrap_or(name));
        project.results.push(crate::project::SourceFile::new(relative, bytes));
    }
    Ok(serde_json::from_slice(&crate::pipeline::stats(&project)?)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(value: f64, ci: [f64; 2], text: &str) -> Value {
        serde_json::json!({ "metrics": [{ "name": "t", "label": "throughput at 32 cores", "headline": true, "value": value, "ci": ci, "text": { "value": text } }] })
    }

    #[test]
    fn reports_moves_and_whether_intervals_overlap() {
        let old = stats(0.088, [0.061, 0.115], "+8.8%");
        let changes = compare(&old, &stats(0.094, [0.07, 0.12], "+9.4%"));
        assert_eq!(
            changes[0].to_string(),
            "throughput at 32 cores: +8.8% → +9.4% (CIs overlap: not a significant change)"
        );
        let changes = compare(&old, &stats(0.2, [0.15, 0.25], "+20.0%"));
        assert_eq!(
            changes[0].to_string(),
            "throughput at 32 cores: +8.8% → +20.0% (CIs do not overlap: a significant change)"
        );
        let changes = compare(&serde_json::json!({ "metrics": [] }), &old);
        assert_eq!(changes[0].to_string(), "throughput at 32 cores: new, +8.8%");
    }

    fn table(level: &str, text: &str, ci: [f64; 2]) -> Value {
        serde_json::json!({ "metrics": [], "tables": [{ "id": "grid", "baselines": [
            { "row": "xz", "column": "9", "level": level, "ci": ci, "text": text },
            { "row": "gzip", "column": "9", "level": "xz", "ci": [0.1, 0.2], "text": "+15.0% vs xz" },
        ] }] })
    }

    /// A cell of a computed table whose words or chosen baseline changed is
    /// listed; a cell that did not change is not.
    #[test]
    fn reports_changed_table_cells_only() {
        let old = table("zstd", "-11.1% vs zstd", [-0.2, -0.05]);
        let changes = compare(&old, &table("gzip", "-20.0% vs gzip", [-0.3, -0.1]));
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(
            changes[0].to_string(),
            "tbl-grid (xz, 9): -11.1% vs zstd → -20.0% vs gzip (CIs overlap: not a significant change)"
        );
        assert!(compare(&old, &old).is_empty());
        let gone = compare(&old, &serde_json::json!({ "metrics": [] }));
        assert_eq!(gone[1].to_string(), "tbl-grid (gzip, 9): removed (was +15.0% vs xz)");
    }
}
