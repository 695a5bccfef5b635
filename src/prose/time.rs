//! Whether a compared column holds a time, and the words a change of a
//! time takes so that a reader takes them literally: `53.9% less time`, or
//! where the column's words speak of speed, the ratio of speeds `2.17× as
//! fast` (1 / (1 − 0.539)), never `53.9% faster`, which a reader takes as
//! 1.54× the speed. A rate (`timesteps/s`) keeps its words: `8.8% faster`.

use Wording::{Speed, Time, Words};

/// How a change of a column is worded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wording {
    /// By the column's words for a higher and a lower value: a rate's
    /// (`8.8% faster` of a throughput), or a time's words that scale with
    /// the time itself (`12.0% cheaper` of a CPU time).
    Words([String; 2]),
    /// A time by its change in time: `53.9% less time`, `35.0% more time`.
    Time,
    /// A time whose words speak of speed, by the ratio of the speeds,
    /// baseline's time over candidate's: `2.17× as fast`, `0.74× as fast`;
    /// the adjective of the speed (`fast`).
    Speed(String),
}

/// Units of time, alone or over something (`ns/op`, `s/iter`).
const TIME_UNITS: &[&str] = &[
    "s",
    "sec",
    "secs",
    "second",
    "seconds",
    "ms",
    "msec",
    "msecs",
    "millisecond",
    "milliseconds",
    "µs",
    "μs",
    "us",
    "usec",
    "usecs",
    "microsecond",
    "microseconds",
    "ns",
    "nsec",
    "nsecs",
    "nanosecond",
    "nanoseconds",
    "ps",
    "min",
    "mins",
    "minute",
    "minutes",
    "h",
    "hr",
    "hrs",
    "hour",
    "hours",
    "day",
    "days",
];

/// Comparatives of speed, each with its adjective; `slower` last, the one
/// of a higher time.
const SPEED_WORDS: &[(&str, &str)] =
    &[("faster", "fast"), ("quicker", "quick"), ("speedier", "speedy"), ("slower", "slow")];

/// Whether `unit` is a time: a unit of time (`s`, `ms`, `µs`, `min`, `h`…),
/// alone or per something (`ns/op`); `timesteps/s` is a rate, not a time.
pub fn is_time_unit(unit: &str) -> bool {
    let head = unit.split('/').next().unwrap_or_default().trim();
    TIME_UNITS.contains(&head) || TIME_UNITS.contains(&head.to_lowercase().as_str())
}

/// The adjective of a comparative of speed: `faster` → `fast`.
fn speed(word: &str) -> Option<&'static str> {
    let word = word.trim().to_lowercase();
    SPEED_WORDS.iter().find(|(w, _)| *w == word).map(|(_, adjective)| *adjective)
}

/// How a change of a column with `unit` and words `higher` and `lower`
/// (as its labels set them) is worded. The column is a time when its unit
/// is one, or when its words say a lower value is faster (`lower =
/// "faster"`, `higher = "slower"`). A time is worded by the ratio of speeds
/// when a word of speed is set, by its own words when others are set
/// (`cheaper`, `shorter`), else by its change in time; any other column by
/// its words, `higher` and `lower` by default.
pub fn wording(unit: Option<&str>, higher: Option<&str>, lower: Option<&str>) -> Wording {
    let lower_is_faster = lower.and_then(speed).is_some_and(|a| a != "slow")
        || higher.and_then(speed) == Some("slow");
    let time = unit.is_some_and(is_time_unit) || lower_is_faster;
    let words = || [higher.unwrap_or("higher").to_string(), lower.unwrap_or("lower").to_string()];
    if !time {
        return Words(words());
    }
    if higher.and_then(speed).is_some() || lower.and_then(speed).is_some() {
        let fast = [lower, higher].into_iter().flatten().filter_map(speed).find(|a| *a != "slow");
        return Speed(fast.unwrap_or("fast").to_string());
    }
    if higher.is_some() || lower.is_some() { Words(words()) } else { Time }
}

/// The ratio of speeds, baseline's time over candidate's, of a change in
/// time `change` (candidate / baseline − 1): 1 / (1 + change); `None`
/// where it is undefined (a time that is not positive).
pub fn speed_ratio(change: f64) -> Option<f64> {
    let ratio = 1.0 / (1.0 + change);
    (1.0 + change > 0.0 && ratio.is_finite()).then_some(ratio)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule by hand: units of time and words of speed make a time; a
    /// rate keeps its words.
    #[test]
    fn times_and_rates_are_told_apart() {
        let fast = || Speed("fast".into());
        assert_eq!(wording(Some("s"), None, None), Time);
        assert_eq!(wording(Some("ns/op"), None, None), Time);
        assert_eq!(wording(Some("µs"), Some("slower"), Some("faster")), fast());
        assert_eq!(wording(None, None, Some("faster")), fast());
        assert_eq!(wording(None, Some("slower"), None), fast());
        assert_eq!(wording(Some("min"), None, Some("Quicker")), Speed("quick".into()));
        // A time unit wins over words of a rate: its speed is still 1 / time.
        assert_eq!(wording(Some("s"), Some("faster"), Some("slower")), fast());
        let words = |h: &str, l: &str| Words([h.to_string(), l.to_string()]);
        assert_eq!(
            wording(Some("s"), Some("costlier"), Some("cheaper")),
            words("costlier", "cheaper")
        );
        assert_eq!(
            wording(Some("timesteps/s"), Some("faster"), Some("slower")),
            words("faster", "slower")
        );
        assert_eq!(wording(Some("MB/s"), None, None), words("higher", "lower"));
        assert_eq!(wording(None, None, None), words("higher", "lower"));
        assert_eq!(wording(Some("processes"), None, None), words("higher", "lower"));
    }

    /// The ratio of speeds by hand: 53.9% less time is 1 / 0.461 = 2.17×.
    #[test]
    fn speed_ratios_invert_the_time() {
        assert!((speed_ratio(-0.539).unwrap() - 2.169_197).abs() < 1e-6);
        assert!((speed_ratio(0.35).unwrap() - 0.740_741).abs() < 1e-6);
        assert_eq!(speed_ratio(0.0), Some(1.0));
        assert_eq!(speed_ratio(-1.0), None);
        assert_eq!(speed_ratio(-1.5), None);
    }
}
