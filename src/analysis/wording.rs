//! The wording of a metric: its value, interval, n and significance as the
//! prose, the cards and the JSON cite them, built from [`crate::format`].

use std::collections::BTreeMap;

use super::MetricValue;
use crate::config::Compare;
use crate::format::{fixed, p_value, signed, signed_percent};

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
        signed_percent(m.value, m.decimals)
    } else {
        with_unit(fixed(m.value, m.decimals), &m.unit)
    }
}

/// The magnitude without a sign: `8.8%`.
pub fn metric_magnitude(m: &MetricValue) -> String {
    if is_percent(m) {
        format!("{}%", fixed(m.value.abs() * 100.0, m.decimals))
    } else {
        with_unit(fixed(m.value.abs(), m.decimals), &m.unit)
    }
}

/// The interval: `95% CI +6.1 to +11.5%`, or why there is none.
pub fn metric_ci(m: &MetricValue) -> String {
    match m.ci {
        Some([lo, hi]) if is_percent(m) => {
            format!(
                "95% CI {} to {}%",
                signed(lo * 100.0, m.decimals),
                signed(hi * 100.0, m.decimals)
            )
        }
        Some([lo, hi]) => with_unit(
            format!("95% CI {} to {}", fixed(lo, m.decimals), fixed(hi, m.decimals)),
            &m.unit,
        ),
        None => "no CI".to_string(),
    }
}

/// `n = 3`, or the note explaining the missing interval.
pub fn metric_n(m: &MetricValue) -> String {
    let n = m.baseline.as_ref().map_or(m.candidate.n, |b| b.n.min(m.candidate.n));
    format!("n = {n}")
}

/// Value, interval and n: `+8.8% (95% CI +6.1 to +11.5%, n = 3)`.
pub fn metric_full(m: &MetricValue) -> String {
    match &m.ci {
        Some(_) if m.significant == Some(false) => {
            format!(
                "{} ({}, {}; not statistically significant)",
                metric_value(m),
                metric_ci(m),
                metric_n(m)
            )
        }
        Some(_) => format!("{} ({}, {})", metric_value(m), metric_ci(m), metric_n(m)),
        None => format!(
            "{} ({}; no CI: {})",
            metric_value(m),
            metric_n(m),
            m.ci_note.as_deref().unwrap_or("the runs do not vary")
        ),
    }
}

/// `statistically significant` or `not statistically significant`, from the interval.
pub fn significance(m: &MetricValue) -> String {
    match m.significant {
        Some(true) => "statistically significant".into(),
        Some(false) => "not statistically significant".into(),
        None => "of unknown significance (too few runs)".into(),
    }
}

/// Every field of a metric that prose can cite, formatted.
pub fn metric_fields(m: &MetricValue) -> BTreeMap<&'static str, String> {
    let mean = |x: f64| fixed(x, m.decimals);
    let mut fields = BTreeMap::from([
        ("value", metric_value(m)),
        ("abs", metric_magnitude(m)),
        ("ci", metric_ci(m)),
        ("full", metric_full(m)),
        ("n", metric_n(m).trim_start_matches("n = ").to_string()),
        ("label", m.label.clone()),
        ("definition", m.definition.clone().unwrap_or_default()),
        ("significance", significance(m)),
        ("candidate", mean(m.candidate.mean)),
        ("p", m.p_value.map(p_value).unwrap_or_else(|| "no p-value".into())),
    ]);
    if let Some(b) = &m.baseline {
        fields.insert("baseline", mean(b.mean));
        fields.insert("delta", metric_value(m));
    }
    fields
}
