//! SVG post-processing: accessibility (the chart a `role="group"` named by its
//! `<title>` and described by its `<desc>`, the drawing hidden from assistive
//! technology, every data point a `role="img"` named by its own `<title>`, which
//! is also its hover text and the page script's focus text), and
//! `currentColor` for text and axes so that the chart follows the page's
//! light or dark theme.

use super::canvas::Hover;

/// Escape text for XML content and attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Finish the SVG of chart `id`: accessible name and description, the drawing
/// in a `<g aria-hidden="true">`, and the points, each named by its details.
pub fn finish(svg: &str, id: &str, title: &str, description: &str, hovers: &[Hover]) -> String {
    let svg = svg.replace("\"#000000\"", "\"currentColor\"").replace(" opacity=\"1\"", "");
    let open_end = svg
        .find("<svg")
        .and_then(|start| svg[start..].find('>').map(|end| start + end))
        .unwrap_or(0);
    let mut out = String::with_capacity(svg.len() + 200 * hovers.len());
    out.push_str(&svg[..open_end]);
    out.push_str(&format!(
        " class=\"chart\" role=\"group\" aria-labelledby=\"{id}-title\" aria-describedby=\"{id}-desc\"><title id=\"{id}-title\">{}</title><desc id=\"{id}-desc\">{}</desc>\n<g aria-hidden=\"true\">",
        escape(title), escape(description)
    ));
    let rest = &svg[open_end + 1..];
    let close = rest.rfind("</svg>").unwrap_or(rest.len());
    out.push_str(rest[..close].trim_end());
    // The points' invisible fill and their hit area, set once on the group
    // that every point inherits them from.
    out.push_str(
        "\n</g>\n<g class=\"points\" fill=\"#000\" fill-opacity=\"0\" pointer-events=\"all\">\n",
    );
    for h in hovers {
        out.push_str(&format!(
            "<circle class=\"s{}\" cx=\"{}\" cy=\"{}\" r=\"8\" role=\"img\"><title>{}</title></circle>\n",
            h.style, h.px, h.py, escape(&h.text)
        ));
    }
    out.push_str("</g>\n</svg>\n");
    out
}

/// Mark every element drawn in a series' colour with the class `sN` (N its
/// style index), so that the page can show or hide a series.
pub fn tag_series(svg: &str, styles: &[usize]) -> String {
    let colours: Vec<(usize, String)> = styles
        .iter()
        .map(|&s| {
            let c = super::canvas::colour(s);
            (s, format!("\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2))
        })
        .collect();
    let mut out = String::with_capacity(svg.len() + 64);
    for line in svg.split_inclusive('\n') {
        let found = colours.iter().find(|(_, hex)| line.contains(hex.as_str()));
        match (found, line.find(' ')) {
            (Some((style, _)), Some(space))
                if line.starts_with('<') && !line.contains(" class=") =>
            {
                out.push_str(&line[..space]);
                out.push_str(&format!(" class=\"s{style}\""));
                out.push_str(&line[space..]);
            }
            _ => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_title_desc_and_hover_points() {
        let svg = "<svg width=\"10\" height=\"10\" xmlns=\"http://www.w3.org/2000/svg\">\n<text fill=\"#000000\">a</text>\n</svg>\n";
        let hovers = [Hover { px: 1, py: 2, text: "x <1>".into(), style: 0 }];
        let out = finish(svg, "c", "T & t", "D", &hovers);
        assert!(out.starts_with("<svg width=\"10\" height=\"10\" xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" role=\"group\""), "{out}");
        assert!(
            out.contains("<title id=\"c-title\">T &amp; t</title><desc id=\"c-desc\">D</desc>"),
            "{out}"
        );
        assert!(out.contains("fill=\"currentColor\""), "{out}");
        assert!(out.contains("<g class=\"points\" fill=\"#000\" fill-opacity=\"0\" pointer-events=\"all\">\n<circle class=\"s0\" cx=\"1\" cy=\"2\" r=\"8\" role=\"img\"><title>x &lt;1&gt;</title></circle>"), "{out}");
        assert!(out.ends_with("</g>\n</svg>\n"), "{out}");
    }
}
