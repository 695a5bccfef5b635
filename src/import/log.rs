//! Any application's text output, its figures of merit found by patterns
//! (`--figure NAME=REGEX`), as Ramble and ReFrame declare them: HPL's
//! Gflops, STREAM's Triad, AMG's FOM. Each match of the first figure is
//! one run; each other figure takes its first match from that line on,
//! before the next run's. Runs are labelled like LAMMPS and OSU runs.

use super::format::{Format, Input, Labelling, Opt, Read, Table, TableRun};
use super::launcher;
use super::{Note, Refusal};
use crate::format::plain;

/// `report import log`.
#[derive(Debug)]
pub struct Log;

/// `--figure NAME=REGEX`, given once or more.
const FIGURE: Opt = Opt {
    name: "figure",
    value_name: "NAME=REGEX",
    help: "A figure of merit, NAME=REGEX: the column, and a pattern whose group \
           (the one named `value`, else the first) is the number. The first \
           figure marks the runs",
    required: true,
    repeated: true,
    check: |text| text.parse::<Figure>().map(|_| ()),
};

/// A figure of merit that `report import log` finds by a pattern.
#[derive(Debug, Clone)]
pub struct Figure {
    /// The column it fills.
    pub name: String,
    /// The pattern; its group named `value`, else its first group, is the number.
    pub regex: regex::Regex,
}

impl std::str::FromStr for Figure {
    type Err = String;

    /// `NAME=REGEX`: a plain column name, and a pattern with a group.
    fn from_str(text: &str) -> Result<Self, String> {
        let (name, pattern) = text.split_once('=').ok_or_else(|| {
            format!("`{text}` has no `=`: write NAME=REGEX, such as 'gflops=WR\\S+\\s+(?:\\S+\\s+){{5}}(\\S+)'")
        })?;
        let plain = super::format::column_name(name, "fom_");
        if plain != name {
            return Err(format!(
                "`{name}` is not a plain column name: use lowercase letters, digits and `_`, such as `{plain}`"
            ));
        }
        let regex = regex::Regex::new(pattern).map_err(|e| format!("`{pattern}`: {e}"))?;
        if regex.captures_len() < 2 {
            return Err(format!(
                "`{pattern}` has no group: put the number in parentheses, such as `Triad:\\s+([0-9.]+)`"
            ));
        }
        Ok(Figure { name: name.to_string(), regex })
    }
}


impl Format for Log {
    fn name(&self) -> &'static str {
        "log"
    }

    fn about(&self) -> &'static str {
        "Find figures of merit in any text output by patterns: one row per run"
    }

    fn examples(&self) -> &'static str {
        "Examples:
  # HPL: the Gflops of each WR line, one run each:
  report import log --env a --figure 'gflops=WR\\S+(?:\\s+\\S+){5}\\s+(\\S+)' hpl.out
  # STREAM: Copy starts each run, Triad follows it:
  report import log --env a --into stream --figure 'copy_mb_s=Copy:\\s+([0-9.]+)' --figure 'triad_mb_s=Triad:\\s+([0-9.]+)' out/
  # AMG's figure of merit, nodes and ranks from the srun line before it:
  report import log --env a --into amg --figure 'fom=Figure of Merit \\(FOM\\):\\s+(\\S+)' amg.out"
    }

    fn columns(&self) -> &'static str {
        "Each match of the first --figure is one run; each other figure takes its first match from there to the next run. The number is the pattern's group named `value`, else its first group. Labels as for lammps and osu (--pattern, --env, --nodes, --procs, launcher lines). Goes to results/log.csv unless --into."
    }

    fn labelling(&self) -> Labelling {
        Labelling::Mpi { default_procs: None }
    }

    fn options(&self) -> &'static [Opt] {
        &[FIGURE]
    }

    fn read(&self, file: &Input<'_>) -> Result<Read, Refusal> {
        let figures: Vec<Figure> =
            file.options.values(FIGURE.name).map(str::parse).collect::<Result<_, _>>().map_err(
                |why: String| Refusal::new(why).hint("fix the --figure, such as `triad=Triad:\\s+([0-9.]+)`"),
            )?;
        let figures = &figures;
        let Some(first) = figures.first() else {
            return Err(Refusal::new("no figure to look for").hint(
                "give at least one --figure NAME=REGEX, the first one matching once per run",
            ));
        };
        let starts = anchors(file, first)?;
        if starts.is_empty() {
            return Err(Refusal::new(format!("no line matches the first figure, `{}` = `{}`", first.name, first.regex))
                .hint("check the pattern against the output; its first group (or the one named `value`) is the number"));
        }
        let mut columns = vec!["environment", "nodes", "procs", "run"];
        columns.extend(figures.iter().map(|f| f.name.as_str()));
        columns.extend(["run_in_file", "source", "source_sha256"]);
        let mut table = Table::new("log", &columns, &[]);
        let mut notes = early(file, figures, starts[0].0);
        for (i, (start, value)) in starts.iter().enumerate() {
            let end = starts.get(i + 1).map_or(file.lines.len(), |s| s.0);
            let mut row = table.blank();
            row[4] = plain(*value);
            for (k, figure) in figures.iter().enumerate().skip(1) {
                match find(file, figure, *start, end)? {
                    Some(v) => row[4 + k] = plain(v),
                    None => notes.push(Note::new(
                        file.lines[*start].at,
                        format!(
                            "run {} has no `{}` before the next run: left empty",
                            i + 1,
                            figure.name
                        ),
                    )),
                }
            }
            let launch = file.lines[..*start]
                .iter()
                .rev()
                .find_map(|l| launcher::parse(l.text.trim(), l.at));
            table.runs.push(TableRun { launch, procs: None, in_file: i + 1, rows: vec![row] });
        }
        Ok(Read { tables: vec![table], notes, nodes: None })
    }
}

/// The index into the file's lines and the value of each match of `figure`.
fn anchors(file: &Input<'_>, figure: &Figure) -> Result<Vec<(usize, f64)>, Refusal> {
    let mut out = Vec::new();
    for (i, line) in file.lines.iter().enumerate() {
        for captures in figure.regex.captures_iter(&line.text) {
            out.push((i, value(figure, &captures, line.at)?));
        }
    }
    Ok(out)
}

/// The first value of `figure` on lines `start..end`.
fn find(
    file: &Input<'_>,
    figure: &Figure,
    start: usize,
    end: usize,
) -> Result<Option<f64>, Refusal> {
    for line in &file.lines[start..end] {
        if let Some(captures) = figure.regex.captures(&line.text) {
            return value(figure, &captures, line.at).map(Some);
        }
    }
    Ok(None)
}

/// The number a match captured: the group named `value`, else the first.
fn value(figure: &Figure, captures: &regex::Captures<'_>, at: usize) -> Result<f64, Refusal> {
    let text = captures.name("value").or_else(|| captures.get(1)).map_or("", |m| m.as_str());
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(Refusal::new(format!(
            "figure `{}` captured `{text}`, which is not a finite number",
            figure.name
        ))
        .at(at)
        .hint("make the pattern's group capture the number alone, such as `([0-9.eE+-]+)`")),
    }
}

/// Notes for other figures matched before the first run: they belong to
/// none, which usually means the first figure is not the one each run
/// prints first.
fn early(file: &Input<'_>, figures: &[Figure], first: usize) -> Vec<Note> {
    let mut notes = Vec::new();
    for figure in figures.iter().skip(1) {
        let before = file.lines[..first].iter().filter(|l| figure.regex.is_match(&l.text));
        let lines: Vec<usize> = before.map(|l| l.at).collect();
        if let Some(at) = lines.first() {
            notes.push(Note::new(*at, format!(
                "{} match(es) of `{}` before the first run (the first figure's first match) belong to no run: put first the figure each run prints first",
                lines.len(),
                figure.name
            )));
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use crate::import::tests::{cell, read};

    /// STREAM's summary, twice, with a launcher line before each run.
    const STREAM: &str =
        "srun -N 1 -n 4 ./stream\n-------------------------------------------------------------
Function    Best Rate MB/s  Avg time     Min time     Max time
Copy:           11254.4     0.014305     0.014217     0.014422
Scale:          11236.6     0.014357     0.014239     0.014527
Add:            12465.6     0.019338     0.019253     0.019447
Triad:          12477.9     0.019311     0.019234     0.019404
srun -N 2 -n 8 ./stream
Copy:           21254.4     0.014305     0.014217     0.014422
Triad:          22477.9     0.019311     0.019234     0.019404
";

    #[test]
    fn each_match_of_the_first_figure_is_a_run() {
        let figures = [
            "copy_mb_s=Copy:\\s+([0-9.]+)",
            "triad_mb_s=Triad:\\s+(?P<value>[0-9.]+)",
            "add_mb_s=Add:\\s+([0-9.]+)",
        ];
        let read = read("log", "stream.out", STREAM, &figures).unwrap();
        let table = &read.tables[0];
        assert_eq!(table.runs.len(), 2);
        assert_eq!(
            ["copy_mb_s", "triad_mb_s", "add_mb_s"].map(|c| cell(table, 0, 0, c)),
            ["11254.4", "12477.9", "12465.6"]
        );
        assert_eq!(
            ["copy_mb_s", "triad_mb_s", "add_mb_s"].map(|c| cell(table, 1, 0, c)),
            ["21254.4", "22477.9", ""]
        );
        let launch = table.runs[1].launch.unwrap();
        assert_eq!((launch.ranks, launch.nodes, launch.at), (Some(8), Some(2), 8));
        assert_eq!(read.notes.len(), 1);
        assert!(read.notes[0].message.contains("run 2 has no `add_mb_s`"), "{:?}", read.notes);
    }

    #[test]
    fn figures_in_the_wrong_order_and_bad_captures_are_said() {
        let figures = ["triad_mb_s=Triad:\\s+([0-9.]+)", "copy_mb_s=Copy:\\s+([0-9.]+)"];
        let read = read("log", "stream.out", STREAM, &figures).unwrap();
        assert!(
            read.notes[0].message.contains("1 match(es) of `copy_mb_s` before the first run"),
            "{:?}",
            read.notes
        );
        let refusal =
            crate::import::tests::read("log", "x", STREAM, &["f=Copy:(\\s+)"]).unwrap_err();
        assert_eq!(refusal.line, Some(4));
        let none =
            crate::import::tests::read("log", "x", STREAM, &["f=Gflops\\s+([0-9.]+)"]).unwrap_err();
        assert!(none.reason.contains("no line matches"), "{}", none.reason);
    }
}
