//! Where an import may write and what is there already: the options that
//! name the results file, the file itself (a regular file inside the study,
//! never reached through a link out of it), and its rows, read whole before
//! anything is appended, with every problem named at its line.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::diagnostic::{Diagnostic, Diagnostics, Location};

use super::ImportOptions;

/// The highest run per configuration (the values of its configuration columns).
pub(super) type Runs = BTreeMap<Vec<String>, u64>;

/// A results file an import appends to.
pub(super) struct Target {
    /// `results/NAME.csv`, for messages and the summary.
    pub relative: PathBuf,
    /// Where it is written: the file, or where a link inside the study leads.
    pub path: PathBuf,
    /// Its bytes, when it exists and holds more than blank space.
    pub bytes: Option<Vec<u8>>,
}

/// The canonical study folder, after checking the options: `--into` must be
/// a plain name and the counts greater than zero, before anything is read.
pub(super) fn check_options(options: &ImportOptions) -> Result<PathBuf, Diagnostics> {
    if let Some(into) = &options.into {
        check_name(into)?;
    }
    for (flag, value) in [("--nodes", options.nodes), ("--procs", options.procs)] {
        if value == Some(0) {
            return Err(Diagnostic::new(
                Location::file(flag),
                format!("`{flag} 0`: a count of nodes or processes is at least 1"),
            )
            .hint(format!("give the number the runs used, such as `{flag} 2`"))
            .into());
        }
    }
    dunce::canonicalize(&options.root).map_err(|err| {
        Diagnostic::new(
            Location::file(&options.root),
            format!("cannot open the study folder: {err}"),
        )
        .hint("pass the study's folder with --root DIR, or create one with `report new DIR`")
        .into()
    })
}

/// Refuse an `--into` that is not a plain name: rows go only to
/// `results/NAME.csv`, never through a path elsewhere.
fn check_name(into: &str) -> Result<(), Diagnostic> {
    let plain = into.starts_with(|c: char| c.is_ascii_alphanumeric())
        && into.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        return Ok(());
    }
    let message = if into.contains(['/', '\\']) || into.starts_with('.') {
        format!("`--into {into}` is a path: an import writes only to a file of results/")
    } else if let Some(stem) = into.strip_suffix(".csv").or_else(|| into.strip_suffix(".parquet")) {
        format!("`--into {into}` names the file with its extension; write `--into {stem}`")
    } else {
        format!("`--into {into}` is not a plain name")
    };
    Err(Diagnostic::new(Location::file("results"), message).hint(
        "give a name of letters, digits, `_` and `-`, such as `--into osu_latency_v7`: the rows go to results/osu_latency_v7.csv",
    ))
}

/// The results file `results/{name}.csv` of the study at `root`
/// (canonical), checked before anything is read or written: the results
/// folder and the file must stay inside the study, the file, if there, must
/// be a regular file that can be read, and no `results/{name}.parquet` may
/// hold the table already.
pub(super) fn locate(root: &Path, name: &str) -> Result<Target, Diagnostics> {
    let relative = PathBuf::from(format!("results/{name}.csv"));
    refuse_parquet(root, name)?;
    let folder = root.join("results");
    if fs::symlink_metadata(&folder).is_ok() {
        let real = dunce::canonicalize(&folder).unwrap_or_default();
        if !real.starts_with(root) || !real.is_dir() {
            return Err(Diagnostic::new(Location::file("results"), "`results` is not a folder inside the study")
                .hint("make results/ a folder of the study (not a link out of it, nor a file); import writes only inside the study")
                .into());
        }
    }
    let Some(path) = crate::project::regular_file(root, &relative)? else {
        return Ok(Target { path: root.join(&relative), relative, bytes: None });
    };
    let bytes = crate::project::read_regular(&path).map_err(|err| {
        Diagnostic::new(Location::file(&relative), format!("cannot read this results file: {err}"))
            .hint("import never replaces a file it cannot read: make it readable, or import into another file with --into NAME")
    })?;
    let blank = bytes.iter().all(u8::is_ascii_whitespace);
    Ok(Target { relative, path, bytes: (!blank).then_some(bytes) })
}

/// The error for an import into a table that `results/{name}.parquet` holds:
/// an import appends CSV rows, and a Parquet file is an engine's export,
/// which report never rewrites.
fn refuse_parquet(root: &Path, name: &str) -> Result<(), Diagnostic> {
    let parquet = PathBuf::from(format!("results/{name}.parquet"));
    if fs::symlink_metadata(root.join(&parquet)).is_err() {
        return Ok(());
    }
    Err(Diagnostic::new(
        Location::file(&parquet),
        format!("table `{name}` is a Parquet file, and an import writes CSV rows"),
    )
    .hint(format!(
        "report never rewrites a Parquet file, which comes from an engine's export: import \
         into a CSV file beside it with `--into {name}_new` (a table of its own), or add the \
         new runs to the export and write the Parquet file again"
    )))
}

/// What a results file holds that an import needs: its columns, the files
/// already imported, the highest run per configuration.
pub(super) struct Existing {
    /// The header, as the file has it.
    pub header: Vec<String>,
    /// Per `source` of its rows: each `source_sha256` with it, and the line of
    /// its first row.
    pub imported: Imported,
    /// The highest run per configuration.
    pub runs: Runs,
}

/// The files a results file holds rows of: per `source`, each content hash
/// and the line of the first row with both.
pub(super) type Imported = BTreeMap<String, BTreeMap<String, usize>>;

/// What the file `relative` holds, after checking that the importer can
/// append to it: UTF-8, a header without repeated names, every row as long
/// as the header, whole run numbers. Columns are matched by name, so the file
/// may have other columns than the importer writes, in any order.
pub(super) fn read(
    relative: &Path,
    bytes: &[u8],
    config: &[String],
) -> Result<Existing, Diagnostics> {
    let text = utf8(relative, bytes)?;
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(text.as_bytes());
    let header: Vec<String> =
        reader.headers().map_err(|e| broken(relative, &e))?.iter().map(str::to_string).collect();
    if let Some(twice) = header.iter().enumerate().find(|(i, h)| header[..*i].contains(h)) {
        return Err(Diagnostic::new(
            Location::new(relative, 1, 1),
            format!("column `{}` is named twice in the header", twice.1),
        )
        .hint("give each column one name (a build refuses it too); import matches columns by name")
        .into());
    }
    let col = |name: &str| header.iter().position(|c| c == name);
    let (hash, source, run) = (col("source_sha256"), col("source"), col("run"));
    let config: Vec<Option<usize>> = config.iter().map(|c| col(c)).collect();
    let (mut imported, mut runs) = (Imported::new(), Runs::new());
    for record in reader.records() {
        let record = record.map_err(|e| broken(relative, &e))?;
        let number = run_of(relative, text, &record, header.len(), run)?;
        let field = |i: Option<usize>| i.and_then(|i| record.get(i)).unwrap_or("").to_string();
        if hash.is_some() {
            let line = record.position().map_or(0, csv::Position::line) as usize;
            imported.entry(field(source)).or_default().entry(field(hash)).or_insert(line);
        }
        let highest = runs.entry(config.iter().map(|i| field(*i)).collect()).or_insert(0);
        *highest = (*highest).max(number);
    }
    Ok(Existing { header, imported, runs })
}

/// `text` (a results file the importer read whole) with the columns `extra`
/// added at the end of its header and an empty cell for each at the end of
/// every row: the values of the rows do not change, nor their quoting.
pub(super) fn widen(text: &str, extra: &[String]) -> String {
    let mut starts: Vec<usize> = Vec::new();
    let mut reader =
        csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(text.as_bytes());
    let mut record = csv::StringRecord::new();
    while reader.read_record(&mut record).unwrap_or(false) {
        starts.push(record.position().map_or(0, |p| p.byte() as usize));
    }
    let mut out = String::with_capacity(text.len() + starts.len() * extra.len() + 64);
    for (i, start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        let record = &text[*start..end];
        let body = record.trim_end_matches(['\r', '\n']);
        out.push_str(body);
        if i == 0 {
            extra.iter().for_each(|c| {
                out.push(',');
                out.push_str(c);
            });
        } else {
            out.push_str(&",".repeat(extra.len()));
        }
        out.push_str(if record.len() > body.len() { &record[body.len()..] } else { "\n" });
    }
    out
}

/// `bytes` as text, or where the first byte that is not UTF-8 is.
fn utf8<'a>(relative: &Path, bytes: &'a [u8]) -> Result<&'a str, Diagnostic> {
    std::str::from_utf8(bytes).map_err(|err| {
        let valid = std::str::from_utf8(&bytes[..err.valid_up_to()]).unwrap_or_default();
        Diagnostic::new(
            Location::at_offset(relative, valid, valid.len()),
            "this results file is not valid UTF-8",
        )
        .hint(
            "save it as UTF-8 (a build refuses it too), or import into a new file with --into NAME",
        )
    })
}

/// The run number of an existing row (field `run` of `record`, a row of
/// `text`), after checking that the row has `width` fields.
fn run_of(
    relative: &Path,
    text: &str,
    record: &csv::StringRecord,
    width: usize,
    run: Option<usize>,
) -> Result<u64, Diagnostic> {
    let line = record.position().map_or(0, csv::Position::line) as usize;
    if record.len() != width {
        return Err(Diagnostic::new(Location::new(relative, line, 1), format!("this row has {} fields; the header has {width}", record.len()))
            .hint("fix or remove the row (a build refuses it too), then import again: an import appends only to a file it can read whole"));
    }
    let Some(run) = run else { return Ok(0) };
    let found = record.get(run).unwrap_or("");
    found.parse::<u64>().map_err(|_| {
        // A record's ranges leave out the commas before the field.
        let offset = record.position().map_or(0, |p| p.byte() as usize)
            + record.range(run).map_or(0, |r| r.start)
            + run;
        Diagnostic::new(
            Location::at_offset(relative, text, offset),
            format!("column `run`: expected a whole number, found `{found}`"),
        )
        .hint("fix the run number: an import numbers new runs on from the highest in the file")
    })
}

/// A CSV error of the results file, at its line.
fn broken(relative: &Path, err: &csv::Error) -> Diagnostics {
    let line = err.position().map_or(0, |p| p.line() as usize);
    Diagnostic::new(
        Location::new(relative, line, 0),
        format!("cannot read this results file: {err}"),
    )
    .hint("fix the file (a build refuses it too), or import into a new file with --into NAME")
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn into_is_a_plain_name() {
        for good in ["lammps", "osu_latency_v7", "run-2", "A1"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in
            ["", "../x", "a/b", "a\\b", "/tmp/x", ".hidden", "x.csv", "two words", "-x", "été"]
        {
            let err = check_name(bad).unwrap_err();
            assert_eq!(err.location, Location::file("results"), "{bad}");
            assert!(err.hint.is_some_and(|h| h.contains("results/osu_latency_v7.csv")), "{bad}");
        }
    }

    #[test]
    fn a_blank_results_file_is_a_new_one() {
        let dir = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(dir.path()).unwrap();
        fs::create_dir(root.join("results")).unwrap();
        fs::write(root.join("results/x.csv"), " \n").unwrap();
        let target = locate(&root, "x").unwrap();
        assert_eq!((target.bytes, target.path), (None, root.join("results/x.csv")));
    }
}
