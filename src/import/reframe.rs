//! ReFrame performance logs (`perflogs/SYSTEM/PARTITION/TEST.log`). The
//! layout is set by the site's configuration (the `format` of its
//! `filelog` handler). ReFrame 4 writes a header line naming the fields,
//! then one line per test run, fields separated by `|` (or the handler's
//! separator): the header is what is read. ReFrame 3 writes no header and
//! one line per performance variable: its lines are read by the handler's
//! `format` (`--perflog-format`, else ReFrame 3's default), and the lines
//! of one run joined. Either way every field is a column, each performance
//! variable (`VAR_value`, `VAR_unit`, `VAR_ref`, thresholds) a column with
//! its unit and reference, times in seconds.

use super::format::{self, Format, Input, Opt, Read, Table};
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
        "Turn ReFrame perflogs into rows of results/reframe.csv, one per test run"
    }

    fn examples(&self) -> &'static str {
        "Examples:
  reframe -c checks/ -r --perflogdir=perflogs
  report import reframe --env cluster-a perflogs/
  # ReFrame 3 perflogs (no header line) of a site whose handler logs its own fields:
  report import reframe --env cluster-a perflogs/ \\
    --perflog-format '%(check_name)s|%(check_perf_value)s'"
    }

    fn columns(&self) -> &'static str {
        "One row per perflog line (a test run), every header field a column, each performance variable with its unit and reference (times in seconds, as VAR_s). Reads the header line ReFrame 4 writes; ReFrame 3's lines (one per performance variable, those of a run joined) by the handler's `format` given with --perflog-format, else ReFrame 3's default. Goes to results/reframe.csv."
    }

    fn accepts(&self, path: &std::path::Path) -> Result<(), String> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("log") => Ok(()),
            _ => Err("not a perflog (ReFrame names them TEST.log)".into()),
        }
    }

    fn options(&self) -> &'static [Opt] {
        &[PERFLOG_FORMAT]
    }

    fn read(&self, file: &Input<'_>) -> Result<Read, Refusal> {
        let mut lines = file.text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
        if let Some(given) = file.options.values(PERFLOG_FORMAT.name).next() {
            let format = LineFormat::parse(given).map_err(Refusal::new)?;
            return by_format(lines, &format, "the --perflog-format");
        }
        let Some((_, first)) = lines.next() else {
            return Err(Refusal::new("the perflog is empty"));
        };
        match header(first) {
            Ok(header) => by_header(&header, lines),
            Err(refusal) => {
                let reframe3 = LineFormat::parse(REFRAME3).map_err(Refusal::new)?;
                if reframe3.fields(first).is_none() {
                    return Err(refusal);
                }
                let lines = file.text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
                by_format(lines, &reframe3, "ReFrame 3's default format")
            }
        }
    }
}

/// `--perflog-format`: the `format` of the site's `filelog` handler, for
/// perflogs without a header line.
const PERFLOG_FORMAT: Opt = Opt {
    name: "perflog-format",
    value_name: "FORMAT",
    help: "The `format` of the site's perflog handler, for perflogs without a header line \
           (ReFrame 3), such as '%(check_name)s|%(check_perf_var)s=%(check_perf_value)s'; \
           without it, ReFrame 3's default format is tried",
    required: false,
    repeated: false,
    check: |text| LineFormat::parse(text).map(|_| ()),
};

/// ReFrame 3's default `format` of the perflog's `filelog` handler
/// (`reframe/core/settings.py`): one line per performance variable.
const REFRAME3: &str = "%(check_job_completion_time)s|reframe %(version)s|%(check_info)s|\
                        jobid=%(check_jobid)s|%(check_perf_var)s=%(check_perf_value)s|\
                        ref=%(check_perf_ref)s (l=%(check_perf_lower_thres)s, \
                        u=%(check_perf_upper_thres)s)|%(check_perf_unit)s";

/// The rows of a perflog being read: one per test run, numbered within
/// its configuration.
struct Runs {
    table: Table,
    config: Vec<String>,
    seen: std::collections::BTreeMap<Vec<String>, usize>,
    notes: Vec<Note>,
}

impl Runs {
    /// No run yet, of a perflog whose fields are `names`: the test's
    /// configuration is told by those of [`CONFIG`] it has, else its `info`.
    fn new(names: &[String]) -> Self {
        let has = |c: &&str| names.iter().any(|n| n == c);
        let mut config: Vec<&str> = CONFIG.iter().copied().filter(has).collect();
        if !config.iter().any(|c| ["name", "display_name"].contains(c)) && has(&"info") {
            config.push("info");
        }
        let provenance = ["environment", "run", "run_in_file", "source", "source_sha256"];
        let table = Table::new("reframe", &provenance, &config);
        let config = config.into_iter().map(String::from).collect();
        Self { table, config, seen: Default::default(), notes: Vec::new() }
    }

    /// Add the run whose fields are `names` and `values`, from line `at`.
    fn push(&mut self, names: &[String], values: &[&str], at: usize) -> Result<(), Refusal> {
        let fields: Vec<Field> = names.iter().map(|n| Field::of(n, names)).collect();
        let cells = row(&fields, values).map_err(|why| Refusal::new(why).at(at))?;
        let cell = |c: &String| cells.iter().find(|(n, _)| n == c).map(|(_, v)| v.clone());
        let key: Vec<String> = self.config.iter().map(|c| cell(c).unwrap_or_default()).collect();
        let count = self.seen.entry(key).or_insert(0);
        *count += 1;
        self.table.push(*count, cells);
        Ok(())
    }

    /// What the perflog gives, or why nothing when no line is a run.
    fn finish(self, none: Refusal) -> Result<Read, Refusal> {
        if self.table.runs.is_empty() {
            return Err(none);
        }
        Ok(Read { tables: vec![self.table], notes: self.notes, nodes: None })
    }
}

/// The runs of a perflog with a header line (ReFrame 4): one per line.
fn by_header<'a>(
    header: &Header,
    lines: impl Iterator<Item = (usize, &'a str)>,
) -> Result<Read, Refusal> {
    let mut runs = Runs::new(&header.names);
    for (i, line) in lines {
        let values: Vec<&str> = line.split(header.separator).collect();
        if values.len() != header.names.len() {
            runs.notes.push(Note::new(
                i + 1,
                format!(
                    "this line has {} fields, the header {}: it gives no row",
                    values.len(),
                    header.names.len()
                ),
            ));
            continue;
        }
        runs.push(&header.names, &values, i + 1)?;
    }
    runs.finish(Refusal::new("the perflog has a header but no run").at(1))
}

/// The runs of a perflog without a header, each line read by `format`
/// (named `what` in messages). A line holds one performance variable
/// (`check_perf_var`): the lines of one test run, next to each other with
/// the same other fields, are one run.
fn by_format<'a>(
    lines: impl Iterator<Item = (usize, &'a str)>,
    format: &LineFormat,
    what: &str,
) -> Result<Read, Refusal> {
    let mut grouped: Vec<Grouped> = Vec::new();
    let mut notes = Vec::new();
    for (i, line) in lines {
        let Some(fields) = format.fields(line) else {
            notes.push(Note::new(i + 1, format!("this line does not match {what}: it gives no row")));
            continue;
        };
        let (base, variable) = split(fields);
        match grouped.last_mut() {
            Some(run) if run.base == base && run.variables.iter().all(|v| v.name != variable.name) => {
                run.variables.push(variable);
            }
            _ => grouped.push(Grouped { at: i + 1, base, variables: vec![variable] }),
        }
    }
    let names = |base: &[(String, String)], variables: &[Variable]| -> Vec<String> {
        let mut names: Vec<String> = base.iter().map(|(n, _)| n.clone()).collect();
        for v in variables {
            names.extend(v.fields.iter().map(|(suffix, _)| format!("{}_{suffix}", v.name)));
        }
        names
    };
    let first = grouped.first().map(|g| names(&g.base, &g.variables)).unwrap_or_default();
    let mut runs = Runs::new(&first);
    runs.notes = notes;
    for Grouped { at, base, variables } in &grouped {
        let mut values: Vec<&str> = base.iter().map(|(_, v)| v.as_str()).collect();
        values.extend(variables.iter().flat_map(|v| v.fields.iter().map(|(_, x)| x.as_str())));
        runs.push(&names(base, variables), &values, *at)?;
    }
    let none = Refusal::new(format!("no line of the perflog matches {what}"))
        .at(1)
        .hint("give the `format` of the site's perflog handler with --perflog-format");
    runs.finish(none)
}

/// The lines of one ReFrame 3 run: where it starts, the test's fields, and
/// its performance variables.
struct Grouped {
    at: usize,
    base: Vec<(String, String)>,
    variables: Vec<Variable>,
}

/// One performance variable of a line: its name, and its fields (`value`,
/// `unit`, `ref`, `lower_thres`, `upper_thres`) as the format has them.
struct Variable {
    name: String,
    fields: Vec<(&'static str, String)>,
}

/// A line's fields split into the test's (named without `check_`) and its
/// performance variable's.
fn split(fields: Vec<(&str, &str)>) -> (Vec<(String, String)>, Variable) {
    const PERF: [(&str, &str); 5] = [
        ("check_perf_value", "value"),
        ("check_perf_unit", "unit"),
        ("check_perf_ref", "ref"),
        ("check_perf_lower_thres", "lower_thres"),
        ("check_perf_upper_thres", "upper_thres"),
    ];
    let mut base = Vec::new();
    let mut variable = Variable { name: "perf".into(), fields: Vec::new() };
    for (name, value) in fields {
        if name == "check_perf_var" {
            variable.name = format::column_name(value, "var_");
        } else if let Some((_, suffix)) = PERF.iter().find(|(n, _)| *n == name) {
            variable.fields.push((suffix, value.to_string()));
        } else {
            let plain = name.strip_prefix("check_").unwrap_or(name);
            base.push((plain.to_string(), value.to_string()));
        }
    }
    (base, variable)
}

/// A Python logging format (`%(name)s` fields between literal text), as
/// a pattern that reads a line back into its fields.
struct LineFormat {
    regex: regex::Regex,
    names: Vec<String>,
}

impl LineFormat {
    /// The format `text`, or why it is not one: it must name a field.
    fn parse(text: &str) -> Result<Self, String> {
        let field = regex::Regex::new(r"%\((\w+)\)[-#0 +]*\d*(?:\.\d+)?[sdifrg]|%%")
            .map_err(|e| e.to_string())?;
        let (mut pattern, mut names, mut from) = (String::from("^"), Vec::new(), 0);
        for found in field.captures_iter(text) {
            let whole = found.get(0).map_or(0..0, |m| m.range());
            pattern.push_str(&regex::escape(&text[from..whole.start]));
            match found.get(1) {
                Some(name) => {
                    pattern.push_str("(.*?)");
                    names.push(name.as_str().to_string());
                }
                None => pattern.push('%'),
            }
            from = whole.end;
        }
        pattern.push_str(&regex::escape(&text[from..]));
        pattern.push('$');
        if names.is_empty() {
            return Err(format!(
                "`{text}` names no field: write the handler's `format`, such as \
                 '%(check_name)s|%(check_perf_var)s=%(check_perf_value)s'"
            ));
        }
        let regex = regex::Regex::new(&pattern).map_err(|e| e.to_string())?;
        Ok(Self { regex, names })
    }

    /// The fields of `line` by name, or `None` if it does not match.
    fn fields<'t>(&self, line: &'t str) -> Option<Vec<(&str, &'t str)>> {
        let found = self.regex.captures(line.trim_end_matches('\r'))?;
        let values = found.iter().skip(1).map(|m| m.map_or("", |m| m.as_str()));
        Some(self.names.iter().map(String::as_str).zip(values).collect())
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
            .hint("ReFrame 4 writes a header line to each perflog; for ReFrame 3's, or a handler without one, give the `format` of the site's perflog handler with --perflog-format"));
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
        let other = "2021-08-24T10:23:51 Osu on alaska:ib latency=1.2 us\n";
        let refusal = crate::import::tests::read("reframe", "x.log", other, &[]).unwrap_err();
        assert!(refusal.reason.contains("not a perflog header"), "{}", refusal.reason);
        assert!(refusal.hint.unwrap().contains("--perflog-format"));
        let bad = PERFLOG.replace("17.6", "nan");
        let refusal = crate::import::tests::read("reframe", "x.log", &bad, &[]).unwrap_err();
        assert_eq!(refusal.line, Some(2));
        let short = format!("{PERFLOG}pass|cut short\n");
        let read = crate::import::tests::read("reframe", "x.log", &short, &[]).unwrap();
        assert_eq!(read.notes[0].at, 4);
    }

    /// Written by ReFrame 3.12.0 with its default configuration, for three
    /// runs of a local check with two performance variables (a time in
    /// seconds with an upper threshold, a rate with both).
    const REFRAME3: &str = "\
2026-12-02T11:37:43|reframe 3.12.0|SleepCheck @generic:default+builtin|jobid=13391|elapsed=0.010161161422729492|ref=0.01 (l=null, u=0.5)|s
2026-12-02T11:37:43|reframe 3.12.0|SleepCheck @generic:default+builtin|jobid=13391|rate=12.5|ref=12.0 (l=-0.1, u=0.1)|MB/s
2026-12-02T11:37:52|reframe 3.12.0|SleepCheck @generic:default+builtin|jobid=13507|elapsed=0.012494564056396484|ref=0.01 (l=null, u=0.5)|s
2026-12-02T11:37:52|reframe 3.12.0|SleepCheck @generic:default+builtin|jobid=13507|rate=12.5|ref=12.0 (l=-0.1, u=0.1)|MB/s
2026-12-02T11:37:59|reframe 3.12.0|SleepCheck @generic:default+builtin|jobid=13687|elapsed=0.010165214538574219|ref=0.01 (l=null, u=0.5)|s
2026-12-02T11:37:59|reframe 3.12.0|SleepCheck @generic:default+builtin|jobid=13687|rate=12.5|ref=12.0 (l=-0.1, u=0.1)|MB/s
";

    #[test]
    fn reframe_3_lines_of_one_run_are_one_row_by_the_default_format() {
        let read = crate::import::tests::read("reframe", "SleepCheck.log", REFRAME3, &[]).unwrap();
        let table = &read.tables[0];
        assert_eq!(table.runs.len(), 3);
        let cols = [
            "job_completion_time",
            "version",
            "info",
            "jobid",
            "elapsed_s",
            "elapsed_unit",
            "elapsed_ref_s",
            "elapsed_lower_thres",
            "elapsed_upper_thres",
            "rate",
            "rate_unit",
            "rate_ref",
            "rate_lower_thres",
            "rate_upper_thres",
        ];
        assert_eq!(
            cols.map(|c| cell(table, 0, 0, c)),
            [
                "2026-12-02T11:37:43",
                "3.12.0",
                "SleepCheck @generic:default+builtin",
                "13391",
                "0.010161161422729492",
                "s",
                "0.01",
                "",
                "0.5",
                "12.5",
                "MB/s",
                "12.0",
                "-0.1",
                "0.1"
            ]
        );
        assert_eq!(cell(table, 2, 0, "elapsed_s"), "0.010165214538574219");
        assert_eq!(cell(table, 2, 0, "jobid"), "13687");
        assert_eq!(table.config, ["info"]);
        assert_eq!(table.runs.iter().map(|r| r.in_file).collect::<Vec<_>>(), [1, 2, 3]);
    }

    /// Written by ReFrame 3.12.0 with a site configuration whose handler
    /// logs `%(check_job_completion_time)s,%(check_name)s,%(check_system)s,
    /// %(check_partition)s,%(check_environ)s,%(check_num_tasks)s,
    /// %(check_perf_var)s,%(check_perf_value)s,%(check_perf_unit)s,%(check_perf_ref)s`.
    const SITE: &str = "\
2026-12-02T12:06:27,SleepCheck,laptop,cpu,builtin,1,elapsed,0.010132312774658203,s,0.01
2026-12-02T12:06:27,SleepCheck,laptop,cpu,builtin,1,rate,12.5,MB/s,12.0
2026-12-02T12:06:29,SleepCheck,laptop,cpu,builtin,1,elapsed,0.017386913299560547,s,0.01
2026-12-02T12:06:29,SleepCheck,laptop,cpu,builtin,1,rate,12.5,MB/s,12.0
";

    #[test]
    fn a_sites_own_format_reads_its_reframe_3_lines() {
        let format = "%(check_job_completion_time)s,%(check_name)s,%(check_system)s,\
                      %(check_partition)s,%(check_environ)s,%(check_num_tasks)s,\
                      %(check_perf_var)s,%(check_perf_value)s,%(check_perf_unit)s,%(check_perf_ref)s";
        let mut options = crate::import::tests::options("reframe", &[]);
        options.values = vec![("perflog-format".into(), format.into())];
        let read = crate::import::tests::read_with(options.clone(), "S.log", SITE).unwrap();
        let table = &read.tables[0];
        assert_eq!(table.runs.len(), 2);
        let cols = ["name", "system", "num_tasks", "elapsed_s", "elapsed_ref_s", "rate", "rate_ref"];
        assert_eq!(
            cols.map(|c| cell(table, 1, 0, c)),
            ["SleepCheck", "laptop", "1", "0.017386913299560547", "0.01", "12.5", "12.0"]
        );
        assert_eq!(table.config, ["name", "system", "partition", "environ"]);
        assert_eq!(table.runs[1].in_file, 2);
        // A line the format does not match gives a note, not a row.
        let odd = format!("{SITE}a stray line\n");
        let read = crate::import::tests::read_with(options.clone(), "S.log", &odd).unwrap();
        assert_eq!((read.tables[0].runs.len(), read.notes[0].at), (2, 5));
        let refusal = crate::import::tests::read_with(options, "S.log", REFRAME3).unwrap_err();
        assert!(refusal.reason.contains("--perflog-format"), "{}", refusal.reason);
    }

    #[test]
    fn perflog_formats_must_name_a_field() {
        assert!(super::LineFormat::parse("plain text").is_err());
        let format = super::LineFormat::parse("%(a)s|100%% %(b)-8s").unwrap();
        assert_eq!(format.fields("x|100% y").unwrap(), [("a", "x"), ("b", "y")]);
    }
}
