//! Averages over configurations that every run measures at once (one OSU
//! run measures every message size): the runs, not the configurations, are
//! the units, so that sizes measured by one run never count as independent
//! samples. Here the rows become each side's runs × configurations; the
//! metric's estimator averages them ([`Estimator::within_run`]: each run
//! scored against the configurations' means, then Welch's t or
//! Mann–Whitney's test on the scores).

use crate::math;
use std::collections::BTreeMap;

use crate::analysis::queries::filter::{self, KeyPart};
use crate::analysis::statistics::estimators::{self, Estimator, RunsAsUnits};
use crate::analysis::statistics::model::{Estimate, Model};
use crate::analysis::statistics::stats::Summary;
use crate::config::{Average, Metric};
use crate::results::Table;

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
    Ok(combine(&c, &b, metric.average, estimators::of(metric.estimator)))
}

fn missing(run: &[KeyPart], config: &KeyPart, env: &str, per: &str) -> String {
    let run: Vec<String> = run.iter().map(ToString::to_string).collect();
    format!(
        "run {} of `{env}` has no value at {per} = {config}, so runs cannot be the units",
        run.join("/")
    )
}

/// The average ratio of `c` over `b` (rows are runs, columns
/// configurations) by `estimator`; exact when each side's runs are equal.
pub fn combine(
    c: &[Vec<f64>],
    b: &[Vec<f64>],
    how: Average,
    estimator: &dyn Estimator,
) -> Estimate {
    let (mc, mb) = (column_means(c), column_means(b));
    let k = mc.len() as f64;
    let ratios = mc.iter().zip(&mb).map(|(c, b)| c / b);
    let ratio = match how {
        Average::Geometric => math::exp(ratios.map(math::ln).sum::<f64>() / k),
        Average::Arithmetic => ratios.sum::<f64>() / k,
    };
    if constant_columns(c) && constant_columns(b) {
        return Estimate { ratio, model: Model::Exact, exact: true, ..Default::default() };
    }
    let runs = RunsAsUnits { candidate: c, baseline: b, means: [mc, mb], average: how, ratio };
    estimator.within_run(&runs).unwrap_or(Estimate {
        ratio,
        model: Model::RunsAsUnits,
        ..Default::default()
    })
}

/// Whether `rows` has two runs or more, each configuration's values equal.
fn constant_columns(rows: &[Vec<f64>]) -> bool {
    rows.len() >= 2 && rows.iter().all(|r| r == &rows[0])
}

/// The mean of each column of `rows`.
fn column_means(rows: &[Vec<f64>]) -> Vec<f64> {
    (0..rows[0].len()).map(|s| rows.iter().map(|r| r[s]).sum::<f64>() / rows.len() as f64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::statistics::estimators::Name;
    use crate::analysis::statistics::model::Sample;

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
            (0..k).map(|s| math::powf(10.0, s as f64 / 6.0) * (1.0 + uniform())).collect();
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
                for name in [Name::Mean, Name::Median] {
                    let estimator = estimators::of(name);
                    let per: Vec<f64> = (0..b[0].len())
                        .map(|s| {
                            let column =
                                |rows: &[Vec<f64>]| rows.iter().map(|r| r[s]).collect::<Vec<f64>>();
                            let (cs, bs) = (
                                Sample::of(&column(&c)).unwrap(),
                                Sample::of(&column(&b)).unwrap(),
                            );
                            estimator.compare(&cs, &bs).unwrap().ratio
                        })
                        .collect();
                    let (lo, hi) =
                        per.iter().fold((f64::MAX, f64::MIN), |(l, h), r| (l.min(*r), h.max(*r)));
                    let e = combine(&c, &b, how, estimator);
                    let slack = 1e-9 * hi;
                    assert!(
                        lo - slack <= e.ratio && e.ratio <= hi + slack,
                        "seed {seed} {how:?} {name:?}: {} outside {lo}..{hi}",
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
            let e = combine(&c, &b, how, estimators::of(Name::Median));
            assert!(e.ratio > 1.5 && e.ratio < 3.0, "{how:?}: {}", e.ratio);
            assert_eq!(e.significant(), Some(true));
        }
    }
}
