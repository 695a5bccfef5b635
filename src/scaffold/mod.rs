//! `report new DIR`: a small study that builds right away.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// The scaffold's files: path relative to the new study, and content.
pub const FILES: [(&str, &str); 5] = [
    ("book.toml", include_str!("book.toml")),
    ("content/index.md", include_str!("index.md")),
    ("results/runs.csv", include_str!("runs.csv")),
    (
        "templates/README.md",
        "Files here replace report's built-in templates: base.html, page.html,\npartials/*.html, style.css, app.js and paper.typ.\n",
    ),
    (".gitignore", "/site\n"),
];

/// Write a new study into `dir`, which must not exist or be empty.
pub fn create(dir: &Path) -> Result<Vec<PathBuf>> {
    if dir.exists() && fs::read_dir(dir).map(|mut d| d.next().is_some()).unwrap_or(true) {
        bail!(crate::diagnostic::Diagnostics::from(
            crate::diagnostic::Diagnostic::new(
                crate::diagnostic::Location::file(dir),
                "the folder exists and is not empty"
            )
            .hint("choose a new folder name; report new never overwrites files"),
        ));
    }
    let mut written = Vec::new();
    for (relative, content) in FILES {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)
                .with_context(|| format!("cannot create `{}`", parent.display()))?;
        }
        fs::write(&path, content).with_context(|| format!("cannot write `{}`", path.display()))?;
        written.push(path);
    }
    Ok(written)
}
