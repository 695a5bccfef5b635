//! OSU micro-benchmark output: osu_latency, osu_bw, osu_bibw and osu_allreduce,
//! versions 5.x and 7.x, extra columns, several tables per file, noise around them.

use super::Refusal;

/// Which benchmark a table comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Benchmark {
    /// `osu_latency`: one-way latency in µs.
    Latency,
    /// `osu_bw`: bandwidth in MB/s.
    Bandwidth,
    /// `osu_bibw`: bi-directional bandwidth in MB/s.
    BiBandwidth,
    /// `osu_allreduce`: average latency in µs.
    Allreduce,
}

impl Benchmark {
    /// The results file stem: `osu_latency`, `osu_bw`, `osu_bibw`, `osu_allreduce`.
    pub fn file(self) -> &'static str {
        match self {
            Benchmark::Latency => "osu_latency",
            Benchmark::Bandwidth => "osu_bw",
            Benchmark::BiBandwidth => "osu_bibw",
            Benchmark::Allreduce => "osu_allreduce",
        }
    }

    /// The value column: `latency_us` or `bandwidth_mb_s`.
    pub fn column(self) -> &'static str {
        match self {
            Benchmark::Latency | Benchmark::Allreduce => "latency_us",
            Benchmark::Bandwidth | Benchmark::BiBandwidth => "bandwidth_mb_s",
        }
    }

    fn from_title(title: &str) -> Option<Self> {
        let title = title.to_lowercase();
        if title.contains("allreduce") {
            Some(Benchmark::Allreduce)
        } else if title.contains("bi-directional bandwidth") {
            Some(Benchmark::BiBandwidth)
        } else if title.contains("bandwidth") {
            Some(Benchmark::Bandwidth)
        } else if title.contains("latency") {
            Some(Benchmark::Latency)
        } else {
            None
        }
    }
}

/// One table: a benchmark run, one row per message size.
#[derive(Debug, Clone, PartialEq)]
pub struct OsuTable {
    /// The benchmark.
    pub benchmark: Benchmark,
    /// Version from the title, such as `5.8`.
    pub version: String,
    /// (message size in bytes, value) per row.
    pub rows: Vec<(u64, f64)>,
}

/// Every table in `text`, in order. A row whose value is NaN, infinite or
/// negative refuses the whole file at its line: a file imports whole or not
/// at all, so that once fixed it imports without doubling the good tables.
pub fn parse(text: &str) -> Result<Vec<OsuTable>, Refusal> {
    let mut tables: Vec<OsuTable> = Vec::new();
    let mut open = false;
    for (i, line) in text.lines().map(str::trim).enumerate() {
        if let Some(title) = line.strip_prefix("# OSU MPI") {
            match Benchmark::from_title(title) {
                Some(benchmark) => {
                    let version = title.rsplit(" v").next().unwrap_or("").trim().to_string();
                    tables.push(OsuTable { benchmark, version, rows: Vec::new() });
                    open = true;
                }
                None => open = false,
            }
            continue;
        }
        if line.starts_with('#') || !open {
            continue;
        }
        let mut fields = line.split_whitespace();
        let (size, word) = (fields.next().unwrap_or(""), fields.next().unwrap_or(""));
        let (Ok(size), Ok(value)) = (size.parse::<u64>(), word.parse::<f64>()) else {
            if tables.last().is_some_and(|t| !t.rows.is_empty()) {
                open = false;
            }
            continue;
        };
        if let Some(table) = tables.last_mut() {
            check(table, size, value, word).map_err(|refusal| refusal.at(i + 1))?;
            table.rows.push((size, value));
        }
    }
    tables.retain(|t| !t.rows.is_empty());
    if tables.is_empty() {
        return Err(Refusal::new(
            "no OSU table: expected a `# OSU MPI … Test` title followed by `size value` rows",
        ));
    }
    Ok(tables)
}

/// Refuse a value (`word`) of `table` that no run measures: NaN, infinite
/// or negative.
fn check(table: &OsuTable, size: u64, value: f64, word: &str) -> Result<(), Refusal> {
    if value.is_finite() && value >= 0.0 {
        return Ok(());
    }
    let what = match table.benchmark.column() {
        "latency_us" => "latency",
        _ => "bandwidth",
    };
    Err(Refusal::new(format!(
        "the {} table gives a {what} of `{word}` at {size} bytes, which is not a finite number of zero or more; no row of this file was imported",
        table.benchmark.file()
    ))
    .hint("the benchmark failed at that size: run it again, or remove the broken table from the file (the file's other tables are then imported)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_version_5_latency_and_bandwidth() {
        let text = "# OSU MPI Latency Test v5.8\n# Size          Latency (us)\n0                       7.46\n1                       7.49\n";
        let tables = parse(text).unwrap();
        assert_eq!(
            tables,
            vec![OsuTable {
                benchmark: Benchmark::Latency,
                version: "5.8".into(),
                rows: vec![(0, 7.46), (1, 7.49)]
            }]
        );
        let bw = parse(
            "# OSU MPI Bandwidth Test v5.6.2\n# Size      Bandwidth (MB/s)\n1    1.43\n2    2.88\n",
        )
        .unwrap();
        assert_eq!(
            (bw[0].benchmark, bw[0].version.as_str(), bw[0].rows.len()),
            (Benchmark::Bandwidth, "5.6.2", 2)
        );
    }

    #[test]
    fn reads_version_7_with_datatype_and_extra_columns() {
        let text = "# OSU MPI Allreduce Latency Test v7.3\n# Datatype: MPI_CHAR.\n# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations\n\
            1                       1.52              1.40              1.63        1000\n2                       1.55              1.41              1.70        1000\n";
        let tables = parse(text).unwrap();
        assert_eq!(tables[0].benchmark, Benchmark::Allreduce);
        assert_eq!(tables[0].rows, vec![(1, 1.52), (2, 1.55)]);
    }

    #[test]
    fn reads_several_tables_and_skips_noise() {
        let text = "srun: job 1 started\n# OSU MPI Bi-Directional Bandwidth Test v5.6.2\n# Size      Bandwidth (MB/s)\n1  2.0\n2  4.0\n\
            real 0m1.2s\nWarning: something\n# OSU MPI Latency Test v5.6.2\n# Size  Latency (us)\n0  1.1\n{\"done\": true}\n";
        let tables = parse(text).unwrap();
        assert_eq!(tables.len(), 2);
        assert_eq!((tables[0].benchmark, tables[0].rows.len()), (Benchmark::BiBandwidth, 2));
        assert_eq!(
            (tables[1].benchmark, tables[1].rows.clone()),
            (Benchmark::Latency, vec![(0, 1.1)])
        );
    }

    #[test]
    fn refuses_files_without_tables() {
        assert!(parse("LAMMPS (8 Apr 2021)\n").is_err());
    }

    #[test]
    fn refuses_values_no_run_measures_at_their_line() {
        for value in ["nan", "-nan", "inf", "-1.5", "1e999"] {
            let text = format!(
                "# OSU MPI Bandwidth Test v5.8\n# Size  Bandwidth (MB/s)\n1  2.0\n2  {value}\n"
            );
            let refusal = parse(&text).unwrap_err();
            assert_eq!(refusal.line, Some(4), "{value}");
            assert!(
                refusal.reason.contains(&format!("bandwidth of `{value}` at 2 bytes")),
                "{}",
                refusal.reason
            );
        }
        assert_eq!(
            parse("# OSU MPI Latency Test v7.3\n# Size  Latency (us)\n0  0.00\n").unwrap()[0].rows,
            vec![(0, 0.0)]
        );
    }
}
