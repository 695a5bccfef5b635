//! Caveats on the spread of the runs, one per column read by the metrics:
//! the runs beyond Tukey's fences, named, and the configurations whose
//! runs vary by more than [`HIGH_CV`]. A real study has dozens of
//! configurations; a caveat a configuration would bury the ones that matter,
//! so each lists the worst few and counts the rest.

use std::collections::BTreeMap;

use super::{Caveat, CaveatKind};
use crate::analysis::Group;
use crate::format::{fixed, significant};

/// A coefficient of variation above this is called high (5%).
pub const HIGH_CV: f64 = 0.05;

/// Whether a coefficient of variation is above [`HIGH_CV`] by more than
/// the rounding of its sums (10⁻⁹ of it): runs of 0.57, 0.6 and 0.63 vary
/// by exactly 5% of their mean, which sd / mean computes as
/// 0.050000000000000044.
pub fn high_cv(cv: f64) -> bool {
    cv > HIGH_CV * (1.0 + 1e-9)
}

/// Most configurations a caveat names; the others are counted.
const NAMED: usize = 5;

/// Significant digits of a value in a caveat.
const DIGITS: usize = 4;

/// The groups of `groups` by (file, column), in order.
pub(super) fn by_column<'a>(groups: &[&'a Group]) -> BTreeMap<(&'a str, &'a str), Vec<&'a Group>> {
    let mut columns: BTreeMap<(&str, &str), Vec<&Group>> = BTreeMap::new();
    for g in groups {
        columns.entry((g.inputs.file.as_str(), g.inputs.column.as_str())).or_default().push(g);
    }
    columns
}

/// `items`, the first [`NAMED`] joined by `"; "`, the rest counted.
pub(super) fn listed(items: &[String], what: &str) -> String {
    let shown = items.iter().take(NAMED).cloned().collect::<Vec<_>>().join("; ");
    match items.len().saturating_sub(NAMED) {
        0 => shown,
        1 => format!("{shown}; and one more {what}"),
        more => format!("{shown}; and {more} more {what}s"),
    }
}

/// One caveat per column with runs beyond Tukey's fences: the severe ones
/// (beyond 3 IQR) named by run, the configurations ordered by how far their
/// most extreme run lies beyond its quartile (in IQRs, or grid steps), the
/// runs of one configuration likewise; the mild ones (1.5 to 3 IQR) counted.
pub(super) fn outliers(groups: &[&Group]) -> Vec<Caveat> {
    by_column(groups)
        .into_iter()
        .filter_map(|((file, column), gs)| column_outliers(file, column, &gs))
        .collect()
}

fn column_outliers(file: &str, column: &str, groups: &[&Group]) -> Option<Caveat> {
    // (how far the worst run lies beyond its fence, the configuration's text)
    let mut severe: Vec<(f64, String)> = Vec::new();
    let (mut mild, mut mild_configs) = (0, 0);
    for g in groups {
        let r = &g.summary.robust;
        let mut worst: Vec<&crate::analysis::statistics::robust::Outlier> =
            r.outliers.iter().filter(|o| o.severe).collect();
        worst.sort_by(|a, b| b.beyond.total_cmp(&a.beyond));
        let named: Vec<String> = worst
            .iter()
            .map(|o| match &o.run {
                Some(run) => format!("{run} ({})", significant(o.value, DIGITS)),
                None => significant(o.value, DIGITS),
            })
            .collect();
        // Past the listed ones, counted: the severe unnamed, and every mild one.
        let unlisted = r.severe_count.saturating_sub(worst.len());
        let mild_here = r.outlier_count.saturating_sub(r.severe_count);
        if let Some(first) = worst.first() {
            let more = if unlisted > 0 { format!(" and {unlisted} more") } else { String::new() };
            let text =
                format!("{} (n = {}): {}{more}", g.inputs.filter, g.summary.n, named.join(", "));
            severe.push((first.beyond, text));
        }
        if mild_here > 0 {
            (mild, mild_configs) = (mild + mild_here, mild_configs + 1);
        }
    }
    // The most extreme runs first, wherever they are in the file.
    severe.sort_by(|a, b| b.0.total_cmp(&a.0));
    let severe: Vec<String> = severe.into_iter().map(|(_, text)| text).collect();
    if severe.is_empty() && mild == 0 {
        return None;
    }
    let mild_text = match (mild, mild_configs) {
        (0, _) => String::new(),
        (1, _) => " One more run lies beyond 1.5 IQR only (mild).".to_string(),
        (m, 1) => format!(" {m} more runs of one configuration lie beyond 1.5 IQR only (mild)."),
        (m, c) => format!(" {m} more runs in {c} configurations lie beyond 1.5 IQR only (mild)."),
    };
    let severe_text = if severe.is_empty() {
        String::new()
    } else {
        format!(" Beyond 3 IQR (severe): {}.", listed(&severe, "configuration"))
    };
    Some(Caveat {
        kind: CaveatKind::Outliers,
        metric: None,
        text: format!(
            "Outlying runs of {column} in {file}, by Tukey's fences from the quartiles of each configuration (the fences' scale is the IQR, or one step of the values' grid when that is wider), the most extreme first.{severe_text}{mild_text} They are kept: the mean follows them, the median and the rank test do not."
        ),
    })
}

/// One caveat per column with configurations whose coefficient of variation
/// is above [`HIGH_CV`], the most variable first.
pub(super) fn variation(groups: &[&Group]) -> Vec<Caveat> {
    by_column(groups)
        .into_iter()
        .filter_map(|((file, column), gs)| column_variation(file, column, &gs))
        .collect()
}

fn column_variation(file: &str, column: &str, groups: &[&Group]) -> Option<Caveat> {
    let mut high: Vec<(f64, &Group)> = groups
        .iter()
        .filter_map(|g| g.summary.robust.cv.filter(|cv| high_cv(*cv)).map(|cv| (cv, *g)))
        .collect();
    if high.is_empty() {
        return None;
    }
    high.sort_by(|a, b| b.0.total_cmp(&a.0));
    let items: Vec<String> = high
        .iter()
        .map(|(cv, g)| format!("{}: CV {}%", g.inputs.filter, fixed(cv * 100.0, 1)))
        .collect();
    let count = match high.len() {
        1 => "one configuration".to_string(),
        n => format!("{n} configurations"),
    };
    Some(Caveat {
        kind: CaveatKind::HighVariation,
        metric: None,
        text: format!(
            "Runs of {column} in {file} vary by more than {}% of their mean (coefficient of variation) in {count}: {}.",
            fixed(HIGH_CV * 100.0, 0),
            listed(&items, "configuration")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 0.57, 0.6, 0.63 vary by exactly 5% of their mean (sd 0.03, mean
    /// 0.6), which is not above 5%, though sd / mean computes as
    /// 0.050000000000000044; 19, 20, 21 likewise; 57, 60, 63.1 by 5.08%.
    #[test]
    fn exactly_five_percent_is_not_high() {
        let cv = |v: &[f64]| {
            let s = crate::analysis::statistics::stats::Summary::of(v).unwrap();
            s.robust.cv.unwrap()
        };
        assert!(!high_cv(cv(&[0.57, 0.6, 0.63])));
        assert!(!high_cv(cv(&[19.0, 20.0, 21.0])));
        assert!(high_cv(cv(&[57.0, 60.0, 63.1])));
    }

    #[test]
    fn long_lists_name_five_and_count_the_rest() {
        let items: Vec<String> = (1..=7).map(|i| format!("c{i}")).collect();
        assert_eq!(listed(&items[..2], "x"), "c1; c2");
        assert_eq!(listed(&items[..6], "x"), "c1; c2; c3; c4; c5; and one more x");
        assert_eq!(listed(&items, "x"), "c1; c2; c3; c4; c5; and 2 more xs");
    }
}
