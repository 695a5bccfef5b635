//! Where CSV records end, as the csv crate reads them: the quoting rules
//! that decide whether a line end or a carriage return ends a record.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_end_at_line_ends_outside_quotes_only() {
        // A quote inside an unquoted field is a plain character; `""` is a quote inside quotes.
        let ends: Vec<usize> = record_ends(b"a\"b\n\"c\"\"\nd\"\n\"e\"\r\nf", 0).collect();
        assert_eq!(ends, [4, 12, 17]);
        assert_eq!(record_ends(b"x,\"1\n2", 0).count(), 0);
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
