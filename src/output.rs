//! Writing the output folder atomically: the build goes to a temporary folder
//! beside the output and replaces it only when complete. On Unix the new
//! folder is made 0755; elsewhere it keeps the permissions it inherits.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Component, Path, PathBuf};

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

/// Refuse output folders that would overwrite the author's own files, and
/// return where the build writes: `out` with every symbolic link and `..`
/// resolved ([`resolve`]), so that the check and the write see one folder.
/// Refused: the study root (`root`, canonical) or a folder holding it, a
/// folder at or inside one of its input folders (followed through links
/// too), and an existing folder that `report` did not write (no [`MARKER`],
/// not empty). A folder outside the study is allowed when the user names it.
pub fn check_target(out: &Path, root: &Path) -> Result<PathBuf, Diagnostics> {
    let refuse = |message: String, hint: &str| {
        Diagnostics::from(Diagnostic::new(Location::file(out), message).hint(hint.to_string()))
    };
    let hint = "set [output] dir in book.toml or --out to a folder of its own, such as `site`";
    let resolved = resolve(out).map_err(|err| {
        refuse(format!("cannot resolve the output folder: {err}"), "check that every folder on the way exists or can be created, and that no symbolic link on it is broken")
    })?;
    let root = resolve(root).unwrap_or_else(|_| root.to_path_buf());
    let via = if resolved == out.components().collect::<PathBuf>() {
        String::new()
    } else {
        format!(" (it leads to `{}`)", resolved.display())
    };
    if root.starts_with(&resolved) {
        return Err(refuse(format!("the output folder would replace the study folder{via}"), hint));
    }
    for input in crate::project::INPUT_FOLDERS {
        let folder = root.join(input);
        let real = resolve(&folder).unwrap_or_else(|_| folder.clone());
        if resolved.starts_with(&folder) || resolved.starts_with(&real) {
            let message = format!("the output folder is inside the study's `{input}/` folder{via}");
            return Err(refuse(message, hint));
        }
    }
    let ours = resolved.join(MARKER).is_file()
        || fs::read_dir(&resolved).map(|mut d| d.next().is_none()).unwrap_or(true);
    if resolved.exists() && (!resolved.is_dir() || !ours) {
        return Err(refuse(
            format!(
                "the output folder exists and was not written by report; refusing to replace it{via}"
            ),
            "move the folder away, or choose another output folder with --out",
        ));
    }
    Ok(resolved)
}

/// `path` made absolute with every symbolic link on the way followed, as the
/// system will see it when the build writes there. Parts that do not exist
/// yet are kept as written, a `..` after them taken lexically, as creating
/// the folders would. A broken link on the way is an error.
pub fn resolve(path: &Path) -> std::io::Result<PathBuf> {
    let absolute = std::env::current_dir()?.join(path);
    let mut resolved = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => resolved.push(component),
            Component::CurDir => {}
            Component::ParentDir => {
                resolved.pop();
            }
            Component::Normal(name) => {
                resolved.push(name);
                match fs::symlink_metadata(&resolved) {
                    Ok(_) => resolved = dunce::canonicalize(&resolved)?,
                    Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                    Err(err) => return Err(err),
                }
            }
        }
    }
    Ok(resolved)
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
        if relative.has_root()
            || relative
                .components()
                .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
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

/// Make the staging folder (created 0700 by tempfile) readable as a
/// published folder is: 0755.
#[cfg(unix)]
fn set_readable(dir: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o755))?;
    Ok(())
}

/// Elsewhere the folder keeps the permissions it inherits from its parent.
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

    /// Joined part by part: on Windows a canonical root can be a verbatim
    /// path (`\\?\C:\…`, past 260 characters), where `/` does not separate.
    #[test]
    fn targets_are_resolved_through_dot_dot() {
        let dir = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(dir.path()).unwrap();
        let at = |rel: &str| rel.split('/').fold(root.clone(), |path, part| path.join(part));
        fs::create_dir_all(at("content")).unwrap();
        assert_eq!(resolve(&at("new/../content/x")).unwrap(), at("content/x"));
        for out in ["site/../content", "content/.."] {
            assert!(check_target(&at(out), &root).is_err(), "{out}");
        }
        assert_eq!(check_target(&at("new/../site"), &root).unwrap(), at("site"));
    }

    /// Symbolic links, made here with Unix's `symlink` (Windows needs a
    /// privilege to make one).
    #[cfg(unix)]
    #[test]
    fn targets_are_resolved_through_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(dir.path()).unwrap();
        fs::create_dir_all(root.join("content")).unwrap();
        std::os::unix::fs::symlink(root.join("content"), root.join("link")).unwrap();
        assert_eq!(resolve(&root.join("link/y")).unwrap(), root.join("content/y"));
        for out in ["link", "link/site", "new/../link/x"] {
            assert!(check_target(&root.join(out), &root).is_err(), "{out}");
        }
        std::os::unix::fs::symlink(root.join("nowhere"), root.join("broken")).unwrap();
        assert!(check_target(&root.join("broken"), &root).is_err());
    }
}
