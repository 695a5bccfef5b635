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
use super::{Column, Table, TextsBuilder, slice};
use crate::config::{Config, Dataset};
use crate::diagnostic::{Diagnostic, Diagnostics, Location};
use crate::project::{DatasetScan, FileRead, SourceFile};

/// Read the dataset `file` (a folder left on disk) as one table: the rows
/// of the partitions its slice selects, partition columns last. What was
/// read and pruned is recorded on `file` (its scan, and as its hash the
/// SHA-256 over the files read).
pub(super) fn read(
    file: &SourceFile,
    dataset: &Dataset,
    config: &Config,
) -> Result<Table, Diagnostics> {
    let full = file.disk.clone().unwrap_or_default();
    let listed = crate::project::dataset_files(&full).map_err(|err| {
        Diagnostic::new(Location::file(&file.path), format!("cannot list the dataset: {err}"))
            .hint("check that the folder and its partitions are readable")
    })?;
    let parts = partitions(file, dataset, &listed)?;
    let keep = parts.selected(dataset, config);
    let used = slice::used_columns(&file.stem(), dataset, config);
    let inner = without(dataset, &parts.names);
    let read: Vec<Result<(Read, FileRead), Diagnostics>> = listed
        .par_iter()
        .zip(&keep)
        .filter(|(_, keep)| **keep)
        .map(|(relative, _)| one_file(file, &full, relative, &inner, &used, &parts.names))
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

/// One file of the dataset read: the used columns of the row groups that can
/// match the slice, then only the rows that do; with its size, hash and time.
fn one_file(
    dataset_file: &SourceFile,
    full: &Path,
    relative: &Path,
    inner: &Dataset,
    used: &BTreeSet<String>,
    partition_names: &[String],
) -> Result<(Read, FileRead), Diagnostics> {
    let path = dataset_file.path.join(relative);
    let file = SourceFile::on_disk(&path, full.join(relative));
    let modified = std::fs::metadata(full.join(relative)).and_then(|m| m.modified()).ok();
    let bytes = parquet::read_all(&file)?;
    let columns: BTreeSet<String> =
        used.iter().filter(|c| !partition_names.contains(c)).cloned().collect();
    let groups = |group: &_| slice::may_match(group, &inner.slice);
    let selection = Selection { columns: Some(&columns), groups: Some(&groups) };
    let (sha256, read) = rayon::join(
        || crate::project::sha256_hex(&bytes),
        || parquet::columns(&file, inner, &bytes, &selection),
    );
    let mut read = read?;
    if let Some(keep) = slice::rows(&read.columns, &inner.slice) {
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
