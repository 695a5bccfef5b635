//! Chart directives: a ```` ```chart ```` fenced block holding TOML, parsed into
//! a [`ChartSpec`] with `deny_unknown_fields`.

use crate::math;
use std::collections::BTreeMap;

use serde::Deserialize;

use crate::config::spans::Spans;
use crate::config::{Better, FilterValue};
use crate::diagnostic::{Diagnostic, Location};

/// One chart, as the author wrote it. Every key is documented in docs/charts.md.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ChartSpec {
    /// Identifier: lowercase letters, digits and `-`; referenced as `@fig-ID`.
    pub id: String,
    /// What the chart shows: one of the kinds below.
    pub kind: Kind,
    /// Results file: a stem (`lammps`) or file name (`lammps.csv`).
    pub data: String,
    /// Column on the x axis, numeric; required except on a `box-plot`, whose
    /// x may also be a text column (boxes grouped by its values, in the
    /// column's order, or book.toml's for the environment column) or left
    /// out: one box per series, each named under the axis by its label
    /// (alternatives compared on one workload, such as the commands of one
    /// `hyperfine` run).
    #[serde(default)]
    pub x: Option<String>,
    /// Column on the y axis (the measured value).
    pub y: String,
    /// Column whose values become separate series; default: the environment column.
    #[serde(default)]
    pub series: Option<String>,
    /// Row filter, as a metric's `where`: `{ procs = 32 }`, `{ size_bytes = { min = 1 } }`.
    #[serde(default, rename = "where")]
    pub filter: BTreeMap<String, FilterValue>,
    /// How runs are combined per point: `mean` (with 95% CI error bars) or `median`.
    #[serde(default)]
    pub aggregate: Aggregate,
    /// Draw 95% CI error bars (`line` with `mean`, and `relative`); default true.
    #[serde(default = "yes")]
    pub error_bars: bool,
    /// Scale of the x axis: `linear`, `log2` or `log10`.
    #[serde(default)]
    pub x_scale: Scale,
    /// Scale of the y axis: `linear`, `log2` or `log10` (an error on `relative`,
    /// whose bars cross zero). With `kind = "speedup"`, `x-scale = "log2"`,
    /// `y-scale = "log10"` and `ideal = true` a scaling study gets a log–log
    /// speedup chart whose ideal line is the diagonal.
    #[serde(default)]
    pub y_scale: Scale,
    /// Unit of x values: `bytes` labels ticks in B, KiB and MiB; other text is
    /// appended to the axis label only.
    #[serde(default)]
    pub x_unit: Option<String>,
    /// Axis label of x, with its unit; default: the column name.
    #[serde(default)]
    pub x_label: Option<String>,
    /// Axis label of y, with its unit; default: the column name.
    #[serde(default)]
    pub y_label: Option<String>,
    /// Title drawn above the chart.
    #[serde(default)]
    pub title: Option<String>,
    /// Caption under the figure, in the page and the paper.
    #[serde(default)]
    pub caption: Option<String>,
    /// Draw ideal linear scaling from the smallest x (`line`, `speedup`, `efficiency`).
    #[serde(default)]
    pub ideal: bool,
    /// Mark the highest point of each series with a ring, and name it in the
    /// legend ("Bare metal (peak at 64 KiB)").
    #[serde(default)]
    pub mark_peak: bool,
    /// For `speedup` and `efficiency`: `higher` when y is a throughput, `lower` when a time.
    #[serde(default = "higher")]
    pub better: Better,
    /// For `line` charts of the baseline and one other environment: a panel
    /// under the plot, on the same x axis, of the ratio candidate ÷ baseline
    /// per x (× on a linear axis, reference line at 1) with its 95% CI
    /// (unless `error-bars = false`) from the study's model: the ratio of means with Welch's t on the log scale
    /// (an interval that stays above 0, as the relative chart's never crosses
    /// −100%), or with `aggregate = "median"`
    /// the Hodges–Lehmann ratio with its Mann–Whitney interval. On the page
    /// the ratio has a data table of its own; the CSV has its columns beside
    /// the candidate's points. An error on other kinds, with other
    /// than two environments, or where a mean (median) is not positive.
    #[serde(default)]
    pub ratio: bool,
    /// Where the directive is (filled in by the parser).
    #[serde(skip)]
    pub location: Option<Location>,
    /// Where each value of the body is (filled in by the parser).
    #[serde(skip)]
    pub key_at: crate::config::spans::Locations,
}

impl ChartSpec {
    /// The column on the x axis, if any.
    pub fn x_column(&self) -> Option<&str> {
        self.x.as_deref()
    }

    /// Where the directive is: its fence line.
    pub fn at(&self) -> Location {
        self.location.clone().unwrap_or_else(|| Location::file("content"))
    }

    /// The location of the value of `key` in the block, or of the block itself.
    pub fn key_location(&self, key: &str) -> Location {
        self.key_at.or(key, &self.at())
    }

    /// A problem with the chart as a whole, at its directive.
    pub(super) fn error(&self, message: String, hint: String) -> Diagnostic {
        Diagnostic::new(self.at(), format!("chart `{}`: {message}", self.id)).hint(hint)
    }

    /// A problem with the chart's `key`, at its value in the directive.
    pub(super) fn key_error(&self, key: &str, message: String, hint: String) -> Diagnostic {
        Diagnostic::new(self.key_location(key), format!("chart `{}`: {message}", self.id))
            .hint(hint)
    }
}

fn yes() -> bool {
    true
}

fn higher() -> Better {
    Better::Higher
}

/// What a chart shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// y against x, one line per series, with CI error bars.
    Line,
    /// Bars of each candidate environment against the baseline in %, per x.
    Relative,
    /// Speedup against the smallest x, per environment.
    Speedup,
    /// Parallel efficiency against the smallest x, per environment.
    Efficiency,
    /// The runs of each x value, per environment, as a box (quartiles and
    /// median) with whiskers at the most extreme runs within 1.5 IQR of the
    /// quartiles and the runs beyond as rings. Without `x`, one box per
    /// series (alternatives on one workload); with a text `x`, boxes grouped
    /// by its values and coloured by series.
    BoxPlot,
    /// The study's history across versions (`[history]`, docs/history.md):
    /// `data` and `y` name its table and value, and x is its versions in
    /// order. Every run is a faint point and each version's median a line,
    /// broken at versions without runs; each change point found is a
    /// dashed rule where its new level begins, over a band between the
    /// versions it may lie between; each point's tooltip names the version
    /// and its commit subject. No `x`, `series` or `where`: every series
    /// (configuration) of the history is drawn.
    History,
}

/// How runs are combined into one point.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aggregate {
    /// Arithmetic mean, with a 95% CI from Student's t.
    #[default]
    Mean,
    /// Median, without error bars.
    Median,
}

/// An axis scale.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scale {
    /// Linear.
    #[default]
    Linear,
    /// Logarithmic, base 2.
    Log2,
    /// Logarithmic, base 10.
    Log10,
}

impl Scale {
    /// The value on the drawn (transformed) axis.
    pub fn forward(self, v: f64) -> f64 {
        match self {
            Scale::Linear => v,
            Scale::Log2 => math::log2(v),
            Scale::Log10 => math::log10(v),
        }
    }

    /// The value a drawn coordinate stands for.
    pub fn inverse(self, v: f64) -> f64 {
        match self {
            Scale::Linear => v,
            Scale::Log2 => v.exp2(),
            Scale::Log10 => math::powf(10.0, v),
        }
    }

    /// True for logarithmic scales, which refuse values ≤ 0.
    pub fn is_log(self) -> bool {
        self != Scale::Linear
    }
}

/// Parse the TOML body of a chart block that starts at `location` (the fence line);
/// errors point at the offending line inside the block.
pub fn parse(body: &str, location: &Location) -> Result<ChartSpec, crate::diagnostic::Diagnostic> {
    // A span of the body as a location in the file: the body starts on the
    // line after the fence.
    let locate = |span: std::ops::Range<usize>| {
        let inner = Location::at_offset(&location.path, body, span.start);
        Location::new(&location.path, location.line + inner.line, inner.column)
    };
    let (mut spec, spans): (ChartSpec, Spans) = Spans::parse(body).map_err(|err| {
        let at = locate(err.span().unwrap_or(0..0));
        let message = err.message().trim_end_matches('.');
        crate::diagnostic::Diagnostic::new(
            at,
            format!("chart: {}", crate::diagnostic::lowercase_first(message)),
        )
        .hint("see docs/charts.md for the keys a chart accepts")
    })?;
    spec.location = Some(location.clone());
    spec.key_at = spans.locations("", locate);
    if spec.id.is_empty()
        || !spec.id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Err(crate::diagnostic::Diagnostic::new(
            spec.key_location("id"),
            format!("chart: invalid id `{}`", spec.id),
        )
        .hint("use lowercase letters, digits and `-`, such as `scaling` or `osu-latency`"));
    }
    if spec.x.is_none() && !spec.kind.chart().text_x() {
        return Err(spec.error(
            "missing field `x`: a chart of this kind plots against a numeric column".into(),
            "name the column on the x axis with `x = \"...\"`; to compare alternatives \
             without a numeric parameter, draw `kind = \"box-plot\"`, which needs no `x`"
                .into(),
        ));
    }
    spec.kind.chart().check(&spec)?;
    Ok(spec)
}

/// The line chart of `d` with x `s`, y `column` and `extra` keys, as a
/// directive at `c.md:1:1` would give it (for tests).
#[cfg(test)]
pub(crate) fn line_of(column: &str, extra: &str) -> ChartSpec {
    let at = Location::new("c.md", 1, 1);
    let body =
        format!("id = \"c\"\nkind = \"line\"\ndata = \"d\"\nx = \"s\"\ny = \"{column}\"\n{extra}");
    parse(&body, &at).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_point_into_the_block() {
        let at = Location::new("content/a.md", 10, 1);
        let err = parse("id = \"a\"\nkind = \"line\"\ncolour = 1\n", &at).unwrap_err().to_string();
        assert!(err.starts_with("content/a.md:13:1: chart: unknown field `colour`"), "{err}");
    }

    #[test]
    fn unknown_kinds_list_the_choices() {
        let at = Location::new("content/a.md", 1, 1);
        let err = parse("id = \"a\"\nkind = \"pie\"\ndata = \"d\"\nx = \"x\"\ny = \"y\"\n", &at)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("unknown variant `pie`, expected one of `line`, `relative`, `speedup`"),
            "{err}"
        );
    }

    #[test]
    fn ids_are_restricted() {
        let at = Location::new("content/a.md", 1, 1);
        let err = parse("id = \"A b\"\nkind = \"line\"\ndata = \"d\"\nx = \"x\"\ny = \"y\"\n", &at)
            .unwrap_err()
            .to_string();
        assert!(err.contains("invalid id `A b`"), "{err}");
    }
}
