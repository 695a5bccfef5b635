//! `report new DIR`: a small study that builds right away, with a workflow
//! that publishes it to GitHub Pages.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::diagnostic::{Diagnostic, Diagnostics, Location};

/// The scaffold's files: path relative to the new study, and content.
pub const FILES: [(&str, &str); 5] = [
    ("book.toml", include_str!("book.toml")),
    ("content/index.md", include_str!("index.md")),
    ("results/runs.csv", include_str!("runs.csv")),
    (
        "templates/README.md",
        "Files here replace report's built-in templates: base.html, page.html,\npartials/*.html, style.css, app.js and paper.typ.\n",
    ),
    (".gitignore", "/site\n"),
];

/// Where the scaffold's publishing workflow goes.
pub const WORKFLOW_PATH: &str = ".github/workflows/publish.yml";

/// The scaffold's publishing workflow: it installs this version of report
/// with the action of report's repository (Cargo.toml's `repository`), or
/// names `OWNER/report` for the author to fill in when that is not set.
pub fn workflow() -> String {
    let action = action_repository(env!("CARGO_PKG_REPOSITORY"));
    let uses = match action {
        Some(action) => format!("{action}@v1"),
        None => "OWNER/report@v1 # OWNER: the GitHub account that hosts report".to_string(),
    };
    include_str!("publish.yml")
        .replace("@ACTION@@v1", &uses)
        .replace("@VERSION@", env!("CARGO_PKG_VERSION"))
}

/// `OWNER/NAME` of a `https://github.com/OWNER/NAME` repository URL.
fn action_repository(url: &str) -> Option<String> {
    let path = url.strip_prefix("https://github.com/")?.trim_end_matches('/');
    let path = path.strip_suffix(".git").unwrap_or(path);
    let (owner, name) = path.split_once('/')?;
    let plain = |part: &str| {
        !part.is_empty() && part.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    };
    (plain(owner) && plain(name)).then(|| format!("{owner}/{name}"))
}

/// Write a new study into `dir`, which must not exist or be an empty folder
/// (not a symbolic link). Every folder and file is created new, never
/// opened if something is already there, so that nothing is written through
/// a symbolic link out of `dir`, even one made while the study is written.
pub fn create(dir: &Path) -> Result<Vec<PathBuf>> {
    match fs::symlink_metadata(dir) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let target = dunce::canonicalize(dir)
                .map_or_else(|_| "nowhere".into(), |t| format!("`{}`", t.display()));
            return Err(refuse(
                dir,
                &format!("the folder is a symbolic link (to {target})"),
                "name the new study's folder itself, not a link to it; report new writes only inside the folder it creates",
            ));
        }
        Ok(meta) if !meta.is_dir() => {
            return Err(refuse(
                dir,
                "a file of this name exists",
                "choose a new folder name; report new never overwrites files",
            ));
        }
        Ok(_) if fs::read_dir(dir).map(|mut d| d.next().is_some()).unwrap_or(true) => {
            return Err(refuse(
                dir,
                "the folder exists and is not empty",
                "choose a new folder name; report new never overwrites files",
            ));
        }
        Ok(_) => {}
        Err(_) => {
            if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create `{}`", parent.display()))?;
            }
            fs::create_dir(dir).with_context(|| format!("cannot create `{}`", dir.display()))?;
        }
    }
    let workflow = workflow();
    FILES
        .iter()
        .copied()
        .chain([(WORKFLOW_PATH, workflow.as_str())])
        .map(|(relative, content)| write_new(dir, relative, content))
        .collect()
}

/// Write `content` to `dir/relative`, creating its folders: each folder
/// and the file must be new, so that no existing entry (a symbolic link
/// above all) is followed.
fn write_new(dir: &Path, relative: &str, content: &str) -> Result<PathBuf> {
    let path = dir.join(relative);
    let mut folder = dir.to_path_buf();
    for part in Path::new(relative).parent().into_iter().flat_map(Path::components) {
        folder.push(part);
        match fs::symlink_metadata(&folder) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                return Err(refuse(
                    &folder,
                    "something other than a folder appeared here while the study was written",
                    "remove it and run report new again in a new folder",
                ));
            }
            Err(_) => fs::create_dir(&folder)
                .with_context(|| format!("cannot create `{}`", folder.display()))?,
        }
    }
    let mut file =
        fs::OpenOptions::new().write(true).create_new(true).open(&path).with_context(|| {
            format!(
                "cannot create `{}` (report new never writes over a file or a link)",
                path.display()
            )
        })?;
    std::io::Write::write_all(&mut file, content.as_bytes())
        .with_context(|| format!("cannot write `{}`", path.display()))?;
    Ok(path)
}

/// A refusal of `report new` at `path`.
fn refuse(path: &Path, message: &str, hint: &str) -> anyhow::Error {
    Diagnostics::from(Diagnostic::new(Location::file(path), message).hint(hint)).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workflow_names_the_action_of_a_github_repository_only() {
        let of = action_repository;
        assert_eq!(of("https://github.com/acme/report").as_deref(), Some("acme/report"));
        assert_eq!(of("https://github.com/acme/report.git/").as_deref(), Some("acme/report"));
        for url in [
            "",
            "https://gitlab.com/acme/report",
            "https://github.com/acme",
            "https://github.com/a b/c",
        ] {
            assert_eq!(of(url), None, "{url}");
        }
        let text = workflow();
        assert!(!text.contains("@ACTION@") && !text.contains("@VERSION@"), "{text}");
        assert!(text.contains(&format!("version: \"{}\"", env!("CARGO_PKG_VERSION"))), "{text}");
    }

    /// Links made with Unix's `symlink` (Windows needs a privilege to make one).
    #[cfg(unix)]
    #[test]
    fn a_link_planted_in_the_new_study_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let (study, outside) = (dir.path().join("study"), dir.path().join("outside"));
        fs::create_dir_all(&outside).unwrap();
        fs::create_dir(&study).unwrap();
        std::os::unix::fs::symlink(&outside, study.join("content")).unwrap();
        std::os::unix::fs::symlink(outside.join("book.toml"), study.join("book.toml")).unwrap();
        assert!(write_new(&study, "content/index.md", "x").is_err());
        assert!(write_new(&study, "book.toml", "x").is_err());
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0, "nothing written through a link");
        assert!(write_new(&study, "results/runs.csv", "x").is_ok());
    }
}
