//! Random studies of many shapes (tests/generate_studies.py: 1 to 1,000
//! runs a side, ties on coarse grids, constant sides, wild values and wild
//! runs, normal and skewed runs of about 8, CVs of exactly 5%, unmatched
//! configurations, 1 to 50 configurations, up to 12 metrics of every
//! `compare`, `estimator`, `per`, `average`, `within-run`, and exclusions;
//! one in four factorial, with comparisons along any factor, families of
//! candidates or of `per` values with Holm's correction, and baselines
//! chosen as the best of the others) built in process, every figure,
//! interval end, p after Holm and verdict of stats.json, and every caveat's
//! trigger, checked against the independent oracle.
//! Both the oracle and the checks run one process or thread per core.
//!
//! The seed is `REPORT_ORACLE_SEED`, else the day's number (so that each
//! day's CI draws new studies); a failure prints it with the study, which
//! `REPORT_ORACLE_SEED=N cargo test --test integration stats_generated`
//! draws again. `REPORT_ORACLE_STUDIES` sets how many (500 by default).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::stats_oracle;

/// The studies' seed: `REPORT_ORACLE_SEED`, else days since 1970.
fn seed() -> u64 {
    let days = || {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        now.map_or(0, |d| d.as_secs() / 86_400)
    };
    std::env::var("REPORT_ORACLE_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(days)
}

/// The stats.json a build of the study at `root` writes, computed in process.
fn stats_of(root: &Path) -> Result<Value, String> {
    let project = report::project::load(root).map_err(|e| format!("{e:?}"))?;
    let analyzed = report::pipeline::analyze(&project).map_err(|e| format!("{e:?}"))?;
    let json = report::render::json::render(&analyzed.analysis, &project.config);
    serde_json::from_slice(&json).map_err(|e| e.to_string())
}

/// Draw the studies into `dir` and return the oracle's figures by study.
fn generate(seed: u64, count: usize, dir: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/generate_studies.py");
    let output = Command::new("python3")
        .arg(script)
        .args([seed.to_string(), count.to_string()])
        .arg(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap()
}

#[test]
fn generated_studies_match_the_oracle() {
    if !stats_oracle::scipy() {
        return;
    }
    let (seed, dir) = (seed(), tempfile::tempdir().unwrap());
    let count = std::env::var("REPORT_ORACLE_STUDIES").ok().and_then(|s| s.parse().ok());
    let expected = generate(seed, count.unwrap_or(500), dir.path());
    let studies: Vec<(&String, &Value)> = expected.as_object().unwrap().iter().collect();
    // One thread per core, each checking every k-th study.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (studies, dir) = (&studies, dir.path());
                scope.spawn(move || {
                    let mine = studies.iter().skip(t).step_by(threads);
                    mine.filter_map(|(name, want)| {
                        check(&dir.join(name), want).err().map(|why| format!("study {name}: {why}"))
                    })
                    .collect::<Vec<String>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    failures.sort();
    assert!(
        failures.is_empty(),
        "{} of {} studies of seed {seed} disagree (REPORT_ORACLE_SEED={seed}):\n{}",
        failures.len(),
        studies.len(),
        failures.join("\n")
    );
}

/// Build the study at `root` and check it against `want`.
fn check(root: &Path, want: &Value) -> Result<[usize; 3], String> {
    stats_of(root).and_then(|stats| {
        catch_unwind(AssertUnwindSafe(|| stats_oracle::check(&stats, want)))
            .map_err(|e| panic_text(&*e))
    })
}

fn panic_text(e: &(dyn std::any::Any + Send)) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}
