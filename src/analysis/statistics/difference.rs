//! Differences candidate − baseline in the column's own unit (`compare =
//! "difference"`), for values a ratio cannot compare (offsets, values of
//! either sign): Welch's t on the raw values by the mean, the
//! Hodges–Lehmann shift with the interval that inverts Mann–Whitney's test
//! by the median; over several configurations, the arithmetic mean of
//! their differences with Student's t over them.

use super::model::{Model, Sample};
use super::ranks;
use super::stats::{self, Summary};
use crate::config::Estimator;

/// A difference with its interval and p-value from one model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difference {
    /// candidate − baseline.
    pub value: f64,
    /// Its 95% confidence interval; absent when the model has none.
    pub ci: Option<[f64; 2]>,
    /// Whether each end of `ci` is excluded (the median model on ties).
    pub open: [bool; 2],
    /// Two-sided p-value of "no difference" under the same model.
    pub p: Option<f64>,
    /// The model.
    pub model: Model,
    /// Both sides constant: the difference is exact.
    pub exact: bool,
    /// Too few runs for Mann–Whitney's test to reach the level
    /// (`ranks::min_p`): whatever its p, no verdict.
    pub unreachable: bool,
}

impl Difference {
    /// A difference with neither interval nor p-value.
    fn point(value: f64, model: Model) -> Difference {
        Difference {
            value,
            ci: None,
            open: [false; 2],
            p: None,
            model,
            exact: false,
            unreachable: false,
        }
    }
}

/// The difference of `c` and `b` by `estimator`; with one run on a side,
/// the difference alone.
pub fn of(c: &Sample, b: &Sample, estimator: Estimator) -> Option<Difference> {
    if c.constant() && b.constant() {
        let value = c.values[0] - b.values[0];
        return Some(Difference { exact: true, ..Difference::point(value, Model::Exact) });
    }
    let found = match estimator {
        Estimator::Mean => welch(&c.summary, &b.summary),
        Estimator::Median => shift(&c.sorted, &b.sorted)?,
    };
    let (m, n) = (c.summary.n, b.summary.n);
    let unreachable = ranks::min_p(m, n) >= 1.0 - super::CONFIDENCE;
    if m.min(n) < 2 {
        return Some(Difference { unreachable, ..Difference::point(found.value, found.model) });
    }
    Some(Difference { unreachable, ..found })
}

/// Welch's t on the raw values: m_c − m_b ± t·√(se_c² + se_b²),
/// Welch–Satterthwaite df.
fn welch(c: &Summary, b: &Summary) -> Difference {
    let value = c.mean - b.mean;
    let parts = c.variance_of_mean().zip(b.variance_of_mean());
    let Some((vc, vb)) = parts.filter(|(vc, vb)| vc + vb > 0.0) else {
        return Difference::point(value, Model::WelchDifference);
    };
    let se = (vc + vb).sqrt();
    let df = stats::satterthwaite(&[(vc, c.n), (vb, b.n)]);
    let half = stats::t_quantile(df) * se;
    Difference {
        ci: Some([value - half, value + half]),
        p: Some(stats::p_value(value / se, df)),
        ..Difference::point(value, Model::WelchDifference)
    }
}

/// The Hodges–Lehmann shift of `c` from `b` with the interval that inverts
/// Mann–Whitney's test, whose p it reports.
fn shift(c: &[f64], b: &[f64]) -> Option<Difference> {
    let found = ranks::hodges_lehmann(c, b)?;
    let test = ranks::mann_whitney(c, b)?;
    Some(Difference {
        ci: found.interval.map(|i| i.ends),
        open: found.interval.map_or([false; 2], |i| i.open),
        p: Some(test.p),
        ..Difference::point(found.estimate, Model::HodgesLehmannShift)
    })
}

/// The arithmetic mean of the configurations' differences (k ≥ 2), with
/// Student's t over them (k − 1 df), so that the spread between
/// configurations widens its interval.
pub fn average(each: &[Difference]) -> Difference {
    let values: Vec<f64> = each.iter().map(|d| d.value).collect();
    let summary = Summary::of(&values).expect("at least two configurations");
    if each.iter().all(|d| d.exact) {
        return Difference { exact: true, ..Difference::point(summary.mean, Model::ExactAverage) };
    }
    let model = Model::DifferenceAverage;
    let Some(se) = summary.variance_of_mean().map(f64::sqrt).filter(|se| *se > 0.0) else {
        return Difference::point(summary.mean, model);
    };
    let df = (summary.n - 1) as f64;
    let half = stats::t_quantile(df) * se;
    Difference {
        ci: Some([summary.mean - half, summary.mean + half]),
        p: Some(stats::p_value(summary.mean / se, df)),
        ..Difference::point(summary.mean, model)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// c = [9, 10, 11], b = [18, 20, 22]: d = −10, se² = 1/3 + 4/3 = 5/3,
    /// df = (5/3)² / ((1/3)²/2 + (4/3)²/2) = 2.9412 (scipy's
    /// `ttest_ind(c, b, equal_var=False)`: t = −7.7460, p = 0.004798).
    #[test]
    fn welch_difference_by_hand() {
        let (c, b) =
            (Sample::of(&[9.0, 10.0, 11.0]).unwrap(), Sample::of(&[18.0, 20.0, 22.0]).unwrap());
        let d = of(&c, &b, Estimator::Mean).unwrap();
        assert_eq!(d.value, -10.0);
        let se = (5.0f64 / 3.0).sqrt();
        let df: f64 = (25.0 / 9.0) / ((1.0 / 9.0) / 2.0 + (16.0 / 9.0) / 2.0);
        assert!((df - 2.941_176_470_588_234_6).abs() < 1e-12);
        let [lo, hi] = d.ci.unwrap();
        let half = stats::t_quantile(df) * se;
        assert!((lo + 10.0 + half).abs() < 1e-12 && (hi + 10.0 - half).abs() < 1e-12);
        assert!((d.p.unwrap() - 0.004_797_999_699_128).abs() < 1e-9, "{:?}", d.p);
    }

    /// Values of either sign: c = [−1, 0, 1, 2], b = [−3, −2, −1, 0]; the
    /// 16 pairwise differences have median 2; one run on a side: the
    /// difference alone; constant sides: exact.
    #[test]
    fn shifts_single_runs_and_constants() {
        let c = Sample::of(&[-1.0, 0.0, 1.0, 2.0]).unwrap();
        let b = Sample::of(&[-3.0, -2.0, -1.0, 0.0]).unwrap();
        assert_eq!(of(&c, &b, Estimator::Median).unwrap().value, 2.0);
        let one = Sample::of(&[5.0]).unwrap();
        let d = of(&one, &b, Estimator::Mean).unwrap();
        assert_eq!((d.value, d.ci, d.p), (6.5, None, None));
        let (k, j) = (Sample::of(&[2.0, 2.0]).unwrap(), Sample::of(&[-1.0, -1.0]).unwrap());
        let e = of(&k, &j, Estimator::Mean).unwrap();
        assert!(e.exact && e.value == 3.0 && e.ci.is_none());
    }

    /// The average of differences −1, 1 and 3: 1, se = 2 / √3, df 2.
    #[test]
    fn averages_by_hand() {
        let each: Vec<Difference> = [-1.0, 1.0, 3.0]
            .iter()
            .map(|v| Difference::point(*v, Model::WelchDifference))
            .collect();
        let a = average(&each);
        let half = stats::t_quantile(2.0) * 2.0 / 3f64.sqrt();
        assert_eq!(a.value, 1.0);
        let [lo, hi] = a.ci.unwrap();
        assert!((lo - (1.0 - half)).abs() < 1e-12 && (hi - (1.0 + half)).abs() < 1e-12);
    }
}
