//! `report diff`: how each headline metric moved between two sets of results,
//! and which cells of the computed tables listed in stats.json changed, from
//! two `stats.json` files, read as their types ([`crate::render::stats`]),
//! or from the results at a git revision. A move is
//! judged by a test of the difference between the two estimates (their
//! ratio, with its interval and p: [`between`]), never by whether their
//! intervals overlap.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::analysis::metrics::tables::CellKind;
use crate::analysis::statistics::between::{Between, Scale, between};
use crate::config::Compare;
use crate::render::stats::{self, Cell, Metric, Stats, Table};

/// One metric's move, or a computed table's cell's or whole table's.
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
    /// The test of the difference between the two estimates (None without
    /// both values and intervals).
    pub test: Option<Between>,
    /// A table cell's verdict before and after, when it changed.
    pub verdict: Option<(String, String)>,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.before, &self.after) {
            (Some(b), Some(a)) => {
                write!(f, "{}: {b} → {a}", self.label)?;
                match &self.test {
                    Some(t) => write!(f, " ({})", tested(t)),
                    None => write!(f, " (no CI to compare)"),
                }?;
                match &self.verdict {
                    Some((b, a)) => write!(f, " (verdict: {b} → {a})"),
                    None => Ok(()),
                }
            }
            (None, Some(a)) => write!(f, "{}: new, {a}", self.label),
            (Some(b), None) => write!(f, "{}: removed (was {b})", self.label),
            (None, None) => write!(f, "{}", self.label),
        }
    }
}

/// A test of a move in words: `after ÷ before ×1.103, 95% CI ×1.051 to
/// ×1.158, p < 0.001: a significant change`; on the linear scale `after −
/// before +0.8, 95% CI +0.353 to +1.25, …`.
fn tested(t: &Between) -> String {
    let (what, number): (&str, fn(f64) -> String) = match t.scale {
        Scale::Ratio => ("after ÷ before", |x| format!("×{}", crate::format::fixed(x, 3))),
        Scale::Difference => ("after − before", |x| {
            let sign = if x > 0.0 { "+" } else { "" };
            format!("{sign}{}", crate::format::value(x))
        }),
    };
    let verdict = if t.significant { "a significant change" } else { "not a significant change" };
    format!(
        "{what} {}, 95% CI {} to {}, {}: {verdict}",
        number(t.estimate),
        number(t.ci[0]),
        number(t.ci[1]),
        crate::format::p_value(t.p)
    )
}

/// The headline metrics of two `stats.json` documents, compared by name,
/// then each cell of their computed tables that changed ([`tables`]).
pub fn compare(old: &Stats, new: &Stats) -> Vec<Change> {
    let mut changes = metrics(old, new);
    changes.extend(tables(old, new));
    changes.extend(history(old, new));
    changes
}

/// The change points of each series of a history (`history` of
/// stats.json), by series and version: each one found in `new` and not in
/// `old`, with its sentence, then each one `old` had and `new` has not.
pub fn history(old: &Stats, new: &Stats) -> Vec<Change> {
    let points = |stats: &Stats| -> Vec<(String, String, String)> {
        let Some(history) = &stats.history else { return Vec::new() };
        let texts = history.text.iter().map(Some).chain(std::iter::repeat(None));
        let mut found = Vec::new();
        for (series, text) in history.series.iter().zip(texts) {
            for (i, change) in series.changes.iter().enumerate() {
                let words = text.and_then(|t| t.changes.get(i)).cloned().unwrap_or_default();
                found.push((series.id.clone(), change.version.clone(), words));
            }
        }
        found
    };
    let (old, new) = (points(old), points(new));
    let missing = |from: &[(String, String, String)], list: &[(String, String, String)]| {
        from.iter()
            .filter(|(id, v, _)| !list.iter().any(|(i, w, _)| i == id && w == v))
            .cloned()
            .collect::<Vec<_>>()
    };
    let change = |(id, _, words): (String, String, String), added: bool| Change {
        name: "history".to_string(),
        label: format!("change point of {id}"),
        before: (!added).then(|| words.clone()),
        after: added.then_some(words),
        test: None,
        verdict: None,
    };
    let added = missing(&new, &old).into_iter().map(|p| change(p, true));
    added.chain(missing(&old, &new).into_iter().map(|p| change(p, false))).collect()
}

/// The headline metrics of two `stats.json` documents, compared by name.
fn metrics(old: &Stats, new: &Stats) -> Vec<Change> {
    let headlines =
        |s: &Stats| -> Vec<Metric> { s.metrics.iter().filter(|m| m.headline).cloned().collect() };
    let (old, new) = (headlines(old), headlines(new));
    let names = union(new.iter().chain(&old).map(|m| m.name.clone()));
    names
        .iter()
        .map(|name| {
            let find = |list: &[Metric]| list.iter().find(|m| &m.name == name).cloned();
            let (b, a) = (find(&old), find(&new));
            let either = a.as_ref().or(b.as_ref());
            let label = either.and_then(|m| m.label.clone()).unwrap_or_else(|| name.clone());
            let text = |m: &Option<Metric>| m.as_ref().and_then(|m| m.text.get("value").cloned());
            let scale = match either.map(|m| m.compare) {
                Some(Compare::Slowdown) => slowdown,
                Some(Compare::Relative) | None => relative,
                Some(_) => itself,
            };
            let estimate = |m: &Option<Metric>| m.as_ref().and_then(|m| Some((m.value?, m.ci?)));
            let test = test(estimate(&b), estimate(&a), scale);
            let (before, after) = (text(&b), text(&a));
            Change { name: name.clone(), label, before, after, test, verdict: None }
        })
        .collect()
}

/// The computed tables of two `stats.json` documents, by id: each cell
/// whose words or verdict changed, or that one side lacks, row by row (the
/// new document's order, then what it lacks); a table one side lacks is one
/// change, with its count of cells.
pub fn tables(old: &Stats, new: &Stats) -> Vec<Change> {
    let find = |s: &Stats, id: &str| s.tables.iter().find(|t| t.id == id).cloned();
    let mut changes = Vec::new();
    for id in union(new.tables.iter().chain(&old.tables).map(|t| t.id.clone())) {
        match (find(old, &id), find(new, &id)) {
            (Some(before), Some(after)) => {
                changes.extend(cells(&id, after.cell, &before.cells, &after.cells));
            }
            (before, after) => {
                let count = |t: Option<Table>| {
                    t.map(|t| {
                        let n = t.cells.len();
                        format!("{n} cell{}", if n == 1 { "" } else { "s" })
                    })
                };
                let (before, after) = (count(before), count(after));
                let name = format!("tbl-{id}");
                changes.push(Change {
                    label: name.clone(),
                    name,
                    before,
                    after,
                    test: None,
                    verdict: None,
                });
            }
        }
    }
    changes
}

/// Each item once, in the order first met.
fn union(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    items.filter(|i| seen.insert(i.clone())).collect()
}

/// The cells of table `id` whose words or verdict (where both sides have
/// one) changed between `old` and `new`, or that one side lacks, named
/// `tbl-ID (ROW, COLUMN)`; its cells are of `kind`.
fn cells(id: &str, kind: CellKind, old: &[Cell], new: &[Cell]) -> Vec<Change> {
    let name = |c: &Cell| {
        let at = c.column.as_ref().map_or_else(|| c.row.clone(), |col| format!("{}, {col}", c.row));
        format!("tbl-{id} ({at})")
    };
    let by_name = |list: &[Cell]| -> std::collections::BTreeMap<String, Cell> {
        list.iter().map(|c| (name(c), c.clone())).collect()
    };
    let (old_by, new_by) = (by_name(old), by_name(new));
    let text = |c: &Option<Cell>| c.as_ref().and_then(|c| c.text.clone());
    let verdict = |c: &Option<Cell>| c.as_ref().and_then(|c| c.verdict.clone());
    let scale = match kind {
        CellKind::Relative => relative,
        CellKind::Slowdown => slowdown,
        CellKind::Mean | CellKind::Median | CellKind::Ratio => itself,
    };
    let estimate = |c: &Option<Cell>| c.as_ref().and_then(|c| Some((c.value?, c.ci?)));
    (union(new.iter().chain(old).map(name)).into_iter())
        .map(|n| (old_by.get(&n).cloned(), new_by.get(&n).cloned(), n))
        .map(|(b, a, name)| {
            let verdict = match (verdict(&b), verdict(&a)) {
                (Some(v), Some(w)) if v != w => Some((v, w)),
                _ => None,
            };
            (b, a, name, verdict)
        })
        .filter(|(b, a, _, verdict)| text(b) != text(a) || verdict.is_some())
        .map(|(b, a, name, verdict)| {
            let test = test(estimate(&b), estimate(&a), scale);
            let (before, after) = (text(&b), text(&a));
            Change { label: name.clone(), name, before, after, test, verdict }
        })
        .collect()
}

/// A relative difference on the scale of candidate / baseline: 1 + x.
fn relative(x: f64) -> f64 {
    1.0 + x
}

/// A slowdown on the scale of candidate / baseline: 1 − x.
fn slowdown(x: f64) -> f64 {
    1.0 - x
}

/// A value on its own scale.
fn itself(x: f64) -> f64 {
    x
}

/// The test of the difference between a statistic before and after, each
/// its value and 95% interval, on the scale `scale` puts them on: that of
/// candidate / baseline for a comparison (1 + a relative difference, 1 − a
/// slowdown), of the value itself otherwise; `None` unless both have a
/// value and an interval.
fn test(
    before: Option<(f64, [f64; 2])>,
    after: Option<(f64, [f64; 2])>,
    scale: fn(f64) -> f64,
) -> Option<Between> {
    let estimate = |(value, [lo, hi]): (f64, [f64; 2])| {
        let [lo, hi] = [scale(lo), scale(hi)];
        (scale(value), [lo.min(hi), lo.max(hi)])
    };
    between(estimate(before?), estimate(after?))
}

/// Read a `stats.json` file.
pub fn read(path: &Path) -> Result<Stats> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read `{}`", path.display()))?;
    stats::read(&bytes).with_context(|| format!("`{}` is not a stats.json file", path.display()))
}

/// The statistics of the study at `root` with its `results/` as of git
/// revision `rev` (everything else as it is now).
pub fn stats_at(root: &Path, rev: &str) -> Result<Stats> {
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
    Ok(stats::read(&crate::pipeline::stats(&project)?)?)
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// [`super::compare`] of two documents written as JSON, read as types.
    fn compare(old: &Value, new: &Value) -> Vec<Change> {
        let typed = |v: &Value| stats::read(v.to_string().as_bytes()).unwrap();
        super::compare(&typed(old), &typed(new))
    }

    fn stats(value: f64, ci: [f64; 2], text: &str) -> Value {
        serde_json::json!({ "metrics": [{ "name": "t", "label": "throughput at 32 cores", "headline": true, "value": value, "ci": ci, "text": { "value": text } }] })
    }

    /// A move judged by the ratio of the two estimates (each candidate /
    /// baseline: 1 + the relative difference), its interval from both
    /// commits' standard errors on the log scale; expected values by
    /// scipy.stats.norm: 1.094 / 1.088 = ×1.006 (0.972 to 1.040), p =
    /// 0.749; 1.2 / 1.088 = ×1.103 (1.051 to 1.158), p = 7.6e-5.
    #[test]
    fn reports_moves_by_a_test_of_their_difference() {
        let old = stats(0.088, [0.061, 0.115], "+8.8%");
        let changes = compare(&old, &stats(0.094, [0.07, 0.12], "+9.4%"));
        assert_eq!(
            changes[0].to_string(),
            "throughput at 32 cores: +8.8% → +9.4% (after ÷ before ×1.006, 95% CI ×0.972 to \
             ×1.040, p = 0.749: not a significant change)"
        );
        let changes = compare(&old, &stats(0.2, [0.15, 0.25], "+20.0%"));
        assert_eq!(
            changes[0].to_string(),
            "throughput at 32 cores: +8.8% → +20.0% (after ÷ before ×1.103, 95% CI ×1.051 to \
             ×1.158, p < 0.001: a significant change)"
        );
        let changes = compare(&serde_json::json!({ "metrics": [] }), &old);
        assert_eq!(changes[0].to_string(), "throughput at 32 cores: new, +8.8%");
    }

    /// Overlapping intervals are no test: 1.0 (0.90 to 1.10) and 1.25
    /// (1.14 to 1.37) overlap, yet their ratio, ×1.250 (1.091 to 1.432 by
    /// scipy.stats.norm), is a significant change, p = 0.0011. A slowdown
    /// is compared as 1 − its value.
    #[test]
    fn overlapping_intervals_can_differ() {
        let old = stats(0.0, [-0.1, 0.1], "0.0%");
        let changes = compare(&old, &stats(0.25, [0.14, 0.37], "+25.0%"));
        assert_eq!(
            changes[0].to_string(),
            "throughput at 32 cores: 0.0% → +25.0% (after ÷ before ×1.250, 95% CI ×1.091 to \
             ×1.432, p = 0.001: a significant change)"
        );
        let slowdown = |v: f64, ci: [f64; 2]| {
            let mut s = stats(v, ci, "");
            s["metrics"][0]["compare"] = "slowdown".into();
            s
        };
        let t = compare(&slowdown(0.0, [-0.1, 0.1]), &slowdown(-0.25, [-0.37, -0.14]));
        assert!(t[0].to_string().contains("×1.250, 95% CI ×1.091 to ×1.432"), "{}", t[0]);
    }

    fn table(level: &str, text: &str, value: f64, ci: [f64; 2]) -> Value {
        serde_json::json!({ "metrics": [], "tables": [{ "id": "grid", "cell": "relative", "cells": [
            { "row": "xz", "column": "9", "kind": "comparison", "verdict": "better",
              "baseline_selected": { "level": level }, "value": value, "ci": ci, "text": text },
            { "row": "gzip", "column": "9", "kind": "comparison", "verdict": "worse",
              "value": 0.15, "ci": [0.1, 0.2], "text": "+15.0% vs xz, worse" },
        ] }] })
    }

    /// A cell of a computed table whose words or chosen baseline changed is
    /// listed, with the test of its move (by scipy.stats.norm: 0.8 / 0.889
    /// = ×0.900, 0.773 to 1.048, p = 0.174); a cell that did not change is
    /// not.
    #[test]
    fn reports_changed_table_cells_only() {
        let old = table("zstd", "-11.1% vs zstd, better", -0.111, [-0.2, -0.05]);
        let changes = compare(&old, &table("gzip", "-20.0% vs gzip, better", -0.2, [-0.3, -0.1]));
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(
            changes[0].to_string(),
            "tbl-grid (xz, 9): -11.1% vs zstd, better → -20.0% vs gzip, better (after ÷ before \
             ×0.900, 95% CI ×0.773 to ×1.048, p = 0.174: not a significant change)"
        );
        assert!(compare(&old, &old).is_empty());
        let gone = compare(&old, &serde_json::json!({ "metrics": [] }));
        assert_eq!(gone.len(), 1, "{gone:?}");
        assert_eq!(gone[0].to_string(), "tbl-grid: removed (was 2 cells)");
    }

    /// A cell as stats.json lists it, of any kind.
    fn cell(row: &str, column: Option<&str>, text: &str, verdict: Option<&str>) -> Value {
        let kind = if verdict.is_some() { "comparison" } else { "statistic" };
        let (value, ci) = (verdict.map(|_| 0.2), verdict.map(|_| [0.1, 0.3]));
        serde_json::json!({ "row": row, "column": column, "kind": kind, "verdict": verdict,
            "value": value, "ci": ci, "text": text })
    }

    /// Every kind of change of every table, each on its line, in the new
    /// file's order, then what it lacks: a cell's words, its verdict, a
    /// cell and a table added or removed; unchanged cells are left out.
    #[test]
    fn reports_every_changed_cell_and_table() {
        let old = serde_json::json!({ "tables": [
            { "id": "times", "cells": [
                cell("gzip", None, "0.050 s", None),
                cell("xz", None, "0.249 s", None),
                cell("lz4", None, "0.010 s", None),
            ] },
            { "id": "grid", "cells": [
                cell("xz", Some("1"), "+392.1% (+302.7 to +512.1%), worse", Some("worse")),
                cell("zstd", Some("1"), "-66.2% (-76.1 to -54.3%), better", Some("better")),
            ] },
            { "id": "old", "cells": [cell("a", None, "1", None)] },
        ] });
        let new = serde_json::json!({ "tables": [
            { "id": "times", "cells": [
                cell("gzip", None, "0.101 s", None),
                cell("xz", None, "0.249 s", None),
                cell("brotli", None, "0.030 s", None),
            ] },
            { "id": "grid", "cells": [
                cell("xz", Some("1"), "+392.1% (+302.7 to +512.1%), worse", Some("worse")),
                cell("zstd", Some("1"), "+3.0% (-1.0 to +7.0%), no significant difference",
                    Some("unclear")),
            ] },
            { "id": "sizes", "cells": [cell("a", None, "1", None), cell("b", None, "2", None)] },
        ] });
        let lines: Vec<String> = compare(&old, &new).iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            [
                "tbl-times (gzip): 0.050 s → 0.101 s (no CI to compare)",
                "tbl-times (brotli): new, 0.030 s",
                "tbl-times (lz4): removed (was 0.010 s)",
                "tbl-grid (zstd, 1): -66.2% (-76.1 to -54.3%), better → +3.0% (-1.0 to +7.0%), \
                 no significant difference (after ÷ before ×1.000, 95% CI ×0.889 to ×1.125, \
                 p = 1.000: not a significant change) \
                 (verdict: better → unclear)",
                "tbl-sizes: new, 2 cells",
                "tbl-old: removed (was 1 cell)",
            ]
        );
    }

    /// A stats.json written before every cell was listed (`baselines`, the
    /// cells of `baseline = "best"` tables) compares with one that lists
    /// them all by the cells' words.
    #[test]
    fn reads_the_chosen_baselines_of_older_files() {
        let old = serde_json::json!({ "tables": [{ "id": "grid", "baselines": [
            { "row": "xz", "column": "9", "level": "zstd", "text": "-11.1% vs zstd, better" },
        ] }] });
        let new = table("zstd", "-11.1% vs zstd, better", -0.111, [-0.2, -0.05]);
        let lines: Vec<String> = compare(&old, &new).iter().map(ToString::to_string).collect();
        assert_eq!(lines, ["tbl-grid (gzip, 9): new, +15.0% vs xz, worse"]);
    }
}
