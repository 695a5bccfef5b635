//! `report serve`: the study on 127.0.0.1, rebuilt and reloaded on every
//! change, each rebuild said in words and each failure as diagnostics.

use std::process::ExitCode;
use std::time::Duration;

use super::Cli;
use super::resolve::epoch;
use super::{browser, print};

/// Serve the study of `cli` on `port` (every interface with `bind_all`);
/// with `open`, open the page in the browser.
pub fn run(cli: &Cli, port: u16, bind_all: bool, open: bool) -> anyhow::Result<ExitCode> {
    use report::serve::Outcome;
    let options = report::serve::ServeOptions {
        root: cli.root.clone(),
        port,
        bind_all,
        source_date_epoch: epoch(),
    };
    let (quiet, format) = (cli.quiet, cli.format);
    let outcome = move |o: &Outcome| match o {
        Outcome::Built(trigger, time) if !quiet => eprintln!("{}", built(trigger, *time)),
        Outcome::Typeset(time) if !quiet => {
            eprintln!("typeset the paper in {}", milliseconds(*time))
        }
        Outcome::Failed(err) => print::error(err, format),
        _ => {}
    };
    let started = |address: std::net::SocketAddr| {
        let url = format!("http://{address}/");
        eprintln!("serving {url} (Ctrl-C to stop)");
        if open {
            let later = url.clone();
            let failed = move |why: String| eprintln!("{}", browser::not_opened(&later, &why));
            if let Err(err) = browser::open(&url, failed) {
                eprintln!("{}", browser::not_opened(&url, &err.to_string()));
            }
        }
    };
    // A folder with a site.toml is served as a site of studies.
    if report::site::is_site(&cli.root) {
        report::site::serve::run(&options, Box::new(outcome), started)?;
    } else {
        report::serve::run(&options, Box::new(outcome), started)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A rebuild, in the user's words: what changed, and what that made it do.
fn built(trigger: &report::serve::Trigger, time: Duration) -> String {
    use report::serve::{Trigger, session::Change};
    let Trigger::Edit(files, change) = trigger else {
        return format!("built the site in {}", milliseconds(time));
    };
    let mut names: Vec<String> =
        files.iter().take(3).map(|f| f.display().to_string().replace('\\', "/")).collect();
    if files.len() > 3 {
        names.push(format!("{} more", files.len() - 3));
    }
    let what = match names.len() {
        0 => "the study".to_string(),
        1 => names.remove(0),
        n => format!("{} and {}", names[..n - 1].join(", "), names[n - 1]),
    };
    let done = match change {
        Change::Content => "rebuilt the pages",
        Change::Results => "recomputed the statistics and rebuilt the site",
        Change::Study => "reloaded the study and rebuilt the site",
    };
    format!("{what} changed: {done} in {}", milliseconds(time))
}

/// `time` in whole milliseconds, for the log.
fn milliseconds(time: Duration) -> String {
    format!("{:.0} ms", time.as_secs_f64() * 1000.0)
}
