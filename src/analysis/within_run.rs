//! Averages over configurations that every run measures at once (one OSU
//! run measures every message size): the runs, not the configurations, are
//! the units. Each run gets a score, its values divided by the means of
//! their configurations and averaged over them; the variance of the average
//! ratio is that of the candidate's scores over its runs plus the baseline's
//! (the delta method, with Welch–Satterthwaite degrees of freedom), so that
//! sizes measured by one run never count as independent samples.

use std::collections::BTreeMap;

use super::filter::{self, KeyPart};
use super::model::{self, Estimate};
use super::stats::{self, Summary};
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
    let means = |rows: &[Vec<f64>]| -> Vec<f64> {
        (0..rows[0].len())
            .map(|s| rows.iter().map(|r| r[s]).sum::<f64>() / rows.len() as f64)
            .collect()
    };
    let (mc, mb) = (means(c), means(b));
    let k = mc.len() as f64;
    let ratios: Vec<f64> = mc.iter().zip(&mb).map(|(c, b)| c / b).collect();
    // Scores whose means are the average (arithmetic) or 1 (geometric).
    let score = |row: &[f64], weights: &dyn Fn(usize) -> f64| {
        row.iter().enumerate().map(|(s, x)| x * weights(s)).sum::<f64>() / k
    };
    let (ratio, sc, sb): (f64, Vec<f64>, Vec<f64>) = match how {
        Average::Geometric => (
            (ratios.iter().map(|r| r.ln()).sum::<f64>() / k).exp(),
            c.iter().map(|r| score(r, &|s| 1.0 / mc[s])).collect(),
            b.iter().map(|r| score(r, &|s| 1.0 / mb[s])).collect(),
        ),
        Average::Arithmetic => (
            ratios.iter().sum::<f64>() / k,
            c.iter().map(|r| score(r, &|s| 1.0 / mb[s])).collect(),
            b.iter().map(|r| score(r, &|s| ratios[s] / mb[s])).collect(),
        ),
    };
    if estimator == Estimator::Median {
        return model::of_medians(&sc, &sb)
            .map(|e| Estimate {
                model: "per-run scores, Hodges–Lehmann ratio, Mann–Whitney U",
                ..e
            })
            .unwrap_or(Estimate { ratio, ci: None, p: None, model: MODEL });
    }
    // On the log scale: se(ln R) = se(R) / R; geometric scores have mean 1.
    let scale = if how == Average::Geometric { 1.0 } else { ratio };
    let (Some(vc), Some(vb)) = (
        Summary::of(&sc).and_then(|s| s.variance_of_mean()),
        Summary::of(&sb).and_then(|s| s.variance_of_mean()),
    ) else {
        return Estimate { ratio, ci: None, p: None, model: MODEL };
    };
    let parts = [(vc / scale / scale, sc.len()), (vb / scale / scale, sb.len())];
    let variance = parts[0].0 + parts[1].0;
    if !(variance > 0.0 && ratio > 0.0) {
        return Estimate { ratio, ci: None, p: None, model: MODEL };
    }
    let (se, df) = (variance.sqrt(), stats::satterthwaite(&parts));
    let (log, half) = (ratio.ln(), stats::t_quantile(df) * se);
    let ci = [(log - half).exp(), (log + half).exp()];
    Estimate { ratio, ci: Some(ci), p: Some(stats::p_value(log / se, df)), model: MODEL }
}
