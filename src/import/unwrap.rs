//! Output as the tools that captured it wrapped it: plain text, or a JSON or
//! YAML document whose strings hold the program's lines (the Kubernetes
//! Metrics Operator's form). Either way the importers read lines, each with
//! the line of the file it came from, so that a refusal points into the file.

use std::path::Path;

use serde::de::IgnoredAny;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::Marker;

/// One line of a program's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The text, without its line end (JSON and YAML escapes decoded).
    pub text: String,
    /// The 1-based line of the file where it is (for a wrapped line: where its string starts).
    pub at: usize,
}

/// How the output was wrapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrapping {
    /// Plain text.
    Plain,
    /// A JSON document; its strings are the lines.
    Json,
    /// A YAML document; its scalar values are the lines.
    Yaml,
}

/// The lines of `text` (the file at `path`), unwrapped from JSON or YAML
/// when the file is such a document. A JSON document is recognised by its
/// first character (`{` or `[`) and a YAML one by its extension (`.yaml`,
/// `.yml`) or a leading `---`; a document that does not parse whole (a
/// truncated capture) is read line by line, each line that is a quoted
/// string decoded.
pub fn lines(path: &Path, text: &str) -> (Wrapping, Vec<Line>) {
    let start = text.trim_start();
    if start.starts_with(['{', '[']) {
        if serde_json::from_str::<IgnoredAny>(text).is_ok() {
            return (Wrapping::Json, json_strings(text));
        }
        return (Wrapping::Plain, quoted_lines(text));
    }
    let yaml_name = path.extension().is_some_and(|e| e == "yaml" || e == "yml");
    if (yaml_name || start.starts_with("---") || start.starts_with("%YAML"))
        && let Some(lines) = yaml_scalars(text)
    {
        return (Wrapping::Yaml, lines);
    }
    let plain = text.lines().enumerate().map(|(i, l)| Line { text: l.to_string(), at: i + 1 });
    (Wrapping::Plain, plain.collect())
}

/// Nodes that a JSON capture's metadata gives for the whole file: the
/// `pods` of a Kubernetes Metrics Operator document (one pod per node),
/// when every `pods` key of the document gives the same count.
pub fn pods(text: &str) -> Option<u64> {
    if !text.trim_start().starts_with(['{', '[']) {
        return None;
    }
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let (mut stack, mut found) = (vec![&value], None);
    while let Some(node) = stack.pop() {
        match node {
            serde_json::Value::Object(map) => {
                if let Some(n) = map.get("pods").and_then(serde_json::Value::as_u64) {
                    if found.is_some_and(|f| f != n) {
                        return None;
                    }
                    found = Some(n);
                }
                stack.extend(map.values());
            }
            serde_json::Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    found.filter(|n| *n > 0)
}

/// Split a decoded string into lines, all at `at`.
fn push_split(out: &mut Vec<Line>, value: &str, at: usize) {
    out.extend(value.lines().map(|l| Line { text: l.to_string(), at }));
}

/// Every string value of the valid JSON document `text`, in document order
/// (object keys left out). serde_json gives no positions, so the literals are
/// found here: in valid JSON every `"` outside a string opens one, and each
/// literal is decoded by serde_json.
fn json_strings(text: &str) -> Vec<Line> {
    let bytes = text.as_bytes();
    let (mut out, mut line, mut i) = (Vec::new(), 1, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => line += 1,
            b'"' => {
                let end = string_end(bytes, i);
                let after = text[end..].trim_start();
                if !after.starts_with(':')
                    && let Ok(value) = serde_json::from_str::<String>(&text[i..end])
                {
                    push_split(&mut out, &value, line);
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// The byte just past the closing quote of the JSON string opening at `open`.
fn string_end(bytes: &[u8], open: usize) -> usize {
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Lines of a document that did not parse whole: a line that is a JSON
/// string (with a trailing comma, or as the value of a key) is decoded; any
/// other line is kept as it is.
fn quoted_lines(text: &str) -> Vec<Line> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let trimmed = raw.trim().trim_end_matches(',');
        let literal = match trimmed.find("\": \"") {
            Some(colon) if trimmed.starts_with('"') => &trimmed[colon + 3..],
            _ => trimmed,
        };
        match serde_json::from_str::<String>(literal) {
            Ok(value) if literal.len() >= 2 && literal.starts_with('"') => {
                push_split(&mut out, &value, i + 1);
            }
            _ => out.push(Line { text: raw.to_string(), at: i + 1 }),
        }
    }
    out
}

/// Every scalar value of the YAML document `text` (mapping keys left out),
/// in document order, or `None` when it is not YAML. The event parser keeps
/// its state on the heap (no recursion, whatever the nesting) and does not
/// expand aliases.
fn yaml_scalars(text: &str) -> Option<Vec<Line>> {
    // Event by event: `Parser::load` recurses once per nesting level.
    let mut receiver = Scalars::default();
    let mut parser = Parser::new_from_str(text);
    loop {
        let (event, mark) = parser.next_token().ok()?;
        if matches!(event, Event::StreamEnd) {
            return Some(receiver.lines);
        }
        receiver.on_event(event, mark);
    }
}

/// Collects the scalar values of a YAML event stream.
#[derive(Default)]
struct Scalars {
    lines: Vec<Line>,
    /// Per open container: `Some(expecting a key)` for a mapping, `None` for a sequence.
    stack: Vec<Option<bool>>,
}

impl Scalars {
    /// Whether the next node is a mapping's key; the mapping then expects the other half.
    fn is_key(&mut self) -> bool {
        match self.stack.last_mut() {
            Some(Some(expect_key)) => {
                let key = *expect_key;
                *expect_key = !key;
                key
            }
            _ => false,
        }
    }
}

impl MarkedEventReceiver for Scalars {
    fn on_event(&mut self, event: Event, mark: Marker) {
        match event {
            Event::Scalar(value, ..) if !self.is_key() => {
                push_split(&mut self.lines, &value, mark.line());
            }
            Event::Alias(_) => {
                self.is_key();
            }
            Event::SequenceStart(..) => {
                self.is_key();
                self.stack.push(None);
            }
            Event::MappingStart(..) => {
                self.is_key();
                self.stack.push(Some(true));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                self.stack.pop();
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[Line]) -> Vec<(&str, usize)> {
        lines.iter().map(|l| (l.text.as_str(), l.at)).collect()
    }

    #[test]
    fn json_strings_are_lines_at_their_line() {
        let doc = "[\n  {\"data\": [\n    \"Loop time of 1 on 2 procs\",\n    \"a\\tb \\\"q\\\"\\nsecond\"\n  ],\n  \"n\": 3, \"k\": \"v\"}\n]\n";
        let (wrapping, got) = super::lines(Path::new("x.json"), doc);
        assert_eq!(wrapping, Wrapping::Json);
        assert_eq!(
            texts(&got),
            [("Loop time of 1 on 2 procs", 3), ("a\tb \"q\"", 4), ("second", 4), ("v", 6)]
        );
    }

    #[test]
    fn pods_are_the_nodes_of_a_capture_when_they_agree() {
        let doc = r#"{"data": {"data": ["x"], "metadata": {"pods": 128}, "spec": {"spec": {"pods": 128}}}}"#;
        assert_eq!(pods(doc), Some(128));
        assert_eq!(pods(r#"[{"pods": 2}, {"pods": 4}]"#), None);
        assert_eq!(pods(r#"{"pods": 0}"#), None);
        assert_eq!(pods("pods: 3"), None);
    }

    #[test]
    fn truncated_json_is_read_line_by_line() {
        let doc = "{\"data\": [\n  \"Pair    | 1 | 2\",\n  \"Loop time of 1\",\n  \"unterminated";
        let (wrapping, got) = super::lines(Path::new("x.json"), doc);
        assert_eq!(wrapping, Wrapping::Plain);
        assert_eq!(texts(&got)[1..3], [("Pair    | 1 | 2", 2), ("Loop time of 1", 3)]);
        assert_eq!(got[3].text, "  \"unterminated");
    }

    #[test]
    fn yaml_values_are_lines_and_keys_are_not() {
        let doc = "---\ndata:\n  - \"LAMMPS (29 Sep 2021)\"\n  - Loop time of 6.5 on 4 procs\n  - key: value\nlog: |\n  first\n  second\n";
        let (wrapping, got) = super::lines(Path::new("x.txt"), doc);
        assert_eq!(wrapping, Wrapping::Yaml);
        let texts: Vec<&str> = got.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            ["LAMMPS (29 Sep 2021)", "Loop time of 6.5 on 4 procs", "value", "first", "second"]
        );
        assert_eq!(got[1].at, 4);
    }

    #[test]
    fn plain_text_and_hostile_documents() {
        let (wrapping, got) = super::lines(Path::new("x.out"), "a\r\nb\n");
        assert_eq!((wrapping, texts(&got)), (Wrapping::Plain, vec![("a", 1), ("b", 2)]));
        // Nested past serde_json's recursion limit: not JSON, read as text, no overflow.
        let deep = "[".repeat(100_000);
        assert_eq!(super::lines(Path::new("x.json"), &deep).0, Wrapping::Plain);
        let deep_yaml = format!("---\n{}", "[".repeat(100_000));
        assert_eq!(super::lines(Path::new("x.yaml"), &deep_yaml).0, Wrapping::Plain);
        let deep_block = format!("---\n{}x\n", "- ".repeat(100_000));
        assert_eq!(super::lines(Path::new("x.yaml"), &deep_block).1.len(), 1);
        // Aliases are not expanded.
        let laughs = "---\na: &a [\"x\", \"x\"]\nb: [*a, *a, *a]\nc: [*a, *a]\n";
        assert_eq!(super::lines(Path::new("x.yaml"), laughs).1.len(), 2);
    }
}
