//! The points of a `relative` chart: each candidate against the baseline in
//! %, per x, with the interval of the analysis's model.

use std::collections::BTreeSet;

use super::numbers::{Point, Samples, x_of};
use crate::analysis::model;

/// Each candidate against the baseline in %, per x, with the CI of
/// [`model::of_means`];
/// `Err(None)` without the baseline, `Err(Some(message))` where its mean is zero;
/// the models of the intervals go into `models`.
pub(super) fn relative(
    samples: &Samples,
    baseline: &str,
    models: &mut BTreeSet<&'static str>,
) -> Result<Vec<(String, Vec<Point>)>, Option<String>> {
    let base = samples.get(baseline).ok_or(None)?;
    if let Some(x) = base.iter().find(|(_, b)| b.mean == 0.0).map(|(x, _)| x) {
        return Err(Some(format!(
            "the baseline `{baseline}` has a mean of 0 at x = {x}, and a difference relative to zero is undefined"
        )));
    }
    Ok(samples
        .iter()
        .filter(|(k, _)| *k != baseline)
        .map(|(key, by_x)| {
            let points = by_x
                .iter()
                .filter_map(|(x, c)| {
                    let b = base.get(x)?;
                    // The analysis's model (log-scale Welch for positive means), so the
                    // chart's interval is the one the numbers print and stays above −100%.
                    let e = model::of_means(c, b);
                    if e.ci.is_some() {
                        models.insert(e.model);
                    }
                    let ci = e.ci.map(|[lo, hi]| [(lo - 1.0) * 100.0, (hi - 1.0) * 100.0]);
                    Some(Point {
                        x: x_of(x),
                        y: (e.ratio - 1.0) * 100.0,
                        ci,
                        n: c.n.min(b.n),
                        significant: e.significant(),
                    })
                })
                .collect();
            (key.clone(), points)
        })
        .collect())
}
