//! Page templates that no check before rendering can bound: loops nested
//! over lists that are each small, and strings doubled until memory runs
//! out. The study's own templates render in a child process under a deadline
//! and a memory limit; each build must end with an error in bounded time,
//! never a hang or an abort, and leave the previous output as it was. The
//! built-in templates, which only walk the study once, render in-process.

use std::fs;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common;
use common::*;

/// Build the minimal study, override `templates/partials/footer.html` with
/// `footer`, build again with a deadline of `timeout` seconds for the
/// templates (`REPORT_TEMPLATE_TIMEOUT`) and 1024 MB of memory, and return the second build's one-line error and
/// how long it took, after checking that it failed cleanly and wrote nothing.
fn refused(footer: &str, timeout: &str) -> (String, Duration) {
    let study = fixture("minimal");
    let root = study.path();
    assert!(report(root, &["build"]).status.success());
    let before = contents(&root.join("site"));
    fs::create_dir_all(root.join("templates/partials")).unwrap();
    fs::write(root.join("templates/partials/footer.html"), footer).unwrap();
    let started = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_report"))
        .args(["build", "--message-format", "short", "--root"])
        .arg(root)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .env("REPORT_TEMPLATE_TIMEOUT", timeout)
        .env("REPORT_TEMPLATE_MEMORY_MB", "1024")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let output = wait_or_kill(child, Duration::from_secs(180), "templates");
    let took = started.elapsed();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "expected exit 1:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(before == contents(&root.join("site")), "the previous output changed");
    (err, took)
}

#[test]
fn loops_nested_over_small_lists_are_stopped_at_the_deadline() {
    // 1,000³ rounds: each `range` is small and called once, so only time bounds it.
    let (err, took) = refused(
        "{% set xs = range(end=1000) %}{% for a in xs %}{% for b in xs %}{% for c in xs %}\
         {% endfor %}{% endfor %}{% endfor %}",
        "3",
    );
    assert!(
        err.starts_with(
            "error: templates: template: rendering the templates took longer than 3 s and was stopped"
        ),
        "{err}"
    );
    assert!(err.contains("do loops of the templates nest"), "{err}");
    assert!(took < Duration::from_secs(30), "took {took:?}");
}

#[cfg(unix)] // the children's memory limit is Unix only (docs/platforms.md)
#[test]
fn a_string_doubled_past_the_memory_limit_is_stopped() {
    // 10 bytes doubled 40 times: 10 TB, asked for within a second.
    let doubling = "{% set s = s ~ s %}".repeat(40);
    let footer = format!("{{% set s = \"0123456789\" %}}{doubling}{{{{ s | length }}}}");
    let (err, _) = refused(&footer, "120");
    assert!(
        err.starts_with(
            "error: templates: template: rendering the templates needed more than 1024 MB of memory"
        ),
        "{err}"
    );
}

#[test]
fn a_good_override_renders_as_in_process() {
    let study = fixture("minimal");
    let root = study.path();
    fs::create_dir_all(root.join("templates/partials")).unwrap();
    let footer = "<footer>{% for p in pages %}[{{ p.title }}]{% endfor %}</footer>";
    fs::write(root.join("templates/partials/footer.html"), footer).unwrap();
    let output = report(root, &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let index = fs::read_to_string(root.join("site/index.html")).unwrap();
    assert!(index.contains("<footer>[Result]</footer>"), "{index}");
}
