//! The caveats a reader sees: the author's own (`[[caveats]]` of book.toml)
//! first, then at most a handful of those the data imply, ranked by how much
//! each could change a headline claim, in plain sentences that name the
//! claims (or the computed table) they qualify by their labels. Every caveat
//! of the data, these included, stays in the diagnostics
//! (`Analysis::caveats`) with its figures. Run by the markdown stage
//! ([`crate::markdown::expand`]) once the computed tables exist, with the
//! words of [`super::labels`].

use super::caveats::Caveat;
use super::labels::Labels;
use super::metric as wording;
use crate::analysis::metrics::claim::Verdict;
use crate::analysis::metrics::tables::TableSpec;
use crate::analysis::{CaveatKind, Excluded, Finding, Limitation, MetricValue};
use crate::config::{Compare, Config};

/// Most caveats a reader sees, the author's included.
pub const MOST: usize = 7;

/// How much a caveat could change a headline claim: lower ranks first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Rank {
    /// The verdict itself may not hold.
    Verdict,
    /// The number describes less than it seems to.
    Meaning,
    /// What the runs can tell apart.
    Power,
    /// Where the results hold.
    Scope,
}

/// What the reader's caveats are made of: the analysis's metrics, caveats
/// and exclusions, and the computed tables with their numbers.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// Every metric.
    pub metrics: &'a [MetricValue],
    /// Every caveat in words ([`super::caveats::caveats`]).
    pub caveats: &'a [Caveat],
    /// The runs book.toml excludes.
    pub excluded: &'a [Excluded],
    /// Each computed table with its number (`Table 2`).
    pub tables: &'a [(usize, &'a TableSpec)],
    /// The findings of the data (`Analysis::caveats`), for those whose
    /// reader's caveat is written from its figures.
    pub findings: &'a [Finding],
}

/// The reader's caveats of a study: the author's, then the data's, at most
/// [`MOST`] in all (the author's are never dropped).
pub fn derive(config: &Config, inputs: Inputs, labels: &Labels) -> Vec<Limitation> {
    let Inputs { metrics, caveats, excluded, tables, findings } = inputs;
    let headline: Vec<&MetricValue> =
        metrics.iter().filter(|m| m.headline && m.compare != Compare::Summary).collect();
    let mut out: Vec<Limitation> = config
        .caveats
        .iter()
        .map(|c| Limitation {
            source: "author",
            kind: None,
            text: c.text.split_whitespace().collect::<Vec<_>>().join(" "),
            metrics: if c.metrics.is_empty() {
                headline.iter().map(|m| m.name.clone()).collect()
            } else {
                c.metrics.clone()
            },
        })
        .collect();
    let replaced: Vec<&str> =
        config.caveats.iter().flat_map(|c| c.replaces.iter().map(String::as_str)).collect();
    let mut found: Vec<(Rank, Limitation)> = Vec::new();
    for m in &headline {
        found.extend(per_metric(m, labels));
    }
    found.extend(few_runs(&headline, labels));
    found.extend(multiplicity(metrics, &headline, labels));
    found.extend(scope(caveats, &headline));
    found.extend(selected_baselines(tables));
    found.extend(sources(findings, &headline, labels));
    found.extend(excluded.iter().map(|e| (Rank::Scope, left_out(e, &headline))));
    found.retain(|(_, l)| l.kind.is_none_or(|k| !replaced.contains(&kind_name(k).as_str())));
    found.sort_by_key(|(rank, _)| *rank);
    let room = MOST.saturating_sub(out.len());
    out.extend(found.into_iter().take(room).map(|(_, l)| l));
    out
}

/// The kebab-case name of a kind, as stats.json and `replaces` write it.
pub fn kind_name(kind: CaveatKind) -> String {
    serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

fn limitation(kind: CaveatKind, text: String, metrics: &[&MetricValue]) -> Limitation {
    Limitation {
        source: "data",
        kind: Some(kind),
        text,
        metrics: metrics.iter().map(|m| m.name.clone()).collect(),
    }
}

/// `m` with another value (and no interval): to word that value as `m` would.
fn at_value(m: &MetricValue, value: f64) -> MetricValue {
    let mut copy = m.clone();
    (copy.value, copy.ci, copy.significant) = (value, None, None);
    copy
}

/// A value of `m` in words: `8.8% faster`, `no change`.
fn words(m: &MetricValue, value: f64, labels: &Labels) -> String {
    labels.direction(&at_value(m, value)).map_or_else(|| wording::metric_value(m), |d| d.text)
}

/// The interval of `m` in words: `from 2.0% slower to 19.3% faster`.
fn interval(m: &MetricValue, labels: &Labels) -> Option<String> {
    let [lo, hi] = m.ci?;
    let (a, b) = (words(m, lo, labels), words(m, hi, labels));
    Some(if a == b { format!("exactly {a}") } else { format!("from {a} to {b}") })
}

/// The caveats one headline metric calls for.
fn per_metric(m: &MetricValue, labels: &Labels) -> Vec<(Rank, Limitation)> {
    let one = |kind: CaveatKind, text: String| limitation(kind, text, &[m]);
    [
        not_significant(m, labels).map(|t| (Rank::Verdict, one(CaveatKind::NotSignificant, t))),
        carried(m, labels).map(|t| (Rank::Verdict, one(CaveatKind::Influential, t))),
        disagreeing(m, labels).map(|t| (Rank::Verdict, one(CaveatKind::EstimatorsDisagree, t))),
        sign_change(m, labels).map(|t| (Rank::Meaning, one(CaveatKind::SignChange, t))),
        coarse(m, labels).map(|t| (Rank::Power, one(CaveatKind::Resolution, t))),
        super::caveats::selected_baseline(m, labels)
            .map(|t| (Rank::Meaning, one(CaveatKind::SelectedBaseline, t))),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// A difference the data cannot decide (inconclusive, `analysis::metrics::claim`):
/// what its interval holds and what could decide it.
fn not_significant(m: &MetricValue, labels: &Labels) -> Option<String> {
    m.claim.filter(|c| c.verdict == Verdict::Inconclusive)?;
    // An average's interval carries the spread between its configurations.
    let spread = match m.groups {
        k if k > 1 && !m.within_run => {
            format!(", which carries the spread between its {k} configurations,")
        }
        _ => String::new(),
    };
    let range = interval(m, labels)
        .map(|i| format!(": its 95% interval{spread} runs {i}"))
        .unwrap_or_default();
    let joint = if range.is_empty() { ": " } else { "; " };
    let why = wording::claim_note(m, labels.threshold.as_deref())
        .map(|why| format!("{joint}{why}"))
        .unwrap_or_default();
    Some(format!(
        "{}: the difference, {}, is inconclusive{range}{why}.",
        labels.metric(m),
        words(m, m.value, labels)
    ))
}

/// A headline that one run carries, as its card notes it.
fn carried(m: &MetricValue, labels: &Labels) -> Option<String> {
    super::carried::caveat(m, labels)
}

/// Mean and median that disagree in sign or significance.
fn disagreeing(m: &MetricValue, labels: &Labels) -> Option<String> {
    let other =
        m.other.as_ref().filter(|_| crate::analysis::findings::metrics::estimators_disagree(m))?;
    let mut alt = at_value(m, other.value);
    alt.significant = other.significant;
    Some(format!(
        "{}: by the {} the difference is {}, {}; by the {} it is {}, {}. The verdict depends on the estimator.",
        labels.metric(m),
        estimator(other.estimator),
        words(m, other.value, labels),
        wording::significance(&alt),
        estimator(m.estimator),
        words(m, m.value, labels),
        wording::significance(m),
    ))
}

/// An average over configurations that differ significantly in direction.
fn sign_change(m: &MetricValue, labels: &Labels) -> Option<String> {
    let spread = m.spread.as_ref().filter(|s| s.significant_sign_change)?;
    let [lo, hi] = &spread.range;
    let at = |value: f64, at: &str| {
        format!("{} at {}", words(m, value, labels), labels.at(&m.inputs.file, at))
    };
    Some(format!(
        "{}: the average of {} configurations hides a change of direction, from {} to {}; it describes none of them.",
        labels.metric(m),
        spread.values.len(),
        at(lo.value, &lo.at),
        at(hi.value, &hi.at)
    ))
}

/// Values on a grid as coarse as the difference.
fn coarse(m: &MetricValue, labels: &Labels) -> Option<String> {
    let grain = m.grain.as_ref().filter(|g| g.coarse)?;
    // A column's id is no word for a reader: named only by its label.
    let values = labels
        .name(&m.inputs.file, &m.inputs.column)
        .map_or_else(|| "values".to_string(), |n| format!("{n} values"));
    Some(format!(
        "{}: the {values} lie on steps of {}% of the baseline's mean, as coarse as the difference; the runs cannot show a smaller change.",
        labels.metric(m),
        crate::format::significant(grain.relative * 100.0, 2)
    ))
}

fn estimator(e: crate::config::Estimator) -> &'static str {
    crate::analysis::statistics::estimators::of(e).words().name
}

/// Headline comparisons of fewer than six runs a side: no distribution-free
/// statement is possible.
fn few_runs(headline: &[&MetricValue], labels: &Labels) -> Option<(Rank, Limitation)> {
    let small: Vec<&MetricValue> = headline
        .iter()
        .copied()
        .filter(|m| {
            let b = m.baseline.as_ref().map_or(usize::MAX, |b| b.n);
            m.candidate.n.min(b) < crate::analysis::statistics::robust::MEDIAN_CI_MIN
        })
        .collect();
    let fewest = small
        .iter()
        .map(|m| m.candidate.n.min(m.baseline.as_ref().map_or(usize::MAX, |b| b.n)))
        .min()?;
    let names: Vec<String> = small.iter().map(|m| labels.metric(m)).collect();
    let runs = if fewest == 1 { "1 run".to_string() } else { format!("{fewest} runs") };
    let (verb, their) = if small.len() == 1 {
        ("rests", "its interval assumes")
    } else {
        ("rest", "their intervals assume")
    };
    let text = format!(
        "{} {verb} on as few as {runs} a side: {their} near-normal means, and one odd run cannot be told from the rest.",
        super::join(&names)
    );
    Some((Rank::Power, limitation(CaveatKind::FewRuns, text, &small)))
}

/// Headline claims significant alone but not after Holm's correction.
fn multiplicity(
    metrics: &[MetricValue],
    headline: &[&MetricValue],
    labels: &Labels,
) -> Option<(Rank, Limitation)> {
    // Each comparison by itself: the members of a family share a name.
    let mut tested: Vec<(f64, &MetricValue)> =
        metrics.iter().filter_map(|m| m.p_value.map(|p| (p, m))).collect();
    tested.sort_by(|a, b| a.0.total_cmp(&b.0));
    let count = tested.len();
    let survive =
        tested.iter().enumerate().take_while(|(i, (p, _))| p * (count - i) as f64 <= 0.05).count();
    let lost: Vec<&MetricValue> = headline
        .iter()
        .copied()
        .filter(|m| {
            m.significant == Some(true)
                && !tested[..survive].iter().any(|(_, t)| std::ptr::eq(*t, *m))
        })
        .collect();
    if lost.is_empty() {
        return None;
    }
    let labels: Vec<String> = lost.iter().map(|m| labels.metric(m)).collect();
    let (verb, pronoun) = if lost.len() == 1 { ("is", "it") } else { ("are", "they") };
    let text = format!(
        "{} {verb} significant alone, but not once the study's {count} comparisons are corrected for being tested together (Holm): {survive} of {count} remain. Read {pronoun} as suggestive.",
        super::join(&labels)
    );
    Some((Rank::Power, limitation(CaveatKind::Multiplicity, text, &lost)))
}

/// The built-in caveats about where the results hold (node counts,
/// exclusions), as they are: they name no file and no column.
fn scope(caveats: &[Caveat], headline: &[&MetricValue]) -> Vec<(Rank, Limitation)> {
    caveats
        .iter()
        .filter(|c| matches!(c.kind, CaveatKind::SingleNode | CaveatKind::NodeCounts))
        .map(|c| (Rank::Scope, limitation(c.kind, c.text.clone(), headline)))
        .collect()
}

/// The caveat of the tables whose baselines are chosen from the data, once
/// for the tables it words alike, naming them.
fn selected_baselines(tables: &[(usize, &TableSpec)]) -> Vec<(Rank, Limitation)> {
    let mut alike: Vec<(String, &TableSpec, Vec<usize>)> = Vec::new();
    for (number, spec) in tables {
        let Some(note) = super::caveats::selected_baselines(spec, &[]) else { continue };
        match alike.iter_mut().find(|(n, ..)| *n == note) {
            Some((.., numbers)) => numbers.push(*number),
            None => alike.push((note, spec, vec![*number])),
        }
    }
    alike
        .into_iter()
        .filter_map(|(_, spec, numbers)| super::caveats::selected_baselines(spec, &numbers))
        .map(|text| (Rank::Meaning, limitation(CaveatKind::SelectedBaseline, text, &[])))
        .collect()
}

/// Runs whose sources differ within a configuration, on the headline
/// metrics that read them.
fn sources(
    findings: &[Finding],
    headline: &[&MetricValue],
    labels: &Labels,
) -> Vec<(Rank, Limitation)> {
    let mut out = Vec::new();
    for finding in findings {
        let Finding::Sources(s) = finding else { continue };
        let reading: Vec<&MetricValue> = headline
            .iter()
            .copied()
            .filter(|m| m.inputs.file == s.file && m.inputs.column == s.column)
            .collect();
        let named: Vec<String> = reading.iter().map(|m| labels.metric(m)).collect();
        if let Some(text) = super::sources::reader(s, &named, labels).filter(|_| !named.is_empty())
        {
            out.push((Rank::Meaning, limitation(CaveatKind::Sources, text, &reading)));
        }
    }
    out
}

/// An exclusion of book.toml in words: how many runs, and why.
fn left_out(excluded: &Excluded, headline: &[&MetricValue]) -> Limitation {
    let runs = match excluded.rows {
        1 => "One run was".to_string(),
        n => format!("{} runs were", crate::format::count(n)),
    };
    let reason = excluded.reason.trim().trim_end_matches('.');
    let text = format!("{runs} left out of every statistic and chart, because {reason}.");
    let file = excluded.file.as_str();
    let touched: Vec<&MetricValue> =
        headline.iter().copied().filter(|m| m.inputs.file == file).collect();
    limitation(CaveatKind::Excluded, text, &touched)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(id: &str, extra: &str) -> TableSpec {
        let body = format!(
            "id = \"{id}\"\ndata = \"runs\"\nvalue = \"t\"\nrows = \"tool\"\ncolumns = \"level\"\ncell = \"relative\"\nbetter = \"lower\"\ncaption = \"c\"\n{extra}"
        );
        let at = crate::diagnostic::Location::file("content/index.md");
        crate::analysis::metrics::tables::parse(&body, &at).unwrap()
    }

    /// The caveat of tables whose baselines are chosen from the data comes
    /// once for the tables it words alike, naming them; once more for one
    /// worded otherwise (by medians); none for a table with a fixed baseline;
    /// after the author's own.
    #[test]
    fn tables_that_choose_their_baselines_are_named_once() {
        let toml = "[book]\ntitle = \"T\"\n[study]\nbaseline = \"a\"\n[environments.a]\nlabel = \"A\"\n[[caveats]]\ntext = \"One machine.\"\n";
        let config = crate::config::parse(std::path::Path::new("book.toml"), toml).unwrap();
        let best = "baseline = \"best\"\n";
        let (a, b, c) = (spec("a", best), spec("b", best), spec("c", ""));
        let d = spec("d", "baseline = \"best\"\nestimator = \"median\"\n");
        let tables = [(1, &a), (2, &c), (3, &b), (4, &d)];
        let inputs =
            Inputs { metrics: &[], caveats: &[], excluded: &[], tables: &tables, findings: &[] };
        let mut texts: Vec<String> =
            derive(&config, inputs, &Labels::new(&config)).into_iter().map(|l| l.text).collect();
        assert_eq!(texts.len(), 3, "{texts:?}");
        assert_eq!(texts.remove(0), "One machine.");
        assert!(texts[0].starts_with("In Tables 1 and 3, each cell's baseline, named after “vs”, is the best of the other rows in its column by their means"), "{}", texts[0]);
        assert!(texts[1].starts_with("In Table 4, each cell's baseline"), "{}", texts[1]);
        assert!(texts[1].contains("by their medians"), "{}", texts[1]);
    }
}
