//! Cross-references in captions resolve like prose's, and a figure on
//! another page is linked at that page.

use crate::common::{pdftotext, report, stderr, written_study};

const BOOK: &str = "[book]\ntitle = \"T\"\ndate = \"2026-12-01\"\n\n[study]\nbaseline = \"a\"\n\n\
    [environments.a]\nlabel = \"A\"\n\n[environments.b]\nlabel = \"B\"\n";
const RUNS: &str = "environment,size,run,time\na,1,1,1\na,1,2,2\nb,1,1,3\nb,1,2,4\n\
    a,2,1,2\na,2,2,3\nb,2,1,5\nb,2,2,6\n";

fn chart(id: &str, caption: &str) -> String {
    format!(
        "```chart\nid = \"{id}\"\nkind = \"line\"\ndata = \"runs\"\nx = \"size\"\ny = \"time\"\ncaption = \"{caption}\"\n```\n"
    )
}

/// `@tbl-` and `@fig-` in a chart's caption and a table's caption become
/// links on the page and numbered references in the paper.
#[test]
fn references_in_captions_resolve() {
    let page = format!(
        "# T\n\n{}\n{}\n| x |\n|---|\n| 1 |\n\nTable: Sizes, as in @fig-second {{#tbl-sizes}}\n",
        chart("first", "Times; sizes in @tbl-sizes"),
        chart("second", "Again, as @fig-first"),
    );
    let dir = written_study(BOOK, &[("runs.csv", RUNS)], &page);
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let html = std::fs::read_to_string(dir.path().join("site/index.html")).unwrap();
    assert!(html.contains("sizes in <a class=\"xref\" href=\"#tbl-sizes\">Table 1</a>"), "{html}");
    assert!(html.contains("Again, as <a class=\"xref\" href=\"#fig-first\">Figure 1</a>"));
    assert!(html.contains("Sizes, as in <a class=\"xref\" href=\"#fig-second\">Figure 2</a>"));
    let text = pdftotext(&dir.path().join("site/paper.pdf"));
    assert!(text.contains("sizes in Table 1") && text.contains("Again, as Figure 1"), "{text}");
}

/// An unknown reference in a chart's caption is an error at the caption.
#[test]
fn an_unknown_reference_in_a_caption_is_located() {
    let page = format!("# T\n\n{}", chart("first", "See @fig-nothing"));
    let dir = written_study(BOOK, &[("runs.csv", RUNS)], &page);
    let output = report(dir.path(), &["build"]);
    let err = stderr(&output);
    assert!(!output.status.success() && err.contains("content/index.md:9:11:"), "{err}");
    assert!(err.contains("@fig-nothing"), "{err}");
}

/// A figure referred to from another page is linked at its page's anchor.
#[test]
fn a_figure_on_another_page_is_linked_there() {
    let dir =
        written_study(BOOK, &[("runs.csv", RUNS)], &format!("# T\n\n{}", chart("first", "T")));
    std::fs::write(dir.path().join("content/appendix.md"), "# More\n\nAs @fig-first shows.\n")
        .unwrap();
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let html = std::fs::read_to_string(dir.path().join("site/appendix.html")).unwrap();
    assert!(
        html.contains("<a class=\"xref\" href=\"index.html#fig-first\">Figure 1</a>"),
        "{html}"
    );
}

/// The table of headline results is Table 1 of the page and of the paper
/// (`@tbl-headline`), so the content's first table is Table 2 in both.
#[test]
fn tables_are_numbered_alike_after_the_headline_results() {
    let book = format!(
        "{BOOK}\n[[metrics]]\nname = \"time\"\nlabel = \"Time\"\ndata = \"runs\"\nvalue = \"time\"\n\
         where = {{ size = 1 }}\nbetter = \"lower\"\nheadline = true\n"
    );
    let page = "# T\n\nAs @tbl-sizes and @tbl-headline show.\n\n| x |\n|---|\n| 1 |\n\nTable: Sizes {#tbl-sizes}\n";
    let dir = written_study(&book, &[("runs.csv", RUNS)], page);
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let html = std::fs::read_to_string(dir.path().join("site/index.html")).unwrap();
    assert!(html.contains("href=\"#tbl-sizes\">Table 2</a>"), "{html}");
    assert!(html.contains("href=\"#tbl-headline\">Table 1</a>"), "{html}");
    assert!(html.contains("id=\"tbl-headline\""), "{html}");
    assert!(
        html.contains("<span class=\"table-number\">Table 1.</span> Headline results"),
        "{html}"
    );
    assert!(html.contains("<span class=\"table-number\">Table 2.</span> Sizes"), "{html}");
    let text = pdftotext(&dir.path().join("site/paper.pdf"));
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains("As Table 2 and Table 1 show") && text.contains("Table 2. Sizes"),
        "{text}"
    );
    assert!(text.contains("Table 1. Headline results") && !text.contains("Table 3"), "{text}");
}

/// Without a headline metric there is no headline table: the content's
/// first table is Table 1, and `@tbl-headline` names nothing.
#[test]
fn without_headline_metrics_the_first_table_is_table_1() {
    let page = "# T\n\nAs @tbl-sizes shows.\n\n| x |\n|---|\n| 1 |\n\nTable: Sizes {#tbl-sizes}\n";
    let dir = written_study(BOOK, &[("runs.csv", RUNS)], page);
    let output = report(dir.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let html = std::fs::read_to_string(dir.path().join("site/index.html")).unwrap();
    assert!(html.contains("href=\"#tbl-sizes\">Table 1</a>") && !html.contains("tbl-headline"));
    let text = pdftotext(&dir.path().join("site/paper.pdf"));
    assert!(text.contains("Table 1. Sizes") && !text.contains("Headline results"), "{text}");
    let wrong = page.replace("@tbl-sizes shows", "@tbl-headline shows");
    let dir = written_study(BOOK, &[("runs.csv", RUNS)], &wrong);
    let output = report(dir.path(), &["build"]);
    let err = stderr(&output);
    assert!(!output.status.success() && err.contains("unknown table `@tbl-headline`"), "{err}");
}
