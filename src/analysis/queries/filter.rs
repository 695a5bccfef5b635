//! Row selection: a metric's `where` filter and grouping rows by column values.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::config::{FilterValue, Range};
use crate::format;
use crate::results::{PART_ROWS, Table, Values, part, part_count};

/// One value of a grouping column, ordered numerically when numeric.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyPart {
    /// A number.
    Number(f64),
    /// Text.
    Text(String),
}

impl Eq for KeyPart {}

impl Ord for KeyPart {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (KeyPart::Number(a), KeyPart::Number(b)) => a.total_cmp(b),
            (KeyPart::Number(_), KeyPart::Text(_)) => Ordering::Less,
            (KeyPart::Text(_), KeyPart::Number(_)) => Ordering::Greater,
            (KeyPart::Text(a), KeyPart::Text(b)) => a.cmp(b),
        }
    }
}

impl PartialOrd for KeyPart {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for KeyPart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyPart::Number(n) => f.write_str(&format::plain(*n)),
            KeyPart::Text(t) => f.write_str(t),
        }
    }
}

/// The value of `values` at `row` as a key part.
pub fn key_part(values: &Values, row: usize) -> KeyPart {
    match values {
        Values::Number(v) => KeyPart::Number(v[row]),
        Values::Text(v) => KeyPart::Text(v.get(row).to_string()),
    }
}

/// One group of rows: its key, its first row, and per value column its
/// values without the empty (NaN) ones, in row order.
#[derive(Debug, Clone)]
pub struct Grouped {
    /// The values of the grouping columns.
    pub key: Vec<KeyPart>,
    /// The group's first row.
    pub first: usize,
    /// Per value column, the sample.
    pub samples: Vec<Vec<f64>>,
}

/// A condition of a filter, ready to test part by part.
enum Test<'a> {
    /// On a numeric column.
    Number(&'a [f64], &'a FilterValue),
    /// On a text column: whether each distinct value passes.
    Text(&'a [u32], Vec<bool>),
}

/// The rows of `table` that satisfy every condition of `filter`, grouped by
/// the values of the columns `by` (in sorted key order), with the values of
/// the numeric columns `values` in each group: one pass over the table, part
/// by part, a run of parts per core. `Err` names the first filter column the
/// table lacks.
pub fn aggregate(
    table: &Table,
    filter: &BTreeMap<String, FilterValue>,
    by: &[&str],
    values: &[&str],
) -> Result<Vec<Grouped>, String> {
    use rayon::prelude::*;
    let tests = tests(table, filter)?;
    let by: Vec<&Values> = by.iter().filter_map(|c| table.column(c)).map(|c| &c.values).collect();
    let columns: Vec<Option<&[f64]>> =
        values.iter().map(|c| table.column(c).and_then(|c| c.values.numbers())).collect();
    let scan = Scan { table, tests: &tests, by: &by, columns: &columns };
    let (chunks, cores) = (part_count(table.len()), rayon::current_num_threads().max(1));
    let parts: Vec<Partial> = (0..cores)
        .into_par_iter()
        .map(|c| scan.run(chunks * c / cores..chunks * (c + 1) / cores))
        .collect();
    // Join the runs in order, so that each sample keeps its rows' order.
    let mut all = Partial::default();
    for part in parts {
        for (bits, group) in part.groups {
            let hash = key_hash(bits.iter().copied());
            match all.find(hash, &bits) {
                Some(g) => {
                    for (sample, more) in all.groups[g].1.samples.iter_mut().zip(&group.samples) {
                        sample.extend_from_slice(more);
                    }
                }
                None => {
                    all.insert(hash, bits, group);
                }
            }
        }
    }
    let mut groups: Vec<Grouped> = all
        .groups
        .into_iter()
        .map(|(_, mut g)| {
            g.key = by.iter().map(|v| key_part(v, g.first)).collect();
            g
        })
        .collect();
    groups.sort_by(|a, b| a.key.cmp(&b.key));
    Ok(groups)
}

/// The values `filter` names that no row of `table` has: `(column, value)`
/// for each single value and each value of a list apart (a range is not
/// checked: an empty one selects no rows, which is its own error).
pub fn unmatched(table: &Table, filter: &BTreeMap<String, FilterValue>) -> Vec<(String, String)> {
    let mut missing = Vec::new();
    for (column, condition) in filter {
        let values = match condition {
            FilterValue::AnyOf(values) => values.iter().collect(),
            FilterValue::Range(_) => Vec::new(),
            single => vec![single],
        };
        for value in values {
            let one = BTreeMap::from([(column.clone(), value.clone())]);
            if aggregate(table, &one, &[], &[]).is_ok_and(|groups| groups.is_empty()) {
                let shown = match value {
                    FilterValue::Number(n) => crate::format::plain(*n),
                    FilterValue::Text(t) => format!("\"{t}\""),
                    _ => continue,
                };
                missing.push((column.clone(), shown));
            }
        }
    }
    missing
}

/// Groups found in a run of parts, on compact keys (a number's bits, a
/// text's code), in order of first row.
struct Partial {
    /// The groups by the hash of their key (groups whose keys collide
    /// share an entry).
    index: rustc_hash::FxHashMap<u64, Vec<usize>>,
    groups: Vec<(Vec<u64>, Grouped)>,
    /// The last two groups that rows went to (`usize::MAX`: none yet).
    /// Results are written grouped or interleaved, so most rows find their
    /// group here, without hashing a key.
    recent: [usize; 2],
    /// The group last found per slot of the key's hash (its top bits): rows
    /// that cycle through more groups than `recent` holds (configurations
    /// written in turn) find theirs here, without a look-up in `index`.
    slots: [usize; SLOTS],
}

/// How many slots [`Partial::slots`] has: a power of two.
const SLOTS: usize = 64;

impl Default for Partial {
    fn default() -> Self {
        Partial {
            index: Default::default(),
            groups: Vec::new(),
            recent: [usize::MAX; 2],
            slots: [usize::MAX; SLOTS],
        }
    }
}

/// The hash of a key, from its parts.
fn key_hash(parts: impl Iterator<Item = u64>) -> u64 {
    use std::hash::Hasher;
    let mut hasher = rustc_hash::FxHasher::default();
    parts.for_each(|part| hasher.write_u64(part));
    hasher.finish()
}

impl Partial {
    /// The group of row `r` of a part whose key columns hold `keys` (a
    /// number's bits, a text's code), made by `new` if it is the first row of
    /// its group; no key is built but for a new group.
    fn group_of(&mut self, keys: &[Vec<u64>], r: usize, new: impl FnOnce() -> Grouped) -> usize {
        let same = |(bits, _): &(Vec<u64>, Grouped)| bits.iter().zip(keys).all(|(b, k)| *b == k[r]);
        if let Some(&g) = self.recent.iter().find(|&&g| self.groups.get(g).is_some_and(same)) {
            return g;
        }
        let hash = key_hash(keys.iter().map(|k| k[r]));
        let slot = (hash >> (64 - SLOTS.trailing_zeros())) as usize;
        let cached = Some(self.slots[slot]).filter(|&g| self.groups.get(g).is_some_and(same));
        let found = cached.or_else(|| {
            let listed = self.index.get(&hash)?;
            listed.iter().copied().find(|&g| same(&self.groups[g]))
        });
        let g = found.unwrap_or_else(|| {
            let key: Vec<u64> = keys.iter().map(|k| k[r]).collect();
            self.insert(hash, key, new())
        });
        self.slots[slot] = g;
        if self.recent[0] != g {
            self.recent = [g, self.recent[0]];
        }
        g
    }

    /// The group `g` of the rows of `bits`, whose hash is `hash`, if any.
    fn find(&self, hash: u64, bits: &[u64]) -> Option<usize> {
        self.index.get(&hash)?.iter().copied().find(|&g| self.groups[g].0 == bits)
    }

    /// Add a new group under `key`, whose hash is `hash`; its index.
    fn insert(&mut self, hash: u64, key: Vec<u64>, group: Grouped) -> usize {
        self.index.entry(hash).or_default().push(self.groups.len());
        self.groups.push((key, group));
        self.groups.len() - 1
    }
}

/// What [`aggregate`] reads.
struct Scan<'a> {
    table: &'a Table,
    tests: &'a [Test<'a>],
    by: &'a [&'a Values],
    columns: &'a [Option<&'a [f64]>],
}

impl Scan<'_> {
    /// The groups of the rows of `parts` (their keys named later).
    fn run(&self, parts: std::ops::Range<usize>) -> Partial {
        let mut found = Partial::default();
        for i in parts {
            let passes = passing(self.table, self.tests, i);
            let keys: Vec<Vec<u64>> = self.by.iter().map(|v| v.part_bits(i)).collect();
            let values: Vec<Option<&[f64]>> =
                self.columns.iter().map(|c| c.map(|c| part(c, i))).collect();
            for (r, _) in passes.iter().enumerate().filter(|(_, pass)| **pass) {
                let g = found.group_of(&keys, r, || {
                    let samples = self.columns.iter().map(|_| Vec::new()).collect();
                    Grouped { key: Vec::new(), first: i * PART_ROWS + r, samples }
                });
                for (sample, chunk) in found.groups[g].1.samples.iter_mut().zip(&values) {
                    if let Some(v) = chunk.as_ref().map(|c| c[r]).filter(|v| !v.is_nan()) {
                        sample.push(v);
                    }
                }
            }
        }
        found
    }
}

/// The first row that satisfies every condition of `filter` and whose value
/// of the numeric column `column` satisfies `test`.
pub fn first_row(
    table: &Table,
    filter: &BTreeMap<String, FilterValue>,
    column: &str,
    test: impl Fn(f64) -> bool,
) -> Option<usize> {
    let values = table.column(column)?.values.numbers()?;
    let tests = tests(table, filter).ok()?;
    (0..part_count(values.len())).find_map(|i| {
        let passes = passing(table, &tests, i);
        part(values, i)
            .iter()
            .zip(passes)
            .position(|(&v, pass)| pass && test(v))
            .map(|r| i * PART_ROWS + r)
    })
}

/// Per row of `table`, whether it satisfies every condition of `filter`;
/// `Err` names a column the table lacks.
pub fn rows(table: &Table, filter: &BTreeMap<String, FilterValue>) -> Result<Vec<bool>, String> {
    let tests = tests(table, filter)?;
    Ok((0..part_count(table.len())).flat_map(|i| passing(table, &tests, i)).collect())
}

/// The conditions of `filter`, ready to test; `Err` names a column the table lacks.
fn tests<'a>(
    table: &'a Table,
    filter: &'a BTreeMap<String, FilterValue>,
) -> Result<Vec<Test<'a>>, String> {
    let mut tests = Vec::new();
    for (column, condition) in filter {
        tests.push(match &table.column(column).ok_or_else(|| column.clone())?.values {
            Values::Number(v) => Test::Number(v, condition),
            Values::Text(t) => {
                Test::Text(&t.codes, t.words.iter().map(|w| matches_text(w, condition)).collect())
            }
        });
    }
    Ok(tests)
}

/// Which rows of part `i` of `table` pass every test.
fn passing(table: &Table, tests: &[Test], i: usize) -> Vec<bool> {
    let mut passes = vec![true; PART_ROWS.min(table.len() - i * PART_ROWS)];
    for test in tests {
        match test {
            Test::Number(values, condition) => {
                passes
                    .iter_mut()
                    .zip(part(values, i))
                    .for_each(|(p, &v)| *p = *p && matches_number(v, condition));
            }
            Test::Text(codes, pass) => {
                passes
                    .iter_mut()
                    .zip(part(codes, i))
                    .for_each(|(p, &c)| *p = *p && pass[c as usize]);
            }
        }
    }
    passes
}

/// Does `condition` hold for the number `v`?
fn matches_number(v: f64, condition: &FilterValue) -> bool {
    condition.holds_for_number(v)
}

/// Does `condition` hold for the text `t`?
fn matches_text(t: &str, condition: &FilterValue) -> bool {
    condition.holds_for_text(t)
}

/// A filter in words, such as `procs = 32` or `procs in 2..=32`.
pub fn describe(filter: &BTreeMap<String, FilterValue>) -> String {
    let parts: Vec<String> =
        filter.iter().map(|(column, c)| format!("{column} {}", describe_one(c))).collect();
    if parts.is_empty() { "all rows".to_string() } else { parts.join(", ") }
}

fn describe_one(condition: &FilterValue) -> String {
    match condition {
        FilterValue::Number(n) => format!("= {}", format::plain(*n)),
        FilterValue::Text(t) => format!("= {t}"),
        FilterValue::AnyOf(options) => {
            let options: Vec<String> = options
                .iter()
                .map(|o| describe_one(o).trim_start_matches("= ").to_string())
                .collect();
            format!("in {{{}}}", options.join(", "))
        }
        FilterValue::Range(Range { min, max }) => {
            let end = |v: &Option<f64>| v.map(format::plain).unwrap_or_default();
            format!("in {}..={}", end(min), end(max))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        Table::new(
            "t",
            "results/t.csv",
            vec![
                ("procs", Values::numbers_of(&[1.0, 2.0, 4.0, 32.0])),
                ("env", Values::Text(["a", "b", "a", "b"].into_iter().collect())),
            ],
        )
    }

    /// The `procs` values of the rows `filter` selects.
    fn selected(t: &Table, filter: &str) -> Result<Vec<f64>, String> {
        let filter: BTreeMap<String, FilterValue> = toml::from_str(filter).unwrap();
        let groups = aggregate(t, &filter, &[], &["procs"])?;
        Ok(groups.first().map(|g| g.samples[0].clone()).unwrap_or_default())
    }

    #[test]
    fn selects_by_value_list_and_range() {
        let t = table();
        assert_eq!(selected(&t, "procs = 32"), Ok(vec![32.0]));
        assert_eq!(selected(&t, "procs = [1, 4]"), Ok(vec![1.0, 4.0]));
        assert_eq!(selected(&t, "procs = { min = 2, max = 4 }"), Ok(vec![2.0, 4.0]));
        assert_eq!(selected(&t, "env = \"b\"\nprocs = { min = 4 }"), Ok(vec![32.0]));
        assert_eq!(selected(&t, "env = [\"a\", \"c\"]"), Ok(vec![1.0, 4.0]));
        assert_eq!(selected(&t, "procs = 3"), Ok(vec![]));
        assert_eq!(selected(&t, "nope = 1"), Err("nope".to_string()));
        let f = |s: &str| -> BTreeMap<String, FilterValue> { toml::from_str(s).unwrap() };
        assert_eq!(describe(&f("procs = { min = 2, max = 32 }")), "procs in 2..=32");
    }

    /// Keys whose hashes collide share an entry and are told apart by
    /// their parts (FxHash makes collisions too rare for a generator to
    /// reach: they are made here by hand).
    #[test]
    fn keys_that_share_a_hash_stay_apart() {
        let group = |first| Grouped { key: Vec::new(), first, samples: vec![Vec::new()] };
        let mut found = Partial::default();
        assert_eq!(found.insert(7, vec![1, 2], group(0)), 0);
        assert_eq!(found.insert(7, vec![2, 1], group(1)), 1);
        assert_eq!((found.find(7, &[1, 2]), found.find(7, &[2, 1])), (Some(0), Some(1)));
        assert_eq!((found.find(7, &[1, 1]), found.find(8, &[1, 2])), (None, None));
        // A row whose key hashes like another group's starts its own group,
        // and finds it again.
        let keys = vec![vec![2, 1, 5], vec![1, 2, 5]];
        let hash = key_hash([2, 1].into_iter());
        found.insert(hash, vec![9, 9], group(2));
        assert_eq!(found.group_of(&keys, 0, || group(3)), 3);
        assert_eq!(found.group_of(&keys, 1, || group(4)), 4);
        assert_eq!(found.group_of(&keys, 2, || group(5)), 5);
        assert_eq!(found.group_of(&keys, 0, || unreachable!()), 3);
        assert_eq!((found.find(hash, &[9, 9]), found.find(hash, &[2, 1])), (Some(2), Some(3)));
    }

    /// Rows of up to 300 groups (more than the hash slots), written in turn,
    /// in runs or at random over several parts, group as a plain map of
    /// each key to its values in row order groups them.
    #[test]
    fn groups_of_every_order_match_a_plain_map() {
        let mut next = crate::seeded::stream(0x2545_F491_4F6C_DD1D);
        for seed in 0..24u64 {
            let (groups, n) = (1 + next() % 300, [50, 5_000, 140_000][seed as usize % 3]);
            let order = |i: u64, r: u64| match seed % 3 {
                0 => i % groups,
                1 => i * groups / n as u64,
                _ => r % groups,
            };
            let ids: Vec<u64> = (0..n as u64).map(|i| order(i, next())).collect();
            let env: Vec<String> = ids.iter().map(|g| format!("e{}", g % 7)).collect();
            let procs: Vec<f64> = ids.iter().map(|g| (g / 7) as f64).collect();
            let value: Vec<f64> = (0..n).map(|i| i as f64).collect();
            let mut expected: BTreeMap<(String, u64), Vec<f64>> = BTreeMap::new();
            for (i, g) in ids.iter().enumerate() {
                expected.entry((env[i].clone(), g / 7)).or_default().push(i as f64);
            }
            let t = Table::new(
                "t",
                "results/t.csv",
                vec![
                    ("env", Values::Text(env.iter().map(String::as_str).collect())),
                    ("procs", Values::Number(procs)),
                    ("value", Values::Number(value)),
                ],
            );
            let found = aggregate(&t, &BTreeMap::new(), &["env", "procs"], &["value"]).unwrap();
            let found: BTreeMap<(String, u64), Vec<f64>> = found
                .into_iter()
                .map(|g| match &g.key[..] {
                    [KeyPart::Text(e), KeyPart::Number(p)] => {
                        ((e.clone(), *p as u64), g.samples[0].clone())
                    }
                    other => panic!("{other:?}"),
                })
                .collect();
            assert!(found == expected, "seed {seed}: {groups} groups over {n} rows");
        }
    }

    #[test]
    fn groups_sort_numerically() {
        let groups = aggregate(&table(), &BTreeMap::new(), &["procs"], &[]).unwrap();
        let keys: Vec<String> = groups.iter().map(|g| g.key[0].to_string()).collect();
        assert_eq!(keys, ["1", "2", "4", "32"]);
    }

    #[test]
    fn groups_of_many_rows_keep_row_order_across_parts() {
        // Over three parts of rows, scanned on several cores and joined.
        let n = 200_003;
        let procs: Vec<f64> = (0..n).map(|i| (i % 3) as f64).collect();
        let value: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let t = Table::new(
            "t",
            "results/t.csv",
            vec![("procs", Values::Number(procs)), ("value", Values::Number(value))],
        );
        let groups = aggregate(&t, &BTreeMap::new(), &["procs"], &["value"]).unwrap();
        assert_eq!(groups.len(), 3);
        for (i, group) in groups.iter().enumerate() {
            assert_eq!((group.key[0].clone(), group.first), (KeyPart::Number(i as f64), i));
            let expected: Vec<f64> = (i..n).step_by(3).map(|v| v as f64).collect();
            assert!(group.samples[0] == expected, "group {i} lost its order or rows");
        }
    }
}
