//! The built paper read back with poppler (pdftotext, pdfinfo, pdffonts):
//! the shipped paper's sections, figures and metadata, the caveats as the
//! data calls for them, embedded fonts and the paper size, and text in every
//! script. (The paper's Typst itself: tests/paper.rs.)

use std::fs;
use std::path::Path;

use crate::common;
use common::*;

#[test]
fn the_shipped_paper_reads_like_a_paper() {
    if !tool("pdftotext", &["-v"]) {
        return;
    }
    let pdf = built_shipped_study().join("site/paper.pdf");
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
    let fonts = pdffonts(&pdf);
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
    let fonts = pdffonts(&pdf);
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
