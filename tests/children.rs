//! The child processes that typeset the paper, as a study meets them when
//! they fail: a generated page so large that typesetting runs out of the
//! child's memory is named with its size (and the study is not asked about
//! a template it never had), and a child killed or crashed from outside is
//! named by its signal. Each build ends with one error, never a hang.
//! Unix only: Windows has no memory limit for the children, nor signals
//! (docs/platforms.md).
#![cfg(unix)]

use std::fs;
use std::process::Command;

use crate::common;
use common::*;

/// `count` bytes or more of Markdown paragraphs of seeded random words,
/// each short enough to typeset on its own.
fn paragraphs(seed: u64, count: usize) -> String {
    const WORDS: [&str; 12] = [
        "latency", "of", "each", "run", "was", "measured", "on", "both", "nodes", "with", "a",
        "cache",
    ];
    let mut state = seed;
    let mut next = move || {
        state =
            state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize
    };
    let mut text = String::from("# A page of every run\n\n");
    while text.len() < count {
        let words: Vec<&str> = (0..60 + next() % 40).map(|_| WORDS[next() % WORDS.len()]).collect();
        text.push_str(&words.join(" "));
        text.push_str(".\n\n");
    }
    text
}

#[test]
fn a_page_too_large_for_the_memory_limit_is_named_with_its_size() {
    let study = fixture("minimal");
    fs::write(study.path().join("content/runs.md"), paragraphs(7, 2_000_000)).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_report"))
        .args(["build", "--message-format", "short", "--root"])
        .arg(study.path())
        .env("REPORT_PAPER_MEMORY_MB", "256")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with(
            "error: content/runs.md: paper: typesetting needed more than 256 MB of memory"
        ),
        "{err}"
    );
    // About 2 MB of Markdown is about as much Typst markup (escaped dots and all).
    let size = regex::Regex::new(r"`content/runs\.md` is (\d+\.\d) MB of Typst markup").unwrap();
    let mb: f64 = size.captures(&err).expect("the page's size")[1].parse().unwrap();
    assert!((1.8..2.5).contains(&mb), "{err}");
    assert!(err.contains("raise REPORT_PAPER_MEMORY_MB (now 256)"), "{err}");
    assert!(!err.contains("range(") && !err.contains("template"), "{err}");
}

/// The process whose parent is `parent` and whose command line holds
/// `word`, once it has used `busy` of CPU time (it is typesetting).
#[cfg(target_os = "linux")]
fn busy_child(parent: u32, word: &str, busy: std::time::Duration) -> Option<u32> {
    let ticks = busy.as_millis() as u64 / 10; // USER_HZ is 100 on Linux
    for entry in fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let stat = fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // After the command's name in parentheses: state, ppid, ..., utime (14th), stime (15th).
        let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
        let number = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
        let cmdline = fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let ours = number(1) == Some(u64::from(parent))
            && String::from_utf8_lossy(&cmdline).contains(word);
        if ours && number(11).zip(number(12)).is_some_and(|(u, s)| u + s >= ticks) {
            return Some(pid);
        }
    }
    None
}

#[cfg(target_os = "linux")]
#[test]
fn a_typesetting_child_killed_or_crashed_is_named_by_its_signal() {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    for (signal, said) in [
        ("KILL", "paper: typesetting was killed (signal 9): did the machine run out of memory?"),
        ("ABRT", "paper: typesetting crashed (signal 6)"),
    ] {
        let study = fixture("minimal");
        fs::create_dir_all(study.path().join("templates")).unwrap();
        // Endless but for the deadline, and small: the child is busy until killed.
        let endless = "#for i in range(100000) { for j in range(100000) { } }\n";
        fs::write(study.path().join("templates/paper.typ"), endless).unwrap();
        let build = Command::new(env!("CARGO_BIN_EXE_report"))
            .args(["build", "--message-format", "short", "--root"])
            .arg(study.path())
            .env("REPORT_PAPER_TIMEOUT", "120")
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let child = loop {
            if let Some(pid) = busy_child(build.id(), "__typeset", Duration::from_millis(1500)) {
                break pid;
            }
            assert!(started.elapsed() < Duration::from_secs(60), "no typesetting child");
            std::thread::sleep(Duration::from_millis(100));
        };
        let kill = Command::new("kill").arg(format!("-{signal}")).arg(child.to_string()).status();
        assert!(kill.unwrap().success());
        let output = wait_or_kill(build, Duration::from_secs(60), signal);
        let err = stderr(&output);
        assert_eq!(output.status.code(), Some(1), "{err}");
        assert!(err.starts_with(&format!("error: templates/paper.typ: {said}")), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// A site of `count` copies of the minimal study, `sN` each, with a site.toml.
fn site_of_minimal(count: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..count {
        copy_dir(&repo().join("tests/fixtures/minimal"), &dir.path().join(format!("s{i}")));
        let title = format!("title = \"Minimal study {i}\"");
        edit(dir.path(), &format!("s{i}/book.toml"), "title = \"Minimal study\"", &title);
    }
    fs::write(dir.path().join("site.toml"), "[site]\ntitle = \"Minimal studies\"\n").unwrap();
    dir
}

/// The typesetting children of process `parent` now running.
#[cfg(target_os = "linux")]
fn typesetters_of(parent: u32) -> Vec<u32> {
    let Ok(entries) = fs::read_dir("/proc") else { return vec![] };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_string_lossy().parse::<u32>().ok()?;
            let stat = fs::read_to_string(entry.path().join("stat")).ok()?;
            let ppid = stat.rsplit(')').next()?.split_whitespace().nth(1)?.parse::<u32>().ok()?;
            let cmdline = fs::read(entry.path().join("cmdline")).ok()?;
            (ppid == parent && String::from_utf8_lossy(&cmdline).contains("__typeset"))
                .then_some(pid)
        })
        .collect()
}

/// The papers of a site are typeset by one long-lived child per core, not
/// one child a paper (docs/security.md), and the site is byte for byte the
/// one the library builds with every paper typeset in its own process.
#[cfg(target_os = "linux")]
#[test]
fn a_site_typesets_its_papers_in_one_child_per_core_with_the_same_bytes() {
    use std::collections::BTreeSet;
    use std::process::Stdio;
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let studies = cores + 4;
    let site = site_of_minimal(studies);
    let mut build = Command::new(env!("CARGO_BIN_EXE_report"))
        .args(["build", "--quiet", "--root"])
        .arg(site.path())
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut seen = BTreeSet::new();
    let status = loop {
        seen.extend(typesetters_of(build.id()));
        if let Some(status) = build.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut build.stderr.take().unwrap(), &mut err).unwrap();
    assert!(status.success(), "{err}");
    assert!(
        (1..=cores + 1).contains(&seen.len()),
        "{} typesetters for {studies} papers",
        seen.len()
    );
    let alone = tempfile::tempdir().unwrap();
    let options = report::BuildOptions {
        out: Some(alone.path().join("site")),
        source_date_epoch: Some(1_700_000_000),
        base_url: None,
    };
    report::site::build(site.path(), &options, None).unwrap();
    let (piped, here) = (contents(&site.path().join("site")), contents(&alone.path().join("site")));
    let papers = piped.iter().filter(|(path, _)| path.ends_with("paper.pdf")).count();
    assert_eq!(papers, studies);
    assert_eq!(piped.len(), here.len());
    for ((path, bytes), (other, same)) in piped.iter().zip(&here) {
        assert_eq!(path, other);
        assert!(bytes == same, "{} differs", path.display());
    }
}

/// A paper that never ends in a site costs its child only: the build names
/// that study's template, in time, and leaves the site as it was.
#[test]
fn a_paper_that_hangs_in_a_site_is_named_and_the_site_is_kept() {
    let site = site_of_minimal(4);
    let built = report(site.path(), &["build"]);
    assert!(built.status.success(), "{}", stderr(&built));
    let before = contents(&site.path().join("site"));
    fs::create_dir_all(site.path().join("s2/templates")).unwrap();
    fs::write(
        site.path().join("s2/templates/paper.typ"),
        "#for i in range(100000) { for j in range(100000) { } }\n",
    )
    .unwrap();
    let started = std::time::Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_report"))
        .args(["build", "--message-format", "short", "--root"])
        .arg(site.path())
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .env("REPORT_PAPER_TIMEOUT", "3")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(40), "{err}");
    assert!(err.starts_with("error: s2/templates/paper.typ: "), "{err}");
    assert!(!err.contains("s1/") && !err.contains("s3/") && !err.contains("panicked"), "{err}");
    assert_eq!(before, contents(&site.path().join("site")), "the site changed");
}
