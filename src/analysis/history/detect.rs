//! Which candidates are change points: each tested by Mann–Whitney's test
//! on the pooled runs of the segments either side, with the floors of
//! versions and runs and the sizes a change must exceed; the weakest that
//! fails is merged away and its neighbours tested again (Otava's merge),
//! Holm over every candidate of the study's series, until all left pass.

use super::edivisive;
use super::series::{Built, Raw};
use crate::analysis::metrics::sides;
use crate::analysis::statistics::robust::median;
use crate::analysis::statistics::{CONFIDENCE, ranks};
use crate::config::History;

/// One series' versions with runs, their runs sorted and their medians.
#[derive(Debug, Clone)]
pub struct Work {
    /// Each point's place in the order.
    pub places: Vec<usize>,
    /// Each point's runs, ascending.
    pub runs: Vec<Vec<f64>>,
    /// Each point's level: the mean of its runs' logs when every run is
    /// positive (a geometric mean, on the log scale), else of its runs.
    pub levels: Vec<f64>,
    /// Whether every run is positive: shifts are then ratios, on the log scale.
    pub positive: bool,
}

impl Work {
    /// The points of `raw`: its versions with runs.
    pub fn of(raw: &Raw) -> Work {
        let mut work =
            Work { places: Vec::new(), runs: Vec::new(), levels: Vec::new(), positive: true };
        for (place, runs) in raw.runs.iter().enumerate().filter(|(_, r)| !r.is_empty()) {
            let mut sorted = runs.clone();
            sorted.sort_unstable_by(f64::total_cmp);
            work.positive &= sorted[0] > 0.0;
            work.places.push(place);
            work.runs.push(sorted);
        }
        let positive = work.positive;
        work.levels = work.runs.iter().map(|runs| level(runs, positive)).collect();
        work
    }

    /// The runs of points `from..to`, pooled.
    fn pooled(&self, from: usize, to: usize) -> Vec<f64> {
        self.runs[from..to].iter().flatten().copied().collect()
    }
}

/// A version's level: the mean of its runs' logs when `positive`, else of its runs.
pub fn level(runs: &[f64], positive: bool) -> f64 {
    let sum: f64 = if positive { runs.iter().map(|x| x.ln()).sum() } else { runs.iter().sum() };
    sum / runs.len() as f64
}

/// How far level `x` lies from level `centre`, as a share of it; `None`
/// for a centre of 0 off the log scale.
pub fn apart(x: f64, centre: f64, positive: bool) -> Option<f64> {
    if positive {
        return Some((x - centre).exp_m1().abs());
    }
    (centre != 0.0).then(|| ((x - centre) / centre).abs())
}

/// The test of a split at point `at` between the segments `from..at` and `at..to`.
#[derive(Debug, Clone, PartialEq)]
pub struct Test {
    /// The points bounding the two segments: `from`, `at`, `to`.
    pub bounds: [usize; 3],
    /// Versions with runs before and after.
    pub versions: [usize; 2],
    /// Runs before and after.
    pub runs: [usize; 2],
    /// Mann–Whitney's two-sided p of the runs after against those before.
    pub p: f64,
    /// The smallest p these sizes can give.
    pub min_p: f64,
    /// The Hodges–Lehmann shift, after against before, as a share of before.
    pub shift: f64,
    /// Its 95% interval, as shares.
    pub ci: Option<[f64; 2]>,
}

/// Test the split of `work` at `at` between `from` and `to`.
pub fn test(work: &Work, [from, at, to]: [usize; 3]) -> Option<Test> {
    let (before, after) = (work.pooled(from, at), work.pooled(at, to));
    let (p, min_p, shift, ci) = compare(&before, &after, work.positive)?;
    Some(Test {
        bounds: [from, at, to],
        versions: [at - from, to - at],
        runs: [before.len(), after.len()],
        p,
        min_p,
        shift,
        ci,
    })
}

/// Mann–Whitney's p of `after` against `before`, the smallest p their
/// sizes allow, and the Hodges–Lehmann shift as a share of `before` with
/// its 95% interval: a ratio − 1 on the log scale when every run is
/// `positive`, else the shift over the median of `before`.
pub fn compare(
    before: &[f64],
    after: &[f64],
    positive: bool,
) -> Option<(f64, f64, f64, Option<[f64; 2]>)> {
    let rank = ranks::mann_whitney(after, before)?;
    let (shift, ci) = if positive {
        let log = |v: &[f64]| v.iter().map(|x| x.ln()).collect::<Vec<_>>();
        let hl = ranks::hodges_lehmann(&log(after), &log(before))?;
        let share = |x: f64| x.exp_m1();
        (share(hl.estimate), hl.interval.map(|i| i.ends.map(share)))
    } else {
        let hl = ranks::hodges_lehmann(after, before)?;
        let base = median(&sorted(before.to_vec())).abs();
        let share = |x: f64| if base > 0.0 { x / base } else { f64::NAN };
        (share(hl.estimate), hl.interval.map(|i| i.ends.map(share)))
    };
    Some((rank.p, rank.min_p, shift, ci))
}

fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_unstable_by(f64::total_cmp);
    v
}

/// The run-to-run noise of a series cut at `cuts`: the median, over the
/// points of segments of two points or more, of how far a point's level
/// lies from its segment's median level ([`apart`]).
pub fn noise(work: &Work, cuts: &[usize]) -> Option<f64> {
    let mut distances = Vec::new();
    for (from, to) in segments(work.levels.len(), cuts) {
        let centre = median(&sorted(work.levels[from..to].to_vec()));
        if to - from >= 2 {
            let far = work.levels[from..to].iter().map(|&x| apart(x, centre, work.positive));
            distances.extend(far.flatten());
        }
    }
    (!distances.is_empty()).then(|| median(&sorted(distances)))
}

/// The segments `0..len` cut at ascending `cuts`.
pub fn segments(len: usize, cuts: &[usize]) -> Vec<(usize, usize)> {
    let ends: Vec<usize> = std::iter::once(0).chain(cuts.iter().copied()).chain([len]).collect();
    ends.windows(2).map(|w| (w[0], w[1])).collect()
}

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

impl PartialEq for Work {
    fn eq(&self, other: &Self) -> bool {
        self.places == other.places && self.runs == other.runs && self.levels == other.levels
    }
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
    let standing = loop {
        let tested = evaluate(&works, &cuts, &mut memo);
        let Some((s, i, needs)) = rules.weakest(&works, &cuts, &tested) else { break tested };
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
