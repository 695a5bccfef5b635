//! Whole-table checks: known environments and unique runs.

use rayon::prelude::*;

use super::flagged::{MAX_SHOWN, count, first_rows, locations};
use super::{Column, PART_ROWS, Table, Values, part_count};
use crate::config::{Config, Dataset};
use crate::diagnostic::group::MAX_LOCATIONS;
use crate::diagnostic::{Cause, Diagnostic, Diagnostics, MAX_QUOTED_CHARS, excerpt, list, suggest};
use crate::project::SourceFile;

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

/// Rows whose environment book.toml does not declare: one diagnostic for
/// them all, at the first, naming every unknown environment and the declared ones.
fn environments(table: &Table, config: &Config, file: &SourceFile, errors: &mut Diagnostics) {
    let env_column = &config.study.environment_column;
    let Some(Values::Text(envs)) = table.column(env_column).map(|c| &c.values) else { return };
    let unknown: Vec<bool> =
        envs.words.iter().map(|w| !config.environments.contains_key(w)).collect();
    let bad = |code: u32| unknown[code as usize];
    let rows = first_rows(&envs.codes, MAX_LOCATIONS, bad);
    let Some(&first) = rows.first() else { return };
    let index = table.columns.iter().position(|c| &c.name == env_column).unwrap_or(0);
    let places = locations(table, file, &rows, index);
    let known = config.environments.keys().map(String::as_str);
    let env = envs.get(first);
    let shown = excerpt(env, MAX_QUOTED_CHARS);
    let cause = Cause::new("unknown environment", "unknown environments {values}")
        .rows()
        .many_hint(format!(
            "add an `[environments.NAME]` section to book.toml for each, or fix the names; \
             declared: {}",
            list(known.clone())
        ));
    let values = envs.words.iter().zip(&unknown).filter(|(_, u)| **u);
    errors.push(
        Diagnostic::new(places[0].clone(), format!("unknown environment `{shown}`"))
            .hint(format!(
                "declare it as [environments.{shown}] in book.toml, or fix the name: {}",
                suggest(env, known)
            ))
            .cause(cause, shown.clone())
            .repeated(
                count(&envs.codes, bad),
                places[1..].iter().cloned(),
                values.map(|(w, _)| excerpt(w, MAX_QUOTED_CHARS).into_owned()),
            ),
    );
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
            let mut hashed: Vec<u64> =
                runs.iter().flat_map(|parts| parts[part].iter().copied()).collect();
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
/// core a run of the table's parts of rows, each run's entries in `1 << bits`
/// buckets by the hash's top bits.
///
/// foldhash's quality hasher mixes every input bit into the high bits kept
/// (FxHash leaves them nearly constant for small numbers); fixed seed, so
/// deterministic. The 16 to 64 buckets hold about half a million rows each;
/// each bucket is then sorted on its own, keeping its first repeats.
fn hashed_rows(table: &Table, columns: &[&Column], bits: u32) -> Vec<Vec<Vec<u64>>> {
    let (chunks, cores) = (part_count(table.len()), rayon::current_num_threads().max(1));
    (0..cores)
        .into_par_iter()
        .map(|core| {
            let mut parts: Vec<Vec<u64>> = (0..1 << bits).map(|_| Vec::new()).collect();
            for i in chunks * core / cores..chunks * (core + 1) / cores {
                let keys: Vec<Vec<u64>> = columns.iter().map(|c| c.values.part_bits(i)).collect();
                for r in 0..keys.first().map_or(0, Vec::len) {
                    use std::hash::{BuildHasher, Hasher};
                    let mut hasher = foldhash::quality::FixedState::with_seed(0).build_hasher();
                    keys.iter().for_each(|k| hasher.write_u64(k[r]));
                    let hash = hasher.finish();
                    parts[(hash >> (64 - bits)) as usize]
                        .push((hash & !0xFFFF_FFFF) | (i * PART_ROWS + r) as u64);
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

/// One error for the `total` repeated rows, at the first of `repeated`
/// (sorted) naming the line of its first run, with the next places and the
/// keys of the first [`MAX_SHOWN`].
fn report_duplicates(
    table: &Table,
    columns: &[&Column],
    file: &SourceFile,
    repeated: &[(u32, u32)],
    total: usize,
    errors: &mut Diagnostics,
) {
    let Some(&(row, first)) = repeated.first() else { return };
    let described = |row: u32| -> String {
        let parts: Vec<String> = columns
            .iter()
            .map(|c| {
                let value = c.values.text_at(row as usize);
                format!("{} = {}", c.name, excerpt(&value, MAX_QUOTED_CHARS))
            })
            .collect();
        parts.join(", ")
    };
    let at = |row: u32| table.location(row as usize, 1);
    let shown = &repeated[..repeated.len().min(MAX_SHOWN)];
    let cause =
        Cause::new(format!("{}\0duplicate run", file.path.display()), "duplicate runs of {values}")
            .rows()
            .many_hint(
                "each run appears once; renumber the repeated runs or delete the repeated rows",
            );
    let mut error = Diagnostic::new(
        at(row),
        format!(
            "duplicate run ({}), first seen on {}",
            described(row),
            table.place(first as usize)
        ),
    )
    .hint("each run appears once; renumber the run or delete the repeated row")
    .cause(cause, described(row))
    .repeated(
        total,
        shown.iter().take(MAX_LOCATIONS).map(|&(row, _)| at(row)),
        shown.iter().map(|&(row, _)| described(row)),
    );
    error.repeats_mut().more_values |= total > shown.len();
    errors.push(error);
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
        errors.0.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn repeated_runs_name_their_first_line_in_file_order() {
        let t = table(&["a", "b", "a", "a", "a", "b"], &[1.0, 1.0, 1.0, 2.0, 1.0, 2.0]);
        assert_eq!(
            found(&t),
            ["results/t.csv:4:1: duplicate run (environment = a, run = 1), first seen on line 2 \
              (2 rows)\n  = note: also at results/t.csv:6:1\n  = help: each run appears once; \
              renumber the run or delete the repeated row"]
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

    /// 61 rows of one key: 60 repeats, on lines 3 to 62, all counted in one
    /// error; past the 50 whose keys are read, other keys may repeat too.
    #[test]
    fn many_repeats_are_one_error_counting_them_all() {
        let envs = vec!["a"; 61];
        let t = table(&envs, &[7.0; 61]);
        assert_eq!(
            found(&t),
            ["results/t.csv:3:1: duplicate runs of `environment = a, run = 7`, … (60 rows)\n  \
              = note: also at results/t.csv:4:1 and results/t.csv:5:1, and 57 more places\n  \
              = help: each run appears once; renumber the repeated runs or delete the repeated rows"]
        );
    }

    /// Three keys repeated: one error naming each.
    #[test]
    fn repeats_of_several_keys_are_one_error_naming_them() {
        let t = table(&["a", "b", "c", "a", "b", "c", "c"], &[1.0; 7]);
        assert_eq!(
            found(&t),
            ["results/t.csv:5:1: duplicate runs of `environment = a, run = 1`, \
              `environment = b, run = 1`, `environment = c, run = 1` (4 rows)\n  \
              = note: also at results/t.csv:6:1 and results/t.csv:7:1, and 1 more place\n  \
              = help: each run appears once; renumber the repeated runs or delete the repeated rows"]
        );
    }
}
