//! Axis ranges and tick positions in drawn (possibly logarithmic) space, and
//! tick labels: powers of two for log2 axes, B/KiB/MiB for byte axes.

use crate::math;
use std::ops::Range;

use super::canvas::{Axis, SIZE, TEXT, text_width};
use super::numbers::ChartData;
use super::spec::{ChartSpec, Scale};
use crate::format;

/// Most ticks on an axis.
const MAX_TICKS: usize = 12;

/// Distinct x values of all series, ascending.
pub fn x_values(data: &ChartData) -> Vec<f64> {
    let mut xs: Vec<f64> = data.series.iter().flat_map(|s| s.points.iter().map(|p| p.x)).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    xs
}

/// Every y the chart must show: points, interval ends and the runs drawn
/// (not the ideal line, which is clipped to them, so that it cannot
/// squeeze the data).
pub fn y_values(data: &ChartData) -> impl Iterator<Item = f64> + '_ {
    let points = data.series.iter().flat_map(|s| s.points.iter());
    points.flat_map(|p| {
        let ends = [Some(p.y), p.ci.map(|c| c[0]), p.ci.map(|c| c[1])];
        ends.into_iter().flatten().chain(p.runs.iter().copied())
    })
}

/// Every k-th tick, k the smallest of 1, 2, 5, 10, 20, 50, … for which the
/// labels (each `width(t)` wide with its gap) fit in `room`: on a log2 byte
/// axis every 10th tick is 1 B, 1 KiB, 1 MiB.
pub fn thin(ticks: Vec<f64>, width: impl Fn(f64) -> f64, room: f64) -> Vec<f64> {
    let widest = ticks.iter().map(|t| width(*t)).fold(0.0, f64::max);
    let fits = ((room / widest.max(1.0)).floor() as usize).max(2);
    let k = (0..)
        .flat_map(|p| [1, 2, 5].map(|m| m * 10usize.pow(p)))
        .find(|k| ticks.len().div_ceil(*k) <= fits)
        .unwrap_or(1);
    ticks.into_iter().step_by(k).collect()
}

/// One slot per x value, for bars and boxes.
pub fn categories(xs: &[f64]) -> (Range<f64>, Vec<f64>) {
    (-0.5..xs.len() as f64 - 0.5, (0..xs.len()).map(|i| i as f64).collect())
}

/// The label of `x` in `data`: its category's, or the number as `unit`
/// shows it.
pub fn x_text(data: &ChartData, x: f64, unit: Option<&str>) -> String {
    match &data.x_levels {
        Some(levels) => levels.get(x as usize).cloned().unwrap_or_default(),
        None => label(x, unit),
    }
}

/// The label of category slot `v` of `data`, whose x values are `xs`;
/// empty for a text x, whose kind draws its labels itself.
pub fn label_category(v: f64, xs: &[f64], data: &ChartData, unit: Option<&str>) -> String {
    let i = v.round();
    if (v - i).abs() > 1e-6 || i < 0.0 || data.x_levels.is_some() {
        return String::new();
    }
    xs.get(i as usize).map(|x| label(*x, unit)).unwrap_or_default()
}

/// Range and ticks (in drawn space) covering `values` on `scale`.
pub fn axis(
    values: impl Iterator<Item = f64>,
    scale: Scale,
    include_zero: bool,
) -> (Range<f64>, Vec<f64>) {
    let drawn: Vec<f64> = values
        .filter(|v| v.is_finite() && (!scale.is_log() || *v > 0.0))
        .map(|v| scale.forward(v))
        .collect();
    let (mut lo, mut hi) =
        drawn.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    if !lo.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    if include_zero && !scale.is_log() {
        lo = lo.min(0.0);
        hi = hi.max(0.0);
    }
    if hi - lo < 1e-9 {
        hi = lo + 1.0;
    }
    if scale.is_log() { log_axis(lo, hi, scale) } else { linear_axis(lo, hi, 6.0) }
}

/// A linear axis from `lo` to `hi` cut into about `intervals` nice steps,
/// its ends on ticks.
pub fn linear_axis(lo: f64, hi: f64, intervals: f64) -> (Range<f64>, Vec<f64>) {
    let hi = if hi - lo < 1e-9 { lo + 1.0 } else { hi };
    let step = nice_step((hi - lo) / intervals);
    let (first, last) = ((lo / step).floor() * step, (hi / step).ceil() * step);
    let count = ((last - first) / step).round() as usize;
    let ticks = (0..=count).map(|i| first + i as f64 * step).collect();
    (first..last, ticks)
}

/// A log axis from `lo` to `hi` (exponents): ticks at whole powers, thinned
/// past [`MAX_TICKS`]. A base-10 axis that spans too little for three powers
/// (14 to 100 s) gets ticks at 1, 2, 3 and 5 times each power, then at every
/// whole multiple, so that it is never left without labels.
fn log_axis(lo: f64, hi: f64, scale: Scale) -> (Range<f64>, Vec<f64>) {
    let (first, last) = (lo.floor(), hi.ceil());
    let span = (last - first) as usize;
    let step = (1..).find(|s| span / s < MAX_TICKS).unwrap_or(1) as f64;
    let pad = 0.04 * (hi - lo);
    let range = lo - pad..hi + pad;
    let inside = |t: &f64| *t >= range.start - 1e-9 && *t <= range.end + 1e-9;
    let powers: Vec<f64> = (0..=span)
        .map(|i| first + i as f64)
        .filter(|t| (t - first) % step == 0.0 && inside(t))
        .collect();
    if scale != Scale::Log10 || powers.len() >= 3 {
        return (range, powers);
    }
    let multiples = |ms: &[f64]| -> Vec<f64> {
        (first as i32 - 1..=last as i32)
            .flat_map(|k| ms.iter().map(move |m| math::log10(m * 10f64.powi(k))))
            .filter(inside)
            .collect()
    };
    let ticks = multiples(&[1.0, 2.0, 3.0, 5.0]);
    if ticks.len() >= 3 {
        return (range, ticks);
    }
    let every = multiples(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    (range, every)
}

/// 1, 2 or 5 times a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let power = math::powf(10.0, math::log10(raw).floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|s| *s >= raw).unwrap_or(10.0 * power)
}

/// A tick or value label: bytes in binary units, other numbers compact.
pub fn label(v: f64, unit: Option<&str>) -> String {
    match unit {
        Some("bytes") => format::bytes(v),
        _ => value(v),
    }
}

/// A number as chart text, with a true minus sign.
pub fn value(v: f64) -> String {
    format::minus(&format::compact(v))
}

/// Room for the y tick labels and the axis name.
pub(super) fn y_label_area(y: &Axis, scale: Scale) -> u32 {
    let widest = y
        .ticks
        .iter()
        .map(|t| text_width(&label(scale.inverse(*t), None), TEXT))
        .fold(0.0, f64::max);
    (widest + TEXT * 2.4) as u32
}

/// The x and y axes in drawn space, with their ticks: one slot per x value for
/// a kind of chart that draws in slots (bars), else ranges covering every point on the chart's scales (an
/// ideal line never widens them: it is clipped); y starts from zero except on
/// a logarithmic axis (a log–log speedup chart with `y-scale`). x ticks are thinned until their labels fit.
pub(super) fn axes(spec: &ChartSpec, data: &ChartData, xs: &[f64], y_scale: Scale) -> (Axis, Axis) {
    let slots = spec.kind.chart().slots();
    let (x_axis, x_ticks) = if slots {
        categories(xs)
    } else if let Some(levels) = &data.x_levels {
        // Places in an order of named levels (versions), gaps included.
        let places: Vec<f64> = (0..levels.len()).map(|i| i as f64).collect();
        (categories(&places).0, places)
    } else {
        axis(data.series.iter().flat_map(|s| s.points.iter().map(|p| p.x)), spec.x_scale, false)
    };
    let include_zero = !y_scale.is_log() && spec.kind.chart().zero_based();
    let (y_axis, y_ticks) = axis(y_values(data), y_scale, include_zero);
    let x_label = |t: f64| {
        if slots {
            label_category(t, xs, data, spec.x_unit.as_deref())
        } else if data.x_levels.is_some() {
            x_text(data, t, None)
        } else {
            label(spec.x_scale.inverse(t), spec.x_unit.as_deref())
        }
    };
    let plot_width = f64::from(SIZE.0) - 130.0;
    let x_ticks = thin(x_ticks, |t| text_width(&x_label(t), TEXT) + 0.6 * TEXT, plot_width);
    (Axis { range: x_axis, ticks: x_ticks }, Axis { range: y_axis, ticks: y_ticks })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_ticks_are_powers_of_two() {
        let (range, ticks) = axis([1.0, 32.0].into_iter(), Scale::Log2, false);
        assert_eq!(ticks, vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        assert!(range.start < 0.0 && range.end > 5.0);
        let labels: Vec<String> =
            ticks.iter().map(|t| label(Scale::Log2.inverse(*t), None)).collect();
        assert_eq!(labels, ["1", "2", "4", "8", "16", "32"]);
    }

    #[test]
    fn log_ticks_stay_inside_the_range() {
        // 11.6 to 2808 on log10: 10, 100, 1000; not 10000, above the padded top.
        let (range, ticks) = axis([11.6, 2808.0].into_iter(), Scale::Log10, false);
        assert_eq!(ticks, vec![1.0, 2.0, 3.0]);
        assert!(range.end < 4.0);
    }

    #[test]
    fn narrow_log10_axes_get_ticks_between_the_powers() {
        // Loop times of 14 to 100 s: only 100 is a power of ten inside.
        let labels = |lo: f64, hi: f64| -> Vec<String> {
            let (_, ticks) = axis([lo, hi].into_iter(), Scale::Log10, false);
            ticks.iter().map(|t| label(Scale::Log10.inverse(*t), None)).collect()
        };
        assert_eq!(labels(14.0, 100.0), ["20", "30", "50", "100"]);
        assert_eq!(labels(14.0, 90.0), ["20", "30", "50"]);
        assert_eq!(labels(24.0, 66.0), ["30", "40", "50", "60"]);
    }

    #[test]
    fn wide_log_axes_thin_their_ticks() {
        let (_, ticks) = axis([1.0, 4194304.0].into_iter(), Scale::Log2, false);
        assert_eq!(ticks.len(), 12);
        assert_eq!(label(Scale::Log2.inverse(ticks[10]), Some("bytes")), "1 MiB");
    }

    #[test]
    fn crowded_ticks_keep_every_kth() {
        let ticks: Vec<f64> = (0..=22).map(f64::from).collect();
        // 23 labels 40 wide in 300: 7 fit, so every 5th (4 is not a round step).
        let kept = thin(ticks.clone(), |_| 40.0, 300.0);
        assert_eq!(kept, vec![0.0, 5.0, 10.0, 15.0, 20.0]);
        // 3 fit: every 10th, the powers of 1024 on a byte axis.
        assert_eq!(thin(ticks, |_| 100.0, 300.0), vec![0.0, 10.0, 20.0]);
        assert_eq!(thin(vec![1.0, 2.0], |_| 40.0, 300.0), vec![1.0, 2.0]);
    }

    #[test]
    fn negative_labels_have_a_true_minus() {
        assert_eq!(value(-20.0), "\u{2212}20");
    }

    #[test]
    fn linear_ticks_are_nice_and_include_zero() {
        let (range, ticks) = axis([3.0, 47.0].into_iter(), Scale::Linear, true);
        assert_eq!(range, 0.0..50.0);
        assert_eq!(ticks, vec![0.0, 10.0, 20.0, 30.0, 40.0, 50.0]);
    }
}
