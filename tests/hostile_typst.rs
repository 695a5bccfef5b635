//! Hostile input to the paper: a Typst template that loops forever, recurses,
//! or asks for 40 GB, content that asks Typst to lay out 200,000 escaped
//! characters in one paragraph, and images that decode to gigabytes. Each
//! build must end with a located error (snapshotted, short form) in bounded
//! time, never a hang or an abort, and leave the previous output as it was.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::common;
use common::*;

/// The deadline the tests give a template that never ends
/// (`REPORT_PAPER_TIMEOUT`), in seconds; others get the default.
const TIMEOUT: u64 = 3;

/// The memory limit the tests give typesetting (`REPORT_PAPER_MEMORY_MB`):
/// small, so that a template growing a value fails fast and uses little.
const MEMORY_MB: &str = "1024";

/// `report build` with the tests' memory limit and a deadline of `timeout` seconds.
fn build(root: &Path, timeout: u64) -> Output {
    let timeout = timeout.to_string();
    build_with(root, &[("REPORT_PAPER_TIMEOUT", &timeout), ("REPORT_PAPER_MEMORY_MB", MEMORY_MB)])
}

/// `report build` in `root` with one-line diagnostics and `env` set.
fn build_with(root: &Path, env: &[(&str, &str)]) -> Output {
    require_sandbox();
    Command::new(env!("CARGO_BIN_EXE_report"))
        .args(["build", "--root"])
        .arg(root)
        .args(["--message-format", "short"])
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// Fail (rather than hang or abort) unless `report` typesets in a child
/// process: its `main` must call `report::render::enter()`.
fn require_sandbox() {
    static CHECKED: std::sync::Once = std::sync::Once::new();
    CHECKED.call_once(|| {
        let child = Command::new(env!("CARGO_BIN_EXE_report"))
            .arg(report::render::sandbox::Job::Typeset.arg())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(
            child.stderr.is_empty() && child.status.code() == Some(2),
            "`report __typeset` is not the typesetting child (does main call \
             report::render::enter()?): {}",
            stderr(&child)
        );
    });
}

/// The minimal study, built once, so that a failed build can be checked to
/// leave its output alone.
fn built_study() -> tempfile::TempDir {
    let study = fixture("minimal");
    let output = build(study.path(), 60);
    assert!(output.status.success(), "{}", stderr(&output));
    study
}

/// Break `study` with `hostile`, build it with a deadline of `timeout`
/// seconds, and return the error, after checking that the build failed
/// cleanly, in time, and wrote nothing.
fn fails(study: &tempfile::TempDir, hostile: impl FnOnce(&Path), timeout: u64) -> String {
    let before = contents(&study.path().join("site"));
    hostile(study.path());
    let started = Instant::now();
    let output = build(study.path(), timeout);
    let took = started.elapsed();
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(1), "not an error (a crash?): {err}");
    assert!(took < Duration::from_secs(timeout + 10), "took {took:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(before, contents(&study.path().join("site")), "the output changed");
    err
}

fn template(source: &str) -> impl FnOnce(&Path) + '_ {
    move |root| {
        fs::create_dir_all(root.join("templates")).unwrap();
        fs::write(root.join("templates/paper.typ"), source).unwrap();
    }
}

fn content(markdown: String) -> impl FnOnce(&Path) {
    move |root| fs::write(root.join("content/index.md"), markdown).unwrap()
}

/// Templates that never end, and what stops each: Typst itself (`while`
/// loops, call depth) or the deadline.
const ENDLESS: &[(&str, &str)] = &[
    ("while_true", "#while true {}\n"),
    ("while_counting", "#let i = 0\n#while true { i += 1 }\n"),
    ("recursion", "#let f(x) = f(x)\n#f(1)\n"),
    ("nested_for", "#for i in range(100000) { for j in range(100000) { } }\n"),
    (
        "branching_recursion",
        "#let f(n, k) = if n > 0 { f(n - 1, 2 * k) + f(n - 1, 2 * k + 1) } else { 1 }\n#f(40, 0)\n",
    ),
];

#[test]
fn templates_that_never_end_are_stopped() {
    let study = built_study();
    for (name, source) in ENDLESS {
        let err = fails(&study, template(source), TIMEOUT);
        insta::assert_snapshot!(format!("endless_{name}"), err);
    }
}

/// Templates that ask for far more memory than a paper needs.
#[cfg(unix)]
const GREEDY: &[(&str, &str)] = &[
    ("range", "#range(5000000000)\n"),
    ("for_over_a_huge_range", "#for i in range(1000000000) []\n"),
    ("string_repeat", "#(\"x\" * 50000000000)\n"),
    ("array_doubling", "#let a = (0,)\n#for i in range(40) { a = a + a }\n"),
];

#[cfg(unix)] // the children's memory limit is Unix only (docs/platforms.md)
#[test]
fn templates_that_ask_for_gigabytes_are_stopped() {
    let study = built_study();
    for (name, source) in GREEDY {
        let err = fails(&study, template(source), 60);
        insta::assert_snapshot!(format!("greedy_{name}"), err);
    }
}

#[test]
fn the_default_limits_stop_a_40_gb_string() {
    let study = built_study();
    template("#(\"x\" * 50000000000)\n")(study.path());
    let output = build_with(study.path(), &[]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(stderr(&output).contains("more than 4096 MB of memory"), "{}", stderr(&output));
}

#[test]
fn huge_boxes_are_clamped_by_typst() {
    let study = fixture("minimal");
    let source = "#set document(title: [T])\n#box(width: 1e30pt, height: 1e30pt, fill: red)\n\
                  #set page(width: 1e30pt)\n#v(1e30pt)\n";
    template(source)(study.path());
    let output = build(study.path(), 60);
    assert!(output.status.success(), "{}", stderr(&output));
}

/// A PNG whose header claims 100,000 × 100,000 RGBA pixels (40 GB decoded).
fn png_bomb() -> Vec<u8> {
    fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        png.extend((data.len() as u32).to_be_bytes());
        let start = png.len();
        png.extend(kind);
        png.extend(data);
        let crc = png[start..].iter().fold(!0u32, |crc, &byte| {
            (0..8).fold(crc ^ u32::from(byte), |c, _| {
                (c >> 1) ^ (0xedb8_8320 & (c & 1).wrapping_neg())
            })
        });
        png.extend((!crc).to_be_bytes());
    }
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut header = [100_000u32.to_be_bytes(), 100_000u32.to_be_bytes()].concat();
    header.extend([8, 6, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &header);
    chunk(&mut png, b"IDAT", &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]);
    chunk(&mut png, b"IEND", &[]);
    png
}

#[test]
fn an_image_that_decodes_to_gigabytes_is_refused() {
    let study = built_study();
    let err = fails(
        &study,
        |root| {
            fs::write(root.join("content/bomb.png"), png_bomb()).unwrap();
            fs::write(root.join("content/index.md"), "# Result\n\nText.\n\n![A bomb](bomb.png)\n")
                .unwrap();
        },
        60,
    );
    insta::assert_snapshot!("image_bomb", err);
}

/// The characters that each took a piece of their own in Typst's paragraph
/// (`[` last: Typst never breaks a line after it, even at a space).
const ESCAPED: [&str; 6] = ["\\\\", "\\*", "_", "#", "<", "["];

#[test]
fn many_escapes_in_one_paragraph_typeset_in_linear_time() {
    // 10,000 of each in one paragraph: escaped one by one, each a piece of
    // the paragraph, they took minutes to typeset; as one string, seconds.
    // (Fewer backslashes: Typst may break a line after each, and its
    // justified line breaking costs about a millisecond per break opportunity.)
    let study = fixture("minimal");
    let paragraph: String =
        ESCAPED.iter().map(|c| c.repeat(if *c == "\\\\" { 2_000 } else { 10_000 }) + " ").collect();
    content(format!("# Result\n\nText {paragraph} end.\n"))(study.path());
    let started = Instant::now();
    let output = build_with(study.path(), &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(started.elapsed() < Duration::from_secs(30), "took {:?}", started.elapsed());
    if tool("pdftotext", &["-v"]) {
        let text: String = pdftotext(&study.path().join("site/paper.pdf"))
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        // A run without a break opportunity is one word: the PDF shows the
        // line of it that fits the page.
        for c in ["\\", "*", "_", "#", "<", "["] {
            assert!(text.contains(&c.repeat(30)), "no run of {c} in the PDF");
        }
    }
}

#[test]
fn a_paragraph_too_long_to_typeset_is_refused() {
    let study = built_study();
    for c in ESCAPED {
        let markdown = format!("# Result\n\nFine.\n\nText {} end.\n", c.repeat(200_000));
        let err = fails(&study, content(markdown), 60);
        assert_eq!(
            err.lines().next().and_then(|l| l.split(" = help: ").next()),
            Some(
                "error: content/index.md:5:1: paper: this paragraph is too long to typeset (more than 64 KB)"
            ),
            "{c}: {err}"
        );
    }
    let pieces = "*a* `b` [c](https://example.org/) ".repeat(10_000);
    let err = fails(&study, content(format!("# Result\n\n- {pieces}\n")), 60);
    insta::assert_snapshot!("paragraph_too_long", err);
}

#[test]
fn text_past_the_escape_budget_prints_as_written() {
    // Each sentence has 29 characters to escape (and none that Markdown
    // pairs across lines), on lines joined by hard breaks: from the third
    // on, the paragraph's text is written as string literals.
    let sentence =
        "C# at $5 <b>@home [x] #sys.inputs // z ~ = - + ' \" (a) {b} | c! d? 50% e; f: g & h.";
    let study = fixture("minimal");
    content(format!("# Result\n\n{}\n", [sentence; 5].join("   \n")))(study.path());
    let output = build(study.path(), 60);
    assert!(output.status.success(), "{}", stderr(&output));
    if tool("pdftotext", &["-v"]) {
        let text = pdftotext(&study.path().join("site/paper.pdf"));
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        // Quotes come out typographic, in markup and in string literals alike.
        let typeset = sentence.replace("' \"", "\u{2018} \u{201C}");
        assert!(text.contains(&[typeset.as_str(); 5].join(" ")), "{text}");
    }
}

/// The typesetting children whose working folder is `dir`.
fn typesetters_in(dir: &Path) -> Vec<String> {
    let dir = dunce::canonicalize(dir).unwrap();
    let Ok(entries) = fs::read_dir("/proc") else { return vec![] };
    entries
        .flatten()
        .filter(|entry| fs::read_link(entry.path().join("cwd")).is_ok_and(|cwd| cwd == dir))
        .filter_map(|entry| fs::read(entry.path().join("cmdline")).ok())
        .map(|cmdline| String::from_utf8_lossy(&cmdline).replace('\0', " "))
        .filter(|cmdline| cmdline.contains(report::render::sandbox::Job::Typeset.arg()))
        .collect()
}

/// The child that a build starts early, to load fonts while the results are
/// read, ends with the build when the build fails before the paper.
#[test]
fn a_build_that_fails_before_the_paper_leaves_no_child_behind() {
    require_sandbox();
    let study = fixture("minimal");
    let csv = fs::read_dir(study.path().join("results")).unwrap().flatten().next().unwrap();
    fs::write(csv.path(), "not,a,results,file\n1,2\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_report"))
        .arg("build")
        .current_dir(study.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let started = Instant::now();
    while !typesetters_in(study.path()).is_empty() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(typesetters_in(study.path()), Vec::<String>::new());
}
