//! The blocks of the paper that are not prose: code blocks, the
//! environments table, chart figures (set two-up) and images.

use super::Converter;
use super::typst_syntax;
use crate::markdown::checks;
use crate::markdown::document::ChartFigure;

impl Converter<'_> {
    /// Write the chart figures gathered, two by two.
    pub(super) fn flush_charts(&mut self) {
        let charts = std::mem::take(&mut self.charts);
        self.push(&typst_syntax::figures(&charts));
    }

    /// A chart directive, which starts at `offset` of the Markdown: its
    /// figure is gathered, to be set two-up with the next.
    pub(super) fn chart(&mut self, figure: &ChartFigure, offset: usize) {
        self.flush();
        self.block(offset);
        if let Some(chart) = self.refs.and_then(|r| r.charts.get(&figure.id)) {
            self.charts.push(typst_syntax::figure(chart, &figure.caption, "100%"));
        }
    }

    /// An environments directive, which starts at `offset` of the Markdown:
    /// the environments side by side.
    pub(super) fn environments(&mut self, offset: usize) {
        self.flush();
        self.block(offset);
        let environments = self.refs.map(|r| r.environments).unwrap_or_default();
        self.push(&typst_syntax::environments(environments));
    }

    /// Close a code block: its raw code.
    pub(super) fn end_code_block(&mut self) {
        let (lang, code) = self.code.take().unwrap_or_default();
        self.push(&typst_syntax::raw_block(lang.as_deref(), &code));
    }

    /// Close an image: a local one is embedded, a remote one becomes a link
    /// named by its alt text.
    pub(super) fn end_image(&mut self) {
        let alt = self.image_alt.take().unwrap_or_default();
        let url = std::mem::take(&mut self.image_url);
        self.push(&typst_syntax::image(&url, &alt, checks::is_remote(&url)));
    }
}
