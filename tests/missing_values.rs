//! Issue 43, point 8: missing values as exports write them. Over seeded
//! shapes of results (1 to 3 value columns, each typed in book.toml or not,
//! 2 to 9 runs per environment, a marker of R, pandas or a spreadsheet in 1
//! to 3 cells of one column): a marker that `missing` does not declare is an
//! error at its first cell (file:line:col, computed here from the rows as
//! written) whose help names the key; a declared one reads exactly as an
//! empty cell does, by the existing rule (missing in an untyped column, an
//! error in a typed one), checked against the same file with those cells
//! left empty. Parquet has missing values of its own (nulls), which
//! `missing` does not apply to.

use std::path::Path;

use report::diagnostic::Diagnostics;
use report::project::SourceFile;
use report::results::ResultSet;

/// The markers the shapes use: R's, pandas', spreadsheets'.
const MARKERS: [&str; 8] = ["NA", "N/A", "-", "NaN", "nan", "<NA>", "#N/A", "NULL"];

/// A small deterministic generator (SplitMix64), so that each case is the
/// same on every run.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// One shape: the CSV's rows (header first), the column with the marker,
/// whether book.toml types each value column, the marker and its rows.
struct Shape {
    rows: Vec<Vec<String>>,
    typed: Vec<bool>,
    column: usize,
    marker: &'static str,
    marked: Vec<usize>,
}

/// The shape of `seed`.
fn shape(seed: u64) -> Shape {
    let mut draw = Draw(seed);
    let values = 1 + draw.below(3);
    let runs = 2 + draw.below(8);
    let typed: Vec<bool> = (0..values).map(|_| draw.below(2) == 0).collect();
    let mut header = vec!["environment".to_string(), "run".to_string()];
    header.extend((0..values).map(|v| format!("v{v}")));
    let mut rows = vec![header];
    for env in ["base", "cand"] {
        for run in 1..=runs {
            let mut row = vec![env.to_string(), run.to_string()];
            row.extend((0..values).map(|_| format!("{}.{}", 1 + draw.below(90), draw.below(100))));
            rows.push(row);
        }
    }
    let column = 2 + draw.below(values);
    let marker = MARKERS[draw.below(MARKERS.len())];
    let mut marked: Vec<usize> = (0..1 + draw.below(3)).map(|_| 1 + draw.below(2 * runs)).collect();
    marked.sort_unstable();
    marked.dedup();
    Shape { rows, typed, column, marker, marked }
}

impl Shape {
    /// The CSV with `cell` in the marked cells.
    fn csv(&self, cell: &str) -> String {
        let mut text = String::new();
        for (i, row) in self.rows.iter().enumerate() {
            let fields: Vec<&str> = row
                .iter()
                .enumerate()
                .map(|(c, f)| if c == self.column && self.marked.contains(&i) { cell } else { f })
                .collect();
            text.push_str(&fields.join(","));
            text.push('\n');
        }
        text
    }

    /// book.toml, declaring `missing` when given.
    fn book(&self, missing: Option<&str>) -> String {
        let columns: Vec<String> = (self.typed.iter().enumerate())
            .filter(|(_, t)| **t)
            .map(|(v, _)| format!("v{v} = \"positive\""))
            .chain(["environment = \"text\"".to_string(), "run = \"integer\"".to_string()])
            .collect();
        let missing = missing.map_or(String::new(), |m| format!("missing = [\"{m}\"]\n"));
        format!(
            "[book]\ntitle = \"t\"\n\n[study]\nbaseline = \"base\"\n\n\
             [environments.base]\nlabel = \"Base\"\n\n[environments.cand]\nlabel = \"Cand\"\n\n\
             [data.runs]\nkey = [\"environment\", \"run\"]\ncolumns = {{ {} }}\n{missing}",
            columns.join(", ")
        )
    }

    /// `file:line:col` of the first marked cell, from the rows as written.
    fn first_cell(&self) -> String {
        let row = self.marked[0];
        let col = 1 + self.rows[row][..self.column].iter().map(|f| f.len() + 1).sum::<usize>();
        format!("results/runs.csv:{}:{col}", row + 1)
    }
}

/// The results of `csv` read under `book`.
fn load(book: &str, csv: &str) -> Result<ResultSet, Diagnostics> {
    let config = report::config::parse(Path::new("book.toml"), book).unwrap();
    let file = SourceFile::new("results/runs.csv", csv.as_bytes().to_vec());
    report::results::load(&[file], &config)
}

/// Each diagnostic as `location: message`.
fn said(errors: &Diagnostics) -> Vec<String> {
    errors.0.iter().map(|d| format!("{}: {}", d.location, d.message)).collect()
}

#[test]
fn an_undeclared_marker_is_an_error_at_its_first_cell_naming_the_key() {
    for seed in 0..200 {
        let shape = shape(seed);
        let errors = load(&shape.book(None), &shape.csv(shape.marker)).err().unwrap_or_else(|| {
            panic!("seed {seed}: `{}` in column {} read without error", shape.marker, shape.column)
        });
        let message = format!("`{}` marks a missing value", shape.marker);
        let first = errors.0.iter().find(|d| d.message.contains(&message));
        let first = first.unwrap_or_else(|| panic!("seed {seed}: {:?}", said(&errors)));
        assert_eq!(first.location.to_string(), shape.first_cell(), "seed {seed}");
        let hint = first.hint.as_deref().unwrap_or_default();
        let key = format!("missing = [\"{}\"]", shape.marker);
        assert!(hint.contains("[data.runs]") && hint.contains(&key), "seed {seed}: {hint}");
    }
}

#[test]
fn a_declared_marker_reads_as_an_empty_cell() {
    for seed in 0..200 {
        let shape = shape(seed);
        let declared = load(&shape.book(Some(shape.marker)), &shape.csv(shape.marker));
        let empty = load(&shape.book(None), &shape.csv(""));
        let typed = shape.typed[shape.column - 2];
        match (declared, empty) {
            (Ok(declared), Ok(empty)) => {
                assert!(!typed, "seed {seed}: an empty cell in a typed column read");
                let column = format!("v{}", shape.column - 2);
                let of = |set: &ResultSet| -> Vec<Option<u64>> {
                    let table = &set.tables["runs"];
                    let values = table.column(&column).unwrap().values.numbers().unwrap();
                    values.iter().map(|v| (!v.is_nan()).then(|| v.to_bits())).collect()
                };
                let (a, b) = (of(&declared), of(&empty));
                assert_eq!(a, b, "seed {seed}");
                let missing = a.iter().filter(|v| v.is_none()).count();
                assert_eq!(missing, shape.marked.len(), "seed {seed}: each marked cell is missing");
            }
            (Err(declared), Err(empty)) => {
                assert!(typed, "seed {seed}: {:?}", said(&declared));
                assert_eq!(said(&declared), said(&empty), "seed {seed}");
                assert!(said(&declared)[0].contains("value is missing"), "seed {seed}");
            }
            (declared, empty) => panic!(
                "seed {seed}: declared {:?}, empty {:?}",
                declared.err().map(|e| said(&e)),
                empty.err().map(|e| said(&e))
            ),
        }
    }
}

/// The markers of R and pandas, declared, in a file as R's `write.csv`
/// writes it (quoted text, `NA` unquoted), and a marker with spaces.
#[test]
fn r_s_na_and_padded_markers_read_as_missing() {
    let csv = "\"environment\",\"run\",\"t\"\n\"base\",1,1.5\n\"base\",2,NA\n\"cand\",1, NA \n\"cand\",2,2.5\n";
    let book = "[book]\ntitle = \"t\"\n\n[study]\nbaseline = \"base\"\n\n\
                [environments.base]\nlabel = \"Base\"\n\n[environments.cand]\nlabel = \"Cand\"\n\n\
                [data.runs]\nkey = [\"environment\", \"run\"]\nmissing = [\"NA\"]\n";
    let set = load(book, csv).unwrap_or_else(|e| panic!("{:?}", said(&e)));
    let values = set.tables["runs"].column("t").unwrap().values.numbers().unwrap().to_vec();
    assert_eq!(values.iter().filter(|v| v.is_nan()).count(), 2, "{values:?}");
    assert_eq!(values.iter().filter(|v| !v.is_nan()).sum::<f64>(), 4.0, "{values:?}");
}
