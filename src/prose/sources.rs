//! Runs of one configuration whose sources differ beyond their noise
//! ([`crate::analysis::findings::sources`]), in words: the diagnostics'
//! caveat, every pair with its figures, and the reader's, the largest
//! difference and the metrics it qualifies.

use super::labels::Labels;
use crate::analysis::findings::sources::{Shift, Sources};
use crate::format::{count, p_value, significant};

/// Significant digits of a median.
const DIGITS: usize = 4;

/// Most pairs of sources the diagnostics name; the others are counted.
const NAMED: usize = 5;

/// One pair in words: `Candidate at 1 MiB: raw2/x.json (20 runs, median
/// 0.4120) against raw/x.json (20 runs, median 0.3250), 26.8% higher, p
/// after Holm = 0.002`.
fn pair(s: &Shift, file: &str, labels: &Labels) -> String {
    let [(a, n, x), (b, m, y)] = &s.sources;
    let runs =
        |n: &usize| if *n == 1 { "1 run".to_string() } else { format!("{} runs", count(*n)) };
    let by = match (*x > 0.0 && *y > 0.0, y > x) {
        (true, true) => format!(", {}% higher", significant((y / x - 1.0) * 100.0, 3)),
        (true, false) => format!(", {}% lower", significant((1.0 - y / x) * 100.0, 3)),
        (false, _) => String::new(),
    };
    format!(
        "{}: {b} ({}, median {}) against {a} ({}, median {}){by}, {} after Holm",
        labels.configuration(file, &s.at),
        runs(m),
        significant(*y, DIGITS),
        runs(n),
        significant(*x, DIGITS),
        p_value(s.p_holm)
    )
}

/// The diagnostics' caveat: every pair of sources that differ; of more
/// than [`NAMED`], the clearest (smallest p) named; those named listed in
/// the study's order of levels ([`Labels::compare_configurations`]).
pub fn diagnostic(s: &Sources, labels: &Labels) -> String {
    let mut named: Vec<&Shift> = s.shifts.iter().take(NAMED).collect();
    named.sort_by(|a, b| labels.compare_configurations(&s.file, &a.at, &b.at));
    let named: Vec<String> = named.into_iter().map(|x| pair(x, &s.file, labels)).collect();
    let (which, more) = match s.shifts.len().saturating_sub(NAMED) {
        0 => ("", String::new()),
        1 => (", the five clearest", "; and one more pair".to_string()),
        k => (", the five clearest", format!("; and {k} more pairs")),
    };
    format!(
        "Runs of {} in {} from different sources differ within a configuration beyond their noise (Mann–Whitney, Holm's correction across the {} pairs of sources tested){which}: {}{more}. Every statistic pools them.",
        labels.column(&s.file, &s.column),
        s.file,
        s.tested,
        named.join("; ")
    )
}

/// The advice to the author on sources that differ, for the build's
/// warnings (never for readers).
pub fn advice(s: &Sources) -> String {
    format!(
        "runs of `{}` in {} from different sources differ: if a session ran under other conditions, exclude its runs with their reason (`exclude` in [data.{}]), or compare the sources",
        s.column, s.file, s.file
    )
}

/// The reader's caveat on `metrics` (their labels), which read the runs of
/// `s`: the pair that differs most clearly, and how many do.
pub fn reader(s: &Sources, metrics: &[String], labels: &Labels) -> Option<String> {
    let first = s.shifts.first()?;
    let others = match s.shifts.len() {
        1 => String::new(),
        k => format!(" ({k} pairs of sources differ so)"),
    };
    Some(format!(
        "{}: runs of one configuration from different sources differ beyond their noise, and are pooled{others}. {}. If a session ran under other conditions, exclude its runs, or compare the sources.",
        super::join(metrics),
        pair(first, &s.file, labels)
    ))
}
