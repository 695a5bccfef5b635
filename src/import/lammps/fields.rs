//! The lines of a LAMMPS run that carry its figures: `Loop time`, the
//! Performance and CPU-use lines, the timing breakdown (new and pre-2016
//! formats) and `Total wall time`. A figure that cannot be right is an error
//! naming it.

use super::LammpsRun;

/// Rows of the timing breakdown, in `breakdown` order, with the pre-2016 names.
const SECTIONS: [(&str, &str); 6] = [
    ("Pair", "Pair"),
    ("Neigh", "Neigh"),
    ("Comm", "Comm"),
    ("Output", "Outpt"),
    ("Modify", "Modify"),
    ("Other", "Other"),
];

/// `Loop time of 0.852877 on 1 procs for 100 steps with 32000 atoms`: the
/// run with its loop time, processes, steps, atoms and timesteps/s.
pub(super) fn loop_line(line: &str) -> Result<LammpsRun, String> {
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
pub(super) fn performance(line: &str, run: &mut LammpsRun) -> Result<(), String> {
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
pub(super) fn breakdown(line: &str, run: &mut LammpsRun) -> Result<(), String> {
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

/// `Total wall time: 0:01:02`: the seconds, or why they cannot be read.
pub(super) fn wall_time(line: &str) -> Option<Result<f64, String>> {
    let rest = line.trim().strip_prefix("Total wall time:")?.trim();
    let parts: Vec<Option<u64>> = rest.split(':').map(|p| p.parse().ok()).collect();
    Some(match parts[..] {
        [Some(h), Some(m), Some(s)] if m < 60 && s < 60 => {
            Ok(h as f64 * 3600.0 + (m * 60 + s) as f64)
        }
        _ => {
            Err(format!("cannot read the total wall time `{rest}`: expected hours:minutes:seconds"))
        }
    })
}
