//! LAMMPS logs: every era since 2014, with or without scheduler noise around
//! LAMMPS's own text. One log yields one run (its last `Loop time` block).

use super::Refusal;

/// What one LAMMPS log says about its run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LammpsRun {
    /// Version from the banner: `7 Feb 2024`.
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
}

/// Rows of the timing breakdown, in `breakdown` order, with the pre-2016 names.
const SECTIONS: [(&str, &str); 6] = [
    ("Pair", "Pair"),
    ("Neigh", "Neigh"),
    ("Comm", "Comm"),
    ("Output", "Outpt"),
    ("Modify", "Modify"),
    ("Other", "Other"),
];

/// Parse one log.
pub fn parse(text: &str) -> Result<LammpsRun, Refusal> {
    let version = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("LAMMPS ("))
        .map(|v| v.trim_end_matches(')').split(" - ").next().unwrap_or(v).trim().to_string());
    let Some(loop_at) = text.rfind("Loop time of ") else {
        return Err(match version {
            Some(_) => Refusal::new(
                "the log has no `Loop time` line: the run did not finish (a killed job is a failed run, not a zero)",
            ),
            None => Refusal::new(
                "not a LAMMPS log: it has neither a `LAMMPS (version)` banner nor a `Loop time` line",
            ),
        });
    };
    let block = &text[loop_at..];
    let loop_line = block.lines().next().unwrap_or("");
    let words: Vec<&str> = loop_line.split_whitespace().collect();
    // Loop time of 0.852877 on 1 procs for 100 steps with 32000 atoms
    let number = |i: usize| words.get(i).and_then(|w| w.parse::<f64>().ok());
    let (Some(loop_time_s), Some(procs), Some(steps), Some(atoms)) =
        (number(3), number(5), number(8), number(11))
    else {
        return Err(Refusal::new(format!("cannot read the `Loop time` line: `{loop_line}`")));
    };
    if loop_time_s <= 0.0 {
        return Err(Refusal::new("the loop time is zero: the run did not do any work"));
    }
    let mut run = LammpsRun {
        version: version.unwrap_or_default(),
        procs: procs as u64,
        atoms: atoms as u64,
        steps: steps as u64,
        loop_time_s,
        timesteps_per_s: steps / loop_time_s,
        ..LammpsRun::default()
    };
    for line in block.lines().take(40) {
        performance(line, &mut run);
        breakdown(line, &mut run);
    }
    Ok(run)
}

/// The Performance and CPU-use lines.
fn performance(line: &str, run: &mut LammpsRun) {
    if let Some(rest) = line.strip_prefix("Performance:") {
        if let Some(value) = rest.split(',').find(|p| p.trim_end().ends_with("timesteps/s"))
            && let Some(v) = value.split_whitespace().next().and_then(|v| v.parse().ok())
        {
            run.timesteps_per_s = v;
        }
    } else if line.contains("% CPU use with") {
        // 99.6% CPU use with 256 MPI tasks x 1 OpenMP threads   (2016: "x no OpenMP threads")
        let words: Vec<&str> = line.split_whitespace().collect();
        run.cpu_use_pct = words.first().and_then(|w| w.trim_end_matches('%').parse().ok());
        run.mpi_tasks = words.get(4).and_then(|w| w.parse().ok());
        run.omp_threads =
            words.get(8).and_then(|w| if *w == "no" { Some(1) } else { w.parse().ok() });
    }
}

/// One row of the timing breakdown, new (`Pair | … | 51.49`) or old
/// (`Pair  time (%) = 0.505 (80.38)`) format.
fn breakdown(line: &str, run: &mut LammpsRun) {
    for (i, (name, old)) in SECTIONS.iter().enumerate() {
        let value = if let Some(rest) =
            line.strip_prefix(name).filter(|r| r.trim_start().starts_with('|'))
        {
            rest.rsplit('|').next().and_then(|v| v.trim().parse().ok())
        } else if let Some(rest) =
            line.strip_prefix(old).filter(|r| r.trim_start().starts_with("time (%)"))
        {
            rest.rsplit('(').next().and_then(|v| v.trim().trim_end_matches(')').parse().ok())
        } else {
            None
        };
        if value.is_some() {
            run.breakdown[i] = value;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG_2014: &str = "LAMMPS (1 Feb 2014)\nLoop time of 0.628341 on 4 procs for 100 steps with 32000 atoms\n\n\
        Pair  time (%) = 0.505093 (80.3851)\nNeigh time (%) = 0.0659957 (10.5032)\nComm  time (%) = 0.0406293 (6.46611)\n\
        Outpt time (%) = 8.43406e-05 (0.0134227)\nOther time (%) = 0.016539 (2.63216)\n";

    #[test]
    fn reads_the_pre_2016_format() {
        let run = parse(LOG_2014).unwrap();
        assert_eq!(
            (run.version.as_str(), run.procs, run.steps, run.atoms),
            ("1 Feb 2014", 4, 100, 32000)
        );
        // No Performance line: 100 steps / 0.628341 s = 159.149... timesteps/s.
        assert!((run.timesteps_per_s - 100.0 / 0.628341).abs() < 1e-9);
        assert_eq!(
            run.breakdown,
            [Some(80.3851), Some(10.5032), Some(6.46611), Some(0.0134227), None, Some(2.63216)]
        );
        assert_eq!((run.cpu_use_pct, run.mpi_tasks, run.omp_threads), (None, None, None));
    }

    #[test]
    fn reads_the_2016_format_with_no_openmp_threads() {
        let log = "LAMMPS (15 Feb 2016)\nLoop time of 0.640733 on 4 procs for 100 steps with 32000 atoms\n\n\
            Performance: 67422.779 tau/day, 156.071 timesteps/s\n99.7% CPU use with 4 MPI tasks x no OpenMP threads\n\n\
            MPI task timing breakdown:\nSection |  min time  |  avg time  |  max time  |%varavg| %total\n\
            Pair    | 0.49487    | 0.51733    | 0.5322     |   1.9 | 80.74\nModify  | 0.012961   | 0.013863   | 0.014491   |   0.5 |  2.16\n\
            Other   |            | 0.003448   |            |       |  0.54\n";
        let run = parse(log).unwrap();
        assert_eq!(run.timesteps_per_s, 156.071);
        assert_eq!(
            (run.cpu_use_pct, run.mpi_tasks, run.omp_threads),
            (Some(99.7), Some(4), Some(1))
        );
        assert_eq!(run.breakdown[0], Some(80.74));
        assert_eq!(run.breakdown[4], Some(2.16));
        assert_eq!(run.breakdown[5], Some(0.54));
    }

    #[test]
    fn reads_the_2024_format_inside_scheduler_noise() {
        let log = "Defaulted container \"x\" out of: x, y (init)\nLAMMPS (7 Feb 2024 - Development - 8819275)\n\
            OMP_NUM_THREADS environment is not set. Defaulting to 1 thread. (src/comm.cpp:98)\n\
            Loop time of 26.01 on 256 procs for 100 steps with 622592 atoms\n\n\
            Performance: 0.033 ns/day, 722.501 hours/ns, 3.845 timesteps/s, 2.394 Matom-step/s\n\
            99.6% CPU use with 256 MPI tasks x 1 OpenMP threads\n\nComm    | 0.083803   | 1.5118     | 3.5155     |  57.0 |  5.81\n\
            real 0m27s\n{\"scheduler\": \"done\"}\n";
        let run = parse(log).unwrap();
        assert_eq!(run.version, "7 Feb 2024");
        assert_eq!(
            (run.procs, run.mpi_tasks, run.omp_threads, run.timesteps_per_s),
            (256, Some(256), Some(1), 3.845)
        );
        assert_eq!(run.breakdown[2], Some(5.81));
    }

    #[test]
    fn refuses_killed_runs_and_other_files() {
        let killed = parse("LAMMPS (8 Apr 2021)\nSetting up Verlet run ...\nStep Temp\n0 3.0\n")
            .unwrap_err();
        assert!(killed.reason.contains("no `Loop time` line"), "{}", killed.reason);
        let other = parse("# OSU MPI Latency Test v5.8\n0 1.0\n").unwrap_err();
        assert!(other.reason.contains("not a LAMMPS log"), "{}", other.reason);
    }
}
