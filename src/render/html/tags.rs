//! The tags of a template's raw text (`{% … %}` and `{{ … }}`), found without
//! Tera's parser: to refuse a template nested deeper than the parser's stack
//! can take before it is parsed, and to find the line of an include or a
//! macro call, which Tera's syntax tree does not keep. One pass, no recursion.

use crate::diagnostic::{Diagnostic, Diagnostics, Location};

/// Most blocks (`if`, `for`, `block`, `macro`, `filter`) one template may nest.
/// Tera's parser recurses for each, and overflows a 2 MB stack near 800.
pub const MAX_NESTING: usize = 100;

/// Most brackets one tag may nest; Tera overflows a 2 MB stack near 1,600.
pub const MAX_BRACKETS: usize = 100;

/// Most operators one tag may hold; Tera overflows a 2 MB stack near 6,400.
pub const MAX_OPERATORS: usize = 1000;

/// One tag of a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tag<'a> {
    /// Byte offset of its `{`.
    pub start: usize,
    /// True for `{% … %}`, false for `{{ … }}`.
    pub statement: bool,
    /// The text between the delimiters, whitespace control included.
    pub body: &'a str,
}

impl<'a> Tag<'a> {
    /// The first word of a statement (`if`, `include`, `endfor`, …).
    pub fn keyword(&self) -> &'a str {
        let body = self.body.trim_start_matches('-').trim_start();
        let end = body.find(|c: char| !c.is_ascii_alphanumeric() && c != '_').unwrap_or(body.len());
        &body[..end]
    }

    /// What follows the keyword, without leading whitespace.
    pub fn rest(&self) -> &'a str {
        let body = self.body.trim_start_matches('-').trim_start();
        body[self.keyword().len()..].trim_start()
    }
}

/// Every tag of `text` in order; `{# … #}` comments and `{% raw %}` sections
/// are skipped. An unclosed tag ends the list (Tera reports it).
pub fn tags(text: &str) -> Vec<Tag<'_>> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    let mut in_raw = false;
    while let Some(open) = find(bytes, at, b'{') {
        at = open + 1;
        let (close, statement): (&[u8], bool) = match bytes.get(open + 1) {
            Some(b'%') => (b"%}", true),
            Some(b'{') if !in_raw => (b"}}", false),
            Some(b'#') if !in_raw => {
                let Some(end) = memchr::memmem::find(&bytes[open + 2..], b"#}") else { break };
                at = open + 2 + end + 2;
                continue;
            }
            _ => continue,
        };
        let Some(end) = tag_end(bytes, open + 2, close) else { break };
        let tag = Tag { start: open, statement, body: &text[open + 2..end] };
        at = end + 2;
        match (in_raw, tag.keyword()) {
            (false, "raw") => in_raw = true,
            (true, "endraw") => in_raw = false,
            (true, _) => continue,
            _ => {}
        }
        found.push(tag);
    }
    found
}

fn find(bytes: &[u8], from: usize, byte: u8) -> Option<usize> {
    memchr::memchr(byte, bytes.get(from..)?).map(|i| i + from)
}

/// Where the tag that starts its body at `from` closes with `close`, string
/// literals skipped.
fn tag_end(bytes: &[u8], from: usize, close: &[u8]) -> Option<usize> {
    let mut i = from;
    while i + 1 < bytes.len() {
        match bytes[i] {
            quote @ (b'"' | b'\'' | b'`') => i = find(bytes, i + 1, quote)? + 1,
            _ if bytes[i..].starts_with(close) => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// How deeply a tag's body nests brackets, and how many operators it holds,
/// outside string literals.
fn complexity(body: &str) -> (usize, usize) {
    let (mut depth, mut deepest, mut operators) = (0usize, 0, 0);
    let mut quote = None;
    for word in body.split_inclusive(|c: char| !c.is_ascii_alphanumeric() && c != '_') {
        for c in word.chars() {
            match (quote, c) {
                (Some(q), _) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '"' | '\'' | '`') => quote = Some(c),
                (None, '(' | '[') => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                (None, ')' | ']') => depth = depth.saturating_sub(1),
                (None, '+' | '-' | '*' | '/' | '%' | '~' | '|' | '<' | '>' | '=' | '!') => {
                    operators += 1
                }
                _ => {}
            }
        }
        let word = word.trim_end_matches(|c: char| !c.is_ascii_alphanumeric() && c != '_');
        if quote.is_none() && matches!(word, "and" | "or" | "not" | "in" | "is") {
            operators += 1;
        }
    }
    (deepest, operators)
}

/// How deeply `text` nests its blocks; `Err` names the first tag past a limit.
pub fn check(path: &str, text: &str) -> Result<usize, Diagnostics> {
    let (mut depth, mut deepest) = (0usize, 0);
    let at = |tag: &Tag| Location::at_offset(path.as_ref(), text, tag.start);
    for tag in tags(text) {
        let (brackets, operators) = complexity(tag.body);
        let problem = if brackets > MAX_BRACKETS {
            Some(format!("nests {brackets} brackets; at most {MAX_BRACKETS}"))
        } else if operators > MAX_OPERATORS {
            Some(format!("holds {operators} operators; at most {MAX_OPERATORS}"))
        } else {
            None
        };
        if let Some(problem) = problem {
            return Err(Diagnostic::new(at(&tag), format!("template: this tag {problem}"))
                .hint("split the expression with `{% set %}`")
                .into());
        }
        match tag.keyword() {
            "if" | "for" | "block" | "macro" | "filter" if tag.statement => depth += 1,
            "endif" | "endfor" | "endblock" | "endmacro" | "endfilter" if tag.statement => {
                depth = depth.saturating_sub(1)
            }
            _ => {}
        }
        deepest = deepest.max(depth);
        if depth > MAX_NESTING {
            return Err(Diagnostic::new(
                at(&tag),
                format!("template: blocks nested more than {MAX_NESTING} deep"),
            )
            .hint("Tera would run out of stack; move the inner part into a macro or a partial")
            .into());
        }
    }
    Ok(deepest)
}

/// The line of the first tag at or after byte `from` for which `matches` holds
/// (0 when none does).
pub fn line_of(text: &str, from: usize, matches: impl Fn(&Tag) -> bool) -> usize {
    tags(text)
        .into_iter()
        .find(|t| t.start >= from && matches(t))
        .map_or(0, |t| text[..t.start].matches('\n').count() + 1)
}

/// Whether `body` names `name` as a quoted string.
pub fn quotes(body: &str, name: &str) -> bool {
    ['"', '\'', '`'].iter().any(|q| body.contains(&format!("{q}{name}{q}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_skip_comments_raw_sections_and_strings() {
        let text = "a {# {% if %} #} {% if x == \"%}\" %}{{ y }}{% raw %}{% for %}{% endraw %}";
        let found: Vec<_> = tags(text).iter().map(|t| (t.statement, t.keyword())).collect();
        assert_eq!(found, [(true, "if"), (false, "y"), (true, "raw"), (true, "endraw")]);
        assert_eq!(tags("{%- include 'x' -%}")[0].keyword(), "include");
    }

    #[test]
    fn deep_nesting_is_refused_before_parsing() {
        let deep = "{% if true %}".repeat(10_000) + &"{% endif %}".repeat(10_000);
        let err = check("t.html", &deep).unwrap_err().to_string();
        assert!(err.starts_with("t.html:1:1301: template: blocks nested more than 100"), "{err}");
        assert_eq!(check("t.html", "{% for a in b %}{% if c %}{% endif %}{% endfor %}"), Ok(2));
        let parens = format!("{{{{ {}1{} }}}}", "(".repeat(101), ")".repeat(101));
        assert!(check("t", &parens).unwrap_err().to_string().contains("nests 101 brackets"));
        let plus = format!("{{{{ 1{} }}}}", " + 1".repeat(1001));
        assert!(check("t", &plus).unwrap_err().to_string().contains("holds 1001 operators"));
        assert_eq!(complexity("x == 'a (+ b' and not y"), (0, 4));
    }

    #[test]
    fn lines_of_tags_are_found() {
        let text = "a\n{% include 'x.html' %}\n{% include \"y.html\" %}";
        assert_eq!(line_of(text, 0, |t| quotes(t.body, "y.html")), 3);
        assert_eq!(line_of(text, 0, |t| quotes(t.body, "z.html")), 0);
    }
}
