//! Reading a results file block by block, as runs of whole rows cut at line
//! ends, so that a large file is never held whole.

use std::io::Read;

/// Bytes read per block: large enough that each block still splits into a
/// span per core, small enough to stay a small part of the memory a build uses.
pub(super) const BLOCK_BYTES: usize = 8 << 20;

/// Whole rows of the file, in order.
pub(super) struct Block {
    /// The bytes, ending at a line end or at the end of the file.
    pub bytes: Vec<u8>,
    /// The 1-based line of the first byte.
    pub line: u64,
}

/// A file's content, block by block. The blocks cover the content once, in order.
pub(super) struct Blocks<'a> {
    source: Box<dyn Read + Send + 'a>,
    /// Bytes read past the end of the last block.
    carry: Vec<u8>,
    /// A block's buffer given back, to read the next into.
    spare: Vec<u8>,
    /// The line of `carry`'s first byte.
    line: u64,
    /// Bytes per block.
    size: usize,
    eof: bool,
}

impl<'a> Blocks<'a> {
    /// Blocks of about `size` bytes from `source`.
    pub fn new(source: Box<dyn Read + Send + 'a>, size: usize) -> Self {
        Blocks { source, carry: Vec::new(), spare: Vec::new(), line: 1, size: size.max(1), eof: false }
    }

    /// The next block: whole lines from where the last one ended, or, once a
    /// quote character is seen, all the rest of the file, since a quoted field
    /// may hold a line break and text with quotes cannot be cut without
    /// reading it. `None` at the end of the file.
    pub fn next_block(&mut self) -> std::io::Result<Option<Block>> {
        if self.eof && self.carry.is_empty() {
            return Ok(None);
        }
        let mut bytes = std::mem::take(&mut self.spare);
        bytes.clear();
        bytes.extend_from_slice(&self.carry);
        self.carry.clear();
        // The carried bytes have no quote: they followed the last cut.
        let (mut scanned, mut quoted) = (bytes.len(), false);
        loop {
            let want = self.size.saturating_sub(bytes.len()).max(self.size / 4).max(1);
            self.fill(&mut bytes, want)?;
            quoted = quoted || memchr::memchr(b'"', &bytes[scanned..]).is_some();
            scanned = bytes.len();
            if self.eof {
                break;
            }
            if quoted {
                continue;
            }
            if let Some(newline) = memchr::memrchr(b'\n', &bytes) {
                self.carry.extend_from_slice(&bytes[newline + 1..]);
                bytes.truncate(newline + 1);
                break;
            }
        }
        if bytes.is_empty() {
            return Ok(None);
        }
        let line = self.line;
        self.line += memchr::memchr_iter(b'\n', &bytes).count() as u64;
        Ok(Some(Block { bytes, line }))
    }

    /// True once every block was returned.
    pub fn done(&self) -> bool {
        self.eof && self.carry.is_empty()
    }

    /// Append up to `want` more bytes of the source to `bytes`.
    fn fill(&mut self, bytes: &mut Vec<u8>, want: usize) -> std::io::Result<()> {
        let read = (&mut self.source).take(want as u64).read_to_end(bytes)?;
        self.eof = read < want;
        Ok(())
    }

    /// Give back a block's buffer, to read the next block into without a new allocation.
    pub fn recycle(&mut self, bytes: Vec<u8>) {
        self.spare = bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(text: &str, size: usize) -> Vec<(String, u64)> {
        let mut blocks = Blocks::new(Box::new(text.as_bytes()), size);
        let mut all = Vec::new();
        while let Some(block) = blocks.next_block().unwrap() {
            all.push((String::from_utf8(block.bytes).unwrap(), block.line));
        }
        assert!(blocks.done());
        // The blocks cover the text once, in order.
        assert_eq!(all.iter().map(|(b, _)| b.as_str()).collect::<String>(), text);
        all
    }

    #[test]
    fn blocks_end_at_line_ends_and_know_their_line() {
        let got = blocks("a,b\n1,2\n3,4\n5,6", 6);
        assert_eq!(got, [("a,b\n".into(), 1), ("1,2\n".into(), 2), ("3,4\n".into(), 3), ("5,6".into(), 4)]);
        // A line longer than a block is read whole.
        assert_eq!(blocks("abcdefghij\nk\n", 4), [("abcdefghij\n".into(), 1), ("k\n".into(), 2)]);
        assert!(blocks("", 4).is_empty());
    }

    #[test]
    fn text_with_a_quote_is_read_to_the_end() {
        let got = blocks("a\n1\n\"x\ny\"\n2\n3\n", 4);
        assert_eq!(got, [("a\n1\n".into(), 1), ("\"x\ny\"\n2\n3\n".into(), 3)]);
    }
}
