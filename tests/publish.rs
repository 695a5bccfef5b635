//! What publishing relies on: `report diff` between two sets of results, the
//! provenance in both outputs, and the manifest of inputs and outputs.

use std::fs;
use std::process::Command;

use crate::common;
use common::*;

/// Scale the Kubernetes throughput at 32 processes (and its loop time) by `factor`.
fn scale_k8s_32(root: &std::path::Path, factor: f64) {
    let path = root.join("results/lammps.csv");
    let text = fs::read_to_string(&path).unwrap();
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let mut cells: Vec<String> = line.split(',').map(str::to_string).collect();
            if cells[0] == "kubernetes" && cells[2] == "32" {
                let tps: f64 = cells[9].parse().unwrap();
                let loop_time: f64 = cells[8].parse().unwrap();
                cells[9] = format!("{:.3}", tps * factor);
                cells[8] = format!("{:.4}", loop_time / factor);
            }
            cells.join(",")
        })
        .collect();
    fs::write(path, lines.join("\n") + "\n").unwrap();
}

fn diff(root: &std::path::Path, args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_report"))
        .arg("diff")
        .args(args)
        .arg("--root")
        .arg(root)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn diff_reports_how_the_headline_metrics_moved() {
    let study = shipped_study();
    let root = study.path();
    as_measured(root);
    let (old, new) = (root.join("old"), root.join("new"));
    assert!(report(root, &["build", "--out", old.to_str().unwrap()]).status.success());
    // +20% on Kubernetes at 32: 45.696 × 1.2 / 42.0 − 1 = +30.6%, far outside the old CI.
    scale_k8s_32(root, 1.2);
    assert!(report(root, &["build", "--out", new.to_str().unwrap()]).status.success());
    let text = diff(
        root,
        &[
            root.join("old/data/stats.json").to_str().unwrap(),
            root.join("new/data/stats.json").to_str().unwrap(),
        ],
    );
    // The test of each move: after ÷ before is 1.2 by construction (the
    // candidate's runs × 1.2 against the same baseline), 1 for a metric
    // that did not move (p = 1 by hand: no difference at all).
    let line = |start: &str| text.lines().find(|l| l.starts_with(start)).unwrap_or("").to_string();
    let moved = line("- Throughput at 32 cores: +8.8% → +30.6% (after ÷ before ×1.200, 95% CI ×");
    assert!(moved.ends_with(": a significant change)"), "{text}");
    let still =
        line("- Network overhead: \u{2212}2.4% → \u{2212}2.4% (after ÷ before ×1.000, 95% CI ×");
    assert!(still.ends_with(", p = 1.000: not a significant change)"), "{text}");

    // The same comparison from git: the results at the last commit against the working tree.
    let git = |args: &[&str]| Command::new("git").arg("-C").arg(root).args(args).output().unwrap();
    fs::remove_dir_all(root.join("old")).unwrap();
    fs::remove_dir_all(root.join("new")).unwrap();
    scale_k8s_32(root, 1.0 / 1.2);
    git(&["init", "-q"]);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "add", "."]);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "old results"]);
    scale_k8s_32(root, 1.2);
    let text = diff(root, &["--against", "HEAD"]);
    assert!(text.contains("- Throughput at 32 cores: +8.8% → +30.6%"), "{text}");
}

#[test]
fn both_outputs_name_the_results_and_the_manifest_hashes_every_file() {
    let study = fixture("minimal");
    let root = study.path();
    assert!(report(root, &["build"]).status.success());
    let index = fs::read_to_string(root.join("site/index.html")).unwrap();
    let manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(root.join("site/data/manifest.json")).unwrap()).unwrap();
    let hash = manifest["provenance"]["results_hash"].as_str().unwrap().to_string();
    assert!(index.contains(&format!("sha256 {hash}")), "{index}");
    assert_eq!(
        manifest["provenance"]["generator"],
        format!("report {}", env!("CARGO_PKG_VERSION"))
    );
    for input in ["book.toml", "content/index.md", "results/runs.csv"] {
        assert!(manifest["inputs"][input].is_string(), "{input} in {manifest}");
    }
    // Every output but the manifest itself, hashed; checked with Python's hashlib.
    let outputs = manifest["outputs"].as_object().unwrap();
    assert!(
        outputs.contains_key("index.html")
            && outputs.contains_key("paper.pdf")
            && !outputs.contains_key("data/manifest.json")
    );
    if let Some(python3) = python() {
        let sha = Command::new(python3)
            .args([
                "-c",
                "import hashlib,sys;print(hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest())",
            ])
            .arg(root.join("site/paper.pdf"))
            .output()
            .unwrap();
        let sha = String::from_utf8_lossy(&sha.stdout);
        assert_eq!(outputs["paper.pdf"].as_str().unwrap(), sha.trim());
    }
    if tool("pdftotext", &["-v"]) {
        let text = pdftotext(&root.join("site/paper.pdf"));
        assert!(
            // Under Data availability, no longer on the title page (issue 43).
            text.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .contains(&format!("SHA-256 digest begins {hash}"))
                && text.contains("report 0.1.0"),
            "{text}"
        );
    }
}

/// The build script, for its version text and its fallbacks.
#[allow(dead_code)]
#[path = "../build.rs"]
pub mod build_script;

#[test]
fn version_names_the_commit_it_was_built_from() {
    let output = Command::new(env!("CARGO_BIN_EXE_report")).arg("--version").output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    let git = |args: &[&str]| Command::new("git").arg("-C").arg(repo()).args(args).output();
    let checkout = git(&["rev-parse", "--show-toplevel"]).is_ok_and(|o| o.status.success());
    if !checkout {
        assert_eq!(text, format!("report {version}\n"), "no git: the version alone");
        return;
    }
    // report 0.1.0 (2c4f23dce303 2026-12-01): a commit of this checkout, with its date.
    let inner =
        text.strip_prefix(&format!("report {version} (")).and_then(|t| t.strip_suffix(")\n"));
    let (commit, date) = inner.and_then(|i| i.split_once(' ')).unwrap_or_else(|| panic!("{text}"));
    assert_eq!(commit.len(), 12, "{text}");
    let ancestor = git(&["merge-base", "--is-ancestor", commit, "HEAD"]).unwrap();
    assert!(ancestor.status.success(), "{commit} is not in this checkout's history");
    let committed = git(&["show", "-s", "--format=%cs", commit]).unwrap();
    assert_eq!(String::from_utf8_lossy(&committed.stdout).trim(), date);
}

#[test]
fn version_falls_back_to_what_is_known() {
    use build_script::{describe, git_checkout, vcs_info_commit};
    let full = "2c4f23dce3030123456789abcdef0123456789ab";
    assert_eq!(
        describe("0.1.0", Some(full), Some("2026-12-01")),
        "0.1.0 (2c4f23dce303 2026-12-01)"
    );
    assert_eq!(describe("0.1.0", Some(full), None), "0.1.0 (2c4f23dce303)");
    assert_eq!(describe("0.1.0", Some("2c4f23d"), Some("yesterday")), "0.1.0 (2c4f23d)");
    for bad in ["", "main", "2c4f23", "2c4f23dce30g"] {
        assert_eq!(describe("0.1.0", Some(bad), Some("2026-12-01")), "0.1.0", "{bad:?}");
    }
    assert_eq!(describe("0.1.0", None, None), "0.1.0");

    // No git checkout here, nor a folder inside one (a vendored copy) counts.
    let dir = tempfile::tempdir().unwrap();
    assert!(!git_checkout(dir.path()));
    assert!(!git_checkout(&repo().join("src")), "a folder inside a checkout is not one");
    assert_eq!(git_checkout(&repo()), repo().join(".git").exists());

    // A packaged crate: the commit cargo package recorded.
    assert_eq!(vcs_info_commit(dir.path()), None);
    let info =
        format!("{{\n  \"git\": {{\n    \"sha1\": \"{full}\"\n  }},\n  \"path_in_vcs\": \"\"\n}}");
    fs::write(dir.path().join(".cargo_vcs_info.json"), info).unwrap();
    assert_eq!(vcs_info_commit(dir.path()).as_deref(), Some(full));
    fs::write(dir.path().join(".cargo_vcs_info.json"), "{\"git\": {\"sha1\": \"; rm -rf /\"}}")
        .unwrap();
    assert_eq!(vcs_info_commit(dir.path()), None);
}
