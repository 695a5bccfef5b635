//! The formulas of the content (`$…$` in line, `$$…$$` displayed, in
//! Typst's math syntax): each typeset once for the page as SVG, and every
//! one that cannot be (code, a syntax error) reported at its place. The
//! paper sets the same source ([`super::typst_markup`]).

use std::collections::BTreeMap;

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
        for (formula, display, at) in page.body.formulas() {
            let formula = formula.to_string();
            if out.contains_key(&(formula.clone(), display)) {
                continue;
            }
            match math::svg(&formula, display, ID) {
                Ok(svg) => {
                    out.insert((formula, display), svg);
                }
                Err(message) => errors.push(
                    Diagnostic::new(
                        page.source_map.locate(&page.path, at),
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
