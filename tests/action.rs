//! The action (action.yml) a study repository uses to install report: its
//! install step, read from the YAML, run here against release archives and
//! checksum files served on 127.0.0.1, as GitHub serves a release; a
//! checksum that does not match (or is missing) fails and installs nothing;
//! where no archive fits, cargo is called as the fallback. Then its check,
//! build and diff steps on a study. Unix only: the steps run with bash, and
//! the fake releases are made with chmod and tar, as on a Linux runner.

#![cfg(unix)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::action_steps;
use crate::common;
use action_steps::{Runner, git, load, report_on_path};
use common::*;
use sha2::{Digest, Sha256};

/// A static file server on 127.0.0.1 (an ephemeral port), with the paths it
/// was asked for; it stops when dropped.
pub struct Server {
    pub url: String,
    asked: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    /// Serve the files under `root`.
    pub fn serve(root: &Path) -> Server {
        let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
        let url = format!("http://{}", server.server_addr().to_ip().unwrap());
        let (asked, stop) = (Arc::new(Mutex::new(Vec::new())), Arc::new(AtomicBool::new(false)));
        let (log, done, root) = (asked.clone(), stop.clone(), root.to_path_buf());
        let thread = std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                let Ok(Some(request)) = server.recv_timeout(std::time::Duration::from_millis(50))
                else {
                    continue;
                };
                let path = request.url().to_string();
                log.lock().unwrap().push(path.clone());
                let file = root.join(path.trim_start_matches('/'));
                let response = match fs::read(&file) {
                    Ok(bytes) if !path.contains("..") => tiny_http::Response::from_data(bytes),
                    _ => tiny_http::Response::from_string("Not Found").with_status_code(404),
                };
                let _ = request.respond(response);
            }
        });
        Server { url, asked, stop, thread: Some(thread) }
    }

    /// The paths asked for so far.
    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

const TARGET: &str = "x86_64-unknown-linux-gnu";

/// A release of `report 0.1.0` for x86_64 Linux as GitHub lays it out under
/// `acme/report/releases/`: the archive holds `report-TARGET/report` (a
/// script that answers `--version` with `says`, or fails when `says` is
/// empty), beside its `.sha256` file;
/// `latest/download/` holds the same. The checksum is computed here with the
/// sha2 crate, not by the script under test.
pub fn release(root: &Path, says: &str) -> String {
    let staging = root.join("staging").join(format!("report-{TARGET}"));
    fs::create_dir_all(&staging).unwrap();
    let binary = staging.join("report");
    let script = if says.is_empty() { "exit 1".to_string() } else { format!("echo '{says}'") };
    fs::write(&binary, format!("#!/bin/sh\n{script}\n")).unwrap();
    Command::new("chmod").arg("755").arg(&binary).status().unwrap();
    let archive = format!("report-{TARGET}.tar.gz");
    let packed = root.join(&archive);
    let status = Command::new("tar")
        .arg("-czf")
        .arg(&packed)
        .arg("-C")
        .arg(root.join("staging"))
        .arg(format!("report-{TARGET}"))
        .status()
        .unwrap();
    assert!(status.success());
    let bytes = fs::read(&packed).unwrap();
    let hash: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    for folder in ["acme/report/releases/download/v0.1.0", "acme/report/releases/latest/download"] {
        let dir = root.join(folder);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join(&archive), &bytes).unwrap();
        fs::write(dir.join(format!("{archive}.sha256")), format!("{hash}  {archive}\n")).unwrap();
    }
    hash
}

/// A `cargo` that records its arguments and installs a report that says `says`.
fn fake_cargo(dir: &Path, says: &str) -> PathBuf {
    let cargo = dir.join("fake-cargo");
    let script = format!(
        "#!/bin/bash\necho \"$@\" > '{log}'\nwhile [ \"$1\" != --root ]; do shift; done\nmkdir -p \"$2/bin\"\nprintf '#!/bin/sh\\necho \"{says}\"\\n' > \"$2/bin/report\"\nchmod +x \"$2/bin/report\"\n",
        log = dir.join("cargo-args").display()
    );
    fs::write(&cargo, script).unwrap();
    Command::new("chmod").arg("755").arg(&cargo).status().unwrap();
    cargo
}

/// The action's inputs: its defaults, then `inputs`.
fn inputs<'a>(inputs: &[(&'a str, &'a str)]) -> Vec<(String, String)> {
    let action = load(&repo().join("action.yml"));
    let mut all: Vec<(String, String)> = action["inputs"]
        .as_hash()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            (format!("inputs.{}", k.as_str().unwrap()), v["default"].as_str().unwrap().to_string())
        })
        .collect();
    for (key, value) in inputs {
        let key = format!("inputs.{key}");
        let slot =
            all.iter_mut().find(|(k, _)| *k == key).unwrap_or_else(|| panic!("no input {key}"));
        slot.1 = value.to_string();
    }
    all
}

/// A runner of the action from `action_path` (where GitHub puts it:
/// `.../_actions/OWNER/NAME/REF`), with its inputs and the context a
/// composite action sees (action_repository and action_ref empty, as they
/// are inside composite actions).
fn runner(workspace: &Path, action_path: &Path, with: &[(&str, &str)], cargo: &Path) -> Runner {
    let mut context: Vec<(String, String)> = inputs(with);
    context.push(("github.action_repository".into(), String::new()));
    context.push(("github.action_ref".into(), String::new()));
    let refs: Vec<(&str, &str)> = context.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut runner = Runner::new(workspace, "push", &refs);
    runner.env.insert("GITHUB_ACTION_PATH".into(), action_path.display().to_string());
    runner.env.insert("REPORT_CARGO".into(), cargo.display().to_string());
    runner
}

/// The action checked out as GitHub does, at `_actions/acme/report/REF`.
fn checked_out_action(dir: &Path, reference: &str) -> PathBuf {
    let path = dir.join("_actions/acme/report").join(reference);
    fs::create_dir_all(path.join(".github")).unwrap();
    copy_dir(&repo().join(".github/action"), &path.join(".github/action"));
    path
}

fn install_step() -> yaml_rust2::Yaml {
    let action = load(&repo().join("action.yml"));
    action["runs"]["steps"][0].clone()
}

/// What one install did: whether it succeeded, its output, and the files the runner received.
struct Installed {
    ok: bool,
    output: String,
    runner: Runner,
}

fn install(dir: &Path, server: &Server, reference: &str, with: &[(&str, &str)]) -> Installed {
    let action = checked_out_action(dir, reference);
    let download = format!("{}/acme/report/releases", server.url);
    let mut with = with.to_vec();
    if !with.iter().any(|(k, _)| *k == "download-url") {
        with.push(("download-url", &download));
    }
    let mut runner = runner(dir, &action, &with, &fake_cargo(dir, "report 0.1.0 (built)"));
    let ran = runner.step(&install_step());
    assert!(ran.ran);
    Installed { ok: ran.ok, output: ran.output, runner }
}

#[test]
fn the_action_installs_the_verified_release_for_the_runner() {
    let dir = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    release(files.path(), "report 0.1.0 (0123456789ab 2026-12-01)");
    let server = Server::serve(files.path());
    let done = install(dir.path(), &server, "v1", &[("version", "0.1.0")]);
    assert!(done.ok, "{}", done.output);
    let archive = format!("/acme/report/releases/download/v0.1.0/report-{TARGET}.tar.gz");
    assert_eq!(server.asked(), [archive.clone(), format!("{archive}.sha256")]);
    let bin = done.runner.temp().join("report/bin");
    assert!(done.runner.env["PATH"].starts_with(&format!("{}:", bin.display())), "on PATH");
    assert_eq!(
        done.runner.context["steps.install.outputs.version"],
        "0.1.0 (0123456789ab 2026-12-01)"
    );
    assert_eq!(done.runner.context["steps.install.outputs.path"], bin.display().to_string());
    let says = Command::new(bin.join("report")).arg("--version").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&says.stdout), "report 0.1.0 (0123456789ab 2026-12-01)\n");
    assert!(!dir.path().join("cargo-args").exists(), "cargo is not needed");

    // `latest`, and a version taken from the action's own tag (uses: acme/report@v0.1.0).
    let dir = tempfile::tempdir().unwrap();
    assert!(install(dir.path(), &server, "v1", &[("version", "latest")]).ok);
    let dir = tempfile::tempdir().unwrap();
    assert!(install(dir.path(), &server, "v0.1.0", &[]).ok);
    let asked = server.asked();
    assert!(
        asked.contains(&format!("/acme/report/releases/latest/download/report-{TARGET}.tar.gz")),
        "{asked:?}"
    );
    assert_eq!(
        asked
            .iter()
            .filter(|a| a.ends_with("/download/v0.1.0/report-x86_64-unknown-linux-gnu.tar.gz"))
            .count(),
        2
    );
}

#[test]
fn a_checksum_that_does_not_match_or_is_missing_installs_nothing() {
    let files = tempfile::tempdir().unwrap();
    release(files.path(), "report 0.1.0");
    let sums = files
        .path()
        .join(format!("acme/report/releases/download/v0.1.0/report-{TARGET}.tar.gz.sha256"));
    let server = Server::serve(files.path());

    // One digit changed in the checksum: the archive is refused.
    let good = fs::read_to_string(&sums).unwrap();
    let bad = format!("{}{}", if good.starts_with('0') { "1" } else { "0" }, &good[1..]);
    fs::write(&sums, &bad).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let done = install(dir.path(), &server, "v1", &[("version", "0.1.0")]);
    assert!(!done.ok, "{}", done.output);
    assert!(done.output.contains("checksum mismatch"), "{}", done.output);
    assert!(
        done.output.contains(&bad[..64]) && done.output.contains(&good[..64]),
        "{}",
        done.output
    );
    assert!(!done.runner.temp().join("report/bin/report").exists(), "nothing installed");
    assert!(!dir.path().join("cargo-args").exists(), "no fallback after a mismatch");
    assert_eq!(fs::read_to_string(&done.runner.env["GITHUB_PATH"]).unwrap_or_default(), "");

    // The archive changed instead (a byte appended): refused the same way.
    fs::write(&sums, &good).unwrap();
    let archive = sums.with_extension("");
    let mut bytes = fs::read(&archive).unwrap();
    bytes.push(0);
    fs::write(&archive, bytes).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let done = install(dir.path(), &server, "v1", &[("version", "0.1.0")]);
    assert!(!done.ok && done.output.contains("checksum mismatch"), "{}", done.output);

    // No checksum file at all: refused too.
    fs::remove_file(&sums).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let done = install(dir.path(), &server, "v1", &[("version", "0.1.0")]);
    assert!(
        !done.ok && done.output.contains("refusing to install an unverified binary"),
        "{}",
        done.output
    );
    assert!(!dir.path().join("cargo-args").exists());
}

#[test]
fn where_no_archive_fits_the_action_builds_report_with_cargo() {
    let files = tempfile::tempdir().unwrap();
    release(files.path(), "report 0.1.0");
    let server = Server::serve(files.path());

    // A runner no release is built for: cargo, from the action's repository at the version's tag.
    let dir = tempfile::tempdir().unwrap();
    let action = checked_out_action(dir.path(), "v0.1.0");
    let cargo = fake_cargo(dir.path(), "report 0.1.0 (built)");
    let mut riscv = runner(dir.path(), &action, &[], &cargo);
    riscv.env.insert("RUNNER_ARCH".into(), "RISCV64".into());
    let ran = riscv.step(&install_step());
    assert!(ran.ok, "{}", ran.output);
    let root = riscv.temp().join("report");
    assert_eq!(
        fs::read_to_string(dir.path().join("cargo-args")).unwrap().trim(),
        format!(
            "install --locked --git https://github.com/acme/report --tag v0.1.0 --root {} report",
            root.display()
        )
    );
    assert_eq!(riscv.context["steps.install.outputs.version"], "0.1.0 (built)");
    assert!(server.asked().is_empty(), "nothing to download for this runner");

    // A version with no archive (404): cargo, at that version's tag (and what
    // it builds must be that version).
    let dir = tempfile::tempdir().unwrap();
    let done = install(dir.path(), &server, "v1", &[("version", "0.2.0")]);
    assert!(fs::read_to_string(dir.path().join("cargo-args")).unwrap().contains("--tag v0.2.0"));
    assert!(!done.ok && done.output.contains("asked for report 0.2.0"), "{}", done.output);

    // A prebuilt binary that does not run on this runner (an older glibc, say): cargo.
    let other = tempfile::tempdir().unwrap();
    release(other.path(), "");
    let failing = Server::serve(other.path());
    let dir = tempfile::tempdir().unwrap();
    let done = install(dir.path(), &failing, "v1", &[("version", "0.1.0")]);
    assert!(done.ok, "{}", done.output);
    assert!(done.output.contains("does not run on this runner"), "{}", done.output);
    assert!(dir.path().join("cargo-args").is_file());

    // A download URL that is neither https nor on 127.0.0.1 is refused.
    let dir = tempfile::tempdir().unwrap();
    let done = install(
        dir.path(),
        &server,
        "v1",
        &[("version", "0.1.0"), ("download-url", "http://example.com/releases")],
    );
    assert!(!done.ok && done.output.contains("neither https nor on 127.0.0.1"), "{}", done.output);
}

#[test]
fn the_action_checks_builds_and_diffs_a_study() {
    let dir = tempfile::tempdir().unwrap();
    let study = dir.path().join("study");
    let output = Command::new(env!("CARGO_BIN_EXE_report"))
        .arg("new")
        .arg(&study)
        .args(["--example", "hpc"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    git(&study, &["init", "-q"], "2026-03-04T05:06:07Z");
    git(&study, &["add", "."], "2026-03-04T05:06:07Z");
    git(&study, &["commit", "-qm", "first"], "2026-03-04T05:06:07Z");
    // By hand: after at 4 threads {2.4, 2.5, 2.4}, mean 2.4333; 2.4333 / 3.1 − 1 = −21.5%.
    edit(
        &study,
        "results/runs.csv",
        "after,4,1,2.7\nafter,4,2,2.8\nafter,4,3,2.7",
        "after,4,1,2.4\nafter,4,2,2.5\nafter,4,3,2.4",
    );
    let action = load(&repo().join("action.yml"));
    let bin = report_on_path();
    let with = [
        ("check", "true"),
        ("build", "true"),
        ("diff", "HEAD"),
        ("root", "study"),
        ("base-url", "https://someone.github.io/study/"),
    ];
    let mut runner = runner(dir.path(), &repo(), &with, Path::new("cargo"));
    runner.add_path(bin.path());
    runner.env.insert("SOURCE_DATE_EPOCH".into(), "1700000000".into());
    let steps = &action["runs"]["steps"];
    let ran: Vec<_> = steps.as_vec().unwrap()[1..].iter().map(|s| runner.step(s)).collect();
    for step in &ran {
        assert!(step.ran && step.ok, "{}: {}", step.name, step.output);
    }
    let index = fs::read_to_string(study.join("site/index.html")).unwrap();
    assert!(index.contains("<link rel=\"canonical\" href=\"https://someone.github.io/study/\">"));
    assert!(
        runner.summary().contains("- Run time at 4 threads: \u{2212}11.8% → \u{2212}21.5%"),
        "{}",
        runner.summary()
    );

    // With the defaults, none of them runs.
    let mut idle = self::runner(dir.path(), &repo(), &[], Path::new("cargo"));
    for step in &steps.as_vec().unwrap()[1..] {
        assert!(!idle.step(step).ran);
    }
}
