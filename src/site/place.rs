//! A study's place in a site of studies: where it is published, and what
//! its links to the other studies lead to. The pipeline asks it of each
//! link to a folder ([`Place::resolve`]); [`super::links`] rewrites the
//! document with the answers.

use std::collections::BTreeMap;

/// One study of the site, as the others see it.
#[derive(Debug, Clone, Default)]
pub struct Neighbour {
    /// Where it is published, relative to the site's root, with a trailing
    /// slash: `examples/usernetes/`.
    pub url: String,
    /// Its title.
    pub title: String,
    /// Its claims by metric name: the label and value a reference to one
    /// shows (`Throughput at 32 cores: 8.8% faster`).
    pub claims: BTreeMap<String, String>,
}

/// Where a study stands in the site, and the site around it.
#[derive(Debug, Clone, Default)]
pub struct Place {
    /// The study's folder relative to site.toml, slashed, `""` for that folder.
    pub folder: String,
    /// Where it is published, relative to the site's root, with a trailing slash.
    pub url: String,
    /// The site's title, which "Back to the work" returns to.
    pub title: String,
    /// Every study of the site (this one included) by its folder.
    pub studies: BTreeMap<String, Neighbour>,
}

/// Why a link to a folder leads nowhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dead {
    /// The folder is no study of the site; its path from site.toml, if
    /// it stays inside the site.
    NoStudy(Option<String>),
    /// The study has no claim of this name; the names it has.
    NoClaim(String, Vec<String>),
}

/// A link to another study, resolved: the URL to write and, for a
/// reference to a named claim, the text an empty link shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The folder of the study it leads to, from site.toml.
    pub folder: String,
    /// The link relative to this study's page.
    pub url: String,
    /// `Throughput at 32 cores: 8.8% faster`, for `#metric-NAME`.
    pub claim: Option<String>,
}

/// The prefix of a card's id on the page: `#metric-NAME` names a claim.
pub const CLAIM: &str = "metric-";

impl Place {
    /// From this study's page back to the site's root: `../../`.
    pub fn root(&self) -> String {
        "../".repeat(self.url.matches('/').count())
    }

    /// Whether `url`, as written in this study's content, is a link to a
    /// folder (another study): relative, ending in `/` before its fragment.
    pub fn is_folder_link(url: &str) -> bool {
        let target = url.split(['#', '?']).next().unwrap_or_default();
        target.ends_with('/') && !target.contains(':') && !target.starts_with('/')
    }

    /// Resolve a link to a folder written in this study: `None` when it is
    /// no such link, else where it leads in the site or why it is dead.
    pub fn resolve(&self, url: &str) -> Option<Result<Resolved, Dead>> {
        if !Self::is_folder_link(url) {
            return None;
        }
        let (target, fragment) = match url.split_once('#') {
            Some((t, f)) => (t, Some(f)),
            None => (url, None),
        };
        let target = target.split('?').next().unwrap_or_default();
        let Some(folder) = join(&self.folder, target) else {
            return Some(Err(Dead::NoStudy(None)));
        };
        let Some(study) = self.studies.get(&folder) else {
            return Some(Err(Dead::NoStudy(Some(folder))));
        };
        let mut claim = None;
        if let Some(name) = fragment.and_then(|f| f.strip_prefix(CLAIM)) {
            match study.claims.get(name) {
                Some(text) => claim = Some(text.clone()),
                None => {
                    return Some(Err(Dead::NoClaim(
                        name.to_string(),
                        study.claims.keys().cloned().collect(),
                    )));
                }
            }
        }
        let mut url = format!("{}{}", self.root(), study.url);
        if url.is_empty() {
            url.push_str("./");
        }
        if let Some(fragment) = fragment {
            url = format!("{url}#{fragment}");
        }
        Some(Ok(Resolved { folder, url, claim }))
    }
}

/// `folder` joined with the relative `target`, `.` and `..` resolved,
/// slashed, without a trailing slash; `None` when it leaves the site.
pub fn join(folder: &str, target: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in folder.split('/').chain(target.split('/')) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site() -> Place {
        let mut studies = BTreeMap::new();
        let claims = BTreeMap::from([("speed".to_string(), "Speed: 2.0% faster".to_string())]);
        studies.insert("".into(), Neighbour { url: "top/".into(), ..Default::default() });
        studies.insert(
            "examples/a".into(),
            Neighbour { url: "examples/a/".into(), title: "A".into(), claims },
        );
        Place { folder: "".into(), url: "top/".into(), title: "S".into(), studies }
    }

    #[test]
    fn links_lead_from_the_page_to_the_other_study() {
        let top = site();
        // From top/ to examples/a/: up one, then down.
        let to_a = top.resolve("examples/a/").unwrap().unwrap();
        assert_eq!(to_a.url, "../examples/a/");
        let claim = top.resolve("examples/a/#metric-speed").unwrap().unwrap();
        let speed = Some("Speed: 2.0% faster".to_string());
        assert_eq!((claim.url.as_str(), claim.claim), ("../examples/a/#metric-speed", speed));
        let a = Place { folder: "examples/a".into(), url: "examples/a/".into(), ..top.clone() };
        assert_eq!(a.resolve("../../").unwrap().unwrap().url, "../../top/");
        assert_eq!(a.resolve("./").unwrap().unwrap().url, "../../examples/a/");
    }

    #[test]
    fn dead_links_say_why() {
        let top = site();
        assert_eq!(top.resolve("examples/b/"), Some(Err(Dead::NoStudy(Some("examples/b".into())))));
        assert_eq!(top.resolve("../"), Some(Err(Dead::NoStudy(None))));
        assert_eq!(
            top.resolve("examples/a/#metric-sped"),
            Some(Err(Dead::NoClaim("sped".into(), vec!["speed".into()])))
        );
        for other in ["page.html", "https://x.org/", "/abs/", "#here"] {
            assert_eq!(top.resolve(other), None, "{other}");
        }
    }
}
