//! How wide a table is laid out, by rule (docs/layout.md): a table whose
//! columns need more than the prose measure takes the band, estimated
//! from its text as the stylesheet sets it; and a comparison's cell split
//! into its value and its interval, which wraps under it.

use crate::markdown::document::{self, Inline, Table};

/// The prose measure, `--measure` (46rem), in CSS px.
const MEASURE: f64 = 736.0;
/// The average advance of a character of a table's text (.9rem), in CSS px.
const CHAR: f64 = 7.6;
/// A cell's padding, both sides (.6rem each).
const PADDING: f64 = 19.2;
/// A header's sort button (its arrow), in CSS px.
const SORT: f64 = 20.0;
/// A header's least width (4.5rem).
const HEADER_MIN: f64 = 72.0;
/// The interval's size, against the value's (.82em).
const INTERVAL: f64 = 0.82;

/// Whether `table` needs more than the measure: the sum of its columns'
/// widths, each the widest of its cells (a header by its longest word, as
/// it wraps; a cell with an interval by the wider of its two lines).
pub(super) fn wide(table: &Table) -> bool {
    let columns = table.head.len().max(table.rows.iter().map(Vec::len).max().unwrap_or(0));
    let width: f64 = (0..columns).map(|c| column(table, c)).sum();
    width > MEASURE
}

/// The width column `c` of `table` takes, in CSS px.
fn column(table: &Table, c: usize) -> f64 {
    let head = table.head.get(c).map_or(0.0, |cell| {
        let text = document::plain(&cell.inlines, false);
        // A heading wraps at its spaces, never at a no-break space.
        let word = text.split([' ', '\n']).map(|w| w.chars().count()).max().unwrap_or(0);
        (word as f64 * CHAR + SORT).max(HEADER_MIN)
    });
    let body =
        table.rows.iter().filter_map(|row| row.get(c)).map(|cell| match interval(&cell.inlines) {
            Some((value, ci)) => (chars(&value)).max(chars(&ci) * INTERVAL) * CHAR,
            None => chars(&document::plain(&cell.inlines, false)) * CHAR,
        });
    body.fold(head, f64::max) + PADDING
}

fn chars(text: &str) -> f64 {
    text.chars().count() as f64
}

/// A comparison's cell, `+457.1% (+376.3 to +587.7%), worse`, as its value
/// (`+457.1%`) and the rest (`(+376.3 to +587.7%), worse`); `None` for a
/// cell without an interval in parentheses after a value.
pub(super) fn interval(inlines: &[Inline]) -> Option<(String, String)> {
    let text = document::plain(inlines, false);
    let at = text.find(" (")?;
    let (value, rest) = (&text[..at], &text[at + 1..]);
    let numeric = value.chars().any(|c| c.is_ascii_digit());
    (numeric && rest.contains(')')).then(|| (value.to_string(), rest.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::document::BlockKind;
    use crate::markdown::parse;

    fn table(markdown: &str) -> Table {
        let body = parse::text(markdown);
        match body.blocks.into_iter().map(|b| b.kind).next() {
            Some(BlockKind::Table(t)) => t,
            other => panic!("not a table: {other:?}"),
        }
    }

    #[test]
    fn a_table_wider_than_the_measure_takes_the_band() {
        // Three columns of short numbers: 3 × (72 + 19.2) = 274 px.
        assert!(!wide(&table("| a | b | c |\n|---|---|---|\n| 1 | 2 | 3 |\n")));
        // Six columns of a 26-character interval under a value:
        // 26 × .82 × 7.6 + 19.2 = 181.2 px each, 1,087 px in all: over 736.
        let cell = "+457.1% (+376.3 to +587.7%), worse";
        let row = format!("| {} |", [cell; 6].join(" | "));
        let md = format!("| a | b | c | d | e | f |\n|---|---|---|---|---|---|\n{row}\n");
        assert!(wide(&table(&md)));
        // The same cells without the interval's smaller type would be wider still;
        // five columns of 7-character values (72 + 19.2 each) are not wide.
        let row = format!("| {} |", ["+457.1%"; 5].join(" | "));
        assert!(!wide(&table(&format!("| a | b | c | d | e |\n|---|---|---|---|---|\n{row}\n"))));
    }

    #[test]
    fn an_interval_splits_from_its_value() {
        let cell = parse::inlines("+457.1% (+376.3 to +587.7%), worse");
        let (value, rest) = interval(&cell).unwrap();
        assert_eq!((value.as_str(), rest.as_str()), ("+457.1%", "(+376.3 to +587.7%), worse"));
        assert_eq!(interval(&parse::inlines("no runs of gzip (level 1)")), None);
        assert_eq!(interval(&parse::inlines("baseline")), None);
    }
}
