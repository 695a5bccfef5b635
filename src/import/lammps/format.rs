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

    fn about(&self) -> &'static str {
        "Turn LAMMPS logs into rows of results/lammps.csv, one per run"
    }

    fn examples(&self) -> &'static str {
        "Examples:
  # 160 logs whose paths give the environment, nodes, ranks and run:
  report import lammps --pattern '{env}/lammps-{nodes}-{procs}-{run}.out' logs/
  # Any file name under any folder of each environment (* one path part, ** any):
  report import lammps --pattern '{env}/**/*.out' logs/
  # A Metrics Operator capture (JSON) of five runs: five rows:
  report import lammps --env kubernetes --nodes 16 crd-lammps.json
  # See the rows without writing them:
  report import lammps --env bare-metal --dry-run run-7.out"
    }

    fn columns(&self) -> &'static str {
        "One row per `Loop time` line, in plain logs, concatenated logs, job output (Slurm, Flux, LSF, ReFrame, kubectl logs) or JSON and YAML documents whose strings hold the log. Ranks come from the log, nodes from --nodes, the pattern, or the launcher line (srun -N, flux run -N, jsrun -r)."
    }

    fn programs(&self) -> &'static [&'static str] {
        &["lmp", "lammps"]
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
