//! The SVG document of a chart, written as plotters draws it: a plotters
//! [`DrawingBackend`] ([`Backend`]) that writes each shape into the document,
//! and the handle the drawing code holds ([`Svg`]) to open the groups that
//! give the shapes their meaning (a series' `sN` class, the axes, the
//! legend) and to add the points' hover targets.
//!
//! The document is accessible as it is written: the chart is a
//! `role="group"` named by its `<title>` and described by its `<desc>`, the
//! drawing is hidden from assistive technology, and every data point is a
//! `role="img"` named by its own `<title>`, which is also its hover text
//! and the page script's focus text. Text and axes are drawn in [`INK`],
//! written `currentColor`, so that the chart follows the page's light or
//! dark theme.

use std::cell::RefCell;
use std::convert::Infallible;
use std::fmt::Write as _;
use std::rc::Rc;

use plotters::prelude::RGBColor;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
    FontStyle, FontTransform,
};

/// The colour of text and axes: the page's text colour, written as
/// `currentColor`.
pub const INK: RGBColor = RGBColor(0, 0, 0);

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

/// What names a chart for assistive technology: the id of its figure, its
/// accessible name and its description in words.
#[derive(Debug, Clone, Copy)]
pub struct Labels<'a> {
    /// The chart's id (`fig-ID` on the page), which prefixes the ids of
    /// its `<title>` and `<desc>`.
    pub id: &'a str,
    /// The accessible name.
    pub title: &'a str,
    /// What the chart shows, in words.
    pub description: &'a str,
}

/// The chart's SVG document being written: the drawing, which the
/// [`Backend`] appends to, and the points' hover targets, drawn last so
/// that they lie above every mark.
pub struct Svg {
    size: (u32, u32),
    drawing: Rc<RefCell<String>>,
    points: RefCell<String>,
    open: RefCell<usize>,
}

impl Svg {
    /// An empty chart of `size` SVG pixels.
    pub fn new(size: (u32, u32)) -> Svg {
        Svg { size, drawing: Rc::default(), points: RefCell::default(), open: RefCell::new(0) }
    }

    /// The plotters backend that draws into this document.
    pub fn backend(&self) -> Backend {
        Backend { size: self.size, drawing: Rc::clone(&self.drawing) }
    }

    /// Open a group with the attributes `attributes` (values escaped);
    /// what is drawn until [`Svg::close`] goes inside it.
    pub fn open(&self, attributes: &[(&str, &str)]) {
        let mut drawing = self.drawing.borrow_mut();
        drawing.push_str("<g");
        push_attributes(&mut drawing, attributes);
        drawing.push_str(">\n");
        *self.open.borrow_mut() += 1;
    }

    /// Open a group whose `<title>` is `title` (the whole text of a label
    /// drawn cut short), closed by [`Svg::close`].
    pub fn open_titled(&self, title: &str) {
        self.open(&[]);
        let _ = writeln!(self.drawing.borrow_mut(), "<title>{}</title>", escape(title));
    }

    /// Open the group of the series of style `style`: class `sN`, which
    /// the page's buttons show or hide.
    pub fn open_series(&self, style: usize) {
        self.open(&[("class", &format!("s{style}"))]);
    }

    /// Close the group opened last.
    pub fn close(&self) {
        let mut open = self.open.borrow_mut();
        if *open > 0 {
            *open -= 1;
            self.drawing.borrow_mut().push_str("</g>\n");
        }
    }

    /// A data point of the series of style `style` at pixel `(px, py)`,
    /// named by `text`: its hover target and focus stop.
    pub fn point(&self, (px, py): BackendCoord, style: usize, text: &str) {
        let _ = writeln!(
            self.points.borrow_mut(),
            "<circle class=\"s{style}\" cx=\"{px}\" cy=\"{py}\" r=\"8\" role=\"img\"><title>{}</title></circle>",
            escape(text)
        );
    }

    /// The whole document, named and described by `labels`.
    pub fn finish(self, labels: Labels) -> String {
        for _ in 0..*self.open.borrow() {
            self.drawing.borrow_mut().push_str("</g>\n");
        }
        let (w, h) = self.size;
        let id = labels.id;
        let drawing = self.drawing.borrow();
        let points = self.points.borrow();
        let mut out = String::with_capacity(drawing.len() + points.len() + 600);
        let _ = write!(
            out,
            "<svg width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" role=\"group\" aria-labelledby=\"{id}-title\" aria-describedby=\"{id}-desc\"><title id=\"{id}-title\">{}</title><desc id=\"{id}-desc\">{}</desc>\n<g aria-hidden=\"true\">\n",
            escape(labels.title),
            escape(labels.description),
        );
        out.push_str(&drawing);
        // The points' invisible fill and their hit area, set once on the group
        // that every point inherits them from.
        out.push_str(
            "</g>\n<g class=\"points\" fill=\"#000\" fill-opacity=\"0\" pointer-events=\"all\">\n",
        );
        out.push_str(&points);
        out.push_str("</g>\n</svg>\n");
        out
    }
}

/// The plotters backend of a chart: each shape becomes one SVG element of
/// the [`Svg`] it came from, in the group open at the time.
pub struct Backend {
    size: (u32, u32),
    drawing: Rc<RefCell<String>>,
}

impl Backend {
    /// Write `<tag` with `attributes`, then `/>` (or `>` and `text`
    /// and the closing tag).
    fn element(&self, tag: &str, attributes: &[(&str, &str)], text: Option<&str>) {
        let mut drawing = self.drawing.borrow_mut();
        drawing.push('<');
        drawing.push_str(tag);
        push_attributes(&mut drawing, attributes);
        match text {
            None => drawing.push_str("/>\n"),
            Some(text) => {
                let _ = write!(drawing, ">\n{}\n</{tag}>\n", escape(text));
            }
        }
    }
}

/// ` key="value"` for each attribute, values escaped; an empty value is
/// left out.
fn push_attributes(out: &mut String, attributes: &[(&str, &str)]) {
    for (key, value) in attributes.iter().filter(|(_, v)| !v.is_empty()) {
        let _ = write!(out, " {key}=\"{}\"", escape(value));
    }
}

/// The paint of `color`: `currentColor` for [`INK`], else `#RRGGBB`.
fn paint(color: BackendColor) -> String {
    let (r, g, b) = color.rgb;
    if (r, g, b) == (INK.0, INK.1, INK.2) {
        "currentColor".to_string()
    } else {
        format!("#{r:02X}{g:02X}{b:02X}")
    }
}

/// The `fill` and `stroke` of a shape in `color`, filled or outlined.
fn fill_and_stroke(color: BackendColor, filled: bool) -> [String; 2] {
    let none = "none".to_string();
    if filled { [paint(color), none] } else { [none, paint(color)] }
}

/// The opacity of `color`, empty (left out) when opaque.
fn opacity(color: BackendColor) -> String {
    if color.alpha >= 1.0 { String::new() } else { color.alpha.to_string() }
}

/// The `points` attribute of a polyline or polygon.
fn points(path: impl IntoIterator<Item = BackendCoord>) -> String {
    path.into_iter().fold(String::new(), |mut s, (x, y)| {
        let _ = write!(s, "{x},{y} ");
        s
    })
}

type Drawn = Result<(), DrawingErrorKind<Infallible>>;

impl DrawingBackend for Backend {
    type ErrorType = Infallible;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Drawn {
        Ok(())
    }

    fn present(&mut self) -> Drawn {
        Ok(())
    }

    fn draw_pixel(&mut self, (x, y): BackendCoord, color: BackendColor) -> Drawn {
        if color.alpha > 0.0 {
            let (x, y) = (x.to_string(), y.to_string());
            let fill = paint(color);
            let attributes = [("x", &*x), ("y", &*y), ("width", "1"), ("height", "1")];
            let paint = [("stroke", "none"), ("opacity", &opacity(color)), ("fill", &fill)];
            self.element("rect", &[&attributes[..], &paint[..]].concat(), None);
        }
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Drawn {
        let color = style.color();
        if color.alpha > 0.0 {
            let [x1, y1, x2, y2] = [from.0, from.1, to.0, to.1].map(|v| v.to_string());
            self.element(
                "line",
                &[
                    ("opacity", &opacity(color)),
                    ("stroke", &paint(color)),
                    ("stroke-width", &style.stroke_width().to_string()),
                    ("x1", &x1),
                    ("y1", &y1),
                    ("x2", &x2),
                    ("y2", &y2),
                ],
                None,
            );
        }
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn {
        let color = style.color();
        if color.alpha > 0.0 {
            let [fill, stroke] = fill_and_stroke(color, fill);
            let [x, y] = [upper_left.0, upper_left.1].map(|v| v.to_string());
            let width = (bottom_right.0 - upper_left.0).to_string();
            let height = (bottom_right.1 - upper_left.1).to_string();
            self.element(
                "rect",
                &[
                    ("x", &x),
                    ("y", &y),
                    ("width", &width),
                    ("height", &height),
                    ("opacity", &opacity(color)),
                    ("fill", &fill),
                    ("stroke", &stroke),
                ],
                None,
            );
        }
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn {
        let color = style.color();
        if color.alpha > 0.0 {
            self.element(
                "polyline",
                &[
                    ("fill", "none"),
                    ("opacity", &opacity(color)),
                    ("stroke", &paint(color)),
                    ("stroke-width", &style.stroke_width().to_string()),
                    ("points", &points(path)),
                ],
                None,
            );
        }
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn {
        let color = style.color();
        if color.alpha > 0.0 {
            let attributes =
                [("opacity", &*opacity(color)), ("fill", &paint(color)), ("points", &points(path))];
            self.element("polygon", &attributes, None);
        }
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        (cx, cy): BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Drawn {
        let color = style.color();
        if color.alpha > 0.0 {
            let [fill, stroke] = fill_and_stroke(color, fill);
            let [cx, cy, r] = [cx, cy, radius as i32].map(|v| v.to_string());
            self.element(
                "circle",
                &[
                    ("cx", &cx),
                    ("cy", &cy),
                    ("r", &r),
                    ("opacity", &opacity(color)),
                    ("fill", &fill),
                    ("stroke", &stroke),
                    ("stroke-width", &style.stroke_width().to_string()),
                ],
                None,
            );
        }
        Ok(())
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        (x, y): BackendCoord,
    ) -> Drawn {
        let color = style.color();
        // An empty label (a category's, which its kind draws) writes nothing.
        if color.alpha > 0.0 && !text.is_empty() {
            let anchor = match style.anchor().h_pos {
                HPos::Left => "start",
                HPos::Right => "end",
                HPos::Center => "middle",
            };
            let dy = match style.anchor().v_pos {
                VPos::Top => "0.76em",
                VPos::Center => "0.5ex",
                VPos::Bottom => "-0.5ex",
            };
            let weight = match style.style() {
                FontStyle::Bold => "bold",
                _ => "",
            };
            let angle = match style.transform() {
                FontTransform::Rotate90 => "90",
                FontTransform::Rotate180 => "180",
                FontTransform::Rotate270 => "270",
                _ => "",
            };
            let transform =
                if angle.is_empty() { String::new() } else { format!("rotate({angle}, {x}, {y})") };
            let [x, y] = [x, y].map(|v| v.to_string());
            self.element(
                "text",
                &[
                    ("x", &x),
                    ("y", &y),
                    ("dy", dy),
                    ("text-anchor", anchor),
                    ("font-family", style.family().as_str()),
                    // plotters asks for 1.24 times the size it means (see canvas::font).
                    ("font-size", &(style.size() / 1.24).to_string()),
                    ("opacity", &opacity(color)),
                    ("fill", &paint(color)),
                    ("font-weight", weight),
                    ("transform", &transform),
                ],
                Some(text),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::*;

    #[test]
    fn shapes_are_written_in_their_groups_with_title_desc_and_points() {
        let svg = Svg::new((10, 10));
        {
            let root = svg.backend().into_drawing_area();
            svg.open_series(2);
            root.draw(&PathElement::new(vec![(0, 0), (5, 5)], RGBColor(1, 2, 255))).unwrap();
            svg.close();
            let style = TextStyle::from(("serif", 12.4).into_font()).color(&INK);
            root.draw(&Text::new("a < b", (1, 2), style)).unwrap();
        }
        svg.point((1, 2), 0, "x <1>");
        let out = svg.finish(Labels { id: "c", title: "T & t", description: "D" });
        assert!(out.starts_with("<svg width=\"10\" height=\"10\" viewBox=\"0 0 10 10\" xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" role=\"group\" aria-labelledby=\"c-title\" aria-describedby=\"c-desc\"><title id=\"c-title\">T &amp; t</title><desc id=\"c-desc\">D</desc>\n<g aria-hidden=\"true\">\n"), "{out}");
        assert!(out.contains("<g class=\"s2\">\n<polyline fill=\"none\" stroke=\"#0102FF\" stroke-width=\"1\" points=\"0,0 5,5 \"/>\n</g>\n"), "{out}");
        assert!(
            out.contains("font-size=\"10\" fill=\"currentColor\">\na &lt; b\n</text>"),
            "{out}"
        );
        assert!(out.contains("<g class=\"points\" fill=\"#000\" fill-opacity=\"0\" pointer-events=\"all\">\n<circle class=\"s0\" cx=\"1\" cy=\"2\" r=\"8\" role=\"img\"><title>x &lt;1&gt;</title></circle>\n</g>\n</svg>\n"), "{out}");
    }
}
