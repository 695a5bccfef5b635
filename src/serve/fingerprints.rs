//! What `serve` last saw of each input a change notice named. One save can
//! reach the watcher as two batches of notices (a rename, then the close of
//! the file it renamed; a folder, then the files found in it), and a loaded
//! machine can stall long enough between them to pass the debounce time. A
//! notice for a path whose kind, size and modification time are what they
//! were at the last notice is the tail of a change already built, not a new
//! one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// A path's kind (folder or not), size and modification time, or `None`
/// where there is nothing to read.
type Seen = Option<(bool, u64, Option<SystemTime>)>;

/// What was last seen of each path that a change notice named.
#[derive(Debug, Default)]
pub struct Fingerprints(BTreeMap<PathBuf, Seen>);

impl Fingerprints {
    /// The paths of `paths` that differ from when they were last named (all
    /// that were never named before), remembering what each is now. It is
    /// read before the rebuild reads the files, so a change that lands after
    /// it differs at its own notice.
    pub fn changed(&mut self, paths: Vec<PathBuf>) -> Vec<PathBuf> {
        paths
            .into_iter()
            .filter(|path| {
                let now = seen(path);
                self.0.insert(path.clone(), now) != Some(now)
            })
            .collect()
    }
}

fn seen(path: &Path) -> Seen {
    let meta = std::fs::symlink_metadata(path).ok()?;
    Some((meta.is_dir(), meta.len(), meta.modified().ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_counts_once_per_state_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("runs.csv");
        let mut fingerprints = Fingerprints::default();
        let mut changes = |times: usize| fingerprints.changed(vec![file.clone(); times]).len();
        std::fs::write(&file, "a\n").unwrap();
        // The first notice, and the same notice twice in one batch: once.
        assert_eq!(changes(2), 1);
        // The close that follows a rename, in the next batch: nothing new.
        assert_eq!(changes(1), 0);
        // Another size, the same size written later, the file gone: a change each.
        std::fs::write(&file, "a\nb\n").unwrap();
        assert_eq!(changes(1), 1);
        std::fs::write(&file, "a\nc\n").unwrap();
        let later = SystemTime::now() + std::time::Duration::from_secs(5);
        std::fs::File::options().write(true).open(&file).unwrap().set_modified(later).unwrap();
        assert_eq!(changes(1), 1);
        std::fs::remove_file(&file).unwrap();
        assert_eq!(changes(1), 1);
        assert_eq!(changes(1), 0);
    }
}
