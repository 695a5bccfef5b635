//! A comparison's difference in words: its size, the column's word for
//! its direction and whether it is negligible ([`Direction`]: `8.8% faster`),
//! and its interval (`6.1% to 11.5% faster`).

use super::labels::Labels;
use crate::analysis::MetricValue;
use crate::analysis::metrics::claim::Verdict;
use crate::config::Compare;

/// A difference in words: its size, its direction and whether it matters.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Direction {
    /// The size without a sign, as the metric shows it: `8.8%`, `1.09×`.
    pub size: String,
    /// The word of the direction: `faster`, `higher`; empty for no change.
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
        let [up, down] = self.words(&m.inputs.file, &m.inputs.column);
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
        let end = |v: f64| {
            let mut at = m.clone();
            (at.value, at.ci, at.significant) = (v, None, None);
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

/// The number in a size such as `8.8%` or `1.09×`.
fn magnitude(size: &str) -> f64 {
    size.trim_end_matches(['%', '×']).replace(',', "").parse().unwrap_or(0.0)
}
