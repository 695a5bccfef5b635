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
    // The unit in each heading (`Level 1 (s)`), not in every cell.
    assert!(html.contains("\u{a0}(s)</th>") && !html.contains("4.0\u{a0}s"), "{html}");
    let html = html.replace('\u{a0}', " ");
    for text in [
        "Table 1.",
        "Table 2.",
        "-10.0%, better in every run",
        "-20.0%, better in every run",
        "baseline",
        ">4.0<",
        ">16.0<",
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

/// `baseline = "best"` in a table: each cell against the best of the other
/// rows in its column, by hand from the exact sizes (gzip 100, zstd 90, xz
/// 80, lower is better): gzip +25% and zstd +12.5% against xz, xz −11.1%
/// (80 / 90 − 1) against zstd, the runner-up; named in each cell, with the
/// winner's-curse caveat in the caption, a `baseline` column in the CSV and
/// the choice with its scores in stats.json.
#[test]
fn a_table_compares_each_cell_with_the_best_of_the_others() {
    let page = "# C\n\nSee @tbl-best.\n\n```table\nid = \"best\"\ndata = \"runs\"\nvalue = \"size\"\n\
        rows = \"compressor\"\ncolumns = \"level\"\ncell = \"relative\"\nbaseline = \"best\"\n\
        better = \"lower\"\ncaption = \"Size against the smallest other\"\n```\n";
    let dir = study("", page);
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let site = dir.path().join("site");
    let html = std::fs::read_to_string(site.join("index.html")).unwrap();
    let html = html.replace('−', "-").replace('\u{a0}', " ").replace("&apos;", "'");
    for text in [
        "+25.0% vs xz, worse in every run",
        "+12.5% vs xz, worse in every run",
        "-11.1% vs Zstandard, better in every run",
        "is the best of the other rows in its column by their means",
        "(the winner's curse)",
    ] {
        assert!(html.contains(text), "{text} not in the page");
    }
    assert!(!html.contains(">baseline<"), "no cell is the baseline itself");
    let csv = std::fs::read_to_string(site.join("data/tables/best.csv")).unwrap();
    assert!(csv.starts_with("row,column,cell,value,ci_low,ci_high,p,p_holm,verdict,n,baseline\n"));
    let line = csv.lines().find(|l| l.starts_with("xz,9,")).unwrap();
    assert!(line.ends_with(",better,3,zstd"), "{line}");
    let value: f64 = line.split(',').nth(3).unwrap().parse().unwrap();
    assert!((value - (80.0 / 90.0 - 1.0)).abs() < 1e-12, "{value}");
    let stats = built_stats(dir.path());
    let chosen = &stats["tables"][0];
    assert_eq!(chosen["id"], "best");
    assert_eq!(chosen["caveat"]["kind"], "selected-baseline");
    assert!(chosen["caveat"]["text"].as_str().unwrap().contains("(the winner's curse)"));
    let xz = chosen["cells"].as_array().unwrap().iter().find(|b| b["row"] == "xz").unwrap();
    assert_eq!((&xz["kind"], &xz["verdict"]), (&"comparison".into(), &"better".into()));
    let xz_column = &xz["column"];
    let xz = &xz["baseline_selected"];
    assert_eq!((&xz["level"], xz_column), (&"zstd".into(), &"1".into()));
    assert_eq!(xz["among"], serde_json::json!(["gzip", "zstd"]));
    // Each score is the geometric mean of one configuration's mean.
    let scores: Vec<f64> =
        xz["scores"].as_array().unwrap().iter().map(|s| s.as_f64().unwrap()).collect();
    assert!((scores[0] - 100.0).abs() < 1e-9 && (scores[1] - 90.0).abs() < 1e-9, "{scores:?}");
}

/// The errors of `baseline = "best"` in a table, each at its key.
#[test]
fn a_table_chooses_the_best_only_where_it_can() {
    let cases = [
        ("cell = \"mean\"\nbaseline = \"best\"", "has no baseline to choose", "drop `baseline`"),
        ("cell = \"relative\"\nbaseline = \"best\"", "by `better`, which is not set", "better = "),
    ];
    for (keys, message, hint) in cases {
        let page = format!(
            "# C\n\n```table\nid = \"t\"\ndata = \"runs\"\nvalue = \"size\"\nrows = \"compressor\"\n\
             {keys}\ncaption = \"T\"\n```\n"
        );
        let dir = study("", &page);
        let output = report(dir.path(), &["build"]);
        let err = stderr(&output);
        assert!(!output.status.success(), "{keys}: built");
        assert!(err.contains(message) && err.contains(hint), "{keys}: {err}");
        assert!(err.contains("content/index.md:9:"), "{keys}: not at `baseline`: {err}");
    }
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
        let err = failure(&format!("where = {{ level = 1 }}\n{keys}"), message, hint);
        assert!(err.contains("book.toml:"), "{keys}: not located: {err}");
    }
}

/// The build's errors for a metric `m` of `time_s` with `keys`, which must
/// fail with `message` and `hint`.
fn failure(keys: &str, message: &str, hint: &str) -> String {
    let metrics = format!(
        "\n[[metrics]]\nname = \"m\"\nlabel = \"M\"\ndata = \"runs\"\nvalue = \"time_s\"\nbetter = \"lower\"\n{keys}\n"
    );
    let dir = study(&metrics, "# C\n");
    let output = report(dir.path(), &["build"]);
    let err = stderr(&output);
    let failed = !output.status.success() && err.contains(message) && err.contains(hint);
    assert!(failed, "{keys}: {err}");
    err
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

/// `baseline = "best"`: the best of the other levels by the metric's
/// direction. By hand, at level 1 the means are gzip 4, zstd 2, xz 8: gzip
/// against the lowest of zstd and xz (zstd) is 4 / 2 − 1 = +100%; against
/// the highest (xz), 4 / 8 − 1 = −50%. In a family each candidate has its
/// own best of the others: zstd against gzip (−50%), xz against zstd
/// (+300%). With `per = "level"` the scores are geometric means over the
/// levels (zstd √(2·4) ≈ 2.83, xz √(8·16) ≈ 11.3): zstd, and gzip's ratios
/// 4/2 and 8/4 average to 2 (+100%).
#[test]
fn a_level_against_the_best_of_the_others() {
    let define = |name: &str, keys: &str| {
        format!(
            "\n[[metrics]]\nname = \"{name}\"\nlabel = \"{name}\"\ndata = \"runs\"\nvalue = \"time_s\"\nbaseline = \"best\"\n{keys}\n"
        )
    };
    let metrics = [
        define("low", "candidate = \"gzip\"\nwhere = { level = 1 }\nbetter = \"lower\""),
        define("high", "candidate = \"gzip\"\nwhere = { level = 1 }\nbetter = \"higher\""),
        define("each", "candidates = \"*\"\nwhere = { level = 1 }\nbetter = \"lower\""),
        define("per", "candidate = \"gzip\"\nper = \"level\"\nbetter = \"lower\"\nheadline = true"),
    ]
    .concat();
    let dir = study(&metrics, "# C\n");
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let stats = built_stats(dir.path());
    let cases = [
        ("low", None, "zstd", 1.0),
        ("high", None, "xz", -0.5),
        ("each", Some("gzip"), "zstd", 1.0),
        ("each", Some("zstd"), "gzip", -0.5),
        ("each", Some("xz"), "zstd", 3.0),
        ("per", None, "zstd", 1.0),
    ];
    for (name, candidate, best, want) in cases {
        let m = metric(&stats, name, candidate);
        assert_eq!(m["baseline"]["environment"], best, "{name} {candidate:?}");
        assert_eq!(m["baseline_selected"]["level"], best, "{name} {candidate:?}");
        let value = m["value"].as_f64().unwrap();
        assert!((value - want).abs() < 1e-12, "{name} {candidate:?}: {value}");
        assert!(
            m["text"]["model"]
                .as_str()
                .unwrap()
                .contains(&format!("the baseline, {best}, is the best"))
        );
    }
    let scores = &metric(&stats, "per", None)["baseline_selected"];
    assert_eq!(scores["among"], serde_json::json!(["xz", "zstd"]));
    let want = [(8.0f64 * 16.0).sqrt(), (2.0f64 * 4.0).sqrt()];
    for (got, want) in scores["scores"].as_array().unwrap().iter().zip(want) {
        assert!((got.as_f64().unwrap() - want).abs() < 1e-12, "{got} vs {want}");
    }
    selected_caveat(&stats);
}

/// The choice of the best is a caveat of the metric, word for word.
fn selected_caveat(stats: &serde_json::Value) {
    let caveat = stats["caveats"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "selected-baseline" && c["metric"] == "low")
        .unwrap();
    assert_eq!(
        caveat["text"],
        "low: its baseline, Zstandard, is the best of Zstandard and xz by their means on the same runs it is \
         then compared with. Choosing the best on these data favours it (the winner's curse): the \
         difference against it is biased against gzip, and its interval and p-value do not account \
         for the choice among 2 levels."
    );
}

/// Misuse of `baseline = "best"`: on a summary, without another level, and
/// on a factor with a level named `best`; each at its line.
#[test]
fn the_best_of_the_others_is_checked_at_its_place() {
    let cases = [
        ("compare = \"summary\"\ncandidate = \"xz\"", "`baseline` cannot be used here", "summary"),
        (
            "candidate = \"xz\"\nwhere = { level = 1, compressor = \"xz\" }",
            "no level of `compressor` but `xz` has runs",
            "other levels",
        ),
    ];
    for (keys, message, hint) in cases {
        let err = failure(&format!("baseline = \"best\"\n{keys}"), message, hint);
        // At the line of `baseline = "best"`: the 8th of the metric's.
        let line = BOOK.lines().count() + 8;
        assert!(err.contains(&format!("book.toml:{line}:")), "{keys}: not located: {err}");
    }
    let book = BOOK
        .replace("[environments.xz]", "[environments.best]\nlabel = \"B\"\n\n[environments.xz]");
    let metric = "\n[[metrics]]\nname = \"m\"\nlabel = \"M\"\ndata = \"runs\"\nvalue = \"time_s\"\nbetter = \"lower\"\nbaseline = \"best\"\ncandidate = \"xz\"\n";
    let csv = results() + "best,1,1,3,70\nbest,1,2,3,70\n";
    let dir = written_study(&format!("{book}{metric}"), &[("runs.csv", &csv)], "# C\n");
    let err = stderr(&report(dir.path(), &["build"]));
    assert!(err.contains("has a level named `best`") && err.contains("book.toml:"), "{err}");
}

/// Levels named and ordered by book.toml: `levels` labels a level in a
/// table's heading and a chart, `order` puts level 9 first, and the
/// environments come in their declared order (gzip, Zstandard, xz), not by
/// name.
#[test]
fn levels_take_their_labels_and_order_from_book_toml() {
    let labels = r#"
[data.runs.labels]
level = { levels = { "9" = "Level nine" }, order = ["9"] }
"#;
    let page = r#"# Results

```table
id = "times"
data = "runs"
value = "time_s"
rows = "compressor"
columns = "level"
cell = "mean"
caption = "Mean time"
```

```chart
id = "levels"
kind = "box-plot"
data = "runs"
y = "time_s"
series = "level"
where = { compressor = "zstd" }
caption = "Zstandard's runs by level"
```
"#;
    let dir = study(labels, page);
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let html = std::fs::read_to_string(dir.path().join("site/index.html")).unwrap();
    let at = |text: &str| html.find(text).unwrap_or_else(|| panic!("{text} not in {html}"));
    assert!(at(">Level nine</th>") < at(">Level\u{a0}1</th>"), "level 9 first");
    assert!(at(">Compressor</th>") < at(">Level nine</th>"));
    assert!(at(">gzip</td>") < at(">Zstandard</td>") && at(">Zstandard</td>") < at(">xz</td>"));
    let chart = &html[at("id=\"fig-levels\"")..];
    assert!(chart.contains("Level nine") && !chart.contains("level = 9"), "{chart}");
}

/// A study drawn for [`levels_come_in_book_toml_s_order_in_every_output`]:
/// the environments (id, label) as declared, the `order` of some levels,
/// the `levels` labels of some, and the configurations (environment's
/// place, level) whose runs vary by about 10%.
struct Drawn {
    declared: Vec<(&'static str, &'static str)>,
    order: Vec<u32>,
    labelled: Vec<(u32, &'static str)>,
    variable: Vec<(usize, u32)>,
}

const LEVELS: [u32; 4] = [1, 3, 9, 19];

impl Drawn {
    fn draw(seed: u64) -> Drawn {
        let mut rng = crate::common::Seeded(seed);
        let mut pick = |n: usize| ((rng.next() * n as f64) as usize).min(n - 1);
        let mut envs = vec![("gzip", "gzip"), ("zstd", "Zstandard"), ("xz", "xz")];
        let mut declared = Vec::new();
        while !envs.is_empty() {
            declared.push(envs.remove(pick(envs.len())));
        }
        let mut left = LEVELS.to_vec();
        let order = (0..pick(4)).map(|_| left.remove(pick(left.len()))).collect();
        let words = ["Fast setting", "Middle setting", "Small setting", "Smallest setting"];
        let labelled = LEVELS.into_iter().zip(words).filter(|_| pick(2) == 0).collect();
        let mut all: Vec<(usize, u32)> = (0..3).flat_map(|e| LEVELS.map(|l| (e, l))).collect();
        let variable = (0..5).map(|_| all.remove(pick(all.len()))).collect();
        Drawn { declared, order, labelled, variable }
    }

    /// Where a level comes by the rule: those `order` lists first, in it;
    /// the others after, by value.
    fn place(&self, l: u32) -> (usize, u32) {
        (self.order.iter().position(|o| *o == l).unwrap_or(9), l)
    }

    fn levels(&self) -> Vec<u32> {
        let mut levels = LEVELS.to_vec();
        levels.sort_by_key(|l| self.place(*l));
        levels
    }

    /// A level in words: its label, else `level = N`.
    fn level(&self, l: u32) -> String {
        let label = self.labelled.iter().find(|(x, _)| *x == l);
        label.map_or(format!("level = {l}"), |(_, w)| w.to_string())
    }

    fn book(&self) -> String {
        let mut book = format!(
            "[book]\ntitle = \"Levels\"\ndate = \"2026-12-01\"\nauthors = [{{ name = \"A\" }}]\n[study]\nbaseline = \"{}\"\nenvironment-column = \"compressor\"\nfactors = [\"level\"]\n",
            self.declared[0].0
        );
        for (id, label) in &self.declared {
            book.push_str(&format!("[environments.{id}]\nlabel = \"{label}\"\n"));
        }
        let quoted: Vec<String> = self.order.iter().map(|l| format!("\"{l}\"")).collect();
        let named: Vec<String> =
            self.labelled.iter().map(|(l, w)| format!("\"{l}\" = \"{w}\"")).collect();
        book.push_str(&format!(
            "[data.runs]\nkey = [\"compressor\", \"level\", \"run\"]\ngroup-by = [\"level\"]\n[data.runs.labels]\nlevel = {{ order = [{}], levels = {{ {} }} }}\n",
            quoted.join(", "),
            named.join(", ")
        ));
        book + &format!(
            "[[metrics]]\nname = \"by_level\"\nlabel = \"Time\"\ndata = \"runs\"\nvalue = \"time_s\"\nfactor = \"level\"\nbaseline = {}\ncandidates = \"*\"\nwhere = {{ compressor = \"{}\" }}\nbetter = \"lower\"\nheadline = true\n",
            self.levels()[0],
            self.declared[0].0
        )
    }

    /// Three runs a configuration: 10% apart where it varies, else 0.1%.
    fn csv(&self) -> String {
        let mut csv = String::from("compressor,level,run,time_s\n");
        for (e, (id, _)) in self.declared.iter().enumerate() {
            for l in LEVELS {
                let spread = if self.variable.contains(&(e, l)) { 0.1 } else { 0.001 };
                for (run, k) in [-1.0, 0.0, 1.0].iter().enumerate() {
                    let t = (f64::from(l) + e as f64) * (1.0 + k * spread);
                    csv.push_str(&format!("{id},{l},{},{t}\n", run + 1));
                }
            }
        }
        csv
    }

    /// The variable configurations in words, as the diagnostic lists them
    /// by the rule: environments as declared, then levels by [`Drawn::place`].
    fn variable_in_order(&self) -> Vec<String> {
        let mut shown = self.variable.clone();
        shown.sort_by_key(|(e, l)| (*e, self.place(*l)));
        shown
            .iter()
            .map(|(e, l)| format!("{} at {}: CV", self.declared[*e].1, self.level(*l)))
            .collect()
    }
}

/// Whether `items` are in `text` in order, each after the one before, from `from`.
fn in_order(text: &str, from: usize, items: &[String], what: &str) {
    let mut at = from;
    for item in items {
        let found = text[at..].find(item.as_str());
        assert!(found.is_some(), "{what}: {item:?} not after {at} in order {items:?}:\n{text}");
        at += found.unwrap() + item.len();
    }
}

/// Issue 43, point 2: levels in book.toml's order and by their labels in
/// every output. Drawn from a seed ([`Drawn`]): the environments declared
/// in any order, an `order` of some of the levels 1, 3, 9 and 19, `levels`
/// labels for some, and five configurations whose runs vary by about 10%
/// (the others by 0.1%). The rule (docs/factors.md), written here again:
/// the environments as declared, then the levels `order` lists, then the
/// others by value. Checked in the cards of a family over the levels
/// (stats.json's metrics and the page), a computed table's headings, and
/// the diagnostic on variation in stats.json, the page and the paper's
/// appendix (pdftotext).
#[test]
fn levels_come_in_book_toml_s_order_in_every_output() {
    let d = Drawn::draw(4343);
    let page = "# Results\n\n```table\nid = \"times\"\ndata = \"runs\"\nvalue = \"time_s\"\nrows = \"compressor\"\ncolumns = \"level\"\ncell = \"mean\"\ncaption = \"Mean time\"\n```\n";
    let dir = written_study(&d.book(), &[("runs.csv", &d.csv())], page);
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let stats = built_stats(dir.path());
    let levels = d.levels();
    // The family's members, cards and Table 1: the levels but the baseline.
    let metrics = stats["metrics"].as_array().unwrap().iter();
    let members: Vec<&str> = metrics.map(|m| m["member"]["candidate"].as_str().unwrap()).collect();
    let want: Vec<String> = levels[1..].iter().map(u32::to_string).collect();
    assert_eq!(members, want, "the family's members in order");
    let html = std::fs::read_to_string(dir.path().join("site/index.html")).unwrap();
    let cards: Vec<String> =
        levels[1..].iter().map(|l| format!("Time ({})", d.level(*l))).collect();
    in_order(&html, 0, &cards, "cards");
    let table = html.find("Mean time").expect("the table");
    let headings = levels.iter().map(|l| d.level(*l).replacen("level = ", "Level\u{a0}", 1));
    in_order(&html, table, &headings.collect::<Vec<_>>(), "table headings");
    // The diagnostic on variation, in the order of the rule.
    let configurations = d.variable_in_order();
    let caveat = stats["caveats"].as_array().unwrap().iter();
    let caveat = caveat.filter_map(|c| c["text"].as_str()).find(|t| t.contains("vary by more"));
    in_order(caveat.expect("the caveat on variation"), 0, &configurations, "stats.json");
    let diagnostics = html.find("id=\"diagnostics\"").expect("the page's diagnostics");
    in_order(&html, diagnostics, &configurations, "the page's diagnostics");
    if crate::common::tool("pdftotext", &["-v"]) {
        let text = crate::common::pdftotext(&dir.path().join("site/paper.pdf"));
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let from = text.find("vary by more").expect("the paper's appendix");
        in_order(&text, from, &configurations, "the paper's appendix");
    }
}
