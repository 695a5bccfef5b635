//! Whole-table checks: known environments and unique runs.

use std::collections::BTreeMap;

use super::{Table, Values};
use crate::config::{Config, Dataset};
use crate::diagnostic::{Diagnostic, Diagnostics, Location, suggest};
use crate::project::SourceFile;

/// Check a parsed table against the study: every environment is declared in
/// book.toml and no run appears twice.
pub(super) fn validate(table: &Table, dataset: &Dataset, config: &Config, file: &SourceFile) -> Diagnostics {
    let mut errors = Diagnostics::default();
    let env_column = &config.study.environment_column;
    if let Some(Values::Text(envs)) = table.column(env_column).map(|c| &c.values) {
        let known = config.environments.keys().map(String::as_str);
        let index = table.columns.iter().position(|c| &c.name == env_column).unwrap_or(0);
        let unknown: Vec<u32> = (0..envs.words.len() as u32).filter(|&c| !config.environments.contains_key(&envs.words[c as usize])).collect();
        for (row, code) in envs.codes.iter().enumerate().filter(|(_, c)| unknown.contains(c)) {
            let env = &envs.words[*code as usize];
            {
                let (line, column) = super::parse::position(&file.bytes, table.lines[row], index);
                errors.push(
                    Diagnostic::new(Location::new(&file.path, line as usize, column), format!("unknown environment `{env}`"))
                        .hint(format!("declare it as [environments.{env}] in book.toml, or fix the name: {}",
                            suggest(env, known.clone()))),
                );
            }
            if errors.0.len() >= 50 {
                break;
            }
        }
    }
    duplicates(table, dataset, file, &mut errors);
    errors
}

/// Rows with the same values in every `key` column.
fn duplicates(table: &Table, dataset: &Dataset, file: &SourceFile, errors: &mut Diagnostics) {
    if dataset.key.is_empty() {
        return;
    }
    let columns: Vec<_> = dataset.key.iter().filter_map(|k| table.column(k)).collect();
    let mut seen: BTreeMap<Vec<String>, u64> = BTreeMap::new();
    for row in 0..table.len() {
        let key: Vec<String> = columns.iter().map(|c| c.values.text_at(row)).collect();
        let line = table.lines[row];
        if let Some(first) = seen.get(&key) {
            let described: Vec<String> =
                columns.iter().zip(&key).map(|(c, v)| format!("{} = {v}", c.name)).collect();
            errors.push(
                Diagnostic::new(Location::new(&file.path, line as usize, 1),
                    format!("duplicate run ({}), first seen on line {first}", described.join(", ")))
                    .hint("each run appears once; renumber the run or delete the repeated row"),
            );
        } else {
            seen.insert(key, line);
        }
    }
}
