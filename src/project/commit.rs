//! Which commit a build was made from: the last commit that changed the
//! study's inputs (`book.toml`, `results/`, `content/`, `templates/`,
//! `fonts/`), and whether the tree holds changes to them that no commit
//! has (edited, staged, deleted or untracked files), so that provenance
//! never names a commit whose files differ from those the build read.

use std::path::Path;
use std::process::Command;

use serde::Serialize;

/// The commit a study was built from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Commit {
    /// Its abbreviated hash (`git log --format=%h`).
    pub hash: String,
    /// Whether the study's inputs in the tree differ from it.
    pub uncommitted: bool,
}

/// What `git` compares the tree with: every input a build reads.
const PATHS: [&str; 5] = ["book.toml", "results", "content", "templates", "fonts"];

/// The commit the study at `root` was built from, if git and a repository
/// with a commit are there.
pub fn of(root: &Path) -> Option<Commit> {
    let git = |args: &[&str]| {
        let output =
            Command::new("git").arg("-C").arg(root).args(args).arg("--").args(PATHS).output();
        output.ok().filter(|o| o.status.success()).and_then(|o| String::from_utf8(o.stdout).ok())
    };
    let hash = git(&["log", "-1", "--format=%h"])?.trim().to_string();
    if hash.is_empty() {
        return None;
    }
    // Untracked files count: a results file imported and not yet added
    // is read by the build as much as an edited one.
    let status = git(&["status", "--porcelain", "--untracked-files=all"])?;
    Some(Commit { hash, uncommitted: !status.trim().is_empty() })
}
