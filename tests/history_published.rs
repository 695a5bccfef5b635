//! A history's change points as published claims (docs/history.md): `report
//! diff` on a pull request whose runs reveal a change, and every output of
//! a history byte-identical on two builds.

use crate::common::*;
use crate::history::{WORKED, gaps_book, gaps_csv, git, history_book};

/// Four more runs on each side of the worked example's step (v1 to v3
/// below 10.3, v4 to v6 above 10.9; no value twice).
const MORE_RUNS: &str = "v1,1,10.15\nv2,2,10.02\nv3,3,10.25\nv1,1,9.95\n\
                         v4,4,11.15\nv5,5,11.02\nv6,6,11.25\nv4,4,10.95\n";

/// A pull request that adds runs to the worked example of docs/history.md:
/// before it, 6 runs a side cannot reach p ≤ 0.001 (inconclusive, "needs 4
/// more runs"); with 4 more a side, every run after v4 is above every run
/// before, so the exact p is 2 / C(20, 10) = 1.08 × 10⁻⁵ (scipy's
/// `mannwhitneyu(method="exact")` agrees), and the Hodges–Lehmann shift,
/// the geometric mean of the 50th and 51st of the 100 ratios (11.1/10.1 and
/// 11.05/10.05, by numpy), is +9.93% (95% CI +8.5% to +11.3%, below). `report diff --against HEAD` says the
/// change is new, in the page's words; the other way round, that it is gone.
#[test]
#[allow(clippy::disallowed_methods)] // inputs and hand values: the system's own functions
fn a_pull_request_whose_runs_reveal_a_change_says_so() {
    if !tool("git", &["--version"]) {
        return;
    }
    let study = written_study(&history_book(""), &[("runs.csv", WORKED)], "# H\n");
    let root = study.path();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-qm", "six runs a side"]);
    let before = stats_json(root);
    let undecided = &before["history"]["text"][0]["inconclusive"][0];
    assert!(undecided.as_str().unwrap().contains("needs 4 more runs on each side"), "{undecided}");
    std::fs::write(root.join("results/runs.csv"), format!("{WORKED}{MORE_RUNS}")).unwrap();
    let output = report(root, &["diff", "--against", "HEAD"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let out = String::from_utf8_lossy(&output.stdout);
    let want = "Time_s changed by +9.9% (95% CI +8.5% to +11.3%)";
    let line = out.lines().find(|l| l.contains(want)).unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains(": new, "), "{line}");
    for part in [
        "from version v4, a regression",
        "10 runs over 3 versions before against 10 over 3 after",
        "p < 0.001 (Holm)",
    ] {
        assert!(line.contains(part), "{part} not in {line}");
    }
    let after = stats_json(root);
    let change = &after["history"]["series"][0]["changes"][0];
    assert!((change["p"].as_f64().unwrap() - 2.0 / 184_756.0).abs() < 1e-15, "{change}");
    let shift = ((11.1f64 / 10.1).ln() / 2.0 + (11.05f64 / 10.05).ln() / 2.0).exp_m1();
    assert!((change["shift"].as_f64().unwrap() - shift).abs() < 1e-12, "{change}");
    // The 95% interval: P(U ≤ 23) ≤ 0.025 < P(U ≤ 24) for 10 and 10 runs
    // (counted by hand's recursion in Python), so from the 24th to the 77th
    // of the 100 ratios: 10.9/10.05 and 11.3/10.15 (by numpy).
    let ci = change["ci"].as_array().unwrap();
    assert!((ci[0].as_f64().unwrap() - (10.9 / 10.05 - 1.0)).abs() < 1e-12, "{change}");
    assert!((ci[1].as_f64().unwrap() - (11.3 / 10.15 - 1.0)).abs() < 1e-12, "{change}");
    // The other way round: the change found at HEAD is gone.
    let a = root.join("after.json");
    let b = root.join("before.json");
    std::fs::write(&a, after.to_string()).unwrap();
    std::fs::write(&b, before.to_string()).unwrap();
    let output = report(root, &["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(out.contains("removed (was Time_s changed by +9.9%"), "{out}");
}

/// A history with a gap, an environment column and an acknowledgement,
/// drawn and tabulated, built twice in two processes: every file, the
/// paper included, is byte-identical.
#[test]
fn a_history_builds_byte_identical_twice() {
    let page = "# H\n\n{{ history() }}\n\n```chart\nid = \"history\"\nkind = \"history\"\n\
                data = \"runs\"\ny = \"time_s\"\n```\n\n```changes\nid = \"changes\"\ncaption = \"C\"\n```\n";
    let study = written_study(&gaps_book(), &[("runs.csv", &gaps_csv())], page);
    let (first, second) = (study.path().join("a"), study.path().join("b"));
    for out in [&first, &second] {
        let output = report(study.path(), &["build", "--out", out.to_str().unwrap()]);
        assert!(output.status.success(), "{}", stderr(&output));
    }
    let (a, b) = (contents(&first), contents(&second));
    let names =
        |c: &[(std::path::PathBuf, Vec<u8>)]| c.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&a), names(&b), "the same files");
    assert!(a.iter().any(|f| f.0.ends_with("history.csv")), "{:?}", names(&a));
    for ((file, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{} differs", file.display());
    }
    let stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(first.join("data/stats.json")).unwrap()).unwrap();
    assert_eq!(stats["history"]["series"][0]["changes"][0]["version"], "v08");
}

/// One change point cited inline, by its version: the worked example's
/// figures by hand (docs/history.md: +9.9%, 95% CI +7.8% to +12.0%, exact
/// p = 2/924 = 0.002); a version where no change begins is an error at
/// the value, naming where they do.
#[test]
fn a_change_point_is_cited_inline_by_its_version() {
    let book = history_book("min-runs = 4\nlevel = 0.01\n");
    let cite = |field: &str| format!("[{{{{ history(version=\"v4\", field=\"{field}\") }}}}]");
    let fields = ["shift", "ci", "p", "verdict", "range"];
    let page =
        format!("# H\n\n{}\n\n{{{{ history(version=\"v4\") }}}}\n", fields.map(cite).join(" "));
    let study = written_study(&book, &[("runs.csv", WORKED)], &page);
    let output = report(study.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let html = std::fs::read_to_string(study.path().join("site/index.html")).unwrap();
    let want = "[+9.9%] [+7.8% to +12.0%] [p = 0.002] [regression] [v4]";
    assert!(html.contains(want), "{want} not in {html}");
    assert!(
        html.contains("Time_s changed by +9.9% (95% CI +7.8% to +12.0%) from version v4"),
        "{html}"
    );
    let page = "# H\n\n{{ history(version=\"v5\") }}\n";
    let study = written_study(&book, &[("runs.csv", WORKED)], page);
    let err = stderr_in(&report(study.path(), &["check"]), study.path());
    assert!(
        err.contains("content/index.md:3:20: no one change point begins at version `v5`"),
        "{err}"
    );
    assert!(err.contains("change points begin at `v4`"), "{err}");
}

/// An acknowledgement that names no version of the history (`v8` for
/// `v08`) would never apply: an error at its value (line 10, column 28:
/// `acknowledge = [{ version = ` is 27 characters), with the nearest name.
#[test]
fn an_acknowledgement_of_no_version_is_an_error_at_its_key() {
    let book = gaps_book().replace("version = \"v08\"", "version = \"v8\"");
    let study = written_study(&book, &[("runs.csv", &gaps_csv())], "# H\n");
    let err = stderr_in(&report(study.path(), &["check"]), study.path());
    assert!(
        err.contains("book.toml:10:28: acknowledged version `v8` is no version of the history"),
        "{err}"
    );
    assert!(err.contains("did you mean `v08`?"), "{err}");
}

/// A one-version excursion is an outlier, not a change: twelve versions
/// of four runs near 10, v06's near 30, no value twice (with ties the
/// normal approximation of 4 against 40 runs cannot reach 0.001). Against the 40 runs of the five
/// versions either side, every run of v06 is higher (exact p = 2 / C(44, 4)
/// = 1.5 × 10⁻⁵ by scipy, far below 0.001 after Holm over 12 versions), and
/// the Hodges–Lehmann shift of the logs is +199.7% (numpy).
#[test]
fn a_one_version_excursion_is_an_outlier_not_a_change() {
    let mut csv = String::from("version,seq,time_s\n");
    for v in 0..12 {
        for r in 0..4 {
            let t = if v == 6 { 30.0 } else { 10.0 } + f64::from(r) * 0.01 + f64::from(v) * 0.0001;
            csv.push_str(&format!("v{v:02},{v},{t:.4}\n"));
        }
    }
    let study = written_study(&history_book(""), &[("runs.csv", &csv)], "# H\n\n{{ history() }}\n");
    let stats = stats_json(study.path());
    let series = &stats["history"]["series"][0];
    assert!(series["changes"].as_array().unwrap().is_empty(), "{series}");
    assert!(series["inconclusive"].as_array().unwrap().is_empty(), "{series}");
    assert_eq!(series["outliers"][0]["at"], 6, "{series}");
    let html = std::fs::read_to_string(study.path().join("site/index.html")).unwrap();
    let want = "No change point in time_s across 12 versions with runs. In time_s, version v06 \
                (+199.7%) stands apart from the versions around it: an outlier, not a change.";
    assert!(html.contains(want), "{want} not in {html}");
}

/// The first version of a new level near the end of a series is not an
/// outlier: tomli's first eight releases (examples/tomli-history), where
/// only 2.2.1, 2.3.0 and 2.4.0 are at the compiled wheels' level. Hampel's
/// filter over all eight names all three suspects, but 2.2.1's geometric
/// mean (3.65 s) lies near 2.3.0's (3.53 s); least squares on the runs'
/// logs peaks at the split before 2.2.1 (5.39, against 3.55 before 2.1.0
/// and 3.19 before 2.3.0, by numpy), so the change is at 2.2.1 alone.
#[test]
fn a_new_level_near_the_end_is_a_change_not_an_outlier() {
    let example = repo().join("examples/tomli-history");
    let csv = std::fs::read_to_string(example.join("results/runs.csv")).unwrap();
    let kept: Vec<&str> = csv
        .lines()
        .filter(|l| l.split(',').nth(1).is_none_or(|r| r.parse::<u32>().map_or(true, |r| r <= 8)))
        .collect();
    let book = std::fs::read_to_string(example.join("book.toml")).unwrap();
    let study = written_study(&book, &[("runs.csv", &(kept.join("\n") + "\n"))], "# T\n");
    let stats = stats_json(study.path());
    let series = &stats["history"]["series"][0];
    assert!(series["outliers"].as_array().unwrap().is_empty(), "{series}");
    let change = &series["changes"][0];
    assert_eq!(change["version"], "2.2.1", "{change}");
    assert_eq!(change["range"], serde_json::json!([5, 5]), "{change}");
    assert_eq!(change["versions"], serde_json::json!([5, 3]), "{change}");
}
