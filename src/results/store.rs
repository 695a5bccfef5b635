//! Columns in fixed-size chunks, kept in memory up to a budget and written to
//! an unnamed temporary file (in `TMPDIR`) past it, so that a build's memory
//! stays nearly flat however many rows the results hold. What still grows:
//! each column's last, open chunk (up to 512 KiB) is always in memory, so a
//! query with very many small groups holds their values in memory.

use std::borrow::Cow;
use std::sync::Arc;

use bytemuck::Pod;

pub use super::spill::{MEMORY_BUDGET, SpillFailure, Store};

/// Rows per chunk: chunk `i` of every column of a table holds the same rows.
pub const CHUNK_ROWS: usize = 1 << 16;

/// A full chunk, in memory or on disk.
#[derive(Debug)]
enum Chunk<T> {
    /// In memory, within the budget.
    Memory(Vec<T>),
    /// In memory past the budget, when the temporary file cannot be written.
    Kept(Vec<T>),
    /// On disk: offset and number of values.
    Disk(u64, usize),
}

/// A sealed chunk and the store whose budget it holds.
#[derive(Debug)]
struct Sealed<T: Pod> {
    chunk: Chunk<T>,
    store: Arc<Store>,
}

impl<T: Pod> Drop for Sealed<T> {
    fn drop(&mut self) {
        match &self.chunk {
            Chunk::Memory(values) => self.store.release(std::mem::size_of_val(values.as_slice())),
            Chunk::Disk(offset, len) => {
                let bytes = len * std::mem::size_of::<T>();
                self.store
                    .free
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .entry(bytes)
                    .or_default()
                    .push(*offset);
            }
            Chunk::Kept(_) => {}
        }
    }
}

/// A column of plain values in chunks of [`CHUNK_ROWS`]: the full chunks in
/// memory while the store's budget lasts and on disk after, the last one open.
#[derive(Debug, Clone)]
pub struct Chunks<T: Pod> {
    sealed: Vec<Arc<Sealed<T>>>,
    open: Vec<T>,
    store: Arc<Store>,
}

impl<T: Pod> Chunks<T> {
    /// An empty column in `store`.
    pub fn new(store: &Arc<Store>) -> Self {
        Chunks { sealed: Vec::new(), open: Vec::new(), store: Arc::clone(store) }
    }

    /// A column of `values`, in a store of its own with no memory limit (for tests and small data).
    pub fn of(values: &[T]) -> Self {
        values.iter().copied().collect()
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.sealed.len() * CHUNK_ROWS + self.open.len()
    }

    /// True without values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Append one value.
    pub fn push(&mut self, value: T) {
        if self.open.capacity() == 0 && !self.sealed.is_empty() {
            // A column past its first chunk fills whole chunks: take the room at once.
            self.open.reserve_exact(CHUNK_ROWS);
        }
        self.open.push(value);
        if self.open.len() == CHUNK_ROWS {
            self.seal();
        }
    }

    /// Append `values`.
    pub fn extend(&mut self, mut values: &[T]) {
        while !values.is_empty() {
            let take = (CHUNK_ROWS - self.open.len()).min(values.len());
            if take == CHUNK_ROWS - self.open.len() {
                // Filling the chunk: room for exactly one, so that the budget counts what is held.
                self.open.reserve_exact(take);
            }
            self.open.extend_from_slice(&values[..take]);
            values = &values[take..];
            if self.open.len() == CHUNK_ROWS {
                self.seal();
            }
        }
    }

    /// Close the open chunk: keep it in memory if the budget allows, else
    /// write it out (and keep its room for the next chunk).
    fn seal(&mut self) {
        let bytes = std::mem::size_of_val(self.open.as_slice());
        let chunk = if self.store.reserve(bytes) {
            Chunk::Memory(std::mem::take(&mut self.open))
        } else {
            match self.store.write(bytemuck::cast_slice(&self.open)) {
                Ok(offset) => {
                    let len = self.open.len();
                    self.open.clear();
                    Chunk::Disk(offset, len)
                }
                // Without a usable temporary folder, keep the data in memory over budget.
                Err(_) => Chunk::Kept(std::mem::take(&mut self.open)),
            }
        };
        self.sealed.push(Arc::new(Sealed { chunk, store: Arc::clone(&self.store) }));
    }

    /// Number of chunks (the last one possibly partial).
    pub fn chunk_count(&self) -> usize {
        self.sealed.len() + usize::from(!self.open.is_empty())
    }

    /// Chunk `i`: rows `i * CHUNK_ROWS ..`, borrowed from memory or read from disk.
    pub fn chunk(&self, i: usize) -> Cow<'_, [T]> {
        let mut buffer = Vec::new();
        match self.chunk_in(i, &mut buffer) {
            Some(_) => Cow::Owned(buffer),
            None => Cow::Borrowed(self.memory(i)),
        }
    }

    /// Chunk `i`, borrowed from memory, or read from disk into `buffer` (whose
    /// room is reused from chunk to chunk).
    pub fn chunk_with<'a>(&'a self, i: usize, buffer: &'a mut Vec<T>) -> &'a [T] {
        match self.chunk_in(i, buffer) {
            Some(_) => buffer,
            None => self.memory(i),
        }
    }

    /// Read chunk `i` into `buffer` if it is on disk; `None` if it is in memory.
    fn chunk_in(&self, i: usize, buffer: &mut Vec<T>) -> Option<()> {
        let Some(Chunk::Disk(offset, len)) = self.sealed.get(i).map(|s| &s.chunk) else {
            return None;
        };
        buffer.clear();
        buffer.resize(*len, T::zeroed());
        // A failed read is recorded in the store, and the stage ends in error.
        self.store.read(*offset, bytemuck::cast_slice_mut(buffer));
        Some(())
    }

    /// Chunk `i` when it is in memory (empty if it is on disk).
    fn memory(&self, i: usize) -> &[T] {
        match self.sealed.get(i).map(|s| &s.chunk) {
            Some(Chunk::Memory(values) | Chunk::Kept(values)) => values,
            Some(Chunk::Disk(..)) => &[],
            None => &self.open,
        }
    }

    /// The value at `row`.
    pub fn get(&self, row: usize) -> T {
        let (i, at) = (row / CHUNK_ROWS, row % CHUNK_ROWS);
        match self.sealed.get(i).map(|s| &s.chunk) {
            Some(Chunk::Memory(values) | Chunk::Kept(values)) => values[at],
            Some(Chunk::Disk(offset, _)) => {
                let mut value = [T::zeroed()];
                let size = std::mem::size_of::<T>() as u64;
                self.store.read(offset + at as u64 * size, bytemuck::cast_slice_mut(&mut value));
                value[0]
            }
            None => self.open[at],
        }
    }

    /// Every value, in order, chunk by chunk.
    pub fn for_each(&self, mut f: impl FnMut(&[T])) {
        let mut buffer = Vec::new();
        for i in 0..self.chunk_count() {
            f(self.chunk_with(i, &mut buffer));
        }
    }

    /// Every value in a vector (for small columns and tests).
    pub fn to_vec(&self) -> Vec<T> {
        let mut all = Vec::with_capacity(self.len());
        self.for_each(|chunk| all.extend_from_slice(chunk));
        all
    }

    /// The store the chunks live in.
    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }
}

impl<T: Pod> FromIterator<T> for Chunks<T> {
    /// A column in a store of its own with no memory limit (see [`Chunks::of`]).
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut chunks = Chunks::new(&Store::new(usize::MAX));
        iter.into_iter().for_each(|v| chunks.push(v));
        chunks
    }
}

impl<T: Pod + PartialEq> PartialEq for Chunks<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.to_vec() == other.to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn chunks_past_the_budget_go_to_disk_and_read_back() {
        let store = Store::new(CHUNK_ROWS * 8);
        let mut column = Chunks::new(&store);
        let values: Vec<f64> = (0..CHUNK_ROWS * 3 + 5).map(|i| i as f64 * 0.5).collect();
        column.extend(&values[..10]);
        for &v in &values[10..] {
            column.push(v);
        }
        assert_eq!(column.len(), values.len());
        assert_eq!(column.chunk_count(), 4);
        // One chunk fits the budget; the next two were written out.
        assert_eq!(store.spilled(), 2 * CHUNK_ROWS as u64 * 8);
        assert_eq!(column.to_vec(), values);
        for row in [0, CHUNK_ROWS - 1, CHUNK_ROWS, 2 * CHUNK_ROWS + 7, values.len() - 1] {
            assert_eq!(column.get(row), values[row]);
        }
        // Dropping the column gives its memory back, and its room on disk to the next column.
        drop(column);
        assert_eq!(store.left.load(Ordering::Relaxed), CHUNK_ROWS * 8);
        let mut next = Chunks::new(&store);
        next.extend(&values);
        assert_eq!(store.spilled(), 2 * CHUNK_ROWS as u64 * 8);
        assert_eq!(next.to_vec(), values);
    }
}
