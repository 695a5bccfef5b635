//! Tables are numbered alike in the page and the paper (issue 30): the
//! headline results are Table 1 of both, the content's tables follow from
//! Table 2 with the same captions, and every cross-reference names the same
//! number, in each shipped study. The paper's headline table breaks no word.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::common::{built_shipped_study, repo, report, stderr, tool};

/// `pdftotext` in reading order (not `-layout`, which interleaves the
/// captions of figures set side by side), whitespace collapsed, and the
/// paper's typographic apostrophes read as the page's straight ones.
fn paper_text(pdf: &Path) -> String {
    let out = Command::new("pdftotext").arg(pdf).arg("-").output().unwrap();
    assert!(out.status.success(), "pdftotext failed on {pdf:?}");
    let text = String::from_utf8_lossy(&out.stdout).replace('\u{2019}', "'");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// HTML as text: tags dropped, the entities the templates write decoded,
/// whitespace collapsed.
fn text_of(html: &str) -> String {
    let tags = regex::Regex::new(r"<[^>]*>").unwrap();
    let text = tags.replace_all(html, "");
    let text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"");
    let text = text.replace("&#x27;", "'").replace("&#39;", "'").replace("&apos;", "'");
    let text = text.replace("&nbsp;", "\u{a0}").replace('\u{2019}', "'");
    text.replace("&amp;", "&").split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The page's tables, in document order: their numbers and captions
/// ("Table 2. The two environments compared.").
fn page_captions(html: &str) -> Vec<(usize, String)> {
    let caption = regex::Regex::new(
        r#"(?s)<span class="table-number">Table (\d+)\.</span>(.*?)</figcaption>"#,
    )
    .unwrap();
    let captions = caption.captures_iter(html);
    captions.map(|c| (c[1].parse().unwrap(), text_of(&c[2]))).collect()
}

/// The numbers the page's cross-references to tables show, in document order,
/// each checked against the caption of the table it links to.
fn page_references(html: &str) -> Vec<usize> {
    let xref =
        regex::Regex::new(r##"<a class="xref" href="#tbl-([^"]+)">Table (\d+)</a>"##).unwrap();
    let mut numbers = Vec::new();
    for c in xref.captures_iter(html) {
        let number: usize = c[2].parse().unwrap();
        let target = html.find(&format!("id=\"tbl-{}\"", &c[1])).expect("the linked table");
        let label = html[target..].find("<span class=\"table-number\">Table ").unwrap() + target;
        let shown = &html[label..][..60];
        assert!(
            shown.contains(&format!(">Table {number}.<")),
            "tbl-{} is not Table {number}",
            &c[1]
        );
        numbers.push(number);
    }
    numbers
}

/// Every shipped study, built once for the tests of this file: the page
/// and the paper of each (the examples' sites under the target folder's
/// `tmp/table-numbers`, replaced by each run).
fn shipped_sites() -> &'static [PathBuf] {
    static BUILT: OnceLock<Vec<PathBuf>> = OnceLock::new();
    BUILT.get_or_init(|| {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("table-numbers");
        if out.exists() {
            std::fs::remove_dir_all(&out).unwrap();
        }
        let mut sites = vec![built_shipped_study().join("site")];
        for example in ["usernetes", "compressors"] {
            let site = out.join(example);
            let root = repo().join("examples").join(example);
            let output = report(&root, &["build", "--out", site.to_str().unwrap()]);
            assert!(output.status.success(), "{}", stderr(&output));
            sites.push(site);
        }
        sites
    })
}

#[test]
fn tables_are_numbered_alike_in_the_page_and_the_paper() {
    if !tool("pdftotext", &["-v"]) {
        return;
    }
    let sites = shipped_sites();
    let mention = regex::Regex::new(r"Table (\d+)").unwrap();
    for site in sites {
        let html = std::fs::read_to_string(site.join("index.html")).unwrap();
        let paper = paper_text(&site.join("paper.pdf"));
        let captions = page_captions(&html);
        let numbers: Vec<usize> = captions.iter().map(|c| c.0).collect();
        assert_eq!(
            numbers,
            (1..=captions.len()).collect::<Vec<_>>(),
            "{site:?}: the page's tables"
        );
        assert!(captions[0].1.starts_with("Headline results:"), "{site:?}: {captions:?}");
        // Each caption, word for word, in the paper: the content's tables in
        // the page's order, Table 1 in the Results wherever they fall (issue
        // 43, point 6), under the same number.
        let mut from = 0;
        let mut labels = Vec::new();
        for (number, caption) in &captions {
            let label = format!("Table {number}. {caption}");
            let start = if *number == 1 { 0 } else { from };
            let at = paper[start..].find(&label).map(|at| at + start);
            let at = at.unwrap_or_else(|| panic!("{site:?}: the paper lacks `{label}`:\n{paper}"));
            labels.push(at..at + format!("Table {number}.").len());
            if *number != 1 {
                from = at + label.len();
            }
        }
        // No other table in the paper, and the same cross-references: every
        // other "Table N" of its text, in order, is one of the page's.
        let mentions = mention.captures_iter(&paper).filter(|c| {
            let at = c.get(0).unwrap().start();
            !labels.iter().any(|l| l.contains(&at))
        });
        let mentioned: Vec<usize> = mentions.map(|c| c[1].parse().unwrap()).collect();
        assert_eq!(mentioned, page_references(&html), "{site:?}: the cross-references to tables");
        assert!(mentioned.iter().all(|n| *n <= captions.len()), "{site:?}: {mentioned:?}");
    }
}

/// The headline table of each shipped paper, as laid out, breaks no word:
/// no line of it ends in a hyphen and no soft hyphen is set.
#[test]
fn the_headline_table_breaks_no_word() {
    if !tool("pdftotext", &["-v"]) {
        return;
    }
    let sites = shipped_sites();
    let broken = regex::Regex::new(r"\p{L}[-\u{ad}]\s*$").unwrap();
    for site in sites {
        let text = crate::common::pdftotext(&site.join("paper.pdf"));
        let start = text.find("Table 1. Headline results").expect("the headline table");
        // Its caption, header and rows: to the first blank line after "Metric".
        let header = text[start..].find("Metric").map_or(start, |m| m + start);
        let end = text[header..].find("\n\n").map_or(text.len(), |e| e + header);
        let table = &text[start..end];
        assert!(table.contains("Metric") && table.lines().count() > 4, "{site:?}:\n{table}");
        for line in table.lines() {
            assert!(!broken.is_match(line) && !line.contains('\u{ad}'), "{site:?}: `{line}`");
        }
    }
}
