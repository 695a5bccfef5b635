//! The order book.toml gives a column's levels (docs/factors.md): the
//! environments in the order they are declared, another column's in its
//! label's `order`; tables list their rows and columns, and charts their
//! series and categories, in it, levels it does not list after, as before.

use super::Config;

impl Config {
    /// The levels of `column` of the results file `file` (a stem or file
    /// name) in book.toml's order: the environments as declared for the
    /// environment column, else `[data.NAME.labels.COLUMN] order`.
    pub fn level_order(&self, file: &str, column: &str) -> Vec<String> {
        if column == self.study.environment_column {
            return self.environments_in_order().into_iter().map(|(k, _)| k.clone()).collect();
        }
        let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
        let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
        let data = self
            .data
            .get(stem)
            .or_else(|| self.data.values().find(|d| d.file.as_deref() == Some(name)));
        data.and_then(|d| d.labels.get(column)).map(|l| l.order.clone()).unwrap_or_default()
    }
}

/// Sort `levels` by their place in `order` (each level as text), those it
/// does not list after them, each group keeping its own order.
pub fn sort_levels<T: ToString>(levels: &mut [T], order: &[String]) {
    levels.sort_by_cached_key(|l| {
        let text = l.to_string();
        order.iter().position(|o| o.trim() == text.trim()).unwrap_or(order.len())
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_follow_book_toml_then_their_own_order() {
        let toml = r#"
[book]
title = "T"
[study]
baseline = "gzip"
[environments.gzip]
label = "gzip"
[environments.zstd]
label = "zstd"
[environments.bzip2]
label = "bzip2"
[data.runs.labels]
level = { order = ["19", "1"] }
"#;
        let config = crate::config::parse(std::path::Path::new("book.toml"), toml).unwrap();
        assert_eq!(config.level_order("runs.csv", "environment"), ["gzip", "zstd", "bzip2"]);
        assert_eq!(config.level_order("runs", "level"), ["19", "1"]);
        assert!(config.level_order("runs", "size").is_empty());
        let mut levels = vec![1, 3, 6, 19];
        sort_levels(&mut levels, &config.level_order("runs", "level"));
        assert_eq!(levels, [19, 1, 3, 6]);
    }
}
