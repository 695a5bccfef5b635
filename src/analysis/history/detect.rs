//! Which candidates are change points: each tested by Mann–Whitney's test
//! on the pooled runs of the segments either side, with the floors of
//! versions and runs and the sizes a change must exceed; the weakest that
//! fails is merged away and its neighbours tested again (Otava's merge),
//! Holm over every candidate of the study's series, until all left pass;
//! those are then moved where least squares places them and merged again.

use super::edivisive;
use super::series::Built;
use super::work::{Test, Work, noise, test};
use crate::analysis::metrics::sides;
use crate::analysis::statistics::{CONFIDENCE, ranks};
use crate::config::History;

/// A candidate tested with its neighbours, and its verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Tested {
    /// The test.
    pub test: Test,
    /// Holm's adjusted p over every candidate then standing.
    pub p_holm: f64,
    /// For a candidate the runs could not decide, the runs to add to each side that could.
    pub needs: Option<usize>,
}

/// What one series holds after the merge.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// Its points.
    pub work: Work,
    /// The change points, in order.
    pub changes: Vec<Tested>,
    /// Candidates the runs could not decide.
    pub inconclusive: Vec<Tested>,
    /// The noise of the series cut at its changes.
    pub noise: Option<f64>,
    /// Versions whose runs stand apart from their neighbours', left out
    /// of `work`: (place, shift, Holm's p).
    pub outliers: Vec<super::outliers::Outlier>,
}

/// The change points of every series of `built`.
pub fn detect(built: &Built, history: &History, negligible: Option<f64>) -> Vec<Found> {
    let outliers: Vec<Vec<super::outliers::Outlier>> = built
        .series
        .iter()
        .map(|raw| super::outliers::find(&Work::of(raw), history, negligible))
        .collect();
    let works: Vec<Work> = built
        .series
        .iter()
        .zip(&outliers)
        .map(|(raw, outliers)| super::outliers::without(&Work::of(raw), outliers))
        .collect();
    let mut cuts: Vec<Vec<usize>> = works.iter().map(|w| propose(w, history)).collect();
    let mut inconclusive: Vec<Vec<Tested>> = vec![Vec::new(); works.len()];
    let rules = Rules { history, negligible };
    let mut memo = Memo::default();
    let mut moves = 0;
    let standing = loop {
        let tested = evaluate(&works, &cuts, &mut memo);
        let Some((s, i, needs)) = rules.weakest(&works, &cuts, &tested) else {
            let moved = relocated(&works, &cuts, history.min_versions);
            if moved == cuts || moves == MOVES {
                break tested;
            }
            (cuts, moves) = (moved, moves + 1);
            continue;
        };
        let mut removed =
            tested.into_iter().find(|(ts, t)| *ts == s && t.test.bounds[1] == cuts[s][i]);
        if let (Some(needs), Some((_, t))) = (needs, removed.as_mut()) {
            t.needs = Some(needs);
            inconclusive[s].push(t.clone());
        }
        cuts[s].remove(i);
    };
    works
        .into_iter()
        .zip(inconclusive)
        .zip(outliers)
        .enumerate()
        .map(|(s, ((work, inconclusive), outliers))| {
            let changes: Vec<Tested> =
                standing.iter().filter(|(ts, _)| *ts == s).map(|(_, t)| t.clone()).collect();
            let noise = noise(&work, &cuts[s]);
            let inconclusive = undecided(inconclusive, &changes);
            Found { work, changes, inconclusive, noise, outliers }
        })
        .collect()
}

/// Every series of `built` without a change sought: values not measured.
pub fn unsought(built: &Built) -> Vec<Found> {
    built
        .series
        .iter()
        .map(|raw| {
            let work = Work::of(raw);
            let noise = noise(&work, &[]);
            Found {
                work,
                changes: Vec::new(),
                inconclusive: Vec::new(),
                noise,
                outliers: Vec::new(),
            }
        })
        .collect()
}

/// How many times the change points standing are moved where least
/// squares places them ([`relocate`](super::relocate)) and merged again.
pub const MOVES: usize = 3;

/// Every series' cuts moved by [`relocate`](super::relocate::relocate).
fn relocated(works: &[Work], cuts: &[Vec<usize>], min: usize) -> Vec<Vec<usize>> {
    works.iter().zip(cuts).map(|(w, c)| super::relocate::relocate(w, c, min)).collect()
}

/// E-Divisive's candidates of a series: splits whose raw p reaches the
/// level or, where runs this few cannot reach it, is under 0.05 (to be
/// reported as undecided, with the runs that could decide it).
fn propose(work: &Work, history: &History) -> Vec<usize> {
    let accept = |from: usize, at: usize, to: usize| {
        test(work, [from, at, to]).is_some_and(|t| {
            t.p <= history.level || (t.min_p > history.level && t.p < 1.0 - CONFIDENCE)
        })
    };
    edivisive::candidates(&work.levels, history.window, history.min_versions, &accept)
}

/// The tests already made, by series and bounds: a merge changes the
/// neighbours of one candidate at a time.
type Memo = std::collections::HashMap<(usize, [usize; 3]), Option<Test>>;

/// Every standing candidate of every series tested with its neighbours,
/// with Holm's p over them all.
fn evaluate(works: &[Work], cuts: &[Vec<usize>], memo: &mut Memo) -> Vec<(usize, Tested)> {
    let mut tested: Vec<(usize, Tested)> = Vec::new();
    for (s, (work, cuts)) in works.iter().zip(cuts).enumerate() {
        let ends: Vec<usize> =
            std::iter::once(0).chain(cuts.iter().copied()).chain([work.levels.len()]).collect();
        for w in ends.windows(3) {
            let bounds = [w[0], w[1], w[2]];
            let test = memo.entry((s, bounds)).or_insert_with(|| test(work, bounds)).clone();
            let test = test.unwrap_or(Test {
                bounds: [w[0], w[1], w[2]],
                versions: [w[1] - w[0], w[2] - w[1]],
                runs: [0, 0],
                p: 1.0,
                min_p: 1.0,
                shift: 0.0,
                ci: None,
            });
            tested.push((s, Tested { test, p_holm: 1.0, needs: None }));
        }
    }
    let ps: Vec<f64> = tested.iter().map(|(_, t)| t.test.p).collect();
    for ((_, t), p) in tested.iter_mut().zip(sides::adjusted(&ps)) {
        t.p_holm = p;
    }
    tested
}

/// A failing candidate's rank (a floor failed, Holm's p, −|shift|), its
/// series, its index among the series' cuts and the runs it needs.
type Weakest = ((u8, f64, f64), usize, usize, Option<usize>);

/// The rules a change point must pass.
struct Rules<'a> {
    history: &'a History,
    negligible: Option<f64>,
}

impl Rules<'_> {
    /// Whether `t` is large enough: beyond `negligible` and the series' noise.
    fn sized(&self, t: &Test, noise: Option<f64>) -> bool {
        let size = t.shift.abs();
        size.is_finite() && size > self.negligible.unwrap_or(0.0) && size > noise.unwrap_or(0.0)
    }

    /// Whether each side has the floors' versions and runs.
    fn floors(&self, t: &Test) -> (bool, bool) {
        let versions = t.versions.iter().all(|&v| v >= self.history.min_versions);
        let runs = t.runs.iter().all(|&r| r >= self.history.min_runs);
        (versions, runs)
    }

    /// The weakest failing candidate (series, index among its cuts) and,
    /// when only too few runs failed it, the runs each side needs: a
    /// failure of the floors first, then the largest Holm p, then the
    /// smallest shift; `None` when every candidate passes.
    fn weakest(
        &self,
        works: &[Work],
        cuts: &[Vec<usize>],
        tested: &[(usize, Tested)],
    ) -> Option<(usize, usize, Option<usize>)> {
        let noises: Vec<Option<f64>> = works.iter().zip(cuts).map(|(w, c)| noise(w, c)).collect();
        let count = tested.len();
        let mut worst: Option<Weakest> = None;
        for (s, t) in tested {
            let (versions, runs) = self.floors(&t.test);
            let sized = self.sized(&t.test, noises[s.to_owned()]);
            let reachable = t.test.min_p * count as f64 <= self.history.level;
            let passes = versions && runs && sized && t.p_holm <= self.history.level;
            if passes {
                continue;
            }
            let needs =
                (versions && sized && (!runs || !reachable)).then(|| self.needs(&t.test, count));
            let rank = (u8::from(!(versions && runs)), t.p_holm, -t.test.shift.abs());
            let at = cuts[*s].iter().position(|&c| c == t.test.bounds[1]).unwrap_or(0);
            if worst.as_ref().is_none_or(|(r, ..)| rank.partial_cmp(r).is_some_and(|o| o.is_gt())) {
                worst = Some((rank, *s, at, needs));
            }
        }
        worst.map(|(_, s, at, needs)| (s, at, needs))
    }

    /// The fewest runs to add to each side of `t` for the floors to be met
    /// and its test, Holm over `count` candidates, to reach the level.
    fn needs(&self, t: &Test, count: usize) -> usize {
        let [m, n] = t.runs;
        (0..100_000)
            .find(|k| {
                m.min(n) + k >= self.history.min_runs
                    && ranks::min_p(m + k, n + k) * count as f64 <= self.history.level
            })
            .unwrap_or(100_000)
    }
}

/// The inconclusive candidates not inside a change's segments' boundary:
/// one per place, none where a change stands.
fn undecided(mut inconclusive: Vec<Tested>, changes: &[Tested]) -> Vec<Tested> {
    inconclusive.retain(|t| changes.iter().all(|c| c.test.bounds[1] != t.test.bounds[1]));
    inconclusive.sort_by_key(|t| t.test.bounds[1]);
    inconclusive.dedup_by_key(|t| t.test.bounds[1]);
    inconclusive
}
