//! `report import` over the real benchmark output in ../shared/fixtures/:
//! every file imports, re-imports add nothing, bad files are refused by name,
//! and a study built from the flux-usernetes data agrees with an independent
//! parse of the logs.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common;
use common::*;

fn import(root: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_report"))
        .arg("import")
        .args(args)
        .arg("--root")
        .arg(root)
        .output()
        .unwrap()
}

fn new_study() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("results")).unwrap();
    dir
}

const FLUX_LAMMPS: &str = "{env}/lammps-{nodes}-{procs}-{run}.out";

/// The results files a second import must leave as they were, byte for byte.
const REIMPORTED: [&str; 6] = [
    "lammps.csv",
    "osu_bw.csv",
    "osu_latency.csv",
    "osu_bibw.csv",
    "osu_allreduce.csv",
    "osu_mbw_mr.csv",
];

/// Every kind of fixture output, as import arguments and the file or folder
/// they apply to.
fn fixture_imports(f: &Path) -> Vec<(Vec<&'static str>, PathBuf)> {
    vec![
        (vec!["lammps", "--pattern", FLUX_LAMMPS], f.join("flux-usernetes/lammps")),
        (vec!["lammps", "--env", "official"], f.join("lammps-official")),
        (
            vec!["osu", "--nodes", "2", "--pattern", "{env}/osu_bw-{run}.out"],
            f.join("flux-usernetes/osu/bare-metal/osu_bw-1.out"),
        ),
        (
            vec!["osu", "--nodes", "2", "--env", "bare-metal"],
            f.join("flux-usernetes/osu/bare-metal"),
        ),
        (vec!["osu", "--nodes", "2", "--env", "usernetes"], f.join("flux-usernetes/osu/usernetes")),
        (vec!["osu", "--env", "alaska"], f.join("excalibur-omb/alaska")),
        (vec!["lammps", "--env", "gke"], f.join("metrics-operator/lammps")),
        (vec!["osu", "--env", "gke"], f.join("metrics-operator/osu/crd-metrics-128-0.json")),
        (vec!["osu", "--env", "lassen"], f.join("metrics-operator/osu/lassen_osu_4_nodes.out")),
    ]
}

/// Run one of the fixture imports into the study at `root`: the arguments
/// it ran with, and its output.
fn import_one<'a>(root: &Path, (args, path): &'a (Vec<&str>, PathBuf)) -> (Vec<&'a str>, Output) {
    let mut all = args.clone();
    all.push(path.to_str().unwrap());
    let output = import(root, &all);
    (all, output)
}

/// The data rows of `results/<file>` of the study at `root`.
fn row_count(root: &Path, file: &str) -> usize {
    fs::read_to_string(root.join("results").join(file)).unwrap().lines().count() - 1
}

/// The bytes of each of `files` of `results/` of the study at `root`.
fn results(root: &Path, files: &[&str]) -> Vec<Vec<u8>> {
    files.iter().map(|f| fs::read(root.join("results").join(f)).unwrap()).collect()
}

#[test]
fn every_fixture_file_imports_and_reimports_add_nothing() {
    let Some(f) = shared_fixtures() else { return };
    let study = new_study();
    let root = study.path();
    let imports = fixture_imports(&f);
    for run in &imports {
        let (all, output) = import_one(root, run);
        assert!(output.status.success(), "{all:?}: {}", stderr(&output));
    }
    // One row per `Loop time` line, counted here in the raw files (the JSON
    // capture holds five runs).
    let loops: usize = ["flux-usernetes/lammps", "lammps-official", "metrics-operator/lammps"]
        .iter()
        .flat_map(|d| walkdir::WalkDir::new(f.join(d)))
        .filter_map(|e| fs::read_to_string(e.ok()?.path()).ok())
        .map(|text| text.matches("Loop time of ").count())
        .sum();
    assert_eq!(loops, 160 + 7 + 5);
    assert_eq!(row_count(root, "lammps.csv"), loops, "one row per run");
    // 40 osu_bw files of 23 sizes (1 B to 4 MiB) + 4 ReFrame ones of 23 sizes; bare-metal osu_bw-1 came first.
    assert_eq!(row_count(root, "osu_bw.csv"), 40 * 23 + 4 * 23);
    // Lassen: 20 runs each (awk over the file: 480 latency, 460 mbw_mr, 380 allreduce rows).
    assert_eq!(row_count(root, "osu_latency.csv"), 40 * 24 + 4 * 24 + 20 * 24);
    assert_eq!(row_count(root, "osu_mbw_mr.csv"), 20 * 23);
    assert_eq!(row_count(root, "osu_bibw.csv"), 4 * 23);
    // ReFrame 4 × 19 sizes (4 B to 1 MiB), Lassen 20 × 19, the GKE capture 19.
    assert_eq!(row_count(root, "osu_allreduce.csv"), 4 * 19 + 20 * 19 + 19);
    for file in REIMPORTED {
        let text = fs::read_to_string(root.join("results").join(file)).unwrap();
        assert!(
            !text.contains("/work/") && !text.contains(",/"),
            "{file}: an absolute path in source"
        );
    }

    // Importing everything again adds nothing and changes no byte.
    let before = results(root, &REIMPORTED);
    for run in &imports {
        let (_, output) = import_one(root, run);
        assert!(output.status.success());
        assert!(
            stderr(&output).contains("skipped as already imported, 0 refused"),
            "{}",
            stderr(&output)
        );
        assert!(!stderr(&output).contains("added"), "{}", stderr(&output));
    }
    assert_eq!(before, results(root, &REIMPORTED));
}

#[test]
fn truncated_logs_and_other_files_are_refused_by_name() {
    let Some(f) = shared_fixtures() else { return };
    let study = new_study();
    let input = tempfile::tempdir().unwrap();
    let log = fs::read_to_string(f.join("lammps-official/log.8Apr21.melt.g++.4")).unwrap();
    fs::write(input.path().join("a-killed.log"), &log[..log.find("Loop time").unwrap()]).unwrap();
    fs::write(input.path().join("b-notes.txt"), "these are my notes\n").unwrap();
    fs::write(input.path().join("c-good.log"), &log).unwrap();
    let output = import(study.path(), &["lammps", "--env", "x", input.path().to_str().unwrap()]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(err.contains("error: the log has no `Loop time` line"), "{err}");
    assert!(err.contains("a-killed.log"), "{err}");
    assert!(err.contains("error: not a LAMMPS log"), "{err}");
    assert!(err.contains("b-notes.txt"), "{err}");
    assert!(err.contains("added 1 row to results/lammps.csv"), "{err}");
    assert!(err.contains("0 files skipped as already imported, 2 refused"), "{err}");
}

#[test]
fn dry_runs_write_nothing_and_foreign_files_are_not_touched() {
    let Some(f) = shared_fixtures() else { return };
    let study = new_study();
    let log = f.join("lammps-official/log.15Jul25.lj.fixed.g++.4");
    let output =
        import(study.path(), &["lammps", "--env", "x", "--dry-run", log.to_str().unwrap()]);
    assert!(output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stdout)
            .contains("x,,4,4,1,1,32000,100,0.230839,433.201,99.6"),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    assert!(!study.path().join("results/lammps.csv").exists());
    // A file with other columns: matched by name, the importer's columns added.
    let foreign = "environment,procs,run,time\nx,1,1,2\n";
    fs::write(study.path().join("results/lammps.csv"), foreign).unwrap();
    let output = import(study.path(), &["lammps", "--env", "x", log.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = fs::read_to_string(study.path().join("results/lammps.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "environment,procs,run,time,nodes,mpi_tasks,omp_threads,atoms,steps,loop_time_s,timesteps_per_s,cpu_use_pct,pair_pct,neigh_pct,comm_pct,output_pct,modify_pct,other_pct,total_wall_time_s,lammps_version,run_in_file,source,source_sha256"
    );
    // The old row keeps its values, with an empty cell per new column.
    assert_eq!(lines[1], format!("x,1,1,2{}", ",".repeat(19)));
    // The new row: 4 procs (Loop time line), run 1 of (x, 4 procs), no `time`.
    assert!(lines[2].starts_with("x,4,1,,,4,1,32000,100,0.230839,433.201,99.6,"), "{}", lines[2]);
    assert!(
        stderr(&output).contains("this results file had no columns `atoms`"),
        "{}",
        stderr(&output)
    );
}

const FLUX_BOOK: &str = r#"
[book]
title = "Flux bare metal against user-space Kubernetes"
date = "2024-02-07"

[study]
baseline = "bare-metal"

[environments.bare-metal]
label = "Bare metal (Flux)"

[environments.usernetes]
label = "Usernetes"

[data.lammps]
key = ["environment", "procs", "run"]
group-by = ["procs"]
columns = { environment = "text", nodes = "integer", procs = "integer", loop_time_s = "positive" }

[[metrics]]
name = "loop_256"
label = "Loop time at 256 ranks"
data = "lammps"
value = "loop_time_s"
where = { procs = 256 }
better = "lower"
headline = true
"#;

#[test]
fn a_study_of_the_flux_usernetes_logs_agrees_with_an_independent_parse() {
    let Some(f) = shared_fixtures() else { return };
    let study = written_study(
        FLUX_BOOK,
        &[],
        "# Loop time\n\n{{ stat(name=\"loop_256\") }}\n\n```chart\nid = \"loop\"\nkind = \"line\"\ndata = \"lammps\"\nx = \"procs\"\ny = \"loop_time_s\"\nx-scale = \"log2\"\n```\n\n{{ caveats() }}\n",
    );
    let root = study.path();
    let output = import(
        root,
        &["lammps", "--pattern", FLUX_LAMMPS, f.join("flux-usernetes/lammps").to_str().unwrap()],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let stats = stats_json(root);

    // Independent: Python reads the logs with a regular expression and averages.
    let script = r#"
import glob, re, json, sys, statistics
out = {}
for path in glob.glob(sys.argv[1] + "/*/lammps-*.out"):
    env = path.split("/")[-2]
    m = re.search(r"Loop time of ([0-9.eE+-]+) on (\d+) procs", open(path).read())
    out.setdefault(f"{env}/{m.group(2)}", []).append(float(m.group(1)))
print(json.dumps({k: statistics.mean(v) for k, v in out.items()}))
"#;
    let Some(python3) = python() else { return };
    let python = Command::new(python3)
        .arg("-c")
        .arg(script)
        .arg(f.join("flux-usernetes/lammps"))
        .output()
        .unwrap();
    let expected: serde_json::Value = serde_json::from_slice(&python.stdout).unwrap();
    let mut checked = 0;
    for env in ["bare-metal", "usernetes"] {
        for ranks in [64, 128, 256, 512] {
            let id = format!("lammps/loop_time_s/{env}/procs={ranks}");
            let group = stats["groups"]
                .as_array()
                .unwrap()
                .iter()
                .find(|g| g["id"] == id.as_str())
                .unwrap_or_else(|| panic!("{id}"));
            let want = expected[format!("{env}/{ranks}")].as_f64().unwrap();
            let got = group["summary"]["mean"].as_f64().unwrap();
            assert!((got - want).abs() < 1e-9, "{id}: {got} vs {want}");
            assert_eq!(group["summary"]["n"], 20);
            checked += 1;
        }
    }
    assert_eq!(checked, 8);
    let caveats = stats["caveats"].to_string();
    assert!(
        caveats.contains("node-counts") && caveats.contains("on 4, 8, 16 and 32 nodes"),
        "{caveats}"
    );
    if tool("pdftotext", &["-v"]) {
        let text = pdftotext(&root.join("site/paper.pdf"));
        assert!(
            !text.contains("single node"),
            "the Limitations must not claim a single node:\n{text}"
        );
        assert!(text.contains("Limitations"), "{text}");
    }
}
