//! `report serve --open`: the page in the user's web browser, as other
//! tools open one: the command in `BROWSER` when it is set, else the
//! system's opener (`open` on macOS, `explorer` on Windows, `xdg-open`).

use std::ffi::OsString;
use std::process::{Command, Stdio};

/// The program and arguments that open `url`: the first command of
/// `browser` (the value of `BROWSER`, a list separated as PATH is), its
/// `%s` replaced by the URL or the URL appended; else the system's opener.
pub fn command(url: &str, browser: Option<OsString>) -> (OsString, Vec<OsString>) {
    let first = browser.as_ref().and_then(|list| {
        std::env::split_paths(list).map(|p| p.into_os_string()).find(|c| !c.is_empty())
    });
    if let Some(command) = first.and_then(|c| c.into_string().ok()) {
        let mut words: Vec<String> = command.split_whitespace().map(str::to_string).collect();
        if !words.is_empty() {
            let program = words.remove(0);
            let mut args: Vec<OsString> = Vec::new();
            let mut placed = false;
            for word in words {
                placed |= word.contains("%s");
                args.push(word.replace("%s", url).into());
            }
            if !placed {
                args.push(url.into());
            }
            return (program.into(), args);
        }
    }
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    (opener.into(), vec![url.into()])
}

/// Open `url` in the browser, without waiting for it to close: a thread
/// reaps the opener and calls `failed` with the reason when it ends in
/// failure (`xdg-open` exits with a status when no browser is set up); an
/// error when the opener cannot be started at all.
pub fn open(url: &str, failed: impl FnOnce(String) + Send + 'static) -> std::io::Result<()> {
    let (program, args) = command(url, std::env::var_os("BROWSER"));
    let name = program.to_string_lossy().into_owned();
    let mut child = Command::new(&program)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| std::io::Error::new(e.kind(), format!("cannot run `{name}`: {e}")))?;
    std::thread::spawn(move || match child.wait() {
        Ok(status) if status.success() => {}
        Ok(status) => failed(format!("`{name}` ended with {status}")),
        Err(e) => failed(format!("`{name}` could not be waited for: {e}")),
    });
    Ok(())
}

/// What `serve --open` prints when no browser could be opened: why, and the
/// address to open by hand.
pub fn not_opened(url: &str, why: &str) -> String {
    format!("warning: no browser could be opened ({why}); open {url} yourself")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn browser_names_the_command_and_where_the_url_goes() {
        let url = "http://127.0.0.1:8000/";
        let of = |browser: &str| {
            let (program, args) = command(url, Some(browser.into()));
            let args: Vec<String> = args.into_iter().map(|a| a.into_string().unwrap()).collect();
            (program.into_string().unwrap(), args)
        };
        assert_eq!(of("firefox"), ("firefox".into(), vec![url.to_string()]));
        assert_eq!(
            of("chromium --new-window"),
            ("chromium".into(), vec!["--new-window".to_string(), url.to_string()])
        );
        assert_eq!(of("w3m %s"), ("w3m".into(), vec![url.to_string()]));
        let list = std::env::join_paths(["lynx", "w3m"]).unwrap();
        assert_eq!(of(list.to_str().unwrap()).0, "lynx", "the first of a list");
        let (program, args) = command(url, None);
        assert!(!program.is_empty() && args == [OsString::from(url)]);
        assert_eq!(command(url, Some("".into())).0, command(url, None).0);
    }

    #[test]
    fn a_failed_opener_is_reported_with_the_address() {
        let said = not_opened("http://127.0.0.1:8000/", "`xdg-open` ended with exit status: 3");
        assert!(said.starts_with("warning: no browser could be opened"), "{said}");
        assert!(said.ends_with("open http://127.0.0.1:8000/ yourself"), "{said}");
    }
}
