//! The shipped study's statistics against an independent computation with
//! scipy (tests/independent_stats.py), which reads book.toml and the CSVs on
//! its own: every metric, group and comparison of stats.json.

use crate::common;
use crate::stats_oracle;
use common::*;

#[test]
fn statistics_match_scipy() {
    if !stats_oracle::scipy() {
        return;
    }
    // Its runs as if measured: from reconstructed runs no interval or
    // p-value is drawn, and these are what scipy checks.
    let study = shipped_study();
    let root = study.path();
    as_measured(root);
    let stats = stats_json(root);
    let checked = stats_oracle::check(&stats, &stats_oracle::expected(root));
    // 12 metrics; 3 files' columns × environments × configurations.
    assert_eq!(checked[0], 12);
    assert!(checked[1] > 100 && checked[2] > 50, "{checked:?}");
    // The published figures under book.toml's definitions.
    let text = |name: &str, field: &str| {
        let m = stats["metrics"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap();
        m["text"][field].as_str().unwrap().to_string()
    };
    assert_eq!(text("throughput_32", "value"), "+8.8%");
    assert_eq!(text("slowdown_avg", "value"), "+7.6%");
    assert_eq!(text("network_overhead", "value"), "−2.4%".replace('−', &minus()));
    assert_eq!(text("cost_32", "value"), "−6.9%".replace('−', &minus()));
    // The average over exactly these five process counts combines each
    // count's own standard error (scipy: Welch's SE of each log ratio
    // times its ratio, sqrt(Σ SE²) / 5, Welch–Satterthwaite df 17.58):
    // +6.5 to +8.7%, p = 2.9e-11, significant, with a change of sign.
    // Generalised to other counts it was −4.0 to +19.3%, not significant.
    assert_eq!(text("slowdown_avg", "significance"), "statistically significant");
    assert!(text("slowdown_avg", "full").contains("5 configurations × 3 runs"));
    assert!(
        text("slowdown_avg", "full").contains("+6.5 to +8.7%"),
        "{}",
        text("slowdown_avg", "full")
    );
    assert!(text("slowdown_avg", "scope").starts_with("An average over exactly these 5"));
}

/// The minus sign the formatting uses.
fn minus() -> String {
    report::format::signed(-1.0, 0).trim_end_matches('1').to_string()
}
