//! The shipped paper laid out as a paper (issue 20): figures two-up with
//! bold, left-aligned "Figure N." captions that say what each chart's error
//! bars are, the headline table as Metric | Difference | 95% CI | n | p with
//! true minus signs and numbers aligned on their decimal points, and no text meant
//! for the web page only.

use crate::common;
use common::*;

#[test]
fn the_paper_keeps_to_the_paper() {
    if !tool("pdftotext", &["-v"]) {
        return;
    }
    let raw = pdftotext(&built_shipped_study().join("site/paper.pdf"));
    let text = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    for needle in [
        // The headline table: one column each, the difference in words, the
        // interval with true minus signs.
        // Reconstructed runs give neither interval, runs nor p-value.
        "Metric Difference",
        "Network overhead (published) 2.4% lower",
        // What each chart's error bars are, computed per chart.
        "No error bars: the runs are reconstructed",
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

/// The headline table's CI columns line up on the decimal point: the lower
/// ends with as many decimals (and words: `0.8`, `4.0%`) end at one x,
/// every "to" starts at one x, and the upper ends with as many decimals end
/// at one x. Set as one right-aligned
/// text per interval (as before), "+5.2 to +12.5%" and "\u{2212}4.0 to \u{2212}0.8%"
/// put their "to" and lower ends at different x.
#[test]
fn the_headline_table_aligns_on_the_decimal_point() {
    if !tool("pdftotext", &["-v"]) {
        return;
    }
    // The study of measured runs: the top-level study's reconstructed runs
    // give no intervals.
    let (_built, papers) = shipped_papers();
    // Table 1 sits in the Results, on whichever page they start.
    let page = |n: usize| {
        let n = n.to_string();
        let out = std::process::Command::new("pdftotext")
            .args(["-bbox", "-f", &n, "-l", &n])
            .arg(&papers[1])
            .arg("-")
            .output()
            .unwrap();
        bbox_words(&String::from_utf8_lossy(&out.stdout))
    };
    let words = (1..=8).map(page).find(|w| w.iter().any(|w| w.3 == "Metric")).unwrap_or_default();
    let table = words.iter().position(|w| w.3 == "Metric").expect("the headline table");
    // The table's words: from its header on, the lines of a row (a metric
    // and its numbers, at most 14 words), not the prose set after it on
    // the same page (longer lines).
    let words = &words[table..];
    let count = |y: f64| words.iter().filter(|w| (w.0 - y).abs() < 0.5).count();
    let words: Vec<_> = words.iter().filter(|w| count(w.0) <= 14).cloned().collect();
    let (mut lows, mut tos, mut highs) =
        (std::collections::BTreeMap::new(), Vec::new(), std::collections::BTreeMap::new());
    for to in words.iter().filter(|w| w.3 == "to") {
        let line = || words.iter().filter(|w| (w.0 - to.0).abs() < 0.5 && w.3.contains('.'));
        let low = line().filter(|w| w.2 < to.1).max_by(|a, b| a.2.total_cmp(&b.2));
        let high = line().filter(|w| w.1 > to.2).min_by(|a, b| a.1.total_cmp(&b.1));
        if let (Some(low), Some(high)) = (low, high) {
            let decimals = low.3.split('.').nth(1).unwrap_or_default().chars().count();
            lows.entry(decimals).or_insert_with(Vec::new).push(low.2);
            tos.push(to.1);
            let decimals = high.3.split('.').nth(1).unwrap_or_default().chars().count();
            highs.entry(decimals).or_insert_with(Vec::new).push(high.2);
        }
    }
    assert!(tos.len() >= 3, "the table needs three intervals to check: {lows:?}");
    let spread = |v: &[f64]| {
        v.iter().cloned().fold(f64::MIN, f64::max) - v.iter().cloned().fold(f64::MAX, f64::min)
    };
    for group in lows.values() {
        assert!(spread(group) < 0.5, "lower CI ends do not line up: {lows:?}");
    }
    assert!(spread(&tos) < 0.5, "the intervals' \"to\" do not line up: {tos:?}");
    for group in highs.values() {
        assert!(spread(group) < 0.5, "upper CI ends do not line up: {highs:?}");
    }
}

/// (yMin, xMin, xMax, text) of every word of `pdftotext -bbox` output.
fn bbox_words(xml: &str) -> Vec<(f64, f64, f64, String)> {
    xml.lines()
        .filter_map(|l| {
            let attr = |name: &str| -> Option<f64> {
                let at = l.find(&format!("{name}=\""))? + name.len() + 2;
                l[at..].split('"').next()?.parse().ok()
            };
            let text = l.split('>').nth(1)?.split('<').next()?.to_string();
            Some((attr("yMin")?, attr("xMin")?, attr("xMax")?, text))
        })
        .collect()
}

/// The words of `pdf` as `pdftotext -bbox` reads them: (page from 0, yMin,
/// page height, text).
fn paged_words(pdf: &std::path::Path) -> Vec<(usize, f64, f64, String)> {
    let out =
        std::process::Command::new("pdftotext").arg("-bbox").arg(pdf).arg("-").output().unwrap();
    let xml = String::from_utf8_lossy(&out.stdout).into_owned();
    let (mut pages, mut height, mut words) = (0usize, 0.0, Vec::new());
    for line in xml.lines() {
        let attr = |name: &str| -> Option<f64> {
            let at = line.find(&format!("{name}=\""))? + name.len() + 2;
            line[at..].split('"').next()?.parse().ok()
        };
        if line.trim_start().starts_with("<page ") {
            pages += 1;
            height = attr("height").unwrap_or(842.0);
        } else if let (Some(y), Some(text)) =
            (attr("yMin"), line.split('>').nth(1).and_then(|t| t.split('<').next()))
        {
            words.push((pages.saturating_sub(1), y, height, text.to_string()));
        }
    }
    words
}

/// Both shipped papers, built: the top-level study's and examples/usernetes'
/// (in the folder returned with them).
fn shipped_papers() -> (tempfile::TempDir, Vec<std::path::PathBuf>) {
    let usernetes = tempfile::tempdir().unwrap();
    let out = usernetes.path().join("site");
    let output =
        report(&repo().join("examples/usernetes"), &["build", "--out", out.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    (usernetes, vec![built_shipped_study().join("site/paper.pdf"), out.join("paper.pdf")])
}

/// Issue 30: the Limitations of each shipped paper take at most one page,
/// from their heading to the next one (Data availability).
#[test]
fn the_limitations_take_at_most_a_page() {
    if !tool("pdftotext", &["-v"]) {
        return;
    }
    let (_built, papers) = shipped_papers();
    for pdf in papers {
        let words = paged_words(&pdf);
        let at = |word: &str| {
            words.iter().rposition(|w| w.3 == word).unwrap_or_else(|| panic!("{word} in {pdf:?}"))
        };
        let (start, end) = (&words[at("Limitations")], &words[at("availability")]);
        // The distance down the pages, in points, against one page's height.
        let distance = (end.0 - start.0) as f64 * start.2 + end.1 - start.1;
        assert!(
            distance <= start.2,
            "{pdf:?}: Limitations run {distance:.0} pt, over a page of {:.0}",
            start.2
        );
    }
}

/// Issue 30: numbers read alike in the paper: none carries a hyphen-minus
/// ("-2.4%"), and no raw column id of the data ("size_bytes", "procs = 32")
/// appears in its text before the appendix of diagnostics.
#[test]
fn the_papers_numbers_have_minus_signs_and_no_column_ids() {
    if !tool("pdftotext", &["-v"]) {
        return;
    }
    let hyphen = regex::Regex::new(r"(^|[\s(\[=:;,])-\d").unwrap();
    let id = regex::Regex::new(r"\b[a-z]+_[a-z_]+\b|\b(procs|nodes|run|steps|atoms) = \d").unwrap();
    let (_built, papers) = shipped_papers();
    for pdf in papers {
        let text = pdftotext(&pdf);
        let body = text.split("\nA Diagnostics").next().unwrap();
        if let Some(m) = hyphen.find(&text) {
            panic!(
                "{pdf:?}: a number with a hyphen-minus: {:?}",
                &text[m.start().saturating_sub(40)..m.end() + 20]
            );
        }
        // A file name such as data/stats.json or results/README.md is no column id.
        // The note on reconstructed data names its tables (and the script
        // that made them) as files are named.
        let prose = body.replace("stats.json", "").replace("README.md", "");
        let prose =
            prose.replace("osu_bw", "").replace("osu_latency", "").replace("reconstruct.py", "");
        if let Some(m) = id.find(&prose) {
            panic!(
                "{pdf:?}: a column id in the prose: {:?}",
                &prose[m.start().saturating_sub(40)..m.end() + 20]
            );
        }
    }
}
