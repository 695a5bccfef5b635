//! A comparison's difference in words: its size, the column's word for
//! its direction and whether it is negligible ([`Direction`]: `8.8% faster`),
//! and its interval in the same words (`6.1% to 11.5% faster`). A change of
//! a time is worded as a change in time (`53.9% less time`) or as the ratio
//! of speeds (`2.17× as fast`), as [`super::time`] decides.

use super::labels::Labels;
use super::time::Wording;
use crate::analysis::MetricValue;
use crate::analysis::metrics::claim::Verdict;
use crate::config::Compare;

/// A difference in words: its size, its direction and whether it matters.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Direction {
    /// The size without a sign, as the metric shows it: `8.8%`, `1.09×`;
    /// for a time worded by speed, the ratio of speeds: `2.17×`.
    pub size: String,
    /// The word of the direction: `faster`, `higher`, `less time`, `as
    /// fast`; empty for no change.
    pub word: String,
    /// What follows the size in `text`, as a card shows it beside the size:
    /// the word (`faster`), in parentheses for a ratio (`(faster)`); empty
    /// for no change.
    pub after: String,
    /// `8.8% faster`; `no change`; for a negligible one `0.3% lower`.
    pub text: String,
    /// Within `[study] negligible`, its whole interval inside (the claim's
    /// verdict, `analysis::metrics::claim`).
    pub negligible: bool,
}

impl Labels {
    /// A comparison's difference in words: `8.8% faster`, `7.6% slower`
    /// (the candidate's value against the baseline's, whatever the metric's
    /// sign convention); `None` for a summary.
    pub fn direction(&self, m: &MetricValue) -> Option<Direction> {
        if m.compare == Compare::Summary {
            return None;
        }
        let higher = m.higher() == Some(true);
        let wording = self.wording(&m.inputs.file, &m.inputs.column);
        let [up, down] = match &wording {
            Wording::Words(words) => words.clone(),
            _ => ["more time".to_string(), "less time".to_string()],
        };
        let size = if m.compare == Compare::Ratio {
            super::metric::metric_value(m)
        } else {
            super::metric::metric_magnitude(m)
        };
        let negligible = m.claim.is_some_and(|c| c.verdict == Verdict::Negligible);
        let none = size.trim_end_matches(['%', '×']).chars().all(|c| matches!(c, '0' | '.'));
        let word = if none && m.compare != Compare::Ratio {
            String::new()
        } else if higher {
            up
        } else {
            down
        };
        let after = match (m.compare, word.is_empty()) {
            (_, true) => String::new(),
            (Compare::Ratio, false) => format!("({word})"),
            _ => word.clone(),
        };
        if let (Wording::Speed(fast), false) = (&wording, word.is_empty())
            && let Some(speed) = speed(m)
        {
            let (size, word) = (super::metric::metric_value(&speed), format!("as {fast}"));
            let text = format!("{size} {word}");
            return Some(Direction { size, after: word.clone(), word, text, negligible });
        }
        let text =
            if after.is_empty() { "no change".to_string() } else { format!("{size} {after}") };
        Some(Direction { size, word, after, text, negligible })
    }

    /// A comparison's interval in words: `6.1% to 11.5% faster`, `2.0% slower
    /// to 19.3% faster`; `None` without an interval, or with an end the
    /// interval excludes (its signed form says so).
    pub fn interval(&self, m: &MetricValue) -> Option<String> {
        let [lo, hi] = m.ci?;
        if m.ci_open.is_some_and(|o| o.contains(&true)) {
            return None;
        }
        if let Wording::Speed(fast) = self.wording(&m.inputs.file, &m.inputs.column)
            && let Some(interval) = speed_interval(m, &fast)
        {
            return Some(interval);
        }
        // Both ends at the decimals the metric's own value and interval
        // are shown with (`1.02 to 1.45×`, never `1.02× to 1.5×`).
        let decimals = super::metric::shown_decimals(m);
        let end = |v: f64| {
            let mut at = m.clone();
            (at.value, at.ci, at.significant, at.decimals) = (v, None, None, decimals);
            self.direction(&at)
        };
        let (a, b) = (end(lo)?, end(hi)?);
        Some(if lo == hi {
            format!("exactly {}", a.text)
        } else if a.word == b.word && !a.word.is_empty() {
            // Ends in one direction read from the smaller size to the larger:
            // `6.1 to 11.5% faster`, `63.5× to 111.5× (higher)`.
            let (small, large) =
                if magnitude(&a.size) <= magnitude(&b.size) { (a, b) } else { (b, a) };
            format!("{} to {} {}", small.size.trim_end_matches('%'), large.size, large.after)
        } else {
            format!("{} to {}", a.text, b.text)
        })
    }
}

/// A change of a time `m` as the ratio of speeds, baseline's time over
/// candidate's (1 / (1 + change)), with its interval, as a ratio metric:
/// `2.17×`; `None` where a time is not positive. Its decimals are one more
/// than the change's (a change of 0.1% moves the ratio by 0.001).
fn speed(m: &MetricValue) -> Option<MetricValue> {
    let ratio = |v: f64| super::time::speed_ratio(change_at(m.compare, v)?);
    let ci = match m.ci {
        Some([lo, hi]) => {
            let (a, b) = (ratio(lo)?, ratio(hi)?);
            Some([a.min(b), a.max(b)])
        }
        None => None,
    };
    let decimals = if m.compare == Compare::Ratio { m.decimals } else { m.decimals + 1 };
    let (compare, unit) = (Compare::Ratio, "×".to_string());
    // The ratio falls as the value rises, but for a slowdown: its ends swap.
    let ci_open =
        m.ci_open.map(|[a, b]| if m.compare == Compare::Slowdown { [a, b] } else { [b, a] });
    let value = ratio(m.value)?;
    Some(MetricValue { compare, unit, decimals, value, ci, ci_open, ..m.clone() })
}

/// The interval of a change of a time as the ratio of speeds: `2.00× to
/// 2.34× as fast`, `exactly 2.00× as fast`.
fn speed_interval(m: &MetricValue, fast: &str) -> Option<String> {
    let speed = speed(m)?;
    let ends = super::metric::ci_ends(&speed)?;
    Some(format!("{} as {fast}", ends.replacen(" to ", "× to ", 1)))
}

/// The number in a size such as `8.8%`, `1.09×` or `0.5 s`.
fn magnitude(size: &str) -> f64 {
    let number = size.split(' ').next().unwrap_or_default();
    number.trim_end_matches(['%', '×']).replace(',', "").parse().unwrap_or(0.0)
}

/// candidate / baseline − 1 of a value `v` of a comparison of kind
/// `compare`; `None` for a difference in the column's unit, which does not
/// know it.
fn change_at(compare: Compare, v: f64) -> Option<f64> {
    let relative = matches!(compare, Compare::Relative | Compare::Slowdown | Compare::Ratio);
    relative.then(|| crate::analysis::metrics::claim::change(compare, v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math;

    /// A study whose file `runs` has a column of each wording.
    fn labels() -> Labels {
        let toml = r#"
[book]
title = "T"
[study]
baseline = "a"
[environments.a]
label = "A"
[data.runs.labels]
time = { name = "run time", unit = "s" }
latency = { unit = "µs", higher = "slower", lower = "faster" }
quick = { lower = "quicker" }
tps = { unit = "timesteps/s", higher = "faster", lower = "slower" }
cpu = { unit = "s", higher = "costlier", lower = "cheaper" }
"#;
        Labels::new(&crate::config::parse(std::path::Path::new("book.toml"), toml).unwrap())
    }

    /// A comparison of `column` of kind `compare` whose change (candidate /
    /// baseline − 1) is `change`, within `[lo, hi]`.
    fn metric(column: &str, compare: Compare, change: f64, ci: [f64; 2]) -> MetricValue {
        let value = |c: f64| match compare {
            Compare::Slowdown => -c,
            Compare::Ratio => 1.0 + c,
            _ => c,
        };
        let ci = if compare == Compare::Slowdown { [-ci[1], -ci[0]] } else { ci.map(value) };
        let mut m = MetricValue::example(value(change));
        (m.compare, m.ci, m.inputs.file, m.inputs.column) =
            (compare, Some(ci), "results/runs.csv".into(), column.into());
        m.significant = Some(ci[0] > value(0.0) || ci[1] < value(0.0));
        m.unit = if compare == Compare::Ratio { "×".into() } else { "%".into() };
        m.decimals = if compare == Compare::Ratio { 2 } else { 1 };
        m
    }

    /// The issue's cases by hand: a run time 53.9% shorter is 1 / 0.461 =
    /// 2.17× as fast, or 53.9% less time, never 53.9% faster; a slowdown
    /// of −2.4% (−4.0 to −0.8%) of a throughput is 2.4% faster (0.8 to 4.0%
    /// faster).
    #[test]
    fn times_read_as_time_or_speed_and_rates_keep_their_words() {
        let l = labels();
        let text = |column: &str, compare, change, ci| {
            let m = metric(column, compare, change, ci);
            (l.direction(&m).unwrap().text, l.interval(&m).unwrap())
        };
        let ci = [-0.560, -0.518];
        assert_eq!(
            text("latency", Compare::Relative, -0.539, ci),
            ("2.17× as fast".into(), "2.07× to 2.27× as fast".into())
        );
        assert_eq!(
            text("time", Compare::Relative, -0.539, ci),
            ("53.9% less time".into(), "51.8 to 56.0% less time".into())
        );
        assert_eq!(text("quick", Compare::Relative, 0.35, [0.3, 0.4]).0, "0.74× as quick");
        assert_eq!(
            text("cpu", Compare::Relative, -0.539, ci),
            ("53.9% cheaper".into(), "51.8 to 56.0% cheaper".into())
        );
        assert_eq!(
            text("tps", Compare::Slowdown, 0.024, [0.008, 0.040]),
            ("2.4% faster".into(), "0.8 to 4.0% faster".into())
        );
        assert_eq!(
            text("latency", Compare::Relative, 0.01, [-0.02, 0.04]),
            ("0.99× as fast".into(), "0.96× to 1.02× as fast".into())
        );
        assert_eq!(text("time", Compare::Ratio, -0.539, ci).0, "0.46× (less time)");
        assert_eq!(text("latency", Compare::Ratio, -0.539, ci).0, "2.17× as fast");
        // A difference in the column's unit knows no ratio: it reads in time.
        let mut m = metric("latency", Compare::Relative, -0.5, [-0.6, -0.4]);
        (m.compare, m.unit) = (Compare::Difference, "s".into());
        assert_eq!(l.direction(&m).unwrap().text, "0.5 s less time");
        assert_eq!(l.interval(&m).unwrap(), "0.4 s to 0.6 s less time");
    }

    /// A printed size as a number and its decimals: `2,170.5%` → (2170.5, 1).
    fn number(size: &str) -> (f64, usize) {
        let size = size.trim_end_matches(['%', '×']).replace(',', "");
        let decimals = size.split_once('.').map_or(0, |(_, d)| d.len());
        (size.parse().unwrap(), decimals)
    }

    /// Whether `size` prints `expected` at its own decimals.
    fn prints(size: &str, expected: f64) -> bool {
        let (shown, decimals) = number(size);
        (shown - expected).abs() <= 0.5 * 10f64.powi(-(decimals as i32)) * (1.0 + 1e-9)
    }

    /// The words of a change `c` of `column` by hand: (word, size) as a
    /// percent, a ratio of speeds, or the ratio of a `ratio` metric.
    fn oracle(column: &str, compare: Compare, c: f64) -> (String, f64) {
        let up = c > 0.0;
        let word = match column {
            "latency" => return ("as fast".into(), 1.0 / (1.0 + c)),
            "quick" => return ("as quick".into(), 1.0 / (1.0 + c)),
            "time" => ["more time", "less time"][usize::from(!up)],
            "tps" => ["faster", "slower"][usize::from(!up)],
            "cpu" => ["costlier", "cheaper"][usize::from(!up)],
            _ => ["higher", "lower"][usize::from(!up)],
        };
        match compare {
            Compare::Ratio => (format!("({word})"), 1.0 + c),
            _ => (word.into(), 100.0 * c.abs()),
        }
    }

    /// Seeded random columns of every wording, kinds of comparison and
    /// changes from −90% to +300%: each difference and each end of its
    /// interval reads as the hand-computed words say (a time in time or as
    /// 1 / (1 + change), a rate in its words), and no time is ever "X%
    /// faster".
    #[test]
    fn generated_changes_read_as_the_rule_says() {
        let l = labels();
        let mut next = crate::seeded::stream(0x2545_f491_4f6c_dd1d);
        let mut uniform = || (next() >> 11) as f64 / (1u64 << 53) as f64;
        let columns = ["time", "latency", "quick", "tps", "cpu", "other"];
        for i in 0..5_000 {
            let column = columns[i % columns.len()];
            let compare = [Compare::Relative, Compare::Slowdown, Compare::Ratio][i / 6 % 3];
            let change = |u: f64| math::powf(4.0, 2.0 * u - 1.0) * 1.0 - 1.0;
            let c = change(uniform()).clamp(-0.9, 3.0);
            if c.abs() < 0.01 {
                continue;
            }
            let (w1, w2) = (uniform() * 0.3, uniform() * 0.3);
            let ci = [(1.0 + c) * (1.0 - w1) - 1.0, (1.0 + c) * (1.0 + w2) - 1.0];
            let m = metric(column, compare, c, ci);
            let d = l.direction(&m).unwrap();
            let (word, size) = oracle(column, compare, c);
            assert_eq!(d.after, word, "{column} {compare:?} {c}: {}", d.text);
            assert!(prints(&d.size, size), "{column} {compare:?} {c}: {} for {size}", d.text);
            let time = ["time", "latency", "quick"].contains(&column);
            assert!(!(time && d.text.contains("% faster")), "{}", d.text);
            check_interval(&l.interval(&m).unwrap(), column, compare, ci);
        }
    }

    /// An interval in words against the words of its ends by hand: one
    /// word after both sizes (`0.8 to 4.0% faster`), or each end in its own
    /// words (`2.0% slower to 19.3% faster`).
    fn check_interval(text: &str, column: &str, compare: Compare, ci: [f64; 2]) {
        let ends = ci.map(|c| oracle(column, compare, c));
        let (a, b) = text.split_once(" to ").unwrap();
        // Both ends at one precision: `1.02 to 1.45×`, never `1.02 to 1.5×`.
        let precision = |end: &str| number(end.split(' ').next().unwrap()).1;
        assert_eq!(precision(a), precision(b), "{text}");
        if ends[0].0 == ends[1].0 {
            let word = &ends[0].0;
            let (b, after) = b.split_once(' ').unwrap();
            assert_eq!(after, word, "{text}");
            let (small, large) = if ends[0].1 <= ends[1].1 {
                (ends[0].1, ends[1].1)
            } else {
                (ends[1].1, ends[0].1)
            };
            assert!(prints(a, small) && prints(b, large), "{text}: {small} to {large}");
        } else {
            for (end, (word, size)) in [a, b].iter().zip(&ends) {
                if *end == "no change" {
                    assert!(ends.iter().any(|(_, s)| prints("0", *s)), "{text}");
                    continue;
                }
                let (shown, after) = end.split_once(' ').unwrap();
                let matches = after == word && prints(shown, *size);
                let other = ends.iter().any(|(w, s)| after == w && prints(shown, *s));
                assert!(matches || other, "{text}: {end} for {size} {word}");
            }
        }
    }
}
