//! How long a history of 1,000 versions × 10 series × 10 runs takes: the
//! results, the statistics (outliers, E-Divisive, the merge with Holm) and
//! stats.json in process, and a whole `report build` process (the page
//! with its history chart and table of change points, and the paper), the
//! median of 5 each. The goal: a build within 2 s.
//!
//!     cargo bench --bench history
//!     cargo bench --bench history -- --write DIR   (the study only, to time from outside)

// A benchmark prints its results on standard output; the lint is for the library.
#![allow(clippy::print_stdout)]

use std::path::Path;
use std::time::{Duration, Instant};

/// A seeded log-normal-ish run: `level` × exp(0.05 · a sum of uniforms).
#[allow(clippy::disallowed_methods)] // inputs and hand values: the system's own functions
fn run(state: &mut u64, level: f64) -> f64 {
    let mut unit = || {
        *state =
            state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (*state >> 11) as f64 / (1u64 << 53) as f64
    };
    let normal = (0..12).map(|_| unit()).sum::<f64>() - 6.0;
    level * (0.05 * normal).exp()
}

/// The page: the history chart and the table of change points, cited.
const PAGE: &str = "# H\n\n{{ history() }}\n\n@fig-history and @tbl-changes.\n\n```chart\n\
                    id = \"history\"\nkind = \"history\"\ndata = \"runs\"\ny = \"time_s\"\n\
                    caption = \"Time per version\"\n```\n\n```changes\nid = \"changes\"\n\
                    caption = \"Change points\"\n```\n";

/// Write the study into `dir`: book.toml, results/runs.csv and the page.
fn write_study(dir: &Path) {
    std::fs::create_dir_all(dir.join("results")).expect("results/");
    std::fs::create_dir_all(dir.join("content")).expect("content/");
    let mut csv = String::from("version,seq,series,time_s\n");
    let mut state = 7u64;
    for v in 0..1000 {
        for s in 0..10 {
            // A step of 5% in every other series, at a different version.
            let level = if s % 2 == 0 && v >= 100 * (s + 1) { 1.05 } else { 1.0 };
            for _ in 0..10 {
                csv.push_str(&format!("v{v:04},{v},{s},{:.6}\n", run(&mut state, level)));
            }
        }
    }
    std::fs::write(dir.join("results/runs.csv"), csv).expect("runs.csv");
    let book = "[book]\ntitle = \"H\"\n[data.runs]\ngroup-by = [\"series\"]\n[history]\n\
                data = \"runs\"\nversion = \"version\"\norder = \"seq\"\nvalue = \"time_s\"\nbetter = \"lower\"\n";
    std::fs::write(dir.join("book.toml"), book).expect("book.toml");
    std::fs::write(dir.join("content/index.md"), PAGE).expect("page");
}

/// The median of 5 whole `report build` processes of the study at `root`.
fn process(root: &Path) -> Duration {
    let mut times: Vec<Duration> = (0..5)
        .map(|_| {
            let start = Instant::now();
            let status = std::process::Command::new(env!("CARGO_BIN_EXE_report"))
                .args(["build", "--quiet", "--root"])
                .arg(root)
                .env("SOURCE_DATE_EPOCH", "1700000000")
                .status()
                .expect("report runs");
            assert!(status.success(), "the study builds");
            start.elapsed()
        })
        .collect();
    times.sort();
    times[2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(dir) = args.iter().position(|a| a == "--write").and_then(|i| args.get(i + 1)) {
        write_study(Path::new(dir));
        println!("wrote a history of 1,000 versions × 10 series × 10 runs to {dir}");
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary folder");
    write_study(dir.path());
    let project = report::project::load(dir.path()).expect("the study loads");
    let mut times: Vec<Duration> = (0..5)
        .map(|_| {
            let start = Instant::now();
            report::pipeline::stats(&project).expect("the study builds");
            start.elapsed()
        })
        .collect();
    times.sort();
    let stats = report::pipeline::stats(&project).expect("the study builds");
    let stats: serde_json::Value = serde_json::from_slice(&stats).expect("stats.json");
    let changes: usize = stats["history"]["series"]
        .as_array()
        .map_or(0, |s| s.iter().map(|s| s["changes"].as_array().map_or(0, Vec::len)).sum());
    println!(
        "history of 1,000 versions × 10 series × 10 runs: {:?} (median of 5), {changes} change points",
        times[2]
    );
    let whole = process(dir.path());
    println!(
        "the same, a whole `report build` process (page, chart, table, paper): {whole:?} (median of 5)"
    );
}
