//! Number formatting: the one place where floats become text, so that the page,
//! the paper and the JSON round every number the same way. A leaf: it imports
//! nothing of the pipeline; the wording of a metric is `prose::metric`.

use crate::math;

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

/// A number with about three significant digits, trailing zeros trimmed and
/// thousands grouped, for chart ticks and hover text: `42`, `45.7`, `0.63`,
/// `2,808` (a negative one with a hyphen: [`minus`] makes it a minus sign).
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
        grouped(text.trim_end_matches('0').trim_end_matches('.'))
    } else {
        grouped(&text)
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

/// `x` rounded to `decimals` for reading in prose, cards, tooltips and the
/// paper: thousands grouped, a true minus sign: `622,592`, `45.7`, `2,808`,
/// `−2.4`. Not for CSV or JSON, which keep [`fixed`] or [`plain`].
pub fn reading(x: f64, decimals: usize) -> String {
    minus(&grouped(&fixed(x, decimals)))
}

/// A count for reading: `3`, `2,808`, `500,000`.
pub fn count(n: usize) -> String {
    grouped(&n.to_string())
}

/// Number text with its whole part grouped by thousands, the same from four
/// digits on everywhere: `-12345.6` → `-12,345.6`, `1000` → `1,000`; a sign
/// (`-`, `+` or `−`) stays in front.
pub fn grouped(text: &str) -> String {
    let sign = text.chars().next().filter(|c| matches!(c, '-' | '+' | '\u{2212}'));
    let rest = &text[sign.map_or(0, char::len_utf8)..];
    let whole = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    let (digits, tail) = rest.split_at(whole);
    if digits.len() < 4 {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + digits.len() / 3);
    out.extend(sign);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out.push_str(tail);
    out
}

/// `x` rounded to `decimals` with an explicit sign, for reading: `+8.8`,
/// `−2.4` (a true minus sign), `0.0`.
pub fn signed(x: f64, decimals: usize) -> String {
    let text = fixed(x, decimals);
    if text.starts_with('-') {
        minus(&text)
    } else if text.chars().all(|c| c == '0' || c == '.') {
        text
    } else {
        format!("+{text}")
    }
}

/// A fraction as a signed percentage: 0.088 → `+8.8%`.
pub fn signed_percent(fraction: f64, decimals: usize) -> String {
    format!("{}%", signed(fraction * 100.0, decimals))
}

/// A number with `digits` significant digits (at least its whole part), no
/// exponent, never negative zero: `significant(5.599999999999999, 4)` is
/// `5.600`, `significant(3079.6, 4)` is `3080`, `significant(123456.7, 4)`
/// is `123457`.
pub fn significant(x: f64, digits: usize) -> String {
    if x.is_nan() {
        return String::new();
    }
    if x == 0.0 {
        return fixed(0.0, digits.saturating_sub(1));
    }
    let magnitude = math::log10(x.abs()).floor() as i64;
    let decimals = (digits as i64 - 1 - magnitude).clamp(0, 15) as usize;
    // Rounding may carry into a new digit (9.9996 → 10.000): one decimal fewer.
    let text = fixed(x, decimals);
    let carried = text.parse::<f64>().is_ok_and(|r| r.abs() >= 10f64.powi(magnitude as i32 + 1));
    if decimals > 0 && carried { fixed(x, decimals - 1) } else { text }
}

/// Number text with a true minus sign (U+2212) for reading: `-2.4%` → `−2.4%`.
pub fn minus(text: &str) -> String {
    text.replace('-', "\u{2212}")
}

/// A measured value for reading, the same wherever it is shown (a point's
/// details, a data table, a comparison's baseline and candidate): three
/// significant digits, or every digit of its whole part, thousands grouped,
/// a true minus sign: `42.0`, `45.7`, `0.853`, `2,808`, `−1.50`.
pub fn value(x: f64) -> String {
    minus(&grouped(&significant(x, 3)))
}

/// A p-value: `p = 0.003`, or `p < 0.001` below that.
pub fn p_value(p: f64) -> String {
    if p < 0.001 { format!("p {}", p_bare(p)) } else { format!("p = {}", p_bare(p)) }
}

/// A p-value without its `p`, as a table's p column shows it: `0.002`,
/// `< 0.001`.
pub fn p_bare(p: f64) -> String {
    if p < 0.001 { "< 0.001".to_string() } else { fixed(p, 3) }
}

/// A date as book.toml writes it, `YYYY-MM-DD`, in words as a paper's title
/// block gives it: `2026-12-07` is `7 December 2026`. Any other text, or a
/// day no calendar has, is returned as written.
pub fn long_date(text: &str) -> String {
    let parts: Vec<&str> = text.split('-').collect();
    let number = |i: usize, len: usize| {
        let part = parts.get(i).filter(|p| p.len() == len && p.bytes().all(|b| b.is_ascii_digit()));
        part.and_then(|p| p.parse::<i32>().ok())
    };
    let date = match (parts.len(), number(0, 4), number(1, 2), number(2, 2)) {
        (3, Some(y), Some(m), Some(d)) => u8::try_from(m)
            .ok()
            .and_then(|m| time::Month::try_from(m).ok())
            .zip(u8::try_from(d).ok())
            .and_then(|(month, day)| time::Date::from_calendar_date(y, month, day).ok()),
        _ => None,
    };
    match date {
        Some(date) => format!("{} {} {}", date.day(), date.month(), date.year()),
        None => text.to_string(),
    }
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
        assert_eq!(signed(-0.04, 1), "0.0");
        assert_eq!(signed_percent(-0.024, 1), "\u{2212}2.4%");
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
        assert_eq!(compact(2807.8), "2,808");
        assert_eq!(compact(0.63), "0.63");
        assert_eq!(compact(4.0), "4");
        assert_eq!(bytes(1.0), "1 B");
        assert_eq!(bytes(32768.0), "32 KiB");
        assert_eq!(bytes(4194304.0), "4 MiB");
        assert_eq!(bytes(1536.0), "1.5 KiB");
    }

    #[test]
    fn significant_digits_for_tables() {
        assert_eq!(significant(5.599999999999999, 4), "5.600");
        assert_eq!(significant(-13.999999999999979, 4), "-14.00");
        assert_eq!(significant(3079.6, 4), "3080");
        assert_eq!(significant(123456.7, 4), "123457");
        assert_eq!(significant(0.000123456, 4), "0.0001235");
        assert_eq!(significant(9.9996, 4), "10.00");
        assert_eq!(significant(0.0, 4), "0.000");
        assert_eq!(significant(2.0 / 3.0, 6), "0.666667");
        assert_eq!(minus("-2.4%"), "\u{2212}2.4%");
        assert_eq!(value(42.0), "42.0");
        assert_eq!(value(0.853), "0.853");
        assert_eq!(value(2807.8), "2,808");
        assert_eq!(value(-1.5), "\u{2212}1.50");
    }

    #[test]
    fn reading_groups_thousands_from_four_digits() {
        assert_eq!(reading(622592.0, 0), "622,592");
        assert_eq!(reading(500000.0, 1), "500,000.0");
        assert_eq!(reading(2808.4, 0), "2,808");
        assert_eq!(reading(999.96, 1), "1,000.0");
        assert_eq!(reading(999.4, 0), "999");
        assert_eq!(reading(-1234567.891, 2), "\u{2212}1,234,567.89");
        assert_eq!(reading(-0.04, 1), "0.0");
        assert_eq!(reading(45.696, 1), "45.7");
        assert_eq!(grouped("+12345.6%"), "+12,345.6%");
        assert_eq!(grouped("\u{2212}1234"), "\u{2212}1,234");
        assert_eq!(grouped("1e300"), "1e300");
        assert_eq!(count(4_980_736), "4,980,736");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(18), "18");
    }

    #[test]
    fn p_values_have_a_floor() {
        assert_eq!(p_value(0.0004), "p < 0.001");
        assert_eq!(p_value(0.0213), "p = 0.021");
    }

    #[test]
    fn dates_are_written_out_when_the_calendar_has_them() {
        assert_eq!(long_date("2026-12-07"), "7 December 2026");
        assert_eq!(long_date("2024-02-29"), "29 February 2024");
        for kept in ["2025-02-29", "2025-13-01", "Spring 2025", "2025-1-2", ""] {
            assert_eq!(long_date(kept), kept);
        }
    }
}
