//! Bad input is reported at file:line:column with a hint, every error in a file
//! is reported, and nothing is written.

use std::fs;

use crate::common;
use common::*;

/// Build the minimal fixture after `change`, expect failure, return stderr.
fn fails(change: impl FnOnce(&std::path::Path)) -> String {
    let study = fixture("minimal");
    change(study.path());
    let output = report(study.path(), &["build"]);
    let err = stderr(&output);
    assert!(!output.status.success(), "expected a failure, got success:\n{err}");
    assert!(!study.path().join("site").exists(), "a failed build wrote output");
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn csv(root: &std::path::Path, text: &str) {
    fs::write(root.join("results/runs.csv"), text).unwrap();
}

#[test]
fn minimal_fixture_builds() {
    let study = fixture("minimal");
    let output = report(study.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let html = fs::read_to_string(study.path().join("site/index.html")).unwrap();
    // By hand: base at 2 procs = {6, 5, 7}, mean 6; cand = {4, 5, 6}, mean 5;
    // 5 / 6 − 1 = −16.67%.
    assert!(html.contains("\u{2212}16.7%"), "{html}");
    // scipy: Welch's t on the log scale, Welch–Satterthwaite df (3.874), t.ppf(0.975, df):
    // exp(ln(5/6) ± t·se) − 1 = -0.45395 to +0.27177; p = 0.2939, so not significant.
    assert!(html.contains("95% CI \u{2212}45.4 to +27.2%, n = 3; inconclusive"), "{html}");
}

#[test]
fn bom_crlf_and_quoted_fields_are_read() {
    let study = fixture("minimal");
    let text = fs::read_to_string(study.path().join("results/runs.csv")).unwrap();
    let text = text.replace("base,2,1,6", "\"base\",2,1,\"6\"").replace('\n', "\r\n");
    fs::write(study.path().join("results/runs.csv"), format!("\u{feff}{text}")).unwrap();
    let output = report(study.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let html = fs::read_to_string(study.path().join("site/index.html")).unwrap();
    assert!(html.contains("\u{2212}16.7%"), "{html}");
}

#[test]
fn duplicate_headers_and_invalid_utf8_are_located() {
    let err = fails(|root| {
        edit(
            root,
            "results/runs.csv",
            "environment,procs,run,time_s",
            "environment,procs,run,procs",
        )
    });
    assert!(
        err.contains("results/runs.csv:1:23: column `procs` appears twice in the header"),
        "{err}"
    );
    let err = fails(|root| {
        let mut bytes = fs::read(root.join("results/runs.csv")).unwrap();
        let at = bytes.windows(4).position(|w| w == b"cand").unwrap();
        bytes[at] = 0xff;
        fs::write(root.join("results/runs.csv"), bytes).unwrap();
    });
    assert!(err.contains("results/runs.csv:8:1: value is not valid UTF-8"), "{err}");
}

#[test]
fn a_single_run_gets_no_interval_and_says_why() {
    let study = fixture("minimal");
    let text = fs::read_to_string(study.path().join("results/runs.csv")).unwrap();
    let kept: Vec<&str> =
        text.lines().filter(|l| !l.starts_with("cand,2,2") && !l.starts_with("cand,2,3")).collect();
    fs::write(study.path().join("results/runs.csv"), kept.join("\n") + "\n").unwrap();
    let output = report(study.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let html = fs::read_to_string(study.path().join("site/index.html")).unwrap();
    // cand at 2 procs = {4}; base = {6, 5, 7}: 4 / 6 − 1 = −33.3%, and no interval.
    assert!(
        html.contains(
            "\u{2212}33.3% (n = 1; no CI: n = 1: at least 2 runs are needed for a confidence interval; inconclusive)"
        ),
        "{html}"
    );
    let stats = fs::read_to_string(study.path().join("site/data/stats.json")).unwrap();
    assert!(stats.contains("\"ci\": null"), "{stats}");
}

#[test]
fn a_generic_csv_without_a_schema_is_usable() {
    let study = fixture("minimal");
    fs::write(
        study.path().join("results/other.csv"),
        "environment,size,latency\nbase,8,2.0\nbase,8,4.0\ncand,8,3.0\ncand,8,5.0\n",
    )
    .unwrap();
    edit(
        study.path(),
        "book.toml",
        "[[metrics]]",
        "[[metrics]]\nname = \"lat\"\nlabel = \"Latency\"\ndata = \"other\"\nvalue = \"latency\"\nbetter = \"lower\"\n\n[[metrics]]",
    );
    edit(
        study.path(),
        "content/index.md",
        "time.",
        "time. Latency {{ stat(name=\"lat\", field=\"value\") }}.",
    );
    let output = report(study.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let html = fs::read_to_string(study.path().join("site/index.html")).unwrap();
    // By hand: means 4 (cand) and 3 (base): 4 / 3 − 1 = +33.3%.
    assert!(html.contains("Latency +33.3%."), "{html}");
}

#[test]
fn missing_column_suggests_the_nearest_name() {
    let err = fails(|root| edit(root, "results/runs.csv", "time_s", "time_sec"));
    assert!(err.contains("results/runs.csv:1:1: required column `time_s` is missing"), "{err}");
    assert!(err.contains("did you mean `time_sec`?"), "{err}");
}

#[test]
fn non_numbers_nan_and_infinity_are_located() {
    let err = fails(|root| {
        edit(root, "results/runs.csv", "base,1,2,11", "base,1,2,abc");
        edit(root, "results/runs.csv", "base,2,1,6", "base,2,1,NaN");
        edit(root, "results/runs.csv", "cand,1,1,9", "cand,1,1,inf");
    });
    assert!(err.contains("results/runs.csv:3:10: column `time_s`: expected a number greater than zero, found `abc`"), "{err}");
    // NaN (line 5) is how pandas writes a missing value: a marker that
    // `missing` does not declare (issue 43, point 8); inf (line 8) is no
    // result at all.
    assert!(
        err.contains(
            "results/runs.csv:5:10: column `time_s`: `NaN` marks a missing value, which book.toml does not declare"
        ) && err.contains("declare it in [data.runs]: `missing = [\"NaN\"]`"),
        "{err}"
    );
    assert!(
        err.contains(
            "results/runs.csv:8:10: column `time_s`: expected a finite number, found `inf` = help: NaN and infinite values are not results"
        ),
        "{err}"
    );
    assert!(err.contains("error: 3 errors;"), "every error in the file is reported: {err}");
}

#[test]
fn zero_and_negative_times_are_refused() {
    let err = fails(|root| {
        edit(root, "results/runs.csv", "base,1,2,11", "base,1,2,0");
        edit(root, "results/runs.csv", "cand,2,3,6", "cand,2,3,-6");
    });
    // Line 3 (`0`) and line 13 (`-6`): one diagnostic at the first, naming both.
    assert!(
        err.contains(
            "results/runs.csv:3:10: column `time_s`: expected a number greater than zero, \
             found `-6`, `0` (2 rows)"
        ),
        "{err}"
    );
    assert!(err.contains("remove the row of a failed run"), "{err}");
    let err = fails(|root| edit(root, "results/runs.csv", "cand,2,3,6", "cand,2,3,-6"));
    assert!(
        err.contains(
            "error: results/runs.csv:13:10: column `time_s`: expected a number greater than \
             zero, found `-6` = help:"
        ),
        "{err}"
    );
}

#[test]
fn empty_and_header_only_files_are_refused() {
    let err = fails(|root| csv(root, ""));
    assert!(err.contains("results/runs.csv: results file is empty"), "{err}");
    let err = fails(|root| csv(root, "environment,procs,run,time_s\n"));
    assert!(err.contains("results/runs.csv:1:1: results file has a header but no rows"), "{err}");
}

#[test]
fn ragged_rows_are_located() {
    let err = fails(|root| edit(root, "results/runs.csv", "base,1,2,11", "base,1,2,11,12"));
    assert!(err.contains("results/runs.csv:3:13: row has 5 fields but the header has 4"), "{err}");
}

#[test]
fn duplicate_runs_are_refused() {
    let err = fails(|root| edit(root, "results/runs.csv", "base,1,2,11", "base,1,1,11"));
    assert!(err.contains("results/runs.csv:3:1: duplicate run (environment = base, procs = 1, run = 1), first seen on line 2"), "{err}");
}

#[test]
fn unknown_environments_are_refused() {
    let err = fails(|root| edit(root, "results/runs.csv", "cand,1,1,9", "cnad,1,1,9"));
    assert!(err.contains("results/runs.csv:8:1: unknown environment `cnad`"), "{err}");
    assert!(err.contains("did you mean `cand`?"), "{err}");
}

#[test]
fn unknown_statistics_in_prose_are_located() {
    let err = fails(|root| edit(root, "content/index.md", "name=\"speed\"", "name=\"sped\""));
    assert!(err.contains("content/index.md:3:"), "{err}");
    assert!(err.contains("unknown statistic `sped`"), "{err}");
    assert!(err.contains("did you mean `speed`?"), "{err}");
    let err = fails(|root| edit(root, "content/index.md", "field=\"full\"", "field=\"fulll\""));
    assert!(err.contains("unknown field `fulll` of statistic `speed`"), "{err}");
}

#[test]
fn metric_errors_point_into_book_toml() {
    let err = fails(|root| edit(root, "book.toml", "value = \"time_s\"", "value = \"tme_s\""));
    assert!(err.contains("book.toml:"), "{err}");
    assert!(err.contains("unknown column `tme_s`"), "{err}");
    let err =
        fails(|root| edit(root, "book.toml", "where = { procs = 2 }", "where = { procs = 3 }"));
    // A value `where` names that no row has is an error at it, not an empty selection.
    assert!(
        err.contains("book.toml:") && err.contains("no row of results/runs.csv has `procs` = 3"),
        "{err}"
    );
}

#[test]
fn missing_book_toml_is_explained() {
    let err = fails(|root| fs::remove_file(root.join("book.toml")).unwrap());
    assert!(err.contains("no book.toml in the study folder"), "{err}");
}

#[test]
fn broken_page_template_is_located() {
    let err = fails(|root| {
        fs::create_dir_all(root.join("templates")).unwrap();
        fs::write(root.join("templates/page.html"), "<p>\n{{ book.title </p>\n").unwrap();
    });
    assert!(err.contains("templates/page.html:2:"), "{err}");
}

#[test]
fn invalid_typst_template_is_located() {
    let err = fails(|root| {
        fs::create_dir_all(root.join("templates")).unwrap();
        fs::write(root.join("templates/paper.typ"), "Hello\n#nope\n").unwrap();
    });
    assert!(err.contains("templates/paper.typ:2:2: paper: unknown variable: nope"), "{err}");
}

#[test]
fn output_folder_cannot_be_an_input_folder() {
    let err =
        fails(|root| edit(root, "book.toml", "[study]", "[output]\ndir = \"content\"\n\n[study]"));
    assert!(
        err.contains("inside the study's `content/` folder")
            || err.contains("not written by report"),
        "{err}"
    );
}

#[test]
fn derived_column_errors_point_at_the_expression() {
    let err = fails(|root| {
        edit(
            root,
            "book.toml",
            "columns = {",
            "derive = { cost = \"time_s * procz\" }\ncolumns = {",
        )
    });
    assert!(
        err.contains("book.toml:17:20: derived column `cost`: unknown column `procz`"),
        "{err}"
    );
    assert!(err.contains("did you mean `procs`?"), "{err}");
}

/// A formula Typst cannot typeset (a word is a variable in Typst math,
/// with `[output] math = "typst"`) is an error at the formula, with the
/// math syntax and `\$` in the help.
#[test]
fn a_formula_that_does_not_typeset_is_located() {
    let mut line = 0;
    let err = fails(|root| {
        let book = fs::read_to_string(root.join("book.toml")).unwrap();
        fs::write(root.join("book.toml"), format!("{book}\n[output]\nmath = \"typst\"\n")).unwrap();
        let page = fs::read_to_string(root.join("content/index.md")).unwrap();
        // After the page's last line and one blank line.
        line = page.lines().count() + 2;
        let text = format!("{}\n\nIt costs $5日本語$ here.\n", page.trim_end());
        fs::write(root.join("content/index.md"), text).unwrap();
    });
    let at = format!("content/index.md:{line}:10: math: unknown variable: 日本語");
    assert!(err.contains(&at), "{at} not in {err}");
    assert!(err.contains("a literal dollar sign is \\$"), "{err}");
}

/// A formula that is no LaTeX (the default syntax) is an error at the
/// formula, whose help shows LaTeX and names the switch to Typst's syntax.
#[test]
fn a_latex_formula_that_does_not_parse_is_located() {
    let mut line = 0;
    let err = fails(|root| {
        let page = fs::read_to_string(root.join("content/index.md")).unwrap();
        line = page.lines().count() + 2;
        let text = format!("{}\n\nIt is $\\nocommand$ here.\n", page.trim_end());
        fs::write(root.join("content/index.md"), text).unwrap();
    });
    let at = format!("content/index.md:{line}:7: math: ");
    assert!(err.contains(&at), "{at} not in {err}");
    assert!(err.contains("write formulas in LaTeX") && err.contains("math = \"typst\""), "{err}");
}
