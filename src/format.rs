//! Number formatting: the one place where floats become text, so that the page,
//! the paper and the JSON round every number the same way.

use std::collections::BTreeMap;

use crate::analysis::MetricValue;
use crate::config::Compare;

/// A number in its shortest exact form, for identifiers and table cells:
/// `32`, `0.5`, `1e-7`.
pub fn plain(x: f64) -> String {
    if x.is_nan() {
        String::new()
    } else if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// A number with about three significant digits, trailing zeros trimmed, for
/// chart ticks and hover text: `42`, `45.7`, `0.63`, `2808`.
pub fn compact(x: f64) -> String {
    let magnitude = x.abs();
    let decimals = if magnitude >= 100.0 || magnitude == 0.0 {
        0
    } else if magnitude >= 10.0 {
        1
    } else if magnitude >= 1.0 {
        2
    } else {
        3
    };
    let text = fixed(x, decimals);
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// A byte count in binary units: `1 B`, `32 KiB`, `4 MiB`, `1.5 KiB`.
pub fn bytes(x: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = x;
    let mut unit = 0;
    while value.abs() >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{} {}", compact(value), UNITS[unit])
}

/// `x` rounded to `decimals`, never printed as negative zero.
pub fn fixed(x: f64, decimals: usize) -> String {
    let text = format!("{x:.decimals$}");
    if text.starts_with('-') && text[1..].chars().all(|c| c == '0' || c == '.') {
        text[1..].to_string()
    } else {
        text
    }
}

/// `x` rounded to `decimals` with an explicit sign: `+8.8`, `-2.4`, `0.0`.
pub fn signed(x: f64, decimals: usize) -> String {
    let text = fixed(x, decimals);
    if text.starts_with('-') || text.chars().all(|c| c == '0' || c == '.') {
        text
    } else {
        format!("+{text}")
    }
}

/// A fraction as a signed percentage: 0.088 → `+8.8%`.
pub fn signed_percent(fraction: f64, decimals: usize) -> String {
    format!("{}%", signed(fraction * 100.0, decimals))
}

/// A p-value: `p = 0.003`, or `p < 0.001` below that.
pub fn p_value(p: f64) -> String {
    if p < 0.001 { "p < 0.001".to_string() } else { format!("p = {}", fixed(p, 3)) }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_without_negative_zero() {
        assert_eq!(fixed(-0.04, 1), "0.0");
        assert_eq!(fixed(-0.05001, 1), "-0.1");
        assert_eq!(signed(0.0, 1), "0.0");
        assert_eq!(signed(8.8, 1), "+8.8");
        assert_eq!(signed_percent(-0.024, 1), "-2.4%");
        assert_eq!(signed_percent(0.08799, 1), "+8.8%");
    }

    #[test]
    fn plain_numbers_are_short() {
        assert_eq!(plain(32.0), "32");
        assert_eq!(plain(0.5), "0.5");
        assert_eq!(plain(f64::NAN), "");
    }

    #[test]
    fn compact_and_byte_labels() {
        assert_eq!(compact(45.696), "45.7");
        assert_eq!(compact(2807.8), "2808");
        assert_eq!(compact(0.63), "0.63");
        assert_eq!(compact(4.0), "4");
        assert_eq!(bytes(1.0), "1 B");
        assert_eq!(bytes(32768.0), "32 KiB");
        assert_eq!(bytes(4194304.0), "4 MiB");
        assert_eq!(bytes(1536.0), "1.5 KiB");
    }

    #[test]
    fn p_values_have_a_floor() {
        assert_eq!(p_value(0.0004), "p < 0.001");
        assert_eq!(p_value(0.0213), "p = 0.021");
    }
}
