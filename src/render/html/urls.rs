//! Which URLs may reach the page. A browser runs `javascript:` (and old ones
//! `vbscript:`) URLs, and shows `data:` URLs as documents of their own, so a
//! link in content keeps its URL only if it is relative or uses a scheme
//! from a short list, and the site's own links (pages, the PDF, the canonical
//! URL) are checked or encoded so that they can never read as a scheme.

use super::super::BookView;
use crate::diagnostic::{Diagnostic, Diagnostics, Location};

/// The schemes a link in content may use; a relative link has none.
pub const LINK_SCHEMES: [&str; 4] = ["http", "https", "mailto", "tel"];

/// The scheme of `url` as a browser reads it: lowercase, with the ASCII
/// whitespace and control characters it ignores (tabs and line breaks even
/// inside the scheme) dropped. `None` for a relative URL.
pub fn scheme(url: &str) -> Option<String> {
    let cleaned: String = url.chars().filter(|c| !c.is_ascii_control() && *c != ' ').collect();
    let end = cleaned.find([':', '/', '?', '#'])?;
    cleaned[end..].starts_with(':').then(|| cleaned[..end].to_ascii_lowercase())
}

/// Whether a Markdown link may point at `url`: relative, or one of [`LINK_SCHEMES`].
pub fn link_allowed(url: &str) -> bool {
    scheme(url).is_none_or(|s| LINK_SCHEMES.contains(&s.as_str()))
}

/// Whether a Markdown image may show `url`: relative, on the web, or a
/// `data:image/` URL (an `<img>` runs no script).
pub fn image_allowed(url: &str) -> bool {
    match scheme(url).as_deref() {
        None | Some("http" | "https") => true,
        Some("data") => {
            let cleaned: String =
                url.chars().filter(|c| !c.is_ascii_control() && *c != ' ').collect();
            cleaned.to_ascii_lowercase().starts_with("data:image/")
        }
        Some(_) => false,
    }
}

/// The file `name` as a relative link: the characters that would end the
/// attribute, start a query or a fragment, or make the name read as a scheme
/// (`:`) are percent-encoded.
pub fn href(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        let special = c.is_ascii_control()
            || matches!(c, ' ' | '"' | '#' | '%' | '\'' | ':' | '<' | '>' | '?' | '\\' | '^' | '`')
            || matches!(c, '{' | '|' | '}' | '[' | ']');
        if special {
            let mut buffer = [0; 4];
            c.encode_utf8(&mut buffer).bytes().for_each(|b| out.push_str(&format!("%{b:02X}")));
        } else {
            out.push(c);
        }
    }
    out
}

/// Refuse a base URL that is neither an http(s) URL nor a relative path: it
/// becomes the canonical link of every page. (`[output] pdf` is checked with
/// book.toml: a plain file name, which can never read as a scheme.)
pub fn check_output(book: &BookView) -> Result<(), Diagnostics> {
    let Some(url) = &book.base_url else { return Ok(()) };
    let Some(problem) = base_url_problem(url) else { return Ok(()) };
    let at = book.base_url_at.clone().unwrap_or_else(|| Location::file("--base-url"));
    Err(Diagnostic::new(at, format!("base URL `{url}` {problem}"))
        .hint("write the site's public address, such as `https://user.github.io/study/`, or a path such as `/study/`")
        .into())
}

fn base_url_problem(url: &str) -> Option<&'static str> {
    let unsafe_char = |c: char| {
        c.is_whitespace()
            || c.is_control()
            || matches!(c, '"' | '\'' | '<' | '>' | '`' | '\\' | '{' | '}' | '|' | '^')
    };
    if url.chars().any(unsafe_char) {
        return Some(
            "holds a space, a quote, an angle bracket or another character that a URL cannot",
        );
    }
    match scheme(url).as_deref() {
        None => None,
        Some("http" | "https") => match url.split_once("://") {
            Some((_, rest)) if !rest.is_empty() && !rest.starts_with('/') => None,
            _ => Some("has no host"),
        },
        Some(_) => Some("is neither an http(s) URL nor a relative path"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_are_read_as_a_browser_reads_them() {
        assert_eq!(scheme("JaVa\tScRiPt:alert(1)").as_deref(), Some("javascript"));
        assert_eq!(scheme(" \u{1}javascript:x").as_deref(), Some("javascript"));
        assert_eq!(scheme("a/b:c"), None);
        assert_eq!(scheme("page.html#x:y"), None);
        assert!(link_allowed("https://example.org") && link_allowed("mailto:a@b.c"));
        assert!(link_allowed("notes.html") && link_allowed("#fig-1"));
        assert!(!link_allowed("javascript:alert(1)") && !link_allowed("vbscript:x"));
        assert!(!link_allowed("data:text/html,<script>") && !link_allowed("file:///etc/passwd"));
        assert!(image_allowed("figure.png") && image_allowed("data:image/png;base64,AA"));
        assert!(!image_allowed("data:text/html,x") && !image_allowed("javascript:x"));
    }

    #[test]
    fn hrefs_never_read_as_a_scheme() {
        assert_eq!(href("appendix.html"), "appendix.html");
        assert_eq!(href("javascript:alert(1).html"), "javascript%3Aalert(1).html");
        assert_eq!(href("a\"b<c>#?.html"), "a%22b%3Cc%3E%23%3F.html");
        assert_eq!(href("café.html"), "café.html");
    }

    #[test]
    fn base_urls_are_web_urls_or_paths() {
        for good in ["https://user.github.io/study/", "http://localhost:8000", "/study/", "study/"]
        {
            assert_eq!(base_url_problem(good), None, "{good}");
        }
        for bad in [
            "\"><script>alert(1)</script>",
            "javascript:alert(1)",
            "https://",
            "data:,x",
            "https:///x",
        ] {
            assert!(base_url_problem(bad).is_some(), "{bad}");
        }
    }
}
