//! The shipped study's statistics against an independent computation with
//! scipy (tests/independent_stats.py), which reads the CSVs on its own.

mod common;

use std::fs;
use std::process::Command;

use common::*;

fn close(a: &serde_json::Value, b: &serde_json::Value, what: &str) {
    let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
    assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{what}: report {a} vs scipy {b}");
}

#[test]
fn statistics_match_scipy() {
    if !tool("python3", &["-c", "import scipy"]) {
        return;
    }
    let study = shipped_study();
    assert!(report(study.path(), &["build"]).status.success());
    let stats: serde_json::Value =
        serde_json::from_slice(&fs::read(study.path().join("site/data/stats.json")).unwrap())
            .unwrap();
    let script = repo().join("tests/independent_stats.py");
    let output = Command::new("python3").arg(script).arg(study.path()).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let expected: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();

    for name in ["throughput_32", "slowdown_avg", "network_overhead", "cost_32", "tps_k8s_32"] {
        let metric =
            stats["metrics"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap();
        let want = &expected[name];
        close(&metric["value"], &want["value"], &format!("{name} value"));
        close(&metric["ci"][0], &want["ci"][0], &format!("{name} ci low"));
        close(&metric["ci"][1], &want["ci"][1], &format!("{name} ci high"));
        if !want["p"].is_null() {
            close(&metric["p_value"], &want["p"], &format!("{name} p"));
        }
    }
    let id = "lammps/timesteps_per_s/kubernetes/procs=32";
    let group = stats["groups"].as_array().unwrap().iter().find(|g| g["id"] == id).unwrap();
    let want = &expected[format!("group:{id}")];
    for field in ["mean", "median", "sd"] {
        close(&group["summary"][field], &want[field], field);
    }
    close(&group["summary"]["ci"][0], &want["ci"][0], "group ci low");
    close(&group["summary"]["ci"][1], &want["ci"][1], "group ci high");
}
