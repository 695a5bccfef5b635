//! A hostile file system, special files: FIFOs, sockets and links where the
//! build reads a file are refused by name, never a hang, `report serve`
//! included (which shows the error, recovers when the FIFO goes, and does
//! not walk links). Every refusal is located, hinted and exits 1. Unix only:
//! FIFOs and sockets cannot stand in a Windows folder (see docs/platforms.md).

#![cfg(unix)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use common::hostile::{mkfifo, refused, within};
use common::*;

/// A FIFO, a socket, a link to a folder or a broken link where the build
/// reads a file: each is refused by name, without a hang.
#[test]
fn special_files_in_the_inputs_are_refused_by_name_without_a_hang() {
    type Make = fn(&Path);
    let fifo: Make = mkfifo;
    let socket: Make = |p| drop(std::os::unix::net::UnixListener::bind(p).unwrap());
    let to_folder: Make = |p| symlink("..", p).unwrap();
    let broken: Make = |p| symlink("nowhere.csv", p).unwrap();
    let cases: [(&str, Make, &str); 9] = [
        ("results/pipe.csv", fifo, "not a regular file but a named pipe (FIFO)"),
        ("content/pipe.md", fifo, "named pipe (FIFO)"),
        ("content/references.bib", fifo, "named pipe (FIFO)"),
        ("content/image.png", socket, "not a regular file but a socket"),
        ("templates/page.html", fifo, "named pipe (FIFO)"),
        ("templates/partials/footer.html", socket, "socket"),
        ("fonts/Body.ttf", fifo, "named pipe (FIFO)"),
        ("results/folder.csv", to_folder, "a symbolic link to a folder"),
        ("results/broken.csv", broken, "broken symbolic link"),
    ];
    for (file, make, why) in cases {
        let study = fixture("minimal");
        let root = study.path();
        assert!(within(root, &["build"]).status.success());
        let site = contents(&root.join("site"));
        fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
        make(&root.join(file));
        refused(&within(root, &["build"]), root, &[&format!("error: {file}: "), why]);
        assert!(site == contents(&root.join("site")), "{file}: the previous output changed");
    }
    let study = fixture("minimal");
    fs::rename(study.path().join("book.toml"), study.path().join("book.real")).unwrap();
    mkfifo(&study.path().join("book.toml"));
    refused(&within(study.path(), &["check"]), study.path(), &["book.toml: not a regular file"]);
}

/// A `report serve` process, stopped when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The body of `GET /__report/status` from the server at `address`.
fn status(address: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(stream, "GET /__report/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut body = String::new();
    stream.read_to_string(&mut body).unwrap();
    body
}

#[test]
fn serve_shows_a_fifo_as_an_error_recovers_when_it_goes_and_does_not_walk_links() {
    use std::io::BufRead;
    let study = fixture("minimal");
    mkfifo(&study.path().join("results/pipe.csv"));
    // Followed, these links would have the watcher walk /usr four times (seconds each).
    for i in 0..4 {
        symlink("/usr", study.path().join(format!("content/usr-{i}"))).unwrap();
    }
    let mut server = Server(
        Command::new(env!("CARGO_BIN_EXE_report"))
            .args(["serve", "--port", "0", "--root"])
            .arg(study.path())
            .stderr(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let (tx, rx) = std::sync::mpsc::channel();
    let lines = std::io::BufReader::new(server.0.stderr.take().unwrap()).lines();
    std::thread::spawn(move || lines.map_while(Result::ok).for_each(|l| drop(tx.send(l))));
    let start = Instant::now();
    let address = loop {
        let line = rx.recv_timeout(Duration::from_secs(10)).expect("serve hung or exited");
        if let Some(rest) = line.strip_prefix("serving http://") {
            break rest.split('/').next().unwrap().to_string();
        }
    };
    assert!(start.elapsed() < Duration::from_secs(3), "slow to start: were the links walked?");
    let first = status(&address);
    assert!(first.contains("results/pipe.csv: not a regular file but a named pipe"), "{first}");
    fs::remove_file(study.path().join("results/pipe.csv")).unwrap();
    while status(&address).contains("pipe.csv") {
        assert!(start.elapsed() < Duration::from_secs(10), "no recovery after the FIFO went");
        std::thread::sleep(Duration::from_millis(50));
    }
}
