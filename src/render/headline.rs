//! The table of headline results, Table 1 of both the page and the paper:
//! its rows and its caption, made once here for both templates.

use serde::Serialize;

use super::MetricView;
use crate::analysis::MetricValue;
use crate::prose::metric as prose;

/// The headline table as both templates see it.
#[derive(Debug, Clone, Serialize)]
pub struct HeadlineTable {
    /// Its number: always 1, the first table of the page and of the paper.
    pub number: usize,
    /// The caption, after "Table 1.": what each column is.
    pub caption: String,
    /// One row per headline metric, in book.toml order.
    pub rows: Vec<HeadlineRow>,
    /// Whether some row has measured data, and the table the columns of
    /// interval, runs and p-value; without, it has neither.
    pub tested: bool,
}

/// One headline metric as a row of the headline table; every cell is text,
/// the same in the page and the paper.
#[derive(Debug, Clone, Serialize)]
pub struct HeadlineRow {
    /// The metric's name (`metric-NAME` is its card).
    pub name: String,
    /// Its label, marked `(inconclusive)` or `(negligible)` by its claim,
    /// and `(one run)` when one run carries it, as its card notes.
    pub metric: String,
    /// The difference in words (`8.8% faster`), or a summary's value.
    pub difference: String,
    /// The 95% CI in the words of the difference: `0.8 to 4.0% faster`,
    /// `2.0% slower to 19.3% faster`, `2.00× to 2.34× as fast`; a
    /// summary's in its unit.
    pub ci: String,
    /// The runs behind it: `3`, or configurations × runs a side (`5 × 3`).
    pub n: String,
    /// The p-value without `p`: `0.002`, `< 0.001`.
    pub p: String,
}

impl HeadlineTable {
    /// The table of the headline `metrics`, `views` their views in the same
    /// order; `None` when no metric is a headline.
    pub fn new(
        metrics: &[MetricValue],
        views: &[MetricView],
        negligible: Option<&str>,
    ) -> Option<Self> {
        let headline: Vec<(&MetricValue, &MetricView)> =
            metrics.iter().zip(views).filter(|(m, _)| m.headline).collect();
        if headline.is_empty() {
            return None;
        }
        let marks: Vec<Mark> = headline.iter().map(|(_, v)| Mark::of(v)).collect();
        let rows: Vec<HeadlineRow> = headline
            .iter()
            .zip(&marks)
            .map(|((m, v), mark)| HeadlineRow::of(m, v, *mark))
            .collect();
        let averaged = headline.iter().any(|(m, _)| m.groups > 1);
        let tested = marks.iter().any(|m| !matches!(m, Mark::Published | Mark::NotMeasured));
        let mut caption = caption(averaged, &marks, negligible);
        if headline.iter().any(|(_, v)| v.carried.is_some()) {
            caption += CARRIED;
        }
        if !tested {
            caption = untested_caption(&marks);
        }
        Some(HeadlineTable { number: 1, caption, rows, tested })
    }
}

/// The caption's note on the mark of a headline one run carries.
const CARRIED: &str =
    " One run: one run carries the estimate or its verdict; the caveats give it without that run.";

/// After the label of a headline one run carries, as its card notes.
const CARRIED_MARK: &str = " (one run)";

/// How a row's metric is marked: inconclusive, negligible, a published
/// figure, or derived from data that were not measured (†).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    None,
    Inconclusive,
    Negligible,
    Published,
    NotMeasured,
}

impl Mark {
    /// The mark of one metric, as its card has it.
    fn of(v: &MetricView) -> Self {
        match v.verdict {
            _ if v.provenance == "published" => Mark::Published,
            _ if v.provenance != "measured" => Mark::NotMeasured,
            Some("negligible") => Mark::Negligible,
            Some("inconclusive") => Mark::Inconclusive,
            _ => Mark::None,
        }
    }

    /// After the metric's label: ` (inconclusive)`, ` (negligible)`.
    fn text(self) -> &'static str {
        match self {
            Mark::None => "",
            Mark::Inconclusive => " (inconclusive)",
            Mark::Negligible => " (negligible)",
            Mark::Published => " (published)",
            Mark::NotMeasured => " \u{2020}",
        }
    }
}

impl HeadlineRow {
    /// The row of one headline metric `m`, `v` its view.
    fn of(m: &MetricValue, v: &MetricView, mark: Mark) -> Self {
        let difference = match &v.words {
            Some(w) => w.text.clone() + v.mark,
            None => v.text.get("value").cloned().unwrap_or_default(),
        };
        // Data that were not measured give neither interval nor p-value.
        let untested = matches!(mark, Mark::Published | Mark::NotMeasured);
        let none = || "\u{2014}".to_string();
        HeadlineRow {
            name: v.name.clone(),
            metric: format!(
                "{}{}{}",
                v.label,
                mark.text(),
                if v.carried.is_some() { CARRIED_MARK } else { "" }
            ),
            difference,
            ci: if untested {
                none()
            } else {
                (v.text.get("interval").cloned())
                    .or_else(|| prose::ci_ends(m))
                    .unwrap_or_else(|| "no CI".into())
            },
            n: if untested { none() } else { prose::metric_n_short(m) },
            p: if untested {
                none()
            } else {
                m.p_value.map_or_else(|| "no p-value".into(), crate::format::p_bare)
            },
        }
    }
}

/// The caption of a table of data that were not measured: no interval,
/// runs or p-value, and what its marks mean.
fn untested_caption(marks: &[Mark]) -> String {
    let mut text = String::from(
        "Headline results: each difference of the candidate from the baseline in words. The data behind them were not measured, so no interval or p-value is drawn from them.",
    );
    if marks.contains(&Mark::Published) {
        text += " Published: the figure as the study published it, recomputed from those data.";
    }
    if marks.contains(&Mark::NotMeasured) {
        text += " \u{2020}: derived from those data alone.";
    }
    text
}

/// The caption: what each column holds, and the marks and notations it
/// uses. Each interval is in the words of its difference (`0.8 to 4.0%
/// faster` beside `2.4% faster`), so no sign convention is needed.
fn caption(averaged: bool, marks: &[Mark], negligible: Option<&str>) -> String {
    let mut text = String::from(
        "Headline results: each difference of the candidate from the baseline in words, its 95% confidence interval in the same words, the runs behind it",
    );
    if averaged {
        text += " (configurations \u{d7} runs a side)";
    }
    text += " and its p-value.";
    if marks.contains(&Mark::Inconclusive) {
        text += " Inconclusive: the data cannot decide (too few runs, or an interval that holds no change).";
    }
    if let (true, Some(under)) = (marks.contains(&Mark::Negligible), negligible) {
        text += &format!(" Negligible: the whole 95% CI lies within \u{b1}{under}.");
    }
    if marks.contains(&Mark::Published) {
        text += " Published: the figure as the study published it, recomputed from data that were not measured; no interval or p-value is drawn from them.";
    }
    if marks.contains(&Mark::NotMeasured) {
        text += " \u{2020}: from data that were not measured, without interval or p-value.";
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caption_names_only_what_the_table_holds() {
        let plain = caption(false, &[Mark::None], None);
        assert_eq!(
            plain,
            "Headline results: each difference of the candidate from the baseline in words, \
             its 95% confidence interval in the same words, the runs behind it and its p-value."
        );
        let marks = [Mark::Inconclusive, Mark::Negligible];
        let marked = caption(true, &marks, Some("1%"));
        assert!(marked.contains("the runs behind it (configurations \u{d7} runs a side) and"));
        assert!(marked.ends_with(
            "p-value. Inconclusive: the data cannot decide (too few runs, or an interval that holds no change). Negligible: the \
             whole 95% CI lies within \u{b1}1%."
        ));
    }
}
