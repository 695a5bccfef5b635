//! The table of headline results, Table 1 of both the page and the paper:
//! its rows and its caption, made once here for both templates.

use serde::Serialize;

use super::MetricView;
use crate::analysis::MetricValue;
use crate::config::Compare;

/// The headline table as both templates see it.
#[derive(Debug, Clone, Serialize)]
pub struct HeadlineTable {
    /// Its number: always 1, the first table of the page and of the paper.
    pub number: usize,
    /// The caption, after "Table 1.": what each column is.
    pub caption: String,
    /// One row per headline metric, in book.toml order.
    pub rows: Vec<HeadlineRow>,
}

/// One headline metric as a row of the headline table; every cell is text,
/// the same in the page and the paper.
#[derive(Debug, Clone, Serialize)]
pub struct HeadlineRow {
    /// The metric's name (`metric-NAME` is its card).
    pub name: String,
    /// Its label, marked `(n.s.)` when not significant or `(negligible)`.
    pub metric: String,
    /// The difference in words (`8.8% faster`), or a summary's value.
    pub difference: String,
    /// The 95% CI as the metric is defined: `−4.0 to +19.3%`.
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
        let rows: Vec<HeadlineRow> = headline.iter().map(|(_, v)| HeadlineRow::of(v)).collect();
        let kinds: Vec<Compare> = headline.iter().map(|(m, _)| m.compare).collect();
        Some(HeadlineTable { number: 1, caption: caption(&kinds, &rows, negligible), rows })
    }
}

impl HeadlineRow {
    /// The row of one headline metric.
    fn of(v: &MetricView) -> Self {
        let field = |name: &str| v.text.get(name).cloned().unwrap_or_default();
        let mark = match (&v.words, v.significant) {
            (Some(w), _) if w.negligible => " (negligible)",
            (_, Some(false)) => " (n.s.)",
            _ => "",
        };
        let difference = v.words.as_ref().map_or_else(|| field("value"), |w| w.text.clone());
        let ci = field("ci");
        HeadlineRow {
            name: v.name.clone(),
            metric: format!("{}{mark}", v.label),
            difference,
            ci: ci.strip_prefix("95% CI ").unwrap_or(&ci).to_string(),
            n: runs(&field("n")),
            p: field("p").replace("p = ", "").replace("p < ", "< "),
        }
    }
}

/// The runs behind a metric, short: `3`; `5 configurations × 3 runs` and
/// `3 runs, each measuring 24 configurations` as configurations × runs a
/// side, `5 × 3` and `24 × 3`.
fn runs(n: &str) -> String {
    if let Some((runs, rest)) = n.split_once(", each measuring ") {
        let runs = runs.trim_end_matches(" runs").trim_end_matches(" run");
        return format!("{} \u{d7} {runs}", rest.trim_end_matches(" configurations"));
    }
    let n = n.replace(" configurations \u{d7} ", " \u{d7} ");
    n.trim_end_matches(" runs").trim_end_matches(" run").to_string()
}

/// The caption: what each column holds, the sign conventions of the kinds
/// of comparison in the table, and the marks and notations it uses.
fn caption(kinds: &[Compare], rows: &[HeadlineRow], negligible: Option<&str>) -> String {
    let conventions: Vec<&str> = [
        (
            Compare::Relative,
            "a relative difference, positive where the candidate\u{2019}s value is higher",
        ),
        (Compare::Slowdown, "a slowdown, positive where the candidate is slower"),
        (Compare::Ratio, "a ratio, the candidate\u{2019}s value over the baseline\u{2019}s"),
    ]
    .into_iter()
    .filter(|(kind, _)| kinds.contains(kind))
    .map(|(_, text)| text)
    .collect();
    let mut text = String::from(
        "Headline results: each difference of the candidate from the baseline in words, its 95% confidence interval",
    );
    if !conventions.is_empty() {
        text += &format!(" as the metric is defined ({})", conventions.join("; "));
    }
    text += ", the runs behind it";
    if rows.iter().any(|r| r.n.contains('\u{d7}')) {
        text += " (configurations \u{d7} runs a side)";
    }
    text += " and its p-value.";
    if rows.iter().any(|r| r.metric.ends_with(" (n.s.)")) {
        text += " n.s.: not statistically significant.";
    }
    if let (true, Some(under)) =
        (rows.iter().any(|r| r.metric.ends_with(" (negligible)")), negligible)
    {
        text += &format!(" Negligible: under {under}, whatever its p-value.");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_read_as_configurations_by_runs() {
        assert_eq!(runs("3"), "3");
        assert_eq!(runs("1 run"), "1");
        assert_eq!(runs("5 configurations \u{d7} 3 runs"), "5 \u{d7} 3");
        assert_eq!(runs("3 runs, each measuring 24 configurations"), "24 \u{d7} 3");
        assert_eq!(runs("1,000 runs, each measuring 2 configurations"), "2 \u{d7} 1,000");
    }

    #[test]
    fn the_caption_names_only_what_the_table_holds() {
        let row = |metric: &str, n: &str| HeadlineRow {
            name: "m".into(),
            metric: metric.into(),
            difference: "1.0% faster".into(),
            ci: "+0.5 to +1.5%".into(),
            n: n.into(),
            p: "0.01".into(),
        };
        let plain = caption(&[Compare::Relative], &[row("T", "3")], None);
        assert_eq!(
            plain,
            "Headline results: each difference of the candidate from the baseline in words, \
             its 95% confidence interval as the metric is defined (a relative difference, \
             positive where the candidate\u{2019}s value is higher), the runs behind it and its p-value."
        );
        let marked = caption(
            &[Compare::Slowdown, Compare::Ratio],
            &[row("A (n.s.)", "5 \u{d7} 3"), row("B (negligible)", "3")],
            Some("1%"),
        );
        assert!(marked.contains("(a slowdown, positive where the candidate is slower; a ratio,"));
        assert!(marked.contains("the runs behind it (configurations \u{d7} runs a side) and"));
        assert!(marked.ends_with(
            "p-value. n.s.: not statistically significant. Negligible: under 1%, whatever its p-value."
        ));
        let summary = caption(&[Compare::Summary], &[row("S", "3")], None);
        assert!(summary.contains("confidence interval, the runs behind it and its p-value."));
    }
}
