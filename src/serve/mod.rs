//! `report serve`: builds the study in memory, serves it on 127.0.0.1, watches
//! `content/`, `results/`, `templates/`, `fonts/` and `book.toml`, rebuilds what a change
//! touches, typesets the PDF in the background, and reloads the browser. A build
//! error is shown in the browser and the terminal while the last good site
//! stays served.

mod fingerprints;
pub(crate) mod http;
pub mod session;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use notify_debouncer_full::{DebounceEventResult, NoCache, new_debouncer_opt};

use session::{Change, Session};

/// How `report serve` runs.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// The study folder.
    pub root: PathBuf,
    /// Port on 127.0.0.1 (0 picks a free one).
    pub port: u16,
    /// Listen on every interface instead of 127.0.0.1 only.
    pub bind_all: bool,
    /// `SOURCE_DATE_EPOCH`.
    pub source_date_epoch: Option<i64>,
}

/// What the server serves; shared between the server and the rebuilder.
#[derive(Debug, Default)]
pub struct State {
    /// The last good site, by path (`index.html`, `data/stats.json`).
    pub files: BTreeMap<String, Vec<u8>>,
    /// Bumped on every successful rebuild; the browser reloads when it changes.
    pub version: u64,
    /// The error of the last rebuild, rendered as text, if it failed.
    pub error: Option<String>,
}

/// Called after every rebuild with its outcome, for the terminal.
pub type Report = Box<dyn Fn(&Outcome) + Send + Sync>;

/// Why the site was built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trigger {
    /// The server started.
    Start,
    /// These files changed (relative to the study, sorted), which required this.
    Edit(Vec<PathBuf>, Change),
}

/// The outcome of one rebuild.
pub enum Outcome {
    /// The site was built: why, and how long it took.
    Built(Trigger, Duration),
    /// The PDF was typeset, in how long.
    Typeset(Duration),
    /// The rebuild failed.
    Failed(anyhow::Error),
}

/// Serve the study until the process is stopped. `report` is told about every
/// rebuild; `started` receives the address once the server listens.
pub fn run(options: &ServeOptions, report: Report, started: impl FnOnce(SocketAddr)) -> Result<()> {
    let root = dunce::canonicalize(&options.root)
        .with_context(|| format!("cannot open study folder `{}`", options.root.display()))?;
    let state = Arc::new(Mutex::new(State::default()));
    let session = Arc::new(Mutex::new(Session::new(&root, options.source_date_epoch)));
    let report: Arc<Report> = Arc::new(report);
    rebuild(&session, &state, &report, Trigger::Start);
    let host = if options.bind_all { "0.0.0.0" } else { "127.0.0.1" };
    let server = tiny_http::Server::http((host, options.port))
        .map_err(|e| anyhow::anyhow!("cannot listen on {host}:{}: {e}", options.port))?;
    let address = server.server_addr().to_ip().context("the server has no IP address")?;
    let _watcher = watch(&root, Arc::clone(&session), Arc::clone(&state), Arc::clone(&report))?;
    started(address);
    for request in server.incoming_requests() {
        http::respond(request, &state);
    }
    Ok(())
}

/// Rebuild after `change`, publish the result, and typeset the PDF on another thread.
fn rebuild(
    session: &Arc<Mutex<Session>>,
    state: &Arc<Mutex<State>>,
    report: &Arc<Report>,
    trigger: Trigger,
) {
    let started = std::time::Instant::now();
    let change = match &trigger {
        Trigger::Start => Change::Study,
        Trigger::Edit(_, change) => *change,
    };
    let result = session
        .lock()
        .map_err(|_| anyhow::anyhow!("a rebuild panicked"))
        .and_then(|mut s| s.rebuild(change));
    match result {
        Ok(rebuilt) => {
            let version = {
                let mut state = state.lock().expect("state lock");
                // The previous PDF is served until the new one is typeset.
                let name = rebuilt.pdf.name().to_string();
                let pdf = state.files.remove(&name);
                state.files = rebuilt
                    .site
                    .files
                    .iter()
                    .map(|(p, b)| (p.to_string_lossy().replace('\\', "/"), b.clone()))
                    .collect();
                if let Some(pdf) = pdf {
                    state.files.insert(name, pdf);
                }
                state.version += 1;
                state.error = None;
                state.version
            };
            report(&Outcome::Built(trigger, started.elapsed()));
            let (state, report, job) = (Arc::clone(state), Arc::clone(report), rebuilt.pdf);
            std::thread::spawn(move || {
                let clock = std::time::Instant::now();
                match job.run() {
                    Ok((name, pdf)) => {
                        let mut s = state.lock().expect("state lock");
                        if s.version == version {
                            s.files.insert(name, pdf);
                        }
                        drop(s);
                        report(&Outcome::Typeset(clock.elapsed()));
                    }
                    Err(errors) => fail(&state, &report, errors.into()),
                }
            });
        }
        Err(err) => fail(state, report, err),
    }
}

fn fail(state: &Arc<Mutex<State>>, report: &Arc<Report>, err: anyhow::Error) {
    let text = match err.downcast_ref::<crate::diagnostic::Diagnostics>() {
        Some(d) => d.to_string(),
        None => format!("{err:#}"),
    };
    state.lock().expect("state lock").error = Some(text);
    report(&Outcome::Failed(err));
}

/// The file watcher, shared with its own event handler, which adds input
/// folders created after the start.
type Watcher =
    Arc<Mutex<Option<notify_debouncer_full::Debouncer<notify::RecommendedWatcher, NoCache>>>>;

/// Watch the study's inputs; rebuild on every debounced batch of changes.
/// Only events that change a file's bytes or its place count
/// ([`session::changes_input`]): a rebuild reads every input, and the
/// read-only events it causes (open, access, close without writing) must not
/// start the next rebuild. The study folder itself is watched (not
/// recursively), so that book.toml replaced by a rename and input folders
/// created later are seen. Symbolic links are not followed into other
/// folders (a link to `/` would have the watcher walk the whole disk), and
/// nothing watched is opened, so a FIFO or socket among the inputs cannot
/// block it: the rebuild refuses them by name
/// ([`crate::project::regular_file`]) and shows the error.
fn watch(
    root: &Path,
    session: Arc<Mutex<Session>>,
    state: Arc<Mutex<State>>,
    report: Arc<Report>,
) -> Result<Watcher> {
    let watcher: Watcher = Arc::new(Mutex::new(None));
    let (handle, watched_root) = (Arc::clone(&watcher), root.to_path_buf());
    let mut fingerprints = fingerprints::Fingerprints::default();
    let debouncer = new_debouncer_opt::<_, notify::RecommendedWatcher, _>(
        // Changes settle for 30 ms; checked every 10 ms (the default, a
        // quarter of the timeout, wakes the process 130 times a second).
        Duration::from_millis(30),
        Some(Duration::from_millis(10)),
        move |events: DebounceEventResult| {
            let Ok(events) = events else { return };
            let paths: Vec<PathBuf> = events
                .iter()
                .filter(|e| session::changes_input(&e.event.kind))
                .flat_map(|e| e.event.paths.iter().cloned())
                .collect();
            let paths = fingerprints.changed(paths);
            let created: Vec<PathBuf> = events
                .iter()
                .filter(|e| session::places_input(&e.event.kind))
                .flat_map(|e| e.event.paths.iter().cloned())
                .collect();
            if let Some(debouncer) = handle.lock().expect("watcher lock").as_mut() {
                watch_folders(debouncer, &watched_root, &created);
            }
            if let Some(change) = session::classify(&watched_root, &paths) {
                let files = session::inputs(&watched_root, &paths);
                rebuild(&session, &state, &report, Trigger::Edit(files, change));
            }
        },
        NoCache,
        notify::Config::default().with_follow_symlinks(false),
    )?;
    let mut guard = watcher.lock().expect("watcher lock");
    let debouncer = guard.insert(debouncer);
    debouncer.watch(root, notify::RecursiveMode::NonRecursive)?;
    let folders: Vec<PathBuf> =
        crate::project::INPUT_FOLDERS.iter().map(|folder| root.join(folder)).collect();
    watch_folders(debouncer, root, &folders);
    drop(guard);
    Ok(watcher)
}

/// Watch each of `paths` that is an input folder of the study, recursively.
/// Watching a folder twice is harmless; one that cannot be watched is left
/// out (its changes then need a restart, as before it existed).
fn watch_folders(
    debouncer: &mut notify_debouncer_full::Debouncer<notify::RecommendedWatcher, NoCache>,
    root: &Path,
    paths: &[PathBuf],
) {
    for path in paths {
        let input = path.parent() == Some(root)
            && path
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| crate::project::INPUT_FOLDERS.contains(&n));
        if input && path.is_dir() {
            let _ = debouncer.watch(path, notify::RecursiveMode::Recursive);
        }
    }
}
