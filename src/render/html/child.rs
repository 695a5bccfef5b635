//! Rendering the study's own templates in a child process
//! ([`crate::render::sandbox`]): a Tera template can nest loops over the
//! results or double a string until memory runs out, which no check before
//! rendering can rule out. The pages' contexts go to the child, and the
//! pages or the errors located in the templates come back, in the
//! sandbox's one framing.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use tera::Context;

use super::load::Templates;
use crate::diagnostic::{Diagnostic, Diagnostics, Location};
use crate::project::SourceFile;
use crate::render::sandbox::{self, Cause, Job};

/// One template file of the study.
#[derive(Serialize, Deserialize)]
struct Template {
    path: PathBuf,
    text: String,
}

/// One page to render: its file name and its context.
#[derive(Serialize, Deserialize)]
struct Page {
    file: String,
    context: serde_json::Value,
}

/// What the child is given.
#[derive(Serialize, Deserialize)]
struct Input {
    templates: Vec<Template>,
    pages: Vec<Page>,
}

/// One error, as it crosses between the processes.
#[derive(Serialize, Deserialize)]
struct Error {
    path: PathBuf,
    line: usize,
    column: usize,
    message: String,
    hint: Option<String>,
}

/// What the child answers: every page, or the errors.
#[derive(Serialize, Deserialize)]
enum Answer {
    Pages(BTreeMap<String, String>),
    Errors(Vec<Error>),
}

/// Render `pages` (file name, context) with the study's `templates` in a child
/// process under the limits of [`Job::Render`].
pub fn render(
    templates: &[SourceFile],
    pages: super::PageContexts,
) -> Result<BTreeMap<String, String>, Diagnostics> {
    let templates = templates
        .iter()
        .filter(|f| f.path.extension().is_some_and(|e| e == "html"))
        .map(|f| Ok(Template { path: f.path.clone(), text: f.text()?.to_string() }))
        .collect::<Result<Vec<_>, Diagnostic>>()?;
    let pages = pages.into_iter().map(|(file, c)| Page { file, context: c.into_json() }).collect();
    let answer = sandbox::run(Job::Render, &Input { templates, pages }).map_err(|failed| {
        let at = Location::file("templates");
        Diagnostic::new(at, format!("template: {}", failed.message)).hint(hint(&failed))
    })?;
    match answer {
        Answer::Pages(pages) => Ok(pages),
        Answer::Errors(errors) => Err(Diagnostics(errors.into_iter().map(from_wire).collect())),
    }
}

/// What to look at when the child failed: the study's templates, which are
/// what runs there (the pages' contexts are the results, already checked).
fn hint(failed: &sandbox::Failure) -> String {
    match failed.cause {
        Cause::Deadline => "do loops of the templates nest over the results (each level \
                            multiplies the work), or does a macro call itself?"
            .into(),
        Cause::Memory => "does a template double a string again and again, such as \
                          `{% set s = s ~ s %}` repeated, or build a huge list?"
            .into(),
        Cause::Stack => "is something in the templates nested thousands of levels deep?".into(),
        _ => failed.hint().into(),
    }
}

/// The child's work: the input in, the answer out.
pub fn answer(input: &[u8]) -> Option<Vec<u8>> {
    sandbox::answer(input, |input: Input| match render_here(input) {
        Ok(pages) => Answer::Pages(pages),
        Err(errors) => Answer::Errors(errors.0.into_iter().map(to_wire).collect()),
    })
}

fn render_here(input: Input) -> Result<BTreeMap<String, String>, Diagnostics> {
    let files: Vec<SourceFile> =
        input.templates.into_iter().map(|t| SourceFile::new(t.path, t.text.into_bytes())).collect();
    let templates = Templates::load(&files)?;
    let mut pages = BTreeMap::new();
    for page in input.pages {
        let context = Context::from_value(page.context).map_err(|e| unexpected(&e))?;
        let html = templates.render(&context, &page.file)?;
        pages.insert(page.file, html);
    }
    Ok(pages)
}

fn to_wire(d: Diagnostic) -> Error {
    let Location { path, line, column, .. } = d.location;
    Error { path, line, column, message: d.message, hint: d.hint }
}

fn from_wire(e: Error) -> Diagnostic {
    let diagnostic = Diagnostic::new(Location::new(e.path, e.line, e.column), e.message);
    match e.hint {
        Some(hint) => diagnostic.hint(hint),
        None => diagnostic,
    }
}

/// A failure of the exchange itself, which would be a bug.
fn unexpected(err: &dyn std::fmt::Display) -> Diagnostic {
    Diagnostic::new(Location::file("templates"), format!("template: rendering failed: {err}"))
        .hint("this is a bug in report; please report it with the templates")
}
