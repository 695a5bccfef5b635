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

/// Parse one log. A run whose figures cannot be right (not a number, NaN or
/// infinite, zero or negative steps, atoms, processes or loop time) is
/// refused at its line, with why.
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
    let first_line = text[..loop_at].matches('\n').count() + 1;
    let refuse = |reason: String, line: usize| {
        Refusal::new(reason).at(line).hint("a run whose figures cannot be right is left out: rerun it, or leave this log out of the import (the other logs are imported)")
    };
    let block = &text[loop_at..];
    let mut run = loop_line(block.lines().next().unwrap_or(""))
        .map_err(|reason| refuse(reason, first_line))?;
    run.version = version.unwrap_or_default();
    for (i, line) in block.lines().enumerate().take(40) {
        performance(line, &mut run)
            .and_then(|()| breakdown(line, &mut run))
            .map_err(|reason| refuse(reason, first_line + i))?;
    }
    Ok(run)
}

/// `Loop time of 0.852877 on 1 procs for 100 steps with 32000 atoms`: the
/// run with its loop time, processes, steps, atoms and timesteps/s.
fn loop_line(line: &str) -> Result<LammpsRun, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let word = |i: usize| words.get(i).copied().unwrap_or("");
    let count = |i: usize, what: &str| positive_integer(word(i), what);
    let loop_time_s = figure(word(3), "the loop time")?;
    if loop_time_s <= 0.0 {
        return Err(format!(
            "the loop time is `{}`: a finished run takes a time greater than zero",
            word(3)
        ));
    }
    let (procs, steps, atoms) =
        (count(5, "the process count")?, count(8, "the step count")?, count(11, "the atom count")?);
    Ok(LammpsRun {
        procs,
        atoms,
        steps,
        loop_time_s,
        timesteps_per_s: steps as f64 / loop_time_s,
        ..LammpsRun::default()
    })
}

/// A finite number, or why `word` is not one.
fn figure(word: &str, what: &str) -> Result<f64, String> {
    match word.parse::<f64>() {
        Ok(value) if value.is_finite() => Ok(value),
        Ok(_) => Err(format!("{what} is `{word}`, which is not a finite number")),
        Err(_) => Err(format!("cannot read {what}: `{word}` is not a number")),
    }
}

/// A whole number greater than zero, or why `word` is not one.
fn positive_integer(word: &str, what: &str) -> Result<u64, String> {
    match word.parse::<u64>() {
        Ok(0) => Err(format!("{what} is 0: a run needs at least one")),
        Ok(value) => Ok(value),
        Err(_) => Err(format!("{what} is `{word}`, which is not a whole number greater than zero")),
    }
}

/// The Performance and CPU-use lines. A figure there that is not a number
/// is left out, as before 2016 when the lines did not exist; one that is a
/// number but cannot be right refuses the run.
fn performance(line: &str, run: &mut LammpsRun) -> Result<(), String> {
    if let Some(rest) = line.strip_prefix("Performance:") {
        if let Some(value) = rest.split(',').find(|p| p.trim_end().ends_with("timesteps/s"))
            && let Some(rate) = number(value.split_whitespace().next().unwrap_or(""))
        {
            if !rate.is_finite() || rate <= 0.0 {
                return Err(format!(
                    "the Performance line gives {rate} timesteps/s: a finished run makes progress at a finite rate"
                ));
            }
            run.timesteps_per_s = rate;
        }
    } else if line.contains("% CPU use with") {
        // 99.6% CPU use with 256 MPI tasks x 1 OpenMP threads   (2016: "x no OpenMP threads")
        let words: Vec<&str> = line.split_whitespace().collect();
        let word = |i: usize| words.get(i).copied().unwrap_or("");
        run.cpu_use_pct = number(word(0).trim_end_matches('%'));
        if let Some(cpu) = run.cpu_use_pct.filter(|c| !c.is_finite() || *c < 0.0) {
            return Err(format!(
                "the CPU use is {cpu}%, which is not a finite number of zero or more"
            ));
        }
        let count = |w: &str, what: &str| match w.parse::<u64>() {
            Ok(0) => Err(format!("the log gives 0 {what}: a run needs at least one")),
            Ok(n) => Ok(Some(n)),
            Err(_) => Ok(None),
        };
        run.mpi_tasks = count(word(4), "MPI tasks")?;
        run.omp_threads = if word(8) == "no" { Some(1) } else { count(word(8), "OpenMP threads")? };
    }
    Ok(())
}

/// `word` as a number (NaN and infinities included, to be refused by name).
fn number(word: &str) -> Option<f64> {
    word.parse().ok()
}

/// One row of the timing breakdown, new (`Pair | … | 51.49`) or old
/// (`Pair  time (%) = 0.505 (80.38)`) format; its %total must be a finite
/// number, not below zero.
fn breakdown(line: &str, run: &mut LammpsRun) -> Result<(), String> {
    for (i, (name, old)) in SECTIONS.iter().enumerate() {
        let word = if let Some(rest) =
            line.strip_prefix(name).filter(|r| r.trim_start().starts_with('|'))
        {
            rest.rsplit('|').next().map(str::trim)
        } else if let Some(rest) =
            line.strip_prefix(old).filter(|r| r.trim_start().starts_with("time (%)"))
        {
            rest.rsplit('(').next().map(|v| v.trim().trim_end_matches(')'))
        } else {
            None
        };
        // A row whose last field is not a number at all is not a breakdown row.
        let Some(value) = word.and_then(number) else { continue };
        let word = word.unwrap_or_default();
        if !value.is_finite() || value < 0.0 {
            return Err(format!(
                "the timing breakdown gives {name} `{word}` %total, which is not a finite number of zero or more"
            ));
        }
        run.breakdown[i] = Some(value);
    }
    Ok(())
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

    #[test]
    fn refuses_figures_that_cannot_be_right_at_their_line() {
        let log = "LAMMPS (15 Feb 2016)\nLoop time of 0.64 on 4 procs for 100 steps with 32000 atoms\n\
            Performance: 67422.779 tau/day, 156.071 timesteps/s\n99.7% CPU use with 4 MPI tasks x 2 OpenMP threads\n\
            Pair    | 0.49487    | 0.51733    | 0.5322     |   1.9 | 80.74\n";
        assert_eq!(parse(log).unwrap().omp_threads, Some(2));
        for (from, to, line, why) in [
            ("of 0.64", "of NaN", 2, "the loop time is `NaN`, which is not a finite number"),
            ("of 0.64", "of 1e999", 2, "the loop time is `1e999`"),
            ("of 0.64", "of 0", 2, "the loop time is `0`"),
            ("of 0.64", "of -1", 2, "the loop time is `-1`"),
            ("on 4 procs", "on 0 procs", 2, "the process count is 0"),
            ("on 4 procs", "on 4.5 procs", 2, "the process count is `4.5`"),
            ("for 100 steps", "for -100 steps", 2, "the step count is `-100`"),
            ("with 32000 atoms", "with 0 atoms", 2, "the atom count is 0"),
            ("156.071 timesteps", "inf timesteps", 3, "gives inf timesteps/s"),
            ("156.071 timesteps", "0 timesteps", 3, "gives 0 timesteps/s"),
            ("99.7% CPU", "-5% CPU", 4, "the CPU use is -5%"),
            ("x 2 OpenMP", "x 0 OpenMP", 4, "0 OpenMP threads"),
            ("| 80.74", "| -nan", 5, "Pair `-nan` %total"),
        ] {
            let refusal = parse(&log.replacen(from, to, 1)).unwrap_err();
            assert!(refusal.reason.contains(why), "{to}: {}", refusal.reason);
            assert_eq!(refusal.line, Some(line), "{to}");
            assert!(refusal.hint.is_some(), "{to}");
        }
    }
}
