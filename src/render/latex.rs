//! Formulas written in LaTeX (`[output] math = "latex"`, the default), as
//! Markdown authors write them: MathML for the page, made at build time by
//! pulldown-latex (no script, no service), and Typst math for the paper,
//! converted by the mitex crate and evaluated in MiTeX's scope of LaTeX
//! commands (`defaults/mitex/`). Neither runs code: the converted math may
//! hold no `#` but MiTeX's own `#textmath[`, and MiTeX's handlers that
//! evaluated their argument were changed not to.

use super::typst_syntax::string;

/// The files of MiTeX's scope, served to the paper beside `content.typ`.
pub const SCOPE_FILES: [(&str, &str); 3] = [
    ("mitex/mod.typ", include_str!("../defaults/mitex/mod.typ")),
    ("mitex/prelude.typ", include_str!("../defaults/mitex/prelude.typ")),
    ("mitex/latex/standard.typ", include_str!("../defaults/mitex/latex/standard.typ")),
];

/// The line of `content.typ` that brings MiTeX's scope in.
pub const IMPORT: &str = "#import \"mitex/mod.typ\": mitex-scope\n";

/// Most bytes of one formula.
const MAX_FORMULA: usize = 4096;

/// Why `latex` is no formula to convert, if it is not.
fn refused(latex: &str) -> Option<String> {
    if latex.len() > MAX_FORMULA {
        Some(format!("a formula is at most {MAX_FORMULA} bytes long"))
    } else if latex.trim().is_empty() {
        Some("the formula is empty".to_string())
    } else {
        None
    }
}

/// `latex` converted to Typst math by mitex; `Err` holds why it cannot be,
/// mitex's message or the code the conversion would hold.
pub fn to_typst(latex: &str) -> Result<String, String> {
    if let Some(why) = refused(latex) {
        return Err(why);
    }
    let typst = mitex::convert_math(latex, None)
        .map_err(|e| e.trim_start_matches("error: ").to_string())?;
    if !code_free(&typst) {
        return Err("this formula would run code in the paper".to_string());
    }
    Ok(typst)
}

/// Whether the Typst math `typst` holds no code: every `#` in it is
/// escaped (`\#`) or starts MiTeX's `#textmath[`.
fn code_free(typst: &str) -> bool {
    typst.match_indices('#').all(|(i, _)| {
        let backslashes = typst[..i].bytes().rev().take_while(|&b| b == b'\\').count();
        backslashes % 2 == 1 || typst[i..].starts_with("#textmath[")
    })
}

/// The paper's markup of `latex`: an equation, in line or displayed, of the
/// converted math evaluated in MiTeX's scope ([`IMPORT`]), its LaTeX source
/// as its alternative text (PDF/UA), ended by `;`.
pub fn equation(latex: &str, display: bool) -> Result<String, String> {
    let typst = to_typst(latex)?;
    let alt = string(latex.trim());
    Ok(format!(
        "#math.equation(block: {display}, alt: {alt}, eval({}, mode: \"math\", scope: mitex-scope));",
        string(&typst)
    ))
}

/// `latex` as MathML for the page, in line or displayed, its source kept as
/// an annotation; `Err` holds pulldown-latex's first error.
pub fn mathml(latex: &str, display: bool) -> Result<String, String> {
    use pulldown_latex::{Parser, RenderConfig, Storage, config::DisplayMode};
    if let Some(why) = refused(latex) {
        return Err(why);
    }
    let storage = Storage::new();
    let events: Vec<_> = Parser::new(latex, &storage).collect();
    if let Some(Err(e)) = events.iter().find(|e| e.is_err()) {
        return Err(first_line(&e.to_string()));
    }
    let config = RenderConfig {
        display_mode: if display { DisplayMode::Block } else { DisplayMode::Inline },
        annotation: Some(latex.trim()),
        ..RenderConfig::default()
    };
    let mut out = String::new();
    pulldown_latex::push_mathml(&mut out, events.into_iter(), config).map_err(|e| e.to_string())?;
    Ok(out)
}

/// The first line of a message, without the excerpt some errors carry.
fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or_default().trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latex_becomes_typst_math_without_code() {
        assert_eq!(to_typst(r"\frac{T_1}{T_p}").unwrap(), "frac(T _(1 ),T _(p ))");
        assert!(to_typst(r"\text{speedup}").unwrap().starts_with("#textmath["));
        // Text that looks like code stays text: mitex escapes it.
        let text = to_typst(r#"\text{#read("x")}"#).unwrap();
        assert!(text.contains("\\#read"), "{text}");
        assert!(to_typst(r"\verb|x|").is_err());
        assert!(to_typst("").is_err() && to_typst(&"x".repeat(MAX_FORMULA + 1)).is_err());
    }

    #[test]
    fn only_mitex_s_own_hash_is_code_free() {
        assert!(code_free("#textmath[a \\# b]; x"));
        assert!(code_free("\\#x"));
        for code in ["#read(\"x\")", "\\\\#read(\"x\")", "a #x"] {
            assert!(!code_free(code), "{code}");
        }
    }

    #[test]
    fn an_equation_evaluates_the_conversion_in_mitex_s_scope() {
        let markup = equation(r"E = mc^2", false).unwrap();
        assert_eq!(
            markup,
            "#math.equation(block: false, alt: \"E = mc^2\", eval(\"E  =  m c ^(2 )\", mode: \"math\", scope: mitex-scope));"
        );
    }

    #[test]
    fn latex_becomes_mathml_with_its_source() {
        let html = mathml(r"\frac{T_1}{T_p}", true).unwrap();
        assert!(html.starts_with("<math display=\"block\">"), "{html}");
        assert!(html.contains("<mfrac>") && html.contains(r"\frac{T_1}{T_p}"), "{html}");
        assert!(mathml(r"\frac{a", false).is_err());
    }
}
