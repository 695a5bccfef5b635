//! The last check of a chart's numbers: every point, interval and ideal line
//! is finite, so that no NaN or infinity reaches the SVG, its data table or
//! its CSV download; and there are few enough points to draw.

use super::numbers::ChartData;
use super::spec::ChartSpec;
use crate::diagnostic::Diagnostic;

/// Most points a chart draws: each is an SVG mark with a hover title and a
/// row of the data table, in the page and in the paper.
pub const MAX_POINTS: usize = 10_000;

/// An error at the chart's `x` or `y` for the first number of `data` that is
/// not finite, naming its series and x; or at `x` for more than
/// [`MAX_POINTS`] points.
pub(super) fn check(spec: &ChartSpec, data: &ChartData) -> Result<(), Diagnostic> {
    let points: usize = data.series.iter().map(|s| s.points.len()).sum();
    if points > MAX_POINTS {
        return Err(Diagnostic::new(
            spec.key_location("x"),
            format!("chart `{}` has {points} points; a chart draws at most {MAX_POINTS}", spec.id),
        )
        .hint("a point is one x value of one series: plot fewer x values (`where`), or a column with fewer distinct values"));
    }
    for series in &data.series {
        for point in &series.points {
            let mut numbers = vec![("x", "x", point.x), ("y", "y", point.y)];
            if let Some([lo, hi]) = point.ci {
                numbers.extend([("y", "lower end of the 95% CI", lo), ("y", "upper end", hi)]);
            }
            numbers.extend(point.runs.iter().map(|&run| ("y", "value of a run", run)));
            if let Some((key, what, number)) = numbers.into_iter().find(|n| !n.2.is_finite()) {
                let x = crate::format::plain(point.x);
                let message = format!("the {what} of `{}` at x = {x} is {number}", series.key);
                return Err(error(spec, key, message));
            }
        }
    }
    let log_y = spec.kind.chart().y_scale(spec).is_log();
    if let Some((s, p)) = data
        .series
        .iter()
        .find_map(|s| s.points.iter().find(|p| log_y && p.y <= 0.0).map(|p| (s, p)))
    {
        let x = crate::format::plain(p.x);
        let y = crate::format::minus(&crate::format::significant(p.y, 4));
        let message = format!("the log y axis cannot show the {y} of `{}` at x = {x}", s.key);
        return Err(error(spec, "y-scale", message));
    }
    let ideal = data.ideal.iter().flatten();
    if let Some((x, y)) = ideal.copied().find(|(x, y)| !x.is_finite() || !y.is_finite()) {
        let message = format!("the ideal line at x = {x} is at y = {y}");
        return Err(error(spec, "ideal", message));
    }
    Ok(())
}

/// The error `message` at `key` of the chart.
fn error(spec: &ChartSpec, key: &str, message: String) -> Diagnostic {
    Diagnostic::new(spec.key_location(key), format!("chart `{}`: {message}", spec.id)).hint(
        "a chart plots finite numbers only: its values overflow, or it divides by zero \
         (an x of 0 on an efficiency chart, a mean of 0): leave those rows out with `where`",
    )
}
