//! `kind = "line"`: y against x, one line per series, each point the mean
//! of its runs with its 95% CI (or their median); the only kind that takes a
//! ratio panel.

use std::collections::BTreeSet;

use super::{ChartKind, Runs};
use crate::charts::numbers::{Point, Series, x_of};
use crate::charts::spec::{Aggregate, ChartSpec};
use crate::charts::ticks;
use crate::diagnostic::Diagnostic;

/// A line chart.
pub struct Line;

impl ChartKind for Line {
    /// Each series' mean (with its interval, if error bars are on) or median per x.
    fn series(
        &self,
        spec: &ChartSpec,
        runs: &Runs,
        _models: &mut BTreeSet<&'static str>,
    ) -> Result<Vec<(String, Vec<Point>)>, Diagnostic> {
        Ok(runs
            .summaries
            .iter()
            .map(|(key, by_x)| {
                let points = by_x
                    .iter()
                    .map(|(x, s)| {
                        let (y, ci) = match spec.aggregate {
                            Aggregate::Mean => (s.mean, s.ci.filter(|_| spec.error_bars)),
                            Aggregate::Median => (s.median, None),
                        };
                        Point { x: x_of(x), y, ci, n: s.n, significant: None, runs: Vec::new() }
                    })
                    .collect();
                (key.clone(), points)
            })
            .collect())
    }

    /// Linear scaling of y from the reference's first point.
    fn ideal(&self, reference: &[Point]) -> Option<Vec<(f64, f64)>> {
        let (x0, y0) = reference.first().map(|p| (p.x, p.y))?;
        Some(reference.iter().map(|p| (p.x, y0 * p.x / x0)).collect())
    }

    fn measures_y(&self) -> bool {
        true
    }

    fn ratio_panel(&self) -> bool {
        true
    }

    /// The series' environment, and its peak when marked.
    fn legend_label(&self, spec: &ChartSpec, series: &Series) -> String {
        let peak = series.points.iter().max_by(|a, b| a.y.total_cmp(&b.y));
        match peak {
            Some(p) if spec.mark_peak => {
                format!("{} (peak at {})", series.label, ticks::label(p.x, spec.x_unit.as_deref()))
            }
            _ => series.label.clone(),
        }
    }

    fn noun(&self) -> &'static str {
        "Line chart"
    }
}
