//! The ratio panel of a line chart (`ratio = true`): candidate ÷ baseline
//! per x with the 95% CI of the analysis's model ([`Estimator::compare`], the
//! estimator the chart aggregates by), and its drawing under the plot on
//! the chart's x axis: its own linear y axis (the data, the intervals and
//! the reference line at 1), the ratio in the candidate's colour and marker
//! with its error bars, and a hover title per point. No ideal line, no peak.

use std::collections::BTreeMap;

use plotters::prelude::*;

use super::canvas::{Area, Axis, Chart, DrawResult, MARGIN, TEXT, colour, font};
use super::numbers::{ChartData, Point, RatioPanel, Series};
use super::spec::{Aggregate, ChartSpec, Scale};
use super::svg::{INK, Svg};
use super::ticks::{axes, y_label_area};
use super::{marks, ticks};
use crate::analysis::queries::filter::{Grouped, KeyPart};
use crate::analysis::statistics::estimators::{self, Estimator, Name};
use crate::analysis::statistics::model::Sample;
use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::format;

/// The panel of `spec` when it asks for one, from the chart's `groups`
/// (series key, x) and its drawn `series`; errors at `ratio`.
pub(super) fn compute(
    spec: &ChartSpec,
    groups: &[Grouped],
    series: &[Series],
    config: &Config,
) -> Result<Option<RatioPanel>, Diagnostic> {
    if !spec.ratio {
        return Ok(None);
    }
    if !spec.kind.chart().ratio_panel() {
        return Err(error(
            spec,
            "`ratio` draws a panel under a `line` chart only".into(),
            "remove `ratio`, or use `kind = \"line\"`; a `relative` chart shows the difference from the baseline itself".into(),
        ));
    }
    let (base, cand) = pair(spec, series, config)?;
    let samples = samples(groups, [&base.key, &cand.key]);
    let estimator = estimators::of(match spec.aggregate {
        Aggregate::Mean => Name::Mean,
        Aggregate::Median => Name::Median,
    });
    let (empty, none) = (BTreeMap::new(), BTreeMap::new());
    let b_side = samples.get(&base.key).unwrap_or(&empty);
    let c_side = samples.get(&cand.key).unwrap_or(&none);
    let mut points = Vec::new();
    let mut model_name = "";
    for (x, b) in b_side {
        let Some(c) = c_side.get(x) else { continue };
        let (point, model) = point(spec, estimator, [(&base.key, b), (&cand.key, c)], x)?;
        points.push(point);
        model_name = model;
    }
    if points.is_empty() {
        return Err(error(
            spec,
            format!(
                "`{}` and `{}` have no x in common, so there is no ratio to draw",
                base.key, cand.key
            ),
            "plot a column both environments ran at the same x values, or remove `ratio`".into(),
        ));
    }
    Ok(Some(RatioPanel {
        label: format!("{} ÷ {}", cand.label, base.label),
        key: cand.key.clone(),
        style: cand.style,
        model: model_name,
        points,
    }))
}

/// The ratio at `x` of the candidate's sample to the baseline's (`sides`:
/// baseline first), with the name of its model; an error where a side's
/// mean (median) is not positive or the ratio is not finite.
fn point(
    spec: &ChartSpec,
    estimator: &dyn Estimator,
    sides: [(&String, &Sample); 2],
    x: &KeyPart,
) -> Result<(Point, &'static str), Diagnostic> {
    for (key, s) in sides {
        let centre = estimator.centre(s);
        if centre <= 0.0 || !centre.is_finite() {
            return Err(not_positive(spec, estimator, key, x, centre));
        }
    }
    let [(_, b), (_, c)] = sides;
    let e = estimator.compare(c, b).ok_or_else(|| {
        error(
            spec,
            format!("no Hodges–Lehmann ratio at x = {x}: the baseline's median is 0"),
            "use `aggregate = \"mean\"`".into(),
        )
    })?;
    let finite =
        e.ratio.is_finite() && e.ci.is_none_or(|[lo, hi]| lo.is_finite() && hi.is_finite());
    if !finite {
        return Err(error(
            spec,
            format!("the ratio at x = {x} is not finite"),
            "the values overflow: leave those rows out with `where`".into(),
        ));
    }
    let x = match x {
        KeyPart::Number(v) => *v,
        KeyPart::Text(_) => f64::NAN,
    };
    let n = c.summary.n.min(b.summary.n);
    let ci = e.ci.filter(|_| spec.error_bars);
    let runs = Vec::new();
    let model = crate::prose::metric::model_words(e.model);
    Ok((Point { x, y: e.ratio, ci, n, significant: e.significant(), runs }, model))
}

/// The baseline and the one candidate among `series`, or an error naming
/// what the chart has and the `where` that keeps two.
fn pair<'s>(
    spec: &ChartSpec,
    series: &'s [Series],
    config: &Config,
) -> Result<(&'s Series, &'s Series), Diagnostic> {
    let baseline = config.study.baseline.as_str();
    let base = series.iter().find(|s| s.key == baseline);
    let others: Vec<&Series> = series.iter().filter(|s| s.key != baseline).collect();
    let names = |list: &[&Series]| {
        list.iter().map(|s| format!("`{}`", s.key)).collect::<Vec<_>>().join(", ")
    };
    let (message, hint) = match (base, others.as_slice()) {
        (Some(base), [cand]) => return Ok((base, cand)),
        (None, _) => (
            format!(
                "`ratio` divides by the baseline `{baseline}`, which the chart does not have (it has {})",
                if others.is_empty() { "no series".to_string() } else { names(&others) }
            ),
            "keep the baseline's rows in `where`, or remove `ratio`".to_string(),
        ),
        (Some(_), []) => (
            format!(
                "`ratio` needs a series besides the baseline `{baseline}`, and the chart has none"
            ),
            "keep a candidate's rows in `where`, or remove `ratio`".to_string(),
        ),
        (Some(_), [first, ..]) => {
            let column = spec.series.as_deref().unwrap_or(&config.study.environment_column);
            (
                format!(
                    "`ratio` compares the baseline `{baseline}` with one other series, and the chart has {}: {}",
                    others.len(),
                    names(&others)
                ),
                format!(
                    "keep two with `where = {{ {column} = [\"{baseline}\", \"{}\"] }}`, or remove `ratio`",
                    first.key
                ),
            )
        }
    };
    Err(error(spec, message, hint))
}

/// The samples of the two series `keys` by x, with their values for rank statistics.
fn samples(groups: &[Grouped], keys: [&String; 2]) -> BTreeMap<String, BTreeMap<KeyPart, Sample>> {
    let mut out: BTreeMap<String, BTreeMap<KeyPart, Sample>> = BTreeMap::new();
    for g in groups {
        let key = g.key[0].to_string();
        if !keys.contains(&&key) {
            continue;
        }
        if let Some(sample) = Sample::of(&g.samples[0]) {
            out.entry(key).or_default().insert(g.key[1].clone(), sample);
        }
    }
    out
}

/// The error for a mean (or median) of `key` at `x` that a ratio cannot divide by or take the log of.
fn not_positive(
    spec: &ChartSpec,
    estimator: &dyn Estimator,
    key: &str,
    x: &KeyPart,
    v: f64,
) -> Diagnostic {
    let what = estimator.words();
    let v = crate::format::minus(&crate::format::compact(v));
    error(
        spec,
        format!("the {} of `{key}` at x = {x} is {v}, and the ratio panel needs positive {} (its interval is on the log scale)", what.name, what.plural),
        "plot a column whose values are positive (a time, a throughput), or leave those rows out with `where`".into(),
    )
}

/// The error `message` at the chart's `ratio`.
fn error(spec: &ChartSpec, message: String, hint: String) -> Diagnostic {
    Diagnostic::new(spec.key_location("ratio"), format!("chart `{}`: {message}", spec.id))
        .hint(hint)
}

/// Name of the panel's y axis.
const Y_LABEL: &str = "ratio (×)";

/// The panel's y axis: every ratio and interval end, and 1.
fn y_axis(panel: &RatioPanel) -> Axis {
    let ends = |p: &Point| [Some(p.y), p.ci.map(|c| c[0]), p.ci.map(|c| c[1])];
    let values = panel.points.iter().flat_map(ends).flatten().chain([1.0]);
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    let (range, ticks) = ticks::linear_axis(lo, hi, 2.0);
    Axis { range, ticks }
}

/// The room the panel's y labels and axis name need.
pub(super) fn y_area(panel: &RatioPanel) -> u32 {
    y_label_area(&y_axis(panel), Scale::Linear)
}

/// Draw `panel` on `area`, on the x axis of `data`'s plot, its y labels in
/// `y_area` pixels (the plot's, so that both start at the same x).
pub(super) fn plot(
    spec: &ChartSpec,
    data: &ChartData,
    panel: &RatioPanel,
    area: &Area,
    y_area: u32,
    svg: &Svg,
) -> Result<(), Box<dyn std::error::Error>> {
    let (x_axis, _) = axes(spec, data, &ticks::x_values(data), Scale::Linear);
    let y = y_axis(panel);
    let mut builder = ChartBuilder::on(area);
    builder
        .margin(MARGIN)
        .margin_top(2)
        .margin_right(MARGIN + 8)
        .x_label_area_size((TEXT * 3.2) as u32)
        .y_label_area_size(y_area)
        .caption(&panel.label, font(TEXT));
    let mut chart = builder.build_cartesian_2d(x_axis.clone(), y)?;
    mesh(&mut chart, svg, spec, data)?;
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(x_axis.range.start, 1.0), (x_axis.range.end, 1.0)],
        INK.stroke_width(1),
    )))?;
    let at = |p: &Point| (spec.x_scale.forward(p.x), p.y);
    svg.open_series(panel.style);
    marks::line(&mut chart, svg, panel.style, panel.points.iter().map(at).collect())?;
    for p in &panel.points {
        if let Some([lo, hi]) = p.ci {
            let (x, y) = at(p);
            let stroke = colour(panel.style).stroke_width(1);
            chart.draw_series(std::iter::once(ErrorBar::new_vertical(x, lo, y, hi, stroke, 8)))?;
        }
        svg.point(chart.backend_coord(&at(p)), panel.style, &hover_text(spec, data, panel, p));
    }
    chart.draw_series(panel.points.iter().map(|p| marks::marker(at(p), panel.style)))?;
    svg.close();
    Ok(())
}

/// The panel's axes: the chart's x labels and name, the ratio's ticks.
fn mesh(chart: &mut Chart, svg: &Svg, spec: &ChartSpec, data: &ChartData) -> DrawResult {
    let x_unit = spec.x_unit.as_deref();
    let x_format = |v: &f64| ticks::label(spec.x_scale.inverse(*v), x_unit);
    let y_format = |v: &f64| ticks::value(*v);
    super::canvas::mesh(chart, svg, [&data.x_label, Y_LABEL], &x_format, &y_format)
}

/// The hover title of a ratio: what is divided, x with its axis name, the
/// ratio (and as a difference in %), its interval and the runs.
pub(super) fn hover_text(
    spec: &ChartSpec,
    data: &ChartData,
    panel: &RatioPanel,
    p: &Point,
) -> String {
    let x = ticks::label(p.x, spec.x_unit.as_deref());
    let number = format::value;
    let ci =
        p.ci.map(|[lo, hi]| format!(", 95% CI {} to {}", number(lo), number(hi)))
            .unwrap_or_default();
    let difference = format::minus(&format::signed_percent(p.y - 1.0, 1));
    format!(
        "{}: {} {x}, ratio {} ({difference}){ci}, n = {}",
        panel.label,
        data.x_label,
        number(p.y),
        p.n
    )
}

#[cfg(test)]
mod tests {
    use crate::charts::{data, spec};
    use crate::diagnostic::Location;
    use crate::results::{Column, ResultSet, Table, Values};

    const BOOK: &str = "[book]\ntitle = \"t\"\ndate = \"2024-01-02\"\n\n[study]\nbaseline = \"base\"\n\n\
                        [environments.base]\nlabel = \"Base\"\n\n[environments.cand]\nlabel = \"Cand\"\n";

    /// Base 10, 12, 14 and 8, 10, 12; cand 15, 18, 21 and 7, 8, 9, at p = 1 and 2
    /// (and a third environment `other` when `three`).
    fn results(three: bool) -> ResultSet {
        let mut rows: Vec<(&str, f64, f64)> = Vec::new();
        for (env, p, ys) in [
            ("base", 1.0, [10.0, 12.0, 14.0]),
            ("base", 2.0, [8.0, 10.0, 12.0]),
            ("cand", 1.0, [15.0, 18.0, 21.0]),
            ("cand", 2.0, [7.0, 8.0, 9.0]),
            ("other", 1.0, [1.0, 2.0, 3.0]),
        ] {
            if env != "other" || three {
                rows.extend(ys.iter().map(|&y| (env, p, y)));
            }
        }
        let column = |name: &str, values| Column { name: name.into(), values };
        let table = Table {
            name: "d".into(),
            path: "results/d.csv".into(),
            columns: vec![
                column("environment", Values::Text(rows.iter().map(|r| r.0).collect())),
                column("p", Values::Number(rows.iter().map(|r| r.1).collect())),
                column("t", Values::Number(rows.iter().map(|r| r.2).collect())),
            ],
            lines: (2..rows.len() as u32 + 2).collect(),
        };
        ResultSet { tables: [("d".to_string(), table)].into() }
    }

    /// The data of a chart of `kind` with `ratio = true` and the `extra` keys.
    fn compute(
        kind: &str,
        extra: &str,
        three: bool,
    ) -> Result<crate::charts::numbers::ChartData, String> {
        let config = crate::config::parse("book.toml".as_ref(), BOOK).unwrap();
        let body = format!(
            "id = \"r\"\nkind = \"{kind}\"\ndata = \"d\"\nx = \"p\"\ny = \"t\"\nratio = true\n{extra}"
        );
        let spec = spec::parse(&body, &Location::new("c.md", 1, 1)).unwrap();
        data::compute(&spec, &results(three), &[], &config).map_err(|d| d.to_string())
    }

    // Expected values from scipy 1.17.1 (the log-scale Welch interval as
    // analysis/model.rs defines it, written out in Python): at p = 1,
    // R = 18/12 = 1.5, se² = (3/18)²/3 + (2/12)²/3 = 1/54, df = 4, CI
    // 1.5·exp(∓2.776445·0.136083) = 1.028024 to 2.188664; at p = 2,
    // R = 8/10 = 0.8, df = 3.3556, CI 0.531723 to 1.203633.
    #[test]
    fn the_ratio_and_its_interval_by_hand() {
        let data = compute("line", "", false).unwrap();
        let panel = data.ratio.expect("a ratio panel");
        assert_eq!(panel.label, "Cand ÷ Base");
        assert_eq!(panel.key, "cand");
        let expected = [
            (1.0, 1.5, 1.028_024_280_091_643, 2.188_664_259_757_973_5),
            (2.0, 0.8, 0.531_723_458_887_126_8, 1.203_633_184_323_842_4),
        ];
        assert_eq!(panel.points.len(), 2);
        for (p, (x, r, lo, hi)) in panel.points.iter().zip(expected) {
            let [l, h] = p.ci.unwrap();
            assert_eq!(p.x, x);
            assert!((p.y - r).abs() < 1e-12, "{p:?}");
            assert!((l - lo).abs() < 1e-9 && (h - hi).abs() < 1e-9, "{p:?}");
            assert_eq!(p.n, 3);
        }
        assert_eq!(panel.points[0].significant, Some(true));
        assert_eq!(panel.points[1].significant, Some(false));
    }

    #[test]
    fn a_ratio_panel_needs_a_line_chart_and_two_environments() {
        let err = compute("speedup", "", false).unwrap_err();
        assert!(
            err.starts_with("c.md:7:9: chart `r`: `ratio` draws a panel under a `line` chart only"),
            "{err}"
        );
        let err = compute("line", "", true).unwrap_err();
        assert!(err.contains("`ratio` compares the baseline `base` with one other series, and the chart has 2: `cand`, `other`"), "{err}");
        assert!(
            err.contains("keep two with `where = { environment = [\"base\", \"cand\"] }`"),
            "{err}"
        );
    }

    // With `aggregate = "median"`, the Hodges–Lehmann ratio: the median of the
    // nine ratios c/b. At p = 1, sorted: 15/14, 15/12, 18/14, 15/10, 18/12,
    // 21/14 (the middle three all 1.5), 21/12, 18/10, 21/10: 1.5. At p = 2:
    // 7/12, 8/12, 7/10, 9/12, 8/10, 7/8, 9/10, 8/8, 9/8: 0.8.
    #[test]
    fn a_median_chart_gets_the_hodges_lehmann_ratio() {
        let panel = compute("line", "aggregate = \"median\"\n", false).unwrap().ratio.unwrap();
        assert_eq!(panel.model, "Hodges–Lehmann ratio, Mann–Whitney U");
        let ratios: Vec<f64> = panel.points.iter().map(|p| p.y).collect();
        assert!((ratios[0] - 1.5).abs() < 1e-12 && (ratios[1] - 0.8).abs() < 1e-12, "{ratios:?}");
    }
}
