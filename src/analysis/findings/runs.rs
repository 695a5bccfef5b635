//! Findings on the runs of each column the metrics read, one finding per
//! column so that a study of dozens of configurations gets one caveat, not
//! one per configuration: the runs beyond Tukey's fences, the
//! configurations whose runs vary by more than [`HIGH_CV`], and those
//! whose runs Shapiro–Wilk rejects as normal (n ≥ 8), each with whether its
//! median is more informative than its mean ([`MedianUse`]).
//!
//! [`MedianUse`]: crate::analysis::statistics::median_use::MedianUse

use std::collections::BTreeMap;

use super::{Configuration, Finding, NonNormalRuns, NotNormal, Outliers, SevereRuns, Variation};
use crate::analysis::Group;
use crate::analysis::statistics::median_use::median_use;
use crate::analysis::statistics::robust::Outlier;

/// A coefficient of variation above this is called high (5%).
pub const HIGH_CV: f64 = 0.05;

/// Whether a coefficient of variation is above [`HIGH_CV`] by more than
/// the rounding of its sums (10⁻⁹ of it): runs of 0.57, 0.6 and 0.63 vary
/// by exactly 5% of their mean, which sd / mean computes as
/// 0.050000000000000044.
pub fn high_cv(cv: f64) -> bool {
    cv > HIGH_CV * (1.0 + 1e-9)
}

/// Level at which normality is rejected.
const ALPHA: f64 = 0.05;

/// The groups of `groups` by (file, column), in order.
fn by_column<'a>(groups: &[&'a Group]) -> BTreeMap<(&'a str, &'a str), Vec<&'a Group>> {
    let mut columns: BTreeMap<(&str, &str), Vec<&Group>> = BTreeMap::new();
    for g in groups {
        columns.entry((g.inputs.file.as_str(), g.inputs.column.as_str())).or_default().push(g);
    }
    columns
}

/// One finding per column with runs beyond Tukey's fences: the severe ones
/// (beyond 3 IQR) by run, the configurations ordered by how far their
/// most extreme run lies beyond its quartile (in IQRs, or grid steps), the
/// runs of one configuration likewise; the mild ones (1.5 to 3 IQR) counted.
pub(super) fn outliers(groups: &[&Group]) -> Vec<Finding> {
    by_column(groups)
        .into_iter()
        .filter_map(|((file, column), gs)| column_outliers(file, column, &gs))
        .collect()
}

fn column_outliers(file: &str, column: &str, groups: &[&Group]) -> Option<Finding> {
    // (how far the worst run lies beyond its fence, the configuration's runs)
    let mut severe: Vec<(f64, SevereRuns)> = Vec::new();
    let (mut mild, mut mild_configurations) = (0, 0);
    for g in groups {
        let r = &g.summary.robust;
        let mut worst: Vec<&Outlier> = r.outliers.iter().filter(|o| o.severe).collect();
        worst.sort_by(|a, b| b.beyond.total_cmp(&a.beyond));
        // Past the listed ones, counted: the severe unlisted, and every mild one.
        let more = r.severe_count.saturating_sub(worst.len());
        let mild_here = r.outlier_count.saturating_sub(r.severe_count);
        if let Some(first) = worst.first() {
            let runs = worst.iter().map(|o| (o.run.clone(), o.value)).collect();
            let at = Configuration::of(g);
            severe.push((first.beyond, SevereRuns { at, n: g.summary.n, runs, more }));
        }
        if mild_here > 0 {
            (mild, mild_configurations) = (mild + mild_here, mild_configurations + 1);
        }
    }
    // The most extreme runs first, wherever they are in the file.
    severe.sort_by(|a, b| b.0.total_cmp(&a.0));
    let severe: Vec<SevereRuns> = severe.into_iter().map(|(_, runs)| runs).collect();
    if severe.is_empty() && mild == 0 {
        return None;
    }
    let (file, column) = (file.to_string(), column.to_string());
    Some(Finding::Outliers(Outliers { file, column, severe, mild, mild_configurations }))
}

/// One finding per column with configurations whose coefficient of
/// variation is above [`HIGH_CV`], the most variable first.
pub(super) fn variation(groups: &[&Group]) -> Vec<Finding> {
    by_column(groups)
        .into_iter()
        .filter_map(|((file, column), gs)| {
            let mut high: Vec<(Configuration, f64)> = gs
                .iter()
                .filter_map(|g| {
                    let cv = g.summary.robust.cv.filter(|cv| high_cv(*cv))?;
                    Some((Configuration::of(g), cv))
                })
                .collect();
            high.sort_by(|a, b| b.1.total_cmp(&a.1));
            let (file, column) = (file.to_string(), column.to_string());
            (!high.is_empty()).then_some(Finding::HighVariation(Variation {
                file,
                column,
                configurations: high,
            }))
        })
        .collect()
}

/// One finding per column with configurations whose runs Shapiro–Wilk
/// rejects at 5%, the smallest p-value first.
pub(super) fn non_normal(groups: &[&Group]) -> Vec<Finding> {
    by_column(groups)
        .into_iter()
        .filter_map(|((file, column), gs)| {
            let mut rejected: Vec<NonNormalRuns> = gs
                .iter()
                .filter_map(|g| {
                    let test = g.summary.robust.normality.filter(|t| t.p < ALPHA)?;
                    Some(NonNormalRuns {
                        at: Configuration::of(g),
                        w: test.w,
                        p: test.p,
                        median: median_use(&g.summary),
                    })
                })
                .collect();
            rejected.sort_by(|a, b| a.p.total_cmp(&b.p));
            let (file, column) = (file.to_string(), column.to_string());
            (!rejected.is_empty()).then_some(Finding::NotNormal(NotNormal {
                file,
                column,
                configurations: rejected,
            }))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 0.57, 0.6, 0.63 vary by exactly 5% of their mean (sd 0.03, mean
    /// 0.6), which is not above 5%, though sd / mean computes as
    /// 0.050000000000000044; 19, 20, 21 likewise; 57, 60, 63.1 by 5.08%.
    #[test]
    fn exactly_five_percent_is_not_high() {
        let cv = |v: &[f64]| {
            let s = crate::analysis::statistics::stats::Summary::of(v).unwrap();
            s.robust.cv.unwrap()
        };
        assert!(!high_cv(cv(&[0.57, 0.6, 0.63])));
        assert!(!high_cv(cv(&[19.0, 20.0, 21.0])));
        assert!(high_cv(cv(&[57.0, 60.0, 63.1])));
    }
}
