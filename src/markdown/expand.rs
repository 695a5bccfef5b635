//! A page's shortcodes resolved in the events of its one parse: a
//! statistic becomes text where its call was, `caveats()` the [`CAVEATS`]
//! marker in place of its paragraph (which the warning callout replaces
//! once the computed tables, whose caveats it lists, exist), and `\{{`
//! loses its backslash. The
//! parse is of the file's own text, so every offset of the document is one
//! of the file, and every later location (a chart directive, a link, a
//! Typst error) names its line and column there.
//!
//! A shortcode's value is never parsed as Markdown: a statistic is text
//! (in a chart or table directive, text of its TOML), and the callout is
//! made of blocks directly. So a page needs no second parse. What the one
//! parse cannot give is refused at the shortcode: a call whose own
//! characters the parse read as Markdown across its end (an argument such
//! as `"a*b"` that closes an emphasis begun before the call: write `\*`) and
//! a call where there is no text (a link's address, a formula). A
//! `caveats()` anywhere but a paragraph of its own is nothing, and returned
//! (see [`Expanded`]) to be refused once it is known that there are caveats.

use std::collections::{BTreeMap, VecDeque};
use std::ops::Range;
use std::path::Path;

use pulldown_cmark::{Event, Tag, TagEnd};

use super::shortcodes::{self, Arg, Call, Code, Item};
use crate::diagnostic::{Diagnostic, Diagnostics, Location, list, nearest};

/// Fields of every metric, formatted, by metric name.
pub type Fields = BTreeMap<String, BTreeMap<&'static str, String>>;

/// A parsed event and its byte range in the page.
pub type Located<'a> = (Event<'a>, Range<usize>);

/// The shortcodes content may use, with the arguments each takes; the
/// computed facts' are [`super::facts::SHORTCODES`].
const SHORTCODES: [(&str, &[&str]); 2] =
    [("caveats", &[]), ("stat", &["name", "field", "candidate", "at"])];

/// Every shortcode with the arguments it takes.
fn shortcodes() -> impl Iterator<Item = (&'static str, &'static [&'static str])> + Clone {
    SHORTCODES.into_iter().chain(super::facts::SHORTCODES)
}

/// What the shortcodes of a page stand for.
#[derive(Debug, Clone, Copy)]
pub struct Shortcodes<'a> {
    /// Every metric's fields, formatted, by metric name (`stat`).
    pub fields: &'a Fields,
    /// Whether the text may hold the reader's caveats (a page): a
    /// `caveats()` alone in its paragraph leaves the [`CAVEATS`] marker in
    /// its place. Else (the answer of book.toml) every `caveats()` is nothing.
    pub caveats: bool,
    /// What the computed facts (`peak`, `every`, `count`, `range`) are
    /// computed from; without it, they are refused.
    pub facts: Option<super::facts::Facts<'a>>,
}

/// What a `caveats()` alone in its paragraph leaves in the page's events:
/// an HTML block of this comment, located at the call, which the warning
/// callout of the reader's caveats replaces (nothing without caveats) once
/// they are known: after the parse, as they include the computed tables'.
pub const CAVEATS: &str = "<!-- report: the reader's caveats -->\n";

/// A page's events with its shortcodes resolved, where a `caveats()`
/// stands elsewhere than alone in a paragraph (left as nothing: an error
/// when there are caveats), and the numbers typed into its prose that a
/// statistic computes (and, in the answer, percentages and ratios none
/// computes): warnings ([`super::typed`]).
pub type Expanded<'a> = (Vec<Located<'a>>, Vec<Range<usize>>, Vec<super::typed::Flag>);

/// A page's text, to locate the byte offsets of its document: the one
/// parse is of the file's own text (front matter blanked out, lines kept),
/// so an offset of the document is an offset of the file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceMap {
    /// The file's text (front matter blanked out, lines kept).
    source: String,
}

impl SourceMap {
    /// The map of the page whose text is `text`.
    pub fn identity(text: &str) -> SourceMap {
        SourceMap { source: text.to_string() }
    }

    /// The location in the file `path` of byte `offset` of the page.
    pub fn locate(&self, path: &Path, offset: usize) -> Location {
        Location::at_offset(path, &self.source, offset)
    }
}

/// `events`, the parse of `text` (the file `path`), with every shortcode
/// resolved: `stat` by a metric's field, `caveats` by the [`CAVEATS`]
/// marker; a `\{{` keeps its `{{` only. Every problem is reported at its
/// own line and column.
pub fn expand<'a>(
    path: &Path,
    text: &'a str,
    events: Vec<Located<'a>>,
    shortcodes: Shortcodes,
) -> Result<Expanded<'a>, Diagnostics> {
    let (items, problems) = shortcodes::scan(text, &Code::of(&events));
    let at = |span: &Range<usize>| Location::at_offset(path, text, span.start);
    let mut errors = Diagnostics::default();
    for problem in problems {
        errors.push(Diagnostic::new(at(&problem.span), problem.message).hint(problem.hint));
    }
    let mut edits = Vec::with_capacity(items.len());
    for item in &items {
        let (span, with) = match item {
            Item::Escape(backslash) => (*backslash..backslash + 1, With::Text(String::new())),
            Item::Call(call) => match resolve(call, shortcodes) {
                Ok(Some(value)) => (call.span.clone(), With::Text(value)),
                // In a directive the callout has no paragraph of its own.
                Ok(None) if call.in_directive => {
                    (call.span.clone(), With::Elsewhere(call.span.clone()))
                }
                Ok(None) => (call.span.clone(), With::Callout),
                Err((span, message, hint)) => {
                    errors.push(Diagnostic::new(at(&span), message).hint(hint));
                    continue;
                }
            },
        };
        edits.push(Edit { span, call: matches!(item, Item::Call(_)), with });
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let typed = typed_numbers(text, &events, &items, shortcodes);
    let (caveats, out, problems, elsewhere) = (shortcodes.caveats, Vec::new(), vec![], vec![]);
    let mut splice = Splice { text, caveats, out, problems, elsewhere };
    splice.run(events, edits);
    for (span, message, hint) in splice.problems {
        errors.push(Diagnostic::new(at(&span), message).hint(hint));
    }
    let elsewhere = if caveats { splice.elsewhere } else { Vec::new() };
    errors.into_result((splice.out, elsewhere, typed))
}

/// The numbers typed into the prose of `text` that equal a statistic of
/// `shortcodes`; in the answer (no caveats), also the percentages and
/// ratios that none equals.
fn typed_numbers(
    text: &str,
    events: &[Located<'_>],
    items: &[Item],
    shortcodes: Shortcodes,
) -> Vec<super::typed::Flag> {
    use super::typed;
    let calls: Vec<Range<usize>> = items
        .iter()
        .filter_map(|i| match i {
            Item::Call(call) => Some(call.span.clone()),
            Item::Escape(_) => None,
        })
        .collect();
    let printed = typed::printed(shortcodes.fields);
    let mut flags = Vec::new();
    for range in typed::prose(text, events, &calls) {
        flags.extend(typed::check(text, range.clone(), &printed));
        if !shortcodes.caveats {
            for number in typed::unbacked(text, range.clone(), &printed) {
                let span = number.span;
                let message = format!(
                    "`{}` in the answer is a figure no computation backs",
                    &text[span.clone()]
                );
                let hint = "cite the statistic it stands for, such as {{ stat(name=\"...\", field=\"words\") }}, \
                            or a metric of book.toml that computes it";
                flags.push((span, message, hint.to_string()));
            }
        }
    }
    flags.sort_by_key(|(span, ..)| span.start);
    flags
}

/// One change a shortcode makes to the page: its bytes `span` give way to
/// `with`.
struct Edit {
    span: Range<usize>,
    /// Whether it is a call (else the backslash of an escape).
    call: bool,
    with: With,
}

/// What a shortcode's bytes give way to.
enum With {
    /// Text (in HTML, escaped for it).
    Text(String),
    /// The caveats' callout, in place of the paragraph of the call.
    Callout,
    /// Nothing: a `caveats()` that stands at this span, elsewhere than
    /// alone in a paragraph.
    Elsewhere(Range<usize>),
}

/// The events of a page being spliced with its shortcodes' values.
struct Splice<'a> {
    text: &'a str,
    /// Whether a `caveats()` alone in its paragraph leaves the marker.
    caveats: bool,
    out: Vec<Located<'a>>,
    problems: Vec<Problem>,
    /// The spans of the `caveats()` that stand elsewhere.
    elsewhere: Vec<Range<usize>>,
}

/// An edit under way: the parse's leaves it covers are dropped, and the
/// elements opened and closed among them counted (`depth`), which must
/// balance.
struct Open {
    edit: Edit,
    depth: usize,
}

impl<'a> Splice<'a> {
    /// Splice `edits` (in the order of the text, not overlapping) into `events`.
    fn run(&mut self, events: Vec<Located<'a>>, edits: Vec<Edit>) {
        let mut queue: VecDeque<Located<'a>> = events.into();
        let mut edits = edits.into_iter().peekable();
        let mut open: Option<Open> = None;
        while let Some((event, range)) = queue.pop_front() {
            if let Some(mut under_way) = open.take() {
                if let Some(rest) = self.within(&mut under_way, event, range) {
                    queue.push_front(rest);
                } else {
                    open = Some(under_way);
                }
                continue;
            }
            let leaf = !matches!(event, Event::Start(_) | Event::End(_));
            let Some(edit) = edits.next_if(|e| leaf && range.end > e.span.start) else {
                self.out.push((event, range));
                continue;
            };
            if range.start >= edit.span.end {
                // A backslash the parse dropped, or a call in no text.
                if edit.call {
                    self.problem(&edit.span, "a shortcode stands in text only");
                }
                queue.push_front((event, range));
                continue;
            }
            let (rest, open_now) = self.begin(edit, event, range, &mut queue);
            if let Some(rest) = rest {
                queue.push_front(rest);
            }
            open = open_now;
        }
        if let Some(edit) = open.map(|o| o.edit).or_else(|| edits.find(|e| e.call)) {
            self.problem(&edit.span, "a shortcode stands in text only");
        }
    }

    /// Start `edit` at the leaf `event` (at `range`), which reaches past its
    /// start: its text before the edit, the edit's value, and its text after
    /// it (to be read again) or the edit left open.
    fn begin(
        &mut self,
        edit: Edit,
        event: Event<'a>,
        range: Range<usize>,
        queue: &mut VecDeque<Located<'a>>,
    ) -> (Option<Located<'a>>, Option<Open>) {
        let (start, end) = (edit.span.start, edit.span.end);
        let before = range.start..start.max(range.start);
        if !self.is_text(&event, &range) {
            self.problem(&edit.span, "a shortcode stands in text only");
            return (None, None);
        }
        if let With::Callout = edit.with {
            let alone = self.text[before.clone()].trim().is_empty()
                && range.end >= end
                && self.text[end..range.end].trim().is_empty()
                && matches!(self.out.last(), Some((Event::Start(Tag::Paragraph), _)))
                && matches!(queue.front(), Some((Event::End(TagEnd::Paragraph), _)));
            if alone {
                self.out.pop();
                queue.pop_front();
                self.marker(start..end);
                return (None, None);
            }
            // Nothing, and an error if there turn out to be caveats.
            self.elsewhere.push(edit.span.clone());
        }
        if let With::Elsewhere(span) = &edit.with {
            self.elsewhere.push(span.clone());
        }
        if !before.is_empty() {
            self.out.push((piece(&event, &self.text[before.clone()]), before));
        }
        if let With::Text(value) = &edit.with
            && !value.is_empty()
        {
            self.out.push((piece(&event, &escaped(&event, value)), edit.span.clone()));
        }
        if range.end > end {
            return (Some((piece(&event, &self.text[end..range.end]), end..range.end)), None);
        }
        let open = (range.end < end).then_some(Open { edit, depth: 0 });
        (None, open)
    }

    /// Take in `event` (at `range`) while `open` is under way: dropped if
    /// the edit covers it; else the edit ends, and what is left of the event
    /// is given back to be read again.
    fn within(
        &mut self,
        open: &mut Open,
        event: Event<'a>,
        range: Range<usize>,
    ) -> Option<Located<'a>> {
        let end = open.edit.span.end;
        match event {
            Event::Start(_) => open.depth += 1,
            Event::End(_) if open.depth > 0 => open.depth -= 1,
            Event::End(_) => {
                self.unbalanced(&open.edit.span);
                open.depth = usize::MAX / 2;
            }
            _ if range.end <= end => {}
            event => {
                if open.depth != 0 {
                    self.unbalanced(&open.edit.span);
                }
                if range.start >= end {
                    return Some((event, range));
                }
                if !self.is_text(&event, &range) {
                    self.problem(&open.edit.span, "a shortcode stands in text only");
                    return Some((Event::Text("".into()), end..end));
                }
                return Some((piece(&event, &self.text[end..range.end]), end..range.end));
            }
        }
        None
    }

    /// Whether `event` is text, HTML or a directive's body, exactly the
    /// bytes `range` of the page, so that it can be cut.
    fn is_text(&self, event: &Event<'_>, range: &Range<usize>) -> bool {
        match event {
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => {
                self.text.get(range.clone()) == Some(t.as_ref())
            }
            _ => false,
        }
    }

    /// The [`CAVEATS`] marker, as the events of an HTML block of it, at
    /// `span`; nothing where the text holds no caveats.
    fn marker(&mut self, span: Range<usize>) {
        if !self.caveats {
            return;
        }
        let at = |event| (event, span.clone());
        self.out.push(at(Event::Start(Tag::HtmlBlock)));
        self.out.push(at(Event::Html(CAVEATS.into())));
        self.out.push(at(Event::End(TagEnd::HtmlBlock)));
    }

    fn problem(&mut self, span: &Range<usize>, message: &str) {
        let hint = "a shortcode may stand in prose, a heading, a table cell, HTML or a chart's \
                    TOML, not in a link's address, a formula or code";
        self.problems.push((span.clone(), message.to_string(), hint.to_string()));
    }

    fn unbalanced(&mut self, span: &Range<usize>) {
        let message = "this shortcode's arguments are read as Markdown across its end";
        let hint = "a `*`, `_`, `` ` ``, `[` or `|` in an argument can pair with one outside \
                    the shortcode: write it with a backslash, such as `\\*`";
        self.problems.push((span.clone(), message.into(), hint.into()));
    }
}

/// An event of the kind of `event` (text, HTML block or inline HTML) holding `text`.
fn piece<'a>(event: &Event<'_>, text: &str) -> Event<'a> {
    let text = pulldown_cmark::CowStr::from(text.to_string());
    match event {
        Event::Html(_) => Event::Html(text),
        Event::InlineHtml(_) => Event::InlineHtml(text),
        _ => Event::Text(text),
    }
}

/// A statistic's `value` as the content of `event`: in HTML, escaped.
fn escaped(event: &Event<'_>, value: &str) -> String {
    match event {
        Event::Html(_) | Event::InlineHtml(_) => crate::charts::svg::escape(value),
        _ => value.to_string(),
    }
}

/// `text` with every ASCII punctuation character backslash-escaped, so that
/// Markdown shows it as written: no emphasis, link, code or HTML.
pub fn escape_markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for c in text.chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A located problem: span, message, hint.
type Problem = (Range<usize>, String, String);

/// The text a call stands for; `None` for the caveats' callout.
fn resolve(call: &Call, shortcodes: Shortcodes) -> Result<Option<String>, Problem> {
    let Some((_, keys)) = self::shortcodes().find(|(name, _)| *name == call.name) else {
        let names = self::shortcodes().map(|(name, _)| name);
        let hint = match nearest(&call.name, names.clone()) {
            Some(best) => format!("did you mean `{best}`? the shortcodes are {}", list(names)),
            None => format!(
                "the shortcodes are {}; content cannot read variables or the environment",
                list(names)
            ),
        };
        return Err((call.name_span.clone(), format!("unknown shortcode `{}`", call.name), hint));
    };
    check_args(call, keys)?;
    let arg = |key: &str| call.args.iter().find(|a| a.key == key);
    match call.name.as_str() {
        "caveats" => Ok(None),
        "stat" => {
            let Some(name) = arg("name") else {
                let hint = "write stat(name=\"...\", field=\"...\")".to_string();
                return Err((call.span.clone(), "`stat` needs a `name`".into(), hint));
            };
            let member = (arg("candidate"), arg("at"));
            stat(name, member, arg("field"), shortcodes.fields).map(|s| Some(s.to_string()))
        }
        _ => super::facts::resolve(call, shortcodes.facts).map(Some),
    }
}

/// Every argument of `call` must be one of `keys`, given once.
fn check_args(call: &Call, keys: &[&str]) -> Result<(), Problem> {
    for (i, arg) in call.args.iter().enumerate() {
        if !keys.contains(&arg.key.as_str()) {
            let hint = match keys {
                [] => {
                    format!("`{}` takes no arguments: write {{{{ {}() }}}}", call.name, call.name)
                }
                keys => format!("`{}` takes {}", call.name, list(keys.iter().copied())),
            };
            let message = format!("unknown argument `{}` of `{}`", arg.key, call.name);
            return Err((arg.key_span.clone(), message, hint));
        }
        if call.args[..i].iter().any(|a| a.key == arg.key) {
            let message = format!("argument `{}` is given twice", arg.key);
            return Err((arg.key_span.clone(), message, "give each argument once".into()));
        }
    }
    Ok(())
}

/// The members of the family `name` (its `candidates`, or each value of
/// its `per`) that `candidate` and `at` select, with their keys.
fn members<'a>(
    name: &str,
    (candidate, at): (Option<&Arg>, Option<&Arg>),
    fields: &'a Fields,
) -> Vec<&'a String> {
    let prefix = format!("{name} candidate=");
    let wanted = |key: &&String| {
        let Some(rest) = key.strip_prefix(&prefix) else { return false };
        let (c, a) = rest.split_once(" at=").map_or((rest, None), |(c, a)| (c, Some(a)));
        let value = a.and_then(|a| a.split_once(" = ")).map(|(_, v)| v);
        candidate.is_none_or(|x| x.value == c)
            && at.is_none_or(|x| Some(x.value.as_str()) == a || Some(x.value.as_str()) == value)
    };
    fields.keys().filter(wanted).collect()
}

/// The fields of the metric `name`, or of the member of its family that
/// `member` selects; `None` for an unknown name.
fn member_fields<'a>(
    name: &Arg,
    member: (Option<&Arg>, Option<&Arg>),
    fields: &'a Fields,
) -> Result<Option<&'a BTreeMap<&'static str, String>>, Problem> {
    let family = members(&name.value, (None, None), fields);
    if family.is_empty() {
        if let Some(arg) = member.0.or(member.1) {
            let message = format!("statistic `{}` is one comparison, not a family", name.value);
            let hint =
                "`candidate` and `at` pick one comparison of a metric with `candidates` or `each`";
            return Err((arg.key_span.clone(), message, hint.into()));
        }
        Ok(fields.get(&name.value))
    } else {
        match members(&name.value, member, fields).as_slice() {
            [one] => Ok(fields.get(*one)),
            found => {
                let listed = |keys: &[&String]| {
                    let prefix = format!("{} ", name.value);
                    list(keys.iter().map(|k| k.strip_prefix(&prefix).unwrap_or(k)))
                };
                let (message, hint) = if found.is_empty() {
                    (
                        "no comparison of this family matches",
                        format!("its comparisons: {}", listed(&family)),
                    )
                } else {
                    (
                        "several comparisons of this family match",
                        format!("pick one with `candidate` and `at`: {}", listed(found)),
                    )
                };
                let message = format!("statistic `{}`: {message}", name.value);
                Err((name.value_span.clone(), message, hint))
            }
        }
    }
}

/// The field `field` (default `full`) of the metric `name`, or of the
/// member of its family that `member` selects.
fn stat<'a>(
    name: &Arg,
    member: (Option<&Arg>, Option<&Arg>),
    field: Option<&Arg>,
    fields: &'a Fields,
) -> Result<&'a str, Problem> {
    let metric = member_fields(name, member, fields)?;
    let Some(metric) = metric else {
        let mut known: Vec<&str> = fields
            .keys()
            .map(|k| k.split_once(" candidate=").map_or(k.as_str(), |(n, _)| n))
            .collect();
        known.dedup();
        let names = list(known.iter().copied());
        let hint = match nearest(&name.value, known.iter().copied()) {
            Some(best) => format!(
                "did you mean `{best}`? the statistics are the [[metrics]] of book.toml: {names}"
            ),
            None => format!("the statistics are the [[metrics]] of book.toml: {names}"),
        };
        let message = format!("unknown statistic `{}`", name.value);
        return Err((name.value_span.clone(), message, hint));
    };
    let Some(field) = field else {
        return Ok(&metric["full"]);
    };
    let name = &name.value;
    metric.get(field.value.as_str()).map(String::as_str).ok_or_else(|| {
        let provenance = metric.get("provenance").map_or("measured", String::as_str);
        if let Some(message) = crate::prose::provenance::refused(&field.value, provenance) {
            let hint = "state its value (`value`, `words`) and where it comes from".to_string();
            return (field.value_span.clone(), format!("statistic `{name}`: {message}"), hint);
        }
        let keys = metric.keys().copied();
        let hint = match nearest(&field.value, keys.clone()) {
            Some(best) => format!("did you mean `{best}`? fields: {}", list(keys)),
            None => format!("fields: {}", list(keys)),
        };
        let message = format!("unknown field `{}` of statistic `{name}`", field.value);
        (field.value_span.clone(), message, hint)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pulldown_cmark::Parser;

    fn fields() -> Fields {
        let full = |value: &str| BTreeMap::from([("full", value.to_string())]);
        BTreeMap::from([
            (
                "tp".to_string(),
                BTreeMap::from([
                    ("value", "+8.8%".to_string()),
                    ("full", "+8.8% (n = 3)".to_string()),
                ]),
            ),
            ("*tp*".to_string(), full("y")),
            ("tp*".to_string(), full("z")),
            ("html".to_string(), full("<i>")),
        ])
    }

    /// The events of the page `text` with its shortcodes expanded, written
    /// back as text: a block's start as `[`, its end as `]`.
    fn run(text: &str) -> Result<String, String> {
        run_with(text, true).map(|(written, _)| written)
    }

    /// [`run`], for a page if `caveats` (else the answer of book.toml), with
    /// the spans of the `caveats()` that stand elsewhere than alone.
    fn run_with(text: &str, caveats: bool) -> Result<(String, Vec<Range<usize>>), String> {
        let events = Parser::new_ext(text, crate::markdown::options()).into_offset_iter().collect();
        let fields = fields();
        let shortcodes = Shortcodes { fields: &fields, caveats, facts: None };
        let (events, elsewhere, _) = expand(Path::new("content/a.md"), text, events, shortcodes)
            .map_err(|e| e.to_string())?;
        Ok((events.into_iter().map(|(event, _)| written(event)).collect(), elsewhere))
    }

    fn written(event: Event<'_>) -> String {
        match event {
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => t.to_string(),
            Event::Code(t) => format!("`{t}`"),
            Event::SoftBreak => "\n".into(),
            Event::Start(Tag::BlockQuote(Some(_))) => "[!".into(),
            Event::Start(Tag::Emphasis) => "*".into(),
            Event::End(TagEnd::Emphasis) => "*".into(),
            Event::Start(_) => "[".into(),
            Event::End(_) => "]".into(),
            _ => String::new(),
        }
    }

    #[test]
    fn calls_are_replaced_and_escapes_dropped() {
        let text = run("Up {{ stat(name=\"tp\", field=\"value\") }}, {{stat(name='tp')}}.\n");
        assert_eq!(text.unwrap(), "[Up +8.8%, +8.8% (n = 3).]");
        let text = run("\\{{ stat() }} and `{{ x }}` and \\{% y").unwrap();
        assert_eq!(text, "[{{ stat() }} and `{{ x }}` and {% y]");
        let directive = "```chart\ncaption = \"\\{{ {{ stat(name='tp') }}\"\n```\n";
        assert_eq!(run(directive).unwrap(), "[caption = \"{{ +8.8% (n = 3)\"\n]");
        let html = "<p title=\"{{ stat(name='tp') }}\">\n";
        assert_eq!(run(html).unwrap(), "[<p title=\"+8.8% (n = 3)\">\n]");
        let html = "<p title=\"{{ stat(name='html') }}\">\n<b>{{ stat(name='html') }}</b>\n";
        assert_eq!(run(html).unwrap(), "[<p title=\"&lt;i&gt;\">\n<b>&lt;i&gt;</b>\n]");
    }

    /// A statistic is text wherever it stands, and a call over several
    /// lines or over Markdown of its own arguments gives way whole.
    #[test]
    fn values_are_text_and_calls_give_way_whole() {
        assert_eq!(run("*{{ stat(name=\"tp\") }}* b").unwrap(), "[*+8.8% (n = 3)* b]");
        assert_eq!(run("a {{ stat(\n  name = \"tp\",\n) }} b").unwrap(), "[a +8.8% (n = 3) b]");
        assert_eq!(run("a {{ stat(name=\"*tp*\") }} b").unwrap(), "[a y b]");
        assert_eq!(run("| {{ stat(name='tp') }} |\n|---|\n").unwrap(), "[[[+8.8% (n = 3)]]]");
    }

    /// The callout's marker takes the place of the paragraph that holds the
    /// call alone; anywhere else the call is nothing, and its span is given
    /// back (refused if there are caveats; see `markdown::expand`).
    #[test]
    fn the_callout_replaces_its_paragraph() {
        let marker = format!("[x][{CAVEATS}][y]");
        assert_eq!(run("x\n\n{{ caveats() }}\n\ny\n").unwrap(), marker);
        // Without caveats (the answer) there is no callout, and no paragraph for it.
        let answer = run_with("x\n\n{{ caveats() }}\n\ny\n", false).unwrap();
        assert_eq!(answer, ("[x][y]".to_string(), vec![]));
        assert_eq!(run_with("See {{ caveats() }}.\n", false).unwrap(), ("[See .]".into(), vec![]));
        let (written, elsewhere) = run_with("See {{ caveats() }}.\n", true).unwrap();
        assert_eq!(
            (written.as_str(), elsewhere.as_slice()),
            ("[See .]", &[Range { start: 4, end: 19 }][..])
        );
        let directive = "```chart\ncaption = \"{{ caveats() }}\"\n```\n";
        let (written, elsewhere) = run_with(directive, true).unwrap();
        assert_eq!(
            (written.as_str(), &elsewhere[..]),
            ("[caption = \"\"\n]", &[Range { start: 20, end: 35 }][..])
        );
        let err = run("[a](<{{ stat(name='tp') }}>) $x {{ stat(name='tp') }}$\n").unwrap_err();
        assert!(err.starts_with("content/a.md:1:6: a shortcode stands in text only"), "{err}");
        assert!(err.contains("also at content/a.md:1:33"), "{err}");
        let err = run("*{{ stat(name='tp*') }}\n").unwrap_err();
        assert!(err.contains("read as Markdown across its end"), "{err}");
    }

    #[test]
    fn unknown_names_fields_and_arguments_are_located_with_suggestions() {
        let err = run("a\nb {{ stat(name=\"tq\") }}\n").unwrap_err();
        assert!(err.starts_with("content/a.md:2:16: unknown statistic `tq`"), "{err}");
        assert!(err.contains("did you mean `tp`?"), "{err}");
        let err = run("{{ stat(name=\"tp\", field=\"vlue\") }}").unwrap_err();
        assert!(err.starts_with("content/a.md:1:26: unknown field `vlue`"), "{err}");
        assert!(err.contains("did you mean `value`? fields: `full`, `value`"), "{err}");
        let err = run("x {{ stat(nme=\"tp\") }}").unwrap_err();
        assert!(err.starts_with("content/a.md:1:11: unknown argument `nme` of `stat`"), "{err}");
        let err = run("{{ stats(name=\"tp\") }}").unwrap_err();
        assert!(err.starts_with("content/a.md:1:4: unknown shortcode `stats`"), "{err}");
        assert!(err.contains("did you mean `stat`?"), "{err}");
        let err = run("{{ caveats(x=\"1\") }}").unwrap_err();
        assert!(err.contains("`caveats` takes no arguments"), "{err}");
        let err = run("{{ stat(name=\"tp\", name=\"tp\") }}").unwrap_err();
        assert!(err.starts_with("content/a.md:1:20: argument `name` is given twice"), "{err}");
    }

    /// Content cannot read the environment: `get_env` is no shortcode.
    #[test]
    fn get_env_is_refused_at_its_place() {
        let err = run("Home: {{ get_env(name=\"HOME\") }}\n").unwrap_err();
        assert!(err.starts_with("content/a.md:1:10: unknown shortcode `get_env`"), "{err}");
        assert!(err.contains("cannot read variables or the environment"), "{err}");
    }

    #[test]
    fn every_error_of_a_page_is_reported() {
        let err = run("{{ stat(name=\"a\") }}\n{{ stat(name=\"b\") }}\n{% raw %}\n").unwrap_err();
        assert_eq!(err.matches("content/a.md:").count(), 3, "{err}");
    }
}
