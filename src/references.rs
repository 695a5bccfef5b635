//! The references stage: `content/references.bib` parsed with hayagriva, and the
//! citations of the content formatted for the web page in the same style (IEEE)
//! that Typst uses for the paper.

use std::collections::BTreeMap;
use std::path::PathBuf;

use hayagriva::archive::ArchivedStyle;
use hayagriva::citationberg::Style;
use hayagriva::{
    BibliographyDriver, BibliographyRequest, BufWriteFormat, CitationItem, CitationRequest, Library,
};

use crate::diagnostic::{Diagnostic, Diagnostics, Location};
use crate::project::SourceFile;

/// The citation style of both outputs, by its Typst and hayagriva name.
pub const STYLE_NAME: &str = "ieee";

/// A parsed bibliography.
#[derive(Debug, Clone)]
pub struct Bibliography {
    /// Path relative to the study root.
    pub path: PathBuf,
    /// The BibTeX source, served to Typst as `references.bib`.
    pub source: String,
    /// The entries.
    pub library: Library,
}

impl Bibliography {
    /// Every citation key.
    pub fn keys(&self) -> Vec<String> {
        self.library.iter().map(|e| e.key().to_string()).collect()
    }
}

/// Citations and the reference list, formatted as HTML.
#[derive(Debug, Clone, Default)]
pub struct Formatted {
    /// The text of each group of keys cited together, such as `[1]` or `[1], [2]`.
    pub citations: BTreeMap<Vec<String>, String>,
    /// The reference list, in order: key and HTML.
    pub entries: Vec<(String, String)>,
}

/// Parse the bibliography, if the study has one.
pub fn load(file: Option<&SourceFile>) -> Result<Option<Bibliography>, Diagnostics> {
    let Some(file) = file else { return Ok(None) };
    let source = file.text()?.to_string();
    let library = hayagriva::io::from_biblatex_str(&source).map_err(|errors| {
        Diagnostics(
            errors
                .iter()
                .map(|e| {
                    let (offset, message) = match e {
                        hayagriva::io::BibLaTeXError::Parse(p) => {
                            (p.span.start, p.kind.to_string())
                        }
                        hayagriva::io::BibLaTeXError::Type(t) => (t.span.start, t.kind.to_string()),
                    };
                    Diagnostic::new(
                        Location::at_offset(&file.path, &source, offset),
                        format!("bibliography: {message}"),
                    )
                    .hint("fix the BibTeX entry")
                })
                .collect(),
        )
    })?;
    Ok(Some(Bibliography { path: file.path.clone(), source, library }))
}

/// Parse the citation style now (on a worker thread, while other stages run)
/// rather than when the first citation is formatted.
pub fn warm_up() {
    style();
}

/// The citation style and locales, parsed once per process (about 80 ms).
fn style() -> Option<&'static (
    hayagriva::citationberg::IndependentStyle,
    Vec<hayagriva::citationberg::Locale>,
)> {
    static STYLE: std::sync::OnceLock<
        Option<(hayagriva::citationberg::IndependentStyle, Vec<hayagriva::citationberg::Locale>)>,
    > = std::sync::OnceLock::new();
    STYLE
        .get_or_init(|| match ArchivedStyle::by_name(STYLE_NAME).map(ArchivedStyle::get) {
            Some(Style::Independent(style)) => Some((style, hayagriva::archive::locales())),
            _ => None,
        })
        .as_ref()
}

/// Format `groups` (keys cited together, in document order) and the list of
/// the cited entries.
pub fn format(bibliography: &Bibliography, groups: &[Vec<String>]) -> Formatted {
    let Some((style, locales)) = style() else { return Formatted::default() };
    let (style, locales) = (style, locales.as_slice());
    let mut driver = BibliographyDriver::new();
    let mut cited = Vec::new();
    for group in groups {
        let items: Vec<CitationItem<_>> = group
            .iter()
            .filter_map(|k| bibliography.library.get(k))
            .map(CitationItem::with_entry)
            .collect();
        if items.is_empty() {
            continue;
        }
        cited.push(group.clone());
        driver.citation(CitationRequest::from_items(items, style, locales));
    }
    let rendered =
        driver.finish(BibliographyRequest { style, locale: None, locale_files: locales });
    let html = |children: &hayagriva::ElemChildren| {
        let mut out = String::new();
        let _ = children.write_buf(&mut out, BufWriteFormat::Html);
        out
    };
    let citations =
        cited.into_iter().zip(&rendered.citations).map(|(g, c)| (g, html(&c.citation))).collect();
    let entries = rendered
        .bibliography
        .map(|b| {
            b.items
                .iter()
                .map(|i| {
                    let first = i
                        .first_field
                        .as_ref()
                        .map(|f| {
                            let mut out = String::new();
                            let _ = f.write_buf(&mut out, BufWriteFormat::Html);
                            out + " "
                        })
                        .unwrap_or_default();
                    (i.key.clone(), first + &html(&i.content))
                })
                .collect()
        })
        .unwrap_or_default();
    Formatted { citations, entries }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIB: &str = "@inproceedings{a2019,\n  author = {Doe, Jane and Roe, Richard},\n  title = {A title},\n  booktitle = {Proc. X},\n  year = {2019}\n}\n";

    #[test]
    fn formats_ieee_citations_and_entries() {
        let file = SourceFile::new("content/references.bib", BIB.as_bytes().to_vec());
        let bib = load(Some(&file)).unwrap().unwrap();
        assert_eq!(bib.keys(), ["a2019"]);
        let formatted = format(&bib, &[vec!["a2019".into()]]);
        assert_eq!(formatted.citations[&vec!["a2019".to_string()]], "[1]");
        assert!(formatted.entries[0].1.contains("A title"), "{:?}", formatted.entries);
    }

    #[test]
    fn bad_bibtex_is_located() {
        let file = SourceFile::new(
            "content/references.bib",
            b"@article{x,\n  title = {unclosed\n".to_vec(),
        );
        let err = load(Some(&file)).unwrap_err().to_string();
        assert!(err.starts_with("content/references.bib:"), "{err}");
    }
}
