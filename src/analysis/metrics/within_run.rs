//! Averages over configurations that every run measures at once (one OSU
//! run measures every message size): the runs, not the configurations, are
//! the units. Each run gets a score, its values divided by the means of
//! their configurations and averaged over them; the variance of the average
//! ratio is that of the candidate's scores over its runs plus the baseline's
//! (the delta method, with Welch–Satterthwaite degrees of freedom), so that
//! sizes measured by one run never count as independent samples.

use std::collections::BTreeMap;

use crate::analysis::queries::filter::{self, KeyPart};
use crate::analysis::statistics::model::{self, Estimate, Sample};
use crate::analysis::statistics::ranks::Interval;
use crate::analysis::statistics::stats::{self, Summary};
use crate::config::{Average, Estimator, Metric};
use crate::results::Table;

const MODEL: &str = "average over configurations with runs as the units: Welch's t on the \
    log scale of per-run scores (delta method)";

/// Per run (by its key), the value at each configuration (the mean, if a
/// run has several rows there).
type Runs = BTreeMap<Vec<KeyPart>, BTreeMap<KeyPart, f64>>;

/// The averaged estimate of `metric` over the configurations `configs`,
/// with runs as units; `Err` says why it cannot be computed.
pub(super) fn estimate(
    metric: &Metric,
    table: &Table,
    (env_column, key): (&str, &[String]),
    (candidate, baseline): (&str, &str),
    configs: &[KeyPart],
) -> Result<Estimate, String> {
    let per = metric.per.as_deref().ok_or("`within-run` needs `per`")?;
    let run_columns: Vec<&str> =
        key.iter().map(String::as_str).filter(|k| *k != env_column && *k != per).collect();
    if run_columns.is_empty() {
        return Err(format!(
            "`within-run` needs the runs' key: declare `key` for {} (such as [\"{env_column}\", \"{per}\", \"run\"])",
            table.path.display()
        ));
    }
    let by: Vec<&str> = [env_column].into_iter().chain(run_columns).chain([per]).collect();
    let groups = filter::aggregate(table, &metric.filter, &by, &[metric.value.as_str()])?;
    let mut runs: BTreeMap<String, Runs> = BTreeMap::new();
    for g in &groups {
        let Some(s) = Summary::of_sample(&g.samples[0]) else { continue };
        let run = g.key[1..g.key.len() - 1].to_vec();
        let config = g.key[g.key.len() - 1].clone();
        runs.entry(g.key[0].to_string())
            .or_default()
            .entry(run)
            .or_default()
            .insert(config, s.mean);
    }
    let side = |env: &str| -> Result<Vec<Vec<f64>>, String> {
        let runs = runs.get(env).ok_or_else(|| format!("no runs of `{env}`"))?;
        runs.iter()
            .map(|(run, at)| {
                configs
                    .iter()
                    .map(|c| at.get(c).copied().ok_or_else(|| missing(run, c, env, per)))
                    .collect()
            })
            .collect()
    };
    let (c, b) = (side(candidate)?, side(baseline)?);
    Ok(combine(&c, &b, metric.average, metric.estimator))
}

fn missing(run: &[KeyPart], config: &KeyPart, env: &str, per: &str) -> String {
    let run: Vec<String> = run.iter().map(ToString::to_string).collect();
    format!(
        "run {} of `{env}` has no value at {per} = {config}, so runs cannot be the units",
        run.join("/")
    )
}

/// The average ratio of `c` over `b` (rows are runs, columns configurations).
pub fn combine(c: &[Vec<f64>], b: &[Vec<f64>], how: Average, estimator: Estimator) -> Estimate {
    let (mc, mb) = (column_means(c), column_means(b));
    let k = mc.len() as f64;
    let ratios: Vec<f64> = mc.iter().zip(&mb).map(|(c, b)| c / b).collect();
    let ratio = match how {
        Average::Geometric => (ratios.iter().map(|r| r.ln()).sum::<f64>() / k).exp(),
        Average::Arithmetic => ratios.iter().sum::<f64>() / k,
    };
    if constant_columns(c) && constant_columns(b) {
        let model = "exact: each side gives the same value in every run";
        return Estimate { ratio, model, exact: true, ..Default::default() };
    }
    if estimator == Estimator::Median {
        return by_medians(c, b, &mb, how).unwrap_or(Estimate {
            ratio,
            model: MODEL,
            ..Default::default()
        });
    }
    // Scores whose means are the average (arithmetic) or 1 (geometric).
    let score = |row: &[f64], weights: &dyn Fn(usize) -> f64| {
        row.iter().enumerate().map(|(s, x)| x * weights(s)).sum::<f64>() / k
    };
    let (sc, sb): (Vec<f64>, Vec<f64>) = match how {
        Average::Geometric => (
            c.iter().map(|r| score(r, &|s| 1.0 / mc[s])).collect(),
            b.iter().map(|r| score(r, &|s| 1.0 / mb[s])).collect(),
        ),
        Average::Arithmetic => (
            c.iter().map(|r| score(r, &|s| 1.0 / mb[s])).collect(),
            b.iter().map(|r| score(r, &|s| ratios[s] / mb[s])).collect(),
        ),
    };
    by_means(ratio, &sc, &sb, how)
}

/// Whether `rows` has two runs or more, each configuration's values equal.
fn constant_columns(rows: &[Vec<f64>]) -> bool {
    rows.len() >= 2 && rows.iter().all(|r| r == &rows[0])
}

/// The mean of each column of `rows`.
fn column_means(rows: &[Vec<f64>]) -> Vec<f64> {
    (0..rows[0].len()).map(|s| rows.iter().map(|r| r[s]).sum::<f64>() / rows.len() as f64).collect()
}

/// Welch's t on the log scale of the per-run scores `sc` and `sb`, whose
/// means give `ratio` (the delta method).
fn by_means(ratio: f64, sc: &[f64], sb: &[f64], how: Average) -> Estimate {
    // On the log scale: se(ln R) = se(R) / R; geometric scores have mean 1.
    let scale = if how == Average::Geometric { 1.0 } else { ratio };
    let (Some(vc), Some(vb)) = (
        Summary::of(sc).and_then(|s| s.variance_of_mean()),
        Summary::of(sb).and_then(|s| s.variance_of_mean()),
    ) else {
        return Estimate { ratio, model: MODEL, ..Default::default() };
    };
    let parts = [(vc / scale / scale, sc.len()), (vb / scale / scale, sb.len())];
    let variance = parts[0].0 + parts[1].0;
    if !(variance > 0.0 && ratio > 0.0) {
        return Estimate { ratio, model: MODEL, ..Default::default() };
    }
    let (se, df) = (variance.sqrt(), stats::satterthwaite(&parts));
    let (log, half) = (ratio.ln(), stats::t_quantile(df) * se);
    let ci = [(log - half).exp(), (log + half).exp()];
    Estimate {
        ratio,
        ci: Some(ci),
        p: Some(stats::p_value(log / se, df)),
        model: MODEL,
        ..Default::default()
    }
}

const MEDIAN_MODEL: &str = "average of the per-configuration Hodges–Lehmann ratios; interval \
    and p from Mann–Whitney's test on per-run scores against the baseline's means (runs as units)";

/// The Hodges–Lehmann ratio of the candidate's per-run scores to the
/// baseline's, both scored against the same reference, the baseline's
/// mean at each configuration: a run's score is its geometric (all values
/// positive) or arithmetic mean over the configurations of value /
/// reference. The baseline's scores centre on 1, the candidate's on its
/// level against the baseline, so the ratio of the two is that level, and
/// the shifts that Mann–Whitney's test on the scores accepts are its
/// interval. The caller re-centres it on the average of the
/// per-configuration estimates ([`centred`]).
fn by_medians(c: &[Vec<f64>], b: &[Vec<f64>], reference: &[f64], how: Average) -> Option<Estimate> {
    let positive = c.iter().chain(b).flatten().chain(reference).all(|v| *v > 0.0);
    let k = reference.len() as f64;
    let score = |row: &Vec<f64>| match (how, positive) {
        (Average::Geometric, true) => {
            (row.iter().zip(reference).map(|(x, m)| (x / m).ln()).sum::<f64>() / k).exp()
        }
        _ => row.iter().zip(reference).map(|(x, m)| x / m).sum::<f64>() / k,
    };
    let (mut sc, mut sb): (Vec<f64>, Vec<f64>) =
        (c.iter().map(score).collect(), b.iter().map(score).collect());
    tie_within_rounding(&mut sc, &mut sb);
    let (c, b) = (Sample::of(&sc)?, Sample::of(&sb)?);
    let e = model::estimate(&c, &b, Estimator::Median)?;
    Some(Estimate { model: if e.exact { e.model } else { MEDIAN_MODEL }, ..e })
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

    /// Seeded runs × configurations: the baseline's level at each
    /// configuration spans three orders of magnitude (like message sizes),
    /// the candidate's is `factor(s)` times it, and each run adds its own
    /// noise; 3 to 25 runs a side, 1 to 19 configurations.
    fn runs(seed: u64) -> (Vec<Vec<f64>>, Vec<Vec<f64>>, Vec<f64>) {
        let mut state = seed.wrapping_add(0x2545_F491_4F6C_DD1D);
        let mut uniform = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let (m, n, k) = (
            3 + (uniform() * 23.0) as usize,
            3 + (uniform() * 23.0) as usize,
            1 + (uniform() * 19.0) as usize,
        );
        let levels: Vec<f64> =
            (0..k).map(|s| 10f64.powf(s as f64 / 6.0) * (1.0 + uniform())).collect();
        let factors: Vec<f64> = (0..k).map(|_| 0.4 + 2.6 * uniform()).collect();
        let mut side = |count: usize, factor: &dyn Fn(usize) -> f64| -> Vec<Vec<f64>> {
            (0..count)
                .map(|_| (0..k).map(|s| levels[s] * factor(s) * (0.8 + 0.4 * uniform())).collect())
                .collect()
        };
        let b = side(n, &|_| 1.0);
        let c = side(m, &|s| factors[s]);
        (c, b, factors)
    }

    /// The average lies within the range of the per-configuration
    /// estimates it averages, for every `average` and `estimator`; by the
    /// median it is the candidate's level, not the samples' shape (a
    /// candidate slower at every configuration is never called faster).
    #[test]
    fn averages_lie_within_what_they_average() {
        for seed in 0..400 {
            let (c, b, _) = runs(seed);
            for how in [Average::Geometric, Average::Arithmetic] {
                for estimator in [Estimator::Mean, Estimator::Median] {
                    let per: Vec<f64> = (0..b[0].len())
                        .map(|s| {
                            let column =
                                |rows: &[Vec<f64>]| rows.iter().map(|r| r[s]).collect::<Vec<f64>>();
                            let (cs, bs) = (
                                Sample::of(&column(&c)).unwrap(),
                                Sample::of(&column(&b)).unwrap(),
                            );
                            model::estimate(&cs, &bs, estimator).unwrap().ratio
                        })
                        .collect();
                    let (lo, hi) =
                        per.iter().fold((f64::MAX, f64::MIN), |(l, h), r| (l.min(*r), h.max(*r)));
                    let e = combine(&c, &b, how, estimator);
                    let slack = 1e-9 * hi;
                    assert!(
                        lo - slack <= e.ratio && e.ratio <= hi + slack,
                        "seed {seed} {how:?} {estimator:?}: {} outside {lo}..{hi}",
                        e.ratio
                    );
                }
            }
        }
    }

    /// The OSU shape of the issue: the candidate 1.5 to 3 times slower at
    /// each of 19 sizes, 20 runs a side: by the median too it is slower,
    /// and significantly so.
    #[test]
    fn a_candidate_slower_everywhere_is_slower_by_the_median() {
        let (k, runs) = (19, 20);
        let noise = |i: usize, s: usize| 1.0 + ((i * 7 + s * 13) % 11) as f64 / 100.0;
        let level = |s: usize| 2f64.powi(s as i32 / 2) + 1.0;
        let factor = |s: usize| 1.5 + 1.5 * s as f64 / (k - 1) as f64;
        let b: Vec<Vec<f64>> =
            (0..runs).map(|i| (0..k).map(|s| level(s) * noise(i, s)).collect()).collect();
        let c: Vec<Vec<f64>> = (0..runs)
            .map(|i| (0..k).map(|s| level(s) * factor(s) * noise(i + 3, s)).collect())
            .collect();
        for how in [Average::Geometric, Average::Arithmetic] {
            let e = combine(&c, &b, how, Estimator::Median);
            assert!(e.ratio > 1.5 && e.ratio < 3.0, "{how:?}: {}", e.ratio);
            assert_eq!(e.significant(), Some(true));
        }
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
