//! The references stage: `content/references.bib` parsed with hayagriva, and the
//! citations of the content formatted for the web page in the same style (IEEE)
//! that Typst uses for the paper.

use std::collections::BTreeMap;
use std::path::PathBuf;

use hayagriva::archive::ArchivedStyle;
use hayagriva::citationberg::Style;
use hayagriva::{
    BibliographyDriver, BibliographyRequest, BufWriteFormat, CitationItem, CitationRequest, Elem,
    ElemChild, ElemChildren, Formatted as Text, Formatting, Library,
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

/// The locale the page's citations are written in: hayagriva falls back to
/// it when neither the style nor the request names one.
const LOCALE: &str = "en-US";

/// The citation style and its locale, parsed once per process.
fn style() -> Option<&'static (
    hayagriva::citationberg::IndependentStyle,
    Vec<hayagriva::citationberg::Locale>,
)> {
    static STYLE: std::sync::OnceLock<
        Option<(hayagriva::citationberg::IndependentStyle, Vec<hayagriva::citationberg::Locale>)>,
    > = std::sync::OnceLock::new();
    STYLE
        .get_or_init(|| match ArchivedStyle::by_name(STYLE_NAME).map(ArchivedStyle::get) {
            Some(Style::Independent(style)) => Some((style, locales())),
            _ => None,
        })
        .as_ref()
}

/// The archive's [`LOCALE`], decoded alone: decoding all 63 locales with
/// `hayagriva::archive::locales` took 80 to 110 ms of every build. Only the
/// archived files that name it are decoded.
fn locales() -> Vec<hayagriva::citationberg::Locale> {
    let named = |bytes: &&&[u8]| bytes.windows(LOCALE.len()).any(|w| w == LOCALE.as_bytes());
    hayagriva::archive::LOCALES
        .iter()
        .filter(named)
        .filter_map(|bytes| {
            ciborium::de::from_reader::<hayagriva::citationberg::Locale, _>(*bytes).ok()
        })
        .filter(|locale| locale.lang.as_ref().is_some_and(|lang| lang.to_string() == LOCALE))
        .collect()
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
    let html = |children: &ElemChildren| {
        let mut out = String::new();
        let _ = sanitized(children).write_buf(&mut out, BufWriteFormat::Html);
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
                        .map(|f| html(&ElemChildren(vec![f.clone()])) + " ")
                        .unwrap_or_default();
                    (i.key.clone(), first + &html(&i.content))
                })
                .collect()
        })
        .unwrap_or_default();
    Formatted { citations, entries }
}

/// `children` ready for hayagriva's HTML writer, which writes text and URLs
/// as they are: a .bib from a publisher is untrusted, so every text is
/// escaped, and a link keeps its URL only if it is on the web (http or https),
/// else becomes its text. Raw HTML in a .bib never reaches the page, whatever
/// `[output] raw-html` says. The depth of the tree is the citation style's, not
/// the bibliography's.
fn sanitized(children: &ElemChildren) -> ElemChildren {
    ElemChildren(children.0.iter().map(sanitized_child).collect())
}

fn sanitized_child(child: &ElemChild) -> ElemChild {
    let text = |t: &Text| Text { text: escape(&t.text), formatting: t.formatting };
    match child {
        ElemChild::Text(t) => ElemChild::Text(text(t)),
        ElemChild::Elem(e) => ElemChild::Elem(Elem {
            children: sanitized(&e.children),
            display: e.display,
            meta: e.meta.clone(),
        }),
        ElemChild::Markup(m) => {
            ElemChild::Text(Text { text: escape(m), formatting: Formatting::default() })
        }
        ElemChild::Link { text: t, url } if is_web(url) => {
            ElemChild::Link { text: text(t), url: escape(url) }
        }
        ElemChild::Link { text: t, .. } => ElemChild::Text(text(t)),
        ElemChild::Transparent { .. } => child.clone(),
    }
}

/// Whether `url` is an http or https URL, read as a browser reads it
/// (ASCII whitespace and control characters dropped, any case).
fn is_web(url: &str) -> bool {
    let cleaned: String = url.chars().filter(|c| !c.is_ascii_control() && *c != ' ').collect();
    let lower = cleaned.to_ascii_lowercase();
    lower.starts_with("https://") || lower.starts_with("http://")
}

/// `text` with the five HTML specials as entities.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIB: &str = "@inproceedings{a2019,\n  author = {Doe, Jane and Roe, Richard},\n  title = {A title},\n  booktitle = {Proc. X},\n  year = {2019}\n}\n";

    #[test]
    fn only_the_page_locale_is_decoded() {
        let decoded = locales();
        assert_eq!(decoded.len(), 1);
        assert_eq!(decoded[0].lang.as_ref().map(ToString::to_string).as_deref(), Some(LOCALE));
    }

    #[test]
    fn formats_ieee_citations_and_entries() {
        let file = SourceFile::new("content/references.bib", BIB.as_bytes().to_vec());
        let bib = load(Some(&file)).unwrap().unwrap();
        assert_eq!(bib.keys(), ["a2019"]);
        let formatted = format(&bib, &[vec!["a2019".into()]]);
        assert_eq!(formatted.citations[&vec!["a2019".to_string()]], "[1]");
        assert!(formatted.entries[0].1.contains("A title"), "{:?}", formatted.entries);
    }

    /// A .bib is untrusted: its text is escaped and only web links keep their URL.
    #[test]
    fn hostile_entries_are_shown_never_run() {
        let bib = "@misc{x,\n  author = {Doe, Jane},\n  title = {<script>alert(1)</script> <img src=x onerror=alert(2)>},\n  year = {2020},\n  url = {javascript:alert(3)}\n}\n\
                   @misc{y,\n  author = {Roe, R},\n  title = {T},\n  year = {2021},\n  url = {https://example.org/a\"b}\n}\n";
        let file = SourceFile::new("content/references.bib", bib.as_bytes().to_vec());
        let bib = load(Some(&file)).unwrap().unwrap();
        let formatted = format(&bib, &[vec!["x".into(), "y".into()]]);
        let all: String = formatted.entries.iter().map(|(_, html)| html.as_str()).collect();
        assert!(!all.contains("<script") && !all.contains("<img"), "{all}");
        assert!(all.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{all}");
        assert!(!all.contains("href=\"javascript") && all.contains("javascript:alert(3)"), "{all}");
        assert!(all.contains("<a href=\"https://example.org/a%22b\">"), "{all}");
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
