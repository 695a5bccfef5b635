//! The caveats in words: each finding of the analysis
//! ([`crate::analysis::findings`]) as a sentence with its figures, and each
//! exclusion of book.toml; what the page's diagnostics, the paper's
//! appendix and stats.json say. Long lists name the worst few and count
//! the rest.

use super::join;
use super::labels::Labels;
use super::metric::{metric_ci, metric_range, metric_value, metric_value_at, significance};
use crate::analysis::findings::runs::HIGH_CV;
use crate::analysis::findings::{
    Configuration, FewRuns, Finding, MetricFinding, NonNormalRuns, NotNormal, Outliers, SevereRuns,
    SmallSamples, Unmatched, Variation,
};
use crate::analysis::metrics::tables::TableSpec;
use crate::analysis::statistics::estimators;
use crate::analysis::statistics::median_use::MedianUse;
use crate::analysis::statistics::robust::{FENCES_MIN, MEDIAN_CI_MIN};
use crate::analysis::{Analysis, CaveatKind, Excluded, MetricValue};
use serde::Serialize;

use crate::config::Estimator;
use crate::format::{count, fixed, p_value, plain, significant};

/// One caveat, in words, with the metric it qualifies: a finding or an
/// exclusion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Caveat {
    /// What the caveat is about.
    pub kind: CaveatKind,
    /// The caveat as a sentence, with its figures.
    pub text: String,
    /// The metric it qualifies, if any.
    pub metric: Option<String>,
    /// What the author could do about it (exclude a run, choose the
    /// median), for `report check` and the build's warnings: never in the
    /// reader's text, nor in stats.json.
    #[serde(skip)]
    pub advice: Option<String>,
}

/// Significant digits of a run's value in a caveat.
const DIGITS: usize = 4;

/// Most configurations a caveat names; the others are counted.
const NAMED: usize = 5;

/// [`NAMED`] in words.
const NAMED_WORD: &str = "five";

/// Every caveat of the analysis, its configurations and metrics named by
/// `labels`: its findings, then its exclusions.
pub fn caveats(analysis: &Analysis, labels: &Labels) -> Vec<Caveat> {
    let found = analysis.caveats.iter().filter_map(|f| caveat(f, &analysis.metrics, labels));
    found.chain(analysis.excluded.iter().map(excluded)).collect()
}

/// The sentences of [`caveats`] alone, in order: the diagnostics of the
/// page and the paper.
pub fn sentences(analysis: &Analysis, labels: &Labels) -> Vec<String> {
    caveats(analysis, labels).into_iter().map(|c| c.text).collect()
}

/// The caveat stating `finding`, whose metric, if it names one, is among
/// `metrics`; configurations and metrics are named by `labels`
/// (`numeric sort at 32 processes`, `Run time (xz)`).
pub fn caveat(finding: &Finding, metrics: &[MetricValue], labels: &Labels) -> Option<Caveat> {
    let (text, metric) = match finding {
        Finding::Nodes { rows, counts } => {
            let counts: Vec<String> = counts.iter().map(ToString::to_string).collect();
            (nodes(*rows, &counts), None)
        }
        Finding::FewRuns(files) => (few_runs(files), None),
        Finding::Unmatched(partial) => (unmatched(partial, labels), None),
        Finding::Outliers(o) => (outliers(o, labels), None),
        Finding::HighVariation(v) => (variation(v, labels), None),
        Finding::NotNormal(n) => (not_normal(n, labels), None),
        Finding::SmallSamples(s) => (small(s, metrics, labels)?, None),
        Finding::Sources(s) => (super::sources::diagnostic(s, labels), None),
        Finding::Multiplicity { tested, raw, survive } => (
            format!(
                "The study tests {tested} comparisons: p < 0.05 in {raw} of them, and {survive} of {tested} remain significant after Holm's correction for testing them together (family-wise error 5%)."
            ),
            None,
        ),
        Finding::Metric { metric, about } => {
            let m = metrics.get(*metric)?;
            (of_metric(*about, m, labels)?, Some(m.name.clone()))
        }
    };
    let advice = advice_on(finding, metrics, labels);
    Some(Caveat { kind: finding.kind(), text, metric, advice })
}

/// The advice to the author that `finding` calls for, if any: the
/// sentences the reader's caveat leaves out.
fn advice_on(finding: &Finding, metrics: &[MetricValue], labels: &Labels) -> Option<String> {
    match finding {
        Finding::NotNormal(n) => median_advice(n, labels),
        Finding::Sources(s) => Some(super::sources::advice(s)),
        Finding::Metric { metric, about: MetricFinding::Influential } => {
            super::carried::advice(metrics.get(*metric)?, labels)
        }
        _ => None,
    }
}

/// The advice on runs that are not normal: the median for the
/// configurations where it is more informative than the mean.
fn median_advice(n: &NotNormal, labels: &Labels) -> Option<String> {
    let informative = in_order(n, MedianUse::Informative, labels);
    (!informative.is_empty()).then(|| {
        format!(
            "the runs of `{}` in {} are skewed or have severe outliers at {}: consider `estimator = \"median\"` for the metrics that read them",
            n.column,
            n.file,
            listed(&informative, "configuration")
        )
    })
}

/// `items`, the first [`NAMED`] joined by `"; "`, the rest counted.
fn listed(items: &[String], what: &str) -> String {
    let shown = items.iter().take(NAMED).cloned().collect::<Vec<_>>().join("; ");
    counted(shown, items.len().saturating_sub(NAMED), what)
}

/// `shown`, then `more` of `what` counted: `; and 2 more configurations`.
fn counted(shown: String, more: usize, what: &str) -> String {
    match more {
        0 => shown,
        1 => format!("{shown}; and one more {what}"),
        more => format!("{shown}; and {more} more {what}s"),
    }
}

/// The configurations of `file` in `ranked`, which come worst first: the
/// first [`NAMED`], each in words, listed in the study's order of its
/// levels ([`Labels::compare_configurations`], docs/factors.md) and joined
/// by `"; "`, the rest counted; and `worst`, the words that say which were
/// named when some are not (`"the five most extreme"`), else `None`.
fn named_in_order(
    ranked: Vec<(&Configuration, String)>,
    file: &str,
    labels: &Labels,
    worst: &str,
) -> (String, Option<String>) {
    let more = ranked.len().saturating_sub(NAMED);
    let mut named: Vec<(&Configuration, String)> = ranked.into_iter().take(NAMED).collect();
    named.sort_by(|a, b| labels.compare_configurations(file, a.0, b.0));
    let shown = named.into_iter().map(|(_, text)| text).collect::<Vec<_>>().join("; ");
    let which = (more > 0).then(|| format!("the {NAMED_WORD} {worst}"));
    (counted(shown, more, "configuration"), which)
}

/// `items` of `which`, the words that say which were named: `, the five
/// most variable: a; b` (or `: a; b` when every one is).
fn introduced(items: &str, which: Option<String>) -> String {
    match which {
        Some(which) => format!(", {which}: {items}"),
        None => format!(": {items}"),
    }
}

/// What the node counts recorded say: every run on one node, or the
/// counts the runs cover.
fn nodes(rows: usize, counts: &[String]) -> String {
    let runs = count(rows);
    match counts {
        [one] if one == "1" => format!(
            "All {runs} rows of results come from runs on one node: they do not cover runs across several nodes."
        ),
        _ => format!(
            "The {runs} rows of results come from runs on {} nodes; a result at one node count need not hold at another.",
            join(counts)
        ),
    }
}

fn few_runs(files: &[FewRuns]) -> String {
    files
        .iter()
        .map(|f| {
            let what = if f.configurations == 1 { "configuration" } else { "configurations" };
            format!(
                "{} has {} {what} with fewer than 3 runs (the smallest has n = {}); their intervals are wide or missing.",
                f.file, f.configurations, f.smallest
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The configurations measured in some environments only, each file's in
/// the study's order of levels, the environments in book.toml's order.
fn unmatched(partial: &[Unmatched], labels: &Labels) -> String {
    let mut partial: Vec<&Unmatched> = partial.iter().collect();
    partial.sort_by(|a, b| {
        let of = |u: &Unmatched| Configuration { environment: None, values: u.config.clone() };
        let (x, y) = (of(a), of(b));
        a.file.cmp(&b.file).then_with(|| labels.compare_configurations(&a.file, &x, &y))
    });
    let env = labels.environment_column().to_string();
    let partial: Vec<String> = partial
        .iter()
        .map(|u| {
            let mut envs: Vec<&String> = u.environments.iter().collect();
            envs.sort_by(|a, b| labels.compare_levels(&u.file, &env, a, b));
            let envs: Vec<String> = envs.iter().map(|e| labels.environment(e)).collect();
            let at = labels.values(&u.file, &u.config);
            format!("{}: {at} was measured only in {}", u.file, join(&envs))
        })
        .collect();
    format!(
        "The environments were not measured at the same configurations, and comparisons skip the unmatched ones. {}.",
        partial.join("; ")
    )
}

fn outliers(o: &Outliers, labels: &Labels) -> String {
    let severe = o.severe.iter().map(|s| (&s.at, severe_runs(s, &o.file, labels)));
    let (severe, which) = named_in_order(severe.collect(), &o.file, labels, "most extreme");
    let mild = match (o.mild, o.mild_configurations) {
        (0, _) => String::new(),
        (1, _) => " One more run lies beyond 1.5 IQR only (mild).".to_string(),
        (m, 1) => format!(" {m} more runs of one configuration lie beyond 1.5 IQR only (mild)."),
        (m, c) => format!(" {m} more runs in {c} configurations lie beyond 1.5 IQR only (mild)."),
    };
    let severe = if o.severe.is_empty() {
        String::new()
    } else {
        format!(" Beyond 3 IQR (severe){}.", introduced(&severe, which))
    };
    format!(
        "Outlying runs of {} in {}, by Tukey's fences from the quartiles of each configuration (the fences' scale is the IQR, or one step of the values' grid when that is wider).{severe}{mild} They are kept: the mean follows them, the median and the rank test do not.",
        labels.column(&o.file, &o.column),
        o.file
    )
}

/// A run as the analysis names it by the file's key (`run = 14`, `node =
/// a, run = 2`) in the reader's words: each column by its label, a value by
/// its unit when it has one, else after the column's name (`run 14`).
fn run_words(labels: &Labels, file: &str, run: &str) -> String {
    let words = run.split(", ").map(|part| match part.split_once(" = ") {
        Some((column, value)) if labels.at(file, part) == part => {
            format!("{} {value}", labels.column(file, column))
        }
        _ => labels.at(file, part),
    });
    words.collect::<Vec<_>>().join(", ")
}

/// One configuration's severe runs: `A at 8 processes (n = 10): run = 3 (41.2)`.
fn severe_runs(s: &SevereRuns, file: &str, labels: &Labels) -> String {
    let named: Vec<String> = s
        .runs
        .iter()
        .map(|(run, value)| match run {
            Some(run) => {
                format!("{} ({})", run_words(labels, file, run), significant(*value, DIGITS))
            }
            None => significant(*value, DIGITS),
        })
        .collect();
    let more = if s.more > 0 { format!(" and {} more", s.more) } else { String::new() };
    let at = labels.configuration(file, &s.at);
    format!("{at} (n = {}): {}{more}", s.n, named.join(", "))
}

fn variation(v: &Variation, labels: &Labels) -> String {
    let items = v.configurations.iter().map(|(at, cv)| {
        (at, format!("{}: CV {}%", labels.configuration(&v.file, at), fixed(cv * 100.0, 1)))
    });
    let (items, which) = named_in_order(items.collect(), &v.file, labels, "most variable");
    let configurations = match v.configurations.len() {
        1 => "one configuration".to_string(),
        n => format!("{n} configurations"),
    };
    format!(
        "Runs of {} in {} vary by more than {}% of their mean (coefficient of variation) in {configurations}{}.",
        labels.column(&v.file, &v.column),
        v.file,
        fixed(HIGH_CV * 100.0, 0),
        introduced(&items, which)
    )
}

/// A configuration of `file` whose runs are not normal: `Bare metal at 32
/// processes`; `the runs at 32 processes` without an environment.
fn configuration(runs: &NonNormalRuns, file: &str, labels: &Labels) -> String {
    match &runs.at.environment {
        Some(_) => labels.configuration(file, &runs.at),
        None if runs.at.values.is_empty() => "the runs".to_string(),
        None => format!("the runs at {}", labels.values(file, &runs.at.values)),
    }
}

/// The caveat on non-normal runs. "Prefer the median" is said only of the
/// configurations whose median is more informative than their mean:
/// skewed runs or severe outliers, not symmetric ones, nor values on a
/// grid as coarse as the median's interval, where the median sits on one
/// tick.
fn not_normal(n: &NotNormal, labels: &Labels) -> String {
    let items = n.configurations.iter().map(|r| {
        let p =
            if r.p < 0.001 { "p < 0.001".to_string() } else { format!("p = {}", fixed(r.p, 3)) };
        (&r.at, format!("{} (W = {}, {p})", configuration(r, &n.file, labels), fixed(r.w, 2)))
    });
    let (items, which) = named_in_order(items.collect(), &n.file, labels, "clearest");
    let subject = match n.configurations.len() {
        1 => "The runs of".to_string(),
        k => format!("In {k} configurations, the runs of"),
    };
    let of = |what: MedianUse| in_order(n, what, labels);
    let advice = advice(&of(MedianUse::Informative), &of(MedianUse::Stuck));
    format!(
        "{subject} {} in {} are not normally distributed (Shapiro–Wilk, 5%){}. The t intervals of the mean assume near-normal means.{advice}",
        labels.column(&n.file, &n.column),
        n.file,
        introduced(&items, which)
    )
}

/// The configurations of `n` whose median is of `use` to a reader, in
/// words, in the study's order of levels.
fn in_order(n: &NotNormal, what: MedianUse, labels: &Labels) -> Vec<String> {
    let mut shaped: Vec<&NonNormalRuns> =
        n.configurations.iter().filter(|r| r.median == Some(what)).collect();
    shaped.sort_by(|a, b| labels.compare_configurations(&n.file, &a.at, &b.at));
    shaped.into_iter().map(|r| configuration(r, &n.file, labels)).collect()
}

/// Which estimator describes the runs better where, in the reader's words:
/// the median for the `informative` configurations, the mean for the
/// `stuck` ones (the author's advice is [`median_advice`]).
fn advice(informative: &[String], stuck: &[String]) -> String {
    let mut advice = String::new();
    if !informative.is_empty() {
        advice.push_str(&format!(
            " For {}, the median describes the runs better than the mean: they are skewed or have severe outliers (the mean lies outside the median's 95% interval, or a run beyond 3 IQR).",
            listed(informative, "configuration")
        ));
    }
    if !stuck.is_empty() {
        advice.push_str(&format!(
            " For {}, the mean describes them better: the values lie on a grid as coarse as the median's 95% interval, so the median sits on one tick and cannot show a change smaller than a step.",
            listed(stuck, "configuration")
        ));
    }
    advice
}

fn small(s: &SmallSamples, metrics: &[MetricValue], labels: &Labels) -> Option<String> {
    let named: Option<Vec<String>> =
        s.metrics.iter().map(|i| metrics.get(*i).map(|m| labels.metric(m))).collect();
    let test = if s.min_p >= 0.05 {
        format!("no rank test can reach p < 0.05 (the smallest two-sided p is {})", plain(s.min_p))
    } else {
        format!("a rank test can reach at best {}", p_value(s.min_p))
    };
    Some(format!(
        "{} compare {} runs with {}: {test}; a distribution-free interval of the median needs n ≥ {MEDIAN_CI_MIN} and Tukey's fences n ≥ {FENCES_MIN}. Their intervals rest on Student's t, which assumes the means are close to normal, and an outlier cannot be told from the rest.",
        join(&named?),
        s.candidate,
        s.baseline
    ))
}

/// The caveat of a finding about metric `m`; none if `m` lacks what the
/// finding reads.
fn of_metric(about: MetricFinding, m: &MetricValue, labels: &Labels) -> Option<String> {
    let label = labels.metric(m);
    match about {
        MetricFinding::NotSignificant => Some(format!(
            "{label}: the difference of {} is not statistically significant ({}).",
            metric_value(m),
            metric_ci(m)
        )),
        MetricFinding::EstimatorsDisagree => disagreement(m, &label),
        MetricFinding::SignChange => Some(format!(
            "{label}: the average of {} hides a change of sign between its {} configurations ({}); it describes no single configuration.",
            metric_value(m),
            m.spread.as_ref()?.values.len(),
            metric_range(m)
        )),
        MetricFinding::Influential => carried(m, labels),
        MetricFinding::Resolution => coarse(m, labels),
        MetricFinding::SelectedBaseline => selected_baseline(m, labels),
    }
}

/// A baseline chosen as the best of the other levels on the very runs it
/// is compared with: the choice favours it (the winner's curse). The
/// metric and its levels are named by `labels`.
pub fn selected_baseline(m: &MetricValue, labels: &Labels) -> Option<String> {
    let s = m.baseline_selected.as_ref()?;
    let level = |l: &String| labels.level(&m.inputs.file, &m.factor, l);
    let mut among: Vec<&String> = s.among.iter().collect();
    among.sort_by(|a, b| labels.compare_levels(&m.inputs.file, &m.factor, a, b));
    let among: Vec<String> = among.into_iter().map(level).collect();
    let by = estimators::of(m.estimator).words().plural;
    Some(format!(
        "{}: its baseline, {}, is the best of {} by their {by} on the same runs it is then compared with. Choosing the best on these data favours it (the winner's curse): the difference against it is biased against {}, and its interval and p-value do not account for the choice among {} levels.",
        labels.metric(m),
        level(&s.level),
        super::join(&among),
        level(&m.candidate.environment),
        s.among.len()
    ))
}

/// The caveat of a computed table whose baselines are chosen from the data
/// (`baseline = "best"`): how, and why that favours them; the caption ends
/// with it (no `numbers`), and the reader's caveats name the tables it
/// qualifies (`numbers`: Table 2, Tables 2 and 3). The compared levels are
/// the table's rows or columns, chosen within its other axis, if any.
/// `None` for any other table.
pub fn selected_baselines(spec: &TableSpec, numbers: &[usize]) -> Option<String> {
    if !crate::analysis::metrics::tables::selects_baseline(spec) {
        return None;
    }
    let (others, within) = match spec.compare.as_ref().is_none_or(|f| *f == spec.rows) {
        true => ("rows", spec.columns.as_ref().map(|_| "column")),
        false => ("columns", Some("row")),
    };
    let by = estimators::of(spec.estimator).words().plural;
    let within = within.map(|w| format!(" in its {w}")).unwrap_or_default();
    let named: Vec<String> = numbers.iter().map(ToString::to_string).collect();
    let each = match numbers {
        [] => "Each".to_string(),
        [_] => format!("In Table {}, each", named[0]),
        _ => format!("In Tables {}, each", super::join(&named)),
    };
    Some(format!(
        "{each} cell's baseline, named after “vs”, is the best of the other {others}{within} by their {by} on the same runs it is then compared with. Choosing the best on these data favours it (the winner's curse): each difference is biased against its cell's level, and the intervals and p-values do not account for the choice."
    ))
}

fn estimator_name(e: Estimator) -> &'static str {
    estimators::of(e).words().long
}

/// Mean and median that disagree in sign or significance.
fn disagreement(m: &MetricValue, label: &str) -> Option<String> {
    let other = m.other.as_ref()?;
    let (value, shown) = (metric_value(m), metric_value_at(m, other.value));
    let p = |p: Option<f64>| p.map_or_else(|| "no p-value".into(), p_value);
    Some(format!(
        "{label}: by {} the difference is {value} ({}), by {} {shown} ({}); the runs do not support one verdict.",
        estimator_name(m.estimator),
        p(m.p_value),
        estimator_name(other.estimator),
        p(other.p_value)
    ))
}

/// A metric carried by one run: the run, its value against its side's
/// median, the metric without it and by the other estimator.
fn carried(m: &MetricValue, labels: &Labels) -> Option<String> {
    let found = m.influence.as_ref()?;
    let run = found
        .run
        .as_deref()
        .map_or_else(|| "a run".into(), |r| run_words(labels, &m.inputs.file, r));
    let (value, median) = (found.value, found.median);
    let of_median = format!("the median of its side ({})", significant(median, DIGITS));
    let against = if value > 0.0 && median > 0.0 && value != median {
        match value > median {
            true => format!("{}× {of_median}", significant(value / median, 2)),
            false => format!("{}× below {of_median}", significant(median / value, 2)),
        }
    } else {
        of_median
    };
    let file = &m.inputs.file;
    let at = match found.at.as_str() {
        "all rows" => String::new(),
        at => format!(" at {}", labels.at(file, at)),
    };
    // The metric as the other runs give it, judged as the metric is.
    let without = super::carried::without(m, found);
    let verdict = significance(&without);
    let other = found.other.as_ref().map_or_else(String::new, |o| {
        let shown = metric_value_at(m, o.value);
        format!("; by {} on every run it is {shown}", estimator_name(o.estimator))
    });
    let changes = if found.changes_verdict { ", a different verdict" } else { "" };
    Some(format!(
        "{}: one run carries the estimate of {}: {run} of {}{at} ({}, {against}). Without it the difference is {} ({}), {verdict}{changes}{other}. The run is kept.",
        labels.metric(m),
        metric_value(m),
        labels.level(file, &m.factor, &found.environment),
        significant(value, DIGITS),
        metric_value(&without),
        metric_ci(&without),
    ))
}

/// A metric whose values lie on a grid as coarse as its effect or interval.
fn coarse(m: &MetricValue, labels: &Labels) -> Option<String> {
    let grain = m.grain.as_ref()?;
    let at = match grain.at.as_str() {
        "all rows" => String::new(),
        at => format!(" at {}", labels.at(&m.inputs.file, at)),
    };
    let interval = match m.ci {
        Some(_) => format!(" and its interval ({})", metric_ci(m)),
        None => String::new(),
    };
    Some(format!(
        "{}: the values of {}{at} lie on a grid of {}, {}% of the baseline's mean, as coarse as the difference of {}{interval}: the runs cannot resolve a change smaller than one step ({} distinct values among {} runs there).",
        labels.metric(m),
        labels.column(&m.inputs.file, &m.inputs.column),
        significant(grain.step, DIGITS),
        significant(grain.relative * 100.0, 2),
        metric_value(m),
        grain.distinct,
        grain.runs,
    ))
}

/// The caveat stating `excluded`: "Excluded from every statistic and chart:
/// 1 run of results/lammps.csv (environment = bare-metal, ...: run = 1), because
/// node 3 was swapping (job log)."
pub fn excluded(excluded: &Excluded) -> Caveat {
    let runs = match excluded.rows {
        1 => "1 run".to_string(),
        n => format!("{} runs", count(n)),
    };
    let mut named = excluded.runs.join("; ");
    if excluded.runs.len() < excluded.rows {
        named.push_str(&format!("; {} more", count(excluded.rows - excluded.runs.len())));
    }
    let reason = excluded.reason.trim().trim_end_matches('.');
    Caveat {
        kind: CaveatKind::Excluded,
        text: format!(
            "Excluded from every statistic and chart: {runs} of {} where {} ({named}), because {reason}.",
            excluded.file, excluded.filter
        ),
        metric: None,
        advice: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::findings::Configuration;
    use crate::analysis::metrics::sides::Member;
    use std::collections::BTreeMap;

    /// A study whose environment column is `algo`, its levels labelled
    /// with spaces, commas and HTML's special characters; `size` has a
    /// unit, `procs` none.
    fn labels() -> Labels {
        let toml = r#"
[book]
title = "T"
[study]
baseline = "sort"
environment-column = "algo"
[environments.sort]
label = "Plain <sort> & co"
[environments."sort -n"]
label = "Numeric sort"
[environments."sort -n --parallel=2"]
label = "sort -n, 2 threads"
[data.hyperfine.labels]
size = { unit = "bytes" }
[[metrics]]
name = "numeric"
label = "Numeric sort"
data = "hyperfine"
value = "time_s"
candidates = "*"
better = "lower"
"#;
        Labels::new(&crate::config::parse(std::path::Path::new("book.toml"), toml).unwrap())
    }

    /// A configuration of `algo` level `env` (if any) at these values.
    fn at(env: Option<&str>, values: &[(&str, &str)]) -> Configuration {
        let values: BTreeMap<String, String> =
            values.iter().map(|(c, v)| (c.to_string(), v.to_string())).collect();
        Configuration { environment: env.map(String::from), values }
    }

    const FILE: &str = "results/hyperfine.csv";

    /// The text of `finding`'s caveat, the metrics being `metrics`.
    fn text(finding: Finding, metrics: &[MetricValue]) -> String {
        caveat(&finding, metrics, &labels()).unwrap().text
    }

    /// Configurations are named by their environment's label and their
    /// values' units (a column without one as `procs = 32`), never by the
    /// column ids `algo` or `environment`; listed in the study's order
    /// (without an environment first, then as book.toml declares them).
    #[test]
    fn configurations_are_named_by_labels() {
        let (file, column) = (FILE.to_string(), "time_s".to_string());
        let configurations = vec![
            (at(Some("sort -n --parallel=2"), &[("size", "1048576")]), 0.298),
            (at(Some("sort"), &[("procs", "32")]), 0.06),
            (at(None, &[("procs", "1"), ("size", "0")]), 0.055),
        ];
        let v = Finding::HighVariation(Variation { file, column, configurations });
        assert_eq!(
            text(v, &[]),
            "Runs of time_s in results/hyperfine.csv vary by more than 5% of their mean (coefficient of variation) in 3 configurations: procs = 1, 0 B: CV 5.5%; Plain <sort> & co at procs = 32: CV 6.0%; sort -n, 2 threads at 1 MiB: CV 29.8%."
        );
        let severe = vec![SevereRuns {
            at: at(Some("sort -n"), &[]),
            n: 10,
            runs: vec![(Some("run = 3".into()), 41.25)],
            more: 0,
        }];
        let (file, column) = (FILE.to_string(), "time_s".to_string());
        let o = Outliers { file, column, severe, mild: 0, mild_configurations: 0 };
        let said = text(Finding::Outliers(o), &[]);
        assert!(said.contains(" Beyond 3 IQR (severe): Numeric sort (n = 10): run 3 (41.25). "));
        let runs = |at| NonNormalRuns { at, w: 0.8, p: 0.0123, median: None };
        let (file, column) = (FILE.to_string(), "time_s".to_string());
        let configurations = vec![runs(at(Some("sort -n --parallel=2"), &[])), runs(at(None, &[]))];
        let said = text(Finding::NotNormal(NotNormal { file, column, configurations }), &[]);
        assert!(said.contains(
            " are not normally distributed (Shapiro–Wilk, 5%): the runs (W = 0.80, p = 0.012); sort -n, 2 threads (W = 0.80, p = 0.012). "
        ));
        let u = Unmatched {
            file: FILE.into(),
            config: at(None, &[("size", "4096")]).values,
            environments: vec!["sort".into(), "sort -n --parallel=2".into()],
        };
        assert_eq!(
            text(Finding::Unmatched(vec![u]), &[]),
            "The environments were not measured at the same configurations, and comparisons skip the unmatched ones. results/hyperfine.csv: 4 KiB was measured only in Plain <sort> & co and sort -n, 2 threads."
        );
    }

    /// A member of a family is named by its candidate's label, in its own
    /// caveats and among the metrics of another's.
    #[test]
    fn members_of_a_family_are_named() {
        let mut m = MetricValue {
            ci: Some([-0.02, 0.2]),
            significant: Some(false),
            ..MetricValue::example(0.09)
        };
        (m.name, m.label, m.factor) = ("numeric".into(), "Numeric sort".into(), "algo".into());
        m.inputs.file = FILE.into();
        m.member = Some(Member { candidate: "sort -n --parallel=2".into(), at: None });
        let about = MetricFinding::NotSignificant;
        assert_eq!(
            text(Finding::Metric { metric: 0, about }, std::slice::from_ref(&m)),
            "Numeric sort (sort -n, 2 threads): the difference of +9.0% is not statistically significant (95% CI −2.0 to +20.0%)."
        );
        let small = SmallSamples { candidate: 3, baseline: 4, min_p: 0.057, metrics: vec![0] };
        assert!(
            text(Finding::SmallSamples(small), &[m])
                .starts_with("Numeric sort (sort -n, 2 threads) compare 3 runs with 4: ")
        );
    }

    /// One drawn study's levels: the environments (id, label) in the order
    /// book.toml declares them, and the levels of `level` with the
    /// `order` and `levels` labels drawn for them.
    struct Drawn {
        environments: Vec<(String, String)>,
        levels: Vec<u32>,
        order: Vec<u32>,
        labels: BTreeMap<u32, String>,
    }

    impl Drawn {
        fn draw(g: &mut crate::markdown::generate::Gen) -> Drawn {
            let mut ids = vec!["zeta", "alpha", "mid", "beta"];
            ids.truncate(2 + g.below(3));
            let mut environments = Vec::new();
            while !ids.is_empty() {
                let id = ids.remove(g.below(ids.len()));
                environments.push((id.to_string(), format!("Env {}", id.to_uppercase())));
            }
            let mut pool: Vec<u32> = vec![1, 2, 3, 9, 10, 19, 100];
            let mut levels = Vec::new();
            for _ in 0..2 + g.below(4) {
                levels.push(pool.remove(g.below(pool.len())));
            }
            let mut left = levels.clone();
            let mut order = Vec::new();
            for _ in 0..g.below(levels.len() + 1) {
                order.push(left.remove(g.below(left.len())));
            }
            let labels = levels
                .iter()
                .filter(|_| g.below(2) == 0)
                .map(|l| (*l, format!("Level {} of the drawn kind", l * 7)))
                .collect();
            Drawn { environments, levels, order, labels }
        }

        fn labels(&self) -> Labels {
            let mut toml = format!(
                "[book]\ntitle = \"T\"\n[study]\nbaseline = \"{}\"\n",
                self.environments[0].0
            );
            for (id, label) in &self.environments {
                toml.push_str(&format!("[environments.{id}]\nlabel = \"{label}\"\n"));
            }
            let order: Vec<String> = self.order.iter().map(|l| format!("\"{l}\"")).collect();
            let levels: Vec<String> =
                self.labels.iter().map(|(l, t)| format!("\"{l}\" = \"{t}\"")).collect();
            toml.push_str(&format!(
                "[data.runs.labels]\nlevel = {{ order = [{}], levels = {{ {} }} }}\n",
                order.join(", "),
                levels.join(", ")
            ));
            Labels::new(&crate::config::parse(std::path::Path::new("book.toml"), &toml).unwrap())
        }

        /// Where a configuration comes in the study's order, by the rule of
        /// docs/factors.md: environments as declared; levels as `order`
        /// lists them, the others after by value.
        fn key(&self, c: &(usize, u32)) -> (usize, usize, u32) {
            let listed = self.order.iter().position(|l| *l == c.1).unwrap_or(usize::MAX);
            (c.0, listed, c.1)
        }

        /// A configuration in words: the environment's label at the level's
        /// label, else `level = N`.
        fn words(&self, c: &(usize, u32)) -> String {
            let level = self.labels.get(&c.1).cloned().unwrap_or(format!("level = {}", c.1));
            format!("{} at {level}", self.environments[c.0].1)
        }
    }

    /// Issue 43, point 2: the diagnostics list configurations in the
    /// study's order of levels and name them by their labels. Drawn from a
    /// seed: environments declared in any order, levels with an `order` of
    /// some of them and `levels` labels for some; each finding's
    /// configurations ranked (most variable, smallest p) as the analysis
    /// ranks them. The five worst are named, in the order the rule gives.
    #[test]
    fn diagnostics_list_levels_in_the_study_s_order() {
        let mut g = crate::markdown::generate::Gen(0x43_43_43);
        for draw in 0..300 {
            let d = Drawn::draw(&mut g);
            let labels = d.labels();
            let mut all: Vec<(usize, u32)> = Vec::new();
            for e in 0..d.environments.len() {
                all.extend(d.levels.iter().filter(|_| g.below(3) > 0).map(|l| (e, *l)));
            }
            if all.is_empty() {
                continue;
            }
            // Ranked as the analysis ranks them: drawn, worst first.
            let mut ranked = Vec::new();
            while !all.is_empty() {
                ranked.push(all.remove(g.below(all.len())));
            }
            let config = |c: &(usize, u32)| {
                at(Some(d.environments[c.0].0.as_str()), &[("level", &c.1.to_string())])
            };
            let mut named: Vec<(usize, u32)> = ranked.iter().take(5).copied().collect();
            named.sort_by_key(|c| d.key(c));
            let cvs = (0..ranked.len()).map(|i| 0.5 - i as f64 * 0.01);
            let configurations = ranked.iter().map(config).zip(cvs).collect();
            let (file, column) = ("results/runs.csv".to_string(), "t".to_string());
            let v = Finding::HighVariation(Variation { file, column, configurations });
            let said = caveat(&v, &[], &labels).unwrap().text;
            let mut from = 0;
            for c in &named {
                let words = format!("{}: CV", d.words(c));
                let found = said[from..].find(&words);
                assert!(found.is_some(), "draw {draw}: {words:?} not after {from} in {said}");
                from += found.unwrap() + words.len();
            }
            assert!(!said.contains("level = ") || d.labels.len() < d.levels.len(), "{said}");
            assert_eq!(said.contains("the five most variable"), ranked.len() > 5, "{said}");
            // The same order in the caveat on normality.
            let runs =
                |c: &(usize, u32)| NonNormalRuns { at: config(c), w: 0.8, p: 0.01, median: None };
            let configurations = ranked.iter().map(runs).collect();
            let (file, column) = ("results/runs.csv".to_string(), "t".to_string());
            let n = Finding::NotNormal(NotNormal { file, column, configurations });
            let said = caveat(&n, &[], &labels).unwrap().text;
            let place = |c: &(usize, u32)| said.find(&format!("{} (W =", d.words(c)));
            let shown: Vec<usize> = named.iter().map(|c| place(c).unwrap()).collect();
            assert!(shown.windows(2).all(|w| w[0] < w[1]), "draw {draw}: {said}");
        }
    }

    #[test]
    fn long_lists_name_five_and_count_the_rest() {
        let items: Vec<String> = (1..=7).map(|i| format!("c{i}")).collect();
        assert_eq!(listed(&items[..2], "x"), "c1; c2");
        assert_eq!(listed(&items[..6], "x"), "c1; c2; c3; c4; c5; and one more x");
        assert_eq!(listed(&items, "x"), "c1; c2; c3; c4; c5; and 2 more xs");
    }
}
