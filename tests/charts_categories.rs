//! Box plots on a categorical axis: alternatives compared on one workload
//! (no `x`, one box per series) and a text `x` (boxes grouped by its
//! values). Generated studies of many shapes, each box checked against
//! numpy; a snapshot; the errors of the other kinds; a real hyperfine run
//! imported and drawn.

use std::fs;
use std::path::Path;

use report::charts::{ChartSet, spec};
use report::results::{Column, ResultSet, Table, Values};

use crate::common;
use common::*;

/// Labels of every kind: spaces, Unicode, HTML's special characters, long.
const LABELS: [&str; 8] = [
    "gzip -9",
    "zstd with a long dictionary and many options",
    "ünïcödé λ → ∞",
    "<b>&amp; \"q\" 'a'</b>",
    "日本語",
    "x",
    "a & b < c",
    "xz  -T0",
];

/// Runs per alternative: a single run, a few, ties, many.
const SIZES: [usize; 10] = [1, 2, 3, 4, 5, 7, 10, 31, 100, 500];

/// `n` runs of shape `shape`: uniform, on a coarse grid (ties), with far
/// outliers, constant, or skewed with a long tail.
fn sample(rng: &mut Seeded, n: usize, shape: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let u = rng.next();
            match shape % 5 {
                0 => 1.0 + 0.2 * u,
                1 => (10.0 * u).round() / 4.0,
                2 if i % 5 == 0 => 50.0 * (1.0 + u),
                2 => 2.0 + u,
                3 => 0.125,
                _ => 0.01 / (1.0 - 0.99 * u),
            }
        })
        .collect()
}

/// A generated study of `k` alternatives: per alternative its key, its
/// label and its runs, in the file's order.
struct Study {
    alternatives: Vec<(String, String, Vec<f64>)>,
    /// The order book.toml declares them in (indices into `alternatives`).
    declared: Vec<usize>,
}

impl Study {
    fn generate(seed: u64) -> Study {
        let mut rng = Seeded(seed);
        let k = 2 + (seed as usize % 7);
        let alternatives = (0..k)
            .map(|i| {
                let n = SIZES[(seed as usize * 3 + i) % SIZES.len()];
                let runs = sample(&mut rng, n, seed as usize + i);
                (format!("cmd {i} --level={seed}"), LABELS[(i + seed as usize) % 8].into(), runs)
            })
            .collect();
        // book.toml's order differs from the file's on odd seeds.
        let mut declared: Vec<usize> = (0..k).collect();
        if seed % 2 == 1 {
            declared.reverse();
        }
        Study { alternatives, declared }
    }

    /// book.toml, the environment column being `command`.
    fn book(&self) -> String {
        let mut book = String::from(
            "[book]\ntitle = \"Alternatives\"\ndate = \"2026-12-02\"\n\n[study]\n\
             environment-column = \"command\"\n",
        );
        book.push_str(&format!("baseline = {}\n", toml_string(&self.alternatives[0].0)));
        for &i in &self.declared {
            let (key, label, _) = &self.alternatives[i];
            let (key, label) = (toml_string(key), toml_string(label));
            book.push_str(&format!("\n[environments.{key}]\nlabel = {label}\n"));
        }
        book
    }

    /// The results table `runs`: `command`, `time_s`, alternatives in the
    /// file's order, their runs interleaved.
    fn results(&self) -> ResultSet {
        let rows = self.rows();
        let table = Table {
            name: "runs".into(),
            path: "results/runs.csv".into(),
            columns: vec![
                Column {
                    name: "command".into(),
                    values: Values::Text(rows.iter().map(|r| r.0.as_str()).collect()),
                },
                Column {
                    name: "time_s".into(),
                    values: Values::Number(rows.iter().map(|r| r.1).collect()),
                },
            ],
            lines: (2..rows.len() as u32 + 2).collect(),
        };
        ResultSet { tables: [("runs".to_string(), table)].into() }
    }

    /// Every run as (command, time), round-robin over the alternatives
    /// from the first run of each, so that the file's order is theirs.
    fn rows(&self) -> Vec<(String, f64)> {
        let longest = self.alternatives.iter().map(|a| a.2.len()).max().unwrap_or(0);
        (0..longest)
            .flat_map(|r| {
                self.alternatives
                    .iter()
                    .filter_map(move |(key, _, runs)| runs.get(r).map(|&v| (key.clone(), v)))
            })
            .collect()
    }

    /// The runs as results/runs.csv.
    fn csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        writer.write_record(["command", "time_s"]).unwrap();
        for (key, v) in self.rows() {
            writer.write_record([key, format!("{v:?}")]).unwrap();
        }
        String::from_utf8(writer.into_inner().unwrap()).unwrap()
    }
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Text as the SVG writes it.
fn xml(text: &str) -> String {
    report::charts::svg::escape(text)
}

/// Draw the chart `body` of `study`'s runs.
fn render(study: &Study, body: &str) -> ChartSet {
    let config = report::config::parse(Path::new("book.toml"), &study.book()).unwrap();
    let at = report::diagnostic::Location::new("c.md", 1, 1);
    let spec = spec::parse(body, &at).unwrap();
    report::charts::render(&[spec], &study.results(), &config).unwrap()
}

/// numpy's box of each sample: lower whisker, Q1, median, Q3, upper
/// whisker, runs beyond the whiskers, n (`np.percentile`, linear, and
/// Tukey's whiskers written out).
fn numpy_boxes(python: &str, samples: &[&[f64]]) -> Vec<Vec<f64>> {
    let input = serde_json::to_string(samples).unwrap();
    let script = r#"
import sys, json, numpy as np
for v in json.load(sys.stdin):
    v = np.sort(np.array(v, dtype=float))
    q1, med, q3 = np.percentile(v, [25, 50, 75])
    reach = 1.5 * (q3 - q1)
    inside = v[(v >= q1 - reach) & (v <= q3 + reach)]
    low, high = inside.min(), inside.max()
    beyond = int(((v < low) | (v > high)).sum())
    print(*map(repr, [float(low), float(q1), float(med), float(q3), float(high), beyond, len(v)]))
"#;
    let text = python_output(python, script, &input);
    text.lines().map(|l| l.split(' ').map(|v| v.parse().unwrap()).collect()).collect()
}

/// Assert that `ours` equals numpy's `theirs` to 1e-12 relative.
fn assert_close(ours: &[f64], theirs: &[f64], what: &str) {
    assert_eq!(ours.len(), theirs.len(), "{what}: {ours:?} {theirs:?}");
    for (a, b) in ours.iter().zip(theirs) {
        assert!(
            (a - b).abs() <= 1e-12 * b.abs().max(1.0),
            "{what}:\nours  {ours:?}\nnumpy {theirs:?}"
        );
    }
}

/// The first group of class `class` of `svg`, with the groups inside it.
fn group<'s>(svg: &'s str, class: &str) -> &'s str {
    let start = svg.find(&format!("<g class=\"{class}\"")).unwrap_or_else(|| panic!("no {class}"));
    let rest = &svg[start..];
    let (mut depth, mut end) = (0, 0);
    for line in rest.split_inclusive('\n') {
        end += line.len();
        depth += usize::from(line.starts_with("<g"));
        depth -= usize::from(line.starts_with("</g>"));
        if depth == 0 {
            break;
        }
    }
    &rest[..end]
}

/// The category labels under the axis, as drawn: x, text (its lines
/// joined by a space), and its title when cut short.
fn categories(svg: &str) -> Vec<(i32, String, Option<String>)> {
    let labels = group(svg, "categories");
    let mut out: Vec<(i32, String, Option<String>)> = Vec::new();
    let mut title = None;
    for line in labels.lines() {
        if let Some(t) = line.strip_prefix("<title>") {
            title = Some(t.trim_end_matches("</title>").to_string());
        } else if let Some(attributes) = line.strip_prefix("<text x=\"") {
            let x: i32 = attributes[..attributes.find('"').unwrap()].parse().unwrap();
            if out.last().is_none_or(|l| l.0 != x) {
                out.push((x, String::new(), title.take()));
            }
        } else if !line.starts_with('<') {
            let text = &mut out.last_mut().unwrap().1;
            if !text.is_empty() {
                text.push(' ');
            }
            text.push_str(line);
        }
    }
    out
}

/// 2 to 8 alternatives of 1 to 500 runs each, of every shape, labelled
/// with spaces, Unicode and HTML's characters: every box as numpy has it,
/// in book.toml's order, one per series group with its rings, each named
/// under the axis (cut short only with its whole label as title).
#[test]
fn generated_alternatives_match_numpy() {
    let Some(python) = python() else { return };
    let body = "id = \"b\"\nkind = \"box-plot\"\ndata = \"runs\"\ny = \"time_s\"\n";
    let (mut boxes, mut constant, mut single, mut cut) = (0, 0, 0, 0);
    for seed in 0..42 {
        let study = Study::generate(seed);
        let chart = &render(&study, body).charts[0];
        let order: Vec<&(String, String, Vec<f64>)> =
            study.declared.iter().map(|&i| &study.alternatives[i]).collect();
        let samples: Vec<&[f64]> = order.iter().map(|a| a.2.as_slice()).collect();
        let numpy = numpy_boxes(python, &samples);
        assert_eq!(chart.table.rows.len(), order.len(), "seed {seed}");
        assert_eq!(chart.table.header[0], "Environment");
        assert_eq!(chart.table.header[1], "time_s, lower whisker");
        for ((row, alternative), want) in chart.table.rows.iter().zip(&order).zip(&numpy) {
            assert_eq!(row.series, alternative.1, "seed {seed}");
            let ours: Vec<f64> = row.values.iter().map(|v| v.unwrap()).collect();
            assert_close(&ours, want, &format!("seed {seed}, {}", alternative.1));
            boxes += 1;
            constant += usize::from(want[1] == want[3] && want[0] == want[4]);
            single += usize::from(want[6] == 1.0);
        }
        let svg = &chart.svg;
        assert!(!svg.contains("class=\"legend\""), "the axis names the boxes: {svg}");
        let labels = categories(svg);
        assert_eq!(labels.len(), order.len(), "seed {seed}");
        for (style, ((x, shown, title), alternative)) in labels.iter().zip(&order).enumerate() {
            let label = xml(&alternative.1);
            match title {
                None => assert_eq!(*shown, label),
                Some(title) => {
                    assert_eq!(*title, label);
                    assert!(shown.contains('…'), "seed {seed}: {shown}");
                    cut += 1;
                }
            }
            let rings = group(svg, &format!("s{style}")).matches("<circle").count();
            assert_eq!(rings as f64, numpy[style][5], "seed {seed}, rings of {label}");
            assert!(style == 0 || *x > labels[style - 1].0, "boxes left to right in order");
        }
        let points = group(svg, "points");
        assert_eq!(points.matches("role=\"img\"><title>").count(), order.len());
        let first = xml(&order[0].1);
        assert!(points.contains(&format!("<title>{first}: median ")), "{points}");
    }
    assert!(
        boxes > 200 && constant > 10 && single > 5 && cut > 10,
        "{boxes} {constant} {single} {cut}"
    );
}

/// The workloads of [`workload_runs`], in the file's order.
const WORKLOADS: [&str; 3] = ["small file", "<large> & \"odd\"", "ß"];

/// Runs per environment and workload (but none of `cand` on the third),
/// as rows (environment, workload, t) and a results table `r`.
fn workload_runs() -> (Vec<(&'static str, &'static str, f64)>, ResultSet) {
    let mut rng = Seeded(7);
    let mut rows: Vec<(&str, &str, f64)> = Vec::new();
    for (w, workload) in WORKLOADS.iter().enumerate() {
        for (e, env) in ["cand", "base"].into_iter().enumerate() {
            if (w, e) != (2, 0) {
                let runs = sample(&mut rng, SIZES[(w * 2 + e + 3) % SIZES.len()], w + e);
                rows.extend(runs.into_iter().map(|v| (env, *workload, v)));
            }
        }
    }
    let text = |name: &str, values: Vec<&str>| Column {
        name: name.into(),
        values: Values::Text(values.into_iter().collect()),
    };
    let table = Table {
        name: "r".into(),
        path: "results/r.csv".into(),
        columns: vec![
            text("environment", rows.iter().map(|r| r.0).collect()),
            text("workload", rows.iter().map(|r| r.1).collect()),
            Column { name: "t".into(), values: Values::Number(rows.iter().map(|r| r.2).collect()) },
        ],
        lines: (2..rows.len() as u32 + 2).collect(),
    };
    (rows, ResultSet { tables: [("r".to_string(), table)].into() })
}

/// A text `x` (a `workload` column) with series: boxes grouped by
/// workload in the file's order, coloured by series, every one as numpy
/// has it, the table naming each box's workload.
#[test]
fn a_text_x_groups_the_boxes_and_matches_numpy() {
    let Some(python) = python() else { return };
    let (rows, results) = workload_runs();
    let book = fs::read_to_string(repo().join("tests/fixtures/charts/book.toml")).unwrap();
    let config = report::config::parse(Path::new("book.toml"), &book).unwrap();
    let body = "id = \"w\"\nkind = \"box-plot\"\ndata = \"r\"\nx = \"workload\"\ny = \"t\"\n";
    let at = report::diagnostic::Location::new("c.md", 1, 1);
    let spec = spec::parse(body, &at).unwrap();
    let chart = &report::charts::render(&[spec], &results, &config).unwrap().charts[0];
    // Series in book.toml's order (Base, then Candidate), workloads in the file's.
    let mut expected = Vec::new();
    for (env, label) in [("base", "Base"), ("cand", "Candidate")] {
        for workload in WORKLOADS {
            let runs: Vec<f64> =
                rows.iter().filter(|r| r.0 == env && r.1 == workload).map(|r| r.2).collect();
            if !runs.is_empty() {
                expected.push((label, workload, runs));
            }
        }
    }
    let samples: Vec<&[f64]> = expected.iter().map(|e| e.2.as_slice()).collect();
    let numpy = numpy_boxes(python, &samples);
    assert_eq!(chart.table.rows.len(), expected.len());
    for ((row, (label, workload, _)), want) in chart.table.rows.iter().zip(&expected).zip(&numpy) {
        let cells = chart.table.page_cells(row);
        assert_eq!((row.series.as_str(), cells[0].as_str()), (*label, *workload));
        let ours: Vec<f64> = row.values[1..].iter().map(|v| v.unwrap()).collect();
        assert_close(&ours, want, workload);
    }
    let csv = chart.csv();
    assert!(csv.starts_with("Environment,workload,\"t, lower whisker\""), "{csv}");
    assert!(csv.contains("\nBase,\"<large> & \"\"odd\"\"\","), "{csv}");
    assert_workload_slots(&chart.svg);
}

/// The SVG of [`workload_runs`]: a legend, the workloads named under the
/// axis, two boxes side by side in each of the first two slots and Base's
/// alone, in its place, in the third.
fn assert_workload_slots(svg: &str) {
    assert!(svg.contains("<g class=\"legend\">"), "series need a legend");
    // A label on two lines reads joined; one cut short, by its title.
    let named: Vec<String> = categories(svg).into_iter().map(|c| c.2.unwrap_or(c.1)).collect();
    assert_eq!(named, WORKLOADS.map(xml));
    assert!(svg.contains("<title>Base at ß: median "), "{svg}");
    let boxes = |style: usize| -> Vec<i32> {
        group(svg, &format!("s{style}"))
            .lines()
            .filter(|l| l.starts_with("<rect") && l.contains("opacity"))
            .map(|l| l.split('"').nth(1).unwrap().parse().unwrap())
            .collect()
    };
    let (base, cand) = (boxes(0), boxes(1));
    assert_eq!((base.len(), cand.len()), (3, 2));
    assert!(base[0] < cand[0] && base[1] < cand[1]);
    let centres: Vec<i32> = categories(svg).into_iter().map(|c| c.0).collect();
    let offset = |slot: usize| base[slot] - centres[slot];
    assert!((offset(2) - offset(0)).abs() <= 1, "{base:?} {centres:?}");
}

/// A small study of three commands: the SVG, reviewed.
#[test]
fn a_box_plot_of_alternatives_is_snapshotted() {
    let book = "[book]\ntitle = \"Three commands\"\ndate = \"2026-12-02\"\n\n[study]\n\
        baseline = \"gzip -1\"\nenvironment-column = \"command\"\n\n\
        [environments.\"gzip -1\"]\nlabel = \"gzip, fastest\"\n\n\
        [environments.\"gzip -9\"]\nlabel = \"gzip, smallest\"\n\n\
        [environments.\"zstd -19 --long=27\"]\nlabel = \"zstd <long> & \\\"ultra\\\" mode\"\n";
    let csv = "command,time_s\ngzip -1,1.0\ngzip -1,1.1\ngzip -1,1.2\ngzip -1,1.3\ngzip -1,3.0\n\
        gzip -9,2.0\ngzip -9,2.2\ngzip -9,2.1\nzstd -19 --long=27,4.0\nzstd -19 --long=27,4.0\n";
    let page = "# Three commands\n\n```chart\nid = \"runs\"\nkind = \"box-plot\"\ndata = \"runs\"\n\
        y = \"time_s\"\ny-label = \"time (s)\"\ncaption = \"Every run of each command.\"\n```\n";
    let study = written_study(book, &[("runs.csv", csv)], page);
    let output = report(study.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let site = study.path().join("site");
    let svg = fs::read_to_string(site.join("charts/runs.svg")).unwrap();
    // gzip -1: Q1 1.1, median 1.2, Q3 1.3 (numpy), IQR 0.2: 3.0 lies beyond.
    assert!(svg.contains("<title>gzip, fastest: median 1.20, quartiles 1.10 to 1.30, whiskers 1.00 to 1.30, n = 5, 1 run beyond the whiskers</title>"), "{svg}");
    insta::assert_snapshot!("svg_alternatives", svg);
    let csv = fs::read_to_string(site.join("data/charts/runs.csv")).unwrap();
    assert_eq!(
        csv,
        "Environment,\"time (s), lower whisker\",\"time (s), Q1\",\"time (s), median\",\
         \"time (s), Q3\",\"time (s), upper whisker\",Runs beyond the whiskers,Runs (n)\n\
         \"gzip, fastest\",1,1.1,1.2,1.3,1.3,1,5\n\"gzip, smallest\",2,2.05,2.1,2.15,2.2,0,3\n\
         \"zstd <long> & \"\"ultra\"\" mode\",4,4,4,4,4,0,2\n"
    );
    let html = fs::read_to_string(site.join("index.html")).unwrap();
    assert!(
        html.contains("<th scope=\"row\">zstd &lt;long&gt; &amp; &quot;ultra&quot; mode</th>"),
        "the table names each box"
    );
    assert!(html.contains("2 to 5 runs per box."), "the caption counts the runs");
    let paper = site.join("paper.pdf");
    assert!(fs::metadata(&paper).unwrap().len() > 1000, "the paper is written");
}

/// The kinds that need a numeric x say so, and point at the box plot.
#[test]
fn other_kinds_need_a_numeric_x_and_suggest_a_box_plot() {
    let at = report::diagnostic::Location::new("content/index.md", 3, 1);
    let err = spec::parse("id = \"t\"\nkind = \"line\"\ndata = \"runs\"\ny = \"time_s\"\n", &at)
        .unwrap_err()
        .to_string();
    assert!(err.contains("chart `t`: missing field `x`"), "{err}");
    assert!(err.contains("kind = \"box-plot\""), "{err}");
    let study = Study::generate(1);
    let config = report::config::parse(Path::new("book.toml"), &study.book()).unwrap();
    for kind in ["line", "relative", "speedup", "efficiency"] {
        let body = format!(
            "id = \"t\"\nkind = \"{kind}\"\ndata = \"runs\"\nx = \"command\"\ny = \"time_s\"\n"
        );
        let spec = spec::parse(&body, &at).unwrap();
        let err =
            report::charts::render(&[spec], &study.results(), &config).unwrap_err().to_string();
        assert!(err.contains("chart `t`: x column `command` is not numeric"), "{err}");
        assert!(err.contains("the x of `kind = \"box-plot\"`"), "{kind}: {err}");
    }
}

/// Two generated studies built whole, page and paper, from their CSV.
#[test]
fn generated_alternatives_build_as_a_study() {
    for seed in [3, 12] {
        let study = Study::generate(seed);
        let page = "# Alternatives\n\n```chart\nid = \"b\"\nkind = \"box-plot\"\ndata = \"runs\"\ny = \"time_s\"\n```\n";
        let dir = written_study(&study.book(), &[("runs.csv", &study.csv())], page);
        let output = report(dir.path(), &["build"]);
        assert!(output.status.success(), "seed {seed}: {}", stderr(&output));
        let html = fs::read_to_string(dir.path().join("site/index.html")).unwrap();
        for (_, label, _) in &study.alternatives {
            assert!(
                html.contains(&format!("<th scope=\"row\">{}</th>", xml(label))),
                "seed {seed}: {label}"
            );
        }
    }
}

/// Real hyperfine runs of three commands, imported and drawn without x:
/// a box per command, in book.toml's order, with its runs.
#[test]
fn a_hyperfine_run_of_three_commands_is_a_box_plot() {
    if !tool("hyperfine", &["--version"]) {
        return;
    }
    let study = common::import::new_study();
    let root = study.path();
    let args =
        ["-N", "--runs", "5", "sleep 0.002", "sleep 0.001", "true", "--export-json", "h.json"];
    let out =
        std::process::Command::new("hyperfine").args(args).current_dir(root).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let output =
        common::import::import(root, &["hyperfine", root.join("h.json").to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let book = "[book]\ntitle = \"Sleeping\"\ndate = \"2026-12-02\"\n\n[study]\n\
        baseline = \"sleep 0.001\"\nenvironment-column = \"command\"\n\n\
        [environments.\"sleep 0.001\"]\nlabel = \"1 ms\"\n\n\
        [environments.\"sleep 0.002\"]\nlabel = \"2 ms\"\n\n\
        [environments.true]\nlabel = \"no sleep\"\n\n[data.hyperfine]\nkey = [\"command\", \"run\"]\n";
    fs::write(root.join("book.toml"), book).unwrap();
    fs::create_dir_all(root.join("content")).unwrap();
    let page = "# Sleeping\n\n```chart\nid = \"runs\"\nkind = \"box-plot\"\ndata = \"hyperfine\"\ny = \"time_s\"\n```\n";
    fs::write(root.join("content/index.md"), page).unwrap();
    let output = report(root, &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let svg = fs::read_to_string(root.join("site/charts/runs.svg")).unwrap();
    let shown: Vec<String> = categories(&svg).into_iter().map(|c| c.1).collect();
    assert_eq!(shown, ["1 ms", "2 ms", "no sleep"]);
    let csv = fs::read_to_string(root.join("site/data/charts/runs.csv")).unwrap();
    let counts: Vec<&str> = csv.lines().skip(1).map(|l| l.rsplit(',').next().unwrap()).collect();
    assert_eq!(counts, ["5", "5", "5"], "{csv}");
}

/// The fenced blocks of the section of `doc` under `heading` (up to the
/// next `###` heading), in order: (language, text).
fn blocks(doc: &str, heading: &str) -> Vec<(String, String)> {
    let start = doc.find(heading).unwrap_or_else(|| panic!("no {heading}"));
    let section = &doc[start..];
    let section = &section[..section.find("\n### ").unwrap_or(section.len())];
    let (mut out, mut open): (Vec<(String, String)>, Option<String>) = (Vec::new(), None);
    for line in section.lines() {
        match &open {
            None if line.starts_with("```") => {
                let fence: String = line.chars().take_while(|c| *c == '`').collect();
                out.push((line[fence.len()..].to_string(), String::new()));
                open = Some(fence);
            }
            Some(fence) if line == fence => open = None,
            Some(_) => out.last_mut().unwrap().1.push_str(&format!("{line}\n")),
            None => {}
        }
    }
    out
}

/// docs/importing.md's hyperfine example, run as written: its commands
/// (hyperfine on a tarball, `report import`), its book.toml and its page,
/// built into a box plot of the two commands and their comparison.
#[test]
fn the_hyperfine_example_of_the_docs_builds_as_written() {
    if !tool("hyperfine", &["--version"]) || !tool("gzip", &["--version"]) {
        return;
    }
    let doc = fs::read_to_string(repo().join("docs/importing.md")).unwrap();
    let blocks = blocks(&doc, "#### Example: two commands on one workload");
    let languages: Vec<&str> = blocks.iter().map(|b| b.0.as_str()).collect();
    assert_eq!(languages, ["sh", "toml", "markdown"]);
    let study = tempfile::tempdir().unwrap();
    let root = study.path();
    // A tarball of half text, half noise: 256 KiB that gzip takes a moment over.
    let mut rng = Seeded(5);
    let data: Vec<u8> = (0..262_144)
        .map(|i| if i % 2 == 0 { b"report "[i / 2 % 7] } else { (rng.next() * 256.0) as u8 })
        .collect();
    fs::write(root.join("data.tar"), data).unwrap();
    fs::create_dir_all(root.join("results")).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_report")).parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    for command in blocks[0].1.lines() {
        let out = std::process::Command::new("sh")
            .args(["-c", command])
            .current_dir(root)
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(out.status.success(), "{command}: {}", String::from_utf8_lossy(&out.stderr));
    }
    fs::write(root.join("book.toml"), &blocks[1].1).unwrap();
    fs::create_dir_all(root.join("content")).unwrap();
    fs::write(root.join("content/index.md"), &blocks[2].1).unwrap();
    let output = report(root, &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let svg = fs::read_to_string(root.join("site/charts/runs.svg")).unwrap();
    let shown: Vec<String> = categories(&svg).into_iter().map(|c| c.1).collect();
    assert_eq!(shown, ["gzip -1", "gzip -9"]);
    let csv = fs::read_to_string(root.join("site/data/charts/runs.csv")).unwrap();
    let counts: Vec<&str> = csv.lines().skip(1).map(|l| l.rsplit(',').next().unwrap()).collect();
    assert_eq!(counts, ["20", "20"], "{csv}");
    let html = fs::read_to_string(root.join("site/index.html")).unwrap();
    assert!(!html.contains("{{"), "the statistic is computed: {html}");
    assert!(html.contains("Level 9 against level 1: "), "{html}");
}
