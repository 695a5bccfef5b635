//! Verdicts on real data: the flux-usernetes runs of Sochat, Fox and Milroy
//! (arXiv:2406.06995) in ../shared/fixtures/, imported and built, and every
//! statistic checked against scipy (tests/independent_stats.py).
//!
//! - LAMMPS at 256 ranks: one bare-metal run took 65.19 s against about
//!   24.7 s for the other 19. It must be named, and the mean and the median
//!   must be reported as disagreeing.
//! - OSU allreduce at 512 ranks, 4 bytes: one 5,333 µs run among 19 of
//!   164–234 µs on Usernetes, 100–105 µs on bare metal. Every Usernetes run is
//!   slower than every bare-metal run: the interval may not reach −100% and
//!   the verdict must be "significant".

use std::fs;
use std::path::PathBuf;

use crate::common;
use crate::stats_oracle;
use common::*;
use serde_json::Value;

/// The flux-usernetes fixtures, or `None` (with a message) when absent.
fn flux() -> Option<PathBuf> {
    shared_fixtures().map(|f| f.join("flux-usernetes"))
}

const BOOK: &str = r#"
[book]
title = "Bare metal and Usernetes"
[study]
baseline = "bare-metal"
[environments.bare-metal]
label = "Bare metal"
[environments.usernetes]
label = "Usernetes"
"#;

fn study(book: &str) -> tempfile::TempDir {
    written_study(&format!("{BOOK}{book}"), &[], CAVEATS_PAGE)
}

fn metric<'a>(stats: &'a Value, name: &str) -> &'a Value {
    stats["metrics"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap()
}

fn caveats(stats: &Value, kind: &str) -> Vec<String> {
    let all = stats["caveats"].as_array().unwrap();
    all.iter()
        .filter(|c| c["kind"] == kind)
        .map(|c| c["text"].as_str().unwrap().to_string())
        .collect()
}

/// Two metrics of the 256-rank loop time, by the mean and by the median.
const LAMMPS_256: &str = r#"
[data.lammps]
key = ["environment", "procs", "run"]
group-by = ["procs"]

[[metrics]]
name = "loop_256"
label = "Loop time at 256 ranks"
data = "lammps"
value = "loop_time_s"
where = { procs = 256 }
better = "lower"

[[metrics]]
name = "loop_256_median"
label = "Loop time at 256 ranks, by the median"
data = "lammps"
value = "loop_time_s"
where = { procs = 256 }
estimator = "median"
better = "lower"

[[metrics]]
name = "loop_avg"
label = "Loop time, 64 to 512 ranks"
data = "lammps"
value = "loop_time_s"
per = "procs"
better = "lower"
"#;

#[test]
fn the_lammps_outlier_is_named_and_mean_and_median_disagree() {
    let Some(flux) = flux() else { return };
    let dir = study(LAMMPS_256);
    let logs = flux.join("lammps");
    let output = report(
        dir.path(),
        &[
            "import",
            "lammps",
            "--pattern",
            "{env}/lammps-{nodes}-{procs}-{run}.out",
            logs.to_str().unwrap(),
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    // Usernetes files are the user-space Kubernetes runs.
    let csv = fs::read_to_string(dir.path().join("results/lammps.csv")).unwrap();
    assert_eq!(csv.lines().count(), 161);
    let stats = stats_oracle::checked_stats(dir.path());
    // The 65.19 s run, by name.
    let id = "lammps/loop_time_s/bare-metal/procs=256";
    let group = stats["groups"].as_array().unwrap().iter().find(|g| g["id"] == id).unwrap();
    let outliers = group["summary"]["robust"]["outliers"].as_array().unwrap();
    let slow =
        outliers.iter().find(|o| o["value"] == 65.1943).expect("the 65.19 s run is an outlier");
    assert_eq!((slow["run"].as_str(), slow["severe"].as_bool()), (Some("run = 1"), Some(true)));
    assert!(
        caveats(&stats, "outliers")
            .iter()
            .any(|t| t.contains("procs = 256 (n = 20): ") && t.contains("run 1 (65.19)")),
        "{:?}",
        caveats(&stats, "outliers")
    );
    // Shapiro–Wilk rejects normality of that group (one 65 s run among
    // ~24.7 s ones), and the caveat says so with W and p.
    let normality = &group["summary"]["robust"]["normality"];
    assert!(normality["p"].as_f64().unwrap() < 0.001, "{normality}");
    let not_normal = caveats(&stats, "not-normal");
    assert_eq!(not_normal.len(), 1, "one caveat per column: {not_normal:?}");
    assert!(
        not_normal[0].contains("not normally distributed (Shapiro–Wilk, 5%)")
            && not_normal[0].contains("Bare metal at procs = 256 (W = "),
        "{not_normal:?}"
    );
    // By the mean Usernetes is faster, by the median slower (scipy: the
    // ratio of means −2.43%, the Hodges–Lehmann ratio above 0).
    let (mean, median) = (metric(&stats, "loop_256"), metric(&stats, "loop_256_median"));
    assert!(mean["value"].as_f64().unwrap() < 0.0 && median["value"].as_f64().unwrap() > 0.0);
    assert!((mean["value"].as_f64().unwrap() - -0.0243).abs() < 5e-4, "{}", mean["value"]);
    assert!(!caveats(&stats, "estimators-disagree").is_empty());
    // n = 20: the median's interval is distribution-free, from order statistics.
    assert!(!group["summary"]["robust"]["median_ci"].is_null());
}

#[test]
fn the_allreduce_outlier_keeps_a_ratio_above_minus_100_percent() {
    let Some(flux) = flux() else { return };
    let dir = study(
        r#"
[data.osu_allreduce]
key = ["environment", "size_bytes", "run"]
group-by = ["size_bytes"]

[[metrics]]
name = "allreduce_4"
label = "Allreduce latency at 512 ranks, 4 bytes"
data = "osu_allreduce"
value = "latency_us"
better = "lower"

[[metrics]]
name = "allreduce_4_median"
label = "Allreduce latency at 512 ranks, 4 bytes, by the median"
data = "osu_allreduce"
value = "latency_us"
estimator = "median"
better = "lower"
"#,
    );
    // The authors' table of every allreduce run: 512 ranks, 4 bytes.
    let table = fs::read_to_string(flux.join("authors-tables/osu-results-all_reduce.csv")).unwrap();
    let mut csv = String::from("environment,nodes,procs,run,size_bytes,latency_us\n");
    for line in table.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f[1] == "512" && f[4] == "4.0" && (f[2] == "bare-metal" || f[2] == "usernetes") {
            csv.push_str(&format!("{},{},512,{},4,{}\n", f[2], f[6], f[3], f[5]));
        }
    }
    assert_eq!(csv.lines().count(), 41);
    fs::write(dir.path().join("results/osu_allreduce.csv"), csv).unwrap();
    let stats = stats_oracle::checked_stats(dir.path());
    let m = metric(&stats, "allreduce_4");
    let ci = m["ci"].as_array().unwrap();
    assert!(ci[0].as_f64().unwrap() > -1.0, "{ci:?}");
    assert_eq!(m["significant"], true);
    assert!(m["p_value"].as_f64().unwrap() < 0.05);
    // Every run apart: the exact rank test's p is 2 / C(40, 20) (hand arithmetic).
    let rank = m["rank"]["p"].as_f64().unwrap();
    assert!((rank / (2.0 / 137_846_528_820.0) - 1.0).abs() < 1e-9, "{rank}");
    let median = metric(&stats, "allreduce_4_median");
    assert_eq!(median["significant"], true);
    assert!(
        caveats(&stats, "outliers")
            .iter()
            .any(|t| t.contains("Beyond 3 IQR (severe)") && t.contains(" (5333)"))
    );
}
