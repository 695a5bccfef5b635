//! Hostile data: results and book.toml values that used to be accepted,
//! crash the build, mislocate their error, flood the terminal, or overwrite
//! a file of the site. Each must fail with a located diagnostic (snapshotted,
//! short form), exit 1, and leave the previous output byte for byte as it
//! was. Every line and column in the snapshots was counted by hand.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::common;
use common::*;

type Break = fn(&Path);

fn csv(root: &Path, text: &str) {
    fs::write(root.join("results/runs.csv"), text).unwrap();
}

/// Add `line` to `[data.runs]`, after `group-by` (book.toml line 16): it is line 17.
fn dataset_line(root: &Path, line: &str) {
    edit(root, "book.toml", "group-by = [\"procs\"]", &format!("group-by = [\"procs\"]\n{line}"));
}

/// The minimal fixture's rows with a `nodes` column of `nodes` (one value per row).
fn with_nodes(nodes: [&str; 12]) -> String {
    let text = fs::read_to_string(repo().join("tests/fixtures/minimal/results/runs.csv")).unwrap();
    let mut lines = text.lines();
    let mut out = format!("{},nodes\n", lines.next().unwrap());
    for (line, n) in lines.zip(nodes) {
        out.push_str(&format!("{line},{n}\n"));
    }
    out
}

const CASES: &[(&str, Break)] = &[
    // Class 1: wrong input accepted.
    // `1 / (procs - 1)` is inf on the first row with procs = 1: line 2.
    ("derive_divides_by_zero", |r| dataset_line(r, "derive = { rate = \"1 / (procs - 1)\" }")),
    // 10^100000 overflows on the first row, line 2 (time_s = 10).
    ("derive_overflows", |r| dataset_line(r, "derive = { big = \"time_s ^ 100000\" }")),
    // `errors` is 0 in every baseline run: a ratio to it is undefined.
    ("metric_relative_to_a_zero_baseline", |r| {
        dataset_line(r, "derive = { errors = \"time_s * 0\" }");
        edit(r, "book.toml", "value = \"time_s\"", "value = \"errors\"");
    }),
    // `offset` = time_s − 5.5: at procs = 2 the baseline's mean is 0.5 and the
    // candidate's −0.5; a relative change between them means nothing.
    ("metric_relative_between_means_of_opposite_sign", |r| {
        dataset_line(r, "derive = { offset = \"time_s - 5.5\" }");
        edit(r, "book.toml", "value = \"time_s\"", "value = \"offset\"");
    }),
    // Speedup of a throughput whose mean at the smallest count (1) is 0.
    ("scaling_reference_of_zero", |r| {
        dataset_line(
            r,
            "derive = { zero = \"time_s * 0\" }\n\
             scaling = { by = \"procs\", value = \"zero\", better = \"higher\" }",
        )
    }),
    // Node counts 0 (line 3, column 13), -1 (line 5, column 12) and 1.5 (line 8, column 12).
    ("nodes_zero_negative_fractional", |r| {
        csv(r, &with_nodes(["1", "0", "1", "-1", "1", "1", "1.5", "1", "1", "1", "1", "1"]))
    }),
    // A process count of 0 in the scaling column (line 5, column 6).
    ("procs_zero_in_scaling", |r| {
        dataset_line(r, "scaling = { by = \"procs\", value = \"time_s\", better = \"lower\" }");
        edit(r, "results/runs.csv", "base,2,1,6", "base,0,1,6");
    }),
    // Two values of 1e308: their sum, so their mean, is infinite. The metric
    // (2 processes) is fine; the summary of base at 1 process is not.
    ("values_whose_mean_overflows", |r| {
        edit(r, "results/runs.csv", "base,1,1,10", "base,1,1,1e308");
        edit(r, "results/runs.csv", "base,1,2,11", "base,1,2,1.5e308");
    }),
    // A speedup chart of a column whose mean at the first x is 0.
    ("chart_speedup_of_zero", |r| {
        dataset_line(r, "derive = { zero = \"time_s * 0\" }");
        let chart = "\n```chart\nid = \"s\"\nkind = \"speedup\"\ndata = \"runs\"\nx = \"procs\"\ny = \"zero\"\n```\n";
        fs::write(r.join("content/index.md"), format!("# Result\n{chart}")).unwrap();
    }),
    // A relative chart of a column whose baseline mean is 0 at x = 1.
    ("chart_relative_to_a_zero_baseline", |r| {
        dataset_line(r, "derive = { zero = \"time_s * 0\" }");
        let chart = "\n```chart\nid = \"d\"\nkind = \"relative\"\ndata = \"runs\"\nx = \"procs\"\ny = \"zero\"\n```\n";
        fs::write(r.join("content/index.md"), format!("# Result\n{chart}")).unwrap();
    }),
    // 10,001 distinct x values: one point too many.
    ("chart_with_too_many_points", |r| {
        let rows: String = (1..=10_001).map(|x| format!("base,{x},1\n")).collect();
        fs::write(r.join("results/many.csv"), format!("environment,x,y\n{rows}")).unwrap();
        let chart =
            "\n```chart\nid = \"m\"\nkind = \"line\"\ndata = \"many\"\nx = \"x\"\ny = \"y\"\n```\n";
        fs::write(r.join("content/index.md"), format!("# Result\n{chart}")).unwrap();
    }),
    // A scaling analysis of a column the file does not have (`by` at line 17, column 18).
    ("scaling_of_an_unknown_column", |r| {
        dataset_line(r, "scaling = { by = \"proc\", value = \"time_s\", better = \"lower\" }")
    }),
    // Class 3: errors that don't help. Lines ended by `\r` alone: the first
    // ends the header, at column 29.
    ("csv_cr_only_line_ends", |r| {
        let text = fs::read_to_string(r.join("results/runs.csv")).unwrap();
        csv(r, &text.replace("base,2,2,5", "base,2,2,x").replace('\n', "\r"));
    }),
    // Class 4: names that collide.
    ("output_pdf_overwrites_the_page", |r| {
        edit(r, "book.toml", "[study]", "[output]\npdf = \"index.html\"\n\n[study]")
    }),
    ("output_pdf_in_the_data_folder", |r| {
        edit(r, "book.toml", "[study]", "[output]\npdf = \"data/stats.json\"\n\n[study]")
    }),
    ("output_pdf_is_a_url", |r| {
        edit(r, "book.toml", "[study]", "[output]\npdf = \"javascript:alert(1).pdf\"\n\n[study]")
    }),
    // The key `time_s` (line 17, column 12) is a column of the file.
    ("derive_shadows_a_column", |r| dataset_line(r, "derive = { time_s = \"time_s * 2\" }")),
];

/// Build the minimal fixture, break it, build again: the error (short form,
/// the study's path as `STUDY`), after checking exit 1, no panic, and the
/// previous output untouched.
fn broken(break_it: impl FnOnce(&Path), format: &str) -> (String, String) {
    let study = fixture("minimal");
    let root = study.path();
    let output = report(root, &["build"]);
    assert!(output.status.success(), "the fixture must build first: {}", stderr(&output));
    let before = contents(&root.join("site"));
    break_it(root);
    let start = Instant::now();
    let output = report_with(root, &["build"], format);
    assert!(start.elapsed() < Duration::from_secs(120), "the build took {:?}", start.elapsed());
    let err = stderr_in(&output, root);
    let out = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(output.status.code(), Some(1), "expected exit 1:\n{}", &err[..err.len().min(2000)]);
    assert!(
        !err.contains("panicked") && !err.contains("overflowed its stack"),
        "{}",
        &err[..err.len().min(2000)]
    );
    assert!(before == contents(&root.join("site")), "the previous output changed");
    (err, out)
}

#[test]
fn hostile_data_is_refused_where_it_is() {
    for (name, break_it) in CASES {
        let (err, _) = broken(break_it, "short");
        insta::assert_snapshot!(*name, err);
    }
}

/// A comparison nobody asked for, of a column whose baseline mean is zero,
/// is left out of stats.json (a ratio to zero does not exist); the study builds.
#[test]
fn automatic_comparisons_to_a_zero_baseline_are_left_out() {
    let study = fixture("minimal");
    let text = fs::read_to_string(study.path().join("results/runs.csv")).unwrap();
    let mut rows = text.lines();
    let mut out = format!("{},retries\n", rows.next().unwrap());
    for row in rows {
        out.push_str(&format!("{row},{}\n", if row.starts_with("base") { 0 } else { 2 }));
    }
    csv(study.path(), &out);
    let output = report(study.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let stats = fs::read_to_string(study.path().join("site/data/stats.json")).unwrap();
    // The comparison is not there (and, the same in every run of each
    // configuration, the column describes rather than measures: no summary).
    assert!(!stats.contains("runs/retries/cand-vs-base"), "{stats}");
    assert!(stats.contains("runs/time_s/cand-vs-base/procs=1"), "{stats}");
}

/// Class 2: 100,000 nested parentheses in a derived column used to overflow
/// evalexpr's stack; the expression is refused before parsing.
#[test]
fn deeply_nested_expressions_are_refused_before_parsing() {
    let deep = format!("{}time_s{}", "(".repeat(100_000), ")".repeat(100_000));
    let (err, _) =
        broken(|r| dataset_line(r, &format!("derive = {{ deep = \"{deep}\" }}")), "short");
    assert_eq!(
        err,
        "error: book.toml:17:20: derived column `deep`: the expression is 200006 bytes long; \
         at most 1024 are allowed = help: write a shorter expression, or derive it in steps\n"
    );
    let deep = format!("{}time_s{}", "(".repeat(65), ")".repeat(65));
    let (err, _) =
        broken(|r| dataset_line(r, &format!("derive = {{ deep = \"{deep}\" }}")), "short");
    assert!(
        err.contains(
            "book.toml:17:20: derived column `deep`: parentheses are nested more than 64 deep"
        ),
        "{err}"
    );
}

/// Class 2: a header of a million columns is refused at once, at the first
/// column too many: 1 + 10 × 3 + 90 × 4 + 900 × 5 + 24 × 6 = 5035 (`cN,`).
#[test]
fn a_header_of_a_million_columns_is_refused_quickly() {
    let (err, _) = broken(
        |r| {
            let header: Vec<String> = (0..1_000_000).map(|i| format!("c{i}")).collect();
            let row = vec!["1"; 1_000_000].join(",");
            fs::write(r.join("results/wide.csv"), format!("{}\n{row}\n", header.join(",")))
                .unwrap();
        },
        "short",
    );
    assert!(
        err.starts_with(
            "error: results/wide.csv:1:5035: the header has 1000000 columns; a results file has at most 1024 = help:"
        ),
        "{err}"
    );
}

/// Class 3: a bad cell at the end of a line of 20 million characters. Every
/// format shows a window of the line (120 characters), not the line.
#[test]
fn an_error_on_a_huge_line_shows_a_window_of_it() {
    let long = "9".repeat(20_000_000);
    let cell = format!("{long}x");
    let (human, _) = broken(
        |r| edit(r, "results/runs.csv", "base,1,2,11", &format!("base,1,2,{cell}")),
        "human",
    );
    assert!(human.len() < 2_000, "{} bytes:\n{}", human.len(), &human[..human.len().min(3000)]);
    assert!(human.contains("--> results/runs.csv:3:10"), "{human}");
    // The line from its start: 120 characters, then `…`.
    let shown = format!("3 | base,1,2,{}…", "9".repeat(111));
    assert!(human.contains(&shown), "{human}");
    let (short, _) = broken(
        |r| edit(r, "results/runs.csv", "base,1,2,11", &format!("base,1,2,{cell}")),
        "short",
    );
    assert!(short.len() < 1_000, "{short}");
    // The cell quoted in the message is cut to 60 characters.
    assert!(short.contains(&format!("found `{}…`", "9".repeat(59))), "{short}");
    let (_, json) =
        broken(|r| edit(r, "results/runs.csv", "base,1,2,11", &format!("base,1,2,{cell}")), "json");
    assert!(json.len() < 1_000 && json.contains("\"line\": 3"), "{json}");
}

/// Class 4: every name the site writes is refused as the paper's name, and
/// plain `.pdf` names are accepted.
#[test]
fn the_paper_cannot_take_a_name_the_site_writes() {
    for name in [
        "index.html",
        "style.css",
        "app.js",
        "data/manifest.json",
        "charts/c.svg",
        "../paper.pdf",
        ".pdf",
        "paper",
    ] {
        let study = fixture("minimal");
        let output_section = format!("[output]\npdf = \"{name}\"\n\n[study]");
        edit(study.path(), "book.toml", "[study]", &output_section);
        let output = report(study.path(), &["build"]);
        assert_eq!(output.status.code(), Some(1), "{name}");
        // `[output]` is line 5, `pdf = "` puts the value at column 7.
        assert!(
            stderr(&output).starts_with("error: book.toml:6:7: the paper's file name"),
            "{name}: {}",
            stderr(&output)
        );
    }
    let study = fixture("minimal");
    edit(study.path(), "book.toml", "[study]", "[output]\npdf = \"Study 2025.pdf\"\n\n[study]");
    let output = report(study.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(study.path().join("site/Study 2025.pdf").exists());
}
