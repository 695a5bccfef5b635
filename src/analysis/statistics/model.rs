//! The model behind a comparison of two samples: one model gives the
//! estimate of the ratio, its interval and its p-value, so that the interval
//! excludes "no difference" exactly when p < 0.05.
//!
//! - `mean`: the ratio of means, Welch's t on the log scale
//!   (ln R ± t·se, se² = se_c²/m_c² + se_b²/m_b², Welch–Satterthwaite df);
//!   the interval of a ratio of positive means stays in (0, ∞). Where a mean
//!   is not positive, the delta-method interval of R on the linear scale.
//! - `median`: the Hodges–Lehmann estimate of the ratio (the median of the
//!   pairwise ratios c/b, on the log scale) with the interval that inverts
//!   Mann–Whitney's test, whose p it reports.

use serde::Serialize;

use super::ranks::{self, Interval};
use super::stats::{self, Summary};

/// Which statistic a comparison estimates.
pub use crate::config::Estimator;

/// A sample with its summary and its values, for rank statistics.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The summary.
    pub summary: Summary,
    /// The values (without NaN).
    pub values: Vec<f64>,
}

impl Sample {
    /// The sample of `values`, or `None` when empty.
    pub fn of(values: &[f64]) -> Option<Sample> {
        let summary = Summary::of_sample(values)?;
        Some(Sample { summary, values: values.to_vec() })
    }

    /// Whether it has two values or more, all equal: a value measured
    /// exactly, not a sample of a varying one.
    pub fn constant(&self) -> bool {
        self.values.len() >= 2 && self.values.iter().all(|v| *v == self.values[0])
    }
}

/// A ratio candidate / baseline with its interval and p-value from one model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Estimate {
    /// The estimated ratio.
    pub ratio: f64,
    /// Its 95% confidence interval; absent when the model has none.
    pub ci: Option<[f64; 2]>,
    /// Whether each end of `ci` is excluded: the median model's interval on
    /// tied runs may stop just short of a pairwise ratio it rejects.
    pub open: [bool; 2],
    /// Two-sided p-value of "ratio = 1" under the same model.
    pub p: Option<f64>,
    /// The model, in words.
    pub model: &'static str,
    /// Both sides are constant (every run gives one value): the ratio is
    /// exact, and there is neither interval nor p-value.
    pub exact: bool,
}

impl Estimate {
    /// Whether the interval excludes a ratio of 1 (by the p-value, from the
    /// same test, where there is one: they agree save where the median
    /// model's interval is stretched to hold its estimate); absent without
    /// an interval.
    pub fn significant(&self) -> Option<bool> {
        let excludes = self.ci.map(|ends| !Interval { ends, open: self.open }.contains(1.0));
        excludes.map(|excludes| {
            self.p.map_or(excludes, |p| p < 1.0 - crate::analysis::statistics::CONFIDENCE)
        })
    }
}

const EXACT: &str = "exact: each side gives the same value in every run";

/// The comparison of `c` with `b` by `estimator`; exact when both sides
/// are constant; `None` for `median` when a ratio of medians is undefined
/// (values not all positive and a baseline median of 0).
pub fn estimate(c: &Sample, b: &Sample, estimator: Estimator) -> Option<Estimate> {
    if c.constant() && b.constant() {
        return Some(exact(c.values[0], b.values[0]));
    }
    match estimator {
        Estimator::Mean => Some(of_means(&c.summary, &b.summary)),
        Estimator::Median => of_medians(&c.values, &b.values),
    }
}

/// The exact comparison of two constant sides, `c` and `b` in every run:
/// their ratio, with neither interval nor p-value.
pub fn exact(c: f64, b: f64) -> Estimate {
    Estimate { ratio: c / b, model: EXACT, exact: true, ..Default::default() }
}

/// The ratio of means: log-scale Welch when both means are positive, the
/// delta method otherwise. The baseline mean must not be zero.
pub fn of_means(c: &Summary, b: &Summary) -> Estimate {
    let ratio = c.mean / b.mean;
    if c.mean > 0.0 && b.mean > 0.0 {
        // se²/m² as (sd/m)²/n, so that neither 1e300² nor 1e-300² is formed.
        let relative = |s: &Summary| s.sd.map(|sd| (sd / s.mean).powi(2) / s.n as f64);
        let parts = relative(c).zip(relative(b)).map(|(vc, vb)| [(vc, c.n), (vb, b.n)]);
        let Some(parts) = parts.filter(|p| p[0].0 + p[1].0 > 0.0) else {
            return Estimate { ratio, model: LOG_WELCH, ..Default::default() };
        };
        let (se, df) = ((parts[0].0 + parts[1].0).sqrt(), stats::satterthwaite(&parts));
        let (log, half) = (ratio.ln(), stats::t_quantile(df) * se);
        let p = stats::p_value(log / se, df);
        return Estimate {
            ratio,
            ci: Some([(log - half).exp(), (log + half).exp()]),
            p: Some(p),
            model: LOG_WELCH,
            ..Default::default()
        };
    }
    let r = stats::ratio(c, b);
    let inference = r.se.zip(r.df).filter(|(se, _)| *se > 0.0).map(|(se, df)| {
        let half = stats::t_quantile(df) * se;
        ([r.value - half, r.value + half], stats::p_value((r.value - 1.0) / se, df))
    });
    Estimate {
        ratio,
        ci: inference.map(|i| i.0),
        p: inference.map(|i| i.1),
        model: DELTA_WELCH,
        ..Default::default()
    }
}

const LOG_WELCH: &str = "ratio of means, Welch's t on the log scale";
const DELTA_WELCH: &str = "ratio of means, Welch's t with a delta-method standard error";
const HODGES_LEHMANN: &str = "Hodges–Lehmann ratio, Mann–Whitney U";

/// The Hodges–Lehmann ratio with the interval inverting Mann–Whitney's
/// test, whose p it reports ([`ranks::hodges_lehmann`]). On the log scale
/// when every value is positive; otherwise the shift of the values
/// relative to the baseline's median (`None` when that median is 0).
pub fn of_medians(c: &[f64], b: &[f64]) -> Option<Estimate> {
    let test = ranks::mann_whitney(c, b)?;
    let positive = c.iter().chain(b).all(|&v| v > 0.0);
    let (ratio, interval) = if positive {
        let log = |v: &[f64]| v.iter().map(|x| x.ln()).collect::<Vec<f64>>();
        let shift = ranks::hodges_lehmann(&log(c), &log(b))?;
        (shift.estimate.exp(), shift.interval.map(|i| Interval { ends: i.ends.map(f64::exp), ..i }))
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
        model: HODGES_LEHMANN,
        exact: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Log scale: c = [9, 10, 11], b = [18, 20, 22]: R = 0.5, se² = 1/300 +
    // 1/300, df = 4; t = ln 0.5 / se = −8.4904..., CI 0.5·exp(±2.7764·0.08165).
    #[test]
    fn mean_model_by_hand() {
        let c = Summary::of(&[9.0, 10.0, 11.0]).unwrap();
        let b = Summary::of(&[18.0, 20.0, 22.0]).unwrap();
        let e = of_means(&c, &b);
        let se = (2.0f64 / 300.0).sqrt();
        let q = stats::t_quantile(4.0);
        let [lo, hi] = e.ci.unwrap();
        assert!(
            (lo - 0.5 * (-q * se).exp()).abs() < 1e-12 && (hi - 0.5 * (q * se).exp()).abs() < 1e-12
        );
        assert!((e.p.unwrap() - stats::p_value(0.5f64.ln() / se, 4.0)).abs() < 1e-15);
        assert_eq!(e.significant(), Some(true));
        // Both sides without variance: no interval, no p.
        let one = Summary::of(&[2.0, 2.0]).unwrap();
        assert_eq!(of_means(&one, &one).ci, None);
    }

    #[test]
    fn an_interval_of_a_ratio_never_crosses_zero() {
        // One huge candidate run: the delta method's interval went below 0.
        let mut c = vec![200.0; 19];
        c.push(5333.0);
        let b = vec![100.0, 101.0, 102.0, 103.0, 104.0, 105.0];
        let e = of_means(&Summary::of(&c).unwrap(), &Summary::of(&b).unwrap());
        assert!(e.ci.unwrap()[0] > 0.0);
    }

    /// Two constant sides are an exact comparison, by either estimator:
    /// 11 / 12 in every run is 8.3% smaller, with no interval, p or
    /// verdict; one constant side against a varying one is a sample.
    #[test]
    fn constant_sides_compare_exactly() {
        let (c, b) = (Sample::of(&[11.0; 10]).unwrap(), Sample::of(&[12.0; 10]).unwrap());
        for estimator in [Estimator::Mean, Estimator::Median] {
            let e = estimate(&c, &b, estimator).unwrap();
            assert_eq!((e.ratio, e.ci, e.p, e.exact), (11.0 / 12.0, None, None, true));
            assert_eq!(e.significant(), None);
        }
        let varying = Sample::of(&[12.0, 12.5, 11.5, 12.0, 12.2]).unwrap();
        let e = estimate(&c, &varying, Estimator::Mean).unwrap();
        assert!(!e.exact && e.ci.is_some() && e.p.is_some());
        // One run a side is too few to call constant.
        let one = Sample::of(&[11.0]).unwrap();
        assert!(!estimate(&one, &Sample::of(&[12.0]).unwrap(), Estimator::Mean).unwrap().exact);
    }
}
