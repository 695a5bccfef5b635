//! `estimator = "median"`: the Hodges–Lehmann estimate of the ratio (the
//! median of the pairwise ratios c/b, on the log scale) with the interval
//! that inverts Mann–Whitney's test, whose p it reports. With runs as
//! units, the same on per-run scores, re-centred on the average of the
//! configurations' estimates.

use super::{Estimator, Name, RunsAsUnits, Words, kept};
use crate::analysis::statistics::average;
use crate::analysis::statistics::model::{Estimate, Model, Sample};
use crate::analysis::statistics::ranks::{self, Interval};
use crate::analysis::statistics::stats::Summary;
use crate::config::Average;
use crate::math;

/// The Hodges–Lehmann ratio (the median of the pairwise ratios).
pub struct Median;

impl Estimator for Median {
    fn words(&self) -> Words {
        Words { name: "median", plural: "medians", long: "the median (Hodges–Lehmann)" }
    }

    fn other(&self) -> Name {
        Name::Mean
    }

    fn centre(&self, sample: &Sample) -> f64 {
        sample.summary.median
    }

    fn ratio(&self, c: &Sample, b: &Sample) -> Option<Estimate> {
        of_medians(&c.sorted, &b.sorted)
    }

    /// From the values kept alone: the samples' summaries are not needed.
    fn ratio_without(&self, c: &Sample, b: &Sample, left: [Option<usize>; 2]) -> Option<Estimate> {
        of_medians(&kept(&c.values, left[0]), &kept(&b.values, left[1]))
    }

    fn within_run(&self, runs: &RunsAsUnits) -> Option<Estimate> {
        by_medians(runs.candidate, runs.baseline, &runs.means[1], runs.average)
    }

    /// The point moved to the average of the per-configuration estimates
    /// ([`centred`]).
    fn centred(&self, within_run: Estimate, each: &[(String, Estimate)], how: Average) -> Estimate {
        centred(within_run, average::combine(each, how, true).ratio)
    }
}

/// The Hodges–Lehmann ratio with the interval inverting Mann–Whitney's
/// test, whose p it reports ([`ranks::hodges_lehmann`]). On the log scale
/// when every value is positive; otherwise the shift of the values
/// relative to the baseline's median (`None` when that median is 0).
pub fn of_medians(c: &[f64], b: &[f64]) -> Option<Estimate> {
    of_medians_tested(c, b, &ranks::mann_whitney(c, b)?)
}

/// [`of_medians`] with Mann–Whitney's `test` of the same samples, made
/// already.
pub fn of_medians_tested(c: &[f64], b: &[f64], test: &ranks::RankTest) -> Option<Estimate> {
    let positive = c.iter().chain(b).all(|&v| v > 0.0);
    let (ratio, interval) = if positive {
        let log = |v: &[f64]| v.iter().map(|x| math::ln(*x)).collect::<Vec<f64>>();
        let shift = ranks::hodges_lehmann(&log(c), &log(b))?;
        (
            math::exp(shift.estimate),
            shift.interval.map(|i| Interval { ends: i.ends.map(math::exp), ..i }),
        )
    } else {
        let base = Summary::of(b)?.median;
        if base == 0.0 {
            return None;
        }
        let shift = ranks::hodges_lehmann(c, b)?;
        let to_ratio = |d: f64| 1.0 + d / base;
        let interval = shift.interval.map(|i| {
            let ends = i.ends.map(to_ratio);
            match ends[0] <= ends[1] {
                true => Interval { ends, ..i },
                false => Interval { ends: [ends[1], ends[0]], open: [i.open[1], i.open[0]] },
            }
        });
        (to_ratio(shift.estimate), interval)
    };
    Some(Estimate {
        ratio,
        ci: interval.map(|i| i.ends),
        open: interval.map_or([false; 2], |i| i.open),
        p: Some(test.p),
        model: Model::HodgesLehmann,
        exact: false,
        unreachable: false,
        se: None,
    })
}

/// The Hodges–Lehmann ratio of the candidate's per-run scores to the
/// baseline's, both scored against the same reference, the baseline's
/// mean at each configuration: a run's score is its geometric (all values
/// positive) or arithmetic mean over the configurations of value /
/// reference. The baseline's scores centre on 1, the candidate's on its
/// level against the baseline, so the ratio of the two is that level, and
/// the shifts that Mann–Whitney's test on the scores accepts are its
/// interval. The metric re-centres it on the average of the
/// per-configuration estimates ([`centred`]).
fn by_medians(c: &[Vec<f64>], b: &[Vec<f64>], reference: &[f64], how: Average) -> Option<Estimate> {
    let positive = c.iter().chain(b).flatten().chain(reference).all(|v| *v > 0.0);
    let k = reference.len() as f64;
    let score = |row: &Vec<f64>| match (how, positive) {
        (Average::Geometric, true) => {
            math::exp(row.iter().zip(reference).map(|(x, m)| math::ln(x / m)).sum::<f64>() / k)
        }
        _ => row.iter().zip(reference).map(|(x, m)| x / m).sum::<f64>() / k,
    };
    let (mut sc, mut sb): (Vec<f64>, Vec<f64>) =
        (c.iter().map(score).collect(), b.iter().map(score).collect());
    tie_within_rounding(&mut sc, &mut sb);
    let (c, b) = (Sample::of(&sc)?, Sample::of(&sb)?);
    let e = Median.compare(&c, &b)?;
    Some(Estimate { model: if e.exact { e.model } else { Model::RunsAsUnitsMedian }, ..e })
}

/// Scores equal within rounding made equal, so that the rank test counts
/// them as the ties they are: runs whose scores are equal (values on a
/// grid, in another order over the configurations) get sums that differ
/// in the last bits. In ascending order, a score within 10⁻¹² (relative)
/// of the first of a run of such scores takes its value.
fn tie_within_rounding(sc: &mut [f64], sb: &mut [f64]) {
    let mut all: Vec<&mut f64> = sc.iter_mut().chain(sb.iter_mut()).collect();
    all.sort_by(|a, b| a.total_cmp(b));
    let mut first = f64::NAN;
    for v in all {
        if (*v - first).abs() <= 1e-12 * first.abs() {
            *v = first;
        } else {
            first = *v;
        }
    }
}

/// A within-run estimate by the median, `e`, with its point moved to
/// `average`, the average of the per-configuration estimates it summarises:
/// the median of per-run scores need not lie within their range (a median
/// of averages is no average of medians), the average does. The interval
/// and p stay those of the test on the runs; where the interval misses the
/// new point, it is stretched to hold it, as the Hodges–Lehmann interval
/// is on heavily tied runs.
pub fn centred(e: Estimate, average: f64) -> Estimate {
    if e.exact {
        return e;
    }
    let (mut ci, mut open) = (e.ci, e.open);
    if let Some(ends) = ci.as_mut()
        && !(Interval { ends: *ends, open }).contains(average)
    {
        let side = usize::from(average >= ends[1]);
        ends[side] = average;
        open[side] = false;
    }
    Estimate { ratio: average, ci, open, ..e }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 0.1 + 0.2 and 0.3 are one score; 0.3 + 10⁻⁹ another.
    #[test]
    fn scores_equal_within_rounding_tie() {
        let (mut sc, mut sb) = (vec![0.1 + 0.2, 0.5], vec![0.3, 0.3 + 1e-9]);
        tie_within_rounding(&mut sc, &mut sb);
        assert_eq!((sc, sb), (vec![0.3, 0.5], vec![0.3, 0.3 + 1e-9]));
    }

    /// The point moves to the average; an interval that misses it reaches
    /// to it, closed there; an exact estimate stays as it is.
    #[test]
    fn centring_moves_the_point_and_keeps_the_test() {
        let e = Estimate { ratio: 1.2, ci: Some([1.1, 1.3]), p: Some(0.01), ..Default::default() };
        let inside = centred(e, 1.25);
        assert_eq!((inside.ratio, inside.ci, inside.p), (1.25, Some([1.1, 1.3]), Some(0.01)));
        assert_eq!(centred(e, 1.4).ci, Some([1.1, 1.4]));
        let open = Estimate { open: [true, false], ..e };
        let at_end = centred(open, 1.1);
        assert_eq!((at_end.ci, at_end.open), (Some([1.1, 1.3]), [false, false]));
        let exact = Estimate { ratio: 2.0, exact: true, ..Default::default() };
        assert_eq!(centred(exact, 3.0).ratio, 2.0);
    }
}
