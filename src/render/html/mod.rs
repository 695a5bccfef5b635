//! The web site: every content page rendered to HTML and laid out by Tera
//! templates (`base.html`, `page.html` and `partials/`, each overridable from
//! the study's `templates/`), plus the stylesheet and script, named by the hash
//! of their content.

mod calls;
mod child;
mod data_table;
mod graph;
mod limits;
mod load;
mod markdown;
mod tags;
mod toc;
mod urls;
mod widths;

use std::collections::BTreeMap;

use serde::Serialize;
use tera::Context;

pub use markdown::{inline_html, page_html, slug, to_html};

use super::resolved::Resolved;
use crate::diagnostic::Diagnostics;
use crate::markdown::front_matter::OutputName;
use crate::project::SourceFile;

/// The built-in templates, by name.
pub const BUILT_IN: [(&str, &str); 8] = [
    ("base.html", include_str!("../../defaults/base.html")),
    ("page.html", include_str!("../../defaults/page.html")),
    ("partials/header.html", include_str!("../../defaults/partials/header.html")),
    ("partials/nav.html", include_str!("../../defaults/partials/nav.html")),
    ("partials/cards.html", include_str!("../../defaults/partials/cards.html")),
    ("partials/toc.html", include_str!("../../defaults/partials/toc.html")),
    ("partials/footer.html", include_str!("../../defaults/partials/footer.html")),
    ("partials/share.html", include_str!("../../defaults/partials/share.html")),
];

/// The built-in stylesheet (`templates/style.css` replaces it).
pub const STYLE: &str = include_str!("../../defaults/style.css");

/// The built-in script (`templates/app.js` replaces it).
pub const SCRIPT: &str = include_str!("../../defaults/app.js");

/// Where the results came from, shown in the footer.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Provenance {
    /// `report` and its version.
    pub generator: String,
    /// The first 12 hex digits of the SHA-256 of the results files.
    pub results_hash: String,
    /// The last commit that changed the study's inputs (book.toml,
    /// `results/`, `content/`, `templates/`, `fonts/`), when the study is
    /// in a git repository.
    pub commit: Option<String>,
    /// Whether those inputs in the tree differ from `commit` (edited or
    /// untracked files): the build is of that commit with uncommitted
    /// changes, and `results_hash` names the results it read.
    pub uncommitted: bool,
    /// The build date: from `SOURCE_DATE_EPOCH` or book.toml, never the clock.
    pub date: Option<String>,
}

/// The output of the web page: every content page rendered to HTML and laid
/// out by the templates, with the stylesheet and script.
#[derive(Debug, Clone, Copy)]
pub struct Page;

impl super::renderer::Renderer for Page {
    fn name(&self) -> &'static str {
        "html"
    }

    fn render(&self, study: &Resolved) -> Result<super::renderer::Files, Diagnostics> {
        let mut out = super::renderer::Files::default();
        for (name, content) in render(study)? {
            out.insert(name, content.into_bytes());
        }
        Ok(out)
    }
}

#[derive(Debug, Clone, Serialize)]
struct PageView {
    slug: String,
    title: String,
    /// The page as a link: its file name, percent-encoded where needed.
    url: String,
    /// The page's file name.
    #[serde(skip)]
    file: String,
    is_index: bool,
    html: String,
    /// The page's sections, for its table of contents.
    toc: Vec<toc::Entry>,
}

#[derive(Debug, Clone, Serialize)]
struct Assets {
    css: String,
    js: String,
}

/// Pages ready to render: each page's file name and what its templates see.
pub type PageContexts = Vec<(String, Context)>;

/// Render the site: file name → content.
pub fn render(study: &Resolved) -> Result<BTreeMap<String, String>, Diagnostics> {
    urls::check_output(study.book)?;
    let templates = &study.project.templates;
    let override_of = |name: &str| {
        templates.iter().find(|f| f.path.ends_with(name)).map(|f| f.text()).transpose()
    };
    let css = override_of("style.css")?.map_or_else(built_in_style, str::to_string);
    let js = override_of("app.js")?.unwrap_or(SCRIPT).to_string();
    let mut assets = Assets { css: hashed("style", "css", &css), js: hashed("app", "js", &js) };
    let (own_css, own_js) = (assets.css.clone(), assets.js.clone());
    // In a site of studies, the built-in stylesheet and script are the
    // site's, once at its root; a study's own stay beside its page.
    let root = study.book.site.as_ref().map(|s| s.root.as_str());
    let shared = |own: bool| root.filter(|_| !own);
    let css_shared = shared(override_of("style.css")?.is_some()).map(|r| format!("{r}{own_css}"));
    let js_shared = shared(override_of("app.js")?.is_some()).map(|r| format!("{r}{own_js}"));
    if let Some(css) = &css_shared {
        assets.css.clone_from(css);
    }
    if let Some(js) = &js_shared {
        assets.js.clone_from(js);
    }
    let mut files = render_pages(templates, page_contexts(study, &assets))?;
    if css_shared.is_none() {
        files.insert(own_css, css);
    }
    if js_shared.is_none() {
        files.insert(own_js, js);
    }
    Ok(files)
}

/// Each page's file name and what its templates see.
fn page_contexts(study: &Resolved, assets: &Assets) -> PageContexts {
    let pages = page_views(study);
    let nav: Vec<&PageView> = pages.iter().collect();
    let context = |page: &PageView| {
        let mut context = Context::new();
        context.insert("book", study.book);
        context.insert("page", page);
        context.insert("pages", &nav);
        context.insert("assets", assets);
        context.insert("provenance", &study.book.provenance);
        (page.file.clone(), context)
    };
    pages.iter().map(context).collect()
}

/// The pages of a site ready to render: what [`render_pages`] takes. The
/// stylesheet and script keep their built-in names.
pub fn contexts(study: &Resolved) -> PageContexts {
    let assets =
        Assets { css: hashed("style", "css", &built_in_style()), js: hashed("app", "js", SCRIPT) };
    page_contexts(study, &assets)
}

/// Render each page (file name, context). The built-in templates render here;
/// the study's own run in a child process under limits of time and memory
/// ([`child`]) when this process runs jobs that way.
pub fn render_pages(
    overrides: &[SourceFile],
    pages: PageContexts,
) -> Result<BTreeMap<String, String>, Diagnostics> {
    let own = overrides.iter().any(|f| f.path.extension().is_some_and(|e| e == "html"));
    if own && crate::render::sandbox::enabled() {
        return child::render(overrides, pages);
    }
    let templates = load::Templates::load(overrides)?;
    let mut files = BTreeMap::new();
    for (file, context) in pages {
        let html = templates.render(&context, &file)?;
        files.insert(file, html);
    }
    Ok(files)
}

/// The child's work for [`crate::render::sandbox::Job::Render`].
pub(crate) fn child_answer(input: &[u8]) -> Option<Vec<u8>> {
    child::answer(input)
}

/// The pages of the site, with their HTML and their tables of contents.
fn page_views(study: &Resolved) -> Vec<PageView> {
    let pages = study.document.pages.iter();
    pages
        .filter(|p| p.front.includes(OutputName::Page))
        .map(|p| {
            let title = (p.slug == "index").then_some(study.book.title.as_str());
            let (html, toc) = markdown::page(&p.body, study.page_refs(), title);
            PageView {
                slug: p.slug.clone(),
                title: p.title.clone(),
                url: urls::href(&p.url()),
                file: p.url(),
                is_index: p.slug == "index",
                toc,
                html,
            }
        })
        .collect()
}

/// The built-in stylesheet as the site serves it: without its comments and
/// indentation, which every reader would download for nothing.
pub fn built_in_style() -> String {
    let mut out = String::with_capacity(STYLE.len());
    let mut rest = STYLE;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        rest = rest[start..].find("*/").map_or("", |end| &rest[start + end + 2..]);
    }
    out.push_str(rest);
    out.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("\n") + "\n"
}

/// The built-in stylesheet and script as a site of studies shares them at
/// its root: `(file name, content)` each, named as each study's page names them.
pub fn shared_assets() -> [(String, String); 2] {
    let css = built_in_style();
    [(hashed("style", "css", &css), css), (hashed("app", "js", SCRIPT), SCRIPT.to_string())]
}

/// The index page's own stylesheet and scripts in a site of studies (its
/// filter and sort, and its search, which the index's script loads on
/// first use of the search box), which no study's page loads: `(file name,
/// content)` each.
pub fn index_assets() -> [(String, String); 3] {
    let css = include_str!("../../defaults/site/index.css");
    let js = include_str!("../../defaults/site/index.js");
    let search = include_str!("../../defaults/site/search.js");
    [
        (hashed("index", "css", css), css.to_string()),
        (hashed("index", "js", js), js.to_string()),
        (hashed("search", "js", search), search.to_string()),
    ]
}

/// `NAME.HASH.EXT`, with the first 10 hex digits of the SHA-256 of `content`.
pub fn hashed(name: &str, ext: &str, content: &str) -> String {
    let hex = crate::project::sha256_hex(content.as_bytes());
    format!("{name}.{}.{ext}", &hex[..10])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stylesheet_loses_its_comments_only() {
        let css = built_in_style();
        assert!(!css.contains("/*") && css.len() < STYLE.len(), "{css}");
        assert!(css.contains("content: \"Caveats\";") && css.contains(":root {"));
    }

    #[test]
    fn asset_names_carry_a_content_hash() {
        // sha256("") = e3b0c44298fc1c149afbf4c8996fb924...
        assert_eq!(hashed("style", "css", ""), "style.e3b0c44298.css");
    }
}
