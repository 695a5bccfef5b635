//! The shipped MPI-on-Kubernetes study: one build writes the page, the paper and
//! stats.json, and the headline figures in all three equal the published ones.

use std::fs;

use crate::common;
use common::*;

/// The figures the study published (issue #2), rounded to one decimal.
const PUBLISHED: [(&str, &str); 6] = [
    ("throughput_32", "+8.8%"),
    ("slowdown_avg", "+7.6%"),
    ("network_overhead", "\u{2212}2.4%"),
    ("cost_32", "\u{2212}6.9%"),
    ("tps_k8s_32", "45.7 timesteps/s"),
    // Not published (it follows from 45.7 / 1.088): marked as reconstructed.
    ("tps_bm_32", "42.0 timesteps/s\u{2020}"),
];

#[test]
fn shipped_study_reproduces_the_published_figures_in_every_output() {
    let root = built_shipped_study();
    let out = root.join("site");
    let stats = built_stats(root);
    let html = fs::read_to_string(out.join("index.html")).unwrap();
    for (name, figure) in PUBLISHED {
        let metric =
            stats["metrics"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap();
        assert_eq!(metric["text"]["value"], figure, "stats.json text of {name}");
        // The page words a difference without its sign ("7.6% slower").
        let unsigned = figure.trim_start_matches(['+', '\u{2212}']);
        assert!(html.contains(unsigned), "index.html lacks {figure} ({name})");
    }
    // The raw values in stats.json round to the published figures too.
    let value = |name: &str| {
        stats["metrics"].as_array().unwrap().iter().find(|m| m["name"] == name).unwrap()["value"]
            .as_f64()
            .unwrap()
    };
    assert_eq!(format!("{:.1}", value("throughput_32") * 100.0), "8.8");
    assert_eq!(format!("{:.1}", value("slowdown_avg") * 100.0), "7.6");
    assert_eq!(format!("{:.1}", value("network_overhead") * 100.0), "-2.4");
    assert_eq!(format!("{:.1}", value("cost_32") * 100.0), "-6.9");
    assert_eq!(format!("{:.1}", value("tps_k8s_32")), "45.7");
    assert_eq!(format!("{:.1}", value("tps_bm_32")), "42.0");

    // Every statistic carries its inputs.
    let throughput = &stats["metrics"][0];
    assert_eq!(throughput["inputs"]["file"], "results/lammps.csv");
    assert_eq!(throughput["inputs"]["filter"], "procs = 32");
    assert_eq!(throughput["candidate"]["n"], 3);
    // Reconstructed runs give no p-value; the figure is the published one.
    assert!(throughput["p_value"].is_null());
    assert_eq!(throughput["provenance"], "reconstructed");
    assert_eq!(throughput["published"]["value"], "+8.8%");
    assert!(
        stats["groups"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["id"] == "lammps/timesteps_per_s/kubernetes/procs=32")
    );

    if tool("pdftotext", &["-v"]) {
        let text = pdftotext(&out.join("paper.pdf"));
        for (_, figure) in &PUBLISHED[..4] {
            let unsigned = figure.trim_start_matches(['+', '\u{2212}']);
            assert!(text.contains(unsigned), "the PDF lacks {figure}:\n{text}");
        }
        assert!(text.contains("Does MPI pay a price"), "{text}");
        assert!(
            text.contains("Figure 1") && text.contains("MPI processes"),
            "figure caption and axis label:\n{text}"
        );
    }
}

#[test]
fn the_same_inputs_give_byte_identical_outputs() {
    let study = shipped_study();
    let first = study.path().join("a");
    let second = study.path().join("b");
    assert!(report(study.path(), &["build", "--out", first.to_str().unwrap()]).status.success());
    assert!(report(study.path(), &["build", "--out", second.to_str().unwrap()]).status.success());
    let (a, b) = (contents(&first), contents(&second));
    assert!(a.len() >= 13, "{} files", a.len());
    assert_eq!(
        a.iter().map(|f| &f.0).collect::<Vec<_>>(),
        b.iter().map(|f| &f.0).collect::<Vec<_>>(),
        "the same files"
    );
    for ((file, x), (_, y)) in a.iter().zip(&b) {
        assert!(x == y, "{} differs", file.display());
    }
}

#[test]
fn a_failed_build_leaves_the_previous_output_untouched() {
    let study = shipped_study();
    let out = study.path().join("site");
    assert!(report(study.path(), &["build"]).status.success());
    let before = fs::read(out.join("index.html")).unwrap();
    let pdf_before = fs::read(out.join("paper.pdf")).unwrap();

    edit(
        study.path(),
        "results/lammps.csv",
        "bare-metal,1,32,32,1,1,",
        "bare-metal,1,32,32,1,1,oops",
    );
    let output = report(study.path(), &["build"]);
    assert!(!output.status.success());
    let err = stderr(&output);
    assert!(err.contains("results/lammps.csv:"), "{err}");

    assert_eq!(fs::read(out.join("index.html")).unwrap(), before);
    assert_eq!(fs::read(out.join("paper.pdf")).unwrap(), pdf_before);
    let leftovers: Vec<String> = fs::read_dir(study.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".report-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary folders left behind: {leftovers:?}");
}
