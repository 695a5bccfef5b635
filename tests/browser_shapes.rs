//! Layout by rule (docs/layout.md) on studies of generated shapes, in a
//! real browser: 1 to 12 alternatives (some with long labels), 0 to 3
//! factors, 0 to 8 headline cards, 0 to 8 charts, computed tables of 2 to
//! 12 columns, no authors. Each is built and measured by
//! tests/browser/shapes.mjs in Debian's Chromium at 390, 768 and 1440 px:
//! every block on a grid line (the measure or the band), no cell's text
//! clipped, no blocks overlapping, no half-empty row of cards, chart text
//! never larger than the body's, a table of up to 8 columns within the band
//! at 1440 px (a wider one in a scroll box with a sticky first column and a
//! cue), and on a phone the answer and the first card's value on the first
//! screen. The shapes come from a fixed seed, so that a run judges the
//! change; `REPORT_LAYOUT_SEED` and `REPORT_LAYOUT_SHAPES` explore others.

use std::fmt::Write as _;
use std::process::Command;

use crate::common::*;

/// A small seeded generator (xorshift64*), so that a shape is its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A whole number from `lo` to `hi`, both included.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }

    /// A number from 0 to 1.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// One study's shape, drawn from `rng`.
struct Shape {
    alternatives: usize,
    long: bool,
    /// Each factor's levels (the first factor has up to 11, for wide tables).
    factors: Vec<usize>,
    cards: usize,
    charts: usize,
    tables: usize,
    answer: bool,
}

fn shape(rng: &mut Rng) -> Shape {
    let alternatives = rng.range(1, 12);
    let factors = (0..rng.range(0, 3)).map(|i| if i == 0 { rng.range(1, 11) } else { 2 }).collect();
    Shape {
        alternatives,
        long: rng.range(0, 2) == 0,
        factors,
        cards: if alternatives > 1 { rng.range(0, 8).min(alternatives - 1) } else { 0 },
        charts: rng.range(0, 8),
        tables: rng.range(0, 2),
        answer: rng.range(0, 1) == 0,
    }
}

/// The name and label of alternative `i`.
fn alternative(s: &Shape, i: usize) -> (String, String) {
    let label = match s.long && i % 2 == 1 {
        true => format!("Alternative {i} built with a rather long descriptive configuration name"),
        false => format!("alt{i}"),
    };
    (format!("alt{i}"), label)
}

/// The study's book.toml, results and page.
fn study(s: &Shape, rng: &mut Rng) -> (String, String, String) {
    let factors: Vec<String> = (0..s.factors.len()).map(|f| format!("f{f}")).collect();
    let mut book = String::from("[book]\ntitle = \"A generated study of many shapes\"\n");
    if s.answer && s.cards > 0 {
        book.push_str("answer = \"It depends: {{ stat(name=\\\"m1\\\", field=\\\"full\\\") }} for the first alternative.\"\n");
    }
    let _ = write!(book, "\n[study]\nbaseline = \"alt0\"\nfactors = {factors:?}\n");
    for i in 0..s.alternatives {
        let (name, label) = alternative(s, i);
        let _ = write!(book, "\n[environments.{name}]\nlabel = \"{label}\"\n");
    }
    let mut key = vec!["environment".to_string()];
    key.extend(factors.iter().cloned());
    key.push("run".into());
    let _ = write!(book, "\n[data.runs]\nkey = {key:?}\n");
    let at: Vec<String> = factors.iter().map(|f| format!("{f} = 1")).collect();
    for m in 1..=s.cards {
        let _ = write!(
            book,
            "\n[[metrics]]\nname = \"m{m}\"\nlabel = \"Time of {} against alt0\"\ndata = \"runs\"\nvalue = \"time_s\"\ncandidate = \"alt{m}\"\nwhere = {{ {} }}\nbetter = \"lower\"\nheadline = true\n",
            alternative(s, m).1,
            at.join(", ")
        );
    }
    (book, results(s, rng), page(s, &factors))
}

/// Four runs of every configuration.
fn results(s: &Shape, rng: &mut Rng) -> String {
    let mut csv = String::from("environment");
    for f in 0..s.factors.len() {
        let _ = write!(csv, ",f{f}");
    }
    csv.push_str(",run,time_s\n");
    let configurations: usize = s.factors.iter().product();
    for i in 0..s.alternatives {
        for c in 0..configurations {
            let mut levels = Vec::new();
            let mut rest = c;
            for &n in &s.factors {
                levels.push(rest % n + 1);
                rest /= n;
            }
            let centre = 1.0 + i as f64 * 0.3 + levels.iter().sum::<usize>() as f64 * 0.1;
            for run in 1..=4 {
                let _ = write!(csv, "alt{i}");
                for l in &levels {
                    let _ = write!(csv, ",{l}");
                }
                let _ = writeln!(csv, ",{run},{:.4}", centre * (0.95 + 0.1 * rng.unit()));
            }
        }
    }
    csv
}

/// The page: a paragraph, the computed tables, the charts and an empty
/// section that the page leaves out.
fn page(s: &Shape, factors: &[String]) -> String {
    let mut page = String::from(
        "# A generated study of many shapes\n\nSome text about the study, long enough to wrap over two lines of the prose measure on a wide screen.\n\n## Results\n\n",
    );
    let columns = factors.first();
    // Every factor not on an axis fixed at its first level.
    let fixed = |from: usize| {
        let at: Vec<String> =
            factors[from.min(factors.len())..].iter().map(|f| format!("{f} = 1")).collect();
        format!("where = {{ {} }}\n", at.join(", "))
    };
    for t in 0..s.tables {
        let cell = if t == 0 { "median\"\nunit = \"s" } else { "relative\"\nbetter = \"lower" };
        let columns = columns.map(|c| format!("columns = \"{c}\"\n")).unwrap_or_default();
        let _ = write!(
            page,
            "```table\nid = \"t{t}\"\ndata = \"runs\"\nvalue = \"time_s\"\nrows = \"environment\"\n{columns}{}cell = \"{cell}\"\ncaption = \"A computed table\"\n```\n\n",
            fixed(1)
        );
    }
    for c in 0..s.charts {
        let chart = match (c % 2, columns) {
            (0, Some(x)) => {
                format!("kind = \"line\"\nx = \"{x}\"\naggregate = \"median\"\n{}", fixed(1))
            }
            _ => format!("kind = \"box-plot\"\n{}", fixed(0)),
        };
        let _ = write!(
            page,
            "```chart\nid = \"c{c}\"\n{chart}data = \"runs\"\ny = \"time_s\"\ncaption = \"Chart {c} of the runs\"\n```\n\n"
        );
        if c % 3 == 2 {
            page.push_str("A paragraph between the charts.\n\n");
        }
    }
    page.push_str("## Limitations\n");
    page
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn generated_shapes_keep_the_layout_rules() {
    let modules = repo().join("tests/browser/node_modules");
    let ready = modules.join("playwright-core").is_dir()
        && std::path::Path::new("/usr/bin/chromium").exists();
    if !ready || !tool("node", &["--version"]) {
        assert!(std::env::var_os("REPORT_REQUIRE_TOOLS").is_none(), "chromium and node required");
        eprintln!("SKIPPED: install Debian's chromium and run `npm ci` in tests/browser");
        return;
    }
    let seed = env_number("REPORT_LAYOUT_SEED", 43);
    let count = env_number("REPORT_LAYOUT_SHAPES", 20);
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let sites = tempfile::tempdir().unwrap();
    let mut args = Vec::new();
    for n in 0..count {
        let s = shape(&mut rng);
        let (book, csv, page) = study(&s, &mut rng);
        let dir = written_study(&book, &[("runs.csv", &csv)], &page);
        let out = sites.path().join(format!("shape-{n}"));
        let output = report(dir.path(), &["build", "--out", out.to_str().unwrap()]);
        assert!(
            output.status.success(),
            "shape {n} (seed {seed}):\n{book}\n{page}\n{}",
            stderr(&output)
        );
        args.push(out);
    }
    let check = Command::new("node")
        .arg(repo().join("tests/browser/shapes.mjs"))
        .args(&args)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(
        check.status.success(),
        "seed {seed}:\n{report}\n{}",
        String::from_utf8_lossy(&check.stderr)
    );
}
