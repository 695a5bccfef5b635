//! Reading a results file's rows block by block into chunked columns, and
//! reading it again for the columns of error messages.

use std::sync::Arc;

use super::Store;
use super::filling::Filled;
use super::position::position;
use super::split::{self, Context, Rows, Span, read_span_into, read_spans};
use super::stream::{BLOCK_BYTES, Block, Blocks};
use crate::config::ColumnType;
use crate::diagnostic::{Diagnostic, Diagnostics, Location};
use crate::project::SourceFile;

/// The header of a file: its column names and types, and where its rows begin.
pub(super) struct Header<'a> {
    pub names: &'a [String],
    pub types: &'a [Option<ColumnType>],
    /// Where the first row starts, in the first block (`end` unused).
    pub body: Span,
}

/// The file's blocks of about `block` bytes, from its start.
pub(super) fn open(file: &SourceFile, block: usize) -> Result<Blocks<'_>, Diagnostics> {
    Ok(Blocks::new(file.open().map_err(|err| cannot_read(file, &err))?, block))
}

/// Read every row of the file, block by block (`first`, if already read,
/// then the rest of `blocks`), each block in at most `parts` spans, into
/// chunked columns in `store`; with the problems found and the file's SHA-256
/// if it was read to the end. `None` when spans cannot be joined as if one
/// reader had read them (never for `parts` = 1).
pub(super) fn read_blocks(
    file: &SourceFile,
    header: &Header,
    store: &Arc<Store>,
    parts: usize,
    mut blocks: Blocks,
    mut first: Option<Block>,
) -> Result<Option<(Filled, Rows, Option<String>)>, Diagnostics> {
    use sha2::Digest;
    let mut reading = Reading::new(header, store, parts);
    let mut start = header.body.start;
    let mut current = match first.take() {
        Some(block) => Some(block),
        None => blocks.next_block().map_err(|err| cannot_read(file, &err))?,
    };
    while let Some(block) = current.take() {
        refuse_lone_carriage_returns(file, &block)?;
        let context =
            Context { bytes: &block.bytes, names: header.names, file, types: header.types };
        let line = if start > 0 { header.body.line } else { block.line };
        let span = Span { start: start.min(block.bytes.len()), end: block.bytes.len(), line };
        start = 0;
        // The next block is read while this one is parsed.
        let (next, flow) = rayon::join(|| blocks.next_block(), || reading.block(&context, span));
        match flow {
            Flow::Go => {}
            Flow::Stop => {
                // As one reader of the whole file would, refuse a lone
                // carriage return anywhere in it before reporting the rest.
                let mut next = next.map_err(|err| cannot_read(file, &err))?;
                while let Some(block) = next {
                    refuse_lone_carriage_returns(file, &block)?;
                    next = blocks.next_block().map_err(|err| cannot_read(file, &err))?;
                }
                return Ok(Some((reading.filled, reading.all, None)));
            }
            Flow::Again => return Ok(None),
        }
        blocks.recycle(block.bytes);
        current = next.map_err(|err| cannot_read(file, &err))?;
    }
    let hash = blocks.done().then(|| crate::project::hex(&reading.hasher.finalize()));
    Ok(Some((reading.filled, reading.all, hash)))
}

/// The error for a line of `block` that ends in a carriage return alone
/// (classic Mac OS line ends), at that carriage return.
fn refuse_lone_carriage_returns(file: &SourceFile, block: &Block) -> Result<(), Diagnostics> {
    let Some(at) = super::stream::lone_carriage_return(&block.bytes) else { return Ok(()) };
    let before = &block.bytes[..at];
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    let line = block.line + memchr::memchr_iter(b'\n', before).count() as u64;
    let column = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
    let name = file.path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    Err(Diagnostic::new(
        Location::new(&file.path, line as usize, column),
        "this line ends in a carriage return alone (classic Mac OS line ends)",
    )
    .hint(format!(
        "lines of a results file end in \\n or \\r\\n; convert the file, for example with \
         `tr '\\r' '\\n' < {name} > {name}.new && mv {name}.new {name}`"
    ))
    .into())
}

/// The rows of a file read so far, and what reading the next block needs.
struct Reading<'a> {
    /// The declared type of each column.
    types: &'a [Option<ColumnType>],
    /// Most spans per block.
    parts: usize,
    /// The chunked columns of the rows read.
    filled: Filled,
    /// One reader's rows, carrying its columns' types from block to block; the
    /// problems found in every block.
    all: Rows,
    /// A block's rows read in spans, which start afresh in each block.
    rows: Rows,
    /// The rows of all but the first span, kept from block to block.
    spare: Vec<Rows>,
    /// The SHA-256 of the blocks read.
    hasher: sha2::Sha256,
}

impl<'a> Reading<'a> {
    /// Nothing read yet of a file with `header`, into columns in `store`.
    fn new(header: &Header<'a>, store: &Arc<Store>, parts: usize) -> Self {
        use sha2::Digest;
        Reading {
            types: header.types,
            parts,
            filled: Filled::new(store, header.names.len()),
            all: Rows::new(header.types, 0),
            rows: Rows::new(header.types, 0),
            spare: Vec::new(),
            hasher: sha2::Sha256::new(),
        }
    }

    /// Read the rows of `span` of the block in `context`, by one reader or in
    /// spans, and hash the block beside the parsing (the blocks cover the file
    /// once and in order).
    fn block(&mut self, context: &Context, span: Span) -> Flow {
        use sha2::Digest;
        let Reading { types, parts, filled, all, rows, spare, hasher } = self;
        if *parts == 1 {
            rayon::join(|| hasher.update(context.bytes), || read_span_into(context, span, all));
            filled.take(all, true);
            // One reader stops at malformed CSV.
            return if all.malformed { Flow::Stop } else { Flow::Go };
        }
        rows.reset(types);
        let spans = split::spans(context.bytes, span.start, span.line, *parts);
        let ((), read) = rayon::join(
            || hasher.update(context.bytes),
            || read_spans(context, &spans, rows, spare),
        );
        if read.is_none() || !filled.take(rows, false) {
            return Flow::Again;
        }
        all.errors.append(&mut rows.errors);
        Flow::Go
    }
}

/// What [`read_blocks`] does after a block.
enum Flow {
    /// Read the next block.
    Go,
    /// Stop: the CSV is malformed.
    Stop,
    /// Spans could not be joined: read the file again by one reader.
    Again,
}

/// The error for a results file that cannot be read.
pub(super) fn cannot_read(file: &SourceFile, err: &std::io::Error) -> Diagnostics {
    Diagnostic::new(Location::file(&file.path), format!("cannot read the file: {err}"))
        .hint("check that the file exists and is readable, then build again")
        .into()
}

/// Line and 1-based character column of field `index` of the records starting
/// on each of the `wanted` lines, read again from the file: for error
/// messages only. Column 1 where the file cannot be read again.
pub(super) fn locate(file: &SourceFile, wanted: &[(u64, usize)]) -> Vec<(u64, usize)> {
    let mut found: Vec<(u64, usize)> = wanted.iter().map(|&(line, _)| (line, 1)).collect();
    if wanted.is_empty() {
        return found;
    }
    let Ok(mut blocks) = open(file, BLOCK_BYTES) else { return found };
    while let Ok(Some(block)) = blocks.next_block() {
        let last = block.line + memchr::memchr_iter(b'\n', &block.bytes).count() as u64;
        // A record starts in the block that holds its line; a line at a block's
        // end belongs to the next block, which is read later and wins.
        for (at, &(line, index)) in found.iter_mut().zip(wanted) {
            if (block.line..=last).contains(&line) {
                let (l, c) = position(&block.bytes, line + 1 - block.line, index);
                *at = (l + block.line - 1, c);
            }
        }
        if wanted.iter().all(|&(line, _)| line < last) {
            break;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Dataset;
    use crate::results::parse::parse_in;
    use crate::results::{Table, Values};

    /// A column's values as text, however they are stored.
    fn show(values: &Values) -> String {
        match values {
            Values::Number(v) => format!("{:?}", v.to_vec()),
            Values::Text(t) => format!("{:?}", (&t.words, t.codes.to_vec())),
        }
    }

    /// A parsed table (lines, columns) or its errors, as text to compare.
    fn render(result: Result<Table, Diagnostics>) -> String {
        match result {
            Ok(t) => format!(
                "{:?}",
                (
                    t.lines.to_vec(),
                    t.columns
                        .iter()
                        .map(|c| format!("{}={}", c.name, show(&c.values)))
                        .collect::<Vec<_>>()
                )
            ),
            Err(d) => {
                d.0.iter()
                    .map(|d| format!("{}: {}", d.location, d.message))
                    .collect::<Vec<_>>()
                    .join("\n")
            }
        }
    }

    #[test]
    fn bad_cells_are_found_on_their_line_after_crlf_and_blank_lines() {
        let mut dataset = Dataset::default();
        dataset.columns.insert("b".into(), ColumnType::Positive);
        // Counted by hand: `x` sits on line 4, column 3, in every file.
        for text in ["a,b\r\n1,2\r\n3,4\r\n5,x\r\n", "a,b\n1,2\n\n5,x\n", "a,b\r\n\r\n1,2\r\n5,x"] {
            let file = SourceFile::new("results/r.csv", text.as_bytes().to_vec());
            for (parts, block) in [(1, usize::MAX / 2), (1, 3)] {
                let errors =
                    parse_in(&file, &dataset, &Store::new(1 << 20), parts, block).unwrap_err();
                assert_eq!(
                    errors.0[0].location.to_string(),
                    "results/r.csv:4:3",
                    "{text:?} in blocks of {block}"
                );
            }
        }
    }

    #[test]
    fn spans_read_in_parallel_give_what_one_reader_gives() {
        let mut text = String::from("environment,procs,time_s,note\n");
        for i in 0..200_000 {
            let time = if i == 150_000 { "oops".to_string() } else { format!("{}.5", i % 7 + 1) };
            let note = if i == 190_000 { "text".to_string() } else { format!("{}", i % 3) };
            text.push_str(&format!("{},{},{time},{note}\n", ["base", "cand"][i % 2], 1 << (i % 4)));
        }
        text.push_str("cand,1\n");
        let file = SourceFile::new("results/runs.csv", text.into_bytes());
        let mut dataset = Dataset::default();
        dataset.columns.insert("time_s".into(), ColumnType::Positive);
        // One reader reading one block is the reference; blocks of 1 KB to 8 MiB
        // (about 2,500 blocks down to one), one span or four per block, must give the same.
        let all = usize::MAX / 2;
        let one = render(parse_in(&file, &dataset, &Store::new(1 << 20), 1, all));
        assert!(one.contains("results/runs.csv:150002:"), "{}", &one[..one.len().min(400)]);
        assert!(one.contains("results/runs.csv:200002:"), "{}", &one[..one.len().min(400)]);
        for (parts, block) in
            [(4, all), (4, BLOCK_BYTES), (4, 1 << 20), (1, 1000), (2, 1000), (4, 70_001)]
        {
            assert_eq!(
                render(parse_in(&file, &dataset, &Store::new(1 << 20), parts, block)),
                one,
                "{parts} spans, blocks of {block} bytes"
            );
        }
        // Without the bad cells, the table itself (an inferred column turning to text late) matches too.
        let clean = String::from_utf8(file.bytes.clone())
            .unwrap()
            .replace("oops", "2.5")
            .replace("cand,1\n", "");
        let file = SourceFile::new("results/runs.csv", clean.into_bytes());
        let one = render(parse_in(&file, &dataset, &Store::new(1 << 20), 1, all));
        assert!(one.starts_with("([2, 3, 4"), "{}", &one[..100]);
        for (parts, block) in [(4, all), (1, 1000), (4, 1000), (4, 70_001)] {
            assert_eq!(
                render(parse_in(&file, &dataset, &Store::new(1 << 20), parts, block)),
                one,
                "{parts} spans, blocks of {block} bytes"
            );
        }
    }

    #[test]
    fn small_blocks_read_quotes_marks_and_bad_rows_as_one_block_does() {
        let rows = "base,1,2.5\n".repeat(40);
        let cases = [
            // A quoted field with a line break, after the first blocks.
            format!("environment,procs,time_s\n{rows}\"ba\nse\",2,3.5\n{rows}"),
            // A byte order mark, Windows line ends and a bad cell near the end.
            format!(
                "\u{feff}environment,procs,time_s\r\n{}base,2,x\r\nbase,4,1\r\n",
                rows.replace('\n', "\r\n")
            ),
            // Malformed CSV (a quote left open) after the first blocks.
            format!("environment,procs,time_s\n{rows}base,\"2,3\n{rows}"),
            // A row with too few fields, and a file without a final line end.
            format!("environment,procs,time_s\n{rows}base,2\n{rows}base,8,9"),
        ];
        let mut dataset = Dataset::default();
        dataset.columns.insert("time_s".into(), ColumnType::Positive);
        for text in cases {
            let file = SourceFile::new("results/runs.csv", text.into_bytes());
            let one = render(parse_in(&file, &dataset, &Store::new(1 << 20), 1, usize::MAX / 2));
            for (parts, block) in [(1, 7), (2, 7), (2, 64), (4, 100)] {
                assert_eq!(
                    render(parse_in(&file, &dataset, &Store::new(1 << 20), parts, block)),
                    one,
                    "{parts} spans, blocks of {block} bytes"
                );
            }
        }
    }

    /// An undeclared column turns to text partway: one reader writes the
    /// numbers before as `1.1` and keeps the cells after as written, `1.10`.
    /// Blocks and spans that start with numbers must not write `1.1` instead.
    #[test]
    fn numbers_turned_to_text_read_as_one_reader_reads_them() {
        let rows = |n: usize| "base,1,2.5,1.10\n".repeat(n);
        let text = format!(
            "environment,procs,time_s,version\n{}base,1,2.5,dev\n{}base,1,2.5,dev\n{}",
            rows(30),
            rows(3000),
            rows(30)
        );
        let file = SourceFile::new("results/runs.csv", text.into_bytes());
        let parse = |parts, block| match parse_in(
            &file,
            &Dataset::default(),
            &Store::new(1 << 20),
            parts,
            block,
        ) {
            Ok(t) => show(&t.columns[3].values),
            Err(d) => format!("{d:?}"),
        };
        let one = parse(1, usize::MAX / 2);
        assert!(one.contains("\"1.1\"") && one.contains("\"1.10\""), "{one}");
        for (parts, block) in [(2, usize::MAX / 2), (1, 100), (2, 100), (4, 1000)] {
            assert_eq!(parse(parts, block), one, "{parts} spans, blocks of {block} bytes");
        }
    }

    #[test]
    fn locate_finds_columns_in_any_block() {
        let text = format!("a,b,c\n{}x,yy,zzz\n", "1,2,3\n".repeat(100));
        let file = SourceFile::new("results/r.csv", text.into_bytes());
        // Line 102 holds `x,yy,zzz`: field 2 starts at column 6.
        assert_eq!(locate(&file, &[(102, 2), (2, 1), (200, 0)]), [(102, 6), (2, 3), (200, 1)]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, ..Default::default() })]

        /// Any text made of the characters that matter to CSV (quotes, commas,
        /// line ends, numbers and words) reads the same in tiny blocks and
        /// spans as by one reader in one block: rows, lines, types and errors.
        #[test]
        fn any_text_reads_the_same_in_blocks(body in "([a1.,\"\r\n ]|1\\.10|x){0,120}", parts in 1usize..4, block in 1usize..40) {
            let file = SourceFile::new("results/r.csv", format!("a,b\n{body}").into_bytes());
            let read = |parts, block| render(parse_in(&file, &Dataset::default(), &Store::new(64), parts, block));
            proptest::prop_assert_eq!(read(parts, block), read(1, usize::MAX / 2));
        }
    }
}
