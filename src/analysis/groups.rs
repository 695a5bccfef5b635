//! Per-group summaries, baseline comparisons and scaling, for every table.

use std::collections::BTreeMap;

use super::queries::filter::{KeyPart, aggregate};
use super::statistics::estimators::{mean, median};
use super::statistics::stats::{Summary, moments};
use super::{Analysis, Comparison, Group, Inputs, MedianComparison, ScalingPoint, Side, ranks};
use crate::config::{Better, Config, Dataset, Scaling};
use crate::diagnostic::{Diagnostic, Location, suggest};
use crate::results::{Table, Values};

/// Add the summaries, comparisons and scaling points of `table` to
/// `analysis`; the error of a scaling analysis that cannot be computed.
pub(super) fn summarise(
    table: &Table,
    dataset: &Dataset,
    config: &Config,
    analysis: &mut Analysis,
) -> Result<(), Diagnostic> {
    let env_column = config.study.environment_column.as_str();
    let has_env = matches!(table.column(env_column).map(|c| &c.values), Some(Values::Text(_)));
    let by = configuration(table, dataset, config, has_env);
    let skip: Vec<&str> = by
        .iter()
        .copied()
        .chain(dataset.key.iter().map(String::as_str))
        .chain([config.study.nodes_column.as_str()])
        .collect();
    let numeric: Vec<&str> = table
        .columns
        .iter()
        .filter(|c| c.values.numbers().is_some() && !skip.contains(&c.name.as_str()))
        .map(|c| c.name.as_str())
        .filter(|c| !super::descriptions::named(c))
        .collect();
    let mut groups = aggregate(table, &BTreeMap::new(), &by, &numeric).unwrap_or_default();
    let named: Vec<&str> = config.metrics.iter().map(|m| m.value.as_str()).collect();
    let columns = super::descriptions::measured(&mut groups, numeric, &named);
    // The summary of each column in each group is independent: compute them
    // all in parallel, each sample sorted in place once for all its statistics.
    let count = groups.len();
    let samples: Vec<Vec<f64>> = (0..columns.len() * count)
        .map(|i| std::mem::take(&mut groups[i % count].samples[i / count]))
        .collect();
    let mut computed: Vec<Option<Sorted>> = {
        use rayon::prelude::*;
        samples
            .into_par_iter()
            .map(|values| {
                Summary::sorting(values).map(|(summary, sorted)| Sorted { summary, sorted })
            })
            .collect()
    };
    for (c, column) in columns.iter().enumerate() {
        let mut summaries = BTreeMap::new();
        for (group, sample) in groups.iter().zip(&mut computed[c * count..(c + 1) * count]) {
            let Some(sample) = sample.take() else { continue };
            let at = (by.as_slice(), has_env, dataset.key.as_slice());
            let (key, sample) = record(table, column, group, sample, at, analysis);
            summaries.insert(key, sample);
        }
        compare(table, column, &summaries, config, analysis);
    }
    match &dataset.scaling {
        Some(scaling) => scale(table, scaling, has_env.then_some(env_column), config, analysis),
        None => Ok(()),
    }
}

/// The columns that define a configuration of `table`: the environment
/// column (when `has_env`), then the file's `group-by`, then the study's
/// `factors` the file has: every summary and diagnostic is of one
/// configuration, never pooled across them.
fn configuration<'c>(
    table: &Table,
    dataset: &'c Dataset,
    config: &'c Config,
    has_env: bool,
) -> Vec<&'c str> {
    let env_column = config.study.environment_column.as_str();
    let mut by: Vec<&str> = has_env.then_some(env_column).into_iter().collect();
    let factors = config.study.factors.iter().filter(|f| table.column(f).is_some());
    for column in dataset.group_by.iter().chain(factors) {
        if column != env_column && !by.contains(&column.as_str()) {
            by.push(column);
        }
    }
    by
}

/// A group's summary and its values ascending.
struct Sorted {
    summary: Summary,
    sorted: Vec<f64>,
}

/// Add the group of `sample` to `analysis`, its outliers named by run;
/// the sample under its (configuration, environment) key.
fn record(
    table: &Table,
    column: &str,
    group: &super::queries::filter::Grouped,
    mut sample: Sorted,
    (by, has_env, key): (&[&str], bool, &[String]),
    analysis: &mut Analysis,
) -> ((BTreeMap<String, String>, Option<String>), Sorted) {
    let outliers = &mut sample.summary.robust.outliers;
    super::queries::runs::name(outliers, table, (by, group.key.as_slice()), column, key);
    let (env, cfg) = split_key(&group.key, by, has_env);
    let filter = describe_config(&cfg);
    analysis.groups.push(Group {
        id: group_id(&table.name, column, env.as_deref(), &filter),
        inputs: inputs(table, column, env.as_deref().map(|e| (by[0], e)), &filter),
        environment: env.clone(),
        config: cfg.clone(),
        summary: sample.summary.clone(),
        provenance: crate::config::Provenance::default(),
    });
    ((cfg, env), sample)
}

type Summaries = BTreeMap<(BTreeMap<String, String>, Option<String>), Sorted>;

/// Each non-baseline environment against the baseline, per configuration.
fn compare(
    table: &Table,
    column: &str,
    summaries: &Summaries,
    config: &Config,
    analysis: &mut Analysis,
) {
    let baseline = &config.study.baseline;
    let mut pairs = Vec::new();
    for ((cfg, env), candidate) in summaries {
        let Some(env) = env.as_ref().filter(|e| *e != baseline) else { continue };
        let Some(base) = summaries.get(&(cfg.clone(), Some(baseline.clone()))) else { continue };
        // Every numeric column is compared, counts of events too: a ratio to
        // a baseline mean of zero does not exist, and is left out.
        if base.summary.mean != 0.0 {
            pairs.push((cfg, env, candidate, base));
        }
    }
    // The rank statistics of each pair are independent: in parallel, each
    // side sorted once for both.
    let ranked: Vec<_> = {
        use rayon::prelude::*;
        pairs.par_iter().map(|(_, _, c, b)| rank_statistics(c, b)).collect()
    };
    for ((cfg, env, candidate, base), (median, rank)) in pairs.into_iter().zip(ranked) {
        let means = mean::of_means(&candidate.summary, &base.summary);
        let filter = describe_config(cfg);
        analysis.comparisons.push(Comparison {
            id: format!("{}/{column}/{env}-vs-{baseline}{}", table.name, suffix(&filter)),
            inputs: inputs(table, column, None, &filter),
            config: cfg.clone(),
            baseline: Side::of(baseline, &base.summary),
            candidate: Side::of(env, &candidate.summary),
            ratio: means.ratio,
            relative: means.ratio - 1.0,
            ci: means.ci.map(|[lo, hi]| [lo - 1.0, hi - 1.0]),
            p_value: means.p,
            model: means.model,
            median,
            rank,
            provenance: crate::config::Provenance::default(),
        });
    }
}

/// The comparison of medians and Mann–Whitney's test of a pair, the test
/// made once for both.
fn rank_statistics(c: &Sorted, b: &Sorted) -> (Option<MedianComparison>, Option<ranks::RankTest>) {
    let test = ranks::mann_whitney(&c.sorted, &b.sorted);
    (test.as_ref().and_then(|test| median_comparison(c, b, test)), test)
}

/// The comparison of medians: the ratio of the medians, and the
/// Hodges–Lehmann ratio with its interval and Mann–Whitney's p (`test`).
fn median_comparison(c: &Sorted, b: &Sorted, test: &ranks::RankTest) -> Option<MedianComparison> {
    // With one run on a side: the estimate alone (`Estimate::sized`).
    let hl = median::of_medians_tested(&c.sorted, &b.sorted, test)?
        .sized(c.sorted.len(), b.sorted.len());
    Some(MedianComparison {
        ratio_of_medians: (b.summary.median != 0.0).then(|| c.summary.median / b.summary.median),
        relative: hl.ratio - 1.0,
        ci: hl.ci.map(|[lo, hi]| [lo - 1.0, hi - 1.0]),
        ci_open: hl.ci.and(Some(hl.open)).filter(|open| open[0] || open[1]),
        p_value: hl.p.map(super::statistics::stats::reported_p),
    })
}

/// Speedup and efficiency against the smallest process count, per
/// environment; an error at `scaling` in book.toml when a column is missing
/// or a mean it divides by is zero.
fn scale(
    table: &Table,
    scaling: &Scaling,
    env: Option<&str>,
    config: &Config,
    analysis: &mut Analysis,
) -> Result<(), Diagnostic> {
    let blame = |key: &str, message: String, hint: String| {
        let path = format!("data.{}.scaling.{key}", table.name);
        let at = config.at.or(&path, &Location::file("book.toml"));
        Diagnostic::new(at, format!("scaling of {}: {message}", table.path.display())).hint(hint)
    };
    for (key, column) in [("by", &scaling.by), ("value", &scaling.value)] {
        let (message, hint) = match table.column(column).map(|c| &c.values) {
            Some(Values::Number(_)) => continue,
            Some(Values::Text(_)) => {
                (format!("column `{column}` is not numeric"), "scale a numeric column".into())
            }
            None => (format!("unknown column `{column}`"), suggest(column, table.column_names())),
        };
        return Err(blame(key, message, hint));
    }
    for (env, means) in scaled_means(table, scaling, env) {
        let Some((p0, s0)) = means.first().cloned() else { continue };
        // Throughputs divide by the reference mean, times by each mean.
        let zero = match scaling.better {
            Better::Higher => (s0.mean == 0.0).then_some(p0),
            Better::Lower => means.iter().find(|(_, s)| s.mean == 0.0).map(|(p, _)| *p),
        };
        if let Some(p) = zero {
            let of = env.as_ref().map(|e| format!(" of `{e}`")).unwrap_or_default();
            let (value, by, p) = (&scaling.value, &scaling.by, crate::format::plain(p));
            return Err(blame(
                "value",
                format!("the mean `{value}`{of} at `{by}` = {p} is 0, and a speedup divides by it"),
                "scale a throughput or a time whose means are not zero".into(),
            ));
        }
        for (p, s) in means {
            let speedup = match scaling.better {
                Better::Higher => s.mean / s0.mean,
                Better::Lower => s0.mean / s.mean,
            };
            analysis.scaling.push(ScalingPoint {
                file: table.path.display().to_string(),
                column: scaling.value.clone(),
                environment: env.clone(),
                procs: p,
                mean: s.mean,
                n: s.n,
                speedup,
                efficiency: speedup * p0 / p,
                provenance: crate::config::Provenance::default(),
            });
        }
    }
    Ok(())
}

/// Per environment (`None` without an environment column), the mean and
/// the number of runs of the scaled value at each process count, in
/// ascending count.
fn scaled_means(
    table: &Table,
    scaling: &Scaling,
    env: Option<&str>,
) -> BTreeMap<Option<String>, Vec<(f64, Mean)>> {
    let by: Vec<&str> = env.into_iter().chain([scaling.by.as_str()]).collect();
    let groups =
        aggregate(table, &BTreeMap::new(), &by, &[scaling.value.as_str()]).unwrap_or_default();
    let mut per_env: BTreeMap<Option<String>, Vec<(f64, Mean)>> = BTreeMap::new();
    for group in &groups {
        let sample = &group.samples[0];
        if sample.is_empty() {
            continue;
        }
        let mean = Mean { mean: moments(sample).0, n: sample.len() };
        let procs = if let Some(KeyPart::Number(p)) = group.key.last() { *p } else { 0.0 };
        per_env.entry(env.map(|_| group.key[0].to_string())).or_default().push((procs, mean));
    }
    per_env
}

/// The mean of a scaled value at one process count, over `n` runs.
#[derive(Clone, Copy)]
struct Mean {
    mean: f64,
    n: usize,
}

fn split_key(
    key: &[KeyPart],
    by: &[&str],
    has_env: bool,
) -> (Option<String>, BTreeMap<String, String>) {
    let env = has_env.then(|| key[0].to_string());
    let start = usize::from(has_env);
    let cfg = by[start..]
        .iter()
        .zip(&key[start..])
        .map(|(c, v)| (c.to_string(), v.to_string()))
        .collect();
    (env, cfg)
}

fn describe_config(cfg: &BTreeMap<String, String>) -> String {
    cfg.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")
}

fn suffix(filter: &str) -> String {
    if filter.is_empty() { String::new() } else { format!("/{filter}") }
}

fn group_id(table: &str, column: &str, env: Option<&str>, filter: &str) -> String {
    let env = env.map(|e| format!("/{e}")).unwrap_or_default();
    format!("{table}/{column}{env}{}", suffix(filter))
}

/// The inputs of a group or comparison: its rows selected by the
/// environment column's level `env`, if any, and the `filter` of its
/// configuration (`algo = sort -n, procs = 32`), as a `where` would.
fn inputs(table: &Table, column: &str, env: Option<(&str, &str)>, filter: &str) -> Inputs {
    let mut parts: Vec<String> = env.map(|(c, e)| format!("{c} = {e}")).into_iter().collect();
    parts.extend(filter.split(',').filter(|s| !s.is_empty()).map(|s| s.replace('=', " = ")));
    Inputs {
        file: table.path.display().to_string(),
        column: column.to_string(),
        filter: if parts.is_empty() { "all rows".into() } else { parts.join(", ") },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        crate::config::parse(
            std::path::Path::new("book.toml"),
            r#"
[book]
title = "T"
[study]
baseline = "a"
[environments.a]
label = "A"
[environments.b]
label = "B"
"#,
        )
        .unwrap()
    }

    #[test]
    fn speedup_and_efficiency_by_hand() {
        let table = Table::new(
            "t",
            "results/t.csv",
            vec![
                ("environment", Values::Text(["a"; 4].into_iter().collect())),
                ("procs", Values::numbers_of(&[1.0, 2.0, 4.0, 4.0])),
                ("tps", Values::numbers_of(&[10.0, 18.0, 29.0, 31.0])),
            ],
        );
        let dataset = Dataset {
            group_by: vec!["procs".into()],
            scaling: Some(Scaling {
                by: "procs".into(),
                value: "tps".into(),
                better: Better::Higher,
            }),
            ..Dataset::default()
        };
        let mut analysis = Analysis {
            warnings: Vec::new(),
            confidence: 0.95,
            metrics: vec![],
            groups: vec![],
            comparisons: vec![],
            scaling: vec![],
            caveats: vec![],
            excluded: vec![],
            history: None,
        };
        summarise(&table, &dataset, &config(), &mut analysis).unwrap();
        // Means 10, 18, 30: speedup 1, 1.8, 3; efficiency 1, 0.9, 0.75.
        let got: Vec<(f64, f64, f64)> =
            analysis.scaling.iter().map(|s| (s.procs, s.speedup, s.efficiency)).collect();
        assert_eq!(got, vec![(1.0, 1.0, 1.0), (2.0, 1.8, 0.9), (4.0, 3.0, 0.75)]);
        let ids: Vec<&str> = analysis.groups.iter().map(|g| g.id.as_str()).collect();
        assert_eq!(ids, ["t/tps/a/procs=1", "t/tps/a/procs=2", "t/tps/a/procs=4"]);
    }
}
