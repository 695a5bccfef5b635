//! The partitions of a dataset: the `name=value` folders on the way to each
//! file, as Hive, Spark, DuckDB and pyarrow write them, typed as book.toml
//! declares (else numbers when every value is one, text otherwise), and
//! which of them a study's slice can select.

use std::path::{Path, PathBuf};

use super::cells::{check_value, describe};
use super::readers::Union;
use super::{Column, Texts, Values};
use crate::config::{ColumnType, Config, Dataset, FilterValue};
use crate::diagnostic::{Diagnostic, Diagnostics, Location};
use crate::project::SourceFile;

/// The value Hive and Spark write for a null partition value.
const HIVE_NULL: &str = "__HIVE_DEFAULT_PARTITION__";

/// The partition values of every file of a dataset.
#[derive(Debug)]
pub(super) struct Partitions {
    /// The partition columns, in the order of the folders.
    pub names: Vec<String>,
    /// Whether each partition column holds numbers (else text).
    pub numeric: Vec<bool>,
    /// The files, relative to the dataset folder.
    pub files: Vec<PathBuf>,
    /// Per file, the value of each partition column (`None`: null).
    pub values: Vec<Vec<Option<String>>>,
}

/// The partitions of the files `listed` (relative to the dataset `file`):
/// an error for a folder that is not `name=value`, files partitioned by
/// other columns than the first's, or values that do not fit a declared type.
pub(super) fn partitions(
    file: &SourceFile,
    dataset: &Dataset,
    listed: &[PathBuf],
) -> Result<Partitions, Diagnostics> {
    let mut names: Option<Vec<String>> = None;
    let mut values = Vec::with_capacity(listed.len());
    for relative in listed {
        let (theirs, vals) = folders(file, relative)?;
        match &names {
            None => names = Some(theirs),
            Some(names) if *names == theirs => {}
            Some(names) => return Err(mixed(file, relative, names, &theirs)),
        }
        values.push(vals);
    }
    let names = names.unwrap_or_default();
    let numeric = types(file, dataset, &names, listed, &values)?;
    Ok(Partitions { names, numeric, files: listed.to_vec(), values })
}

/// The partition names and values of the folders on the way to `relative`.
fn folders(
    file: &SourceFile,
    relative: &Path,
) -> Result<(Vec<String>, Vec<Option<String>>), Diagnostics> {
    let mut names = Vec::new();
    let mut values = Vec::new();
    let folders: Vec<_> = relative.parent().into_iter().flat_map(Path::components).collect();
    for (depth, part) in folders.iter().enumerate() {
        let part = part.as_os_str().to_string_lossy();
        let Some((name, value)) = part.split_once('=').filter(|(n, _)| !n.is_empty()) else {
            let upto: PathBuf = folders[..=depth].iter().collect();
            return Err(Diagnostic::new(
                Location::file(file.path.join(upto)),
                format!("`{part}` is not a partition folder (`name=value`)"),
            )
            .hint("a dataset's folders are partitions, as an engine writes them (`bench=b042/`); move other files out of results/")
            .into());
        };
        names.push(unescape(name));
        values.push((value != HIVE_NULL).then(|| unescape(value)));
    }
    Ok((names, values))
}

/// A partition name or value with Hive's `%XX` escapes decoded.
fn unescape(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match hex.and_then(|h| u8::from_str_radix(h, 16).ok()).filter(|_| bytes[i] == b'%') {
            Some(byte) => (out.push(byte), i += 3),
            None => (out.push(bytes[i]), i += 1),
        };
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The error for a file partitioned by other columns than the files before it.
fn mixed(file: &SourceFile, relative: &Path, names: &[String], theirs: &[String]) -> Diagnostics {
    let show = |n: &[String]| if n.is_empty() { "none".to_string() } else { n.join(", ") };
    Diagnostic::new(
        Location::file(file.path.join(relative)),
        format!(
            "this file is partitioned by {}, the files before it by {}",
            show(theirs),
            show(names)
        ),
    )
    .hint("every file of a dataset lies under the same partition folders: write the dataset again in one export")
    .into()
}

/// Whether each partition column holds numbers: as declared in book.toml
/// (every value checked), else when every value is a finite number.
fn types(
    file: &SourceFile,
    dataset: &Dataset,
    names: &[String],
    listed: &[PathBuf],
    values: &[Vec<Option<String>>],
) -> Result<Vec<bool>, Diagnostics> {
    let mut errors = Diagnostics::default();
    let mut numeric = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let declared = dataset.columns.get(name).copied();
        let column = values.iter().map(|v| v[i].as_deref());
        let number = |v: &str| v.trim().parse::<f64>().ok().filter(|n| n.is_finite());
        numeric.push(match declared {
            Some(ColumnType::Text) => false,
            None => column.clone().flatten().all(|v| number(v).is_some()),
            Some(kind) => {
                let mut seen = std::collections::BTreeSet::new();
                for (j, value) in column.enumerate() {
                    let problem = match value.map(|v| (v, number(v))) {
                        None => Some("the value is missing (null)".to_string()),
                        Some((v, None)) => Some(format!("`{v}` is not {}", describe(kind))),
                        Some((v, Some(n))) => {
                            check_value(n, kind).err().map(|(m, _)| format!("`{v}`: {m}"))
                        }
                    };
                    let Some(problem) = problem else { continue };
                    let folder = folder_of(&listed[j], i);
                    if seen.insert(folder.clone()) {
                        errors.push(bad_value(file, &folder, name, &problem, kind));
                    }
                }
                true
            }
        });
    }
    errors.into_result(numeric)
}

/// The folder of partition `depth` on the way to `relative` (`bench=b1/day=2`).
fn folder_of(relative: &Path, depth: usize) -> PathBuf {
    relative.parent().into_iter().flat_map(Path::components).take(depth + 1).collect()
}

/// The error for a partition value that does not fit its declared type.
fn bad_value(
    file: &SourceFile,
    folder: &Path,
    name: &str,
    problem: &str,
    kind: ColumnType,
) -> Diagnostic {
    Diagnostic::new(
        Location::file(file.path.join(folder)),
        format!("partition `{name}`: {problem}"),
    )
    .hint(format!(
        "book.toml declares `{name}` as {}: write the partition's values so, or declare `{name} = \"text\"`",
        describe(kind)
    ))
}

impl Partitions {
    /// Per file, whether the study can select its rows: its partition values
    /// meet `where` and leave a row for one of the table's readers
    /// (`union`), and a partition by the environment column is one of the
    /// environments book.toml declares.
    pub fn selected(&self, dataset: &Dataset, config: &Config, union: &Union) -> Vec<bool> {
        let environment = &config.study.environment_column;
        (0..self.files.len())
            .map(|file| {
                let sliced =
                    dataset.slice.iter().all(|(n, c)| self.holds(file, n, c) != Some(false));
                let declared = self.names.iter().zip(&self.values[file]).all(|(name, value)| {
                    name != environment
                        || value.as_ref().is_none_or(|v| config.environments.contains_key(v))
                });
                sliced && declared && union.admits(&|name, c| self.holds(file, name, c))
            })
            .collect()
    }

    /// Whether `condition` holds of the value of partition column `name` of
    /// file `file` (never of a null); `None` when `name` is not a partition
    /// column.
    pub fn holds(&self, file: usize, name: &str, condition: &FilterValue) -> Option<bool> {
        let column = self.names.iter().position(|n| n == name)?;
        Some(match &self.values[file][column] {
            None => false,
            Some(value) if self.numeric[column] => {
                value.trim().parse().is_ok_and(|n| condition.holds_for_number(n))
            }
            Some(value) => condition.holds_for_text(value),
        })
    }

    /// The partition folders (`bench=b001`, `bench=b001/day=2025-01-01`) of
    /// which no file is read, sorted, each under the dataset's path.
    pub fn pruned(&self, file: &SourceFile, keep: &[bool]) -> Vec<String> {
        let folder = |f: &PathBuf| f.parent().map(Path::to_path_buf).unwrap_or_default();
        let read: std::collections::BTreeSet<PathBuf> =
            self.files.iter().zip(keep).filter(|(_, k)| **k).map(|(f, _)| folder(f)).collect();
        let mut pruned: Vec<String> = self
            .files
            .iter()
            .map(folder)
            .filter(|f| !f.as_os_str().is_empty() && !read.contains(f))
            .map(|f| crate::project::slashed(&file.path.join(f)).to_string_lossy().into_owned())
            .collect();
        pruned.sort();
        pruned.dedup();
        pruned
    }

    /// The partition columns of the files `chosen`, each file's value
    /// repeated for its `rows_of` rows.
    pub fn columns(&self, chosen: &[usize], rows_of: &[usize]) -> Vec<Column> {
        let rows: usize = rows_of.iter().sum();
        let column = |i: usize| {
            let each = chosen.iter().zip(rows_of).map(|(&f, &n)| (self.values[f][i].as_deref(), n));
            if self.numeric[i] {
                let mut numbers = Vec::with_capacity(rows);
                for (value, n) in each {
                    let number = value.and_then(|v| v.trim().parse().ok()).unwrap_or(f64::NAN);
                    numbers.extend(std::iter::repeat_n(number, n));
                }
                return Values::Number(numbers);
            }
            let (mut words, mut codes) = (Vec::<String>::new(), Vec::with_capacity(rows));
            for (value, n) in each {
                let value = value.unwrap_or_default();
                let code = words.iter().position(|w| w == value).unwrap_or_else(|| {
                    words.push(value.to_string());
                    words.len() - 1
                });
                codes.extend(std::iter::repeat_n(code as u32, n));
            }
            Values::Text(Texts { words, codes })
        };
        (0..self.names.len())
            .map(|i| Column { name: self.names[i].clone(), values: column(i) })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hive_escapes_are_decoded() {
        assert_eq!(unescape("a%20b%3Dc%2F"), "a b=c/");
        assert_eq!(unescape("100%"), "100%");
        assert_eq!(unescape("%zz"), "%zz");
    }

    #[test]
    fn folders_are_partitions_typed_by_their_values() {
        let file = SourceFile::new("results/runs", Vec::new());
        let listed: Vec<PathBuf> =
            ["bench=b1/procs=2/p.parquet", "bench=b2/procs=__HIVE_DEFAULT_PARTITION__/p.parquet"]
                .iter()
                .map(PathBuf::from)
                .collect();
        let parts = partitions(&file, &Dataset::default(), &listed).unwrap();
        assert_eq!(parts.names, ["bench", "procs"]);
        assert_eq!(parts.numeric, [false, true]);
        assert_eq!(parts.values[1], [Some("b2".to_string()), None]);
        let mut dataset = Dataset::default();
        dataset.columns.insert("bench".into(), ColumnType::Integer);
        let errors = partitions(&file, &dataset, &listed).unwrap_err().to_string();
        assert!(
            errors.contains("results/runs/bench=b1: partition `bench`: `b1` is not"),
            "{errors}"
        );
        let other = [PathBuf::from("bench=b1/p.parquet"), PathBuf::from("procs=2/p.parquet")];
        let errors = partitions(&file, &Dataset::default(), &other).unwrap_err().to_string();
        assert!(errors.contains("partitioned by procs, the files before it by bench"), "{errors}");
        let loose = [PathBuf::from("raw/p.parquet")];
        let errors = partitions(&file, &Dataset::default(), &loose).unwrap_err().to_string();
        assert!(errors.contains("results/runs/raw: `raw` is not a partition folder"), "{errors}");
    }
}
