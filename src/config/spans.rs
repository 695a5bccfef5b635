//! Where each value of a TOML document is: the document is parsed once, the
//! parser's span of every value is kept by its dotted path, and the typed
//! structs are deserialized from that same parse. Diagnostics about book.toml
//! and chart directives are located from these spans, never by searching the
//! text.

use std::collections::BTreeMap;
use std::ops::Range;

use serde::de::DeserializeOwned;
use toml::de::{DeTable, DeValue};

use crate::diagnostic::Location;

/// The byte span of every value of a TOML document by its dotted path:
/// `metrics.2.name`, `data.runs.derive.rate`, `paper.fonts.0`; and of every
/// key of a table, by the same path.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spans {
    spans: BTreeMap<String, Range<usize>>,
    keys: BTreeMap<String, Range<usize>>,
}

impl Spans {
    /// Parse `text` into a `T` and the spans of its values.
    pub fn parse<T: DeserializeOwned>(text: &str) -> Result<(T, Spans), toml::de::Error> {
        let table = DeTable::parse(text)?;
        let mut spans = Spans::default();
        spans.walk("", table.get_ref());
        let value = T::deserialize(toml::de::Deserializer::from(table))?;
        Ok((value, spans))
    }

    fn walk(&mut self, prefix: &str, table: &DeTable<'_>) {
        for (key, value) in table.iter() {
            let path = join(prefix, key.get_ref());
            self.keys.insert(path.clone(), key.span());
            self.value(path, value);
        }
    }

    fn value(&mut self, path: String, value: &toml::Spanned<DeValue<'_>>) {
        match value.get_ref() {
            DeValue::Table(table) => self.walk(&path, table),
            DeValue::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.value(join(&path, &i.to_string()), item);
                }
            }
            _ => {}
        }
        self.spans.insert(path, value.span());
    }

    /// The locations of the values under `prefix` (`""` for all), keyed by
    /// their path below it; `locate` turns a span into a location.
    pub fn locations(&self, prefix: &str, locate: impl Fn(Range<usize>) -> Location) -> Locations {
        below(&self.spans, prefix, locate)
    }

    /// The locations of the keys under `prefix` (`""` for all), as
    /// [`Spans::locations`] gives those of their values.
    pub fn key_locations(
        &self,
        prefix: &str,
        locate: impl Fn(Range<usize>) -> Location,
    ) -> Locations {
        below(&self.keys, prefix, locate)
    }
}

/// The entries of `spans` under `prefix`, keyed by their path below it, located by `locate`.
fn below(
    spans: &BTreeMap<String, Range<usize>>,
    prefix: &str,
    locate: impl Fn(Range<usize>) -> Location,
) -> Locations {
    let start = if prefix.is_empty() { String::new() } else { format!("{prefix}.") };
    let found = spans
        .range(start.clone()..)
        .take_while(|(path, _)| path.starts_with(&start))
        .map(|(path, span)| (path[start.len()..].to_string(), locate(span.clone())));
    Locations(found.collect())
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() { key.to_string() } else { format!("{prefix}.{key}") }
}

/// Where the values of one table are, by their dotted path below it (`name`,
/// `derive.rate`, `fonts.0`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Locations(BTreeMap<String, Location>);

impl Locations {
    /// The location of the value at `path`, if the document has one there.
    pub fn get(&self, path: &str) -> Option<&Location> {
        self.0.get(path)
    }

    /// The location of the value at `path`, or `fallback` when it is not written.
    pub fn or(&self, path: &str, fallback: &Location) -> Location {
        self.get(path).unwrap_or(fallback).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Doc {
        metrics: Vec<BTreeMap<String, String>>,
        paper: BTreeMap<String, Vec<String>>,
    }

    /// The same string in two places: each path gets its own span.
    #[test]
    fn repeated_strings_get_their_own_spans() {
        let text =
            "[[metrics]]\nname = \"a\"\n[[metrics]]\nname = \"a\"\n[paper]\nfonts = [\"x\", 'a']\n";
        let (_, spans): (Doc, Spans) = Spans::parse(text).unwrap();
        let at =
            spans.locations("", |span| Location::at_offset("b.toml".as_ref(), text, span.start));
        let show = |path: &str| at.get(path).map(ToString::to_string);
        assert_eq!(show("metrics.0.name").as_deref(), Some("b.toml:2:8"));
        assert_eq!(show("metrics.1.name").as_deref(), Some("b.toml:4:8"));
        assert_eq!(show("paper.fonts.1").as_deref(), Some("b.toml:6:15"));
        let metric = spans.locations("metrics.1", |span| {
            Location::at_offset("b.toml".as_ref(), text, span.start)
        });
        assert_eq!(metric.get("name").map(ToString::to_string).as_deref(), Some("b.toml:4:8"));
        assert_eq!(metric.get("metrics.1.name"), None);
        let keys = spans.key_locations("metrics.1", |span| {
            Location::at_offset("b.toml".as_ref(), text, span.start)
        });
        assert_eq!(keys.get("name").map(ToString::to_string).as_deref(), Some("b.toml:4:1"));
    }

    #[test]
    fn deserialize_errors_keep_their_span() {
        let err = Spans::parse::<Doc>("metrics = 3\n").unwrap_err();
        assert_eq!(err.span().map(|s| s.start), Some(10));
    }
}
