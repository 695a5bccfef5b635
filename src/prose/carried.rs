//! A headline carried by one run, in the reader's words: the note on its
//! card and Table 1's mark, and the reader's caveat, written once here from
//! the metric's influence (`analysis::metrics::influence`), so that the
//! card, the table, the caveats and the paper say the same of it.

use super::labels::Labels;
use super::metric as wording;
use crate::analysis::MetricValue;
use crate::analysis::findings::carried::Influence;

/// The influence of `m` when one run carries it (its verdict, or its
/// estimate by more than a quarter of its distance from no change).
pub fn found(m: &MetricValue) -> Option<&Influence> {
    m.influence.as_ref().filter(|i| i.carries)
}

/// `m` as the other runs give it: the value, interval, p and verdict
/// without the run that carries it (the verdict judged as `m`'s own, after
/// Holm's correction within a family).
pub fn without(m: &MetricValue, found: &Influence) -> MetricValue {
    let mut copy = m.clone();
    (copy.value, copy.ci) = (found.without.value, found.without.ci);
    (copy.significant, copy.p_value) = (found.without.significant, found.without.p_value);
    copy.p_holm = found.p_holm;
    copy.influence = None;
    copy
}

/// The run, as a reader can find it without a column id: `run 20 of
/// Candidate` for a run named `run = 20` by the file's key, else `one run
/// of Candidate (5,000)` by its value.
fn run(m: &MetricValue, found: &Influence, labels: &Labels) -> String {
    let level = labels.level(&m.inputs.file, &m.factor, &found.environment);
    let number = found.run.as_deref().and_then(|r| r.strip_prefix("run = "));
    match number.filter(|n| !n.contains([',', '='])) {
        Some(n) => format!("run {n} of {level}"),
        None => format!("one run of {level} ({})", crate::format::value(found.value)),
    }
}

/// The note on the card of a headline that one run carries:
/// `significant only with run 20 of Candidate: without it 5.2% faster,
/// not statistically significant`; `None` when no run carries it.
pub fn note(m: &MetricValue, labels: &Labels) -> Option<String> {
    let found = found(m)?;
    let other = without(m, found);
    let words = labels.direction(&other).map_or_else(|| wording::metric_value(&other), |d| d.text);
    let verdict = wording::significance(&other);
    let run = run(m, found, labels);
    Some(match (found.changes_verdict, m.significant) {
        (true, Some(true)) => format!("significant only with {run}: without it {words}, {verdict}"),
        (true, _) => {
            format!("not significant only because of {run}: without it {words}, {verdict}")
        }
        (false, _) => format!("carried by {run}: without it {words}, {verdict}"),
    })
}

/// The reader's caveat of a headline that one run carries: what its card
/// notes, as a sentence naming the metric.
pub fn caveat(m: &MetricValue, labels: &Labels) -> Option<String> {
    let found = found(m)?;
    let what = if found.changes_verdict { "the verdict" } else { "the estimate" };
    let note = note(m, labels)?;
    Some(format!("{}: one run carries {what}, {note}. The run is kept.", labels.metric(m)))
}

/// The advice to the author of a headline that one run carries, for the
/// build's warnings (never for readers): how to exclude the run.
pub fn advice(m: &MetricValue, labels: &Labels) -> Option<String> {
    let found = found(m)?;
    let file = &m.inputs.file;
    Some(format!(
        "{}: if {} is known to be bad, exclude it with its reason: `exclude = [{{ where = {{ … }}, reason = \"…\" }}]` in [data.{file}]",
        labels.metric(m),
        run(m, found, labels)
    ))
}
