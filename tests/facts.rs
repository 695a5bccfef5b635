//! Issue 42, point 3: facts in prose computed from the data: where a
//! mean peaks (`peak`), whether a comparison holds at every level of a
//! family (`every`), counts and ranges (`count`, `range`), checked against
//! hand arithmetic and, on generated studies, against Python; and the
//! numbers typed into prose that a statistic computes, flagged as
//! warnings by `report check` and the build.

use std::fmt::Write as _;

use crate::common::{python, python_output, report, stderr, written_study};

const BOOK: &str = r#"
[book]
title = "Facts"
date = "2026-12-01"

[study]
baseline = "a"

[environments.a]
label = "Bare metal"

[environments.b]
label = "Kubernetes"

[data.runs]
key = ["environment", "procs", "run"]
group-by = ["procs"]

[data.runs.labels]
procs = { unit = "processes" }
tps = { name = "throughput", higher = "faster", lower = "slower" }

[[metrics]]
name = "by_procs"
label = "Throughput"
data = "runs"
value = "tps"
per = "procs"
each = true
better = "higher"
"#;

const PAGE: &str = r#"# Facts

Peak: {{ peak(data="runs", value="tps", by="procs") }}.

Low: {{ peak(data="runs", value="tps", by="procs", end="min") }}.

Peak of a: {{ peak(data="runs", value="tps", by="procs", environment="a", field="at") }}.

Peak of b: {{ peak(data="runs", value="tps", by="procs", environment="b", field="at") }}.

Value at the peak of a: {{ peak(data="runs", value="tps", by="procs", environment="a", field="value") }}.

Slower: {{ every(name="by_procs", claim="slower") }}.

Extent: {{ every(name="by_procs", claim="slower", field="extent") }}, {{ every(name="by_procs", claim="slower", field="count") }}.

Faster: {{ every(name="by_procs", claim="faster", field="extent") }}.

Runs: {{ count(data="runs") }}; counts: {{ count(data="runs", of="procs") }}; from {{ range(data="runs", of="procs") }}.
"#;

/// The page's text, its tags dropped, for finding sentences in it.
fn page_text(root: &std::path::Path) -> String {
    let output = report(root, &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let html = std::fs::read_to_string(root.join("site/index.html")).unwrap();
    let tags = regex::Regex::new(r"<[^>]*>").unwrap();
    tags.replace_all(&html, "").replace("&#x2F;", "/")
}

/// Four runs per side at each count (three could carry no verdict:
/// 2 / C(6, 3) = 0.1), `a` and `b` their means (spread ±1%).
fn csv(means: &[(u32, f64, f64)]) -> String {
    let mut csv = String::from("environment,procs,run,tps\n");
    for (procs, a, b) in means {
        for (env, mean) in [("a", a), ("b", b)] {
            for (run, f) in [0.99, 1.0, 1.01, 1.0].iter().enumerate() {
                writeln!(csv, "{env},{procs},{},{}", run + 1, mean * f).unwrap();
            }
        }
    }
    csv
}

/// By hand: `a` peaks at 8 processes (400), `b` at 16 (500); the lowest
/// means are at 1 process (100, 50). `b` is half of `a` (slower) at 1, 2
/// and 4, within 1% at 8 (no established difference), and 25% above at
/// 16 (faster): slower at 3 of 5 counts. 40 runs, 5 counts, 1 to 16.
#[test]
fn facts_match_hand_arithmetic() {
    let means = [
        (1, 100.0, 50.0),
        (2, 200.0, 100.0),
        (4, 300.0, 150.0),
        (8, 400.0, 401.0),
        (16, 399.0, 500.0),
    ];
    let study = written_study(BOOK, &[("runs.csv", &csv(&means))], PAGE);
    let text = page_text(study.path());
    for expected in [
        "Peak: 8 processes (Bare metal) and 16 processes (Kubernetes).",
        "Low: 1 process in both environments.",
        "Peak of a: 8 processes.",
        "Peak of b: 16 processes.",
        "Value at the peak of a: 400.",
        "Slower: slower at 1, 2 and 4 processes (3 of 5); faster at 16 processes; \
         no established difference at 8 processes.",
        "Extent: some, 3 of 5.",
        "Faster: some.",
        "Runs: 40; counts: 5; from 1 to 16 processes.",
    ] {
        assert!(text.contains(expected), "{expected}\nnot in\n{text}");
    }
}

/// Mistakes in a fact's arguments are errors at their place, with the
/// names that exist.
#[test]
fn a_fact_s_mistakes_are_located() {
    let means = [(1, 100.0, 50.0), (2, 200.0, 100.0)];
    for (call, at, says) in [
        ("{{ peak(data=\"rusn\", value=\"tps\", by=\"procs\") }}", 14, "did you mean `runs`?"),
        ("{{ peak(data=\"runs\", value=\"tpss\", by=\"procs\") }}", 28, "did you mean `tps`?"),
        (
            "{{ peak(data=\"runs\", value=\"tps\", by=\"run\") }}",
            38,
            "unknown configuration column `run`",
        ),
        ("{{ every(name=\"by_procs\", claim=\"quicker\") }}", 33, "directions: `faster`, `slower`"),
        (
            "{{ every(name=\"throughput\", claim=\"slower\") }}",
            15,
            "no family of comparisons per level",
        ),
        ("{{ range(data=\"runs\") }}", 1, "`range` needs `of`"),
        ("{{ count(data=\"runs\", field=\"words\") }}", 29, "fields here: `value`"),
    ] {
        let study = written_study(BOOK, &[("runs.csv", &csv(&means))], &format!("# T\n\n{call}\n"));
        let output = report(study.path(), &["build"]);
        assert!(!output.status.success(), "{call}");
        let err = stderr(&output);
        assert!(err.contains(&format!("content/index.md:3:{at}: ")), "{call}: {err}");
        assert!(err.contains(says), "{call}: {err}");
    }
}

/// Python's answers for a generated study: each environment's peak and
/// trough, then the counts where `b` is slower, the counts, the runs and
/// the lowest and highest count.
const ORACLE: &str = r#"
import csv, sys
rows = list(csv.DictReader(sys.stdin))
means = {}
for r in rows:
    means.setdefault((r['environment'], int(r['procs'])), []).append(float(r['tps']))
means = {k: sum(v) / len(v) for k, v in means.items()}
levels = sorted({p for _, p in means})
for env in 'ab':
    at = [(means[(env, p)], p) for p in levels]
    print(max(at, key=lambda x: (x[0], -x[1]))[1], min(at, key=lambda x: (x[0], x[1]))[1])
slower = [p for p in levels if means[('b', p)] < means[('a', p)]]
print(len(slower), len(levels), len(rows), levels[0], levels[-1])
"#;

/// The page of a generated study: each fact by the field Python checks.
const GENERATED_PAGE: &str = "# G\n\n\
    A: {{ peak(data=\"runs\", value=\"tps\", by=\"procs\", environment=\"a\", field=\"at\") }}, \
    {{ peak(data=\"runs\", value=\"tps\", by=\"procs\", environment=\"a\", end=\"min\", field=\"at\") }}.\n\n\
    B: {{ peak(data=\"runs\", value=\"tps\", by=\"procs\", environment=\"b\", field=\"at\") }}, \
    {{ peak(data=\"runs\", value=\"tps\", by=\"procs\", environment=\"b\", end=\"min\", field=\"at\") }}.\n\n\
    Slower: {{ every(name=\"by_procs\", claim=\"slower\", field=\"extent\") }}, \
    {{ every(name=\"by_procs\", claim=\"slower\", field=\"count\") }}.\n\n\
    Runs {{ count(data=\"runs\") }} over {{ count(data=\"runs\", of=\"procs\") }} counts, \
    {{ range(data=\"runs\", of=\"procs\") }}.\n";

/// A generated study's results: 2 to 6 counts (1, 2, 4, ...), at each a
/// mean from 10 to 999 per environment, given by two or three runs alike.
fn generated(next: &mut dyn FnMut(u64) -> u64) -> String {
    let mut csv = String::from("environment,procs,run,tps\n");
    for i in 0..2 + next(5) as u32 {
        for env in ["a", "b"] {
            let mean = 10 + next(990);
            for run in 1..=2 + next(2) {
                writeln!(csv, "{env},{},{run},{mean}", 1u32 << i).unwrap();
            }
        }
    }
    csv
}

/// Generated studies: per-count means drawn at random, each side's two
/// or three runs all alike (so every comparison is exact and its verdict
/// its sign). Python finds each environment's peak and trough and the
/// counts where `b` is slower; the page must say the same.
#[test]
fn generated_facts_match_python() {
    let Some(python) = python() else { return };
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let named = |p: u32| if p == 1 { "1 process".to_string() } else { format!("{p} processes") };
    for seed in 0..12 {
        let csv = generated(&mut next);
        let lines: Vec<Vec<u32>> = python_output(python, ORACLE, &csv)
            .lines()
            .map(|l| l.split_whitespace().map(|x| x.parse().unwrap()).collect())
            .collect();
        let (slower, total, runs) = (lines[2][0], lines[2][1], lines[2][2]);
        let extent = match slower {
            0 => "none",
            s if s == total => "every",
            _ => "some",
        };
        let study = written_study(BOOK, &[("runs.csv", &csv)], GENERATED_PAGE);
        let text = page_text(study.path());
        for expected in [
            format!("A: {}, {}.", named(lines[0][0]), named(lines[0][1])),
            format!("B: {}, {}.", named(lines[1][0]), named(lines[1][1])),
            format!("Slower: {extent}, {slower} of {total}."),
            format!("Runs {runs} over {total} counts, 1 to {} processes.", lines[2][4]),
        ] {
            assert!(text.contains(&expected), "seed {seed}: {expected}\nnot in\n{text}\n{csv}");
        }
    }
}

/// A number typed into a page that a statistic computes is a warning of
/// `report check` and of the build, at its line and column, with the call
/// that computes it; a date, a version, a year and a count of files are not.
#[test]
fn typed_numbers_are_warnings_with_the_call_to_write() {
    let book = format!(
        "{BOOK}\n[[metrics]]\nname = \"at_1\"\nlabel = \"At 1\"\ndata = \"runs\"\nvalue = \"tps\"\n\
         where = {{ procs = 1 }}\nbetter = \"higher\"\n"
    );
    let means = [(1, 100.0, 50.0), (2, 200.0, 100.0)];
    let page = "# T\n\nOn 2025-06-11, with OpenMPI 4.0.3, in 2025, over 3 files:\n\
                Kubernetes was 50.0% slower at 1 process.\n";
    let study = written_study(&book, &[("runs.csv", &csv(&means))], page);
    for command in ["check", "build"] {
        let output = report(study.path(), &[command]);
        assert!(output.status.success(), "{}", stderr(&output));
        let err = stderr(&output);
        assert_eq!(err.matches("is typed here").count(), 1, "{command}: {err}");
        assert!(
            err.contains("warning: content/index.md:4:16: `50.0%` is typed here, and equals the statistic `at_1`"),
            "{command}: {err}"
        );
        assert!(err.contains("{{ stat(name=\"at_1\", field=\"words\") }}"), "{command}: {err}");
    }
}
