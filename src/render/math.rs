//! The formulas of the content (`$…$` in line, `$$…$$` displayed, in
//! Typst's math syntax): each typeset once for the page as SVG, and every
//! one that cannot be (code, a syntax error) reported at its place. The
//! paper sets the same source ([`super::typst_markup`]).

use std::collections::BTreeMap;

use pulldown_cmark::{Event, Parser};

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::markdown::Document;
use crate::render::pdf::math;

/// What stands in the SVG of a formula for its ids' prefix, which the page
/// makes unique per occurrence.
pub const ID: &str = "@formula@";

/// Each formula's SVG, by its source and whether it is displayed.
pub type Formulas = BTreeMap<(String, bool), String>;

/// Typeset every formula of `document`.
pub fn formulas(document: &Document) -> Result<Formulas, Diagnostics> {
    let mut out = Formulas::new();
    let mut errors = Diagnostics::default();
    for page in &document.pages {
        let events = Parser::new_ext(&page.markdown, crate::markdown::options());
        for (event, range) in events.into_offset_iter() {
            let (formula, display) = match event {
                Event::InlineMath(f) => (f.to_string(), false),
                Event::DisplayMath(f) => (f.to_string(), true),
                _ => continue,
            };
            if out.contains_key(&(formula.clone(), display)) {
                continue;
            }
            match math::svg(&formula, display, ID) {
                Ok(svg) => {
                    out.insert((formula, display), svg);
                }
                Err(message) => errors.push(
                    Diagnostic::new(
                        page.source_map.locate(&page.path, range.start),
                        format!("math: {message}"),
                    )
                    .hint(
                        "write formulas in Typst's math syntax, such as $S(p) = T(1) / T(p)$ \
                         or $sum_(i=1)^n x_i$; a literal dollar sign is \\$",
                    ),
                ),
            }
        }
    }
    errors.into_result(out)
}
