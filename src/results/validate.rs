//! Whole-table checks: known environments and unique runs.

use rayon::prelude::*;

use super::{CHUNK_ROWS, Chunks, Column, Table, Values};
use crate::config::{Config, Dataset};
use crate::diagnostic::{Diagnostic, Diagnostics, Location, MAX_QUOTED_CHARS, excerpt, suggest};
use crate::project::SourceFile;

/// Most duplicate runs, unknown environments or bad counts reported per file.
pub(super) const MAX_SHOWN: usize = 50;

/// Check a parsed table against the study: every environment is declared in
/// book.toml, node and process counts are positive whole numbers, and no run
/// appears twice.
pub(super) fn validate(
    table: &Table,
    dataset: &Dataset,
    config: &Config,
    file: &SourceFile,
) -> Diagnostics {
    let mut errors = Diagnostics::default();
    environments(table, config, file, &mut errors);
    super::counts::check(table, dataset, config, file, &mut errors);
    duplicates(table, dataset, file, &mut errors);
    errors
}

/// Rows whose environment book.toml does not declare.
fn environments(table: &Table, config: &Config, file: &SourceFile, errors: &mut Diagnostics) {
    let env_column = &config.study.environment_column;
    let Some(Values::Text(envs)) = table.column(env_column).map(|c| &c.values) else { return };
    let known = config.environments.keys().map(String::as_str);
    let index = table.columns.iter().position(|c| &c.name == env_column).unwrap_or(0);
    let unknown: Vec<u32> = (0..envs.words.len() as u32)
        .filter(|&c| !config.environments.contains_key(&envs.words[c as usize]))
        .collect();
    let rows = first_rows(&envs.codes, |code| unknown.contains(&code));
    // The file is read again for the columns: this is the error path.
    let wanted: Vec<(u64, usize)> =
        rows.iter().map(|&row| (u64::from(table.lines.get(row)), index)).collect();
    for (&row, (line, column)) in rows.iter().zip(super::read::locate(file, &wanted)) {
        let env = envs.get(row);
        let shown = excerpt(env, MAX_QUOTED_CHARS);
        errors.push(
            Diagnostic::new(
                Location::new(&file.path, line as usize, column),
                format!("unknown environment `{shown}`"),
            )
            .hint(format!(
                "declare it as [environments.{shown}] in book.toml, or fix the name: {}",
                suggest(env, known.clone())
            )),
        );
    }
}

/// The first [`MAX_SHOWN`] rows of `values` (chunk by chunk) that pass `bad`.
pub(super) fn first_rows<T: bytemuck::Pod>(
    values: &Chunks<T>,
    bad: impl Fn(T) -> bool,
) -> Vec<usize> {
    let mut rows: Vec<usize> = Vec::new();
    for i in 0..values.chunk_count() {
        let chunk = values.chunk(i);
        let found =
            chunk.iter().enumerate().filter(|(_, v)| bad(**v)).map(|(r, _)| i * CHUNK_ROWS + r);
        rows.extend(found.take(MAX_SHOWN - rows.len()));
        if rows.len() == MAX_SHOWN {
            break;
        }
    }
    rows
}

/// Rows with the same values in every `key` column.
fn duplicates(table: &Table, dataset: &Dataset, file: &SourceFile, errors: &mut Diagnostics) {
    if dataset.key.is_empty() {
        return;
    }
    let columns: Vec<&Column> = dataset.key.iter().filter_map(|k| table.column(k)).collect();
    // Each row is hashed on compact key parts (a number's bits, a text's code);
    // sorting the rows by hash (high 32 bits) and row number (low 32 bits)
    // brings equal keys together, in row order, without allocating per row or
    // probing a table at random. Rows whose hashes merely collide are told
    // apart by comparing their keys.
    let bits = (table.len() >> 19).next_power_of_two().trailing_zeros().clamp(4, 6);
    let runs = hashed_rows(table, &columns, bits);
    let same = |a: u32, b: u32| {
        columns.iter().all(|c| c.values.key_bits(a as usize) == c.values.key_bits(b as usize))
    };
    // Per part, the number of repeated rows, and the first repeats (row, first row with its key).
    let found: Vec<(usize, Vec<(u32, u32)>)> = (0..1usize << bits)
        .into_par_iter()
        .map(|part| {
            let mut hashed: Vec<u64> = runs.iter().flat_map(|parts| parts[part].to_vec()).collect();
            hashed.sort_unstable();
            repeats(&hashed, same)
        })
        .collect();
    let total: usize = found.iter().map(|(count, _)| count).sum();
    let mut repeated: Vec<(u32, u32)> =
        found.into_iter().flat_map(|(_, repeated)| repeated).collect();
    repeated.sort_unstable();
    report_duplicates(table, &columns, file, &repeated, total, errors);
}

/// Every row's hash entry (hash in the high 32 bits, row in the low 32), per
/// core a run of the table's chunks, each run's entries in `1 << bits` parts
/// by the hash's top bits.
///
/// foldhash's quality hasher mixes every input bit into the high bits kept
/// (FxHash leaves them nearly constant for small numbers); fixed seed, so
/// deterministic. The 16 to 64 parts hold about half a million rows each, in
/// chunks that leave memory past the budget; each part is then sorted on its
/// own, keeping its first repeats.
fn hashed_rows(table: &Table, columns: &[&Column], bits: u32) -> Vec<Vec<Chunks<u64>>> {
    let (chunks, cores) = (table.lines.chunk_count(), rayon::current_num_threads().max(1));
    (0..cores)
        .into_par_iter()
        .map(|core| {
            let mut parts: Vec<Chunks<u64>> =
                (0..1 << bits).map(|_| Chunks::new(table.lines.store())).collect();
            for i in chunks * core / cores..chunks * (core + 1) / cores {
                let keys: Vec<Vec<u64>> = columns.iter().map(|c| c.values.chunk_bits(i)).collect();
                for r in 0..keys.first().map_or(0, Vec::len) {
                    use std::hash::{BuildHasher, Hasher};
                    let mut hasher = foldhash::quality::FixedState::with_seed(0).build_hasher();
                    keys.iter().for_each(|k| hasher.write_u64(k[r]));
                    let hash = hasher.finish();
                    parts[(hash >> (64 - bits)) as usize]
                        .push((hash & !0xFFFF_FFFF) | (i * CHUNK_ROWS + r) as u64);
                }
            }
            parts
        })
        .collect()
}

/// In sorted hash entries, the number of rows whose key (by `same`) an
/// earlier row has, and those rows, as (row, first row with its key): all of
/// the first [`MAX_SHOWN`] in row order, perhaps a few more.
fn repeats(hashed: &[u64], same: impl Fn(u32, u32) -> bool) -> (usize, Vec<(u32, u32)>) {
    let (mut count, mut repeated) = (0, Vec::new());
    for run in hashed.chunk_by(|a, b| a >> 32 == b >> 32).filter(|run| run.len() > 1) {
        let mut firsts: Vec<u32> = Vec::new();
        for row in run.iter().map(|&h| h as u32) {
            match firsts.iter().find(|&&first| same(first, row)) {
                Some(&first) => {
                    count += 1;
                    repeated.push((row, first));
                    if repeated.len() > 2 * MAX_SHOWN {
                        repeated.sort_unstable();
                        repeated.truncate(MAX_SHOWN);
                    }
                }
                None => firsts.push(row),
            }
        }
    }
    (count, repeated)
}

/// An error for each of the first [`MAX_SHOWN`] `repeated` rows (sorted),
/// naming its key and the line of its first run, and a count of the rest of
/// the `total`.
fn report_duplicates(
    table: &Table,
    columns: &[&Column],
    file: &SourceFile,
    repeated: &[(u32, u32)],
    total: usize,
    errors: &mut Diagnostics,
) {
    for &(row, first) in repeated.iter().take(MAX_SHOWN) {
        let described: Vec<String> = columns
            .iter()
            .map(|c| {
                format!(
                    "{} = {}",
                    c.name,
                    excerpt(&c.values.text_at(row as usize), MAX_QUOTED_CHARS)
                )
            })
            .collect();
        errors.push(
            Diagnostic::new(
                Location::new(&file.path, table.lines.get(row as usize) as usize, 1),
                format!(
                    "duplicate run ({}), first seen on line {}",
                    described.join(", "),
                    table.lines.get(first as usize)
                ),
            )
            .hint("each run appears once; renumber the run or delete the repeated row"),
        );
    }
    if total > MAX_SHOWN {
        errors.push(Diagnostic::new(
            Location::file(&file.path),
            format!("{} more duplicate runs not shown", total - MAX_SHOWN),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(envs: &[&str], runs: &[f64]) -> Table {
        Table {
            name: "t".into(),
            path: "results/t.csv".into(),
            columns: vec![
                Column { name: "environment".into(), values: Values::Text(envs.iter().collect()) },
                Column { name: "run".into(), values: Values::numbers_of(runs) },
            ],
            lines: (2..2 + runs.len() as u32).collect(),
        }
    }

    fn found(table: &Table) -> Vec<String> {
        let dataset =
            Dataset { key: vec!["environment".into(), "run".into()], ..Dataset::default() };
        let file = SourceFile::new("results/t.csv", Vec::new());
        let mut errors = Diagnostics::default();
        duplicates(table, &dataset, &file, &mut errors);
        errors.0.iter().map(|d| format!("{}: {}", d.location, d.message)).collect()
    }

    #[test]
    fn repeated_runs_name_their_first_line_in_file_order() {
        let t = table(&["a", "b", "a", "a", "a", "b"], &[1.0, 1.0, 1.0, 2.0, 1.0, 2.0]);
        assert_eq!(
            found(&t),
            [
                "results/t.csv:4:1: duplicate run (environment = a, run = 1), first seen on line 2",
                "results/t.csv:6:1: duplicate run (environment = a, run = 1), first seen on line 2",
            ]
        );
    }

    #[test]
    fn distinct_runs_are_never_called_repeats() {
        // 300,000 distinct keys: hashes cut to 32 bits collide about ten times here.
        let n = 300_000;
        let envs: Vec<&str> = (0..n).map(|i| ["a", "b", "c"][i % 3]).collect();
        let runs: Vec<f64> = (0..n).map(|i| (i / 3) as f64).collect();
        assert_eq!(found(&table(&envs, &runs)), Vec::<String>::new());
    }

    #[test]
    fn many_repeats_are_capped() {
        let envs = vec!["a"; 61];
        let t = table(&envs, &[7.0; 61]);
        let errors = found(&t);
        assert_eq!(errors.len(), MAX_SHOWN + 1);
        assert_eq!(
            errors[0],
            "results/t.csv:3:1: duplicate run (environment = a, run = 7), first seen on line 2"
        );
        assert_eq!(errors[MAX_SHOWN], "results/t.csv: 10 more duplicate runs not shown");
    }
}
