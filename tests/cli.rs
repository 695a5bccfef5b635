//! `report new`, `report check` and the rendering of diagnostics.

use std::fs;

use crate::common;
use common::*;

/// `report new DIR`, with `args` after it, in a fresh folder: the study's path and the output.
fn scaffold(args: &[&str]) -> (tempfile::TempDir, std::path::PathBuf, std::process::Output) {
    let dir = tempfile::tempdir().unwrap();
    let study = dir.path().join("study");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_report"))
        .arg("new")
        .arg(&study)
        .args(args)
        .output()
        .unwrap();
    (dir, study, output)
}

#[test]
fn a_new_study_builds_right_away() {
    let (_dir, study, output) = scaffold(&[]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("report serve --open"), "the next step: {}", stderr(&output));
    for file in ["book.toml", "content/index.md", "results/runs.csv", ".gitignore"] {
        assert!(study.join(file).is_file(), "{file}");
    }
    let output = report(&study, &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let html = fs::read_to_string(study.join("site/index.html")).unwrap();
    // By hand: on 100 MB current = {18.7, 18.4, 18.9, 18.6, 18.5, 18.8} (mean 111.9 / 6 = 18.65),
    // candidate = {17.1, 17.3, 16.9, 17.2, 17.0, 17.4} (mean 102.9 / 6 = 17.15);
    // 17.15 / 18.65 − 1 = −8.04%.
    assert!(html.contains("\u{2212}8.0%"), "{html}");
    assert!(html.contains("Figure 1"), "the scaffold uses a chart");
    // It refuses to overwrite.
    let again = std::process::Command::new(env!("CARGO_BIN_EXE_report"))
        .arg("new")
        .arg(&study)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(stderr(&again).contains("the folder exists and is not empty"), "{}", stderr(&again));
}

/// The sections of a paper, in order, and no trace of an HPC study: a
/// generic comparison of two alternatives along one factor.
#[test]
fn a_new_study_is_a_generic_comparison_with_the_sections_of_a_paper() {
    let (_dir, study, output) = scaffold(&[]);
    assert!(output.status.success(), "{}", stderr(&output));
    let content = fs::read_to_string(study.join("content/index.md")).unwrap();
    let headings: Vec<&str> = content
        .lines()
        .filter_map(|l| l.strip_prefix("# "))
        .map(|h| h.split(" {").next().unwrap())
        .collect();
    assert_eq!(headings, ["Introduction", "Method", "Results", "Limitations", "Conclusion"]);
    let book = fs::read_to_string(study.join("book.toml")).unwrap();
    let csv = fs::read_to_string(study.join("results/runs.csv")).unwrap();
    for word in ["node", "procs", "thread", "MPI", "HPC"] {
        let all = format!("{book}{content}{csv}").to_lowercase();
        assert!(!all.contains(&word.to_lowercase()), "`{word}` in the generic scaffold");
    }
    assert_eq!(csv.lines().next(), Some("version,input_mb,run,seconds"));
    assert_eq!(csv.lines().count(), 1 + 2 * 3 * 6, "two alternatives, three sizes, six runs");
}

/// Dated the day it is made (UTC), not a fixed date: the date of
/// SOURCE_DATE_EPOCH when set, else of the clock, read here from `date -u`.
#[test]
fn a_new_study_is_dated_the_day_it_is_made() {
    let dir = tempfile::tempdir().unwrap();
    let new = |name: &str, epoch: Option<&str>| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_report"));
        command.arg("new").arg(dir.path().join(name)).env_remove("SOURCE_DATE_EPOCH");
        if let Some(epoch) = epoch {
            command.env("SOURCE_DATE_EPOCH", epoch);
        }
        assert!(command.output().unwrap().status.success());
        let book = fs::read_to_string(dir.path().join(name).join("book.toml")).unwrap();
        let line = book.lines().find(|l| l.starts_with("date = ")).unwrap().to_string();
        line.split('"').nth(1).unwrap().to_string()
    };
    // 2026-03-05T00:00:00Z = 20,517 days × 86,400 s (see workflow_scaffold.rs).
    assert_eq!(new("fixed", Some("1772668800")), "2026-03-05");
    let today = || {
        let out = std::process::Command::new("date").args(["-u", "+%Y-%m-%d"]).output();
        out.ok().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let (before, made, after) = (today(), new("clock", None), today());
    if let (Some(before), Some(after)) = (before, after) {
        assert!(made == before || made == after, "{made}: not {before} or {after}");
    }
    assert_ne!(made, "2025-01-01");
}

#[test]
fn the_hpc_example_is_the_former_scaffold_and_builds() {
    let (_dir, study, output) = scaffold(&["--example", "hpc"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let output = report(&study, &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let html = fs::read_to_string(study.join("site/index.html")).unwrap();
    // By hand: at 4 threads before = {3.1, 3.0, 3.2} (mean 3.1), after = {2.7, 2.8, 2.7} (mean 2.7333);
    // 2.7333 / 3.1 − 1 = −11.8%.
    assert!(html.contains("\u{2212}11.8%"), "{html}");
}

#[test]
fn check_writes_nothing_and_sets_the_exit_code() {
    let study = fixture("minimal");
    let output = report(study.path(), &["check"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!study.path().join("site").exists(), "check must not write");
    edit(study.path(), "results/runs.csv", "base,1,2,11", "base,1,2,eleven");
    edit(study.path(), "content/index.md", "name=\"speed\"", "name=\"sped\"");
    let output = report_with(study.path(), &["check", "--format", "json"], "human");
    assert_eq!(output.status.code(), Some(1));
    let diagnostics: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let first = &diagnostics[0];
    assert_eq!(first["path"], "results/runs.csv");
    assert_eq!((first["line"].as_u64(), first["column"].as_u64()), (Some(3), Some(10)));
    assert_eq!(first["level"], "error");
    assert!(first["message"].as_str().unwrap().contains("found `eleven`"));
    assert!(!study.path().join("site").exists());
}

#[test]
fn usage_errors_exit_with_2() {
    let output =
        std::process::Command::new(env!("CARGO_BIN_EXE_report")).arg("bild").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
}

/// Build the minimal fixture after `change` and return the human diagnostics.
fn human(change: impl FnOnce(&std::path::Path)) -> String {
    let study = fixture("minimal");
    change(study.path());
    let output = report_with(study.path(), &["build"], "human");
    assert_eq!(output.status.code(), Some(1));
    stderr(&output)
}

/// Snapshot, as `diagnostic_<name>`, the human diagnostics of a build of the
/// minimal fixture after `change`.
fn assert_diagnostic(name: &str, change: impl FnOnce(&std::path::Path)) {
    insta::assert_snapshot!(format!("diagnostic_{name}"), human(change));
}

#[test]
fn csv_diagnostics_read_like_rustc() {
    assert_diagnostic("csv_cell", |r| edit(r, "results/runs.csv", "base,1,2,11", "base,1,2,abc"));
    assert_diagnostic("csv_missing_column", |r| edit(r, "results/runs.csv", "time_s", "time_sec"));
    assert_diagnostic("csv_unknown_environment", |r| {
        edit(r, "results/runs.csv", "cand,1,1,9", "cnad,1,1,9")
    });
    assert_diagnostic("csv_duplicate_run", |r| {
        edit(r, "results/runs.csv", "base,1,2,11", "base,1,1,11")
    });
}

#[test]
fn book_toml_and_statistic_diagnostics_read_like_rustc() {
    assert_diagnostic("book_toml_unknown_key", |r| {
        edit(
            r,
            "book.toml",
            "title = \"Minimal study\"",
            "title = \"Minimal study\"\ntitel = \"x\"",
        )
    });
    assert_diagnostic("unknown_statistic", |r| {
        edit(r, "content/index.md", "name=\"speed\"", "name=\"sped\"")
    });
}

#[test]
fn chart_diagnostics_read_like_rustc() {
    assert_diagnostic("chart_unknown_key", |r| {
        edit(
            r,
            "content/index.md",
            "time.",
            "time.\n\n```chart\nid = \"c\"\nkind = \"line\"\ndata = \"runs\"\nx = \"procs\"\ny = \"time_s\"\ncolour = \"red\"\n```",
        )
    });
    assert_diagnostic("chart_unknown_column", |r| {
        edit(
            r,
            "content/index.md",
            "time.",
            "time.\n\n```chart\nid = \"c\"\nkind = \"line\"\ndata = \"runs\"\nx = \"procz\"\ny = \"time_s\"\n```",
        )
    });
}

#[test]
fn template_diagnostics_read_like_rustc() {
    assert_diagnostic("template_error", |r| {
        fs::create_dir_all(r.join("templates")).unwrap();
        fs::write(r.join("templates/page.html"), "{% extends \"base.html\" %}\n{% block main %}{{ page.html | safe }{% endblock main %}\n").unwrap();
    });
    assert_diagnostic("typst_error", |r| {
        fs::create_dir_all(r.join("templates")).unwrap();
        fs::write(
            r.join("templates/paper.typ"),
            "#set document(title: [T])\n#let book = json(\"book.json\")\n#book.nope\n",
        )
        .unwrap();
    });
}

#[test]
fn links_between_pages_are_checked() {
    let study = fixture("minimal");
    fs::write(study.path().join("content/more.md"), "# More\n\nBack to [the result](index.html), the [data](data/stats.json) and [a site](https://example.org).\n").unwrap();
    edit(
        study.path(),
        "content/index.md",
        "time.",
        "time. See [more](more.md) and [gone](gone.html#x).",
    );
    let output = report(study.path(), &["check"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.contains("content/index.md:3:")
            && err.contains("link to `more.md`, which the site does not have"),
        "{err}"
    );
    assert!(err.contains("link to the page as `more.html`"), "{err}");
    assert!(err.contains("link to `gone.html#x`"), "{err}");
    edit(
        study.path(),
        "content/index.md",
        "[more](more.md) and [gone](gone.html#x)",
        "[more](more.html)",
    );
    let output = report(study.path(), &["check"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

#[test]
fn links_to_the_paper_follow_its_configured_name() {
    let study = fixture("minimal");
    edit(study.path(), "book.toml", "[study]", "[output]\npdf = \"study.pdf\"\n\n[study]");
    edit(study.path(), "content/index.md", "time.", "time. Read [the paper](study.pdf).");
    let output = report(study.path(), &["check"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    edit(study.path(), "content/index.md", "(study.pdf)", "(paper.pdf)");
    let output = report(study.path(), &["check"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("link to `paper.pdf`, which the site does not have"),
        "{}",
        stderr(&output)
    );
}
