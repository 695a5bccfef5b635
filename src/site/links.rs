//! The links of a study to the other studies of its site, checked and
//! rewritten: each link to a folder must lead to a study of the site (and
//! `#metric-NAME` to one of its claims), or the build fails at the link; in
//! the page and the paper each then leads to where that study is published,
//! and an empty link to a claim shows the claim's label and value.

use super::place::{Dead, Place};
use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::markdown::Document;
use crate::markdown::document::{Block, BlockKind, Inline, Table};

/// Check every link of `document` to a folder against `place`, at the
/// link's own location, then rewrite them in the document.
pub fn resolve(document: &mut Document, place: &Place) -> Result<(), Diagnostics> {
    let mut errors = Diagnostics::default();
    for (url, at) in &document.links {
        if let Some(Err(dead)) = place.resolve(url) {
            errors.push(diagnostic(url, at.clone(), &dead, place));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    for page in &mut document.pages {
        blocks(&mut page.body.blocks, place);
    }
    Ok(())
}

/// The error of one dead link.
fn diagnostic(
    url: &str,
    at: crate::diagnostic::Location,
    dead: &Dead,
    place: &Place,
) -> Diagnostic {
    match dead {
        Dead::NoStudy(folder) => {
            let studies: Vec<&str> =
                place.studies.keys().map(|f| if f.is_empty() { "." } else { f }).collect();
            let leads = match folder {
                Some(folder) if folder.is_empty() => "`.`".to_string(),
                Some(folder) => format!("`{folder}`"),
                None => "outside the site".to_string(),
            };
            Diagnostic::new(at, format!("link to `{url}`, which is no study of the site: it leads to {leads}"))
                .hint(format!(
                    "a link to another study is its folder relative to this study's book.toml, ending in `/`; the site's studies (from site.toml): {}",
                    crate::diagnostic::list(studies)
                ))
        }
        Dead::NoClaim(name, names) => {
            let hint = match crate::diagnostic::nearest(name, names.iter().map(String::as_str)) {
                Some(best) => format!("did you mean `#metric-{best}`?"),
                None => format!(
                    "its claims: {}",
                    crate::diagnostic::list(names.iter().map(String::as_str))
                ),
            };
            Diagnostic::new(at, format!("link to `{url}`: that study has no claim `{name}`"))
                .hint(hint)
        }
    }
}

/// Rewrite the links among `blocks` and what they hold.
fn blocks(list: &mut [Block], place: &Place) {
    let cells = |t: &mut Table| {
        let cells = t.head.iter_mut().chain(t.rows.iter_mut().flatten());
        cells.for_each(|c| inlines(&mut c.inlines, place));
    };
    for block in list {
        match &mut block.kind {
            BlockKind::Paragraph(i) | BlockKind::Plain(i) => inlines(i, place),
            BlockKind::Heading(h) => inlines(&mut h.inlines, place),
            BlockKind::Quote { blocks: b, .. } | BlockKind::Footnote { blocks: b, .. } => {
                blocks(b, place)
            }
            BlockKind::List(list) => {
                list.items.iter_mut().for_each(|i| blocks(&mut i.blocks, place))
            }
            BlockKind::Table(t) => cells(t),
            BlockKind::Captioned(c, t) => {
                inlines(&mut c.caption, place);
                cells(t);
            }
            BlockKind::Chart(figure) => inlines(&mut figure.caption, place),
            _ => {}
        }
    }
}

/// Rewrite the links among `inlines`: each to a study leads where it is
/// published; an empty one to a claim shows the claim.
fn inlines(inlines: &mut [Inline], place: &Place) {
    for inline in inlines {
        match inline {
            Inline::Emphasis(i) | Inline::Strong(i) | Inline::Strikethrough(i) => {
                self::inlines(i, place)
            }
            Inline::Link(link) => {
                if let Some(Ok(resolved)) = place.resolve(&link.url) {
                    link.url = resolved.url;
                    if let (true, Some(claim)) = (link.inlines.is_empty(), resolved.claim) {
                        link.inlines.push(Inline::Text(claim));
                    }
                }
                self::inlines(&mut link.inlines, place);
            }
            _ => {}
        }
    }
}
