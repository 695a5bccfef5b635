//! The numbers behind a chart on the page: the points as a table with a
//! caption, labelled headers and right-aligned numbers, and, for a chart with a
//! ratio panel, the ratio as a table of its own.

use crate::charts::svg::escape;
use crate::charts::table::DataTable;

/// The page's tables of `table`, the data of Figure `number`. The ratio of a
/// ratio panel has a table of its own, one row per x on the candidate's rows
/// alone: beside the points it made nine columns, half of them empty on the
/// baseline's rows, wider than the chart's card.
pub(super) fn tables(table: &DataTable, number: usize) -> String {
    let ratio = table.ratio_columns.clone().unwrap_or_default();
    let points: Vec<usize> = (1..table.header.len()).filter(|i| !ratio.contains(i)).collect();
    let cells: Vec<Vec<String>> = table.rows.iter().map(|row| table.page_cells(row)).collect();
    let rows = table.rows.iter().zip(&cells).map(|(row, cells)| {
        (row.series.clone(), points.iter().map(|&i| cells[i - 1].clone()).collect())
    });
    let mut out = html_table(
        &format!("The numbers plotted in Figure {number}"),
        std::iter::once(0).chain(points.iter().copied()).map(|i| table.header[i].as_str()),
        rows,
        false,
    );
    if !ratio.is_empty() {
        // Rows of the ratio: where the candidate's row has one.
        let rows = table
            .rows
            .iter()
            .zip(&cells)
            .filter(|(row, _)| row.values[ratio.start - 1].is_some())
            .map(|(_, cells)| {
                (cells[0].clone(), ratio.clone().map(|i| cells[i - 1].clone()).collect())
            });
        let header = std::iter::once(1).chain(ratio.clone()).map(|i| table.header[i].as_str());
        let caption = format!("The ratio plotted in the panel of Figure {number}");
        out.push('\n');
        out.push_str(&html_table(&caption, header, rows, true));
    }
    out
}

/// A data table: `caption`, the column headers, and per row its header cell
/// (a number, right-aligned, if `numeric_rows`) and its numbers.
fn html_table<'a>(
    caption: &str,
    header: impl Iterator<Item = &'a str>,
    rows: impl Iterator<Item = (String, Vec<String>)>,
    numeric_rows: bool,
) -> String {
    let mut out =
        format!("<table class=\"data\">\n<caption>{}</caption>\n<thead><tr>", escape(caption));
    for (i, h) in header.enumerate() {
        let class = if i == 0 && !numeric_rows { "" } else { " class=\"num\"" };
        out.push_str(&format!("<th scope=\"col\"{class}>{}</th>", escape(h)));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    let row_class = if numeric_rows { " class=\"num\"" } else { "" };
    for (name, cells) in rows {
        out.push_str(&format!("<tr><th scope=\"row\"{row_class}>{}</th>", escape(&name)));
        for cell in cells {
            // Every data cell is a number: the stylesheet aligns `table.data td`.
            out.push_str(&format!("<td>{}</td>", escape(&cell)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>");
    out
}
