//! How long `report serve` takes to rebuild after a content edit, against a
//! full build of the shipped study. Run with `cargo bench --bench rebuild`.
//!
//! Prints the median of 30 runs of each:
//! - full: load, every stage, the PDF, and the atomic write (what `report build` does);
//! - content: a serve-mode rebuild after one Markdown file changed (pages only;
//!   the PDF is typeset in the background and does not delay the page).

// A benchmark prints its results on standard output; the lint is for the library.
#![allow(clippy::print_stdout)]

use std::path::Path;
use std::time::{Duration, Instant};

use report::serve::session::{Change, Session};

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = tempfile::tempdir().expect("a temporary folder");
    let options = report::BuildOptions {
        out: Some(out.path().join("site")),
        source_date_epoch: Some(1_700_000_000),
        base_url: None,
    };
    let runs = 30;
    let full = median(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                report::build(root, &options).expect("the shipped study builds");
                start.elapsed()
            })
            .collect(),
    );
    let mut session = Session::new(root, Some(1_700_000_000));
    session.rebuild(Change::Study).expect("the shipped study builds");
    let content = median(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                session.rebuild(Change::Content).expect("the shipped study builds");
                start.elapsed()
            })
            .collect(),
    );
    let pdf = median(
        (0..10)
            .map(|_| {
                let job = session.rebuild(Change::Content).expect("builds").pdf;
                let start = Instant::now();
                job.run().expect("the paper compiles");
                start.elapsed()
            })
            .collect(),
    );
    println!(
        "full build (site + PDF + write), median of {runs}: {:.1} ms",
        full.as_secs_f64() * 1000.0
    );
    println!(
        "serve rebuild after a content edit, median of {runs}: {:.1} ms",
        content.as_secs_f64() * 1000.0
    );
    println!("background PDF typesetting, median of 10: {:.1} ms", pdf.as_secs_f64() * 1000.0);
}
