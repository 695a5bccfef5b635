//! Where each statistic's data come from ([`Provenance`]), and what that
//! allows: from data that were not measured no inference is drawn (no
//! interval, p-value, test or significance; no caveat about their invented
//! spread), and a published figure is checked against the metric that
//! computes it ([`check_published`]).

use std::collections::BTreeMap;

use super::findings::{Finding, MetricFinding};
use super::statistics::model::Model;
use super::statistics::stats::{NoInterval, Summary};
use super::{Analysis, Comparison, MetricValue};
use crate::config::{Compare, Config, Provenance};
use crate::diagnostic::{Diagnostic, Diagnostics, Location};
use crate::results::ResultSet;

/// The provenance of every results table, by its path as statistics name
/// it (`results/lammps.csv`) and by its name (`lammps`).
#[derive(Debug, Clone, Default)]
pub struct Origins {
    by_file: BTreeMap<String, Provenance>,
}

impl Origins {
    /// The provenance of each table of `results`, from `[data.NAME]`.
    pub fn of(results: &ResultSet, config: &Config) -> Origins {
        let mut by_file = BTreeMap::new();
        for table in results.tables.values() {
            let p = config.data.get(&table.name).map(|d| d.provenance).unwrap_or_default();
            by_file.insert(table.path.display().to_string(), p);
            by_file.insert(table.name.clone(), p);
        }
        Origins { by_file }
    }

    /// The provenance of the table `file` names (measured when unknown).
    pub fn of_file(&self, file: &str) -> Provenance {
        self.by_file.get(file).copied().unwrap_or_default()
    }

    /// Set every statistic's provenance and published figure, and take the
    /// inference away from those whose data were not measured.
    pub fn apply(&self, analysis: &mut Analysis, config: &Config) {
        for m in &mut analysis.metrics {
            m.provenance = self.of_file(&m.inputs.file);
            m.published = config.published.iter().find(|p| p.metric == m.name).cloned();
            if !m.provenance.measured() {
                without_inference(m);
            }
        }
        for g in &mut analysis.groups {
            g.provenance = self.of_file(&g.inputs.file);
            if !g.provenance.measured() {
                described_only(&mut g.summary);
            }
        }
        for c in &mut analysis.comparisons {
            c.provenance = self.of_file(&c.inputs.file);
            if !c.provenance.measured() {
                untested(c);
            }
        }
        for s in &mut analysis.scaling {
            s.provenance = self.of_file(&s.file);
        }
    }

    /// Drop the caveats drawn from the spread of data that were not
    /// measured: their runs' outliers, variation, shape and counts, and
    /// the findings about metrics computed from them.
    pub fn keep_measured(&self, analysis: &mut Analysis) {
        let measured = |file: &str| self.of_file(file).measured();
        let metrics: Vec<bool> = analysis.metrics.iter().map(|m| m.provenance.measured()).collect();
        let metric = |i: &usize| metrics.get(*i).copied().unwrap_or(true);
        analysis.caveats.retain_mut(|finding| match finding {
            Finding::FewRuns(few) => {
                few.retain(|f| measured(&f.file));
                !few.is_empty()
            }
            Finding::Unmatched(u) => {
                u.retain(|f| measured(&f.file));
                !u.is_empty()
            }
            Finding::Outliers(o) => measured(&o.file),
            Finding::HighVariation(v) => measured(&v.file),
            Finding::NotNormal(n) => measured(&n.file),
            Finding::Sources(s) => measured(&s.file),
            Finding::SmallSamples(s) => {
                s.metrics.retain(metric);
                !s.metrics.is_empty()
            }
            Finding::Metric { metric: i, about } => {
                metric(i) || *about == MetricFinding::SelectedBaseline
            }
            Finding::Nodes { .. } | Finding::Multiplicity { .. } => true,
        });
    }
}

/// A metric of data that were not measured: its value, without interval,
/// p-value, significance, tests or the run-level checks that rest on them.
pub(crate) fn without_inference(m: &mut MetricValue) {
    m.ci = None;
    m.ci_open = None;
    m.ci_note = Some(NoInterval::NotMeasured);
    m.p_value = None;
    m.p_holm = None;
    m.significant = None;
    m.claim = None;
    m.other = None;
    m.rank = None;
    m.influence = None;
    m.grain = None;
    m.model = Model::None;
    if let Some(spread) = &mut m.spread {
        for v in spread.values.iter_mut().chain(spread.range.iter_mut()) {
            (v.ci, v.p_value, v.significant) = (None, None, None);
        }
        spread.significant_sign_change = false;
    }
}

/// A group's summary of data that were not measured: its description
/// (n, mean, median, sd, quartiles), without intervals or tests.
fn described_only(summary: &mut Summary) {
    summary.ci = None;
    summary.ci_note = Some(NoInterval::NotMeasured);
    summary.robust.median_ci = None;
    summary.robust.median_ci_coverage = None;
    summary.robust.normality = None;
}

/// A comparison of data that were not measured: its ratios, untested.
fn untested(c: &mut Comparison) {
    c.ci = None;
    c.p_value = None;
    c.model = Model::None;
    c.rank = None;
    if let Some(median) = &mut c.median {
        (median.ci, median.ci_open, median.p_value) = (None, None, None);
    }
}

/// The number a metric prints, as a published figure writes it: a
/// relative difference or slowdown in percent, else in its unit.
fn printed(m: &MetricValue) -> (f64, String) {
    match m.compare {
        Compare::Relative | Compare::Slowdown => (m.value * 100.0, "%".into()),
        _ => (m.value, m.unit.clone()),
    }
}

/// `x` with `decimals` decimals, `-0` written `0`.
fn rounded(x: f64, decimals: usize) -> String {
    let text = format!("{x:.decimals$}");
    if text.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
        text.trim_start_matches('-').to_string()
    } else {
        text
    }
}

/// Check every `[[published]]` figure against the metric that computes
/// it, at the figure's precision: an error at the figure's `value` for
/// each that differs in number or unit.
pub fn check_published(analysis: &Analysis, config: &Config) -> Result<(), Diagnostics> {
    let mut errors = Diagnostics::default();
    let book = Location::file(std::path::Path::new("book.toml"));
    for (i, published) in config.published.iter().enumerate() {
        let (Some(figure), Some(m)) = (
            crate::config::figure(&published.value),
            analysis.metrics.iter().find(|m| m.name == published.metric),
        ) else {
            continue;
        };
        let (number, unit) = printed(m);
        let computed = rounded(number, figure.decimals);
        let same_unit = figure.unit.is_empty() || figure.unit == unit;
        if computed == rounded(figure.number, figure.decimals) && same_unit {
            continue;
        }
        let at = config.at.or(&format!("published.{i}.value"), &book);
        let shown = if unit.is_empty() || unit == "%" {
            format!("{computed}{unit}")
        } else {
            format!("{computed} {unit}")
        };
        errors.push(
            Diagnostic::new(
                at,
                format!(
                    "published figure `{}` does not match the data: `{}` computes {shown}",
                    published.value, m.name
                ),
            )
            .hint(format!(
                "check the figure against its source ({}), the metric's definition and the results",
                published.source
            )),
        );
    }
    errors.into_result(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rounding at a figure's precision, by hand.
    #[test]
    fn figures_round_at_their_precision() {
        assert_eq!(rounded(8.849, 1), "8.8");
        assert_eq!(rounded(-2.36, 1), "-2.4");
        assert_eq!(rounded(-0.04, 1), "0.0");
        assert_eq!(rounded(499_999.6, 0), "500000");
    }

    /// A metric of reconstructed data keeps its value and loses every
    /// inferential number.
    #[test]
    fn inference_is_taken_from_unmeasured_metrics() {
        let mut m = MetricValue {
            ci: Some([0.01, 0.2]),
            p_value: Some(0.01),
            significant: Some(true),
            ..MetricValue::example(0.1)
        };
        without_inference(&mut m);
        assert_eq!((m.value, m.ci, m.p_value, m.significant), (0.1, None, None, None));
        assert_eq!(m.ci_note, Some(NoInterval::NotMeasured));
    }
}
