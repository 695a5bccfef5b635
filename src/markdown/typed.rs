//! Numbers typed into prose: a number an author writes by hand ("8.8%
//! faster") that equals, at the precision it is written with, a statistic
//! the study computes is found and the shortcode that computes it
//! suggested, so that prose cannot drift from the data. Numbers that are
//! no statistic are left alone: years, dates, versions, times of day,
//! counts (whole numbers under 10,000: files, processes, runs), numbers in
//! identifiers, after `<` or `>` (thresholds such as `p < 0.05`), and
//! those in code, formulas, HTML and shortcodes. In the answer of
//! book.toml and on the cards, a percentage or ratio no computation backs
//! is flagged as well ([`unbacked`]).

use std::collections::BTreeMap;
use std::ops::Range;

/// Every metric's fields, formatted, by metric name (as `stat` cites them).
pub type Fields = BTreeMap<String, BTreeMap<&'static str, String>>;

/// What follows a number's digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suffix {
    /// `%`.
    Percent,
    /// `×` or `x` (a ratio).
    Times,
    /// Nothing of the kind.
    Plain,
}

/// A number as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Number {
    /// Its bytes, sign and suffix included.
    pub span: Range<usize>,
    /// Its digits without sign or grouping: `8.8`, `622592`.
    pub digits: String,
    /// Digits after the decimal point.
    pub decimals: usize,
    /// What follows it.
    pub suffix: Suffix,
    /// Whether a thousands separator groups it (`622,592`).
    pub grouped: bool,
}

impl Number {
    /// Whether it may be a statistic rather than a count, a year or a
    /// label: it has decimals, a `%` or `×`, or is grouped or of five
    /// digits and more.
    pub fn may_be_statistic(&self) -> bool {
        self.decimals > 0 || self.suffix != Suffix::Plain || self.grouped || self.digits.len() >= 5
    }

    /// Its significant digits.
    fn significant(&self) -> usize {
        self.digits.trim_start_matches(['0', '.']).chars().filter(char::is_ascii_digit).count()
    }
}

/// Every number of `text` that is no part of a word, an identifier, a
/// version, a date or a time, nor a threshold after `<` or `>`.
pub fn numbers(text: &str) -> Vec<Number> {
    numbers_in(text, 0..text.len())
}

/// [`numbers`] of the bytes `range` of `text`, read with the text around
/// them (a `<` before a number may be an event of its own).
pub fn numbers_in(text: &str, range: Range<usize>) -> Vec<Number> {
    let bytes = &text.as_bytes()[..range.end];
    let mut found = Vec::new();
    let mut at = range.start;
    while at < bytes.len() {
        if !bytes[at].is_ascii_digit() {
            at += 1;
            continue;
        }
        let (end, number) = read(text, at);
        found.extend(number);
        at = end.max(at + 1);
    }
    found
}

/// The number whose first digit is at `start`, if it is one (see
/// [`numbers`]), and where reading stopped.
fn read(text: &str, start: usize) -> (usize, Option<Number>) {
    let bytes = text.as_bytes();
    let before = |i: usize| text[..i].chars().next_back();
    let (end, grouped, decimals) = digits(bytes, start);
    let stop = bytes[end..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'/' | b':' | b'_'))
        .count();
    let next = text[end..].chars().next();
    let after = text[end..].chars().nth(1);
    // A version (`4.0.3`), a date (`2025-06-11`, `11/06/2025`), a time
    // (`10:30`) or an identifier (`x86_64`) goes on with more digits.
    let joined = matches!(next, Some('.' | '-' | '/' | ':' | '_'))
        && after.is_some_and(|c| c.is_ascii_alphanumeric());
    let prev = before(start);
    let prev2 = prev.and_then(|p| before(start - p.len_utf8()));
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || "_./:@#\\&$".contains(c));
    let attached = match prev {
        Some('-' | '−' | '+' | '–') => word(prev2) || prev2.is_some_and(|c| c.is_ascii_digit()),
        p => word(p),
    };
    if joined || attached || threshold(&text[..start]) {
        return (end + stop, None);
    }
    let (suffix, stop_at) = match next {
        Some('%') => (Suffix::Percent, end + 1),
        Some(c @ ('×' | 'x')) if !after.is_some_and(char::is_alphanumeric) => {
            (Suffix::Times, end + c.len_utf8())
        }
        _ => (Suffix::Plain, end),
    };
    let sign = match prev {
        Some(c @ ('-' | '−' | '+')) => c.len_utf8(),
        _ => 0,
    };
    let digits = text[start..end].replace(',', "");
    let number = Number { span: start - sign..stop_at, digits, decimals, suffix, grouped };
    (stop_at, Some(number))
}

/// Where the digits from `start` end (thousands separators and a
/// decimal part included), whether they are grouped, and their decimals.
fn digits(bytes: &[u8], start: usize) -> (usize, bool, usize) {
    let mut end = start;
    let mut grouped = false;
    while end < bytes.len() {
        match bytes[end] {
            b'0'..=b'9' => end += 1,
            // A thousands separator: a comma followed by exactly three digits.
            b',' if bytes
                .get(end + 1..end + 4)
                .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
                && !bytes.get(end + 4).is_some_and(u8::is_ascii_digit) =>
            {
                (grouped, end) = (true, end + 4)
            }
            _ => break,
        }
    }
    if bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
        let frac = bytes[end + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
        return (end + 1 + frac, grouped, frac);
    }
    (end, grouped, 0)
}

/// Whether the text before a number ends with `<`, `>`, `≤` or `≥` (and
/// spaces, a sign): the number is a threshold, not a finding.
fn threshold(before: &str) -> bool {
    let rest = before.trim_end_matches(['-', '−', '+']).trim_end();
    rest.ends_with(['<', '>', '≤', '≥'])
}

/// A statistic as the study prints it: a field of a metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Printed {
    /// The metric's key (`throughput_32`, `by_size candidate=b at=size = 9`).
    pub key: String,
    /// The field (`abs`, `value`, `baseline`, `candidate`).
    pub field: &'static str,
    /// The number printed.
    pub number: Number,
    /// The word of its direction (`faster`), for a comparison.
    pub word: Option<String>,
}

/// The fields of every metric whose numbers prose could type.
const FIELDS: [&str; 4] = ["abs", "value", "baseline", "candidate"];

/// Every statistic of `fields` as printed.
pub fn printed(fields: &Fields) -> Vec<Printed> {
    let mut printed = Vec::new();
    for (key, metric) in fields {
        let word = metric.get("words").and_then(|w| w.split_once(' ')).map(|(_, w)| w.to_string());
        for field in FIELDS {
            let Some(number) = metric.get(field).and_then(|v| numbers(v).into_iter().next()) else {
                continue;
            };
            printed.push(Printed { key: key.clone(), field, number, word: word.clone() });
        }
    }
    printed
}

/// Whether `typed` equals `stat` at the precision it is written with:
/// as printed, or rounded to fewer decimals when it keeps at least two
/// significant digits (`14%` for `14.0%`).
pub fn equals(typed: &Number, stat: &Number) -> bool {
    if typed.suffix != stat.suffix || typed.decimals > stat.decimals {
        return false;
    }
    if typed.decimals < stat.decimals && typed.significant() < 2 {
        return false;
    }
    // In whole units of the last digit, rounded half up: exact decimal
    // arithmetic on the digits as printed.
    let units = |n: &Number| n.digits.replace('.', "").parse::<u128>().ok();
    let (Some(stat_units), Some(typed_units)) = (units(stat), units(typed)) else {
        return false;
    };
    let Some(scale) = 10u128.checked_pow((stat.decimals - typed.decimals) as u32) else {
        return false;
    };
    (stat_units + scale / 2) / scale == typed_units
}

/// The shortcode that prints `stat` (its `words` when `following` begins
/// with its direction word).
pub fn suggestion(stat: &Printed, following: &str) -> String {
    let (name, member) =
        stat.key.split_once(" candidate=").map_or((stat.key.as_str(), None), |(n, m)| (n, Some(m)));
    let mut args = format!("name=\"{name}\"");
    if let Some(member) = member {
        let (candidate, at) =
            member.split_once(" at=").map_or((member, None), |(c, a)| (c, Some(a)));
        args.push_str(&format!(", candidate=\"{candidate}\""));
        if let Some(at) = at {
            args.push_str(&format!(", at=\"{at}\""));
        }
    }
    let word = stat.word.as_deref().filter(|w| following.trim_start().starts_with(w));
    let field = if word.is_some() && stat.field == "abs" { "words" } else { stat.field };
    format!("{{{{ stat({args}, field=\"{field}\") }}}}")
}

/// A typed number the check flags: where, what, and the fix.
pub type Flag = (Range<usize>, String, String);

/// Every number of `text` (the bytes `range` of a page, outside code and
/// shortcodes) that equals a statistic of `printed`.
pub fn check(text: &str, range: Range<usize>, printed: &[Printed]) -> Vec<Flag> {
    let mut flags = Vec::new();
    for number in numbers_in(text, range.clone()).into_iter().filter(Number::may_be_statistic) {
        let matched: Vec<&Printed> =
            printed.iter().filter(|p| equals(&number, &p.number)).collect();
        let Some(first) = matched.first() else { continue };
        let span = number.span;
        let following = &text[span.end..range.end];
        let typed = &text[span.clone()];
        let name = first.key.split(" candidate=").next().unwrap_or(&first.key);
        let message = format!("`{typed}` is typed here, and equals the statistic `{name}`");
        let signed = typed.starts_with(['+', '-', '−']);
        let mut calls: Vec<String> = Vec::new();
        for (i, p) in matched.iter().enumerate() {
            // A signed number is a `value`, an unsigned one a size (`abs`).
            let wanted = if signed { "value" } else { "abs" };
            let preferred = matched.iter().find(|q| q.key == p.key && q.field == wanted);
            let pick = preferred.unwrap_or(p);
            let call = suggestion(pick, following);
            if matched[..i].iter().all(|q| q.key != p.key) && !calls.contains(&call) {
                calls.push(call);
            }
        }
        let hint = format!(
            "write {}, which the build computes from the results, so that the prose follows the data{}",
            calls[0],
            if calls.len() > 1 {
                format!(" (or {})", calls[1..].join(", "))
            } else {
                String::new()
            }
        );
        flags.push((span, message, hint));
    }
    flags
}

/// Every percentage or ratio of the bytes `range` of `text` that no statistic of `printed`
/// equals: in the answer or on a card, a figure no computation backs.
pub fn unbacked(text: &str, range: Range<usize>, printed: &[Printed]) -> Vec<Number> {
    // A confidence level (`95% CI`, `95% confidence`) is a choice, not a finding.
    let level = |n: &Number| {
        let after = text[n.span.end..].trim_start();
        ["CI", "confidence", "interval"].iter().any(|w| after.starts_with(w))
    };
    numbers_in(text, range)
        .into_iter()
        .filter(|n| n.suffix != Suffix::Plain && !level(n))
        .filter(|n| !printed.iter().any(|p| equals(n, &p.number)))
        .collect()
}

/// The bytes of `text` that are prose, to check for typed numbers: its
/// text events outside code blocks and directives, as written (not an
/// escape or an entity), less the shortcodes `calls`.
pub fn prose(
    text: &str,
    events: &[(pulldown_cmark::Event<'_>, Range<usize>)],
    calls: &[Range<usize>],
) -> Vec<Range<usize>> {
    use pulldown_cmark::{Event, Tag, TagEnd};
    let mut ranges = Vec::new();
    let mut code = false;
    for (event, range) in events {
        match event {
            Event::Start(Tag::CodeBlock(_)) => code = true,
            Event::End(TagEnd::CodeBlock) => code = false,
            Event::Text(t) if !code && text.get(range.clone()) == Some(t.as_ref()) => {
                let mut at = range.start;
                for call in calls.iter().filter(|c| c.start < range.end && c.end > range.start) {
                    if call.start > at {
                        ranges.push(at..call.start);
                    }
                    at = at.max(call.end);
                }
                if at < range.end {
                    ranges.push(at..range.end);
                }
            }
            _ => {}
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::expand::{Shortcodes, expand};
    use crate::markdown::generate::Gen;
    use pulldown_cmark::Parser;
    use std::path::Path;

    /// A comparison printed as the study prints one, from its size in
    /// tenths of a percent (88 is `8.8%`), written here by hand.
    fn comparison(tenths: i64, word: &str) -> BTreeMap<&'static str, String> {
        let abs = format!("{}.{}%", tenths.abs() / 10, tenths.abs() % 10);
        let sign = if tenths < 0 { "−" } else { "+" };
        BTreeMap::from([
            ("abs", abs.clone()),
            ("value", format!("{sign}{abs}")),
            ("words", format!("{abs} {word}")),
            ("full", format!("{sign}{abs} (n = 3)")),
        ])
    }

    /// A summary printed with its unit.
    fn summary(text: &str, unit: &str) -> BTreeMap<&'static str, String> {
        BTreeMap::from([("value", format!("{text} {unit}")), ("candidate", text.to_string())])
    }

    /// The flags of the page `text` against `fields`: the typed text of each.
    fn flagged(text: &str, fields: &Fields, answer: bool) -> Vec<(String, String)> {
        let events = Parser::new_ext(text, crate::markdown::options()).into_offset_iter().collect();
        let shortcodes = Shortcodes { fields, caveats: !answer, facts: None };
        let (_, _, flags) = expand(Path::new("content/a.md"), text, events, shortcodes).unwrap();
        flags.into_iter().map(|(span, _, hint)| (text[span].to_string(), hint)).collect()
    }

    fn study() -> Fields {
        BTreeMap::from([
            ("throughput_32".to_string(), comparison(88, "faster")),
            ("slowdown_2".to_string(), comparison(140, "slower")),
            ("tps".to_string(), summary("45.7", "timesteps/s")),
            ("atoms".to_string(), summary("622,592", "atoms")),
            ("p_like".to_string(), summary("0.05", "s")),
            ("by_size candidate=k at=size = 9".to_string(), comparison(-24, "lower")),
        ])
    }

    /// A typed statistic is flagged at its bytes with the call that
    /// computes it: `words` before its direction word, `value` for a
    /// signed one, a member of a family with its `candidate` and `at`.
    #[test]
    fn typed_statistics_are_flagged_with_their_call() {
        let fields = study();
        let text = "Kubernetes was 8.8% faster at 32 processes, +8.8% in all, \
                    45.7 timesteps/s with 622,592 atoms; at 9 MiB 2.4% lower, and 14% slower at 2.\n";
        let flags = flagged(text, &fields, false);
        let typed: Vec<&str> = flags.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(typed, ["8.8%", "+8.8%", "45.7", "622,592", "2.4%", "14%"]);
        assert!(
            flags[0].1.starts_with("write {{ stat(name=\"throughput_32\", field=\"words\") }}"),
            "{}",
            flags[0].1
        );
        assert!(
            flags[1].1.starts_with("write {{ stat(name=\"throughput_32\", field=\"value\") }}"),
            "{}",
            flags[1].1
        );
        assert!(
            flags[2].1.starts_with("write {{ stat(name=\"tps\", field=\"value\") }}"),
            "{}",
            flags[2].1
        );
        let member =
            "{{ stat(name=\"by_size\", candidate=\"k\", at=\"size = 9\", field=\"words\") }}";
        assert!(flags[4].1.contains(member), "{}", flags[4].1);
        assert!(flags[5].1.contains("name=\"slowdown_2\", field=\"words\""), "{}", flags[5].1);
    }

    /// Dates, versions, years, times, counts, identifiers, thresholds,
    /// cross-references and numbers in code, formulas, HTML, shortcodes
    /// and chart directives are no typed statistic.
    #[test]
    fn dates_versions_years_and_counts_are_not_flagged() {
        let fields = study();
        let text = "Run on 2025-06-11 and 11/06/2025 at 10:30 with OpenMPI 4.0.3, \
                    v1.2 and x86_64, in 2025, over 3 files and 32 processes on a 64-core node \
                    (p < 0.05, n = 3; see @fig-scaling-2 and Table 2). \
                    `8.8%` is code, $8.8$ a formula, \
                    {{ stat(name=\"p_like\", field=\"value\") }} a statistic.\n\n\
                    <div>8.8% in HTML</div>\n\n\
                    ```chart\ncaption = \"45.7 timesteps/s\"\n```\n\n```\n8.8%\n```\n";
        assert_eq!(flagged(text, &fields, false), []);
        // A number that equals no statistic, or one too coarse to tell
        // (one significant digit), is no typed statistic either.
        assert_eq!(flagged("It was 8.7% or 9% faster, 45.8 timesteps/s.\n", &fields, false), []);
        // The threshold's number alone would be one.
        assert_eq!(flagged("It took 0.05 s.\n", &fields, false).len(), 1);
    }

    /// In the answer, a percentage or ratio that no statistic equals is a
    /// figure no computation backs; a backed one is a typed statistic.
    #[test]
    fn the_answer_flags_figures_nothing_backs() {
        let fields = study();
        let text = "Up to 30% faster (95% CI), 1.5× the speed, 8.8% faster at 32.\n";
        let flags = flagged(text, &fields, true);
        let typed: Vec<&str> = flags.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(typed, ["30%", "1.5×", "8.8%"]);
        assert!(flags[0].1.starts_with("cite the statistic"), "{}", flags[0].1);
        assert!(flagged("Up to 30% faster.\n", &fields, false).is_empty());
    }

    /// Generated prose: sentences of typed statistics (at their printed
    /// precision or rounded to whole percent), of numbers near them that
    /// equal none, and of dates, versions, years and counts, in plain text,
    /// emphasis, lists and code. Exactly the typed statistics outside code
    /// are flagged; which ones is decided here with whole numbers of tenths.
    #[test]
    fn generated_prose_flags_exactly_its_typed_statistics() {
        for seed in 1..=300u64 {
            let mut g = Gen(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            let stats: Vec<i64> = (0..1 + g.below(4)).map(|_| 1 + g.below(400) as i64).collect();
            let fields: Fields = stats
                .iter()
                .enumerate()
                .map(|(i, t)| (format!("m{i}"), comparison(*t, "faster")))
                .collect();
            let (mut text, mut expected) = (String::new(), Vec::new());
            for _ in 0..1 + g.below(12) {
                let t = stats[g.below(stats.len())];
                let piece = match g.below(9) {
                    0 => {
                        let typed = format!("{}.{}%", t / 10, t % 10);
                        expected.push(typed.clone());
                        format!("it was {typed} faster")
                    }
                    // Whole percent: flagged when it keeps two digits.
                    1 => {
                        let whole = (t + 5) / 10;
                        if whole >= 10 {
                            expected.push(format!("{whole}%"));
                        }
                        format!("about {whole}% more")
                    }
                    2 => {
                        let near = (1..).map(|d| t + d).find(|n| !stats.contains(n)).unwrap();
                        format!("not {}.{}%", near / 10, near % 10)
                    }
                    3 => format!("`{}.{}%` in code", t / 10, t % 10),
                    4 => format!("on {}-0{}-1{}", 1990 + g.below(40), 1 + g.below(9), g.below(10)),
                    5 => format!("version {}.{}.{}", g.below(10), g.below(30), g.below(10)),
                    6 => format!("in {} with {} files", 1990 + g.below(40), g.below(9000)),
                    7 => format!("*{}.{}% faster*", t / 10, t % 10),
                    _ => format!("under < {}.{}%", t / 10, t % 10),
                };
                if piece.starts_with('*') {
                    expected.push(piece.trim_matches('*').split(' ').next().unwrap().to_string());
                }
                let joint = g.pick(&[" ", ", ", ".\n\n", ".\n- ", "; "]);
                text.push_str(&piece);
                text.push_str(joint);
            }
            let got: Vec<String> =
                flagged(&text, &fields, false).into_iter().map(|f| f.0).collect();
            assert_eq!(got, expected, "seed {seed}:\n{text}");
        }
    }
}
