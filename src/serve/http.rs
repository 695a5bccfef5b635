//! The HTTP side of `report serve`: files of the built site only (anything
//! else, traversal attempts included, is a 404), a status endpoint, and a small
//! live-reload script injected into HTML (never into `report build` output).

use std::sync::{Arc, Mutex};

use tiny_http::{Header, Request, Response};

use super::State;

/// The path the live-reload script polls.
pub const STATUS: &str = "__report/status";

/// Answer one request from the current state.
pub fn respond(request: Request, state: &Arc<Mutex<State>>) {
    let response = match resolve(request.url()) {
        Some(path) if path == STATUS => {
            let s = state.lock().expect("state lock");
            let body = serde_json::json!({ "version": s.version, "error": s.error }).to_string();
            with_type(Response::from_data(body.into_bytes()), "application/json")
        }
        Some(path) => {
            let s = state.lock().expect("state lock");
            match s.files.get(&path) {
                Some(bytes) if path.ends_with(".html") => {
                    let html = inject(&String::from_utf8_lossy(bytes), s.version);
                    with_type(Response::from_data(html.into_bytes()), "text/html; charset=utf-8")
                }
                Some(bytes) => with_type(Response::from_data(bytes.clone()), content_type(&path)),
                None if path == "index.html" && s.error.is_some() => {
                    let page = inject(
                        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Build error</title></head><body></body></html>",
                        s.version,
                    );
                    with_type(Response::from_data(page.into_bytes()), "text/html; charset=utf-8")
                }
                None => not_found(),
            }
        }
        None => not_found(),
    };
    let _ = request.respond(response);
}

fn not_found() -> Response<std::io::Cursor<Vec<u8>>> {
    Response::from_data(b"404 not found\n".to_vec()).with_status_code(404)
}

fn with_type(
    response: Response<std::io::Cursor<Vec<u8>>>,
    content_type: &str,
) -> Response<std::io::Cursor<Vec<u8>>> {
    let header = Header::from_bytes("Content-Type", content_type).expect("a valid header");
    let no_cache = Header::from_bytes("Cache-Control", "no-store").expect("a valid header");
    response.with_header(header).with_header(no_cache)
}

/// The site path a URL asks for, or `None` when it tries to leave the site:
/// `..` or `.` segments (percent-encoded or not), backslashes or NUL bytes.
pub fn resolve(url: &str) -> Option<String> {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let decoded = percent_decode(path)?;
    if decoded.contains('\\') || decoded.contains('\0') {
        return None;
    }
    let mut segments = Vec::new();
    for segment in decoded.split('/').filter(|s| !s.is_empty()) {
        if segment == ".." || segment == "." {
            return None;
        }
        segments.push(segment);
    }
    let mut joined = segments.join("/");
    if joined.is_empty() || decoded.ends_with('/') {
        joined =
            if joined.is_empty() { "index.html".into() } else { format!("{joined}/index.html") };
    }
    Some(joined)
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "css" => "text/css",
        "js" => "text/javascript",
        "svg" => "image/svg+xml",
        "json" => "application/json",
        "csv" => "text/csv",
        "pdf" => "application/pdf",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        _ => "application/octet-stream",
    }
}

/// The live-reload script: polls the status, reloads on a new version, and
/// shows a build error in a panel at the bottom of the page, over the last
/// good page. Its Close button and the Escape key close it; it opens again
/// only for another error. Its parts set their colours and fonts themselves,
/// so that no rule of the page's stylesheet (a `pre`'s background) lowers its
/// contrast (tests/browser/overlay.mjs checks 4.5:1 in both themes).
/// `@VERSION@` is the version served.
const SCRIPT: &str = r#"<script>/* report serve: live reload */(function(){var v=@VERSION@,closed=null,id='report-serve-error';
function close(){var o=document.getElementById(id);if(o){closed=o.dataset.error;o.remove()}}
function panel(){var o=document.createElement('div');o.id=id;o.setAttribute('role','alert');
o.style.cssText='position:fixed;left:1rem;right:1rem;bottom:1rem;max-height:60vh;z-index:2147483647;display:flex;flex-direction:column;background:#1b1b1f;color:#ffdad6;border:3px solid #ff5449;border-radius:.5rem;font:14px/1.45 ui-monospace,monospace;box-shadow:0 .5rem 2rem rgba(0,0,0,.5)';
var h=document.createElement('div');h.style.cssText='display:flex;gap:1rem;align-items:center;justify-content:space-between;padding:.5rem 1rem;border-bottom:1px solid #ff5449';
var t=document.createElement('strong');t.textContent='report: the build failed; the last good page is shown underneath.';
var b=document.createElement('button');b.type='button';b.textContent='Close';b.title='Close (Esc)';b.onclick=close;
b.style.cssText='font:inherit;color:inherit;background:transparent;border:1px solid currentColor;border-radius:.25rem;padding:.1rem .6rem;cursor:pointer';
var p=document.createElement('pre');p.style.cssText='margin:0;padding:1rem;overflow:auto;white-space:pre-wrap;background:transparent;color:inherit;font:inherit;border:0;border-radius:0';
t.style.cssText='color:inherit;background:transparent;font:inherit;font-weight:bold';
h.appendChild(t);h.appendChild(b);o.appendChild(h);o.appendChild(p);document.body.appendChild(o);return o}
function show(e){var o=document.getElementById(id);if(!e){closed=null}if(!e||e===closed){if(o)o.remove();return}
o=o||panel();if(o.dataset.error!==e){o.dataset.error=e;o.lastChild.textContent=e}}
document.addEventListener('keydown',function(k){if(k.key==='Escape')close()});
function poll(){fetch('/@STATUS@',{cache:'no-store'}).then(function(r){return r.json()}).then(function(s){if(s.version!==v){location.reload();return}show(s.error);setTimeout(poll,200)},function(){setTimeout(poll,1000)})}poll()})();</script>"#;

/// `html` with the live-reload script ([`SCRIPT`]) before `</body>`.
fn inject(html: &str, version: u64) -> String {
    let script = SCRIPT.replace("@VERSION@", &version.to_string()).replace("@STATUS@", STATUS);
    match html.rfind("</body>") {
        Some(i) => format!("{}{script}{}", &html[..i], &html[i..]),
        None => format!("{html}{script}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traversal_is_refused() {
        assert_eq!(resolve("/"), Some("index.html".into()));
        assert_eq!(resolve("/charts/a.svg?x=1"), Some("charts/a.svg".into()));
        assert_eq!(resolve("/data/"), Some("data/index.html".into()));
        for bad in [
            "/../Cargo.toml",
            "/%2e%2e/book.toml",
            "/a/%2E%2E/%2e%2e/x",
            "/..%2fx",
            "/%5c..%5cx",
            "/a%00b",
            "/%zz",
        ] {
            assert_eq!(resolve(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_script_goes_before_body_end() {
        let html = inject("<html><body><p>x</p></body></html>", 7);
        assert!(html.contains("var v=7,"), "{html}");
        assert!(html.ends_with("</script></body></html>"));
    }
}
