//! The page's description for search engines and link previews
//! (`<meta name="description">`): the study's answer in at most 160
//! characters, in whole sentences when they fit, else cut at a word with
//! an ellipsis (docs/layout.md).

/// The most characters a description holds: what search engines show.
pub const LIMIT: usize = 160;

/// Whole sentences shorter than this leave room for the next one's words.
const FULL: usize = 100;

/// `text` in at most [`LIMIT`] characters: its leading whole sentences
/// that fit, if they hold [`FULL`] characters or more; else its first
/// words that fit with `…`. Whitespace runs
/// become one space. `None` for text without a word.
pub fn description(text: &str) -> Option<String> {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return None;
    }
    if text.chars().count() <= LIMIT {
        return Some(text);
    }
    let ends = sentence_ends(&text);
    let whole = ends.iter().rev().find(|&&e| text[..e].chars().count() <= LIMIT);
    if let Some(&end) = whole.filter(|&&e| text[..e].chars().count() >= FULL) {
        return Some(text[..end].to_string());
    }
    // No whole sentences fill it: words up to the limit, less one for the `…`.
    let mut out = String::new();
    for word in text.split(' ') {
        let next = if out.is_empty() { word.to_string() } else { format!("{out} {word}") };
        if next.chars().count() > LIMIT - 1 {
            break;
        }
        out = next;
    }
    let out = out.trim_end_matches([',', ';', ':', '(', '—', '–']).trim_end();
    Some(format!("{out}…"))
}

/// The byte offsets just after each sentence of `text`: a `.`, `!` or `?`
/// (and a closing quote or bracket) before a space and a capital letter or
/// a digit, or at the end.
fn sentence_ends(text: &str) -> Vec<usize> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut ends = Vec::new();
    for (i, &(at, c)) in chars.iter().enumerate() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let mut j = i + 1;
        while chars.get(j).is_some_and(|&(_, c)| matches!(c, ')' | '"' | '”' | '’')) {
            j += 1;
        }
        let end = chars.get(j).map_or(text.len(), |&(b, _)| b);
        let next = chars.get(j + 1).map(|&(_, c)| c);
        let space = chars.get(j).is_none_or(|&(_, c)| c == ' ');
        if space && next.is_none_or(|n| n.is_uppercase() || n.is_ascii_digit()) && at > 0 {
            ends.push(end);
        }
    }
    ends
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_sentences_that_fit() {
        let first = "Not at the top of the range, on one node.";
        let second = "At 32 processes LAMMPS ran 45.7 timesteps/s on Kubernetes, 8.8% faster than on bare metal; averaged over 2 to 32 processes, Kubernetes was 7.6% slower.";
        let text = format!("{first} {second}");
        // 41 + 1 + 150 = 192 characters: the first sentence, short, and
        // the second's words that fit.
        let out = description(&text).unwrap();
        assert!(out.starts_with(first) && out.ends_with(" 32…"), "{out}");
        assert_eq!(out.chars().count(), 155, "{out}");
        // Two sentences of 70 and 80 characters fit whole: 151.
        let (a, b) = (format!("{}.", "a".repeat(69)), format!("B{}.", "b".repeat(78)));
        let text = format!("{a} {b} Third sentence.");
        assert_eq!(description(&text), Some(format!("{a} {b}")));
        // "45.7" and "2.4%" are not ends of sentences.
        assert_eq!(sentence_ends(second), vec![second.len()]);
    }

    #[test]
    fn a_long_sentence_is_cut_at_a_word() {
        let text = "word ".repeat(60);
        let out = description(&text).unwrap();
        // 32 words of 4 letters and 31 spaces: 159 characters, then the ellipsis.
        assert_eq!(out.chars().count(), 160, "{out}");
        assert!(out.ends_with("word…"));
        assert_eq!(description("  short\n text "), Some("short text".into()));
        assert_eq!(description(" \n "), None);
    }

    #[test]
    fn never_over_the_limit() {
        for n in 0..400 {
            let text: String = (0..n).map(|i| if i % 7 == 6 { ". A" } else { "ab " }).collect();
            if let Some(d) = description(&text) {
                assert!(d.chars().count() <= LIMIT, "{n}: {d}");
            }
        }
    }
}
