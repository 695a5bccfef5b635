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
        "Metric Difference 95% CI n p",
        "Network overhead 2.4% faster \u{2212}4.0 to \u{2212}0.8%",
        // What each chart's error bars are, computed per chart.
        "No error bars: each point is a ratio of means",
        "Error bars: 95% CI of the mean (Student\u{2019}s t); 3 runs per point.",
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
/// ends of the intervals end at one x, every "to" starts at one x, and the
/// upper ends with as many decimals end at one x. Set as one right-aligned
/// text per interval (as before), "+5.2 to +12.5%" and "\u{2212}4.0 to \u{2212}0.8%"
/// put their "to" and lower ends at different x.
#[test]
fn the_headline_table_aligns_on_the_decimal_point() {
    if !tool("pdftotext", &["-v"]) {
        return;
    }
    let out = std::process::Command::new("pdftotext")
        .args(["-bbox", "-f", "1", "-l", "1"])
        .arg(built_shipped_study().join("site/paper.pdf"))
        .arg("-")
        .output()
        .unwrap();
    let words = bbox_words(&String::from_utf8_lossy(&out.stdout));
    let table = words.iter().position(|w| w.3 == "Metric").expect("the headline table");
    let words = &words[table..];
    let (mut lows, mut tos, mut highs) =
        (Vec::new(), Vec::new(), std::collections::BTreeMap::new());
    for to in words.iter().filter(|w| w.3 == "to") {
        let line = || words.iter().filter(|w| (w.0 - to.0).abs() < 0.5 && w.3.contains('.'));
        let low = line().filter(|w| w.2 < to.1).max_by(|a, b| a.2.total_cmp(&b.2));
        let high = line().filter(|w| w.1 > to.2).min_by(|a, b| a.1.total_cmp(&b.1));
        if let (Some(low), Some(high)) = (low, high) {
            lows.push(low.2);
            tos.push(to.1);
            let decimals = high.3.split('.').nth(1).unwrap_or_default().chars().count();
            highs.entry(decimals).or_insert_with(Vec::new).push(high.2);
        }
    }
    assert!(lows.len() >= 3, "the table needs three intervals to check: {lows:?}");
    let spread = |v: &[f64]| {
        v.iter().cloned().fold(f64::MIN, f64::max) - v.iter().cloned().fold(f64::MAX, f64::min)
    };
    assert!(spread(&lows) < 0.5, "lower CI ends do not line up: {lows:?}");
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
