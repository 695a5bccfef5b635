//! The site's Atom feed (`feed.xml`): one entry per study, and one per
//! change of its claims since the build before (a new study, a headline's
//! value or verdict changed), read from that build's `claims.json` and
//! `changes.json` in the output folder.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::entry::{Claim, Entry};

/// The feed's file.
pub const FILE: &str = "feed.xml";

/// Every study's headline claims, for the next build to compare with.
pub const CLAIMS: &str = "claims.json";

/// The changes so far, newest first, which the next build carries on.
pub const CHANGES: &str = "changes.json";

/// How many changes the feed keeps.
const KEPT: usize = 100;

/// A change of the site's claims.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// When (RFC 3339): the build's date.
    pub date: String,
    /// The study, where it is published.
    pub url: String,
    /// The claim's name, empty for a new study.
    pub claim: String,
    /// What changed, in words: `New study: TITLE`, `Label: 8.8% faster
    /// (better) → 2.0% faster (inconclusive)`.
    pub text: String,
}

/// The build before: its claims by study, and its changes.
#[derive(Debug, Clone, Default)]
pub struct Previous {
    /// Each study's claims, by where it is published.
    pub claims: BTreeMap<String, Vec<Claim>>,
    /// The changes it listed.
    pub changes: Vec<Change>,
}

impl Previous {
    /// The build before, from its `claims.json` and `changes.json`; `None`
    /// without the claims (a first build, or an output folder of another kind).
    pub fn of(claims: Option<&[u8]>, changes: Option<&[u8]>) -> Option<Self> {
        let claims = serde_json::from_slice(claims?).ok()?;
        let changes = changes.and_then(|c| serde_json::from_slice(c).ok()).unwrap_or_default();
        Some(Previous { claims, changes })
    }
}

/// The build's date as RFC 3339: `SOURCE_DATE_EPOCH`, else the latest
/// study's date at midnight UTC.
pub fn date(epoch: Option<i64>, entries: &[&Entry]) -> String {
    let from_epoch =
        epoch.and_then(|s| time::OffsetDateTime::from_unix_timestamp(s).ok()).map(|t| {
            format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
                t.year(),
                t.month() as u8,
                t.day(),
                t.hour(),
                t.minute(),
                t.second()
            )
        });
    from_epoch.unwrap_or_else(|| {
        let latest = entries.iter().filter_map(|e| e.date.as_deref()).max().unwrap_or("1970-01-01");
        format!("{latest}T00:00:00Z")
    })
}

/// `claims.json`: each study's headline claims by where it is published.
pub fn claims_json(entries: &[&Entry]) -> Vec<u8> {
    let claims: BTreeMap<&str, &Vec<Claim>> =
        entries.iter().map(|e| (e.url.as_str(), &e.claims)).collect();
    let mut bytes = serde_json::to_vec_pretty(&claims).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// `changes.json`.
pub fn changes_json(changes: &[Change]) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(changes).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// The changes since `previous` on `date`, before those it listed, newest
/// first; without a build before, each study is new at its own date.
pub fn changes(previous: Option<&Previous>, entries: &[&Entry], date: &str) -> Vec<Change> {
    let mut changes = Vec::new();
    for entry in entries {
        let new = |date: String| Change {
            date,
            url: entry.url.clone(),
            claim: String::new(),
            text: format!("New study: {}", entry.title),
        };
        let Some(previous) = previous else {
            changes.push(new(entry
                .date
                .as_deref()
                .map_or_else(|| date.to_string(), |d| format!("{d}T00:00:00Z"))));
            continue;
        };
        let Some(before) = previous.claims.get(&entry.url) else {
            changes.push(new(date.to_string()));
            continue;
        };
        for claim in &entry.claims {
            let Some(old) = before.iter().find(|c| c.name == claim.name) else { continue };
            if old.value != claim.value || old.verdict != claim.verdict {
                let text = format!(
                    "{}: {} ({}) → {} ({})",
                    claim.label, old.value, old.verdict, claim.value, claim.verdict
                );
                changes.push(Change {
                    date: date.to_string(),
                    url: entry.url.clone(),
                    claim: claim.name.clone(),
                    text,
                });
            }
        }
    }
    changes.extend(previous.map(|p| p.changes.clone()).unwrap_or_default());
    changes.sort_by(|a, b| {
        b.date.cmp(&a.date).then_with(|| a.url.cmp(&b.url)).then_with(|| a.claim.cmp(&b.claim))
    });
    changes.dedup();
    changes.truncate(KEPT);
    changes
}

/// `feed.xml`: the studies, then the changes, each an Atom entry.
pub fn atom(site: &super::Loaded, entries: &[&Entry], changes: &[Change], date: &str) -> Vec<u8> {
    let urls = Urls { base: site.base_url.as_deref().unwrap_or_default() };
    let e = |s: &str| xml(s);
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n",
    );
    xml += &format!(
        "<title>{}</title>\n<id>{}</id>\n<updated>{date}</updated>\n",
        e(&site.config.title),
        e(&urls.id(""))
    );
    xml += &format!(
        "<link rel=\"alternate\" href=\"{}\"/>\n<link rel=\"self\" href=\"{}\"/>\n",
        e(&urls.href("")),
        e(&urls.href(FILE))
    );
    let author = site.config.author.as_ref().unwrap_or(&site.config.title);
    xml += &format!("<author><name>{}</name></author>\n", e(author));
    for entry in entries {
        let updated =
            entry.date.as_deref().map_or_else(|| date.to_string(), |d| format!("{d}T00:00:00Z"));
        let claims: Vec<String> = entry.claims.iter().map(Claim::text).collect();
        let summary = [entry.answer.clone(), claims.join("; ")].join(" ");
        let id = urls.id(&entry.url);
        xml += &item(&entry.title, &id, &urls.href(&entry.url), &updated, summary.trim());
    }
    for change in changes {
        let anchor = if change.claim.is_empty() {
            String::new()
        } else {
            format!("#metric-{}", change.claim)
        };
        let target = format!("{}{anchor}", change.url);
        let id = format!("{}@{}", urls.id(&target), change.date);
        xml += &item(&change.text, &id, &urls.href(&target), &change.date, &change.text);
    }
    xml += "</feed>\n";
    xml.into_bytes()
}

/// The feed's ids and links, under the site's base URL if it has one.
struct Urls<'a> {
    /// The base URL with its trailing slash, or empty.
    base: &'a str,
}

impl Urls<'_> {
    /// The id of the thing at `path`: its URL, else a URN.
    fn id(&self, path: &str) -> String {
        if self.base.is_empty() {
            format!("urn:report-site:{path}")
        } else {
            format!("{}{path}", self.base)
        }
    }

    /// A link to `path`: absolute under the base URL, else relative to the
    /// feed, as Atom allows.
    fn href(&self, path: &str) -> String {
        match (self.base.is_empty(), path.is_empty()) {
            (true, true) => "./".to_string(),
            (true, false) => path.to_string(),
            (false, _) => format!("{}{path}", self.base),
        }
    }
}

/// One Atom entry.
fn item(title: &str, id: &str, href: &str, updated: &str, summary: &str) -> String {
    format!(
        "<entry>\n<title>{}</title>\n<id>{}</id>\n<link href=\"{}\"/>\n<updated>{}</updated>\n<summary>{}</summary>\n</entry>\n",
        xml(title),
        xml(id),
        xml(href),
        xml(updated),
        xml(summary)
    )
}

/// `text` escaped for XML text and attribute values.
fn xml(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(url: &str, value: &str, verdict: &str) -> Entry {
        let claim = Claim {
            name: "m".into(),
            label: "Speed".into(),
            value: value.into(),
            verdict: verdict.into(),
            tone: String::new(),
        };
        Entry {
            url: url.into(),
            title: url.into(),
            answer_html: String::new(),
            answer: String::new(),
            period: None,
            date: Some("2025-01-02".into()),
            tags: vec![],
            claims: vec![claim],
            text: String::new(),
            pdf: "paper.pdf".into(),
        }
    }

    #[test]
    fn a_changed_value_or_verdict_and_a_new_study_are_changes() {
        let before = [entry("a/", "2.0% faster", "better")];
        let claims: BTreeMap<String, Vec<Claim>> =
            serde_json::from_slice(&claims_json(&before.iter().collect::<Vec<_>>())).unwrap();
        let previous = Previous { claims, changes: vec![] };
        let now = [entry("a/", "2.0% faster", "inconclusive"), entry("b/", "1", "")];
        let changes =
            changes(Some(&previous), &now.iter().collect::<Vec<_>>(), "2025-02-03T00:00:00Z");
        let texts: Vec<&str> = changes.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            texts,
            ["Speed: 2.0% faster (better) → 2.0% faster (inconclusive)", "New study: b/"]
        );
        let same = super::changes(
            Some(&previous),
            &before.iter().collect::<Vec<_>>(),
            "2025-02-03T00:00:00Z",
        );
        assert!(same.is_empty(), "{same:?}");
    }
}
