//! The shipped paper laid out as a paper (issue 20): figures two-up with
//! bold, left-aligned "Figure N." captions that say what each chart's error
//! bars are, the headline table as Metric | Value | 95% CI | n | p with true
//! minus signs, and no text meant for the web page only.

mod common;

use common::*;

#[test]
fn the_paper_keeps_to_the_paper() {
    if !tool("pdftotext", &["-v"]) {
        return;
    }
    let study = shipped_study();
    let output = report(study.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let raw = pdftotext(&study.path().join("site/paper.pdf"));
    let text = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    for needle in [
        // The headline table: one column each, with true minus signs.
        "Metric Value 95% CI n p",
        "Network overhead \u{2212}2.4% \u{2212}3.2 to \u{2212}1.6%",
        // What each chart's error bars are, computed per chart.
        "No error bars: each point is a ratio of means",
        "Error bars: 95% CI of the mean (Student's t); 3 runs per point.",
        // Peaks are named in the legend, where they cannot cover a line.
        "Bare metal (peak at 64 KiB)",
    ] {
        assert!(text.contains(needle), "the paper lacks `{needle}`:\n{text}");
    }
    for web_only in ["Dashboard", "as CSV", "Data behind", "Download"] {
        assert!(!text.contains(web_only), "web-only text `{web_only}` reached the paper");
    }
    // Two-up: Figures 1 and 2 share a line of the layout (pdftotext keeps it).
    assert!(
        raw.lines().any(|l| l.contains("Figure 1.") && l.contains("Figure 2.")),
        "Figures 1 and 2 are not side by side:\n{raw}"
    );
}
