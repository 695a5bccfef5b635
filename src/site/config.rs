//! `site.toml`: the portfolio's title, description, author and studies,
//! each value with the parser's span for errors. Every key is documented in
//! docs/site-toml.md.

use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::diagnostic::{Diagnostic, Diagnostics, Location};

/// The file that makes a folder a site of studies.
pub const FILE: &str = "site.toml";

/// `site.toml` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteFile {
    /// The site.
    pub site: SiteConfig,
}

/// `[site]`: what the index page, its feed and its cards say of the whole.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SiteConfig {
    /// The index page's heading and the feed's title, such as `"Benchmarks
    /// by Ada"`.
    pub title: String,
    /// One or two sentences under the title; also the index's description
    /// for search engines and shared links.
    pub description: Option<String>,
    /// Who wrote the studies: the feed's author and the index's byline.
    pub author: Option<String>,
    /// The studies, as folders relative to site.toml: `"examples/usernetes"`,
    /// or `{ path = ".", url = "mpi-kubernetes" }` to publish a study under
    /// another path (required for the folder of site.toml itself). Default:
    /// every folder below that holds a book.toml, in path order.
    pub studies: Option<Vec<Spanned<StudyEntry>>>,
    /// The site's public URL, such as `"https://ada.github.io/benchmarks/"`:
    /// the feed's links and the shared cards' images are absolute under it
    /// (`--base-url` overrides it). Without it they are relative.
    pub base_url: Option<String>,
    /// Output folder, relative to site.toml (default `"site"`).
    pub out: Option<String>,
}

/// One study of `studies`: a folder, or a folder and the path it is published under.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum StudyEntry {
    /// A folder holding a book.toml, published under the same path.
    Path(String),
    /// A folder and the path it is published under.
    Placed(Placed),
}

/// `{ path = ".", url = "mpi-kubernetes" }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placed {
    /// The study's folder, relative to site.toml.
    pub path: String,
    /// The path it is published under in the site, such as `"mpi-kubernetes"`.
    pub url: String,
}

impl StudyEntry {
    /// The study's folder as written.
    pub fn path(&self) -> &str {
        match self {
            StudyEntry::Path(p) => p,
            StudyEntry::Placed(p) => &p.path,
        }
    }

    /// The path it is published under, if given.
    pub fn url(&self) -> Option<&str> {
        match self {
            StudyEntry::Path(_) => None,
            StudyEntry::Placed(p) => Some(&p.url),
        }
    }
}

/// Parse `text`, the site.toml at `path` (as errors name it).
pub fn parse(path: &Path, text: &str) -> Result<SiteFile, Diagnostics> {
    toml::from_str::<SiteFile>(text).map_err(|err| {
        let offset = err.span().map_or(0, |span| span.start);
        let message = crate::diagnostic::lowercase_first(err.message().trim_end_matches('.'));
        Diagnostic::new(Location::at_offset(path, text, offset), message)
            .hint("see docs/site-toml.md for every key site.toml accepts")
            .into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn studies_are_paths_or_placed_paths() {
        let text = "[site]\ntitle = \"T\"\nstudies = [\"a/b\", { path = \".\", url = \"top\" }]\n";
        let file = parse(Path::new("site.toml"), text).unwrap();
        let studies = file.site.studies.unwrap();
        assert_eq!(studies[0].get_ref().path(), "a/b");
        assert_eq!(studies[1].get_ref().url(), Some("top"));
        // The second entry starts at byte 37: `[site]\n` 7 + `title = "T"\n` 12 + 11 + 7.
        assert_eq!(studies[1].span().start, 37);
    }

    #[test]
    fn unknown_keys_are_located() {
        let err = parse(Path::new("site.toml"), "[site]\ntitle = \"T\"\ntitel = 1\n").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("site.toml:3:1: unknown field `titel`"), "{text}");
    }
}
