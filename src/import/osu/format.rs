//! OSU as an import format: each benchmark's tables to its own results
//! file, `results/osu_BENCHMARK.csv`, one row per run and message size.

use super::{OsuTable, by_benchmark, parse_lines};
use crate::import::Refusal;
use crate::import::format::{Format, Input, Labelling, Read, Table, TableRun};

/// Columns of every OSU results file around those of the benchmark's table.
const FIRST: [&str; 5] = ["environment", "nodes", "procs", "run", "benchmark"];
const LAST: [&str; 4] = ["osu_version", "run_in_file", "source", "source_sha256"];

/// OSU processes when neither the flags nor a launcher line say: a point-to-point pair.
const DEFAULT_PROCS: u64 = 2;

/// `report import osu`.
#[derive(Debug)]
pub struct Osu;

impl Format for Osu {
    fn name(&self) -> &'static str {
        "osu"
    }

    fn about(&self) -> &'static str {
        "Turn OSU micro-benchmark output into rows of results/osu_BENCHMARK.csv, one per run and message size"
    }

    fn examples(&self) -> &'static str {
        "Examples:
  # Output of one environment between two nodes:
  report import osu --env kubernetes --nodes 2 osu-output/
  # Job output of many benchmarks and runs, ranks and nodes from each `jsrun -n 4 -r 1` line:
  report import osu --env lassen lassen_osu_4_nodes.out
  # Files named osu_latency-3.out or osu-latency-32-3.out, in a folder per environment:
  report import osu --nodes 2 --pattern '{env}/*-{run}.out' osu/"
    }

    fn columns(&self) -> &'static str {
        "Every benchmark of the suite goes to its own file, results/osu_BENCHMARK.csv (osu_latency, osu_bw, osu_mbw_mr, osu_barrier, ...), with a `benchmark` column and every column its table prints. Ranks come from --procs, the pattern, or the launcher line (mpirun -np, mpiexec -n, srun -n, flux run -n, jsrun -n), else 2."
    }

    fn programs(&self) -> &'static [&'static str] {
        &["osu_"]
    }

    fn labelling(&self) -> Labelling {
        Labelling::Mpi { default_procs: Some(DEFAULT_PROCS) }
    }

    fn read(&self, file: &Input<'_>) -> Result<Read, Refusal> {
        let parsed = parse_lines(file.lines)?;
        let tables = by_benchmark(&parsed)
            .into_iter()
            .map(|(benchmark, tables)| table(benchmark, &tables))
            .collect();
        Ok(Read { tables, notes: parsed.notes, nodes: None })
    }
}

/// A table's column as a column of the results file: renamed if it would
/// take the name of one the importer fills.
fn rename(column: &str) -> String {
    if FIRST.contains(&column) || LAST.contains(&column) {
        format!("value_{column}")
    } else {
        column.to_string()
    }
}

/// The rows of one benchmark's tables: every column any of them prints,
/// each table one run.
fn table(benchmark: &str, tables: &[&OsuTable]) -> Table {
    let mut out = Table::new(benchmark, &FIRST, &[]);
    for t in tables {
        for c in &t.columns {
            let c = rename(c);
            if !out.columns.contains(&c) {
                out.columns.push(c);
            }
        }
    }
    out.columns.extend(LAST.iter().map(|c| c.to_string()));
    let (bench_at, version_at) = (4, out.columns.len() - LAST.len());
    for (i, t) in tables.iter().enumerate() {
        let mut template = out.blank();
        template[bench_at] = benchmark.to_string();
        template[version_at].clone_from(&t.version);
        let indices: Vec<usize> = t
            .columns
            .iter()
            .map(|c| out.columns.iter().position(|x| *x == rename(c)).unwrap_or(0))
            .collect();
        let rows = t
            .rows
            .iter()
            .map(|cells| {
                let mut row = template.clone();
                for (at, value) in indices.iter().zip(cells) {
                    row[*at].clone_from(value);
                }
                row
            })
            .collect();
        out.runs.push(TableRun { launch: t.launch, procs: None, in_file: i + 1, rows });
    }
    out
}
