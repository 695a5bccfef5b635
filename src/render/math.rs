//! The formulas of the content (`$…$` in line, `$$…$$` displayed), each
//! made once for the page, and every one that cannot be (code, a syntax
//! error) reported at its place: in LaTeX (`[output] math = "latex"`, the
//! default) as MathML ([`super::latex`]), in Typst's math syntax typeset as
//! SVG. The paper sets the same source ([`super::typst_markup`]).

use std::collections::BTreeMap;

use crate::diagnostic::{Diagnostic, Diagnostics};
use crate::markdown::Document;
use crate::render::pdf::math;

/// What stands in the SVG of a formula for its ids' prefix, which the page
/// makes unique per occurrence.
pub const ID: &str = "@formula@";

/// Each formula's SVG, by its source and whether it is displayed.
pub type Formulas = BTreeMap<(String, bool), String>;

/// Make every formula of `document`, written in `syntax`, for the page.
pub fn formulas(
    document: &Document,
    syntax: crate::config::MathSyntax,
) -> Result<Formulas, Diagnostics> {
    let mut out = Formulas::new();
    let mut errors = Diagnostics::default();
    for page in &document.pages {
        for (formula, display, at) in page.body.formulas() {
            let formula = formula.to_string();
            if out.contains_key(&(formula.clone(), display)) {
                continue;
            }
            let made = match syntax {
                crate::config::MathSyntax::Latex => super::latex::mathml(&formula, display)
                    .and_then(|html| super::latex::to_typst(&formula).map(|_| html)),
                crate::config::MathSyntax::Typst => math::svg(&formula, display, ID),
            };
            match made {
                Ok(svg) => {
                    out.insert((formula, display), svg);
                }
                Err(message) => errors.push(
                    Diagnostic::new(
                        page.source_map.locate(&page.path, at),
                        format!("math: {message}"),
                    )
                    .hint(hint(syntax)),
                ),
            }
        }
    }
    errors.into_result(out)
}

/// The help on a formula that cannot be made, in `syntax`.
fn hint(syntax: crate::config::MathSyntax) -> &'static str {
    match syntax {
        crate::config::MathSyntax::Latex => {
            "write formulas in LaTeX, such as $\\frac{T_1}{T_p}$ or $\\sum_{i=1}^n x_i$ \
             (`math = \"typst\"` in book.toml's [output] reads Typst's math syntax instead); \
             a literal dollar sign is \\$"
        }
        crate::config::MathSyntax::Typst => {
            "write formulas in Typst's math syntax, such as $S(p) = T(1) / T(p)$ \
             or $sum_(i=1)^n x_i$; a literal dollar sign is \\$"
        }
    }
}
