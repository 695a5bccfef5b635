//! `estimator = "mean"`: the ratio of means, Welch's t on the log scale
//! (ln R ± t·se, se² = se_c²/m_c² + se_b²/m_b², Welch–Satterthwaite df);
//! the interval of a ratio of positive means stays in (0, ∞). Where a mean
//! is not positive, the delta-method interval of R on the linear scale.
//! With runs as units, Welch's t on the log scale of per-run scores.

use super::{Estimator, Name, RunsAsUnits, Words};
use crate::analysis::statistics::model::{Estimate, Model, Sample, StandardError};
use crate::analysis::statistics::robust::Robust;
use crate::analysis::statistics::stats::{self, Summary};
use crate::config::Average;
use crate::math;

/// The ratio of means.
pub struct Mean;

impl Estimator for Mean {
    fn words(&self) -> Words {
        Words { name: "mean", plural: "means", long: "the mean" }
    }

    fn other(&self) -> Name {
        Name::Median
    }

    fn centre(&self, sample: &Sample) -> f64 {
        sample.summary.mean
    }

    fn ratio(&self, c: &Sample, b: &Sample) -> Option<Estimate> {
        Some(of_means(&c.summary, &b.summary))
    }

    /// From sums over the remaining values: no order statistics, no
    /// normality test.
    fn ratio_without(&self, c: &Sample, b: &Sample, left: [Option<usize>; 2]) -> Option<Estimate> {
        let summary = |s: &Sample, d: Option<usize>| match d {
            Some(i) => without(&s.values, i),
            None => s.summary.clone(),
        };
        Some(of_means(&summary(c, left[0]), &summary(b, left[1])))
    }

    fn within_run(&self, runs: &RunsAsUnits) -> Option<Estimate> {
        let [mc, mb] = &runs.means;
        let k = mc.len() as f64;
        let ratios: Vec<f64> = mc.iter().zip(mb).map(|(c, b)| c / b).collect();
        // Scores whose means are the average (arithmetic) or 1 (geometric).
        let score = |row: &[f64], weights: &dyn Fn(usize) -> f64| {
            row.iter().enumerate().map(|(s, x)| x * weights(s)).sum::<f64>() / k
        };
        let (c, b) = (runs.candidate, runs.baseline);
        let (sc, sb): (Vec<f64>, Vec<f64>) = match runs.average {
            Average::Geometric => (
                c.iter().map(|r| score(r, &|s| 1.0 / mc[s])).collect(),
                b.iter().map(|r| score(r, &|s| 1.0 / mb[s])).collect(),
            ),
            Average::Arithmetic => (
                c.iter().map(|r| score(r, &|s| 1.0 / mb[s])).collect(),
                b.iter().map(|r| score(r, &|s| ratios[s] / mb[s])).collect(),
            ),
        };
        by_scores(runs.ratio, &sc, &sb, runs.average)
    }
}

/// Welch's t on the log scale of the per-run scores `sc` and `sb`, whose
/// means give `ratio` (the delta method); `None` where they do not vary.
fn by_scores(ratio: f64, sc: &[f64], sb: &[f64], how: Average) -> Option<Estimate> {
    // On the log scale: se(ln R) = se(R) / R; geometric scores have mean 1.
    let scale = if how == Average::Geometric { 1.0 } else { ratio };
    let vc = Summary::of(sc).and_then(|s| s.variance_of_mean())?;
    let vb = Summary::of(sb).and_then(|s| s.variance_of_mean())?;
    let parts = [(vc / scale / scale, sc.len()), (vb / scale / scale, sb.len())];
    let variance = parts[0].0 + parts[1].0;
    if !(variance > 0.0 && ratio > 0.0) {
        return None;
    }
    let (se, df) = (variance.sqrt(), stats::satterthwaite(&parts));
    let (log, half) = (math::ln(ratio), stats::t_quantile(df) * se);
    let ci = [math::exp(log - half), math::exp(log + half)];
    Some(Estimate {
        ratio,
        ci: Some(ci),
        p: Some(stats::p_value(log / se, df)),
        model: Model::RunsAsUnits,
        ..Default::default()
    })
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
            return Estimate { ratio, model: Model::LogWelch, ..Default::default() };
        };
        let (se, df) = ((parts[0].0 + parts[1].0).sqrt(), stats::satterthwaite(&parts));
        let (log, half) = (math::ln(ratio), stats::t_quantile(df) * se);
        let p = stats::p_value(log / se, df);
        return Estimate {
            ratio,
            ci: Some([math::exp(log - half), math::exp(log + half)]),
            p: Some(p),
            model: Model::LogWelch,
            se: Some(StandardError { value: se, df, log: true }),
            ..Default::default()
        };
    }
    let r = stats::ratio(c, b);
    let error = r.se.zip(r.df).filter(|(se, _)| *se > 0.0);
    let inference = error.map(|(se, df)| {
        let half = stats::t_quantile(df) * se;
        ([r.value - half, r.value + half], stats::p_value((r.value - 1.0) / se, df))
    });
    Estimate {
        ratio,
        ci: inference.map(|i| i.0),
        p: inference.map(|i| i.1),
        model: Model::DeltaWelch,
        se: error.map(|(value, df)| StandardError { value, df, log: false }),
        ..Default::default()
    }
}

/// The mean and standard deviation of `values` without the one at `i`
/// (two passes over the others), as a summary for the mean model; its
/// order statistics are not computed.
fn without(values: &[f64], i: usize) -> Summary {
    let others = || values.iter().enumerate().filter(move |(j, _)| *j != i).map(|(_, v)| *v);
    let n = values.len() - 1;
    let mean = others().sum::<f64>() / n as f64;
    let equal = others().all(|v| v == values[if i == 0 { 1 } else { 0 }]);
    let mean = if equal { values[if i == 0 { 1 } else { 0 }] } else { mean };
    let sd = (n >= 2).then(|| {
        if equal {
            0.0
        } else {
            (others().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64).sqrt()
        }
    });
    let robust = Robust {
        quartiles: None,
        median_ci: None,
        median_ci_coverage: None,
        cv: None,
        resolution: None,
        fence_scale: None,
        outliers: Vec::new(),
        outlier_count: 0,
        severe_count: 0,
        normality: None,
    };
    Summary { n, mean, median: f64::NAN, sd, ci: None, ci_note: None, robust }
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
            (lo - 0.5 * math::exp(-q * se)).abs() < 1e-12
                && (hi - 0.5 * math::exp(q * se)).abs() < 1e-12
        );
        assert!((e.p.unwrap() - stats::p_value(math::ln(0.5f64) / se, 4.0)).abs() < 1e-15);
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
}
