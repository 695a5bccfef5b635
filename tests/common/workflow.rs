//! Helpers of the publishing-workflow tests (`tests/workflow*.rs`): the
//! scaffolded study and what both publishing workflows promise.

use std::path::PathBuf;
use std::process::Command;

use yaml_rust2::Yaml;

use super::stderr;

/// Where a publishing workflow lives, in this repository and in a study.
pub const WORKFLOW: &str = ".github/workflows/publish.yml";

/// A fresh `report new` study in a temporary folder.
pub fn new_study() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let study = dir.path().join("study");
    let output =
        Command::new(env!("CARGO_BIN_EXE_report")).arg("new").arg(&study).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    (dir, study)
}

/// The strings of a YAML list.
pub fn strings(yaml: &Yaml) -> Vec<&str> {
    yaml.as_vec().unwrap().iter().filter_map(Yaml::as_str).collect()
}

/// What both publishing workflows promise: least privilege (the build job
/// reads, only the deploy job may write Pages), pull requests never deploy,
/// deploys queue, and the site is uploaded for Pages or for review.
pub fn assert_publishes_with_least_privilege(w: &Yaml) {
    assert!(!w["on"]["workflow_dispatch"].is_badvalue());
    assert_eq!(strings(&w["on"]["push"]["branches"]), ["main"]);
    let top = w["permissions"].as_hash().unwrap();
    assert_eq!(top.len(), 1, "{top:?}");
    assert_eq!(w["permissions"]["contents"].as_str(), Some("read"));
    assert!(w["jobs"]["build"]["permissions"].is_badvalue(), "the build job writes nothing");
    let deploy = &w["jobs"]["deploy"];
    assert_eq!(deploy["permissions"]["pages"].as_str(), Some("write"));
    assert_eq!(deploy["permissions"]["id-token"].as_str(), Some("write"));
    assert_eq!(deploy["permissions"].as_hash().unwrap().len(), 2);
    assert_eq!(
        deploy["if"].as_str(),
        Some("github.event_name != 'pull_request'"),
        "pull requests never deploy"
    );
    assert_eq!(deploy["environment"]["name"].as_str(), Some("github-pages"));
    assert_eq!(
        w["concurrency"]["cancel-in-progress"].as_bool(),
        Some(false),
        "running deploys finish"
    );
    let steps = w["jobs"]["build"]["steps"].as_vec().unwrap();
    let uses = |action: &str| {
        steps.iter().find(|s| s["uses"].as_str().is_some_and(|u| u.starts_with(action)))
    };
    assert_eq!(
        uses("actions/checkout@").unwrap()["with"]["fetch-depth"].as_i64(),
        Some(0),
        "diff needs the history"
    );
    assert_eq!(
        uses("actions/upload-pages-artifact@").unwrap()["if"].as_str(),
        Some("github.event_name != 'pull_request'")
    );
    assert_eq!(
        uses("actions/upload-artifact@").unwrap()["if"].as_str(),
        Some("github.event_name == 'pull_request'")
    );
    assert!(deploy["steps"][0]["uses"].as_str().unwrap().starts_with("actions/deploy-pages@"));
}

/// report's repository as `OWNER/NAME`, read here from Cargo.toml's
/// `repository` (`https://github.com/OWNER/NAME`).
pub fn home() -> String {
    let manifest = std::fs::read_to_string(super::repo().join("Cargo.toml")).unwrap();
    let manifest: toml::Table = toml::from_str(&manifest).unwrap();
    let url = manifest["package"]["repository"].as_str().expect("Cargo.toml names its repository");
    url.strip_prefix("https://github.com/").expect("a GitHub repository").to_string()
}
