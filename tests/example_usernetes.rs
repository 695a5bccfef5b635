//! The second shipped study, `examples/usernetes/`: it checks and builds; its
//! `results/` are exactly what the README's import commands make from
//! `raw/`, and importing again adds no row; and its figures agree with an
//! independent parse of the raw logs (a regular expression per line, written
//! here) and with the study authors' own tables in `raw/authors-tables/`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::common;
use common::*;

fn example() -> PathBuf {
    repo().join("examples/usernetes")
}

/// Every file under `dir`, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter(|p| p.is_file())
        .collect();
    found.sort();
    found
}

/// One LAMMPS log, read independently: environment, ranks, run, loop time,
/// and the whole seconds of `Total wall time: H:MM:SS`.
struct Log {
    env: String,
    ranks: u64,
    run: u64,
    loop_time: f64,
    wall_seconds: u64,
}

fn lammps_logs() -> Vec<Log> {
    let loop_line = regex::Regex::new(r"^Loop time of (\S+) on (\d+) procs for 100 steps").unwrap();
    let wall = regex::Regex::new(r"^Total wall time: (\d+):(\d+):(\d+)").unwrap();
    let name = regex::Regex::new(r"lammps-(\d+)-(\d+)-(\d+)\.out$").unwrap();
    let mut logs = Vec::new();
    for path in files(&example().join("raw/lammps")) {
        let text = fs::read_to_string(&path).unwrap();
        let env = path.parent().unwrap().file_name().unwrap().to_str().unwrap().to_string();
        let parts = name.captures(path.to_str().unwrap()).unwrap();
        let field = |i: usize| parts[i].parse::<u64>().unwrap();
        let looped = text.lines().find_map(|l| loop_line.captures(l)).expect("a Loop time line");
        assert_eq!(looped[2].parse::<u64>().unwrap(), field(2), "{path:?}");
        let w = text.lines().find_map(|l| wall.captures(l)).expect("a Total wall time line");
        let hms = |i: usize| w[i].parse::<u64>().unwrap();
        logs.push(Log {
            env,
            ranks: field(2),
            run: field(3),
            loop_time: looped[1].parse().unwrap(),
            wall_seconds: hms(1) * 3600 + hms(2) * 60 + hms(3),
        });
    }
    logs
}

/// The study's stats.json, from a build into a temporary folder.
fn built_stats() -> serde_json::Value {
    let out = tempfile::tempdir().unwrap();
    let output = report(&example(), &["build", "--out", out.path().to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(out.path().join("index.html").is_file() && out.path().join("paper.pdf").is_file());
    serde_json::from_str(&fs::read_to_string(out.path().join("data/stats.json")).unwrap()).unwrap()
}

/// The mean of group `id` in stats.json.
fn group_mean(stats: &serde_json::Value, id: &str) -> f64 {
    let groups = stats["groups"].as_array().unwrap();
    let group = groups.iter().find(|g| g["id"] == id).unwrap_or_else(|| panic!("no group {id}"));
    group["summary"]["mean"].as_f64().unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn the_example_checks_and_its_loop_times_match_the_raw_logs() {
    let output = report(&example(), &["check"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let logs = lammps_logs();
    assert_eq!(logs.len(), 160);
    let stats = built_stats();
    let mut by_config: BTreeMap<(String, u64), Vec<f64>> = BTreeMap::new();
    for log in &logs {
        by_config.entry((log.env.clone(), log.ranks)).or_default().push(log.loop_time);
    }
    assert_eq!(by_config.len(), 8, "2 environments at 4 rank counts");
    for ((env, ranks), times) in &by_config {
        assert_eq!(times.len(), 20, "{env} at {ranks}");
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        let got = group_mean(&stats, &format!("lammps/loop_time_s/{env}/procs={ranks}"));
        assert!(close(got, mean), "{env} at {ranks}: report {got}, raw logs {mean}");
    }
}

#[test]
fn wall_times_match_the_authors_table() {
    let table = fs::read_to_string(example().join("raw/authors-tables/lammps-times.csv")).unwrap();
    let mut authors: BTreeMap<(String, u64, u64), f64> = BTreeMap::new();
    for line in table.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f[2] == "bare-metal" || f[2] == "usernetes" {
            authors.insert(
                (f[2].into(), f[1].parse().unwrap(), f[3].parse().unwrap()),
                f[4].parse().unwrap(),
            );
        }
    }
    assert_eq!(authors.len(), 160);
    let results = fs::read_to_string(example().join("results/lammps.csv")).unwrap();
    let mut rows = results.lines();
    let header: Vec<&str> = rows.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (env, procs, run, wall) =
        (col("environment"), col("procs"), col("run"), col("total_wall_time_s"));
    let mut matched = 0;
    for row in rows {
        let f: Vec<&str> = row.split(',').collect();
        let key = (f[env].to_string(), f[procs].parse().unwrap(), f[run].parse().unwrap());
        assert_eq!(f[wall].parse::<f64>().unwrap(), authors[&key], "{key:?}");
        matched += 1;
    }
    assert_eq!(matched, 160);
    for log in lammps_logs() {
        let key = (log.env.clone(), log.ranks, log.run);
        assert_eq!(log.wall_seconds as f64, authors[&key], "{key:?}");
        assert!(log.loop_time < log.wall_seconds as f64 + 1.0, "the loop is part of the wall time");
    }
}

#[test]
fn osu_latency_means_match_the_authors_table() {
    let table =
        fs::read_to_string(example().join("raw/authors-tables/osu-latency-only.csv")).unwrap();
    let stats = built_stats();
    let mut checked = 0;
    for line in table.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f[0] != "bare-metal" && f[0] != "usernetes" {
            continue;
        }
        let size = f[1].parse::<f64>().unwrap() as u64;
        let theirs: f64 = f[4].parse().unwrap();
        let ours =
            group_mean(&stats, &format!("osu_latency/latency_us/{}/size_bytes={size}", f[0]));
        assert!(
            (ours - theirs).abs() < 1e-9,
            "{} at {size} B: report {ours}, authors {theirs}",
            f[0]
        );
        checked += 1;
    }
    assert_eq!(checked, 48, "24 sizes in each of the two environments");
}

#[test]
fn the_readme_commands_remake_the_results_and_add_nothing_the_second_time() {
    let copy = tempfile::tempdir().unwrap();
    copy_dir(&example(), copy.path());
    let root = copy.path();
    let committed: Vec<(PathBuf, Vec<u8>)> = contents(&root.join("results"));
    // As the README says: from the study's folder.
    let import = |args: &[&str]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_report"))
            .args(args)
            .current_dir(root)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", stderr(&output));
        stderr(&output)
    };
    let lammps =
        ["import", "lammps", "--pattern", "{env}/lammps-{nodes}-{procs}-{run}.out", "raw/lammps"];
    let osu = ["import", "osu", "--nodes", "2", "--pattern", "{env}/*-{run}.out", "raw/osu"];
    let again = import(&lammps);
    assert!(again.contains("160 files skipped as already imported"), "{again}");
    let again = import(&osu);
    assert!(again.contains("80 files skipped as already imported"), "{again}");
    assert!(contents(&root.join("results")) == committed, "a second import changed results/");
    for file in fs::read_dir(root.join("results")).unwrap() {
        fs::remove_file(file.unwrap().path()).unwrap();
    }
    import(&lammps);
    import(&osu);
    assert!(contents(&root.join("results")) == committed, "the README's commands make other files");
}

#[test]
fn the_two_studies_link_to_each_other() {
    let out = tempfile::tempdir().unwrap();
    let shipped = report(&repo(), &["build", "--out", out.path().to_str().unwrap()]);
    assert!(shipped.status.success(), "{}", stderr(&shipped));
    // The repository is a site (site.toml): the top study is published at
    // mpi-kubernetes/, and its link to the example leads there from it.
    let index = fs::read_to_string(out.path().join("mpi-kubernetes/index.html")).unwrap();
    assert!(
        index.contains("href=\"../examples/usernetes/\""),
        "the shipped study links to the example"
    );
    let back = fs::read_to_string(out.path().join("examples/usernetes/index.html")).unwrap();
    assert!(back.contains("href=\"../../mpi-kubernetes/\""), "the example links back");
    let site = tempfile::tempdir().unwrap();
    let built = report(&example(), &["build", "--out", site.path().to_str().unwrap()]);
    assert!(built.status.success(), "{}", stderr(&built));
    let page = fs::read_to_string(site.path().join("index.html")).unwrap();
    assert!(page.contains("href=\"../../\""), "the example links back");
}
