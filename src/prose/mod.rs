//! The sentences of the study: every number, finding and caveat of the
//! analysis in words, written here once for the page, the paper and
//! stats.json, every number through [`crate::format`]: a metric's wording
//! ([`metric`]), the names of columns and configurations ([`labels`]), a
//! difference in words ([`direction`]), a change of a time in words
//! ([`time`]), the caveats ([`caveats`]), the few a reader sees
//! ([`limitations`]), a headline one run carries ([`carried`]) and runs
//! whose sources differ ([`sources`]). The analysis writes no sentence;
//! this module computes no statistic.

pub mod carried;
pub mod caveats;
pub mod direction;
pub mod facts;
pub mod headings;
pub mod history;
pub mod history_cite;
pub mod labels;
pub mod limitations;
pub mod metric;
pub mod provenance;
pub mod snippet;
pub mod sources;
pub mod time;

/// `a`, `a and b`, `a, b and c`.
pub fn join(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// `text` with its first letter in upper case: `compressor` → `Compressor`.
pub fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// `text` ended as a sentence, so that generated text can follow it: a
/// full stop after it unless it ends in `.`, `!`, `?` or `…` (before any
/// closing quote or bracket). An empty text stays empty.
pub fn sentence(text: &str) -> String {
    let text = text.trim_end();
    let last = text.trim_end_matches([')', ']', '"', '”', '’', '\'']).chars().last();
    match last {
        None => String::new(),
        Some('.' | '!' | '?' | '…') => text.to_string(),
        Some(_) => format!("{text}."),
    }
}

/// Whether `text`, a caption written by the author, needs a full stop before
/// generated text follows it: it has words and [`sentence`] would add one.
pub fn needs_stop(text: &str) -> bool {
    !text.trim().is_empty() && sentence(text) != text.trim_end()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caption_ends_as_a_sentence() {
        assert_eq!(sentence("Time against gzip"), "Time against gzip.");
        assert_eq!(sentence("Done. "), "Done.");
        assert_eq!(sentence("Is it (really)?"), "Is it (really)?");
        assert_eq!(sentence("See (Table 2)"), "See (Table 2).");
        assert_eq!(sentence(""), "");
        assert!(needs_stop("Every run") && !needs_stop("Every run.") && !needs_stop(" "));
    }
}
