//! The PDF renderer: the only module that touches the Typst API. It compiles an
//! in-memory Typst project (template, converted content, data files) with
//! embedded fonts and exports a deterministic PDF; in the `report` binary it
//! does so in a child process, under a deadline and a memory limit
//! ([`sandbox`]).

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use typst::diag::{FileError, FileResult, Severity, SourceDiagnostic};
use typst::foundations::{Bytes, Datetime, Smart};
use typst::syntax::{FileId, RootedPath, Source, VirtualPath, VirtualRoot};
use typst::text::{Font, FontBook};
use typst::utils::LazyHash;
use typst::{Library, LibraryExt, World, WorldExt};
use typst_layout::PagedDocument;
use typst_pdf::{PdfOptions, PdfStandard, PdfStandards, Timestamp};

pub mod math;

use super::sandbox::{self, Job};

/// A Typst project held in memory: the main file and the files it may read.
/// It crosses to the typesetting child as it is, files and fonts as byte strings.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PaperProject {
    /// The main Typst source (the paper template).
    pub main: String,
    /// Other files by virtual path, such as `content.typ` or `stats.json`.
    #[serde(with = "sandbox::bytes::map")]
    pub files: BTreeMap<String, Vec<u8>>,
    /// The date `datetime.today()` returns and the PDF's creation date (UTC).
    pub date: Option<(i32, u8, u8, u8, u8, u8)>,
    /// The PDF standard to conform to.
    pub standard: crate::config::PdfStandard,
    /// The study's own font files (`fonts/`), by path, added to the embedded ones.
    #[serde(with = "sandbox::bytes::pairs")]
    pub fonts: Vec<(String, Vec<u8>)>,
    /// The families book.toml's `[paper] fonts` asks for: each must be among the fonts.
    pub families: Vec<String>,
}

/// The file of a [`TypstError`] about a family of `[paper] fonts`; its
/// offset is the family's index in [`PaperProject::families`].
pub const FAMILY_ERROR_FILE: &str = "book.toml";

/// A problem Typst reported: the virtual file, the byte offset in it, and the message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

/// Families of the embedded fallback faces, in the order the paper tries
/// them after its text font: Arabic script, CJK, then emoji.
pub const FALLBACK_FAMILIES: [&str; 3] = ["Noto Naskh Arabic", "WenQuanYi Micro Hei", "Noto Emoji"];

/// The fallback faces themselves, by file name (see `src/defaults/fonts/README.md`
/// for their sources and licences).
pub const FALLBACK_FONTS: [(&str, &[u8]); 3] = [
    (
        "NotoNaskhArabic-Regular.ttf",
        include_bytes!("../defaults/fonts/NotoNaskhArabic-Regular.ttf"),
    ),
    ("wqy-microhei.ttc", include_bytes!("../defaults/fonts/wqy-microhei.ttc")),
    ("NotoEmoji-Regular.ttf", include_bytes!("../defaults/fonts/NotoEmoji-Regular.ttf")),
];

/// A font book and the faces it indexes.
struct Fonts {
    book: LazyHash<FontBook>,
    faces: Vec<Font>,
}

impl Fonts {
    fn new(faces: Vec<Font>) -> Self {
        Self { book: LazyHash::new(FontBook::from_fonts(&faces)), faces }
    }
}

/// Fonts embedded in the binary: Libertinus Serif, New Computer Modern Math and
/// DejaVu Sans Mono from typst-assets (the GPL-licensed New Computer Modern text
/// faces are left out), and the fallback faces for other scripts. Parsed once,
/// on first use.
fn embedded() -> &'static Arc<Fonts> {
    static FONTS: OnceLock<Arc<Fonts>> = OnceLock::new();
    FONTS.get_or_init(|| {
        let faces = typst_assets::fonts()
            .chain(FALLBACK_FONTS.map(|(_, data)| data))
            .flat_map(|data| Font::iter(Bytes::new(data)))
            .filter(|font| font.info().family != "New Computer Modern")
            .collect();
        Arc::new(Fonts::new(faces))
    })
}

/// What [`warm_up`] asks the typesetting child to prepare for a paper with
/// a bibliography.
const BIBLIOGRAPHY: &str = "bibliography";

/// Pay the paper's one-off costs now, at the start of a build, while the
/// results are read: start the typesetting child, which loads the fonts and,
/// if the paper has a `bibliography`, the citation locales; or, when the
/// paper is typeset in this process, parse the embedded fonts on a worker
/// thread.
pub fn warm_up(bibliography: bool) {
    if sandbox::enabled() {
        sandbox::prestart(Job::Typeset, if bibliography { &[BIBLIOGRAPHY] } else { &[] });
    } else {
        rayon::spawn(|| {
            embedded();
        });
    }
}

/// What the typesetting child loads before its input arrives: the embedded
/// fonts, and if `needs` names the bibliography, the citation locales Typst
/// decodes on the first bibliography it meets (all 63 of them, about 80 ms),
/// by typesetting a one-entry one.
pub(super) fn prepare_child(needs: &[String]) {
    let fonts = embedded().clone();
    if !needs.iter().any(|need| need == BIBLIOGRAPHY) {
        return;
    }
    let project = PaperProject {
        main: "#bibliography(\"r.bib\", full: true, style: \"ieee\")".into(),
        files: BTreeMap::from([("r.bib".into(), b"@misc{r, title = {R}}".to_vec())]),
        date: None,
        standard: crate::config::PdfStandard::None,
        fonts: vec![],
        families: vec![],
    };
    let _ = typst::compile::<PagedDocument>(&PaperWorld::new(&project, fonts));
}

/// What the typesetting child does between two papers: forget Typst's
/// memoized work (the fonts stay), so that each paper is typeset from the
/// same state as in a fresh child, within the same memory, whichever
/// papers the child typeset before.
pub(super) fn between_papers() {
    typst::comemo::evict(0);
}

/// The embedded fonts plus the study's, or an error naming a file that holds no font.
fn fonts_for(project: &PaperProject) -> Result<Arc<Fonts>, Vec<TypstError>> {
    if project.fonts.is_empty() {
        return Ok(embedded().clone());
    }
    let mut faces = embedded().faces.clone();
    for (path, data) in &project.fonts {
        let before = faces.len();
        faces.extend(Font::iter(Bytes::new(data.clone())));
        if faces.len() == before {
            let message = "this file holds no font Typst can read".to_string();
            let hints = vec![
                "put only TrueType or OpenType fonts (.ttf, .otf, .ttc) in `fonts/`".to_string(),
            ];
            return Err(vec![TypstError { file: Some(path.clone()), offset: 0, message, hints }]);
        }
    }
    Ok(Arc::new(Fonts::new(faces)))
}

/// The families of `[paper] fonts` that no font has (Typst would only warn,
/// and set the text in the next family without a word).
fn missing_families(project: &PaperProject, fonts: &Fonts) -> Vec<TypstError> {
    let known: Vec<&str> = fonts.book.families().map(|(family, _)| family).collect();
    project
        .families
        .iter()
        .enumerate()
        .filter(|(_, family)| !fonts.book.contains_family(&family.to_lowercase()))
        .map(|(index, family)| TypstError {
            file: Some(FAMILY_ERROR_FILE.into()),
            offset: index,
            message: format!("no font of the family `{family}`, in `fonts/` or built in"),
            hints: vec![format!(
                "add its .ttf, .otf or .ttc files to `fonts/`, or fix the name: {}",
                crate::diagnostic::suggest(family, known.iter().copied())
            )],
        })
        .collect()
}

struct PaperWorld {
    library: LazyHash<Library>,
    main: FileId,
    sources: BTreeMap<String, (FileId, Bytes)>,
    today: Option<Datetime>,
    fonts: Arc<Fonts>,
}

fn file_id(path: &str) -> Option<FileId> {
    VirtualPath::new(path).ok().map(|vpath| RootedPath::new(VirtualRoot::Project, vpath).intern())
}

impl PaperWorld {
    fn new(project: &PaperProject, fonts: Arc<Fonts>) -> Self {
        let mut sources = BTreeMap::new();
        let main = file_id("main.typ").expect("`main.typ` is a valid virtual path");
        sources.insert("main.typ".to_string(), (main, Bytes::from_string(project.main.clone())));
        for (path, data) in &project.files {
            if let Some(id) = file_id(path) {
                sources.insert(path.clone(), (id, Bytes::new(data.clone())));
            }
        }
        let today = project.date.and_then(|(y, m, d, _, _, _)| Datetime::from_ymd(y, m, d));
        Self { library: LazyHash::new(Library::default()), main, sources, today, fonts }
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
        &self.fonts.book
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
        self.fonts.faces.get(index).cloned()
    }

    fn today(&self, _offset: Option<typst::foundations::Duration>) -> Option<Datetime> {
        self.today
    }
}

/// Why the paper has no PDF.
#[derive(Debug, Clone, PartialEq)]
pub enum Failed {
    /// Typst's errors (or a font's), located in the project's files.
    Typst(Vec<TypstError>),
    /// The typesetting child ended without an answer: out of time or
    /// memory, or crashed. The caller knows what the paper holds and says
    /// what to look at.
    Child(sandbox::Failure),
}

impl Failed {
    /// Typst's errors, or none when the child failed.
    pub fn errors(&self) -> &[TypstError] {
        match self {
            Failed::Typst(errors) => errors,
            Failed::Child(_) => &[],
        }
    }
}

/// What the typesetting child answers.
#[derive(Serialize, Deserialize)]
enum Answer {
    /// The PDF.
    Pdf(#[serde(with = "sandbox::bytes")] Vec<u8>),
    /// Why there is none.
    Errors(Vec<TypstError>),
}

/// Compile `project` and export it as PDF bytes: in a child process under
/// limits if this process called [`super::enter`], else here.
pub fn render(project: &PaperProject) -> Result<Vec<u8>, Failed> {
    if !sandbox::enabled() {
        return render_here(project).map_err(Failed::Typst);
    }
    match sandbox::run(Job::Typeset, project) {
        Ok(Answer::Pdf(pdf)) => Ok(pdf),
        Ok(Answer::Errors(errors)) => Err(Failed::Typst(errors)),
        Err(failed) => Err(Failed::Child(failed)),
    }
}

/// The typesetting child's work: the project in, the PDF or errors out.
pub(super) fn child_answer(input: &[u8]) -> Option<Vec<u8>> {
    sandbox::answer(input, |project: PaperProject| match render_here(&project) {
        Ok(pdf) => Answer::Pdf(pdf),
        Err(errors) => Answer::Errors(errors),
    })
}

/// Compile `project` and export it as PDF bytes, in this process and without limits.
pub fn render_here(project: &PaperProject) -> Result<Vec<u8>, Vec<TypstError>> {
    let fonts = fonts_for(project)?;
    let missing = missing_families(project, &fonts);
    if !missing.is_empty() {
        return Err(missing);
    }
    let world = PaperWorld::new(project, fonts);
    let document =
        typst::compile::<PagedDocument>(&world).output.map_err(|errs| convert(&world, &errs))?;
    let timestamp = project
        .date
        .and_then(|(y, mo, d, h, mi, s)| Datetime::from_ymd_hms(y, mo, d, h, mi, s))
        .map(Timestamp::new_utc);
    let standards = match project.standard {
        crate::config::PdfStandard::Ua1 => vec![PdfStandard::Ua_1],
        crate::config::PdfStandard::A2b => vec![PdfStandard::A_2b],
        crate::config::PdfStandard::None => vec![],
    };
    let standards = PdfStandards::new(&standards).map_err(|e| {
        vec![TypstError { file: None, offset: 0, message: e.message().to_string(), hints: vec![] }]
    })?;
    let options = PdfOptions {
        ident: Smart::Custom("report".into()),
        timestamp,
        standards,
        ..PdfOptions::default()
    };
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
        PaperProject {
            main: main.into(),
            files: BTreeMap::new(),
            date: Some((2025, 6, 1, 0, 0, 0)),
            standard: crate::config::PdfStandard::None,
            fonts: vec![],
            families: vec![],
        }
    }

    #[test]
    fn compiles_with_embedded_fonts_only() {
        let pdf = render(&project("= Hello\nWorld, `code` and $x^2$.")).unwrap();
        assert!(pdf.starts_with(b"%PDF-"));
        assert_eq!(pdf, render(&project("= Hello\nWorld, `code` and $x^2$.")).unwrap());
    }

    #[test]
    fn reports_errors_with_offsets() {
        let errors = render(&project("Hi\n#nope")).unwrap_err().errors().to_vec();
        assert_eq!(errors[0].file.as_deref(), Some("main.typ"));
        assert_eq!(errors[0].offset, 4);
        assert!(errors[0].message.contains("unknown variable"), "{:?}", errors);
    }

    #[test]
    fn every_script_has_an_embedded_face() {
        let fonts = embedded();
        // The first family of the paper's list that covers the text, as Typst picks it.
        let family = |text: &str| {
            std::iter::once("Libertinus Serif").chain(FALLBACK_FAMILIES).find(|name| {
                fonts
                    .book
                    .select(&name.to_lowercase(), typst::text::FontVariant::default())
                    .and_then(|index| fonts.book.info(index))
                    .is_some_and(|info| text.chars().all(|c| info.coverage.contains(c as u32)))
            })
        };
        assert_eq!(family("Grüße, Привет, αβγ, עברית"), Some("Libertinus Serif"));
        assert_eq!(family("日本語 繁體"), Some("WenQuanYi Micro Hei"));
        assert_eq!(family("한국어"), Some("WenQuanYi Micro Hei"));
        assert_eq!(family("ひらがなカタカナ"), Some("WenQuanYi Micro Hei"));
        assert_eq!(family("العربية فارسی"), Some("Noto Naskh Arabic"));
        assert_eq!(family("🙂🚀👍"), Some("Noto Emoji"));
        assert!(fonts.book.contains_family("libertinus serif"));
        assert!(!fonts.book.contains_family("new computer modern"));
        for name in FALLBACK_FAMILIES {
            assert!(fonts.book.contains_family(&name.to_lowercase()), "{name}");
        }
    }

    #[test]
    fn a_study_font_that_is_not_a_font_is_named() {
        let mut bad = project("Hi");
        bad.fonts = vec![("fonts/notes.ttf".into(), b"not a font".to_vec())];
        let errors = render(&bad).unwrap_err().errors().to_vec();
        assert_eq!(errors[0].file.as_deref(), Some("fonts/notes.ttf"));
        assert!(errors[0].message.contains("no font"), "{errors:?}");
        let mut good = project("#set text(font: \"Noto Emoji\")\nHi");
        good.fonts = vec![("fonts/emoji.ttf".into(), FALLBACK_FONTS[2].1.to_vec())];
        assert!(render(&good).is_ok());
    }

    #[test]
    fn every_family_asked_for_must_be_among_the_fonts() {
        let mut paper = project("Hi");
        // Family names match whatever their case; the built-in fallbacks count.
        paper.families = vec![
            "libertinus SERIF".into(),
            "Noto Emoji".into(),
            "Comic Sans".into(),
            "DejaVu Sans Mono".into(),
        ];
        let errors = render(&paper).unwrap_err().errors().to_vec();
        let missing: Vec<(Option<&str>, usize)> =
            errors.iter().map(|e| (e.file.as_deref(), e.offset)).collect();
        assert_eq!(missing, [(Some(FAMILY_ERROR_FILE), 2)]);
        paper.families.remove(2);
        assert!(render(&paper).is_ok());
    }

    /// What the parent writes and the child reads, and back: the project
    /// (files and fonts as byte strings, a date before year 0) and both
    /// answers survive the trip; input cut short is refused, not guessed.
    #[test]
    fn projects_and_answers_cross_as_cbor() {
        let project = PaperProject {
            main: "= Hi\n#include \"content.typ\"".into(),
            files: [("content.typ".to_string(), b"text".to_vec()), ("a.png".into(), vec![0, 255])]
                .into(),
            date: Some((-44, 3, 15, 23, 59, 1)),
            standard: crate::config::PdfStandard::A2b,
            fonts: vec![("fonts/x.ttf".into(), vec![1, 2, 3])],
            families: vec!["Libertinus Serif".into(), "Ünïcode".into()],
        };
        let mut bytes = Vec::new();
        ciborium::into_writer(&project, &mut bytes).unwrap();
        // Bytes as byte strings: the 2-byte PNG is 3 bytes of CBOR, not 4.
        assert!(bytes.windows(3).any(|w| w == [0x42, 0, 255]), "{bytes:?}");
        let echo = |input: &[u8]| sandbox::answer(input, |p: PaperProject| p);
        let back: PaperProject = ciborium::from_reader(&echo(&bytes).unwrap()[..]).unwrap();
        assert_eq!(format!("{back:?}"), format!("{project:?}"));
        for len in 0..bytes.len() {
            assert!(echo(&bytes[..len]).is_none(), "{len}");
        }
        for answer in [
            Answer::Pdf(b"%PDF-1.7".to_vec()),
            Answer::Errors(vec![TypstError {
                file: Some("main.typ".into()),
                offset: 7,
                message: "m".into(),
                hints: vec!["h".into()],
            }]),
        ] {
            let mut bytes = Vec::new();
            ciborium::into_writer(&answer, &mut bytes).unwrap();
            let back: Answer = ciborium::from_reader(&bytes[..]).unwrap();
            match (answer, back) {
                (Answer::Pdf(a), Answer::Pdf(b)) => assert_eq!(a, b),
                (Answer::Errors(a), Answer::Errors(b)) => assert_eq!(a, b),
                _ => panic!("the answer changed kind"),
            }
        }
    }
}
