//! The floor for reading a results CSV: a minimal csv-crate program that parses
//! every row and groups the mean of every numeric column by its first three
//! text-or-integer columns. `benches/run.sh` times `report build` against it.
//!
//!     cargo bench --bench csv_floor -- FILE.csv

// A benchmark prints its results on standard output; the lint is for the library.
#![allow(clippy::print_stdout)]

use std::collections::HashMap;

fn main() {
    let path =
        std::env::args().nth(1).filter(|a| a != "--bench").expect("usage: csv_floor FILE.csv");
    let mut reader = csv::Reader::from_path(&path).expect("a readable CSV");
    let mut record = csv::ByteRecord::new();
    type Sums = (u64, Vec<f64>);
    let mut groups: HashMap<(Vec<u8>, Vec<u8>), Sums> = HashMap::new();
    while reader.read_byte_record(&mut record).expect("valid CSV") {
        let key = (record[0].to_vec(), record[2].to_vec());
        let entry = groups.entry(key).or_insert_with(|| (0, vec![0.0; record.len()]));
        entry.0 += 1;
        for (i, field) in record.iter().enumerate().skip(3) {
            if let Some(v) = std::str::from_utf8(field).ok().and_then(|s| s.parse::<f64>().ok()) {
                entry.1[i] += v;
            }
        }
    }
    let mut means: Vec<_> = groups
        .into_iter()
        .map(|(k, (n, sums))| (k, sums.iter().map(|s| s / n as f64).collect::<Vec<_>>()))
        .collect();
    means.sort_by(|a, b| a.0.cmp(&b.0));
    println!("{} groups", means.len());
}
