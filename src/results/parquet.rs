//! Parquet results files: the schema checked against the column types
//! book.toml declares, then each row group read on a core of its own into
//! plain vectors, every value checked as a CSV cell is. A Parquet row has no
//! line: diagnostics name its 1-based row.

use std::path::Path;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Decimal32Type, Decimal64Type, Decimal128Type, Decimal256Type,
    Float16Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
    Time32MillisecondType, Time32SecondType, Time64MicrosecondType, Time64NanosecondType,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, PrimitiveArray};
use arrow_schema::{DataType, Field, TimeUnit};
use bytes::Bytes;
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::basic::Compression;
use parquet::file::metadata::RowGroupMetaData;
use rayon::prelude::*;

use super::cells::{check_value, describe};
use super::{Column, Table, Texts, TextsBuilder, Values};
use crate::config::{ColumnType, Dataset};
use crate::diagnostic::{
    Cause, Diagnostic, Diagnostics, Location, MAX_QUOTED_CHARS, Tally, excerpt,
};
use crate::project::SourceFile;

/// True for a Parquet results file (`results/NAME.parquet`).
pub fn is_parquet(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "parquet")
}

/// Rows decoded at a time per core: a few megabytes of values.
const BATCH_ROWS: usize = 1 << 16;

/// Most rows a results file holds: rows are numbered in 32 bits.
const MAX_ROWS: usize = u32::MAX as usize - 1;

/// A column read, in plain vectors.
#[derive(Debug)]
pub(super) enum Plain {
    /// Numbers, `NaN` where the value is null.
    Number(Vec<f64>),
    /// Text: the distinct values, and per row the index of its value.
    Text(Vec<String>, Vec<u32>),
}

/// Read one Parquet results file, checking its schema against `dataset` and
/// every value against its column's type.
pub(super) fn parse(file: &SourceFile, dataset: &Dataset) -> Result<Table, Diagnostics> {
    let bytes = read_all(file)?;
    let (hash, read) = rayon::join(
        || crate::project::sha256_hex(&bytes),
        || columns(file, dataset, &bytes, &Selection::default()),
    );
    file.hash.set(hash).ok();
    drop(bytes);
    let Read { columns, lines } = read?;
    Ok(table(file, columns, lines))
}

/// Which part of a file is read: its columns and row groups.
#[derive(Default)]
pub(super) struct Selection<'a> {
    /// The columns read (every one when `None`); the others are not decoded,
    /// and their types are not checked.
    pub columns: Option<&'a std::collections::BTreeSet<String>>,
    /// Kept row groups: given a row group's metadata, whether its
    /// statistics allow a wanted row (every group when `None`).
    pub groups: Option<&'a (dyn Fn(&RowGroupMetaData) -> bool + Sync)>,
}

/// The columns read from a file, named, and the 1-based row of each value.
pub(super) struct Read {
    /// The columns, in file order.
    pub columns: Vec<(String, Plain)>,
    /// The 1-based row, in the file, of each value.
    pub lines: Vec<u32>,
}

/// The table of `columns` read from `file`, rows numbered as in `lines`.
fn table(file: &SourceFile, columns: Vec<(String, Plain)>, lines: Vec<u32>) -> Table {
    let columns = columns.into_iter().map(|(name, plain)| Column { name, values: plain.values() });
    Table { name: file.stem(), path: file.path.clone(), columns: columns.collect(), lines }
}

impl Plain {
    /// How many rows the column holds.
    pub(super) fn len(&self) -> usize {
        match self {
            Plain::Number(values) => values.len(),
            Plain::Text(_, codes) => codes.len(),
        }
    }

    /// The values of a table's column.
    pub(super) fn values(self) -> Values {
        match self {
            Plain::Number(numbers) => Values::Number(numbers),
            Plain::Text(words, codes) => Values::Text(Texts { words, codes }),
        }
    }
}

/// The whole file in memory: row groups are decoded side by side from it, and
/// a Parquet file is several times smaller than its decoded columns.
pub(super) fn read_all(file: &SourceFile) -> Result<Bytes, Diagnostics> {
    let mut bytes = Vec::with_capacity(usize::try_from(file.len()).unwrap_or(0).min(1 << 30));
    let read = file.open().and_then(|mut reader| reader.read_to_end(&mut bytes));
    read.map_err(|err| super::read::cannot_read(file, &err))?;
    Ok(Bytes::from(bytes))
}

/// The selected columns of the file, named, with the row of each value.
pub(super) fn columns(
    file: &SourceFile,
    dataset: &Dataset,
    bytes: &Bytes,
    selection: &Selection,
) -> Result<Read, Diagnostics> {
    check_marks(file, bytes)?;
    let metadata = guarded(|| ArrowReaderMetadata::load(bytes, ArrowReaderOptions::new()))
        .and_then(|loaded| loaded.map_err(|err| err.to_string()))
        .map_err(|err| {
            Diagnostic::new(
                Location::file(&file.path),
                format!("cannot read the Parquet footer: {err}"),
            )
            .hint("the file is damaged: write it again from the engine that made it")
        })?;
    let fields: Vec<&Field> = metadata.schema().fields().iter().map(AsRef::as_ref).collect();
    let wanted = |name: &str| selection.columns.is_none_or(|c| c.contains(name));
    let plans = plan(file, dataset, &fields, &wanted)?;
    check_codecs(file, &metadata)?;
    let groups = row_groups(file, &metadata, selection.groups)?;
    let rows = groups.iter().map(|g| g.rows).sum();
    let roots = fields.iter().enumerate().filter(|(_, f)| wanted(f.name())).map(|(i, _)| i);
    let mask = ProjectionMask::roots(metadata.parquet_schema(), roots);
    let read = Reading { file, bytes, metadata: &metadata, plans: &plans, mask };
    let columns = read.all(&groups, rows)?;
    let names = plans.iter().map(|p| p.name.clone());
    let lines = groups.iter().flat_map(|g| g.first + 1..=g.first + g.rows);
    let lines = lines.map(|r| u32::try_from(r).unwrap_or(u32::MAX)).collect();
    Ok(Read { columns: names.zip(columns).collect(), lines })
}

/// `f`'s result, or the message of its panic: the Parquet reader is third-party
/// code fed the user's bytes, and a damaged file must give an error, not a
/// crash (parquet 60 panics on some damaged pages of fixed-size values). The
/// panic is not printed: its message is in the error.
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    use std::cell::Cell;
    thread_local! {
        /// Whether this thread runs [`guarded`] code, whose panics are errors.
        static GUARDED: Cell<bool> = const { Cell::new(false) };
    }
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !GUARDED.with(Cell::get) {
                previous(info);
            }
        }));
    });
    let outer = GUARDED.with(|g| g.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(outer));
    result.map_err(|panic| {
        let said = panic.downcast_ref::<&str>().map(|s| s.to_string());
        let said = said.or_else(|| panic.downcast_ref::<String>().cloned());
        format!("the Parquet reader failed ({})", said.unwrap_or_default())
    })
}

/// The error for a file that is not Parquet, is cut short, or is encrypted,
/// told apart by the four-byte marks at its start and end.
fn check_marks(file: &SourceFile, bytes: &[u8]) -> Result<(), Diagnostics> {
    let (message, hint) = if bytes.is_empty() {
        ("results file is empty", "export the results again, or delete the file")
    } else if !bytes.starts_with(b"PAR1") {
        (
            "not a Parquet file: it does not start with Parquet's `PAR1` mark",
            "a results file named `.parquet` must be Parquet, written by an engine such as DuckDB, \
             pyarrow, Polars or Spark; a CSV file is named `.csv`",
        )
    } else if bytes.ends_with(b"PARE") {
        ("the Parquet file is encrypted", "export it without encryption")
    } else if bytes.len() < 12 || !bytes.ends_with(b"PAR1") {
        (
            "the Parquet file is cut short: it does not end with the `PAR1` mark of its footer",
            "a copy or an export stopped before the end: copy or export the file again",
        )
    } else {
        return Ok(());
    };
    Err(Diagnostic::new(Location::file(&file.path), message).hint(hint).into())
}

/// How one column is read.
#[derive(Debug, Clone)]
struct Plan {
    /// The column's name, for messages.
    name: String,
    /// As numbers of this type, `declared` or not; or as text (`None`).
    number: Option<(ColumnType, bool)>,
    /// Part of book.toml's `key`: a null is an error.
    key: bool,
}

/// How each column of `fields` is read, or every column whose Parquet type
/// does not fit book.toml: a missing column, a nested or unreadable type, or
/// a declared number held as text.
fn plan(
    file: &SourceFile,
    dataset: &Dataset,
    fields: &[&Field],
    wanted: &dyn Fn(&str) -> bool,
) -> Result<Vec<Plan>, Diagnostics> {
    let at = || Location::file(&file.path);
    let count = fields.len();
    if count > super::parse::MAX_COLUMNS {
        let message = format!(
            "the file has {count} columns; a results file has at most {}",
            super::parse::MAX_COLUMNS
        );
        return Err(Diagnostic::new(at(), message)
            .hint("one column per label or measured value, one row per run: select the columns the study uses in the export")
            .into());
    }
    let names: Vec<String> = fields.iter().map(|f| f.name().clone()).collect();
    let mut errors = Diagnostics::default();
    check_names(&names, &at(), &mut errors);
    super::parse::check_required(&names, dataset, file, at(), &mut errors);
    let plans = fields.iter().filter(|f| wanted(f.name())).filter_map(|field| {
        let declared = dataset.columns.get(field.name()).copied();
        let key = dataset.key.contains(field.name());
        let number = fit(field.name(), field.data_type(), declared)
            .map_err(|(message, hint)| errors.push(Diagnostic::new(at(), message).hint(hint)))
            .ok()?;
        Some(Plan { name: field.name().clone(), number, key })
    });
    let plans: Vec<Plan> = plans.collect();
    errors.into_result(plans)
}

/// Empty and repeated column names.
fn check_names(names: &[String], at: &Location, errors: &mut Diagnostics) {
    for (i, name) in names.iter().enumerate() {
        let shown = excerpt(name, MAX_QUOTED_CHARS);
        let problem = if name.trim().is_empty() {
            format!("column {} has no name", i + 1)
        } else if names[..i].contains(name) {
            format!("column `{shown}` appears twice in the file")
        } else {
            continue;
        };
        let hint = "give every column a name of its own in the export (`AS name`)";
        errors.push(Diagnostic::new(at.clone(), problem).hint(hint));
    }
}

/// What a Parquet column of type `data` holds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Family {
    /// Integers, floats or decimals.
    Number,
    /// Only nulls.
    Null,
    /// Values read as text, described: `text`, `booleans`, `dates`...
    Text(&'static str),
    /// Values of several parts, described: `lists`, `structs`...
    Nested(&'static str),
    /// Values read as neither, described.
    Other(&'static str),
}

/// The family of an Arrow type (a dictionary's is its values').
fn family(data: &DataType) -> Family {
    use DataType as D;
    match data {
        D::Int8 | D::Int16 | D::Int32 | D::Int64 | D::UInt8 | D::UInt16 | D::UInt32 | D::UInt64 => {
            Family::Number
        }
        D::Float16 | D::Float32 | D::Float64 => Family::Number,
        D::Decimal32(..) | D::Decimal64(..) | D::Decimal128(..) | D::Decimal256(..) => {
            Family::Number
        }
        D::Null => Family::Null,
        D::Utf8 | D::LargeUtf8 | D::Utf8View => Family::Text("text"),
        D::Binary | D::LargeBinary | D::BinaryView => Family::Text("bytes"),
        D::Boolean => Family::Text("booleans"),
        D::Date32 | D::Date64 => Family::Text("dates"),
        D::Timestamp(..) => Family::Text("timestamps"),
        D::Time32(..) | D::Time64(..) => Family::Text("times of day"),
        D::Dictionary(_, values) => family(values),
        D::List(_) | D::LargeList(_) | D::ListView(_) | D::LargeListView(_) => {
            Family::Nested("lists")
        }
        D::FixedSizeList(..) => Family::Nested("lists"),
        D::Struct(_) => Family::Nested("structs"),
        D::Map(..) => Family::Nested("maps"),
        D::Union(..) => Family::Nested("unions"),
        D::RunEndEncoded(..) => Family::Other("run-end encoded values"),
        D::FixedSizeBinary(_) => Family::Other("fixed-size binary values"),
        D::Duration(_) => Family::Other("durations"),
        D::Interval(_) => Family::Other("intervals"),
    }
}

/// How column `name` of Arrow type `data`, declared `declared` in book.toml,
/// is read: as numbers of a type (declared or not), or as text (`None`); or
/// why it cannot be, as a message and a hint.
fn fit(
    name: &str,
    data: &DataType,
    declared: Option<ColumnType>,
) -> Result<Option<(ColumnType, bool)>, (String, String)> {
    let holds = |what: &str| format!("column `{name}`: the Parquet column holds {what} ({data})");
    match (family(data), declared) {
        (Family::Nested(what), _) => Err((
            format!("column `{name}`: the Parquet column holds {what}, not one value per row"),
            format!(
                "a results file holds one value per cell: flatten `{name}` in the export \
                 (DuckDB: `UNNEST({name})` for a list, `{name}.field AS {name}_field` for a \
                 struct), or leave it out"
            ),
        )),
        (Family::Other(what), _) => Err((
            holds(what),
            format!("cast `{name}` to a number or to text in the export, or leave it out"),
        )),
        (_, Some(ColumnType::Text)) => Ok(None),
        (Family::Number | Family::Null, declared) => {
            Ok(Some((declared.unwrap_or(ColumnType::Number), declared.is_some())))
        }
        (Family::Text(_), None) => Ok(None),
        (Family::Text(what), Some(kind)) => Err((
            format!("{}, but book.toml declares {}", holds(what), describe(kind)),
            number_hint(name, what),
        )),
    }
}

/// How to turn a column holding `what` into numbers, or declare it text.
fn number_hint(name: &str, what: &str) -> String {
    let cast = match what {
        "dates" | "timestamps" | "times of day" => {
            format!("write it as a number, such as seconds since 1970 (DuckDB: `epoch({name})`)")
        }
        "booleans" => format!("write it as 0 and 1 (DuckDB: `{name}::INTEGER`)"),
        _ => format!("write it as a number (DuckDB: `CAST({name} AS DOUBLE)`)"),
    };
    format!("{cast} in the export, or declare `{name} = \"text\"` in book.toml")
}

/// The error for a column compressed with a codec this build does not read
/// (Brotli, LZO); engines write snappy by default.
fn check_codecs(file: &SourceFile, metadata: &ArrowReaderMetadata) -> Result<(), Diagnostics> {
    let chunks = metadata.metadata().row_groups().iter().flat_map(|g| g.columns());
    for chunk in chunks {
        let codec = match chunk.compression() {
            Compression::BROTLI(_) => "Brotli",
            Compression::LZO => "LZO",
            _ => continue,
        };
        let name = chunk.column_path().parts().first().cloned().unwrap_or_default();
        return Err(Diagnostic::new(
            Location::file(&file.path),
            format!("column `{name}` is compressed with {codec}, which report does not read"),
        )
        .hint(
            "export the file again with snappy (the usual default), zstd, gzip or lz4: in DuckDB \
             `COPY ... TO 'x.parquet' (FORMAT parquet, COMPRESSION zstd)`, in pyarrow \
             `write_table(table, 'x.parquet', compression='zstd')`",
        )
        .into());
    }
    Ok(())
}

/// A row group: its index in the file, and where its rows are among the
/// file's (the 0-based first row and the number of rows).
#[derive(Debug, Clone, Copy)]
struct Group {
    index: usize,
    first: usize,
    rows: usize,
}

/// The file's row groups that `keep` keeps (all without it), as its footer
/// counts their rows; an error past [`MAX_ROWS`] rows, or for a file with none.
fn row_groups(
    file: &SourceFile,
    metadata: &ArrowReaderMetadata,
    keep: Option<&(dyn Fn(&RowGroupMetaData) -> bool + Sync)>,
) -> Result<Vec<Group>, Diagnostics> {
    let at = || Location::file(&file.path);
    let mut groups = Vec::new();
    let mut first = 0usize;
    for (index, group) in metadata.metadata().row_groups().iter().enumerate() {
        let rows = usize::try_from(group.num_rows()).unwrap_or(usize::MAX);
        first = first.saturating_add(rows);
        if first > MAX_ROWS {
            return Err(Diagnostic::new(at(), format!("the file holds more than {MAX_ROWS} rows"))
                .hint("aggregate or sample the runs in the engine first (docs/big-results.md)")
                .into());
        }
        if keep.is_none_or(|keep| keep(group)) {
            groups.push(Group { index, first: first - rows, rows });
        }
    }
    if first == 0 {
        return Err(Diagnostic::new(at(), "results file has columns but no rows")
            .hint("export one row per run, or delete the file")
            .into());
    }
    Ok(groups)
}

/// What reading the row groups of one file needs.
struct Reading<'a> {
    file: &'a SourceFile,
    bytes: &'a Bytes,
    metadata: &'a ArrowReaderMetadata,
    plans: &'a [Plan],
    /// The columns decoded.
    mask: ProjectionMask,
}

/// The rows of one row group: numbers written in place into their slices of
/// the whole columns, text per group (joined afterwards), and the problems.
struct Part<'a> {
    group: Group,
    slots: Vec<Slot<'a>>,
    errors: Tally,
}

/// One column of a [`Part`].
enum Slot<'a> {
    Number(&'a mut [f64]),
    Text(TextsBuilder),
}

impl Reading<'_> {
    /// Every column of the file's `rows` rows, each row group read on a core
    /// of its own; every problem of every row.
    fn all(&self, groups: &[Group], rows: usize) -> Result<Vec<Plain>, Diagnostics> {
        let mut numbers: Vec<Vec<f64>> = Vec::with_capacity(self.plans.len());
        for plan in self.plans {
            let size = if plan.number.is_some() { rows } else { 0 };
            numbers.push(allocated(self.file, size)?);
        }
        let mut parts = self.parts(groups, &mut numbers);
        let failed: Vec<Diagnostic> =
            parts.par_iter_mut().filter_map(|part| self.group(part).err()).collect();
        if let Some(first) = failed.into_iter().min() {
            return Err(first.into());
        }
        let mut errors = Tally::default();
        parts.iter_mut().for_each(|part| errors.append(&mut part.errors));
        let texts = joined(parts, self.plans.len());
        let columns = numbers.into_iter().zip(texts).map(|(numbers, text)| match text {
            Some((words, codes)) => Plain::Text(words, codes),
            None if !numbers.is_empty() && numbers.iter().all(|v| v.is_nan()) => {
                // As in a CSV file, a column of only empty cells is text.
                Plain::Text(vec![String::new()], vec![0; numbers.len()])
            }
            None => Plain::Number(numbers),
        });
        let columns: Vec<Plain> = columns.collect();
        errors.into_diagnostics().into_result(columns)
    }

    /// One [`Part`] per row group, holding its slice of each numeric column.
    fn parts<'n>(&self, groups: &[Group], numbers: &'n mut [Vec<f64>]) -> Vec<Part<'n>> {
        let mut parts: Vec<Part<'n>> = groups
            .iter()
            .map(|&group| Part { group, slots: Vec::new(), errors: Tally::default() })
            .collect();
        for (column, plan) in numbers.iter_mut().zip(self.plans) {
            let mut rest: &'n mut [f64] = column;
            for part in &mut parts {
                let slot = if plan.number.is_some() {
                    let (mine, after) = std::mem::take(&mut rest).split_at_mut(part.group.rows);
                    rest = after;
                    Slot::Number(mine)
                } else {
                    Slot::Text(TextsBuilder::with_capacity(part.group.rows))
                };
                part.slots.push(slot);
            }
        }
        parts
    }

    /// Decode row group `part.group` into `part`; an error if it cannot be
    /// decoded or holds another number of rows than the footer says.
    fn group(&self, part: &mut Part) -> Result<(), Diagnostic> {
        let Part { group, slots, errors } = part;
        let decoded = guarded(|| -> Result<(), String> {
            let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(
                self.bytes.clone(),
                self.metadata.clone(),
            )
            .with_row_groups(vec![group.index])
            .with_projection(self.mask.clone())
            .with_batch_size(BATCH_ROWS)
            .build()
            .map_err(|err| err.to_string())?;
            let mut done = 0;
            for batch in reader {
                let batch = batch.map_err(|err| err.to_string())?;
                if done + batch.num_rows() > group.rows {
                    return Err(format!(
                        "it holds more than the {} rows its footer counts",
                        group.rows
                    ));
                }
                for ((slot, plan), array) in slots.iter_mut().zip(self.plans).zip(batch.columns()) {
                    let at = Place { file: self.file, plan, first: group.first + done };
                    at.fill(slot, done, array.as_ref(), errors)?;
                }
                done += batch.num_rows();
            }
            match done == group.rows {
                true => Ok(()),
                false => Err(format!("it holds {done} rows, but its footer counts {}", group.rows)),
            }
        });
        decoded.and_then(|inner| inner).map_err(|err| damaged(self.file, *group, &err))
    }
}

/// A vector of `rows` zeros, or an error if memory cannot hold it.
fn allocated(file: &SourceFile, rows: usize) -> Result<Vec<f64>, Diagnostics> {
    let mut numbers = Vec::new();
    if numbers.try_reserve_exact(rows).is_err() {
        return Err(Diagnostic::new(
            Location::file(&file.path),
            format!("a column of {rows} rows does not fit in memory"),
        )
        .hint("aggregate or sample the runs in the engine first (docs/big-results.md)")
        .into());
    }
    numbers.resize(rows, 0.0);
    Ok(numbers)
}

/// The error for row group `group`, which cannot be read.
fn damaged(file: &SourceFile, group: Group, err: &str) -> Diagnostic {
    let last = group.first + group.rows;
    Diagnostic::new(
        Location::row(&file.path, group.first + 1),
        format!("cannot read rows {} to {last} of the Parquet file: {err}", group.first + 1),
    )
    .hint("the file is damaged: write it again from the engine that made it")
}

/// The text columns of every part joined in row order, as distinct values
/// and codes; `None` for numeric columns.
fn joined(parts: Vec<Part>, columns: usize) -> Vec<Option<(Vec<String>, Vec<u32>)>> {
    let mut all: Vec<Option<(TextsBuilder, Vec<u32>)>> = (0..columns).map(|_| None).collect();
    for part in parts {
        for (column, slot) in all.iter_mut().zip(part.slots) {
            if let Slot::Text(texts) = slot {
                let (builder, codes) = column.get_or_insert_with(Default::default);
                codes.extend(builder.translate(&texts));
            }
        }
    }
    let finish = |(builder, codes): (TextsBuilder, Vec<u32>)| (builder.finish().0, codes);
    all.into_iter().map(|column| column.map(finish)).collect()
}

/// Where the values of one array of a column go: the file, the column's plan,
/// and the 0-based row of the array's first value.
struct Place<'a> {
    file: &'a SourceFile,
    plan: &'a Plan,
    first: usize,
}

/// One value of a column read as text.
enum Cell<'a> {
    Null,
    Text(&'a str),
    /// Bytes that are not UTF-8, in a column of bytes.
    NotUtf8,
}

impl Place<'_> {
    /// Write the values of `array` into `slot` from its row `at`, each
    /// checked against the column's type; the problems go to `errors`.
    fn fill(
        &self,
        slot: &mut Slot,
        at: usize,
        array: &dyn Array,
        errors: &mut Tally,
    ) -> Result<(), String> {
        match slot {
            Slot::Number(out) => {
                let out = &mut out[at..at + array.len()];
                let (kind, declared) = self.plan.number.unwrap_or((ColumnType::Number, false));
                doubles(array, out)?;
                // The common case, checked a whole array at a time in a loop
                // the compiler vectorises: no null and no bad value.
                let nulls = array.logical_nulls();
                if nulls.is_none() && super::cells::all_valid(out, kind) {
                    return Ok(());
                }
                for (i, value) in out.iter_mut().enumerate() {
                    let valid = nulls.as_ref().is_none_or(|n| n.is_valid(i));
                    *value = self.number(i, valid.then_some(*value), kind, declared, errors);
                }
                Ok(())
            }
            Slot::Text(texts) => text_cells(array, &mut |i, cell| match cell {
                Cell::Text(text) => texts.push(text),
                Cell::Null => {
                    if self.plan.key {
                        errors.push(self.missing(i));
                    }
                    texts.push("");
                }
                Cell::NotUtf8 => {
                    let hint = "write the column as text (UTF-8) in the export";
                    let at = Location::row(&self.file.path, self.first + i + 1);
                    let message = format!("column `{}`: value is not valid UTF-8", self.plan.name);
                    errors.push(Diagnostic::new(at, message).hint(hint));
                    texts.push("");
                }
            }),
        }
    }

    /// The number of row `i` (`NaN` for a null or a bad value, reported).
    fn number(
        &self,
        i: usize,
        value: Option<f64>,
        kind: ColumnType,
        declared: bool,
        errors: &mut Tally,
    ) -> f64 {
        let Some(value) = value else {
            // A null is an empty cell: allowed only where a CSV file may leave one empty.
            if declared || self.plan.key {
                errors.push(self.missing(i));
            }
            return f64::NAN;
        };
        check_value(value, kind).unwrap_or_else(|(message, hint)| {
            let name = &self.plan.name;
            let found = number_text(value);
            let path = self.file.path.display();
            let cause = Cause::new(
                format!("{path}\0column {name}\0{message}\0{hint}"),
                format!("column `{name}`: {message}, found {{values}}"),
            )
            .rows();
            let at = Location::row(&self.file.path, self.first + i + 1);
            let problem = format!("column `{name}`: {message}, found `{found}`");
            errors.push(Diagnostic::new(at, problem).hint(hint).cause(cause, found));
            f64::NAN
        })
    }

    /// The error for a null in row `i`, where the column needs a value.
    fn missing(&self, i: usize) -> Diagnostic {
        let name = &self.plan.name;
        let at = Location::row(&self.file.path, self.first + i + 1);
        let (message, why) = match self.plan.key {
            true => (
                format!(
                    "column `{name}`: value is missing (null), and `{name}` is part of the key"
                ),
                "book.toml's `key` names each run by these columns",
            ),
            false => {
                (format!("column `{name}`: value is missing (null)"), "every run needs this value")
            }
        };
        Diagnostic::new(at, message).hint(format!(
            "{why}: fill it in, or leave the row out in the export (`WHERE {name} IS NOT NULL`)"
        ))
    }
}

/// Write the values of `array` into `out` as doubles, each as a CSV cell of
/// the same digits reads (a null's slot holds whatever the writer left
/// there: `Array::logical_nulls` says which are null); or the error for a
/// type that holds no numbers.
fn doubles(array: &dyn Array, out: &mut [f64]) -> Result<(), String> {
    macro_rules! each {
        ($type:ty, |$v:ident| $number:expr) => {{
            let typed = array.as_primitive::<$type>();
            out.iter_mut().zip(typed.values().iter()).for_each(|(o, &$v)| *o = $number);
        }};
    }
    match array.data_type() {
        DataType::Int8 => each!(Int8Type, |v| f64::from(v)),
        DataType::Int16 => each!(Int16Type, |v| f64::from(v)),
        DataType::Int32 => each!(Int32Type, |v| f64::from(v)),
        // Rounded to the nearest double, as a CSV cell of the same digits is.
        DataType::Int64 => each!(Int64Type, |v| v as f64),
        DataType::UInt8 => each!(UInt8Type, |v| f64::from(v)),
        DataType::UInt16 => each!(UInt16Type, |v| f64::from(v)),
        DataType::UInt32 => each!(UInt32Type, |v| f64::from(v)),
        DataType::UInt64 => each!(UInt64Type, |v| v as f64),
        DataType::Float16 => each!(Float16Type, |v| shortest(v.to_f32())),
        DataType::Float32 => each!(Float32Type, |v| shortest(v)),
        DataType::Float64 => each!(Float64Type, |v| v),
        DataType::Decimal32(..) => decimals::<Decimal32Type>(array, |v| Some(v.into()), out),
        DataType::Decimal64(..) => decimals::<Decimal64Type>(array, |v| Some(v.into()), out),
        DataType::Decimal128(..) => decimals::<Decimal128Type>(array, Some, out),
        DataType::Decimal256(..) => decimals::<Decimal256Type>(array, |v| v.to_i128(), out),
        DataType::Null => out.fill(f64::NAN),
        DataType::Dictionary(..) => {
            let dictionary = array.as_any_dictionary();
            let mut values = vec![f64::NAN; dictionary.values().len()];
            doubles(dictionary.values().as_ref(), &mut values)?;
            let keys = if values.is_empty() { Vec::new() } else { dictionary.normalized_keys() };
            for (i, o) in out.iter_mut().enumerate() {
                *o = keys.get(i).map_or(f64::NAN, |&k| values[k]);
            }
        }
        other => return Err(format!("a column of type {other} was read as numbers")),
    }
    Ok(())
}

/// A 32-bit float as the decimal it prints as (`0.1`, not
/// `0.100000001490116`), which a CSV file of the same values would hold.
fn shortest(value: f32) -> f64 {
    let wide = f64::from(value);
    if wide.fract() == 0.0 && wide.abs() < 16_777_216.0 || !value.is_finite() {
        return wide;
    }
    format!("{value:?}").parse().unwrap_or(wide)
}

/// Powers of ten that a double holds exactly.
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Write each decimal of `array` into `out` as the nearest double, as a CSV
/// cell of its digits reads: by one exact division where the digits and the
/// power of ten are exact doubles (`wide` gives the digits), else from its
/// text.
fn decimals<T: arrow_array::types::DecimalType>(
    array: &dyn Array,
    wide: impl Fn(T::Native) -> Option<i128>,
    out: &mut [f64],
) {
    let typed: &PrimitiveArray<T> = array.as_primitive::<T>();
    let scale = typed.scale();
    let power = EXACT_POWERS.get(usize::from(scale.unsigned_abs())).copied();
    for (i, o) in out.iter_mut().enumerate() {
        let exact = wide(typed.value(i)).filter(|d| d.unsigned_abs() <= 1 << 53);
        *o = match (exact, power) {
            (Some(digits), Some(power)) if scale >= 0 => digits as f64 / power,
            (Some(digits), Some(power)) => digits as f64 * power,
            _ => typed.value_as_string(i).parse().unwrap_or(f64::NAN),
        };
    }
}

/// A number as a text cell: its shortest form, `NaN` or `inf` if not finite.
fn number_text(value: f64) -> String {
    if value.is_finite() { crate::format::plain(value) } else { format!("{value}") }
}

/// Call `f` with each value of `array` as text: strings as they are, numbers
/// in their shortest form, booleans as `true` and `false`, dates and times in
/// ISO 8601 (`2025-06-11 09:30:00`, with ` UTC` for a UTC instant).
fn text_cells(array: &dyn Array, f: &mut dyn FnMut(usize, Cell)) -> Result<(), String> {
    match array.data_type() {
        DataType::Utf8 => strings(array.as_string::<i32>().iter(), f),
        DataType::LargeUtf8 => strings(array.as_string::<i64>().iter(), f),
        DataType::Utf8View => strings(array.as_string_view().iter(), f),
        DataType::Binary => binaries(array.as_binary::<i32>().iter(), f),
        DataType::LargeBinary => binaries(array.as_binary::<i64>().iter(), f),
        DataType::BinaryView => binaries(array.as_binary_view().iter(), f),
        DataType::Boolean => {
            for (i, value) in array.as_boolean().iter().enumerate() {
                f(i, value.map_or(Cell::Null, |v| Cell::Text(if v { "true" } else { "false" })));
            }
        }
        DataType::Null => (0..array.len()).for_each(|i| f(i, Cell::Null)),
        DataType::Dictionary(..) => dictionary_texts(array, f)?,
        data if family(data) == Family::Number => number_texts(array, f),
        _ => temporal_texts(array, f)?,
    }
    Ok(())
}

/// Call `f` with each value of the primitive `array` (of Arrow type `$type`)
/// as the text `$text` makes of `$v`, the value of row `$i` of `$typed`.
macro_rules! shown {
    ($array:expr, $f:expr, $typed:ident: $type:ty, |$v:ident, $i:ident| $text:expr) => {{
        use std::fmt::Write;
        let mut buffer = String::new();
        let $typed = $array.as_primitive::<$type>();
        for $i in 0..$typed.len() {
            if $typed.is_null($i) {
                $f($i, Cell::Null);
                continue;
            }
            let $v = $typed.value($i);
            buffer.clear();
            let _ = write!(buffer, "{}", $text);
            $f($i, Cell::Text(&buffer));
        }
    }};
}

/// Call `f` with each number of `array` as text: integers and decimals as
/// their digits, floats in their shortest form.
fn number_texts(array: &dyn Array, f: &mut dyn FnMut(usize, Cell)) {
    match array.data_type() {
        DataType::Int8 => shown!(array, f, t: Int8Type, |v, _i| v),
        DataType::Int16 => shown!(array, f, t: Int16Type, |v, _i| v),
        DataType::Int32 => shown!(array, f, t: Int32Type, |v, _i| v),
        DataType::Int64 => shown!(array, f, t: Int64Type, |v, _i| v),
        DataType::UInt8 => shown!(array, f, t: UInt8Type, |v, _i| v),
        DataType::UInt16 => shown!(array, f, t: UInt16Type, |v, _i| v),
        DataType::UInt32 => shown!(array, f, t: UInt32Type, |v, _i| v),
        DataType::UInt64 => shown!(array, f, t: UInt64Type, |v, _i| v),
        DataType::Float16 => {
            shown!(array, f, t: Float16Type, |v, _i| number_text(shortest(v.to_f32())))
        }
        DataType::Float32 => shown!(array, f, t: Float32Type, |v, _i| number_text(shortest(v))),
        DataType::Float64 => shown!(array, f, t: Float64Type, |v, _i| number_text(v)),
        DataType::Decimal32(..) => shown!(array, f, t: Decimal32Type, |_v, i| t.value_as_string(i)),
        DataType::Decimal64(..) => shown!(array, f, t: Decimal64Type, |_v, i| t.value_as_string(i)),
        DataType::Decimal128(..) => {
            shown!(array, f, t: Decimal128Type, |_v, i| t.value_as_string(i))
        }
        _ => shown!(array, f, t: Decimal256Type, |_v, i| t.value_as_string(i)),
    }
}

/// Call `f` with each date, time or timestamp of `array` in ISO 8601 (the
/// stored number where it is out of range), or the error for another type.
fn temporal_texts(array: &dyn Array, f: &mut dyn FnMut(usize, Cell)) -> Result<(), String> {
    use TimeUnit::{Microsecond, Millisecond, Nanosecond, Second};
    let zone = |zone: &Option<std::sync::Arc<str>>| if zone.is_some() { " UTC" } else { "" };
    match array.data_type() {
        DataType::Date32 => shown!(array, f, t: Date32Type, |v, i| or_raw(t.value_as_date(i), v)),
        DataType::Date64 => shown!(array, f, t: Date64Type, |v, i| or_raw(t.value_as_date(i), v)),
        DataType::Timestamp(Second, z) => {
            shown!(array, f, t: TimestampSecondType, |v, i| stamp(t.value_as_datetime(i), v, zone(z)))
        }
        DataType::Timestamp(Millisecond, z) => {
            shown!(array, f, t: TimestampMillisecondType, |v, i| stamp(t.value_as_datetime(i), v, zone(z)))
        }
        DataType::Timestamp(Microsecond, z) => {
            shown!(array, f, t: TimestampMicrosecondType, |v, i| stamp(t.value_as_datetime(i), v, zone(z)))
        }
        DataType::Timestamp(Nanosecond, z) => {
            shown!(array, f, t: TimestampNanosecondType, |v, i| stamp(t.value_as_datetime(i), v, zone(z)))
        }
        DataType::Time32(Second) => {
            shown!(array, f, t: Time32SecondType, |v, i| or_raw(t.value_as_time(i), v))
        }
        DataType::Time32(_) => {
            shown!(array, f, t: Time32MillisecondType, |v, i| or_raw(t.value_as_time(i), v))
        }
        DataType::Time64(Microsecond) => {
            shown!(array, f, t: Time64MicrosecondType, |v, i| or_raw(t.value_as_time(i), v))
        }
        DataType::Time64(_) => {
            shown!(array, f, t: Time64NanosecondType, |v, i| or_raw(t.value_as_time(i), v))
        }
        other => return Err(format!("a column of type {other} was read as text")),
    }
    Ok(())
}

/// Call `f` with each of `values`, strings or nulls.
fn strings<'a>(values: impl Iterator<Item = Option<&'a str>>, f: &mut dyn FnMut(usize, Cell)) {
    for (i, value) in values.enumerate() {
        f(i, value.map_or(Cell::Null, Cell::Text));
    }
}

/// Call `f` with each of `values`, bytes read as UTF-8 text, or nulls.
fn binaries<'a>(values: impl Iterator<Item = Option<&'a [u8]>>, f: &mut dyn FnMut(usize, Cell)) {
    for (i, value) in values.enumerate() {
        let cell = match value.map(std::str::from_utf8) {
            None => Cell::Null,
            Some(Ok(text)) => Cell::Text(text),
            Some(Err(_)) => Cell::NotUtf8,
        };
        f(i, cell);
    }
}

/// Call `f` with each value of a dictionary-encoded `array` as text, each
/// distinct value of the dictionary made text once.
fn dictionary_texts(array: &dyn Array, f: &mut dyn FnMut(usize, Cell)) -> Result<(), String> {
    let dictionary = array.as_any_dictionary();
    // Per value of the dictionary: `None` for a null, `Some(None)` for bytes that are not UTF-8.
    let mut values: Vec<Option<Option<String>>> = vec![None; dictionary.values().len()];
    text_cells(dictionary.values().as_ref(), &mut |i, cell| {
        values[i] = match cell {
            Cell::Null => None,
            Cell::Text(text) => Some(Some(text.to_string())),
            Cell::NotUtf8 => Some(None),
        }
    })?;
    let keys = if values.is_empty() { Vec::new() } else { dictionary.normalized_keys() };
    for i in 0..array.len() {
        let value = keys.get(i).filter(|_| array.is_valid(i)).and_then(|&k| values[k].as_ref());
        f(i, value.map_or(Cell::Null, |v| v.as_deref().map_or(Cell::NotUtf8, Cell::Text)));
    }
    Ok(())
}

/// `value` as text, or the stored number where it is out of range.
fn or_raw(value: Option<impl std::fmt::Display>, raw: impl std::fmt::Display) -> String {
    value.map_or_else(|| raw.to_string(), |v| v.to_string())
}

/// A timestamp as text, followed by `zone` (` UTC` for an instant).
fn stamp(value: Option<impl std::fmt::Display>, raw: i64, zone: &str) -> String {
    format!("{}{zone}", or_raw(value, raw))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seeded::stream;
    use arrow_array::{Decimal128Array, Decimal256Array};

    /// The doubles `doubles` reads from `array`, `None` where it is null.
    fn read(array: &dyn Array) -> Vec<Option<f64>> {
        let mut found = vec![0.0; array.len()];
        doubles(array, &mut found).unwrap();
        let nulls = array.logical_nulls();
        let valid = |i: usize| nulls.as_ref().is_none_or(|n| n.is_valid(i));
        found.into_iter().enumerate().map(|(i, v)| valid(i).then_some(v)).collect()
    }

    /// Decimals of up to 38 digits at scales from -5 to 30 read as std's
    /// parser reads their digits written out (`123e-2`): the nearest double.
    #[test]
    fn decimals_read_as_their_digits_written_out() {
        type Wide = <Decimal256Type as arrow_array::ArrowPrimitiveType>::Native;
        let mut next = stream(0x2545_F491_4F6C_DD1D);
        for scale in -5i8..=30 {
            let digits: Vec<i128> = (0..400)
                .map(|i| {
                    let wide = (i128::from(next()) << 64 | i128::from(next())) >> (i % 127);
                    let value = wide % 10i128.pow(38);
                    if i % 3 == 0 { value % (1 << 54) } else { value }
                })
                .collect();
            let array =
                Decimal128Array::from(digits.clone()).with_precision_and_scale(38, scale).unwrap();
            let wide = Decimal256Array::from(
                digits.iter().map(|&d| Wide::from_i128(d)).collect::<Vec<_>>(),
            )
            .with_precision_and_scale(76, scale)
            .unwrap();
            for (i, (got, got_wide)) in read(&array).into_iter().zip(read(&wide)).enumerate() {
                let expected: f64 = format!("{}e{}", digits[i], -i32::from(scale)).parse().unwrap();
                assert_eq!(
                    got.map(f64::to_bits),
                    Some(expected.to_bits()),
                    "{}e{}",
                    digits[i],
                    -scale
                );
                assert_eq!(got_wide, got);
            }
        }
    }

    /// A 32-bit float reads as the decimal it was written from, when that
    /// decimal has at most seven significant digits, and always as a value
    /// that rounds back to the same float.
    #[test]
    fn floats_of_32_bits_read_as_their_decimal() {
        let mut next = stream(0x9E37_79B9_7F4A_7C15);
        for _ in 0..20_000 {
            let mantissa = (next() % 10_000_000) as i64 - 5_000_000;
            let exponent = (next() % 40) as i32 - 25;
            let decimal: f64 = format!("{mantissa}e{exponent}").parse().unwrap();
            assert_eq!(shortest(decimal as f32), decimal, "{mantissa}e{exponent}");
            let bits = f32::from_bits(next() as u32);
            if bits.is_finite() {
                assert_eq!(shortest(bits) as f32, bits, "{bits:e}");
            }
        }
        assert!(shortest(f32::NAN).is_nan());
        assert_eq!(shortest(f32::INFINITY), f64::INFINITY);
    }

    /// Integers and doubles of every width, with nulls and without, read as
    /// their values (`as f64`), nulls as null, a dictionary's as its values'.
    #[test]
    fn arrays_read_as_their_values_and_nulls_as_null() {
        let mut next = stream(0x51_7CC1_B727_220A);
        for round in 0..200 {
            let len = 1 + (next() % 50) as usize;
            let raw: Vec<Option<i64>> = (0..len)
                .map(|_| (next() % 300) as i64 - 150)
                .map(|v| (round % 2 == 0 || v % 7 != 0).then_some(v))
                .collect();
            for (array, expected) in &typed(&raw) {
                assert_eq!(&read(array.as_ref()), expected, "{array:?}");
            }
        }
    }

    /// `raw` as arrays of several types, each with the doubles it holds.
    fn typed(raw: &[Option<i64>]) -> [(arrow_array::ArrayRef, Vec<Option<f64>>); 8] {
        use arrow_array::{
            DictionaryArray, Float32Array, Float64Array, Int8Array, Int32Array, Int64Array,
            UInt16Array, UInt64Array,
        };
        use std::sync::Arc;
        let words = [Some(0.5), None, Some(7.0)];
        let each = |f: &dyn Fn(i64) -> f64| raw.iter().map(|v| v.map(f)).collect::<Vec<_>>();
        let (small, wide) = (|v: i64| v.clamp(-128, 127), |v: i64| v.unsigned_abs() << 40);
        let word = |v: &Option<i64>| v.and_then(|v| words[v.unsigned_abs() as usize % 3]);
        let dictionary = DictionaryArray::<Int32Type>::new(
            raw.iter().map(|v| v.map(|v| v.unsigned_abs() as i32 % 3)).collect(),
            Arc::new(Float64Array::from(words.to_vec())),
        );
        [
            (Arc::new(Int64Array::from(raw.to_vec())), each(&|v| v as f64)),
            (
                Arc::new(raw.iter().map(|v| v.map(|v| small(v) as i8)).collect::<Int8Array>()),
                each(&|v| small(v) as f64),
            ),
            (
                Arc::new(raw.iter().map(|v| v.map(|v| v as i32)).collect::<Int32Array>()),
                each(&|v| v as f64),
            ),
            (
                Arc::new(
                    raw.iter().map(|v| v.map(|v| v.unsigned_abs() as u16)).collect::<UInt16Array>(),
                ),
                each(&|v| v.unsigned_abs() as f64),
            ),
            (
                Arc::new(raw.iter().map(|v| v.map(wide)).collect::<UInt64Array>()),
                each(&|v| wide(v) as f64),
            ),
            (
                Arc::new(raw.iter().map(|v| v.map(|v| v as f64 / 4.0)).collect::<Float64Array>()),
                each(&|v| v as f64 / 4.0),
            ),
            // Quarters are exact in 32 bits: read as the same decimal.
            (
                Arc::new(raw.iter().map(|v| v.map(|v| v as f32 / 4.0)).collect::<Float32Array>()),
                each(&|v| v as f64 / 4.0),
            ),
            (Arc::new(dictionary), raw.iter().map(word).collect()),
        ]
    }

    #[test]
    fn types_fit_declarations_or_say_how_to_fix_them() {
        let list = DataType::List(std::sync::Arc::new(Field::new("item", DataType::Int64, true)));
        type Fit = Result<Option<(ColumnType, bool)>, &'static str>;
        let cases: [(DataType, Option<ColumnType>, Fit); 8] = [
            (DataType::Int32, Some(ColumnType::Positive), Ok(Some((ColumnType::Positive, true)))),
            (DataType::Float32, None, Ok(Some((ColumnType::Number, false)))),
            (DataType::Int64, Some(ColumnType::Text), Ok(None)),
            (DataType::Boolean, None, Ok(None)),
            (DataType::Null, Some(ColumnType::Integer), Ok(Some((ColumnType::Integer, true)))),
            (
                DataType::Utf8,
                Some(ColumnType::Percent),
                Err(
                    "column `c`: the Parquet column holds text (Utf8), but book.toml declares a percentage from 0 to 100",
                ),
            ),
            (
                list,
                Some(ColumnType::Text),
                Err("column `c`: the Parquet column holds lists, not one value per row"),
            ),
            (
                DataType::Duration(TimeUnit::Second),
                None,
                Err("column `c`: the Parquet column holds durations (Duration(s))"),
            ),
        ];
        for (data, declared, expected) in cases {
            let got = fit("c", &data, declared).map_err(|(message, _)| message);
            assert_eq!(
                got.as_ref().map_err(String::as_str),
                expected.as_ref().map_err(|e| *e),
                "{data}"
            );
        }
    }

    #[test]
    fn marks_tell_empty_foreign_cut_and_encrypted_files_apart() {
        let file = SourceFile::new("results/r.parquet", Vec::new());
        let message =
            |bytes: &[u8]| check_marks(&file, bytes).err().map(|d| d.0[0].message.clone());
        assert_eq!(message(b""), Some("results file is empty".into()));
        assert!(message(b"a,b\n1,2\n").unwrap().starts_with("not a Parquet file"));
        assert!(message(b"PAR1\0\0\0\0PAR").unwrap().contains("cut short"));
        assert!(message(b"PAR1PAR1").unwrap().contains("cut short"));
        assert_eq!(
            message(b"PAR1\0\0\0\0\0\0\0\0PARE"),
            Some("the Parquet file is encrypted".into())
        );
        assert_eq!(message(b"PAR1\0\0\0\0\0\0\0\0PAR1"), None);
    }
}
