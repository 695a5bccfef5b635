//! The blocks of the paper that are not prose: code blocks (raw code, the
//! environments table, chart figures set two-up) and images.

use super::Converter;
use super::typst_syntax;
use crate::markdown::{checks, sections};

impl Converter<'_> {
    /// Write the chart figures gathered, two by two.
    pub(super) fn flush_charts(&mut self) {
        let charts = std::mem::take(&mut self.charts);
        self.push(&typst_syntax::figures(&charts));
    }

    /// Close a code block: a chart figure (gathered, to be set two-up with
    /// the next), the environments, or raw code.
    pub(super) fn end_code_block(&mut self) {
        let (lang, code) = self.code.take().unwrap_or_default();
        let markup = match lang.as_deref() {
            Some("chart") => {
                let chart = sections::chart_id(&code)
                    .and_then(|id| self.refs.and_then(|r| r.charts.get(&id)));
                if let Some(chart) = chart {
                    self.charts.push(typst_syntax::figure(chart, "100%"));
                }
                return;
            }
            Some("environments") => {
                typst_syntax::environments(self.refs.map(|r| r.environments).unwrap_or_default())
            }
            lang => typst_syntax::raw_block(lang, &code),
        };
        self.push(&markup);
    }

    /// Close an image: a local one is embedded, a remote one becomes a link
    /// named by its alt text.
    pub(super) fn end_image(&mut self) {
        let alt = self.image_alt.take().unwrap_or_default();
        let url = std::mem::take(&mut self.image_url);
        self.push(&typst_syntax::image(&url, &alt, checks::is_remote(&url)));
    }
}
