//! The bad-input suite: one broken study per failure class. Each must fail
//! with a located diagnostic (snapshotted, short form), never a panic, hang or
//! crash, and leave the previous output folder byte for byte as it was.

use std::fs;
use std::path::Path;
use std::time::Duration;

use crate::common;
use common::*;

type Break = fn(&Path);

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn csv(root: &Path, text: &str) {
    write(root, "results/runs.csv", text);
}

fn append_content(root: &Path, text: &str) {
    let path = root.join("content/index.md");
    let mut old = fs::read_to_string(&path).unwrap();
    old.push_str(text);
    fs::write(path, old).unwrap();
}

const CHART: &str =
    "\n```chart\nid = \"c\"\nkind = \"line\"\ndata = \"runs\"\nx = \"procs\"\ny = \"time_s\"\n";

const CASES: &[(&str, Break)] = &[
    ("csv_empty", |r| csv(r, "")),
    ("csv_header_only", |r| csv(r, "environment,procs,run,time_s\r\n")),
    ("csv_ragged", |r| csv(r, "environment,procs,run,time_s\nbase,1,1,10\nbase,1,2\n")),
    ("csv_invalid_utf8", |r| {
        fs::write(r.join("results/runs.csv"), b"environment,procs,run,time_s\nbase,1,1,\xff\xfe\n")
            .unwrap()
    }),
    ("csv_nan_inf_huge_negative_zero", |r| {
        csv(
            r,
            "environment,procs,run,time_s\nbase,1,1,NaN\nbase,1,2,inf\nbase,1,3,1e999\ncand,1,1,-0\n",
        )
    }),
    ("csv_duplicate_header", |r| csv(r, "environment,procs,procs,time_s\nbase,1,1,10\n")),
    ("csv_template_expression_header", |r| {
        edit(r, "book.toml", "group-by = [\"procs\"]", "group-by = [\"{{ procs }}\"]")
    }),
    ("csv_quoted_newline_in_number", |r| {
        csv(r, "environment,procs,run,time_s\nbase,1,1,\"1\n0\"\n")
    }),
    ("markdown_unbalanced_chart_fence", |r| {
        append_content(r, "\n```chart\nid = \"c\"\nkind = \"line\"\n")
    }),
    ("markdown_chart_invalid_toml", |r| {
        append_content(r, &format!("{CHART}x-scale = log2\n```\n"))
    }),
    ("markdown_shortcode_syntax", |r| append_content(r, "\nText {{ and {% if %} and {# #}\n")),
    ("markdown_shortcode_get_env", |r| {
        append_content(r, "\nBuilt on {{ get_env(name=\"HOME\") }}.\n")
    }),
    ("markdown_shortcode_unknown_field", |r| {
        append_content(r, "\n{{ stat(name=\"speed\",\n  field=\"fll\") }}\n")
    }),
    ("template_get_env", |r| {
        write(r, "templates/partials/footer.html", "<footer>{{ get_env(name=\"HOME\") }}</footer>")
    }),
    ("template_syntax_error", |r| {
        write(
            r,
            "templates/base.html",
            "<html>{% block main %}\n{{ oops }\n{% endblock main %}</html>",
        )
    }),
    ("template_undefined_variable", |r| {
        write(r, "templates/partials/footer.html", "<footer>{{ nothing.here }}</footer>")
    }),
    ("template_includes_itself", |r| {
        write(
            r,
            "templates/partials/footer.html",
            "<footer>{% include \"partials/footer.html\" %}</footer>",
        )
    }),
    ("template_typst_error", |r| {
        write(r, "templates/paper.typ", "#set document(title: [T])\n#let x = (\n")
    }),
    ("book_toml_unknown_key", |r| edit(r, "book.toml", "[study]", "[study]\nbasline = \"base\"")),
    ("book_toml_wrong_type", |r| edit(r, "book.toml", "date = \"2024-01-02\"", "date = 2024")),
    ("book_toml_missing", |r| fs::remove_file(r.join("book.toml")).unwrap()),
    ("book_toml_huge_decimals", |r| {
        edit(r, "book.toml", "headline = true", "headline = true\ndecimals = 18446744073709551615")
    }),
    ("path_data_outside", |r| {
        append_content(
            r,
            &format!("{CHART}data = \"../../etc/passwd\"\n```\n").replace("data = \"runs\"\n", ""),
        )
    }),
    ("path_image_outside", |r| append_content(r, "\n![secret](../../etc/passwd)\n")),
    ("path_output_is_root", |r| {
        edit(r, "book.toml", "[study]", "[output]\ndir = \".\"\n\n[study]")
    }),
    ("path_output_is_content", |r| {
        edit(r, "book.toml", "[study]", "[output]\ndir = \"content\"\n\n[study]")
    }),
    ("font_file_not_a_font", |r| write(r, "fonts/Body.ttf", "this is not a font")),
    ("font_family_unknown", |r| {
        edit(
            r,
            "book.toml",
            "[study]",
            "[paper]\nfonts = [\"Libertinus Serif\", \"Libertinus Sreif\"]\n\n[study]",
        )
    }),
    // `fonts` and the family's quoted name also appear earlier, in [book]: the
    // error must point at the family in `[paper] fonts`.
    ("font_family_unknown_named_twice", |r| {
        edit(
            r,
            "book.toml",
            "[study]",
            "[paper]\nfonts = [\"Libertinus Serif\", \"Body Font\"]\n\n[study]",
        );
        edit(
            r,
            "book.toml",
            "title = \"Minimal study\"",
            "title = \"Minimal study of fonts\"\nsubtitle = \"Body Font\"",
        );
    }),
    // Two metrics of the same name: the error is at the second.
    ("book_toml_metric_defined_twice", |r| {
        let book = fs::read_to_string(r.join("book.toml")).unwrap();
        let metric = &book[book.find("[[metrics]]").unwrap()..];
        let metric = &metric[..metric[1..].find("\n[").map_or(metric.len(), |i| i + 1)];
        let repeated = format!("{book}\n{metric}");
        fs::write(r.join("book.toml"), repeated).unwrap();
    }),
];

#[test]
fn every_failure_class_is_located_and_leaves_the_previous_output() {
    for (name, break_it) in CASES {
        let study = fixture("minimal");
        let root = study.path();
        let output = report(root, &["build"]);
        assert!(
            output.status.success(),
            "{name}: the fixture must build first: {}",
            stderr(&output)
        );
        let before = contents(&root.join("site"));
        break_it(root);
        let output = report(root, &["build"]);
        let err = stderr_in(&output, root);
        assert_eq!(output.status.code(), Some(1), "{name}: expected exit 1:\n{err}");
        assert!(!err.contains("panicked"), "{name} panicked:\n{err}");
        insta::assert_snapshot!(format!("bad_{name}"), err);
        assert!(before == contents(&root.join("site")), "{name}: the previous output changed");
    }
}

#[cfg(unix)] // links made with Unix's symlink
#[test]
fn symlinks_out_of_the_study_are_refused() {
    let study = fixture("minimal");
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.csv"), "environment,procs,run,time_s\nbase,1,1,1\n")
        .unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.csv"),
        study.path().join("results/secret.csv"),
    )
    .unwrap();
    let output = report(study.path(), &["build"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("results/secret.csv: path leaves the study folder"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    for (name, piece) in [("lists", "- "), ("quotes", "> ")] {
        let study = fixture("minimal");
        let deep: String = (0..10_000)
            .map(|i| format!("{}{}x\n", "  ".repeat(0), piece.repeat(i.min(1))))
            .collect::<String>()
            + &piece.repeat(10_000)
            + "deep\n";
        append_content(study.path(), &format!("\n{deep}"));
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_report"))
            .args(["build", "--message-format", "short", "--root"])
            .arg(study.path())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let output = wait(child, Duration::from_secs(60));
        assert!(
            !stderr(&output).contains("overflow") && output.status.code().is_some(),
            "{name}: {}",
            stderr(&output)
        );
    }
}

fn wait(mut child: std::process::Child, limit: Duration) -> std::process::Output {
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < limit, "the build hung");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn too_much_data_stops_with_a_clear_error() {
    let study = fixture("minimal");
    edit(study.path(), "book.toml", "[study]", "[output]\nmax-results-mb = 1\n\n[study]");
    let mut big = String::from("environment,procs,run,time_s\n");
    for i in 0..120_000 {
        big.push_str(&format!("base,1,{},10.5\n", i + 100));
    }
    fs::write(study.path().join("results/extra.csv"), big).unwrap();
    let output = report(study.path(), &["build"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output)
            .contains("results/extra.csv: the results files hold 3 MB, this one 3 MB; a build reads at most 1 MB"),
        "{}",
        stderr(&output)
    );
}
