//! A hostile file system, paths and links: writes that would leave the study
//! (output folders reached through `..` or symbolic links,
//! `report new` through links) and links inside the study, followed to
//! regular files only. Every refusal is located, hinted, exits 1 and leaves
//! what was there as it was. (Special files: hostile_fs_special.rs; what
//! `report import` meets, `--into` paths: hostile_fs_import.rs.) Unix only:
//! the links are made with Unix's `symlink` (Windows needs a privilege).

#![cfg(unix)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use crate::common;
use common::hostile::{bounded, mkfifo, refused, within, write};
use common::*;

/// Every file of the study's input folders, with its bytes.
fn inputs(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let input = |p: &Path| report::project::INPUT_FOLDERS.iter().any(|f| p.starts_with(f));
    contents(root).into_iter().filter(|(p, _)| input(p)).collect()
}

#[test]
fn output_folders_resolving_into_the_study_are_refused() {
    let study = fixture("minimal");
    let root = study.path();
    write(&root.join("templates/README.md"), "mine\n");
    write(&root.join("fonts/README.md"), "mine\n");
    symlink(root.join("content"), root.join("to-content")).unwrap();
    symlink(root, root.join("to-root")).unwrap();
    let before = inputs(root);
    for (command, out, why) in [
        ("build", "site/../content", "inside the study's `content/` folder (it leads to"),
        ("build", "site/../results/x", "`results/` folder (it leads to"),
        ("build", "to-content/site", "`content/` folder (it leads to"),
        ("build", "to-root/fonts", "`fonts/` folder (it leads to"),
        ("build", "to-root", "would replace the study folder (it leads to"),
        ("build", "..", "would replace the study folder (it leads to"),
        ("typst", "site/../templates/paper", "`templates/` folder (it leads to"),
        ("typst", "to-root/templates", "`templates/` folder (it leads to"),
    ] {
        let out = root.join(out).display().to_string();
        let args =
            if command == "build" { vec![command, "--out", &out] } else { vec![command, &out] };
        refused(&within(root, &args), root, &[why]);
    }
    // `[output] dir` is resolved alike, and `site` may not be a link into an input folder.
    edit(root, "book.toml", "[study]", "[output]\ndir = \"site/../content\"\n\n[study]");
    refused(&within(root, &["build"]), root, &["`content/` folder"]);
    edit(root, "book.toml", "dir = \"site/../content\"", "dir = \"site\"");
    symlink(root.join("results"), root.join("site")).unwrap();
    refused(&within(root, &["build"]), root, &["`results/` folder"]);
    refused(&within(root, &["check"]), root, &["`results/` folder"]);
    assert!(before == inputs(root), "an input changed");
}

#[test]
fn output_folders_outside_the_study_only_when_new_or_written_by_report() {
    let study = fixture("minimal");
    let elsewhere = tempfile::tempdir().unwrap();
    let out = elsewhere.path().join("site");
    for _ in 0..2 {
        let built = within(study.path(), &["build", "--out", out.to_str().unwrap()]);
        assert!(built.status.success(), "{}", stderr(&built));
    }
    assert!(out.join(".report-output").is_file() && out.join("index.html").is_file());
    // The study itself (book.toml, a link) cannot send the output out of it ...
    symlink(&out, study.path().join("site")).unwrap();
    refused(
        &within(study.path(), &["build"]),
        study.path(),
        &["`[output] dir` leads out of the study"],
    );
    edit(study.path(), "book.toml", "[study]", "[output]\ndir = \"../elsewhere\"\n\n[study]");
    let err = refused(&within(study.path(), &["build"]), study.path(), &["leads out of the study"]);
    assert!(err.contains("error: book.toml:6:7: "), "at the value in book.toml:\n{err}");
    // ... but the user may: a link named with --out is followed, and stays a link.
    let linked =
        within(study.path(), &["build", "--out", study.path().join("site").to_str().unwrap()]);
    assert!(linked.status.success(), "{}", stderr(&linked));
    assert!(fs::symlink_metadata(study.path().join("site")).unwrap().file_type().is_symlink());
    // A folder report did not write is never replaced.
    write(&elsewhere.path().join("notes.txt"), "mine");
    let foreign = ["build", "--out", elsewhere.path().to_str().unwrap()];
    refused(&within(study.path(), &foreign), study.path(), &["not written by report"]);
    assert_eq!(fs::read_to_string(elsewhere.path().join("notes.txt")).unwrap(), "mine");
}

#[test]
fn report_new_never_writes_through_a_symbolic_link() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target");
    fs::create_dir(&target).unwrap();
    symlink(&target, dir.path().join("link")).unwrap();
    symlink(dir.path().join("nowhere"), dir.path().join("dangling")).unwrap();
    write(&dir.path().join("file"), "x");
    for (name, why) in [
        ("link", "the folder is a symbolic link (to `"),
        ("dangling", "the folder is a symbolic link (to nowhere)"),
        ("file", "a file of this name exists"),
    ] {
        // `report new` takes no --root: it creates the folder it is given.
        let output = bounded(&["new", dir.path().join(name).to_str().unwrap()]);
        refused(&output, dir.path(), &[why]);
    }
    assert_eq!(fs::read_dir(&target).unwrap().count(), 0, "nothing written through the link");
    assert!(!dir.path().join("nowhere").exists());
    let made = bounded(&["new", target.to_str().unwrap()]);
    assert!(made.status.success(), "an empty folder is fine: {}", stderr(&made));
}

#[test]
fn links_inside_the_study_are_followed_to_regular_files_only() {
    let study = fixture("minimal");
    let root = study.path();
    write(&root.join("shared/more.md"), "# More\n\nLinked in from shared/.\n");
    symlink("../shared/more.md", root.join("content/more.md")).unwrap();
    let output = within(root, &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(fs::read_to_string(root.join("site/more.html")).unwrap().contains("Linked in"));
    mkfifo(&root.join("shared/pipe"));
    symlink("../shared/pipe", root.join("content/pipe.md")).unwrap();
    let why = "content/pipe.md: not a regular file but a symbolic link to a named pipe (FIFO)";
    refused(&within(root, &["build"]), root, &[why]);
    let real = dunce::canonicalize(root).unwrap();
    let found = report::project::regular_file(&real, Path::new("content/more.md")).unwrap();
    assert_eq!(found, Some(real.join("shared/more.md")));
    assert!(report::project::regular_file(&real, Path::new("shared/pipe")).is_err());
}
