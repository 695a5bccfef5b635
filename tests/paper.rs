//! The paper: escaping proven by property test, a real paper layout checked with
//! poppler's pdftotext and pdfinfo, citations, and located errors.

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::*;
use proptest::prelude::*;
use report::markdown::directives;
use report::render::pdf::{self, PaperProject};
use report::render::typst_markup;

fn compile(markdown: &str) -> Result<Vec<u8>, String> {
    let markup = typst_markup::convert(markdown, &report::render::Refs::none());
    let project = PaperProject {
        main: markup.text.clone(),
        files: Default::default(),
        date: None,
        standard: report::config::PdfStandard::None,
        fonts: vec![],
        families: vec![],
    };
    pdf::render(&project).map_err(|e| format!("{e:?}\n--- markup ---\n{}", markup.text))
}

/// Pieces of Markdown: constructs, Typst and Tera syntax, and text in many scripts.
fn token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "# ",
        "## ",
        "###### ",
        "- ",
        "* ",
        "1. ",
        "2) ",
        "> ",
        "> [!NOTE]\n",
        "```\n",
        "```rust\n",
        "    ",
        "`",
        "``",
        "*",
        "_",
        "**",
        "__",
        "~~",
        "~",
        "[",
        "]",
        "(",
        ")",
        "<",
        ">",
        "<b>",
        "</b>",
        "<div>\n",
        "@home",
        "@",
        "#",
        "$",
        "\\",
        "/",
        "//",
        "/*",
        "=",
        "+",
        "-",
        "--",
        "...",
        "|",
        "---\n",
        "***",
        "\n",
        "\n\n",
        "  \n",
        "\t",
        "| a | b |\n|:--|--:|\n| 1 | 2 |\n",
        "Table: cap\n",
        "[^1]",
        "[^1]: note\n",
        "![alt](https://example.org/x.png)",
        "[link](http://a.b/c?d=e&f)",
        "<http://x.y>",
        "{",
        "}",
        "{{",
        "}}",
        "{%",
        "%}",
        "{#",
        "#}",
        "\"",
        "'",
        "C# at $5",
        "text",
        " ",
        "é",
        "日本語",
        "עברית",
        "🙂",
        "#sys.inputs",
        "#let x = 1",
        "$x^2$",
        "<label>",
        "@ref",
        "\\u{41}",
        "- [ ] task\n",
        "- [x] done\n",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: common::regressions("paper"), ..ProptestConfig::default() })]

    /// Whatever the author writes (and the markdown stage accepts), the Typst compiles.
    #[test]
    fn random_markdown_always_compiles(tokens in prop::collection::vec(token(), 0..40)) {
        let markdown = tokens.concat();
        let found = directives::scan(Path::new("x.md"), &markdown, &Default::default());
        prop_assume!(found.as_ref().is_ok_and(|f| f.references.is_empty() && f.citations.is_empty() && f.images.is_empty()));
        let result = compile(&markdown);
        prop_assert!(result.is_ok(), "{}", result.err().unwrap_or_default());
    }
}

#[test]
fn typst_syntax_in_prose_prints_as_written() {
    let pdf = compile(
        "C# at $5 <b>@home [x] \\* #sys.inputs {{ y }} // z /* w */ ~ = - + ` ' \" _a_ *b*\n",
    )
    .unwrap();
    if tool("pdftotext", &["-v"]) {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.pdf"), pdf).unwrap();
        let text = pdftotext(&dir.path().join("a.pdf"));
        assert!(
            text.contains(
                "C# at $5 <b>@home [x] * #sys.inputs {{ y }} // z /* w */ ~ = - + ` ' \" a b"
            ),
            "{text}"
        );
    }
}

fn pdfinfo(pdf: &Path) -> String {
    let out = Command::new("pdfinfo").arg(pdf).output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_shipped_paper_reads_like_a_paper() {
    if !tool("pdftotext", &["-v"]) {
        return;
    }
    let study = shipped_study();
    let output = report(study.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let pdf = study.path().join("site/paper.pdf");
    let text = pdftotext(&pdf).split_whitespace().collect::<Vec<_>>().join(" ");
    for needle in [
        "Abstract.",
        "1 Introduction",
        "2 Method",
        "3 Procedure",
        "Results",
        "Discussion",
        "Limitations",
        "References",
        "Figure 1. LAMMPS",
        "Figure 5. OSU",
        "Table 1. The two environments compared.",
        "come from runs on a single node",
        "[1] A. M. Beltre",
        "Enabling HPC Workloads on Cloud Infrastructure Using Kubernetes",
        "+8.8%",
        "+7.6%",
        "-2.4%",
        "-6.9%",
    ] {
        assert!(text.contains(needle), "the paper lacks `{needle}`:\n{text}");
    }
    assert!(!text.contains("My role"), "page-only sections stay out of the paper");
    let info = pdfinfo(&pdf);
    let pages: usize =
        info.lines().find_map(|l| l.strip_prefix("Pages:")).unwrap().trim().parse().unwrap();
    // Figures two-up at half width (tests/paper_layout.rs): three pages of A4.
    assert!((3..=8).contains(&pages), "{pages} pages");
    for needle in [
        "Title:           Does MPI pay a price for running on Kubernetes?",
        "Author:          The report authors",
        "Keywords:        MPI, Kubernetes",
        "Subject:         We ran a LAMMPS",
        "Tagged:          yes",
        // SOURCE_DATE_EPOCH=1700000000 is 2023-11-14 22:13:20 UTC.
        "CreationDate:    Tue Nov 14 22:13:20 2023 UTC",
    ] {
        assert!(info.contains(needle), "pdfinfo lacks `{needle}`:\n{info}");
    }
}

#[test]
fn unknown_citation_keys_fail_at_file_line() {
    let study = fixture("minimal");
    fs::write(
        study.path().join("content/references.bib"),
        "@misc{known2020,\n  title = {T},\n  year = {2020}\n}\n",
    )
    .unwrap();
    edit(study.path(), "content/index.md", "time.", "time [@knwon2020].");
    let output = report(study.path(), &["build"]);
    let err = stderr(&output);
    assert!(!output.status.success());
    assert!(err.contains("content/index.md:3:"), "{err}");
    assert!(err.contains("unknown citation key `@knwon2020`"), "{err}");
    assert!(err.contains("did you mean `@known2020`?"), "{err}");
}

#[test]
fn html_blocks_are_dropped_from_the_paper_with_a_located_warning() {
    let study = fixture("minimal");
    edit(
        study.path(),
        "content/index.md",
        "# Result\n",
        "# Result\n\n<div class=\"x\">only on the page</div>\n",
    );
    edit(study.path(), "book.toml", "[study]", "[output]\nraw-html = true\n\n[study]");
    let output = report(study.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("warning: content/index.md:3:1: HTML has no PDF form"),
        "{}",
        stderr(&output)
    );
    let html = fs::read_to_string(study.path().join("site/index.html")).unwrap();
    assert!(html.contains("<div class=\"x\">only on the page</div>"));
}

fn caveats(root: &Path) -> Vec<(String, String)> {
    stats_json(root)["caveats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["kind"].as_str().unwrap().to_string(), c["text"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn caveats_follow_the_data() {
    // No node column: the paper says the node counts are unknown.
    let study = fixture("minimal");
    let found = caveats(study.path());
    assert!(
        found.iter().any(|(k, t)| k == "nodes-unknown" && t.contains("no `nodes` column")),
        "{found:?}"
    );
    // The headline difference at 2 processes has a CI across zero (-45.4% to +27.2%, by scipy: Welch's t on the log scale).
    assert!(found.iter().any(|(k, t)| k == "not-significant" && t.contains("-16.7%")), "{found:?}");

    // Several node counts, a configuration in one environment, and a single run.
    let study = fixture("minimal");
    let csv = fs::read_to_string(study.path().join("results/runs.csv")).unwrap();
    let mut lines: Vec<String> = csv
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                format!("{l},nodes")
            } else {
                format!("{l},{}", if l.contains(",2,") { 2 } else { 1 })
            }
        })
        .collect();
    lines.push("base,4,1,3,1".into());
    fs::write(study.path().join("results/runs.csv"), lines.join("\n") + "\n").unwrap();
    let found = caveats(study.path());
    assert!(
        found.iter().any(|(k, t)| k == "node-counts" && t.contains("on 1 and 2 nodes")),
        "{found:?}"
    );
    assert!(found.iter().any(|(k, t)| k == "few-runs" && t.contains("results/runs.csv has 1 configuration with fewer than 3 runs (the smallest has n = 1)")), "{found:?}");
    assert!(
        found
            .iter()
            .any(|(k, t)| k == "unmatched" && t.contains("procs = 4 was measured only in Base")),
        "{found:?}"
    );
    if tool("pdftotext", &["-v"]) {
        let text = pdftotext(&study.path().join("site/paper.pdf"))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            text.contains("Limitations") && text.contains("was measured only in Base"),
            "{text}"
        );
    }
}

#[test]
fn fonts_are_embedded_and_letter_paper_is_honoured() {
    if !tool("pdffonts", &["-v"]) {
        return;
    }
    let study = fixture("charts");
    edit(study.path(), "book.toml", "[study]", "[paper]\nsize = \"us-letter\"\n\n[study]");
    let output = report(study.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let pdf = study.path().join("site/paper.pdf");
    let fonts =
        String::from_utf8_lossy(&Command::new("pdffonts").arg(&pdf).output().unwrap().stdout)
            .into_owned();
    let rows: Vec<&str> = fonts.lines().skip(2).collect();
    assert!(
        !rows.is_empty() && rows.iter().all(|r| r.contains(" yes ")),
        "every font embedded:\n{fonts}"
    );
    assert!(
        rows.iter().all(|r| r.contains("LibertinusSerif")
            || r.contains("DejaVuSansMono")
            || r.contains("NewCMMath")),
        "{fonts}"
    );
    // US Letter is 8.5 × 11 in = 612 × 792 pt.
    assert!(pdfinfo(&pdf).contains("Page size:       612 x 792 pts (letter)"), "{}", pdfinfo(&pdf));
}

/// Text in every script reaches both outputs: as written in the page, and in the
/// PDF with the embedded fallback faces (CJK, Arabic, emoji) doing the drawing.
#[test]
fn every_script_prints_in_both_outputs() {
    let study = fixture("minimal");
    let scripts = "Latin é, Ελληνικά, Русский, עברית, العربية, 日本語, 中文, 한국어, emoji 🙂🚀";
    edit(study.path(), "content/index.md", "# Result", &format!("# Result 結果\n\n{scripts}\n"));
    edit(study.path(), "book.toml", "label = \"Time at 2 processes\"", "label = \"時間 زمن 🚀\"");
    let out = report(study.path(), &["build"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let html = fs::read_to_string(study.path().join("site/index.html")).unwrap();
    assert!(html.contains(scripts) && html.contains("時間 زمن 🚀"), "page lost text");
    if !tool("pdffonts", &["-v"]) {
        return;
    }
    let pdf = study.path().join("site/paper.pdf");
    let fonts = Command::new("pdffonts").arg(&pdf).output().unwrap();
    let fonts = String::from_utf8_lossy(&fonts.stdout);
    for face in ["LibertinusSerif", "NotoNaskhArabic", "WenQuanYiMicroHei", "NotoEmoji"] {
        assert!(fonts.contains(face), "{face} not embedded:\n{fonts}");
    }
    assert!(fonts.lines().skip(2).all(|l| l.contains(" yes ")), "a font is not embedded:\n{fonts}");
    let text = pdftotext(&pdf);
    for word in ["Ελληνικά", "Русский", "日本語", "中文", "한국어", "🙂", "結果", "時間"]
    {
        assert!(text.contains(word), "{word} missing from the PDF text:\n{text}");
    }
}

/// `report typst` writes a self-contained Typst project: compiled on its own
/// (here with the same Typst library; in benches/run.sh with the typst CLI),
/// it gives the very PDF the build wrote.
#[test]
fn the_exported_typst_project_typesets_the_same_paper() {
    let study = fixture("minimal");
    assert!(report(study.path(), &["build"]).status.success());
    let dir = study.path().join("paper-typst");
    let out = report(study.path(), &["typst", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    // SOURCE_DATE_EPOCH=1700000000 is 2023-11-14 22:13:20 UTC.
    let mut project = PaperProject {
        main: String::new(),
        files: Default::default(),
        date: Some((2023, 11, 14, 22, 13, 20)),
        standard: report::config::PdfStandard::Ua1,
        fonts: vec![],
        families: vec![],
    };
    for (path, bytes) in contents(&dir) {
        let name = path.to_string_lossy().into_owned();
        match name.as_str() {
            "main.typ" => project.main = String::from_utf8(bytes).unwrap(),
            ".report-output" => {}
            _ if name.starts_with("fonts/") => {}
            _ => {
                project.files.insert(name, bytes);
            }
        }
    }
    for name in ["content.typ", "book.json", "stats.json"] {
        assert!(project.files.contains_key(name), "{name} missing");
    }
    for font in ["NotoEmoji-Regular.ttf", "NotoNaskhArabic-Regular.ttf", "wqy-microhei.ttc"] {
        assert!(dir.join("fonts").join(font).is_file(), "{font} missing");
    }
    let pdf = pdf::render(&project).unwrap();
    assert!(
        pdf == fs::read(study.path().join("site/paper.pdf")).unwrap(),
        "the exported project typesets another PDF"
    );
    // The export is refused where a build would be: over the study's own folders.
    let out = report(study.path(), &["typst", study.path().join("content").to_str().unwrap()]);
    assert!(
        !out.status.success() && stderr(&out).contains("inside the study's `content/` folder"),
        "{}",
        stderr(&out)
    );
}
