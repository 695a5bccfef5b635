//! Build script: names the commit `report` was built from, for `report --version`,
//! and report's home repository, for the workflow `report new` writes.
//!
//! The commit comes from `REPORT_BUILD_COMMIT` when set (CI sets it to the
//! tagged commit), else from `git` when the crate is the top level of a git
//! checkout, else from `.cargo_vcs_info.json` (which `cargo package` writes
//! into a published crate). Without any of them the version is the package
//! version alone. Only the commit and its date go in, never the clock, so one
//! commit always gives the same version text.
//!
//! The home (`OWNER/NAME`) comes from `REPORT_REPOSITORY` when set (the
//! release workflow sets it to the repository it releases from), else from
//! Cargo.toml's `repository` when that is on GitHub; otherwise it is empty,
//! and `report new` says which line of the workflow to edit.

#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=REPORT_BUILD_COMMIT");
    println!("cargo:rerun-if-env-changed=REPORT_REPOSITORY");
    let from_env = std::env::var("REPORT_REPOSITORY").ok().filter(|r| !r.is_empty());
    if let Some(named) = from_env.as_deref().filter(|r| repository_name(r).is_none()) {
        println!("cargo:warning=REPORT_REPOSITORY=`{named}` is not OWNER/NAME; ignored");
    }
    let manifest = std::env::var("CARGO_PKG_REPOSITORY").unwrap_or_default();
    let home = home(from_env.as_deref(), &manifest).unwrap_or_default();
    println!("cargo:rustc-env=REPORT_HOME={home}");
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let from_env = std::env::var("REPORT_BUILD_COMMIT").ok().filter(|c| !c.is_empty());
    if let Some(commit) = from_env.as_deref().filter(|c| !is_commit(c)) {
        println!("cargo:warning=REPORT_BUILD_COMMIT=`{commit}` is not a commit hash; ignored");
    }
    let checkout = git_checkout(&dir);
    if checkout {
        for file in watched(&dir) {
            println!("cargo:rerun-if-changed={}", file.display());
        }
    }
    let commit = from_env
        .filter(|c| is_commit(c))
        .or_else(|| checkout.then(|| git(&dir, &["rev-parse", "HEAD"])).flatten())
        .or_else(|| vcs_info_commit(&dir));
    let date = commit
        .as_deref()
        .filter(|_| checkout)
        .and_then(|c| git(&dir, &["show", "-s", "--format=%cs", c]));
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    println!(
        "cargo:rustc-env=REPORT_LONG_VERSION={}",
        describe(&version, commit.as_deref(), date.as_deref())
    );
}

/// The version text: `0.1.0`, `0.1.0 (1a2b3c4d5e6f)` or
/// `0.1.0 (1a2b3c4d5e6f 2026-12-01)`; the commit is cut to 12 digits.
pub fn describe(version: &str, commit: Option<&str>, date: Option<&str>) -> String {
    let Some(commit) = commit.filter(|c| is_commit(c)) else { return version.to_string() };
    let short = &commit[..commit.len().min(12)];
    match date.filter(|d| is_date(d)) {
        Some(date) => format!("{version} ({short} {date})"),
        None => format!("{version} ({short})"),
    }
}

/// report's home repository as `OWNER/NAME`: `from_env` (REPORT_REPOSITORY)
/// when it is one, else that of `manifest`, Cargo.toml's `repository`, when
/// it is `https://github.com/OWNER/NAME`.
pub fn home(from_env: Option<&str>, manifest: &str) -> Option<String> {
    from_env.and_then(repository_name).or_else(|| {
        let path = manifest.strip_prefix("https://github.com/")?.trim_end_matches('/');
        repository_name(path.strip_suffix(".git").unwrap_or(path))
    })
}

/// `text` if it is `OWNER/NAME` of a GitHub repository: two plain parts
/// (letters, digits, `-`, `_`, `.`), neither empty nor `.` or `..`.
pub fn repository_name(text: &str) -> Option<String> {
    let (owner, name) = text.split_once('/')?;
    let plain = |part: &str| {
        !part.is_empty()
            && part != "."
            && part != ".."
            && part.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    };
    (plain(owner) && plain(name)).then(|| text.to_string())
}

/// Whether `text` is an abbreviated or full hexadecimal commit hash.
pub fn is_commit(text: &str) -> bool {
    (7..=64).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Whether `text` is a date as `git show --format=%cs` gives it: YYYY-MM-DD.
fn is_date(text: &str) -> bool {
    text.len() == 10
        && text
            .bytes()
            .enumerate()
            .all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() })
}

/// The commit recorded by `cargo package` in `.cargo_vcs_info.json`.
pub fn vcs_info_commit(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join(".cargo_vcs_info.json")).ok()?;
    let after = &text[text.find("\"sha1\"")? + 6..];
    let start = after.find('"')? + 1;
    let end = start + after[start..].find('"')?;
    Some(after[start..end].to_string()).filter(|c| is_commit(c))
}

/// Whether `dir` is the top level of a git checkout (not a folder inside
/// another project's checkout, a vendored copy say) and git runs. Both
/// sides are canonicalized by std (a build script has no dunce), so they
/// compare alike on Windows too.
#[allow(clippy::disallowed_methods)]
pub fn git_checkout(dir: &Path) -> bool {
    git(dir, &["rev-parse", "--show-toplevel"])
        .and_then(|top| std::fs::canonicalize(top).ok())
        .is_some_and(|top| std::fs::canonicalize(dir).is_ok_and(|d| d == top))
}

/// The files whose change moves HEAD: HEAD itself, the branch it names and
/// packed-refs (only those that exist: cargo reruns for a missing one always).
fn watched(dir: &Path) -> Vec<PathBuf> {
    let branch = git(dir, &["rev-parse", "--symbolic-full-name", "HEAD"]).filter(|b| b != "HEAD");
    ["HEAD".to_string(), "packed-refs".to_string()]
        .into_iter()
        .chain(branch)
        .filter_map(|name| git(dir, &["rev-parse", "--git-path", &name]))
        .map(|path| dir.join(path))
        .filter(|p| p.is_file())
        .collect()
}

/// The first line git prints for `args` in `dir`, if it succeeds.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let line = text.lines().next()?.trim().to_string();
    (output.status.success() && !line.is_empty()).then_some(line)
}
