//! The versions of a history in order, and each configuration's runs per
//! version (empty where it has none: a gap, never filled in).

use std::collections::BTreeMap;

use crate::config::{Config, History};
use crate::diagnostic::{Diagnostic, Location};
use crate::results::{ResultSet, Table, Values};

/// One version in the order.
#[derive(Debug, Clone, PartialEq)]
pub struct Version {
    /// Its name, as the version column has it (with git, the full hash).
    pub name: String,
    /// With git, its commit's subject.
    pub subject: Option<String>,
}

impl Version {
    /// Whether book.toml's `name` (an acknowledgement's) names it: its name,
    /// or with git, its hash by 4 digits or more.
    pub fn is_named(&self, name: &str) -> bool {
        self.name == name
            || (self.subject.is_some() && name.len() >= 4 && self.name.starts_with(name))
    }
}

/// One configuration's runs along the order.
#[derive(Debug, Clone, PartialEq)]
pub struct Raw {
    /// Values of the `group-by` columns.
    pub config: BTreeMap<String, String>,
    /// Per version of the order, its runs (empty: a gap).
    pub runs: Vec<Vec<f64>>,
    /// Per version, each environment column's values in its runs, joined
    /// by ", " (empty in a gap).
    pub environment: Vec<BTreeMap<String, String>>,
}

/// The order of versions and the series of each configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Built {
    /// The versions, oldest first, gaps included.
    pub order: Vec<Version>,
    /// One series per configuration, sorted by configuration.
    pub series: Vec<Raw>,
}

/// The history's table, columns and order, or the error at book.toml's key.
pub fn build(results: &ResultSet, config: &Config, history: &History) -> Result<Built, Diagnostic> {
    let file = Location::file("book.toml");
    let at = |key: &str| config.at.or(&format!("history.{key}"), &file);
    let Some(table) = results.tables.get(&history.data) else {
        let names = results.tables.keys().map(String::as_str);
        return Err(Diagnostic::new(at("data"), format!("no results table `{}`", history.data))
            .hint(crate::diagnostic::suggest(&history.data, names)));
    };
    let column = |key: &str, name: &str| {
        table.column(name).map(|c| &c.values).ok_or_else(|| {
            Diagnostic::new(at(key), format!("`{}` has no column `{name}`", table.name))
                .hint(crate::diagnostic::suggest(name, table.column_names()))
        })
    };
    let versions = column("version", &history.version)?;
    let Some(values) = column("value", &history.value)?.numbers() else {
        let message = format!(
            "column `{}` is not numeric{}",
            history.value,
            table.not_numbers(&history.value)
        );
        return Err(Diagnostic::new(at("value"), message));
    };
    let environment: Vec<(&String, &Values)> = history
        .environment
        .iter()
        .enumerate()
        .map(|(i, name)| column(&format!("environment.{i}"), name).map(|v| (name, v)))
        .collect::<Result<_, _>>()?;
    let order = match (&history.order, history.git.as_deref()) {
        (Some(name), _) => by_column(versions, column("order", name)?),
        (None, Some(repository)) => by_git(table, versions, history, repository)?,
        (None, None) => Vec::new(),
    };
    acknowledged(history, &order, &at)?;
    let place = places(versions, &order);
    let group_by = config.data.get(&history.data).map(|d| d.group_by.clone()).unwrap_or_default();
    let groups = rows_by_config(table, &group_by);
    let series = groups
        .into_iter()
        .map(|(config, rows)| fill(config, &rows, (&place, values, &environment), order.len()))
        .collect();
    Ok(Built { order, series })
}

/// Every acknowledgement names a version of the order (with `git`, a
/// commit by 4 digits or more): one that names none would never apply, and
/// its change would be counted as a regression unnoticed.
fn acknowledged(
    history: &History,
    order: &[Version],
    at: &dyn Fn(&str) -> Location,
) -> Result<(), Diagnostic> {
    for (i, a) in history.acknowledge.iter().enumerate() {
        if !order.iter().any(|v| v.is_named(&a.version)) {
            let message =
                format!("acknowledged version `{}` is no version of the history", a.version);
            let known = order.iter().map(|v| v.name.as_str());
            return Err(Diagnostic::new(at(&format!("acknowledge.{i}.version")), message)
                .hint(crate::diagnostic::suggest(&a.version, known)));
        }
    }
    Ok(())
}

/// Each row's place, the values measured, and the environment columns.
type Columns<'a> = (&'a [Option<usize>], &'a [f64], &'a [(&'a String, &'a Values)]);

/// The runs of one configuration's `rows` by place, and the values of each
/// environment column per place.
fn fill(
    config: BTreeMap<String, String>,
    rows: &[usize],
    (place, values, environment): Columns<'_>,
    len: usize,
) -> Raw {
    let mut raw =
        Raw { config, runs: vec![Vec::new(); len], environment: vec![BTreeMap::new(); len] };
    let mut seen: Vec<BTreeMap<&String, std::collections::BTreeSet<String>>> =
        vec![BTreeMap::new(); len];
    for &row in rows {
        let (Some(i), false) = (place[row], values[row].is_nan()) else {
            continue;
        };
        raw.runs[i].push(values[row]);
        for (column, env) in environment {
            seen[i].entry(column).or_default().insert(env.text_at(row));
        }
    }
    for (i, columns) in seen.into_iter().enumerate() {
        for (column, set) in columns {
            let joined = set.into_iter().collect::<Vec<_>>().join(", ");
            raw.environment[i].insert(column.clone(), joined);
        }
    }
    raw
}

/// Each row's place in `order`: its version's, or with git the place of
/// the commit its version abbreviates; each distinct version looked up once.
fn places(versions: &Values, order: &[Version]) -> Vec<Option<usize>> {
    let git = order.iter().all(|v| v.subject.is_some());
    let exact: BTreeMap<&str, usize> =
        order.iter().enumerate().map(|(i, v)| (v.name.as_str(), i)).collect();
    let mut memo: BTreeMap<String, Option<usize>> = BTreeMap::new();
    (0..versions.len())
        .map(|row| {
            let name = versions.text_at(row);
            *memo.entry(name).or_insert_with_key(|name| match exact.get(name.as_str()) {
                Some(&i) => Some(i),
                None if git => order.iter().position(|v| v.name.starts_with(name.as_str())),
                None => None,
            })
        })
        .collect()
}

/// Versions in the order of their smallest value of `order` (numbers
/// numerically, text as text), ties by name.
fn by_column(versions: &Values, order: &Values) -> Vec<Version> {
    let mut first: BTreeMap<String, (f64, String)> = BTreeMap::new();
    for row in 0..versions.len() {
        let key = match order.numbers() {
            Some(n) => (n[row], String::new()),
            None => (0.0, order.text_at(row)),
        };
        let entry = first.entry(versions.text_at(row)).or_insert_with(|| key.clone());
        if key.0.total_cmp(&entry.0).then_with(|| key.1.cmp(&entry.1)).is_lt() {
            *entry = key;
        }
    }
    let mut sorted: Vec<(f64, String, String)> =
        first.into_iter().map(|(name, (n, text))| (n, text, name)).collect();
    sorted.sort_by(|a, b| {
        a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)).then_with(|| a.2.cmp(&b.2))
    });
    sorted.into_iter().map(|(_, _, name)| Version { name, subject: None }).collect()
}

/// The first-parent commits from the oldest to the newest with runs; an
/// error at the first row whose version is no commit of it.
fn by_git(
    table: &Table,
    versions: &Values,
    history: &History,
    repository: &str,
) -> Result<Vec<Version>, Diagnostic> {
    let commits = &history.commits;
    let mut used = std::collections::BTreeSet::new();
    let mut memo: BTreeMap<String, Option<usize>> = BTreeMap::new();
    for row in 0..versions.len() {
        let found = *memo.entry(versions.text_at(row)).or_insert_with_key(|name| {
            (name.len() >= 4)
                .then(|| commits.iter().position(|c| c.hash.starts_with(name.as_str())))
                .flatten()
        });
        let Some(i) = found else {
            let name = versions.text_at(row);
            let message = format!(
                "version `{}` is not a commit of the first-parent history of `{repository}`",
                crate::diagnostic::shown(&name)
            );
            return Err(Diagnostic::new(table.location(row, 0), message).hint(
                "name each version by its commit hash (4 digits or more), on the first-parent history of HEAD",
            ));
        };
        used.insert(i);
    }
    let (Some(&lo), Some(&hi)) = (used.iter().min(), used.iter().max()) else {
        return Ok(Vec::new());
    };
    Ok(commits[lo..=hi]
        .iter()
        .map(|c| Version { name: c.hash.clone(), subject: Some(c.subject.clone()) })
        .collect())
}

/// The rows of each configuration of `group_by`, sorted by configuration.
fn rows_by_config(
    table: &Table,
    group_by: &[String],
) -> BTreeMap<BTreeMap<String, String>, Vec<usize>> {
    let columns: Vec<(&String, &Values)> =
        group_by.iter().filter_map(|name| table.column(name).map(|c| (name, &c.values))).collect();
    let mut groups: BTreeMap<BTreeMap<String, String>, Vec<usize>> = BTreeMap::new();
    for row in 0..table.len() {
        let key = columns.iter().map(|(name, v)| ((*name).clone(), v.text_at(row))).collect();
        groups.entry(key).or_default().push(row);
    }
    groups
}
