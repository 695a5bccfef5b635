//! Formulas for the web page: the `$…$` and `$$…$$` of the content, in
//! Typst's math syntax, typeset by the paper's own engine and fonts and
//! exported as SVG, so that the page shows, without JavaScript, the very
//! formula the paper prints. A formula may not hold code (`#`), so it can
//! neither read a file nor run for long; its length is bounded.

use std::sync::Arc;

use typst::layout::{Abs, Frame, FrameItem, Point};
use typst_layout::PagedDocument;

use super::{PaperProject, PaperWorld};

/// Most bytes of one formula.
pub const MAX_FORMULA: usize = 4096;

/// The text size a formula is typeset at, in points: the SVG is scaled in
/// `em` from it, so that it takes the size of the text around it.
const SIZE: f64 = 12.0;

/// The colour a formula is typeset in: black, Typst's own default, set
/// explicitly. typst-svg writes it as a `fill` on each glyph and a `stroke`
/// on each rule (a fraction's bar); the page draws both in the colour of
/// the text around them by a rule of its stylesheet (`svg.math [fill]`,
/// `svg.math [stroke]` in `defaults/style.css`), which wins over an SVG
/// presentation attribute, so the SVG is not rewritten for it.
const INK: &str = "#000000";

/// Why `formula` cannot be typeset, if it cannot.
pub fn refused(formula: &str) -> Option<String> {
    if formula.len() > MAX_FORMULA {
        Some(format!("a formula is at most {MAX_FORMULA} bytes long"))
    } else if formula.contains('#') {
        Some("a formula may not hold code (`#`)".to_string())
    } else if formula.trim().is_empty() {
        Some("the formula is empty".to_string())
    } else {
        None
    }
}

/// Whether `formula` can go into Typst markup as math: it holds no code and
/// parses without an error (a `//` in it would start a comment).
pub fn valid(formula: &str) -> bool {
    refused(formula).is_none() && !typst::syntax::parse(&format!("${formula}$")).diagnosis().errors
}

/// `formula` typeset by Typst, in line or displayed, as an SVG element for
/// HTML: sized in `em` of the text around it and set on its baseline, drawn
/// in the text's colour, its ids prefixed with `id` (unique in the page), and
/// named for assistive technology by its source. `Err` holds Typst's message.
/// Its ink is black (`INK`), which the page's stylesheet draws in `currentColor`.
pub fn svg(formula: &str, display: bool, id: &str) -> Result<String, String> {
    if let Some(why) = refused(formula) {
        return Err(why);
    }
    let body = if display { format!("$ {formula} $") } else { format!("${formula}$") };
    let main = format!(
        "#set page(width: auto, height: auto, margin: 0pt, fill: none)\n\
         #set text(size: {SIZE}pt, fill: rgb(\"{INK}\"), top-edge: \"bounds\", bottom-edge: \"bounds\")\n{body}\n"
    );
    let project = PaperProject {
        main,
        files: Default::default(),
        date: None,
        standard: crate::config::PdfStandard::None,
        fonts: Vec::new(),
        families: Vec::new(),
    };
    let world = PaperWorld::new(&project, Arc::clone(super::embedded()));
    let document = typst::compile::<PagedDocument>(&world).output.map_err(|errors| {
        let messages: Vec<String> = errors.iter().map(|e| e.message.to_string()).collect();
        messages.join("; ")
    })?;
    let page = document.pages().first().ok_or("the formula gave no page")?;
    let options = typst_svg::SvgOptions { render_bleed: false, pretty: false };
    let svg = typst_svg::svg(page, &options);
    let size = page.frame.size();
    let depth = baseline(&page.frame, Point::zero()).map_or(Abs::zero(), |b| size.y - b);
    Ok(for_html(&svg, formula, id, [size.x.to_pt(), size.y.to_pt(), depth.to_pt()]))
}

/// The baseline of the first line in `frame`, from its top.
fn baseline(frame: &Frame, at: Point) -> Option<Abs> {
    if frame.has_baseline() {
        return Some(at.y + frame.baseline());
    }
    frame.items().find_map(|(pos, item)| match item {
        FrameItem::Group(group) => baseline(&group.frame, at + *pos),
        FrameItem::Text(_) => Some(at.y + pos.y),
        _ => None,
    })
}

/// Typst's SVG made an inline element of the page: the size in `em`
/// (`[width, height, depth below the baseline]` in points), ids prefixed, a
/// role and a name. Its colours are left as Typst wrote them ([`INK`]): the
/// stylesheet draws them in the text's colour.
fn for_html(svg: &str, formula: &str, id: &str, [width, height, depth]: [f64; 3]) -> String {
    let em = |pt: f64| format!("{:.3}em", pt / SIZE);
    let body = svg.find('>').map_or(svg, |end| &svg[end + 1..]);
    let body = two_decimals(body)
        .replace(" fill-rule=\"nonzero\"", "")
        .replace("id=\"", &format!("id=\"{id}-"))
        .replace("href=\"#", &format!("href=\"#{id}-"))
        .replace("url(#", &format!("url(#{id}-"));
    let name = crate::charts::svg::escape(formula.trim());
    format!(
        "<svg class=\"math\" xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" \
         viewBox=\"0 0 {width:.3} {height:.3}\" style=\"width: {}; height: {}; vertical-align: -{}\" \
         role=\"img\" aria-label=\"{name}\">{body}",
        em(width),
        em(height),
        em(depth)
    )
}

/// `svg` with every number of more than two decimals cut to two: a
/// hundredth of a point is finer than any screen shows.
fn two_decimals(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut chars = svg.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        out.push(c);
        if c != '.' || !svg[..i].ends_with(|d: char| d.is_ascii_digit()) {
            continue;
        }
        let digits: String =
            std::iter::from_fn(|| chars.next_if(|(_, d)| d.is_ascii_digit()).map(|(_, d)| d))
                .collect();
        out.push_str(&digits[..digits.len().min(2)]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_formula_becomes_an_inline_svg_named_by_its_source() {
        let svg = svg("E(p) = S(p) / p", false, "m1").unwrap();
        assert!(svg.starts_with("<svg class=\"math\""), "{svg}");
        assert!(svg.contains("aria-label=\"E(p) = S(p) / p\""), "{svg}");
        assert!(svg.contains("vertical-align: -"), "{svg}");
        assert!(!svg.contains("id=\"g"), "{svg}");
        // The ink is Typst's, for the stylesheet to draw in the text's colour.
        assert!(svg.contains(&format!("fill=\"{INK}\"")) && !svg.contains("currentColor"), "{svg}");
        assert!(svg.ends_with("</svg>") || svg.ends_with("</svg>\n"), "{svg}");
    }

    #[test]
    fn numbers_keep_two_decimals() {
        assert_eq!(two_decimals("M 0 0m 4.26 5.304c -0.528 1"), "M 0 0m 4.26 5.30c -0.52 1");
        assert_eq!(two_decimals("id=\"a.b\" 3. x"), "id=\"a.b\" 3. x");
    }

    #[test]
    fn only_code_free_formulas_that_parse_are_valid() {
        assert!(valid("S(p) = T(1) / T(p)") && valid("sum_(i=1)^n x_i"));
        for bad in ["#x", "a // b", "frac(a", "5![alt](https://example.org/x.png)", ""] {
            assert!(!valid(bad), "{bad}");
        }
    }

    #[test]
    fn code_and_errors_are_refused() {
        assert!(svg("#read(\"/etc/passwd\")", false, "m").unwrap_err().contains("code"));
        assert!(svg(&"x".repeat(MAX_FORMULA + 1), false, "m").is_err());
        assert!(svg("frac(a", false, "m").is_err());
    }
}
