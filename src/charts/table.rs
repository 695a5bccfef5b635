//! The numbers behind a chart, as a table: labelled columns (the axes' names
//! with their units, the environments' labels from book.toml) and the values
//! as numbers, formatted only where they are shown: as `format::value`
//! writes them on the page (three significant digits, as everywhere), six
//! significant digits in the CSV download.

use super::numbers::ChartData;
use super::numbers::RatioPanel;
use super::spec::ChartSpec;
use crate::format;

/// Significant digits of a value in the CSV download.
pub const CSV_DIGITS: usize = 6;

/// One row: the series' label and its numbers (x, y, the CI's ends when the
/// chart has intervals, the ratio and its CI's ends on the candidate's rows
/// when it has a ratio panel, n).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The series' label.
    pub series: String,
    /// x, y, [CI low, CI high,] [ratio, its CI low, high,] n; `None` for a
    /// missing interval and for the ratio on the baseline's rows.
    pub values: Vec<Option<f64>>,
}

/// The table behind a chart.
#[derive(Debug, Clone, PartialEq)]
pub struct DataTable {
    /// Column headers: the series column first.
    pub header: Vec<String>,
    /// One row per point, series in book.toml's order.
    pub rows: Vec<Row>,
    /// Unit of x values (`bytes` shows as B, KiB, MiB on the page).
    pub x_unit: Option<String>,
    /// The x header of the CSV, whose x values are plain numbers: the axis
    /// label with its unit, `message size (bytes)`.
    pub csv_x_header: String,
    /// The columns of the ratio panel (the ratio and its CI's ends), as
    /// indices of `header`, when the chart has one: the page shows them as a
    /// table of their own, the CSV beside the points.
    pub ratio_columns: Option<std::ops::Range<usize>>,
    /// What the x column (the first value of a row) holds.
    pub x: XColumn,
}

/// The x column of a table.
#[derive(Debug, Clone, PartialEq)]
pub enum XColumn {
    /// x values, numbers.
    Numbers,
    /// Categories: x values are indices of these labels.
    Levels(Vec<String>),
    /// No x column: the series are the categories (a box plot without `x`).
    Absent,
}

impl DataTable {
    /// The table of the points of `data` drawn for `spec`, the runs behind
    /// each under `runs` ("Runs (n)").
    pub fn of(spec: &ChartSpec, data: &ChartData, runs: &str) -> DataTable {
        let has_ci = data.series.iter().flat_map(|s| &s.points).any(|p| p.ci.is_some());
        let csv_x_header = match spec.x_unit.as_deref() {
            Some(unit) if !data.x_label.contains('(') => format!("{} ({unit})", data.x_label),
            _ => data.x_label.clone(),
        };
        // On the page a byte axis's values carry their unit (1 KiB).
        let x_header = if spec.x_unit.as_deref() == Some("bytes") {
            data.x_label.clone()
        } else {
            csv_x_header.clone()
        };
        let series_header = if spec.series.is_some() { "Series" } else { "Environment" };
        let mut header = vec![series_header.to_string(), x_header, data.y_label.clone()];
        if has_ci {
            header.extend(["95% CI, low".to_string(), "95% CI, high".to_string()]);
        }
        let ratio_ci = data.ratio.as_ref().is_some_and(|r| r.points.iter().any(|p| p.ci.is_some()));
        let ratio_start = header.len();
        if let Some(panel) = &data.ratio {
            header.push(format!("{} (×)", panel.label));
        }
        if ratio_ci {
            header.extend(["Ratio 95% CI, low".to_string(), "Ratio 95% CI, high".to_string()]);
        }
        let ratio_columns = data.ratio.as_ref().map(|_| ratio_start..header.len());
        header.push(runs.to_string());
        let rows = data
            .series
            .iter()
            .flat_map(|s| {
                s.points.iter().map(move |p| {
                    let mut values = vec![Some(p.x), Some(p.y)];
                    if has_ci {
                        values.extend([p.ci.map(|c| c[0]), p.ci.map(|c| c[1])]);
                    }
                    if let Some(panel) = &data.ratio {
                        let [r, lo, hi] = ratio_cells(panel, &s.key, p.x);
                        values.push(r);
                        if ratio_ci {
                            values.extend([lo, hi]);
                        }
                    }
                    values.push(Some(p.n as f64));
                    Row { series: s.label.clone(), values }
                })
            })
            .collect();
        let x = data.x_levels.clone().map_or(XColumn::Numbers, XColumn::Levels);
        DataTable { header, rows, x_unit: spec.x_unit.clone(), csv_x_header, ratio_columns, x }
    }

    /// The cells of row `row` for the page: x as its axis labels it, values
    /// as [`format::value`] writes them wherever they appear, n whole.
    pub fn page_cells(&self, row: &Row) -> Vec<String> {
        let last = row.values.len() - 1;
        row.values
            .iter()
            .enumerate()
            .map(|(i, v)| match (i, v) {
                (_, None) => String::new(),
                (0, Some(x)) if self.x != XColumn::Absent => {
                    self.x_cell(*x, || super::ticks::label(*x, self.x_unit.as_deref()))
                }
                (i, Some(v)) if i == last => format::plain(*v),
                (_, Some(v)) => format::value(*v),
            })
            .collect()
    }

    /// The cell of `x`: its category's label, or `number()`.
    fn x_cell(&self, x: f64, number: impl FnOnce() -> String) -> String {
        match &self.x {
            XColumn::Levels(levels) => levels.get(x as usize).cloned().unwrap_or_default(),
            _ => number(),
        }
    }

    /// The table as CSV text: the same headers, x and n exact, the other
    /// values to [`CSV_DIGITS`] significant digits.
    pub fn csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let mut header = self.header.clone();
        if let Some(x) = header.get_mut(1).filter(|_| self.x != XColumn::Absent) {
            x.clone_from(&self.csv_x_header);
        }
        let _ = writer.write_record(&header);
        for row in &self.rows {
            let last = row.values.len() - 1;
            let mut record = vec![row.series.clone()];
            let x = self.x != XColumn::Absent;
            record.extend(row.values.iter().enumerate().map(|(i, v)| match v {
                None => String::new(),
                Some(v) if i == 0 && x => self.x_cell(*v, || format::plain(*v)),
                Some(v) if i == last => format::plain(*v),
                Some(v) => trimmed(format::significant(*v, CSV_DIGITS)),
            }));
            let _ = writer.write_record(&record);
        }
        String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default()
    }
}

/// The ratio, its CI's ends at `x` on the candidate's rows (`key`); empty
/// on the baseline's.
fn ratio_cells(panel: &RatioPanel, key: &str, x: f64) -> [Option<f64>; 3] {
    let point = panel.points.iter().find(|p| p.x == x).filter(|_| key == panel.key);
    point.map_or([None; 3], |p| [Some(p.y), p.ci.map(|c| c[0]), p.ci.map(|c| c[1])])
}

/// A decimal without trailing zeros: `2.90000` → `2.9`, `10.0000` → `10`.
fn trimmed(text: String) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}
