//! A partitioned dataset read as one table: the Parquet files of a folder
//! `results/NAME/`, laid out by value as engines write them
//! (`bench=b042/day=2025-01-01/part-0.parquet`). Only the partitions the
//! study's slice can select are opened, only the columns it uses are
//! decoded, and only the row groups whose statistics can match.

use std::collections::BTreeSet;
use std::path::Path;

use rayon::prelude::*;

use super::parquet::{self, Plain, Read, Selection};
use super::partitions::{Partitions, partitions};
use super::readers::{self, Filter, Readers, Union};
use super::{Column, Table, TextsBuilder, slice};
use crate::config::{Config, Dataset};
use crate::diagnostic::{Diagnostic, Diagnostics, Location};
use crate::project::{DatasetScan, FileRead, SourceFile};
use ::parquet::file::metadata::RowGroupMetaData;

/// Read the dataset `file` (a folder left on disk) as one table: the rows
/// of the partitions its slice selects, partition columns last. What was
/// read and pruned is recorded on `file` (its scan, and as its hash the
/// SHA-256 over the files read).
pub(super) fn read(
    file: &SourceFile,
    dataset: &Dataset,
    config: &Config,
    content: Option<&Readers>,
) -> Result<Table, Diagnostics> {
    let full = file.disk.clone().unwrap_or_default();
    let listed = crate::project::dataset_files(&full).map_err(|err| {
        Diagnostic::new(Location::file(&file.path), format!("cannot list the dataset: {err}"))
            .hint("check that the folder and its partitions are readable")
    })?;
    let parts = partitions(file, dataset, &listed)?;
    let union = readers::union(&file.stem(), config, content);
    let keep = parts.selected(dataset, config, &union);
    let used = union.columns.as_ref().map(|theirs| {
        let mut used = slice::used_columns(&file.stem(), dataset, config);
        used.extend(theirs.iter().cloned());
        used.retain(|c| !parts.names.contains(c));
        used
    });
    let inner = without(dataset, &parts.names);
    let read: Vec<Result<(Read, FileRead), Diagnostics>> = (0..listed.len())
        .into_par_iter()
        .filter(|&i| keep[i])
        .map(|i| {
            let wanted = Wanted { slice: &inner.slice, filters: live(&union, &parts, i) };
            one_file(file, &full, &listed[i], &inner, used.as_ref(), &wanted)
        })
        .collect();
    let mut files = Vec::new();
    let mut errors = Diagnostics::default();
    for result in read {
        match result {
            Ok(done) => files.push(done),
            Err(problems) => errors.0.extend(problems.0),
        }
    }
    let errors = errors.into_result(());
    errors?;
    let chosen: Vec<usize> = (0..listed.len()).filter(|&i| keep[i]).collect();
    let scan = DatasetScan {
        listed: listed.iter().map(|f| file.path.join(f)).collect(),
        read: files.iter().map(|(_, r)| r.clone()).collect(),
        pruned: parts.pruned(file, &keep),
    };
    let table = joined(file, files.into_iter().map(|(r, _)| r).collect(), &chosen, &parts)?;
    file.hash.set(hash(&scan)).ok();
    file.scan.set(scan).ok();
    Ok(table)
}

/// `dataset` without the partition columns `names` among its required
/// columns: a file of the dataset does not hold them, its folders do.
fn without(dataset: &Dataset, names: &[String]) -> Dataset {
    let mut inner = dataset.clone();
    inner.columns.retain(|name, _| !names.contains(name));
    inner.key.retain(|name| !names.contains(name));
    inner.group_by.retain(|name| !names.contains(name));
    inner
}

/// The filters of `union` that can select a row of file `file`: those whose
/// conditions on partition columns hold of its partition values (`None`:
/// every row can be selected).
fn live(union: &Union, parts: &Partitions, file: usize) -> Option<Vec<Filter>> {
    let holds = |f: &&Filter| f.iter().all(|(n, c)| parts.holds(file, n, c) != Some(false));
    let filters = union.filters.as_ref()?;
    Some(filters.iter().filter(holds).cloned().collect())
}

/// The rows wanted of one file: those meeting `slice` and one of `filters`
/// (every one when `None`), on the file's own columns.
struct Wanted<'a> {
    slice: &'a Filter,
    filters: Option<Vec<Filter>>,
}

impl Wanted<'_> {
    /// Whether a row group, by its statistics, can hold a wanted row.
    fn group(&self, group: &RowGroupMetaData) -> bool {
        slice::may_match(group, self.slice)
            && self.filters.as_ref().is_none_or(|fs| fs.iter().any(|f| slice::may_match(group, f)))
    }

    /// Which rows of `columns` are wanted (`None`: every one).
    fn rows(&self, columns: &[(String, Plain)]) -> Option<Vec<bool>> {
        let sliced = slice::rows(columns, self.slice);
        let Some(filters) = &self.filters else { return sliced };
        let mut any: Option<Vec<bool>> = Some(vec![false; columns.first()?.1.len()]);
        for filter in filters {
            match (slice::rows(columns, filter), &mut any) {
                (None, _) => any = None,
                (Some(theirs), Some(any)) => {
                    any.iter_mut().zip(theirs).for_each(|(a, t)| *a = *a || t);
                }
                (Some(_), None) => {}
            }
        }
        match (sliced, any) {
            (Some(a), Some(b)) => Some(a.into_iter().zip(b).map(|(a, b)| a && b).collect()),
            (a, b) => a.or(b),
        }
    }
}

/// One file of the dataset read: the `used` columns (every one when
/// `None`) of the row groups that can hold a wanted row, then only the rows
/// that are; with its size, hash and time.
fn one_file(
    dataset_file: &SourceFile,
    full: &Path,
    relative: &Path,
    inner: &Dataset,
    used: Option<&BTreeSet<String>>,
    wanted: &Wanted,
) -> Result<(Read, FileRead), Diagnostics> {
    let path = dataset_file.path.join(relative);
    let file = SourceFile::on_disk(&path, full.join(relative));
    let modified = std::fs::metadata(full.join(relative)).and_then(|m| m.modified()).ok();
    let bytes = parquet::read_all(&file)?;
    let groups = |group: &_| wanted.group(group);
    let selection = Selection { columns: used, groups: Some(&groups) };
    let (sha256, read) = rayon::join(
        || crate::project::sha256_hex(&bytes),
        || parquet::columns(&file, inner, &bytes, &selection),
    );
    let mut read = read?;
    if let Some(keep) = wanted.rows(&read.columns) {
        read.lines = slice::kept(&read.lines, &keep);
        for (_, plain) in &mut read.columns {
            match plain {
                Plain::Number(values) => *values = slice::kept(values, &keep),
                Plain::Text(_, codes) => *codes = slice::kept(codes, &keep),
            }
        }
    }
    let size = bytes.len() as u64;
    Ok((read, FileRead { path, size, sha256, modified }))
}

/// The files' columns joined into one table, in the order of the files,
/// with the partition columns after them; an error at the first file whose
/// columns differ from the first file's.
fn joined(
    file: &SourceFile,
    reads: Vec<Read>,
    chosen: &[usize],
    parts: &Partitions,
) -> Result<Table, Diagnostics> {
    let Some(first) = reads.first() else {
        return Err(no_rows(file, "no partition of the dataset matches the slice"));
    };
    let shape: Vec<(String, bool)> =
        first.columns.iter().map(|(n, p)| (n.clone(), matches!(p, Plain::Number(_)))).collect();
    let mut columns: Vec<Joined> = shape.iter().map(|(_, number)| Joined::new(*number)).collect();
    let mut rows_of = Vec::with_capacity(reads.len());
    for (read, &index) in reads.into_iter().zip(chosen) {
        check_shape(file, &parts.files[index], &shape, &read)?;
        rows_of.push(read.lines.len());
        for (column, (_, plain)) in columns.iter_mut().zip(read.columns) {
            column.push(plain);
        }
    }
    let rows: usize = rows_of.iter().sum();
    if rows == 0 {
        return Err(no_rows(file, "the slice selects no rows of the dataset"));
    }
    let mut out: Vec<Column> = shape
        .into_iter()
        .zip(columns)
        .map(|((name, _), column)| Column { name, values: column.finish() })
        .collect();
    out.extend(parts.columns(chosen, &rows_of));
    let lines = (1..=rows).map(|r| u32::try_from(r).unwrap_or(u32::MAX)).collect();
    Ok(Table { name: file.stem(), path: file.path.clone(), columns: out, lines })
}

/// The error of a slice that leaves no row.
fn no_rows(file: &SourceFile, message: &str) -> Diagnostics {
    let name = file.stem();
    Diagnostic::new(Location::file(&file.path), message)
        .hint(format!(
            "check `where` under [data.{name}] in book.toml against the dataset's partitions and values"
        ))
        .into()
}

/// An error at `path` if its columns are not those of the dataset's first
/// file read (`shape`: names, and whether each holds numbers).
fn check_shape(
    file: &SourceFile,
    path: &Path,
    shape: &[(String, bool)],
    read: &Read,
) -> Result<(), Diagnostics> {
    let theirs: Vec<(String, bool)> =
        read.columns.iter().map(|(n, p)| (n.clone(), matches!(p, Plain::Number(_)))).collect();
    if theirs == shape {
        return Ok(());
    }
    let kind = |number: bool| if number { "numbers" } else { "text" };
    let problem =
        shape.iter().find_map(|(name, number)| match theirs.iter().find(|(n, _)| n == name) {
            None => Some(format!("it lacks column `{name}`")),
            Some((_, other)) if other != number => Some(format!(
                "column `{name}` holds {} here but {} in the files before it",
                kind(*other),
                kind(*number)
            )),
            Some(_) => None,
        });
    let problem = problem.unwrap_or_else(|| "it has columns the files before it lack".into());
    let at = Location::file(file.path.join(path));
    Err(Diagnostic::new(at, format!("the files of the dataset differ in their schema: {problem}"))
        .hint("every file of a dataset holds the same columns of the same types: write the dataset again in one export")
        .into())
}

/// A column joined from the files, numbers appended, text re-coded.
enum Joined {
    Number(Vec<f64>),
    Text(TextsBuilder, Vec<u32>),
}

impl Joined {
    fn new(number: bool) -> Self {
        if number {
            Joined::Number(Vec::new())
        } else {
            Joined::Text(TextsBuilder::default(), Vec::new())
        }
    }

    fn push(&mut self, plain: Plain) {
        match (self, plain) {
            (Joined::Number(all), Plain::Number(values)) => all.extend(values),
            (Joined::Text(builder, codes), Plain::Text(words, theirs)) => {
                let mut other = TextsBuilder::default();
                words.iter().for_each(|w| other.push(w));
                let map = builder.translate(&other);
                codes.extend(theirs.iter().map(|&c| map[c as usize]));
            }
            _ => {}
        }
    }

    fn finish(self) -> super::Values {
        match self {
            Joined::Number(values) => Plain::Number(values).values(),
            Joined::Text(builder, codes) => Plain::Text(builder.finish().0, codes).values(),
        }
    }
}

/// The SHA-256 over the paths and hashes of the files read.
fn hash(scan: &DatasetScan) -> String {
    let mut all = Vec::new();
    for read in &scan.read {
        all.extend(read.path.to_string_lossy().as_bytes());
        all.push(0);
        all.extend(read.sha256.as_bytes());
        all.push(b'\n');
    }
    crate::project::sha256_hex(&all)
}
