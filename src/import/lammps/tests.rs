//! Unit tests of the LAMMPS reader: every era, several runs, killed runs and figures that cannot be right.

use super::*;
use std::path::Path;

/// The runs of `text`, read as a plain log.
fn parse(text: &str) -> Result<LammpsRun, Refusal> {
    let lines = crate::import::unwrap::lines(Path::new("x.log"), text).1;
    super::parse_lines(&lines).map(|p| p.runs.last().cloned().unwrap_or_default())
}

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
    assert_eq!((run.cpu_use_pct, run.mpi_tasks, run.omp_threads), (Some(99.7), Some(4), Some(1)));
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
    assert_eq!(run.version, "7 Feb 2024 - Development - 8819275");
    assert_eq!(
        (run.procs, run.mpi_tasks, run.omp_threads, run.timesteps_per_s),
        (256, Some(256), Some(1), 3.845)
    );
    assert_eq!(run.breakdown[2], Some(5.81));
}

#[test]
fn refuses_killed_runs_and_other_files() {
    let killed =
        parse("LAMMPS (8 Apr 2021)\nSetting up Verlet run ...\nStep Temp\n0 3.0\n").unwrap_err();
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

/// Every run of `text`.
fn runs(text: &str) -> Parsed {
    let lines = crate::import::unwrap::lines(Path::new("x.log"), text).1;
    super::parse_lines(&lines).unwrap()
}

const RUN: &str = "LAMMPS (29 Sep 2021 - Update 2)\nmpirun -np 4 lmp -in in.lj\nLoop time of 6.5 on 4 procs for 100 steps with 2432 atoms\n\
    Performance: 0.133 ns/day, 180.620 hours/ns, 15.379 timesteps/s\n55.8% CPU use with 4 MPI tasks x 1 OpenMP threads\n\
    Other   |            | 0.001009   |            |       |  0.02\nTotal wall time: 1:00:07\n";

#[test]
fn concatenated_logs_give_one_run_each_with_its_wall_time() {
    let text = format!("{RUN}{}", RUN.replace("of 6.5", "of 7.25").replace("1:00:07", "0:00:08"));
    let parsed = runs(&text);
    let got: Vec<_> =
        parsed.runs.iter().map(|r| (r.loop_time_s, r.total_wall_time_s, r.at)).collect();
    assert_eq!(got, [(6.5, Some(3607.0), 3), (7.25, Some(8.0), 10)]);
    assert_eq!(parsed.runs[1].cpu_use_pct, Some(55.8));
    assert_eq!(parsed.runs[1].breakdown[5], Some(0.02));
    assert_eq!(parsed.runs[1].launch.and_then(|l| l.ranks), Some(4));
    assert!(parsed.notes.is_empty());
    // The version whole, its update included.
    assert_eq!(parsed.runs[0].version, "29 Sep 2021 - Update 2");
}

#[test]
fn a_process_of_two_runs_gives_two_rows_and_no_wall_time() {
    let text = RUN.replace(
        "Total wall",
        "Loop time of 1.5 on 4 procs for 50 steps with 2432 atoms\nTotal wall",
    );
    let parsed = runs(&text);
    let got: Vec<_> = parsed.runs.iter().map(|r| (r.steps, r.total_wall_time_s)).collect();
    assert_eq!(got, [(100, None), (50, None)]);
}

#[test]
fn a_killed_run_after_finished_ones_is_noted_not_refused() {
    let text = format!("{RUN}LAMMPS (29 Sep 2021)\nStep Temp\n0 300\n");
    let parsed = runs(&text);
    assert_eq!(parsed.runs.len(), 1);
    assert_eq!(parsed.notes.len(), 1);
    assert_eq!(parsed.notes[0].at, 8);
    assert!(parsed.notes[0].message.contains("no `Loop time` line"), "{:?}", parsed.notes);
}

#[test]
fn an_unreadable_wall_time_refuses_the_file_at_its_line() {
    let refusal = parse(&RUN.replace("1:00:07", "1:99:07")).unwrap_err();
    assert_eq!(refusal.line, Some(7));
    assert!(refusal.reason.contains("total wall time `1:99:07`"), "{}", refusal.reason);
    let huge = runs(&RUN.replace("1:00:07", "18446744073709551615:00:00"));
    assert!(huge.runs[0].total_wall_time_s.is_some_and(f64::is_finite));
}
