//! Where the chunks of a build live: a memory budget, and past it a temporary
//! file whose read failures are kept for the stage that must stop on them.

use std::fs::File;
#[cfg(unix)]
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Bytes of chunks a build keeps in memory before it writes them to disk:
/// about a million rows of a seven-column study.
pub const MEMORY_BUDGET: usize = 64 << 20;

/// Where the chunks of one build live: a memory budget, and the temporary
/// file (deleted by the system when closed) that takes the rest.
#[derive(Debug)]
pub struct Store {
    /// Bytes of memory chunks still allowed.
    pub(super) left: AtomicUsize,
    /// The spill file, created on first use, and the name it was created
    /// under (removed at once: the system deletes the file when it is closed).
    file: OnceLock<std::io::Result<(File, PathBuf)>>,
    /// The first failure to read the spill file back. The read's values are
    /// unusable; every stage that reads chunks ends with [`Store::check`],
    /// which turns this into the build's error.
    failed: OnceLock<SpillFailure>,
    /// The end of the data written to the file.
    end: AtomicU64,
    /// Room freed in the file by chunks dropped, by size in bytes: reused
    /// first, so that the file holds about what is alive, not all ever written.
    pub(super) free: std::sync::Mutex<std::collections::BTreeMap<usize, Vec<u64>>>,
}

impl Store {
    /// A store that keeps `budget` bytes of chunks in memory.
    pub fn new(budget: usize) -> Arc<Store> {
        Arc::new(Store {
            left: AtomicUsize::new(budget),
            file: OnceLock::new(),
            failed: OnceLock::new(),
            end: AtomicU64::new(0),
            free: Default::default(),
        })
    }

    /// A store that keeps nothing in memory and spills every chunk to `file`,
    /// named `path` in messages (tests give it a file that fails).
    pub fn with_spill_file(file: File, path: PathBuf) -> Arc<Store> {
        let store = Store::new(0);
        store.file.set(Ok((file, path))).ok();
        store
    }

    /// `Err` if a read of the spill file failed since the store was made: the
    /// values read are wrong, and the build must stop.
    pub fn check(&self) -> Result<(), SpillFailure> {
        self.failed.get().map_or(Ok(()), |failure| Err(failure.clone()))
    }

    /// Take `bytes` from the memory budget, if that much is left.
    pub(super) fn reserve(&self, bytes: usize) -> bool {
        self.left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| left.checked_sub(bytes))
            .is_ok()
    }

    pub(super) fn release(&self, bytes: usize) {
        self.left.fetch_add(bytes, Ordering::Relaxed);
    }

    /// The size of the temporary file: the most bytes on disk at once.
    pub fn spilled(&self) -> u64 {
        self.end.load(Ordering::Relaxed)
    }

    fn file(&self) -> std::io::Result<&(File, PathBuf)> {
        self.file
            .get_or_init(|| {
                let (file, path) =
                    tempfile::Builder::new().prefix(".report-spill-").tempfile()?.into_parts();
                let name = path.to_path_buf();
                // Remove the name now: the open file lives until the build ends,
                // and nothing is left behind if the process is killed.
                path.close()?;
                Ok((file, name))
            })
            .as_ref()
            .map_err(|err| std::io::Error::new(err.kind(), err.to_string()))
    }

    /// Write `bytes` in room freed earlier or at the end of the file; returns where.
    pub(super) fn write(&self, bytes: &[u8]) -> std::io::Result<u64> {
        let reused = self
            .free
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_mut(&bytes.len())
            .and_then(Vec::pop);
        let offset =
            reused.unwrap_or_else(|| self.end.fetch_add(bytes.len() as u64, Ordering::Relaxed));
        self.file()?.0.write_all_at(bytes, offset)?;
        Ok(offset)
    }

    /// Read `into.len()` bytes at `offset`. A failure is recorded for
    /// [`Store::check`] and leaves `into` zeroed.
    pub(super) fn read(&self, offset: u64, into: &mut [u8]) {
        // A chunk on disk was written, so the file exists.
        let Ok((file, path)) = self.file() else { return };
        if let Err(err) = file.read_exact_at(into, offset) {
            into.fill(0);
            self.failed.set(SpillFailure { path: path.clone(), error: err.to_string() }).ok();
        }
    }
}

/// A read of the spill file that failed: the file and the system's error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpillFailure {
    /// The name the spill file was created under.
    pub path: PathBuf,
    /// The operating system's message.
    pub error: String,
}

impl std::fmt::Display for SpillFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot read back the results' temporary file {}: {}",
            self.path.display(),
            self.error
        )
    }
}

impl std::error::Error for SpillFailure {}

/// Positioned reads and writes on Windows, as Unix's `FileExt` has them.
#[cfg(windows)]
trait FileExt {
    /// Write all of `bytes` at `offset`.
    fn write_all_at(&self, bytes: &[u8], offset: u64) -> std::io::Result<()>;
    /// Fill `into` from `offset`.
    fn read_exact_at(&self, into: &mut [u8], offset: u64) -> std::io::Result<()>;
}

#[cfg(windows)]
impl FileExt for File {
    fn write_all_at(&self, mut bytes: &[u8], mut offset: u64) -> std::io::Result<()> {
        use std::os::windows::fs::FileExt;
        while !bytes.is_empty() {
            let n = self.seek_write(bytes, offset)?;
            if n == 0 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            (bytes, offset) = (&bytes[n..], offset + n as u64);
        }
        Ok(())
    }

    fn read_exact_at(&self, mut into: &mut [u8], mut offset: u64) -> std::io::Result<()> {
        use std::os::windows::fs::FileExt;
        while !into.is_empty() {
            let n = self.seek_read(into, offset)?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            (into, offset) = (&mut into[n..], offset + n as u64);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[cfg(unix)]
    use super::*;
    #[cfg(unix)]
    use crate::results::store::{CHUNK_ROWS, Chunks};

    /// A spill file opened for writing only: chunks go out, and reading them
    /// back fails with the system's "bad file descriptor" (Unix's).
    #[cfg(unix)]
    #[test]
    fn a_failed_read_of_the_spill_file_is_recorded_with_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spill");
        let store = Store::with_spill_file(File::create(&path).unwrap(), path.clone());
        let column: Vec<f64> = (0..CHUNK_ROWS * 2).map(|i| i as f64 + 1.0).collect();
        let mut chunks = Chunks::new(&store);
        chunks.extend(&column);
        assert_eq!(store.spilled(), 2 * CHUNK_ROWS as u64 * 8, "both chunks went to the file");
        assert_eq!(store.check(), Ok(()));
        let _ = chunks.get(5);
        let failure = store.check().unwrap_err();
        assert_eq!(failure.path, path);
        let message = failure.to_string();
        assert!(message.starts_with("cannot read back the results' temporary file "), "{message}");
        assert!(message.contains(&path.display().to_string()), "{message}");
        assert!(message.contains("os error 9"), "{message}");
    }
}
