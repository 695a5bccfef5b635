//! The data behind each figure and computed table, for readers to take
//! away: every chart as `charts/ID.svg`, its points as
//! `data/charts/ID.csv` with their metadata beside them
//! ([`super::chart_meta`]), and every computed table as
//! `data/tables/ID.csv`.

use super::renderer::{Files, Renderer};
use super::resolved::Resolved;
use crate::diagnostic::Diagnostics;

/// The output of the figures' and tables' data.
#[derive(Debug, Clone, Copy)]
pub struct Downloads;

impl Renderer for Downloads {
    fn name(&self) -> &'static str {
        "downloads"
    }

    fn render(&self, study: &Resolved) -> Result<Files, Diagnostics> {
        let mut out = Files::default();
        let project = study.project;
        for chart in &study.charts.charts {
            out.insert(format!("charts/{}.svg", chart.spec.id), chart.svg.clone());
            out.insert(format!("data/charts/{}.csv", chart.spec.id), chart.csv());
            let meta =
                super::chart_meta::json(chart, &project.config, study.book, &project.results);
            out.insert(format!("data/charts/{}.json", chart.spec.id), meta);
        }
        for table in &study.document.computed {
            out.insert(format!("data/tables/{}.csv", table.id), table.csv.as_bytes());
        }
        Ok(out)
    }
}
