//! Launcher lines (`mpirun -np 4 …`, `mpiexec -n`, `srun -n`, `flux run -n`,
//! `jsrun -n`) in job output: how many ranks, and on how many nodes, a run
//! was started with.

/// What one launcher line says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    /// MPI ranks, when the line says.
    pub ranks: Option<u64>,
    /// Nodes, when the line says.
    pub nodes: Option<u64>,
    /// The 1-based line of the file it is on.
    pub at: usize,
}

/// Which launcher a line starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `mpirun`, `mpiexec`, `mpiexec.hydra`: `-np`/`-n`, per node `-ppn`, `-npernode`, `--map-by ppr:N:node`.
    Mpi,
    /// `srun` and `flux run|submit`: `-n`/`--ntasks`, `-N`/`--nodes`, `--tasks-per-node`.
    Slurm,
    /// `jsrun`: `-n` resource sets of `-a` tasks, `-r` per host.
    Jsrun,
}

/// The counts of one launch, as the flags give them.
#[derive(Debug, Default)]
struct Flags {
    ranks: Option<u64>,
    nodes: Option<u64>,
    per_node: Option<u64>,
    per_set: Option<u64>,
}

/// The launch on `line` (at line `at` of the file), if the line runs a
/// launcher (its name is a word of the line; a path to it counts) or is a
/// wrapper's metadata line ([`metadata`]).
pub fn parse(line: &str, at: usize) -> Option<Launch> {
    if let Some(launch) = metadata(line, at) {
        return Some(launch);
    }
    command(line, at)
}

/// A Kubernetes Metrics Operator's metadata line, `METADATA START
/// {"pods":16,...,"metricOptions":{"command":"mpirun -np 1408 ..."}}`: the
/// ranks and nodes of its command, nodes else its pods (the operator runs
/// one pod per node).
fn metadata(line: &str, at: usize) -> Option<Launch> {
    let json = line.trim().strip_prefix("METADATA START")?.trim();
    let value: serde_json::Value = serde_json::from_str(json).ok()?;
    let pods = value.get("pods").and_then(serde_json::Value::as_u64).filter(|n| *n > 0);
    let options = value.get("metricOptions");
    let command = options.and_then(|o| o.get("command")).and_then(serde_json::Value::as_str);
    let launched = command.and_then(|c| self::command(c, at));
    let ranks = launched.and_then(|l| l.ranks);
    let nodes = launched.and_then(|l| l.nodes).or(pods);
    (ranks.is_some() || nodes.is_some()).then_some(Launch { ranks, nodes, at })
}

/// The launch of a command line that starts a launcher.
fn command(line: &str, at: usize) -> Option<Launch> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let (start, kind) = words.iter().enumerate().find_map(|(i, w)| {
        let name = w.rsplit('/').next().unwrap_or(w).trim_matches(['"', '\'']);
        let kind = match name {
            "mpirun" | "mpiexec" | "mpiexec.hydra" | "orterun" | "prterun" => Kind::Mpi,
            "srun" => Kind::Slurm,
            "jsrun" => Kind::Jsrun,
            "flux" if matches!(words.get(i + 1), Some(&("run" | "submit" | "mini"))) => Kind::Slurm,
            _ => return None,
        };
        Some((i + 1, kind))
    })?;
    let flags = flags(&words[start..], kind);
    let (ranks, nodes) = counts(&flags, kind);
    (ranks.is_some() || nodes.is_some()).then_some(Launch { ranks, nodes, at })
}

/// Whether `name` is a program whose output a format reads.
fn program(name: &str) -> bool {
    super::FORMATS.iter().flat_map(|f| f.programs()).any(|p| name.starts_with(p))
}

/// The count flags among `words`, up to the program (a word starting with
/// the name of a program a format reads, such as `osu_` or `lmp`: see
/// [`super::format::Format::programs`]): what follows it is the program's own.
fn flags(words: &[&str], kind: Kind) -> Flags {
    let mut flags = Flags::default();
    let mut i = 0;
    while i < words.len() {
        let word = words[i];
        let name = word.rsplit('/').next().unwrap_or(word);
        if program(name) {
            break;
        }
        let (flag, inline) = match word.split_once('=') {
            Some((flag, value)) if flag.starts_with('-') => (flag, Some(value)),
            _ => (word, None),
        };
        let value = || inline.or_else(|| words.get(i + 1).copied()).and_then(count);
        match (kind, flag) {
            (Kind::Mpi, "-np" | "-n" | "--np" | "--n" | "-c") => flags.ranks = value(),
            (Kind::Mpi, "-ppn" | "--ppn" | "-npernode" | "--npernode") => {
                flags.per_node = value();
            }
            (Kind::Mpi, "--map-by" | "-map-by") => {
                flags.per_node = inline.or_else(|| words.get(i + 1).copied()).and_then(ppr);
            }
            (Kind::Slurm, "-n" | "--ntasks") => flags.ranks = value(),
            (Kind::Slurm, "-N" | "--nodes") => flags.nodes = value(),
            (Kind::Slurm, "--tasks-per-node" | "--ntasks-per-node") => flags.per_node = value(),
            (Kind::Jsrun, "-n" | "--nrs") => flags.ranks = value(),
            (Kind::Jsrun, "-a" | "--tasks_per_rs") => flags.per_set = value(),
            (Kind::Jsrun, "-r" | "--rs_per_host") => flags.per_node = value(),
            // `-N4`, `-n64`: a short flag with its value attached.
            (Kind::Slurm, w) if w.len() > 2 && w.starts_with("-N") => flags.nodes = count(&w[2..]),
            (Kind::Slurm, w) if w.len() > 2 && w.starts_with("-n") => flags.ranks = count(&w[2..]),
            _ => {}
        }
        i += 1;
    }
    flags
}

/// Ranks and nodes from the flags of a launcher of `kind`.
fn counts(flags: &Flags, kind: Kind) -> (Option<u64>, Option<u64>) {
    let per_node = flags.per_node;
    match kind {
        Kind::Jsrun => {
            // jsrun starts -n resource sets of -a tasks (default 1), -r of them per host.
            let sets = flags.ranks;
            let ranks = sets.and_then(|n| n.checked_mul(flags.per_set.unwrap_or(1)));
            (ranks, sets.zip(per_node).map(|(n, r)| n.div_ceil(r)))
        }
        Kind::Mpi => (flags.ranks, flags.ranks.zip(per_node).map(|(n, p)| n.div_ceil(p))),
        Kind::Slurm => {
            let ranks = flags
                .ranks
                .or_else(|| flags.nodes.zip(per_node).and_then(|(n, p)| n.checked_mul(p)));
            (ranks, flags.nodes)
        }
    }
}

/// A count of at least 1.
fn count(word: &str) -> Option<u64> {
    word.trim_matches(['"', '\'', ',']).parse().ok().filter(|n| *n > 0)
}

/// Ranks per node of an Open MPI mapping `ppr:N:node`.
fn ppr(word: &str) -> Option<u64> {
    let rest = word.strip_prefix("ppr:")?;
    let (n, unit) = rest.split_once(':')?;
    (unit.split(':').next() == Some("node")).then(|| count(n)).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts_of(line: &str) -> Option<(Option<u64>, Option<u64>)> {
        parse(line, 1).map(|l| (l.ranks, l.nodes))
    }

    #[test]
    fn each_launcher_gives_its_ranks_and_nodes() {
        for (line, ranks, nodes) in [
            (
                "time jsrun -n 4 -a 1 -c 1 -r 1 -l cpu-cpu osu-5.8/mpi/pt2pt/osu_mbw_mr",
                Some(4),
                Some(4),
            ),
            ("jsrun -n 2 -a 4 -r 1 ./osu_allreduce", Some(8), Some(2)),
            ("mpirun -np 1408 --map-by socket lmp -v x 2 -n 99 -in in.lj", Some(1408), None),
            (
                "time mpirun --hostfile h -np 128 -map-by ppr:1:node /opt/osu_hello",
                Some(128),
                Some(128),
            ),
            ("\"command\":\"/opt/intel/bin/mpirun --hostfile ./h.txt -np 64 lmp", Some(64), None),
            ("mpiexec -n 8 -ppn 4 ./osu_bw", Some(8), Some(2)),
            ("srun -N 2 -n 64 lmp -in in.lj", Some(64), Some(2)),
            ("srun --nodes=4 --ntasks=256 lmp", Some(256), Some(4)),
            ("srun -N4 -n64 ./osu_latency", Some(64), Some(4)),
            (
                "time flux run -N2 --tasks-per-node=96 -o cpu-affinity=per-task osu_barrier",
                Some(192),
                Some(2),
            ),
            ("flux run -n 64 -N 4 lmp", Some(64), Some(4)),
        ] {
            assert_eq!(counts_of(line), Some((ranks, nodes)), "{line}");
        }
    }

    #[test]
    fn metadata_lines_give_their_command_and_pods() {
        // As the Metrics Operator prints it before each LAMMPS run.
        let line = r#"METADATA START {"pods":16,"metricName":"app-lammps","metricOptions":{"command":"/opt/intel/mpi/2021.8.0/bin/mpirun --hostfile ./hostlist.txt -np 1408 --map-by socket lmp -v x 2 -in in.reaxc.hns -nocite","soleTenacy":"false"}}"#;
        assert_eq!(counts_of(line), Some((Some(1408), Some(16))));
        assert_eq!(counts_of(r#"METADATA START {"pods":4}"#), Some((None, Some(4))));
        for other in [r#"METADATA START {"pods":0}"#, "METADATA START {", "METADATA END"] {
            assert_eq!(counts_of(other), None, "{other}");
        }
    }

    #[test]
    fn other_lines_are_not_launches() {
        for line in [
            "Loop time of 1 on 4 procs",
            "flux resource list",
            "mpirun --version",
            "srun -n 0 lmp",
            "srun -n 99999999999999999999999 lmp",
            "mpirun -np",
        ] {
            assert_eq!(counts_of(line), None, "{line}");
        }
    }
}
