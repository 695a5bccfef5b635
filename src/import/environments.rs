//! Environments of imported rows that the study's book.toml does not
//! declare: a build would refuse those rows, so the import says so at once,
//! naming the section to add.

use std::collections::BTreeMap;
use std::path::Path;

use crate::diagnostic::{Diagnostic, Location};

/// One warning per environment of `rows` (environment → rows imported) that
/// book.toml of the study at `root` does not declare. A study without a
/// book.toml, or with one that does not parse, is not checked (the build
/// reports that file's errors).
pub(super) fn undeclared(root: &Path, rows: &BTreeMap<String, usize>) -> Vec<Diagnostic> {
    let book = Path::new("book.toml");
    let Ok(bytes) = crate::project::read_regular(&root.join(book)) else { return Vec::new() };
    let Ok(text) = String::from_utf8(bytes) else { return Vec::new() };
    let Ok(config) = crate::config::parse(book, &text) else { return Vec::new() };
    let declared = crate::diagnostic::list(config.environments.keys().map(String::as_str));
    rows.iter()
        .filter(|(env, _)| !config.environments.contains_key(*env))
        .map(|(env, count)| {
            let rows = if *count == 1 { "1 imported row".to_string() } else { format!("{count} imported rows") };
            Diagnostic::new(
                Location::file(book),
                format!("environment `{env}` of {rows} is not declared in book.toml (declared: {declared})"),
            )
            .hint(format!(
                "add a section `[environments.{}]` with a `label` to book.toml, or the build refuses these rows",
                section_key(env)
            ))
        })
        .collect()
}

/// `name` as a TOML key: bare when it can be, else a quoted string.
fn section_key(name: &str) -> String {
    let bare =
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if bare { name.to_string() } else { toml::Value::String(name.to_string()).to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn each_undeclared_environment_is_one_warning_with_its_section() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("book.toml"), "[book]\ntitle = \"t\"\n\n[study]\nbaseline = \"a\"\n\n[environments.a]\nlabel = \"A\"\n").unwrap();
        let rows = BTreeMap::from([
            ("a".to_string(), 3),
            ("b c".to_string(), 1),
            ("usernetes".to_string(), 80),
        ]);
        let warnings = undeclared(dir.path(), &rows);
        let got: Vec<(&str, Option<&str>)> =
            warnings.iter().map(|w| (w.message.as_str(), w.hint.as_deref())).collect();
        assert_eq!(
            got,
            [
                (
                    "environment `b c` of 1 imported row is not declared in book.toml (declared: `a`)",
                    Some(
                        "add a section `[environments.\"b c\"]` with a `label` to book.toml, or the build refuses these rows"
                    )
                ),
                (
                    "environment `usernetes` of 80 imported rows is not declared in book.toml (declared: `a`)",
                    Some(
                        "add a section `[environments.usernetes]` with a `label` to book.toml, or the build refuses these rows"
                    )
                ),
            ]
        );
        assert!(undeclared(&dir.path().join("nowhere"), &rows).is_empty());
    }
}
