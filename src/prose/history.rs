//! A history's change points in words (`analysis::history`): where, how
//! much and why each change is, the candidates the runs could not decide,
//! the outliers, and a series without a change, for the page, the paper
//! and stats.json alike.

use serde::Serialize;

use super::labels::Labels;
use crate::analysis::findings::claim::Verdict;
use crate::analysis::history::{Change, HistoryAnalysis, Series};
use crate::format;

/// A series' sentences.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SeriesText {
    /// The series' id, as the analysis names it.
    pub id: String,
    /// Its configuration in words (empty for a table without `group-by`).
    pub configuration: String,
    /// One sentence per change point, in order; or that there is none.
    pub changes: Vec<String>,
    /// One sentence per candidate the runs could not decide.
    pub inconclusive: Vec<String>,
    /// One sentence for the outliers, if any.
    pub outliers: Option<String>,
}

/// Every series of `history` in words.
pub fn texts(history: &HistoryAnalysis, labels: &Labels) -> Vec<SeriesText> {
    history.series.iter().map(|s| series(history, s, labels)).collect()
}

/// Counts of the change points: found, regressions not acknowledged,
/// acknowledged, undecided.
pub fn counts(history: &HistoryAnalysis) -> [usize; 4] {
    let changes = history.series.iter().flat_map(|s| &s.changes);
    let regressions =
        changes.clone().filter(|c| c.claim.verdict == Verdict::Worse && c.acknowledged.is_none());
    let acknowledged = changes.clone().filter(|c| c.acknowledged.is_some());
    let undecided = history.series.iter().map(|s| s.inconclusive.len()).sum();
    [changes.count(), regressions.count(), acknowledged.count(), undecided]
}

/// The study's history in one paragraph: each series' sentences.
pub fn paragraph(history: &HistoryAnalysis, labels: &Labels) -> String {
    let mut sentences = Vec::new();
    for text in texts(history, labels) {
        sentences.extend(text.changes);
        sentences.extend(text.inconclusive);
        sentences.extend(text.outliers);
    }
    sentences.extend(unjudged(history, labels));
    sentences.join(" ")
}

/// The last versions with runs at which no change can begin yet: a change
/// needs `min-versions` versions with runs from where it begins, so a
/// shift at a series' last `min-versions − 1` is not judged until later
/// versions are measured. One sentence when every series that can be
/// tested at all ends on the same versions, else one per such series.
fn unjudged(history: &HistoryAnalysis, labels: &Labels) -> Vec<String> {
    let last = history.min_versions.saturating_sub(1);
    if last == 0 || !history.measured {
        return Vec::new();
    }
    let tails: Vec<(&Series, Vec<String>)> = history
        .series
        .iter()
        .filter_map(|s| {
            let measured: Vec<usize> = (0..s.points.len()).filter(|&i| s.points[i].n > 0).collect();
            let tail = measured.get(measured.len().checked_sub(last)?..)?;
            let names = tail.iter().map(|&i| short(&history.versions[i].version)).collect();
            (measured.len() >= 2 * history.min_versions).then_some((s, names))
        })
        .collect();
    let sentence = |subject: Option<String>, names: &[String]| {
        let which = match names {
            [one] => format!("the last version with runs ({one}) cannot"),
            _ => format!(
                "the last {} versions with runs ({}) cannot",
                format::count(names.len()),
                super::join(names)
            ),
        };
        let which = match subject {
            Some(subject) => format!("In {subject}, {which}"),
            None => super::capitalised(&which),
        };
        format!(
            "{which} yet begin a change: one needs {} versions with runs from where it begins, so a shift there is judged only once later versions are measured.",
            format::count(history.min_versions)
        )
    };
    if tails.windows(2).all(|w| w[0].1 == w[1].1) {
        return tails.first().map(|(_, names)| sentence(None, names)).into_iter().collect();
    }
    tails.iter().map(|(s, names)| sentence(Some(subject(history, s, labels)), names)).collect()
}

/// What a series measures, in words: the column, at its configuration.
fn subject(history: &HistoryAnalysis, s: &Series, labels: &Labels) -> String {
    let file = history.file.as_str();
    let configuration = labels.values(file, &s.config);
    let what = labels.column(file, &history.column);
    if configuration.is_empty() { what } else { format!("{what} at {configuration}") }
}

/// A series' sentences.
fn series(history: &HistoryAnalysis, s: &Series, labels: &Labels) -> SeriesText {
    let configuration = labels.values(history.file.as_str(), &s.config);
    let subject = subject(history, s, labels);
    let gaps = s.points.iter().filter(|p| p.n == 0).count();
    let mut changes: Vec<String> = s.changes.iter().map(|c| change(history, &subject, c)).collect();
    if !history.measured {
        changes.push(format!(
            "No change point is sought in {subject}: its values were not measured, and inference is drawn only from measured runs."
        ));
    } else if changes.is_empty() {
        let measured = s.points.len() - gaps;
        let gaps = match gaps {
            0 => String::new(),
            1 => ", one version without runs".to_string(),
            n => format!(", {} versions without runs", format::count(n)),
        };
        changes.push(format!(
            "No change point in {subject} across {} versions with runs{gaps}.",
            format::count(measured)
        ));
    }
    let inconclusive = s.inconclusive.iter().map(|c| undecided(history, &subject, c)).collect();
    let outliers = (!s.outliers.is_empty()).then(|| {
        let each: Vec<String> = s
            .outliers
            .iter()
            .map(|o| format!("{} ({})", short(&o.version), format::minus(&format::signed_percent(o.shift, 1))))
            .collect();
        if each.len() == 1 {
            format!("In {subject}, version {} stands apart from the versions around it: an outlier, not a change.", each[0])
        } else {
            format!(
                "In {subject}, versions {} stand apart from the versions around them: outliers, not changes.",
                super::join(&each)
            )
        }
    });
    SeriesText { id: s.id.clone(), configuration, changes, inconclusive, outliers }
}

/// A version as shown: a commit hash abbreviated to 10 digits, else the name.
pub fn short(version: &str) -> String {
    let hex = version.len() == 40 && version.bytes().all(|b| b.is_ascii_hexdigit());
    if hex { version[..10].to_string() } else { version.to_string() }
}

/// Where a change begins: its version, and the range when wider.
fn place(history: &HistoryAnalysis, c: &Change) -> String {
    let name = |i: usize| short(&history.versions[i].version);
    if c.range[0] == c.range[1] {
        format!("from version {}", name(c.at))
    } else {
        format!(
            "from version {} (somewhere from {} to {})",
            name(c.at),
            name(c.range[0]),
            name(c.range[1])
        )
    }
}

/// A change found, in words.
fn change(history: &HistoryAnalysis, subject: &str, c: &Change) -> String {
    let word = word(c);
    let interval = interval(c.ci);
    let mut text = format!(
        "{}{} changed by {}{interval} {}, {word}: {} runs over {} versions before against {} over {} after, {} (Holm).",
        subject[..1].to_uppercase(),
        &subject[1..],
        format::minus(&format::signed_percent(c.shift, 1)),
        place(history, c),
        format::count(c.runs[0]),
        format::count(c.versions[0]),
        format::count(c.runs[1]),
        format::count(c.versions[1]),
        format::p_value(c.p_holm),
    );
    if !c.coincides.is_empty() {
        let each: Vec<String> = c
            .coincides
            .iter()
            .map(|e| format!("{} ({} to {})", e.column, e.before, e.after))
            .collect();
        text.push_str(&format!(
            " It coincides with a change of {}, so it need not be the code's.",
            super::join(&each)
        ));
    }
    if !c.subjects.is_empty() {
        let quoted: Vec<String> = c.subjects.iter().map(|s| format!("“{s}”")).collect();
        let noun = if quoted.len() == 1 { "The commit" } else { "The commits" };
        text.push_str(&format!(" {noun} where it lies: {}.", quoted.join("; ")));
    }
    if let Some(reason) = &c.acknowledged {
        text.push_str(&format!(" Acknowledged: {reason}; not counted as a regression."));
    }
    text
}

/// A change point as a chart marks it, for its tooltip and description:
/// "Change of −41.5% (95% CI −46.5% to −35.9%) from version 2.2.1, an
/// improvement, p = 0.0001 (Holm)".
pub fn mark(history: &HistoryAnalysis, c: &Change) -> String {
    let word = word(c);
    format!(
        "Change of {}{} {}, {word}, {} (Holm)",
        format::minus(&format::signed_percent(c.shift, 1)),
        interval(c.ci),
        place(history, c),
        format::p_value(c.p_holm),
    )
}

/// What a change is: "a regression", "an acknowledged regression" or "an improvement".
pub fn word(c: &Change) -> &'static str {
    match (c.claim.verdict, c.acknowledged.is_some()) {
        (Verdict::Worse, false) => "a regression",
        (Verdict::Worse, true) => "an acknowledged regression",
        _ => "an improvement",
    }
}

/// A shift's 95% interval in parentheses, or nothing.
fn interval(ci: Option<[f64; 2]>) -> String {
    ci.map_or(String::new(), |[lo, hi]| {
        format!(
            " (95% CI {} to {})",
            format::minus(&format::signed_percent(lo, 1)),
            format::minus(&format::signed_percent(hi, 1))
        )
    })
}

/// A candidate the runs could not decide, in words.
fn undecided(history: &HistoryAnalysis, subject: &str, c: &Change) -> String {
    let more = c.claim.more_runs.unwrap_or(0);
    format!(
        "Inconclusive in {subject} {}: a shift of {} on {} and {} runs, which cannot reach p ≤ {}; needs {} more {} on each side.",
        place(history, c),
        format::minus(&format::signed_percent(c.shift, 1)),
        format::count(c.runs[0]),
        format::count(c.runs[1]),
        format::significant(history.level, 1),
        format::count(more),
        if more == 1 { "run" } else { "runs" },
    )
}

/// The change points of every series as a table's header and rows, in
/// order of series then version: the version where the new level begins,
/// the range where it may, the shift with its 95% interval, Holm's p, the
/// verdict, the environment columns that changed with it and the authors'
/// acknowledgement; the candidates the runs could not decide too, and one
/// row saying so when there is neither.
pub fn table(history: &HistoryAnalysis, labels: &Labels) -> (Vec<String>, Vec<Vec<String>>) {
    let grouped = history.series.iter().any(|s| !s.config.is_empty());
    let mut header = Vec::new();
    if grouped {
        header.push("Series".to_string());
    }
    let columns = [
        "Version",
        "Range",
        "Shift (95% CI)",
        "p (Holm)",
        "Verdict",
        "Coincides with",
        "Acknowledged",
    ];
    header.extend(columns.map(String::from));
    let mut rows = Vec::new();
    for s in &history.series {
        let mut all: Vec<&Change> = s.changes.iter().chain(&s.inconclusive).collect();
        all.sort_by_key(|c| c.at);
        for c in all {
            let mut row = Vec::new();
            if grouped {
                row.push(labels.values(&history.file, &s.config));
            }
            row.extend(table_row(history, c));
            rows.push(row);
        }
    }
    if rows.is_empty() {
        let mut row = vec![String::new(); header.len()];
        row[0] = "No change point".to_string();
        rows.push(row);
    }
    (header, rows)
}

/// One change's cells, after its series.
pub(crate) fn table_row(history: &HistoryAnalysis, c: &Change) -> Vec<String> {
    let name = |i: usize| short(&history.versions[i].version);
    let range = if c.range[0] == c.range[1] {
        name(c.range[0])
    } else {
        format!("{} to {}", name(c.range[0]), name(c.range[1]))
    };
    let shift = format::minus(&format::signed_percent(c.shift, 1));
    let ci = c.ci.map_or(String::new(), |[lo, hi]| {
        let end = |v: f64| format::minus(&format::signed_percent(v, 1));
        format!(" ({} to {})", end(lo), end(hi))
    });
    let verdict = match c.claim.verdict {
        Verdict::Inconclusive => {
            let more = c.claim.more_runs.unwrap_or(0);
            format!(
                "inconclusive: needs {} more {} a side",
                format::count(more),
                if more == 1 { "run" } else { "runs" }
            )
        }
        _ => word(c).trim_start_matches("an ").trim_start_matches("a ").to_string(),
    };
    let coincides: Vec<String> =
        c.coincides.iter().map(|e| format!("{} ({} to {})", e.column, e.before, e.after)).collect();
    vec![
        name(c.at),
        range,
        format!("{shift}{ci}"),
        format::p_bare(c.p_holm),
        verdict,
        coincides.join("; "),
        c.acknowledged.clone().unwrap_or_default(),
    ]
}
