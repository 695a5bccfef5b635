//! `report new DIR`: a small study that builds right away (a comparison of
//! two alternatives by default, or the HPC example), dated the day it is
//! made, with a workflow that publishes it to GitHub Pages ([`workflow`]).

pub mod workflow;

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::diagnostic::{Diagnostic, Diagnostics, Location};

pub use workflow::WORKFLOW_PATH;

/// Which study `report new` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Example {
    /// Two alternatives compared at three sizes of one factor: a chart,
    /// inline statistics and the sections of a paper.
    #[default]
    Comparison,
    /// A program before and after a change, at 1, 2 and 4 threads.
    Hpc,
}

impl Example {
    /// The study's own files: path relative to the new study, and content
    /// (book.toml with `@DATE@` for its date).
    fn files(self) -> [(&'static str, &'static str); 3] {
        match self {
            Example::Comparison => [
                ("book.toml", include_str!("study/book.toml")),
                ("content/index.md", include_str!("study/index.md")),
                ("results/runs.csv", include_str!("study/runs.csv")),
            ],
            Example::Hpc => [
                ("book.toml", include_str!("hpc/book.toml")),
                ("content/index.md", include_str!("hpc/index.md")),
                ("results/runs.csv", include_str!("hpc/runs.csv")),
            ],
        }
    }
}

/// The files every scaffold has besides its study and its workflow.
const COMMON: [(&str, &str); 2] = [
    (
        "templates/README.md",
        "Files here replace report's built-in templates: base.html, page.html,\npartials/*.html, style.css, app.js and paper.typ.\n",
    ),
    (".gitignore", "/site\n"),
];

/// What `report new` made: the files written, and a warning when the
/// workflow could not name report's action ([`workflow::homeless`]).
#[derive(Debug, Clone)]
pub struct Created {
    /// Every file written, under the new study's folder.
    pub files: Vec<PathBuf>,
    /// Warnings about what was written.
    pub warnings: Vec<Diagnostic>,
}

/// The date `YYYY-MM-DD` (UTC) of `epoch` seconds since 1970, or of the
/// clock when `None`: a new study is dated the day it is made, and its
/// builds then take the date from book.toml.
pub fn date(epoch: Option<i64>) -> String {
    let now = epoch
        .and_then(|e| time::OffsetDateTime::from_unix_timestamp(e).ok())
        .unwrap_or_else(time::OffsetDateTime::now_utc);
    let date = now.date();
    format!("{:04}-{:02}-{:02}", date.year(), u8::from(date.month()), date.day())
}

/// Write a new study into `dir`, which must not exist or be an empty folder
/// (not a symbolic link). Every folder and file is created new, never
/// opened if something is already there, so that nothing is written through
/// a symbolic link out of `dir`, even one made while the study is written.
/// `date` (`YYYY-MM-DD`) goes into book.toml.
pub fn create(dir: &Path, example: Example, date: &str) -> Result<Created> {
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
    let workflow = workflow::workflow(workflow::home());
    let book = example.files()[0].1.replace("@DATE@", date);
    let files = [("book.toml", book.as_str())]
        .into_iter()
        .chain(example.files().into_iter().skip(1))
        .chain(COMMON)
        .chain([(WORKFLOW_PATH, workflow.as_str())])
        .map(|(relative, content)| write_new(dir, relative, content))
        .collect::<Result<Vec<_>>>()?;
    let warnings = workflow::homeless(&dir.join(WORKFLOW_PATH), &workflow).into_iter().collect();
    Ok(Created { files, warnings })
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
    fn a_study_is_dated_the_utc_day_of_its_epoch() {
        assert_eq!(date(Some(0)), "1970-01-01");
        // By hand: 2026-03-05T00:00:00Z = 20,517 days × 86,400 s (see
        // tests/workflow_scaffold.rs); a second earlier is the 4th.
        assert_eq!(date(Some(1_772_668_800)), "2026-03-05");
        assert_eq!(date(Some(1_772_668_799)), "2026-03-04");
        // 2000-02-29T12:00Z: 30 years with 7 leap days, 10,957 days, + 59 = 11,016 days.
        assert_eq!(date(Some(11_016 * 86_400 + 43_200)), "2000-02-29");
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
