//! Reading the study's files: every path checked to stay inside the study,
//! links resolved, and only regular files opened, with `O_NONBLOCK` so that a
//! FIFO swapped in after the check cannot block the build.
//!
//! On Windows there is no `O_NONBLOCK` and no FIFO in a folder: named pipes
//! live under `\\.\pipe\`, which a study path cannot name (a path with a
//! prefix leaves the study), and opening a device such as `CON` does not
//! wait. Every open is still checked on the handle (`GetFileType`, then the
//! metadata): anything but a file on a disk is refused before a byte is
//! read. FIFOs, sockets and devices are told apart on Unix; on Windows a
//! handle is a device or a named pipe, and anything else not a regular file
//! is "a special file" (see docs/platforms.md).

use std::fs;
use std::path::{Component, Path, PathBuf};

use anyhow::{Context, Result, bail};
use walkdir::WalkDir;

use super::SourceFile;
use crate::diagnostic::{Diagnostic, Diagnostics, Location};

/// Read `relative` under `root`: a regular file inside the study
/// ([`regular_file`]), else a located error.
pub fn read(root: &Path, relative: &Path) -> Result<SourceFile> {
    match regular_file(root, relative)? {
        Some(full) => read_at(relative, &full),
        None => bail!("cannot read `{}`: no such file", relative.display()),
    }
}

/// Read the checked file `full` as `relative`.
fn read_at(relative: &Path, full: &Path) -> Result<SourceFile> {
    let bytes =
        read_regular(full).with_context(|| format!("cannot read `{}`", relative.display()))?;
    Ok(SourceFile::new(relative, bytes))
}

/// Open `path` for reading if it is a regular file. The check happens on the
/// opened file, not before, and the open does not wait: a file replaced by a
/// FIFO between [`regular_file`] and the read is refused, not read forever.
pub fn open_regular(path: &Path) -> std::io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let file = options.open(path)?;
    if let Some(what) = not_regular(&file)? {
        return Err(std::io::Error::other(format!(
            "not a regular file but {what}; it was not read"
        )));
    }
    Ok(file)
}

/// What the opened `file` is, if it is not a regular file. On Windows the
/// handle's type comes first: a console or `NUL` may claim to be a file.
fn not_regular(file: &fs::File) -> std::io::Result<Option<String>> {
    if let Some(what) = handle_kind(file)? {
        return Ok(Some(what.to_string()));
    }
    let kind = file.metadata()?.file_type();
    Ok((!kind.is_file()).then(|| describe_kind(kind)))
}

/// What a Windows handle that is not a file on a disk is: a pipe, a device
/// (`CON`, `NUL`, a serial port) or something else (`GetFileType`).
#[cfg(windows)]
fn handle_kind(file: &fs::File) -> std::io::Result<Option<&'static str>> {
    let kind = winapi_util::file::typ(file)?;
    Ok(if kind.is_disk() {
        None
    } else if kind.is_pipe() {
        Some("a named pipe")
    } else if kind.is_char() {
        Some("a device")
    } else {
        Some("a special file")
    })
}

/// Elsewhere the file's metadata says all ([`describe_kind`]).
#[cfg(not(windows))]
fn handle_kind(_: &fs::File) -> std::io::Result<Option<&'static str>> {
    Ok(None)
}

/// The bytes of `path` if it is a regular file ([`open_regular`]): a FIFO,
/// socket or device is refused, never waited on.
pub fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut file = open_regular(path)?;
    let size = file.metadata().map_or(0, |m| m.len());
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).min(1 << 30));
    std::io::Read::read_to_end(&mut file, &mut bytes)?;
    Ok(bytes)
}

/// Read `relative` under `root` if anything is there ([`regular_file`]).
pub(super) fn read_optional(root: &Path, relative: &str) -> Result<Option<SourceFile>> {
    let relative = Path::new(relative);
    regular_file(root, relative)?.map(|full| read_at(relative, &full)).transpose()
}

/// The files with one of the extensions `exts` directly in `root/dir`, sorted by name.
pub(super) fn read_dir(root: &Path, dir: &str, exts: &[&str]) -> Result<Vec<SourceFile>> {
    checked(root, list(root, dir, exts)?)?.iter().map(|(rel, full)| read_at(rel, full)).collect()
}

/// `results/*.csv` and `results/*.parquet`, sorted by name, checked to be
/// regular files inside the study but left on disk: the results stage
/// streams them, so that a large file is never held whole in memory.
pub(super) fn list_results(root: &Path) -> Result<Vec<SourceFile>> {
    let files = checked(root, list(root, "results", &RESULTS_EXTENSIONS)?)?;
    let mut files: Vec<SourceFile> =
        files.into_iter().map(|(relative, full)| SourceFile::on_disk(relative, full)).collect();
    files.extend(super::datasets::list(root));
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// The files of `results/` a build reads: CSV, tab-separated and Parquet.
pub const RESULTS_EXTENSIONS: [&str; 3] = ["csv", "tsv", "parquet"];

/// A warning for each file of `results/` that a build does not read and
/// that looks like data, saying why and what reads it: raw output and
/// harness JSON are for `report import`, a spreadsheet is exported as CSV.
pub(super) fn unread_results(root: &Path) -> Vec<Diagnostic> {
    let Ok(entries) = fs::read_dir(root.join("results")) else { return Vec::new() };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
        .iter()
        .filter_map(|name| {
            let ext = Path::new(name).extension()?.to_str()?.to_ascii_lowercase();
            let why = match ext.as_str() {
                "json" | "jsonl" | "ndjson" => "a JSON file is not a results table: turn a harness's JSON into rows with `report import hyperfine|gbench|pytest-benchmark|criterion FILE`, which writes results/NAME.csv",
                "out" | "log" | "txt" | "dat" => "raw output is not a results table: turn it into rows with `report import lammps|osu|reframe|log FILE` (keep raw output outside results/, such as in raw/)",
                "xlsx" | "xls" | "ods" | "numbers" => "a spreadsheet is not read: export the sheet as CSV UTF-8 into results/",
                "gz" | "zip" | "bz2" | "xz" | "zst" => "a compressed file is not read: decompress it into results/",
                "feather" | "arrow" | "h5" | "hdf5" | "pkl" | "pickle" => "only CSV, TSV and Parquet are read: write the table as Parquet (df.to_parquet) or CSV",
                _ => return None,
            };
            Some(
                Diagnostic::new(Location::file(format!("results/{name}")), "this file in results/ is not read")
                    .hint(why),
            )
        })
        .collect()
}

/// Each of `relatives` with where it is read from ([`regular_file`]); every
/// refusal at once, not only the first.
fn checked(root: &Path, relatives: Vec<PathBuf>) -> Result<Vec<(PathBuf, PathBuf)>> {
    let (mut files, mut errors) = (Vec::new(), Diagnostics::default());
    for relative in relatives {
        match regular_file(root, &relative) {
            Ok(Some(full)) => files.push((relative, full)),
            Ok(None) => {}
            Err(diagnostics) => errors.0.extend(diagnostics.0),
        }
    }
    Ok(errors.into_result(files)?)
}

/// The paths, relative to `root`, of the files with one of the extensions
/// `exts` directly in `root/dir`, sorted by name.
fn list(root: &Path, dir: &str, exts: &[&str]) -> Result<Vec<PathBuf>> {
    let folder = root.join(dir);
    if !folder.is_dir() {
        return Ok(Vec::new());
    }
    let mut files = Vec::new();
    for entry in WalkDir::new(&folder).min_depth(1).max_depth(1).sort_by_file_name() {
        let entry = entry.with_context(|| format!("cannot list `{dir}/`"))?;
        let path = entry.path();
        if path.extension().is_some_and(|e| exts.iter().any(|x| e == *x))
            && !entry.file_type().is_dir()
        {
            files.push(slashed(path.strip_prefix(root).unwrap_or(path)));
        }
    }
    Ok(files)
}

/// The relative `path` with `/` between its parts on every system, as the
/// study's files are named in messages, pages and data (`results/a.csv`,
/// never `results\\a.csv` on Windows, where `/` opens the file as well).
pub fn slashed(path: &Path) -> PathBuf {
    let mut out = std::ffi::OsString::new();
    for (i, part) in path.components().enumerate() {
        if i > 0 {
            out.push("/");
        }
        out.push(part.as_os_str());
    }
    PathBuf::from(out)
}

/// Where the regular file `root/relative` is read from (`root` canonical):
/// the path itself, or where a symbolic link that stays inside the study
/// leads; `None` when nothing is there. Anything else is refused by name
/// before it is opened: a path or link that leaves the study, a broken link,
/// a folder, and a FIFO, socket or device, which could block a read forever.
pub fn regular_file(root: &Path, relative: &Path) -> Result<Option<PathBuf>, Diagnostics> {
    if escapes(relative) {
        return Err(leaves(relative).into());
    }
    let full = root.join(relative);
    let link = match fs::symlink_metadata(&full) {
        Ok(meta) => meta.file_type().is_symlink(),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(unreadable(relative, &err).into()),
    };
    let resolved = dunce::canonicalize(&full).map_err(|err| match link {
        true => Diagnostic::new(Location::file(relative), "broken symbolic link")
            .hint("point the link at a file inside the study, or remove it"),
        false => unreadable(relative, &err),
    })?;
    if !resolved.starts_with(root) {
        return Err(leaves(relative)
            .hint("a symbolic link on the way leads out of the study: put the file itself in the study")
            .into());
    }
    let kind = fs::metadata(&resolved).map_err(|err| unreadable(relative, &err))?.file_type();
    if !kind.is_file() {
        let what = if link {
            format!("a symbolic link to {}", describe_kind(kind))
        } else {
            describe_kind(kind)
        };
        let hint = if kind.is_dir() {
            "a folder here has the name of an input file: rename it, or remove it"
        } else {
            "remove it, or put the file itself in its place: report never opens pipes, sockets or devices, whose reads can block forever"
        };
        let message = format!("not a regular file but {what}; it was not opened");
        return Err(Diagnostic::new(Location::file(relative), message).hint(hint).into());
    }
    Ok(Some(resolved))
}

/// Whether `relative` names a place outside the folder it is joined to: a
/// root (`/x`, and on Windows `\\x` and `C:\\x`, which `is_absolute` misses
/// without a drive), a drive or share prefix (`C:x`), or a `..`.
fn escapes(relative: &Path) -> bool {
    relative.has_root()
        || relative.components().any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
}

/// The error of a path that leaves the study.
fn leaves(relative: &Path) -> Diagnostic {
    Diagnostic::new(Location::file(relative), "path leaves the study folder")
        .hint("keep every input inside the study folder; use a path relative to it, without `..`")
}

/// The error of a file the system will not describe or open.
fn unreadable(relative: &Path, err: &std::io::Error) -> Diagnostic {
    Diagnostic::new(Location::file(relative), format!("cannot read the file: {err}"))
        .hint("check that the file and its folders can be read by you")
}

/// What a file that is not a regular file is, for messages.
pub fn describe_kind(kind: fs::FileType) -> String {
    let name = if kind.is_dir() {
        "a folder"
    } else if let Some(special) = special_kind(kind) {
        special
    } else if kind.is_symlink() {
        "a symbolic link"
    } else {
        "a special file"
    };
    name.to_string()
}

/// The name of a Unix special file: a FIFO, a socket or a device.
#[cfg(unix)]
fn special_kind(kind: fs::FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        Some("a named pipe (FIFO)")
    } else if kind.is_socket() {
        Some("a socket")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("a device")
    } else {
        None
    }
}

/// Elsewhere std names no special files: they are "a special file".
#[cfg(not(unix))]
fn special_kind(_: fs::FileType) -> Option<&'static str> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_paths_outside_the_root() {
        let root = dunce::canonicalize(std::env::temp_dir()).unwrap();
        for path in ["../../etc/passwd", "/etc/passwd"] {
            let err = regular_file(&root, Path::new(path)).unwrap_err();
            assert!(err.to_string().contains("path leaves the study folder"), "{err}");
        }
        assert!(regular_file(&root, Path::new("results/no-such-file.csv")).unwrap().is_none());
    }

    /// Every way out of a folder, on every system; Windows has more of them.
    #[test]
    fn escapes_knows_roots_prefixes_and_parents() {
        for way_out in ["/etc/passwd", "/", "..", "a/../../b"] {
            assert!(escapes(Path::new(way_out)), "{way_out}");
        }
        for inside in ["results/a.csv", "book.toml", "a/./b", "..a", "a..b/c"] {
            assert!(!escapes(Path::new(inside)), "{inside}");
        }
        let windows = ["\\etc", "C:\\x", "C:x", "\\\\server\\share\\x", "a\\..\\..\\b"];
        for way_out in windows {
            assert_eq!(escapes(Path::new(way_out)), cfg!(windows), "{way_out}");
        }
    }

    /// Parts are joined with `/`; on Unix a backslash is part of a name.
    #[test]
    fn relative_paths_are_slashed() {
        let sep = std::path::MAIN_SEPARATOR;
        let native = format!("results{sep}a b.csv");
        assert_eq!(slashed(Path::new(&native)).to_str(), Some("results/a b.csv"));
        assert_eq!(
            slashed(Path::new("templates/partials/x.html")).to_str(),
            Some("templates/partials/x.html")
        );
        assert_eq!(slashed(Path::new("book.toml")).to_str(), Some("book.toml"));
        let backslash = if cfg!(windows) { "a/b" } else { "a\\b" };
        assert_eq!(slashed(Path::new("a\\b")).to_str(), Some(backslash));
    }

    /// Every platform: a file is read, a folder is refused (on Windows the
    /// open itself fails), and the folder is named as one.
    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.csv"), "x,y\n1,2\n").unwrap();
        assert_eq!(read_regular(&dir.path().join("a.csv")).unwrap(), b"x,y\n1,2\n");
        assert!(read_regular(dir.path()).is_err());
        assert_eq!(describe_kind(fs::metadata(dir.path()).unwrap().file_type()), "a folder");
        assert_eq!(
            read_regular(&dir.path().join("none.csv")).unwrap_err().kind(),
            std::io::ErrorKind::NotFound
        );
    }

    /// A device is refused on the handle before it is read: `/dev/null` and
    /// `/dev/zero` (which never ends) on Unix, `NUL` on Windows (`CON`, which
    /// would wait for typing, cannot be opened where no console is attached).
    #[test]
    fn devices_are_refused_on_the_handle() {
        let devices: &[&str] = if cfg!(windows) { &["NUL"] } else { &["/dev/null", "/dev/zero"] };
        for &device in devices {
            let err = open_regular(Path::new(device)).unwrap_err().to_string();
            assert_eq!(err, "not a regular file but a device; it was not read", "{device}");
        }
    }

    /// A FIFO that takes a checked file's place is refused at the open,
    /// which does not wait for a writer (a plain open would block forever).
    #[cfg(unix)]
    #[test]
    fn opening_a_fifo_neither_blocks_nor_reads() {
        let dir = tempfile::tempdir().unwrap();
        let pipe = dir.path().join("runs.csv");
        let made = std::process::Command::new("mkfifo").arg(&pipe).status().unwrap();
        assert!(made.success());
        let err = open_regular(&pipe).unwrap_err().to_string();
        assert_eq!(err, "not a regular file but a named pipe (FIFO); it was not read");
        std::fs::write(dir.path().join("a.csv"), "x").unwrap();
        assert!(open_regular(&dir.path().join("a.csv")).is_ok());
    }
}
