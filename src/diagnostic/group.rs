//! Diagnostics grouped by cause: the same problem at many places is one
//! diagnostic with the count, the first few locations and the distinct values.
//!
//! Every diagnostic has a cause key: by default its message and hint, so that
//! identical errors group; a producer whose message names a value (an unknown
//! environment, a bad cell) sets a [`Cause`] with a key that leaves the value
//! out and a message for several values. Grouping keeps a bounded amount per
//! cause ([`MAX_LOCATIONS`], [`MAX_VALUES`]) and the smallest of each (by
//! location, by value), so that it gives the same result in any order.
//! [`Tally`](super::Tally) groups as problems arrive, for loops over
//! millions of rows.

use super::{Diagnostic, Location};

/// Most locations kept per cause (the first, in file order).
pub const MAX_LOCATIONS: usize = 3;

/// Most distinct values kept per cause (the smallest, in sorted order).
pub const MAX_VALUES: usize = 20;

/// Most causes a [`Tally`](super::Tally) keeps; problems of further causes
/// are counted in one more diagnostic.
pub const MAX_CAUSES: usize = 1_000;

/// What makes problems the same, for those whose message names a value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cause {
    /// Problems with equal keys are one diagnostic; the key leaves out the value.
    pub key: String,
    /// The message for several distinct values, `{values}` standing for their list.
    pub many: String,
    /// The hint for several distinct values (default: the first one's hint).
    pub many_hint: Option<String>,
    /// What a place is, singular and plural: `row`, `rows` (default `place`).
    pub unit: (&'static str, &'static str),
}

impl Cause {
    /// Problems of `key`; with several values the message is `many`, its `{values}` replaced.
    pub fn new(key: impl Into<String>, many: impl Into<String>) -> Self {
        Cause { key: key.into(), many: many.into(), many_hint: None, unit: ("place", "places") }
    }

    /// The hint when there are several values.
    pub fn many_hint(mut self, hint: impl Into<String>) -> Self {
        self.many_hint = Some(hint.into());
        self
    }

    /// Count places as rows of a results file.
    pub fn rows(mut self) -> Self {
        self.unit = ("row", "rows");
        self
    }
}

/// How many problems a diagnostic stands for, where the others are and their values.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Repeats {
    /// Problems of this cause, 1 or more.
    pub count: usize,
    /// Locations after the diagnostic's own, in order, at most [`MAX_LOCATIONS`] − 1.
    pub also: Vec<Location>,
    /// The distinct values, sorted, at most [`MAX_VALUES`] (empty without a [`Cause`]).
    pub values: Vec<String>,
    /// Whether there are (or may be) values beyond those kept.
    pub more_values: bool,
}

/// A single problem.
static SINGLE: Repeats =
    Repeats { count: 1, also: Vec::new(), values: Vec::new(), more_values: false };

impl Default for Repeats {
    fn default() -> Self {
        SINGLE.clone()
    }
}

impl Diagnostic {
    /// How many problems this diagnostic stands for, where the others are and their values.
    pub fn repeats(&self) -> &Repeats {
        self.repeats.as_deref().unwrap_or(&SINGLE)
    }

    /// [`Diagnostic::repeats`], to change.
    pub fn repeats_mut(&mut self) -> &mut Repeats {
        self.repeats.get_or_insert_with(Box::default)
    }

    /// Group this with every diagnostic of the same `cause`; `value` is what
    /// this one names (an environment, a cell), as its message quotes it.
    pub fn cause(mut self, cause: Cause, value: impl Into<String>) -> Self {
        self.cause = Some(Box::new(cause));
        self.repeats_mut().values = vec![value.into()];
        self
    }

    /// This diagnostic stands for `count` problems (this one included), also
    /// at `also` (after its own location) and with `values`: for producers
    /// that count without making a diagnostic per problem.
    pub fn repeated(
        mut self,
        count: usize,
        also: impl IntoIterator<Item = Location>,
        values: impl IntoIterator<Item = String>,
    ) -> Self {
        let mut also: Vec<Location> = also.into_iter().filter(|l| *l != self.location).collect();
        also.sort();
        also.dedup();
        also.truncate(MAX_LOCATIONS - 1);
        let repeats = self.repeats_mut();
        repeats.also = also;
        let mut kept: std::collections::BTreeSet<String> =
            std::mem::take(&mut repeats.values).into_iter().collect();
        for value in values {
            kept.insert(value);
            if kept.len() > MAX_VALUES {
                kept.pop_last();
                repeats.more_values = true;
            }
        }
        repeats.values = kept.into_iter().collect();
        repeats.count = count.max(1);
        self
    }

    /// What groups this diagnostic with others: its cause's key, or else its message and hint.
    pub fn key(&self) -> String {
        match &self.cause {
            Some(cause) => format!("\u{1}{}", cause.key),
            None => format!("{}\u{0}{}", self.message, self.hint.as_deref().unwrap_or_default()),
        }
    }

    /// Count `other` (of the same cause) in this diagnostic: the counts add,
    /// the first locations and the smallest values are kept, and the message
    /// and hint are those of the first location.
    pub fn absorb(&mut self, mut other: Diagnostic) {
        if other.location < self.location {
            std::mem::swap(self, &mut other);
        }
        let first = self.location.clone();
        let other_repeats = other.repeats.map_or_else(Repeats::default, |r| *r);
        let repeats = self.repeats_mut();
        let mut locations: Vec<Location> = std::iter::once(other.location)
            .chain(other_repeats.also)
            .chain(std::mem::take(&mut repeats.also))
            .collect();
        locations.sort();
        locations.dedup();
        locations.retain(|l| *l != first);
        locations.truncate(MAX_LOCATIONS - 1);
        repeats.also = locations;
        let mut values = std::mem::take(&mut repeats.values);
        values.extend(other_repeats.values);
        values.sort_unstable();
        values.dedup();
        let more = values.len() > MAX_VALUES;
        values.truncate(MAX_VALUES);
        repeats.values = values;
        repeats.more_values |= other_repeats.more_values || more;
        repeats.count += other_repeats.count;
    }

    /// The problems this diagnostic stands for (1 for a single one).
    pub fn count(&self) -> usize {
        self.repeats().count
    }

    /// The message as shown: with several values, the cause's message naming them.
    pub fn shown_message(&self) -> String {
        match &self.cause {
            Some(cause) if self.several_values() => {
                let mut values = super::list(self.repeats().values.iter().map(String::as_str));
                if self.repeats().more_values {
                    values.push_str(", …");
                }
                cause.many.replace("{values}", &values)
            }
            _ => self.message.clone(),
        }
    }

    /// The hint as shown: with several values, the cause's hint for them.
    pub fn shown_hint(&self) -> Option<&str> {
        match &self.cause {
            Some(cause) if self.several_values() && cause.many_hint.is_some() => {
                cause.many_hint.as_deref()
            }
            _ => self.hint.as_deref(),
        }
    }

    /// ` (400 rows)` after the message of a diagnostic of several problems; empty for one.
    pub fn count_suffix(&self) -> String {
        match self.count() {
            0 | 1 => String::new(),
            n => format!(" ({n} {})", self.unit().1),
        }
    }

    /// `also at a.csv:3:1 and a.csv:4:1, and 397 more places`: where the
    /// other problems are; `None` for a single problem.
    pub fn also_note(&self) -> Option<String> {
        if self.count() < 2 {
            return None;
        }
        let shown: Vec<String> = self.repeats().also.iter().map(ToString::to_string).collect();
        let more = self.count().saturating_sub(1 + shown.len());
        let places = if more == 1 { "place" } else { "places" };
        let mut note = match shown.as_slice() {
            [] => String::new(),
            [one] => format!("also at {one}"),
            [init @ .., last] => format!("also at {} and {last}", init.join(", ")),
        };
        if more > 0 {
            let sep = if note.is_empty() { "also at" } else { ", and" };
            note = format!("{note}{sep} {more} more {places}");
        }
        Some(note)
    }

    /// Whether the problems name several values (or may: some were not kept).
    fn several_values(&self) -> bool {
        self.repeats().values.len() > 1 || self.repeats().more_values
    }

    fn unit(&self) -> (&'static str, &'static str) {
        self.cause.as_ref().map_or(("place", "places"), |c| c.unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Diagnostics, Tally};

    /// A bad cell of column `c` at line `line`, naming `value`.
    fn cell(line: usize, value: &str) -> Diagnostic {
        let cause = Cause::new("r.csv\0c", "column `c`: found {values}").rows();
        Diagnostic::new(Location::new("r.csv", line, 3), format!("column `c`: found `{value}`"))
            .hint("fix it")
            .cause(cause, value)
    }

    #[test]
    fn one_cause_at_many_places_is_one_diagnostic_in_any_order() {
        let all: Vec<Diagnostic> = (2..402).map(|line| cell(line, ["x", "y"][line % 2])).collect();
        let forward = Diagnostics(all.clone()).grouped();
        let backward = Diagnostics(all.into_iter().rev().collect()).grouped();
        assert_eq!(forward, backward);
        assert_eq!(
            forward.to_string(),
            "r.csv:2:3: column `c`: found `x`, `y` (400 rows)\n  = note: also at r.csv:3:3 \
             and r.csv:4:3, and 397 more places\n  = help: fix it\n400 errors of one kind"
        );
        assert_eq!(forward.0[0].repeats().values, ["x", "y"]);
    }

    #[test]
    fn identical_messages_group_without_a_cause_and_others_stay_apart() {
        let at = |line| Location::new("a.md", line, 1);
        let grouped = Diagnostics(vec![
            Diagnostic::new(at(3), "unknown statistic `s`"),
            Diagnostic::new(at(1), "unknown statistic `s`"),
            Diagnostic::new(at(2), "unknown statistic `t`"),
        ])
        .grouped();
        let shown: Vec<String> = grouped.0.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "a.md:1:1: unknown statistic `s` (2 places)\n  = note: also at a.md:3:1",
                "a.md:2:1: unknown statistic `t`"
            ]
        );
        assert_eq!(grouped.summary(), "3 errors of 2 kinds");
        assert_eq!(Diagnostics(vec![cell(1, "x")]).summary(), "1 error");
        assert_eq!(
            Diagnostics(vec![cell(1, "x"), cell(9, "x")]).grouped().summary(),
            "2 errors of one kind"
        );
    }

    #[test]
    fn values_and_places_are_bounded_and_the_count_is_exact() {
        let mut tally = Tally::default();
        for line in 1..=100_000 {
            tally.push(cell(line, &format!("v{:05}", line % 1_000)));
        }
        assert_eq!(tally.total(), 100_000);
        let grouped = tally.into_diagnostics();
        let d = &grouped.0[0];
        assert_eq!(d.count(), 100_000);
        assert_eq!(d.repeats().also.len(), MAX_LOCATIONS - 1);
        assert_eq!(d.repeats().values.len(), MAX_VALUES);
        assert_eq!(d.repeats().values[0], "v00000");
        assert!(d.shown_message().ends_with("`v00019`, …"), "{}", d.shown_message());
    }

    #[test]
    fn causes_past_the_limit_are_counted_not_lost() {
        let mut tally = Tally::default();
        for line in 0..MAX_CAUSES + 10 {
            tally.push(Diagnostic::new(
                Location::new("a.md", line + 1, 1),
                format!("problem {line}"),
            ));
        }
        assert_eq!(tally.total(), MAX_CAUSES + 10);
        let all = tally.into_diagnostics();
        assert_eq!(all.0.len(), MAX_CAUSES + 1);
        let last = all.0.iter().find(|d| d.message.starts_with("further")).unwrap();
        assert_eq!(last.count(), 10);
        assert_eq!(last.location.to_string(), format!("a.md:{}:1", MAX_CAUSES + 1));
    }

    #[test]
    fn notes_name_the_other_places_in_the_right_number() {
        let at = |line| Location::new("a.csv", line, 1);
        let d = |count, also: Vec<Location>| {
            Diagnostic::new(at(1), "m").repeated(count, also, []).also_note()
        };
        assert_eq!(d(1, vec![]), None);
        assert_eq!(d(2, vec![at(2)]).unwrap(), "also at a.csv:2:1");
        assert_eq!(d(3, vec![at(2)]).unwrap(), "also at a.csv:2:1, and 1 more place");
        assert_eq!(d(5, vec![]).unwrap(), "also at 4 more places");
    }
}
