//! The paragraph being converted: where it starts in the Markdown, how much
//! markup it has so far, and how many more escapes it may have. Typst lays
//! out a paragraph in time that grows with its length times the number of its
//! pieces (every escape, emphasis, code span, link or reference is one), so
//! both are bounded: escapes past [`ESCAPES_PER_PARAGRAPH`] turn text into
//! string literals (one piece each), and a paragraph over [`MAX_PARAGRAPH`]
//! is refused.

use crate::render::typst_syntax::ESCAPES_PER_PARAGRAPH;

/// Most bytes of Typst markup in one paragraph (heading, list item, table
/// cell): 64 KB of short pieces take seconds to typeset, a megabyte hours.
/// Code blocks, which Typst lays out line by line, are not paragraphs.
pub const MAX_PARAGRAPH: usize = 64 * 1024;

/// A paragraph's count.
#[derive(Debug, Default)]
pub(super) struct Paragraph {
    /// Whether what is written counts: not in code blocks, figures or tables.
    open: bool,
    /// The Markdown offset where the paragraph starts.
    start: usize,
    /// Bytes of markup written so far.
    bytes: usize,
    /// Escapes the paragraph may still have.
    pub(super) escapes: usize,
}

impl Paragraph {
    /// A paragraph starting at `start` of the Markdown, counted if `open`.
    pub(super) fn new(start: usize, open: bool) -> Self {
        Self { open, start, bytes: 0, escapes: ESCAPES_PER_PARAGRAPH }
    }

    /// Count `bytes` more of markup; the paragraph's start the first time
    /// it is longer than [`MAX_PARAGRAPH`].
    pub(super) fn count(&mut self, bytes: usize) -> Option<usize> {
        if !self.open {
            return None;
        }
        self.bytes += bytes;
        (self.bytes > MAX_PARAGRAPH).then(|| {
            self.open = false;
            self.start
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::typst_markup::convert;

    fn convert_plain(source: &str) -> crate::render::typst_markup::Markup {
        convert(&crate::markdown::parse::text(source), &crate::render::Refs::none())
    }

    #[test]
    fn a_paragraph_is_too_long_once() {
        let mut paragraph = Paragraph::new(7, true);
        assert_eq!(paragraph.count(MAX_PARAGRAPH), None);
        assert_eq!(paragraph.count(1), Some(7));
        assert_eq!(paragraph.count(MAX_PARAGRAPH), None);
        let mut code = Paragraph::new(0, false);
        assert_eq!(code.count(10 * MAX_PARAGRAPH), None);
    }

    #[test]
    fn a_paragraph_has_a_bounded_number_of_escapes() {
        // Soft breaks and inline HTML join the text around them into one run.
        let markdown = format!(
            "# T\n\nA *b* {}\n{} <i>\n\n- {}\n",
            "*".repeat(5000),
            "_".repeat(9),
            "#".repeat(99)
        );
        let m = convert_plain(&markdown);
        let escapes = |text: &str| text.matches('\\').count();
        let paragraph = &m.text[m.text.find("A #emph").unwrap()..m.text.find("#list").unwrap()];
        assert_eq!(escapes(paragraph), 0, "{paragraph}");
        assert!(paragraph.contains(&format!(
            "#emph[b]#\" {} {} <i>\";",
            "*".repeat(5000),
            "_".repeat(9)
        )));
        let item = &m.text[m.text.find("#list").unwrap()..];
        assert_eq!(item, format!("#list(\n[#\"{}\";],\n)\n\n", "#".repeat(99)));
        assert!(m.too_long.is_empty());
        // The next paragraph has its own budget.
        let m = convert_plain(&format!("{}\n\nB.\n", "*".repeat(99)));
        assert!(m.text.ends_with("\n\nB\\.\n\n"), "{}", m.text);
    }

    #[test]
    fn paragraphs_longer_than_the_limit_are_noted() {
        let long = "word ".repeat(MAX_PARAGRAPH / 5 + 1);
        let code = format!("```\n{}\n```\n", "x".repeat(2 * MAX_PARAGRAPH));
        let markdown = format!("# T\n\nShort.\n\n{long}\n\n{code}\n| a |\n|---|\n| {long} |\n");
        let m = convert_plain(&markdown);
        let cell = markdown.rfind("| word").unwrap() + 1;
        assert_eq!(m.too_long, [markdown.find("word").unwrap(), cell]);
    }
}
