//! The results CSV an import appends to: its existing rows read for the runs
//! and file hashes they hold, columns matched by name, the new rows added,
//! and the file replaced atomically.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use anyhow::{Context, Result};

use super::{ImportOptions, Pending, Summary, existing};
use crate::diagnostic::{Diagnostic, Location};

/// Append the new rows of one results file of the study at `root`
/// (canonical), skipping files already imported, and count the rows of each
/// environment in `environments`. The file is checked and read whole first
/// ([`existing::locate`], [`existing::read`]): a file that cannot be read or
/// appended to stops the import, named at its line, and is left as it was.
/// Columns are matched by name: the file's columns that the importer lacks
/// stay empty in the new rows, and the importer's columns that the file
/// lacks are added to it (its rows get empty cells), with one warning.
pub(super) fn append(
    options: &ImportOptions,
    root: &Path,
    target: &str,
    items: Vec<Pending>,
    summary: &mut Summary,
    environments: &mut BTreeMap<String, usize>,
) -> Result<()> {
    let file = existing::locate(root, target)?;
    let Layout { old, extra, header, seen, mut runs } = layout(&file, &items)?;
    let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
    if old.is_none() {
        writer.write_record(&header)?;
    }
    let mut added = 0;
    // A file gives one item per results file it feeds: its items all go in,
    // and a copy of a file (same hash, other path) is skipped like a file
    // already imported.
    let mut now: BTreeMap<String, std::path::PathBuf> = BTreeMap::new();
    for item in items {
        let first = now.entry(item.hash.clone()).or_insert_with(|| item.file.clone());
        if seen.contains(&item.hash) || *first != item.file {
            summary.skipped.push(item.file.clone());
            continue;
        }
        for record in numbered(&item, &header, &mut runs) {
            *environments.entry(record[0].clone()).or_default() += 1;
            writer.write_record(&record[1..])?;
            added += 1;
        }
    }
    let new_text = String::from_utf8(writer.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?)?;
    let name = file.relative.display().to_string();
    if added == 0 {
        return Ok(());
    }
    summary.added.insert(name.clone(), added);
    if !extra.is_empty() {
        summary.warnings.push(widened(&file.relative, &extra, options.dry_run));
    }
    if options.dry_run {
        summary.preview.insert(name, new_text);
        return Ok(());
    }
    let old_text = String::from_utf8(file.bytes.unwrap_or_default())?;
    let mut content = if extra.is_empty() { old_text } else { existing::widen(&old_text, &extra) };
    if !content.is_empty() && !content.ends_with('\n') {
        content.push('\n');
    }
    content.push_str(&new_text);
    write_atomically(&file.path, content.as_bytes())
}

/// The columns of a results file before and after an import, and what it holds.
struct Layout {
    /// The header of the file, if it exists.
    old: Option<Vec<String>>,
    /// The importer's columns that the file lacks.
    extra: Vec<String>,
    /// The header after the import.
    header: Vec<String>,
    /// Hashes of the files already imported.
    seen: BTreeSet<String>,
    /// The highest run per configuration.
    runs: existing::Runs,
}

/// The layout of `file` when `items` are appended: its header, with the
/// importer's columns it lacks added at the end; a new file gets every
/// column of the items, in their order.
fn layout(file: &existing::Target, items: &[Pending]) -> Result<Layout> {
    let mut columns: Vec<String> = Vec::new();
    for c in items.iter().flat_map(|i| &i.columns) {
        if !columns.contains(c) {
            columns.push(c.clone());
        }
    }
    let Some(bytes) = &file.bytes else {
        let (seen, runs) = (BTreeSet::new(), BTreeMap::new());
        return Ok(Layout { old: None, extra: Vec::new(), header: columns, seen, runs });
    };
    let e = existing::read(&file.relative, bytes)?;
    let extra: Vec<String> = columns.into_iter().filter(|c| !e.header.contains(c)).collect();
    let header = e.header.iter().chain(&extra).cloned().collect();
    Ok(Layout { old: Some(e.header), extra, header, seen: e.hashes, runs: e.runs })
}

/// The warning that `extra` columns are (or, in a dry run, would be) added to `relative`.
fn widened(relative: &Path, extra: &[String], dry_run: bool) -> Diagnostic {
    let verb = if dry_run { "would be added" } else { "were added" };
    let (noun, pronoun) = if extra.len() == 1 { ("column", "it") } else { ("columns", "them") };
    Diagnostic::new(
        Location::new(relative, 1, 1),
        format!(
            "this results file had no {noun} {}: the {noun} {verb}, and its existing rows leave {pronoun} empty",
            crate::diagnostic::list(extra.iter().map(String::as_str))
        ),
    )
    .hint("no value of an existing row changed; declare the new columns in `[data.NAME] columns` of book.toml to check their types")
}

/// The rows of `item` in the order of `header`, each after its environment
/// (for counting), with run numbers and the file hash in place.
fn numbered(item: &Pending, header: &[String], runs: &mut existing::Runs) -> Vec<Vec<String>> {
    let position = |name: &str| item.columns.iter().position(|c| c == name);
    let (run_at, hash_at) = (position("run"), position("source_sha256"));
    let mut out = Vec::new();
    for run in &item.runs {
        let (env, nodes, procs) = &run.config;
        let number = next_run(runs, env, nodes, procs, run.given).to_string();
        for row in &run.rows {
            let mut row = row.clone();
            for (at, value) in [(run_at, &number), (hash_at, &item.hash)] {
                if let Some(cell) = at.and_then(|i| row.get_mut(i)) {
                    cell.clone_from(value);
                }
            }
            let mut record = vec![env.clone()];
            record.extend(
                header.iter().map(|h| position(h).map(|i| row[i].clone()).unwrap_or_default()),
            );
            out.push(record);
        }
    }
    out
}

/// The run number: from the path, or one more than the highest so far for this
/// (environment, nodes, procs).
fn next_run(
    runs: &mut existing::Runs,
    env: &str,
    nodes: &str,
    procs: &str,
    given: Option<u64>,
) -> u64 {
    let highest = runs.entry((env.into(), nodes.into(), procs.into())).or_insert(0);
    let run = given.unwrap_or(*highest + 1);
    *highest = (*highest).max(run);
    run
}

/// Replace `path` with `content` in one rename, so that an interrupted import
/// leaves the old file whole.
fn write_atomically(path: &Path, content: &[u8]) -> Result<()> {
    let folder = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(folder)?;
    let mut file = tempfile::NamedTempFile::new_in(folder)?;
    std::io::Write::write_all(&mut file, content)?;
    file.as_file().sync_all()?;
    file.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot replace `{}`", path.display()))?;
    Ok(())
}
