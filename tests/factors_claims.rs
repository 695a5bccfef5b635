//! Factor studies that cannot mislead (docs/factors.md): a chart that would
//! pool the levels of a factor is refused at its directive, a table
//! compares along rows or columns by either name, the factors define the
//! configurations of every summary, key and repeated columns are no
//! measurements, and an average states whether it covers exactly its
//! levels; each checked against hand arithmetic or scipy.

use crate::common::{built_stats, report, stderr, written_study};

/// A tool × pattern × size study, as a new user writes it: the tools the
/// environment column, the other two declared factors, no `[data]` schema.
const BOOK: &str = r#"
[book]
title = "Search"
date = "2026-12-01"

[study]
baseline = "grep"
environment-column = "tool"
factors = ["pattern", "size"]

[environments.grep]
label = "grep"

[environments.grep-i]
label = "grep -i"
"#;

/// Times by hand, three runs a cell: at the small size grep takes 1.0, 1.2,
/// 0.8 s on pattern a (mean 1), 2.0, 2.2, 1.8 on b (mean 2), 3.0, 3.3, 2.7
/// on c (mean 3); grep -i 0.5, 0.6, 0.4 (mean 0.5), 1.2, 1.3, 1.1 (mean
/// 1.2), 1.0, 1.1, 0.9 (mean 1). The large size is ten times each. Each
/// row has its `iteration`, an `exit_code` of 0 and the command's
/// `mean_user_s`, the same on every run of a command (a tenth of its mean).
fn results() -> String {
    let mut csv = String::from("tool,pattern,size,iteration,time_s,exit_code,mean_user_s\n");
    let cells = [
        ("grep", "a", [1.0, 1.2, 0.8]),
        ("grep", "b", [2.0, 2.2, 1.8]),
        ("grep", "c", [3.0, 3.3, 2.7]),
        ("grep-i", "a", [0.5, 0.6, 0.4]),
        ("grep-i", "b", [1.2, 1.3, 1.1]),
        ("grep-i", "c", [1.0, 1.1, 0.9]),
    ];
    for (tool, pattern, times) in cells {
        for (size, scale) in [("small", 1.0), ("large", 10.0)] {
            let mean = times.iter().sum::<f64>() / 3.0 * scale;
            for (i, t) in times.iter().enumerate() {
                let (t, user) = (t * scale, mean / 10.0);
                csv.push_str(&format!("{tool},{pattern},{size},{},{t},0,{user}\n", i + 1));
            }
        }
    }
    csv
}

fn study(metrics: &str, page: &str) -> tempfile::TempDir {
    written_study(&format!("{BOOK}{metrics}"), &[("runs.csv", &results())], page)
}

/// A box plot of the patterns with no filter on the size would pool the
/// small and large trees in each box: `report check` refuses it at the
/// chart's fence (line 3, column 1), naming the factor and the fixes; with
/// `where` on the size it builds.
#[test]
fn a_chart_that_would_pool_a_factor_is_refused_at_its_directive() {
    let chart = |filter: &str| {
        format!(
            "# S\n\n```chart\nid = \"by-pattern\"\nkind = \"box-plot\"\ndata = \"runs\"\n\
             x = \"pattern\"\ny = \"time_s\"\n{filter}caption = \"Times.\"\n```\n"
        )
    };
    let dir = study("", &chart(""));
    let output = report(dir.path(), &["check"]);
    let err = stderr(&output);
    assert!(!output.status.success(), "{err}");
    for text in [
        "content/index.md:3:1",
        "chart `by-pattern`",
        "2 levels of the factor `size` (`large`, `small`)",
        "neither on an axis, nor the series, nor fixed by `where`",
        "where = { size = \"large\" }",
        "series = \"size\"",
    ] {
        assert!(err.contains(text), "{text} not in: {err}");
    }
    let dir = study("", &chart("where = { size = \"small\" }\n"));
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
}

/// A table of patterns by tool compares along its columns by the word a
/// user types (`compare = "columns"`) or by the factor's name, with the
/// study's baseline: grep -i against grep is 0.5 / 1 − 1 = −50%, 1.2 / 2 −
/// 1 = −40% and 1 / 3 − 1 = −66.7% (by hand). Along a factor other than
/// the environment column, without `baseline`, the first level is the
/// baseline: small against large is 1/10 − 1 = −90% in every row.
#[test]
fn a_table_compares_along_rows_or_columns_by_either_name() {
    let table = |keys: &str| {
        format!(
            "# S\n\nSee @tbl-t.\n\n```table\nid = \"t\"\ndata = \"runs\"\nvalue = \"time_s\"\n\
             {keys}\ncell = \"relative\"\nbetter = \"lower\"\ncaption = \"Times.\"\n```\n"
        )
    };
    let keys = [
        "rows = \"pattern\"\ncolumns = \"tool\"\ncompare = \"columns\"\nwhere = { size = \"small\" }",
        "rows = \"pattern\"\ncolumns = \"tool\"\ncompare = \"tool\"\nwhere = { size = \"small\" }",
    ];
    for keys in keys {
        let dir = study("", &table(keys));
        let output = report(dir.path(), &["build"]);
        assert!(output.status.success(), "{keys}: {}", stderr(&output));
        let cells = &built_stats(dir.path())["tables"][0]["cells"];
        let cell = |row: &str, column: &str| {
            cells
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["row"] == row && c["column"] == column)
                .unwrap()
        };
        assert_eq!(cell("a", "grep")["kind"], "baseline", "{keys}");
        for (row, want) in [("a", -0.5), ("b", -0.4), ("c", 1.0 / 3.0 - 1.0)] {
            let value = cell(row, "grep-i")["value"].as_f64().unwrap();
            assert!((value - want).abs() < 1e-12, "{keys}: {row}: {value}");
        }
    }
    let keys =
        "rows = \"size\"\ncolumns = \"pattern\"\ncompare = \"rows\"\nwhere = { tool = \"grep\" }";
    let dir = study("", &table(keys));
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let cells = built_stats(dir.path())["tables"][0]["cells"].clone();
    for cell in cells.as_array().unwrap() {
        match cell["row"].as_str().unwrap() {
            "large" => assert_eq!(cell["kind"], "baseline"),
            _ => assert!((cell["value"].as_f64().unwrap() + 0.9).abs() < 1e-12, "{cell}"),
        }
    }
}

/// `compare` naming no factor of the table is an error at its value that
/// names the table's factors, never a level of another study; a
/// `baseline` the factor lacks is an error listing its levels.
#[test]
fn a_table_names_its_factors_when_compare_or_baseline_is_unknown() {
    let page = |keys: &str| {
        format!(
            "# S\n\n```table\nid = \"t\"\ndata = \"runs\"\nvalue = \"time_s\"\nrows = \"pattern\"\n\
             columns = \"tool\"\ncell = \"relative\"\n{keys}\nwhere = {{ size = \"small\" }}\n\
             caption = \"Times.\"\n```\n"
        )
    };
    let cases = [
        (
            "compare = \"size\"",
            "content/index.md:10:",
            "`compare = \"size\"` names no factor of the table: its rows are `pattern` and its columns `tool`",
        ),
        (
            "compare = \"rows\"\nbaseline = \"gzip\"",
            "content/index.md:11:",
            "`pattern` has no level `gzip` in the table's rows (`a`, `b`, `c`)",
        ),
    ];
    for (keys, at, message) in cases {
        let dir = study("", &page(keys));
        let output = report(dir.path(), &["check"]);
        let err = stderr(&output);
        assert!(!output.status.success(), "{keys}: {err}");
        assert!(err.contains(at) && err.contains(message), "{keys}: {err}");
        assert!(!err.contains("gzip\"`"), "a hint from another study: {err}");
    }
}

/// A cell reads "no runs" only when it has none: with a pattern only
/// grep -i ran, its grep -i cell has runs but no baseline to compare with.
#[test]
fn a_cell_without_baseline_runs_says_so() {
    let extra =
        "tool,pattern,time_s\ngrep,a,1\ngrep,a,2\ngrep-i,a,3\ngrep-i,a,4\ngrep-i,d,5\ngrep-i,d,6\n";
    let page = "# S\n\nSee @tbl-t.\n\n```table\nid = \"t\"\ndata = \"extra\"\nvalue = \"time_s\"\n\
        rows = \"pattern\"\ncolumns = \"tool\"\ncompare = \"columns\"\ncell = \"relative\"\n\
        caption = \"Times.\"\n```\n";
    let dir = written_study(BOOK, &[("runs.csv", &results()), ("extra.csv", extra)], page);
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let cells = built_stats(dir.path())["tables"][0]["cells"].clone();
    let cell = |row: &str, column: &str| {
        cells.as_array().unwrap().iter().find(|c| c["row"] == row && c["column"] == column).cloned()
    };
    let d = cell("d", "grep-i").unwrap();
    assert_eq!(
        (d["kind"].as_str(), d["text"].as_str()),
        (Some("unmatched"), Some("no runs of grep to compare with"))
    );
    assert_eq!(cell("d", "grep").unwrap()["kind"], "empty");
    assert_eq!(cell("a", "grep-i").unwrap()["kind"], "comparison");
}

/// Declared factors, without `group-by` or any `[data]` schema, define the
/// configurations: twelve groups of three runs (2 tools × 3 patterns × 2
/// sizes), none pooling 36 runs; `iteration`, `exit_code` and the
/// command's repeated `mean_user_s` are never summarised or compared.
#[test]
fn factors_define_every_summary_and_descriptions_are_no_measurements() {
    let dir = study("", "# S\n");
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let stats = built_stats(dir.path());
    let groups = stats["groups"].as_array().unwrap();
    let columns: std::collections::BTreeSet<&str> =
        groups.iter().map(|g| g["inputs"]["column"].as_str().unwrap()).collect();
    assert_eq!(columns.into_iter().collect::<Vec<_>>(), ["time_s"]);
    assert_eq!(groups.len(), 12);
    for g in groups {
        assert_eq!(g["summary"]["n"], 3, "{g}");
        let config = g["config"].as_object().unwrap();
        assert!(config.contains_key("pattern") && config.contains_key("size"), "{g}");
    }
    // grep -i against grep at pattern a, small: 0.5 / 1 (hand).
    let compared = stats["comparisons"].as_array().unwrap();
    assert_eq!(compared.len(), 6);
    let a = compared
        .iter()
        .find(|c| c["config"]["pattern"] == "a" && c["config"]["size"] == "small")
        .unwrap();
    assert!((a["ratio"].as_f64().unwrap() - 0.5).abs() < 1e-12, "{a}");
}

/// An average over the three patterns (small size) of grep -i against
/// grep. scipy, from the runs: per pattern the log ratios ln 0.5, ln 0.6,
/// ln(1/3) with Welch's SE 0.163299, 0.075154, 0.081650 and df 4, 3.874,
/// 4. Over exactly these patterns (default): geometric mean 0.464159
/// (−53.6%), SE = sqrt(Σ SE²) / 3 = 0.0658124, df 7.7086, 95% CI 0.398401
/// to 0.540770, p = 3.604e-6. Generalised (`generalise = true`): Student's
/// t over the three logs, 2 df: CI 0.219823 to 0.980075, p = 0.047594.
#[test]
fn an_average_states_whether_it_covers_exactly_its_levels() {
    let metric = |name: &str, extra: &str| {
        format!(
            "\n[[metrics]]\nname = \"{name}\"\nlabel = \"grep -i against grep\"\ndata = \"runs\"\n\
             value = \"time_s\"\ncandidate = \"grep-i\"\nper = \"pattern\"\n\
             where = {{ size = \"small\" }}\nbetter = \"lower\"\nheadline = true\n{extra}"
        )
    };
    let metrics = format!("{}{}", metric("fixed", ""), metric("general", "generalise = true\n"));
    let dir = study(&metrics, "# S\n");
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let stats = built_stats(dir.path());
    let find = |name: &str| {
        stats["metrics"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap().clone()
    };
    let cases = [
        (
            "fixed",
            [0.398_400_954_951_1, 0.540_770_463_337_9],
            3.604_211_250_940_5e-6,
            "geometric-average-fixed",
        ),
        (
            "general",
            [0.219_823_420_469_4, 0.980_075_137_322_2],
            0.047_593_931_887_72,
            "geometric-average",
        ),
    ];
    for (name, [lo, hi], p, model) in cases {
        let m = find(name);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-12);
        assert!(close(m["value"].as_f64().unwrap(), 0.464_158_883_361_277_9 - 1.0), "{m}");
        let ci = m["ci"].as_array().unwrap();
        assert!(close(ci[0].as_f64().unwrap(), lo - 1.0), "{name}: {ci:?}");
        assert!(close(ci[1].as_f64().unwrap(), hi - 1.0), "{name}: {ci:?}");
        assert!(close(m["p_value"].as_f64().unwrap(), p), "{name}: {m}");
        assert_eq!(m["model"], model);
    }
    let html = std::fs::read_to_string(dir.path().join("site/index.html")).unwrap();
    assert!(html.contains("An average over exactly these 3 configurations"), "card definition");
    assert!(html.contains("An average that stands for configurations like these 3"), "card");
}

/// "Does the difference depend on X?" as a metric: grep -i's ratio to grep
/// at the second level of X over that at the first. scipy, from the runs:
/// along the size (pattern a) the ratios are 0.5 at both sizes, so 1.0,
/// SE sqrt(2) · 0.163299, 8 df, CI 0.587107 to 1.703268; along the
/// pattern (a against b, small) 0.6 / 0.5 = 1.2, SE 0.179763 on 5.614 df
/// (Welch–Satterthwaite), CI 0.767219 to 1.876908, p = 0.352172: no
/// evidence that it depends on the pattern.
#[test]
fn an_interaction_says_whether_the_difference_depends_on_a_factor() {
    let metric = |name: &str, keys: &str| {
        format!(
            "\n[[metrics]]\nname = \"{name}\"\nlabel = \"Depends\"\ndata = \"runs\"\n\
             value = \"time_s\"\ncandidate = \"grep-i\"\ncompare = \"ratio\"\nbetter = \"lower\"\n{keys}\n"
        )
    };
    let metrics = format!(
        "{}{}",
        metric("size", "interaction = \"size\"\nwhere = { pattern = \"a\" }"),
        metric(
            "pattern",
            "interaction = \"pattern\"\nwhere = { size = \"small\", pattern = [\"a\", \"b\"] }"
        )
    );
    let dir = study(&metrics, "# S\n\n{{ stat(name=\"pattern\", field=\"full\") }}\n");
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let stats = built_stats(dir.path());
    let find = |name: &str| {
        stats["metrics"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap().clone()
    };
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs();
    let cases = [
        ("size", 1.0, [0.587_106_618_196_608_5, 1.703_268_144_160_356]),
        ("pattern", 1.2, [0.767_219_425_898_194, 1.876_907_637_360_945]),
    ];
    for (name, value, [lo, hi]) in cases {
        let m = find(name);
        assert!(close(m["value"].as_f64().unwrap(), value), "{m}");
        let ci = m["ci"].as_array().unwrap();
        assert!(
            close(ci[0].as_f64().unwrap(), lo) && close(ci[1].as_f64().unwrap(), hi),
            "{name}: {ci:?}"
        );
        assert_eq!(
            (m["model"].as_str(), m["significant"].as_bool()),
            (Some("interaction"), Some(false))
        );
    }
    assert!(close(find("pattern")["p_value"].as_f64().unwrap(), 0.352_171_957_982_687_86));
}

/// An interaction along a factor with three levels in the selected rows
/// is an error at `interaction`, listing them.
#[test]
fn an_interaction_needs_two_levels() {
    let three = "\n[[metrics]]\nname = \"three\"\nlabel = \"Depends\"\ndata = \"runs\"\n\
        value = \"time_s\"\ncandidate = \"grep-i\"\nbetter = \"lower\"\n\
        interaction = \"pattern\"\nwhere = { size = \"small\" }\n";
    let dir = study(three, "# S\n");
    let output = report(dir.path(), &["check"]);
    let err = stderr(&output);
    assert!(!output.status.success(), "{err}");
    assert!(
        err.contains(
            "needs exactly two of its levels, and the selected rows have 3 (`a`, `b`, `c`)"
        ),
        "{err}"
    );
    assert!(err.contains("book.toml:"), "{err}");
}
