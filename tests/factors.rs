//! Studies of another shape: comparisons along any factor, families of
//! comparisons with Holm's correction, and computed tables, checked against
//! hand arithmetic; and the errors of their keys, each at its place.

use crate::common::{built_stats, report, stderr, written_study};

const BOOK: &str = r#"
[book]
title = "Compressors"
date = "2026-12-01"

[study]
baseline = "gzip"
environment-column = "compressor"
factors = ["level"]

[environments.gzip]
label = "gzip"

[environments.zstd]
label = "Zstandard"

[environments.xz]
label = "xz"

[data.runs]
key = ["compressor", "level", "run"]
group-by = ["level"]
"#;

/// Times by hand: at level 1, gzip 2, 4, 6 (mean 4), zstd 1, 2, 3 (mean 2),
/// xz 4, 8, 12 (mean 8); at level 9 every value doubles; `size` is the same
/// in every run (exact), gzip 100, zstd 90, xz 80.
fn results() -> String {
    let mut csv = String::from("compressor,level,run,time_s,size\n");
    let sides = [
        ("gzip", [2.0, 4.0, 6.0], 100),
        ("zstd", [1.0, 2.0, 3.0], 90),
        ("xz", [4.0, 8.0, 12.0], 80),
    ];
    for (name, times, size) in sides {
        for (level, scale) in [(1, 1.0), (9, 2.0)] {
            for (run, t) in times.iter().enumerate() {
                csv.push_str(&format!("{name},{level},{},{},{size}\n", run + 1, t * scale));
            }
        }
    }
    csv
}

fn study(metrics: &str, page: &str) -> tempfile::TempDir {
    written_study(&format!("{BOOK}{metrics}"), &[("runs.csv", &results())], page)
}

fn metric<'a>(
    stats: &'a serde_json::Value,
    name: &str,
    candidate: Option<&str>,
) -> &'a serde_json::Value {
    stats["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name && candidate.is_none_or(|c| m["member"]["candidate"] == c))
        .unwrap_or_else(|| panic!("no metric {name} {candidate:?}"))
}

/// Along a numeric factor: zstd at level 9 against level 1 is ×2 (hand:
/// mean 4 against mean 2); key and factor columns are never compared.
#[test]
fn a_metric_compares_two_levels_of_any_factor() {
    let metrics = r#"
[[metrics]]
name = "levels"
label = "Level 9 against level 1"
data = "runs"
value = "time_s"
factor = "level"
candidate = 9
baseline = 1
where = { compressor = "zstd" }
compare = "ratio"
better = "lower"
"#;
    let dir = study(metrics, "# C\n\n{{ stat(name=\"levels\", field=\"value\") }}\n");
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let stats = built_stats(dir.path());
    let m = metric(&stats, "levels", None);
    assert_eq!((m["factor"].as_str(), m["value"].as_f64()), (Some("level"), Some(2.0)));
    assert_eq!(m["candidate"]["environment"], "9");
    let compared: Vec<&str> = stats["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["inputs"]["column"].as_str().unwrap())
        .collect();
    assert!(compared.iter().all(|c| ["time_s", "size"].contains(c)), "{compared:?}");
}

/// `candidates = "*"`: one comparison per other level, in the column's
/// order, each found by `candidate` in prose; Holm's adjusted p of two is
/// min(1, 2·p) for the smaller and max of that and the larger p.
#[test]
fn candidates_make_a_family_with_holm_s_correction() {
    let metrics = r#"
[[metrics]]
name = "all"
label = "Each against gzip at level 1"
data = "runs"
value = "time_s"
candidates = "*"
where = { level = 1 }
better = "lower"
"#;
    let page = "# C\n\nxz: {{ stat(name=\"all\", candidate=\"xz\", field=\"value\") }}; \
                zstd: {{ stat(name=\"all\", candidate=\"zstd\", field=\"value\") }}.\n";
    let dir = study(metrics, page);
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let stats = built_stats(dir.path());
    let (xz, zstd) = (metric(&stats, "all", Some("xz")), metric(&stats, "all", Some("zstd")));
    // Means 8 and 2 against 4: +100% and −50%.
    assert!((xz["value"].as_f64().unwrap() - 1.0).abs() < 1e-12);
    assert!((zstd["value"].as_f64().unwrap() + 0.5).abs() < 1e-12);
    let p = [xz["p_value"].as_f64().unwrap(), zstd["p_value"].as_f64().unwrap()];
    let (low, high) = (p[0].min(p[1]), p[0].max(p[1]));
    let want =
        |mine: f64| if mine == low { (2.0 * low).min(1.0) } else { (2.0 * low).min(1.0).max(high) };
    for (m, raw) in [(xz, p[0]), (zstd, p[1])] {
        assert!((m["p_holm"].as_f64().unwrap() - want(raw)).abs() < 1e-15);
    }
    let html =
        std::fs::read_to_string(dir.path().join("site/index.html")).unwrap().replace('−', "-");
    assert!(html.contains("xz: +100.0%") && html.contains("zstd: -50.0%"), "{html}");
}

/// A verdict grid: compressor × level, each cell against gzip; the exact
/// `size` cells are −10% and −20% in every run, by hand; the statistic table
/// holds the means (4, 2, 8; doubled at level 9); both are numbered, their
/// cells are in `data/tables/`.
#[test]
fn table_directives_compute_their_cells() {
    let page = r#"# C

See @tbl-size and @tbl-times.

```table
id = "size"
data = "runs"
value = "size"
rows = "compressor"
columns = "level"
cell = "relative"
better = "lower"
caption = "Size against gzip"
```

```table
id = "times"
data = "runs"
value = "time_s"
rows = "compressor"
columns = "level"
cell = "mean"
unit = "s"
caption = "Mean time"
```
"#;
    let dir = study("", page);
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let html =
        std::fs::read_to_string(dir.path().join("site/index.html")).unwrap().replace('−', "-");
    for text in [
        "Table 1.",
        "Table 2.",
        "-10.0%, better in every run",
        "-20.0%, better in every run",
        "baseline",
        "4.0 s",
        "16.0 s",
    ] {
        assert!(html.contains(text), "{text} not in the page");
    }
    // Each comparison's cell is classed by its verdict, for its colour.
    assert!(html.contains("<td class=\"verdict verdict-better num\">-10.0%"), "{html}");
    let value = |file: &str, row: &str, column: &str| -> f64 {
        let csv = std::fs::read_to_string(dir.path().join("site/data/tables").join(file)).unwrap();
        let line = csv.lines().find(|l| l.starts_with(&format!("{row},{column},"))).unwrap();
        line.split(',').nth(3).unwrap().parse().unwrap()
    };
    assert!((value("size.csv", "zstd", "1") + 0.1).abs() < 1e-12);
    assert!((value("size.csv", "xz", "9") + 0.2).abs() < 1e-12);
    assert_eq!(value("times.csv", "xz", "9"), 16.0);
}

/// Each wrong key is an error at its line, with a fix.
#[test]
fn factor_keys_are_checked_at_their_place() {
    let cases = [
        (
            "factor = \"levl\"\ncandidate = 9\nbaseline = 1",
            "has no `levl` column",
            "did you mean `level`",
        ),
        ("candidates = \"*\"\ncandidate = \"xz\"", "`candidates` cannot be used here", "not both"),
        ("each = true", "`each` cannot be used here", "set `per`"),
        (
            "factor = \"level\"\ncandidate = 9",
            "`baseline` cannot be used here",
            "names its `baseline`",
        ),
        ("candidate = \"Xz\"", "candidate `Xz` is not an environment", "xz"),
    ];
    for (keys, message, hint) in cases {
        let metrics = format!(
            "\n[[metrics]]\nname = \"m\"\nlabel = \"M\"\ndata = \"runs\"\nvalue = \"time_s\"\nwhere = {{ level = 1 }}\nbetter = \"lower\"\n{keys}\n"
        );
        let dir = study(&metrics, "# C\n");
        let output = report(dir.path(), &["build"]);
        let err = stderr(&output);
        assert!(
            !output.status.success() && err.contains(message) && err.contains(hint),
            "{keys}: {err}"
        );
        assert!(err.contains("book.toml:"), "{keys}: not located: {err}");
    }
}

/// A member of a family that prose names wrongly is an error listing the
/// family's comparisons.
#[test]
fn prose_names_a_member_of_a_family() {
    let metrics = "\n[[metrics]]\nname = \"all\"\nlabel = \"A\"\ndata = \"runs\"\nvalue = \"time_s\"\ncandidates = \"*\"\nwhere = { level = 1 }\nbetter = \"lower\"\n";
    let dir = study(metrics, "# C\n\n{{ stat(name=\"all\", candidate=\"brotli\") }}\n");
    let output = report(dir.path(), &["build"]);
    let err = stderr(&output);
    assert!(
        err.contains("content/index.md:3:") && err.contains("no comparison of this family matches"),
        "{err}"
    );
    assert!(err.contains("candidate=xz") && err.contains("candidate=zstd"), "{err}");
}

/// A `where` that half-matches is an error at its place, naming the value
/// that matches nothing, not a smaller study.
#[test]
fn each_listed_value_of_where_must_match_rows() {
    let metrics = "\n[[metrics]]\nname = \"m\"\nlabel = \"M\"\ndata = \"runs\"\nvalue = \"time_s\"\n\
        candidate = \"xz\"\nper = \"level\"\nwhere = { level = [1, 5] }\nbetter = \"lower\"\n";
    let dir = study(metrics, "# C\n");
    let output = report(dir.path(), &["build"]);
    let err = stderr(&output);
    assert!(!output.status.success(), "built: {err}");
    assert!(err.contains("book.toml:") && err.contains("has `level` = 5"), "{err}");
}

/// Six environments declared out of name order: the page lists them in
/// book.toml's order, and the paper sets them as a table.
#[test]
fn many_alternatives_keep_book_order_and_become_a_table_in_the_paper() {
    let names = ["zstd", "brotli", "xz", "lz4", "gzip", "bzip2"];
    let mut book = String::from(
        "[book]\ntitle = \"T\"\ndate = \"2026-12-01\"\n\n[study]\nbaseline = \"gzip\"\nenvironment-column = \"compressor\"\n",
    );
    let mut csv = String::from("compressor,run,time_s\n");
    for (i, name) in names.iter().enumerate() {
        book.push_str(&format!(
            "\n[environments.{name}]\nlabel = \"{name}\"\ndescription = \"The {name} tool\"\n"
        ));
        csv.push_str(&format!("{name},1,{}\n{name},2,{}\n", i + 1, i + 2));
    }
    let dir = written_study(&book, &[("runs.csv", &csv)], "# T\n\n```environments\n```\n");
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let html = std::fs::read_to_string(dir.path().join("site/index.html")).unwrap();
    let at: Vec<usize> = names.iter().map(|n| html.find(&format!("<h3>{n}")).unwrap()).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "not in book.toml order: {at:?}");
    let text = crate::common::pdftotext(&dir.path().join("site/paper.pdf"));
    assert!(text.contains("Environment") && text.contains("Description"), "{text}");
    let rows: Vec<usize> =
        names.iter().map(|n| text.find(&format!("The {n} tool")).unwrap()).collect();
    assert!(rows.windows(2).all(|w| w[0] < w[1]), "{text}");
}

/// An environment declared in book.toml without rows is a warning naming
/// it at its declaration; the build goes on.
#[test]
fn a_declared_environment_without_rows_is_a_warning() {
    let book = BOOK.replace(
        "[environments.xz]",
        "[environments.brotli]\nlabel = \"brotli\"\n\n[environments.xz]",
    );
    let dir = written_study(&book, &[("runs.csv", &results())], "# C\n");
    let output = report(dir.path(), &["build"]);
    let err = stderr(&output);
    assert!(output.status.success(), "{err}");
    assert!(err.contains("warning") && err.contains("environment `brotli` has no rows"), "{err}");
    assert!(err.contains("book.toml:"), "{err}");
}
