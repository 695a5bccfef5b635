//! The PDF renderer: the only module that touches the Typst API. It compiles an
//! in-memory Typst project (template, converted content, data files) with
//! embedded fonts and exports a deterministic PDF.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use typst::diag::{FileError, FileResult, Severity, SourceDiagnostic};
use typst::foundations::{Bytes, Datetime, Smart};
use typst::syntax::{FileId, RootedPath, Source, VirtualPath, VirtualRoot};
use typst::text::{Font, FontBook};
use typst::utils::LazyHash;
use typst::{Library, LibraryExt, World, WorldExt};
use typst_layout::PagedDocument;
use typst_pdf::{PdfOptions, PdfStandard, PdfStandards, Timestamp};

/// A Typst project held in memory: the main file and the files it may read.
#[derive(Debug, Clone)]
pub struct PaperProject {
    /// The main Typst source (the paper template).
    pub main: String,
    /// Other files by virtual path, such as `content.typ` or `stats.json`.
    pub files: BTreeMap<String, Vec<u8>>,
    /// The date `datetime.today()` returns and the PDF's creation date (UTC).
    pub date: Option<(i32, u8, u8, u8, u8, u8)>,
    /// The PDF standard to conform to.
    pub standard: crate::config::PdfStandard,
}

/// A problem Typst reported: the virtual file, the byte offset in it, and the message.
#[derive(Debug, Clone, PartialEq)]
pub struct TypstError {
    /// Virtual path of the file (`main.typ`, `content.typ`), if the error has a location.
    pub file: Option<String>,
    /// Byte offset in that file.
    pub offset: usize,
    /// Typst's message and hints.
    pub message: String,
    /// Typst's hints.
    pub hints: Vec<String>,
}

/// Fonts embedded in the binary: Libertinus Serif, New Computer Modern Math and
/// DejaVu Sans Mono from typst-assets (the GPL-licensed New Computer Modern text
/// faces are left out).
fn fonts() -> &'static (LazyHash<FontBook>, Vec<Font>) {
    static FONTS: OnceLock<(LazyHash<FontBook>, Vec<Font>)> = OnceLock::new();
    FONTS.get_or_init(|| {
        let fonts: Vec<Font> = typst_assets::fonts()
            .flat_map(|data| Font::iter(Bytes::new(data)))
            .filter(|font| font.info().family != "New Computer Modern")
            .collect();
        (LazyHash::new(FontBook::from_fonts(&fonts)), fonts)
    })
}

struct PaperWorld {
    library: LazyHash<Library>,
    main: FileId,
    sources: BTreeMap<String, (FileId, Bytes)>,
    today: Option<Datetime>,
}

fn file_id(path: &str) -> Option<FileId> {
    VirtualPath::new(path).ok().map(|vpath| RootedPath::new(VirtualRoot::Project, vpath).intern())
}

impl PaperWorld {
    fn new(project: &PaperProject) -> Self {
        let mut sources = BTreeMap::new();
        let main = file_id("main.typ").expect("`main.typ` is a valid virtual path");
        sources.insert("main.typ".to_string(), (main, Bytes::from_string(project.main.clone())));
        for (path, data) in &project.files {
            if let Some(id) = file_id(path) {
                sources.insert(path.clone(), (id, Bytes::new(data.clone())));
            }
        }
        let today = project.date.and_then(|(y, m, d, _, _, _)| Datetime::from_ymd(y, m, d));
        Self { library: LazyHash::new(Library::default()), main, sources, today }
    }

    fn path_of(&self, id: FileId) -> Option<&str> {
        self.sources.iter().find(|(_, (i, _))| *i == id).map(|(p, _)| p.as_str())
    }
}

impl World for PaperWorld {
    fn library(&self) -> &LazyHash<Library> {
        &self.library
    }

    fn book(&self) -> &LazyHash<FontBook> {
        &fonts().0
    }

    fn main(&self) -> FileId {
        self.main
    }

    fn source(&self, id: FileId) -> FileResult<Source> {
        let bytes = self.file(id)?;
        let text = std::str::from_utf8(&bytes).map_err(|_| FileError::InvalidUtf8)?;
        Ok(Source::new(id, text.to_string()))
    }

    fn file(&self, id: FileId) -> FileResult<Bytes> {
        self.sources
            .values()
            .find(|(i, _)| *i == id)
            .map(|(_, b)| b.clone())
            .ok_or_else(|| FileError::NotFound(id.get().vpath().get_without_slash().into()))
    }

    fn font(&self, index: usize) -> Option<Font> {
        fonts().1.get(index).cloned()
    }

    fn today(&self, _offset: Option<typst::foundations::Duration>) -> Option<Datetime> {
        self.today
    }
}

/// Compile `project` and export it as PDF bytes.
pub fn render(project: &PaperProject) -> Result<Vec<u8>, Vec<TypstError>> {
    let world = PaperWorld::new(project);
    let document = typst::compile::<PagedDocument>(&world).output.map_err(|errs| convert(&world, &errs))?;
    let timestamp = project
        .date
        .and_then(|(y, mo, d, h, mi, s)| Datetime::from_ymd_hms(y, mo, d, h, mi, s))
        .map(Timestamp::new_utc);
    let standards = match project.standard {
        crate::config::PdfStandard::Ua1 => vec![PdfStandard::Ua_1],
        crate::config::PdfStandard::A2b => vec![PdfStandard::A_2b],
        crate::config::PdfStandard::None => vec![],
    };
    let standards = PdfStandards::new(&standards).map_err(|e| vec![TypstError { file: None, offset: 0, message: e.message().to_string(), hints: vec![] }])?;
    let options = PdfOptions { ident: Smart::Custom("report".into()), timestamp, standards, ..PdfOptions::default() };
    typst_pdf::pdf(&document, &options).map_err(|errs| convert(&world, &errs))
}

fn convert(world: &PaperWorld, diagnostics: &[SourceDiagnostic]) -> Vec<TypstError> {
    diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| TypstError {
            file: d.span.id().and_then(|id| world.path_of(id)).map(str::to_string),
            offset: world.range(d.span).map_or(0, |r| r.start),
            message: d.message.to_string(),
            hints: d.hints.iter().map(|h| h.v.to_string()).collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(main: &str) -> PaperProject {
        PaperProject { main: main.into(), files: BTreeMap::new(), date: Some((2025, 6, 1, 0, 0, 0)), standard: crate::config::PdfStandard::None }
    }

    #[test]
    fn compiles_with_embedded_fonts_only() {
        let pdf = render(&project("= Hello\nWorld, `code` and $x^2$.")).unwrap();
        assert!(pdf.starts_with(b"%PDF-"));
        assert_eq!(pdf, render(&project("= Hello\nWorld, `code` and $x^2$.")).unwrap());
    }

    #[test]
    fn reports_errors_with_offsets() {
        let errors = render(&project("Hi\n#nope")).unwrap_err();
        assert_eq!(errors[0].file.as_deref(), Some("main.typ"));
        assert_eq!(errors[0].offset, 4);
        assert!(errors[0].message.contains("unknown variable"), "{:?}", errors);
    }
}
