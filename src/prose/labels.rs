//! How prose names what the data hold: a column as "message size", a
//! configuration as "32 processes" or "1 MiB" (from `[data.NAME] labels`),
//! and a metric's fields with its configurations so named and its
//! difference in words ([`super::direction`]). The one place where a
//! column id becomes words for a reader.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::analysis::MetricValue;
use crate::analysis::findings::Configuration;
use crate::analysis::metrics::claim::Verdict;
use crate::config::{ColumnLabel, Config};
use crate::format;

/// The labels of every results file and the study's practical threshold.
#[derive(Debug, Clone, Default)]
pub struct Labels {
    /// Labels by file stem (`lammps`), and the file each stem reads, when set.
    files: BTreeMap<String, (Option<String>, BTreeMap<String, ColumnLabel>)>,
    /// The environment column and each environment's label.
    environments: (String, BTreeMap<String, String>),
    /// The environments' ids in the order book.toml declares them.
    declared: Vec<String>,
    /// The metrics whose members differ by candidate (`candidates`).
    candidate_families: std::collections::BTreeSet<String>,
    /// The smallest difference that matters (`[study] negligible`), as a fraction.
    pub negligible: Option<f64>,
    /// `[study] negligible` as book.toml writes it (`1%`), when valid.
    pub threshold: Option<String>,
}

impl Labels {
    /// The labels of `config`.
    pub fn new(config: &Config) -> Labels {
        let files = config
            .data
            .iter()
            .map(|(name, d)| (name.clone(), (d.file.clone(), d.labels.clone())))
            .collect();
        let labels = config.environments.iter().map(|(k, e)| (k.clone(), e.label.clone()));
        let environments = (config.study.environment_column.clone(), labels.collect());
        let declared = config.environments_in_order().into_iter().map(|(k, _)| k.clone());
        let declared = declared.collect();
        let candidate_families = config
            .metrics
            .iter()
            .filter(|m| m.candidates.is_some())
            .map(|m| m.name.clone())
            .collect();
        let negligible = config.study.negligible();
        let threshold = negligible.and(config.study.negligible.as_deref()).map(str::trim);
        let threshold = threshold.map(|t| t.replace(' ', ""));
        Labels { files, environments, declared, candidate_families, negligible, threshold }
    }

    /// The order of two levels of `column` of `file` in book.toml's order
    /// (docs/factors.md): the environments as declared, another column's
    /// levels as its label's `order` lists them; a level it does not list
    /// after those, in its own order (numbers by value, else as text).
    pub fn compare_levels(&self, file: &str, column: &str, a: &str, b: &str) -> Ordering {
        let listed = match column == self.environments.0 {
            true => self.declared.as_slice(),
            false => self.label(file, column).map_or(&[][..], |l| l.order.as_slice()),
        };
        let place = |l: &str| listed.iter().position(|o| o.trim() == l.trim());
        let (x, y) = (place(a).unwrap_or(usize::MAX), place(b).unwrap_or(usize::MAX));
        x.cmp(&y).then_with(|| crate::analysis::facts::level_order(a, b))
    }

    /// The order of two places written `a = 1, b = 2` (as the analysis
    /// names a member's place), part by part in book.toml's order
    /// ([`Labels::compare_levels`]); parts of another form compare equal.
    pub fn compare_at(&self, file: &str, a: &str, b: &str) -> Ordering {
        place_parts(a)
            .into_iter()
            .zip(place_parts(b))
            .map(|pair| match pair {
                (Some((x, v)), Some((y, w))) if x == y => self.compare_levels(file, x, v, w),
                _ => Ordering::Equal,
            })
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    }

    /// The order of two configurations of `file` as the study lists its
    /// levels ([`Labels::compare_levels`]): by environment, then by the
    /// value of each `group-by` column in turn.
    pub fn compare_configurations(
        &self,
        file: &str,
        a: &Configuration,
        b: &Configuration,
    ) -> Ordering {
        let env = self.environments.0.as_str();
        let environments = match (&a.environment, &b.environment) {
            (Some(x), Some(y)) => self.compare_levels(file, env, x, y),
            (x, y) => x.cmp(y),
        };
        let values = a
            .values
            .iter()
            .zip(&b.values)
            .map(|((c, x), (d, y))| c.cmp(d).then_with(|| self.compare_levels(file, c, x, y)));
        let values = values.fold(Ordering::Equal, Ordering::then);
        environments.then(values).then_with(|| a.values.len().cmp(&b.values.len()))
    }

    /// A level of `factor` in the results file `file` as prose names it:
    /// an environment by its label, another level as [`Labels::value`] does.
    pub fn level(&self, file: &str, factor: &str, level: &str) -> String {
        match self.environments.1.get(level) {
            Some(label) if factor == self.environments.0 => label.clone(),
            _ if factor == self.environments.0 => level.to_string(),
            _ => self.value(file, factor, level),
        }
    }

    /// The study's environment column (`environment`).
    pub fn environment_column(&self) -> &str {
        &self.environments.0
    }

    /// An environment (a level of the study's environment column) as prose
    /// names it: its label, else its id.
    pub fn environment(&self, level: &str) -> String {
        self.environments.1.get(level).cloned().unwrap_or_else(|| level.to_string())
    }

    /// A configuration's values of the `group-by` columns of `file` in
    /// words, each as [`Labels::value`] names it: `32 processes, 1 MiB`.
    pub fn values(&self, file: &str, values: &BTreeMap<String, String>) -> String {
        let named: Vec<String> = values.iter().map(|(c, v)| self.value(file, c, v)).collect();
        named.join(", ")
    }

    /// A configuration of `file` in words: its environment's label, then
    /// its values (`numeric sort at 32 processes, 1 MiB`); its values alone
    /// without an environment, and `all rows` without either.
    pub fn configuration(&self, file: &str, at: &Configuration) -> String {
        let values = self.values(file, &at.values);
        match (&at.environment, values.is_empty()) {
            (Some(env), true) => self.environment(env),
            (Some(env), false) => format!("{} at {values}", self.environment(env)),
            (None, true) => "all rows".to_string(),
            (None, false) => values,
        }
    }

    /// A metric's label, naming the member of a family it is: its
    /// candidate (`Run time (xz)`), where it is made (`Run time at 9 MiB`),
    /// or both; the metric's label alone otherwise.
    pub fn metric(&self, m: &MetricValue) -> String {
        let Some(member) = &m.member else { return m.label.clone() };
        let mut label = m.label.clone();
        if self.candidate_families.contains(&m.name) {
            let file = &m.inputs.file;
            label = format!("{label} ({})", self.level(file, &m.factor, &member.candidate));
        }
        if let Some(at) = &member.at {
            label = format!("{label} at {}", self.at(&m.inputs.file, at));
        }
        label
    }

    /// The labels of the file `file` names: a stem (`lammps`), a file name
    /// (`lammps.csv`) or a path (`results/lammps.csv`).
    fn of(&self, file: &str) -> Option<&BTreeMap<String, ColumnLabel>> {
        let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
        let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
        self.files
            .get(stem)
            .or_else(|| self.files.values().find(|(f, _)| f.as_deref() == Some(name)))
            .map(|(_, labels)| labels)
    }

    fn label(&self, file: &str, column: &str) -> Option<&ColumnLabel> {
        self.of(file).and_then(|labels| labels.get(column))
    }

    /// What `column` measures, in words: its `name`, else its id.
    pub fn column(&self, file: &str, column: &str) -> String {
        self.name(file, column).unwrap_or_else(|| column.to_string())
    }

    /// What `column` measures, in words, if its label names it.
    pub fn name(&self, file: &str, column: &str) -> Option<String> {
        self.label(file, column).and_then(|l| l.name.clone())
    }

    /// The unit of `column`'s values, if its label gives one.
    pub fn unit(&self, file: &str, column: &str) -> Option<&str> {
        self.label(file, column).and_then(|l| l.unit.as_deref())
    }

    /// The label book.toml gives one level of `column` (`levels`), if any.
    pub fn level_label(&self, file: &str, column: &str, value: &str) -> Option<&str> {
        let label = self.label(file, column)?;
        label.levels.get(value.trim()).map(String::as_str)
    }

    /// One value of `column` as prose names it: its label in `levels`;
    /// `32 processes`, `1 MiB`, `1 node`; `procs = 32` for a column
    /// without a unit.
    pub fn value(&self, file: &str, column: &str, value: &str) -> String {
        if let Some(label) = self.level_label(file, column, value) {
            return label.to_string();
        }
        let unit = self.label(file, column).and_then(|l| l.unit.as_deref());
        let number = value.trim().parse::<f64>().ok().filter(|x| x.is_finite());
        match (unit, number) {
            (Some("bytes"), Some(x)) => format::minus(&format::bytes(x)),
            (Some(unit), Some(x)) => {
                let unit = if x == 1.0 { singular(unit) } else { unit.to_string() };
                format!("{} {unit}", format::minus(&format::grouped(value.trim())))
            }
            (Some(unit), None) => format!("{value} {unit}"),
            (None, _) => format!("{column} = {value}"),
        }
    }

    /// A configuration written `a = 1, b = 2` (as the analysis names one)
    /// in words: `32 processes, 1 MiB`, a level by its `levels` label
    /// (`Level nine`); parts of another form stay as they are.
    pub fn at(&self, file: &str, text: &str) -> String {
        text.split(", ")
            .map(|part| match part.split_once(" = ") {
                Some((column, value))
                    if self.label(file, column).is_some_and(|l| l.unit.is_some())
                        || self.level_label(file, column, value).is_some() =>
                {
                    self.value(file, column, value)
                }
                _ => part.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The words for a higher and a lower value of `column`: its labels'
    /// `higher` and `lower`, by default `higher` and `lower`.
    pub fn words(&self, file: &str, column: &str) -> [String; 2] {
        let label = self.label(file, column);
        let word = |w: Option<&String>, default: &str| w.cloned().unwrap_or_else(|| default.into());
        [
            word(label.and_then(|l| l.higher.as_ref()), "higher"),
            word(label.and_then(|l| l.lower.as_ref()), "lower"),
        ]
    }

    /// How a change of `column` is worded ([`super::time::wording`]): by
    /// its words, by its change in time, or by the ratio of speeds.
    pub fn wording(&self, file: &str, column: &str) -> super::time::Wording {
        let label = self.label(file, column);
        let get = |f: fn(&ColumnLabel) -> &Option<String>| label.and_then(|l| f(l).as_deref());
        super::time::wording(get(|l| &l.unit), get(|l| &l.higher), get(|l| &l.lower))
    }

    /// Every field of a metric that prose, cards and stats.json cite:
    /// [`super::metric::metric_fields`] with configurations named
    /// by their labels (`range`, `full`), and the difference in words
    /// (`words`: `8.8% faster`; `interval`: `6.1% to 11.5% faster`).
    pub fn fields(&self, m: &MetricValue) -> BTreeMap<&'static str, String> {
        let mut fields = super::metric::metric_fields(m);
        // A mean with its own digits, as a point's details and the data
        // tables show it (a baseline of 0.853 s is not "0.9").
        if let Some(b) = &m.baseline {
            fields.insert("baseline", format::value(b.mean));
            fields.insert("candidate", format::value(m.candidate.mean));
        }
        let range = fields.get("range").cloned().unwrap_or_default();
        if let Some(spread) = &m.spread {
            let [lo, hi] = &spread.range;
            let file = &m.inputs.file;
            let relabelled = range
                .replacen(&format!(" at {} ", lo.at), &format!(" at {} ", self.at(file, &lo.at)), 1)
                .replacen(&format!(" at {}", hi.at), &format!(" at {}", self.at(file, &hi.at)), 1);
            if !range.is_empty() {
                let full = fields.get("full").cloned().unwrap_or_default();
                fields.insert("full", full.replacen(&range, &relabelled, 1));
                fields.insert("range", relabelled);
            }
        }
        if let Some(why) = super::metric::claim_note(m, self.threshold.as_deref()) {
            let verdict = m.claim.map(|c| c.verdict);
            let word =
                if verdict == Some(Verdict::Negligible) { "negligible" } else { "inconclusive" };
            fields.insert("claim", format!("{word}: {why}"));
            fields.insert("claim_why", why);
        }
        if let Some(direction) = self.direction(m) {
            fields.insert("words", direction.text);
            if let Some(interval) = self.interval(m) {
                fields.insert("interval", interval);
            }
        }
        super::provenance::fields(m, &mut fields);
        fields
    }
}

/// The singular of a plural unit, for a count of 1: `processes` → `process`,
/// `nodes` → `node`, `ranks` → `rank`; other units stay.
fn singular(unit: &str) -> String {
    let (head, last) = unit.rsplit_once(' ').map_or(("", unit), |(h, l)| (h, l));
    let word = last.len() >= 4 && last.chars().all(|c| c.is_ascii_alphabetic());
    let one = if !word {
        last
    } else if ["sses", "ches", "shes", "xes"].iter().any(|s| last.ends_with(s)) {
        &last[..last.len() - 2]
    } else if last.ends_with('s') && !last.ends_with("ss") {
        &last[..last.len() - 1]
    } else {
        last
    };
    if head.is_empty() { one.to_string() } else { format!("{head} {one}") }
}

/// The parts of a place written `a = 1, b = 2`, each `(column, value)`
/// when it has that form.
fn place_parts(text: &str) -> Vec<Option<(&str, &str)>> {
    text.split(", ").map(|p| p.split_once(" = ")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels() -> Labels {
        let toml = r#"
[book]
title = "T"
[study]
baseline = "a"
negligible = "1%"
[environments.a]
label = "A"
[data.runs.labels]
procs = { unit = "processes" }
size = { name = "message size", unit = "bytes" }
nodes = { unit = "nodes" }
tps = { name = "throughput", higher = "faster", lower = "slower" }
"#;
        Labels::new(&crate::config::parse(std::path::Path::new("book.toml"), toml).unwrap())
    }

    #[test]
    fn configurations_are_named_by_their_labels() {
        let l = labels();
        assert_eq!(l.value("results/runs.csv", "procs", "32"), "32 processes");
        assert_eq!(l.value("runs", "procs", "1"), "1 process");
        assert_eq!(l.value("runs", "nodes", "1"), "1 node");
        assert_eq!(l.value("runs", "procs", "1024"), "1,024 processes");
        assert_eq!(l.value("runs", "size", "1048576"), "1 MiB");
        assert_eq!(l.value("runs", "size", "0"), "0 B");
        assert_eq!(l.value("runs", "run", "3"), "run = 3");
        assert_eq!(l.value("other", "procs", "3"), "procs = 3");
        assert_eq!(l.at("runs.csv", "procs = 32, size = 8192"), "32 processes, 8 KiB");
        assert_eq!(l.at("runs", "all rows"), "all rows");
        assert_eq!(l.column("runs", "size"), "message size");
        assert_eq!(l.words("runs", "tps"), ["faster".to_string(), "slower".to_string()]);
        assert_eq!(l.words("runs", "x"), ["higher".to_string(), "lower".to_string()]);
    }

    /// A study with a family of candidates and one of configurations.
    const FAMILIES: &str = r#"
[book]
title = "T"
[study]
baseline = "a"
environment-column = "tool"
[environments.a]
label = "A"
[environments."sort -n"]
label = "numeric <sort>"
[data.runs.labels]
size = { unit = "bytes" }
procs = { unit = "processes" }
[[metrics]]
name = "many"
label = "Many"
data = "runs"
value = "t"
candidates = "*"
better = "lower"
[[metrics]]
name = "each"
label = "Each"
data = "runs"
value = "t"
per = "size"
each = true
better = "lower"
"#;

    /// A member of a family is named by its candidate's label (an
    /// environment's, else the value with its unit) and where it is made;
    /// a metric that is no family's member keeps its label.
    #[test]
    fn members_of_a_family_are_named() {
        let toml = FAMILIES;
        let l =
            Labels::new(&crate::config::parse(std::path::Path::new("book.toml"), toml).unwrap());
        let member = |name: &str, factor: &str, candidate: &str, at: Option<&str>| {
            let mut m = MetricValue::example(0.1);
            (m.name, m.label, m.factor) = (name.into(), "Time".into(), factor.into());
            m.inputs.file = "results/runs.csv".into();
            let at = at.map(String::from);
            m.member =
                Some(crate::analysis::metrics::sides::Member { candidate: candidate.into(), at });
            m
        };
        assert_eq!(l.metric(&member("many", "tool", "sort -n", None)), "Time (numeric <sort>)");
        assert_eq!(l.metric(&member("many", "tool", "b", None)), "Time (b)");
        assert_eq!(l.metric(&member("many", "procs", "32", None)), "Time (32 processes)");
        assert_eq!(l.metric(&member("many", "level", "19", None)), "Time (level = 19)");
        let each = member("each", "tool", "b", Some("size = 1048576"));
        assert_eq!(l.metric(&each), "Time at 1 MiB");
        let both = member("many", "tool", "sort -n", Some("procs = 2"));
        assert_eq!(l.metric(&both), "Time (numeric <sort>) at 2 processes");
        let mut alone = MetricValue::example(0.1);
        alone.label = "Alone".into();
        assert_eq!(l.metric(&alone), "Alone");
    }

    #[test]
    fn plural_units_become_singular_for_one() {
        for (many, one) in [
            ("processes", "process"),
            ("nodes", "node"),
            ("MPI ranks", "MPI rank"),
            ("timesteps", "timestep"),
            ("switches", "switch"),
            ("µs", "µs"),
            ("s", "s"),
            ("GPU", "GPU"),
            ("GPUs", "GPU"),
            ("ms", "ms"),
            ("timesteps/s", "timesteps/s"),
        ] {
            assert_eq!(singular(many), one);
        }
    }
}
