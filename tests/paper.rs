//! The paper's Typst: escaping proven by property test, Typst syntax in
//! prose printing as written, citations and HTML blocks with located
//! diagnostics, and the exported Typst project typesetting the same PDF.
//! (The built paper read back with poppler: tests/paper_text.rs.)

use std::fs;
use std::path::Path;

use crate::common;
use common::*;
use proptest::prelude::*;
use report::markdown::parse;
use report::render::pdf::{self, PaperProject};
use report::render::typst_markup;

fn compile(markdown: &str) -> Result<Vec<u8>, String> {
    let markup = typst_markup::convert(&parse::text(markdown), &report::render::Refs::none());
    typeset(&markup.text)
}

/// The PDF of Typst markup.
fn typeset(main: &str) -> Result<Vec<u8>, String> {
    let project = PaperProject {
        main: main.to_string(),
        files: Default::default(),
        date: None,
        standard: report::config::PdfStandard::None,
        fonts: vec![],
        families: vec![],
    };
    pdf::render(&project).map_err(|e| format!("{e:?}\n--- markup ---\n{main}"))
}

/// Whether every formula of `markdown` typesets on its own. A formula is
/// the author's Typst math, which a build checks at its place (an error at
/// its file, line and column, tests/errors.rs), so only a page whose
/// formulas are valid must compile whole.
fn formulas_typeset(markdown: &str) -> bool {
    use pulldown_cmark::{Event, Parser};
    Parser::new_ext(markdown, report::markdown::options()).all(|event| match event {
        Event::InlineMath(f) | Event::DisplayMath(f) => typeset(&format!("${f}$")).is_ok(),
        _ => true,
    })
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

    /// Whatever the author writes (and the markdown stage accepts, with
    /// formulas that typeset), the Typst compiles.
    #[test]
    fn random_markdown_always_compiles(tokens in prop::collection::vec(token(), 0..40)) {
        let markdown = tokens.concat();
        let found = parse::page(Path::new("x.md"), &markdown, None, None);
        prop_assume!(found.as_ref().is_ok_and(|(_, f)| f.references.is_empty() && f.citations.is_empty() && f.images.is_empty()));
        prop_assume!(formulas_typeset(&markdown));
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
                "C# at $5 <b>@home [x] * #sys.inputs {{ y }} // z /* w */ ~ = - + ` \u{2018} \u{201C} a b"
            ),
            "{text}"
        );
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
