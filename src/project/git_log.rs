//! The first-parent history of a git repository that orders a study's
//! versions (`[history] git`), read once when the study is loaded.

use std::path::Path;
use std::process::Command;

use crate::config::{Config, GitCommit};
use crate::diagnostic::{Diagnostic, Diagnostics, Location};

/// Fill `config`'s history with the first-parent commits of its `git`
/// repository, oldest first; an error at `history.git` when git cannot
/// read it.
pub fn fill(root: &Path, config: &mut Config) -> Result<(), Diagnostics> {
    let at = config.at.or("history.git", &Location::file("book.toml"));
    let Some(history) = config.history.as_mut() else { return Ok(()) };
    let Some(repository) = history.git.as_deref() else { return Ok(()) };
    history.commits = first_parent(&root.join(repository)).map_err(|why| {
        Diagnostic::new(at, format!("cannot read the git history of `{repository}`: {why}"))
            .hint("name a git repository, relative to the study, with at least one commit")
    })?;
    Ok(())
}

/// The first-parent commits of HEAD in `repository`, oldest first.
pub fn first_parent(repository: &Path) -> Result<Vec<GitCommit>, String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(repository)
        .args(["log", "--first-parent", "--format=%H%x09%s", "HEAD"])
        .output()
        .map_err(|err| format!("git did not run ({err})"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(stderr.lines().next().unwrap_or("git failed").trim().to_string());
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let mut commits: Vec<GitCommit> = text
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .map(|(hash, subject)| GitCommit { hash: hash.to_string(), subject: subject.to_string() })
        .collect();
    commits.reverse();
    Ok(commits)
}
