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
        // CI installs Polars (.ci/run): there a missing one fails the test.
        assert!(
            std::env::var_os("REPORT_REQUIRE_TOOLS").is_none(),
            "python3 with polars is required (pip install polars)"
        );
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
    // A file cut short (a copy stopped midway) is named, and so is its cause.
    fs::remove_file(&broken).unwrap();
    let short = walk(&results.join("bench=b2")).remove(0);
    let bytes = fs::read(&short).unwrap();
    fs::write(&short, &bytes[..bytes.len() / 2]).unwrap();
    let output = report(dir.path(), &["build"]);
    let relative = short.strip_prefix(dir.path()).unwrap().to_string_lossy().into_owned();
    assert!(
        stderr(&output).starts_with(&format!("error: {relative}: the Parquet file is cut short")),
        "{}",
        stderr(&output)
    );
}

/// Files of mixed schemas among undeclared columns (`run` as text in one
/// file) are an error at the file that differs, after a good build whose
/// output is kept.
#[test]
fn mixed_schemas_are_located_and_keep_the_output() {
    if !engines() {
        return;
    }
    // Mixed schemas among undeclared columns: `run` as text in one file,
    // after a good build, whose output is kept.
    let dir = archive(3, WRITERS[1].1, "where = { bench = \"b2\" }");
    assert!(report(dir.path(), &["build"]).status.success());
    let page = fs::read(dir.path().join("site/index.html")).unwrap();
    let file = walk(&dir.path().join("results/runs/bench=b2/procs=4")).remove(0);
    python(
        dir.path(),
        &format!(
            "t = pq.read_table('{0}')\nt = t.set_column(t.column_names.index('run'), 'run', pa.array([str(x) for x in t['run'].to_pylist()]))\npq.write_table(t, '{0}')",
            file.display()
        ),
    );
    let output = report(dir.path(), &["build"]);
    let relative = file.strip_prefix(dir.path()).unwrap().display().to_string();
    assert_eq!(
        stderr(&output),
        format!(
            "error: {relative}: the files of the dataset differ in their schema: column `run` holds \
             text here but numbers in the files before it = help: every file of a dataset holds the \
             same columns of the same types: write the dataset again in one export\n"
        )
    );
    assert_eq!(fs::read(dir.path().join("site/index.html")).unwrap(), page, "the output is kept");
}

/// A dataset the engine writes again while a build reads it stops that
/// build between reading and writing (the check before the output is
/// written), located at the dataset and naming the file; the previous
/// output is kept, and the next build reads the new files.
#[test]
fn a_dataset_swapped_during_a_build_stops_it() {
    if !engines() {
        return;
    }
    let dir = archive(4, WRITERS[1].1, "where = { bench = \"b2\" }");
    assert!(report(dir.path(), &["build"]).status.success());
    let page = fs::read(dir.path().join("site/index.html")).unwrap();
    let project = report::project::load(dir.path()).unwrap();
    let analyzed = report::pipeline::analyze(&project).unwrap();
    // Mid-build, the engine rewrites one file of the slice and adds another.
    let files = walk(&dir.path().join("results/runs/bench=b2"));
    fs::copy(&files[1], &files[0]).unwrap();
    let finished = report::pipeline::finish(&project, &analyzed, None, Default::default());
    let said = finished.err().unwrap().to_string();
    let relative = files[0].strip_prefix(dir.path()).unwrap().display().to_string();
    assert!(
        said.contains(&format!(
            "results/runs: the dataset changed during the build: `{relative}` was modified"
        )),
        "{said}"
    );
    assert!(said.contains("the previous output is kept"), "{said}");
    // A file of a pruned partition removed mid-build is a change too.
    let extra = walk(&dir.path().join("results/runs/bench=b1")).remove(0);
    let extra = extra.with_file_name("extra.parquet");
    fs::copy(&files[1], &extra).unwrap();
    let project = report::project::load(dir.path()).unwrap();
    let analyzed = report::pipeline::analyze(&project).unwrap();
    fs::remove_file(&extra).unwrap();
    let finished = report::pipeline::finish(&project, &analyzed, None, Default::default());
    let said = finished.err().unwrap().to_string();
    let relative = extra.strip_prefix(dir.path()).unwrap().display().to_string();
    assert!(said.contains(&format!("`{relative}` was removed")), "{said}");
    assert_eq!(fs::read(dir.path().join("site/index.html")).unwrap(), page, "the output is kept");
    assert!(report(dir.path(), &["build"]).status.success());
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

/// The study of [`reading_follows_every_reader`]: no `where`, runs keyed by
/// bench too, its metrics (`METRICS`) drawn by seed.
const READERS_BOOK: &str = r#"[book]
title = "Archive"
date = "2024-01-02"

[study]
baseline = "base"

[environments.base]
label = "Base"

[environments.cand]
label = "Candidate"

[data.runs]
key = ["bench", "environment", "procs", "day", "run"]
group-by = ["procs"]
columns = { environment = "text", bench = "text", procs = "integer", day = "text", time_s = "positive" }
"#;

/// One reader's `where`, drawn by `rng`: a process count (for a metric),
/// perhaps one or two benches, perhaps a day, perhaps runs up to 3; as TOML
/// and as the Python condition on a row `r` that selects the same rows.
fn drawn_filter(rng: &mut Seeded, procs: bool) -> (String, String) {
    let mut toml = Vec::new();
    let mut python = vec!["True".to_string()];
    if procs {
        let p = if rng.next() < 0.5 { 2 } else { 4 };
        toml.push(format!("procs = {p}"));
        python.push(format!("r['procs'] == {p}"));
    }
    let bench = |rng: &mut Seeded| format!("b{}", 1 + (rng.next() * 4.0) as u32);
    let draw = rng.next();
    if draw < 0.4 {
        let b = bench(rng);
        toml.push(format!("bench = \"{b}\""));
        python.push(format!("r['bench'] == '{b}'"));
    } else if draw < 0.7 {
        let (a, b) = (bench(rng), bench(rng));
        toml.push(format!("bench = [\"{a}\", \"{b}\"]"));
        python.push(format!("r['bench'] in ('{a}', '{b}')"));
    }
    if rng.next() < 0.4 {
        let d = 1 + (rng.next() * 2.0) as u32;
        toml.push(format!("day = \"2025-01-0{d}\""));
        python.push(format!("str(r['day']) == '2025-01-0{d}'"));
    }
    if rng.next() < 0.3 {
        toml.push("run = { max = 3 }".into());
        python.push("r['run'] <= 3".into());
    }
    (format!("{{ {} }}", toml.join(", ")), python.join(" and "))
}

/// The study of seed `seed`: book.toml with one or two metrics, the page
/// with a chart half the time, and the Python condition of each reader.
fn drawn_study(seed: u64) -> (String, String, Vec<String>) {
    let mut rng = Seeded(seed * 7919);
    let mut book = READERS_BOOK.to_string();
    let mut selects = Vec::new();
    for m in 0..1 + (rng.next() * 2.0) as usize {
        let (filter, python) = drawn_filter(&mut rng, true);
        book.push_str(&format!(
            "\n[[metrics]]\nname = \"m{m}\"\nlabel = \"Metric {m}\"\ndata = \"runs\"\n\
             value = \"time_s\"\nwhere = {filter}\nbetter = \"lower\"\nheadline = true\n"
        ));
        selects.push(python);
    }
    let mut page = CAVEATS_PAGE.to_string();
    if rng.next() < 0.5 {
        let (filter, python) = drawn_filter(&mut rng, false);
        page.push_str(&format!(
            "\n```chart\nid = \"c\"\nkind = \"line\"\ndata = \"runs\"\nx = \"procs\"\n\
             y = \"time_s\"\nwhere = {filter}\ncaption = \"Time.\"\n```\n"
        ));
        selects.push(python);
    }
    (book, page, selects)
}

/// Python writing the seeded archive as `results/runs/` (pyarrow), the
/// rows `selects` selects as the CSV file of the study at `csv`, and their
/// partitions as `partitions.json`.
fn selected_rows(seed: u64, selects: &[String], csv: &Path) -> String {
    let selected = format!("lambda r: any([{}])", selects.join(", "));
    format!(
        "{rows}{write}\nselected = {selected}\n\
         rows = [r for r in rows if selected(r)]\n\
         rows.sort(key=lambda r: (r['bench'], f\"procs={{r['procs']}}\", f\"day={{r['day']}}\"))\n\
         with open(r'{csv}/results/runs.csv', 'w') as f:\n\
         \x20 f.write('bench,environment,procs,day,run,time_s,note\\n')\n\
         \x20 for r in rows: f.write(f\"{{r['bench']}},{{r['environment']}},{{r['procs']}},{{r['day']}},{{r['run']}},{{r['time_s']!r}},{{r['note']}}\\n\")\n\
         import json\n\
         parts = sorted({{(r['bench'], r['procs'], str(r['day'])) for r in rows}})\n\
         json.dump(parts, open('partitions.json', 'w'))\n",
        rows = rows(seed),
        write = WRITERS[1].1,
        csv = csv.display(),
    )
}

/// A dataset with no `where` is read as the union of what its readers (its
/// metrics' and a chart's `where`) select: for seeded shapes of filters,
/// with every partition no reader can select made unreadable, the build
/// succeeds, the manifest lists exactly those partitions as pruned, and
/// the statistics equal those of the selected rows as one CSV file.
#[test]
fn reading_follows_every_reader() {
    if !engines() {
        return;
    }
    for seed in 1..=5u64 {
        let (book, page, selects) = drawn_study(seed);
        let csv = written_study(&book, &[], &page);
        let dir = written_study(&book, &[], &page);
        let code = selected_rows(seed, &selects, csv.path());
        python(dir.path(), &code);
        let read: Vec<(String, u32, String)> =
            serde_json::from_slice(&fs::read(dir.path().join("partitions.json")).unwrap()).unwrap();
        let read: Vec<String> = read
            .iter()
            .map(|(b, p, d)| format!("results/runs/bench={b}/procs={p}/day={d}"))
            .collect();
        let mut pruned = Vec::new();
        for file in walk(&dir.path().join("results/runs")) {
            let folder = file.parent().unwrap().strip_prefix(dir.path()).unwrap();
            let folder = folder.to_string_lossy().into_owned();
            if !read.contains(&folder) {
                fs::write(&file, "not parquet").unwrap();
                pruned.push(folder);
            }
        }
        pruned.dedup();
        let expected = stats_json(csv.path());
        let stats = stats_json(dir.path());
        assert_eq!(renamed(&stats), expected, "seed {seed}: {book}{page}");
        let manifest: Value =
            serde_json::from_slice(&fs::read(dir.path().join("site/data/manifest.json")).unwrap())
                .unwrap();
        let listed: Vec<&str> = manifest["datasets"]["results/runs"]["pruned"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap())
            .collect();
        assert_eq!(listed, pruned, "seed {seed}: {book}{page}");
    }
}
