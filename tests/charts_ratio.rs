//! The ratio panel of a line chart (`ratio = true`) and the log–log speedup
//! view, over the chart fixture: SVG snapshots, the numbers of the panel's
//! table checked against scipy, and every error located (snapshots of the
//! human diagnostics).

use std::fs;
use std::path::Path;

use crate::common;
use common::*;

/// The fixture's latency chart again, as `lat-ratio`, with a ratio panel.
const LAT_RATIO: &str = "\n```chart\nid = \"lat-ratio\"\nkind = \"line\"\ndata = \"msgs\"\nx = \"size\"\ny = \"latency\"\nx-scale = \"log2\"\ny-scale = \"log10\"\nx-unit = \"bytes\"\nx-label = \"message size\"\ny-label = \"latency (µs)\"\nratio = true\ncaption = \"Latency with its ratio.\"\n```\n";

/// A log–log speedup chart of the fixture's runs, with its ideal diagonal.
const LOG_LOG: &str = "\n```chart\nid = \"log-log\"\nkind = \"speedup\"\ndata = \"runs\"\nx = \"procs\"\ny = \"rate\"\nx-scale = \"log2\"\ny-scale = \"log10\"\nideal = true\ncaption = \"Speedup, log-log.\"\n```\n";

/// The chart fixture with `block` appended to its page.
fn study_with(block: &str) -> tempfile::TempDir {
    let study = fixture("charts");
    let page = study.path().join("content/index.md");
    let text = fs::read_to_string(&page).unwrap();
    fs::write(&page, text + block).unwrap();
    study
}

fn build(root: &Path) -> std::path::PathBuf {
    let output = report(root, &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    root.join("site")
}

/// The human diagnostics of a failed build of `root`.
fn failure(root: &Path) -> String {
    let output = report_with(root, &["build"], "human");
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn a_ratio_panel_is_drawn_under_the_plot() {
    let study = study_with(LAT_RATIO);
    let site = build(study.path());
    let svg = fs::read_to_string(site.join("charts/lat-ratio.svg")).unwrap();
    assert!(svg.starts_with("<svg width=\"460\" height=\"480\""), "{svg}");
    // Six sizes per environment and six ratios, each a named point.
    let points = svg.split("<g class=\"points\"").nth(1).unwrap();
    assert_eq!(points.matches("role=\"img\"><title>").count(), 18);
    // scipy: ratio of means 1.941/2.001 = 0.970015, log-scale Welch CI
    // 0.864554 to 1.088340 (df 3.996).
    assert!(
        points.contains("<title>Candidate ÷ Base: message size 1 B, ratio 0.970 (\u{2212}3.0%), 95% CI 0.865 to 1.09, n = 3</title>"),
        "{points}"
    );
    assert!(
        svg.contains(">Candidate ÷ Base<") || svg.contains(">\nCandidate ÷ Base\n<"),
        "panel heading"
    );
    assert!(svg.contains("ratio (×)"), "panel axis name");
    insta::assert_snapshot!("svg_lat_ratio", svg);
}

#[test]
fn the_ratio_columns_of_the_table_match_scipy() {
    let study = study_with(LAT_RATIO);
    let site = build(study.path());
    let csv = fs::read_to_string(site.join("data/charts/lat-ratio.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "Environment,message size (bytes),latency (µs),\"95% CI, low\",\"95% CI, high\",Candidate ÷ Base (×),\"Ratio 95% CI, low\",\"Ratio 95% CI, high\",Runs (n)"
    );
    let rows: Vec<&str> = lines.collect();
    // scipy 1.17.1, the log-scale Welch interval written out (see
    // tests/charts_ratio.rs's header): at 1 B 1.941/2.001; at 1 MiB
    // 1019.059/1050.576 = 0.970000, CI 0.969788 to 0.970213. Six digits.
    assert!(
        rows.contains(&"Candidate,1,1.941,1.69259,2.18941,0.970015,0.864554,1.08834,3"),
        "{csv}"
    );
    assert!(
        rows.iter().any(
            |r| r.starts_with("Candidate,1048576,") && r.ends_with(",0.97,0.969788,0.970213,3")
        ),
        "{csv}"
    );
    // The baseline's rows leave the ratio empty.
    assert!(rows.contains(&"Base,1,2.001,1.75259,2.24941,,,,3"), "{csv}");
    // The caption says what the panel is, from the model.
    let html = fs::read_to_string(site.join("index.html")).unwrap();
    let sentence = "The panel below is Candidate ÷ Base per message size (ratio of means, \
                    Welch&apos;s t on the log scale, 95% CI); 1 is no difference.";
    assert!(html.contains(sentence), "{html}");
}

/// On the page the ratio has a table of its own, one row per size on the
/// candidate's side; the points' table keeps x, y, the CI and n.
#[test]
fn the_page_shows_the_ratio_in_a_table_of_its_own() {
    let study = study_with(LAT_RATIO);
    let html = fs::read_to_string(build(study.path()).join("index.html")).unwrap();
    let figure = html.split("id=\"fig-lat-ratio\"").nth(1).unwrap();
    let tables: Vec<&str> = figure.split("<table class=\"data\">").skip(1).collect();
    assert_eq!(tables.len(), 2, "{figure}");
    let points = tables[0].split("</table>").next().unwrap();
    assert!(!points.contains("÷"), "no ratio beside the points: {points}");
    assert_eq!(points.matches("<tr><th scope=\"row\">").count(), 12, "{points}");
    let ratio = tables[1].split("</table>").next().unwrap();
    assert!(ratio.contains("<caption>The ratio plotted in the panel of Figure"), "{ratio}");
    assert!(
        ratio.contains("<thead><tr><th scope=\"col\" class=\"num\">message size</th><th scope=\"col\" class=\"num\">Candidate ÷ Base (×)</th>"),
        "{ratio}"
    );
    // scipy, as above: 1.941/2.001 = 0.970015 (0.864554 to 1.088340), three digits.
    assert!(
        ratio.contains("<tr><th scope=\"row\" class=\"num\">1 B</th><td>0.970</td><td>0.865</td><td>1.09</td></tr>"),
        "{ratio}"
    );
    assert_eq!(ratio.matches("<tr><th scope=\"row\"").count(), 6, "{ratio}");
}

#[test]
fn without_error_bars_the_panel_has_no_intervals() {
    let study = study_with(&LAT_RATIO.replace("ratio = true", "ratio = true\nerror-bars = false"));
    let site = build(study.path());
    let csv = fs::read_to_string(site.join("data/charts/lat-ratio.csv")).unwrap();
    assert!(
        csv.starts_with("Environment,message size (bytes),latency (µs),Candidate ÷ Base (×),Runs (n)\nBase,1,2.001,,3\n"),
        "{csv}"
    );
    assert!(csv.contains("\nCandidate,1,1.941,0.970015,3\n"), "{csv}");
    let svg = fs::read_to_string(site.join("charts/lat-ratio.svg")).unwrap();
    assert!(svg.contains("ratio 0.970 (\u{2212}3.0%), n = 3</title>"), "{svg}");
}

#[test]
fn a_ratio_panel_on_another_kind_is_an_error_at_ratio() {
    let block = LAT_RATIO.replace("kind = \"line\"", "kind = \"relative\"");
    let study = study_with(&block.replace("y-scale = \"log10\"\n", ""));
    insta::assert_snapshot!("ratio_on_a_relative_chart", failure(study.path()));
}

#[test]
fn a_ratio_panel_needs_the_baseline_and_one_candidate() {
    let block =
        LAT_RATIO.replace("ratio = true", "ratio = true\nwhere = { environment = \"cand\" }");
    let study = study_with(&block);
    insta::assert_snapshot!("ratio_without_the_baseline", failure(study.path()));
}

#[test]
fn a_ratio_panel_needs_positive_means() {
    let study = study_with(&LAT_RATIO.replace("y-scale = \"log10\"\n", ""));
    edit(study.path(), "results/msgs.csv", "base,2,1,1.902,", "base,2,1,-7.104,");
    let err = failure(study.path());
    assert!(
        err.contains("error: chart `lat-ratio`: the mean of `base` at x = 2 is \u{2212}1, and the ratio panel needs positive means"),
        "{err}"
    );
}

#[test]
fn a_log_log_speedup_chart_has_a_clipped_diagonal() {
    let study = study_with(LOG_LOG);
    // Speedups flatten from 4 processes: 1, 1.9, 3.6, 5 and 6 on the base, so
    // that the ideal p reaches 16 where the data stop near 6.
    let mut runs = String::from("environment,procs,run,rate\n");
    for (env, rates) in
        [("base", [10.0, 19.0, 36.0, 50.0, 60.0]), ("cand", [9.0, 18.0, 38.0, 48.0, 55.0])]
    {
        for (procs, rate) in [1, 2, 4, 8, 16].into_iter().zip(rates) {
            for (run, d) in [(1, -0.5), (2, 0.0), (3, 0.5)] {
                runs.push_str(&format!("{env},{procs},{run},{}\n", rate + d));
            }
        }
    }
    fs::write(study.path().join("results/runs.csv"), runs).unwrap();
    let site = build(study.path());
    let svg = fs::read_to_string(site.join("charts/log-log.svg")).unwrap();
    // The plot's box: the top of its vertical grid lines; the x of 8 processes.
    let numbers = |line: &str, key: &str| -> Vec<f64> {
        let start = line.find(key).map(|i| i + key.len()).unwrap_or(line.len());
        let text = &line[start..line[start..].find('"').map_or(line.len(), |e| start + e)];
        text.split([' ', ',']).filter_map(|t| t.parse().ok()).collect()
    };
    let grid: Vec<&str> = svg.lines().filter(|l| l.starts_with("<line opacity=\"0.12\"")).collect();
    let top = grid.iter().flat_map(|l| numbers(l, "y2=\"")).fold(f64::INFINITY, f64::min);
    let x8 = numbers(grid[3], "x1=\"")[0];
    let drawing = &svg[..svg.find("<g class=\"legend\">").unwrap()];
    let ideal: Vec<f64> = drawing
        .lines()
        .filter(|l| l.contains("stroke=\"#808080\""))
        .flat_map(|l| numbers(l, "points=\""))
        .collect();
    let (xs, ys): (Vec<f64>, Vec<f64>) = (
        ideal.iter().step_by(2).copied().collect(),
        ideal.iter().skip(1).step_by(2).copied().collect(),
    );
    let highest = ys.iter().copied().fold(f64::INFINITY, f64::min);
    // Cut where it leaves the box (speedup about 6.3), long before 8 processes.
    assert!(highest >= top && highest <= top + 3.0, "ideal reaches {highest}, the box {top}");
    assert!(xs.iter().all(|x| *x < x8), "ideal past 8 processes: {xs:?}");
    insta::assert_snapshot!("svg_log_log", svg);
}

#[test]
fn a_relative_chart_refuses_a_log_y_axis() {
    let study = fixture("charts");
    edit(
        study.path(),
        "content/index.md",
        "data = \"runs.csv\"",
        "data = \"runs.csv\"\ny-scale = \"log10\"",
    );
    insta::assert_snapshot!("relative_with_a_log_y_axis", failure(study.path()));
}

#[test]
fn a_log_y_axis_refuses_values_of_zero_or_less() {
    // A line chart: the row, at `y-scale`.
    let study = fixture("charts");
    edit(study.path(), "results/msgs.csv", "base,2,1,1.902,", "base,2,1,0,");
    insta::assert_snapshot!("log_y_axis_with_a_zero", failure(study.path()));
    // A log-log speedup chart whose speedup at 2 processes is negative: the
    // mean rate there is (−80 + 19 + 19.5) / 3 < 0.
    let study = study_with(LOG_LOG);
    edit(study.path(), "results/runs.csv", "base,2,1,18.5", "base,2,1,-80");
    let err = failure(study.path());
    assert!(
        err.contains("error: chart `log-log`: the log y axis cannot show the \u{2212}1.383 of `base` at x = 2\n   --> content/index.md:82:11"),
        "{err}"
    );
}

#[test]
fn a_relative_chart_names_the_model_of_its_intervals() {
    // The bars' intervals come from analysis::statistics::estimators::mean::of_means: log-scale
    // Welch for positive means (the caption said "delta method").
    let study = fixture("charts");
    let site = build(study.path());
    let html = fs::read_to_string(site.join("index.html")).unwrap();
    let sentence = "Error bars: 95% CI of the difference (ratio of means, Welch&apos;s t on the \
                    log scale); 3 runs per point.";
    assert!(html.contains(sentence), "{html}");
}
