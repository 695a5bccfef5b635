//! A page's shortcodes replaced by their text, with a [`SourceMap`] from the
//! expanded Markdown back to the file, so that every later location (a chart
//! directive, a link, a Typst error) names its line and column of the file.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use super::shortcodes::{self, Arg, Call, Item};
use crate::diagnostic::{Diagnostic, Diagnostics, Location, list, nearest};

/// Fields of every metric, formatted, by metric name.
pub type Fields = BTreeMap<String, BTreeMap<&'static str, String>>;

/// The shortcodes content may use, with the arguments each takes.
const SHORTCODES: [(&str, &[&str]); 2] =
    [("caveats", &[]), ("stat", &["name", "field", "candidate", "at"])];

/// Where each byte of an expanded page comes from in its file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceMap {
    /// The file's text (front matter blanked out, lines kept).
    source: String,
    /// Runs of the expanded text, by start: copied from the file, or put in
    /// for a shortcode (every byte of which stands for the call's first byte).
    pieces: Vec<Piece>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Piece {
    expanded: usize,
    source: usize,
    copied: bool,
}

impl SourceMap {
    /// The map of a text that expands to itself.
    pub fn identity(text: &str) -> SourceMap {
        SourceMap { source: text.to_string(), pieces: Vec::new() }
    }

    /// The offset in the file behind byte `offset` of the expanded text.
    pub fn source_offset(&self, offset: usize) -> usize {
        let i = self.pieces.partition_point(|p| p.expanded <= offset);
        match i.checked_sub(1).map(|i| self.pieces[i]) {
            Some(p) if p.copied => p.source + (offset - p.expanded),
            Some(p) => p.source,
            None => offset,
        }
    }

    /// The location in the file `path` of byte `offset` of the expanded text.
    pub fn locate(&self, path: &Path, offset: usize) -> Location {
        Location::at_offset(path, &self.source, self.source_offset(offset))
    }
}

/// Builds the expanded text and its map.
struct Expansion<'a> {
    source: &'a str,
    text: String,
    pieces: Vec<Piece>,
}

impl Expansion<'_> {
    fn copy(&mut self, range: Range<usize>) {
        if !range.is_empty() {
            self.pieces.push(Piece {
                expanded: self.text.len(),
                source: range.start,
                copied: true,
            });
            self.text.push_str(&self.source[range]);
        }
    }

    fn insert(&mut self, text: &str, source: usize) {
        self.pieces.push(Piece { expanded: self.text.len(), source, copied: false });
        self.text.push_str(text);
    }
}

/// `text` (the file `path`) with every shortcode replaced: `stat` by a
/// metric's field from `fields`, `caveats` by the `caveats` callout. Every
/// problem is reported at its own line and column.
pub fn expand(
    path: &Path,
    text: &str,
    fields: &Fields,
    caveats: &str,
) -> Result<(String, SourceMap), Diagnostics> {
    let (items, problems) = shortcodes::scan(text);
    let at = |span: &Range<usize>| Location::at_offset(path, text, span.start);
    let mut errors = Diagnostics::default();
    for problem in problems {
        errors.push(Diagnostic::new(at(&problem.span), problem.message).hint(problem.hint));
    }
    let mut out =
        Expansion { source: text, text: String::with_capacity(text.len()), pieces: vec![] };
    let mut from = 0;
    for item in &items {
        match item {
            Item::Escape(backslash) => {
                out.copy(from..*backslash);
                from = backslash + 1;
            }
            Item::Call(call) => {
                out.copy(from..call.span.start);
                from = call.span.end;
                match resolve(call, fields, caveats) {
                    // A statistic is text, never Markdown or HTML (a label
                    // `<img onerror=...>` stays text even with raw HTML on);
                    // in a chart directive it goes into TOML as it is.
                    Ok(value) if call.name == "stat" && !call.in_directive => {
                        out.insert(&escape_markdown(value), call.span.start)
                    }
                    Ok(value) => out.insert(value, call.span.start),
                    Err((span, message, hint)) => {
                        errors.push(Diagnostic::new(at(&span), message).hint(hint))
                    }
                }
            }
        }
    }
    out.copy(from..text.len());
    let map = SourceMap { source: text.to_string(), pieces: out.pieces };
    errors.into_result((out.text, map))
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

/// The text a call stands for.
fn resolve<'a>(call: &Call, fields: &'a Fields, caveats: &'a str) -> Result<&'a str, Problem> {
    let Some((_, keys)) = SHORTCODES.iter().find(|(name, _)| *name == call.name) else {
        let names = SHORTCODES.map(|(name, _)| name);
        let hint = match nearest(&call.name, names) {
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
        "caveats" => Ok(caveats),
        _ => {
            let Some(name) = arg("name") else {
                let hint = "write stat(name=\"...\", field=\"...\")".to_string();
                return Err((call.span.clone(), "`stat` needs a `name`".into(), hint));
            };
            let member = (arg("candidate"), arg("at"));
            stat(name, member, arg("field"), fields)
        }
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

    fn fields() -> Fields {
        BTreeMap::from([(
            "tp".to_string(),
            BTreeMap::from([("value", "+8.8%".to_string()), ("full", "+8.8% (n = 3)".to_string())]),
        )])
    }

    fn run(text: &str) -> Result<(String, SourceMap), String> {
        expand(Path::new("content/a.md"), text, &fields(), "> [!WARNING]\n> a\n")
            .map_err(|e| e.to_string())
    }

    #[test]
    fn calls_are_replaced_and_escapes_dropped() {
        let (text, _) =
            run("Up {{ stat(name=\"tp\", field=\"value\") }}, {{stat(name='tp')}}.\n").unwrap();
        assert_eq!(text, "Up \\+8\\.8\\%, \\+8\\.8\\% \\(n \\= 3\\).\n");
        let (text, _) = run("\\{{ stat() }} and `{{ x }}` and \\{% y").unwrap();
        assert_eq!(text, "{{ stat() }} and `{{ x }}` and {% y");
    }

    /// Offsets after a multi-line callout and after a stat on the same line
    /// map to their line and column of the file (counted by hand).
    #[test]
    fn the_map_leads_back_to_the_file() {
        let source = "# T\n{{ caveats() }}\nA {{ stat(name=\"tp\") }} @fig-x\n";
        let (text, map) = run(source).unwrap();
        assert_eq!(text, "# T\n> [!WARNING]\n> a\n\nA \\+8\\.8\\% \\(n \\= 3\\) @fig-x\n");
        let locate = |needle: &str| {
            let l = map.locate(Path::new("a.md"), text.find(needle).unwrap());
            (l.line, l.column)
        };
        assert_eq!(locate("# T"), (1, 1));
        assert_eq!(locate("> a"), (2, 1));
        assert_eq!(locate("A \\+8"), (3, 1));
        assert_eq!(locate("\\(n \\= 3"), (3, 3));
        assert_eq!(locate("@fig-x"), (3, 25));
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
