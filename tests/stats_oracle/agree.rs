//! One claim, one verdict, everywhere: each headline's verdict as its card
//! on the page, its row of Table 1 (the page's and the paper's), the
//! reader's caveats and stats.json state it, checked against stats.json's
//! claim (which the oracle checks): the card's word is the claim's verdict,
//! "significant" on it exactly when the claim is a decided difference,
//! "(inconclusive)" and "(negligible)" in Table 1 exactly for those claims,
//! the reader's inconclusive caveat only then, and a headline one run
//! carries noted on its card ("significant only with …"), marked "(one
//! run)" in Table 1 and stated in the reader's caveats (when they have
//! room), each exactly when its influence carries it.

use std::path::Path;

use serde_json::Value;

/// What a build of the study at `root` writes, made in process without the
/// PDF: its page, the paper's book.json, stats.json and the computed tables.
pub struct Outputs {
    /// The page, `index.html`.
    pub page: String,
    /// The paper's book.json.
    pub book: Value,
    /// stats.json.
    pub stats: Value,
    /// The computed tables, as the document holds them.
    pub tables: Vec<report::analysis::metrics::tables::Computed>,
}

/// The [`Outputs`] of the study at `root`.
pub fn outputs(root: &Path) -> Result<Outputs, String> {
    let project = report::project::load(root).map_err(|e| format!("{e:?}"))?;
    let analyzed = report::pipeline::analyze(&project).map_err(|e| format!("{e:?}"))?;
    let mut timings = report::pipeline::Timings::default();
    let prepared = report::pipeline::prepare(&project, &analyzed, None, &mut timings)
        .map_err(|e| format!("{e:?}"))?;
    let study = prepared.resolved(&project, &analyzed);
    let (site, _) = report::pipeline::quick(&study, &mut timings).map_err(|e| format!("{e:?}"))?;
    let page = site.files.get(Path::new("index.html")).ok_or("no index.html")?;
    let page = String::from_utf8(page.clone()).map_err(|e| e.to_string())?;
    let (paper, _) = report::pipeline::typst_source(&project, &analyzed, &prepared)
        .map_err(|e| format!("{e:?}"))?;
    let book = paper.files.get(Path::new("book.json")).ok_or("no book.json in the paper")?;
    let book = serde_json::from_slice(book).map_err(|e| e.to_string())?;
    let stats =
        serde_json::from_slice(report::render::json::bytes(&study)).map_err(|e| e.to_string())?;
    let tables = prepared.document.computed.iter().map(|w| w.table.clone()).collect();
    Ok(Outputs { page, book, stats, tables })
}

/// The text between `start` (after it) and the next `end` in `text`.
fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    Some(&text[from..from + text[from..].find(end)?])
}

/// The page's cards, in order: each `<li class="card…">` to its `</li>`.
fn cards(page: &str) -> Vec<&str> {
    let Some(band) = between(page, "<ul class=\"cards\"", "</ul>") else { return Vec::new() };
    band.split("<li class=\"card").skip(1).collect()
}

/// Table 1's rows as the page has them: each row's first cell.
fn table_rows(page: &str) -> Vec<&str> {
    let Some(table) = between(page, "id=\"tbl-headline\"", "</table>") else { return Vec::new() };
    table.split("<th scope=\"row\">").skip(1).filter_map(|r| r.split("</th>").next()).collect()
}

/// Typographic quotes as plain ones: the paper's book.json has them.
fn plain_quotes(text: &str) -> String {
    text.replace(['\u{2019}', '\u{2018}'], "'").replace(['\u{201c}', '\u{201d}'], "\"")
}

/// Every headline's claim in the page, the paper and stats.json against
/// its verdict in stats.json.
pub fn check(Outputs { page, book, stats, .. }: &Outputs) {
    let headline: Vec<&Value> =
        stats["metrics"].as_array().unwrap().iter().filter(|m| m["headline"] == true).collect();
    let cards = cards(page);
    let rows = table_rows(page);
    assert_eq!(cards.len(), headline.len(), "cards of the headline metrics");
    assert_eq!(rows.len(), headline.len(), "Table 1's rows");
    let limitations = stats["limitations"].as_array().unwrap();
    let room = limitations.len() < 7;
    for ((m, card), row) in headline.iter().zip(&cards).zip(&rows) {
        let name = m["name"].as_str().unwrap();
        if m["compare"] == "summary" {
            continue;
        }
        let verdict = between(card, "<p class=\"verdict\">", "</p>").unwrap_or("");
        let claim = m["claim"]["verdict"].as_str().unwrap_or("");
        let significant = &m["significant"];
        // The card's word is the claim's verdict (docs/methods.md, Verdicts).
        let word = match claim {
            "better" | "worse" if m["exact"] == true => "in every run",
            "same" => "no change",
            other => other,
        };
        let shown = verdict.strip_prefix("<span class=\"ns\">").unwrap_or(verdict);
        assert!(shown.starts_with(word), "{name}: card {verdict:?}, claim {claim}");
        let said_significant = verdict.contains("<span class=\"sig\">significant</span>");
        let decided = matches!(claim, "better" | "worse") && m["exact"] != true;
        assert_eq!(said_significant, decided, "{name}: card {verdict:?}, claim {claim}");
        if decided {
            assert_eq!(*significant, true, "{name}: {claim} without a significant test");
        }
        for mark in ["inconclusive", "negligible"] {
            let marked = row.contains(&format!("({mark})"));
            assert_eq!(marked, claim == mark, "{name}: Table 1 {row:?}, claim {claim}");
        }
        let label = unescape(row.split(" (").next().unwrap_or(row));
        let said_ns = format!("{label}: the difference, ");
        let ns_caveat = limitations.iter().any(|l| {
            let text = l["text"].as_str().unwrap_or("");
            l["kind"] == "not-significant" && text.starts_with(&said_ns)
        });
        if ns_caveat {
            assert_eq!(claim, "inconclusive", "{name}: a reader's caveat says inconclusive");
        }
        carried(name, m, card, row, (limitations, room));
    }
    paper(book, &rows, limitations);
}

/// The paper's Table 1 and caveats against the page's rows and
/// stats.json's reader's caveats, word for word.
fn paper(book: &Value, rows: &[&str], limitations: &[Value]) {
    let paper_rows: Vec<String> = book["headline_table"]["rows"]
        .as_array()
        .map(|r| r.iter().map(|r| plain_quotes(r["metric"].as_str().unwrap())).collect())
        .unwrap_or_default();
    let page_rows: Vec<String> = rows.iter().map(|r| plain_quotes(&unescape(r))).collect();
    assert_eq!(paper_rows, page_rows, "the paper's Table 1 against the page's");
    let paper_caveats: Vec<String> = book["limitations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| plain_quotes(l["text"].as_str().unwrap()))
        .collect();
    let listed: Vec<String> =
        limitations.iter().map(|l| plain_quotes(l["text"].as_str().unwrap())).collect();
    assert_eq!(paper_caveats, listed, "the paper's caveats against stats.json's");
}

/// HTML's escapes of a label back to text.
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#x2F;", "/")
        .replace("&amp;", "&")
}

/// A headline one run carries: noted on its card, marked in Table 1 and
/// stated in the reader's caveats (when they have room), exactly then,
/// each worded by whether the run changes the verdict.
fn carried(name: &str, m: &Value, card: &str, row: &str, (limitations, room): (&[Value], bool)) {
    let found = &m["influence"];
    let carries = found["carries"] == true;
    let note = between(card, "<p class=\"carried\">", "</p>");
    assert_eq!(note.is_some(), carries, "{name}: card's note {note:?}, influence {found}");
    assert_eq!(row.contains("(one run)"), carries, "{name}: Table 1 {row:?}");
    let Some(note) = note else { return };
    let flips = found["changes_verdict"] == true;
    let (only_with, only_because) =
        (note.starts_with("significant only with "), note.starts_with("not significant only"));
    assert_eq!(only_with, flips && m["significant"] == true, "{name}: {note}");
    assert_eq!(only_because, flips && m["significant"] == false, "{name}: {note}");
    let without = &found["without"]["significant"];
    if flips {
        assert_ne!(*without, m["significant"], "{name}: a changed verdict {found}");
    }
    let stated = limitations.iter().any(|l| {
        l["kind"] == "influential"
            && l["text"].as_str().is_some_and(|t| t.contains(&unescape(note)))
    });
    if room {
        assert!(stated, "{name}: no reader's caveat says {note:?}");
    }
}
