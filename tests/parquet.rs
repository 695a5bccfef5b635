//! Parquet results (`results/NAME.parquet`), written by real engines: DuckDB
//! and pyarrow files of the shipped study, in every codec engines use, give
//! the statistics of its CSV files to the last bit; `key`, `group-by`,
//! `derive` and `exclude` work on them; and a wrong type, a null in a key, a
//! missing column, a nested type or a damaged file is an error naming the
//! file, the column and the row.

use crate::common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::*;
use serde_json::Value;

/// Run the Python `code` in `dir`, with `duckdb`, `pa` (pyarrow), `pc`
/// (pyarrow.csv) and `pq` (pyarrow.parquet) imported.
fn python(dir: &Path, code: &str) {
    run_python(
        dir,
        "import glob, os, duckdb, pyarrow as pa, pyarrow.csv as pc, pyarrow.parquet as pq\n",
        code,
    );
}

/// Python that replaces each `results/*.csv` by `results/*.parquet`, written
/// by `write` (which reads `csv` and writes `out`).
fn converted(write: &str) -> String {
    let body: String = write.lines().map(|l| format!("    {l}\n")).collect();
    format!(
        "for csv in sorted(glob.glob('results/*.csv')):\n    out = csv[:-4] + '.parquet'\n{body}    os.remove(csv)\n"
    )
}

/// The engines and settings the shipped study is written with: the defaults
/// of DuckDB and pyarrow (snappy), every other codec engines write (zstd,
/// Polars' default; gzip; lz4), many small row groups, version 2 data pages,
/// and the types an export may choose for the same values: decimals, 16- and
/// 32-bit integers, dictionary-encoded and large strings.
const WRITERS: &[(&str, &str)] = &[
    ("DuckDB", "duckdb.sql(f\"COPY (FROM read_csv('{csv}')) TO '{out}' (FORMAT parquet)\")"),
    (
        "DuckDB, zstd, row groups of 16 rows",
        "duckdb.sql(f\"COPY (FROM read_csv('{csv}')) TO '{out}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 16)\")",
    ),
    (
        "DuckDB, decimals and narrow integers",
        "kinds = duckdb.sql(f\"DESCRIBE FROM read_csv('{csv}')\").fetchall()\n\
         cast = {'DOUBLE': 'DECIMAL(18,6)', 'BIGINT': 'INTEGER'}\n\
         select = ', '.join(f'CAST(\"{n}\" AS {cast[t]}) AS \"{n}\"' if t in cast else f'\"{n}\"' for n, t, *_ in kinds)\n\
         duckdb.sql(f\"COPY (SELECT {select} FROM read_csv('{csv}')) TO '{out}' (FORMAT parquet, COMPRESSION gzip)\")",
    ),
    ("pyarrow", "pq.write_table(pc.read_csv(csv), out)"),
    (
        "pyarrow, gzip, row groups of 7 rows, version 2 pages",
        "pq.write_table(pc.read_csv(csv), out, compression='gzip', row_group_size=7, data_page_version='2.0')",
    ),
    (
        "pyarrow, lz4, dictionary strings, 32-bit integers",
        "t = pc.read_csv(csv)\n\
         def narrow(c):\n    \
             if pa.types.is_integer(c.type): return c.cast(pa.int32())\n    \
             if pa.types.is_string(c.type): return c.dictionary_encode()\n    \
             return c\n\
         pq.write_table(pa.table([narrow(c) for c in t.columns], names=t.column_names), out, compression='lz4')",
    ),
    (
        "pyarrow, zstd, large strings, 16-bit integers, no dictionary",
        "t = pc.read_csv(csv)\n\
         def wide(c):\n    \
             if pa.types.is_integer(c.type) and pa.compute.max(c).as_py() < 32768: return c.cast(pa.int16())\n    \
             if pa.types.is_string(c.type): return c.cast(pa.large_string())\n    \
             return c\n\
         import pyarrow.compute\n\
         pq.write_table(pa.table([wide(c) for c in t.columns], names=t.column_names), out, compression='zstd', use_dictionary=False)",
    ),
];

/// `value` with every `.parquet` in its text made `.csv`: the statistics of
/// the two builds may differ in file names only.
fn renamed(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace(".parquet", ".csv")),
        Value::Array(items) => Value::Array(items.iter().map(renamed).collect()),
        Value::Object(map) => Value::Object(
            map.iter().map(|(k, v)| (k.replace(".parquet", ".csv"), renamed(v))).collect(),
        ),
        other => other.clone(),
    }
}

/// Every number the two stats.json hold, by its path, where they differ.
fn differences(a: &Value, b: &Value, path: &str, found: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for key in keys {
                let (u, v) =
                    (x.get(key).unwrap_or(&Value::Null), y.get(key).unwrap_or(&Value::Null));
                differences(u, v, &format!("{path}.{key}"), found);
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                differences(u, v, &format!("{path}[{i}]"), found);
            }
        }
        _ if a != b => found.push(format!("{path}: {a} against {b}")),
        _ => {}
    }
}

/// How many numbers `value` holds.
fn numbers(value: &Value) -> usize {
    match value {
        Value::Number(_) => 1,
        Value::Array(items) => items.iter().map(numbers).sum(),
        Value::Object(map) => map.values().map(numbers).sum(),
        _ => 0,
    }
}

/// The shipped study's statistics from Parquet files written by DuckDB and
/// by pyarrow, in every codec and several column types, are those of its CSV
/// files: every number of stats.json equal, bit for bit.
#[test]
fn parquet_from_duckdb_and_pyarrow_gives_the_statistics_of_the_csv_files() {
    if !engines() {
        return;
    }
    let csv = shipped_study();
    let expected = stats_json(csv.path());
    assert!(numbers(&expected) > 500, "the shipped study has hundreds of figures");
    for (writer, write) in WRITERS {
        let study = shipped_study();
        python(study.path(), &converted(write));
        let listed: Vec<String> = fs::read_dir(study.path().join("results"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".parquet") || n.ends_with(".csv"))
            .collect();
        assert_eq!(listed.len(), 3, "{writer}: {listed:?}");
        assert!(listed.iter().all(|n| n.ends_with(".parquet")), "{writer}: {listed:?}");
        let stats = stats_json(study.path());
        let mut found = Vec::new();
        differences(&renamed(&stats), &expected, "stats", &mut found);
        assert!(found.is_empty(), "{writer}: {} differences:\n{}", found.len(), found.join("\n"));
    }
}

/// book.toml of a small study of one Parquet file, `results/runs.parquet`:
/// the key is (environment, procs, run), configurations are by `procs`.
const BOOK: &str = r#"[book]
title = "Parquet"
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

[[metrics]]
name = "at_2"
label = "Time at 2 processes"
data = "runs"
value = "time_s"
where = { procs = 2 }
better = "lower"
headline = true
"#;

/// The runs of [`BOOK`] as Python columns: base 10, 11, 12 and a slow 30;
/// the candidate 9, 10, 11; all at 2 processes. Each case edits a copy.
const COLUMNS: &str = "cols = {\n\
    'environment': ['base', 'base', 'base', 'base', 'cand', 'cand', 'cand'],\n\
    'procs': [2] * 7,\n\
    'run': [1, 2, 3, 4, 1, 2, 3],\n\
    'time_s': [10.0, 11.0, 12.0, 30.0, 9.0, 10.0, 11.0],\n\
}\n";

/// A study of [`BOOK`] with `extra` added to `[data.runs]`, its runs
/// written by pyarrow after the Python `edit` of [`COLUMNS`] (`cols`), with
/// `options` of `write_table`.
fn study(extra: &str, edit: &str, options: &str) -> tempfile::TempDir {
    let book = BOOK.replace("\n[[metrics]]", &format!("{extra}\n[[metrics]]"));
    let dir = written_study(&book, &[], CAVEATS_PAGE);
    let code = format!(
        "{COLUMNS}{edit}\npq.write_table(pa.table(cols), 'results/runs.parquet'{options})\n"
    );
    python(dir.path(), &code);
    dir
}

/// The one-line diagnostics of a build of `dir`, which must fail and write nothing.
fn failed(dir: &Path) -> String {
    let output = report(dir, &["build"]);
    assert!(!output.status.success(), "the build should fail");
    assert!(!dir.join("site/index.html").exists(), "no half-written site");
    stderr(&output)
}

#[test]
fn a_declared_number_held_as_text_is_refused_at_the_column() {
    if !engines() {
        return;
    }
    let dir = study("", "cols['time_s'] = [str(t) for t in cols['time_s']]", "");
    assert_eq!(
        failed(dir.path()),
        "error: results/runs.parquet: column `time_s`: the Parquet column holds text (Utf8), but \
         book.toml declares a number greater than zero = help: write it as a number (DuckDB: \
         `CAST(time_s AS DOUBLE)`) in the export, or declare `time_s = \"text\"` in book.toml\n"
    );
    // Timestamps and booleans, likewise, with their own way to a number.
    let dir = study(
        "",
        "import datetime\ncols['run'] = [datetime.datetime(2025, 6, r, 9, 30) for r in cols['run']]\n\
         cols['procs'] = [True] * 7",
        "",
    );
    assert_eq!(
        failed(dir.path()),
        "error: results/runs.parquet: column `procs`: the Parquet column holds booleans (Boolean), \
         but book.toml declares a whole number = help: write it as 0 and 1 (DuckDB: \
         `procs::INTEGER`) in the export, or declare `procs = \"text\"` in book.toml\n\
         error: results/runs.parquet: column `run`: the Parquet column holds timestamps \
         (Timestamp(µs)), but book.toml declares a whole number = help: write it as a number, \
         such as seconds since 1970 (DuckDB: `epoch(run)`) in the export, or declare `run = \
         \"text\"` in book.toml\n\
         error: 2 errors; nothing was written\n"
    );
}

#[test]
fn a_null_in_a_key_or_a_declared_column_is_refused_at_its_row() {
    if !engines() {
        return;
    }
    let dir = study(
        "",
        "cols['run'][2] = None\ncols['environment'][5] = None\ncols['time_s'][6] = None",
        "",
    );
    assert_eq!(
        failed(dir.path()),
        "error: results/runs.parquet (row 3): column `run`: value is missing (null), and `run` is \
         part of the key = help: book.toml's `key` names each run by these columns: fill it in, \
         or leave the row out in the export (`WHERE run IS NOT NULL`)\n\
         error: results/runs.parquet (row 6): column `environment`: value is missing (null), and \
         `environment` is part of the key = help: book.toml's `key` names each run by these \
         columns: fill it in, or leave the row out in the export (`WHERE environment IS NOT NULL`)\n\
         error: results/runs.parquet (row 7): column `time_s`: value is missing (null) = help: \
         every run needs this value: fill it in, or leave the row out in the export (`WHERE \
         time_s IS NOT NULL`)\n\
         error: 3 errors; nothing was written\n"
    );
}

/// A null where a CSV file may leave a cell empty (an undeclared column)
/// reads as an empty cell: no value, and the study builds.
#[test]
fn a_null_in_an_undeclared_column_is_an_empty_cell() {
    if !engines() {
        return;
    }
    let dir = study(
        "",
        "cols['note'] = [None, 1.5, None, 2, None, None, 3]\ncols['host'] = ['a', None] * 3 + ['b']",
        "",
    );
    let stats = stats_json(dir.path());
    // By hand: the candidate's mean 10 against the baseline's 63 / 4.
    let value = stats["metrics"][0]["value"].as_f64().unwrap();
    assert_eq!(value, 10.0 / (63.0 / 4.0) - 1.0);
}

#[test]
fn a_missing_column_is_named_with_the_nearest_one() {
    if !engines() {
        return;
    }
    let dir = study("", "cols['nprocs'] = cols.pop('procs')", "");
    assert_eq!(
        failed(dir.path()),
        "error: results/runs.parquet: required column `procs` is missing = help: book.toml's \
         [data.runs] requires it; did you mean `nprocs`?\n"
    );
}

#[test]
fn a_nested_column_must_be_flattened() {
    if !engines() {
        return;
    }
    let dir = study(
        "",
        "cols['samples'] = [[t, t + 1] for t in cols['time_s']]\n\
         cols['node'] = [{'name': 'n1', 'cores': 64}] * 7",
        "",
    );
    let err = failed(dir.path());
    assert_eq!(
        err,
        "error: results/runs.parquet: column `node`: the Parquet column holds structs, not one \
         value per row = help: a results file holds one value per cell: flatten `node` in the \
         export (DuckDB: `UNNEST(node)` for a list, `node.field AS node_field` for a struct), or \
         leave it out\n\
         error: results/runs.parquet: column `samples`: the Parquet column holds lists, not one \
         value per row = help: a results file holds one value per cell: flatten `samples` in the \
         export (DuckDB: `UNNEST(samples)` for a list, `samples.field AS samples_field` for a \
         struct), or leave it out\n\
         error: 2 errors; nothing was written\n"
    );
}

#[test]
fn a_bad_value_is_named_at_its_row_and_bad_values_are_counted() {
    if !engines() {
        return;
    }
    let dir =
        study("", "cols['time_s'][4] = -1.0\ncols['time_s'][6] = 0.0\ncols['procs'][1] = 2.5", "");
    assert_eq!(
        failed(dir.path()),
        "error: results/runs.parquet (row 2): column `procs`: expected a whole number, found `2.5` \
         = help: write a whole number such as 32\n\
         error: results/runs.parquet (row 5): column `time_s`: expected a number greater than \
         zero, found `-1`, `0` (2 rows) = help: a time or rate must be greater than zero; remove \
         the row of a failed run\n\
         error: 3 errors of 2 kinds; nothing was written\n"
    );
}

/// A damaged file: its footer overwritten, cut short, or not Parquet at all.
#[test]
fn a_damaged_file_is_refused_with_what_is_wrong() {
    if !engines() {
        return;
    }
    let dir = study("", "", "");
    let path = dir.path().join("results/runs.parquet");
    let good = fs::read(&path).unwrap();
    // The footer is the metadata before its 4-byte length and `PAR1`.
    let n = good.len();
    let length = u32::from_le_bytes(good[n - 8..n - 4].try_into().unwrap()) as usize;
    let mut bad = good.clone();
    bad[n - 8 - length..n - 8].fill(0xFF);
    fs::write(&path, &bad).unwrap();
    let err = failed(dir.path());
    assert!(
        err.starts_with("error: results/runs.parquet: cannot read the Parquet footer: "),
        "{err}"
    );
    assert!(
        err.ends_with("= help: the file is damaged: write it again from the engine that made it\n"),
        "{err}"
    );
    fs::write(&path, &good[..n / 2]).unwrap();
    assert_eq!(
        failed(dir.path()),
        "error: results/runs.parquet: the Parquet file is cut short: it does not end with the \
         `PAR1` mark of its footer = help: a copy or an export stopped before the end: copy or \
         export the file again\n"
    );
    fs::write(&path, "environment,procs,run,time_s\nbase,2,1,10\n").unwrap();
    assert_eq!(
        failed(dir.path()),
        "error: results/runs.parquet: not a Parquet file: it does not start with Parquet's `PAR1` \
         mark = help: a results file named `.parquet` must be Parquet, written by an engine such \
         as DuckDB, pyarrow, Polars or Spark; a CSV file is named `.csv`\n"
    );
}

#[test]
fn a_codec_this_build_does_not_read_is_named() {
    if !engines() {
        return;
    }
    let dir = study("", "", ", compression='brotli'");
    assert_eq!(
        failed(dir.path()),
        "error: results/runs.parquet: column `environment` is compressed with Brotli, which \
         report does not read = help: export the file again with snappy (the usual default), \
         zstd, gzip or lz4: in DuckDB `COPY ... TO 'x.parquet' (FORMAT parquet, COMPRESSION \
         zstd)`, in pyarrow `write_table(table, 'x.parquet', compression='zstd')`\n"
    );
}

/// The checks of the whole table name Parquet rows by number: an unknown
/// environment, a repeated run, a derived value that is not finite.
#[test]
fn whole_table_checks_name_rows_by_number() {
    if !engines() {
        return;
    }
    let dir = study("", "cols['environment'][5] = 'cnad'\ncols['run'][3] = 2", "");
    assert_eq!(
        failed(dir.path()),
        "error: results/runs.parquet (row 4): duplicate run (environment = base, procs = 2, run = \
         2), first seen on row 2 = help: each run appears once; renumber the run or delete the \
         repeated row\n\
         error: results/runs.parquet (row 6): unknown environment `cnad` = help: declare it as \
         [environments.cnad] in book.toml, or fix the name: did you mean `cand`?\n\
         error: 2 errors; nothing was written\n"
    );
    let dir = study("derive = { rate = \"1 / (time_s - 10)\" }\n", "", "");
    let err = failed(dir.path());
    assert!(
        err.contains(
            "derived column `rate`: the expression gives inf on row 1 of results/runs.parquet, \
             with time_s = 10"
        ),
        "{err}"
    );
}

/// In the human format a Parquet row is named after the arrow, with no
/// source line under it; in JSON it is `row`, line and column being 0.
#[test]
fn human_and_json_diagnostics_name_the_row() {
    if !engines() {
        return;
    }
    let dir = study("", "cols['run'][2] = None", "");
    let human = stderr(&report_with(dir.path(), &["build"], "human"));
    assert!(human.contains("  --> results/runs.parquet (row 3)\n"), "{human}");
    assert!(!human.contains(" | "), "no source line: {human}");
    let json = report_with(dir.path(), &["build"], "json");
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    let first = &json[0];
    assert_eq!(
        (&first["path"], &first["line"], &first["row"]),
        (&"results/runs.parquet".into(), &0.into(), &3.into())
    );
    assert_eq!(first["locations"][0]["row"], 3);
}

/// `key`, `group-by`, `derive`, `exclude` and `problem-size` on a Parquet
/// file give the statistics of the same runs in CSV.
#[test]
fn derive_exclude_and_problem_size_work_as_on_csv() {
    if !engines() {
        return;
    }
    let extra = "derive = { per_proc = \"time_s / procs\" }\nproblem-size = [\"atoms\"]\n\
                 exclude = [{ where = { environment = \"base\", run = 4 }, reason = \"node 3 was swapping\" }]\n";
    let book = BOOK.replace("run = \"integer\",", "run = \"integer\", atoms = \"integer\",");
    let book = book.replace("value = \"time_s\"", "value = \"per_proc\"");
    let book = book.replace("\n[[metrics]]", &format!("{extra}\n[[metrics]]"));
    let csv = "environment,procs,run,atoms,time_s\nbase,2,1,32000,10\nbase,2,2,32000,11\n\
               base,2,3,32000,12\nbase,2,4,32000,30\ncand,2,1,32000,9\ncand,2,2,32000,10\n\
               cand,2,3,32000,11\n";
    let from_csv = written_study(&book, &[("runs.csv", csv)], CAVEATS_PAGE);
    let expected = stats_json(from_csv.path());
    // By hand: per process, the candidate's mean 5 against the baseline's 33 / 3 / 2 = 5.5.
    assert_eq!(expected["metrics"][0]["value"].as_f64().unwrap(), 5.0 / 5.5 - 1.0);
    let from_parquet = written_study(&book, &[("runs.csv", csv)], CAVEATS_PAGE);
    python(from_parquet.path(), &converted(WRITERS[0].1));
    let stats = stats_json(from_parquet.path());
    let mut found = Vec::new();
    differences(&renamed(&stats), &expected, "stats", &mut found);
    assert!(found.is_empty(), "{}", found.join("\n"));
    assert_eq!(stats["excluded"][0]["file"], "results/runs.parquet");
}

/// `runs.csv` beside `runs.parquet` would be two files of one table.
#[test]
fn a_table_is_read_from_one_file() {
    if !engines() {
        return;
    }
    let dir = study("", "", "");
    fs::write(dir.path().join("results/runs.csv"), "environment,procs,run,time_s\nbase,2,1,10\n")
        .unwrap();
    assert_eq!(
        failed(dir.path()),
        "error: results/runs.parquet: `results/runs.csv` and `results/runs.parquet` are both table \
         `runs` = help: a table is read from one file: remove or rename one of them\n"
    );
}

/// `report import` writes CSV rows: into a table a Parquet file holds, it
/// is refused, with the way to a CSV file beside it.
#[test]
fn import_into_a_parquet_table_is_refused_and_goes_beside_it() {
    let dir = common::import::new_study();
    fs::write(dir.path().join("results/lammps.parquet"), "PAR1").unwrap();
    let log = common::import::input("concatenated.log");
    let output = common::import::import(dir.path(), &["lammps", "--env", "x", &log]);
    assert!(!output.status.success());
    let err = stderr(&output);
    assert!(
        err.contains("error: table `lammps` is a Parquet file, and an import writes CSV rows"),
        "{err}"
    );
    assert!(err.contains("--> results/lammps.parquet"), "{err}");
    assert!(err.contains("with `--into lammps_new` (a table of its own)"), "{err}");
    assert_eq!(fs::read(dir.path().join("results/lammps.parquet")).unwrap(), b"PAR1");
    let beside =
        common::import::import(dir.path(), &["lammps", "--env", "x", "--into", "lammps_new", &log]);
    assert!(beside.status.success(), "{}", stderr(&beside));
    assert!(dir.path().join("results/lammps_new.csv").exists());
}

/// Python writing one table of every column type the reader takes, in
/// three codecs (`snappy.parquet`, `zstd.parquet`, `gzip.parquet`), row
/// groups of 100 rows.
const ALL_TYPES: &str = "import datetime, decimal\n\
         n = 300\n\
         t = pa.table({\n    \
             'environment': pa.array(['base', 'cand'] * (n // 2)).dictionary_encode(),\n    \
             'procs': pa.array([2 ** (i % 4) for i in range(n)], pa.int32()),\n    \
             'run': pa.array(range(n), pa.uint16()),\n    \
             'time_s': [1.0 + i / 7 for i in range(n)],\n    \
             'small': pa.array([i / 3 for i in range(n)], pa.float32()),\n    \
             'cost': pa.array([decimal.Decimal(i) / 100 for i in range(n)], pa.decimal128(9, 2)),\n    \
             'at': [datetime.datetime(2025, 6, 11) + datetime.timedelta(minutes=i) for i in range(n)],\n    \
             'day': [datetime.date(2025, 6, 1 + i % 28) for i in range(n)],\n    \
             'ok': [i % 3 == 0 for i in range(n)],\n    \
             'note': [None if i % 5 else f'n{i}' for i in range(n)],\n\
         })\n\
         for codec in ['snappy', 'zstd', 'gzip']:\n    \
             pq.write_table(t, f'{codec}.parquet', compression=codec, row_group_size=100)\n";

/// Copies of `good`, damaged: a bit flipped at 600 seeded places, 200
/// seeded spans overwritten, and cut at 100 places.
fn damaged_copies(good: &[u8]) -> Vec<Vec<u8>> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut damaged: Vec<Vec<u8>> = Vec::new();
    for _ in 0..600 {
        let mut bad = good.to_vec();
        let at = next() as usize % bad.len();
        bad[at] ^= 1 << (next() % 8);
        damaged.push(bad);
    }
    for _ in 0..200 {
        let mut bad = good.to_vec();
        let start = next() as usize % bad.len();
        let end = (start + 1 + next() as usize % 64).min(bad.len());
        bad[start..end].iter_mut().for_each(|b| *b = next() as u8);
        damaged.push(bad);
    }
    damaged.extend((0..100).map(|i| good[..good.len() * i / 100].to_vec()));
    damaged
}

/// Damaged Parquet files of many kinds ([`damaged_copies`] of [`ALL_TYPES`]),
/// read in this process: each read gives the table or errors naming the
/// file, with a hint, never a crash.
#[test]
fn damaged_files_give_errors_never_a_crash() {
    if !engines() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    python(dir.path(), ALL_TYPES);
    let book = BOOK.split("\n[[metrics]]").next().unwrap();
    let config = report::config::parse(Path::new("book.toml"), book).unwrap();
    // Whether the file reads; the messages of its errors otherwise, each
    // naming the file, with its hint.
    let mut messages = std::collections::BTreeSet::new();
    let mut read = |bytes: Vec<u8>| {
        let file = report::project::SourceFile::new("results/runs.parquet", bytes);
        let Err(errors) = report::results::load(&[file], &config) else { return true };
        for error in errors.0 {
            assert_eq!(error.location.path, Path::new("results/runs.parquet"), "{error}");
            assert!(error.hint.is_some(), "{error}");
            messages.insert(error.message.split(':').next().unwrap().to_string());
        }
        false
    };
    for codec in ["snappy", "zstd", "gzip"] {
        let good = fs::read(dir.path().join(format!("{codec}.parquet"))).unwrap();
        assert!(read(good.clone()), "the undamaged {codec} file reads");
        let read_ok = damaged_copies(&good).into_iter().filter(|bad| read(bad.clone())).count();
        eprintln!("{codec}: {read_ok} damaged files still read (a changed value, say)");
    }
    eprintln!("{messages:#?}");
}

/// The fenced block of `language` number `index` of docs/big-results.md.
fn docs_block(language: &str, index: usize) -> String {
    let docs = fs::read_to_string(repo().join("docs/big-results.md")).unwrap();
    let fence = format!("```{language}\n");
    let start = docs.match_indices(&fence).nth(index).unwrap().0 + fence.len();
    docs[start..start + docs[start..].find("```").unwrap()].to_string()
}

/// docs/big-results.md's worked example, as written: its DuckDB query reduces
/// 94,500 per-iteration samples (three environments, six process counts)
/// to one row per run of the configurations compared, its book.toml section
/// describes them, and the study builds, its figure the one DuckDB computes
/// from the raw samples by another query. Its sampling line keeps the runs
/// it says.
#[test]
fn the_big_results_example_runs_and_builds() {
    if !engines() {
        return;
    }
    let sql = docs_block("sql", 0);
    let book = format!(
        "{}\n{}\n[[metrics]]\nname = \"at_32\"\nlabel = \"Time at 32\"\ndata = \"runs\"\n\
         value = \"time_s\"\nwhere = {{ procs = 32 }}\nbetter = \"lower\"\nheadline = true\n",
        BOOK.split("[environments.base]").next().unwrap().replace("\"base\"", "\"bare-metal\""),
        "[environments.bare-metal]\nlabel = \"Bare metal\"\n\n[environments.kubernetes]\n\
         label = \"Kubernetes\"\n\n"
            .to_string()
            + &docs_block("toml", 0)
    );
    let dir = written_study(&book, &[], CAVEATS_PAGE);
    python(dir.path(), RAW);
    python(dir.path(), &format!("duckdb.sql(\"\"\"{sql}\"\"\")"));
    let stats = stats_json(dir.path());
    let means = duckdb_means(dir.path());
    let expected =
        means["kubernetes"].as_f64().unwrap() / means["bare-metal"].as_f64().unwrap() - 1.0;
    let value = stats["metrics"][0]["value"].as_f64().unwrap();
    assert!((value - expected).abs() < 1e-12, "{value} against DuckDB's {expected}");
    assert!((0.04..0.06).contains(&value), "Kubernetes about 5% slower: {value}");
    assert_eq!(stats["metrics"][0]["baseline"]["n"], 5);
    // The sampling line, in the query where the text says, keeps 3 runs of each configuration.
    let line = docs_block("sql", 1).replace("<= 30", "<= 3");
    let sampled = sql.replace("\n  ORDER BY", &format!("\n{line}  ORDER BY"));
    assert_ne!(sampled, sql);
    python(dir.path(), &format!("duckdb.sql(\"\"\"{sampled}\"\"\")"));
    let stats = stats_json(dir.path());
    assert_eq!(stats["metrics"][0]["baseline"]["n"], 3);
}

/// Python writing the raw samples of docs/big-results.md under `raw/`, by
/// environment and process count: per (run, rank, iteration) a time around
/// 1 ms, Kubernetes 5% slower, more ranks slower; a third environment and 1
/// process, which the study does not compare, are there too.
const RAW: &str = "duckdb.sql(\"\"\"COPY (\n\
           SELECT e.environment, 1 AS nodes, p.procs, r.run, k.rank, i.iteration,\n\
             0.001 * (1 + 0.05 * (e.environment = 'kubernetes')::INT + 0.01 * ln(p.procs))\n\
               * (1 + (hash(e.environment, p.procs, r.run, k.rank, i.iteration) % 1000) / 10000.0) AS seconds\n\
           FROM (VALUES ('bare-metal'), ('kubernetes'), ('vm')) e(environment),\n\
             (VALUES (1), (2), (4), (8), (16), (32)) p(procs), range(1, 6) r(run),\n\
             range(0, 32) k(rank), range(0, 100) i(iteration)\n\
           WHERE k.rank < p.procs\n\
         ) TO 'raw' (FORMAT parquet, PARTITION_BY (environment, procs))\"\"\")\n\
         assert duckdb.sql(\"SELECT count(*) FROM 'raw/**/*.parquet'\").fetchall() == [(3 * 63 * 5 * 100,)]\n";

/// The mean time of a run at 32 processes per environment, computed by
/// DuckDB from the raw samples by a query of its own.
fn duckdb_means(dir: &Path) -> Value {
    let check = "import json\n\
        ranks = \"SELECT environment, run, rank, sum(seconds) AS s FROM 'raw/**/*.parquet' \
        WHERE procs = 32 AND iteration >= 10 GROUP BY ALL\"\n\
        runs = f\"SELECT environment, run, max(s) AS t FROM ({ranks}) GROUP BY ALL\"\n\
        means = dict(duckdb.sql(f\"SELECT environment, avg(t) FROM ({runs}) GROUP BY ALL\").fetchall())\n\
        print(json.dumps(means))\n";
    let output = Command::new("python3")
        .arg("-c")
        .arg(format!("import duckdb\n{check}"))
        .current_dir(dir)
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout).unwrap()
}
