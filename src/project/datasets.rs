//! Partitioned datasets: a folder `results/NAME/` of Parquet files, laid out
//! by value as engines write them (`bench=b042/part-0.parquet`), listed here;
//! what the results stage read of one, and the check that it did not change
//! while the study was built.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use walkdir::WalkDir;

use super::SourceFile;
use crate::diagnostic::{Diagnostic, Diagnostics, Location};

/// What the results stage read of a dataset: for the manifest, and to tell
/// whether the dataset changed during the build.
#[derive(Debug, Clone, Default)]
pub struct DatasetScan {
    /// Every Parquet file of the folder when it was listed, relative to the
    /// study root, sorted.
    pub listed: Vec<PathBuf>,
    /// The files read, in the order of `listed`.
    pub read: Vec<FileRead>,
    /// The partitions (`bench=b001`, `bench=b002/day=2025-01-01`) of which no
    /// file was read, sorted.
    pub pruned: Vec<String>,
}

/// One file of a dataset as it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct FileRead {
    /// Relative to the study root.
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// The SHA-256 of the bytes read, in hex.
    pub sha256: String,
    /// When it was last modified, as the file system said before the read.
    pub modified: Option<SystemTime>,
}

/// The folders directly in `root/results` that hold Parquet files (at any
/// depth): each a dataset, left on disk, sorted by name.
pub(super) fn list(root: &Path) -> Vec<SourceFile> {
    let Ok(entries) = fs::read_dir(root.join("results")) else { return Vec::new() };
    let mut folders: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()) && !skipped(&e.file_name()))
        .map(|e| e.path())
        .collect();
    folders.sort();
    folders
        .into_iter()
        .filter(|full| files(full).is_ok_and(|f| !f.is_empty()))
        .filter_map(|full| {
            let name = full.file_name()?.to_string_lossy().into_owned();
            Some(SourceFile::on_disk(format!("results/{name}"), full))
        })
        .collect()
}

/// Whether an entry of a dataset is left out, as engines leave it out: names
/// starting with `_` (Spark's `_SUCCESS`, `_temporary/`) or `.` (checksums,
/// hidden files).
fn skipped(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    name.starts_with('_') || name.starts_with('.')
}

/// The Parquet files under the dataset folder `full`, relative to it with
/// `/` between parts, sorted; symbolic links are not followed.
pub fn files(full: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let walk = WalkDir::new(full).min_depth(1).max_depth(16).sort_by_file_name();
    for entry in walk.into_iter().filter_entry(|e| !skipped(e.file_name())) {
        let entry = entry.map_err(std::io::Error::other)?;
        let parquet = entry.path().extension().is_some_and(|e| e == "parquet");
        if parquet && entry.file_type().is_file() {
            let relative = entry.path().strip_prefix(full).unwrap_or(entry.path());
            found.push(super::slashed(relative));
        }
    }
    Ok(found)
}

impl SourceFile {
    /// Whether this is a partitioned dataset: a folder, left on disk.
    pub fn is_dataset(&self) -> bool {
        self.disk.as_ref().is_some_and(|d| d.is_dir())
    }
}

/// An error for each dataset of `results` that changed since the results
/// stage read it: a file added, removed, resized or modified.
pub fn unchanged(results: &[SourceFile]) -> Result<(), Diagnostics> {
    let mut errors = Diagnostics::default();
    for file in results {
        let (Some(scan), Some(full)) = (file.scan.get(), &file.disk) else { continue };
        if let Some(what) = change(scan, &file.path, full) {
            errors.push(
                Diagnostic::new(
                    Location::file(&file.path),
                    format!("the dataset changed during the build: {what}"),
                )
                .hint(
                    "nothing was written, and the previous output is kept; build again once \
                     the engine writing the dataset has finished",
                ),
            );
        }
    }
    errors.into_result(())
}

/// What changed in the dataset at `full` (named `path`) since `scan`, if anything.
fn change(scan: &DatasetScan, path: &Path, full: &Path) -> Option<String> {
    let now = match files(full) {
        Ok(now) => now.into_iter().map(|f| path.join(f)).collect::<Vec<_>>(),
        Err(err) => return Some(format!("it can no longer be listed ({err})")),
    };
    if let Some(gone) = scan.listed.iter().find(|f| !now.contains(f)) {
        return Some(format!("`{}` was removed", gone.display()));
    }
    if let Some(new) = now.iter().find(|f| !scan.listed.contains(f)) {
        return Some(format!("`{}` was added", new.display()));
    }
    scan.read.iter().find_map(|read| {
        let relative = read.path.strip_prefix(path).unwrap_or(&read.path);
        let meta = fs::metadata(full.join(relative)).ok();
        let same = meta.is_some_and(|m| m.len() == read.size && m.modified().ok() == read.modified);
        (!same).then(|| format!("`{}` was modified", read.path.display()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scan of the dataset folder `full` (named `results/runs`) as if
    /// every file were read now.
    fn scan(full: &Path) -> DatasetScan {
        let path = Path::new("results/runs");
        let listed: Vec<PathBuf> = files(full).unwrap().iter().map(|f| path.join(f)).collect();
        let read = listed
            .iter()
            .map(|p| {
                let meta = fs::metadata(full.join(p.strip_prefix(path).unwrap())).unwrap();
                let modified = meta.modified().ok();
                FileRead { path: p.clone(), size: meta.len(), sha256: String::new(), modified }
            })
            .collect();
        DatasetScan { listed, read, pruned: Vec::new() }
    }

    /// A file rewritten, added or removed after the scan is a change, named;
    /// Spark's marker files and hidden files are not part of the dataset.
    #[test]
    fn a_dataset_changed_after_its_scan_is_told() {
        let dir = tempfile::tempdir().unwrap();
        let full = dir.path().join("runs");
        fs::create_dir_all(full.join("bench=b1")).unwrap();
        fs::create_dir_all(full.join("_temporary")).unwrap();
        fs::write(full.join("bench=b1/part-0.parquet"), "one").unwrap();
        fs::write(full.join("_SUCCESS"), "").unwrap();
        fs::write(full.join("_temporary/x.parquet"), "").unwrap();
        let file = SourceFile::on_disk("results/runs", full.clone());
        let path = Path::new("results/runs");
        let before = scan(&full);
        assert_eq!(before.listed, [PathBuf::from("results/runs/bench=b1/part-0.parquet")]);
        file.scan.set(before.clone()).unwrap();
        assert!(unchanged(std::slice::from_ref(&file)).is_ok());
        fs::write(full.join("bench=b1/part-1.parquet"), "two").unwrap();
        let said = change(&before, path, &full).unwrap();
        assert_eq!(said, "`results/runs/bench=b1/part-1.parquet` was added");
        assert!(unchanged(std::slice::from_ref(&file)).is_err());
        fs::remove_file(full.join("bench=b1/part-1.parquet")).unwrap();
        fs::write(full.join("bench=b1/part-0.parquet"), "one, rewritten").unwrap();
        let said = change(&before, path, &full).unwrap();
        assert_eq!(said, "`results/runs/bench=b1/part-0.parquet` was modified");
        fs::remove_file(full.join("bench=b1/part-0.parquet")).unwrap();
        let said = change(&before, path, &full).unwrap();
        assert_eq!(said, "`results/runs/bench=b1/part-0.parquet` was removed");
    }
}
