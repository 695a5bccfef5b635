//! `report export`: the runs and claims as Parquet, read back by DuckDB;
//! every claim's value, interval, p-value, verdict and sizes equal those of
//! stats.json, and the runs are those the study used.

use crate::common;

use std::process::Command;

use common::*;
use serde_json::Value;

/// A study with a computed table and an excluded run: claims of every kind.
const BOOK: &str = r#"[book]
title = "Export"
date = "2024-01-02"

[study]
baseline = "base"

[environments.base]
label = "Base"

[environments.cand]
label = "Candidate"

[data.runs]
key = ["environment", "procs", "run"]
group-by = ["procs"]
columns = { environment = "text", procs = "integer", run = "integer", time_s = "positive" }
exclude = [{ where = { environment = "base", procs = 4, run = 1 }, reason = "node swapped" }]

[[metrics]]
name = "at_2"
label = "Time at 2 processes"
data = "runs"
value = "time_s"
where = { procs = 2 }
better = "lower"
headline = true
"#;

const PAGE: &str = "# Results\n\n{{ caveats() }}\n\n```table\nid = \"grid\"\ndata = \"runs\"\nvalue = \"time_s\"\nrows = \"procs\"\ncolumns = \"environment\"\ncell = \"relative\"\nbetter = \"lower\"\ncaption = \"Times against the base\"\n```\n";

/// Seeded runs: `n` per environment and process count.
fn runs(seed: u64) -> String {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) % 1000
    };
    let mut csv = String::from("environment,procs,run,time_s\n");
    for env in ["base", "cand"] {
        for procs in [2, 4] {
            for run in 1..=(4 + next() % 5) {
                csv.push_str(&format!("{env},{procs},{run},{}\n", 10.0 + next() as f64 / 100.0));
            }
        }
    }
    csv
}

/// The rows of `sql` over the export in `dir`, as JSON objects, by DuckDB.
fn duckdb(dir: &std::path::Path, sql: &str) -> Vec<Value> {
    let code = format!(
        "import duckdb, json\nr = duckdb.sql(\"\"\"{sql}\"\"\")\ncols = r.columns\nprint(json.dumps([dict(zip(cols, row)) for row in r.fetchall()], default=str))"
    );
    let out = Command::new("python3").arg("-c").arg(code).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Whether python3 with duckdb is here; a test without it prints SKIPPED
/// (and fails where tools are required).
fn has_duckdb() -> bool {
    let has = Command::new("python3")
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has {
        assert!(
            std::env::var_os("REPORT_REQUIRE_TOOLS").is_none(),
            "python3 with duckdb is required"
        );
        eprintln!("SKIPPED: python3 with duckdb is not installed");
    }
    has
}

/// A history of two benchmarks over 24 versions: `a` steps up 20% at v12
/// (a change), `b` only at v20 with 2 runs a version (undecided).
fn history_runs(seed: u64) -> String {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 33) % 1000) as f64 / 1000.0
    };
    let mut csv = String::from("version,seq,bench,time_s\n");
    for v in 0..24 {
        for (bench, runs, step) in [("a", 4, 12), ("b", 2, 20)] {
            for _ in 0..runs {
                let level = if v >= step { 12.0 } else { 10.0 };
                csv.push_str(&format!("v{v:02},{v},{bench},{}\n", level + next() * 0.3));
            }
        }
    }
    csv
}

/// A history's change points, and the candidates its runs could not
/// decide, are claims of the export: DuckDB reads back each one's shift,
/// interval, p, verdict and runs as stats.json has them.
#[test]
fn change_points_are_claims_of_the_export() {
    if !has_duckdb() {
        return;
    }
    let book = "[book]\ntitle = \"Export\"\n[data.runs]\ngroup-by = [\"bench\"]\n\
                [history]\ndata = \"runs\"\nversion = \"version\"\norder = \"seq\"\n\
                value = \"time_s\"\nbetter = \"lower\"\n";
    for seed in [1, 2] {
        let dir = written_study(book, &[("runs.csv", &history_runs(seed))], "# H\n");
        let stats = stats_json(dir.path());
        let out = dir.path().join("export");
        let output = report(dir.path(), &["export", out.to_str().unwrap()]);
        assert!(output.status.success(), "{}", stderr(&output));
        let claims = duckdb(
            dir.path(),
            "SELECT * FROM 'export/claims.parquet' WHERE kind = 'change-point' ORDER BY id",
        );
        same_change_points(&stats, &claims, seed);
    }
}

/// Every change point and undecided candidate of `stats` is a row of
/// `claims`, in order of id, with its figures.
fn same_change_points(stats: &Value, claims: &[Value], seed: u64) {
    let mut expected = Vec::new();
    for (i, series) in stats["history"]["series"].as_array().unwrap().iter().enumerate() {
        for key in ["changes", "inconclusive"] {
            for (j, c) in series[key].as_array().unwrap().iter().enumerate() {
                let text = &stats["history"]["text"][i][key][j];
                expected.push((
                    format!(
                        "{}@{}",
                        series["id"].as_str().unwrap(),
                        c["version"].as_str().unwrap()
                    ),
                    c.clone(),
                    text.clone(),
                ));
            }
        }
    }
    expected.sort_by(|a, b| a.0.cmp(&b.0));
    let verdicts: Vec<&str> =
        expected.iter().map(|e| e.1["claim"]["verdict"].as_str().unwrap()).collect();
    assert!(
        verdicts.contains(&"worse") && verdicts.contains(&"inconclusive"),
        "seed {seed}: {verdicts:?}"
    );
    assert_eq!(claims.len(), expected.len(), "seed {seed}");
    for (row, (id, c, text)) in claims.iter().zip(&expected) {
        assert_eq!(row["id"], id.as_str());
        assert_eq!([&row["value"], &row["p_value"]], [&c["shift"], &c["p"]], "{id}");
        assert_eq!([&row["ci_low"], &row["ci_high"]], [&c["ci"][0], &c["ci"][1]], "{id}");
        assert_eq!(row["verdict"], c["claim"]["verdict"], "{id}");
        assert_eq!([&row["n_baseline"], &row["n_candidate"]], [&c["runs"][0], &c["runs"][1]]);
        let n = c["runs"][0].as_i64().unwrap() + c["runs"][1].as_i64().unwrap();
        assert_eq!(row["n"], n, "{id}");
        assert_eq!(&row["label"], text, "{id}");
        assert_eq!(row["commit"], Value::Null, "outside git");
        let inputs: Value = serde_json::from_str(row["inputs"].as_str().unwrap()).unwrap();
        assert_eq!([&inputs["range"], &inputs["p_holm"]], [&c["range"], &c["p_holm"]]);
        assert_eq!(
            inputs["config"],
            stats["history"]["series"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| id.starts_with(s["id"].as_str().unwrap()))
                .unwrap()["config"]
        );
    }
}

#[test]
fn the_export_read_by_duckdb_holds_the_claims_of_stats_json() {
    let has_duckdb = Command::new("python3")
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_duckdb {
        assert!(
            std::env::var_os("REPORT_REQUIRE_TOOLS").is_none(),
            "python3 with duckdb is required"
        );
        eprintln!("SKIPPED: python3 with duckdb is not installed");
        return;
    }
    for seed in [1, 2, 3] {
        let dir = written_study(BOOK, &[("runs.csv", &runs(seed))], PAGE);
        let stats = stats_json(dir.path());
        let out = dir.path().join("export");
        let output = report(dir.path(), &["export", out.to_str().unwrap()]);
        assert!(output.status.success(), "{}", stderr(&output));
        let claims = duckdb(dir.path(), "SELECT * FROM 'export/claims.parquet'");
        same_claims(&stats, &claims);
        // The runs used: every row but the excluded one, with its source.
        let used = runs(seed).lines().count() - 2;
        let rows = duckdb(
            dir.path(),
            "SELECT count(*) AS n, min(_source) AS s, min(_row) AS first, \
             count(*) FILTER (environment = 'base' AND procs = 4 AND run = 1) AS excluded \
             FROM 'export/runs/runs.parquet'",
        );
        assert_eq!(rows[0]["n"], used, "seed {seed}");
        assert_eq!(rows[0]["excluded"], 0, "seed {seed}");
        assert_eq!(rows[0]["s"], "results/runs.csv");
        assert_eq!(rows[0]["first"], 2, "the first row is on line 2");
    }
}

/// Every claim of `stats` (stats.json) is a row of `claims` with its
/// values, and there are no others.
fn same_claims(stats: &Value, claims: &[Value]) {
    let find = |kind: &str, id: &str| {
        claims
            .iter()
            .find(|c| c["kind"] == kind && c["id"] == id)
            .unwrap_or_else(|| panic!("{kind} {id}"))
            .clone()
    };
    let list = |key: &str| stats[key].as_array().unwrap().clone();
    let (metrics, groups, comparisons) = (list("metrics"), list("groups"), list("comparisons"));
    let cells: Vec<Value> =
        list("tables").iter().flat_map(|t| t["cells"].as_array().unwrap().clone()).collect();
    assert_eq!(claims.len(), metrics.len() + groups.len() + comparisons.len() + cells.len());
    assert!(!cells.is_empty() && !comparisons.is_empty());
    for m in &metrics {
        let c = find("metric", m["name"].as_str().unwrap());
        assert_eq!(c["value"], m["value"]);
        assert_eq!([&c["ci_low"], &c["ci_high"]], [&m["ci"][0], &m["ci"][1]]);
        assert_eq!(c["p_value"], m["p_value"]);
        assert_eq!(c["verdict"], m["claim"]["verdict"]);
        assert_eq!(c["n_baseline"], m["baseline"]["n"]);
        assert_eq!(c["n_candidate"], m["candidate"]["n"]);
        assert_eq!(c["study"], "Export");
    }
    for g in &groups {
        let c = find("group", g["id"].as_str().unwrap());
        assert_eq!(c["value"], g["summary"]["mean"]);
        assert_eq!(c["n"], g["summary"]["n"]);
        let inputs: Value = serde_json::from_str(c["inputs"].as_str().unwrap()).unwrap();
        assert_eq!(inputs, g["inputs"]);
    }
    for k in &comparisons {
        let c = find("comparison", k["id"].as_str().unwrap());
        assert_eq!([&c["value"], &c["p_value"]], [&k["relative"], &k["p_value"]]);
        assert_eq!([&c["ci_low"], &c["ci_high"]], [&k["ci"][0], &k["ci"][1]]);
    }
    let exported: Vec<&Value> = claims.iter().filter(|c| c["kind"] == "table-cell").collect();
    for (cell, row) in cells.iter().zip(exported) {
        assert_eq!(
            [&row["value"], &row["p_value"], &row["n"]],
            [&cell["value"], &cell["p"], &cell["n"]]
        );
    }
}
