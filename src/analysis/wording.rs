//! The wording of a metric: its value, interval, n and significance as the
//! prose, the cards and the JSON cite them, built from [`crate::format`];
//! numbers of 10,000 and more are grouped by thousands for reading.

use std::collections::BTreeMap;

use super::MetricValue;
use crate::config::Compare;
use crate::format::{grouped, p_value, reading, signed, signed_percent};

fn is_percent(metric: &MetricValue) -> bool {
    matches!(metric.compare, Compare::Relative | Compare::Slowdown)
}

fn with_unit(number: String, unit: &str) -> String {
    match unit {
        "" => number,
        "%" | "×" => format!("{number}{unit}"),
        unit => format!("{number} {unit}"),
    }
}

/// The metric's value as shown: `+8.8%`, `0.92×`, `45.7 timesteps/s`.
pub fn metric_value(m: &MetricValue) -> String {
    if is_percent(m) {
        grouped(&signed_percent(m.value, m.decimals))
    } else {
        with_unit(reading(m.value, m.decimals), &m.unit)
    }
}

/// The magnitude without a sign: `8.8%`.
pub fn metric_magnitude(m: &MetricValue) -> String {
    if is_percent(m) {
        format!("{}%", reading(m.value.abs() * 100.0, m.decimals))
    } else {
        with_unit(reading(m.value.abs(), m.decimals), &m.unit)
    }
}

/// The interval: `95% CI +6.1 to +11.5%`; an end the interval excludes
/// marked `(excluded)`, an interval of one value `exactly`; or why there
/// is none.
pub fn metric_ci(m: &MetricValue) -> String {
    let Some([lo, hi]) = m.ci else { return "no CI".to_string() };
    let open = m.ci_open.unwrap_or([false; 2]);
    let end = |v: f64, open: bool| {
        let text = if is_percent(m) {
            grouped(&signed(v * 100.0, m.decimals))
        } else {
            reading(v, m.decimals)
        };
        if open { format!("{text} (excluded)") } else { text }
    };
    let unit =
        |text: String| if is_percent(m) { format!("{text}%") } else { with_unit(text, &m.unit) };
    if lo == hi {
        return unit(format!("95% CI exactly {}", end(lo, false)));
    }
    unit(format!("95% CI {} to {}", end(lo, open[0]), end(hi, open[1])))
}

/// The smallest run count of the metric's groups.
fn runs(m: &MetricValue) -> usize {
    m.baseline.as_ref().map_or(m.candidate.n, |b| b.n.min(m.candidate.n))
}

/// `n = 3`, or for an average `5 configurations × 3 runs`.
pub fn metric_n(m: &MetricValue) -> String {
    match m.groups {
        0 | 1 => format!("n = {}", crate::format::count(runs(m))),
        k if m.within_run => format!("n = {} runs, each measuring {k} configurations", runs(m)),
        k => format!("{k} configurations × {} runs", runs(m)),
    }
}

/// A value of the metric in its own expression: `+8.8%`, `0.92×`.
fn expressed(m: &MetricValue, v: f64) -> String {
    if is_percent(m) {
        grouped(&signed_percent(v, m.decimals))
    } else {
        with_unit(reading(v, m.decimals), &m.unit)
    }
}

/// The range of an averaged metric's configurations: `from −8.8% at procs =
/// 32 to +14.0% at procs = 2`; empty for one configuration.
pub fn metric_range(m: &MetricValue) -> String {
    m.spread.as_ref().map_or_else(String::new, |s| {
        let [lo, hi] = &s.range;
        format!(
            "from {} at {} to {} at {}",
            expressed(m, lo.value),
            lo.at,
            expressed(m, hi.value),
            hi.at
        )
    })
}

/// Value, interval and n: `+8.8% (95% CI +6.1 to +11.5%, n = 3)`; for an
/// average also its range and whether its configurations change sign.
pub fn metric_full(m: &MetricValue) -> String {
    let mut notes = Vec::new();
    if let Some(s) = &m.spread {
        notes.push(metric_range(m));
        if s.sign_change {
            notes.push("the configurations differ in sign".into());
        }
    }
    if m.significant == Some(false) {
        notes.push("not statistically significant".into());
    }
    let notes = if notes.is_empty() { String::new() } else { format!("; {}", notes.join("; ")) };
    if m.exact {
        return format!("{} in every run ({}{notes})", metric_value(m), metric_n(m));
    }
    match &m.ci {
        Some(_) => format!("{} ({}, {}{notes})", metric_value(m), metric_ci(m), metric_n(m)),
        None => format!(
            "{} ({}; no CI: {}{notes})",
            metric_value(m),
            metric_n(m),
            m.ci_note.as_deref().unwrap_or("the runs do not vary")
        ),
    }
}

/// `statistically significant` or `not statistically significant`, from the
/// interval; for a summary, which tests nothing, `not a comparison`.
pub fn significance(m: &MetricValue) -> String {
    match (m.significant, m.compare) {
        _ if m.exact => "exact: the same in every run".into(),
        (Some(true), _) => "statistically significant".into(),
        (Some(false), _) => "not statistically significant".into(),
        (None, Compare::Summary) => "not a comparison".into(),
        (None, _) => {
            format!("of unknown significance ({})", m.ci_note.as_deref().unwrap_or("no interval"))
        }
    }
}

/// Every field of a metric that prose can cite, formatted.
pub fn metric_fields(m: &MetricValue) -> BTreeMap<&'static str, String> {
    let mean = |x: f64| reading(x, m.decimals);
    let mut fields = BTreeMap::from([
        ("value", metric_value(m)),
        ("abs", metric_magnitude(m)),
        ("ci", metric_ci(m)),
        ("full", metric_full(m)),
        ("n", metric_n(m).trim_start_matches("n = ").to_string()),
        ("label", m.label.clone()),
        ("definition", m.definition.clone().unwrap_or_default()),
        ("significance", significance(m)),
        ("range", metric_range(m)),
        ("model", m.model.clone()),
        ("candidate", mean(m.candidate.mean)),
        ("p", m.p_value.map(p_value).unwrap_or_else(|| "no p-value".into())),
    ]);
    if let Some(b) = &m.baseline {
        fields.insert("baseline", mean(b.mean));
        fields.insert("delta", metric_value(m));
    }
    fields
}
