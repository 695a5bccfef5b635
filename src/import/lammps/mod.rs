//! LAMMPS logs: every era since 2014, with or without job-runner noise
//! around LAMMPS's own text, one file holding one run or many (several `run`
//! commands, concatenated logs, a Metrics Operator capture). Each `Loop
//! time` line is one run.

mod fields;
mod format;

pub use format::{COLUMNS, Lammps};

use super::launcher::{self, Launch};
use super::unwrap::Line;
use super::{Note, Refusal};

/// What a LAMMPS log says about one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LammpsRun {
    /// Version from the banner before the run, whole: `29 Sep 2021 - Update 2`.
    pub version: String,
    /// Total processes (MPI tasks × OpenMP threads).
    pub procs: u64,
    /// MPI tasks, when the log says.
    pub mpi_tasks: Option<u64>,
    /// OpenMP threads per task, when the log says (`no` means 1).
    pub omp_threads: Option<u64>,
    /// Atoms.
    pub atoms: u64,
    /// Timesteps.
    pub steps: u64,
    /// Loop time in seconds.
    pub loop_time_s: f64,
    /// From the Performance line, else steps / loop time.
    pub timesteps_per_s: f64,
    /// CPU use %, when the log says.
    pub cpu_use_pct: Option<f64>,
    /// %total of Pair, Neigh, Comm, Output, Modify, Other, when the log has a breakdown.
    pub breakdown: [Option<f64>; 6],
    /// `Total wall time` of the LAMMPS process, in whole seconds, when it ran this run only.
    pub total_wall_time_s: Option<f64>,
    /// The 1-based line of the file where its `Loop time` line is.
    pub at: usize,
    /// The last launcher line before the run, if any.
    pub launch: Option<Launch>,
}

/// The runs of one log, and what could not be read.
#[derive(Debug, Clone, Default)]
pub struct Parsed {
    /// The finished runs, in file order.
    pub runs: Vec<LammpsRun>,
    /// Runs that started and did not finish, and the like.
    pub notes: Vec<Note>,
    /// Nodes from a wrapper's metadata for the whole file (set by the caller).
    pub nodes: Option<u64>,
}

/// Lines after a `Loop time` line in which its Performance, CPU-use and breakdown lines are.
const WINDOW: usize = 40;

/// The state of a read: the banner and launcher in force and the runs so far.
#[derive(Default)]
struct Reader {
    parsed: Parsed,
    version: Option<String>,
    banner_at: Option<usize>,
    launch: Option<Launch>,
    /// Index of the first run of the current LAMMPS process.
    process_start: usize,
    /// Lines left of the current run's window.
    window: usize,
}

impl Reader {
    /// A new LAMMPS process (banner) or the end of the file: a process that
    /// printed no `Loop time` line did not finish, which is said.
    fn close_process(&mut self) {
        if let Some(at) = self.banner_at
            && self.parsed.runs.len() == self.process_start
        {
            self.parsed.notes.push(Note::new(at, "the LAMMPS run that starts here has no `Loop time` line: it did not finish (a killed job is a failed run, not a zero) and gives no row"));
        }
        self.process_start = self.parsed.runs.len();
    }

    /// `Total wall time` ends a process: it belongs to its run if it had one only.
    fn wall_time(&mut self, seconds: f64) {
        if let [run] = &mut self.parsed.runs[self.process_start..] {
            run.total_wall_time_s = Some(seconds);
        }
        self.banner_at = None;
        self.process_start = self.parsed.runs.len();
        self.window = 0;
    }
}

/// The runs of one log. A run whose figures cannot be right (not a number,
/// NaN or infinite, zero or negative steps, atoms, processes or loop time)
/// refuses the file at its line, with why: a file imports whole or not at all.
pub fn parse(text: &str) -> Result<Parsed, Refusal> {
    parse_lines(&super::unwrap::lines(std::path::Path::new(""), text).1)
}

/// [`parse`] of the lines of a file, unwrapped ([`super::unwrap::lines`]).
pub fn parse_lines(lines: &[Line]) -> Result<Parsed, Refusal> {
    let refuse = |reason: String, at: usize| {
        Refusal::new(reason).at(at).hint("a run whose figures cannot be right is left out: rerun it, or leave this log out of the import (the other logs are imported)")
    };
    let mut reader = Reader::default();
    for line in lines {
        let text = line.text.trim_end();
        if let Some(version) = banner(text) {
            reader.close_process();
            (reader.version, reader.banner_at, reader.window) = (Some(version), Some(line.at), 0);
        } else if let Some(start) = text.find("Loop time of ") {
            let mut run = fields::loop_line(&text[start..]).map_err(|r| refuse(r, line.at))?;
            run.version = reader.version.clone().unwrap_or_default();
            (run.at, run.launch) = (line.at, reader.launch);
            reader.parsed.runs.push(run);
            reader.window = WINDOW;
        } else if let Some(wall) = fields::wall_time(text) {
            reader.wall_time(wall.map_err(|r| refuse(r, line.at))?);
        } else if let Some(launch) = launcher::parse(text, line.at) {
            reader.launch = Some(launch);
        } else if reader.window > 0
            && let Some(run) = reader.parsed.runs.last_mut()
        {
            reader.window -= 1;
            fields::performance(text, run)
                .and_then(|()| fields::breakdown(text, run))
                .map_err(|r| refuse(r, line.at))?;
        }
    }
    reader.close_process();
    if reader.parsed.runs.is_empty() {
        return Err(match reader.version {
            Some(_) => Refusal::new(
                "the log has no `Loop time` line: the run did not finish (a killed job is a failed run, not a zero)",
            ),
            None => Refusal::new(
                "not a LAMMPS log: it has neither a `LAMMPS (version)` banner nor a `Loop time` line",
            ),
        });
    }
    Ok(reader.parsed)
}

/// The version of a banner line, whole: `LAMMPS (29 Sep 2021 - Update 2)`
/// is `29 Sep 2021 - Update 2`, `LAMMPS (7 Feb 2024 - Development -
/// e51a656)` is `7 Feb 2024 - Development - e51a656`.
fn banner(text: &str) -> Option<String> {
    let version = text.trim().strip_prefix("LAMMPS (")?;
    let version = version.strip_suffix(')').unwrap_or(version);
    Some(version.trim().to_string())
}

#[cfg(test)]
mod tests;
