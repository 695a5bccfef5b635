"""Independent triggers of every caveat kind, written from the rules that
README.md states ("Statistics": caveats from the data, resolution,
influence, exclusions), on the rows of the study and the figures that
tests/independent_stats.py computes with scipy. Nothing here reads report's
output or code.

`derive(S, out, groups, compared)`, called by independent_stats.compute
with that module as S, adds to `out`:

- `out["caveats"]`, the data-wide caveats: which files have
  configurations of fewer than 3 runs, which one-configuration comparisons
  are too small for rank statistics, whether some configuration lacks an
  environment, per column read by a metric its outliers, high variation
  and non-normal configurations (with the advice on the median), Holm's
  counts, the exclusions, and whether the results record node counts;
- `out[metric]["influential_caveat"]` and `["resolution_caveat"]`.

A trigger whose figures lie within rounding of its threshold (a p-value
within 1e-6 of 0.05, two runs that move the estimate equally, ...) is
None: two correct implementations may decide it either way, and
tests/stats_oracle does not check it.
"""
import math
from collections import defaultdict
from decimal import Decimal
from fractions import Fraction

import numpy as np
from scipy import stats

ALPHA = 0.05
# README: "a coefficient of variation above 5%".
HIGH_CV = 0.05
# "configurations with fewer than three runs".
FEW = 3
# "a distribution-free interval of the median (n < 6)".
MEDIAN_CI_MIN = 6
# Influence: "by more than 25% of its distance from no change".
SHARE = 0.25
# Influence: "past 500 runs in a configuration, the smallest, the largest
# and the one nearest the mean of each side".
EVERY_RUN_MAX = 500
# Resolution: "at least the half-width of the metric's interval or at
# least half its effect".
COARSE_SHARE = 0.5
# Resolution: "a grid is claimed only from a sample of at least five runs
# whose values repeat".
GRID_MIN_RUNS = 5
# Most pairwise differences (summed over every run left out) for which the
# median model's leave-one-out is brute-forced here; past it, unchecked.
MEDIAN_WORK = 4_000_000


def near(x, edge, tol=1e-6):
    """Whether x lies within rounding (tol relative) of the threshold edge."""
    return abs(x - edge) <= tol * abs(edge) + 1e-300


def exact(text):
    return Fraction(Decimal(text.strip()))


def derive(S, out, groups, compared):
    metrics = S.config.get("metrics", [])
    used = []
    for m in metrics:
        if (m["data"], m["value"]) not in used:
            used.append((m["data"], m["value"]))
    out["caveats"] = {
        "few_runs_groups": few_run_groups(groups, compared),
        "few_runs_pairs": few_run_pairs(S),
        "unmatched": unmatched(groups, compared),
        "columns": [column_caveats(f, c, [g for g in groups if (g["file"], g["column"]) == (f, c)])
                    for f, c in used],
        "multiplicity": holm([out[key]["p"] for key, _ in S.EVALUATED]),
        "excluded": excluded(S),
        "nodes_column": nodes_column(S),
        "sources": [sources(S, f, c) for f, c in used],
    }
    # A metric's own caveats; a family's members share its name: their
    # caveats are unchecked, but the run that carries each is, its verdicts
    # judged after Holm's correction across the family.
    families = defaultdict(list)
    for key, m in S.EVALUATED:
        if key != m["name"]:
            families[m["name"]].append((key, m))
    for name, m in S.EVALUATED:
        if name != m["name"]:
            continue
        summary = m.get("compare", "relative") == "summary"
        out[name]["resolution_caveat"] = False if summary else coarse(S, m, out[name])
        plain = summary
        carried = {"carries": False, "flips": False, "run": False} if plain else influence(S, m, out[name])
        record(out[name], carried)
    for members in families.values():
        if any(out[k].get("ambiguous") for k, _ in members):
            continue
        tested = [k for k, _ in members if out[k]["p"] is not None]
        for key, m in members:
            if m.get("compare", "relative") == "summary":
                continue
            family = (tested, [out[k]["p"] for k in tested], members)
            record(out[key], influence(S, m, out[key], key, family))


def record(out, carried):
    """The run that carries a metric, as stats_oracle reads it: whether its
    caveat is raised, whether the run changes the verdict, and the run
    [environment, value, the metric without it] (False for none); each
    None when not checked."""
    carried = carried or {"carries": None, "flips": None, "run": None}
    out["influential_caveat"] = carried["carries"]
    out["influence_flips"] = carried["flips"]
    out["influence_run"] = carried["run"]


# ------------------------------------------------------------- few runs


def few_run_groups(groups, compared):
    """Per file with comparisons: configurations (environment × group-by
    values, any compared column) with fewer than 3 runs, and the smallest n."""
    small = defaultdict(dict)
    for g in groups:
        n = g["summary"]["n"]
        if n < FEW and (g["file"], g["column"]) in compared:
            key = (g["env"], g["config"])
            small[g["file"]][key] = min(n, small[g["file"]].get(key, n))
    return {f: [len(s), min(s.values())] for f, s in small.items()}


def few_run_pairs(S):
    """The run counts (candidate, baseline) of the one-configuration
    comparisons where no rank test can reach p < 0.05 (the smallest
    two-sided p, 2 / C(m + n, m), is at least 0.05) or a side has fewer than
    6 runs, so that the median has no distribution-free interval."""
    pairs = set()
    for key, m in S.EVALUATED:
        info = S.SAMPLES.get(key)
        if m.get("compare", "relative") == "summary" or info is None or len(info["pairs"]) != 1:
            continue
        c, b = info["pairs"][0][:2]
        smallest_p = min(1.0, 2 / math.comb(len(c) + len(b), len(c)))
        if smallest_p >= ALPHA or min(len(c), len(b)) < MEDIAN_CI_MIN:
            pairs.add((len(c), len(b)))
    return sorted(pairs)


def unmatched(groups, compared):
    """Whether some configuration of a compared file was measured in fewer
    of the file's environments than the others."""
    files = {f for f, _ in compared}
    seen = defaultdict(set)
    for g in groups:
        if g["file"] in files:
            seen[(g["file"], g["config"])].add(g["env"])
    everywhere = defaultdict(set)
    for (f, _), envs in seen.items():
        everywhere[f] |= envs
    return any(envs != everywhere[f] for (f, _), envs in seen.items())


# ------------------------------------------------------ spread of the runs


def cv_above(g):
    """sd / |mean| > 5%. Within 1e-9 of 5% (docs/accuracy.md: rounding),
    exactly on the decimal values: exactly 5% (runs of 19, 20 and 21) is
    not above; above by less than that is left unchecked (None)."""
    s = g["summary"]
    if s.get("cv") is None:
        return False
    if not near(s["cv"], HIGH_CV, 1e-9):
        return s["cv"] > HIGH_CV
    x = [exact(t) for t in g["texts"]]
    mean = sum(x) / len(x)
    variance = sum((v - mean) ** 2 for v in x) / (len(x) - 1)
    return False if variance <= (Fraction(1, 20) * mean) ** 2 else None


def grid_step(g):
    """The step of the values' grid as an exact fraction (README,
    resolution: the gcd of the differences at the fewest decimals), else the
    smallest gap between few distinct values; None without one."""
    r = g["summary"]["resolution"]
    if r is None:
        return None
    if not r["grid"]:
        return Fraction(r["step"])
    x = sorted(set(exact(t) for t in g["texts"]))
    for d in range(13):
        scaled = [v * 10**d for v in x]
        if all(v.denominator == 1 for v in scaled):
            step = 0
            for v in scaled:
                step = math.gcd(step, int(v - scaled[0]))
            return Fraction(step, 10**d)
    return Fraction(r["step"])


def median_use(g):
    """README: "prefer the median" where it is more informative (the mean
    lies outside the median's 95% interval, or a run beyond 3 IQR), "keep
    the mean" where the values lie on a grid as coarse as that interval.
    Returns "stuck", "informative", "alike" or None (no median interval)."""
    s = g["summary"]
    if s.get("median_ci") is None:
        return None
    lo, hi = (Fraction(repr(float(v))) for v in s["median_ci"])
    step = grid_step(g)
    if step is not None and hi - lo <= step:
        return "stuck"
    x = [exact(t) for t in g["texts"]]
    mean = sum(x) / len(x)
    if s.get("severe") or mean < lo or mean > hi:
        return "informative"
    return "alike"


def column_caveats(file, column, gs):
    """Outliers, high variation and non-normality over the configurations of one column."""
    outliers = [g for g in gs if g["summary"].get("outliers")]
    mild = [len(g["summary"]["outliers"]) - len(g["summary"]["severe"]) for g in outliers]
    pvalues = [g["summary"]["shapiro"][1] for g in gs if g["summary"].get("shapiro")]
    # scipy's Shapiro–Wilk runs in single precision: 1e-3 of 0.05 is rounding.
    ambiguous = any(near(p, ALPHA, 1e-3) for p in pvalues)
    rejected = [g for g in gs if g["summary"].get("shapiro") and g["summary"]["shapiro"][1] < ALPHA]
    uses = [median_use(g) for g in rejected]
    return {
        "file": file,
        "column": column,
        "outliers": len(outliers),
        "severe": any(g["summary"]["severe"] for g in outliers),
        "mild": [sum(mild), sum(1 for k in mild if k > 0)],
        "high_cv": None if any(cv_above(g) is None for g in gs) else sum(1 for g in gs if cv_above(g)),
        "not_normal": None if ambiguous else len(rejected),
        "prefer_median": None if ambiguous else "informative" in uses,
        "keep_mean": None if ambiguous else "stuck" in uses,
    }


# ------------------------------------------------------- study-wide counts


def holm(pvalues):
    """[tested, p < 0.05, significant after Holm] over the metrics with a
    p-value, each count None within rounding of its threshold; None when
    fewer than two are tested. Holm (1979): sorted p₍₁₎ ≤ … ≤ p₍ₘ₎, reject
    while p₍ᵢ₎ ≤ α / (m − i + 1)."""
    ps = sorted(p for p in pvalues if p is not None)
    m = len(ps)
    if m < 2:
        return None
    raw = None if any(near(p, ALPHA) for p in ps) else sum(1 for p in ps if p < ALPHA)
    limits = [ALPHA / (m - i) for i in range(m)]
    survive = 0
    while survive < m and ps[survive] <= limits[survive]:
        survive += 1
    if any(near(p, limit) for p, limit in zip(ps, limits)):
        survive = None
    return [m, raw, survive]


def excluded(S):
    """Each exclusion: the rows its `where` matches in the file as written, and its reason."""
    found = []
    for name, data in S.config.get("data", {}).items():
        if not data.get("exclude"):
            continue
        with open(f"{S.root}/results/{name}.csv", newline="") as f:
            rows = list(S.csv.DictReader(f))
        for exclusion in data["exclude"]:
            reason = exclusion["reason"].strip().rstrip(".")
            found.append([len(S.selected(rows, exclusion["where"])), reason])
    return found


def nodes_column(S):
    import glob
    for path in glob.glob(f"{S.root}/results/*.csv"):
        with open(path, newline="") as f:
            if S.NODES in next(S.csv.reader(f), []):
                return True
    return False


# ------------------------------------------------------------------ sources


def sources(S, file, column):
    """docs/methods.md, sources: within each configuration (environment,
    group-by columns, factors) of the column, every two values of the
    `source` column whose run counts let Mann–Whitney reach p < 0.05
    (2 / C(m + n, m) < 0.05) are tested; Holm's correction across those
    tests. [file, column, tests, pairs that differ] (pairs [a, b] by their
    names), or None when the file has no source column or a p lies within
    rounding of 0.05."""
    rows = S.load(file)
    if not rows or "source" not in rows[0]:
        return [file, column, 0, []]
    if all(S.num(r["source"]) is not None or r["source"] == "" for r in rows):
        return [file, column, 0, []]
    by = [S.ENV] + [c for c in S.config.get("data", {}).get(file, {}).get("group-by", []) + S.FACTORS]
    by = [c for i, c in enumerate(by) if c in rows[0] and c != "source" and c not in by[:i]]
    cells = defaultdict(lambda: defaultdict(list))
    for r in rows:
        v = S.num(r[column])
        if v is not None:
            cells[tuple(S.key_text(r[c]) for c in by)][r["source"]].append(v)
    tests = []
    for key in sorted(cells):
        names = sorted(cells[key])
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                x, y = cells[key][a], cells[key][b]
                if 2 / math.comb(len(x) + len(y), len(x)) >= ALPHA:
                    continue
                tests.append(((key, a, b), S.mwu(x, y)["p"]))
    adjusted = S_HOLM([p for _, p in tests])
    if any(near(p, ALPHA) for p in adjusted):
        return None
    differ = [list(t[0][1:]) for t, p in zip(tests, adjusted) if p < ALPHA]
    return [file, column, len(tests), differ]


# ---------------------------------------------------------------- resolution

RESOLUTIONS = {}


def resolution(S, texts, x):
    """independent_stats.resolution of a sample, remembered: it depends on
    the distinct values and their count only."""
    key = (frozenset(texts), len(texts))
    if key not in RESOLUTIONS:
        if len(RESOLUTIONS) > 10_000:
            RESOLUTIONS.clear()
        RESOLUTIONS[key] = S.resolution(texts, x)
    return RESOLUTIONS[key]


def coarse(S, m, value):
    """README, resolution: the coarsest grid among the comparison's samples
    (per configuration the coarser side's step over the baseline's mean)
    is coarse when at least the half-width of the metric's interval or at
    least half its effect. None within rounding of either."""
    info = S.SAMPLES[m["name"]]
    coarsest = None
    for c, b, ct, bt in info["pairs"]:
        # A grid a claim may rest on: at least GRID_MIN_RUNS runs, some of
        # them equal (docs/methods.md, resolution).
        steps = [resolution(S, t, x) if len(x) >= GRID_MIN_RUNS and len(set(x)) < len(x) else None
                 for t, x in ((ct, c), (bt, b))]
        step = max(r["step"] if r else 0.0 for r in steps)
        base = math.fsum(b) / len(b)
        if step == 0 or base == 0:
            continue
        relative = step / abs(base)
        coarsest = relative if coarsest is None else max(coarsest, relative)
    if coarsest is None:
        return False
    null = 1.0 if m.get("compare", "relative") == "ratio" else 0.0
    effect = abs(value["value"] - null)
    half = None if value["ci"] is None else (value["ci"][1] - value["ci"][0]) / 2
    if m.get("compare") == "difference":
        # A difference against the grid as a share of the baseline's mean.
        base = abs(value["base_mean"])
        if base == 0:
            return False
        effect, half = effect / base, None if half is None else half / base
    if near(coarsest, COARSE_SHARE * effect, 1e-9) or (half is not None and near(coarsest, half, 1e-9)):
        return None
    return bool(coarsest >= COARSE_SHARE * effect or (half is not None and coarsest >= half))


# ----------------------------------------------------------------- influence


def left_out(x, total):
    """The runs of one side left out in turn (README, influence): every run
    (one of each value: equal runs give one estimate) up to 500 runs in the
    configuration, else the smallest, the largest and the one nearest the
    mean. Sides of one run are never left out."""
    if len(x) < 2:
        return []
    if total <= EVERY_RUN_MAX:
        first = {}
        for i, v in enumerate(x):
            first.setdefault(v, i)
        return sorted(first.values())
    x = np.asarray(x, float)
    mean = math.fsum(x) / len(x)
    picks = [int(np.argmin(x)), int(np.argmax(x)), int(np.argmin(np.abs(x - mean)))]
    return list(dict.fromkeys(picks))


def t_rows(points, null):
    """Student's t over each row of `points` against `null`: (mean, lo, hi,
    p), NaN where the row does not vary."""
    k = points.shape[1]
    mean = points.mean(axis=1)
    varies = np.ptp(points, axis=1) > 0
    se = np.where(varies, points.std(axis=1, ddof=1) / math.sqrt(k), np.nan)
    half = stats.t.ppf(0.975, k - 1) * se
    p = 2 * stats.t.sf(np.abs(mean - null) / se, k - 1)
    return mean, mean - half, mean + half, p


def loo_means(x, other, idxs, x_is_candidate):
    """The mean model without each run idxs of side x, against `other`:
    arrays ratio, lo, hi, p (NaN without an interval) and exact."""
    x, other = np.asarray(x, float), np.asarray(other, float)
    k, n1, no = len(idxs), len(x) - 1, len(other)
    keep = np.ones((k, len(x)), bool)
    keep[np.arange(k), idxs] = False
    low = np.where(keep, x, np.inf).min(axis=1)
    const = low == np.where(keep, x, -np.inf).max(axis=1)
    mean = np.where(const, low, np.where(keep, x, 0.0).sum(axis=1) / n1)
    other_const = no >= 2 and np.ptp(other) == 0
    mo = other[0] if other_const else float(np.mean(other))
    ratio = mean / mo if x_is_candidate else mo / mean
    dev = np.where(keep, x[None, :] / mean[:, None] - 1.0, 0.0)
    vx = np.where(const, 0.0, (dev**2).sum(axis=1) / max(n1 - 1, 1) / n1)
    vo = 0.0 if other_const or no < 2 else float((other / mo).var(ddof=1)) / no
    total = vx + vo
    has = (n1 >= 2) & (no >= 2) & (total > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.where(has, np.sqrt(total), np.nan)
        df = total**2 / (vx**2 / max(n1 - 1, 1) + (vo**2 / (no - 1) if no >= 2 else 0.0))
        half = stats.t.ppf(0.975, df) * se
        lr = np.log(ratio)
        p = np.where(has, 2 * stats.t.sf(np.abs(lr) / se, df), np.nan)
    lo, hi = np.where(has, np.exp(lr - half), np.nan), np.where(has, np.exp(lr + half), np.nan)
    return ratio, lo, hi, p, const & (n1 >= 2) & other_const, (se, df)


def loo_differences(S, estimator, x, other, idxs, x_is_candidate):
    """The difference model without each run idxs of side x
    (independent_stats.one_difference: Welch's t on the raw values, or the
    Hodges–Lehmann shift inverting Mann–Whitney's test): arrays value, lo,
    hi, p (NaN without an interval) and exact, and no (se, df)."""
    out = [[], [], [], [], []]
    for i in idxs:
        rest = list(x[:i]) + list(x[i + 1:])
        c, b = (rest, list(other)) if x_is_candidate else (list(other), rest)
        e = S.one_difference(c, b, estimator)
        if len(e) > 3 and e[3]:
            row = [e[0], np.nan, np.nan, np.nan, True]
        elif e[1] is None:
            row = [e[0], np.nan, np.nan, np.nan, False]
        else:
            row = [e[0], e[1][0], e[1][1], np.nan if e[2] is None else e[2], False]
        for column, v in zip(out, row):
            column.append(v)
    return (*(np.asarray(column, float if j < 4 else bool) for j, column in enumerate(out)), None)


def difference_rows(S, rows, exact_all):
    """Each row of per-configuration differences averaged as
    independent_stats.averaged_difference (Student's t over them)."""
    r, lo, hi, pv = [], [], [], []
    for row, exact in zip(rows, exact_all):
        mean, ci, p = S.t_over(list(row), 0.0)[:3]
        has = ci is not None and not exact
        r.append(mean)
        lo.append(ci[0] if has else np.nan)
        hi.append(ci[1] if has else np.nan)
        pv.append(p if has and p is not None else np.nan)
    return tuple(np.asarray(v, float) for v in (r, lo, hi, pv))


def loo_medians(S, x, other, idxs, x_is_candidate):
    """The median model without each run idxs: the Hodges–Lehmann ratio
    with the interval inverting Mann–Whitney's test (independent_stats'
    brute force), the test's p at the observed U (its null as there)."""
    out = [[], [], [], [], []]
    for i in idxs:
        rest = x[:i] + x[i + 1:]
        c, b = (rest, other) if x_is_candidate else (other, rest)
        if S.constant(c) and S.constant(b):
            row = [c[0] / b[0], np.nan, np.nan, np.nan, True]
        else:
            lc, lb = S.logs(c), S.logs(b)
            est, ci, _ = S.shift_interval(lc, lb, S.null_p(lc, lb))
            d = np.asarray(c, float)[:, None] - np.asarray(b, float)[None, :]
            u = float(np.sum(d > 0) + 0.5 * np.sum(d == 0))
            p = float(S.null_p(c, b)(u))
            row = [math.exp(est)] + ([np.nan, np.nan, np.nan] if ci is None else
                                     [math.exp(ci[0]), math.exp(ci[1]), p]) + [False]
        for column, v in zip(out, row):
            column.append(v)
    return tuple(np.asarray(column, float if j < 4 else bool) for j, column in enumerate(out))


def as_estimate(e):
    """(ratio, ci, p, exact, open) of an estimate of independent_stats."""
    return e[0], e[1], e[2], len(e) > 3 and bool(e[3]), e[4] if len(e) > 4 else [False, False]


def combined_rows(ratios, exact_all, how):
    """The average of each row of per-configuration ratios, as
    independent_stats.averaged: geometric (t over the logs) or arithmetic
    (t over the ratios, the interval cut at 0)."""
    if how == "geometric" and ratios.min() > 0:
        mean, lo, hi, p = t_rows(np.log(ratios), 0.0)
        ratio, lo, hi = np.exp(mean), np.exp(lo), np.exp(hi)
    else:
        ratio, lo, hi, p = t_rows(ratios, 1.0)
        lo = np.maximum(lo, 0.0)
    none = np.full(len(ratio), np.nan)
    return ratio, np.where(exact_all, none, lo), np.where(exact_all, none, hi), np.where(exact_all, none, p)


def holm_at(ps, at, p):
    """Holm's adjusted p of member `at` of `ps` with its p replaced by `p`."""
    ps = list(ps)
    ps[at] = p
    return S_HOLM(ps)[at]


def S_HOLM(ps):
    """Holm (1979), step-down adjusted p-values, written again here."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, running = [None] * len(ps), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        out[i] = running
    return out


def loo(S, estimator, x, other, idxs, is_c):
    """Leave-one-out by the estimator: (ratio, lo, hi, p, exact, (se, df)
    of the mean's log ratio, or None for the median)."""
    if estimator == "median":
        return (*loo_medians(S, list(x), list(other), idxs, is_c), None)
    return loo_means(x, other, idxs, is_c)


def member_p_without(S, key, config, baseline, idx):
    """The p of family member `key` without the baseline run idx of
    `baseline` (the sample at its configuration `config`), which the
    members of `candidates` share; None when it has no such sample."""
    info, m = S.SAMPLES[key], dict(S.EVALUATED)[key]
    if config not in info["configs"]:
        return None
    k = info["configs"].index(config)
    c, b, _, _ = info["pairs"][k]
    if list(b) != list(baseline):
        return None
    estimator, how = m.get("estimator", "mean"), m.get("average", "geometric")
    estimates = info["estimates"]
    if m.get("compare") == "difference":
        r, lo, hi, pv, ex, _ = loo_differences(S, estimator, b, c, [idx], False)
        if len(estimates) > 1:
            rows = np.array([[e[0] for e in estimates]])
            rows[0, k] = r[0]
            exact_each = np.array([as_estimate(e)[3] for e in estimates])
            r, lo, hi, pv = difference_rows(S, rows, ex & np.delete(exact_each, k).all())
        return None if np.isnan(pv[0]) else float(pv[0])
    r, lo, hi, pv, ex, se_df = loo(S, estimator, b, c, [idx], False)
    if len(estimates) > 1:
        ratios = np.array([[e[0] for e in estimates]])
        ratios[0, k] = r[0]
        exact_each = np.array([as_estimate(e)[3] for e in estimates])
        exact_all = ex & np.delete(exact_each, k).all()
        if info.get("generalise", True):
            r, lo, hi, pv = combined_rows(ratios, exact_all, how)
        else:
            if min(len(b) - 1, len(c)) < 2:
                # One run left on a side: no interval there, none for the average.
                lo, hi = np.full(1, np.nan), np.full(1, np.nan)
            log = how == "geometric" and ratios.min() > 0
            se0, df0 = errors_of(S, info, estimator, log)
            se, df = se0[None, :].copy(), df0[None, :].copy()
            se[:, k], df[:, k] = row_errors(r, lo, hi, ex, se_df, log)
            r, lo, hi, pv = fixed_rows(ratios, se, df, exact_all, how)
    return None if np.isnan(pv[0]) else float(pv[0])


def fixed_rows(ratios, se, df, exact_all, how):
    """The average of each row of per-configuration ratios over exactly
    these configurations, as independent_stats.fixed_over: SE = sqrt(sum
    SE_i^2) / k with Welch-Satterthwaite df; `se` (on the log scale for a
    geometric average, else the ratio's) and `df` are rows x k, NaN where a
    configuration has no interval."""
    geometric = how == "geometric" and ratios.min() > 0
    points, null = (np.log(ratios), 0.0) if geometric else (ratios, 1.0)
    k = ratios.shape[1]
    mean = points.mean(axis=1)
    total = (se**2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        fourth = np.where(np.isfinite(df), se**4 / df, 0.0).sum(axis=1)
        dfc = np.where(fourth > 0, total**2 / fourth, np.inf)
        err = np.sqrt(total) / k
        has = np.isfinite(err) & (err > 0)
        q = np.where(np.isinf(dfc), stats.norm.ppf(0.975), stats.t.ppf(0.975, np.where(np.isinf(dfc), 1.0, dfc)))
        tail = np.where(np.isinf(dfc), 2 * stats.norm.sf(np.abs(mean - null) / err),
                        2 * stats.t.sf(np.abs(mean - null) / err, np.where(np.isinf(dfc), 1.0, dfc)))
    lo, hi = mean - q * err, mean + q * err
    if geometric:
        ratio, lo, hi = np.exp(mean), np.exp(lo), np.exp(hi)
    else:
        ratio, lo = mean, np.maximum(lo, 0.0)
    none = np.full(len(ratio), np.nan)
    keep = has & ~exact_all
    return ratio, np.where(keep, lo, none), np.where(keep, hi, none), np.where(keep, tail, none)


def errors_of(S, info, estimator, log):
    """Each configuration's (SE, df) as independent_stats.own_error, NaN
    for none: two arrays of k."""
    out = [S.own_error(c, b, estimator, e, log) for (c, b, _, _), e in zip(info["pairs"], info["estimates"])]
    return (np.array([np.nan if e is None else e[0] for e in out]),
            np.array([np.nan if e is None else e[1] for e in out]))


def row_errors(r, lo, hi, ex, se_df, log):
    """The left-out configuration's (SE, df) per row: Welch's (`se_df`, of
    the log ratio) for the mean, the interval's width / (2 z) for the
    median (`se_df` None), 0 when exact, NaN without an interval."""
    if se_df is not None:
        se, df = se_df
        se = se if log else se * r
    else:
        width = (np.log(hi) - np.log(lo)) if log else (hi - lo)
        se, df = width / (2 * stats.norm.ppf(0.975)), np.full(len(r), np.inf)
    return np.where(ex, 0.0, se), np.where(ex, np.inf, df)


def influence(S, m, value, key=None, family=None):
    """README, influence: each run of both sides of every configuration left
    out in turn, the metric recomputed by its own model; the run kept whose
    removal changes the verdict, else moves the estimate most (the first
    such). It carries the metric when it changes the verdict, or moves the
    estimate by more than 25% of its distance from no change and by more
    than the half-width of the interval the other runs give. Not for
    within-run averages or metrics that are not headlines. Returns
    {"carries", "flips", "run": [environment, value, the metric without
    it] or False for none, None if another run moves it as much}, or None
    when a verdict lies within rounding of p = 0.05.

    For a member `key` of a family (`family`: its tested members' keys and
    p-values, and every member), each verdict is its p after Holm's
    correction across the family with the run left out (the other
    members' p as they are while runs are searched; for the run kept, if
    of the baseline the members share, each member's p without it)."""
    key = key or m["name"]
    info = S.SAMPLES[key]
    at = None
    if family is not None:
        if key not in family[0]:
            family = None
        else:
            at = family[0].index(key)
    if not m.get("headline") or info["within"]:
        return {"carries": False, "flips": False, "run": False}
    estimator, how = m.get("estimator", "mean"), m.get("average", "geometric")
    estimates = info["estimates"]
    work = sum(len(c) * len(b) * (len(left_out(c, len(c) + len(b))) + len(left_out(b, len(c) + len(b))))
               for c, b, _, _ in info["pairs"])
    if estimator == "median" and work > MEDIAN_WORK:
        return None
    generalise = info.get("generalise", True)
    difference = m.get("compare") == "difference"
    null = 0.0 if difference else 1.0
    errors = lambda log: [S.own_error(c, b, estimator, e, log) for (c, b, _, _), e in zip(info["pairs"], estimates)]
    if len(estimates) == 1:
        full = estimates[0]
    elif difference:
        full = S.averaged_difference(estimates)
    else:
        full = S.averaged(estimates, how, generalise, errors)
    ratio, ci, p, _, opened = as_estimate(full)
    if ci is not None and p is not None and near(p, ALPHA):
        return None
    one = len(estimates) == 1
    full_unreachable = one and len(full) > 5 and full[5]
    full_verdict = S.verdict(ci, opened, p, None, ratio, full_unreachable, null)
    if family is not None:
        full_verdict = value["significant"]
        if full_verdict is not None and near(value["p_holm"], ALPHA):
            return None

    def judged(has, q, rr, unreachable):
        """A verdict without a run, by the rule of docs/methods.md, Verdicts."""
        if not has:
            return None
        if unreachable or rr == null:
            return False
        if family is None:
            return bool(q < ALPHA)
        return bool(holm_at(family[1], at, q) < ALPHA)

    found = []  # (flips, shift, half, run), in the order runs are left out
    rounding = False  # whether some run moves the estimate by rounding only
    ratios = np.array([e[0] for e in estimates])
    exact_each = np.array([as_estimate(e)[3] for e in estimates])
    for k, (c, b, _, _) in enumerate(info["pairs"]):
        for x, other, is_c in ((c, b, True), (b, c, False)):
            idxs = left_out(x, len(c) + len(b))
            if not idxs:
                continue
            if difference:
                r, lo, hi, pv, ex, se_df = loo_differences(S, estimator, x, other, idxs, is_c)
            else:
                r, lo, hi, pv, ex, se_df = loo(S, estimator, x, other, idxs, is_c)
            if len(estimates) > 1 and difference:
                rows = np.repeat(np.array([e[0] for e in estimates])[None, :], len(idxs), axis=0)
                rows[:, k] = r
                exact_all = ex & np.delete(exact_each, k).all()
                r, lo, hi, pv = difference_rows(S, rows, exact_all)
            elif len(estimates) > 1:
                rows = np.repeat(ratios[None, :], len(idxs), axis=0)
                rows[:, k] = r
                exact_all = ex & np.delete(exact_each, k).all()
                if generalise:
                    r, lo, hi, pv = combined_rows(rows, exact_all, how)
                else:
                    if min(len(x) - 1, len(other)) < 2:
                        # One run left on a side: that configuration has no
                        # interval (docs/methods.md, Verdicts), so neither
                        # has the average over exactly these configurations.
                        lo, hi = np.full(len(lo), np.nan), np.full(len(hi), np.nan)
                    log = how == "geometric" and rows.min() > 0
                    se0, df0 = errors_of(S, info, estimator, log)
                    se, df = np.repeat(se0[None, :], len(idxs), axis=0), np.repeat(df0[None, :], len(idxs), axis=0)
                    se[:, k], df[:, k] = row_errors(r, lo, hi, ex, se_df, log)
                    r, lo, hi, pv = fixed_rows(rows, se, df, exact_all, how)
            # Judged at the sizes left (docs/methods.md, Verdicts): one run
            # on a side gives no interval; too few for the rank test, no verdict.
            unreachable = False
            if one:
                m_, n_ = len(x) - 1, len(other)
                unreachable = 2 / math.comb(m_ + n_, m_) >= ALPHA
                if min(m_, n_) < 2:
                    lo = np.full(len(lo), np.nan)
            has = ~np.isnan(lo)
            if any(near(q, ALPHA) for q in pv[has]):
                return None
            if family is not None and any(near(holm_at(family[1], at, q), ALPHA) for q in pv[has]):
                return None
            verdicts = [judged(h, q, rr, unreachable) for h, q, rr in zip(has, pv, r)]
            for j in range(len(idxs)):
                flips = full_verdict is not None and verdicts[j] is not None and verdicts[j] != full_verdict
                shift = abs(r[j] - ratio)
                # A move of rounding size (a central run left out) is no
                # move, though either implementation may compute one.
                if shift <= 1e-12 * max(1.0, abs(ratio)) and not flips:
                    rounding = True
                    continue
                env = info["candidate"] if is_c else info["baseline"]
                run = [env, float(x[idxs[j]]), float(S.express(m.get("compare", "relative"), r[j]))]
                where = (k, is_c, idxs[j], pv[j] if has[j] else None)
                found.append((flips, shift, (hi[j] - lo[j]) / 2 if has[j] else None, run, where))
    if not found:
        # report may name a run that moves the estimate by rounding only;
        # it carries nothing unless the estimate is no change itself.
        if rounding and abs(ratio - null) <= 1e-12:
            return None
        return {"carries": False, "flips": False, "run": None if rounding else False}
    best = max(found, key=lambda f: (f[0], f[1]))
    # The run kept, unless another moves the estimate as much within rounding.
    rivals = [f for f in found if f[0] == best[0] and near(f[1], best[1], 1e-9) and f[3][:2] != best[3][:2]]
    run = None if rivals else best[3]
    share = SHARE * abs(ratio - null)
    if family is not None and not best[4][1] and best[4][3] is not None:
        # A baseline run: every member sharing it has another p without it.
        k, _, idx, q = best[4]
        config, (_, b, _, _) = info["configs"][k], info["pairs"][k]
        ps = list(family[1])
        ps[at] = q
        for slot, other in enumerate(family[0]):
            if other != key:
                p_other = member_p_without(S, other, config, b, idx)
                ps[slot] = ps[slot] if p_other is None else p_other
        adjusted = S_HOLM(ps)[at]
        if near(adjusted, ALPHA):
            return None
        # By the claim's rule: the sizes left must let the rank test decide.
        c_, b_ = info["pairs"][k][0], info["pairs"][k][1]
        m_, n_ = len(c_), len(b_) - 1
        reachable = not one or (min(m_, n_) >= 2 and 2 / math.comb(m_ + n_, m_) < ALPHA)
        flips = full_verdict is not None and bool(adjusted < ALPHA and reachable) != full_verdict
        if flips != best[0]:
            if rivals:
                return None
            moves = best[1] > share and (best[2] is None or best[1] > best[2])
            return {"carries": bool(flips or moves), "flips": flips, "run": run}
    if best[0]:
        return {"carries": True, "flips": True, "run": run}

    def carries(f):
        return f[1] > share and (f[2] is None or f[1] > f[2])

    # Runs that move it as much, within rounding, may be the one kept.
    tied = [f for f in found if near(f[1], best[1], 1e-9)]
    edges = [share] + [f[2] for f in tied if f[2] is not None]
    if len({carries(f) for f in tied}) > 1 or any(near(best[1], e, 1e-9) for e in edges):
        return None
    return {"carries": bool(carries(best)), "flips": False, "run": run}
