//! The blocks of the paper that are not prose: the environments table,
//! chart figures (set two-up) and images.

use super::Converter;
use super::typst_syntax;
use crate::markdown::checks;
use crate::markdown::document::{self, ChartFigure, Link};

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
        self.mark(offset);
        if let Some(chart) = self.refs.and_then(|r| r.charts.get(&figure.id)) {
            self.charts.push(typst_syntax::figure(chart, &figure.caption, "100%"));
        }
    }

    /// An environments directive, which starts at `offset` of the Markdown:
    /// the environments side by side.
    pub(super) fn environments(&mut self, offset: usize) {
        self.flush();
        self.mark(offset);
        let environments = self.refs.map(|r| r.environments).unwrap_or_default();
        self.push(&typst_syntax::environments(environments));
    }

    /// An image: a local one is embedded, a remote one becomes a link
    /// named by its alt text.
    pub(super) fn image(&mut self, image: &Link) {
        let alt = document::plain(&image.inlines, false);
        let url = &image.url;
        self.push(&typst_syntax::image(url, &alt, checks::is_remote(url)));
    }
}
