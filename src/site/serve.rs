//! `report serve` of a site of studies: the whole site built once, then on
//! each change only the study whose inputs changed (and the studies that
//! show its claims, when they changed), with the index, search and feed
//! made again from the studies' kept builds ([`super::Cache`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};
use notify_debouncer_full::{DebounceEventResult, NoCache, new_debouncer_opt};

use super::Cache;
use crate::serve::{Outcome, Report, ServeOptions, State, Trigger};

/// Serve the site at `options.root` until the process is stopped.
pub fn run(
    options: &ServeOptions,
    report: Report,
    started: impl FnOnce(std::net::SocketAddr),
) -> Result<()> {
    let clock = std::time::Instant::now();
    let build =
        crate::BuildOptions { source_date_epoch: options.source_date_epoch, ..Default::default() };
    let site = super::load(&options.root, &build)?;
    let cache = Arc::new(Mutex::new(Cache::build(site, options.source_date_epoch)?));
    let state = Arc::new(Mutex::new(State::default()));
    publish(&cache, &state)?;
    report(&Outcome::Built(Trigger::Start, clock.elapsed()));
    let host = if options.bind_all { "0.0.0.0" } else { "127.0.0.1" };
    let server = tiny_http::Server::http((host, options.port))
        .map_err(|e| anyhow::anyhow!("cannot listen on {host}:{}: {e}", options.port))?;
    let address = server.server_addr().to_ip().context("the server has no IP address")?;
    let root = cache.lock().map_err(|_| anyhow::anyhow!("a build panicked"))?.site.root.clone();
    let _watcher = watch(&root, Arc::clone(&cache), Arc::clone(&state), Arc::new(report))?;
    started(address);
    for request in server.incoming_requests() {
        crate::serve::http::respond(request, &state);
    }
    Ok(())
}

/// Put the site the cache holds in `state`, for the server.
fn publish(cache: &Arc<Mutex<Cache>>, state: &Arc<Mutex<State>>) -> Result<()> {
    let cache = cache.lock().map_err(|_| anyhow::anyhow!("a build panicked"))?;
    let (site, _) = cache.assemble(None)?;
    let mut state = state.lock().map_err(|_| anyhow::anyhow!("a request panicked"))?;
    state.files =
        site.files.into_iter().map(|(p, b)| (p.to_string_lossy().replace('\\', "/"), b)).collect();
    state.version += 1;
    state.error = None;
    Ok(())
}

/// The folders of the studies whose inputs `paths` are: each path belongs
/// to the deepest study holding it, if it is its book.toml or lies in one
/// of its input folders.
pub fn studies_of(root: &Path, folders: &[String], paths: &[PathBuf]) -> BTreeSet<String> {
    let mut changed = BTreeSet::new();
    for path in paths {
        let Ok(relative) = path.strip_prefix(root) else { continue };
        let relative = relative.to_string_lossy().replace('\\', "/");
        let owner = folders
            .iter()
            .filter(|f| f.is_empty() || relative.starts_with(&format!("{f}/")))
            .max_by_key(|f| f.len());
        let Some(owner) = owner else { continue };
        let inside =
            if owner.is_empty() { relative.as_str() } else { &relative[owner.len() + 1..] };
        let first = inside.split('/').next().unwrap_or_default();
        if inside == "book.toml"
            || (crate::project::INPUT_FOLDERS.contains(&first) && inside.contains('/'))
        {
            changed.insert(owner.clone());
        }
    }
    changed
}

/// Watch the site's folder; rebuild the studies a batch of changes touches.
fn watch(
    root: &Path,
    cache: Arc<Mutex<Cache>>,
    state: Arc<Mutex<State>>,
    report: Arc<Report>,
) -> Result<notify_debouncer_full::Debouncer<notify::RecommendedWatcher, NoCache>> {
    let watched = root.to_path_buf();
    let mut debouncer = new_debouncer_opt::<_, notify::RecommendedWatcher, _>(
        Duration::from_millis(30),
        Some(Duration::from_millis(10)),
        move |events: DebounceEventResult| {
            let Ok(events) = events else { return };
            let paths: Vec<PathBuf> = events
                .iter()
                .filter(|e| crate::serve::session::changes_input(&e.event.kind))
                .flat_map(|e| e.event.paths.iter().cloned())
                .collect();
            let folders: Vec<String> = match cache.lock() {
                Ok(c) => c.site.studies.iter().map(|s| s.folder.clone()).collect(),
                Err(_) => return,
            };
            for folder in studies_of(&watched, &folders, &paths) {
                let clock = std::time::Instant::now();
                let result = cache
                    .lock()
                    .map_err(|_| anyhow::anyhow!("a build panicked"))
                    .and_then(|mut c| c.rebuild(&folder));
                match result.and_then(|_| publish(&cache, &state)) {
                    Ok(()) => {
                        let file = PathBuf::from(super::study::display(&folder));
                        let trigger =
                            Trigger::Edit(vec![file], crate::serve::session::Change::Study);
                        report(&Outcome::Built(trigger, clock.elapsed()));
                    }
                    Err(err) => {
                        if let Ok(mut s) = state.lock() {
                            s.error = Some(format!("{err:#}"));
                        }
                        report(&Outcome::Failed(err));
                    }
                }
            }
        },
        NoCache,
        notify::Config::default().with_follow_symlinks(false),
    )?;
    debouncer.watch(root, notify::RecursiveMode::Recursive)?;
    Ok(debouncer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_belongs_to_the_deepest_study() {
        let root = Path::new("/s");
        let folders = ["".to_string(), "examples/a".to_string()];
        let paths = |p: &[&str]| p.iter().map(|p| root.join(p)).collect::<Vec<_>>();
        let of = |p: &[&str]| studies_of(root, &folders, &paths(p)).into_iter().collect::<Vec<_>>();
        assert_eq!(of(&["examples/a/content/x.md"]), ["examples/a"]);
        assert_eq!(of(&["content/index.md", "book.toml"]), [""]);
        assert_eq!(of(&["examples/a/book.toml", "src/main.rs", "site/index.html"]), ["examples/a"]);
        assert!(of(&["examples/README.md", "content"]).is_empty());
    }
}
