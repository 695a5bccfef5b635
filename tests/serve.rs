//! `report serve` on a free port: live rebuilds, the error overlay while the
//! last good page stays served, recovery, and no way out of the site.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

struct Server(Child, String);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(root: &std::path::Path) -> Server {
    let mut child = Command::new(env!("CARGO_BIN_EXE_report"))
        .args(["serve", "--port", "0", "--root"])
        .arg(root)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let address = loop {
        let line = lines.next().expect("serve exited early").unwrap();
        if let Some(rest) = line.strip_prefix("serving http://") {
            break rest.split('/').next().unwrap().to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    Server(child, address)
}

/// A raw HTTP GET: status code and body.
fn get(address: &str, path: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n").unwrap();
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).unwrap();
    let response = String::from_utf8_lossy(&bytes).into_owned();
    let status = response.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = response.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, body)
}

/// The rebuild counter of `/__report/status`.
fn version(address: &str) -> u64 {
    let (_, body) = get(address, "/__report/status");
    let digits = body.split("\"version\":").nth(1).unwrap_or_default();
    digits
        .trim_end_matches(|c: char| !c.is_ascii_digit())
        .parse()
        .unwrap_or_else(|_| panic!("{body}"))
}

/// No rebuild happens for a second and a half after the last one.
fn assert_rests(address: &str) {
    let before = version(address);
    std::thread::sleep(Duration::from_millis(1500));
    let after = version(address);
    assert_eq!(before, after, "rebuilt {} times with no edit", after - before);
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

#[test]
fn serve_rebuilds_reports_errors_recovers_and_stays_inside_the_site() {
    let study = fixture("minimal");
    let server = serve(study.path());
    let address = server.1.clone();
    assert!(address.starts_with("127.0.0.1:"), "bound to {address}");

    let (status, body) = get(&address, "/");
    assert_eq!(status, 200);
    assert!(
        body.contains("At two processes") && body.contains("report serve: live reload"),
        "{body}"
    );

    // A content edit is served within a second.
    edit(study.path(), "content/index.md", "At two processes", "Edited at two processes");
    let took =
        until(&address, "/", Duration::from_secs(1), |b| b.contains("Edited at two processes"));
    eprintln!("content edit served after {took:?}");
    // One edit, one rebuild: the rebuild's own reads of the inputs must not
    // start another (they once did, hundreds of times a second).
    assert_rests(&address);

    // A broken CSV: the error is reported, the last good page stays, the server stays up.
    edit(study.path(), "results/runs.csv", "base,1,2,11", "base,1,2,eleven");
    until(&address, "/__report/status", Duration::from_secs(3), |b| b.contains("found `eleven`"));
    let (status, body) = get(&address, "/");
    assert_eq!(status, 200);
    assert!(body.contains("Edited at two processes"), "the last good page is still served");

    // Fixed: the error clears and the page is rebuilt.
    edit(study.path(), "results/runs.csv", "base,1,2,eleven", "base,1,2,12");
    until(&address, "/__report/status", Duration::from_secs(3), |b| b.contains("\"error\":null"));
    let (status, body) = get(&address, "/data/stats.json");
    assert_eq!(status, 200);
    assert!(body.contains("\"n\": 3"), "{body}");

    // The paper follows in the background.
    until(&address, "/__report/status", Duration::from_secs(3), |_| {
        get(&address, "/paper.pdf").0 == 200
    });

    // Nothing outside the built site is served.
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
fn build_output_has_no_live_reload_script() {
    let study = fixture("minimal");
    assert!(report(study.path(), &["build"]).status.success());
    let html = std::fs::read_to_string(study.path().join("site/index.html")).unwrap();
    assert!(!html.contains("live reload") && !html.contains("__report"), "{html}");
}
