//! The paper: content converted to Typst, composed with the template and the
//! data files into a [`PaperProject`], compiled to PDF. Typst errors are mapped
//! back to the Markdown file and line that produced them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::pdf::{self, PaperProject, TypstError};
use super::renderer::Files;
use super::resolved::Resolved;
use super::typst_markup::{self, Markup};
use crate::diagnostic::{Diagnostic, Diagnostics, Location};
use crate::markdown::Document;
use crate::project::SourceFile;

mod pixels;
pub mod resources;

/// The built-in paper template.
pub const DEFAULT_TEMPLATE: &str = include_str!("../defaults/paper.typ");

/// Most Typst errors reported; the rest are counted.
const MAX_ERRORS: usize = 20;

/// A converted page and where it starts in `content.typ`.
struct Part {
    start: usize,
    path: PathBuf,
    source_map: crate::markdown::SourceMap,
    markup: Markup,
}

/// Warnings of the paper (such as dropped HTML) and its bytes.
pub struct Paper {
    /// The PDF.
    pub pdf: Vec<u8>,
    /// Things the author should know, located.
    pub warnings: Vec<Diagnostic>,
}

/// The output of the paper: the content typeset with the template, as a PDF.
#[derive(Debug, Clone, Copy)]
pub struct Pdf;

impl super::renderer::Renderer for Pdf {
    fn name(&self) -> &'static str {
        "pdf"
    }

    /// Typesetting takes seconds: `report serve` adds the PDF when it is ready.
    fn deferred(&self) -> bool {
        true
    }

    fn render(&self, study: &Resolved) -> Result<Files, Diagnostics> {
        let paper = render(study)?;
        let mut out = Files { files: Vec::new(), warnings: paper.warnings };
        out.insert(study.config().output.pdf.as_str(), paper.pdf);
        Ok(out)
    }
}

/// The output of `report typst`: the paper as a Typst project, as files
/// (the template as `main.typ`, the converted content, data, charts and
/// images, and every font besides those the typst CLI embeds, under
/// `fonts/`), to edit or to compile with the typst CLI. Not one of a
/// build's outputs.
#[derive(Debug, Clone, Copy)]
pub struct TypstProject;

impl super::renderer::Renderer for TypstProject {
    fn name(&self) -> &'static str {
        "typst"
    }

    fn render(&self, study: &Resolved) -> Result<Files, Diagnostics> {
        let source = source(study)?;
        // A paragraph too long to typeset in time is the paper's error, but
        // only a warning for a project the author compiles themselves.
        let warnings = [source.warnings, source.too_long].concat();
        let mut out = Files { files: Vec::new(), warnings };
        out.insert("main.typ", source.project.main.into_bytes());
        for (path, bytes) in source.project.files {
            out.insert(path, bytes);
        }
        for (name, bytes) in pdf::FALLBACK_FONTS {
            out.insert(format!("fonts/{name}"), bytes);
        }
        for (path, bytes) in source.project.fonts {
            if let Some(name) = Path::new(&path).file_name() {
                out.insert(Path::new("fonts").join(name), bytes);
            }
        }
        Ok(out)
    }
}

/// The study's own paper template (`templates/paper.typ`), if any.
fn template<'a>(study: &Resolved<'a>) -> Option<&'a SourceFile> {
    study.project.templates.iter().find(|f| f.path.ends_with("paper.typ"))
}

/// The paper as a Typst project, before it is compiled: what `report typst` writes.
pub struct Source {
    /// The template, the converted content and the files they read.
    pub project: PaperProject,
    /// Things the author should know, located.
    pub warnings: Vec<Diagnostic>,
    /// Paragraphs too long to typeset in reasonable time, located: errors of
    /// the paper (a Typst project of them can still be written).
    pub too_long: Vec<Diagnostic>,
    parts: Vec<Part>,
    template_path: PathBuf,
}

/// Typeset the paper.
pub fn render(study: &Resolved) -> Result<Paper, Diagnostics> {
    let Source { project, warnings, mut too_long, parts, template_path } = source(study)?;
    too_long.extend(huge_images(&study.project.assets, &project));
    if !too_long.is_empty() {
        return Err(Diagnostics(too_long));
    }
    match pdf::render(&project) {
        Ok(pdf) => Ok(Paper { pdf, warnings }),
        Err(pdf::Failed::Child(failed)) => {
            let paper = resources::Paper {
                own_template: template(study).map(|t| t.path.as_path()),
                template: &template_path,
                pages: parts.iter().map(|p| (p.path.as_path(), p.markup.text.len())).collect(),
            };
            Err(Diagnostics(vec![resources::explain(&failed, &paper)]))
        }
        Err(pdf::Failed::Typst(errors)) => {
            let mut located: Vec<Diagnostic> = errors
                .iter()
                .take(MAX_ERRORS)
                .map(|e| match e.file.as_deref() {
                    Some(pdf::FAMILY_ERROR_FILE) => locate_family(e, study),
                    _ => locate(e, &parts, &template_path, &project.main),
                })
                .collect();
            if errors.len() > MAX_ERRORS {
                located.push(Diagnostic::new(
                    Location::file(&template_path),
                    format!("paper: {} more errors not shown", errors.len() - MAX_ERRORS),
                ));
            }
            Err(Diagnostics(located))
        }
    }
}

/// Convert the content and gather the template and data files into a Typst project.
pub fn source(study: &Resolved) -> Result<Source, Diagnostics> {
    let Content { text, parts, warnings, too_long } = content(study);
    let (template_path, main) = match template(study) {
        Some(file) => (file.path.clone(), file.text()?.to_string()),
        None => (PathBuf::from("paper.typ (built-in)"), DEFAULT_TEMPLATE.to_string()),
    };
    let project = PaperProject {
        main,
        files: files(study, text),
        date: study.date,
        standard: study.config().paper.standard,
        fonts: (study.project.fonts.iter())
            .map(|f| (f.path.display().to_string(), f.bytes.clone()))
            .collect(),
        families: study.config().paper.fonts.clone(),
    };
    Ok(Source { project, warnings, too_long, parts, template_path })
}

/// The paper's pages converted to Typst, one after the other: `content.typ`.
struct Content {
    /// The markup of every page.
    text: String,
    /// Where each page starts in `text`, to map errors back.
    parts: Vec<Part>,
    /// HTML dropped from the pages, located.
    warnings: Vec<Diagnostic>,
    /// Paragraphs over [`typst_markup::MAX_PARAGRAPH`], located.
    too_long: Vec<Diagnostic>,
}

/// Convert every page that goes into the paper.
fn content(study: &Resolved) -> Content {
    let Resolved { document, charts, book, .. } = *study;
    let mut content = Content {
        text: String::new(),
        parts: Vec::new(),
        warnings: Vec::new(),
        too_long: Vec::new(),
    };
    let cited = BTreeMap::new();
    let math = latex_equations(document, book.math);
    if !math.is_empty() {
        content.text.push_str(super::latex::IMPORT);
    }
    for page in document
        .pages
        .iter()
        .filter(|p| p.front.includes(crate::markdown::front_matter::OutputName::Paper))
    {
        let refs = super::Refs {
            charts,
            citations: &cited,
            environments: &book.environments,
            raw_html: false,
            math: &math,
        };
        // The title block shows the title: a first heading repeating it goes.
        let title = (page.slug == "index").then_some(book.title.as_str());
        let markup = typst_markup::convert_page(&page.body, &refs, title);
        content
            .warnings
            .extend(markup.dropped_html.iter().map(|&offset| dropped_html(page, offset)));
        content.too_long.extend(markup.too_long.iter().map(|&offset| too_long(page, offset)));
        content.parts.push(Part {
            start: content.text.len(),
            path: page.path.clone(),
            source_map: page.source_map.clone(),
            markup: markup.clone(),
        });
        content.text.push_str(&markup.text);
    }
    content
}

/// The paper's markup of every formula of the paper's pages written in
/// LaTeX, by source and display ([`super::latex::equation`]); none when
/// the content's math is Typst's. A formula that cannot be converted is
/// left out: the page's build has refused it at its place.
fn latex_equations(
    document: &Document,
    syntax: crate::config::MathSyntax,
) -> super::math::Formulas {
    if syntax != crate::config::MathSyntax::Latex {
        return super::math::Formulas::new();
    }
    let pages = document.pages.iter();
    let formulas = pages.flat_map(|p| p.body.formulas());
    formulas
        .filter_map(|(source, display, _)| {
            let markup = super::latex::equation(source, display).ok()?;
            Some(((source.to_string(), display), markup))
        })
        .collect()
}

/// The warning for an HTML block at `offset` of `page`, left out of the paper.
fn dropped_html(page: &crate::markdown::Page, offset: usize) -> Diagnostic {
    Diagnostic::new(
        page.source_map.locate(&page.path, offset),
        "HTML has no PDF form and was left out of the paper",
    )
    .hint("use Markdown instead of HTML for content that should be in both outputs")
}

/// The error for a paragraph at `offset` of `page` too long for the paper.
fn too_long(page: &crate::markdown::Page, offset: usize) -> Diagnostic {
    let kb = typst_markup::MAX_PARAGRAPH / 1024;
    Diagnostic::new(
        page.source_map.locate(&page.path, offset),
        format!("paper: this paragraph is too long to typeset (more than {kb} KB)"),
    )
    .hint(
        "Typst lays out a paragraph in time that grows with its length times its pieces \
         (emphasis, code, links, escaped characters); split it into paragraphs",
    )
}

/// The images of `content/` that the paper names (in the template or the
/// content) and that have more pixels than Typst should decode.
fn huge_images(assets: &[SourceFile], project: &PaperProject) -> Vec<Diagnostic> {
    let content = project.files.get("content.typ").map(Vec::as_slice).unwrap_or_default();
    let named = |name: &str| {
        project.main.contains(name) || memchr::memmem::find(content, name.as_bytes()).is_some()
    };
    let huge = |asset: &&SourceFile| {
        let (width, height) = pixels::size(&asset.bytes)?;
        let name = asset.path.file_name()?.to_string_lossy();
        (u64::from(width) * u64::from(height) > pixels::MAX_PIXELS && named(&name))
            .then_some((width, height))
    };
    let millions = pixels::MAX_PIXELS / 1_000_000;
    assets
        .iter()
        .filter_map(|asset| Some((asset, huge(&asset)?)))
        .map(|(asset, (width, height))| {
            let message = format!(
                "paper: this image has {width} × {height} pixels, more than the {millions} million \
                 the paper decodes"
            );
            Diagnostic::new(Location::file(&asset.path), message)
                .hint("scale it down: a figure rarely needs more than 4000 pixels across")
        })
        .collect()
}

/// The files the template reads: the content, the data, the images of
/// `content/`, the bibliography and the charts, by name.
fn files(study: &Resolved, content: String) -> BTreeMap<String, Vec<u8>> {
    let mut book = serde_json::to_value(study.book).unwrap_or_default();
    typographic(&mut book, "");
    let book_json = serde_json::to_vec_pretty(&book).unwrap_or_default();
    let mut files = BTreeMap::from([
        ("content.typ".to_string(), content.into_bytes()),
        ("stats.json".to_string(), super::json::bytes(study).to_vec()),
        ("book.json".to_string(), book_json),
    ]);
    if study.book.math == crate::config::MathSyntax::Latex {
        for (name, text) in super::latex::SCOPE_FILES {
            files.insert(name.to_string(), text.as_bytes().to_vec());
        }
    }
    for asset in &study.project.assets {
        if let Some(name) = asset.path.file_name() {
            files.insert(name.to_string_lossy().into_owned(), asset.bytes.clone());
        }
    }
    if let Some(bibliography) = study.bibliography {
        files.insert("references.bib".to_string(), bibliography.source.clone().into_bytes());
    }
    for chart in &study.charts.charts {
        files.insert(format!("charts/{}.svg", chart.spec.id), chart.svg.clone().into_bytes());
    }
    files
}

/// The text of book.json with typographic quotes ([`typst_syntax::smart_quotes`]),
/// but for what is no prose: names used as identifiers, fonts, URLs, file
/// names, provenance, HTML and Typst markup.
fn typographic(value: &mut serde_json::Value, key: &str) {
    const CODE: [&str; 10] = [
        "name",
        "fonts",
        "paper",
        "pdf",
        "language",
        "base_url",
        "provenance",
        "html",
        "key",
        "answer_typst",
    ];
    match value {
        serde_json::Value::String(text) if !CODE.contains(&key) => {
            *text = super::typst_syntax::smart_quotes(text);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| typographic(v, key)),
        serde_json::Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                // Authors' names are prose; other names are identifiers.
                let k = if key == "authors" && k == "name" { "author" } else { k.as_str() };
                typographic(v, k);
            }
        }
        _ => {}
    }
}

/// Point an error about a family of `[paper] fonts` at the family in book.toml.
fn locate_family(error: &TypstError, study: &Resolved) -> Diagnostic {
    // The error's offset is the family's index in `[paper] fonts`.
    let file = Location::file("book.toml");
    let at = study.config().at.or(&format!("paper.fonts.{}", error.offset), &file);
    Diagnostic::new(at, error.message.clone()).hint(error.hints.join("; "))
}

/// Point a Typst error at the Markdown or template line behind it.
fn locate(error: &TypstError, parts: &[Part], template: &Path, main: &str) -> Diagnostic {
    let location = match error.file.as_deref() {
        Some("content.typ") => {
            let part = parts.iter().rev().find(|p| p.start <= error.offset);
            match part {
                Some(p) => {
                    let md = p.markup.markdown_offset(error.offset - p.start);
                    p.source_map.locate(&p.path, md)
                }
                None => Location::file("content"),
            }
        }
        Some("main.typ") => Location::at_offset(template, main, error.offset),
        Some(other) => Location::file(other),
        None => Location::file(template),
    };
    let mut diagnostic = Diagnostic::new(location, format!("paper: {}", error.message));
    let hint = if error.hints.is_empty() {
        "the paper did not compile; check the Typst template or the Markdown at this line"
            .to_string()
    } else {
        error.hints.join("; ")
    };
    diagnostic = diagnostic.hint(hint);
    diagnostic
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::parse;

    #[test]
    fn typst_errors_in_content_point_at_the_markdown_line() {
        let first = "# One\n\nText.\n";
        let second = "# Two\n\nMore text.\n\nLast paragraph.\n";
        let (m1, m2) = (
            typst_markup::convert(&parse::text(first), &super::super::Refs::none()),
            typst_markup::convert(&parse::text(second), &super::super::Refs::none()),
        );
        let parts = [
            Part {
                start: 0,
                path: "content/a.md".into(),
                source_map: crate::markdown::SourceMap::identity(first),
                markup: m1.clone(),
            },
            Part {
                start: m1.text.len(),
                path: "content/b.md".into(),
                source_map: crate::markdown::SourceMap::identity(second),
                markup: m2.clone(),
            },
        ];
        let offset = m1.text.len() + m2.text.find("Last").unwrap() + 2;
        let error = TypstError {
            file: Some("content.typ".into()),
            offset,
            message: "boom".into(),
            hints: vec![],
        };
        let d = locate(&error, &parts, Path::new("paper.typ (built-in)"), "");
        assert_eq!(d.location.to_string(), "content/b.md:5:1");
        assert!(d.message.contains("boom"));
        let error = TypstError {
            file: Some("main.typ".into()),
            offset: 3,
            message: "bad".into(),
            hints: vec!["try".into()],
        };
        let d = locate(&error, &parts, Path::new("templates/paper.typ"), "ab\ncd");
        assert_eq!(d.location.to_string(), "templates/paper.typ:2:1");
        assert_eq!(d.hint.as_deref(), Some("try"));
    }
}
