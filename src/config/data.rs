//! `[data.NAME]` sections of book.toml: the schema of each results file.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::FilterValue;
use super::spans::Locations;
use crate::diagnostic::Location;

/// The schema of one results file: `results/NAME.csv`, or
/// `results/NAME.parquet` as an engine such as DuckDB, Spark, Polars or
/// pyarrow exports it, under the same contract (see [Results too big for one
/// machine](big-results.md)).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Dataset {
    /// File name under `results/`; default `<name>.csv`, `<name>.tsv` (tab
    /// between fields) or `<name>.parquet`, whichever is there (two is an error).
    #[serde(default)]
    pub file: Option<String>,
    /// Required columns and their types: `text`, `integer`, `number`, `positive`
    /// (a number > 0, such as a time), `non-negative` or `percent` (0 to 100).
    /// In a Parquet file a numeric type needs a column of integers, floats or
    /// decimals, each value checked as a CSV cell is; `text` takes any
    /// column of single values (numbers in their shortest form, booleans as
    /// `true` and `false`, dates and timestamps in ISO 8601).
    #[serde(default)]
    pub columns: BTreeMap<String, ColumnType>,
    /// Columns whose values identify one run; two rows with the same values are an error.
    #[serde(default)]
    pub key: Vec<String>,
    /// Columns that define a configuration (besides the environment); statistics are
    /// computed per environment and configuration.
    #[serde(default)]
    pub group_by: Vec<String>,
    /// Derived columns, computed per row from an arithmetic expression over other
    /// columns, for example `cpu_seconds = "loop_time_s * procs * cpu_use_pct / 100"`.
    /// A derived column's name may not be a column of the file; its expression
    /// is at most 1,024 bytes, nests parentheses at most 64 deep, and must give
    /// a finite number in every row (a division by zero or an overflow is an
    /// error naming the row).
    #[serde(default)]
    pub derive: BTreeMap<String, String>,
    /// Columns that give the size of the problem a run solves, such as
    /// `["atoms", "steps"]`: a comparison whose baseline and candidate rows
    /// differ in one of them (within a configuration) is an error at the
    /// metric, since it would compare different problems.
    #[serde(default)]
    pub problem_size: Vec<String>,
    /// Runs left out of every statistic and chart, each with its reason:
    /// `exclude = [{ where = { environment = "bare-metal", procs = 256, run = 1 },
    /// reason = "node 3 was swapping (job log)" }]`. Each exclusion is named in
    /// the caveats (page and paper) and in stats.json; one that matches no row,
    /// or names a column the file lacks, is an error.
    #[serde(default)]
    pub exclude: Vec<Exclusion>,
    /// Where the values come from: `measured` (the default), `reconstructed`,
    /// `simulated` or `synthetic`. From data that were not measured no
    /// inference is drawn (no interval, p-value, significance or verdict),
    /// and every number, chart and table derived from them is marked † with
    /// `provenance-note` on the page and in the paper.
    #[serde(default)]
    pub provenance: Provenance,
    /// How and why the values were made, in one or two sentences, when they
    /// were not measured (then required): `"rebuilt from the study's
    /// published means; only those are facts"`.
    #[serde(default)]
    pub provenance_note: Option<String>,
    /// The slice of the table the study reads, as a metric's `where`:
    /// `where = { bench = "b042", date = { min = 20250101 } }`. Rows outside it
    /// are not part of the table. For a partitioned dataset (a folder
    /// `results/NAME/` of Parquet files, `bench=b042/part-0.parquet`) only
    /// the partitions whose values can match are opened, and in them only the
    /// row groups whose statistics can match are decoded; see
    /// [Partitioned datasets](results.md#partitioned-datasets).
    #[serde(default, rename = "where")]
    pub slice: BTreeMap<String, FilterValue>,
    /// The cells that mark a missing value, as the tool that wrote the file
    /// marks one: `missing = ["NA", "N/A", "-"]` (R writes `NA`, pandas an
    /// empty cell or `NaN`). A cell that is exactly one of them, spaces
    /// aside, counts as an empty cell: a missing value in a column
    /// `columns` leaves untyped, an error ("value is missing") in one it
    /// types. In a CSV file, a cell that reads as a marker (`NA`, `NaN`,
    /// `N/A`, `-`, `NULL`, `None`, …) among numbers, not listed here, is an
    /// error at the cell that names this key.
    #[serde(default)]
    pub missing: Vec<String>,
    /// Strong-scaling analysis: speedup and parallel efficiency.
    #[serde(default)]
    pub scaling: Option<Scaling>,
    /// How prose names the columns' values, by column: `procs = { unit =
    /// "processes" }` writes a configuration as "32 processes", `size_bytes =
    /// { unit = "bytes" }` as "1 MiB" (binary prefixes), and `timesteps_per_s
    /// = { higher = "faster", lower = "slower" }` words a difference as "8.8%
    /// faster". A column without a label is named by its id (`procs = 32`).
    #[serde(default)]
    pub labels: BTreeMap<String, ColumnLabel>,
    /// Where each derived column's expression is in book.toml (filled in after parsing).
    #[serde(skip)]
    pub derive_at: BTreeMap<String, Location>,
    /// Where each derived column's name is in book.toml (filled in after parsing).
    #[serde(skip)]
    pub derive_key_at: BTreeMap<String, Location>,
    /// Where each value of the section is in book.toml, by its path below it
    /// (`exclude.0.where.procs`; filled in after parsing).
    #[serde(skip)]
    pub at: Locations,
    /// Where each key of the section is in book.toml, likewise (filled in after parsing).
    #[serde(skip)]
    pub keys_at: Locations,
}

/// How prose names one column and its values.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnLabel {
    /// What the column measures, in words (`message size`, `throughput`).
    #[serde(default)]
    pub name: Option<String>,
    /// Unit written after a value (`processes`, `nodes`, `µs`); `bytes`
    /// writes sizes with binary prefixes (`1 MiB`). A plural unit is made
    /// singular for 1 (`1 process`). A unit of time (`s`, `ms`, `µs`, `ns`,
    /// `min`, `h`, alone or per something: `ns/op`) makes the column a time,
    /// whose changes are worded in time or as a ratio of speeds (see
    /// `higher`).
    #[serde(default)]
    pub unit: Option<String>,
    /// The word for a candidate whose value is higher than the baseline's
    /// (`faster` for a throughput: `8.8% faster`); default `higher`. A time
    /// (a unit of time, or `lower = "faster"`, `higher = "slower"`) with a
    /// word of speed (`faster`, `quicker`, `slower`) is worded as the ratio
    /// of speeds, baseline's time over candidate's (`2.17× as fast` for a
    /// time 53.9% shorter, never `53.9% faster`); with other words (`costlier`)
    /// by them; with none, in time (`53.9% less time`). Methods: docs/methods.md.
    #[serde(default)]
    pub higher: Option<String>,
    /// The word for a lower value (`slower` for a throughput, `faster` for a
    /// time, worded then as `2.17× as fast`); default `lower`.
    #[serde(default)]
    pub lower: Option<String>,
    /// Labels for the column's levels, by value, which tables, charts,
    /// cards, prose and diagnostics show instead of the value: `levels =
    /// { "1" = "Level 1 (fastest)", "19" = "Level 19 (smallest)" }`.
    #[serde(default)]
    pub levels: BTreeMap<String, String>,
    /// The order of the column's levels, as computed tables list their rows
    /// and columns and charts their series and categories: `order = ["19",
    /// "9", "1"]`; levels not listed follow, in their own order (numbers by
    /// value). The environment column's order is that of its
    /// `[environments]`.
    #[serde(default)]
    pub order: Vec<String>,
}

/// Runs removed from the analysis, with the reason.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exclusion {
    /// The rows removed, as a metric's `where`: `{ environment = "bare-metal",
    /// procs = 256, run = 1 }` (a list or a `{ min, max }` range matches several).
    #[serde(rename = "where")]
    pub rows: BTreeMap<String, FilterValue>,
    /// Why, in words, shown with the exclusion: `"node 3 was swapping (job log)"`.
    pub reason: String,
}

/// The type a column's values must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ColumnType {
    /// Any text.
    Text,
    /// A whole number.
    Integer,
    /// A finite number.
    Number,
    /// A finite number greater than zero.
    Positive,
    /// A finite number, zero or more.
    NonNegative,
    /// A finite number from 0 to 100.
    Percent,
}

/// Which columns a scaling analysis uses.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scaling {
    /// Column holding the number of processes (the smallest count is the
    /// reference); its values are whole numbers of 1 or more.
    pub by: String,
    /// Column measured, such as throughput or time.
    pub value: String,
    /// `higher` when the value is a throughput, `lower` when it is a time.
    pub better: Better,
}

/// Which direction of a value is an improvement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Better {
    /// Larger values are better.
    Higher,
    /// Smaller values are better.
    Lower,
}

/// Where a results table's values come from.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Provenance {
    /// Measured run by run (the default): the only data inference is drawn from.
    #[default]
    Measured,
    /// Rebuilt from figures published elsewhere, such as a paper's means.
    Reconstructed,
    /// The output of a model or simulator of the system, not of the system.
    Simulated,
    /// Made up, for a template, a test or a demonstration.
    Synthetic,
}

impl Provenance {
    /// Whether the values were measured.
    pub fn measured(self) -> bool {
        self == Provenance::Measured
    }

    /// The word for it: `measured`, `reconstructed`, `simulated`, `synthetic`.
    pub fn word(self) -> &'static str {
        match self {
            Provenance::Measured => "measured",
            Provenance::Reconstructed => "reconstructed",
            Provenance::Simulated => "simulated",
            Provenance::Synthetic => "synthetic",
        }
    }
}
