//! The difference between two independent estimates of one quantity, each
//! known only by its value and 95% interval (as two commits' stats.json
//! hold them): their ratio with its interval and p, from standard errors
//! read off each interval on the log scale and combined (Altman & Bland,
//! "Interaction revisited: the difference between two estimates", BMJ
//! 2003); their difference on the linear scale where a value is not
//! positive.

use super::CONFIDENCE;
use super::student::{normal_sf, normal_upper_quantile};
use crate::math;

/// A test of the difference between an estimate before and one after.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Between {
    /// `ratio` (after / before) or `difference` (after − before).
    pub scale: Scale,
    /// The ratio or the difference.
    pub estimate: f64,
    /// Its 95% interval.
    pub ci: [f64; 2],
    /// The two-sided p of no change (ratio 1, difference 0).
    pub p: f64,
    /// Whether the interval excludes no change.
    pub significant: bool,
}

/// The scale a [`Between`] is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scale {
    /// after / before, from the difference of the logarithms.
    Ratio,
    /// after − before.
    Difference,
}

/// The test of `after` against `before`, each a value with its 95%
/// interval, on the log scale where all six numbers are positive, else on
/// the linear scale. Each standard error is the interval's width over
/// 2 × 1.96: for an interval from Student's t, wider than its own, so the
/// test errs towards "no change". `None` for a number that is not finite
/// or an interval that does not hold its value.
pub fn between(before: (f64, [f64; 2]), after: (f64, [f64; 2])) -> Option<Between> {
    let all = [before.0, before.1[0], before.1[1], after.0, after.1[0], after.1[1]];
    if all.iter().any(|x| !x.is_finite())
        || [before, after].iter().any(|(v, [lo, hi])| !(lo <= v && v <= hi))
    {
        return None;
    }
    let ratio = all.iter().all(|&x| x > 0.0);
    let scale = if ratio { Scale::Ratio } else { Scale::Difference };
    let to = |x: f64| if ratio { math::ln(x) } else { x };
    let z = normal_upper_quantile((1.0 - CONFIDENCE) / 2.0);
    let se = |(_, [lo, hi]): (f64, [f64; 2])| (to(hi) - to(lo)) / (2.0 * z);
    let d = to(after.0) - to(before.0);
    let se = se(before).hypot(se(after));
    let p = match se {
        0.0 if d == 0.0 => 1.0,
        0.0 => 0.0,
        se => (2.0 * normal_sf((d / se).abs())).min(1.0),
    };
    let from = |x: f64| if ratio { math::exp(x) } else { x };
    let ci = [from(d - z * se), from(d + z * se)];
    let null = if ratio { 1.0 } else { 0.0 };
    let significant = !(ci[0] <= null && null <= ci[1]);
    Some(Between { scale, estimate: from(d), ci, p, significant })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand (and scipy.stats.norm): 1.088 (1.061 to 1.115) before,
    /// 1.2 (1.15 to 1.25) after. On the log scale the standard errors are
    /// ln(1.115 / 1.061) / 3.919928 = 0.0126641 and ln(1.25 / 1.15) /
    /// 3.919928 = 0.0212712, together 0.0247557; d = ln(1.2 / 1.088) =
    /// 0.0979804, z = 3.957892, p = 2·norm.sf(z) = 7.5614e-5; the ratio
    /// 1.102941 within exp(d ± 1.959964 × 0.0247557) = 1.050704 to 1.157776.
    #[test]
    fn the_ratio_of_two_estimates_has_the_interval_of_both() {
        let t = between((1.088, [1.061, 1.115]), (1.2, [1.15, 1.25])).unwrap();
        assert_eq!(t.scale, Scale::Ratio);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-6 * b.abs();
        assert!(close(t.estimate, 1.102_941), "{t:?}");
        assert!(close(t.ci[0], 1.050_704) && close(t.ci[1], 1.157_776), "{t:?}");
        assert!((t.p - 7.5614e-5).abs() < 1e-9, "{t:?}");
        assert!(t.significant);
    }

    /// A value that is not positive is compared on the linear scale, by
    /// hand (and scipy.stats.norm): −0.5 (−0.9 to −0.1) before, 0.3 (0.1
    /// to 0.5) after: standard errors 0.8 / 3.919928 and 0.4 / 3.919928,
    /// together 0.2281744; d = 0.8, z = 3.506090, p = 4.5474e-4, the
    /// interval 0.8 ± 1.959964 × 0.2281744 = 0.352786 to 1.247214. An
    /// interval that does not hold its value, or a number that is not
    /// finite, is no test.
    #[test]
    fn values_that_are_not_positive_differ_on_the_linear_scale() {
        let t = between((-0.5, [-0.9, -0.1]), (0.3, [0.1, 0.5])).unwrap();
        assert_eq!(t.scale, Scale::Difference);
        assert!((t.estimate - 0.8).abs() < 1e-12);
        assert!((t.ci[0] - 0.352_786).abs() < 1e-6 && (t.ci[1] - 1.247_214).abs() < 1e-6);
        assert!((t.p - 4.5474e-4).abs() < 1e-8, "{t:?}");
        let same = between((2.0, [1.0, 3.0]), (2.0, [1.0, 3.0])).unwrap();
        assert_eq!((same.estimate, same.p, same.significant), (1.0, 1.0, false));
        assert_eq!(between((2.0, [2.5, 3.0]), (2.0, [1.0, 3.0])), None);
        assert_eq!(between((f64::NAN, [1.0, 3.0]), (2.0, [1.0, 3.0])), None);
        // Exact on both sides: a change is certain, no change is none.
        assert_eq!(between((2.0, [2.0, 2.0]), (3.0, [3.0, 3.0])).unwrap().p, 0.0);
        assert_eq!(between((2.0, [2.0, 2.0]), (2.0, [2.0, 2.0])).unwrap().p, 1.0);
    }
}
