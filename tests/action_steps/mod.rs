//! Runs the shell steps of a GitHub Actions job, or of a composite action, on
//! this machine as a runner would: `if:` conditions, `env:`,
//! `working-directory`, `shell: bash` with `-eo pipefail`, and GITHUB_ENV,
//! GITHUB_PATH and GITHUB_OUTPUT carried to the later steps. `${{ }}`
//! expressions are read from a fake context, and one it does not hold fails
//! the test, so that a new expression in a workflow is noticed here. Steps
//! that `uses:` another action are skipped (and listed).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use yaml_rust2::{Yaml, YamlLoader};

/// The first document of a YAML file.
pub fn load(path: &Path) -> Yaml {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    YamlLoader::load_from_str(&text).unwrap().remove(0)
}

/// What one step did.
#[derive(Debug)]
pub struct Ran {
    /// The step's name, or its command.
    pub name: String,
    /// Whether it ran (its `if:` held and it is a `run:` step).
    pub ran: bool,
    /// Whether it succeeded (true for a step that did not run).
    pub ok: bool,
    /// What it printed on standard output and standard error.
    pub output: String,
}

/// A fake runner: the context of the expressions and the environment.
pub struct Runner {
    /// `github.event_name` → `push`, `inputs.version` → `0.1.0`, ...
    pub context: BTreeMap<String, String>,
    /// The environment of every step (GITHUB_*, RUNNER_*, PATH, ...).
    pub env: BTreeMap<String, String>,
    /// The workspace, where steps run unless `working-directory` says otherwise.
    pub workspace: PathBuf,
    files: tempfile::TempDir,
}

impl Runner {
    /// A runner for `event` in `workspace`, with the usual GITHUB_* files and
    /// RUNNER_* variables of an x86_64 Linux runner, and `context` on top.
    pub fn new(workspace: &Path, event: &str, context: &[(&str, &str)]) -> Runner {
        let files = tempfile::tempdir().unwrap();
        let temp = files.path().join("runner-temp");
        fs::create_dir(&temp).unwrap();
        let mut env = BTreeMap::new();
        for (name, file) in [
            ("GITHUB_ENV", "env"),
            ("GITHUB_PATH", "path"),
            ("GITHUB_OUTPUT", "output"),
            ("GITHUB_STEP_SUMMARY", "summary.md"),
        ] {
            let path = files.path().join(file);
            fs::write(&path, "").unwrap();
            env.insert(name.to_string(), path.display().to_string());
        }
        let path = std::env::var("PATH").unwrap_or_default();
        for (name, value) in [
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_EVENT_NAME", event),
            ("GITHUB_WORKSPACE", &workspace.display().to_string()),
            ("GITHUB_REPOSITORY", "someone/study"),
            ("RUNNER_OS", "Linux"),
            ("RUNNER_ARCH", "X64"),
            ("RUNNER_TEMP", &temp.display().to_string()),
            ("HOME", &std::env::var("HOME").unwrap_or_default()),
            ("PATH", &path),
            ("NO_COLOR", "1"),
        ] {
            env.insert(name.to_string(), value.to_string());
        }
        let mut context: BTreeMap<String, String> =
            context.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        context.insert("github.event_name".into(), event.into());
        Runner { context, env, workspace: workspace.to_path_buf(), files }
    }

    /// RUNNER_TEMP.
    pub fn temp(&self) -> PathBuf {
        PathBuf::from(&self.env["RUNNER_TEMP"])
    }

    /// The job summary written so far.
    pub fn summary(&self) -> String {
        fs::read_to_string(&self.env["GITHUB_STEP_SUMMARY"]).unwrap()
    }

    /// Put `dir` first on PATH, as a line in GITHUB_PATH would.
    pub fn add_path(&mut self, dir: &Path) {
        let path = format!("{}:{}", dir.display(), self.env["PATH"]);
        self.env.insert("PATH".into(), path);
    }

    /// The value of one expression: a name of the context, a quoted
    /// literal, or `a || b` (the first that is not empty).
    pub fn eval(&self, expr: &str) -> String {
        for alternative in expr.split("||").map(str::trim) {
            let value = match alternative.strip_prefix('\'').and_then(|a| a.strip_suffix('\'')) {
                Some(literal) => literal.to_string(),
                None => self.context.get(alternative).cloned().unwrap_or_else(|| {
                    panic!("the fake context has no `{alternative}`: add it to the test")
                }),
            };
            if !value.is_empty() {
                return value;
            }
        }
        String::new()
    }

    /// `text` with every `${{ expr }}` replaced by its value.
    pub fn substitute(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${{") {
            let end = start + rest[start..].find("}}").expect("an unclosed ${{");
            out.push_str(&rest[..start]);
            out.push_str(&self.eval(rest[start + 3..end].trim()));
            rest = &rest[end + 2..];
        }
        out + rest
    }

    /// Whether an `if:` holds: `a == b` or `a != b` over names and literals.
    pub fn condition(&self, condition: &str) -> bool {
        let condition = condition.trim();
        let condition = condition
            .strip_prefix("${{")
            .and_then(|c| c.strip_suffix("}}"))
            .unwrap_or(condition)
            .trim();
        if let Some((a, b)) = condition.split_once("!=") {
            return self.eval(a.trim()) != self.eval(b.trim());
        }
        let (a, b) =
            condition.split_once("==").unwrap_or_else(|| panic!("condition `{condition}`"));
        self.eval(a.trim()) == self.eval(b.trim())
    }

    /// Run `steps` in order, as a runner would, until one fails.
    pub fn run(&mut self, steps: &Yaml) -> Vec<Ran> {
        let mut done = Vec::new();
        for step in steps.as_vec().expect("steps") {
            let ran = self.step(step);
            let failed = !ran.ok;
            done.push(ran);
            if failed {
                break;
            }
        }
        done
    }

    /// Run one step.
    pub fn step(&mut self, step: &Yaml) -> Ran {
        let script = step["run"].as_str();
        let name =
            step["name"].as_str().or(script).or(step["uses"].as_str()).unwrap_or("?").to_string();
        let wanted = step["if"].as_str().is_none_or(|c| self.condition(c));
        let Some(script) = script.filter(|_| wanted) else {
            return Ran { name, ran: false, ok: true, output: String::new() };
        };
        let file = self.files.path().join("step.sh");
        fs::write(&file, self.substitute(script)).unwrap();
        let dir = match step["working-directory"].as_str() {
            Some(dir) => self.workspace.join(self.substitute(dir)),
            None => self.workspace.clone(),
        };
        let mut command = Command::new("bash");
        command.args(["--noprofile", "--norc", "-eo", "pipefail"]).arg(&file).current_dir(dir);
        command.env_clear().envs(&self.env);
        if let Some(env) = step["env"].as_hash() {
            for (key, value) in env {
                let value = match value {
                    Yaml::String(s) => self.substitute(s),
                    other => format!("{}", other.as_i64().unwrap_or_default()),
                };
                command.env(key.as_str().unwrap(), value);
            }
        }
        let output = command.output().unwrap();
        self.collect(step["id"].as_str());
        let text = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        Ran { name, ran: true, ok: output.status.success(), output: text }
    }

    /// Take what the step wrote to GITHUB_ENV, GITHUB_PATH and GITHUB_OUTPUT.
    fn collect(&mut self, id: Option<&str>) {
        let take = |name: &str| {
            let path = self.env[name].clone();
            let text = fs::read_to_string(&path).unwrap();
            fs::write(&path, "").unwrap();
            text
        };
        let (env, path, output) = (take("GITHUB_ENV"), take("GITHUB_PATH"), take("GITHUB_OUTPUT"));
        for line in env.lines() {
            let (key, value) = line.split_once('=').expect("GITHUB_ENV lines are KEY=VALUE");
            self.env.insert(key.to_string(), value.to_string());
        }
        for dir in path.lines() {
            self.add_path(Path::new(dir));
        }
        for line in output.lines() {
            let (key, value) = line.split_once('=').expect("GITHUB_OUTPUT lines are key=value");
            if let Some(id) = id {
                self.context.insert(format!("steps.{id}.outputs.{key}"), value.to_string());
            }
        }
    }
}

/// A folder holding `report` (a link to the binary under test), for PATH.
pub fn report_on_path() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    put_report(&dir.path().join("report"));
    dir
}

/// The binary under test at `path`: a link on Unix, a copy (`path.exe`)
/// where links need a privilege (Windows).
pub fn put_report(path: &Path) {
    #[cfg(unix)]
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_report"), path).unwrap();
    #[cfg(not(unix))]
    fs::copy(env!("CARGO_BIN_EXE_report"), path.with_extension("exe")).unwrap();
}

/// Run git in `dir` with a fixed author, committer and date.
pub fn git(dir: &Path, args: &[&str], date: &str) -> String {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"])
        .args(args)
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date)
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

/// A study in git: `first` committed at 2026-03-04T05:06:07Z, then
/// `second` (applied to the files) at 2026-03-05T00:00:00Z. Returns both commits.
pub fn two_commits(root: &Path, second: impl FnOnce(&Path)) -> (String, String) {
    git(root, &["init", "-q", "-b", "main"], "2026-03-04T05:06:07Z");
    git(root, &["add", "."], "2026-03-04T05:06:07Z");
    git(root, &["commit", "-qm", "first results"], "2026-03-04T05:06:07Z");
    let first = git(root, &["rev-parse", "HEAD"], "");
    second(root);
    git(root, &["add", "."], "2026-03-05T00:00:00Z");
    git(root, &["commit", "-qm", "new results"], "2026-03-05T00:00:00Z");
    (first, git(root, &["rev-parse", "HEAD"], ""))
}

/// Assert that every step in `ran` succeeded, naming the first that did not.
pub fn assert_all_ok(ran: &[Ran]) {
    for step in ran {
        assert!(step.ok, "step `{}` failed:\n{}", step.name, step.output);
    }
}
