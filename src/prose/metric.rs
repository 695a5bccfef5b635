//! The wording of a metric: its value, interval, n and significance as the
//! prose, the cards and the JSON cite them, built from [`crate::format`]:
//! numbers of 1,000 and more grouped by thousands, negative ones with a true
//! minus sign.

use std::collections::BTreeMap;

use crate::analysis::MetricValue;
use crate::analysis::metrics::claim::Verdict;
use crate::analysis::statistics::model::Model;
use crate::analysis::statistics::stats::NoInterval;
use crate::config::Compare;
use crate::format::{fixed, grouped, p_value, reading, signed, signed_percent};

fn is_percent(metric: &MetricValue) -> bool {
    matches!(metric.compare, Compare::Relative | Compare::Slowdown)
}

/// Most decimals shown, however small the difference to be told apart.
const MOST_DECIMALS: usize = 15;

/// The decimals the metric is shown with: its `decimals`, or more where
/// they would hide what the numbers say. The ends of an interval that
/// differ are printed different ("+0.031 to +0.034%", never "0.0 to
/// 0.0%"), and no value or end of an interval that is not exactly no
/// change prints as no change ("+0.03%", never "0.0%"). One count of
/// decimals for the value and its interval, so that they read alike.
pub fn shown_decimals(m: &MetricValue) -> usize {
    decimals_at(m, m.value)
}

/// [`shown_decimals`] of the metric were its value `value`.
fn decimals_at(m: &MetricValue, value: f64) -> usize {
    let scale = if is_percent(m) { 100.0 } else { 1.0 };
    let null = match m.compare {
        Compare::Ratio => Some(1.0),
        Compare::Summary => None,
        _ => Some(0.0),
    };
    let text = |x: f64, d: usize| fixed(x * scale, d);
    let honest = |d: usize| {
        let ends = m.ci.is_none_or(|[lo, hi]| lo == hi || text(lo, d) != text(hi, d));
        let apart = |x: f64| null.is_none_or(|n| text(x, d) != text(n, d));
        let significant = m.significant != Some(true)
            || (apart(value) && m.ci.is_none_or(|[lo, hi]| apart(lo) && apart(hi)));
        // A number that is not exactly no change never prints as no change:
        // its direction word would read "no change" for a real difference.
        let shown = |x: f64| null.is_none_or(|n| x == n || apart(x));
        let nonzero = shown(value) && m.ci.is_none_or(|[lo, hi]| shown(lo) && shown(hi));
        ends && significant && nonzero
    };
    (m.decimals..=MOST_DECIMALS.max(m.decimals)).find(|&d| honest(d)).unwrap_or(m.decimals)
}

fn with_unit(number: String, unit: &str) -> String {
    match unit {
        "" => number,
        "%" | "×" => format!("{number}{unit}"),
        unit => format!("{number} {unit}"),
    }
}

/// The metric's value as shown: `+8.8%`, `0.92×`, `45.7 timesteps/s`.
pub fn metric_value(m: &MetricValue) -> String {
    expressed(m, m.value)
}

/// The magnitude without a sign: `8.8%`.
pub fn metric_magnitude(m: &MetricValue) -> String {
    let decimals = shown_decimals(m);
    if is_percent(m) {
        format!("{}%", reading(m.value.abs() * 100.0, decimals))
    } else {
        with_unit(reading(m.value.abs(), decimals), &m.unit)
    }
}

/// The interval: `95% CI +6.1 to +11.5%`; an end the interval excludes
/// marked `(excluded)`, an interval of one value `exactly`; or why there
/// is none.
pub fn metric_ci(m: &MetricValue) -> String {
    match ci_ends(m) {
        None => "no CI".to_string(),
        Some(ends) => format!("95% CI {ends}"),
    }
}

/// The interval's ends with the unit: `−66.1 to −63.9%`, `exactly 2.0×`.
pub fn ci_ends(m: &MetricValue) -> Option<String> {
    let [lo, hi] = m.ci?;
    let decimals = shown_decimals(m);
    let open = m.ci_open.unwrap_or([false; 2]);
    let end = |v: f64, open: bool| {
        let text = if is_percent(m) {
            grouped(&signed(v * 100.0, decimals))
        } else {
            reading(v, decimals)
        };
        if open { format!("{text} (excluded)") } else { text }
    };
    let unit =
        |text: String| if is_percent(m) { format!("{text}%") } else { with_unit(text, &m.unit) };
    if lo == hi {
        return Some(unit(format!("exactly {}", end(lo, false))));
    }
    Some(unit(format!("{} to {}", end(lo, open[0]), end(hi, open[1]))))
}

/// The smallest run count of the metric's groups.
fn runs(m: &MetricValue) -> usize {
    m.baseline.as_ref().map_or(m.candidate.n, |b| b.n.min(m.candidate.n))
}

/// The runs behind a metric as a table's column shows them: `3`, or for an
/// average configurations × runs a side, `5 × 3`.
pub fn metric_n_short(m: &MetricValue) -> String {
    match m.groups {
        0 | 1 => crate::format::count(runs(m)),
        k => format!("{k} × {}", runs(m)),
    }
}

/// `n = 3`, or for an average `5 configurations × 3 runs`.
pub fn metric_n(m: &MetricValue) -> String {
    match m.groups {
        0 | 1 => format!("n = {}", crate::format::count(runs(m))),
        k if m.within_run => format!("n = {} runs, each measuring {k} configurations", runs(m)),
        k => format!("{k} configurations × {} runs", runs(m)),
    }
}

/// A value of the metric in its own expression: `+8.8%`, `0.92×`.
fn expressed(m: &MetricValue, v: f64) -> String {
    express(m, v, shown_decimals(m))
}

/// Another value of the metric (by the other estimator) as its value would
/// be shown, were it the metric's: `+8.8%`.
pub fn metric_value_at(m: &MetricValue, v: f64) -> String {
    express(m, v, decimals_at(m, v))
}

/// `v` in the metric's expression with `decimals` decimals.
fn express(m: &MetricValue, v: f64, decimals: usize) -> String {
    if is_percent(m) {
        grouped(&signed_percent(v, decimals))
    } else {
        with_unit(reading(v, decimals), &m.unit)
    }
}

/// The range of an averaged metric's configurations: `from −8.8% at procs =
/// 32 to +14.0% at procs = 2`; empty for one configuration.
pub fn metric_range(m: &MetricValue) -> String {
    m.spread.as_ref().map_or_else(String::new, |s| {
        let [lo, hi] = &s.range;
        format!(
            "from {} at {} to {} at {}",
            expressed(m, lo.value),
            lo.at,
            expressed(m, hi.value),
            hi.at
        )
    })
}

/// Value, interval and n: `+8.8% (95% CI +6.1 to +11.5%, n = 3)`; for an
/// average also its range and whether its configurations change sign.
pub fn metric_full(m: &MetricValue) -> String {
    let mut notes = Vec::new();
    if let Some(s) = &m.spread {
        notes.push(metric_range(m));
        if s.sign_change {
            notes.push("the configurations differ in sign".into());
        }
    }
    // The claim's verdict where it is no decided difference (docs/methods.md, Verdicts).
    match m.claim.map(|c| c.verdict) {
        Some(Verdict::Inconclusive) => notes.push("inconclusive".into()),
        Some(Verdict::Negligible) => notes.push("negligible".into()),
        _ => {}
    }
    let notes = if notes.is_empty() { String::new() } else { format!("; {}", notes.join("; ")) };
    if m.exact {
        return format!("{} in every run ({}{notes})", metric_value(m), metric_n(m));
    }
    match &m.ci {
        Some(_) => format!("{} ({}, {}{notes})", metric_value(m), metric_ci(m), metric_n(m)),
        None => format!(
            "{} ({}; no CI: {}{notes})",
            metric_value(m),
            metric_n(m),
            m.ci_note.map_or_else(|| "the runs do not vary".into(), no_interval)
        ),
    }
}

/// `statistically significant` or `not statistically significant`, from the
/// interval; for a summary, which tests nothing, `not a comparison`.
pub fn significance(m: &MetricValue) -> String {
    match (m.significant, m.compare) {
        _ if m.exact => "exact: the same in every run".into(),
        (Some(true), _) => "statistically significant".into(),
        (Some(false), _) if m.p_holm.is_some() && m.p_value.is_some_and(|p| p < 0.05) => {
            "not statistically significant after Holm's correction for its family".into()
        }
        (Some(false), _) => "not statistically significant".into(),
        (None, Compare::Summary) => "not a comparison".into(),
        (None, _) => {
            let why = m.ci_note.map_or_else(|| "no interval".into(), no_interval);
            format!("of unknown significance ({why})")
        }
    }
}

/// What a comparison's claim says beyond its verdict word, in the
/// reader's words: why it is inconclusive and how many more runs a side
/// could decide it (`with 3 and 4 runs no test can reach p < 0.05 …`), or
/// what makes it negligible; `None` for a decided difference, a summary
/// and no change. `threshold` is `[study] negligible` (`1%`).
pub fn claim_note(m: &MetricValue, threshold: Option<&str>) -> Option<String> {
    use crate::analysis::metrics::claim::{Undecided, Verdict};
    let claim = m.claim?;
    let within = threshold.map_or_else(String::new, |t| format!("\u{b1}{t}"));
    let more = |k: Option<usize>| match k {
        Some(1) => "; 1 more run a side could decide it".to_string(),
        Some(k) => format!("; {} more runs a side could decide it", crate::format::count(k)),
        None => String::new(),
    };
    match (claim.verdict, claim.undecided) {
        (Verdict::Negligible, _) if m.exact => Some(format!("within {within} in every run")),
        (Verdict::Negligible, _) => Some(format!("the whole 95% CI lies within {within}")),
        (Verdict::Inconclusive, Some(why)) => Some(match why {
            Undecided::OneRun => format!(
                "one run on a side gives a difference, no interval{}",
                more(claim.more_runs)
            ),
            Undecided::Unreachable { min_p } => format!(
                "with {} and {} runs no test can reach p < 0.05 (the smallest p is {}){}",
                m.candidate.n,
                m.baseline.as_ref().map_or(0, |b| b.n),
                crate::format::p_bare(min_p),
                more(claim.more_runs)
            ),
            Undecided::NoShift => "the estimate is exactly no change, whatever its p".to_string(),
            Undecided::Wide if threshold.is_some() => format!(
                "the 95% CI holds both no change and differences beyond {within}{}",
                more(claim.more_runs)
            ),
            Undecided::Wide => format!("the 95% CI holds no change{}", more(claim.more_runs)),
            Undecided::NoTest => "neither side varies enough for a test".into(),
        }),
        _ => None,
    }
}

/// A statistic of a table's cell with its unit: `0.35 s`.
pub fn statistic(value: f64, decimals: usize, unit: Option<&str>) -> String {
    with_unit(reading(value, decimals), unit.unwrap_or(""))
}

/// A computed table's comparison cell: `−64.9% (−66.1 to −63.9%), better`
/// (the table's caption says the parentheses hold the 95% CI), the value
/// and the interval each unbreakable; with a baseline chosen from the data,
/// named `against`: `+12.5% vs xz, worse in every run`.
pub fn table_cell(
    m: &MetricValue,
    verdict: crate::analysis::metrics::tables::Verdict,
    against: Option<&str>,
) -> String {
    use crate::analysis::metrics::tables::Verdict;
    let word = match verdict {
        Verdict::Better if m.exact => "better in every run",
        Verdict::Worse if m.exact => "worse in every run",
        Verdict::Better => "better",
        Verdict::Worse => "worse",
        Verdict::Negligible => "negligible",
        Verdict::Inconclusive => "inconclusive",
        Verdict::Same => "no change",
    };
    // No-break spaces keep the value and the interval whole: a narrow
    // column wraps the cell between them and before the verdict only.
    let whole = |text: String| text.replace(' ', "\u{a0}");
    let against = against.map(|b| format!(" vs\u{a0}{b}")).unwrap_or_default();
    if !m.provenance.measured() {
        // Data that were not measured: the value, marked, and no verdict.
        let mark = if m.marked() { super::provenance::MARK } else { "" };
        return format!("{}{mark}{against}", whole(metric_value(m)));
    }
    match ci_ends(m) {
        None => format!("{}{against}, {word}", whole(metric_value(m))),
        Some(ends) => format!("{} ({}){against}, {word}", whole(metric_value(m)), whole(ends)),
    }
}

/// The note a comparison table's caption ends with.
pub fn table_note(tested: usize) -> String {
    match tested {
        0 | 1 => "In parentheses: the 95% CI; verdicts at 5%.".into(),
        n => format!(
            "In parentheses: the 95% CI; verdicts at 5%, after Holm's correction for the table's {n} comparisons."
        ),
    }
}

/// Every field of a metric that prose can cite, formatted.
pub fn metric_fields(m: &MetricValue) -> BTreeMap<&'static str, String> {
    let mean = |x: f64| reading(x, m.decimals);
    let mut fields = BTreeMap::from([
        ("value", metric_value(m)),
        ("abs", metric_magnitude(m)),
        ("ci", metric_ci(m)),
        ("full", metric_full(m)),
        ("n", metric_n(m).trim_start_matches("n = ").to_string()),
        ("label", m.label.clone()),
        ("definition", m.definition.clone().unwrap_or_default()),
        ("significance", significance(m)),
        ("range", metric_range(m)),
        ("model", model(m)),
        ("scope", scope(m)),
        ("candidate", mean(m.candidate.mean)),
        ("p", m.p_value.map(p_value).unwrap_or_else(|| "no p-value".into())),
    ]);
    if let Some(b) = &m.baseline {
        fields.insert("baseline", mean(b.mean));
        fields.insert("delta", metric_value(m));
    }
    fields
}

/// Why a statistic has no interval, in words.
pub fn no_interval(why: NoInterval) -> String {
    match why {
        NoInterval::FewRuns { n } => {
            format!("n = {n}: at least 2 runs are needed for a confidence interval")
        }
        NoInterval::Exact => "each side gives the same value in every run".into(),
        NoInterval::SameRatio => "the groups give the same ratio".into(),
        NoInterval::NoSpread => "neither side varies, or too few runs for this estimator".into(),
        NoInterval::NotMeasured => "the data were not measured".into(),
    }
}

/// A comparison's model in words: `ratio of means, Welch's t on the log
/// scale`; empty for none.
pub fn model_words(model: Model) -> &'static str {
    match model {
        Model::None => "",
        Model::Exact => "exact: each side gives the same value in every run",
        Model::StudentT => "mean, Student's t",
        Model::LogWelch => "ratio of means, Welch's t on the log scale",
        Model::DeltaWelch => "ratio of means, Welch's t with a delta-method standard error",
        Model::HodgesLehmann => "Hodges–Lehmann ratio, Mann–Whitney U",
        Model::WelchDifference => "difference of means, Welch's t",
        Model::HodgesLehmannShift => "Hodges–Lehmann shift, Mann–Whitney U",
        Model::DifferenceAverage => {
            "arithmetic mean of the per-configuration differences, Student's t over the configurations"
        }
        Model::GeometricAverage => {
            "geometric mean of the per-configuration ratios, Student's t over the configurations: an average that generalises to other configurations"
        }
        Model::ArithmeticAverage => {
            "arithmetic mean of the per-configuration ratios, Student's t over the configurations: an average that generalises to other configurations"
        }
        Model::GeometricAverageFixed => {
            "geometric mean of the per-configuration ratios over exactly these configurations, each one's standard error combined (Welch–Satterthwaite)"
        }
        Model::ArithmeticAverageFixed => {
            "arithmetic mean of the per-configuration ratios over exactly these configurations, each one's standard error combined (Welch–Satterthwaite)"
        }
        Model::Interaction => {
            "interaction: the ratio at the second level over the ratio at the first, Welch's t on the log scale (each level's standard error combined, Welch–Satterthwaite)"
        }
        Model::ExactAverage => {
            "average of exact per-configuration ratios: every run of each side gives one value"
        }
        Model::RunsAsUnits => {
            "average over configurations with runs as the units: Welch's t on the log scale of per-run scores (delta method)"
        }
        Model::RunsAsUnitsMedian => {
            "average of the per-configuration Hodges–Lehmann ratios; interval and p from Mann–Whitney's test on per-run scores against the baseline's means (runs as units)"
        }
    }
}

/// What an average over configurations stands for, in words: exactly
/// these configurations, or others like them; empty for one configuration.
pub fn scope(m: &MetricValue) -> String {
    let k = m.groups;
    match m.model {
        Model::GeometricAverageFixed | Model::ArithmeticAverageFixed => format!(
            "An average over exactly these {k} configurations: its interval combines each one's own uncertainty, and says nothing of configurations not measured."
        ),
        Model::GeometricAverage | Model::ArithmeticAverage => format!(
            "An average that stands for configurations like these {k}: its interval is Student's t over them ({} degrees of freedom), widened by their spread.",
            k.saturating_sub(1)
        ),
        _ => String::new(),
    }
}

/// A metric's model in words, with how its baseline was chosen when it
/// was (`…; the baseline, xz, is the best of gzip and xz on these runs`).
pub fn model(m: &MetricValue) -> String {
    let words = model_words(m.model);
    let Some(s) = &m.baseline_selected else { return words.to_string() };
    let Some((last, init)) = s.among.split_last() else { return words.to_string() };
    let among = match init {
        [] => last.clone(),
        _ => format!("{} and {last}", init.join(", ")),
    };
    format!("{words}; the baseline, {}, is the best of {among} on these runs", s.level)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{Inputs, Side};
    use crate::config::Better;
    use crate::math;

    /// The runs behind a metric in a table's column, by hand: one
    /// configuration's smallest side, else configurations × runs.
    #[test]
    fn runs_read_as_configurations_by_runs() {
        let mut m = MetricValue::example(0.1);
        assert_eq!(metric_n_short(&m), "10");
        m.candidate.n = 1_000;
        m.baseline.as_mut().unwrap().n = 1_500;
        assert_eq!(metric_n_short(&m), "1,000");
        (m.groups, m.candidate.n) = (5, 3);
        assert_eq!(metric_n_short(&m), "5 × 3");
        (m.groups, m.within_run) = (24, true);
        assert_eq!(metric_n_short(&m), "24 × 3");
    }

    /// A model in words, and how a chosen baseline was chosen, by hand.
    #[test]
    fn models_are_worded_with_the_choice_of_a_baseline() {
        let mut m = MetricValue::example(0.1);
        m.model = Model::LogWelch;
        assert_eq!(model(&m), "ratio of means, Welch's t on the log scale");
        m.model = Model::HodgesLehmann;
        m.baseline_selected = Some(crate::analysis::metrics::sides::Selected {
            level: "xz".into(),
            among: vec!["gzip".into(), "lz4".into(), "xz".into()],
            scores: vec![2.0, 3.0, 1.0],
        });
        assert_eq!(
            model(&m),
            "Hodges–Lehmann ratio, Mann–Whitney U; the baseline, xz, is the best of gzip, lz4 and xz on these runs"
        );
        assert_eq!(model_words(Model::None), "");
    }

    fn metric(compare: Compare, decimals: usize, value: f64, ci: [f64; 2]) -> MetricValue {
        let null = if compare == Compare::Ratio { 1.0 } else { 0.0 };
        let side = Side { environment: "e".into(), mean: 1.0, n: 3 };
        MetricValue {
            label: "m".into(),
            compare,
            better: Better::Higher,
            unit: if compare == Compare::Ratio { "×".into() } else { "%".into() },
            decimals,
            ci: Some(ci),
            significant: (compare != Compare::Summary).then(|| !(ci[0] <= null && null <= ci[1])),
            baseline: Some(side.clone()),
            candidate: side,
            inputs: Inputs { file: String::new(), column: String::new(), filter: String::new() },
            ..MetricValue::example(value)
        }
    }

    /// The number a printed value stands for: `+0.032%` → 0.032.
    fn number(text: &str) -> f64 {
        let text = text.trim_end_matches(['%', '×']).replace([',', '+'], "");
        text.replace('\u{2212}', "-").trim().parse().unwrap()
    }

    /// The two ends printed by `metric_ci`.
    fn ends(m: &MetricValue) -> [f64; 2] {
        let text = metric_ci(m);
        let (lo, hi) = text.trim_start_matches("95% CI ").split_once(" to ").unwrap();
        [number(lo), number(hi)]
    }

    #[test]
    fn small_significant_changes_keep_their_digits() {
        let m = metric(Compare::Relative, 1, 0.000_32, [0.000_31, 0.000_34]);
        assert_eq!(
            (metric_value(&m), metric_ci(&m)),
            ("+0.032%".into(), "95% CI +0.031 to +0.034%".into())
        );
        // Not significant: still no number that is not no change prints as
        // one (its word would read "no change").
        let m = metric(Compare::Relative, 1, 0.000_3, [-0.000_2, 0.000_8]);
        assert_eq!(
            (metric_value(&m), metric_ci(&m)),
            ("+0.03%".into(), "95% CI −0.02 to +0.08%".into())
        );
        // A large value keeps one decimal.
        let m = metric(Compare::Relative, 1, 0.088, [0.061, 0.115]);
        assert_eq!(metric_full(&m), "+8.8% (95% CI +6.1 to +11.5%, n = 3)");
    }

    /// Seeded (estimate, lo, hi) triples at scales from 10⁻⁹ to 10³, of every
    /// form and 0 to 3 decimals: ends that differ print different, and a
    /// significant value and its ends never print as no change.
    #[test]
    fn printed_intervals_tell_what_the_numbers_say() {
        let mut next = crate::seeded::stream(0x9e37_79b9_7f4a_7c15);
        let mut uniform = || (next() >> 11) as f64 / (1u64 << 53) as f64;
        for i in 0..20_000 {
            let compare =
                [Compare::Relative, Compare::Slowdown, Compare::Ratio, Compare::Summary][i % 4];
            let scale = math::powf(10.0, -9.0 + 12.0 * uniform());
            let width = scale * math::powf(10.0, -3.0 * uniform());
            let centre = scale * (2.0 * uniform() - 0.5);
            let null = if compare == Compare::Ratio { 1.0 } else { 0.0 };
            let (lo, hi) = (null + centre - width / 2.0, null + centre + width / 2.0);
            let m = metric(compare, i % 4, null + centre, [lo, hi]);
            let [plo, phi] = ends(&m);
            assert!(plo != phi, "{lo} to {hi} prints as {}", metric_ci(&m));
            let shown_null = if is_percent(&m) { 0.0 } else { null };
            if m.significant == Some(true) {
                let value = number(&metric_value(&m));
                assert!(value != shown_null, "{} prints as {}", m.value, metric_value(&m));
                assert!(plo != shown_null && phi != shown_null, "{lo}, {hi}: {}", metric_ci(&m));
            }
        }
    }
}
