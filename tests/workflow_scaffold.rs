//! What a study repository gets: the workflow `report new` writes into a
//! study (installs the released report with the action, pinned to its
//! version; least privilege), its shell steps run here against a fake GitHub
//! environment (they publish a push, build pull requests and manual runs,
//! and stop at a broken study), the scaffold's caveats, and the release
//! workflow building every target the install script asks for, after the
//! tests pass on Linux, macOS and Windows.

use std::fs;

use crate::action_steps;
use crate::common;
use action_steps::load;
use common::workflow::{WORKFLOW, assert_publishes_with_least_privilege, home, new_study, strings};
use common::*;

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
        .find(|s| s["uses"].as_str().is_some_and(|u| u.contains("/report@")))
        .expect("the action");
    let major = format!("v{}", env!("CARGO_PKG_VERSION_MAJOR"));
    assert_eq!(
        action["uses"].as_str(),
        Some(format!("{}@{major}", home()).as_str()),
        "report's repository, at the major tag a release moves"
    );
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

/// The scaffolded workflow's steps, run with bash as on a Linux runner: Unix only.
#[cfg(unix)]
mod runs {
    use super::*;
    use std::path::{Path, PathBuf};

    use action_steps::{Ran, Runner, assert_all_ok, report_on_path, two_commits};

    /// 2026-03-05T00:00:00Z, by hand: 56 years of days since 1970 (14 of them leap
    /// years) = 20,454 days, + 31 + 28 + 4 = 20,517 days × 86,400 s.
    const SECOND_COMMIT_EPOCH: &str = "1772668800";

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

    /// A new study with two commits: the second moves the run time on 100 MB.
    /// By hand: the candidate's first three runs 1.0 s faster, {16.1, 16.3,
    /// 15.9, 17.2, 17.0, 17.4}, mean 99.9 / 6 = 16.65 against the current
    /// version's 18.65: 16.65 / 18.65 − 1 = −10.7% (it was 17.15 / 18.65 − 1 = −8.0%).
    fn scaffold_with_new_results() -> (tempfile::TempDir, PathBuf, String) {
        let (dir, study) = new_study();
        let (first, _) = two_commits(&study, |root| edit(root, "results/runs.csv", OLD, NEW));
        (dir, study, first)
    }

    const OLD: &str = "candidate,100,1,17.1\ncandidate,100,2,17.3\ncandidate,100,3,16.9";
    const NEW: &str = "candidate,100,1,16.1\ncandidate,100,2,16.3\ncandidate,100,3,15.9";
    const MOVED: &str = "- Run time on 100 MB: \u{2212}8.0% → \u{2212}10.7%";

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
        assert!(
            summary.contains(&format!("## Headline claims against {}", &first[..7])),
            "{summary}"
        );
        assert!(summary.contains(MOVED), "{summary}");

        // The same commit built again (a re-run, later): the same bytes.
        let pdf = fs::read(study.join("site/paper.pdf")).unwrap();
        fs::remove_dir_all(study.join("site")).unwrap();
        assert_all_ok(&scaffold_runner(&study, "push", &first, bin.path()).run(steps));
        assert_eq!(
            fs::read(study.join("site/paper.pdf")).unwrap(),
            pdf,
            "a re-run gives the same PDF"
        );
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
        edit(&study, "results/runs.csv", "candidate,100,1,16.1", "candidate,100,1,x");
        let ran = scaffold_runner(&study, "push", &first, bin.path()).run(steps);
        let last = ran.last().unwrap();
        assert!(!last.ok && last.name == "Check the study", "{ran:?}");
        assert!(last.output.contains("results/runs.csv:32"), "{}", last.output);
    }
}

#[test]
fn a_new_study_shows_its_caveats_on_the_page_and_once_in_the_paper() {
    let (_dir, study) = new_study();
    // Generalised to other sizes (t over the three), the scaffold's average
    // over sizes, −5.5%, is inconclusive: a caveat (its diagnostic is worded
    // apart).
    edit(&study, "book.toml", "per = \"input_mb\"\n", "per = \"input_mb\"\ngeneralise = true\n");
    let output = report(&study, &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let caveat = "5.5% lower, is inconclusive";
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

#[test]
fn nothing_is_released_before_the_tests_pass_on_linux_macos_and_windows() {
    let w = load(&repo().join(".github/workflows/release.yml"));
    let test = &w["jobs"]["test"];
    let systems = strings(&test["strategy"]["matrix"]["os"]);
    assert_eq!(systems, ["ubuntu-latest", "macos-latest", "windows-latest"]);
    let steps = test["steps"].as_vec().unwrap();
    let runs: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    assert!(runs.contains(&"cargo test --locked"), "{runs:?}");
    assert!(test["env"]["REPORT_REQUIRE_TOOLS"].is_badvalue(), "tools may be missing there");
    assert_eq!(strings(&w["jobs"]["release"]["needs"]), ["test", "build"]);
}

/// A workflow that still names a placeholder where report's action goes
/// (`<OWNER>/report`, written by a report built without a home, or the
/// `OWNER/report` of report 0.1.0, which anyone could register) fails
/// `report check` at its file, line and column, with the line to write.
#[test]
fn check_refuses_a_workflow_that_names_a_placeholder_action() {
    let (_dir, study) = new_study();
    let workflow = fs::read_to_string(study.join(WORKFLOW)).unwrap();
    let line = workflow.lines().position(|l| l.contains("/report@")).unwrap() + 1;
    let ours = format!("{}@v{}", home(), env!("CARGO_PKG_VERSION_MAJOR"));
    assert!(report(&study, &["check"]).status.success());
    for (placeholder, column) in [("<OWNER>/report@v0", 15), ("\"OWNER/report@v1\"", 16)] {
        fs::write(study.join(WORKFLOW), workflow.replace(&ours, placeholder)).unwrap();
        let output = report(&study, &["check"]);
        assert_eq!(output.status.code(), Some(1), "{placeholder}: {}", stderr(&output));
        let err = stderr(&output);
        let at = format!(".github/workflows/publish.yml:{line}:{column}:");
        assert!(err.contains(&at), "{at} in {err}");
        assert!(err.contains("names a placeholder"), "{err}");
        assert!(err.contains(&format!("write `uses: {ours}`")), "{err}");
    }
    // With an error of the study itself, both are reported.
    edit(&study, "results/runs.csv", "current,1,1,0.212", "current,1,1,x");
    let err = stderr(&report(&study, &["check"]));
    assert!(err.contains("results/runs.csv:2:") && err.contains("publish.yml"), "{err}");
}

/// What the release gives `report new`: the repository it releases from, by
/// the variable build.rs reads; with it the scaffold names that repository's
/// action and no placeholder, and actionlint passes.
#[test]
fn a_release_build_scaffolds_a_workflow_without_a_placeholder() {
    let release = load(&repo().join(".github/workflows/release.yml"));
    let env = &release["jobs"]["build"]["env"];
    assert_eq!(env["REPORT_REPOSITORY"].as_str(), Some("${{ github.repository }}"));
    let build = fs::read_to_string(repo().join("build.rs")).unwrap();
    assert!(build.contains("std::env::var(\"REPORT_REPOSITORY\")"));

    use crate::publish::build_script::home as home_of;
    assert_eq!(
        home_of(Some("fork/report"), "https://github.com/a/b").as_deref(),
        Some("fork/report")
    );
    assert_eq!(home_of(None, "https://github.com/a/b.git").as_deref(), Some("a/b"));
    assert_eq!(home_of(Some("not a repo"), "https://github.com/a/b").as_deref(), Some("a/b"));
    for (from_env, manifest) in [(None, ""), (None, "https://gitlab.com/a/b"), (Some("../x"), "")] {
        assert_eq!(home_of(from_env, manifest), None, "{from_env:?} {manifest}");
    }

    let text = report::scaffold::workflow::workflow(Some("fork/report"));
    let major = env!("CARGO_PKG_VERSION_MAJOR");
    assert!(text.contains(&format!("- uses: fork/report@v{major}\n")), "{text}");
    assert!(!text.contains("OWNER"), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("publish.yml");
    fs::write(&file, text).unwrap();
    if let Some(output) = crate::workflow::actionlint(&[file]) {
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stdout));
    }
}
