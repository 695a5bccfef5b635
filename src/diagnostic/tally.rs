//! Collecting diagnostics one per cause: [`Tally`] as problems arrive, in
//! bounded memory, and [`Diagnostics::grouped`] for a finished list.

use std::collections::BTreeMap;

use super::group::MAX_CAUSES;
use super::{Diagnostic, Diagnostics};

/// Diagnostics grouped by cause as they arrive, in bounded memory: a count,
/// the first locations and the smallest values per cause, for at most
/// [`MAX_CAUSES`] causes (the problems of any further cause are counted in one
/// more diagnostic).
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// One diagnostic per cause key.
    by_cause: BTreeMap<String, Diagnostic>,
    /// Problems of causes past [`MAX_CAUSES`], and the first of them.
    overflow: Option<Diagnostic>,
}

impl Tally {
    /// Count `diagnostic` with the others of its cause.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        let key = diagnostic.key();
        if let Some(group) = self.by_cause.get_mut(&key) {
            group.absorb(diagnostic);
        } else if self.by_cause.len() < MAX_CAUSES {
            self.by_cause.insert(key, diagnostic);
        } else {
            let count = diagnostic.count();
            let location = diagnostic.location;
            let other = Diagnostic::new(location, "further errors of other kinds, not shown")
                .hint("fix the errors above and build again to see them")
                .repeated(count, [], []);
            match &mut self.overflow {
                Some(overflow) => overflow.absorb(other),
                None => self.overflow = Some(other),
            }
        }
    }

    /// Count every diagnostic of `other`.
    pub fn extend(&mut self, other: impl IntoIterator<Item = Diagnostic>) {
        other.into_iter().for_each(|d| self.push(d));
    }

    /// Count every problem of `other` here, leaving it empty.
    pub fn append(&mut self, other: &mut Tally) {
        let other = std::mem::take(other);
        self.extend(other.by_cause.into_values().chain(other.overflow));
    }

    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        self.by_cause.is_empty()
    }

    /// The problems counted, all causes together.
    pub fn total(&self) -> usize {
        self.by_cause.values().chain(&self.overflow).map(Diagnostic::count).sum()
    }

    /// One diagnostic per cause, sorted by location.
    pub fn into_diagnostics(self) -> Diagnostics {
        let mut all: Vec<Diagnostic> = self.by_cause.into_values().chain(self.overflow).collect();
        all.sort();
        Diagnostics(all)
    }
}

impl Diagnostics {
    /// One diagnostic per cause, sorted by location (see [`Tally`]).
    pub fn grouped(self) -> Diagnostics {
        let mut tally = Tally::default();
        tally.extend(self.0);
        tally.into_diagnostics()
    }

    /// The problems these diagnostics stand for, all causes together.
    pub fn total(&self) -> usize {
        self.0.iter().map(Diagnostic::count).sum()
    }

    /// `400 errors of 2 kinds`, `3 errors`, `1 error`: how many problems of how many causes.
    pub fn summary(&self) -> String {
        let (total, kinds) = (self.total(), self.0.len());
        let errors = if total == 1 { "error" } else { "errors" };
        match kinds {
            _ if kinds == total => format!("{total} {errors}"),
            1 => format!("{total} {errors} of one kind"),
            _ => format!("{total} {errors} of {kinds} kinds"),
        }
    }
}
