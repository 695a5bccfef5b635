//! Where the data come from, in words: the mark (†) of every number
//! derived from data that were not measured, the note that explains it,
//! a card's line on where its value comes from, and a chart's label. No
//! interval, p-value or significance is worded for such data.

use std::collections::BTreeMap;

use super::capitalised;
use crate::analysis::MetricValue;
use crate::config::{Config, Provenance};

/// The mark of a number derived from data that were not measured.
pub const MARK: &str = "\u{2020}";

/// The fields of a metric that are inference: none of them is written for
/// data that were not measured.
pub const INFERENTIAL: [&str; 5] = ["ci", "p", "significance", "interval", "model"];

/// The fields holding a number of the metric, which carry the mark.
const NUMBERS: [&str; 8] =
    ["value", "abs", "delta", "baseline", "candidate", "words", "range", "n"];

/// A metric's fields as its provenance allows: without the inferential
/// ones when its data were not measured, each number marked † unless it is
/// a published figure, `full` as its value and where it comes from, and
/// `provenance` naming it (`measured`, `published`, `reconstructed`, ...).
pub fn fields(m: &MetricValue, fields: &mut BTreeMap<&'static str, String>) {
    fields.insert("provenance", word(m).to_string());
    if m.provenance.measured() {
        return;
    }
    for field in INFERENTIAL {
        fields.remove(field);
    }
    let value = fields.get("value").cloned().unwrap_or_default();
    match &m.published {
        Some(_) => {
            fields.insert("full", format!("{value} (the published figure)"));
        }
        None => {
            for field in NUMBERS {
                if let Some(text) = fields.get_mut(field).filter(|t| !t.is_empty()) {
                    text.push_str(MARK);
                }
            }
            // A range names each configuration's value: each is marked.
            if let Some(range) = fields.get_mut("range") {
                *range = range.replace(" at ", &format!("{MARK} at "));
            }
            let full = format!("{value}{MARK} ({} data, not measured)", m.provenance.word());
            fields.insert("full", full);
        }
    }
}

/// `measured`, `published` (a published figure computed from data that
/// were not measured), or the data's provenance.
pub fn word(m: &MetricValue) -> &'static str {
    match (m.provenance, &m.published) {
        (Provenance::Measured, _) => "measured",
        (_, Some(_)) => "published",
        (p, None) => p.word(),
    }
}

/// What a card of data that were not measured shows instead of its
/// interval: `Published figure: the study's page` or `† Reconstructed
/// data, not measured`; `None` for measured data.
pub fn origin(m: &MetricValue) -> Option<String> {
    if m.provenance.measured() {
        return None;
    }
    Some(match &m.published {
        Some(p) => format!("Published figure: {}", p.source),
        None => format!("{MARK} {} data, not measured", capitalised(m.provenance.word())),
    })
}

/// Why an inferential field of a metric is not written, for the error of
/// a statistic that asks for it.
pub fn refused(field: &str, provenance: &str) -> Option<String> {
    (INFERENTIAL.contains(&field) && provenance != "measured").then(|| {
        format!(
            "no `{field}` is drawn from data that were not measured (this statistic's are {provenance})"
        )
    })
}

/// The note on each kind of data that were not measured, one sentence
/// per provenance and note: `† Reconstructed data (lammps, osu_bw): note`.
pub fn notes(config: &Config) -> Vec<String> {
    let mut grouped: BTreeMap<(Provenance, &str), Vec<&str>> = BTreeMap::new();
    for (name, d) in config.data.iter().filter(|(_, d)| !d.provenance.measured()) {
        let note = d.provenance_note.as_deref().unwrap_or_default().trim();
        grouped.entry((d.provenance, note)).or_default().push(name);
    }
    grouped
        .into_iter()
        .map(|((p, note), tables)| {
            let tables = super::join(&tables.iter().map(|t| t.to_string()).collect::<Vec<_>>());
            let kind = capitalised(p.word());
            let note = note.trim_end_matches('.');
            format!("{MARK} {kind} data ({tables}), not measured: {note}.")
        })
        .collect()
}

/// A chart's label when its data were not measured: `Illustrative:
/// reconstructed data, not measured†.`; `None` for measured data.
pub fn chart_label(provenance: Provenance) -> Option<String> {
    (!provenance.measured())
        .then(|| format!("Illustrative: {} data, not measured{MARK}.", provenance.word()))
}

/// What a chart of data that were not measured says of its error bars.
pub fn chart_intervals(provenance: Provenance) -> String {
    format!(
        "No error bars: the runs are {}, and their spread is no one\u{2019}s.",
        provenance.word()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reconstructed metric's numbers are marked and its inference gone;
    /// a published one is stated plainly; a measured one is untouched.
    #[test]
    fn fields_follow_provenance() {
        let mut m = MetricValue::example(0.1);
        let base = BTreeMap::from([
            ("value", "+10.0%".to_string()),
            ("ci", "95% CI +1 to +2%".to_string()),
            ("p", "p = 0.01".to_string()),
        ]);
        let mut measured = base.clone();
        fields(&m, &mut measured);
        assert_eq!(measured["ci"], base["ci"]);
        assert_eq!(measured["provenance"], "measured");
        m.provenance = Provenance::Reconstructed;
        let mut marked = base.clone();
        fields(&m, &mut marked);
        assert_eq!(marked["value"], "+10.0%\u{2020}");
        assert!(!marked.contains_key("ci") && !marked.contains_key("p"));
        assert_eq!(marked["full"], "+10.0%\u{2020} (reconstructed data, not measured)");
        m.published = Some(crate::config::Published {
            metric: "m".into(),
            value: "+10.0%".into(),
            what: None,
            source: "S".into(),
        });
        let mut published = base.clone();
        fields(&m, &mut published);
        assert_eq!(published["value"], "+10.0%");
        assert_eq!(published["provenance"], "published");
        assert_eq!(origin(&m).unwrap(), "Published figure: S");
    }
}
