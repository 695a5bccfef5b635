//! Words a reader takes literally, alike on the card, in Table 1, in prose,
//! in stats.json and in the paper: a change of a time as a ratio of speeds
//! (`2.17× as fast`) or in time (`53.9% less time`), never `53.9% faster`;
//! a rate in its own words (`2.4% faster`); every interval in the words of
//! its difference.

use crate::common::{pdftotext, stats_json, tool, written_study};

const BOOK: &str = r#"
[book]
title = "Words"
date = "2026-12-01"

[study]
baseline = "a"

[environments.a]
label = "Old"

[environments.b]
label = "New"

[data.runs.labels]
time_s = { name = "run time", unit = "s", higher = "slower", lower = "faster" }
wall_s = { name = "wall time", unit = "s" }
tps = { name = "throughput", unit = "items/s", higher = "faster", lower = "slower" }

[[metrics]]
name = "time"
label = "Run time"
data = "runs"
value = "time_s"
compare = "relative"
better = "lower"
headline = true

[[metrics]]
name = "wall"
label = "Wall time"
data = "runs"
value = "wall_s"
compare = "relative"
better = "lower"
headline = true

[[metrics]]
name = "rate"
label = "Throughput"
data = "runs"
value = "tps"
compare = "slowdown"
better = "lower"
headline = true
"#;

/// Means by hand: times 1.0 (old) and 0.461 (new), 53.9% less time, so
/// 1 / 0.461 = 2.17× as fast; throughputs 100 and 102.4, a slowdown of
/// 1 − 102.4 / 100 = −2.4%: 2.4% faster.
const RUNS: &str = "environment,run,time_s,wall_s,tps\n\
    a,1,0.99,0.99,99.9\na,2,1.00,1.00,100\na,3,1.01,1.01,100.1\n\
    b,1,0.450,0.450,102.4\nb,2,0.461,0.461,102.5\nb,3,0.472,0.472,102.3\n";

const PAGE: &str = "# Results\n\n\
    The new build took {{ stat(name=\"wall\", field=\"words\") }} and was \
    {{ stat(name=\"time\", field=\"words\") }} (95% CI {{ stat(name=\"time\", field=\"interval\") }}); \
    its throughput was {{ stat(name=\"rate\", field=\"words\") }} \
    ({{ stat(name=\"rate\", field=\"interval\") }}).\n";

/// A metric of stats.json by name.
fn metric<'a>(stats: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    stats["metrics"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap()
}

/// A page's text without its tags, spaces collapsed.
fn text_of(html: &str) -> String {
    let mut out = String::new();
    let mut tag = false;
    for c in html.chars() {
        match c {
            '<' => tag = true,
            '>' => (tag, out) = (false, out + " "),
            c if !tag => out.push(c),
            _ => {}
        }
    }
    out.replace('\u{a0}', " ").split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The words and intervals of the three metrics, computed by hand from
/// their means and stats.json's interval ends (which the scipy oracle
/// checks elsewhere): the ratio of speeds 1 / (1 + change), a time's change
/// in percent, a slowdown's negation.
fn expected(stats: &serde_json::Value) -> [(String, String); 3] {
    let ci = |name: &str| {
        let m = metric(stats, name);
        [m["ci"][0].as_f64().unwrap(), m["ci"][1].as_f64().unwrap()]
    };
    let [lo, hi] = ci("time");
    let time = (
        "2.17× as fast".to_string(),
        format!("{:.2}× to {:.2}× as fast", 1.0 / (1.0 + hi), 1.0 / (1.0 + lo)),
    );
    let [lo, hi] = ci("wall");
    let wall = (
        "53.9% less time".to_string(),
        format!("{:.1} to {:.1}% less time", -100.0 * hi, -100.0 * lo),
    );
    let [lo, hi] = ci("rate");
    let rate =
        ("2.4% faster".to_string(), format!("{:.1} to {:.1}% faster", -100.0 * hi, -100.0 * lo));
    [time, wall, rate]
}

/// stats.json, the cards, Table 1, the prose and the paper say the same
/// words, and each interval is in its difference's words: no time is
/// "X% faster", and no signed interval sits beside words.
#[test]
fn a_time_reads_as_speed_or_time_everywhere() {
    let dir = written_study(BOOK, &[("runs.csv", RUNS)], PAGE);
    let stats = stats_json(dir.path());
    let expected = expected(&stats);
    for (name, (words, interval)) in ["time", "wall", "rate"].iter().zip(&expected) {
        let text = &metric(&stats, name)["text"];
        assert_eq!(
            (text["words"].as_str(), text["interval"].as_str()),
            (Some(words.as_str()), Some(interval.as_str())),
            "{name}"
        );
    }
    let html = std::fs::read_to_string(dir.path().join("site/index.html")).unwrap();
    let page = text_of(&html);
    let [time, wall, rate] = &expected;
    let prose = format!(
        "The new build took {} and was {} (95% CI {}); its throughput was {} ({}).",
        wall.0, time.0, time.1, rate.0, rate.1
    );
    assert!(page.contains(&prose), "the prose: {prose}\n{page}");
    for (label, (words, interval)) in ["Run time", "Wall time", "Throughput"].iter().zip(&expected)
    {
        // The card: label, words, verdict, then the interval in words.
        let card = format!("{label} {words} ");
        assert!(page.contains(&card), "card {card}: {page}");
        assert!(page.contains(&format!("95% CI {interval} ·")), "card's CI {interval}: {page}");
        // Table 1: the row's difference and its interval, in the same words
        // (after the label and its mark, if any).
        let row = format!("{words} {interval} 3 ");
        assert!(page.contains(&row), "Table 1 row {row}: {page}");
    }
    assert!(!page.contains("53.9% faster") && !page.contains("\u{2212}4.0 to"), "{page}");
    if !tool("pdftotext", &["-v"]) {
        return;
    }
    let paper = pdftotext(&dir.path().join("site/paper.pdf"));
    let paper = paper.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(paper.contains(&prose), "the paper's prose: {prose}\n{paper}");
    for (words, interval) in &expected {
        assert!(
            paper.contains(words.as_str()) && paper.contains(interval.as_str()),
            "{words}, {interval}: {paper}"
        );
    }
}

/// scipy's test of the difference between two estimates, each a value
/// (`relative`: 1 + value) with its 95% interval, read from two stats.json
/// files on standard input: the ratio after ÷ before, its interval and p.
const SCIPY_BETWEEN: &str = r#"
import json, math, sys
from scipy.stats import norm
old, new = json.loads(sys.stdin.read())
z = norm.isf(0.025)
def ratio(m):
    return 1 + m["value"], [1 + m["ci"][0], 1 + m["ci"][1]]
(b, bci), (a, aci) = ratio(old), ratio(new)
se = math.hypot(math.log(bci[1] / bci[0]) / (2 * z), math.log(aci[1] / aci[0]) / (2 * z))
d = math.log(a / b)
print(json.dumps([math.exp(d), math.exp(d - z * se), math.exp(d + z * se), 2 * norm.sf(abs(d) / se)]))
"#;

/// `report diff` tests a move by the ratio of the two estimates, as scipy
/// computes it from the two stats.json files; the new build's run times
/// are 0.8 times the old, so after ÷ before is 0.8 by hand, significant.
#[test]
fn diff_tests_the_difference_as_scipy_does() {
    let Some(python) = crate::common::python() else { return };
    let scipy = std::process::Command::new(python).args(["-c", "import scipy"]).output();
    if !scipy.is_ok_and(|o| o.status.success()) {
        eprintln!("SKIPPED: scipy is not installed");
        assert!(std::env::var_os("REPORT_REQUIRE_TOOLS").is_none(), "scipy is required");
        return;
    }
    let dir = written_study(BOOK, &[("runs.csv", RUNS)], PAGE);
    let old = stats_json(dir.path());
    std::fs::write(dir.path().join("old.json"), old.to_string()).unwrap();
    let faster = RUNS
        .lines()
        .map(|line| match line.split(',').collect::<Vec<_>>()[..] {
            ["b", run, t, w, tps] => {
                let t = t.parse::<f64>().unwrap() * 0.8;
                format!("b,{run},{t},{w},{tps}")
            }
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(dir.path().join("results/runs.csv"), faster + "\n").unwrap();
    let new = stats_json(dir.path());
    let old_path = dir.path().join("old.json");
    let new_path = dir.path().join("site/data/stats.json");
    let args = ["diff", old_path.to_str().unwrap(), new_path.to_str().unwrap()];
    let output = crate::common::report_with(dir.path(), &args, "json");
    let changes: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let change = changes.as_array().unwrap().iter().find(|c| c["name"] == "time").unwrap();
    let input = serde_json::json!([metric(&old, "time"), metric(&new, "time")]).to_string();
    let oracle: [f64; 4] =
        serde_json::from_str(&crate::common::python_output(python, SCIPY_BETWEEN, &input)).unwrap();
    let test = &change["test"];
    let got = [&test["estimate"], &test["ci"][0], &test["ci"][1], &test["p"]]
        .map(|v| v.as_f64().unwrap());
    for (g, o) in got.iter().zip(oracle) {
        assert!((g - o).abs() <= 1e-9 * o.abs().max(1e-300), "{got:?} against scipy's {oracle:?}");
    }
    assert!((got[0] - 0.8).abs() < 1e-12, "{got:?}");
    assert_eq!(test["significant"], oracle[2] < 1.0);
    let text = change["text"].as_str().unwrap();
    let words = format!("(after ÷ before ×0.800, 95% CI ×{:.3} to ×{:.3}, ", oracle[1], oracle[2]);
    assert!(text.contains(&words), "{text}: {words}");
    assert!(!text.contains("overlap"), "{text}");
}
