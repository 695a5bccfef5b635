//! The named metrics of book.toml: one comparison or summary each, with its
//! interval, p-value and inputs.

pub mod claim;
mod difference_influence;
pub mod influence;
pub mod sides;
pub mod tables;
pub mod value;
mod within_run;

use std::collections::BTreeMap;

use crate::analysis::Inputs;
use crate::analysis::queries::filter::{self, Grouped, KeyPart};
use crate::analysis::queries::problem_size;
use crate::analysis::statistics::model::Sample;
use crate::config::{Compare, Config, Metric};
use crate::diagnostic::{Diagnostic, Diagnostics, Location, list, suggest};
use crate::results::{ResultSet, Table, Values};
use sides::Sides;
use value::MetricValue;

/// Evaluate every metric of `config` against `results`, reporting all problems.
pub(super) fn evaluate(
    results: &ResultSet,
    config: &Config,
) -> Result<Vec<MetricValue>, Diagnostics> {
    let mut errors = Diagnostics::default();
    let mut values = Vec::new();
    for metric in &config.metrics {
        match evaluate_family(metric, results, config) {
            Ok(v) => values.extend(v),
            Err(d) => errors.push(d),
        }
    }
    holm(&mut values);
    decide(&mut values, config.study.negligible());
    errors.into_result(values)
}

/// Holm's step-down correction within each family (the members of one
/// metric, [`sides::adjusted`]); a member's verdict is its adjusted p's.
/// Members without p keep none.
pub fn holm(values: &mut [MetricValue]) {
    let mut families: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, v) in values.iter().enumerate() {
        if v.member.is_some() && v.p_value.is_some() {
            families.entry(v.name.clone()).or_default().push(i);
        }
    }
    for family in families.into_values() {
        let ps: Vec<f64> = family.iter().map(|i| values[*i].p_value.unwrap_or(1.0)).collect();
        for (i, p) in family.into_iter().zip(sides::adjusted(&ps)) {
            let value = &mut values[i];
            value.p_holm = Some(p);
            if value.significant.is_some() {
                value.significant = Some(p < 1.0 - super::statistics::CONFIDENCE);
            }
        }
    }
}

/// Each comparison's claim ([`claim::of`]), once its p is final (Holm's,
/// in a family), and its significance by the same rule.
pub fn decide(values: &mut [MetricValue], negligible: Option<f64>) {
    for value in values {
        value.claim = claim::of(value, negligible);
        if value.significant.is_some() {
            value.significant = claim::tested(value);
        }
    }
}

/// Evaluate a metric, or each member of the family it stands for
/// (`candidates`, `each`).
fn evaluate_family(
    metric: &Metric,
    results: &ResultSet,
    config: &Config,
) -> Result<Vec<MetricValue>, Diagnostic> {
    let blame = Blame::new(metric);
    let table = measured_table(metric, results, config, &blame)?;
    let members = sides::members(metric, table, config)
        .map_err(|(key, message, hint)| blame.at(key, message, hint))?;
    if members.is_empty() {
        let message =
            "no candidate is left: every level of the factor in the selected rows is the baseline"
                .to_string();
        return Err(blame.at("candidates", message, "check `where` and `candidates`".into()));
    }
    let mut values = Vec::new();
    let mut runs = Vec::new();
    for (mut one, member) in members {
        let selected = match sides::best_baseline(&one) {
            true => Some(best_of_others(&one, table, config, &blame)?),
            false => None,
        };
        if let Some(s) = &selected {
            one.baseline = Some(crate::config::Level::Text(s.level.clone()));
        }
        let (mut value, kept) = evaluate_runs(&one, results, config)?;
        value.member = member;
        value.baseline_selected = selected;
        values.push(value);
        runs.push((one, kept));
    }
    // Each member's verdict is its p after Holm's correction across the
    // family, and so is the verdict with a run left out.
    holm(&mut values);
    for i in 0..values.len() {
        if runs[i].0.headline {
            values[i].influence = family_influence(&values, i, &runs, config);
        }
    }
    Ok(values)
}

/// The runs a metric's value came from, kept to leave each out in turn.
struct Runs<'r> {
    /// The metric's data file.
    table: &'r Table,
    /// Its sides.
    sides: Sides,
    /// Per configuration, where, the candidate's sample and the baseline's.
    pairs: Vec<value::Pair>,
    /// Per configuration, its `per` key.
    keys: Vec<Vec<KeyPart>>,
}

/// The run that carries member `i` of the family `values` (every member's
/// metric and runs in `runs`), its verdicts judged by Holm's correction
/// across the family ([`influence::holm_judge`]); for a run of the
/// baseline the members share, every member's p is recomputed without it.
fn family_influence(
    values: &[MetricValue],
    i: usize,
    runs: &[(Metric, Runs)],
    config: &Config,
) -> Option<crate::analysis::findings::carried::Influence> {
    let (metric, kept) = &runs[i];
    if values[i].member.is_none() {
        return influence(metric, config, kept, &values[i], &Judging::Alone);
    }
    // The family's tested members, as `holm` takes them.
    let tested: Vec<usize> = (0..values.len()).filter(|k| values[*k].p_value.is_some()).collect();
    let ps: Vec<f64> = tested.iter().filter_map(|k| values[*k].p_value).collect();
    let Some(at) = tested.iter().position(|k| *k == i) else {
        return influence(metric, config, kept, &values[i], &Judging::Alone);
    };
    let judging = Judging::Family(ps.clone(), at);
    let (left, moves, mut found) = influence_left(metric, config, kept, &values[i], &judging)?;
    let Some(p) = found.without.p_value else { return Some(found) };
    let holm_full = sides::adjusted(&ps)[at];
    let mut without = ps;
    without[at] = p;
    if !left.1 {
        // A baseline run: each member sharing it has another p without it.
        let (place, _, b) = &kept.pairs[left.0];
        let b = b.as_ref()?;
        let shared = (place.as_str(), b.values.as_slice(), left.2);
        for (slot, k) in tested.iter().enumerate().filter(|(_, k)| **k != i) {
            let (other, kept) = &runs[*k];
            if let Some(q) = member_p_without(other, &kept.pairs, shared) {
                without[slot] = q;
            }
        }
    }
    let holm = sides::adjusted(&without)[at];
    // Both verdicts by the claim's own rule (`claim::tested`), with Holm's p
    // across the family and, without the run, the run counts left.
    let full = &values[i];
    let judged = |ci, value, p: f64, left_out: Option<bool>| {
        let mut m = full.clone();
        (m.ci, m.value, m.p_holm) = (ci, value, Some(p));
        if let Some(candidate) = left_out {
            (m.ci_open, m.candidate.n) = (None, m.candidate.n - usize::from(candidate));
            if let Some(b) = &mut m.baseline {
                b.n -= usize::from(!candidate);
            }
        }
        claim::tested(&m) == Some(true)
    };
    let verdict = (found.without.significant)
        .map(|_| judged(found.without.ci, found.without.value, holm, Some(left.1)));
    let full_verdict = full.significant.map(|_| judged(full.ci, full.value, holm_full, None));
    found.p_holm = Some(holm);
    found.without.significant = verdict;
    let flips = matches!((full_verdict, verdict), (Some(a), Some(b)) if a != b);
    (found.changes_verdict, found.carries) = (flips, flips || moves);
    Some(found)
}

/// `baseline = "best"`: the best of the other levels than the candidate.
fn best_of_others(
    metric: &Metric,
    table: &Table,
    config: &Config,
    blame: &Blame,
) -> Result<sides::Selected, Diagnostic> {
    let problem = |(key, message, hint): sides::Problem| blame.at(key, message, hint);
    let probe = Metric { baseline: None, ..metric.clone() };
    let candidate = sides::of(&probe, config).map_err(problem)?.candidate;
    sides::best_of_others(metric, table, config, &candidate).map_err(problem)
}

/// One group's key with the candidate's sample and the baseline's, if any.
type KeyedPair = (Vec<KeyPart>, Sample, Option<Sample>);

/// Evaluate one metric: find its data, group its rows, pair the candidate with
/// the baseline in every group, and compute the value; for a headline, the
/// run that carries it, judged alone.
pub(super) fn evaluate_one(
    metric: &Metric,
    results: &ResultSet,
    config: &Config,
) -> Result<MetricValue, Diagnostic> {
    let (mut value, kept) = evaluate_runs(metric, results, config)?;
    if metric.headline {
        value.influence = influence(metric, config, &kept, &value, &Judging::Alone);
    }
    Ok(value)
}

/// [`evaluate_one`] without the influence, with the runs it came from.
fn evaluate_runs<'r>(
    metric: &Metric,
    results: &'r ResultSet,
    config: &Config,
) -> Result<(MetricValue, Runs<'r>), Diagnostic> {
    let blame = Blame::new(metric);
    let interacting = interaction_metric(metric, &blame)?;
    let metric = interacting.as_ref().unwrap_or(metric);
    let table = measured_table(metric, results, config, &blame)?;
    let sides =
        sides::of(metric, config).map_err(|(key, message, hint)| blame.at(key, message, hint))?;
    if let Some((column, value)) = filter::unmatched(table, &metric.filter).into_iter().next() {
        let message = format!("no row of {} has `{column}` = {value}", table.path.display());
        let hint = "each value `where` lists must match some rows: remove it, or check the results";
        return Err(blame.at(&format!("where.{column}"), message, hint.into()));
    }
    let groups = grouped_rows(metric, table, &sides, &blame)?;
    let keyed = candidate_pairs(&groups, &sides.candidate, &sides.baseline);
    two_levels(metric, &keyed, &blame)?;
    comparable(metric, (table, config), (&groups, &keyed), &sides, &blame)?;
    let at = |key: &[KeyPart]| match (&metric.per, key.first()) {
        (Some(per), Some(value)) => format!("{per} = {value}"),
        _ => filter::describe(&metric.filter),
    };
    let within = within_run(metric, table, config, &sides, &keyed).map_err(|m| {
        blame.at("within-run", m, "declare the file's `key`, or drop `within-run`".into())
    })?;
    let keys: Vec<Vec<KeyPart>> = keyed.iter().map(|k| k.0.clone()).collect();
    let pairs: Vec<_> = keyed.into_iter().map(|(key, c, b)| (at(&key), c, b)).collect();
    let inputs = Inputs {
        file: table.path.display().to_string(),
        column: metric.value.clone(),
        filter: filter::describe(&metric.filter),
    };
    let hint = "check `where` and `per`: both environments need rows in every group";
    let value = value::compute(metric, &sides, (&pairs, within), inputs)
        .map_err(|m| blame.at("where", m, hint.into()))?;
    Ok((value, Runs { table, sides, pairs, keys }))
}

/// The checks before a metric is computed: its rows pool, its problem size
/// holds, both sides have rows in every group, and the baseline's (and for
/// `relative` and `slowdown` both sides') means allow the comparison.
fn comparable(
    metric: &Metric,
    (table, config): (&Table, &Config),
    (groups, keyed): (&[Grouped], &[KeyedPair]),
    s: &Sides,
    blame: &Blame,
) -> Result<(), Diagnostic> {
    if metric.compare != Compare::Summary {
        pooled(metric, table, config, s, blame)?;
        if let Some(dataset) = config.data.get(&metric.data) {
            let sides = (s.factor.as_str(), s.candidate.as_str(), s.baseline.as_str());
            if let Err((key, message, hint)) = problem_size::check(metric, table, dataset, sides)? {
                return Err(blame.at(key, message, hint));
            }
        }
        unmatched(metric, groups, (&s.candidate, &s.baseline), blame)?;
    }
    if keyed.is_empty() {
        return Err(no_candidate_rows(metric, table, s, groups, blame));
    }
    if !matches!(metric.compare, Compare::Summary | Compare::Difference) {
        zero_baseline(metric, keyed, &s.baseline, blame)?;
    }
    if matches!(metric.compare, Compare::Relative | Compare::Slowdown | Compare::Ratio) {
        negative_values(metric, keyed, (&s.candidate, &s.baseline), blame)?;
    }
    Ok(())
}

/// A family member's p without a baseline run its members share
/// ([`influence::family_p_without`], or for a `difference`,
/// [`difference_influence::family_p_without`]).
fn member_p_without(
    metric: &Metric,
    pairs: &[value::Pair],
    shared: (&str, &[f64], usize),
) -> Option<f64> {
    match metric.compare {
        Compare::Difference => difference_influence::family_p_without(metric, pairs, shared),
        _ => influence::family_p_without(metric, pairs, shared),
    }
}

/// How a verdict with a run left out is judged: alone, or as member `at`
/// of a family whose tested members' p-values are `ps`, by Holm's p.
enum Judging {
    Alone,
    Family(Vec<f64>, usize),
}

/// The run whose removal moves `value` most, named by the file's key,
/// each verdict judged as `judging` says.
fn influence(
    metric: &Metric,
    config: &Config,
    kept: &Runs,
    value: &MetricValue,
    judging: &Judging,
) -> Option<crate::analysis::findings::carried::Influence> {
    influence_left(metric, config, kept, value, judging).map(|(.., found)| found)
}

/// [`influence`] with the run found, as [`influence::find`] (or, for a
/// `difference`, [`difference_influence::find`]) gives it.
fn influence_left(
    metric: &Metric,
    config: &Config,
    kept: &Runs,
    value: &MetricValue,
    judging: &Judging,
) -> Option<(influence::Left, bool, crate::analysis::findings::carried::Influence)> {
    let pairs = &kept.pairs;
    let (left, moves, mut found) = match (metric.compare, judging) {
        (Compare::Difference, _) => {
            let judge = |d: &_, left_out| difference_verdict(value, d, left_out, judging);
            difference_influence::find(metric, pairs, value, &judge)?
        }
        (_, Judging::Alone) => influence::find(metric, pairs, value, &influence::alone)?,
        (_, Judging::Family(ps, at)) => {
            influence::find(metric, pairs, value, &influence::holm_judge(ps.clone(), *at))?
        }
    };
    let dataset = config.data.get(&metric.data);
    let key: Vec<String> = dataset
        .map(|d| d.key.iter().filter(|k| !d.group_by.contains(k)).cloned().collect())
        .unwrap_or_default();
    let per = metric.per.as_ref().and(kept.keys.get(left.0).and_then(|k| k.first()));
    let env = (kept.sides.factor.as_str(), found.environment.as_str());
    found.run = influence::name_run(metric, kept.table, env, per, found.value, &key);
    Some((left, moves, found))
}

/// The verdict of a difference `d` of the metric `full` by the claim's
/// own rule ([`claim::tested`]): `full` with `d`'s value, interval and p
/// (Holm's within a family), a run fewer on the side `left_out`.
fn difference_verdict(
    full: &MetricValue,
    d: &crate::analysis::statistics::difference::Difference,
    left_out: Option<bool>,
    judging: &Judging,
) -> Option<bool> {
    let mut m = full.clone();
    let p = d.p.map(crate::analysis::statistics::stats::reported_p);
    m.p_holm = match judging {
        Judging::Alone => None,
        Judging::Family(ps, at) => p.map(|p| influence::holm_at(ps, *at, p)),
    };
    (m.value, m.ci, m.p_value) = (d.value, d.ci, p);
    m.ci_open = d.ci.and((d.open[0] || d.open[1]).then_some(d.open));
    if let Some(candidate) = left_out {
        m.candidate.n -= usize::from(candidate);
        if let Some(b) = &mut m.baseline {
            b.n -= usize::from(!candidate);
        }
    }
    claim::tested(&m)
}

/// The error for a metric whose rows span several configurations of the
/// file's `group-by` columns other than `per`: averaging them silently
/// would pool different problems.
fn pooled(
    metric: &Metric,
    table: &Table,
    config: &Config,
    sides: &Sides,
    blame: &Blame,
) -> Result<(), Diagnostic> {
    let Some(dataset) = config.data.get(&metric.data) else { return Ok(()) };
    let mut both = metric.filter.clone();
    both.insert(sides.factor.clone(), sides::either(&sides.candidate, &sides.baseline));
    let fixed = |c: &&String| Some(*c) != metric.per.as_ref() && **c != sides.factor;
    // Along another factor, the environment column is one to match on too.
    let env = std::iter::once(&config.study.environment_column);
    for column in dataset.group_by.iter().chain(&config.study.factors).chain(env).filter(fixed) {
        let groups = filter::aggregate(table, &both, &[column.as_str()], &[]).unwrap_or_default();
        if groups.len() > 1 {
            let values: Vec<String> = groups.iter().map(|g| g.key[0].to_string()).collect();
            return Err(blame.at(
                "where",
                format!(
                    "the selected rows span {} values of the factor `{column}` ({}), which would be pooled",
                    values.len(),
                    list(values.iter().map(String::as_str))
                ),
                format!("compare one configuration with `where = {{ {column} = {} }}`, or average over them with `per = \"{column}\"`", values[0]),
            ));
        }
    }
    Ok(())
}

/// For an interaction claim (`interaction = "X"`), the metric computed
/// per level of X (as with `per = "X"`); an error with `per` too.
fn interaction_metric(metric: &Metric, blame: &Blame) -> Result<Option<Metric>, Diagnostic> {
    let Some(factor) = &metric.interaction else { return Ok(None) };
    if metric.per.is_some() || metric.within_run || metric.compare == Compare::Summary {
        return Err(blame.at(
            "interaction",
            "an interaction compares the difference at two levels, so it takes no `per`, `within-run` or `compare = \"summary\"`".into(),
            "drop `per`: the interaction's factor is the one the metric is computed per".into(),
        ));
    }
    Ok(Some(Metric { per: Some(factor.clone()), each: false, ..metric.clone() }))
}

/// The error for an interaction whose factor has other than two levels
/// where both sides have runs.
fn two_levels(metric: &Metric, keyed: &[KeyedPair], blame: &Blame) -> Result<(), Diagnostic> {
    let Some(factor) = &metric.interaction else { return Ok(()) };
    let levels: Vec<String> =
        keyed.iter().filter_map(|(k, _, _)| k.first()).map(ToString::to_string).collect();
    if levels.len() == 2 {
        return Ok(());
    }
    let listed = list(levels.iter().map(String::as_str));
    Err(blame.at(
        "interaction",
        format!("an interaction along `{factor}` needs exactly two of its levels, and the selected rows have {} ({listed})", levels.len()),
        format!("choose two with `where = {{ {factor} = [{}] }}`", levels.iter().take(2).map(|l| format!("\"{l}\"")).collect::<Vec<_>>().join(", ")),
    ))
}

/// The error for a group measured by only one of the two sides of a comparison.
fn unmatched(
    metric: &Metric,
    groups: &[Grouped],
    (candidate, baseline): (&str, &str),
    blame: &Blame,
) -> Result<(), Diagnostic> {
    let sides: BTreeMap<Vec<KeyPart>, Vec<String>> =
        groups.iter().fold(BTreeMap::new(), |mut m, g| {
            m.entry(g.key[1..].to_vec()).or_insert_with(Vec::new).push(g.key[0].to_string());
            m
        });
    for (key, envs) in &sides {
        let (has_c, has_b) =
            (envs.iter().any(|e| e == candidate), envs.iter().any(|e| e == baseline));
        if has_c == has_b {
            continue;
        }
        let (with, without) = if has_c { (candidate, baseline) } else { (baseline, candidate) };
        let at = match (&metric.per, key.first()) {
            (Some(per), Some(v)) => format!("{per} = {v}"),
            _ => filter::describe(&metric.filter),
        };
        return Err(blame.at(
            "where",
            format!("`{without}` has no rows at {at}, where `{with}` has: the comparison would be unmatched"),
            "narrow `where` to the configurations both environments measured".into(),
        ));
    }
    Ok(())
}

/// With `within-run` and several groups, the average with runs as units.
fn within_run(
    metric: &Metric,
    table: &Table,
    config: &Config,
    sides: &Sides,
    keyed: &[(Vec<KeyPart>, Sample, Option<Sample>)],
) -> Result<Option<crate::analysis::statistics::model::Estimate>, String> {
    if !metric.within_run || keyed.len() < 2 || metric.compare == Compare::Summary {
        return Ok(None);
    }
    let configs: Vec<KeyPart> = keyed.iter().filter_map(|(k, _, _)| k.first().cloned()).collect();
    let key = config.data.get(&metric.data).map(|d| d.key.as_slice()).unwrap_or_default();
    let env = sides.factor.as_str();
    let levels = (sides.candidate.as_str(), sides.baseline.as_str());
    within_run::estimate(metric, table, (env, key), levels, &configs).map(Some)
}

/// Where a metric's problems are reported: each at the value in book.toml that
/// causes it, or at the metric itself when that value is not written.
struct Blame<'a> {
    /// The metric.
    metric: &'a Metric,
    /// The metric's own location, the fallback.
    at: Location,
}

impl<'a> Blame<'a> {
    /// Blame for the problems of `metric`.
    fn new(metric: &'a Metric) -> Self {
        Blame { metric, at: metric.location.clone().unwrap_or_else(|| Location::file("book.toml")) }
    }

    /// The problem `message` with the metric's `key`, with `hint`.
    fn at(&self, key: &str, message: String, hint: String) -> Diagnostic {
        let location = self.metric.at.or(key, &self.at);
        Diagnostic::new(location, format!("metric `{}`: {message}", self.metric.name)).hint(hint)
    }
}

/// The metric's data file, checked to have a numeric `value` column and a text
/// environment column.
fn measured_table<'r>(
    metric: &Metric,
    results: &'r ResultSet,
    config: &Config,
    blame: &Blame,
) -> Result<&'r Table, Diagnostic> {
    let table = results.tables.get(&metric.data).ok_or_else(|| {
        blame.at(
            "data",
            format!("unknown data file `{}`", metric.data),
            suggest(&metric.data, results.tables.keys().map(String::as_str)),
        )
    })?;
    match table.column(&metric.value).map(|c| &c.values) {
        Some(Values::Number(_)) => {}
        Some(Values::Text(_)) => {
            return Err(blame.at(
                "value",
                format!(
                    "column `{}` of {} is not numeric{}",
                    metric.value,
                    table.path.display(),
                    table.not_numbers(&metric.value)
                ),
                "compare a numeric column".into(),
            ));
        }
        None => {
            return Err(blame.at(
                "value",
                format!("unknown column `{}` in {}", metric.value, table.path.display()),
                suggest(&metric.value, table.column_names()),
            ));
        }
    }
    factor_column(metric, table, config, blame)?;
    Ok(table)
}

/// The error for a factor column the file lacks (or, for the environment
/// column, holds as numbers).
fn factor_column(
    metric: &Metric,
    table: &Table,
    config: &Config,
    blame: &Blame,
) -> Result<(), Diagnostic> {
    let column = table.column(metric.factor.as_deref().unwrap_or(&config.study.environment_column));
    let env_column = config.study.environment_column.as_str();
    match (&metric.factor, column.map(|c| &c.values)) {
        (Some(_), Some(_)) | (None, Some(Values::Text(_))) => Ok(()),
        (Some(factor), _) => Err(blame.at(
            "factor",
            format!("{} has no `{factor}` column", table.path.display()),
            suggest(factor, table.column_names()),
        )),
        (None, _) => Err(blame.at(
            "data",
            format!("{} has no `{env_column}` column", table.path.display()),
            "a metric compares environments; add the column, or set [study] environment-column"
                .into(),
        )),
    }
}

/// The rows of `table` that pass the metric's `where`, grouped by environment
/// and then by the `per` column, if any.
fn grouped_rows(
    metric: &Metric,
    table: &Table,
    sides: &Sides,
    blame: &Blame,
) -> Result<Vec<Grouped>, Diagnostic> {
    let env_column = sides.factor.as_str();
    let per: Vec<&str> = metric.per.iter().map(String::as_str).collect();
    if let Some(p) = metric.per.as_ref().filter(|p| table.column(p).is_none()) {
        return Err(blame.at(
            "per",
            format!("unknown column `{p}` in `per`"),
            suggest(p, table.column_names()),
        ));
    }
    let envs = [env_column].into_iter().chain(per.iter().copied()).collect::<Vec<_>>();
    filter::aggregate(table, &metric.filter, &envs, &[metric.value.as_str()]).map_err(|c| {
        let message = format!("unknown column `{c}` in `where`");
        blame.at(&format!("where.{c}"), message, suggest(&c, table.column_names()))
    })
}

/// Per group (in key order), its `per` key, the candidate's summary and the
/// baseline's, if the baseline has rows there; groups where the candidate has
/// no values are left out.
fn candidate_pairs(groups: &[Grouped], candidate: &str, baseline: &str) -> Vec<KeyedPair> {
    let mut pairs = Vec::new();
    let keys: BTreeMap<_, _> = groups
        .iter()
        .map(|g| ((g.key[1..].to_vec(), g.key[0].to_string()), &g.samples[0]))
        .collect();
    for ((config_key, env), sample) in &keys {
        if *env != candidate {
            continue;
        }
        let base =
            keys.get(&(config_key.clone(), baseline.to_string())).and_then(|b| Sample::of(b));
        if let Some(cand) = Sample::of(sample) {
            pairs.push((config_key.clone(), cand, base));
        }
    }
    pairs
}

/// The error for a comparison whose baseline mean is zero in some group: a
/// ratio to it is infinite or undefined.
fn zero_baseline(
    metric: &Metric,
    pairs: &[(Vec<KeyPart>, Sample, Option<Sample>)],
    baseline: &str,
    blame: &Blame,
) -> Result<(), Diagnostic> {
    let zero = pairs.iter().find(|(_, _, b)| b.as_ref().is_some_and(|b| b.summary.mean == 0.0));
    let Some((key, _, _)) = zero else { return Ok(()) };
    let rows = match (&metric.per, key.first()) {
        (Some(per), Some(value)) => format!("{per} = {value}"),
        _ => filter::describe(&metric.filter),
    };
    Err(blame.at(
        "value",
        format!(
            "the baseline `{baseline}` has a mean `{}` of 0 ({rows}), and a ratio to zero is undefined",
            metric.value
        ),
        "a relative, slowdown or ratio metric divides by the baseline's mean: compare a column \
         whose baseline is not zero, or use `compare = \"summary\"`"
            .into(),
    ))
}

/// The error for a relative, slowdown or ratio metric where a value is
/// negative in some group: a relative change is a share of a positive
/// baseline, and between values of opposite or negative sign (2 against −1
/// would read "−300%", a median shift "−285.7 to +171.4%") it means
/// nothing. Zeros are allowed: a candidate mean of exactly 0 is −100%.
fn negative_values(
    metric: &Metric,
    pairs: &[(Vec<KeyPart>, Sample, Option<Sample>)],
    (candidate, baseline): (&str, &str),
    blame: &Blame,
) -> Result<(), Diagnostic> {
    let lowest = |s: &Sample| s.sorted.first().copied().unwrap_or(0.0);
    let negative = pairs.iter().find_map(|(key, c, b)| {
        let b = b.as_ref()?;
        (lowest(c) < 0.0 || lowest(b) < 0.0).then_some((key, c, b))
    });
    let Some((key, c, b)) = negative else { return Ok(()) };
    let rows = match (&metric.per, key.first()) {
        (Some(per), Some(value)) => format!("{per} = {value}"),
        _ => filter::describe(&metric.filter),
    };
    let kind = if metric.compare == Compare::Ratio { "a ratio" } else { "a relative change" };
    Err(blame.at(
        "compare",
        format!(
            "{kind} needs values that are not negative, but `{}` ({rows}) goes down to {} \
             for `{candidate}` and {} for `{baseline}`",
            metric.value,
            crate::format::plain(lowest(c)),
            crate::format::plain(lowest(b)),
        ),
        "compare the absolute difference with `compare = \"difference\"`, or compare a \
         column whose values are positive (a time or a rate rather than an offset)"
            .into(),
    ))
}

/// The error for a metric whose candidate has no rows left after `where`,
/// naming the environments that do.
fn no_candidate_rows(
    metric: &Metric,
    table: &Table,
    sides: &Sides,
    groups: &[Grouped],
    blame: &Blame,
) -> Diagnostic {
    let candidate = &sides.candidate;
    let found: std::collections::BTreeSet<String> =
        groups.iter().map(|g| g.key[0].to_string()).collect();
    blame.at(
        "where",
        format!(
            "no rows of `{candidate}` match `where` ({}) in {}",
            filter::describe(&metric.filter),
            table.path.display()
        ),
        format!(
            "levels of `{}` in the selected rows: {}; check the filter",
            sides.factor,
            list(found.iter().map(String::as_str))
        ),
    )
}
