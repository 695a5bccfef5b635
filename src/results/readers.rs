//! What the study reads of each table: every metric, computed table, chart
//! and fact that names it, each with the rows it can select (its `where`)
//! and the columns it uses. A partitioned dataset is read as the union of
//! those selections, within `[data.NAME] where`: a partition, row group or
//! row that no reader can select is left unread.

use std::collections::{BTreeMap, BTreeSet};

use crate::config::{Config, FilterValue};

/// The conditions of one reader's `where`: a row is selected when every
/// condition holds.
pub type Filter = BTreeMap<String, FilterValue>;

/// One reader of a table, found in book.toml or in the study's content.
#[derive(Debug, Clone, PartialEq)]
pub struct Reader {
    /// The table it reads: a results file's stem (`runs`).
    pub table: String,
    /// The rows it can select; `None`: every row of the table.
    pub rows: Option<Filter>,
    /// The columns it uses; `None`: every column of the table.
    pub columns: Option<BTreeSet<String>>,
}

/// The readers of the study's content pages (charts, computed tables,
/// facts), which only the markdown stage can tell: given to
/// [`super::load_read_by`] so that a dataset is read as its readers select.
#[derive(Debug, Clone, Default)]
pub struct Readers(pub Vec<Reader>);

/// What a dataset's readers select, together.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Union {
    /// Each reader's filter: a row is read when one of them selects it;
    /// `None` when a reader selects every row (or no reader is known).
    pub filters: Option<Vec<Filter>>,
    /// The columns of the readers beyond those book.toml names for the
    /// table; `None` when a reader uses every column.
    pub columns: Option<BTreeSet<String>>,
}

/// The union of what the readers of table `name` select: its metrics (by
/// their `where`), its history (every row), a scaling analysis (every row)
/// and `content`'s readers of it. Without `content` (the pages were not
/// read for it) or without any reader, every row is read.
pub(super) fn union(name: &str, config: &Config, content: Option<&Readers>) -> Union {
    let Some(content) = content else { return Union::default() };
    let mut readers: Vec<Reader> = content.0.iter().filter(|r| r.table == name).cloned().collect();
    for metric in config.metrics.iter().filter(|m| m.data == name) {
        let rows = Some(metric.filter.clone());
        readers.push(Reader { table: name.to_string(), rows, columns: Some(BTreeSet::new()) });
    }
    let scaled = config.data.get(name).is_some_and(|d| d.scaling.is_some());
    let history = config.history.as_ref().is_some_and(|h| h.data == name);
    if scaled || history {
        readers.push(Reader {
            table: name.to_string(),
            rows: None,
            columns: Some(BTreeSet::new()),
        });
    }
    if readers.is_empty() {
        return Union { filters: None, columns: Some(BTreeSet::new()) };
    }
    let filters = readers.iter().map(|r| r.rows.clone()).collect::<Option<Vec<Filter>>>();
    let mut columns = Some(BTreeSet::new());
    for reader in &readers {
        match (&mut columns, &reader.columns) {
            (Some(all), Some(theirs)) => all.extend(theirs.iter().cloned()),
            _ => columns = None,
        }
    }
    Union { filters: filters.map(without_repeats), columns }
}

/// `filters` without repeats, and without any filter that another, weaker
/// one (a subset of its conditions) already selects every row of.
fn without_repeats(mut filters: Vec<Filter>) -> Vec<Filter> {
    filters.sort_by_key(BTreeMap::len);
    let mut kept: Vec<Filter> = Vec::new();
    for filter in filters {
        let covered = kept.iter().any(|k| k.iter().all(|(c, v)| filter.get(c) == Some(v)));
        if !covered {
            kept.push(filter);
        }
    }
    kept
}

impl Union {
    /// Whether a value of each partition column (`known`, by name; `None` for
    /// a null) leaves a row for some reader: every condition of one filter
    /// on a partition column holds of its value. Conditions on other columns
    /// are checked on the rows.
    pub fn admits(&self, known: &dyn Fn(&str, &FilterValue) -> Option<bool>) -> bool {
        self.filters.as_ref().is_none_or(|filters| {
            filters.iter().any(|f| f.iter().all(|(name, c)| known(name, c).unwrap_or(true)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(pairs: &[(&str, f64)]) -> Filter {
        pairs.iter().map(|(k, v)| (k.to_string(), FilterValue::Number(*v))).collect()
    }

    #[test]
    fn a_weaker_filter_covers_a_stronger_one() {
        let all = without_repeats(vec![
            filter(&[("procs", 2.0), ("size", 8.0)]),
            filter(&[("procs", 2.0)]),
            filter(&[("procs", 2.0)]),
            filter(&[("procs", 4.0)]),
        ]);
        assert_eq!(all, [filter(&[("procs", 2.0)]), filter(&[("procs", 4.0)])]);
    }

    /// One reader of every row makes the union every row; without content
    /// readers known, or without a reader, every row is read too.
    #[test]
    fn the_union_is_every_row_when_one_reader_reads_every_row() {
        let book =
            "[book]\ntitle = \"t\"\n[study]\nbaseline = \"a\"\n[environments.a]\nlabel = \"A\"\n";
        let config = crate::config::parse(std::path::Path::new("book.toml"), book).unwrap();
        let reader = |rows| Reader { table: "runs".into(), rows, columns: None };
        let some = Readers(vec![reader(Some(filter(&[("procs", 2.0)])))]);
        let of_some = union("runs", &config, Some(&some));
        assert_eq!(of_some.filters, Some(vec![filter(&[("procs", 2.0)])]));
        assert_eq!(of_some.columns, None);
        let every = Readers(vec![reader(Some(filter(&[("procs", 2.0)]))), reader(None)]);
        assert_eq!(union("runs", &config, Some(&every)).filters, None);
        assert_eq!(union("runs", &config, None), Union::default());
        assert_eq!(union("other", &config, Some(&some)).filters, None);
        let procs =
            |name: &str, c: &FilterValue| (name == "procs").then(|| c.holds_for_number(4.0));
        assert!(!union("runs", &config, Some(&some)).admits(&procs));
        assert!(union("runs", &config, Some(&every)).admits(&procs));
    }
}
