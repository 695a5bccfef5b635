//! One change point cited inline, `{{ history(version="2.2.1") }}`: its
//! sentence and each of its figures, as the page's table writes them.

use super::facts::Fields;
use super::history::{short, table_row, texts};
use super::labels::Labels;
use crate::analysis::history::HistoryAnalysis;
use crate::format;

/// The change point whose new level begins at `version` (its name, or a
/// commit as shown), as fields: its sentence (`words`), `shift`, `ci`,
/// `p` (Holm), `verdict` and `range`. `Err` with the versions that have a
/// change point, in order, when none or more than one series changes there.
pub fn change(
    history: &HistoryAnalysis,
    labels: &Labels,
    version: &str,
) -> Result<Fields, Vec<String>> {
    let sentences = texts(history, labels);
    let mut found = Vec::new();
    let mut all = Vec::new();
    for (series, text) in history.series.iter().zip(&sentences) {
        for (c, words) in series.changes.iter().zip(&text.changes) {
            let name = short(&c.version);
            if c.version == version || name == version {
                found.push((c, words));
            }
            all.push(name);
        }
    }
    let [(c, words)] = found[..] else { return Err(all) };
    let cells = table_row(history, c);
    let percent = |v: f64| format::minus(&format::signed_percent(v, 1));
    let ci = c.ci.map_or(String::new(), |[lo, hi]| format!("{} to {}", percent(lo), percent(hi)));
    Ok(Fields::from([
        ("words", words.clone()),
        ("shift", percent(c.shift)),
        ("ci", ci),
        ("p", format::p_value(c.p_holm)),
        ("verdict", cells[4].clone()),
        ("range", cells[1].clone()),
    ]))
}
