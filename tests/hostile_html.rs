//! Hostile input that reaches the web page: URLs that a browser would run
//! (in content, the bibliography, book.toml and content file names) and
//! templates that would hang, crash or overflow. A URL from untrusted data is
//! neutralised (dropped, its text kept), a mistake in book.toml or a template
//! is refused with a located error, and every built page is scanned for what
//! a browser could run.

use std::fs;
use std::path::Path;
use std::time::Duration;

use crate::common;
use common::*;
use proptest::prelude::*;

/// The attributes whose value a browser follows as a URL.
const URL_ATTRIBUTES: &str = "href src xlink:href action formaction poster cite data background srcset ping longdesc usemap manifest";

/// The named character references a browser decodes that matter here.
const NAMED: [(&str, u32); 8] = [
    ("amp", 38),
    ("lt", 60),
    ("gt", 62),
    ("quot", 34),
    ("apos", 39),
    ("colon", 58),
    ("Tab", 9),
    ("NewLine", 10),
];

/// What a browser could run in `html`: a `<script>` other than the site's own
/// script, an event-handler attribute, or a URL attribute with a
/// `javascript:`, `vbscript:` or (but for images and the empty favicon)
/// `data:` scheme, after entity decoding and as a browser cleans URLs.
fn dangers(html: &str) -> Vec<String> {
    let tag = regex::Regex::new(
        r#"<([a-zA-Z][\w:-]*)((?:\s+[^\s=>/"']+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*/?>"#,
    )
    .unwrap();
    let attribute =
        regex::Regex::new(r#"([^\s=>/"']+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?"#).unwrap();
    let app = regex::Regex::new(r#"^ src="app\.[0-9a-f]{10}\.js" defer$"#).unwrap();
    let mut found = Vec::new();
    for t in tag.captures_iter(html) {
        let (name, attrs) = (t[1].to_ascii_lowercase(), &t[2]);
        if name == "script" && !app.is_match(attrs) {
            found.push(format!("script: {}", &t[0]));
        }
        if ["iframe", "object", "embed", "base", "form"].contains(&name.as_str()) {
            found.push(format!("element: {}", &t[0]));
        }
        for a in attribute.captures_iter(attrs) {
            let key = a[1].to_ascii_lowercase();
            let raw = a.get(2).map_or("", |v| v.as_str().trim_matches(['"', '\'']));
            let url: String =
                decode(raw).chars().filter(|c| !c.is_ascii_control() && *c != ' ').collect();
            let url = url.to_ascii_lowercase();
            let data_ok = (name == "img" && url.starts_with("data:image/"))
                || &t[0] == "<link rel=\"icon\" href=\"data:,\">";
            let runs = url.starts_with("javascript:")
                || url.starts_with("vbscript:")
                || (url.starts_with("data:") && !data_ok);
            if key.starts_with("on") || (URL_ATTRIBUTES.split(' ').any(|a| a == key) && runs) {
                found.push(format!("attribute: {}", &t[0]));
            }
        }
    }
    if html.to_ascii_lowercase().matches("<script").count() > 1 {
        found.push("more than one <script".into());
    }
    let opened = regex::Regex::new("<[a-zA-Z]").unwrap().find_iter(html).count();
    if opened != tag.find_iter(html).count() {
        found.push("a tag the scanner cannot read".into());
    }
    found
}

/// An attribute value with its character references decoded, once.
fn decode(value: &str) -> String {
    let reference = regex::Regex::new(r"&(#[xX][0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);?").unwrap();
    reference
        .replace_all(value, |c: &regex::Captures| {
            let body = &c[1];
            let code = match body.strip_prefix('#') {
                Some(n) if n.starts_with(['x', 'X']) => u32::from_str_radix(&n[1..], 16).ok(),
                Some(n) => n.parse().ok(),
                None => NAMED.iter().find(|(name, _)| *name == body).map(|(_, code)| *code),
            };
            code.and_then(char::from_u32).map_or_else(|| c[0].to_string(), String::from)
        })
        .into_owned()
}

#[test]
fn the_scanner_finds_what_a_browser_would_run() {
    for bad in [
        "<a href=\"jav&#x61;script:alert(1)\">x</a>",
        "<a href=\" JaVa&Tab;Script&colon;x\">x</a>",
        "<img src=x onerror=alert(1)>",
        "<script>alert(1)</script>",
        "<a href='data:text/html,x'>x</a>",
        "<iframe src=\"x\"></iframe>",
        "<img src=x onerror=\"a\"b>",
    ] {
        assert!(!dangers(bad).is_empty(), "{bad}");
    }
    let good = "<script src=\"app.0123456789.js\" defer></script><a href=\"javascript%3Ax.html\">javascript:x</a>\
                <img src=\"data:image/png;base64,AA\" alt=\"\"><a href=\"https://e.org/?a=1&amp;b=2\">x</a>";
    assert_eq!(dangers(good), Vec::<String>::new());
}

/// Every way of writing a link in Markdown, around one destination.
const LINKS: [&str; 4] =
    ["[click me](URL)", "[click me](<URL> \"title\")", "<URL>", "[click me][ref]\n\n[ref]: URL\n"];

/// The same with images, which a build refuses unless the file is in
/// content/, but which the Markdown renderer must neutralise on its own.
const FORMS: [&str; 6] =
    [LINKS[0], LINKS[1], LINKS[2], LINKS[3], "![alt text](URL)", "[![alt](URL)](URL)"];

const SCRIPT_URLS: [&str; 10] = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "jav&#x61;script:alert(1)",
    "&#106;avascript:alert(1)",
    "javascript&colon;alert(1)",
    "java&#9;script:alert(1)",
    "vbscript:msgbox(1)",
    "data:text/html,%3Cscript%3Ealert(1)%3C/script%3E",
    "DATA:text/html;base64,PHNjcmlwdD4=",
    "javascript:/*https://example.org*/alert(1)",
];

fn hostile_content() -> String {
    let mut text = String::from("# Result\n\n");
    for url in SCRIPT_URLS {
        for form in LINKS {
            text.push_str(&form.replace("URL", url));
            text.push_str("\n\n");
        }
    }
    text
}

const HOSTILE_BIB: &str = "@misc{evil,\n  author = {Doe, Jane},\n  title = {<script>alert(1)</script> <img src=x onerror=alert(2)>},\n  year = {2020},\n  url = {javascript:alert(3)}\n}\n\
    @misc{quote,\n  author = {Roe, R},\n  title = {T \" onmouseover=\"alert(4)},\n  year = {2021},\n  url = {https://example.org/a\"onmouseover=\"alert(5)}\n}\n";

/// A study whose content, bibliography and file names are hostile.
fn hostile_study(raw_html: bool) -> tempfile::TempDir {
    let study = fixture("minimal");
    let root = study.path();
    edit(root, "book.toml", "[study]", &format!("[output]\nraw-html = {raw_html}\n\n[study]"));
    let raw =
        if raw_html { "" } else { "<script>alert(6)</script>\n\n<img src=x onerror=alert(7)>\n\n" };
    let content = format!("{}{raw}Cited [@evil; @quote].\n", hostile_content());
    fs::write(root.join("content/index.md"), content).unwrap();
    fs::write(root.join("content/references.bib"), HOSTILE_BIB).unwrap();
    // Names with `"<>:`, which Windows refuses in a file name: Unix only.
    if cfg!(unix) {
        fs::write(root.join("content/a\"b<c>'d.md"), "# Quotes \"and\" <angles>\n").unwrap();
        fs::write(root.join("content/javascript:alert(1).md"), "# Scheme\n").unwrap();
    }
    study
}

fn pages(root: &Path) -> Vec<(String, String)> {
    contents(&root.join("site"))
        .into_iter()
        .filter(|(p, _)| p.extension().is_some_and(|e| e == "html" || e == "svg"))
        .map(|(p, bytes)| (p.display().to_string(), String::from_utf8(bytes).unwrap()))
        .collect()
}

#[test]
fn no_built_page_carries_what_a_browser_would_run() {
    for raw_html in [false, true] {
        let study = hostile_study(raw_html);
        let output = report(study.path(), &["build"]);
        assert!(output.status.success(), "{}", stderr(&output));
        let pages = pages(study.path());
        let expected = if cfg!(unix) { 3 } else { 1 };
        assert_eq!(pages.len(), expected, "{:?}", pages.iter().map(|p| &p.0).collect::<Vec<_>>());
        for (name, html) in &pages {
            assert_eq!(dangers(html), Vec::<String>::new(), "raw-html = {raw_html}, {name}");
        }
        let index = &pages.iter().find(|(n, _)| n == "index.html").unwrap().1;
        assert!(index.contains("<p>click me</p>"), "a neutralised link keeps its text");
        assert!(
            index.contains(
                "&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt;"
            )
        );
        assert!(index.contains("<a href=\"https://example.org/a%22onmouseover=%22alert(5)\">"));
        if cfg!(unix) {
            assert!(index.contains("<a href=\"a%22b%3Cc%3E%27d.html\">Quotes &quot;and&quot;"));
            assert!(index.contains("<a href=\"javascript%3Aalert(1).html\">Scheme</a>"));
        }
    }
}

/// A link form around a destination whose scheme is spelled with random case,
/// entities and ignored characters.
fn hostile_link() -> impl Strategy<Value = String> {
    let scheme = prop::sample::select(vec!["javascript", "vbscript", "data"]);
    let spell = prop::collection::vec((any::<bool>(), 0u8..4), 10);
    (scheme, spell, prop::sample::select(FORMS.to_vec())).prop_map(|(scheme, spell, form)| {
        let mut url = String::new();
        for (c, (upper, how)) in scheme.chars().zip(spell.iter().cycle()) {
            let c = if *upper { c.to_ascii_uppercase() } else { c };
            match how {
                0 => url.push(c),
                1 => url.push_str(&format!("&#x{:x};", c as u32)),
                2 => url.push_str(&format!("&#{};", c as u32)),
                _ => url.push_str(&format!("{c}&#9;")),
            }
        }
        form.replace("URL", &format!("{url}:alert(1)"))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: common::regressions("hostile_html"), ..ProptestConfig::default() })]

    /// However a script URL is spelled, no link form carries it to the page.
    #[test]
    fn no_spelling_of_a_script_url_reaches_the_page(links in prop::collection::vec(hostile_link(), 1..6)) {
        let markdown = links.join("\n\n");
        let html = report::render::html::to_html(&report::markdown::parse::text(&markdown), report::render::Refs::none());
        prop_assert_eq!(dangers(&html), Vec::<String>::new(), "{}\n{}", markdown, html);
    }
}

/// Build the minimal fixture, break it with `files` (path, text) and `args`,
/// and return the error of the second build, which must fail within a minute
/// with exit 1 and leave the first build's output as it was.
fn refused(name: &str, files: &[(&str, &str)], args: &[&str]) -> String {
    let study = fixture("minimal");
    let root = study.path();
    let output = report(root, &["build"]);
    assert!(output.status.success(), "{name}: {}", stderr(&output));
    let before = contents(&root.join("site"));
    for (path, text) in files {
        fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        fs::write(root.join(path), text).unwrap();
    }
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_report"))
        .args(["build", "--message-format", "short", "--root"])
        .arg(root)
        .args(args)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let output = wait_or_kill(child, Duration::from_secs(60), name);
    let err = stderr_in(&output, root);
    assert_eq!(output.status.code(), Some(1), "{name}: expected exit 1:\n{err}");
    assert!(!err.contains("panicked") && !err.contains("overflow"), "{name}:\n{err}");
    assert!(before == contents(&root.join("site")), "{name}: the previous output changed");
    err
}

#[test]
fn a_script_url_in_book_toml_is_refused_at_its_place() {
    let base = |url: &str| format!("[output]\nbase-url = \"{url}\"\n\n[study]");
    for (name, url) in [
        ("base_url_breaks_out", "\\\"><script>alert(1)</script>"),
        ("base_url_javascript", "javascript:alert(1)"),
    ] {
        let book = fs::read_to_string(repo().join("tests/fixtures/minimal/book.toml")).unwrap();
        let book = book.replace("[study]", &base(url));
        insta::assert_snapshot!(name, refused(name, &[("book.toml", &book)], &[]));
    }
    let err = refused("base_url_flag", &[], &["--base-url", "\"><script>alert(1)</script>"]);
    insta::assert_snapshot!("base_url_flag", err);
    // `[output] pdf` is checked with book.toml (src/config): a plain file name
    // ending in `.pdf`, which can never read as a scheme (tests/hostile_data.rs).
}

#[test]
fn web_and_relative_base_urls_make_the_canonical_link() {
    for (url, canonical) in
        [("https://user.github.io/study/", "https://user.github.io/study/"), ("/study/", "/study/")]
    {
        let study = fixture("minimal");
        let output = report(study.path(), &["build", "--base-url", url]);
        assert!(output.status.success(), "{}", stderr(&output));
        let index = fs::read_to_string(study.path().join("site/index.html")).unwrap();
        assert!(
            index.contains(&format!("<link rel=\"canonical\" href=\"{canonical}\">")),
            "{index}"
        );
    }
}

const PAGE_WITH_MACROS: &str = "{% import \"macros.html\" as m %}{% extends \"base.html\" %}\n{% block main %}{{ m::tree(n=1) }}{% endblock main %}\n";

const TEMPLATE_CASES: &[(&str, &[(&str, &str)])] = &[
    (
        "range_huge",
        &[(
            "templates/partials/footer.html",
            "<footer>\n{% for i in range(end=100000000000) %}{% endfor %}</footer>",
        )],
    ),
    (
        "range_step_zero",
        &[(
            "templates/partials/footer.html",
            "<footer>{{ range(end=3, step_by=0) | length }}</footer>",
        )],
    ),
    (
        "range_nested",
        &[(
            "templates/partials/footer.html",
            "{% for i in range(end=100000) %}{% for j in range(end=100000) %}{% endfor %}{% endfor %}",
        )],
    ),
    (
        "page_too_large",
        &[(
            "templates/partials/footer.html",
            "{% for i in range(end=100000) %}{% for j in range(end=8) %}<p>{{ book.title }} {{ book.title }} {{ book.title }} {{ book.title }} {{ book.title }} {{ book.title }}</p>{% endfor %}{% endfor %}",
        )],
    ),
    (
        "macro_calls_itself",
        &[
            ("templates/page.html", PAGE_WITH_MACROS),
            (
                "templates/macros.html",
                "{% macro tree(n) %}\n<li>{{ self::tree(n=n + 1) }}</li>{% endmacro tree %}",
            ),
        ],
    ),
    (
        "macros_call_each_other",
        &[
            ("templates/page.html", PAGE_WITH_MACROS),
            (
                "templates/macros.html",
                "{% macro tree(n) %}{{ self::leaf(n=n) }}{% endmacro tree %}\n{% macro leaf(n) %}\n{{ self::tree(n=n) }}{% endmacro leaf %}",
            ),
        ],
    ),
    (
        "macro_through_include",
        &[
            ("templates/page.html", PAGE_WITH_MACROS),
            (
                "templates/macros.html",
                "{% macro tree(n) %}{% include \"partials/leaf.html\" %}{% endmacro tree %}",
            ),
            (
                "templates/partials/leaf.html",
                "{% import \"macros.html\" as m %}\n{{ m::tree(n=1) }}",
            ),
        ],
    ),
    (
        "includes_itself_single_quoted",
        &[(
            "templates/partials/footer.html",
            "<footer>\n{% include 'partials/footer.html' %}</footer>",
        )],
    ),
    (
        "includes_in_a_circle",
        &[
            ("templates/partials/footer.html", "{% include 'partials/a.html' %}"),
            ("templates/partials/a.html", "\n\n{%- include \"partials/footer.html\" -%}"),
        ],
    ),
    (
        "include_missing",
        &[(
            "templates/partials/footer.html",
            "<footer>\n\n{% include 'partials/licence.html' %}</footer>",
        )],
    ),
    ("nested_ten_thousand_ifs", &[]),
    ("nested_brackets", &[]),
];

#[test]
fn templates_that_would_hang_or_crash_are_refused_at_their_file() {
    let ifs = "{% if true %}".repeat(10_000) + &"{% endif %}".repeat(10_000);
    let brackets =
        format!("<footer>{{{{ {}1{} }}}}</footer>", "(".repeat(10_000), ")".repeat(10_000));
    for (name, files) in TEMPLATE_CASES {
        let deep: Vec<(&str, &str)> = match *name {
            "nested_ten_thousand_ifs" => vec![("templates/partials/footer.html", &ifs)],
            "nested_brackets" => vec![("templates/partials/footer.html", &brackets)],
            _ => files.to_vec(),
        };
        let err = refused(name, &deep, &[]);
        insta::assert_snapshot!(format!("template_{name}"), err);
    }
}
