//! Where a field is in a CSV file's bytes: its line and character column,
//! the fields of its record read by the csv crate's own parser (csv-core),
//! so that commas and line breaks inside quotes are skipped as it skips them.

use csv_core::{ReadFieldResult, Reader};

/// Line and 1-based character column of field `index` of the record starting on `line`.
pub(super) fn position(bytes: &[u8], line: u64, index: usize) -> (u64, usize) {
    let offset = line_offset(bytes, line);
    let start = field_start(bytes, offset, index);
    let newlines = bytes[offset..start].iter().filter(|&&b| b == b'\n').count() as u64;
    let line_start = bytes[..start].iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    (line + newlines, String::from_utf8_lossy(&bytes[line_start..start]).chars().count() + 1)
}

/// Line and 1-based character column of field `index` of the record that
/// starts at byte `offset` on `line`: as [`position`], without counting the
/// lines before the record (which, for every bad cell of a file, would take
/// time growing with the square of the file).
pub(super) fn position_at(bytes: &[u8], offset: usize, line: u64, index: usize) -> (u64, usize) {
    let start = field_start(bytes, offset, index);
    let newlines = memchr::memchr_iter(b'\n', &bytes[offset..start]).count() as u64;
    let line_start = memchr::memrchr(b'\n', &bytes[..start]).map_or(0, |p| p + 1);
    (line + newlines, String::from_utf8_lossy(&bytes[line_start..start]).chars().count() + 1)
}

fn line_offset(bytes: &[u8], line: u64) -> usize {
    if line <= 1 {
        return 0;
    }
    bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(line as usize - 2)
        .map_or(bytes.len(), |(i, _)| i + 1)
}

/// 1-based column of field `index` in a record that starts at byte `offset` (on one line).
pub(super) fn field_column(bytes: &[u8], offset: usize, index: usize) -> usize {
    let start = field_start(bytes, offset, index);
    String::from_utf8_lossy(&bytes[offset..start]).chars().count() + 1
}

/// The bytes of field `index` of the record that starts at byte `offset`,
/// quotes included (an empty range where the record ends, if it has fewer
/// fields).
pub(super) fn field_range(bytes: &[u8], offset: usize, index: usize) -> std::ops::Range<usize> {
    Fields::new(bytes, offset).nth(index).unwrap_or(bytes.len()..bytes.len())
}

/// Byte offset where field `index` starts, or where the record ends if it
/// has fewer fields.
fn field_start(bytes: &[u8], offset: usize, index: usize) -> usize {
    let mut end = offset;
    for (i, range) in Fields::new(bytes, offset).enumerate() {
        if i == index {
            return range.start;
        }
        end = range.end;
    }
    end
}

/// The fields of the record starting at a byte of a file, as byte ranges
/// (quotes included, the comma or line end after them not), as csv-core
/// reads them.
struct Fields<'a> {
    bytes: &'a [u8],
    at: usize,
    reader: Reader,
    done: bool,
}

impl<'a> Fields<'a> {
    fn new(bytes: &'a [u8], offset: usize) -> Self {
        Fields { bytes, at: offset.min(bytes.len()), reader: Reader::new(), done: false }
    }
}

impl Iterator for Fields<'_> {
    type Item = std::ops::Range<usize>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut scratch = [0u8; 256];
        let start = self.at;
        while !self.done {
            let (result, read, _) = self.reader.read_field(&self.bytes[self.at..], &mut scratch);
            self.at += read;
            match result {
                ReadFieldResult::OutputFull | ReadFieldResult::InputEmpty => continue,
                ReadFieldResult::End => self.done = true,
                ReadFieldResult::Field { record_end } => {
                    self.done = record_end;
                    let last = self.bytes[start..self.at].last();
                    let cut = usize::from(read > 0 && matches!(last, Some(b',' | b'\n' | b'\r')));
                    return Some(start..self.at - cut);
                }
            }
        }
        None
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_columns_skip_quoted_commas() {
        let text = b"a,\"b,c\",d\n";
        assert_eq!(field_column(text, 0, 0), 1);
        assert_eq!(field_column(text, 0, 1), 3);
        assert_eq!(field_column(text, 0, 2), 9);
        let field = |index| &text[field_range(text, 0, index)];
        assert_eq!([field(0), field(1), field(2), field(3)], [&b"a"[..], b"\"b,c\"", b"d", b""]);
    }

    #[test]
    fn cell_positions_follow_lines() {
        let text = b"x,y\n1,2\n3,\"4\n5\",6\n";
        assert_eq!(position(text, 2, 1), (2, 3));
        assert_eq!(position(text, 3, 2), (4, 4));
    }
}
