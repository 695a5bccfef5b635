//! The checks of what the content refers to: every figure, table, citation,
//! image and link must name something the study has.

use super::directives::RefKind;
use crate::charts::spec::ChartSpec;
use crate::diagnostic::{Diagnostic, Diagnostics, Location};

/// Chart and table ids must be unique and every reference must name one.
pub fn check_references(
    references: &[(RefKind, String, Location)],
    charts: &[ChartSpec],
    tables: &[Option<String>],
) -> Result<(), Diagnostics> {
    let mut errors = Diagnostics::default();
    let mut seen: std::collections::BTreeMap<&str, &ChartSpec> = std::collections::BTreeMap::new();
    for spec in charts {
        if let Some(first) = seen.insert(&spec.id, spec) {
            let at = spec.at();
            let first_at = first.location.as_ref().map(|l| l.to_string()).unwrap_or_default();
            errors.push(
                Diagnostic::new(at, format!("two charts have the id `{}`", spec.id))
                    .hint(format!("the first is at {first_at}; give each chart a unique id")),
            );
        }
    }
    if !errors.is_empty() {
        return errors.into_result(());
    }
    let figures: Vec<&str> = charts.iter().map(|c| c.id.as_str()).collect();
    let table_ids: Vec<&str> = tables.iter().flatten().map(String::as_str).collect();
    for (kind, id, at) in references {
        let (ids, prefix, what) = match kind {
            RefKind::Figure => (&figures, "fig", "figures are the ids of ```chart blocks"),
            RefKind::Table => (
                &table_ids,
                "tbl",
                "tables are named by a caption `Table: ... {#tbl-ID}` after them",
            ),
        };
        if !ids.contains(&id.as_str()) {
            let names = crate::diagnostic::list(ids.iter().copied());
            let hint = match crate::diagnostic::nearest(id, ids.iter().copied()) {
                Some(best) => format!("did you mean `@{prefix}-{best}`? {what}: {names}"),
                None => format!("{what}: {names}"),
            };
            let noun = if *kind == RefKind::Figure { "figure" } else { "table" };
            errors.push(
                Diagnostic::new(at.clone(), format!("unknown {noun} `@{prefix}-{id}`")).hint(hint),
            );
        }
    }
    errors.into_result(())
}

/// Every cited key must be in the bibliography.
pub fn check_citations(
    citations: &[(Vec<String>, Location)],
    keys: Option<&[String]>,
) -> Result<(), Diagnostics> {
    let mut errors = Diagnostics::default();
    for (group, at) in citations {
        for key in group {
            match keys {
                None => errors.push(
                    Diagnostic::new(
                        at.clone(),
                        format!("citation `@{key}` but the study has no bibliography"),
                    )
                    .hint("add the entry to content/references.bib (BibTeX)"),
                ),
                Some(keys) if !keys.contains(key) => {
                    let names = crate::diagnostic::list(keys.iter().map(String::as_str));
                    let hint =
                        match crate::diagnostic::nearest(key, keys.iter().map(String::as_str)) {
                            Some(best) => format!(
                                "did you mean `@{best}`? keys in content/references.bib: {names}"
                            ),
                            None => format!("add it to content/references.bib; its keys: {names}"),
                        };
                    errors.push(
                        Diagnostic::new(at.clone(), format!("unknown citation key `@{key}`"))
                            .hint(hint),
                    );
                }
                Some(_) => {}
            }
        }
    }
    errors.into_result(())
}

/// True for an image URL that points at another site.
pub fn is_remote(url: &str) -> bool {
    url.starts_with("http://") || url.starts_with("https://") || url.starts_with("data:")
}

/// Every local image must be a file in `content/`.
pub fn check_images(images: &[(String, Location)], assets: &[String]) -> Result<(), Diagnostics> {
    let mut errors = Diagnostics::default();
    for (url, at) in images.iter().filter(|(url, _)| !is_remote(url)) {
        if url.starts_with('/') || url.split('/').any(|part| part == "..") {
            errors.push(
                Diagnostic::new(at.clone(), format!("image `{url}` is outside the content folder"))
                    .hint("put the image in content/ and refer to it by its file name"),
            );
        } else if !assets.contains(url) {
            let hint = match crate::diagnostic::nearest(url, assets.iter().map(String::as_str)) {
                Some(best) => format!("did you mean `{best}`?"),
                None => "put the image in content/ (png, jpg, gif, svg or webp)".to_string(),
            };
            errors.push(
                Diagnostic::new(at.clone(), format!("image `{url}` not found in content/"))
                    .hint(hint),
            );
        }
    }
    errors.into_result(())
}

/// Every link to another file of the site must name one: a page (`NAME.html`),
/// an image of `content/`, or a file the build writes. Links to other sites,
/// `mailto:`, in-page anchors, links that leave the site (`../`) and links
/// to a folder (`examples/usernetes/`: the site's pages are files, so these
/// are other sites published beside or inside this one, such as another
/// study) are not checked.
pub fn check_links(links: &[(String, Location)], files: &[String]) -> Result<(), Diagnostics> {
    let mut errors = Diagnostics::default();
    for (url, at) in links {
        let target = url.split(['#', '?']).next().unwrap_or("");
        let elsewhere = target.contains(':') || target.starts_with("../") || target.ends_with('/');
        if target.is_empty() || elsewhere || files.iter().any(|f| f == target) {
            continue;
        }
        let hint = match (
            target.strip_suffix(".md"),
            crate::diagnostic::nearest(target, files.iter().map(String::as_str)),
        ) {
            (Some(stem), _) if files.iter().any(|f| *f == format!("{stem}.html")) => {
                format!("link to the page as `{stem}.html`")
            }
            (_, Some(best)) => format!("did you mean `{best}`?"),
            _ => format!(
                "the site's pages: {}",
                crate::diagnostic::list(
                    files.iter().filter(|f| f.ends_with(".html")).map(String::as_str)
                )
            ),
        };
        errors.push(
            Diagnostic::new(at.clone(), format!("link to `{url}`, which the site does not have"))
                .hint(hint),
        );
    }
    errors.into_result(())
}

/// Warnings for the links to a folder (another study of the site, such as
/// `examples/usernetes/` or `../`) that holds no book.toml beside this study:
/// published this way, the link would lead nowhere. A warning, not an
/// error: a study may be built and published without its neighbours.
pub fn check_studies(
    links: &[(String, Location)],
    is_study: &dyn Fn(&str) -> bool,
) -> Vec<Diagnostic> {
    let target = |url: &str| url.split(['#', '?']).next().unwrap_or("").to_string();
    links
        .iter()
        .filter(|(url, _)| {
            let target = target(url);
            target.ends_with('/') && !target.contains(':') && !is_study(&target)
        })
        .map(|(url, at)| {
            Diagnostic::new(
                at.clone(),
                format!(
                    "link to `{url}`, which is no study: `{}book.toml` does not exist",
                    target(url)
                ),
            )
            .hint(
                "a link to a folder leads to another study of the site: write the folder of \
                 its book.toml relative to this study, such as `examples/NAME/` or `../`, and \
                 publish the two together",
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_figures_are_located() {
        let refs = [(RefKind::Figure, "b".to_string(), Location::new("c.md", 1, 7))];
        let err = check_references(&refs, &[], &[]).unwrap_err().to_string();
        assert!(err.starts_with("c.md:1:7: unknown figure `@fig-b`"), "{err}");
    }

    #[test]
    fn links_are_checked_unless_they_lead_to_another_site() {
        let at = Location::new("c.md", 2, 3);
        let files = ["index.html".to_string(), "data/stats.json".to_string()];
        let links = |url: &str| vec![(url.to_string(), at.clone())];
        for fine in ["index.html#a", "data/stats.json", "../index.html", "../../x/", "https://a.b"]
        {
            assert!(check_links(&links(fine), &files).is_ok(), "{fine}");
        }
        let err = check_links(&links("indx.html"), &files).unwrap_err().to_string();
        assert!(err.starts_with("c.md:2:3: link to `indx.html`, which the site does not have"));
        assert!(check_links(&links("./../x.html"), &files).is_err(), "only a leading ../ leaves");
    }

    #[test]
    fn links_to_folders_must_be_studies() {
        let at = Location::new("c.md", 2, 3);
        let studies = |folder: &str| folder == "../../x/";
        let links = |url: &str| vec![(url.to_string(), at.clone())];
        for fine in ["../../x/", "../../x/#a", "https://a.b/", "../index.html"] {
            assert!(check_studies(&links(fine), &studies).is_empty(), "{fine}");
        }
        let warned = check_studies(&links("../y/#a"), &studies);
        let text = warned[0].to_string();
        assert!(text.contains("link to `../y/#a`, which is no study: `../y/book.toml`"), "{text}");
    }
}
