//! Partitioned datasets (`results/NAME/` of Parquet files, `bench=b2/...`),
//! written by real engines: DuckDB's `PARTITION_BY`, pyarrow's
//! `write_dataset` and (when it is installed) Polars, partitioned by text,
//! an integer and a date. A slice of one such dataset gives the statistics
//! of the same rows as one CSV file, to the last bit; the partitions outside
//! the slice are never opened (made unreadable, they still build); the
//! manifest lists the files read and the partitions pruned; and bad
//! datasets are located errors that keep the previous output.

use crate::common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::*;
use serde_json::Value;

/// Run the Python `code` in `dir`, with `duckdb`, `pa`, `pq` and `ds` imported.
fn python(dir: &Path, code: &str) {
    run_python(
        dir,
        "import os, random, duckdb, pyarrow as pa, pyarrow.parquet as pq, pyarrow.dataset as ds\n",
        code,
    );
}

/// The study: one table `runs`, its slice `bench = "b2"`, configurations by
/// `procs`, a comparison at each process count.
const BOOK: &str = r#"[book]
title = "Archive"
date = "2024-01-02"

[study]
baseline = "base"

[environments.base]
label = "Base"

[environments.cand]
label = "Candidate"

[data.runs]
key = ["environment", "procs", "day", "run"]
group-by = ["procs"]
columns = { environment = "text", procs = "integer", day = "text", time_s = "positive" }
WHERE

[[metrics]]
name = "at_2"
label = "Time at 2 processes"
data = "runs"
value = "time_s"
where = { procs = 2 }
better = "lower"
headline = true

[[metrics]]
name = "at_4"
label = "Time at 4 processes"
data = "runs"
value = "time_s"
where = { procs = 4 }
better = "lower"
"#;

/// Python making the rows of a seeded archive: benches `b1` to `b4`, process
/// counts 2 and 4, two days, both environments, a few runs each, and a
/// column `note` no statistic uses; times are multiples of 1/8, so that any
/// order of summing them gives the same bits.
fn rows(seed: u64) -> String {
    format!(
        "rng = random.Random({seed})\n\
         import datetime\n\
         rows = []\n\
         for bench in ['b1', 'b2', 'b3', 'b4']:\n\
         \x20 for procs in [2, 4]:\n\
         \x20   for day in [datetime.date(2025, 1, 1), datetime.date(2025, 1, 2)]:\n\
         \x20     for env in ['base', 'cand']:\n\
         \x20       for run in range(1, rng.randint(3, 6)):\n\
         \x20         t = rng.randint(40, 200) / 8 * (1.0 if env == 'base' else 1.25)\n\
         \x20         rows.append(dict(bench=bench, procs=procs, day=day, environment=env, run=run, time_s=t, note='n' * rng.randint(0, 3)))\n\
         cols = {{k: [r[k] for r in rows] for k in rows[0]}}\n\
         arch = pa.table(cols)\n"
    )
}

/// The same rows as one CSV file, `bench = "b2"` only, in the order a
/// dataset is read (by partition folder, then as written).
const CSV: &str = "b2 = [r for r in rows if r['bench'] == 'b2']\n\
    b2.sort(key=lambda r: (f\"procs={r['procs']}\", f\"day={r['day']}\"))\n\
    with open('results/runs.csv', 'w') as f:\n\
    \x20 f.write('environment,procs,day,run,time_s,note\\n')\n\
    \x20 for r in b2: f.write(f\"{r['environment']},{r['procs']},{r['day']},{r['run']},{r['time_s']!r},{r['note']}\\n\")\n";

/// Writers of the archive as `results/runs/`, partitioned by bench (text),
/// procs (integer) and day (date).
const WRITERS: &[(&str, &str)] = &[
    (
        "DuckDB",
        "duckdb.sql('SET threads = 1')\n\
         duckdb.sql(\"COPY (SELECT * FROM arch) TO 'results/runs' (FORMAT parquet, PARTITION_BY (bench, procs, day))\")",
    ),
    (
        "pyarrow",
        "ds.write_dataset(arch, 'results/runs', format='parquet', partitioning=['bench', 'procs', 'day'], partitioning_flavor='hive')",
    ),
    (
        "Polars",
        "import polars\n\
         polars.from_arrow(arch).write_parquet('results/runs', partition_by=['bench', 'procs', 'day'])",
    ),
];

/// Whether Polars is installed (its writer is then checked too).
fn polars() -> bool {
    Command::new("python3").args(["-c", "import polars"]).output().is_ok_and(|o| o.status.success())
}

/// `value` with the table's path written as the CSV's, alone and in sentences.
fn renamed(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace("results/runs", "results/runs.csv")),
        Value::Array(items) => Value::Array(items.iter().map(renamed).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), renamed(v))).collect())
        }
        other => other.clone(),
    }
}

/// A study of [`BOOK`] whose `[data.runs]` slice is `slice`, with the seeded
/// archive written by `write`.
fn archive(seed: u64, write: &str, slice: &str) -> tempfile::TempDir {
    let dir = written_study(&BOOK.replace("WHERE", slice), &[], CAVEATS_PAGE);
    python(dir.path(), &format!("{}{write}\n", rows(seed)));
    dir
}

#[test]
fn duckdb_datasets_give_the_statistics_of_the_same_rows_as_csv() {
    same_statistics(&WRITERS[0]);
}

#[test]
fn pyarrow_datasets_give_the_statistics_of_the_same_rows_as_csv() {
    same_statistics(&WRITERS[1]);
}

#[test]
fn polars_datasets_give_the_statistics_of_the_same_rows_as_csv() {
    if polars() {
        same_statistics(&WRITERS[2]);
    } else {
        eprintln!("SKIPPED: Polars is not installed (pip install polars)");
    }
}

/// A slice of the seeded archives written by `writer` gives the statistics
/// of the same rows as one CSV file, and the manifest lists the files of
/// the slice, each with its size and hash, and the other partitions pruned.
fn same_statistics((writer, write): &(&str, &str)) {
    if !engines() {
        return;
    }
    for seed in [1, 2] {
        let csv = written_study(&BOOK.replace("WHERE", ""), &[], CAVEATS_PAGE);
        python(csv.path(), &format!("{}{CSV}", rows(seed)));
        let expected = stats_json(csv.path());
        {
            let dir = archive(seed, write, "where = { bench = \"b2\" }");
            let stats = stats_json(dir.path());
            assert_eq!(renamed(&stats), expected, "{writer}, seed {seed}");
            // The manifest lists the files of b2 only, and the other benches as pruned.
            let manifest: Value = serde_json::from_slice(
                &fs::read(dir.path().join("site/data/manifest.json")).unwrap(),
            )
            .unwrap();
            let runs = &manifest["datasets"]["results/runs"];
            let read = runs["read"].as_object().unwrap();
            assert_eq!(read.len(), 4, "{writer}: one file per procs and day of b2: {runs}");
            for (path, file) in read {
                assert!(path.starts_with("results/runs/bench=b2/procs="), "{writer}: {path}");
                let bytes = fs::read(dir.path().join(path)).unwrap();
                assert_eq!(file["bytes"], bytes.len(), "{writer}: {path}");
                let hash = sha256(&bytes);
                assert_eq!(file["sha256"], hash.as_str(), "{writer}: {path}");
            }
            let pruned: Vec<&str> =
                runs["pruned"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
            assert_eq!(pruned.len(), 12, "{writer}: {pruned:?}");
            assert!(pruned.iter().all(|p| !p.contains("bench=b2")), "{writer}: {pruned:?}");
        }
    }
}

/// The SHA-256 of `bytes` in hex, by `sha256sum`'s Python twin.
fn sha256(bytes: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f"), bytes).unwrap();
    let out = Command::new("python3")
        .args([
            "-c",
            "import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest())",
        ])
        .arg(dir.path().join("f"))
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Partitions outside the slice are never opened: with every file of the
/// other benches replaced by garbage, the build succeeds; the garbage in a
/// selected partition fails it, at that file.
#[test]
fn partitions_outside_the_slice_are_never_read() {
    if !engines() {
        return;
    }
    let dir = archive(7, WRITERS[1].1, "where = { bench = \"b2\" }");
    let results = dir.path().join("results/runs");
    for bench in ["b1", "b3", "b4"] {
        for entry in walk(&results.join(format!("bench={bench}"))) {
            fs::write(entry, "not parquet").unwrap();
        }
    }
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let broken = walk(&results.join("bench=b2")).remove(0);
    fs::write(&broken, "PAR1 garbage PAR1").unwrap();
    let output = report(dir.path(), &["build"]);
    assert!(!output.status.success());
    let relative = broken.strip_prefix(dir.path()).unwrap().to_string_lossy().into_owned();
    assert!(
        stderr(&output).starts_with(&format!("error: {relative}: cannot read the Parquet footer")),
        "{}",
        stderr(&output)
    );
    assert!(dir.path().join("site/index.html").exists(), "the previous output is kept");
}

/// Row groups whose statistics rule the slice out are not decoded, and rows
/// outside the slice in the others are left out: a slice on a column of the
/// files (not a partition) reads as the CSV of its rows does.
#[test]
fn a_slice_on_a_column_of_the_files_keeps_its_rows_only() {
    if !engines() {
        return;
    }
    let csv = written_study(&BOOK.replace("WHERE", ""), &[], CAVEATS_PAGE);
    python(csv.path(), &format!("{}{CSV}", rows(5)));
    let expected = stats_json(csv.path());
    // Not partitioned by bench: one folder per procs and day, bench a column.
    let write = "pq.write_to_dataset(arch, 'results/runs', partition_cols=['procs', 'day'], row_group_size=5)";
    let dir = archive(5, write, "where = { bench = \"b2\" }");
    let stats = stats_json(dir.path());
    assert_eq!(renamed(&stats)["metrics"], expected["metrics"]);
}

/// Every file under `dir`, sorted.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found.sort();
    found
}

#[test]
fn bad_datasets_are_located_errors() {
    if !engines() {
        return;
    }
    // A partition value that does not parse as the declared integer.
    let dir = archive(3, WRITERS[1].1, "where = { bench = \"b2\" }");
    let runs = dir.path().join("results/runs/bench=b2");
    fs::rename(runs.join("procs=4"), runs.join("procs=four")).unwrap();
    let output = report(dir.path(), &["build"]);
    assert_eq!(
        stderr(&output),
        "error: results/runs/bench=b2/procs=four: partition `procs`: `four` is not a whole number \
         = help: book.toml declares `procs` as a whole number: write the partition's values so, \
         or declare `procs = \"text\"`\n"
    );
    // Mixed schemas: one file with `time_s` as text.
    let dir = archive(3, WRITERS[1].1, "where = { bench = \"b2\" }");
    let file = walk(&dir.path().join("results/runs/bench=b2/procs=4")).remove(0);
    python(
        dir.path(),
        &format!(
            "t = pq.read_table('{0}')\nt = t.set_column(t.column_names.index('time_s'), 'time_s', pa.array([str(x) for x in t['time_s'].to_pylist()]))\npq.write_table(t, '{0}')",
            file.display()
        ),
    );
    let output = report(dir.path(), &["build"]);
    let relative = file.strip_prefix(dir.path()).unwrap().display().to_string();
    assert!(
        stderr(&output).starts_with(&format!(
            "error: {relative}: column `time_s`: the Parquet column holds text"
        )),
        "{}",
        stderr(&output)
    );
    // A folder that is not a partition.
    let dir = archive(3, WRITERS[1].1, "");
    fs::create_dir_all(dir.path().join("results/runs/raw")).unwrap();
    let first = walk(&dir.path().join("results/runs/bench=b1")).remove(0);
    fs::copy(first, dir.path().join("results/runs/raw/x.parquet")).unwrap();
    let output = report(dir.path(), &["build"]);
    assert!(
        stderr(&output).starts_with("error: results/runs/raw: `raw` is not a partition folder"),
        "{}",
        stderr(&output)
    );
    // A slice that selects nothing.
    let dir = archive(3, WRITERS[1].1, "where = { bench = \"b9\" }");
    let output = report(dir.path(), &["build"]);
    assert!(
        stderr(&output)
            .starts_with("error: results/runs: no partition of the dataset matches the slice"),
        "{}",
        stderr(&output)
    );
}
