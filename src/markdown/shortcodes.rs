//! Content shortcodes: `{{ stat(name="…", field="…") }}` and `{{ caveats() }}`,
//! found in a page's Markdown with the exact span of every part. Content is
//! Markdown, not a template: a shortcode is a name and `key="value"` strings,
//! nothing else (no variables, loops, includes or environment). Inside code
//! spans and code blocks (but for ```` ```chart ```` directives, whose
//! captions may cite statistics) `{{` is text; elsewhere `\{{` writes a
//! literal `{{`, and `\{%` a literal `{%`. Where the code is comes from the
//! page's one parse ([`Code::of`] its events), not from a parse of its own.
use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Tag};

/// One `{{ name(key="value", ...) }}` in the Markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// From `{{` to `}}` inclusive.
    pub span: Range<usize>,
    /// The shortcode's name.
    pub name: String,
    /// Where the name is.
    pub name_span: Range<usize>,
    /// The arguments, in the order written.
    pub args: Vec<Arg>,
    /// Whether the call is inside a ```` ```chart ```` directive (TOML, not Markdown).
    pub in_directive: bool,
}

/// One `key="value"` argument of a [`Call`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    /// The key.
    pub key: String,
    /// Where the key is.
    pub key_span: Range<usize>,
    /// The value, its escapes resolved.
    pub value: String,
    /// Where the value is, quotes included.
    pub value_span: Range<usize>,
}

/// What the scan finds, in the order of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// A shortcode.
    Call(Call),
    /// The backslash of a `\{{` or `\{%`, to be dropped.
    Escape(usize),
}

/// A malformed shortcode: where, what is wrong, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The offending bytes.
    pub span: Range<usize>,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

/// How to write a shortcode, for hints.
const HOW: &str = "write a shortcode as {{ stat(name=\"...\", field=\"...\") }} or {{ caveats() }}; \
                   for a literal `{{` write `\\{{`";

/// Where a page's `{{` is text, and where its directives are: byte ranges
/// of the page, sorted by start and not overlapping.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Code {
    /// Code spans, and code blocks other than ```` ```chart ```` and
    /// ```` ```table ```` directives.
    pub literal: Vec<Range<usize>>,
    /// The ```` ```chart ```` and ```` ```table ```` directives.
    pub directives: Vec<Range<usize>>,
}

impl Code {
    /// The code of a page, from the events of its parse (with their byte ranges).
    pub fn of<'a, 'e: 'a>(events: impl IntoIterator<Item = &'a (Event<'e>, Range<usize>)>) -> Code {
        let mut code = Code::default();
        for (event, range) in events {
            match event {
                Event::Code(_) => code.literal.push(range.clone()),
                Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang)))
                    if matches!(lang.as_ref(), "chart" | "table" | "changes") =>
                {
                    code.directives.push(range.clone())
                }
                Event::Start(Tag::CodeBlock(_)) => code.literal.push(range.clone()),
                _ => {}
            }
        }
        code
    }
}

/// Every shortcode and escape of `text` outside its `code`, and every
/// malformed one.
pub fn scan(text: &str, code: &Code) -> (Vec<Item>, Vec<Problem>) {
    let (literal, directives) = (&code.literal, &code.directives);
    let (mut items, mut problems) = (Vec::new(), Vec::new());
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'{', &bytes[at..]).map(|i| i + at) {
        at = found + 1;
        let next = bytes.get(found + 1).copied();
        if !matches!(next, Some(b'{' | b'%')) || in_ranges(literal, found) {
            continue;
        }
        if found > 0 && bytes[found - 1] == b'\\' {
            items.push(Item::Escape(found - 1));
            at = found + 2;
            continue;
        }
        if next == Some(b'%') {
            problems.push(Problem {
                span: found..found + 2,
                message: "`{%` tags are not supported: content is Markdown, not a template".into(),
                hint: "loops, conditions and includes belong in templates/page.html; \
                       for a literal `{%` write `\\{%`"
                    .into(),
            });
            at = found + 2;
            continue;
        }
        let mut cursor = Cursor { text, at: found + 2 };
        match cursor.call(found) {
            Ok(mut call) => {
                at = call.span.end;
                call.in_directive = in_ranges(directives, found);
                items.push(Item::Call(call));
            }
            // Scan on right after the `{{`: a `{%` or `{{` inside a broken
            // call has its own problem.
            Err(problem) => problems.push(problem),
        }
    }
    (items, problems)
}

/// Whether `offset` is inside one of `ranges` (sorted by start, not overlapping).
fn in_ranges(ranges: &[Range<usize>], offset: usize) -> bool {
    let i = ranges.partition_point(|r| r.start <= offset);
    i > 0 && ranges[i - 1].contains(&offset)
}

/// A position in the text while one call is parsed.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl Cursor<'_> {
    /// The call whose `{{` is at `open`; the cursor is just past the `{{`.
    fn call(&mut self, open: usize) -> Result<Call, Problem> {
        self.skip_space();
        let name_span = self.ident();
        if name_span.is_empty() {
            let message = "expected a shortcode name after `{{`";
            return Err(self.problem(open..self.at.max(open + 2), message));
        }
        let name = self.text[name_span.clone()].to_string();
        self.skip_space();
        if !self.eat("(") {
            let message = format!("expected `(` after `{name}`");
            return Err(self.problem(self.here(), &message));
        }
        let args = self.args()?;
        self.skip_space();
        if !self.eat("}}") {
            return Err(self.problem(self.here(), "expected `}}` to close the shortcode"));
        }
        Ok(Call { span: open..self.at, name, name_span, args, in_directive: false })
    }

    /// The `key="value"` arguments up to and including the closing `)`.
    fn args(&mut self) -> Result<Vec<Arg>, Problem> {
        let mut args = Vec::new();
        loop {
            self.skip_space();
            if self.eat(")") {
                return Ok(args);
            }
            if !args.is_empty() && !self.eat(",") {
                return Err(self.problem(self.here(), "expected `,` or `)` after an argument"));
            }
            self.skip_space();
            if !args.is_empty() && self.eat(")") {
                return Ok(args);
            }
            let key_span = self.ident();
            if key_span.is_empty() {
                return Err(self.problem(self.here(), "expected an argument name such as `name`"));
            }
            self.skip_space();
            if !self.eat("=") {
                let key = &self.text[key_span.clone()];
                return Err(self.problem(self.here(), &format!("expected `=` after `{key}`")));
            }
            self.skip_space();
            let (value, value_span) = self.string()?;
            args.push(Arg {
                key: self.text[key_span.clone()].to_string(),
                key_span,
                value,
                value_span,
            });
        }
    }

    /// A string in double or single quotes; a backslash escapes the next character.
    fn string(&mut self) -> Result<(String, Range<usize>), Problem> {
        let start = self.at;
        let Some(quote) = self.rest().chars().next().filter(|c| matches!(c, '"' | '\'')) else {
            return Err(self.problem(self.here(), "expected a value in quotes, such as \"name\""));
        };
        let mut value = String::new();
        let mut chars = self.rest()[1..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => value.extend(chars.next().map(|(_, c)| c)),
                '\n' => break,
                c if c == quote => {
                    self.at = start + 1 + i + 1;
                    return Ok((value, start..self.at));
                }
                c => value.push(c),
            }
        }
        Err(self.problem(start..start + 1, "this quoted value is not closed on its line"))
    }

    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    /// The span of the character at the cursor (empty at the end).
    fn here(&self) -> Range<usize> {
        self.at..self.at + self.rest().chars().next().map_or(0, char::len_utf8)
    }

    fn skip_space(&mut self) {
        self.at += self.rest().len() - self.rest().trim_start().len();
    }

    fn eat(&mut self, token: &str) -> bool {
        let found = self.rest().starts_with(token);
        if found {
            self.at += token.len();
        }
        found
    }

    /// An identifier (`[A-Za-z_][A-Za-z0-9_]*`) at the cursor: its span, empty if none.
    fn ident(&mut self) -> Range<usize> {
        let start = self.at;
        let rest = self.rest().as_bytes();
        if rest.first().is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_') {
            let len = rest.iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
            self.at += len;
        }
        start..self.at
    }

    fn problem(&self, span: Range<usize>, message: &str) -> Problem {
        Problem { span, message: message.to_string(), hint: HOW.to_string() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pulldown_cmark::Parser;

    /// `text` scanned with the code of a parse of its own.
    fn scan(text: &str) -> (Vec<Item>, Vec<Problem>) {
        let events: Vec<_> =
            Parser::new_ext(text, crate::markdown::options()).into_offset_iter().collect();
        super::scan(text, &Code::of(&events))
    }

    fn calls(text: &str) -> Vec<Call> {
        let (items, problems) = scan(text);
        assert_eq!(problems, [], "{text}");
        items
            .into_iter()
            .filter_map(|i| match i {
                Item::Call(c) => Some(c),
                Item::Escape(_) => None,
            })
            .collect()
    }

    fn problem(text: &str) -> (Range<usize>, String) {
        let (_, problems) = scan(text);
        let first = problems.into_iter().next().expect("a problem");
        (first.span, first.message)
    }

    #[test]
    fn calls_and_arguments_carry_their_spans() {
        let text = "Up {{ stat(name=\"tp\", field='value') }}.";
        let [call] = &calls(text)[..] else { panic!() };
        assert_eq!(call.span, 3..39);
        assert_eq!(&text[call.span.clone()], "{{ stat(name=\"tp\", field='value') }}");
        assert_eq!((call.name.as_str(), call.name_span.clone()), ("stat", 6..10));
        assert_eq!(call.args[0].key_span, 11..15);
        assert_eq!((call.args[0].value.as_str(), call.args[0].value_span.clone()), ("tp", 16..20));
        assert_eq!(call.args[1].key, "field");
        assert_eq!(call.args[1].value, "value");
        assert_eq!(calls("{{caveats()}}")[0].args, []);
        assert_eq!(calls("{{ stat(\n  name = \"a\\\"b\",\n) }}")[0].args[0].value, "a\"b");
    }

    #[test]
    fn code_is_text_but_chart_directives_are_not() {
        assert_eq!(calls("`{{ x }}` and\n\n```\n{{ y }}\n```\n\n    {{ z }}\n"), []);
        let chart = "```chart\ncaption = \"{{ stat(name='a') }} atoms\"\n```\n";
        assert_eq!(calls(chart)[0].name, "stat");
        assert!(calls(chart)[0].in_directive);
        assert!(!calls("{{ stat(name='a') }}")[0].in_directive);
    }

    #[test]
    fn escapes_are_found_and_tags_are_refused() {
        let (items, problems) = scan("a \\{{ b }} \\{% c");
        assert_eq!(items, [Item::Escape(2), Item::Escape(11)]);
        assert_eq!(problems, []);
        assert_eq!(problem("x {% if a %}").0, 2..4);
        assert_eq!(scan("{ {# heading attributes #} }").1, []);
    }

    #[test]
    fn malformed_calls_are_located_where_they_break() {
        assert_eq!(problem("{{ }}"), (0..3, "expected a shortcode name after `{{`".into()));
        assert_eq!(problem("{{ stat }}").0, 8..9);
        assert_eq!(problem("{{ stat(name=\"x\" field=\"y\") }}").0, 17..18);
        assert_eq!(problem("{{ stat(name=x) }}").1, "expected a value in quotes, such as \"name\"");
        assert_eq!(problem("{{ stat(name=\"x) }}\nmore").0, 13..14);
        assert_eq!(problem("{{ stat(name=\"x\")").1, "expected `}}` to close the shortcode");
        assert_eq!(problem("{{ stat(name=\"x\") }").0, 18..19);
    }

    #[test]
    fn every_problem_is_reported_and_scanning_goes_on() {
        let (items, problems) = scan("{{ a }} {{ caveats() }} {% x");
        assert_eq!(problems.len(), 2);
        let (_, problems) = scan("Text {{ and {% if %} and {# #}");
        let messages: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages[1].starts_with("`{%` tags are not supported"), "{messages:?}");
        assert!(matches!(&items[..], [Item::Call(c)] if c.name == "caveats"));
    }
}
