//! The page templates: the built-in set overridden by the study's
//! `templates/`, checked before anything is rendered (nesting, circles,
//! missing templates, `get_env`), and rendered within bounds (`range`, page
//! size). Every error is located in the template it comes from.

use std::collections::{BTreeMap, BTreeSet};

use tera::{Context, Template, Tera};

use super::graph::{self, Source};
use super::limits::{BoundedPage, BoundedRange, MAX_PAGE_BYTES};
use super::{BUILT_IN, calls, tags};
use crate::diagnostic::{Diagnostic, Diagnostics, Location};
use crate::project::SourceFile;

/// The loaded templates, ready to render pages.
pub struct Templates {
    tera: Tera,
    sources: BTreeMap<String, Source>,
    /// The functions each template calls, in any branch (to name the
    /// template of a function's error).
    functions: Functions,
    range: BoundedRange,
}

/// The names of the functions each template calls, by template name.
type Functions = BTreeMap<String, BTreeSet<String>>;

impl Templates {
    /// The built-in templates, overridden by the study's `.html` files.
    pub fn load(overrides: &[SourceFile]) -> Result<Self, Diagnostics> {
        let mut sources = sources(overrides)?;
        let parsed = parse(&mut sources)?;
        // One walk of each syntax tree finds what the template includes,
        // calls and imports (for the graph) and the functions it calls.
        let scopes: BTreeMap<String, calls::Scopes> =
            parsed.iter().map(|(name, t)| (name.clone(), calls::scopes(&t.ast))).collect();
        graph::check(&parsed, &scopes, &sources)?;
        let functions: Functions =
            scopes.iter().map(|(name, s)| (name.clone(), calls::functions(s))).collect();
        let mut tera = Tera::default();
        tera.templates.extend(parsed);
        let built = tera.build_inheritance_chains().and_then(|()| tera.check_macro_files());
        built.map_err(|err| template_error(&err, &functions, &sources))?;
        // Templates see the study, nothing of the machine: `get_env` would publish
        // its environment (CI secrets included). Tera reads no files itself: the
        // templates are added from memory, so `include` names only them.
        tera.register_function("get_env", |_: &std::collections::HashMap<String, tera::Value>| {
            Err(tera::Error::msg(
                "`get_env` is not available: templates cannot read the build machine's environment",
            ))
        });
        let range = BoundedRange::default();
        tera.register_function("range", range.clone());
        tera.autoescape_on(vec![".html"]);
        refuse_environment(&functions, &sources)?;
        Ok(Templates { tera, sources, functions, range })
    }

    /// Render `page.html` for the page `url`, within the bounds of [`super::limits`].
    pub fn render(&self, context: &Context, url: &str) -> Result<String, Diagnostics> {
        self.range.reset();
        let mut page = BoundedPage::default();
        match self.tera.render_to("page.html", context, &mut page) {
            Ok(()) => Ok(String::from_utf8_lossy(&page.bytes).into_owned()),
            Err(_) if page.overflowed => Err(Diagnostic::new(
                Location::file(self.looping()),
                format!("template: page `{url}` is larger than {} MB", MAX_PAGE_BYTES >> 20),
            )
            .hint("a loop in the templates writes too much; a page may hold at most 64 MB")
            .into()),
            Err(err) => Err(template_error(&err, &self.functions, &self.sources)),
        }
    }

    /// The template to blame for a page too large: the one study template
    /// with a loop, else `page.html`. (Tera does not say which was writing.)
    fn looping(&self) -> &str {
        let loops = |s: &&Source| {
            !s.path.ends_with("(built-in)")
                && tags::tags(&s.text).iter().any(|t| t.statement && t.keyword() == "for")
        };
        let study: Vec<&Source> = self.sources.values().filter(loops).collect();
        match study.as_slice() {
            [only] => &only.path,
            _ => self.sources.get("page.html").map_or("page.html", |s| &s.path),
        }
    }
}

/// The built-in templates' and the study's sources, by template name.
fn sources(overrides: &[SourceFile]) -> Result<BTreeMap<String, Source>, Diagnostics> {
    let source = |text: &str, path: String| Source { text: text.to_string(), path, nesting: 0 };
    let mut sources: BTreeMap<String, Source> = BUILT_IN
        .iter()
        .map(|(name, text)| (name.to_string(), source(text, format!("{name} (built-in)"))))
        .collect();
    for file in overrides.iter().filter(|f| f.path.extension().is_some_and(|e| e == "html")) {
        let name = file
            .path
            .strip_prefix("templates")
            .unwrap_or(&file.path)
            .to_string_lossy()
            .replace('\\', "/");
        sources.insert(name, source(file.text()?, file.path.display().to_string()));
    }
    Ok(sources)
}

/// Parse every template, after checking that its nesting is within Tera's
/// stack; every template's error at once.
fn parse(
    sources: &mut BTreeMap<String, Source>,
) -> Result<BTreeMap<String, Template>, Diagnostics> {
    let mut errors = Diagnostics::default();
    let mut parsed = BTreeMap::new();
    for (name, source) in sources.iter_mut() {
        match tags::check(&source.path, &source.text) {
            Ok(nesting) => source.nesting = nesting,
            Err(err) => {
                errors.0.extend(err.0);
                continue;
            }
        }
        match Template::new(name, None, &source.text) {
            Ok(template) => {
                parsed.insert(name.clone(), template);
            }
            Err(err) => {
                let err = tera::Error::chain(format!("Failed to parse '{name}'"), err);
                let (line, column, message) = crate::diagnostic::tera_error_parts(&err);
                errors.push(located(Location::new(&source.path, line, column), &message));
            }
        }
    }
    errors.into_result(parsed)
}

/// A template that calls `get_env`, in any branch, is refused before it is
/// rendered: it would publish the build machine's environment (CI secrets
/// included). Tera gives no line for a call, so the error names the file.
fn refuse_environment(
    functions: &Functions,
    sources: &BTreeMap<String, Source>,
) -> Result<(), Diagnostics> {
    let mut errors = Diagnostics::default();
    for (name, source) in sources {
        if functions.get(name).is_some_and(|calls| calls.contains("get_env")) {
            errors.push(
                Diagnostic::new(Location::file(&source.path), "template: `get_env` is not available")
                    .hint("templates cannot read the build machine's environment; put the value in book.toml"),
            );
        }
    }
    errors.into_result(())
}

fn located(at: Location, message: &str) -> Diagnostic {
    Diagnostic::new(at, format!("template: {message}"))
        .hint("fix the template, or delete it from templates/ to use the built-in one")
}

/// A Tera error, located in the template it happened in (`functions`: those
/// each template calls).
fn template_error(
    err: &tera::Error,
    functions: &Functions,
    sources: &BTreeMap<String, Source>,
) -> Diagnostics {
    let (line, column, message) = crate::diagnostic::tera_error_parts(err);
    let chain = crate::diagnostic::error_chain(err).concat();
    let name = failing_template(&chain, functions).unwrap_or_default();
    let path = sources.get(&name).map_or_else(|| "templates".to_string(), |s| s.path.clone());
    located(Location::new(path, line, column), &message).into()
}

/// The template an error happened in: the one Tera names innermost, or, for
/// a function that failed, the one template that calls it.
fn failing_template(chain: &str, functions: &Functions) -> Option<String> {
    let quoted = |marker: &str| {
        let rest = &chain[chain.find(marker)? + marker.len()..];
        Some(rest[..rest.find('\'')?].to_string())
    };
    let named =
        ["while rendering '", "error happened in '", "Failed to render '", "Failed to parse '"]
            .iter()
            .find_map(|m| quoted(m));
    let function = quoted("Function call '");
    let callers: Vec<&String> = function.map_or_else(Vec::new, |f| {
        functions.iter().filter(|(_, calls)| calls.contains(&f)).map(|(n, _)| n).collect()
    });
    match callers.as_slice() {
        [only] => Some((*only).clone()),
        _ => named,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error of loading and rendering `page.html` with `files` as the
    /// study's templates, or the page.
    fn render(files: &[(&str, &str)]) -> String {
        let files: Vec<SourceFile> = files
            .iter()
            .map(|(name, text)| {
                SourceFile::new(format!("templates/{name}"), text.as_bytes().to_vec())
            })
            .collect();
        match Templates::load(&files).and_then(|t| t.render(&Context::new(), "index.html")) {
            Ok(html) => html,
            Err(err) => err.to_string(),
        }
    }

    fn page(text: &str) -> String {
        render(&[("page.html", text)])
    }

    #[test]
    fn built_in_templates_parse() {
        assert!(Templates::load(&[]).is_ok());
    }

    /// A template cannot publish the build machine's environment.
    #[test]
    fn get_env_fails_at_the_template() {
        let err = page("<p>{{ get_env(name=\"HOME\") }}</p>");
        assert!(
            err.starts_with("templates/page.html: template: `get_env` is not available"),
            "{err}"
        );
        assert!(!err.contains(&std::env::var("HOME").unwrap_or("/root".into())), "{err}");
    }

    /// `include` names loaded templates only, never a file of the machine.
    #[test]
    fn templates_read_no_files() {
        let err = page("{% include \"/etc/hostname\" %}");
        assert!(err.contains("`/etc/hostname`, which is not a template"), "{err}");
    }

    #[test]
    fn a_missing_include_is_located_at_the_include() {
        let err = render(&[(
            "partials/footer.html",
            "<footer>\n{% include 'partials/nope.html' %}</footer>",
        )]);
        assert!(err.starts_with("templates/partials/footer.html:2: template `partials/footer.html` includes `partials/nope.html`, which is not a template"), "{err}");
        let err = page("{% extends 'bse.html' %}");
        assert!(
            err.contains("extends `bse.html`") && err.contains("did you mean `base.html`?"),
            "{err}"
        );
        assert_eq!(page("a{% include 'nope.html' ignore missing %}b"), "ab");
    }

    #[test]
    fn circles_are_refused_whatever_the_quotes() {
        let err = render(&[(
            "partials/footer.html",
            "<footer>{% include 'partials/footer.html' %}</footer>",
        )]);
        assert!(err.starts_with("templates/partials/footer.html:1: template `partials/footer.html` leads back to `partials/footer.html`"), "{err}");
        let err = render(&[
            ("a.html", "{% import 'b.html' as b %}"),
            ("b.html", "\n{% import \"a.html\" as a %}"),
        ]);
        assert!(err.starts_with("templates/b.html:2: template `b.html` leads back to `a.html`: a.html → b.html → a.html"), "{err}");
    }

    #[test]
    fn recursive_macros_are_refused() {
        let err = page("{% macro m(n) %}\n{{ self::m(n=n) }}{% endmacro m %}{{ self::m(n=1) }}");
        assert!(
            err.starts_with("templates/page.html:2: template: macro `page.html::m()` calls itself"),
            "{err}"
        );
        let err = page(
            "{% macro a() %}{{ self::b() }}{% endmacro a %}{% macro b() %}{{ self::a() }}{% endmacro b %}",
        );
        assert!(err.contains("page.html::a() → page.html::b() → page.html::a()"), "{err}");
        let macros = "{% macro m() %}{% include 'partials/x.html' %}{% endmacro m %}";
        let x = "{% import 'macros.html' as ms %}{{ ms::m() }}";
        let err = render(&[("macros.html", macros), ("partials/x.html", x)]);
        assert!(
            err.contains("calls itself: macros.html::m() → partials/x.html → macros.html::m()"),
            "{err}"
        );
        assert_eq!(page("{% macro m(n) %}<{{ n }}>{% endmacro m %}{{ self::m(n=1) }}"), "<1>");
    }

    #[test]
    fn range_is_bounded_and_its_error_names_the_template() {
        let partial = "<footer>{% for i in range(end=100000000000) %}{% endfor %}</footer>";
        let err = render(&[
            ("page.html", "{% include 'partials/footer.html' %}"),
            ("partials/footer.html", partial),
        ]);
        assert!(
            err.starts_with(
                "templates/partials/footer.html: template: `range` of 100000000000 items"
            ),
            "{err}"
        );
        assert!(page("{{ range(end=3, step_by=0) }}").contains("never ends"));
        let nested = "{% for i in range(end=100000) %}{% for j in range(end=100000) %}{% endfor %}{% endfor %}";
        assert!(page(nested).contains("at most 1000000 together"));
        assert_eq!(page("{% for i in range(end=3) %}{{ i }}{% endfor %}"), "012");
    }

    #[test]
    fn a_huge_page_is_refused() {
        let big = "{% set s = 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' %}\
                   {% for i in range(end=1000) %}{% for j in range(end=1000) %}{{ s }}{% endfor %}{% endfor %}";
        let err = page(big);
        assert!(
            err.starts_with(
                "templates/page.html: template: page `index.html` is larger than 64 MB"
            ),
            "{err}"
        );
    }

    #[test]
    fn deep_templates_are_refused_not_overflowed() {
        let deep = "{% if true %}".repeat(10_000) + &"{% endif %}".repeat(10_000);
        assert!(page(&deep).contains("blocks nested more than 100 deep"));
        let mut chain: Vec<(String, String)> = (0..300)
            .map(|i| (format!("p{i}.html"), format!("{{% include 'p{}.html' %}}", i + 1)))
            .collect();
        chain.push(("p300.html".into(), "x".into()));
        chain.push(("page.html".into(), "{% include 'p0.html' %}".into()));
        let files: Vec<(&str, &str)> =
            chain.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let err = render(&files);
        assert!(err.contains("nest 201 levels deep"), "{err}");
    }
}
