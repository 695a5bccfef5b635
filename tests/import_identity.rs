//! What identifies an imported file: its source and its content, both.
//! Short outputs of different runs print the same bytes (an `osu_barrier`
//! run is three lines), and each is a run: none is lost, and importing the
//! same files again adds nothing; `--dry-run` says which file would add
//! what, and why any is skipped.

use std::fs;
use std::path::Path;

use crate::common;
use common::import::{import, new_study};
use common::*;

/// Real `osu_barrier` output (tests/fixtures/import/barrier/, see
/// tests/fixtures/import/README.md): three of the five files hold the same bytes.
fn barrier() -> String {
    repo().join("tests/fixtures/import/barrier").to_str().unwrap().to_string()
}

const PATTERN: &str = "{env}/osu_barrier-{run}.out";

/// `(environment, run, latency_us)` of each row of results/osu_barrier.csv.
fn latencies(root: &Path) -> Vec<(String, String, String)> {
    let mut reader = csv::Reader::from_path(root.join("results/osu_barrier.csv")).unwrap();
    let header = reader.headers().unwrap().clone();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (env, run, latency) = (at("environment"), at("run"), at("latency_us"));
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[env].to_string(), r[run].to_string(), r[latency].to_string())
        })
        .collect()
}

#[test]
fn byte_identical_barrier_runs_are_each_imported_once() {
    let study = new_study();
    let root = study.path();
    let dry = import(root, &["osu", "--pattern", PATTERN, "--dry-run", &barrier()]);
    let err = stderr(&dry);
    assert!(dry.status.success(), "{err}");
    // Every file is listed with the row it would add and its source.
    for source in [
        "barrier/bare-metal/osu_barrier-1.out",
        "barrier/bare-metal/osu_barrier-2.out",
        "barrier/bare-metal/osu_barrier-3.out",
        "barrier/usernetes/osu_barrier-1.out",
        "barrier/usernetes/osu_barrier-2.out",
    ] {
        let line = format!(
            "would add 1 row from {} (source `{source}`) to results/osu_barrier.csv",
            Path::new(&barrier()).parent().unwrap().join(source).display()
        );
        assert!(err.contains(&line), "{line}\n{err}");
    }
    assert!(err.contains("2 files hold the same bytes as another file of other source: each would be imported as runs of its own"), "{err}");
    assert!(err.contains("would add 5 rows to results/osu_barrier.csv"), "{err}");
    assert!(!root.join("results/osu_barrier.csv").exists());

    let first = import(root, &["osu", "--pattern", PATTERN, &barrier()]);
    assert!(first.status.success(), "{}", stderr(&first));
    let rows = |v: &[(&str, &str, &str)]| -> Vec<(String, String, String)> {
        v.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())).collect()
    };
    // Counted by hand from the five files.
    let want = rows(&[
        ("bare-metal", "1", "8.32"),
        ("bare-metal", "2", "8.32"),
        ("bare-metal", "3", "8.63"),
        ("usernetes", "1", "8.32"),
        ("usernetes", "2", "12.57"),
    ]);
    assert_eq!(latencies(root), want);

    // The same files again: nothing added, no byte changed, each skip said.
    let before = fs::read(root.join("results/osu_barrier.csv")).unwrap();
    let again = import(root, &["osu", "--pattern", PATTERN, "--dry-run", &barrier()]);
    let err = stderr(&again);
    assert!(err.contains("5 files skipped as already imported, 0 refused"), "{err}");
    assert!(
        err.contains("osu_barrier-2.out: already imported: results/osu_barrier.csv:3 has a row from source `barrier/bare-metal/osu_barrier-2.out` with the same content (sha256 e1491ab2ba5c)"),
        "{err}"
    );
    let again = import(root, &["osu", "--pattern", PATTERN, &barrier()]);
    assert!(stderr(&again).contains("5 files skipped as already imported"), "{}", stderr(&again));
    assert_eq!(fs::read(root.join("results/osu_barrier.csv")).unwrap(), before);
}

#[test]
fn one_real_output_in_two_folders_is_two_runs_and_a_changed_file_is_said() {
    let Some(f) = shared_fixtures() else { return };
    let study = new_study();
    let root = study.path();
    let logs = tempfile::tempdir().unwrap();
    let real = f.join("flux-usernetes/osu/bare-metal/osu_latency-1.out");
    for env in ["a", "b"] {
        fs::create_dir_all(logs.path().join(env)).unwrap();
        fs::copy(&real, logs.path().join(env).join("osu_latency-1.out")).unwrap();
    }
    let args = ["osu", "--nodes", "2", "--pattern", "{env}/osu_latency-{run}.out"];
    let all = [&args[..], &[logs.path().to_str().unwrap()]].concat();
    let output = import(root, &all);
    assert!(
        stderr(&output).contains("added 48 rows to results/osu_latency.csv"),
        "{}",
        stderr(&output)
    );
    // The file grows by a second table: the same source with other content is
    // imported again (both tables), and the warning says so.
    let text = fs::read_to_string(&real).unwrap();
    fs::write(logs.path().join("a/osu_latency-1.out"), format!("{text}{text}")).unwrap();
    let output = import(root, &all);
    let err = stderr(&output);
    assert!(
        err.contains(
            "was imported before with other content: its runs are added again as new runs"
        ),
        "{err}"
    );
    assert!(
        err.contains("added 48 rows") && err.contains("1 file skipped as already imported"),
        "{err}"
    );
}
