//! LAMMPS as an import format: each run one row of `results/lammps.csv`.

use super::{LammpsRun, parse_lines};
use crate::format::plain;
use crate::import::Refusal;
use crate::import::format::{Format, Input, Labelling, Read, Table, TableRun};

/// Columns of the LAMMPS results file.
pub const COLUMNS: [&str; 22] = [
    "environment",
    "nodes",
    "procs",
    "mpi_tasks",
    "omp_threads",
    "run",
    "atoms",
    "steps",
    "loop_time_s",
    "timesteps_per_s",
    "cpu_use_pct",
    "pair_pct",
    "neigh_pct",
    "comm_pct",
    "output_pct",
    "modify_pct",
    "other_pct",
    "total_wall_time_s",
    "lammps_version",
    "run_in_file",
    "source",
    "source_sha256",
];

/// `report import lammps`.
#[derive(Debug)]
pub struct Lammps;

impl Format for Lammps {
    fn name(&self) -> &'static str {
        "lammps"
    }

    fn labelling(&self) -> Labelling {
        Labelling::Mpi { default_procs: None }
    }

    fn read(&self, file: &Input<'_>) -> Result<Read, Refusal> {
        let parsed = parse_lines(file.lines)?;
        let mut table = Table::new("lammps", &COLUMNS, &[]);
        table.runs = parsed.runs.iter().enumerate().map(|(i, run)| table_run(run, i + 1)).collect();
        Ok(Read { tables: vec![table], notes: parsed.notes, nodes: parsed.nodes })
    }
}

/// One LAMMPS run as a row in [`COLUMNS`] order (labels left empty).
fn table_run(run: &LammpsRun, in_file: usize) -> TableRun {
    let opt = |v: Option<f64>| v.map(plain).unwrap_or_default();
    let count = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
    let mut row = vec![String::new(); 3];
    row.extend([count(run.mpi_tasks), count(run.omp_threads), String::new()]);
    row.extend([run.atoms.to_string(), run.steps.to_string()]);
    row.extend([plain(run.loop_time_s), plain(run.timesteps_per_s), opt(run.cpu_use_pct)]);
    row.extend(run.breakdown.iter().map(|v| opt(*v)));
    row.extend([opt(run.total_wall_time_s), run.version.clone()]);
    row.extend([String::new(), String::new(), String::new()]);
    TableRun { launch: run.launch, procs: Some(run.procs), in_file, rows: vec![row] }
}
