//! Chart directives: every kind drawn (snapshots), the numbers behind them
//! checked by hand, every error located, and the same chart in page and paper.

use std::fs;
use std::path::Path;

use crate::common;
use common::*;

fn build(root: &Path) -> std::path::PathBuf {
    let output = report(root, &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    root.join("site")
}

fn csv_rows(path: &Path) -> Vec<Vec<String>> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

fn value(rows: &[Vec<String>], series: &str, x: &str) -> f64 {
    rows.iter()
        .find(|r| r[0] == series && r[1] == x)
        .unwrap_or_else(|| panic!("no row {series} {x}"))[2]
        .parse()
        .unwrap()
}

#[test]
fn every_kind_is_drawn_and_snapshotted() {
    let study = fixture("charts");
    let site = build(study.path());
    for id in ["rate", "diff", "lat", "bw", "speedup", "eff"] {
        let svg = fs::read_to_string(site.join(format!("charts/{id}.svg"))).unwrap();
        assert!(
            svg.contains("role=\"group\" aria-labelledby") && svg.contains("<desc"),
            "{id} lacks accessibility markup"
        );
        // Every point is an image named by its details (focusable from the page script).
        let points = svg.split("<g class=\"points\"").nth(1).unwrap_or_default();
        let circles = points.matches("<circle").count();
        assert!(circles > 0, "{id} has no points");
        assert_eq!(points.matches("role=\"img\"><title>").count(), circles, "{id}");
        insta::assert_snapshot!(format!("svg_{id}"), svg);
    }
}

#[test]
fn chart_numbers_match_hand_arithmetic() {
    let study = fixture("charts");
    let site = build(study.path());
    // Series are the environments' labels from book.toml; values have six
    // significant digits. Runs are mean ± 0.5, so the means are the design
    // values: base 10, 19, 36; cand 9, 18, 38.
    let rate = csv_rows(&site.join("data/charts/rate.csv"));
    assert_eq!(value(&rate, "Base", "4"), 36.0);
    // CI half-width: t(0.975, 2) · sd / √3 with sd = 0.5: 4.302652729749462 · 0.5 / √3 = 1.242070.
    let low: f64 = rate.iter().find(|r| r[0] == "Base" && r[1] == "4").unwrap()[3].parse().unwrap();
    assert_eq!(low, 34.7579, "36 − 1.242070 to six significant digits");
    let diff = csv_rows(&site.join("data/charts/diff.csv"));
    // (38 / 36 − 1) · 100 = 5.555…
    assert_eq!(value(&diff, "Candidate", "4"), 5.55556);
    let speedup = csv_rows(&site.join("data/charts/speedup.csv"));
    assert_eq!(value(&speedup, "Base", "4"), 3.6);
    // 38 / 9 = 4.222…
    assert_eq!(value(&speedup, "Candidate", "4"), 4.22222);
    let eff = csv_rows(&site.join("data/charts/eff.csv"));
    assert_eq!(value(&eff, "Base", "4"), 0.9);
    // The bandwidth peak of the base environment is 90 at 64 KiB: in its legend entry.
    let bw = fs::read_to_string(site.join("charts/bw.svg")).unwrap();
    assert!(bw.contains("Base (peak at 64 KiB)"), "{bw}");
    let lat = fs::read_to_string(site.join("charts/lat.svg")).unwrap();
    for tick in ["1 B", "1 KiB", "1 MiB"] {
        assert!(
            lat.contains(&format!(">{tick}<")) || lat.contains(&format!(">\n{tick}\n<")),
            "latency ticks lack {tick}"
        );
    }
    assert!(!lat.contains("e+"), "no scientific tick labels");
}

#[test]
fn figures_are_numbered_alike_in_page_and_paper() {
    let study = fixture("charts");
    let site = build(study.path());
    let html = fs::read_to_string(site.join("index.html")).unwrap();
    assert!(html.contains("<a class=\"xref\" href=\"#fig-rate\">Figure 1</a>"), "{html}");
    assert!(html.contains("<a class=\"xref\" href=\"#fig-eff\">Figure 6</a>"), "{html}");
    assert!(
        html.contains(
            "<div class=\"chart\" id=\"fig-diff\" data-series=\"[[1,&quot;Candidate&quot;]]\">"
        ),
        "{html}"
    );
    assert!(
        html.contains("<span class=\"figure-number\">Figure 2.</span> Candidate against base."),
        "{html}"
    );
    assert!(html.contains("<a href=\"data/charts/diff.csv\" download>"), "{html}");
    if tool("pdftotext", &["-v"]) {
        let text = pdftotext(&site.join("paper.pdf"));
        assert!(text.contains("Throughput is in Figure 1, the difference in Figure 2"), "{text}");
        assert!(text.contains("Figure 2. Candidate against base."), "{text}");
        assert!(text.contains("rate (ops/s)"), "the PDF lacks the axis label:\n{text}");
    }
}

#[test]
fn legends_and_tables_follow_the_order_of_book_toml() {
    let study = fixture("charts");
    // Declare `cand` before `base` (alphabetical order is the other way).
    edit(
        study.path(),
        "book.toml",
        "[environments.base]\nlabel = \"Base\"\n\n[environments.cand]\nlabel = \"Candidate\"\n",
        "[environments.cand]\nlabel = \"Candidate\"\n\n[environments.base]\nlabel = \"Base\"\n",
    );
    let site = build(study.path());
    let svg = fs::read_to_string(site.join("charts/rate.svg")).unwrap();
    let legend = &svg[svg.find("<g class=\"legend\">").expect("a legend group")..];
    let (cand, base) = (legend.find("Candidate").unwrap(), legend.find("Base").unwrap());
    assert!(cand < base, "legend order: {legend}");
    let rows = csv_rows(&site.join("data/charts/rate.csv"));
    assert_eq!(rows[0][0], "Candidate");
    assert_eq!(rows.last().unwrap()[0], "Base");
}

fn fails(change: impl FnOnce(&Path)) -> String {
    let study = fixture("charts");
    change(study.path());
    let output = report(study.path(), &["build"]);
    let err = stderr(&output);
    assert!(!output.status.success(), "expected failure:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn chart_errors_name_the_line_and_the_choices() {
    let content = "content/index.md";
    let err = fails(|r| {
        edit(r, content, "ideal = true\nx-label", "ideal = true\ncolour = \"red\"\nx-label")
    });
    assert!(err.contains("content/index.md:15:1: chart: unknown field `colour`"), "{err}");
    let err = fails(|r| edit(r, content, "kind = \"relative\"", "kind = \"pie\""));
    assert!(err.contains("content/index.md:22:8: chart: unknown variant `pie`, expected one of `line`, `relative`, `speedup`, `efficiency`"), "{err}");
    let err = fails(|r| edit(r, content, "y = \"rate\"\nx-scale", "y = \"rat\"\nx-scale"));
    assert!(err.contains("content/index.md:12:5: chart `rate`: unknown y column `rat`"), "{err}");
    assert!(err.contains("did you mean `rate`?"), "{err}");
    let err = fails(|r| edit(r, content, "data = \"runs.csv\"", "data = \"run.csv\""));
    assert!(err.contains("chart `diff`: unknown data file `run.csv`"), "{err}");
    assert!(err.contains("did you mean `runs`?"), "{err}");
    let err =
        fails(|r| edit(r, content, "y = \"latency\"", "y = \"latency\"\nwhere = { size = 3 }"));
    assert!(err.contains("chart `lat`: no rows left after `where` (size = 3)"), "{err}");
    let err = fails(|r| {
        edit(r, content, "x = \"size\"\ny = \"latency\"", "x = \"environment\"\ny = \"latency\"")
    });
    assert!(err.contains("chart `lat`: x column `environment` is not numeric"), "{err}");
    let err = fails(|r| edit(r, content, "id = \"eff\"", "id = \"rate\""));
    assert!(err.contains("two charts have the id `rate`"), "{err}");
    assert!(err.contains("the first is at content/index.md:7:1"), "{err}");
    let err = fails(|r| edit(r, "results/msgs.csv", "base,1,1,1.901,0.9", "base,0,1,1.901,0.9"));
    assert!(
        err.contains("chart `lat`: the log x axis cannot show `size` = 0 (results/msgs.csv:2)"),
        "{err}"
    );
    let err = fails(|r| edit(r, content, "@fig-lat,", "@fig-latency,"));
    assert!(err.contains("content/index.md:4:1: unknown figure `@fig-latency`"), "{err}");
    assert!(err.contains("did you mean `@fig-lat`?"), "{err}");
}

#[test]
fn a_million_rows_make_a_small_chart() {
    use report::charts::{data, spec};
    use report::results::{Column, ResultSet, Table, Values};
    let rows = 1_000_000;
    let table = Table {
        name: "big".into(),
        path: "results/big.csv".into(),
        columns: vec![
            Column {
                name: "environment".into(),
                values: Values::Text(
                    (0..rows).map(|i| if i % 2 == 0 { "base" } else { "cand" }).collect(),
                ),
            },
            Column {
                name: "procs".into(),
                values: Values::Number((0..rows).map(|i| f64::from(1 << ((i / 2) % 6))).collect()),
            },
            Column {
                name: "rate".into(),
                values: Values::Number((0..rows).map(|i| 10.0 + (i % 7) as f64).collect()),
            },
        ],
        lines: (2..rows as u32 + 2).collect(),
    };
    let results = ResultSet { tables: [("big".to_string(), table)].into() };
    let config = report::config::parse(
        Path::new("book.toml"),
        &fs::read_to_string(repo().join("tests/fixtures/charts/book.toml")).unwrap(),
    )
    .unwrap();
    let chart = spec::parse("id = \"big\"\nkind = \"line\"\ndata = \"big\"\nx = \"procs\"\ny = \"rate\"\nx-scale = \"log2\"\n", &report::diagnostic::Location::new("c.md", 1, 1)).unwrap();
    let set = report::charts::render(&[chart], &results, &config).unwrap();
    let svg = &set.charts[0].svg;
    let points: usize = data::compute(&set.charts[0].spec, &results, &[], &config)
        .unwrap()
        .series
        .iter()
        .map(|s| s.points.len())
        .sum();
    assert_eq!(points, 12, "two environments × six process counts");
    assert!(svg.matches('<').count() < 500, "{} elements", svg.matches('<').count());
}

/// A box plot of the fixture's runs, with an outlier: drawn, described and
/// tabled like the other kinds.
#[test]
fn a_box_plot_shows_every_run() {
    let study = fixture("charts");
    let chart = "\n```chart\nid = \"box\"\nkind = \"box-plot\"\ndata = \"runs\"\nx = \"procs\"\ny = \"rate\"\ncaption = \"Rate by processes, every run.\"\n```\n";
    let content = study.path().join("content/index.md");
    let text = fs::read_to_string(&content).unwrap();
    fs::write(&content, text + chart).unwrap();
    // Five runs of base at 4 processes: 35.5, 36, 36.5, 37 and 60. Q1 36,
    // median 36.5, Q3 37 (numpy's linear percentiles), IQR 1: the upper
    // whisker stops at 37, and 60 lies beyond.
    let runs = study.path().join("results/runs.csv");
    let text = fs::read_to_string(&runs).unwrap();
    fs::write(&runs, text + "base,4,4,37\nbase,4,5,60\n").unwrap();
    let site = build(study.path());
    let svg = fs::read_to_string(site.join("charts/box.svg")).unwrap();
    assert!(svg.contains("<title>Base at 4: median 36.5, quartiles 36.0 to 37.0, whiskers 35.5 to 37.0, n = 5, 1 run beyond the whiskers</title>"), "{svg}");
    insta::assert_snapshot!("svg_box", svg);
    let csv = fs::read_to_string(site.join("data/charts/box.csv")).unwrap();
    assert!(csv.starts_with("Environment,procs,\"rate, lower whisker\",\"rate, Q1\",\"rate, median\",\"rate, Q3\",\"rate, upper whisker\",Runs beyond the whiskers,Runs (n)\n"), "{csv}");
    assert!(csv.contains("\nBase,4,35.5,36,36.5,37,37,1,5\n"), "{csv}");
    let html = fs::read_to_string(site.join("index.html")).unwrap();
    assert!(html.contains("whiskers at the most extreme runs within 1.5 IQR of the quartiles, the runs beyond them as rings; 3 to 5 runs per box."), "the caption states the whisker rule");
}

impl Seeded {
    /// `n` runs of shape `shape`: uniform, on a coarse grid (ties), with
    /// far outliers, negative, or all equal.
    fn sample(&mut self, n: usize, shape: usize) -> Vec<f64> {
        (0..n)
            .map(|i| {
                let u = self.next();
                match shape % 5 {
                    0 => 100.0 + 20.0 * u,
                    1 => (10.0 * u).round() / 2.0,
                    2 if i % 4 == 0 => 1000.0 * (1.0 + u),
                    2 => 5.0 + u,
                    3 => -50.0 + 30.0 * u,
                    _ => 7.25,
                }
            })
            .collect()
    }
}

/// Runs of every size and shape, by environment and x, from a fixed seed,
/// as a results table `r` (columns `environment`, `p`, `t`).
fn seeded_runs() -> (Vec<(&'static str, f64, f64)>, report::results::ResultSet) {
    use report::results::{Column, ResultSet, Table, Values};
    let mut rng = Seeded(31);
    let mut rows: Vec<(&str, f64, f64)> = Vec::new();
    for (shape, n) in [1, 2, 3, 4, 5, 6, 7, 10, 17, 31, 64, 100].into_iter().enumerate() {
        for env in ["base", "cand"] {
            let x = f64::from(1u32 << shape);
            let sample = rng.sample(n, shape + usize::from(env == "cand"));
            rows.extend(sample.into_iter().map(|v| (env, x, v)));
        }
    }
    let column = |name: &str, values| Column { name: name.into(), values };
    let table = Table {
        name: "r".into(),
        path: "results/r.csv".into(),
        columns: vec![
            column("environment", Values::Text(rows.iter().map(|r| r.0).collect())),
            column("p", Values::Number(rows.iter().map(|r| r.1).collect())),
            column("t", Values::Number(rows.iter().map(|r| r.2).collect())),
        ],
        lines: (2..rows.len() as u32 + 2).collect(),
    };
    (rows, ResultSet { tables: [("r".to_string(), table)].into() })
}

/// numpy's box of every environment and x of `rows`, sorted by both:
/// x, lower whisker, Q1, median, Q3, upper whisker, runs beyond, n.
fn numpy_boxes(python: &str, rows: &[(&str, f64, f64)]) -> Vec<Vec<f64>> {
    let input: String = rows.iter().map(|(e, x, v)| format!("{e} {x:?} {v:?}\n")).collect();
    let script = r#"
import sys, numpy as np
groups = {}
for line in sys.stdin:
    e, x, v = line.split()
    groups.setdefault((e, float(x)), []).append(float(v))
for (e, x), v in sorted(groups.items()):
    v = np.sort(np.array(v))
    q1, med, q3 = np.percentile(v, [25, 50, 75])
    reach = 1.5 * (q3 - q1)
    inside = v[(v >= q1 - reach) & (v <= q3 + reach)]
    low, high = inside.min(), inside.max()
    beyond = int(((v < low) | (v > high)).sum())
    print(*map(repr, [x, float(low), float(q1), float(med), float(q3), float(high), beyond, len(v)]))
"#;
    let text = python_output(python, script, &input);
    text.lines().map(|l| l.split(' ').map(|v| v.parse().unwrap()).collect()).collect()
}

/// The box plot's quartiles and whiskers against numpy (`np.percentile`,
/// linear, and Tukey's whiskers written out in Python) on runs of many
/// sizes and shapes, from a fixed seed.
#[test]
fn box_plots_match_numpy_on_seeded_runs() {
    let Some(python) = python() else { return };
    let (rows, results) = seeded_runs();
    let book = fs::read_to_string(repo().join("tests/fixtures/charts/book.toml")).unwrap();
    let config = report::config::parse(Path::new("book.toml"), &book).unwrap();
    let body = "id = \"b\"\nkind = \"box-plot\"\ndata = \"r\"\nx = \"p\"\ny = \"t\"\n";
    let at = report::diagnostic::Location::new("c.md", 1, 1);
    let spec = report::charts::spec::parse(body, &at).unwrap();
    let set = report::charts::render(&[spec], &results, &config).unwrap();
    let table = &set.charts[0].table.rows;
    let ours: Vec<Vec<f64>> =
        table.iter().map(|r| r.values.iter().map(|v| v.unwrap()).collect()).collect();
    // Python sorts by environment then x, as the table does (series in
    // book.toml's order, base first, then x ascending).
    let numpy = numpy_boxes(python, &rows);
    assert_eq!((ours.len(), numpy.len()), (24, 24));
    for (a, b) in ours.iter().zip(&numpy) {
        assert_eq!(a.len(), b.len(), "{a:?} {b:?}");
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= 1e-12 * y.abs().max(1.0), "ours {a:?}\nnumpy {b:?}");
        }
    }
    let caption = &set.charts[0].intervals;
    let rule = "whiskers at the most extreme runs within 1.5 IQR of the quartiles";
    assert!(caption.contains(rule) && caption.contains("1 to 100 runs per box"), "{caption}");
}
