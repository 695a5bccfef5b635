//! The results CSV an import appends to: its existing rows read for the runs
//! and file hashes they hold, the new rows added, and the file replaced
//! atomically.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use anyhow::{Context, Result};

use super::{ImportOptions, Pending, Summary, Tool, existing};

/// Append the new rows of one results file of the study at `root`
/// (canonical), skipping files already imported. The file is checked and
/// read whole first ([`existing::locate`], [`existing::read`]): a file that
/// cannot be read or appended to stops the import, named at its line, and
/// is left as it was.
pub(super) fn append(
    options: &ImportOptions,
    root: &Path,
    target: &str,
    items: Vec<Pending>,
    summary: &mut Summary,
) -> Result<()> {
    let file = existing::locate(root, target)?;
    let header = items[0].header.clone();
    let (mut seen, mut runs) = match &file.bytes {
        Some(bytes) => existing::read(&file.relative, bytes, &header)?,
        None => (BTreeSet::new(), BTreeMap::new()),
    };
    let mut writer = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
    if file.bytes.is_none() {
        writer.write_record(&header)?;
    }
    let mut added = 0;
    for item in items {
        if !seen.insert(item.hash.clone()) {
            summary.skipped.push(item.source.clone());
            continue;
        }
        let source = relative(root, &item.source);
        for record in rows_of(&item, options, &mut runs) {
            let mut full = record;
            full.push(source.clone());
            full.push(item.hash.clone());
            writer.write_record(&full)?;
            added += 1;
        }
    }
    let new_text = String::from_utf8(writer.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?)?;
    let name = file.relative.display().to_string();
    if added > 0 {
        summary.added.insert(name.clone(), added);
    }
    if options.dry_run {
        summary.preview.insert(name, new_text);
        return Ok(());
    }
    if added == 0 {
        return Ok(());
    }
    let mut content = file.bytes.unwrap_or_default();
    if !content.is_empty() && !content.ends_with(b"\n") {
        content.push(b'\n');
    }
    content.extend_from_slice(new_text.as_bytes());
    write_atomically(&file.path, &content)
}

/// Rows of one file with labels and run numbers in place.
fn rows_of(item: &Pending, options: &ImportOptions, runs: &mut existing::Runs) -> Vec<Vec<String>> {
    let env = item.labels.env.clone().unwrap_or_default();
    let nodes = item.labels.nodes.map(|n| n.to_string()).unwrap_or_default();
    match options.tool {
        Tool::Lammps => {
            let procs = item.rows[0][0].clone();
            let run = next_run(runs, &env, &nodes, &procs, item.labels.run);
            let mut row = vec![env, nodes];
            row.extend(item.rows[0][..3].iter().cloned());
            row.push(run.to_string());
            row.extend(item.rows[0][3..].iter().cloned());
            vec![row]
        }
        Tool::Osu => {
            let procs = item.labels.procs.or(options.procs).unwrap_or(2).to_string();
            let tables = item.rows.iter().map(|r| r[0].clone()).collect::<BTreeSet<_>>().len();
            let mut numbers: BTreeMap<String, u64> = BTreeMap::new();
            item.rows
                .iter()
                .map(|r| {
                    let label = if tables == 1 { item.labels.run } else { None };
                    let run = *numbers
                        .entry(r[0].clone())
                        .or_insert_with(|| next_run(runs, &env, &nodes, &procs, label));
                    vec![
                        env.clone(),
                        nodes.clone(),
                        procs.clone(),
                        run.to_string(),
                        r[1].clone(),
                        r[2].clone(),
                        r[3].clone(),
                    ]
                })
                .collect()
        }
    }
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

fn relative(root: &Path, path: &Path) -> String {
    let absolute = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    absolute
        .strip_prefix(&root)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
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
