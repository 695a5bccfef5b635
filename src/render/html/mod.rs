//! The web site: every content page rendered to HTML and laid out by Tera
//! templates (`base.html`, `page.html` and `partials/`, each overridable from
//! the study's `templates/`), plus the stylesheet and script, named by the hash
//! of their content.

mod calls;
mod markdown;

use std::collections::BTreeMap;

use serde::Serialize;
use tera::{Context, Tera};

pub use markdown::{slug, to_html};

use super::{BookView, Refs};
use crate::charts::ChartSet;
use crate::diagnostic::{Diagnostic, Diagnostics, Location};
use crate::markdown::Document;
use crate::markdown::front_matter::OutputName;
use crate::project::SourceFile;

/// The built-in templates, by name.
pub const BUILT_IN: [(&str, &str); 6] = [
    ("base.html", include_str!("../../defaults/base.html")),
    ("page.html", include_str!("../../defaults/page.html")),
    ("partials/header.html", include_str!("../../defaults/partials/header.html")),
    ("partials/nav.html", include_str!("../../defaults/partials/nav.html")),
    ("partials/cards.html", include_str!("../../defaults/partials/cards.html")),
    ("partials/footer.html", include_str!("../../defaults/partials/footer.html")),
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
    /// The last commit that changed `results/`, when the study is a git repository.
    pub commit: Option<String>,
    /// The build date: from `SOURCE_DATE_EPOCH` or book.toml, never the clock.
    pub date: Option<String>,
}

/// Everything the site is made of.
#[derive(Debug, Clone, Copy)]
pub struct SiteInputs<'a> {
    /// The content pages.
    pub document: &'a Document,
    /// The charts.
    pub charts: &'a ChartSet,
    /// Formatted citations.
    pub cited: &'a crate::references::Formatted,
    /// Metadata, metrics and caveats.
    pub book: &'a BookView,
    /// The study's `templates/` files (`.html`, `style.css`, `app.js`).
    pub templates: &'a [SourceFile],
    /// The footer's provenance.
    pub provenance: &'a Provenance,
}

#[derive(Debug, Clone, Serialize)]
struct PageView {
    slug: String,
    title: String,
    url: String,
    is_index: bool,
    html: String,
}

#[derive(Debug, Clone, Serialize)]
struct Assets {
    css: String,
    js: String,
}

/// Render the site: file name → content.
pub fn render(inputs: &SiteInputs) -> Result<BTreeMap<String, String>, Diagnostics> {
    let (tera, names) = templates(inputs.templates)?;
    let mut files = BTreeMap::new();
    let override_of = |name: &str| {
        inputs.templates.iter().find(|f| f.path.ends_with(name)).map(|f| f.text()).transpose()
    };
    let css = override_of("style.css")?.unwrap_or(STYLE).to_string();
    let js = override_of("app.js")?.unwrap_or(SCRIPT).to_string();
    let assets = Assets { css: hashed("style", "css", &css), js: hashed("app", "js", &js) };
    let pages: Vec<PageView> = inputs
        .document
        .pages
        .iter()
        .filter(|p| p.front.includes(OutputName::Page))
        .map(|p| {
            let refs = Refs {
                charts: inputs.charts,
                tables: &inputs.document.tables,
                tables_before: p.tables_before,
                citations: &inputs.cited.citations,
                environments: &inputs.book.environments,
                raw_html: inputs.book.raw_html,
            };
            PageView {
                slug: p.slug.clone(),
                title: p.title.clone(),
                url: p.url(),
                is_index: p.slug == "index",
                html: to_html(&p.markdown, refs),
            }
        })
        .collect();
    let nav: Vec<&PageView> = pages.iter().collect();
    for page in &pages {
        let mut context = Context::new();
        context.insert("book", inputs.book);
        context.insert("page", page);
        context.insert("pages", &nav);
        context.insert("assets", &assets);
        context.insert("provenance", inputs.provenance);
        let html =
            tera.render("page.html", &context).map_err(|err| template_error(&err, &names))?;
        files.insert(page.url.clone(), html);
    }
    files.insert(assets.css, css);
    files.insert(assets.js, js);
    Ok(files)
}

/// `NAME.HASH.EXT`, with the first 10 hex digits of the SHA-256 of `content`.
fn hashed(name: &str, ext: &str, content: &str) -> String {
    let hex = crate::project::sha256_hex(content.as_bytes());
    format!("{name}.{}.{ext}", &hex[..10])
}

/// The built-in templates, overridden by the study's; and where each came from.
fn templates(overrides: &[SourceFile]) -> Result<(Tera, BTreeMap<String, String>), Diagnostics> {
    let mut sources: BTreeMap<String, (String, String)> = BUILT_IN
        .iter()
        .map(|(name, text)| (name.to_string(), (text.to_string(), format!("{name} (built-in)"))))
        .collect();
    for file in overrides.iter().filter(|f| f.path.extension().is_some_and(|e| e == "html")) {
        let name = file
            .path
            .strip_prefix("templates")
            .unwrap_or(&file.path)
            .to_string_lossy()
            .replace('\\', "/");
        sources.insert(name, (file.text()?.to_string(), file.path.display().to_string()));
    }
    let names: BTreeMap<String, String> =
        sources.iter().map(|(n, (_, p))| (n.clone(), p.clone())).collect();
    check_cycles(&sources)?;
    let mut tera = Tera::default();
    // Templates see the study, nothing of the machine: `get_env` would publish
    // its environment (CI secrets included). Tera reads no files itself: the
    // templates are added from memory, so `include` names only them.
    tera.register_function("get_env", |_: &std::collections::HashMap<String, tera::Value>| {
        Err(tera::Error::msg(
            "`get_env` is not available: templates cannot read the build machine's environment",
        ))
    });
    tera.autoescape_on(vec![".html"]);
    tera.add_raw_templates(sources.into_iter().map(|(name, (text, _))| (name, text)))
        .map_err(|err| template_error(&err, &names))?;
    refuse_environment(&tera, &names)?;
    Ok((tera, names))
}

/// A template that calls `get_env`, in any branch, is refused before it is
/// rendered: it would publish the build machine's environment (CI secrets
/// included). Tera gives no line for a call, so the error names the file.
fn refuse_environment(tera: &Tera, names: &BTreeMap<String, String>) -> Result<(), Diagnostics> {
    let mut errors = Diagnostics::default();
    for (name, path) in names {
        let calls = tera.templates.get(name).map(|t| calls::functions(&t.ast));
        if calls.is_some_and(|calls| calls.contains("get_env")) {
            errors.push(
                Diagnostic::new(Location::file(path), "template: `get_env` is not available")
                    .hint("templates cannot read the build machine's environment; put the value in book.toml"),
            );
        }
    }
    errors.into_result(())
}

/// Templates that include, extend or import each other in a circle would
/// recurse without end in Tera: refuse them, at the line of the closing step.
fn check_cycles(sources: &BTreeMap<String, (String, String)>) -> Result<(), Diagnostics> {
    let pattern =
        regex::Regex::new(r#"\{%-?\s*(?:include|extends|import)\s+"([^"]+)""#).map_err(|e| {
            Diagnostics::from(Diagnostic::new(Location::file("templates"), e.to_string()))
        })?;
    let edges: BTreeMap<&str, Vec<(&str, usize)>> = sources
        .iter()
        .map(|(name, (text, _))| {
            let targets = pattern
                .captures_iter(text)
                .filter_map(|c| {
                    let m = c.get(1)?;
                    Some((m.as_str(), text[..m.start()].matches('\n').count() + 1))
                })
                .collect();
            (name.as_str(), targets)
        })
        .collect();
    for start in edges.keys() {
        let mut path = vec![*start];
        let mut stack = vec![(*start, 0usize)];
        while let Some((node, next)) = stack.pop() {
            let Some((target, line)) = edges.get(node).and_then(|t| t.get(next)).copied() else {
                path.pop();
                continue;
            };
            stack.push((node, next + 1));
            if target == *start {
                let at = Location::new(&sources[node].1, line, 0);
                return Err(Diagnostic::new(at, format!("template `{node}` leads back to `{start}`: {} → {target}", path.join(" → ")))
                    .hint("a template cannot include, extend or import itself, directly or through others").into());
            }
            if edges.contains_key(target) && !path.contains(&target) {
                path.push(target);
                stack.push((target, 0));
            }
        }
    }
    Ok(())
}

/// A Tera error, located in the template it names.
fn template_error(err: &tera::Error, names: &BTreeMap<String, String>) -> Diagnostics {
    let (line, column, message) = crate::diagnostic::tera_error_parts(err);
    let chain = crate::diagnostic::error_chain(err).concat();
    let path = names
        .iter()
        .rev()
        .find(|(name, _)| chain.contains(&format!("'{name}'")))
        .map_or_else(|| "templates".to_string(), |(_, path)| path.clone());
    Diagnostic::new(Location::new(path, line, column), format!("template: {message}"))
        .hint("fix the template, or delete it from templates/ to use the built-in one")
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asset_names_carry_a_content_hash() {
        // sha256("") = e3b0c44298fc1c149afbf4c8996fb924...
        assert_eq!(hashed("style", "css", ""), "style.e3b0c44298.css");
    }

    #[test]
    fn built_in_templates_parse() {
        assert!(templates(&[]).is_ok());
    }

    fn render_override(text: &str) -> String {
        let file = SourceFile::new("templates/page.html", text.as_bytes().to_vec());
        let (tera, names) = match templates(&[file]) {
            Ok(loaded) => loaded,
            Err(err) => return err.to_string(),
        };
        match tera.render("page.html", &Context::new()) {
            Ok(html) => html,
            Err(err) => template_error(&err, &names).to_string(),
        }
    }

    /// A template cannot publish the build machine's environment.
    #[test]
    fn get_env_fails_at_the_template() {
        let err = render_override("<p>{{ get_env(name=\"HOME\") }}</p>");
        assert!(
            err.starts_with("templates/page.html: template: `get_env` is not available"),
            "{err}"
        );
        assert!(!err.contains(&std::env::var("HOME").unwrap_or("/root".into())), "{err}");
    }

    /// `include` names loaded templates only, never a file of the machine.
    #[test]
    fn templates_read_no_files() {
        let err = render_override("{% include \"/etc/hostname\" %}");
        assert!(err.contains("/etc/hostname") && err.contains("not found"), "{err}");
    }
}
