//! ReFrame performance logs (`perflogs/SYSTEM/PARTITION/TEST.log`), as
//! ReFrame 4's `filelog` handler writes them: a header line naming the
//! fields, then one line per test run, fields separated by `|` (or the
//! handler's separator). The layout is set by the site's configuration, so
//! the header is what is read: every field a column, each performance
//! variable (`VAR_value`, `VAR_unit`, `VAR_ref`, thresholds) a column with
//! its unit and reference, times in seconds.

use super::format::{self, Format, Input, Read, Table};
use super::{Note, Refusal};
use crate::format::plain;

/// `report import reframe`.
#[derive(Debug)]
pub struct Reframe;

/// Columns that tell test configurations apart, when the header has them
/// (sites log `name` or `display_name`).
const CONFIG: [&str; 5] = ["name", "display_name", "system", "partition", "environ"];

/// Separators a perflog's fields may be split by, the default first.
const SEPARATORS: [char; 4] = ['|', ',', ';', '\t'];

impl Format for Reframe {
    fn name(&self) -> &'static str {
        "reframe"
    }

    fn about(&self) -> &'static str {
        "Turn ReFrame perflogs into rows of results/reframe.csv, one per test run."
    }

    fn examples(&self) -> &'static str {
        "Examples:
  reframe -c checks/ -r --perflogdir=perflogs
  report import reframe --env cluster-a perflogs/"
    }

    fn columns(&self) -> &'static str {
        "One row per perflog line (a test run), every header field a column, each performance variable with its unit and reference (times in seconds, as VAR_s). Reads the header line ReFrame 4 writes. Goes to results/reframe.csv."
    }

    fn accepts(&self, path: &std::path::Path) -> Result<(), String> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("log") => Ok(()),
            _ => Err("not a perflog (ReFrame names them TEST.log)".into()),
        }
    }

    fn read(&self, file: &Input<'_>) -> Result<Read, Refusal> {
        let mut lines = file.text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
        let Some((_, first)) = lines.next() else {
            return Err(Refusal::new("the perflog is empty"));
        };
        let header = header(first)?;
        let fields: Vec<Field> = header.names.iter().map(|n| Field::of(n, &header.names)).collect();
        let config: Vec<&str> =
            CONFIG.iter().copied().filter(|c| header.names.iter().any(|n| n == c)).collect();
        let provenance = ["environment", "run", "run_in_file", "source", "source_sha256"];
        let mut table = Table::new("reframe", &provenance, &config);
        let (mut seen, mut notes) = (std::collections::BTreeMap::new(), Vec::new());
        for (i, line) in lines {
            let values: Vec<&str> = line.split(header.separator).collect();
            if values.len() != fields.len() {
                notes.push(Note::new(
                    i + 1,
                    format!(
                        "this line has {} fields, the header {}: it gives no row",
                        values.len(),
                        fields.len()
                    ),
                ));
                continue;
            }
            let cells = row(&fields, &values).map_err(|why| Refusal::new(why).at(i + 1))?;
            let key: Vec<String> = config
                .iter()
                .map(|c| {
                    cells.iter().find(|(n, _)| n == c).map(|(_, v)| v.clone()).unwrap_or_default()
                })
                .collect();
            let count = seen.entry(key).or_insert(0);
            *count += 1;
            table.push(*count, cells);
        }
        if table.runs.is_empty() {
            return Err(Refusal::new("the perflog has a header but no run").at(1));
        }
        Ok(Read { tables: vec![table], notes, nodes: None })
    }
}

/// A perflog's header: its field names and separator.
struct Header {
    names: Vec<String>,
    separator: char,
}

/// The header line of a perflog, or why `line` is not one: ReFrame 4
/// writes the field names first; earlier versions wrote none.
fn header(line: &str) -> Result<Header, Refusal> {
    let separator = SEPARATORS.iter().copied().find(|s| line.contains(*s)).unwrap_or('|');
    let names: Vec<String> = line.split(separator).map(|n| n.trim().to_string()).collect();
    let plain = names.iter().all(|n| {
        !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '%')
    });
    if !plain || names.len() < 2 {
        return Err(Refusal::new("the first line is not a perflog header (field names separated by `|`)")
            .at(1)
            .hint("ReFrame 4 writes a header line to each perflog; for older logs, or a handler without one, set the `filelog` handler's `format` in the site configuration and run again"));
    }
    Ok(Header { names, separator })
}

/// What a header field is.
enum Field {
    /// A field of the test: its column.
    Plain(String),
    /// A performance variable's value: the variable, and the index of its unit field.
    Value(String, Option<usize>),
    /// Its reference value: the variable, and the index of its unit field.
    Reference(String, Option<usize>),
    /// Its unit, or a threshold: the column.
    Other(String),
}

impl Field {
    /// The kind of header field `name` among `names`.
    fn of(name: &str, names: &[String]) -> Field {
        let unit = |var: &str| names.iter().position(|n| *n == format!("{var}_unit"));
        let column = |n: &str| format::column_name(n, "field_");
        if let Some(var) = name.strip_suffix("_value") {
            return Field::Value(column(var), unit(var));
        }
        if let Some(var) = name.strip_suffix("_ref").filter(|v| unit(v).is_some()) {
            return Field::Reference(column(var), unit(var));
        }
        if ["_unit", "_lower_thres", "_upper_thres"].iter().any(|s| name.ends_with(s)) {
            return Field::Other(column(name));
        }
        Field::Plain(column(name))
    }
}

/// The cells of one perflog line: a time in seconds as `VAR_s` (and its
/// reference as `VAR_ref_s`), any other value as logged; `None` and `null`
/// are empty.
fn row(fields: &[Field], values: &[&str]) -> Result<Vec<(String, String)>, String> {
    let text = |v: &str| {
        if matches!(v.trim(), "None" | "null") { String::new() } else { v.trim().to_string() }
    };
    let mut cells = Vec::with_capacity(fields.len());
    for (field, value) in fields.iter().zip(values) {
        let value = text(value);
        let (name, cell) = match field {
            Field::Plain(name) | Field::Other(name) => (name.clone(), value),
            Field::Value(var, unit) | Field::Reference(var, unit) => {
                let suffix = if matches!(field, Field::Reference(..)) { "_ref" } else { "" };
                let unit = unit.map(|u| values[u].trim()).unwrap_or("");
                number(var, suffix, &value, unit)?
            }
        };
        cells.push((name, cell));
    }
    Ok(cells)
}

/// The column and cell of a performance value or reference of `var`:
/// seconds when its unit is a time.
fn number(var: &str, suffix: &str, value: &str, unit: &str) -> Result<(String, String), String> {
    if value.is_empty() {
        return Ok((format!("{var}{suffix}"), String::new()));
    }
    let number: f64 =
        value.parse().ok().filter(|v: &f64| v.is_finite()).ok_or_else(|| {
            format!("performance variable `{var}`: `{value}` is not a finite number")
        })?;
    Ok(match format::seconds(number, unit) {
        Some(seconds) => (format!("{var}{suffix}_s"), plain(seconds)),
        None => (format!("{var}{suffix}"), value.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use crate::import::tests::cell;

    /// Written by ReFrame 4.10 for a local check of two test cases (the
    /// reference in seconds, the bandwidth in GB/s).
    const PERFLOG: &str = "result|job_completion_time|block|name|system|partition|environ|copy_time_value|copy_time_unit|copy_time_ref|copy_time_lower_thres|copy_time_upper_thres|bandwidth_value|bandwidth_unit|bandwidth_ref|bandwidth_lower_thres|bandwidth_upper_thres
pass|2026-12-02T07:15:47|1M|DdCheck %block=1M|generic|default|builtin|0.0009546|s|0.5|None|0.5|17.6|GB/s|0|None|None
pass|2026-12-02T07:15:47|4M|DdCheck %block=4M|generic|default|builtin|16.4546|ms|0.5|None|0.5|4.1|GB/s|0|None|None
";

    #[test]
    fn each_line_is_a_run_with_its_variables_units_and_references() {
        let read = crate::import::tests::read("reframe", "DdCheck.log", PERFLOG, &[]).unwrap();
        let table = &read.tables[0];
        assert_eq!(table.runs.len(), 2);
        let cols = [
            "block",
            "copy_time_s",
            "copy_time_unit",
            "copy_time_ref_s",
            "copy_time_lower_thres",
            "bandwidth",
            "bandwidth_ref",
        ];
        assert_eq!(
            cols.map(|c| cell(table, 0, 0, c)),
            ["1M", "0.0009546", "s", "0.5", "", "17.6", "0"]
        );
        // Milliseconds become seconds; the unit column says what was logged.
        assert_eq!(cell(table, 1, 0, "copy_time_s"), "0.0164546");
        assert_eq!(cell(table, 1, 0, "copy_time_unit"), "ms");
        assert_eq!(table.config, ["name", "system", "partition", "environ"]);
    }

    /// The layout of another site (ukri-excalibur/excalibur-tests' docs, a
    /// perflog of ARCHER2, ReFrame 4.3.2): `display_name`, a rate in Gflops/seconds.
    const ARCHER2: &str = "job_completion_time|version|info|jobid|num_tasks|num_cpus_per_task|num_tasks_per_node|num_gpus_per_node|flops_value|flops_unit|flops_ref|flops_lower_thres|flops_upper_thres|spack_spec|display_name|system|partition|environ|extra_resources|env_vars|tags
2023-08-25T11:23:46|reframe 4.3.2|SombreroBenchmark %tasks=2 %cpus_per_task=2 /de04c10b @archer2:compute-node+default|4323431|2|2|1|null|1.31|Gflops/seconds|1.2|-0.2|None|sombrero@2021-08-16|SombreroBenchmark %tasks=2 %cpus_per_task=2|archer2|compute-node|default|{}|{\"OMP_NUM_THREADS\": \"2\"}|example
";

    #[test]
    fn another_sites_layout_is_read_from_its_header() {
        let read =
            crate::import::tests::read("reframe", "SombreroBenchmark.log", ARCHER2, &[]).unwrap();
        let table = &read.tables[0];
        let cols = [
            "flops",
            "flops_unit",
            "flops_ref",
            "flops_lower_thres",
            "num_gpus_per_node",
            "env_vars",
            "display_name",
        ];
        assert_eq!(
            cols.map(|c| cell(table, 0, 0, c)),
            [
                "1.31",
                "Gflops/seconds",
                "1.2",
                "-0.2",
                "",
                "{\"OMP_NUM_THREADS\": \"2\"}",
                "SombreroBenchmark %tasks=2 %cpus_per_task=2"
            ]
        );
        assert_eq!(table.config, ["display_name", "system", "partition", "environ"]);
    }

    #[test]
    fn logs_without_a_header_or_with_bad_values_are_refused_at_their_line() {
        let old = "2021-08-24T10:23:51|reframe 3.8.0|Osu on alaska:ib using gnu|jobid=1|latency=1.2|ref=0 (l=null, u=null)|us\n";
        let refusal = crate::import::tests::read("reframe", "x.log", old, &[]).unwrap_err();
        assert!(refusal.reason.contains("not a perflog header"), "{}", refusal.reason);
        let bad = PERFLOG.replace("17.6", "nan");
        let refusal = crate::import::tests::read("reframe", "x.log", &bad, &[]).unwrap_err();
        assert_eq!(refusal.line, Some(2));
        let short = format!("{PERFLOG}pass|cut short\n");
        let read = crate::import::tests::read("reframe", "x.log", &short, &[]).unwrap();
        assert_eq!(read.notes[0].at, 4);
    }
}
