//! Hostile text in every field that reaches an output (environment names and
//! labels, CSV values, titles, metric labels, chart captions, prose) is escaped
//! in the HTML, the SVG and the Typst: it shows as written and never runs.

use std::fs;

use crate::common;
use common::*;
use proptest::prelude::*;

const EVIL: &str = "<script>alert(1)</script> #sys.inputs";

#[test]
fn hostile_text_is_shown_never_run() {
    let study = fixture("minimal");
    let root = study.path();
    let env = "<script>alert(1)</script>";
    let csv = fs::read_to_string(root.join("results/runs.csv"))
        .unwrap()
        .replace("cand,", &format!("{env},"));
    fs::write(root.join("results/runs.csv"), csv).unwrap();
    let book = fs::read_to_string(root.join("book.toml"))
        .unwrap()
        .replace(
            "title = \"Minimal study\"",
            &format!("title = \"{EVIL}\"\nsubtitle = \"{EVIL}\"\ntools = [\"{EVIL}\"]"),
        )
        .replace(
            "[environments.cand]\nlabel = \"Candidate\"",
            &format!("[environments.\"{env}\"]\nlabel = \"{EVIL}\"\ndescription = \"{EVIL}\""),
        )
        .replace(
            "label = \"Time at 2 processes\"",
            &format!("label = \"{EVIL}\"\ndefinition = \"{EVIL}\""),
        );
    fs::write(root.join("book.toml"), book).unwrap();
    let content = format!(
        "# {EVIL}\n\nProse {EVIL} {{{{ stat(name=\"speed\", field=\"label\") }}}}.\n\n<script>alert(2)</script>\n\n```environments\n```\n\n\
         ```chart\nid = \"c\"\nkind = \"line\"\ndata = \"runs\"\nx = \"procs\"\ny = \"time_s\"\ntitle = \"{EVIL}\"\ncaption = \"{EVIL}\"\nx-label = \"{EVIL}\"\n```\n"
    );
    fs::write(root.join("content/index.md"), content).unwrap();
    let output = report(root, &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));

    let html = fs::read_to_string(root.join("site/index.html")).unwrap();
    assert!(!html.contains("<script>alert"), "a script reached the page:\n{html}");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;"), "the text is shown escaped");
    let svg = fs::read_to_string(root.join("site/charts/c.svg")).unwrap();
    assert!(!svg.contains("<script"), "{svg}");
    assert!(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt; #sys.inputs"), "{svg}");
    if tool("pdftotext", &["-v"]) {
        let text = pdftotext(&root.join("site/paper.pdf"));
        assert!(
            text.matches("<script>alert(1)</script> #sys.inputs").count() >= 3,
            "shown as written in the paper:\n{text}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: common::regressions("injection"), ..ProptestConfig::default() })]

    /// Escaping for HTML and SVG round-trips: decoding the five entities gives back the text.
    #[test]
    fn html_escaping_round_trips(text in "\\PC*") {
        let escaped = report::charts::svg::escape(&text);
        prop_assert!(!escaped.contains('<') && !escaped.contains('>') && !escaped.contains('"'));
        let decoded = escaped.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'").replace("&amp;", "&");
        prop_assert_eq!(decoded, text);
    }

    /// The statistics do not depend on the order of the rows.
    #[test]
    fn statistics_are_invariant_to_row_order(values in prop::collection::vec(0.001f64..1e6, 2..40), seed in any::<u64>()) {
        use report::analysis::statistics::stats::{Summary, ratio, welch};
        let mut shuffled = values.clone();
        let mut state = seed | 1;
        for i in (1..shuffled.len()).rev() {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17;
            shuffled.swap(i, (state % (i as u64 + 1)) as usize);
        }
        let (a, b) = (Summary::of(&values).unwrap(), Summary::of(&shuffled).unwrap());
        let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * (1.0 + x.abs());
        prop_assert_eq!(a.n, b.n);
        prop_assert!(close(a.mean, b.mean) && close(a.median, b.median) && close(a.sd.unwrap(), b.sd.unwrap()));
        let other = Summary::of(&values.iter().map(|v| v * 1.1).collect::<Vec<_>>()).unwrap();
        prop_assert!(close(ratio(&other, &a).value, ratio(&other, &b).value));
        if let (Some(x), Some(y)) = (welch(&other, &a), welch(&other, &b)) {
            prop_assert!(close(x.p, y.p));
        }
    }
}
