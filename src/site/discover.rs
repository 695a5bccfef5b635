//! Which studies a site holds and where each is published: those site.toml
//! lists (`studies`), each checked at its entry, else every folder below
//! site.toml that holds a book.toml, in path order.

use std::collections::BTreeSet;
use std::path::Path;

use super::config::SiteConfig;
use super::place::join;
use super::study::Study;
use crate::diagnostic::{Diagnostic, Diagnostics, Location};

/// Folders never searched for studies: hidden ones, build output, packages,
/// and the input folders of a study.
const SKIPPED: [&str; 7] =
    ["target", "node_modules", "content", "results", "templates", "fonts", "site"];

/// How deep below site.toml a study is looked for.
const DEPTH: usize = 4;

/// The studies of the site at `root`, whose site.toml (`path`, `text`) is
/// `config`; `out` is the output folder, never searched.
pub fn studies(
    root: &Path,
    config: &SiteConfig,
    (path, text): (&Path, &str),
    out: &Path,
) -> Result<Vec<Study>, Diagnostics> {
    let Some(listed) = &config.studies else { return Ok(found(root, out)) };
    let mut errors = Diagnostics::default();
    let mut studies = Vec::new();
    let mut urls = BTreeSet::new();
    for entry in listed {
        let at = Location::at_offset(path, text, entry.span().start);
        match placed(root, entry.get_ref()) {
            Ok(study) if !urls.insert(study.url.clone()) => errors.push(
                Diagnostic::new(at, format!("two studies are published under `{}`", study.url))
                    .hint("give one of them another path: `{ path = \"…\", url = \"…\" }`"),
            ),
            Ok(study) => studies.push(study),
            Err((message, hint)) => errors.push(Diagnostic::new(at, message).hint(hint)),
        }
    }
    if studies.is_empty() && errors.is_empty() {
        let at = Location::file(path);
        errors.push(Diagnostic::new(at, "the site lists no study").hint("list the folders of its book.toml files in `studies`, or leave `studies` out to take every one below site.toml"));
    }
    errors.into_result(studies)
}

/// One listed study, or what is wrong with it and how to fix it.
fn placed(root: &Path, entry: &super::config::StudyEntry) -> Result<Study, (String, String)> {
    let written = entry.path();
    let folder = join("", written).ok_or_else(|| {
        (
            format!("`{written}` leads out of the site"),
            "a study of the site is a folder below site.toml".to_string(),
        )
    })?;
    let book = if folder.is_empty() {
        root.join("book.toml")
    } else {
        root.join(&folder).join("book.toml")
    };
    if !book.is_file() {
        return Err((
            format!("`{written}` holds no book.toml"),
            "each study is the folder of its book.toml, relative to site.toml".to_string(),
        ));
    }
    let url = match entry.url() {
        Some(url) => url.trim_matches('/').to_string(),
        None if folder.is_empty() => {
            return Err((
                "the study of site.toml's own folder needs a path to be published under"
                    .to_string(),
                "write it as `{ path = \".\", url = \"NAME\" }`: the site's index is the root"
                    .to_string(),
            ));
        }
        None => folder.clone(),
    };
    let safe = |s: &str| {
        !s.is_empty()
            && s != "."
            && s != ".."
            && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    };
    if !url.split('/').all(safe) {
        return Err((
            format!("`{url}` is no path to publish a study under"),
            "a path of letters, digits, `-`, `_` and `.`, such as `mpi-kubernetes` or `examples/usernetes`".to_string(),
        ));
    }
    Ok(Study { folder, url: format!("{url}/") })
}

/// Every folder below `root` holding a book.toml (not `root` itself), in path order.
fn found(root: &Path, out: &Path) -> Vec<Study> {
    let walk = walkdir::WalkDir::new(root).min_depth(1).max_depth(DEPTH).sort_by_file_name();
    let wanted = |e: &walkdir::DirEntry| {
        let name = e.file_name().to_string_lossy();
        e.file_type().is_dir()
            && !name.starts_with('.')
            && !SKIPPED.contains(&name.as_ref())
            && e.path() != out
    };
    walk.into_iter()
        .filter_entry(wanted)
        .filter_map(Result::ok)
        .filter(|e| e.path().join("book.toml").is_file())
        .filter_map(|e| {
            let relative = e.path().strip_prefix(root).ok()?;
            let folder = relative.to_string_lossy().replace('\\', "/");
            Some(Study { url: format!("{folder}/"), folder })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_studies_are_checked_at_their_entry() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a")).unwrap();
        std::fs::write(dir.path().join("a/book.toml"), "").unwrap();
        std::fs::write(dir.path().join("book.toml"), "").unwrap();
        let text = "[site]\ntitle = \"T\"\nstudies = [\"a\", \"b\", \".\", { path = \".\", url = \"a\" }]\n";
        let config = super::super::config::parse(Path::new("site.toml"), text).unwrap().site;
        let err =
            studies(dir.path(), &config, (Path::new("site.toml"), text), &dir.path().join("site"))
                .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("site.toml:3:17: `b` holds no book.toml"), "{text}");
        assert!(
            text.contains("site.toml:3:22: the study of site.toml's own folder needs a path"),
            "{text}"
        );
        assert!(text.contains("site.toml:3:27: two studies are published under `a/`"), "{text}");
    }

    #[test]
    fn unlisted_studies_are_every_book_below() {
        let dir = tempfile::tempdir().unwrap();
        for folder in ["b", "a/c", "a/content/x", ".hidden", "site/y"] {
            std::fs::create_dir_all(dir.path().join(folder)).unwrap();
            std::fs::write(dir.path().join(folder).join("book.toml"), "").unwrap();
        }
        let found = found(dir.path(), &dir.path().join("site"));
        let folders: Vec<&str> = found.iter().map(|s| s.folder.as_str()).collect();
        assert_eq!(folders, ["a/c", "b"]);
    }
}
