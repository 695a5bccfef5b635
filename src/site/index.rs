//! The site's index page: every study's title, answer, period, date and
//! tags, and its headline claims as compact cards with their verdicts and
//! provenance marks; newest first, filtered by tag and sorted by the
//! site's script, searched on first use ([`super::search`]).

use std::collections::BTreeSet;

use super::config::SiteConfig;
use super::entry::Entry;

/// The index's file.
pub const FILE: &str = "index.html";

/// The built-in template of the index.
pub const TEMPLATE: &str = include_str!("../defaults/site/index.html");

/// The index of `entries` (in site.toml's order), newest first, under `base_url`.
pub fn render(
    config: &SiteConfig,
    entries: &[&Entry],
    base_url: Option<&str>,
) -> anyhow::Result<Vec<u8>> {
    let mut studies: Vec<&Entry> = entries.to_vec();
    // Newest first; undated last; then by title: what the script's "newest first" does.
    studies.sort_by(|a, b| {
        b.date
            .is_some()
            .cmp(&a.date.is_some())
            .then_with(|| b.date.cmp(&a.date))
            .then_with(|| a.title.cmp(&b.title))
    });
    let tags: BTreeSet<&str> =
        entries.iter().flat_map(|e| e.tags.iter().map(String::as_str)).collect();
    let [(css, _), _] = crate::render::html::shared_assets();
    let [(index_css, _), (index_js, _), (search_js, _)] = crate::render::html::index_assets();
    let description = config.description.clone().unwrap_or_else(|| {
        let titles: Vec<&str> = entries.iter().map(|e| e.title.as_str()).collect();
        format!("{} studies: {}", entries.len(), titles.join("; "))
    });
    let mut context = tera::Context::new();
    let site = serde_json::json!({ "title": config.title, "description": config.description, "author": config.author });
    context.insert("site", &site);
    context.insert("description", &description);
    context.insert("studies", &studies);
    context.insert("tags", &tags);
    context.insert("css", &css);
    context.insert("index_css", &index_css);
    context.insert("index_js", &index_js);
    context.insert("search_js", &search_js);
    context.insert("search", super::search::FILE);
    context.insert("base_url", &base_url);
    context.insert(
        "marked",
        &entries.iter().any(|e| e.claims.iter().any(|c| c.value.contains('\u{2020}'))),
    );
    context.insert("generator", &format!("report {}", env!("CARGO_PKG_VERSION")));
    let html = tera::Tera::one_off(TEMPLATE, &context, true).map_err(|e| {
        anyhow::anyhow!(
            "cannot render the site's index: {}",
            crate::diagnostic::error_chain(&e).join(": ")
        )
    })?;
    Ok(html.into_bytes())
}
