//! The named metrics of book.toml: one comparison or summary each, with its
//! interval, p-value and inputs.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Inputs;
use super::filter;
use super::stats::{self, Summary};
use crate::config::{Better, Compare, Config, Metric};
use crate::diagnostic::{Diagnostic, Diagnostics, Location, list, suggest};
use crate::results::{ResultSet, Values};

/// One side of a comparison: an environment's mean and run count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Side {
    /// Environment name.
    pub environment: String,
    /// Mean of the measured column (the mean of group means for averaged metrics).
    pub mean: f64,
    /// Runs (the smallest group's count for averaged metrics).
    pub n: usize,
}

impl Side {
    /// The side of `environment` with the statistics of `summary`.
    pub fn of(environment: &str, summary: &Summary) -> Side {
        Side { environment: environment.to_string(), mean: summary.mean, n: summary.n }
    }
}

/// A computed metric of book.toml.
#[derive(Debug, Clone, Serialize)]
pub struct MetricValue {
    /// Name used in prose.
    pub name: String,
    /// Short label.
    pub label: String,
    /// Definition in words.
    pub definition: Option<String>,
    /// How environments are compared.
    pub compare: Compare,
    /// Which direction is good news.
    pub better: Better,
    /// Unit of the value: `%` for relative differences and slowdowns.
    pub unit: String,
    /// Decimals shown.
    pub decimals: usize,
    /// Shown as a summary card.
    pub headline: bool,
    /// The value: a fraction for `relative` and `slowdown` (0.088 is +8.8%),
    /// the ratio, or the candidate's mean.
    pub value: f64,
    /// 95% confidence interval of the value; absent when some group has n < 2.
    pub ci: Option<[f64; 2]>,
    /// Why there is no interval, when there is none.
    pub ci_note: Option<String>,
    /// Two-sided p-value against "no difference"; absent for summaries and when n < 2.
    pub p_value: Option<f64>,
    /// Whether the interval excludes "no difference"; absent without an interval.
    pub significant: Option<bool>,
    /// The baseline side; absent for summaries.
    pub baseline: Option<Side>,
    /// The candidate side.
    pub candidate: Side,
    /// Groups averaged over (1 unless `per` is set).
    pub groups: usize,
    /// What it was computed from.
    pub inputs: Inputs,
}

/// Evaluate every metric of `config` against `results`, reporting all problems.
pub(super) fn evaluate(
    results: &ResultSet,
    config: &Config,
) -> Result<Vec<MetricValue>, Diagnostics> {
    let mut errors = Diagnostics::default();
    let mut values = Vec::new();
    for metric in &config.metrics {
        match evaluate_one(metric, results, config) {
            Ok(v) => values.push(v),
            Err(d) => errors.push(d),
        }
    }
    errors.into_result(values)
}

fn evaluate_one(
    metric: &Metric,
    results: &ResultSet,
    config: &Config,
) -> Result<MetricValue, Diagnostic> {
    let at = metric.location.clone().unwrap_or_else(|| Location::file("book.toml"));
    // Each problem at the value in book.toml that causes it.
    let err = |key: &str, message: String, hint: String| {
        let location = metric.at.or(key, &at);
        Diagnostic::new(location, format!("metric `{}`: {message}", metric.name)).hint(hint)
    };
    let table = results.tables.get(&metric.data).ok_or_else(|| {
        err(
            "data",
            format!("unknown data file `{}`", metric.data),
            suggest(&metric.data, results.tables.keys().map(String::as_str)),
        )
    })?;
    match table.column(&metric.value).map(|c| &c.values) {
        Some(Values::Number(_)) => {}
        Some(Values::Text(_)) => {
            return Err(err(
                "value",
                format!("column `{}` is not numeric", metric.value),
                "compare a numeric column".into(),
            ));
        }
        None => {
            return Err(err(
                "value",
                format!("unknown column `{}` in {}", metric.value, table.path.display()),
                suggest(&metric.value, table.column_names()),
            ));
        }
    }
    let env_column = config.study.environment_column.as_str();
    if !matches!(table.column(env_column).map(|c| &c.values), Some(Values::Text(_))) {
        return Err(err(
            "data",
            format!("{} has no `{env_column}` column", table.path.display()),
            "a metric compares environments; add the column, or set [study] environment-column"
                .into(),
        ));
    }
    let candidate = candidate(metric, config)
        .map_err(|m| err("candidate", m, "set `candidate` to the environment to compare".into()))?;
    let per: Vec<&str> = metric.per.iter().map(String::as_str).collect();
    if let Some(p) = metric.per.as_ref().filter(|p| table.column(p).is_none()) {
        return Err(err(
            "per",
            format!("unknown column `{p}` in `per`"),
            suggest(p, table.column_names()),
        ));
    }
    let envs = [env_column].into_iter().chain(per.iter().copied()).collect::<Vec<_>>();
    let groups = filter::aggregate(table, &metric.filter, &envs, &[metric.value.as_str()])
        .map_err(|c| {
            let message = format!("unknown column `{c}` in `where`");
            err(&format!("where.{c}"), message, suggest(&c, table.column_names()))
        })?;
    let mut pairs = Vec::new();
    let keys: BTreeMap<_, _> = groups
        .iter()
        .map(|g| ((g.key[1..].to_vec(), g.key[0].to_string()), &g.samples[0]))
        .collect();
    for ((config_key, env), sample) in &keys {
        if *env != candidate {
            continue;
        }
        let base = keys
            .get(&(config_key.clone(), config.study.baseline.clone()))
            .and_then(|b| Summary::of_sample(b));
        if let Some(cand) = Summary::of_sample(sample) {
            pairs.push((cand, base));
        }
    }
    if pairs.is_empty() {
        let found: std::collections::BTreeSet<String> =
            groups.iter().map(|g| g.key[0].to_string()).collect();
        return Err(err(
            "where",
            format!(
                "no rows of `{candidate}` match `where` ({}) in {}",
                filter::describe(&metric.filter),
                table.path.display()
            ),
            format!(
                "environments in the selected rows: {}; check the filter",
                list(found.iter().map(String::as_str))
            ),
        ));
    }
    let inputs = Inputs {
        file: table.path.display().to_string(),
        column: metric.value.clone(),
        filter: filter::describe(&metric.filter),
    };
    compute(metric, config, &candidate, &pairs, inputs).map_err(|m| {
        err(
            "where",
            m,
            "check `where` and `per`: both environments need rows in every group".into(),
        )
    })
}

/// The candidate environment: declared, or the only non-baseline one.
fn candidate(metric: &Metric, config: &Config) -> Result<String, String> {
    if let Some(c) = &metric.candidate {
        return Ok(c.clone());
    }
    let others: Vec<&String> =
        config.environments.keys().filter(|e| **e != config.study.baseline).collect();
    match (metric.compare, others.as_slice()) {
        (Compare::Summary, _) if others.is_empty() => Ok(config.study.baseline.clone()),
        (_, [one]) => Ok((*one).clone()),
        _ => Err(format!(
            "cannot tell which environment to compare with `{}`",
            config.study.baseline
        )),
    }
}

/// Standard error and degrees of freedom of the mean of `k` ratios: sqrt(Σ se²) / k,
/// with Welch–Satterthwaite degrees of freedom; `None` if any ratio lacks an se.
fn averaged_interval(ratios: &[stats::Ratio]) -> Option<(f64, f64)> {
    let k = ratios.len() as f64;
    let ses: Vec<(f64, f64)> = ratios.iter().map(|r| r.se.zip(r.df)).collect::<Option<_>>()?;
    let variance: f64 = ses.iter().map(|(se, _)| se * se).sum::<f64>() / (k * k);
    let parts: Vec<(f64, f64)> = ses.iter().map(|(se, df)| (se * se / (k * k), *df)).collect();
    let df = variance * variance / parts.iter().map(|(v, df)| v * v / df).sum::<f64>();
    (variance > 0.0).then(|| (variance.sqrt(), df))
}

/// The metric's value, interval and p-value from per-group (candidate, baseline) pairs.
fn compute(
    metric: &Metric,
    config: &Config,
    candidate: &str,
    pairs: &[(Summary, Option<Summary>)],
    inputs: Inputs,
) -> Result<MetricValue, String> {
    let k = pairs.len() as f64;
    let n = pairs.iter().map(|(c, b)| b.as_ref().map_or(c.n, |b| b.n.min(c.n))).min().unwrap_or(0);
    let cand_mean = pairs.iter().map(|(c, _)| c.mean).sum::<f64>() / k;
    let cand_side = Side {
        environment: candidate.to_string(),
        mean: cand_mean,
        n: pairs.iter().map(|p| p.0.n).min().unwrap_or(0),
    };
    let mut value = MetricValue {
        name: metric.name.clone(),
        label: metric.label.clone(),
        definition: metric.definition.clone(),
        compare: metric.compare,
        better: metric.better,
        decimals: metric.decimals,
        headline: metric.headline,
        unit: metric.unit.clone().unwrap_or_else(|| {
            if metric.compare == Compare::Ratio { "×".into() } else { "%".into() }
        }),
        value: cand_mean,
        ci: None,
        ci_note: stats::no_interval(n),
        p_value: None,
        significant: None,
        baseline: None,
        candidate: cand_side,
        groups: pairs.len(),
        inputs,
    };
    if metric.compare == Compare::Summary {
        if metric.unit.is_none() {
            value.unit = String::new();
        }
        if let [(only, _)] = pairs {
            value.ci = only.ci;
        }
        return Ok(value);
    }
    let mut ratios = Vec::new();
    for (c, b) in pairs {
        let b = b.as_ref().ok_or_else(|| {
            format!("the baseline `{}` has no rows in some group", config.study.baseline)
        })?;
        ratios.push((stats::ratio(c, b), c.n, b.n, b.mean));
    }
    let r = ratios.iter().map(|x| x.0.value).sum::<f64>() / k;
    value.baseline = Some(Side {
        environment: config.study.baseline.clone(),
        mean: ratios.iter().map(|x| x.3).sum::<f64>() / k,
        n: ratios.iter().map(|x| x.2).min().unwrap_or(0),
    });
    let interval = averaged_interval(&ratios.iter().map(|x| x.0).collect::<Vec<_>>());
    let p = match (pairs, interval) {
        ([(c, Some(b))], _) => stats::welch(c, b).map(|w| w.p),
        (_, Some((se, df))) => Some(stats::p_value((r - 1.0) / se, df)),
        _ => None,
    };
    let [lo, hi] = interval.map_or([f64::NAN; 2], |(se, df)| {
        [r - stats::t_quantile(df) * se, r + stats::t_quantile(df) * se]
    });
    let (v, ci, null) = match metric.compare {
        Compare::Relative => (r - 1.0, [lo - 1.0, hi - 1.0], 0.0),
        Compare::Slowdown => (1.0 - r, [1.0 - hi, 1.0 - lo], 0.0),
        Compare::Ratio | Compare::Summary => (r, [lo, hi], 1.0),
    };
    value.value = v;
    value.p_value = p;
    if interval.is_some() {
        value.ci = Some(ci);
        value.significant = Some(!(ci[0] <= null && null <= ci[1]));
    }
    Ok(value)
}
