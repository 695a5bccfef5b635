//! How long a site of studies takes to build: 50 generated studies of 20
//! headline claims each (`report build --root FOLDER` of a site.toml), and
//! the rebuild `report serve` does after one study's page changed. Run with
//! `cargo bench --bench site`; prints the medians (in process, and as a
//! whole `report build` process), and the size of the search index, whole
//! and gzipped (by `gzip -9`). `cargo bench --bench site -- --write DIR`
//! writes the site into DIR instead, to time a build from outside.

// A benchmark prints its results on standard output; the lint is for the library.
#![allow(clippy::print_stdout)]

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

/// Studies in the site, and headline claims in each.
const STUDIES: usize = 50;
const CLAIMS: usize = 20;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Write study `i` under `root/studies/sI`: `CLAIMS` relative metrics over
/// three runs a side, and a page of prose that links to the next study.
fn study(root: &Path, i: usize) {
    let dir = root.join(format!("studies/s{i:02}"));
    fs::create_dir_all(dir.join("content")).expect("a folder");
    fs::create_dir_all(dir.join("results")).expect("a folder");
    let mut book = format!(
        "[book]\ntitle = \"Study {i}: does option {i} pay?\"\ndate = \"2026-{:02}-{:02}\"\nkeywords = [\"area{}\", \"bench\"]\n\
         period = \"2026\"\nanswer = \"Option {i} changes the throughput of every workload.\"\n\n[study]\nbaseline = \"a\"\n\n\
         [environments.a]\nlabel = \"Before\"\n\n[environments.b]\nlabel = \"After\"\n",
        1 + i % 12,
        1 + i % 28,
        i % 5
    );
    for k in 0..CLAIMS {
        book += &format!(
            "\n[[metrics]]\nname = \"w{k}\"\nlabel = \"Workload {k} throughput\"\ndata = \"runs\"\nvalue = \"v{k}\"\n\
             compare = \"relative\"\nbetter = \"higher\"\nheadline = true\n"
        );
    }
    fs::write(dir.join("book.toml"), book).expect("book.toml");
    let columns: Vec<String> = (0..CLAIMS).map(|k| format!("v{k}")).collect();
    let mut csv = format!("environment,run,{}\n", columns.join(","));
    for (env, base) in [("a", 100.0), ("b", 100.0 + (i % 7) as f64)] {
        for run in 1..=3 {
            let values: Vec<String> =
                (0..CLAIMS).map(|k| format!("{}", base + k as f64 + run as f64 * 0.5)).collect();
            csv += &format!("{env},{run},{}\n", values.join(","));
        }
    }
    fs::write(dir.join("results/runs.csv"), csv).expect("runs.csv");
    let next = (i + 1) % STUDIES;
    let page = format!(
        "# Study {i}\n\nWe measured twenty workloads before and after option {i}. \
         The next study, [study {next}](../s{next:02}/), found [](../s{next:02}/#metric-w0).\n\n\
         ## Method\n\nThree runs a side on one machine, in random order.\n"
    );
    fs::write(dir.join("content/index.md"), page).expect("index.md");
}

/// Write the generated site (site.toml and its studies) into `root`.
fn write_site(root: &Path) {
    for i in 0..STUDIES {
        study(root, i);
    }
    fs::write(root.join("site.toml"), "[site]\ntitle = \"Fifty studies\"\n").expect("site.toml");
}

/// The median of `runs` whole `report build` processes of the site at
/// `root` (the papers typeset by one long-lived child per core, as the binary does).
fn process(root: &Path, runs: usize) -> Duration {
    let times = (0..runs).map(|_| {
        let start = Instant::now();
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_report"))
            .args(["build", "--quiet", "--root"])
            .arg(root)
            .env("SOURCE_DATE_EPOCH", "1700000000")
            .status()
            .expect("report runs");
        assert!(status.success(), "the site builds");
        start.elapsed()
    });
    median(times.collect())
}

/// The median of 10 rebuilds `report serve` makes after an edit of one
/// study's page: that study, then the index, search and feed.
fn rebuild(root: &Path, options: &report::BuildOptions) -> Duration {
    let site = report::site::load(root, options).expect("the site loads");
    let mut cache = report::site::Cache::build(site, Some(1_700_000_000)).expect("builds");
    let page = root.join("studies/s07/content/index.md");
    let text = fs::read_to_string(&page).expect("the page");
    let times = (0..10).map(|n| {
        fs::write(&page, format!("{text}\nEdit {n}.\n")).expect("an edit");
        let start = Instant::now();
        cache.rebuild("studies/s07").expect("the study builds");
        cache.assemble(None).expect("the site assembles");
        start.elapsed()
    });
    median(times.collect())
}

fn main() {
    // `cargo bench --bench site -- --write DIR` writes the site and stops,
    // to time `report build --root DIR` from outside (`/usr/bin/time`).
    let args: Vec<String> = std::env::args().collect();
    if let Some(dir) = args.iter().position(|a| a == "--write").and_then(|i| args.get(i + 1)) {
        write_site(Path::new(dir));
        println!("wrote a site of {STUDIES} studies × {CLAIMS} headline claims to {dir}");
        return;
    }
    let root = tempfile::tempdir().expect("a temporary folder");
    write_site(root.path());
    let options = report::BuildOptions {
        out: Some(root.path().join("site")),
        source_date_epoch: Some(1_700_000_000),
        base_url: None,
    };
    let full = median(
        (0..5)
            .map(|_| {
                let _ = fs::remove_dir_all(root.path().join("site"));
                let start = Instant::now();
                report::site::build(root.path(), &options, None).expect("the site builds");
                start.elapsed()
            })
            .collect(),
    );
    let whole = process(root.path(), 5);
    let rebuild = rebuild(root.path(), &options);
    let search = fs::read(root.path().join("site/search.json")).expect("search.json");
    let gzipped = std::process::Command::new("gzip")
        .args(["-9", "-c"])
        .arg(root.path().join("site/search.json"))
        .output()
        .map(|o| o.stdout.len())
        .unwrap_or_default();
    println!("site of {STUDIES} studies × {CLAIMS} headline claims (medians):");
    println!("  full build, papers included (5 runs):      {:8.1} ms", full.as_secs_f64() * 1e3);
    println!("  the same, `report build` process (5 runs): {:8.1} ms", whole.as_secs_f64() * 1e3);
    println!("  one study rebuilt + index (10 runs):       {:8.1} ms", rebuild.as_secs_f64() * 1e3);
    println!("  search.json: {} bytes, {} bytes gzipped", search.len(), gzipped);
}
