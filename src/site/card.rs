//! Each study's card for shared links (Open Graph's image): its title, its
//! answer's start and its first headline claims, drawn as SVG at build time
//! and rasterised to PNG (what link previews show) by resvg with the fonts
//! built into report.

use std::sync::OnceLock;

use super::entry::Entry;

/// The card as SVG, beside the study's page.
pub const SVG: &str = "card.svg";

/// The card as PNG, which `og:image` names.
pub const PNG: &str = "card.png";

/// The card's size in pixels, as link previews draw it.
const WIDTH: u32 = 1200;
const HEIGHT: u32 = 630;

/// The face the card is set in: one of the fonts built into report.
const FAMILY: &str = "Libertinus Serif";

/// The card of `entry`, a study of the site titled `site`.
pub fn svg(entry: &Entry, site: &str) -> String {
    let e = |s: &str| tera::escape_html(s);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"{FAMILY}\">\n\
         <rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#ffffff\"/>\n<rect width=\"{WIDTH}\" height=\"12\" fill=\"#1f4e79\"/>\n\
         <text x=\"64\" y=\"84\" font-size=\"28\" fill=\"#555555\">{}</text>\n",
        e(site)
    );
    let mut y = 150;
    for line in wrap(&entry.title, 40).iter().take(2) {
        svg += &format!(
            "<text x=\"64\" y=\"{y}\" font-size=\"52\" font-weight=\"bold\" fill=\"#111111\">{}</text>\n",
            e(line)
        );
        y += 62;
    }
    y += 10;
    for line in wrap(&entry.answer, 70).iter().take(3) {
        svg += &format!(
            "<text x=\"64\" y=\"{y}\" font-size=\"30\" fill=\"#333333\">{}</text>\n",
            e(line)
        );
        y += 40;
    }
    y = y.max(420);
    for claim in entry.claims.iter().take(3) {
        let label = wrap(&claim.label, 44).into_iter().next().unwrap_or_default();
        svg += &format!(
            "<text x=\"64\" y=\"{y}\" font-size=\"30\" fill=\"#111111\">{}: <tspan font-weight=\"bold\">{}</tspan> <tspan fill=\"#555555\">{}</tspan></text>\n",
            e(&label),
            e(&claim.value),
            e(&claim.verdict)
        );
        y += 46;
    }
    svg + "</svg>\n"
}

/// `text` in lines of at most `width` characters, broken between words
/// (a word longer than a line is a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The fonts the card may use: report's built-in faces, parsed once.
fn fonts() -> std::sync::Arc<resvg::usvg::fontdb::Database> {
    static FONTS: OnceLock<std::sync::Arc<resvg::usvg::fontdb::Database>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut db = resvg::usvg::fontdb::Database::new();
            for face in typst_assets::fonts() {
                db.load_font_data(face.to_vec());
            }
            std::sync::Arc::new(db)
        })
        .clone()
}

/// The card image of the study built as `site`, if that build's card was
/// `svg`: the same SVG gives the same pixels, so a rebuild that leaves the
/// card as it was (an edit of the prose) need not rasterise it again.
pub fn kept<'a>(site: &'a crate::output::Site, svg: &str) -> Option<&'a [u8]> {
    let same = site.files.get(std::path::Path::new(SVG))? == svg.as_bytes();
    same.then(|| site.files.get(std::path::Path::new(PNG)).map(Vec::as_slice)).flatten()
}

/// `svg` rasterised to PNG at its own size.
pub fn png(svg: &str) -> anyhow::Result<Vec<u8>> {
    let options = resvg::usvg::Options { fontdb: fonts(), ..Default::default() };
    let tree = resvg::usvg::Tree::from_str(svg, &options)?;
    let mut pixmap = resvg::tiny_skia::Pixmap::new(WIDTH, HEIGHT)
        .ok_or_else(|| anyhow::anyhow!("cannot make a card of {WIDTH} × {HEIGHT} pixels"))?;
    resvg::render(&tree, resvg::tiny_skia::Transform::default(), &mut pixmap.as_mut());
    Ok(pixmap.encode_png()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_is_kept_only_when_its_svg_is_the_same() {
        let mut site = crate::output::Site::default();
        site.insert(SVG, b"<svg>a</svg>".to_vec());
        site.insert(PNG, b"png of a".to_vec());
        assert_eq!(kept(&site, "<svg>a</svg>"), Some(&b"png of a"[..]));
        assert_eq!(kept(&site, "<svg>b</svg>"), None);
        assert_eq!(kept(&crate::output::Site::default(), "<svg>a</svg>"), None);
    }

    #[test]
    fn lines_break_between_words() {
        assert_eq!(wrap("aa bb cc dd", 5), ["aa bb", "cc dd"]);
        assert_eq!(wrap("averylongword b", 4), ["averylongword", "b"]);
    }
}
