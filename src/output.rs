//! Writing the output folder atomically: the build goes to a temporary folder
//! beside the output and replaces it only when complete.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::diagnostic::{Diagnostic, Diagnostics, Location};

/// Name of the marker file that identifies a folder written by `report`.
pub const MARKER: &str = ".report-output";

/// The files of a finished build, by path relative to the output folder.
#[derive(Debug, Clone, Default)]
pub struct Site {
    /// File contents by relative path (sorted).
    pub files: BTreeMap<PathBuf, Vec<u8>>,
}

impl Site {
    /// Add a file.
    pub fn insert(&mut self, path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) {
        self.files.insert(path.into(), bytes.into());
    }
}

/// Refuse output folders that would overwrite the author's own files: the study
/// root, a folder containing it, its input folders, or a folder not written by us.
pub fn check_target(out: &Path, root: &Path) -> Result<(), Diagnostics> {
    let refuse = |message: &str, hint: &str| {
        Err(Diagnostics::from(
            Diagnostic::new(Location::file(out), message.to_string()).hint(hint.to_string()),
        ))
    };
    let hint = "set [output] dir in book.toml or --out to a folder of its own, such as `site`";
    if root.starts_with(out) {
        return refuse("the output folder would replace the study folder", hint);
    }
    for input in crate::project::INPUT_FOLDERS {
        if out.starts_with(root.join(input)) {
            return refuse(
                &format!("the output folder is inside the study's `{input}/` folder"),
                hint,
            );
        }
    }
    let ours = out.join(MARKER).is_file()
        || fs::read_dir(out).map(|mut d| d.next().is_none()).unwrap_or(true);
    if out.exists() && (!out.is_dir() || !ours) {
        return refuse(
            "the output folder exists and was not written by report; refusing to replace it",
            "move the folder away, or choose another output folder with --out",
        );
    }
    Ok(())
}

/// Write `site` to `out`: into a temporary sibling first, then swapped in.
/// On any failure the previous output is left as it was.
pub fn write(site: &Site, out: &Path) -> Result<()> {
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    fs::create_dir_all(parent).with_context(|| format!("cannot create `{}`", parent.display()))?;
    let staging = tempfile::Builder::new()
        .prefix(".report-staging-")
        .tempdir_in(parent)
        .with_context(|| format!("cannot create a temporary folder in `{}`", parent.display()))?;
    for (relative, bytes) in &site.files {
        if relative.is_absolute()
            || relative.components().any(|c| matches!(c, std::path::Component::ParentDir))
        {
            bail!("refusing to write `{}` outside the output folder", relative.display());
        }
        let path = staging.path().join(relative);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir)?;
        }
        fs::write(&path, bytes).with_context(|| format!("cannot write `{}`", path.display()))?;
    }
    fs::write(
        staging.path().join(MARKER),
        b"This folder is written by `report build` and replaced on every build.\n",
    )?;
    set_readable(staging.path())?;
    swap_in(staging.keep(), out)
}

/// Move `staging` to `out`, moving any previous output aside first.
fn swap_in(staging: PathBuf, out: &Path) -> Result<()> {
    let parent = staging.parent().map(Path::to_path_buf).unwrap_or_default();
    let old = out
        .exists()
        .then(|| {
            tempfile::Builder::new().prefix(".report-old-").tempdir_in(&parent).map(|d| d.keep())
        })
        .transpose()?;
    if let Some(old) = &old {
        fs::remove_dir(old)?;
        fs::rename(out, old)
            .with_context(|| format!("cannot move the previous `{}` aside", out.display()))?;
    }
    if let Err(err) = fs::rename(&staging, out) {
        if let Some(old) = &old {
            let _ = fs::rename(old, out);
        }
        let _ = fs::remove_dir_all(&staging);
        return Err(err)
            .with_context(|| format!("cannot move the new output into `{}`", out.display()));
    }
    if let Some(old) = old {
        fs::remove_dir_all(&old).with_context(|| format!("cannot remove `{}`", old.display()))?;
    }
    Ok(())
}

#[cfg(unix)]
fn set_readable(dir: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o755))?;
    Ok(())
}

#[cfg(not(unix))]
fn set_readable(_dir: &Path) -> Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_previous_output_whole() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        let mut site = Site::default();
        site.insert("a.txt", "one");
        site.insert("data/b.txt", "two");
        write(&site, &out).unwrap();
        let mut next = Site::default();
        next.insert("a.txt", "three");
        write(&next, &out).unwrap();
        assert_eq!(fs::read_to_string(out.join("a.txt")).unwrap(), "three");
        assert!(!out.join("data/b.txt").exists());
        let leftovers: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "no staging folders left behind");
    }

    #[test]
    fn refuses_to_replace_foreign_or_input_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert!(check_target(root, root).is_err());
        assert!(check_target(&root.join("content/out"), root).is_err());
        fs::create_dir_all(root.join("mine")).unwrap();
        fs::write(root.join("mine/notes.txt"), "x").unwrap();
        assert!(check_target(&root.join("mine"), root).is_err());
        assert!(check_target(&root.join("site"), root).is_ok());
    }
}
