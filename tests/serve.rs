//! `report serve` on a free port: one rebuild per edit of content, results,
//! book.toml, templates and fonts, and none after it (the rebuild's own reads
//! must not start another); the error overlay while the last good page stays
//! served, printed once per change; recovery, also from a study that was
//! broken at the start; the paper following each edit; and no way out of the
//! site.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common;
use common::*;

/// A running `report serve`: the process, its address, and what it printed.
struct Server {
    child: Child,
    address: String,
    log: Arc<Mutex<Vec<String>>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// The lines printed so far that contain `text`.
    fn printed(&self, text: &str) -> usize {
        self.log.lock().unwrap().iter().filter(|l| l.contains(text)).count()
    }

    /// Everything printed so far.
    fn log(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }
}

fn serve(root: &Path) -> Server {
    serve_with(root, &[], &[])
}

/// `report serve` of `root` with more `args` and environment variables `env`.
fn serve_with(root: &Path, args: &[&str], env: &[(&str, &Path)]) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_report"))
        .args(["serve", "--port", "0", "--message-format", "short", "--root"])
        .arg(root)
        .args(args)
        .envs(env.iter().copied())
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .env("NO_COLOR", "1")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let log = Arc::new(Mutex::new(Vec::new()));
    let address = loop {
        let line = lines.next().expect("serve exited early").unwrap();
        log.lock().unwrap().push(line.clone());
        if let Some(rest) = line.strip_prefix("serving http://") {
            break rest.split('/').next().unwrap().to_string();
        }
    };
    let kept = Arc::clone(&log);
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            kept.lock().unwrap().push(line);
        }
    });
    Server { child, address, log }
}

/// A raw HTTP GET: status code and body.
fn get_bytes(address: &str, path: &str) -> (u16, Vec<u8>) {
    let mut stream = TcpStream::connect(address).unwrap();
    // HTTP/1.0, so that the body comes whole: this client reads no chunked
    // transfer encoding, which the server uses for larger bodies over 1.1.
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {address}\r\nConnection: close\r\n\r\n").unwrap();
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).unwrap();
    let end = bytes.windows(4).position(|w| w == b"\r\n\r\n").map_or(bytes.len(), |i| i + 4);
    let head = String::from_utf8_lossy(&bytes[..end]);
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, bytes[end..].to_vec())
}

fn get(address: &str, path: &str) -> (u16, String) {
    let (status, body) = get_bytes(address, path);
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// Poll `path` until `ready` holds, for at most `limit`; the time it took.
fn until(address: &str, path: &str, limit: Duration, ready: impl Fn(&str) -> bool) -> Duration {
    let start = Instant::now();
    loop {
        let (_, body) = get(address, path);
        if ready(&body) {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < limit,
            "timed out after {limit:?} waiting on {path}; last body:\n{body}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The rebuild counter of `/__report/status`.
fn version(address: &str) -> u64 {
    let (_, body) = get(address, "/__report/status");
    let status: serde_json::Value = serde_json::from_str(&body).unwrap();
    status["version"].as_u64().unwrap()
}

/// Make one change with `edit`, wait until `path` shows `ready`, then check
/// that exactly one rebuild happened and none follows for 1.5 s.
fn once(server: &Server, edit: impl FnOnce(), path: &str, ready: impl Fn(&str) -> bool) {
    let (before, printed) = (version(&server.address), server.printed(" changed: "));
    edit();
    until(&server.address, path, Duration::from_secs(5), ready);
    std::thread::sleep(Duration::from_millis(1500));
    let after = version(&server.address);
    assert_eq!(after, before + 1, "one edit gave {} rebuilds:\n{}", after - before, server.log());
    assert_eq!(server.printed(" changed: "), printed + 1, "{}", server.log());
}

/// Save `file` as editors that save atomically do: the new text to a
/// hidden file beside it, renamed over it. The change is one event, however
/// long the machine stalls between two system calls; an in-place write is a
/// truncation and a write, two changes if more than the debounce time falls
/// between them on a loaded machine.
fn save(root: &Path, file: &str, text: &[u8]) {
    let path = root.join(file);
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let scratch = path.with_file_name(format!(".{name}.new"));
    std::fs::write(&scratch, text).unwrap();
    std::fs::rename(scratch, path).unwrap();
}

/// [`save`] `file` with its first `from` replaced by `to`.
fn save_edit(root: &Path, file: &str, from: &str, to: &str) {
    let text = std::fs::read_to_string(root.join(file)).unwrap();
    assert!(text.contains(from), "`{from}` not in {file}");
    save(root, file, text.replacen(from, to, 1).as_bytes());
}

#[test]
fn each_edit_rebuilds_once_and_the_server_then_rests() {
    let study = fixture("minimal");
    let root = study.path();
    let server = serve(root);
    let address = server.address.clone();
    assert!(address.starts_with("127.0.0.1:"), "bound to {address}");
    let (status, body) = get(&address, "/");
    assert_eq!(status, 200);
    assert!(body.contains("At two processes") && body.contains("report serve: live reload"));

    let content =
        || save_edit(root, "content/index.md", "At two processes", "Edited at two processes");
    once(&server, content, "/", |b| b.contains("Edited at two processes"));
    // A value the edit changes: a fourth run at two processes.
    let row = || save_edit(root, "results/runs.csv", "base,2,3,7\n", "base,2,3,7\nbase,2,4,8\n");
    once(&server, row, "/data/stats.json", |b| b.contains("\"n\": 4"));
    let title =
        || save_edit(root, "book.toml", "title = \"Minimal study\"", "title = \"Retitled\"");
    once(&server, title, "/", |b| b.contains("Retitled"));
    // templates/ appears after the start, made beside the study and moved in whole.
    let footer = || {
        std::fs::create_dir_all(root.join(".templates.new/partials")).unwrap();
        std::fs::write(
            root.join(".templates.new/partials/footer.html"),
            "<footer>own footer</footer>",
        )
        .unwrap();
        std::fs::rename(root.join(".templates.new"), root.join("templates")).unwrap();
    };
    once(&server, footer, "/", |b| b.contains("<footer>own footer</footer>"));
    // fonts/ appears after the start: its folder is watched from then on.
    let font = std::fs::read(repo().join("src/defaults/fonts/NotoEmoji-Regular.ttf")).unwrap();
    let before = version(&address);
    once(
        &server,
        || {
            // Made beside the study and moved in whole: one change.
            std::fs::create_dir(root.join(".fonts.new")).unwrap();
            std::fs::write(root.join(".fonts.new/Extra.ttf"), &font).unwrap();
            std::fs::rename(root.join(".fonts.new"), root.join("fonts")).unwrap();
        },
        "/",
        |_| version(&address) > before,
    );
    // A change inside the new folder is seen too.
    let before = version(&address);
    once(&server, || save(root, "fonts/Extra.ttf", &font), "/", |_| version(&address) > before);

    assert_logged_in_words(&server);
}

/// The log in the user's words: what changed, and what that made report do,
/// after the edits of [`each_edit_rebuilds_once_and_the_server_then_rests`].
fn assert_logged_in_words(server: &Server) {
    let log = server.log();
    assert_eq!(log.lines().filter(|l| l.starts_with("built the site in ")).count(), 1, "{log}");
    for line in [
        "content/index.md changed: rebuilt the pages in ",
        "results/runs.csv changed: recomputed the statistics and rebuilt the site in ",
        "book.toml changed: reloaded the study and rebuilt the site in ",
    ] {
        assert_eq!(server.printed(line), 1, "`{line}` once in:\n{log}");
    }
    // A folder moved in may be named with the files inside it.
    let reloaded = |first: &str| {
        log.lines().any(|l| l.starts_with(first) && l.contains(" changed: reloaded the study"))
    };
    assert!(reloaded("templates") && reloaded("fonts"), "{log}");
    for internal in ["Study", "Content", "Results", "rebuilt ("] {
        assert!(!log.contains(internal), "`{internal}` in:\n{log}");
    }
}

#[test]
fn an_error_is_shown_once_per_change_and_clears_when_fixed() {
    let study = fixture("minimal");
    let root = study.path();
    let server = serve(root);
    let address = server.address.clone();
    edit(root, "content/index.md", "At two processes", "Edited at two processes");
    until(&address, "/", Duration::from_secs(5), |b| b.contains("Edited at two processes"));

    edit(root, "results/runs.csv", "base,1,2,11", "base,1,2,eleven");
    until(&address, "/__report/status", Duration::from_secs(5), |b| b.contains("found `eleven`"));
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(server.printed("found `eleven`"), 1, "{}", server.log());
    let (status, body) = get(&address, "/");
    assert_eq!(status, 200);
    assert!(body.contains("Edited at two processes"), "the last good page is still served");

    edit(root, "results/runs.csv", "base,1,2,eleven", "base,1,2,12");
    until(&address, "/__report/status", Duration::from_secs(5), |b| b.contains("\"error\":null"));
    assert_eq!(server.printed("found `eleven`"), 1, "{}", server.log());
    let (status, body) = get(&address, "/data/stats.json");
    assert_eq!(status, 200);
    assert!(body.contains("\"n\": 3"), "{body}");

    for path in [
        "/../book.toml",
        "/%2e%2e/book.toml",
        "/..%2fbook.toml",
        "/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd",
        "/results/runs.csv",
        "/book.toml",
        "/a%5c..%5cb",
    ] {
        assert_eq!(get(&address, path).0, 404, "{path}");
    }
}

#[test]
fn a_study_broken_at_the_start_is_served_once_fixed() {
    let study = fixture("minimal");
    let root = study.path();
    edit(root, "results/runs.csv", "base,1,2,11", "base,1,2,eleven");
    let server = serve(root);
    let address = server.address.clone();
    let (_, status) = get(&address, "/__report/status");
    assert!(status.contains("found `eleven`"), "{status}");
    let (code, overlay) = get(&address, "/");
    assert_eq!(code, 200);
    assert!(overlay.contains("Build error") && overlay.contains("live reload"), "{overlay}");
    edit(root, "results/runs.csv", "base,1,2,eleven", "base,1,2,11");
    until(&address, "/", Duration::from_secs(5), |b| b.contains("At two processes"));
    assert_eq!(server.printed("found `eleven`"), 1, "{}", server.log());
}

/// `--open` runs the browser BROWSER names with the page's address.
#[cfg(unix)]
#[test]
fn open_shows_the_page_in_the_browser() {
    use std::os::unix::fs::PermissionsExt;
    let study = fixture("minimal");
    let dir = tempfile::tempdir().unwrap();
    let (browser, opened) = (dir.path().join("browser"), dir.path().join("opened"));
    std::fs::write(&browser, format!("#!/bin/sh\necho \"$@\" > '{}'\n", opened.display())).unwrap();
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let server = serve_with(study.path(), &["--open"], &[("BROWSER", &browser)]);
    let waited = Instant::now();
    while !opened.exists() {
        assert!(waited.elapsed() < Duration::from_secs(10), "no browser: {}", server.log());
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(100));
    let url = std::fs::read_to_string(&opened).unwrap();
    assert_eq!(url.trim(), format!("http://{}/", server.address));
    assert!(get(&server.address, "/").1.contains("At two processes"));
}

/// `--open` with a browser that fails (as `xdg-open` does with none set up)
/// says so and gives the address; a browser that cannot be started too.
#[cfg(unix)]
#[test]
fn open_says_when_no_browser_could_be_opened() {
    use std::os::unix::fs::PermissionsExt;
    let study = fixture("minimal");
    let dir = tempfile::tempdir().unwrap();
    let browser = dir.path().join("browser");
    std::fs::write(&browser, "#!/bin/sh\nexit 3\n").unwrap();
    std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    let missing = dir.path().join("no-such-browser");
    for program in [&browser, &missing] {
        let server = serve_with(study.path(), &["--open"], &[("BROWSER", program)]);
        let url = format!("http://{}/", server.address);
        let waited = Instant::now();
        while server.printed("no browser could be opened") == 0 {
            assert!(waited.elapsed() < Duration::from_secs(10), "silent: {}", server.log());
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(server.printed(&format!("open {url} yourself")), 1, "{}", server.log());
    }
}

/// The build-error panel in Chromium (tests/browser/overlay.mjs): over the
/// lower part of the page only, closed by its button or by Escape, and
/// open again for another error.
#[test]
fn the_error_panel_can_be_closed() {
    let modules = repo().join("tests/browser/node_modules/playwright-core");
    if !modules.is_dir() || !Path::new("/usr/bin/chromium").exists() {
        assert!(
            std::env::var_os("REPORT_REQUIRE_TOOLS").is_none(),
            "chromium and `npm ci` in tests/browser are required"
        );
        eprintln!("SKIPPED: install Debian's chromium and run `npm ci` in tests/browser");
        return;
    }
    let study = fixture("minimal");
    let root = study.path();
    edit(root, "results/runs.csv", "base,1,2,11", "base,1,2,eleven");
    let server = serve(root);
    let check = Command::new("node")
        .arg(repo().join("tests/browser/overlay.mjs"))
        .arg(format!("http://{}/", server.address))
        .arg(root.join("results/runs.csv"))
        .args(["eleven", "twelve"])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "{report}\n{}", String::from_utf8_lossy(&check.stderr));
    assert!(report.contains("\"failures\": []"), "{report}");
}

#[test]
fn the_paper_follows_each_edit() {
    if !tool("pdftotext", &["-v"]) {
        return;
    }
    let study = fixture("minimal");
    let root = study.path();
    let server = serve(root);
    let address = server.address.clone();
    let text = |address: &str| {
        let (status, pdf) = get_bytes(address, "/paper.pdf");
        if status != 200 {
            return String::new();
        }
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), pdf).unwrap();
        pdftotext(file.path())
    };
    let waited = Instant::now();
    while !text(&address).contains("At two processes") {
        assert!(waited.elapsed() < Duration::from_secs(60), "no first paper");
        std::thread::sleep(Duration::from_millis(100));
    }
    edit(root, "content/index.md", "At two processes", "Edited at two processes");
    let waited = Instant::now();
    while !text(&address).contains("Edited at two processes") {
        assert!(waited.elapsed() < Duration::from_secs(60), "the paper kept the old text");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn build_output_has_no_live_reload_script() {
    let study = fixture("minimal");
    assert!(report(study.path(), &["build"]).status.success());
    let html = std::fs::read_to_string(study.path().join("site/index.html")).unwrap();
    assert!(!html.contains("live reload") && !html.contains("__report"), "{html}");
}
