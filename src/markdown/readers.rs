//! What the content pages read of the results, before the results are read:
//! each ```` ```chart ```` and ```` ```table ```` directive (its table, `where`
//! and columns) and each fact that names a table (`peak`, `count`, `range`:
//! every row and column of it). A partitioned dataset is then read as only
//! what its readers can select ([`crate::results::readers`]). A directive
//! that does not parse reads nothing here: the markdown stage reports it.

use std::collections::BTreeSet;
use std::path::Path;

use pulldown_cmark::{CodeBlockKind, Event, Tag, TagEnd};

use super::front_matter;
use super::parse::parse;
use super::shortcodes::{self, Code, Item};
use crate::config::Config;
use crate::diagnostic::Location;
use crate::project::SourceFile;
use crate::results::readers::{Reader, Readers};

/// The readers of the results in every page of `content`: each page parsed
/// once more, its directives read as the markdown stage will read them.
pub fn readers(content: &[SourceFile], config: &Config) -> Readers {
    let mut found = Vec::new();
    for file in content {
        let Ok(text) = file.text() else { continue };
        let Ok((_, text)) = front_matter::split(&file.path, text) else { continue };
        found.extend(of_page(&file.path, &text, config));
    }
    Readers(found)
}

/// The readers of one page's Markdown `text`.
fn of_page(path: &Path, text: &str, config: &Config) -> Vec<Reader> {
    let events = parse(text);
    let mut found = Vec::new();
    let mut directive: Option<(String, String)> = None;
    for (event, _) in &events {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang)))
                if matches!(lang.as_ref(), "chart" | "table") =>
            {
                directive = Some((lang.to_string(), String::new()));
            }
            Event::Text(t) => directive.iter_mut().for_each(|(_, body)| body.push_str(t)),
            Event::End(TagEnd::CodeBlock) => {
                let Some((lang, body)) = directive.take() else { continue };
                found.extend(of_directive(path, &lang, &body, config));
            }
            _ => {}
        }
    }
    let (items, _) = shortcodes::scan(text, &Code::of(&events));
    for item in items {
        let Item::Call(call) = item else { continue };
        if !matches!(call.name.as_str(), "peak" | "count" | "range") {
            continue;
        }
        let data = call.args.iter().find(|a| a.key == "data");
        if let Some(data) = data {
            found.push(Reader { table: stem(&data.value), rows: None, columns: None });
        }
    }
    found
}

/// The reader a chart or table directive's TOML `body` is, if it parses.
fn of_directive(path: &Path, lang: &str, body: &str, config: &Config) -> Option<Reader> {
    let at = Location::file(path);
    let (data, filter, mut columns) = if lang == "chart" {
        let chart = crate::charts::spec::parse(body, &at).ok()?;
        let series = chart.series.unwrap_or_else(|| config.study.environment_column.clone());
        let columns: BTreeSet<String> =
            [chart.x, Some(chart.y), Some(series)].into_iter().flatten().collect();
        (chart.data, chart.filter, columns)
    } else {
        let table = crate::analysis::metrics::tables::parse(body, &at).ok()?;
        let columns = [Some(table.value), Some(table.rows), table.columns, table.compare];
        (table.data, table.filter, columns.into_iter().flatten().collect())
    };
    columns.extend(filter.keys().cloned());
    Some(Reader { table: stem(&data), rows: Some(filter), columns: Some(columns) })
}

/// The table a directive's `data` names: a stem (`runs`) or a file name
/// (`runs.csv`).
fn stem(data: &str) -> String {
    Path::new(data).file_stem().map_or_else(|| data.to_string(), |s| s.to_string_lossy().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FilterValue;

    /// Charts and tables read their `where` and columns; a fact that names
    /// a table reads all of it; code blocks and unparsable directives read
    /// nothing.
    #[test]
    fn directives_and_facts_are_readers() {
        let config = crate::config::parse(
            Path::new("book.toml"),
            "[book]\ntitle = \"t\"\n[study]\nbaseline = \"a\"\n[environments.a]\nlabel = \"A\"\n",
        )
        .unwrap();
        let page = "# A\n\n```chart\nid = \"c\"\nkind = \"line\"\ndata = \"runs.csv\"\nx = \"procs\"\n\
                    y = \"time_s\"\nwhere = { bench = \"b2\" }\n```\n\n```table\nid = \"t\"\ndata = \"runs\"\n\
                    value = \"time_s\"\nrows = \"procs\"\ncell = \"mean\"\ncaption = \"C.\"\n\
                    where = { procs = [2, 4] }\n```\n\n```chart\nnot toml\n```\n\n```toml\ndata = \"x\"\n```\n\n\
                    Peak {{ peak(data=\"other\", value=\"v\", by=\"procs\") }}; `{{ count(data=\"code\", of=\"x\") }}`.\n";
        let found = of_page(Path::new("content/index.md"), page, &config);
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(found[0].table, "runs");
        let bench = found[0].rows.as_ref().unwrap().get("bench");
        assert_eq!(bench, Some(&FilterValue::Text("b2".into())));
        let columns: Vec<&str> =
            found[0].columns.as_ref().unwrap().iter().map(String::as_str).collect();
        assert_eq!(columns, ["bench", "environment", "procs", "time_s"]);
        let columns: Vec<&str> =
            found[1].columns.as_ref().unwrap().iter().map(String::as_str).collect();
        assert_eq!(columns, ["procs", "time_s"]);
        assert_eq!(found[2], Reader { table: "other".into(), rows: None, columns: None });
    }
}
