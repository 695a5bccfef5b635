//! `kind = "speedup"` and `kind = "efficiency"`: per series, the mean at
//! each x against the mean at the smallest x (a throughput divided by the
//! first, the first time divided by each), and for efficiency that speedup
//! per unit of x.

use std::collections::BTreeSet;

use super::{ChartKind, Runs};
use crate::analysis::statistics::stats::Summary;
use crate::charts::numbers::{ChartData, Point, x_of};
use crate::charts::spec::ChartSpec;
use crate::config::Better;
use crate::diagnostic::Diagnostic;

/// A speedup chart, or with `efficiency` a parallel-efficiency chart.
pub struct Scaling {
    /// Speedup divided by x / x₀.
    pub efficiency: bool,
}

impl ChartKind for Scaling {
    fn series(
        &self,
        spec: &ChartSpec,
        runs: &Runs,
        _models: &mut BTreeSet<&'static str>,
    ) -> Result<Vec<(String, Vec<Point>)>, Diagnostic> {
        let mut all = Vec::new();
        for (key, by_x) in runs.summaries {
            let means: Vec<(f64, &Summary)> = by_x.iter().map(|(x, s)| (x_of(x), s)).collect();
            let points = self.points(spec, key, &means).map_err(|m| {
                spec.key_error("y", m, "a speedup divides by a mean: plot a throughput or a time whose means are not zero".into())
            })?;
            all.push((key.clone(), points));
        }
        Ok(all)
    }

    fn y_label(&self, _spec: &ChartSpec) -> String {
        if self.efficiency { "parallel efficiency".into() } else { "speedup (×)".into() }
    }

    /// Linear speedup from the reference's first x, or an efficiency of 1.
    fn ideal(&self, reference: &[Point]) -> Option<Vec<(f64, f64)>> {
        let x0 = reference.first()?.x;
        let ideal = |x: f64| if self.efficiency { 1.0 } else { x / x0 };
        Some(reference.iter().map(|p| (p.x, ideal(p.x))).collect())
    }

    fn noun(&self) -> &'static str {
        if self.efficiency { "Parallel-efficiency chart" } else { "Speedup chart" }
    }

    fn intervals(&self, spec: &ChartSpec, data: &ChartData) -> String {
        let none = "No error bars: each point is a ratio of means";
        crate::charts::intervals(spec, data, "", Some(none))
    }
}

impl Scaling {
    /// Speedup (or efficiency) of the mean against the smallest x of one
    /// series, `key`; an error where a mean it divides by is zero.
    fn points(
        &self,
        spec: &ChartSpec,
        key: &str,
        means: &[(f64, &Summary)],
    ) -> Result<Vec<Point>, String> {
        let Some((x0, m0)) = means.first().map(|(x, s)| (*x, s.mean)) else {
            return Ok(Vec::new());
        };
        // Throughputs divide by the first mean, times by each mean.
        let zero = match spec.better {
            Better::Higher => (m0 == 0.0).then_some(x0),
            Better::Lower => means.iter().find(|(_, s)| s.mean == 0.0).map(|(x, _)| *x),
        };
        if let Some(x) = zero {
            let x = crate::format::plain(x);
            return Err(format!(
                "the mean of `{key}` at x = {x} is 0, and a speedup divides by it"
            ));
        }
        Ok(means
            .iter()
            .map(|(x, s)| {
                let speedup = match spec.better {
                    Better::Higher => s.mean / m0,
                    Better::Lower => m0 / s.mean,
                };
                let y = if self.efficiency { speedup * x0 / x } else { speedup };
                Point { x: *x, y, ci: None, n: s.n, significant: None, runs: Vec::new() }
            })
            .collect())
    }
}
