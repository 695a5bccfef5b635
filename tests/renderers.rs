//! The outputs of a build, each one module over the resolved study
//! (`report::render::renderer`): the list a build runs and what each adds,
//! an output added beside them, and `data/stats.json` read back as its
//! types (`report::render::stats`), those of an older report included.

use std::path::{Path, PathBuf};

use report::pipeline::{self, Timings};
use report::render::renderer::{Files, Renderer};
use report::render::resolved::Resolved;
use report::render::stats::{self, Stats};

/// A folder of the repository.
fn repository(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// An output of the test's own: each chart's id and each page's first
/// heading, one a line, from the resolved study alone.
struct Outline;

impl Renderer for Outline {
    fn name(&self) -> &'static str {
        "outline"
    }

    fn render(&self, study: &Resolved) -> Result<Files, report::diagnostic::Diagnostics> {
        let charts = study.charts.charts.iter().map(|c| format!("chart {}\n", c.spec.id));
        let pages = study.document.pages.iter();
        let headings = pages.filter_map(|p| Some(format!("page {}\n", p.body.first_heading()?)));
        let mut out = Files::default();
        out.insert("outline.txt", charts.chain(headings).collect::<String>());
        Ok(out)
    }
}

/// A build is the files of its outputs, laid down in the order of
/// `render::outputs()`, and the manifest of them; each output's files are its
/// own (no two write one path); `report serve` first serves all but the
/// paper; and an output of a test's own runs over the same resolved study.
#[test]
fn a_build_is_the_files_of_its_outputs() {
    let project = report::project::load(&repository("examples/compressors")).unwrap();
    let analyzed = pipeline::analyze(&project).unwrap();
    let (built, prepared) = pipeline::finish(&project, &analyzed, Some(0), Timings::default())
        .map_err(|d| d.to_string())
        .unwrap();
    let study = prepared.resolved(&project, &analyzed);
    // The paper, typeset once already, is checked by its path only.
    let (deferred, quick): (Vec<&dyn Renderer>, Vec<&dyn Renderer>) =
        report::render::outputs().into_iter().partition(|r| r.deferred());
    assert_eq!(deferred.iter().map(|r| r.name()).collect::<Vec<_>>(), ["pdf"]);
    let mut seen = std::collections::BTreeMap::new();
    for output in quick {
        for (path, bytes) in output.render(&study).unwrap().files {
            assert_eq!(built.site.files.get(&path), Some(&bytes), "{}: {path:?}", output.name());
            let twice = seen.insert(path.clone(), output.name());
            assert!(twice.is_none(), "{path:?} by {} and {}", output.name(), twice.unwrap());
        }
    }
    let (pdf, manifest) = (Path::new("paper.pdf"), Path::new("data/manifest.json"));
    assert_eq!(seen.len() + 2, built.site.files.len());
    assert!(built.site.files.contains_key(manifest) && built.site.files.contains_key(pdf));
    assert_eq!(seen[Path::new("data/stats.json")], "json");
    assert_eq!(seen[Path::new("index.html")], "html");
    assert_eq!(seen[Path::new("data/charts/levels.csv")], "downloads");
    let (quick, _) = pipeline::quick(&study, &mut Timings::default()).unwrap();
    let mut expected = built.site.files.clone();
    expected.remove(pdf);
    expected.remove(manifest);
    assert_eq!(quick.files, expected);
    let (site, _) = pipeline::outputs(&study, &[&Outline], &mut Timings::default()).unwrap();
    let outline = String::from_utf8(site.files[Path::new("outline.txt")].clone()).unwrap();
    let charts = built.site.files.keys().filter(|p| p.starts_with("charts")).count();
    assert_eq!(outline.matches("chart ").count(), charts, "{outline}");
    assert!(outline.lines().any(|l| l.starts_with("page ")), "{outline}");
}

/// Every stats.json the shipped examples write reads back as its types,
/// with the values the statistics hold: each metric's name, label, value
/// and interval, each computed table's cells, each change point's version.
#[test]
fn stats_json_reads_back_as_its_types() {
    for example in ["examples/compressors", "examples/tomli-history", "tests/fixtures/minimal"] {
        let project = report::project::load(&repository(example)).unwrap();
        let analyzed = pipeline::analyze(&project).unwrap();
        let (document, _) = pipeline::document(&project, &analyzed).unwrap();
        let typed = stats::read(&pipeline::stats(&project).unwrap()).unwrap();
        let metrics = &analyzed.analysis.metrics;
        assert_eq!(typed.metrics.len(), metrics.len(), "{example}");
        for (read, metric) in typed.metrics.iter().zip(metrics) {
            assert_eq!((&read.name, read.headline), (&metric.name, metric.headline));
            assert_eq!((read.value, read.compare), (Some(metric.value), metric.compare));
            assert_eq!(read.ci, metric.ci.filter(|ci| ci.iter().all(|x| x.is_finite())));
            assert_eq!(read.label.as_deref(), Some(metric.label.as_str()));
        }
        let cells: Vec<usize> = document.computed.iter().map(|t| t.cells.len()).collect();
        assert_eq!(typed.tables.iter().map(|t| t.cells.len()).collect::<Vec<_>>(), cells);
        let versions = |s: &Stats| -> Vec<String> {
            let series = s.history.iter().flat_map(|h| &h.series);
            series.flat_map(|s| s.changes.iter().map(|c| c.version.clone())).collect()
        };
        let history = analyzed.analysis.history.iter().flat_map(|h| &h.series);
        let found: Vec<String> =
            history.flat_map(|s| s.changes.iter().map(|c| c.version.clone())).collect();
        assert_eq!(versions(&typed), found, "{example}");
        let again = serde_json::to_vec(&typed).unwrap();
        assert_eq!(stats::read(&again).unwrap(), typed, "{example}");
    }
    let tomli = stats::read(
        &pipeline::stats(&report::project::load(&repository("examples/tomli-history")).unwrap())
            .unwrap(),
    )
    .unwrap();
    // tomli's README puts the compiled wheel's speed-up at 2.2.1 (docs/history.md).
    assert_eq!(tomli.history.unwrap().series[0].changes[0].version, "2.2.1");
}

/// A stats.json that report 0.1.0 wrote (of tests/fixtures/minimal, kept
/// from the repository's history) reads as the types: its metric as
/// written (candidate 5.0 against baseline 6.0 s: 5 / 6 − 1 = −16.7%), no
/// tables and no history; `report diff` compares it with a build of today.
#[test]
fn a_stats_json_of_report_0_1_0_reads() {
    let old =
        stats::read(&std::fs::read(repository("tests/fixtures/stats/report-0.1.0.json")).unwrap())
            .unwrap();
    assert_eq!(old.generator, "report 0.1.0");
    let speed = &old.metrics[0];
    assert_eq!((speed.name.as_str(), speed.headline), ("speed", true));
    assert!((speed.value.unwrap() - (5.0 / 6.0 - 1.0)).abs() < 1e-12);
    assert_eq!(speed.ci, Some([-0.518941369469313, 0.18560803613597976]));
    assert_eq!(speed.text["value"], "-16.7%");
    assert!(old.tables.is_empty() && old.history.is_none());
    assert!(report::diff::compare(&old, &old).iter().all(|c| c.before == c.after));
    let project = report::project::load(&repository("tests/fixtures/minimal")).unwrap();
    let now = stats::read(&pipeline::stats(&project).unwrap()).unwrap();
    let changes = report::diff::compare(&old, &now);
    assert_eq!(changes.len(), 1, "{changes:?}");
    let line = changes[0].to_string();
    assert!(line.starts_with("Time at 2 processes: -16.7% → "), "{line}");
    assert!(changes[0].test.is_some(), "{line}");
}
