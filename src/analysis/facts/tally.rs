//! Whether a comparison holds at every level of a family (`per` with
//! `each = true`), at some or at none: each member's direction and
//! verdict, for "slower at every count from 2 to 16".

use super::super::MetricValue;

/// One member of the family: where it is made, and what it found.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Where it is made, as the analysis names it (`procs = 2`).
    pub at: String,
    /// Whether the candidate's value is higher than the baseline's, lower,
    /// or neither (`None`: no difference at the metric's precision).
    pub higher: Option<bool>,
    /// Whether the difference is established: statistically significant
    /// after Holm's correction for the family, or exact (every run of each
    /// side gives one value).
    pub established: bool,
}

/// How far a claim holds across the members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extent {
    /// At every member.
    Every,
    /// At some, not all.
    Some,
    /// At none.
    None,
}

/// A family's members with their verdicts, in the order of their levels.
#[derive(Debug, Clone, PartialEq)]
pub struct Tally {
    /// The metric's results file.
    pub file: String,
    /// The column compared.
    pub column: String,
    /// The members, one per level.
    pub members: Vec<Verdict>,
}

impl Tally {
    /// The members of the family `name` (a metric with `per` and `each`)
    /// among `metrics`; `None` when it has none made at a level.
    pub fn of(metrics: &[MetricValue], name: &str) -> Option<Tally> {
        let mut members: Vec<(&MetricValue, &String)> = metrics
            .iter()
            .filter(|m| m.name == name)
            .filter_map(|m| Some((m, m.member.as_ref()?.at.as_ref()?)))
            .collect();
        let (first, _) = *members.first()?;
        members.sort_by(|a, b| super::level_order(level(a.1), level(b.1)));
        let members = members
            .into_iter()
            .map(|(m, at)| Verdict {
                at: at.clone(),
                higher: m.higher(),
                established: m.exact || m.significant == Some(true),
            })
            .collect();
        Some(Tally {
            file: first.inputs.file.clone(),
            column: first.inputs.column.clone(),
            members,
        })
    }

    /// Whether the candidate is established `higher` (or lower) than the
    /// baseline at each member.
    pub fn holds(&self, higher: bool) -> Vec<bool> {
        self.members.iter().map(|v| v.established && v.higher == Some(higher)).collect()
    }

    /// How far "the candidate is `higher` (or lower)" holds.
    pub fn extent(&self, higher: bool) -> Extent {
        let holds = self.holds(higher);
        match holds.iter().filter(|h| **h).count() {
            0 => Extent::None,
            n if n == holds.len() => Extent::Every,
            _ => Extent::Some,
        }
    }
}

/// The value of a member's place `column = value` (the last one's, for several).
fn level(at: &str) -> &str {
    at.rsplit(", ").next().and_then(|p| p.split_once(" = ")).map_or(at, |(_, v)| v)
}
