//! The results CSV an import appends to: its existing rows read for the runs
//! and file hashes they hold, columns matched by name, the new rows added,
//! and the file replaced atomically.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result};

use super::{FileReport, ImportOptions, Pending, Summary, existing};
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
    let Layout { old, extra, header, seen, runs } = layout(&file, &items)?;
    let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
    if old.is_none() {
        writer.write_record(&header)?;
    }
    let name = file.relative.display().to_string();
    let mut rows = Rows { header, runs, seen, now: BTreeMap::new(), twins: Vec::new() };
    let mut added = 0;
    for item in items {
        let skipped = skip_reason(&item, &rows.seen, &mut rows.now, &file.relative, summary);
        let count = match skipped {
            Some(_) => {
                summary.skipped.push(item.file.clone());
                0
            }
            None => rows.write(&item, &mut writer, environments)?,
        };
        added += count;
        let (file, source, target) = (item.file, item.source, name.clone());
        summary.files.push(FileReport { file, source, target, rows: count, skipped });
    }
    if !rows.twins.is_empty() {
        summary.warnings.push(same_bytes(&file.relative, &rows.twins, options.dry_run));
    }
    let new_text = String::from_utf8(writer.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?)?;
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

/// What the rows of one results file are appended against.
struct Rows {
    /// The header after the import.
    header: Vec<String>,
    /// The highest run per configuration.
    runs: existing::Runs,
    /// The files the results file holds rows of.
    seen: existing::Imported,
    /// What identifies a file is its source and its content: the same bytes
    /// from another file are other runs, and a file given twice counts once.
    now: BTreeMap<(String, String), usize>,
    /// Sources of files imported whose bytes another source has too.
    twins: Vec<String>,
}

impl Rows {
    /// Write the rows of `item`, numbered, counting them per environment;
    /// how many.
    fn write(
        &mut self,
        item: &Pending,
        writer: &mut csv::Writer<Vec<u8>>,
        environments: &mut BTreeMap<String, usize>,
    ) -> Result<usize> {
        let other =
            |(source, hash): &(String, String)| *hash == item.hash && *source != item.source;
        if self.seen.values().any(|h| h.contains_key(&item.hash)) || self.now.keys().any(other) {
            self.twins.push(item.source.clone());
        }
        let mut count = 0;
        for (env, record) in numbered(item, &self.header, &mut self.runs) {
            if let Some(env) = env {
                *environments.entry(env).or_default() += 1;
            }
            writer.write_record(&record)?;
            count += 1;
        }
        Ok(count)
    }
}

/// Why `item` adds no row, if it adds none: the target holds rows of its
/// source with its content (`seen`), or the same file was met before in
/// this import (`now`). A source whose content changed since it was
/// imported is imported again, with a warning.
fn skip_reason(
    item: &Pending,
    seen: &existing::Imported,
    now: &mut BTreeMap<(String, String), usize>,
    relative: &Path,
    summary: &mut Summary,
) -> Option<String> {
    let hashes = seen.get(&item.source);
    if let Some(line) = hashes.and_then(|h| h.get(&item.hash)) {
        return Some(format!(
            "already imported: {}:{line} has a row from source `{}` with the same content (sha256 {})",
            relative.display(),
            item.source,
            &item.hash[..12.min(item.hash.len())]
        ));
    }
    let first = *now.entry((item.source.clone(), item.hash.clone())).or_insert(item.input);
    if first != item.input {
        return Some(format!("given twice: source `{}` was read once already", item.source));
    }
    if let Some(line) = hashes.and_then(|h| h.values().min()) {
        summary.warnings.push(
            Diagnostic::new(
                Location::new(relative, *line, 1),
                format!(
                    "`{}` was imported before with other content: its runs are added again as new runs",
                    item.source
                ),
            )
            .hint("if the file only grew, remove its earlier rows from the results file (their `source` names it), then import again"),
        );
    }
    None
}

/// The note that files with the same bytes as others, from other sources,
/// were (or would be) imported each as runs of their own.
fn same_bytes(relative: &Path, sources: &[String], dry_run: bool) -> Diagnostic {
    let verb = if dry_run { "would be" } else { "were" };
    let shown = crate::diagnostic::list(sources.iter().take(3).map(String::as_str));
    let more = sources.len().saturating_sub(3);
    let more = if more > 0 { format!(" and {more} more") } else { String::new() };
    Diagnostic::new(
        Location::file(relative),
        format!(
            "{} {} the same bytes as another file of other source: each {verb} imported as runs of its own ({shown}{more})",
            sources.len(),
            if sources.len() == 1 { "file holds" } else { "files hold" },
        ),
    )
    .hint("short outputs of different runs often print the same bytes, and each is a run; if one file was given twice by two paths, remove one's rows (their `source` names it)")
}

/// The columns of a results file before and after an import, and what it holds.
struct Layout {
    /// The header of the file, if it exists.
    old: Option<Vec<String>>,
    /// The importer's columns that the file lacks.
    extra: Vec<String>,
    /// The header after the import.
    header: Vec<String>,
    /// The files already imported.
    seen: existing::Imported,
    /// The highest run per configuration.
    runs: existing::Runs,
}

/// The layout of `file` when `items` are appended: its header, with the
/// importer's columns it lacks added at the end; a new file gets every
/// column of the items, in their order.
fn layout(file: &existing::Target, items: &[Pending]) -> Result<Layout> {
    // A column that only later files have goes before the provenance columns.
    let mut columns: Vec<String> = Vec::new();
    for c in items.iter().flat_map(|i| &i.columns) {
        if !columns.contains(c) {
            let provenance = ["run_in_file", "source", "source_sha256"];
            let at = columns.iter().position(|c| provenance.contains(&c.as_str()));
            let at = at.filter(|_| !provenance.contains(&c.as_str()));
            columns.insert(at.unwrap_or(columns.len()), c.clone());
        }
    }
    let Some(bytes) = &file.bytes else {
        let (seen, runs) = (BTreeMap::new(), BTreeMap::new());
        return Ok(Layout { old: None, extra: Vec::new(), header: columns, seen, runs });
    };
    let config = items.first().map(|i| i.config.clone()).unwrap_or_default();
    let e = existing::read(&file.relative, bytes, &config)?;
    let extra: Vec<String> = columns.into_iter().filter(|c| !e.header.contains(c)).collect();
    let header = e.header.iter().chain(&extra).cloned().collect();
    Ok(Layout { old: Some(e.header), extra, header, seen: e.imported, runs: e.runs })
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

/// The rows of `item` in the order of `header`, each with its environment
/// (for counting), with run numbers and the file hash in place.
fn numbered(
    item: &Pending,
    header: &[String],
    runs: &mut existing::Runs,
) -> Vec<(Option<String>, Vec<String>)> {
    let position = |name: &str| item.columns.iter().position(|c| c == name);
    let (run_at, hash_at) = (position("run"), position("source_sha256"));
    let order: Vec<Option<usize>> = header.iter().map(|h| position(h)).collect();
    let mut out = Vec::new();
    for run in &item.runs {
        let number = next_run(runs, &run.config, run.given).to_string();
        for row in &run.rows {
            let mut row = row.clone();
            for (at, value) in [(run_at, &number), (hash_at, &item.hash)] {
                if let Some(cell) = at.and_then(|i| row.get_mut(i)) {
                    cell.clone_from(value);
                }
            }
            let record = order.iter().map(|i| i.map(|i| row[i].clone()).unwrap_or_default());
            out.push((run.env.clone(), record.collect()));
        }
    }
    out
}

/// The run number: from the path, or one more than the highest so far for
/// this configuration.
fn next_run(runs: &mut existing::Runs, config: &[String], given: Option<u64>) -> u64 {
    let highest = runs.entry(config.to_vec()).or_insert(0);
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
