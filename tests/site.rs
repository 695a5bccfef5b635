//! Site structure: pages from front matter, navigation, template overrides,
//! hashed assets, provenance and relative links.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::common;
use common::*;

fn build(root: &Path) {
    let output = report(root, &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
}

fn read(root: &Path, file: &str) -> String {
    fs::read_to_string(root.join("site").join(file)).unwrap()
}

#[test]
fn every_content_file_is_a_page_with_navigation() {
    let study = fixture("minimal");
    fs::write(
        study.path().join("content/appendix.md"),
        "+++\ntitle = \"Appendix\"\norder = 2\n+++\n# More\n\nAppendix text.\n",
    )
    .unwrap();
    fs::write(
        study.path().join("content/notes.md"),
        "+++\noutputs = [\"paper\"]\n+++\n# Paper only\n\nPaper-only text.\n",
    )
    .unwrap();
    fs::write(study.path().join("content/web.md"), "+++\ntitle = \"Web\"\norder = 1\noutputs = [\"page\"]\n+++\n# Web only\n\nWeb-only text.\n").unwrap();
    build(study.path());
    let index = read(study.path(), "index.html");
    let appendix = read(study.path(), "appendix.html");
    // Order: index first, then web (order 1), then appendix (order 2); notes has no page.
    assert!(index.contains("<li><a href=\"index.html\" aria-current=\"page\">Result</a></li><li><a href=\"web.html\">Web</a></li><li><a href=\"appendix.html\">Appendix</a></li>"), "{index}");
    assert!(
        appendix.contains("<a href=\"appendix.html\" aria-current=\"page\">Appendix</a>"),
        "{appendix}"
    );
    assert!(appendix.contains("<title>Appendix · Minimal study</title>"), "{appendix}");
    assert!(!study.path().join("site/notes.html").exists());
    if tool("pdftotext", &["-v"]) {
        let text = pdftotext(&study.path().join("site/paper.pdf"));
        assert!(
            text.contains("Paper-only text.")
                && text.contains("Appendix text.")
                && !text.contains("Web-only text."),
            "{text}"
        );
    }
}

#[test]
fn any_template_file_can_be_overridden() {
    let study = fixture("minimal");
    fs::create_dir_all(study.path().join("templates/partials")).unwrap();
    fs::write(
        study.path().join("templates/partials/footer.html"),
        "<footer class=\"site\">Custom footer for {{ book.title }}</footer>\n",
    )
    .unwrap();
    fs::write(study.path().join("templates/style.css"), "body { color: red; }\n").unwrap();
    build(study.path());
    let index = read(study.path(), "index.html");
    assert!(index.contains("Custom footer for Minimal study"), "{index}");
    assert!(index.contains("<h1>Minimal study</h1>"), "the other templates stay built in");
    // sha256("body { color: red; }\n") starts with the hash in the file name (checked with sha256sum).
    let css = fs::read_dir(study.path().join("site"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with("style."))
        .unwrap();
    if let Some(python3) = python() {
        let expected = Command::new(python3)
            .args([
                "-c",
                "import hashlib;print(hashlib.sha256(b'body { color: red; }\\n').hexdigest()[:10])",
            ])
            .output()
            .unwrap();
        let expected = String::from_utf8_lossy(&expected.stdout);
        assert_eq!(css, format!("style.{}.css", expected.trim()));
    }
    assert!(index.contains(&format!("href=\"{css}\"")), "{index}");
}

#[test]
fn tera_autoescapes_book_fields() {
    let study = fixture("minimal");
    edit(
        study.path(),
        "book.toml",
        "title = \"Minimal study\"",
        "title = \"<script>alert(1)</script>\"",
    );
    build(study.path());
    let index = read(study.path(), "index.html");
    assert!(!index.contains("<script>alert(1)</script>"), "{index}");
    assert!(index.contains("&lt;script&gt;alert(1)&lt;&#x2F;script&gt;"), "{index}");
}

#[test]
fn the_footer_gives_provenance_without_the_clock() {
    let study = fixture("minimal");
    let git = git_in(study.path());
    git(&["init", "-q"]);
    commit_all(&git, "results");
    build(study.path());
    let index = read(study.path(), "index.html");
    let commit = String::from_utf8(git(&["rev-parse", "--short", "HEAD"]).stdout).unwrap();
    assert!(index.contains(&format!("<dt>Commit</dt><dd>{}</dd>", commit.trim())), "{index}");
    // SOURCE_DATE_EPOCH=1700000000 (set by the test helper) is 2023-11-14.
    assert!(index.contains("<dt>Built</dt><dd>2023-11-14</dd>"), "{index}");
    if let Some(hash) = results_sha(study.path()) {
        assert!(index.contains(&format!("<dd>sha256 {hash}</dd>")), "{index}");
    }
    // Relative links only: the site works under a sub-path and from file://.
    for attr in ["href=\"/", "src=\"/"] {
        assert!(!index.contains(attr), "absolute link in {index}");
    }
}

/// `git` run in `root`, its output returned.
fn git_in(root: &Path) -> impl Fn(&[&str]) -> std::process::Output + '_ {
    move |args: &[&str]| {
        let output = Command::new("git").arg("-C").arg(root).args(args).output().unwrap();
        assert!(
            output.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }
}

/// Commit every file of the repository `git` works in; its short hash.
fn commit_all(git: &dyn Fn(&[&str]) -> std::process::Output, message: &str) -> String {
    let id = ["-c", "user.name=t", "-c", "user.email=t@t"];
    git(&[&id[..], &["add", "-A", "."]].concat());
    git(&[&id[..], &["commit", "-qm", message]].concat());
    String::from_utf8(git(&["rev-parse", "--short", "HEAD"]).stdout).unwrap().trim().to_string()
}

/// The digest of the study's one results file as provenance names it,
/// computed by Python's hashlib (`None` without Python).
fn results_sha(root: &Path) -> Option<String> {
    let script = "import hashlib,sys;d=open(sys.argv[1],'rb').read();print(hashlib.sha256(b'results/runs.csv\\0'+hashlib.sha256(d).hexdigest().encode()).hexdigest()[:12])";
    let out = Command::new(python()?)
        .args(["-c", script])
        .arg(root.join("results/runs.csv"))
        .output()
        .unwrap();
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Issue 42, point 4: a build from a tree whose results, content or
/// book.toml differ from the commit says so, with the digest of the
/// results it read, in the footer, manifest.json and the paper's data
/// availability statement; a clean tree names the commit alone.
#[test]
fn a_dirty_tree_is_named_as_such_and_a_clean_one_by_its_commit() {
    let study = fixture("minimal");
    let root = study.path();
    let git = git_in(root);
    git(&["init", "-q"]);
    fs::write(root.join(".gitignore"), "site/\n").unwrap();
    let first = commit_all(&git, "study");
    let provenance = |dirty: bool, commit: &str| {
        build(root);
        let index = read(root, "index.html");
        let manifest: serde_json::Value =
            serde_json::from_str(&read(root, "data/manifest.json")).unwrap();
        let named =
            if dirty { format!("{commit} with uncommitted changes") } else { commit.into() };
        assert!(index.contains(&format!("<dt>Commit</dt><dd>{named}</dd>")), "{index}");
        assert_eq!(manifest["provenance"]["commit"], commit, "{manifest}");
        assert_eq!(manifest["provenance"]["uncommitted"], dirty, "{manifest}");
        let hash = manifest["provenance"]["results_hash"].as_str().unwrap().to_string();
        assert!(index.contains(&format!("<dd>sha256 {hash}</dd>")), "{index}");
        if let Some(expected) = results_sha(root) {
            assert_eq!(hash, expected);
        }
        if tool("pdftotext", &["-v"]) {
            let paper = pdftotext(&root.join("site/paper.pdf"))
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            assert!(paper.contains(&format!("(commit {named})")), "{paper}");
            assert!(paper.contains(&hash), "{paper}");
        }
        hash
    };
    let clean = provenance(false, &first);
    // New runs imported and not committed: the numbers come from them.
    let runs = fs::read_to_string(root.join("results/runs.csv")).unwrap();
    fs::write(root.join("results/runs.csv"), format!("{runs}base,1,4,13\n")).unwrap();
    assert_ne!(provenance(true, &first), clean);
    git(&["checkout", "-q", "--", "results/runs.csv"]);
    assert_eq!(provenance(false, &first), clean);
    // An untracked page, an edited book.toml: each is a change no commit has.
    fs::write(root.join("content/notes.md"), "# Notes\n\nMore.\n").unwrap();
    provenance(true, &first);
    fs::remove_file(root.join("content/notes.md")).unwrap();
    edit(root, "book.toml", "title = \"Minimal study\"", "title = \"Minimal\"");
    provenance(true, &first);
    // Committed, the tree is clean again and the new commit is named alone.
    let second = commit_all(&git, "title");
    assert_ne!(second, first);
    provenance(false, &second);
    // A change outside the study's inputs does not make it dirty.
    fs::write(root.join("notes.txt"), "scratch\n").unwrap();
    provenance(false, &second);
}

/// Issue 30, point 6: a study links to another by its folder, and the build
/// checks that the folder holds a book.toml (both shipped studies link to
/// each other); a folder that is no study is a warning at the link.
#[test]
fn links_between_studies_are_checked() {
    for study in [repo(), repo().join("examples/usernetes")] {
        let out = tempfile::tempdir().unwrap();
        let output = report(&study, &["build", "--out", out.path().to_str().unwrap()]);
        assert!(output.status.success(), "{}", stderr(&output));
        assert!(!stderr(&output).contains("which is no study"), "{}", stderr(&output));
    }
    let study = fixture("minimal");
    let other = study.path().join("other");
    fs::create_dir_all(&other).unwrap();
    let page = "# Result\n\nSee [the other study](other/#a).\n";
    fs::write(study.path().join("content/index.md"), page).unwrap();
    let output = report(study.path(), &["build"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let warned = stderr(&output);
    assert!(
        warned.contains("content/index.md:3:5: link to `other/#a`, which is no study"),
        "{warned}"
    );
    fs::copy(study.path().join("book.toml"), other.join("book.toml")).unwrap();
    let output = report(study.path(), &["build"]);
    assert!(
        output.status.success() && !stderr(&output).contains("no study"),
        "{}",
        stderr(&output)
    );
}

/// Issue 43, point 10: the page's script and stylesheet together stay
/// within 10 KB gzipped (`gzip -9`, as a server sends them at best).
#[test]
fn script_and_styles_stay_within_ten_kilobytes_gzipped() {
    use std::io::Write;
    if !tool("gzip", &["--version"]) {
        return;
    }
    let defaults = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/defaults");
    let mut both = fs::read(defaults.join("style.css")).unwrap();
    both.extend(fs::read(defaults.join("app.js")).unwrap());
    let mut gzip = Command::new("gzip")
        .arg("-9c")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    gzip.stdin.take().unwrap().write_all(&both).unwrap();
    let size = gzip.wait_with_output().unwrap().stdout.len();
    assert!(size <= 10 * 1024, "style.css and app.js are {size} bytes gzipped, over 10 KB");
}

/// Issue 43, point 10: each chart's CSV has its metadata beside it, which
/// says what each column holds (label, source column, unit), where the data
/// come from (file, SHA-256, provenance) and which build made it; the page
/// links both.
#[test]
fn each_chart_s_data_has_its_metadata_beside_it() {
    let study = fixture("charts");
    build(study.path());
    let html = read(study.path(), "index.html");
    let charts: Vec<String> = fs::read_dir(study.path().join("site/data/charts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".csv"))
        .collect();
    assert!(!charts.is_empty());
    for csv in charts {
        let id = csv.trim_end_matches(".csv");
        let meta: serde_json::Value =
            serde_json::from_str(&read(study.path(), &format!("data/charts/{id}.json"))).unwrap();
        assert!(html.contains(&format!("href=\"data/charts/{id}.json\" download")), "{id}");
        let text = read(study.path(), &format!("data/charts/{csv}"));
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_string).collect();
        let names: Vec<String> = meta["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(names, header, "{id}: one entry per column of the CSV, in order");
        assert_eq!(meta["csv"], format!("{id}.csv"));
        let source = &meta["sources"][0];
        let file = source["file"].as_str().unwrap();
        assert!(file.starts_with("results/") && file.ends_with(".csv"), "{meta}");
        let bytes = fs::read(study.path().join(file)).unwrap();
        assert_eq!(source["sha256"], report::project::sha256_hex(&bytes), "{meta}");
        assert_eq!(source["provenance"], "measured");
        assert!(meta["provenance"]["generator"].as_str().unwrap().starts_with("report "));
        assert_eq!(meta["columns"][0]["source_column"], "environment", "{meta}");
    }
}
