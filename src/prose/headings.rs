//! The headings of a computed table (docs/tables.md): a column by its
//! label's name, capitalised (`Compressor`), and a level as a reader reads
//! it (`Level 1`, `1 MiB`, `32 processes`, an environment's label), its
//! unit in the heading rather than in every cell (`Level 1 (s)`).

use super::capitalised;
use super::labels::Labels;

/// `column` of the results file `file` as a heading: its label's name,
/// else its id with `_` as spaces; capitalised.
pub fn column(labels: &Labels, file: &str, column: &str) -> String {
    let name = labels.name(file, column).unwrap_or_else(|| column.replace('_', " "));
    capitalised(&name)
}

/// A level of `factor` as a heading: its label in `levels`, an
/// environment's label, a value with its unit (`1 MiB`, `32 processes`),
/// else the factor's heading and the value (`Level 1`).
pub fn level(labels: &Labels, file: &str, factor: &str, level: &str) -> String {
    if labels.level_label(file, factor, level).is_some() || labels.unit(file, factor).is_some() {
        return labels.value(file, factor, level);
    }
    if factor == labels.environment_column() {
        return labels.environment(level);
    }
    match level.chars().any(char::is_alphabetic) {
        true => level.to_string(),
        // Unbreakable: a narrow column keeps `Level 1` on one line.
        false => format!("{}\u{a0}{level}", column(labels, file, factor)),
    }
}

/// `heading` with the `unit` its cells leave out: `Level 1 (s)`.
pub fn with_unit(heading: &str, unit: Option<&str>) -> String {
    match unit.map(str::trim).filter(|u| !u.is_empty()) {
        // Unbreakable: the unit stays with its heading's last word.
        Some(unit) => format!("{heading}\u{a0}({unit})"),
        None => heading.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels() -> Labels {
        let toml = r#"
[book]
title = "T"
[study]
baseline = "gzip"
[environments.gzip]
label = "GNU gzip"
[data.runs.labels]
environment = { name = "compressor" }
size = { unit = "bytes" }
procs = { unit = "processes" }
level = { levels = { "19" = "Level 19 (smallest)" } }
"#;
        Labels::new(&crate::config::parse(std::path::Path::new("book.toml"), toml).unwrap())
    }

    #[test]
    fn headings_name_columns_and_levels_in_words() {
        let l = labels();
        assert_eq!(column(&l, "runs", "environment"), "Compressor");
        assert_eq!(column(&l, "runs", "size_mb"), "Size mb");
        assert_eq!(level(&l, "runs", "level", "1"), "Level\u{a0}1");
        assert_eq!(level(&l, "runs", "level", "19"), "Level 19 (smallest)");
        assert_eq!(level(&l, "runs", "procs", "32"), "32 processes");
        assert_eq!(level(&l, "runs", "size", "1048576"), "1 MiB");
        assert_eq!(level(&l, "runs", "environment", "gzip"), "GNU gzip");
        assert_eq!(level(&l, "runs", "pattern", "alternation"), "alternation");
        assert_eq!(with_unit("Level 1", Some("s")), "Level 1\u{a0}(s)");
        assert_eq!(with_unit("Level 1", None), "Level 1");
    }
}
