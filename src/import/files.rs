//! The files an import reads: the paths given walked in sorted order, only
//! regular files opened, each read whole within a size limit, and the path
//! stored for it in the `source` column: relative to the study, or to the
//! path given on the command line, never an absolute machine path.

use std::fs;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, bail};
use walkdir::WalkDir;

use super::{Refusal, Summary};
use crate::diagnostic::{Diagnostic, Diagnostics, Location};

/// Largest file an import reads (256 MiB): far above any real log, it keeps
/// memory bounded whatever is given.
pub(super) const MAX_BYTES: u64 = 256 << 20;

/// One file to read.
pub(super) struct Input {
    /// The file.
    pub path: PathBuf,
    /// The path given on the command line that led to it.
    pub given: PathBuf,
    /// Whether `given` is a folder that was walked.
    pub folder: bool,
}

/// The bytes of `path`, unless it is larger than [`MAX_BYTES`].
pub(super) fn read(path: &Path) -> Result<Vec<u8>, Refusal> {
    let size = fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if size > MAX_BYTES {
        return Err(Refusal::new(format!(
            "the file is {} MiB, more than the {} MiB an import reads",
            size >> 20,
            MAX_BYTES >> 20
        ))
        .hint(
            "split the output into one file per job, or leave out what is not benchmark output",
        ));
    }
    crate::project::read_regular(path)
        .map_err(|err| Refusal::new(format!("cannot read the file: {err}")))
}

/// The `source` of `input`: its path relative to the study at `root`
/// (canonical) when it is inside, else relative to the folder given on the
/// command line (starting with that folder's name), else, for a file given
/// itself, its folder's name and its own (`bare-metal/run-3.out`, as if its
/// folder had been given: two files of the same name in two folders stay
/// two sources); `/`-separated on every system.
pub(super) fn source(root: &Path, input: &Input) -> String {
    let canonical = |p: &Path| dunce::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let file = canonical(&input.path);
    let given = if input.folder {
        canonical(&input.given)
    } else {
        file.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    let relative = match file.strip_prefix(root) {
        Ok(inside) => inside.to_path_buf(),
        Err(_) => {
            let name = given.file_name().map(PathBuf::from).unwrap_or_default();
            file.strip_prefix(&given).map(|r| name.join(r)).unwrap_or_default()
        }
    };
    let relative = if relative.as_os_str().is_empty() {
        input.path.file_name().map(PathBuf::from).unwrap_or_default()
    } else {
        relative
    };
    let parts: Vec<String> = relative
        .components()
        .filter_map(|c| match c {
            Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    parts.join("/")
}

/// Every file under `paths`, folders walked in sorted order. Only regular
/// files are read (a symbolic link is followed to one); anything else met
/// in a folder (a FIFO, socket or device, which could block a read forever,
/// or a link to a folder or to nothing) is refused by name in `summary`.
pub(super) fn inputs(paths: &[PathBuf], summary: &mut Summary) -> Result<Vec<Input>> {
    let mut out = Vec::new();
    for path in paths {
        let Ok(meta) = fs::metadata(path) else {
            bail!(Diagnostics::from(
                Diagnostic::new(Location::file(path), "no such file or folder to import")
                    .hint("give LAMMPS logs or OSU output files, or folders that hold them"),
            ));
        };
        if !meta.is_dir() {
            match regular(path, meta.file_type()) {
                Ok(()) => {
                    out.push(Input { path: path.clone(), given: path.clone(), folder: false })
                }
                Err(refusal) => summary.refused.push((path.clone(), refusal)),
            }
            continue;
        }
        for entry in WalkDir::new(path).min_depth(1).sort_by_file_name() {
            let entry = entry.with_context(|| format!("cannot list `{}`", path.display()))?;
            if entry.file_type().is_dir() {
                continue;
            }
            match fs::metadata(entry.path()).map(|m| m.file_type()) {
                Ok(kind) => match regular(entry.path(), kind) {
                    Ok(()) => out.push(Input {
                        path: entry.into_path(),
                        given: path.clone(),
                        folder: true,
                    }),
                    Err(refusal) => summary.refused.push((entry.into_path(), refusal)),
                },
                Err(err) => summary.refused.push((
                    entry.into_path(),
                    Refusal::new(format!("a broken symbolic link ({err}); it was not opened"))
                        .hint("point the link at a log, or remove it"),
                )),
            }
        }
    }
    Ok(out)
}

/// Whether a file of `kind` (symbolic links followed) at `path` may be read.
fn regular(path: &Path, kind: fs::FileType) -> Result<(), Refusal> {
    if kind.is_file() {
        return Ok(());
    }
    let link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let what = crate::project::describe_kind(kind);
    let what = if link { format!("a symbolic link to {what}") } else { what };
    let refusal = Refusal::new(format!("not a regular file but {what}; it was not opened"));
    Err(refusal.hint(if kind.is_dir() {
        "a folder reached through a link is not walked: give the folder itself"
    } else {
        "give regular files only: report never reads pipes, sockets or devices, whose reads can block forever"
    }))
}
