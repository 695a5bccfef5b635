//! Criterion benchmarks of each stage on the shipped study (and a generated
//! 100,000-row results file for the CSV stage, one of 100 runs per
//! configuration for the exact rank tests, and a Hodges–Lehmann comparison
//! of the 10^6-row benchmark study's size): CSV load, statistics, charts,
//! Markdown to HTML, Markdown to Typst, and the Typst compile.
//!
//!     cargo bench --bench stages

use std::path::Path;

use criterion::{Criterion, criterion_main};
use report::pipeline::{self, Timings};
use report::project::{self, SourceFile};
use report::render::{Refs, html, typst_markup};

/// A results file of `rows` runs: environments alternating, 6 process counts,
/// 12 rows per run number, and `value(i)` as the throughput of row `i`.
fn generated_csv(rows: usize, value: fn(usize) -> f64) -> SourceFile {
    let mut text = String::from("environment,procs,run,timesteps_per_s\n");
    for i in 0..rows {
        let env = if i % 2 == 0 { "bare-metal" } else { "kubernetes" };
        let value = value(i);
        text.push_str(&format!("{env},{},{},{value:.6}\n", 1 << ((i / 2) % 6), i / 12 + 1));
    }
    SourceFile::new("results/runs.csv", text.into_bytes())
}

/// 97 distinct throughputs, repeated.
fn repeating(i: usize) -> f64 {
    3.0 + (i % 97) as f64 / 50.0
}

/// A different throughput in every row up to 10,007 (no ties).
fn distinct(i: usize) -> f64 {
    3.0 + (i * 7_919 % 10_007) as f64 / 5_000.0
}

/// `runs` sorted logarithms of `scale` · U(0.97, 1.03), rounded to 6
/// decimals as `benches/generate.py` writes them, from a seeded generator.
#[allow(clippy::disallowed_methods)] // inputs and hand values: the system's own functions
fn uniform_logs(runs: usize, seed: u64, scale: f64) -> Vec<f64> {
    let mut state = seed;
    let mut v: Vec<f64> = (0..runs)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let unit = (state >> 11) as f64 / (1u64 << 53) as f64;
            ((scale * (0.97 + 0.06 * unit) * 1e6).round() / 1e6).ln()
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v
}

/// The study's title and its two environments, with bare metal the baseline.
const GENERIC: &str = r#"
[book]
title = "T"
[study]
baseline = "bare-metal"
[environments.bare-metal]
label = "B"
[environments.kubernetes]
label = "K"
"#;

/// Added to [`GENERIC`] for the rank tests: runs keyed and grouped by process
/// count, and a headline metric at 32 processes.
const GROUPED: &str = r#"
[data.runs]
key = ["environment", "procs", "run"]
group-by = ["procs"]
[[metrics]]
name = "tps_32"
label = "Throughput at 32 processes"
data = "runs"
value = "timesteps_per_s"
where = { procs = 32 }
better = "higher"
headline = true
"#;

fn stages(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let study = project::load(root).expect("the shipped study loads");
    let big = [generated_csv(100_000, repeating)];
    let generic = report::config::parse(Path::new("book.toml"), GENERIC).unwrap();
    c.bench_function("csv load, 100k rows", |b| {
        b.iter(|| report::results::load(&big, &generic).unwrap())
    });
    c.bench_function("csv load, shipped study", |b| {
        b.iter(|| report::results::load(&study.results, &study.config).unwrap())
    });
    // 12 configurations of 100 runs without ties: every rank test and
    // Hodges–Lehmann interval is exact (m·n = 10,000, the most for which it is).
    let grouped =
        report::config::parse(Path::new("book.toml"), &format!("{GENERIC}{GROUPED}")).unwrap();
    let hundred = report::results::load(&[generated_csv(1_200, distinct)], &grouped).unwrap();
    c.bench_function("statistics, 100 runs per side", |b| {
        b.iter(|| report::analysis::analyze(&hundred, &grouped).unwrap())
    });
    // One comparison of the 10^6-row study (`benches/generate.py`): 83,333
    // runs a side, throughputs within ±3% and 7% apart, on the log scale.
    let (c83, b83) = (uniform_logs(83_333, 1, 0.93), uniform_logs(83_333, 2, 1.0));
    c.bench_function("hodges-lehmann, 83,333 runs per side", |b| {
        b.iter(|| report::analysis::statistics::ranks::hodges_lehmann(&c83, &b83).unwrap())
    });
    let results = report::results::load(&study.results, &study.config).unwrap();
    c.bench_function("statistics", |b| {
        b.iter(|| report::analysis::analyze(&results, &study.config).unwrap())
    });
    let analyzed = pipeline::analyze(&study).unwrap();
    let prepared =
        pipeline::prepare(&study, &analyzed, Some(1_700_000_000), &mut Timings::default()).unwrap();
    c.bench_function("charts", |b| {
        b.iter(|| {
            report::charts::render(&prepared.document.charts, &analyzed.results, &study.config)
                .unwrap()
        })
    });
    let body = &prepared.document.pages[0].body;
    let refs = Refs {
        charts: &prepared.charts,
        citations: &prepared.cited.citations,
        environments: &prepared.book.environments,
        raw_html: false,
        math: Refs::none().math,
    };
    c.bench_function("markdown to html", |b| b.iter(|| html::to_html(body, refs)));
    c.bench_function("markdown to typst", |b| b.iter(|| typst_markup::convert(body, &refs)));
    c.bench_function("typst compile and pdf export", |b| {
        b.iter(|| report::render::paper::render(&prepared.resolved(&study, &analyzed)).unwrap())
    });
}

/// One group's summary at the 10^6-row study's size (83,333 runs, in a
/// shuffled order), and the two sorts it could use.
#[allow(clippy::disallowed_methods)] // inputs and hand values: the system's own functions
fn summaries(c: &mut Criterion) {
    let mut runs: Vec<f64> = uniform_logs(83_333, 1, 0.93).iter().map(|v| v.exp()).collect();
    let n = runs.len();
    (0..n).for_each(|i| runs.swap(i, i * 7_919 % n));
    c.bench_function("summary, 83,333 runs", |b| {
        b.iter(|| report::analysis::statistics::stats::Summary::sorting(runs.clone()).unwrap())
    });
    c.bench_function("sort, 83,333 runs, std", |b| {
        b.iter(|| {
            let mut v = runs.clone();
            v.sort_unstable_by(f64::total_cmp);
            v
        })
    });
    c.bench_function("sort, 83,333 runs, radix", |b| {
        b.iter(|| {
            let mut v = runs.clone();
            radsort::sort(&mut v);
            v
        })
    });
}

/// The benchmark group: every stage, 20 samples each. Written out rather than
/// with `criterion_group!`, whose generated function cannot carry a doc.
fn benches() {
    let mut criterion = Criterion::default().sample_size(20).configure_from_args();
    stages(&mut criterion);
    summaries(&mut criterion);
}

criterion_main!(benches);
