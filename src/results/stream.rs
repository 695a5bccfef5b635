//! Reading a results file block by block, as runs of whole records cut
//! between records (never inside a quoted field), so that a large file is
//! never held whole.

use std::io::Read;

/// Bytes read per block: large enough that each block still splits into a
/// span per core, small enough to stay a small part of the memory a build uses.
pub(super) const BLOCK_BYTES: usize = 8 << 20;

/// Whole rows of the file, in order.
pub(super) struct Block {
    /// The bytes, ending at a record's line end or at the end of the file.
    pub bytes: Vec<u8>,
    /// The 1-based line of the first byte.
    pub line: u64,
}

/// Just past the last line end of `bytes` that ends a record, as the csv
/// crate reads them (quote `"`, doubled inside quotes, any of `\r`, `\n`,
/// `\r\n` ending a record), for `bytes` that start at a record's start.
/// Without a quote character, that is simply the last `\n`.
pub(super) fn last_record_end(bytes: &[u8]) -> Option<usize> {
    if memchr::memchr(b'"', bytes).is_none() {
        return memchr::memrchr(b'\n', bytes).map(|i| i + 1);
    }
    record_ends(bytes, 0).last()
}

/// Just past each line end of `bytes[from..]` that ends a record, for `from`
/// at a record's start.
pub(super) fn record_ends(bytes: &[u8], from: usize) -> impl Iterator<Item = usize> + '_ {
    let mut quoting = Quoting::Start;
    bytes[from..].iter().enumerate().filter_map(move |(i, &b)| {
        (quoting.step(b) == Step::LineEnd && b == b'\n').then_some(from + i + 1)
    })
}

/// The offset of the first carriage return of `bytes` (which start at a
/// record's start) that ends a record alone, not followed by `\n`: the csv
/// crate reads it as a line end (classic Mac OS files end their lines so),
/// but lines are counted by `\n`, so every later line number would be wrong.
/// A carriage return inside a quoted field is data, and is not one.
pub(super) fn lone_carriage_return(bytes: &[u8]) -> Option<usize> {
    let lone = |&i: &usize| bytes.get(i + 1) != Some(&b'\n');
    let first = memchr::memchr_iter(b'\r', bytes).find(lone)?;
    if memchr::memchr(b'"', &bytes[..first]).is_none() {
        return Some(first);
    }
    let mut quoting = Quoting::Start;
    bytes.iter().enumerate().position(|(i, &b)| {
        let outside = quoting != Quoting::Quoted;
        quoting.step(b);
        b == b'\r' && outside && lone(&i)
    })
}

/// Where the csv reader is in a record, byte by byte: a small copy of its
/// quoting rules (quote `"`, doubled inside quotes; a quote inside an
/// unquoted field is a plain character; `\r` and `\n` end a record).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Quoting {
    /// At the start of a field.
    Start,
    /// In a field without quotes.
    Unquoted,
    /// In a quoted field.
    Quoted,
    /// Just after a quote in a quoted field: its end, or the first of two.
    QuoteInQuoted,
}

/// What a byte did, for [`Quoting::step`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Step {
    /// It belongs to a field.
    Inside,
    /// A comma between fields.
    FieldEnd,
    /// A `\r` or `\n` ending the record.
    LineEnd,
}

impl Quoting {
    /// Read byte `b`.
    pub fn step(&mut self, b: u8) -> Step {
        let (next, step) = match (*self, b) {
            (Quoting::Quoted, b'"') => (Quoting::QuoteInQuoted, Step::Inside),
            (Quoting::Quoted, _) => (Quoting::Quoted, Step::Inside),
            (Quoting::Start | Quoting::QuoteInQuoted, b'"') => (Quoting::Quoted, Step::Inside),
            (_, b'\n' | b'\r') => (Quoting::Start, Step::LineEnd),
            (_, b',') => (Quoting::Start, Step::FieldEnd),
            _ => (Quoting::Unquoted, Step::Inside),
        };
        *self = next;
        step
    }
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
        Blocks {
            source,
            carry: Vec::new(),
            spare: Vec::new(),
            line: 1,
            size: size.max(1),
            eof: false,
        }
    }

    /// The next block: whole records from where the last one ended, cut after
    /// a line end outside quotes (a quoted field may hold a line break). `None`
    /// at the end of the file.
    pub fn next_block(&mut self) -> std::io::Result<Option<Block>> {
        if self.eof && self.carry.is_empty() {
            return Ok(None);
        }
        let mut bytes = std::mem::take(&mut self.spare);
        bytes.clear();
        bytes.extend_from_slice(&self.carry);
        self.carry.clear();
        loop {
            let want = self.size.saturating_sub(bytes.len()).max(self.size / 4).max(1);
            self.fill(&mut bytes, want)?;
            if self.eof {
                break;
            }
            if let Some(end) = last_record_end(&bytes) {
                self.carry.extend_from_slice(&bytes[end..]);
                bytes.truncate(end);
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
        assert_eq!(
            got,
            [("a,b\n".into(), 1), ("1,2\n".into(), 2), ("3,4\n".into(), 3), ("5,6".into(), 4)]
        );
        // A line longer than a block is read whole.
        assert_eq!(blocks("abcdefghij\nk\n", 4), [("abcdefghij\n".into(), 1), ("k\n".into(), 2)]);
        assert!(blocks("", 4).is_empty());
    }

    #[test]
    fn text_with_quotes_is_cut_between_records_only() {
        let got = blocks("a\n1\n\"x\ny\"\n2\n3\n", 4);
        assert_eq!(got, [("a\n1\n".into(), 1), ("\"x\ny\"\n".into(), 3), ("2\n3\n".into(), 5)]);
        // A quote inside an unquoted field is a plain character; `""` is a quote inside quotes.
        let ends: Vec<usize> = record_ends(b"a\"b\n\"c\"\"\nd\"\n\"e\"\r\nf", 0).collect();
        assert_eq!(ends, [4, 12, 17]);
        assert_eq!(last_record_end(b"x,\"1\n2"), None);
    }

    #[test]
    fn lone_carriage_returns_are_found_outside_quotes_only() {
        assert_eq!(lone_carriage_return(b"a,b\r\n1,2\r\n"), None);
        assert_eq!(lone_carriage_return(b"a,b\r1,2\r"), Some(3));
        assert_eq!(lone_carriage_return(b"a,b\r\n1,2\r\r\n"), Some(8));
        // Inside quotes a carriage return is data (byte 4); after the closing quote it ends the record.
        assert_eq!(lone_carriage_return(b"a,\"x\ry\"\n\"z\"\r1"), Some(11));
        assert_eq!(lone_carriage_return(b"a\"b\r"), Some(3));
    }
}
