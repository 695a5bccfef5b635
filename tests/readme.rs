//! The README as a user meets it: its tutorial, run command by command as
//! written (with `report` on PATH, a browser and `gh` stood in for, and a
//! bare repository as GitHub), then the workflow it pushed, run as GitHub
//! would; its install line against a release served on 127.0.0.1, which a
//! wrong checksum stops; its test command, the one CI runs; report's home
//! named in one place; and every link of the README, CONTRIBUTING.md and
//! docs/ leading somewhere.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;
use common::workflow::home;
use common::*;

/// The README's text.
fn readme() -> String {
    fs::read_to_string(repo().join("README.md")).unwrap()
}

/// The README's section whose heading starts with `heading`, up to the next `## `.
fn section(heading: &str) -> String {
    let text = readme();
    let start = text.find(&format!("\n## {heading}")).unwrap_or_else(|| panic!("## {heading}"));
    let rest = &text[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    rest[..end].to_string()
}

/// The lines of the fenced blocks of `language` in `text`.
fn blocks(text: &str, language: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in text.lines() {
        match current.as_mut() {
            None if line.trim() == format!("```{language}") => current = Some(Vec::new()),
            Some(_) if line.trim() == "```" => blocks.extend(current.take()),
            Some(lines) => lines.push(line.to_string()),
            None => {}
        }
    }
    blocks
}

#[test]
fn the_readme_is_short_and_its_test_command_is_the_one_ci_runs() {
    let text = readme();
    assert!(text.lines().count() <= 250, "{} lines", text.lines().count());
    assert!(blocks(&section("Contributing"), "sh").contains(&vec!["cargo test".to_string()]));
    let ci = fs::read_to_string(repo().join(".ci/run")).unwrap();
    let after = &ci[ci.find("# The README's test command").expect("the comment")..];
    // The command as the README writes it, `--locked` added, its output
    // piped to the log the Windows lints wait on.
    assert!(after.contains("cargo test --locked 2>&1 |\n"), "{after}");
    // Every picture the README shows is there and small, and every one of
    // docs/images is shown (the page at 1440 and 375 px, light and dark).
    let shown: Vec<&str> =
        text.split("docs/images/").skip(1).filter_map(|s| s.split('"').next()).collect();
    assert!(shown.len() >= 7, "{shown:?}");
    for image in &shown {
        let size = fs::metadata(repo().join("docs/images").join(image)).unwrap().len();
        assert!(size < 100_000, "docs/images/{image}: {size} bytes");
    }
    for entry in fs::read_dir(repo().join("docs/images")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(shown.contains(&name.as_str()), "docs/images/{name} is not in the README");
    }
}

/// Issue 42, point 5: the README gives, next to its test command, one
/// command that builds the shipped study from a fresh clone; run as
/// written (with `cargo run --release --` standing for the binary these
/// tests built) in a clone of this commit, it writes the page, the paper
/// and stats.json with every metric of the clone's book.toml.
#[test]
fn a_fresh_clone_builds_the_study_it_ships_with_the_readme_s_command() {
    let section = section("Contributing");
    let lines: Vec<String> = blocks(&section, "sh").into_iter().flatten().collect();
    let line = lines.iter().find(|l| l.starts_with("cargo run")).expect("a build command");
    assert_eq!(line, "cargo run --release -- build");
    let test = section.find("cargo test").unwrap();
    assert!(section.find(line.as_str()).unwrap() > test, "next to the test command");
    let head = Command::new("git").arg("-C").arg(repo()).args(["rev-parse", "HEAD"]).output();
    let Some(head) = head.ok().filter(|o| o.status.success()) else {
        assert!(std::env::var_os("REPORT_REQUIRE_TOOLS").is_none(), "git and a checkout");
        eprintln!("SKIPPED: the repository is not a git checkout");
        return;
    };
    let head = String::from_utf8(head.stdout).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let clone = dir.path().join("report");
    let git = |args: &[&str]| {
        let output = Command::new("git").args(args).output().unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
    };
    git(&[
        "clone",
        "-q",
        "--no-checkout",
        &repo().display().to_string(),
        &clone.display().to_string(),
    ]);
    git(&["-C", &clone.display().to_string(), "checkout", "-q", head.trim()]);
    let args: Vec<&str> = line["cargo run --release -- ".len()..].split_whitespace().collect();
    let output = Command::new(env!("CARGO_BIN_EXE_report"))
        .args(&args)
        .current_dir(&clone)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    // The repository is a site of studies (site.toml): the index at the
    // root, the top study under its path.
    let study = "site/mpi-kubernetes";
    for file in ["site/index.html", "index.html", "paper.pdf", "data/stats.json"] {
        let file =
            if file.starts_with("site/") { file.to_string() } else { format!("{study}/{file}") };
        assert!(clone.join(&file).is_file(), "{file} not written");
    }
    let book: toml::Table = fs::read_to_string(clone.join("book.toml")).unwrap().parse().unwrap();
    let stats: serde_json::Value =
        serde_json::from_slice(&fs::read(clone.join(study).join("data/stats.json")).unwrap())
            .unwrap();
    let metrics = stats["metrics"].as_array().unwrap();
    for metric in book["metrics"].as_array().unwrap() {
        let name = metric["name"].as_str().unwrap();
        assert!(metrics.iter().any(|m| m["name"] == name), "{name} not in stats.json");
    }
}

/// Every relative link (`](path)`, `src="path"`) of the README,
/// CONTRIBUTING.md and docs/*.md names a file or folder that exists, and
/// an anchor into a Markdown file names one of its headings (as GitHub
/// makes them: lowercase, punctuation dropped, spaces as `-`).
#[test]
fn every_link_of_the_documentation_leads_somewhere() {
    let mut pages = vec![repo().join("README.md"), repo().join("CONTRIBUTING.md")];
    let docs = fs::read_dir(repo().join("docs")).unwrap().map(|e| e.unwrap().path());
    pages.extend(docs.filter(|p| p.extension().is_some_and(|x| x == "md")));
    let link = regex::Regex::new(r#"\]\(([^)\s]+)\)|src="([^"]+)""#).unwrap();
    let mut checked = 0;
    for page in &pages {
        let text = without_code(&fs::read_to_string(page).unwrap());
        for captures in link.captures_iter(&text) {
            let target = captures.get(1).or(captures.get(2)).unwrap().as_str();
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let path =
                if file.is_empty() { page.clone() } else { page.parent().unwrap().join(file) };
            assert!(path.exists(), "{}: `{target}` leads nowhere", page.display());
            if !anchor.is_empty() {
                assert!(
                    anchors(&path).contains(&anchor.to_string()),
                    "{}: `{target}`",
                    page.display()
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} links");
}

/// `text` without its fenced code blocks and code spans, where a link is text.
fn without_code(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    // A code span opens with a run of backticks and closes with a run as long.
    let mut kept = String::new();
    let mut rest = out.as_str();
    while let Some(start) = rest.find('`') {
        kept.push_str(&rest[..start]);
        let run = rest[start..].len() - rest[start..].trim_start_matches('`').len();
        let after = &rest[start + run..];
        let fence = "`".repeat(run);
        let close = (0..after.len())
            .filter(|&i| after.is_char_boundary(i))
            .find(|&i| after[i..].starts_with(&fence) && !after[i + run..].starts_with('`'));
        rest = close.map_or(after, |i| &after[i + run..]);
    }
    kept.push_str(rest);
    kept
}

/// The anchors GitHub gives the headings of the Markdown file `path`.
fn anchors(path: &Path) -> Vec<String> {
    let text = fs::read_to_string(path).unwrap();
    text.lines()
        .filter_map(|l| l.trim_start_matches('#').strip_prefix(' ').filter(|_| l.starts_with('#')))
        .map(|heading| {
            heading
                .to_lowercase()
                .chars()
                .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
                .map(|c| if c == ' ' { '-' } else { c })
                .collect()
        })
        .collect()
}

/// report's home is Cargo.toml's `repository`; `homepage` is its GitHub
/// Pages site, and every release URL, `--git` URL and `uses:` of report's
/// action in the documentation, the action and its install script names
/// the same repository, at the major tag releases move.
#[test]
fn report_s_home_is_named_in_one_place() {
    let home = home();
    let (owner, name) = home.split_once('/').unwrap();
    let manifest: toml::Table =
        toml::from_str(&fs::read_to_string(repo().join("Cargo.toml")).unwrap()).unwrap();
    let homepage = manifest["package"]["homepage"].as_str().unwrap();
    assert_eq!(homepage, format!("https://{owner}.github.io/{name}/"));
    let mut files = vec!["README.md", "CONTRIBUTING.md", "action.yml", ".github/action/install.sh"]
        .into_iter()
        .map(|f| repo().join(f))
        .collect::<Vec<PathBuf>>();
    files.extend(fs::read_dir(repo().join("docs")).unwrap().map(|e| e.unwrap().path()));
    let named = regex::Regex::new(
        r"github\.com/([\w.-]+/[\w.-]+)/releases|--git https://github\.com/([\w.-]+/[\w.-]+)|uses:\s+([\w.-]+/report)@(v\d+)\b",
    )
    .unwrap();
    let mut seen = 0;
    for file in files.iter().filter(|f| f.is_file()) {
        let text = fs::read_to_string(file).unwrap();
        for captures in named.captures_iter(&text) {
            let repository = (1..=3).find_map(|i| captures.get(i)).unwrap().as_str();
            if repository == "OWNER/NAME" || repository == "$repository" {
                continue;
            }
            assert_eq!(repository, home, "{}: {}", file.display(), &captures[0]);
            if let Some(tag) = captures.get(4) {
                assert_eq!(tag.as_str(), format!("v{}", env!("CARGO_PKG_VERSION_MAJOR")));
            }
            seen += 1;
        }
        let placeholder = text.contains("OWNER/report@v1") && !file.ends_with("docs/publishing.md");
        assert!(!placeholder, "{}: the old placeholder", file.display());
    }
    assert!(seen >= 8, "{seen}");
}

/// The tutorial, on Unix, where its commands run in bash.
#[cfg(unix)]
mod tutorial {
    use super::*;
    use crate::action_steps::{Runner, assert_all_ok, load, report_on_path};
    use std::os::unix::fs::PermissionsExt;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    /// A stand-in for the GitHub CLI: `gh repo create NAME --public
    /// --source .` makes a bare repository under `remotes` and adds it as
    /// `origin`; `gh api -X POST repos/{owner}/{repo}/pages -f
    /// build_type=workflow` is the call that turns Pages on. Anything else
    /// fails. Every call is logged.
    const GH: &str = r#"#!/bin/bash
echo "$*" >> "$GH_LOG"
if [ "$1 $2" = "repo create" ] && [ "$4 $5 $6" = "--public --source ." ]; then
  git init -q --bare -b main "$GH_REMOTES/$3.git" && git remote add origin "$GH_REMOTES/$3.git"
elif [ "$*" = 'api -X POST repos/{owner}/{repo}/pages -f build_type=workflow' ]; then
  git remote get-url origin >/dev/null && echo '{"build_type": "workflow"}'
else
  echo "gh stand-in: not expected: $*" >&2; exit 1
fi
"#;

    /// An executable `name` in `dir` with `script`.
    fn executable(dir: &Path, name: &str, script: &str) -> PathBuf {
        let path = dir.join(name);
        fs::write(&path, script).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// Where the tutorial runs: a home folder, PATH with `report` and `gh`,
    /// a browser that notes the address it is given, and git's author.
    struct Desk {
        dir: tempfile::TempDir,
        _report: tempfile::TempDir,
        env: Vec<(String, String)>,
    }

    impl Desk {
        fn new() -> Desk {
            let dir = tempfile::tempdir().unwrap();
            let report = report_on_path();
            let bin = dir.path().join("bin");
            fs::create_dir_all(dir.path().join("remotes")).unwrap();
            fs::create_dir_all(&bin).unwrap();
            executable(&bin, "gh", GH);
            let opened = dir.path().join("opened");
            let browser = format!("#!/bin/sh\necho \"$1\" > '{}'\n", opened.display());
            executable(&bin, "browser", &browser);
            let path = format!(
                "{}:{}:{}",
                report.path().display(),
                bin.display(),
                std::env::var("PATH").unwrap()
            );
            let home = dir.path().join("home");
            fs::create_dir_all(&home).unwrap();
            let at = |p: &str| dir.path().join(p).display().to_string();
            let env = [
                ("PATH", path),
                ("HOME", home.display().to_string()),
                ("BROWSER", at("bin/browser")),
                ("GH_LOG", at("gh.log")),
                ("GH_REMOTES", at("remotes")),
                ("GIT_CONFIG_NOSYSTEM", "1".into()),
                ("GIT_AUTHOR_NAME", "A User".into()),
                ("GIT_AUTHOR_EMAIL", "user@example.com".into()),
                ("GIT_COMMITTER_NAME", "A User".into()),
                ("GIT_COMMITTER_EMAIL", "user@example.com".into()),
                ("NO_COLOR", "1".into()),
            ];
            let env = env.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            Desk { dir, _report: report, env }
        }

        fn command(&self, program: &str, cwd: &Path) -> Command {
            let mut command = Command::new(program);
            command.current_dir(cwd).env_remove("SOURCE_DATE_EPOCH");
            command.envs(self.env.iter().map(|(k, v)| (k, v)));
            command
        }

        /// Run `lines` in one bash, from `cwd`; the folder it ends in.
        fn run(&self, lines: &[String], cwd: &Path) -> PathBuf {
            let end = self.dir.path().join("cwd");
            let script =
                format!("set -euo pipefail\n{}\npwd > '{}'\n", lines.join("\n"), end.display());
            let output = self.command("bash", cwd).args(["-c", &script]).output().unwrap();
            let said = String::from_utf8_lossy(&output.stdout).into_owned() + &stderr(&output);
            assert!(output.status.success(), "{lines:?} failed:\n{said}");
            PathBuf::from(fs::read_to_string(end).unwrap().trim())
        }

        /// Run `line` (`report serve --open`): it opens the page in the
        /// browser, which is then served, until it is stopped with Ctrl-C.
        fn serve(&self, line: &str, cwd: &Path) {
            let child = self
                .command("bash", cwd)
                .args(["-c", &format!("exec {line}")])
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let serving = Stopped(child);
            let opened = self.dir.path().join("opened");
            let start = Instant::now();
            while fs::read_to_string(&opened).map_or(true, |t| t.trim().is_empty()) {
                assert!(start.elapsed() < Duration::from_secs(20), "no browser opened");
                std::thread::sleep(Duration::from_millis(50));
            }
            let url = fs::read_to_string(&opened).unwrap();
            let output = Command::new("curl").args(["-fsS", url.trim()]).output().unwrap();
            drop(serving);
            let page = String::from_utf8_lossy(&output.stdout);
            assert!(page.contains("Is the candidate version faster?"), "{url}: {page}");
        }
    }

    /// A process stopped as Ctrl-C stops it (SIGINT) when this is dropped,
    /// a failed assertion included.
    struct Stopped(std::process::Child);

    impl Drop for Stopped {
        fn drop(&mut self) {
            let _ = Command::new("kill").args(["-INT", &self.0.id().to_string()]).status();
            if self.0.try_wait().ok().flatten().is_none() {
                std::thread::sleep(Duration::from_millis(200));
                let _ = self.0.kill();
            }
            let _ = self.0.wait();
        }
    }

    #[test]
    fn the_tutorial_runs_as_written_and_its_push_publishes() {
        let tutorial = section("From `report new`");
        let lines: Vec<String> = blocks(&tutorial, "sh").concat();
        assert!(lines.iter().any(|l| l == "report new my-study"), "{lines:?}");
        let desk = Desk::new();
        let mut cwd = desk.dir.path().to_path_buf();
        let mut pending = Vec::new();
        for line in lines.iter().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
            if line.starts_with("report serve") {
                cwd = desk.run(&std::mem::take(&mut pending), &cwd);
                desk.serve(line, &cwd);
            } else {
                pending.push(line.clone());
            }
        }
        cwd = desk.run(&pending, &cwd);
        assert!(cwd.ends_with("my-study") && cwd.join("site/paper.pdf").is_file(), "{cwd:?}");
        let log = fs::read_to_string(desk.dir.path().join("gh.log")).unwrap();
        assert_eq!(log.lines().count(), 2, "{log}");
        publish(&desk.dir.path().join("remotes/my-study.git"));
    }

    /// What GitHub does with the push to `remote`: the workflow names
    /// report's own action, and its steps build the study for Pages.
    fn publish(remote: &Path) {
        let clone = tempfile::tempdir().unwrap();
        let checkout = clone.path().join("my-study");
        let output = Command::new("git")
            .args(["clone", "-q", "-b", "main"])
            .arg(remote)
            .arg(&checkout)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        assert!(!checkout.join("site").exists(), ".gitignore keeps the build out");
        let workflow = load(&checkout.join(".github/workflows/publish.yml"));
        let steps = &workflow["jobs"]["build"]["steps"];
        let action = format!("{}@v{}", home(), env!("CARGO_PKG_VERSION_MAJOR"));
        let uses: Vec<&str> =
            steps.as_vec().unwrap().iter().filter_map(|s| s["uses"].as_str()).collect();
        assert!(uses.contains(&action.as_str()), "{uses:?}");
        let base = "https://someone.github.io/my-study";
        let context = [
            ("github.event.before", "0000000000000000000000000000000000000000"),
            ("github.event.pull_request.base.sha", ""),
            ("steps.pages.outputs.base_url", base),
        ];
        let mut runner = Runner::new(&checkout, "push", &context);
        let bin = report_on_path();
        runner.add_path(bin.path());
        assert_all_ok(&runner.run(steps));
        let index = fs::read_to_string(checkout.join("site/index.html")).unwrap();
        assert!(index.contains(&format!("href=\"{base}/\"")), "built for its Pages address");
        assert!(checkout.join("site/paper.pdf").is_file());
    }

    /// The README's Linux install line, with the release served on
    /// 127.0.0.1 in place of GitHub's: it installs the verified binary into
    /// ~/.local/bin, and a checksum that does not match installs nothing.
    #[test]
    fn the_install_line_installs_a_verified_release() {
        let install = section("Install");
        let line = blocks(&install, "sh")
            .into_iter()
            .flatten()
            .find(|l| l.contains("unknown-linux-gnu"))
            .expect("the Linux line");
        let served = tempfile::tempdir().unwrap();
        let hash = crate::action::release(served.path(), "report 0.1.0 (a1b2c3d4e5f6 2026-12-01)");
        let server = crate::action::Server::serve(served.path());
        let releases = format!("https://github.com/{}/releases", home());
        assert!(line.contains(&releases), "{line}");
        let line = line.replace(&releases, &format!("{}/acme/report/releases", server.url));
        let desk = Desk::new();
        let work = desk.dir.path().join("downloads");
        fs::create_dir_all(&work).unwrap();
        desk.run(std::slice::from_ref(&line), &work);
        let installed = desk.dir.path().join("home/.local/bin/report");
        let output = Command::new(&installed).arg("--version").output().unwrap();
        assert_eq!(
            String::from_utf8_lossy(&output.stdout).trim(),
            "report 0.1.0 (a1b2c3d4e5f6 2026-12-01)"
        );

        fs::remove_file(&installed).unwrap();
        let sums = served.path().join(
            "acme/report/releases/latest/download/report-x86_64-unknown-linux-gnu.tar.gz.sha256",
        );
        fs::write(&sums, fs::read_to_string(&sums).unwrap().replace(&hash, &"0".repeat(64)))
            .unwrap();
        let again = desk.dir.path().join("again");
        fs::create_dir_all(&again).unwrap();
        let output = desk.command("bash", &again).args(["-c", &line]).output().unwrap();
        assert!(!output.status.success(), "a wrong checksum must stop the line");
        assert!(!installed.exists(), "nothing installed");
    }
}
