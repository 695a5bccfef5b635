//! Every value `report import` writes, checked against an independent parse
//! of the raw files in ../shared/fixtures/ (Python with regular expressions
//! and its own JSON reader): each LAMMPS run of every log, plain or wrapped in
//! the Metrics Operator's JSON, and each table of the Lassen job output.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::common;
use common::*;

/// Run `report import` into the study at `root`; it must succeed.
fn import(root: &Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_report"))
        .arg("import")
        .args(args)
        .arg("--root")
        .arg(root)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    stderr(&output)
}

/// The rows of a CSV as maps from column to cell.
fn rows(path: &Path) -> Vec<serde_json::Map<String, serde_json::Value>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_string).collect();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            header
                .iter()
                .cloned()
                .zip(r.iter().map(|c| serde_json::Value::from(c.to_string())))
                .collect()
        })
        .collect()
}

/// Python's reading of every LAMMPS log under `folders` of `f`.
const LAMMPS_PY: &str = r#"
import json, re, sys, os
def lines_of(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    if text.lstrip().startswith(("{", "[")):
        out = []
        def walk(v):
            if isinstance(v, str): out.extend(v.split("\n"))
            elif isinstance(v, list): [walk(x) for x in v]
            elif isinstance(v, dict): [walk(x) for x in v.values()]
        walk(json.loads(text))
        return out
    return text.split("\n")
rows = []
for folder in sys.argv[2:]:
    for dirpath, _, names in os.walk(os.path.join(sys.argv[1], folder)):
        for name in sorted(names):
            path = os.path.join(dirpath, name)
            runs, version = [], None
            for l in lines_of(path):
                m = re.match(r"\s*LAMMPS \((.*)\)\s*$", l)
                if m: version = m.group(1).strip()
                m = re.search(r"Loop time of (\S+) on (\d+) procs for (\d+) steps with (\d+) atoms", l)
                if m:
                    runs.append(dict(loop=float(m.group(1)), procs=int(m.group(2)), steps=int(m.group(3)), atoms=int(m.group(4)), version=version, pct={}, left=40))
                    continue
                m = re.match(r"Total wall time: (\d+):(\d+):(\d+)", l)
                if m and runs: runs[-1]["wall"] = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
                if not runs or runs[-1]["left"] <= 0: continue
                r = runs[-1]; r["left"] -= 1
                m = re.search(r"([\d.]+) timesteps/s", l)
                if l.startswith("Performance:") and m: r["tps"] = float(m.group(1))
                m = re.match(r"([\d.]+)% CPU use with (\d+) MPI tasks x (\d+|no) OpenMP", l)
                if m: r["cpu"] = float(m.group(1)); r["mpi"] = int(m.group(2)); r["omp"] = 1 if m.group(3) == "no" else int(m.group(3))
                m = re.match(r"(Pair|Neigh|Comm|Output|Modify|Other)\s*\|.*\|\s*(\S+)\s*$", l)
                if m: r["pct"][m.group(1).lower()] = float(m.group(2))
                m = re.match(r"(Pair|Neigh|Comm|Outpt|Other)\s+time \(%\) = \S+ \((\S+)\)", l)
                if m: r["pct"]["output" if m.group(1) == "Outpt" else m.group(1).lower()] = float(m.group(2))
            for i, r in enumerate(runs):
                r.pop("left"); r["tps"] = r.get("tps", r["steps"] / r["loop"])
                r["file"] = os.path.relpath(path, sys.argv[1]); r["run_in_file"] = i + 1
                rows.append(r)
print(json.dumps(rows))
"#;

/// Whether the cell `column` of `row` holds the number `want` (or is empty when `want` is None).
fn same(row: &serde_json::Map<String, serde_json::Value>, column: &str, want: Option<f64>) -> bool {
    let cell = row[column].as_str().unwrap();
    match want {
        None => cell.is_empty(),
        Some(want) => {
            cell.parse::<f64>().is_ok_and(|got| (got - want).abs() <= 1e-12 * want.abs().max(1.0))
        }
    }
}

#[test]
fn every_lammps_value_matches_the_logs() {
    let Some(f) = shared_fixtures() else { return };
    let Some(python3) = python() else { return };
    let folders = ["lammps-official", "metrics-operator/lammps", "flux-usernetes/lammps"];
    let study = tempfile::tempdir().unwrap();
    for folder in folders {
        import(study.path(), &["lammps", "--env", "x", f.join(folder).to_str().unwrap()]);
    }
    let python =
        Command::new(python3).arg("-c").arg(LAMMPS_PY).arg(&f).args(folders).output().unwrap();
    assert!(python.status.success(), "{}", String::from_utf8_lossy(&python.stderr));
    let expected: Vec<serde_json::Value> = serde_json::from_slice(&python.stdout).unwrap();
    let got = rows(&study.path().join("results/lammps.csv"));
    assert_eq!((got.len(), expected.len()), (172, 172));
    for want in &expected {
        check_lammps_run(&got, want);
    }
    // The five runs of the JSON capture, by hand from the file: loop times and CPU use.
    let capture: Vec<_> =
        got.iter().filter(|r| r["source"] == "lammps/crd-lammps-lammps-small-16.json").collect();
    let loops: Vec<&str> = capture.iter().map(|r| r["loop_time_s"].as_str().unwrap()).collect();
    assert_eq!(loops, ["6.50231", "6.83839", "7.26995", "7.07252", "6.49528"]);
    let cpu: Vec<&str> = capture.iter().map(|r| r["cpu_use_pct"].as_str().unwrap()).collect();
    assert_eq!(cpu, ["55.8", "55.8", "55.8", "55.4", "55.3"]);
    // The version whole; the nodes from each run's `METADATA START {"pods":16,...}` line.
    assert!(capture.iter().all(|r| r["lammps_version"] == "29 Sep 2021 - Update 2"
        && r["modify_pct"] != ""
        && r["nodes"] == "16"
        && r["procs"] == "1408"));
}

/// The imported row of `want`'s run (one of Python's readings) holds every
/// figure Python read from the log.
fn check_lammps_run(got: &[serde_json::Map<String, serde_json::Value>], want: &serde_json::Value) {
    let file = want["file"].as_str().unwrap();
    let run = want["run_in_file"].to_string();
    let matching: Vec<_> = got
        .iter()
        .filter(|r| {
            let source = r["source"].as_str().unwrap();
            (file == source || file.ends_with(&format!("/{source}")))
                && r["run_in_file"] == run.as_str()
        })
        .collect();
    assert_eq!(matching.len(), 1, "{file} run {run}");
    let row = matching[0];
    let number = |key: &str| want.get(key).and_then(serde_json::Value::as_f64);
    for (column, key) in [
        ("loop_time_s", "loop"),
        ("procs", "procs"),
        ("steps", "steps"),
        ("atoms", "atoms"),
        ("timesteps_per_s", "tps"),
        ("cpu_use_pct", "cpu"),
        ("mpi_tasks", "mpi"),
        ("omp_threads", "omp"),
        ("total_wall_time_s", "wall"),
    ] {
        assert!(
            same(row, column, number(key)),
            "{file} run {run}: {column} is {:?}, the log says {:?}",
            row[column],
            want.get(key)
        );
    }
    for section in ["pair", "neigh", "comm", "output", "modify", "other"] {
        let column = format!("{section}_pct");
        let value = want["pct"].get(section).and_then(serde_json::Value::as_f64);
        assert!(
            same(row, &column, value),
            "{file} run {run}: {column} is {:?}, the log says {value:?}",
            row[column.as_str()]
        );
    }
    assert_eq!(row["lammps_version"], want["version"].as_str().unwrap_or(""), "{file}");
}

/// Python's reading of the Lassen job output: per table, the benchmark
/// title, the jsrun counts before it, and its rows.
const LASSEN_PY: &str = r##"
import json, re, sys
tables, launch = [], None
for l in open(sys.argv[1]):
    m = re.match(r"time jsrun -n (\d+) -a (\d+) -c \d+ -r (\d+)", l)
    if m: launch = (int(m.group(1)) * int(m.group(2)), -(-int(m.group(1)) // int(m.group(3))))
    if l.startswith("# OSU"): tables.append(dict(title=l.strip(), launch=launch, rows=[]))
    elif tables and re.match(r"^\d+\s+[\d.]+", l): tables[-1]["rows"].append(l.split())
print(json.dumps(tables))
"##;

/// The next rows of `rows` are Python's reading of `table`, run `run` of
/// benchmark `csv`: its ranks and nodes from jsrun, its sizes and `columns`.
fn check_lassen_table<'a>(
    rows: &mut impl Iterator<Item = &'a serde_json::Map<String, serde_json::Value>>,
    table: &serde_json::Value,
    run: usize,
    csv: &str,
    columns: &[&str],
) {
    let (ranks, nodes) = (table["launch"][0].to_string(), table["launch"][1].to_string());
    for cells in table["rows"].as_array().unwrap() {
        let row = rows.next().expect("a row per table row");
        assert_eq!(
            (row["benchmark"].as_str(), row["run_in_file"].as_str()),
            (Some(csv), Some(run.to_string().as_str()))
        );
        assert_eq!(
            (row["procs"].as_str().unwrap(), row["nodes"].as_str().unwrap()),
            (ranks.as_str(), nodes.as_str()),
            "{csv} run {run}"
        );
        assert_eq!(row["size_bytes"], cells[0], "{csv}");
        for (i, column) in columns.iter().enumerate() {
            let want: f64 = cells[i + 1].as_str().unwrap().parse().unwrap();
            assert!(same(row, column, Some(want)), "{csv} {column}: {:?} vs {want}", row[*column]);
        }
    }
}

#[test]
fn every_lassen_table_keeps_its_benchmark_columns_and_ranks() {
    let Some(f) = shared_fixtures() else { return };
    let Some(python3) = python() else { return };
    let file = f.join("metrics-operator/osu/lassen_osu_4_nodes.out");
    let study = tempfile::tempdir().unwrap();
    let err = import(study.path(), &["osu", "--env", "lassen", file.to_str().unwrap()]);
    assert!(err.contains("osu_hello holds no measurements: skipped (20 places"), "{err}");
    let python = Command::new(python3).arg("-c").arg(LASSEN_PY).arg(&file).output().unwrap();
    let tables: Vec<serde_json::Value> = serde_json::from_slice(&python.stdout).unwrap();
    assert_eq!(tables.len(), 80);
    for (title, csv, columns) in [
        (
            "# OSU MPI Multiple Bandwidth / Message Rate Test v5.8",
            "osu_mbw_mr",
            &["bandwidth_mb_s", "messages_per_s"][..],
        ),
        ("# OSU MPI Latency Test v5.8", "osu_latency", &["latency_us"][..]),
        ("# OSU MPI Allreduce Latency Test v5.8", "osu_allreduce", &["latency_us"][..]),
    ] {
        let want: Vec<&serde_json::Value> = tables.iter().filter(|t| t["title"] == title).collect();
        let got = rows(&study.path().join(format!("results/{csv}.csv")));
        let expected: usize = want.iter().map(|t| t["rows"].as_array().unwrap().len()).sum();
        assert_eq!((got.len(), want.len()), (expected, 20), "{csv}");
        let mut rows = got.iter();
        for (k, table) in want.iter().enumerate() {
            check_lassen_table(&mut rows, table, k + 1, csv, columns);
        }
    }
    // osu_mbw_mr never lands in osu_bw.csv.
    assert!(!study.path().join("results/osu_bw.csv").exists());
}

#[test]
fn the_gke_capture_takes_its_ranks_and_nodes_from_mpirun() {
    let Some(f) = shared_fixtures() else { return };
    let file = f.join("metrics-operator/osu/crd-metrics-128-0.json");
    let study = tempfile::tempdir().unwrap();
    import(study.path(), &["osu", "--env", "gke", file.to_str().unwrap()]);
    let got = rows(&study.path().join("results/osu_allreduce.csv"));
    // `mpirun ... -np 128 -map-by ppr:1:node`: 128 ranks, one per node; 19 sizes, 4 B to 1 MiB.
    assert_eq!(got.len(), 19);
    assert!(got.iter().all(|r| r["procs"] == "128"
        && r["nodes"] == "128"
        && r["source"] == "osu/crd-metrics-128-0.json"));
    let first = (got[0]["size_bytes"].as_str(), got[0]["latency_us"].as_str());
    let last = (got[18]["size_bytes"].as_str(), got[18]["latency_us"].as_str());
    assert_eq!((first, last), ((Some("4"), Some("249.84")), (Some("1048576"), Some("12468.4"))));
    // The flags override the launcher line, with a warning naming both.
    let again = tempfile::tempdir().unwrap();
    let err =
        import(again.path(), &["osu", "--env", "gke", "--procs", "256", file.to_str().unwrap()]);
    assert!(
        err.contains("the launcher line starts 128 ranks, --procs gives 256: 256 is used"),
        "{err}"
    );
    assert!(
        rows(&again.path().join("results/osu_allreduce.csv")).iter().all(|r| r["procs"] == "256")
    );
    let _ = fs::remove_dir_all(again.path());
}

/// Python's reading of OSU output: per file, each `# OSU` title with the
/// rows of numbers under it (a row is a line of numbers only).
const OSU_PY: &str = r##"
import json, os, re, sys
out = []
for folder in sys.argv[2:]:
    for dirpath, _, names in os.walk(os.path.join(sys.argv[1], folder)):
        for name in sorted(names):
            path = os.path.join(dirpath, name)
            tables = []
            for l in open(path, encoding="utf-8", errors="replace"):
                if l.startswith("# OSU"):
                    tables.append(dict(file=os.path.relpath(path, sys.argv[1]), title=l.strip(), rows=[]))
                elif tables and re.fullmatch(r"\s*\d+(\s+[\d.]+)+\s*", l):
                    tables[-1]["rows"].append(l.split())
            out.extend(t for t in tables if t["rows"])
print(json.dumps(out))
"##;

/// (file, size, value) of every row of Python's `tables`, sorted.
fn osu_tables(tables: &[&serde_json::Value]) -> Vec<(String, String, f64)> {
    let mut want: Vec<(String, String, f64)> = Vec::new();
    for t in tables {
        let file = t["file"].as_str().unwrap();
        for cells in t["rows"].as_array().unwrap() {
            let value = cells[1].as_str().unwrap().parse().unwrap();
            want.push((file.to_string(), cells[0].as_str().unwrap().into(), value));
        }
    }
    want.sort_by(|a, b| a.partial_cmp(b).unwrap());
    want
}

/// (file, size, `column`) of every imported row, its source matched to the
/// file of one of `tables`, sorted.
fn osu_rows(
    got: &[serde_json::Map<String, serde_json::Value>],
    tables: &[&serde_json::Value],
    column: &str,
) -> Vec<(String, String, f64)> {
    let mut have: Vec<(String, String, f64)> = got
        .iter()
        .map(|r| {
            let source = r["source"].as_str().unwrap();
            let file = tables
                .iter()
                .map(|t| t["file"].as_str().unwrap())
                .find(|f| f.ends_with(&format!("/{source}")))
                .unwrap_or(source);
            let value = r[column].as_str().unwrap().parse().unwrap();
            (file.to_string(), r["size_bytes"].as_str().unwrap().into(), value)
        })
        .collect();
    have.sort_by(|a, b| a.partial_cmp(b).unwrap());
    have
}

#[test]
fn every_osu_value_of_the_flux_and_reframe_output_matches_the_files() {
    let Some(f) = shared_fixtures() else { return };
    let Some(python3) = python() else { return };
    let folders = ["flux-usernetes/osu", "excalibur-omb/alaska"];
    let study = tempfile::tempdir().unwrap();
    for folder in folders {
        import(
            study.path(),
            &["osu", "--env", "x", "--nodes", "2", f.join(folder).to_str().unwrap()],
        );
    }
    let python =
        Command::new(python3).arg("-c").arg(OSU_PY).arg(&f).args(folders).output().unwrap();
    let tables: Vec<serde_json::Value> = serde_json::from_slice(&python.stdout).unwrap();
    assert_eq!(tables.len(), 80 + 16);
    let mut checked = 0;
    for (title, csv, column) in [
        ("Latency Test", "osu_latency", "latency_us"),
        ("MPI Bandwidth Test", "osu_bw", "bandwidth_mb_s"),
        ("Bi-Directional Bandwidth Test", "osu_bibw", "bandwidth_mb_s"),
        ("Allreduce Latency Test", "osu_allreduce", "latency_us"),
    ] {
        let got = rows(&study.path().join(format!("results/{csv}.csv")));
        let mine: Vec<&serde_json::Value> = tables
            .iter()
            .filter(|t| {
                t["title"].as_str().unwrap().contains(title)
                    && !(title == "Latency Test"
                        && t["title"].as_str().unwrap().contains("Allreduce"))
            })
            .collect();
        let (want, have) = (osu_tables(&mine), osu_rows(&got, &mine, column));
        assert_eq!(have, want, "{csv}");
        assert!(
            got.iter().all(|r| r["benchmark"] == csv && r["procs"] == "2" && r["nodes"] == "2"),
            "{csv}"
        );
        checked += want.len();
    }
    // 40 latency × 24 + 40 bw × 23 (flux), 4 × (24 + 23 + 23 + 19) (ReFrame).
    assert_eq!(checked, 40 * 24 + 40 * 23 + 4 * (24 + 23 + 23 + 19));
}
