//! Which of a page's top-level blocks an output shows, by the layout's
//! rules for headings (docs/layout.md), the same for the web page and the
//! paper: no heading without anything under it (a "Limitations" whose
//! caveats are all elsewhere), and no first heading that repeats the
//! study's title, which the page's `<h1>` and the paper's title block
//! already show.

use pulldown_cmark::HeadingLevel;

use crate::markdown::document::{self, Block, BlockKind, Output};

/// The blocks of `blocks` that `output` shows, in order: those shown in
/// it, less empty headings and a first heading equal to `title`; and
/// whether the headings move one level up, as that first heading was the
/// page's only `#` heading (its `##` sections become the page's `<h2>`
/// and the paper's numbered sections).
pub(super) fn shown<'b>(
    blocks: &'b [Block],
    title: Option<&str>,
    output: Output,
) -> (Vec<&'b Block>, bool) {
    let mut shown: Vec<&Block> = blocks.iter().filter(|b| b.shown_in(output)).collect();
    let mut promote = false;
    if let (Some(title), Some(BlockKind::Heading(h))) = (title, shown.first().map(|b| &b.kind))
        && words(&document::plain(&h.inlines, false)) == words(title)
    {
        let top = |b: &&&Block| matches!(&b.kind, BlockKind::Heading(o) if o.level == h.level);
        promote = h.level == HeadingLevel::H1 && shown.iter().filter(top).count() == 1;
        shown.remove(0);
    }
    // Removing an empty heading can empty the one above it: repeat until none is.
    while let Some(at) = (0..shown.len()).find(|&i| empty(&shown, i)) {
        shown.remove(at);
    }
    (shown, promote)
}

/// Whether block `i` of `shown` is a heading with nothing under it: the
/// next block is a heading of its level or higher, or there is none.
fn empty(shown: &[&Block], i: usize) -> bool {
    let BlockKind::Heading(h) = &shown[i].kind else { return false };
    match shown.get(i + 1).map(|b| &b.kind) {
        None => true,
        Some(BlockKind::Heading(next)) => next.level <= h.level,
        Some(_) => false,
    }
}

/// A text's words, lowercased: a heading "Which compressor, at which
/// level?" repeats the title "Which compressor at which level".
fn words(text: &str) -> Vec<String> {
    let words = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty());
    words.map(str::to_lowercase).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::parse;

    fn kept(markdown: &str, title: Option<&str>) -> Vec<String> {
        let body = parse::text(markdown);
        let (shown, _) = shown(&body.blocks, title, Output::Page);
        shown.iter().map(|b| format!("{:?}", b.kind).chars().take(12).collect()).collect()
    }

    #[test]
    fn an_empty_heading_goes_and_so_does_a_parent_it_leaves_empty() {
        let md = "# A\n\ntext\n\n## B\n\n### C\n\n## D\n\nmore\n\n## E\n";
        let shown = kept(md, None);
        // A, text, D, more: B (only C under it), C and E (nothing under them) go.
        assert_eq!(shown.len(), 4, "{shown:?}");
    }

    #[test]
    fn a_first_heading_repeating_the_title_goes() {
        let md = "# Which compressor, at which level?\n\ntext\n";
        assert_eq!(kept(md, Some("Which compressor at which level")).len(), 1);
        assert_eq!(kept(md, Some("Another title")).len(), 2);
        let body = parse::text("# T\n\n## A\n\ntext\n");
        assert!(shown(&body.blocks, Some("T"), Output::Paper).1, "the sections move up");
        let body = parse::text("# T\n\ntext\n\n# Other\n\nmore\n");
        assert!(!shown(&body.blocks, Some("T"), Output::Page).1, "another # heading: levels kept");
        // Not first: kept.
        assert_eq!(kept("text\n\n# Title\n\nmore\n", Some("Title")).len(), 3);
    }
}
