//! The shortcodes of computed facts: `peak`, `every`, `count` and
//! `range`, each resolved from the analysis ([`crate::analysis::facts`])
//! and worded by [`crate::prose::facts`], so that "bandwidth peaks at
//! 64 KiB" or "slower at every count from 2 to 16" follow the data as a
//! `stat` does. Every argument is checked at its own span.

use std::ops::Range;

use super::shortcodes::{Arg, Call};
use crate::analysis::Analysis;
use crate::analysis::facts::{self, levels, peak, tally::Tally};
use crate::config::Config;
use crate::diagnostic::{list, nearest};
use crate::format;
use crate::prose::facts::Fields;
use crate::prose::labels::Labels;

/// What the facts are computed from and worded by.
#[derive(Clone, Copy)]
pub struct Facts<'a> {
    /// The study's analysis.
    pub analysis: &'a Analysis,
    /// How prose names columns, levels and directions.
    pub labels: &'a Labels,
    /// The study's configuration.
    pub config: &'a Config,
}

impl std::fmt::Debug for Facts<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Facts")
    }
}

/// The shortcodes of facts, with the arguments each takes.
pub const SHORTCODES: [(&str, &[&str]); 5] = [
    ("peak", &["data", "value", "by", "end", "environment", "field"]),
    ("every", &["name", "claim", "field"]),
    ("count", &["data", "of", "field"]),
    ("range", &["data", "of", "field"]),
    ("history", &["version", "field"]),
];

/// A located problem: span, message, hint.
type Problem = (Range<usize>, String, String);

/// The text the fact `call` stands for.
pub fn resolve(call: &Call, facts: Option<Facts>) -> Result<String, Problem> {
    let Some(facts) = facts else {
        let message = format!("`{}` is a computed fact, which only content pages cite", call.name);
        return Err((call.name_span.clone(), message, "cite it in a page of content/".into()));
    };
    let fields = match call.name.as_str() {
        "peak" => peak_fields(call, facts)?,
        "every" => every_fields(call, facts)?,
        "count" => count_fields(call, facts)?,
        "history" => history_fields(call, facts)?,
        _ => range_fields(call, facts)?,
    };
    let default = if call.name == "count" { "value" } else { "words" };
    field(call, &fields, default)
}

/// The argument `key` of `call`, which must be given.
fn required<'c>(call: &'c Call, key: &str) -> Result<&'c Arg, Problem> {
    call.args.iter().find(|a| a.key == key).ok_or_else(|| {
        let message = format!("`{}` needs `{key}`", call.name);
        let hint = format!("`{}` takes {}", call.name, takes(&call.name));
        (call.span.clone(), message, hint)
    })
}

fn optional<'c>(call: &'c Call, key: &str) -> Option<&'c Arg> {
    call.args.iter().find(|a| a.key == key)
}

/// The arguments the fact `name` takes, listed.
fn takes(name: &str) -> String {
    let keys = SHORTCODES.iter().find(|(n, _)| *n == name).map_or(&[][..], |(_, k)| *k);
    list(keys.iter().copied())
}

/// `arg`'s value, which must be one of `known` (named by `what`).
fn one_of<'a>(arg: &Arg, known: &[&'a str], what: &str) -> Result<&'a str, Problem> {
    if let Some(found) = known.iter().find(|k| **k == arg.value) {
        return Ok(found);
    }
    let names = list(known.iter().copied());
    let hint = match nearest(&arg.value, known.iter().copied()) {
        Some(best) => format!("did you mean `{best}`? the {what}s: {names}"),
        None => format!("the {what}s: {names}"),
    };
    Err((arg.value_span.clone(), format!("unknown {what} `{}`", arg.value), hint))
}

/// The results file `data` names, as the analysis names it.
fn file<'a>(call: &Call, facts: Facts<'a>) -> Result<&'a str, Problem> {
    let data = required(call, "data")?;
    let configured = facts.config.data.get(&data.value).and_then(|d| d.file.as_deref());
    let names: Vec<&str> = [Some(data.value.as_str()), configured].into_iter().flatten().collect();
    facts::file(facts.analysis, &names).ok_or_else(|| {
        let known: Vec<&str> = facts.config.data.keys().map(String::as_str).collect();
        let hint = match nearest(&data.value, known.iter().copied()) {
            Some(best) => {
                format!("did you mean `{best}`? results with measured columns: {}", list(known))
            }
            None => format!(
                "the results files are named by their stem, such as `{}`",
                known.first().unwrap_or(&"runs")
            ),
        };
        (
            data.value_span.clone(),
            format!("no results `{}` with measured columns", data.value),
            hint,
        )
    })
}

/// `peak(data, value, by, end, environment)`.
fn peak_fields(call: &Call, facts: Facts) -> Result<Fields, Problem> {
    let file = file(call, facts)?;
    let column =
        one_of(required(call, "value")?, &facts::columns(facts.analysis, file), "measured column")?;
    let by_arg = required(call, "by")?;
    let by = one_of(by_arg, &facts::factors(facts.analysis, file), "configuration column")?;
    let varying = peak::varying(facts.analysis, (file, column, by));
    if !varying.is_empty() {
        let message = format!(
            "the means along `{by}` would mix the levels of {}",
            list(varying.iter().map(String::as_str))
        );
        let hint = "a peak is sought along the one configuration column that varies; compare the others with a metric or a ```table```";
        return Err((by_arg.value_span.clone(), message, hint.into()));
    }
    let end = match optional(call, "end") {
        None => peak::End::Max,
        Some(arg) => match one_of(arg, &["max", "min"], "end")? {
            "max" => peak::End::Max,
            _ => peak::End::Min,
        },
    };
    let environment = optional(call, "environment");
    let found =
        peak::peak(facts.analysis, (file, column, by), end, environment.map(|e| e.value.as_str()));
    let found = found.ok_or_else(|| {
        let arg = environment.unwrap_or(by_arg);
        (
            arg.value_span.clone(),
            format!("no runs of `{column}` with a level of `{by}` here"),
            "name an environment the results hold".to_string(),
        )
    })?;
    Ok(crate::prose::facts::peak(facts.labels, (file, column, by), &found))
}

/// `every(name, claim)`.
fn every_fields(call: &Call, facts: Facts) -> Result<Fields, Problem> {
    let name = required(call, "name")?;
    let Some(tally) = Tally::of(&facts.analysis.metrics, &name.value) else {
        let families: Vec<&str> = facts
            .analysis
            .metrics
            .iter()
            .filter(|m| m.member.as_ref().is_some_and(|m| m.at.is_some()))
            .map(|m| m.name.as_str())
            .collect();
        let hint = if families.is_empty() {
            "`every` reads a family with one comparison per level: a metric with `per` and `each = true`".to_string()
        } else {
            format!("the families with one comparison per level: {}", list(families))
        };
        return Err((
            name.value_span.clone(),
            format!("`{}` is no family of comparisons per level", name.value),
            hint,
        ));
    };
    let claim = required(call, "claim")?;
    let words = facts.labels.words(&tally.file, &tally.column);
    let word = one_of(claim, &[&words[0], &words[1]], "direction")?;
    Ok(crate::prose::facts::tally(facts.labels, &tally, word, word == words[0]))
}

/// The levels of `of` in `file`, which must be a configuration column.
fn levels_of(facts: Facts, file: &str, of: &Arg) -> Result<(String, Vec<String>), Problem> {
    let env = facts.config.study.environment_column.as_str();
    let mut known = facts::factors(facts.analysis, file);
    known.push(env);
    let by = one_of(of, &known, "configuration column")?;
    Ok((by.to_string(), levels::levels(facts.analysis, file, by, env)))
}

/// `history()`: the change points in words (`words`) and their counts
/// (`changes`, `regressions`, `acknowledged`, `inconclusive`); with
/// `version`, the one change point beginning there (`prose::history_cite`).
fn history_fields(call: &Call, facts: Facts) -> Result<Fields, Problem> {
    let Some(history) = &facts.analysis.history else {
        let message = "the study has no history across versions".to_string();
        return Err((
            call.name_span.clone(),
            message,
            "declare one in book.toml: `[history]` (docs/history.md)".into(),
        ));
    };
    if let Some(version) = optional(call, "version") {
        return crate::prose::history_cite::change(history, facts.labels, &version.value).map_err(
            |all| {
                let message = format!("no one change point begins at version `{}`", version.value);
                let hint = match all.len() {
                    0 => "the history has no change point".to_string(),
                    _ => format!("change points begin at {}", list(all.iter().map(String::as_str))),
                };
                (version.value_span.clone(), message, hint)
            },
        );
    }
    let [changes, regressions, acknowledged, inconclusive] = crate::prose::history::counts(history);
    Ok(Fields::from([
        ("words", crate::prose::history::paragraph(history, facts.labels)),
        ("changes", format::count(changes)),
        ("regressions", format::count(regressions)),
        ("acknowledged", format::count(acknowledged)),
        ("inconclusive", format::count(inconclusive)),
    ]))
}

/// `count(data, of)`: the runs, or the levels of `of`.
fn count_fields(call: &Call, facts: Facts) -> Result<Fields, Problem> {
    let file = file(call, facts)?;
    let count = match optional(call, "of") {
        None => levels::runs(facts.analysis, file),
        Some(of) => levels_of(facts, file, of)?.1.len(),
    };
    Ok(Fields::from([("value", format::count(count))]))
}

/// `range(data, of)`: the lowest and highest level of `of`.
fn range_fields(call: &Call, facts: Facts) -> Result<Fields, Problem> {
    let file = file(call, facts)?;
    let (by, levels) = levels_of(facts, file, required(call, "of")?)?;
    let name = |level: &str| {
        if by == facts.config.study.environment_column {
            facts.labels.environment(level)
        } else {
            facts.labels.value(file, &by, level)
        }
    };
    let (low, high) = (
        name(levels.first().map_or("", String::as_str)),
        name(levels.last().map_or("", String::as_str)),
    );
    let words = crate::prose::facts::range(&low, &high);
    Ok(Fields::from([("words", words), ("low", low), ("high", high)]))
}

/// The field `field` of `call` (else `default`) among `fields`.
fn field(call: &Call, fields: &Fields, default: &str) -> Result<String, Problem> {
    let Some(arg) = optional(call, "field") else {
        return Ok(fields.get(default).cloned().unwrap_or_default());
    };
    fields.get(arg.value.as_str()).cloned().ok_or_else(|| {
        let keys = fields.keys().copied();
        let hint = match nearest(&arg.value, keys.clone()) {
            Some(best) => format!("did you mean `{best}`? fields here: {}", list(keys)),
            None => format!("fields here: {}", list(keys)),
        };
        (arg.value_span.clone(), format!("unknown field `{}` of `{}`", arg.value, call.name), hint)
    })
}
