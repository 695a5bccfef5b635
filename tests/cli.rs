//! `report new`, `report check` and the rendering of diagnostics.

use std::fs;

use crate::common;
use common::*;

#[test]
fn a_new_study_builds_right_away() {
    let dir = tempfile::tempdir().unwrap();
    let study = dir.path().join("study");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_report"))
        .arg("new")
        .arg(&study)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    for file in ["book.toml", "content/index.md", "results/runs.csv", ".gitignore"] {
        assert!(study.join(file).is_file(), "{file}");
    }
    let output = report(&study, &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let html = fs::read_to_string(study.join("site/index.html")).unwrap();
    // By hand: at 4 threads before = {3.1, 3.0, 3.2} (mean 3.1), after = {2.7, 2.8, 2.7} (mean 2.7333);
    // 2.7333 / 3.1 − 1 = −11.8%.
    assert!(html.contains("\u{2212}11.8%"), "{html}");
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
