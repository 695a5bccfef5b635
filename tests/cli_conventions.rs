//! What users of other command-line tools expect of `report`: each command's
//! help lists only the options it uses, options before the command still
//! work, `--message-format json` gives JSON on standard output for every
//! command, colour follows `--color` and NO_COLOR, names are suggested case
//! aside, and shell completions and man pages come from the same grammar.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use crate::common;
use common::*;

/// `report ARGS` in `dir`, with the environment `env` and no colour set.
fn run(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_report"))
        .current_dir(dir)
        .args(args)
        .env_remove("NO_COLOR")
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// The long options `report COMMAND --help` lists.
fn options(command: &[&str]) -> Vec<String> {
    let output = run(Path::new("."), &[command, &["--help"]].concat(), &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    let help = String::from_utf8(output.stdout).unwrap();
    let pattern = regex::Regex::new(r"(?m)^\s+(?:-\w, )?(--[a-z-]+)").unwrap();
    pattern.captures_iter(&help).map(|c| c[1].to_string()).collect()
}

#[test]
fn each_command_s_help_lists_only_the_options_it_uses() {
    let printing = ["--quiet", "--message-format", "--color", "--help"];
    let with = |own: &[&str]| -> Vec<String> {
        let mut all: Vec<String> = own.iter().chain(&printing).map(|s| s.to_string()).collect();
        all.sort();
        all
    };
    let sorted = |command: &[&str]| {
        let mut listed = options(command);
        listed.sort();
        listed
    };
    assert_eq!(sorted(&["new"]), with(&["--example"]), "new creates its folder: no --root");
    assert_eq!(
        sorted(&["build"]),
        with(&["--root", "--out", "--base-url", "--previous", "--verbose"])
    );
    assert_eq!(sorted(&["check"]), with(&["--root", "--format"]));
    assert_eq!(sorted(&["serve"]), with(&["--root", "--port", "--bind-all", "--open"]));
    assert_eq!(sorted(&["typst"]), with(&["--root"]));
    let mut diff = vec!["--against", "--root", "--message-format", "--color", "--help"];
    diff.sort_unstable();
    assert_eq!(sorted(&["diff"]), diff, "diff prints its result: no --quiet");
    for importer in ["lammps", "osu"] {
        let listed = sorted(&["import", importer]);
        for option in ["--root", "--verbose", "--quiet", "--message-format", "--color"] {
            assert!(listed.iter().any(|o| o == option), "import {importer}: {option}");
        }
    }
    assert_eq!(sorted(&["completions"]), ["--help"]);
    assert_eq!(sorted(&["man"]), ["--help"]);
}

#[test]
fn options_before_the_command_work_and_unused_ones_are_refused() {
    let study = fixture("minimal");
    // Named authors: a study without them warns (tests/paper_reads.rs).
    edit(study.path(), "book.toml", "[book]\n", "[book]\nauthors = [{ name = \"Ada\" }]\n");
    let root = study.path().to_str().unwrap();
    let output = run(Path::new("."), &["--root", root, "--quiet", "check"], &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stderr(&output), "", "--quiet before the command");
    let dir = tempfile::tempdir().unwrap();
    let output = run(dir.path(), &["--root", root, "new", "s"], &[]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("`report new` has no --root"), "{}", stderr(&output));
    assert!(!dir.path().join("s").exists());
}

/// The JSON that `--message-format json` puts on standard output.
fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {:?}\n{}", output.stdout, stderr(output)))
}

#[test]
fn every_command_honours_message_format_json() {
    let dir = tempfile::tempdir().unwrap();
    let json_format = ["--message-format", "json"];
    let output = run(dir.path(), &[&["new", "s"][..], &json_format].concat(), &[]);
    assert_eq!(json(&output), serde_json::json!([]), "new, without warnings");
    let s = dir.path().join("s");
    for command in [&["check"][..], &["build"], &["typst", "paper"]] {
        let output = run(&s, &[command, &json_format].concat(), &[]);
        assert!(output.status.success(), "{command:?}: {}", stderr(&output));
        assert_eq!(json(&output), serde_json::json!([]), "{command:?}");
    }

    // diff: the changes, by hand as in cli.rs: −8.0% on 100 MB, both builds alike.
    let stats = s.join("site/data/stats.json");
    let stats = stats.to_str().unwrap();
    let output = run(&s, &[&["diff", stats, stats][..], &json_format].concat(), &[]);
    let changes = json(&output);
    assert_eq!(changes[0]["name"], "time_100", "{changes}");
    assert_eq!(changes[0]["label"], "Run time on 100 MB");
    assert_eq!(
        (&changes[0]["before"], &changes[0]["after"]),
        (&"\u{2212}8.0%".into(), &"\u{2212}8.0%".into())
    );
    // The same file twice: after ÷ before is 1, p = 1, no change, by hand.
    let test = &changes[0]["test"];
    assert_eq!(
        (&test["scale"], &test["estimate"], &test["p"]),
        (&"ratio".into(), &1.0.into(), &1.0.into())
    );
    assert_eq!(test["significant"], false);
    let text = changes[0]["text"].as_str().unwrap();
    assert!(
        text.starts_with(
            "Run time on 100 MB: \u{2212}8.0% → \u{2212}8.0% (after ÷ before ×1.000, 95% CI ×"
        ) && text.ends_with(", p = 1.000: not a significant change)"),
        "{text}"
    );

    // `report diff … | head`: a reader gone before the changes are printed.
    for format in [&[][..], &json_format] {
        let args: Vec<&str> = ["diff", stats, stats].iter().chain(format).copied().collect();
        closed_pipe(&s, &args);
    }

    // An error, of a command and of the study, is JSON too.
    let output = run(&s, &[&["diff", stats][..], &json_format].concat(), &[]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(json(&output)[0]["level"], "error");
    edit(&s, "results/runs.csv", "current,1,1,0.212", "current,1,1,fast");
    let output = run(&s, &[&["build"][..], &json_format].concat(), &[]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(json(&output)[0]["path"], "results/runs.csv");
    assert_eq!(json(&output)[0]["line"], 2);
}

/// `report ARGS` in `dir` writing to a pipe whose reader has already gone,
/// as `report … | head` leaves it: the command ends without a panic, with
/// success, and says nothing about it.
fn closed_pipe(dir: &Path, args: &[&str]) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = Command::new(env!("CARGO_BIN_EXE_report"))
        .current_dir(dir)
        .args(args)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    let said = stderr(&output);
    assert!(!said.contains("panicked"), "{args:?}: {said}");
    assert_eq!(output.status.code(), Some(0), "{args:?}: {said}");
}

#[test]
fn no_command_panics_on_a_closed_pipe() {
    let study = fixture("minimal");
    let json_format = ["--message-format", "json"];
    closed_pipe(study.path(), &["completions", "bash"]);
    closed_pipe(study.path(), &["man"]);
    closed_pipe(study.path(), &[&["check"][..], &json_format].concat());
}

#[test]
fn colour_follows_the_color_option_then_no_color() {
    let study = fixture("minimal");
    edit(study.path(), "results/runs.csv", "base,1,2,11", "base,1,2,abc");
    let coloured = |args: &[&str], env: &[(&str, &str)]| {
        let output = run(study.path(), &[&["check"][..], args].concat(), env);
        assert_eq!(output.status.code(), Some(1));
        stderr(&output).contains('\u{1b}')
    };
    assert!(!coloured(&[], &[]), "not a terminal: no colour");
    assert!(coloured(&["--color", "always"], &[]));
    assert!(coloured(&["--color", "always"], &[("NO_COLOR", "1")]), "the option wins");
    assert!(!coloured(&["--color", "never"], &[]));
    assert!(!coloured(&["--color", "auto"], &[("NO_COLOR", "1")]));
    assert!(!coloured(&["--color", "always", "--message-format", "short"], &[]), "human only");
}

#[test]
fn an_environment_name_is_suggested_whatever_its_case() {
    let study = fixture("minimal");
    edit(study.path(), "book.toml", "[environments.cand]", "[environments.brotli]");
    fs::write(
        study.path().join("results/runs.csv"),
        "environment,procs,run,time_s\nbase,2,1,6\nbase,2,2,5\nBrotli,2,1,4\nBrotli,2,2,5\n",
    )
    .unwrap();
    let output = report(study.path(), &["check"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("unknown environment `Brotli`"), "{}", stderr(&output));
    assert!(stderr(&output).contains("did you mean `brotli`?"), "{}", stderr(&output));
}

#[test]
fn completions_come_for_every_shell_from_the_command_line_itself() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let output = run(Path::new("."), &["completions", shell], &[]);
        assert!(output.status.success(), "{shell}: {}", stderr(&output));
        let script = String::from_utf8(output.stdout).unwrap();
        // fish writes options as `-l open`, the others as `--open`.
        for word in ["serve", "open", "example", "lammps"] {
            assert!(script.contains(word), "{shell}: no `{word}`");
        }
    }
    let output = run(Path::new("."), &["completions", "tcsh"], &[]);
    assert_eq!(output.status.code(), Some(2), "an unknown shell is a usage error");
}

/// bash reads the script without error, and completes a command's options.
#[cfg(unix)]
#[test]
fn bash_completes_a_command_s_options() {
    let script = run(Path::new("."), &["completions", "bash"], &[]).stdout;
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("report.bash"), script).unwrap();
    let probe = "source ./report.bash; COMP_WORDS=(report serve --o); COMP_CWORD=2; \
                 _report report --o serve; printf '%s\\n' \"${COMPREPLY[@]}\"";
    let output = Command::new("bash").current_dir(dir.path()).args(["-c", probe]).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "--open");
}

#[test]
fn the_man_pages_document_every_command() {
    let output = run(Path::new("."), &["man"], &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    let page = String::from_utf8(output.stdout).unwrap();
    assert!(page.contains(".TH report 1"), "{page}");
    for word in ["report\\-new", "report\\-serve", "completions"] {
        assert!(page.contains(word), "no `{word}` in:\n{page}");
    }
    let dir = tempfile::tempdir().unwrap();
    let output = run(dir.path(), &["man", "pages"], &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    let mut pages: Vec<String> = fs::read_dir(dir.path().join("pages"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    pages.sort();
    for name in ["report.1", "report-new.1", "report-serve.1", "report-import-lammps.1"] {
        assert!(pages.iter().any(|p| p == name), "{name} in {pages:?}");
    }
    // groff reads every page without a warning, where it is installed.
    if tool("groff", &["--version"]) {
        for name in &pages {
            let path = dir.path().join("pages").join(name);
            let output = Command::new("groff")
                .args(["-man", "-Tutf8", "-ww", "-z"])
                .arg(&path)
                .output()
                .unwrap();
            assert!(
                output.status.success() && output.stderr.is_empty(),
                "{name}: {}",
                stderr(&output)
            );
        }
    }
}
