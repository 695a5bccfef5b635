#!/usr/bin/env python3
"""Independent computation of a study's statistics with scipy and numpy.

Reads book.toml with tomllib and the results CSVs with the csv module, and
computes from the definitions in README.md ("Statistics") every group
summary, every comparison and every metric, keyed as stats.json keys them
(`group:ID`, `comparison:ID`, the metric's name), and the cells of every
computed table of content/*.md (`table:ID`). tests/independent.rs
compares them with stats.json. Nothing here is taken from report's output.

    python3 tests/independent_stats.py STUDY_DIR
"""
import csv
import glob
import os
import json
import functools
import math
import re
import struct
import sys
import tomllib
from collections import defaultdict
from decimal import Decimal
from fractions import Fraction

import numpy as np
from scipy import stats
from scipy import special

Q = 0.975

# Each comparison metric's samples by configuration, for the caveats
# (tests/independent_caveats.py): key -> {"configs", "pairs", ...}.
SAMPLES = {}
# Every comparison or summary computed, a family's members each: (key, metric).
EVALUATED = []


NEGLIGIBLE = [None]


def use_study(path):
    """Make the study at `path` the one every function below reads."""
    global root, config, BASELINE, ENV, NODES, FACTORS
    SAMPLES.clear()
    EVALUATED.clear()
    root = path
    config = tomllib.load(open(f"{root}/book.toml", "rb"))
    study = config.get("study", {})
    BASELINE = study["baseline"]
    ENV = study.get("environment-column", "environment")
    NODES = study.get("nodes-column", "nodes")
    FACTORS = study.get("factors", [])
    # `negligible = "5%"` as a fraction, or None.
    text = study.get("negligible")
    NEGLIGIBLE[0] = float(text.rstrip("%")) / 100 if text else None


LOADED = {}


def load(name):
    """The rows of table `name` after exclusions and derived columns, read
    once per study (a fresh list each call; the rows are never changed)."""
    if (root, name) not in LOADED:
        LOADED[(root, name)] = read(name)
    return list(LOADED[(root, name)])


def read(name):
    with open(f"{root}/results/{name}.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    # `exclude`: the rows each exclusion's `where` selects leave every statistic.
    for exclusion in config.get("data", {}).get(name, {}).get("exclude", []):
        gone = {id(r) for r in selected(rows, exclusion["where"])}
        rows = [r for r in rows if id(r) not in gone]
    derive = config.get("data", {}).get(name, {}).get("derive", {})
    for r in rows:
        for column, expr in derive.items():
            r[column] = str(eval(expr, {}, {k: num(v) for k, v in r.items() if num(v) is not None}))
    return rows


def exact_percentile(s, p):
    """numpy's linear percentile of the sorted Fractions `s`, exactly."""
    h = (len(s) - 1) * p
    lo = int(h)
    return s[lo] if lo + 1 >= len(s) else s[lo] + (s[lo + 1] - s[lo]) * (h - lo)


@functools.lru_cache(maxsize=1 << 16)
def num(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


@functools.lru_cache(maxsize=1 << 16)
def key_text(v):
    """A key value as report prints it: integers without a decimal point."""
    f = num(v)
    if f is None:
        return v
    return str(int(f)) if f == int(f) and abs(f) < 1e15 else repr(f)


# ---------------------------------------------------------------- groups


def scale_of(x):
    """A power of two near the largest magnitude: moments of x / scale cannot
    overflow or vanish (mathematically neutral; values near 1e300 need it)."""
    top = float(np.max(np.abs(x)))
    return 2.0 ** math.frexp(top)[1] if top > 0 else 1.0


def resolution(texts, x):
    """The grid of the values, from their decimal text, exactly: at the fewest
    decimals d <= 12 that make every value a whole number, the gcd of the
    differences over 10^d; else, with at most half as many distinct values as
    values, the smallest gap between them (README, "Statistics")."""
    distinct = sorted(set(float(v) + 0.0 for v in x))
    if len(distinct) < 2:
        return None
    exact = sorted(set(Fraction(Decimal(t.strip())) for t in texts))
    for d in range(13):
        scaled = [v * 10**d for v in exact]
        if all(v.denominator == 1 and abs(v) < 9e15 for v in scaled):
            ints = [int(v) for v in scaled]
            g = 0
            for k in ints:
                g = math.gcd(g, k - ints[0])
            return {"step": g / 10**d, "grid": True, "distinct": len(distinct)}
    if 2 * len(distinct) <= len(x):
        gap = min(b - a for a, b in zip(distinct, distinct[1:]))
        return {"step": gap, "grid": False, "distinct": len(distinct)}
    return None


def summary(x, texts=None):
    texts = texts if texts is not None else [repr(float(v)) for v in x]
    x = np.asarray(x, dtype=float)
    n = len(x)
    scale = scale_of(x)
    out = {"n": n, "mean": float(np.mean(x / scale)) * scale, "median": float(np.median(x))}
    if np.ptp(x) == 0:
        # Equal values: their mean is the value, their sd exactly 0.
        out["mean"] = float(x[0])
    if n >= 2:
        sd = float(np.std(x / scale, ddof=1)) * scale if np.ptp(x) > 0 else 0.0
        out["sd"] = sd
        out["ci"] = list(stats.t.interval(0.95, n - 1, loc=out["mean"], scale=sd / math.sqrt(n))) if sd > 0 else [out["mean"]] * 2
        if out["mean"] != 0:
            out["cv"] = sd / abs(out["mean"])
    out["resolution"] = resolution(texts, x)
    if n >= 4:
        q1, q3 = np.percentile(x, [25, 75])
        out["quartiles"] = [float(q1), float(q3)]
        # The fences' scale: the IQR, or one step of the grid when wider; with
        # neither, the smallest gap between distinct values.
        grid = out["resolution"]
        scale = max(q3 - q1, grid["step"] if grid else 0.0)
        if scale == 0 and len(set(x)) > 1:
            u = sorted(set(float(v) for v in x))
            scale = min(b - a for a, b in zip(u, u[1:]))
        out["fence_scale"] = scale
        # Fences in exact decimal arithmetic on the values as written (their
        # shortest decimals): a value on a fence is not beyond it, which
        # q3 + 1.5 * scale in floats can get wrong (55.85 at q1 = 55.9475,
        # q3 = 56.0125 in the flux-usernetes LAMMPS runs).
        exact = sorted(Fraction(repr(float(v))) for v in x)
        e1, e3 = (exact_percentile(exact, p) for p in (Fraction(1, 4), Fraction(3, 4)))
        es = max(e3 - e1, Fraction(repr(float(grid["step"]))) if grid else Fraction(0))
        if es == 0 and len(set(x)) > 1:
            es = min(b - a for a, b in zip(exact, exact[1:]) if b > a)
        # Each distinct value once: beyond the fences k scales out?
        distinct = {float(v): Fraction(repr(float(v))) for v in x}
        beyond = lambda v, k: distinct[float(v)] < e1 - k * es or distinct[float(v)] > e3 + k * es
        mild = {v for v in distinct if beyond(v, Fraction(3, 2))}
        severe = {v for v in mild if beyond(v, 3)}
        out["outliers"] = sorted(float(v) for v in x if float(v) in mild)
        out["severe"] = sorted(float(v) for v in x if float(v) in severe)
    if n >= 6:
        # Largest j with 2 P(B <= j) <= 0.05, B ~ Binomial(n, 1/2).
        cdf = 2 * stats.binom.cdf(np.arange(n), n, 0.5)
        j = int(np.flatnonzero(cdf <= 0.05).max())
        s = np.sort(x)
        out["median_ci"] = [float(s[j]), float(s[n - 1 - j])]
    if 8 <= n <= 5000 and np.ptp(x) > 0:
        w, p = stats.shapiro(x)
        out["shapiro"] = [float(w), float(p)]
    return out


# ------------------------------------------------------------ comparisons


def log_welch(c, b):
    """Ratio of means; Welch's t on the log scale (delta-method se of ln R)."""
    c, b = np.asarray(c, float), np.asarray(b, float)
    mc, mb = c.mean(), b.mean()
    r = mc / mb
    if len(c) < 2 or len(b) < 2:
        return r, None, None
    # A side of equal values has no variance, whatever the rounding of c / mc.
    vc = (c / mc).var(ddof=1) / len(c) if np.ptp(c) > 0 else 0.0
    vb = (b / mb).var(ddof=1) / len(b) if np.ptp(b) > 0 else 0.0
    if vc + vb == 0:
        return r, None, None
    se = math.sqrt(vc + vb)
    df = (vc + vb) ** 2 / (vc**2 / (len(c) - 1) + vb**2 / (len(b) - 1))
    half = stats.t.ppf(Q, df) * se
    return r, [math.exp(math.log(r) - half), math.exp(math.log(r) + half)], float(2 * stats.t.sf(abs(math.log(r) / se), df))


def has_ties(c, b):
    pooled = list(c) + list(b)
    return len(set(pooled)) < len(pooled)


def constant(x):
    """Two values or more, all equal: a value measured exactly."""
    return len(x) >= 2 and min(x) == max(x)


def tie_term(c, b):
    _, t = np.unique(np.concatenate([np.asarray(c, float), np.asarray(b, float)]), return_counts=True)
    return float(np.sum(t.astype(float) ** 3 - t))


def null_p(c, b):
    """The two-sided p of any U (a half-integer under ties; numpy arrays
    too) for samples like c and b: exact without ties (m·n ≤ 10,000), from
    scipy's exact null; else the normal approximation, its variance with
    the tie correction of the pooled samples as observed, with a continuity
    correction (the textbook formula; checked against scipy's asymptotic p
    at the observed U). A half-integer in the exact null takes the p of its
    neighbour nearer the centre."""
    m, n = len(c), len(b)
    mn = m * n
    if not has_ties(c, b) and mn <= 10_000:
        tails = exact_tails(m, n)

        def p(u):
            k = np.ceil(np.minimum(u, mn - np.asarray(u, float))).astype(int)
            return tails[k]
        return p
    total = m + n
    variance = mn / 12 * ((total + 1) - tie_term(c, b) / (total * (total - 1)))

    def p(u):
        if variance <= 0:
            return np.ones_like(np.asarray(u, float)) if np.ndim(u) else 1.0
        z = np.maximum(np.abs(np.asarray(u, float) - mn / 2) - 0.5, 0.0) / math.sqrt(variance)
        return np.minimum(1.0, 2 * special.ndtr(-z))
    return p


EXACT = {}


def exact_tails(m, n):
    """2·P(U ≤ u), at most 1, for u = 0..m·n without ties, by Mann and
    Whitney's (1947) recurrence f(u; i, j) = f(u − j; i − 1, j) + f(u; i, j − 1)
    over every (i, j) up to (m, n)."""
    if (m, n) not in EXACT:
        # rows[j] = counts of U for samples of i and j.
        rows = [np.ones(1) for _ in range(n + 1)]
        for i in range(1, m + 1):
            new = [np.ones(1)]
            for j in range(1, n + 1):
                f = np.zeros(i * j + 1)
                f[j:] += rows[j]
                f[: len(new[j - 1])] += new[j - 1]
                new.append(f)
            rows = new
        counts = rows[n]
        EXACT[(m, n)] = np.minimum(1.0, 2 * np.cumsum(counts) / counts.sum())
    return EXACT[(m, n)]


def mwu(c, b):
    exact = not has_ties(c, b) and len(c) * len(b) <= 10_000
    res = stats.mannwhitneyu(c, b, alternative="two-sided", method="exact" if exact else "asymptotic")
    m, n = len(c), len(b)
    if exact:
        # The recurrence agrees with scipy's exact null at the observed U.
        mine = null_p(c, b)(float(res.statistic))
        assert abs(mine - res.pvalue) <= 1e-9 * res.pvalue, (mine, res.pvalue)
    elif len(set(list(c) + list(b))) > 1:
        # The textbook formula of null_p agrees with scipy at the observed U.
        mine = null_p(c, b)(float(res.statistic))
        assert abs(mine - res.pvalue) <= 1e-9 * res.pvalue + 1e-300, (mine, res.pvalue)
    return {"u": float(res.statistic), "p": float(res.pvalue), "exact": exact,
            "min_p": min(1.0, 2 / math.comb(m + n, m)), "cliffs_delta": 2 * float(res.statistic) / (m * n) - 1}


def p_at_u(u, m, n):
    """Exact two-sided p of U = u for sizes m, n, from scipy on samples built to give U = u."""
    b = list(range(n))
    c, left = [], u
    for _ in range(m):
        above = min(n, left)
        left -= above
        c.append(above - 0.5)
    return stats.mannwhitneyu(c, b, alternative="two-sided", method="exact").pvalue


def shift_interval(c, b, p):
    """The Hodges–Lehmann shift of c − b (the median of the m·n differences)
    and the shifts x at which U(x) = #{d > x} + #{d = x}/2 has p ≥ 0.05, by
    brute force over every difference and every point between two: their
    ends, with an end open where the difference itself is rejected and the
    point just inside accepted; stretched to the estimate when the test
    rejects it, and the estimate alone when the test rejects every shift.
    Returns (estimate, [lo, hi] or None, [open_lo, open_hi])."""
    d = np.sort((np.asarray(c, float)[:, None] - np.asarray(b, float)[None, :]).ravel())
    mn = len(d)
    est = float(np.median(d))
    if p(0.0) >= 0.05:
        return est, None, [False, False]
    # The distinct differences and where each one's run starts and ends in
    # the sorted d (np.unique and searchsorted, without sorting again).
    left = np.flatnonzero(np.r_[True, d[1:] != d[:-1]])
    points = d[left]
    right = np.r_[left[1:], mn]
    u_at = (mn - right) + (right - left) / 2
    # Between points[i] and points[i + 1]: the differences above points[i].
    u_between = (mn - right)[:-1].astype(float)
    at_ok = np.flatnonzero(p(u_at) >= 0.05)
    between_ok = np.flatnonzero(p(u_between) >= 0.05) if len(u_between) else np.array([], int)
    if len(at_ok) == 0 and len(between_ok) == 0:
        return est, [est, est], [False, False]
    # The lowest accepted: a point, or the gap above points[i] (open at it).
    lows = [(float(points[i]), False) for i in at_ok[:1]] + [(float(points[i]), True) for i in between_ok[:1]]
    highs = [(float(points[i]), False) for i in at_ok[-1:]] + [(float(points[i + 1]), True) for i in between_ok[-1:]]
    lo = min(lows, key=lambda e: (e[0], e[1]))
    hi = max(highs, key=lambda e: (e[0], not e[1]))
    ends, opened = [lo[0], hi[0]], [lo[1], hi[1]]
    if est < ends[0] or (est == ends[0] and opened[0]):
        ends[0], opened[0] = est, False
    elif est > ends[1] or (est == ends[1] and opened[1]):
        ends[1], opened[1] = est, False
    return est, ends, opened


# FreeBSD's e_log.c (msun), the algorithm of the libm crate that report's
# logarithms use (src/math.rs), written out from its published source: the
# Hodges-Lehmann interval's open ends depend on exact ties between
# differences of logs, so the oracle must round each log as report does,
# and the C library's log (glibc's, another algorithm) differs from it in
# the last place for some values. Python's floats are IEEE doubles and
# each operation below rounds as the C source's does (no fused operations).
LN2_HI, LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10
LG = [6.666666666666735130e-01, 3.999999999940941908e-01, 2.857142874366239149e-01,
      2.222219843214978396e-01, 1.818357216161805012e-01, 1.531383769920937332e-01,
      1.479819860511658591e-01]


def msun_log(x):
    """ln x, rounded as FreeBSD's e_log.c rounds it."""
    bits = lambda v: struct.unpack("<Q", struct.pack("<d", v))[0]
    ui = bits(x)
    hx, k = ui >> 32, 0
    if hx < 0x00100000 or hx >> 31:
        if (ui << 1) & 0xFFFFFFFFFFFFFFFF == 0:
            return -math.inf
        if hx >> 31:
            return math.nan
        k, x = -54, x * 2.0**54
        ui = bits(x)
        hx = ui >> 32
    elif hx >= 0x7FF00000:
        return x
    elif hx == 0x3FF00000 and ui & 0xFFFFFFFF == 0:
        return 0.0
    # x reduced into [sqrt(2)/2, sqrt(2)], times 2^k.
    hx += 0x3FF00000 - 0x3FE6A09E
    k += (hx >> 20) - 0x3FF
    hx = (hx & 0x000FFFFF) + 0x3FE6A09E
    x = struct.unpack("<d", struct.pack("<Q", (hx << 32) | (ui & 0xFFFFFFFF)))[0]
    return reduced_log(x, float(k))


def reduced_log(x, dk):
    """ln(x · 2^dk) for x in [sqrt(2)/2, sqrt(2)], as e_log.c computes it:
    on Python floats or on numpy arrays alike (each operation rounds once)."""
    f = x - 1.0
    hfsq = 0.5 * f * f
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    t1 = w * (LG[1] + w * (LG[3] + w * LG[5]))
    t2 = z * (LG[0] + w * (LG[2] + w * (LG[4] + w * LG[6])))
    r = t2 + t1
    return s * (hfsq + r) + dk * LN2_LO - hfsq + f + dk * LN2_HI


def logs(x):
    """Natural logs rounded as report's are (msun_log), not numpy's own: the
    same operations as msun_log on whole arrays (each of numpy's rounds once,
    as Python's do), special values (zero, subnormal, negative, not finite,
    one) by msun_log itself."""
    x = np.asarray(x, dtype=np.float64)
    # The port agrees with the C library to within one unit in the last place.
    for v in x[:8]:
        assert abs(msun_log(float(v)) - math.log(v)) <= 2 * math.ulp(math.log(v)), v
    ui = x.view(np.uint64)
    hx = ui >> np.uint64(32)
    low = ui & np.uint64(0xFFFFFFFF)
    special = (hx < 0x00100000) | (hx >= 0x7FF00000) | ((hx == 0x3FF00000) & (low == 0))
    hx = hx + np.uint64(0x3FF00000 - 0x3FE6A09E)
    k = (hx >> np.uint64(20)).astype(np.int64) - 0x3FF
    hx = (hx & np.uint64(0x000FFFFF)) + np.uint64(0x3FE6A09E)
    reduced = ((hx << np.uint64(32)) | low).view(np.float64)
    out = reduced_log(reduced, k.astype(np.float64))
    for i in np.flatnonzero(special):
        out[i] = msun_log(float(x[i]))
    # The whole-array form rounds as the port does, value for value.
    for v, got in zip(x[:8], out[:8]):
        assert got == msun_log(float(v)), (v, got)
    return out


def hodges_lehmann(c, b):
    """Hodges–Lehmann ratio: the shift of the logs, its interval inverting
    Mann–Whitney's test (exact or normal with ties) on the logs."""
    lc, lb = logs(c), logs(b)
    est, ci, opened = shift_interval(lc, lb, null_p(lc, lb))
    if ci is None:
        return math.exp(est), None, opened
    return math.exp(est), [math.exp(ci[0]), math.exp(ci[1])], opened


def comparison(c, b):
    r, ci, p = log_welch(c, b)
    out = {"ratio": r, "ci": None if ci is None else [ci[0] - 1, ci[1] - 1], "p": p, "rank": mwu(c, b)}
    if min(list(c) + list(b)) > 0:
        hl, hci, opened = hodges_lehmann(np.asarray(c, float), np.asarray(b, float))
        one = min(len(c), len(b)) < 2
        out["median"] = {"relative": hl - 1, "ci": None if hci is None or one else [hci[0] - 1, hci[1] - 1],
                         "open": [False, False] if one else opened, "p": None if one else out["rank"]["p"],
                         "ratio_of_medians": float(np.median(c) / np.median(b))}
    return out


# ----------------------------------------------------------------- metrics


def selected(rows, where):
    def ok(r, column, cond):
        v = r[column]
        if isinstance(cond, dict):
            f = num(v)
            return f is not None and cond.get("min", -math.inf) <= f <= cond.get("max", math.inf)
        if isinstance(cond, list):
            return any(ok(r, column, c) for c in cond)
        if isinstance(cond, str):
            return v == cond
        return num(v) == float(cond)
    return [r for r in rows if all(ok(r, c, cond) for c, cond in where.items())]


def express(compare, r):
    return {"relative": r - 1, "slowdown": 1 - r}.get(compare, r)


def interval(compare, ci):
    a, b = express(compare, ci[0]), express(compare, ci[1])
    return [min(a, b), max(a, b)]


def t_over(points, null):
    """Student's t over the k values `points` against `null`."""
    x = np.asarray(points, float)
    k = len(x)
    se = float(np.std(x, ddof=1)) / math.sqrt(k) if np.ptp(x) > 0 else 0.0
    if se == 0:
        return float(x.mean()), None, None
    half = stats.t.ppf(Q, k - 1) * se
    return float(x.mean()), [x.mean() - half, x.mean() + half], float(2 * stats.t.sf(abs((x.mean() - null) / se), k - 1))


def own_error(c, b, estimator, e, log):
    """One configuration's standard error and degrees of freedom, for an
    average over exactly these configurations: 0 for an exact ratio;
    Welch's of the log ratio (times the ratio, by the delta method, for an
    arithmetic average); for the median, its interval's width / (2 z),
    normal; None without an interval."""
    if len(e) > 3 and e[3]:
        return 0.0, math.inf
    if estimator == "median":
        if e[1] is None:
            return None
        lo, hi = e[1]
        width = math.log(hi) - math.log(lo) if log else hi - lo
        return (width / (2 * stats.norm.ppf(Q)), math.inf) if width > 0 else None
    c, b = np.asarray(c, float), np.asarray(b, float)
    if len(c) < 2 or len(b) < 2:
        return None
    vc = (c / c.mean()).var(ddof=1) / len(c) if np.ptp(c) > 0 else 0.0
    vb = (b / b.mean()).var(ddof=1) / len(b) if np.ptp(b) > 0 else 0.0
    if vc + vb == 0:
        return None
    df = (vc + vb) ** 2 / (vc**2 / (len(c) - 1) + vb**2 / (len(b) - 1))
    se = math.sqrt(vc + vb)
    return (se if log else se * e[0]), df


def fixed_over(points, errors, null):
    """The mean of the k `points` over exactly these configurations: SE =
    sqrt(sum SE_i^2) / k, Welch-Satterthwaite df, Student's t."""
    x = np.asarray(points, float)
    if any(e is None for e in errors):
        return float(x.mean()), None, None
    total = sum(se**2 for se, _ in errors)
    fourth = sum(se**4 / df for se, df in errors if math.isfinite(df))
    df = total**2 / fourth if fourth > 0 else math.inf
    se = math.sqrt(total) / len(x)
    if se == 0:
        return float(x.mean()), None, None
    t = stats.norm if math.isinf(df) else stats.t(df)
    half = t.ppf(Q) * se
    return float(x.mean()), [x.mean() - half, x.mean() + half], float(2 * t.sf(abs((x.mean() - null) / se)))


def interaction(estimates, pairs, estimator):
    """The ratio of the second level's ratio to the first's: Welch's t on
    the log scale, SE = sqrt(SE_1^2 + SE_2^2), Welch-Satterthwaite df."""
    (e1, e2), ((c1, b1, _, _), (c2, b2, _, _)) = estimates, pairs
    r = e2[0] / e1[0]
    if len(e1) > 3 and e1[3] and len(e2) > 3 and e2[3]:
        return r, None, None, True
    errors = [own_error(c1, b1, estimator, e1, True), own_error(c2, b2, estimator, e2, True)]
    if e1[0] <= 0 or e2[0] <= 0 or any(e is None for e in errors):
        return r, None, None
    total = sum(se**2 for se, _ in errors)
    fourth = sum(se**4 / df for se, df in errors if math.isfinite(df))
    se = math.sqrt(total)
    if se == 0:
        return r, None, None
    t = stats.norm if fourth == 0 else stats.t(total**2 / fourth)
    half = t.ppf(Q) * se
    return r, [math.exp(math.log(r) - half), math.exp(math.log(r) + half)], float(2 * t.sf(abs(math.log(r)) / se))


def averaged(estimates, how, generalise=True, errors=None):
    """The average of per-configuration estimates: with `generalise`,
    Student's t over the k values (k - 1 df); else over exactly these
    configurations, `errors(log)` giving each one's (SE, df) or None."""
    ratios = [e[0] for e in estimates]
    exact = all(len(e) > 3 and e[3] for e in estimates)
    geometric = how == "geometric" and min(ratios) > 0
    points, null = (np.log(ratios), 0.0) if geometric else (ratios, 1.0)
    if generalise or errors is None:
        m, ci, p = t_over(points, null)
    else:
        m, ci, p = fixed_over(points, errors(geometric), null)
    if geometric:
        if exact:
            return math.exp(m), None, None, True
        return math.exp(m), None if ci is None else [math.exp(ci[0]), math.exp(ci[1])], p
    if exact:
        return m, None, None, True
    return m, None if ci is None else [max(ci[0], 0.0), ci[1]], p


def exact_mean(values):
    """The mean of values as the decimals they were written as, exactly."""
    return sum(Fraction(repr(v)) for v in values) / len(values)


def tie_exactly(sc, sb, c, b, geometric):
    """Scores that are equal in exact arithmetic made equal in floats (the
    first one's value), so that the rank test sees the ties of the scores
    as defined: value / the baseline's mean, exactly, multiplied over the
    configurations (geometric) or summed. `c` and `b`: runs × configurations
    of exact values."""
    reference = [sum(run[s] for run in b) / len(b) for s in range(len(b[0]))]

    def key(run):
        parts = [x / m for x, m in zip(run, reference)]
        return math.prod(parts) if geometric else sum(parts)

    first = {}
    for scores, runs in ((sc, c), (sb, b)):
        for i, run in enumerate(runs):
            scores[i] = first.setdefault(key(run), scores[i])


def within_run(rows, metric, key, configs, candidate, estimates, baseline):
    """Runs as units: per-run scores over the configurations. By the mean:
    Welch on the log scale with the delta method; by the median: the
    average of the per-configuration Hodges–Lehmann ratios (`estimates`),
    with the interval and p of Mann–Whitney on both sides' runs scored
    against the baseline's mean at each configuration (geometric or
    arithmetic mean of value / reference), stretched to hold the average."""
    per, value = metric["per"], metric["value"]
    run_cols = [k for k in key if k not in (ENV, per)]
    cells = defaultdict(lambda: defaultdict(list))
    for r in rows:
        cells[(r[ENV], tuple(r[c] for c in run_cols))][key_text(r[per])].append(float(r[value]))

    def side(env, mean=np.mean):
        # Runs in report's order: by their key, numbers as numbers.
        order = lambda item: tuple((num(v) is None, num(v) or 0, v) for v in item[0][1])
        return [[mean(at[s]) for s in configs] for (e, _), at in sorted(cells.items(), key=order) if e == env]

    c, b = np.asarray(side(candidate)), np.asarray(side(baseline))
    mc, mb = c.mean(axis=0), b.mean(axis=0)
    ratios = mc / mb
    geometric = metric.get("average", "geometric") == "geometric"
    if len(c) >= 2 and len(b) >= 2 and np.ptp(c, axis=0).max() == 0 and np.ptp(b, axis=0).max() == 0:
        # Every run alike on each side: exact, the average of the exact ratios.
        mc, mb = c[0], b[0]
        ratios = mc / mb
        ratio = math.exp(np.mean(np.log(ratios))) if geometric else float(np.mean(ratios))
        return ratio, None, None, True
    geometric = metric.get("average", "geometric") == "geometric"
    if metric.get("estimator", "mean") == "median":
        # The reference summed in file order, as report sums it: scores that
        # tie must tie in both, or the rank test's tie correction differs.
        mb = np.array([sum(float(r[s]) for r in b) / len(b) for s in range(b.shape[1])])
        positive = min(c.min(), b.min(), mb.min()) > 0
        if geometric and positive:
            score = lambda rows: [math.exp(np.mean([math.log(x / m) for x, m in zip(r, mb)])) for r in rows]
        else:
            score = lambda rows: [float(np.mean(r / mb)) for r in rows]
        sc, sb = score(c), score(b)
        tie_exactly(sc, sb, side(candidate, exact_mean), side(baseline, exact_mean), geometric and positive)
        if constant(sc) and constant(sb):
            return sc[0] / sb[0], None, None, True
        _, ci, opened = hodges_lehmann(np.asarray(sc), np.asarray(sb))
        average = averaged(estimates, metric.get("average", "geometric"))[0]
        if ci is not None:
            ci, opened = list(ci), list(opened)
            inside = (ci[0] < average or (ci[0] == average and not opened[0])) and (
                average < ci[1] or (average == ci[1] and not opened[1]))
            if not inside:
                side = 1 if average >= ci[1] else 0
                ci[side], opened[side] = average, False
        return average, ci, mwu(sc, sb)["p"], False, opened
    if geometric:
        ratio = math.exp(np.mean(np.log(ratios)))
        sc, sb, scale = (c / mc).mean(axis=1), (b / mb).mean(axis=1), 1.0
    else:
        ratio = float(np.mean(ratios))
        sc, sb, scale = (c / mb).mean(axis=1), (b * ratios / mb).mean(axis=1), ratio
    if len(sc) < 2 or len(sb) < 2:
        return ratio, None, None
    # Scores all alike have no variance, whatever the rounding of their mean.
    vc = np.var(sc, ddof=1) / len(sc) / scale**2 if np.ptp(sc) > 0 else 0.0
    vb = np.var(sb, ddof=1) / len(sb) / scale**2 if np.ptp(sb) > 0 else 0.0
    se = math.sqrt(vc + vb)
    if not se > 0:
        return ratio, None, None
    df = (vc + vb) ** 2 / (vc**2 / (len(sc) - 1) + vb**2 / (len(sb) - 1))
    half = stats.t.ppf(Q, df) * se
    lr = math.log(ratio)
    return ratio, [math.exp(lr - half), math.exp(lr + half)], float(2 * stats.t.sf(abs(lr / se), df))


def one_config(c, b, estimator):
    """(ratio, ci, p, exact[, open]) of one configuration by `estimator`."""
    if constant(c) and constant(b):
        return c[0] / b[0], None, None, True
    if estimator == "median":
        hl, ci, opened = hodges_lehmann(np.asarray(c, float), np.asarray(b, float))
        return hl, ci, mwu(c, b)["p"], False, opened
    return log_welch(c, b)


def one_difference(c, b, estimator):
    """(difference, ci, p, exact, open, unreachable) of one configuration:
    Welch's t on the raw values (scipy's `ttest_ind(equal_var=False)`), or
    the Hodges–Lehmann shift with the interval inverting Mann–Whitney's
    test, brute force over every pairwise difference."""
    if constant(c) and constant(b):
        return c[0] - b[0], None, None, True
    ca, ba = np.asarray(c, float), np.asarray(b, float)
    if estimator == "median":
        est, ci, opened = shift_interval(ca, ba, null_p(ca, ba))
        p = mwu(c, b)["p"]
    else:
        est, ci, p, opened = float(ca.mean() - ba.mean()), None, None, [False, False]
        if len(c) >= 2 and len(b) >= 2:
            vc, vb = ca.var(ddof=1) / len(c), ba.var(ddof=1) / len(b)
            if vc + vb > 0:
                t = stats.ttest_ind(ca, ba, equal_var=False)
                half = stats.t.ppf(Q, t.df) * math.sqrt(vc + vb)
                ci, p = [est - half, est + half], float(t.pvalue)
    return sized((est, ci, p, False, opened), len(c), len(b))


def averaged_difference(estimates):
    """The arithmetic mean of the configurations' differences, Student's t
    over them."""
    values = [e[0] for e in estimates]
    m, ci, p = t_over(values, 0.0)
    if all(len(e) > 3 and e[3] for e in estimates):
        return m, None, None, True
    return m, ci, p


def sized(e, m, n):
    """docs/methods.md, Verdicts: one run on a side gives a ratio with
    neither interval nor p; sizes at which Mann–Whitney's smallest p,
    2 / C(m + n, m), is not under 0.05 decide nothing (e[5])."""
    if len(e) > 3 and e[3]:
        return e
    unreachable = 2 / math.comb(m + n, m) >= 0.05
    opened = e[4] if len(e) > 4 else [False, False]
    if min(m, n) < 2:
        return (e[0], None, None, False, [False, False], unreachable)
    return (e[0], e[1], e[2], False, opened, unreachable)


def verdict(ci, opened, p, compare, ratio=None, unreachable=False, null=1.0):
    """Significant when p < 0.05 and the interval (from the same test)
    excludes no difference (both ends as the interval leaves them), at
    sizes the test can decide, the estimate not exactly no difference."""
    if ci is None:
        return None
    lo, hi = ci
    inside = (lo < null or (lo == null and not opened[0])) and (null < hi or (null == hi and not opened[1]))
    if unreachable or ratio == null:
        return False
    return bool((p is None or p < 0.05) and not inside)


def direction_word(out, compare):
    """docs/methods.md, Words of a difference: a column without labels
    reads `higher` or `lower` by the sign of the candidate's change, for
    the value and for each end of the interval; None within 0.1% of no
    change (where the printed size may be zero). [value's word, the
    interval's word when both ends lie on one side of no change]."""
    def word(v):
        c = change_of(compare, v)
        if compare == "difference":
            c = c / abs(out["base_mean"]) if out["base_mean"] else c
        return None if abs(c) < 1e-3 else ("higher" if c > 0 else "lower")
    ends = None
    if out["ci"] is not None and not out["open"]:
        a, b = word(out["ci"][0]), word(out["ci"][1])
        ends = a if a == b else None
    return [word(out["value"]), ends]


def change_of(compare, v):
    """candidate / baseline − 1 of a value as `compare` expresses it."""
    return {"slowdown": -v, "ratio": v - 1}.get(compare, v)


def claim(out, compare, negligible):
    """docs/methods.md, Verdicts: the claim of a comparison from its
    value, interval, p (Holm's where there is one), the smallest run
    count of its sides and the `negligible` threshold: better or worse,
    negligible (the whole interval within the threshold, or an exact
    difference under it), inconclusive (with why), or the same."""
    v, ci, exact = out["value"], out["ci"], out["exact"]
    change = change_of(compare, v)
    # `better` is about the metric as it reads: a slowdown is higher when
    # the measured column is lower (docs/book-toml.md, `better`).
    higher = v > 0 if compare == "slowdown" else change > 0
    direction = "better" if higher == (out["better"] == "higher") else "worse"
    if exact:
        base = abs(out["base_mean"])
        if abs(change if compare != "difference" else (change / base if base > 0 else change)) <= 1e-12:
            return "same", None
        base = abs(out["base_mean"])
        share_ = change if compare != "difference" else (change / base if base > 0 else math.inf)
        if negligible is not None and abs(share_) < negligible:
            return "negligible", None
        return direction, None
    m, n = out["sizes"]
    if out["groups"] <= 1 and min(m, n) < 2:
        return "inconclusive", "one-run"
    def share(x):
        if compare != "difference":
            return change_of(compare, x)
        base = abs(out["base_mean"])
        return x / base if base > 0 else (0.0 if x == 0 else math.inf)
    if ci is not None and negligible is not None and all(abs(share(e)) < negligible for e in ci):
        return "negligible", None
    if out["groups"] <= 1 and 2 / math.comb(m + n, m) >= 0.05:
        return "inconclusive", "unreachable"
    if change == 0:
        return "inconclusive", "no-shift"
    p = out.get("p_holm", out["p"])
    if ci is None or p is None:
        return "inconclusive", "no-test"
    null = 1.0 if compare == "ratio" else 0.0
    opened = out["open"] or [False, False]
    excludes = ci[0] > null or ci[1] < null or (ci[0] == null and opened[0]) or (ci[1] == null and opened[1])
    if p < 0.05 and excludes:
        return direction, None
    return "inconclusive", "wide"


def level_text(level):
    """A level of book.toml (a number or text) as report names it."""
    return key_text(repr(level)) if isinstance(level, (int, float)) else level


def in_order(levels):
    """Levels in a column's order: numbers by value, then text."""
    return sorted(set(levels), key=lambda k: (num(k) is None, num(k) if num(k) is not None else 0, k))


def members(metric):
    """The metrics `metric` stands for, each with its key in stats.json
    (docs/factors.md): itself; or with `candidates` one per candidate (`*`:
    every other level of the factor in the rows `where` selects), and with
    `each` one per value of `per` too, the value fixed by `where`."""
    name = metric["name"]
    if "candidates" not in metric and not metric.get("each"):
        return [(name, metric)]
    factor, baseline = metric.get("factor", ENV), metric.get("baseline", BASELINE)
    baseline = level_text(baseline)
    rows = selected(load(metric["data"]), metric.get("where", {}))
    wanted = metric.get("candidates")
    if wanted == "*":
        candidates = [v for v in in_order(key_text(r[factor]) for r in rows) if v != baseline]
    elif wanted is not None:
        candidates = [level_text(v) for v in wanted]
    else:
        candidates = [level_text(metric["candidate"])]
    out = []
    for cand in candidates:
        one = {k: v for k, v in metric.items() if k != "candidates"}
        one["candidate"] = cand
        per = metric.get("per")
        if not (per and metric.get("each")):
            out.append((f"{name} candidate={cand}", one))
            continue
        # Against the best of the others: the candidate's own configurations.
        pair = [r for r in rows if key_text(r[factor]) in (cand, baseline)]
        for v in in_order(key_text(r[per]) for r in pair):
            at = {k: x for k, x in one.items() if k not in ("per", "each", "average", "within-run")}
            at["where"] = dict(metric.get("where", {}), **{per: num(v) if num(v) is not None else v})
            out.append((f"{name} candidate={cand} at={per} = {v}", at))
    return out


def sides(metric):
    """The factor a metric compares along, its baseline level and its
    candidate level (defaults: the environment column, the study's
    baseline, the one other environment)."""
    factor = metric.get("factor", ENV)
    baseline = level_text(metric["baseline"]) if "baseline" in metric else BASELINE
    others = [e for e in config["environments"] if e != BASELINE]
    candidate = metric.get("candidate")
    candidate = level_text(candidate) if candidate is not None else (others[0] if len(others) == 1 else BASELINE)
    return factor, baseline, candidate


class Ambiguous(Exception):
    """Two levels tie, within rounding, for the best of the others."""


def best_of_others(metric, candidate):
    """docs/factors.md, `baseline = "best"`: among the other levels of the
    factor in the rows `where` selects, the lowest (`better = "lower"`) or
    highest score: the mean of its runs (the median with `estimator =
    "median"`), with `per` the geometric mean over its configurations
    (arithmetic when one is not positive). Returns (level, among, scores);
    raises Ambiguous when the best ties with another within 1e-9."""
    factor = metric.get("factor", ENV)
    rows = selected(load(metric["data"]), metric.get("where", {}))
    among = [v for v in in_order(key_text(r[factor]) for r in rows) if v != candidate]
    center = np.median if metric.get("estimator") == "median" else np.mean
    scores = []
    for level in among:
        cells = defaultdict(list)
        for r in rows:
            if key_text(r[factor]) == level:
                cells[key_text(r[metric["per"]]) if metric.get("per") else ""].append(float(r[metric["value"]]))
        each = [float(center(x)) for x in cells.values()]
        positive = all(v > 0 for v in each)
        scores.append(math.exp(np.mean(np.log(each))) if positive else float(np.mean(each)))
    lower_is_good = metric["better"] == "lower"
    if metric.get("compare") == "slowdown":
        lower_is_good = not lower_is_good  # a smaller slowdown is a higher column
    sign = 1 if lower_is_good else -1
    best = min(range(len(among)), key=lambda i: sign * scores[i])
    if any(i != best and abs(scores[i] - scores[best]) <= 1e-9 * abs(scores[best]) for i in range(len(among))):
        raise Ambiguous()
    return among[best], among, scores


def holm_adjusted(ps):
    """Holm (1979), step-down: the i-th smallest of m p-values is rejected
    at α when every p_(j), j ≤ i, is at most α / (m − j + 1); its adjusted
    p is the smallest such α, at most 1."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, running = [None] * len(ps), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        out[i] = running
    return out


def metric_value(metric, key=None):
    key = key or metric["name"]
    data, compare = metric["data"], metric.get("compare", "relative")
    rows = selected(load(data), metric.get("where", {}))
    factor, base, candidate = sides(metric)
    best = None
    if base == "best":
        best = best_of_others(metric, candidate)
        base = best[0]
    values = lambda env, rs: [float(r[metric["value"]]) for r in rs if key_text(r[factor]) == env and num(r[metric["value"]]) is not None]
    EVALUATED.append((key, metric))
    if compare == "summary":
        # Over several configurations: the mean of their means, no interval.
        per = metric.get("per")
        cells = defaultdict(list)
        for r in rows:
            cells[key_text(r[per]) if per else ""].append(r)
        sides_ = [summary(values(candidate, rs)) for rs in cells.values() if values(candidate, rs)]
        ci = sides_[0].get("ci") if len(sides_) == 1 else None
        return {"value": float(np.mean([s["mean"] for s in sides_])), "ci": ci, "p": None, "exact": False,
                "open": None, "significant": None}
    # An interaction is computed per level of its factor, as with `per`.
    per = metric.get("per") or metric.get("interaction")
    groups = defaultdict(list)
    for r in rows:
        groups[key_text(r[per]) if per else ""].append(r)
    configs = sorted(groups, key=lambda k: (num(k) is None, num(k) if num(k) is not None else 0, k))
    estimator = metric.get("estimator", "mean")
    if compare == "difference":
        estimates = [one_difference(values(candidate, groups[k]), values(base, groups[k]), estimator)
                     for k in configs]
    else:
        estimates = [sized(one_config(values(candidate, groups[k]), values(base, groups[k]), estimator),
                           len(values(candidate, groups[k])), len(values(base, groups[k]))) for k in configs]
    texts = lambda env, rs: [r[metric["value"]] for r in rs if key_text(r[factor]) == env and num(r[metric["value"]]) is not None]
    SAMPLES[key] = {
        "configs": configs, "estimates": estimates, "candidate": candidate, "baseline": base,
        "pairs": [(values(candidate, groups[k]), values(base, groups[k]),
                   texts(candidate, groups[k]), texts(base, groups[k])) for k in configs],
        "within": bool(metric.get("within-run")) and len(configs) > 1,
    }
    if metric.get("interaction"):
        e = interaction(estimates, SAMPLES[key]["pairs"], estimator)
    elif len(estimates) == 1:
        e = estimates[0]
    elif compare == "difference":
        e = averaged_difference(estimates)
    elif metric.get("within-run"):
        e = within_run(rows, metric, config["data"][data]["key"], configs, candidate, estimates, base)
    else:
        pairs = SAMPLES[key]["pairs"]
        SAMPLES[key]["generalise"] = bool(metric.get("generalise"))
        errors = lambda log: [own_error(c, b, estimator, e, log) for (c, b, _, _), e in zip(pairs, estimates)]
        e = averaged(estimates, metric.get("average", "geometric"), bool(metric.get("generalise")), errors)
    r, ci, p = e[0], e[1], e[2]
    exact = len(e) > 3 and e[3]
    opened = e[4] if len(e) > 4 else [False, False]
    if ci is not None and express(compare, 2.0) < express(compare, 1.0):
        opened = [opened[1], opened[0]]
    null_ratio = 0.0 if compare == "difference" else 1.0
    out = {"value": express(compare, r), "ci": None if ci is None else interval(compare, ci), "p": p,
           "exact": bool(exact), "open": opened if ci is not None and any(opened) else None,
           "significant": verdict(ci, e[4] if len(e) > 4 else [False, False], p, compare, r,
                                  len(estimates) == 1 and len(e) > 5 and e[5], null_ratio),
           "base_mean": float(np.mean([np.mean(values(base, groups[k])) for k in configs])),
           "sizes": [min(len(values(candidate, groups[k])) for k in configs),
                     min(len(values(base, groups[k])) for k in configs)],
           "groups": len(configs), "better": metric["better"], "compare": compare}
    if best is not None:
        out["best"] = {"level": best[0], "among": best[1], "scores": best[2]}
    out["selected_caveat"] = best is not None
    null = 1.0 if compare == "ratio" else 0.0
    out["not_significant_caveat"] = bool(metric.get("headline")) and out["significant"] is False
    if len(estimates) > 1 and not metric.get("interaction"):
        out["per_config"] = [express(compare, e[0]) for e in estimates]
        verdicts = [verdict(e[1], e[4] if len(e) > 4 else [False, False], e[2], compare, e[0], len(e) > 5 and e[5],
                            null_ratio) for e in estimates]
        out["per_config_significant"] = verdicts
        side = [express(compare, e[0]) - null for e in estimates]
        out["sign_change_caveat"] = bool(any(v and d > 0 for v, d in zip(verdicts, side))
                                     and any(v and d < 0 for v, d in zip(verdicts, side)))
    elif not metric.get("within-run") and compare != "difference" and not metric.get("interaction"):
        # The other estimator's verdict, and whether the two disagree: in
        # significance, or both significant in opposite directions.
        k = configs[0]
        o = sized(one_config(values(candidate, groups[k]), values(base, groups[k]),
                             "mean" if estimator == "median" else "median"),
                  len(values(candidate, groups[k])), len(values(base, groups[k])))
        o_open = o[4] if len(o) > 4 else [False, False]
        o_sig = verdict(o[1], o_open, o[2], compare, o[0], len(o) > 5 and o[5])
        out["other"] = {"value": express(compare, o[0]), "ci": None if o[1] is None else interval(compare, o[1]),
                        "p": o[2], "significant": o_sig}
        a, b = out["significant"], o_sig
        out["disagree_caveat"] = bool(a is not None and b is not None) and bool(
            a != b or (a and b and (out["value"] - null) * (out["other"]["value"] - null) < 0))
    return out


def family_verdicts(out, keys):
    """A family's Holm-adjusted p-values (over its members with a p-value),
    and each such member's verdict by its adjusted p (docs/factors.md)."""
    if any(out[k].get("ambiguous") for k in keys):
        # Holm's correction depends on every member: none is checked.
        for k in keys:
            out[k]["ambiguous"] = True
        return
    tested = [k for k in keys if out[k]["p"] is not None]
    for k, adjusted in zip(tested, holm_adjusted([out[k]["p"] for k in tested])):
        out[k]["p_holm"] = adjusted
        if out[k]["significant"] is not None:
            out[k]["significant"] = significant(out[k], out[k]["compare"])
            out[k]["not_significant_caveat"] = None


def significant(out, compare):
    """A metric's verdict by its p after Holm's correction (docs/methods.md,
    Verdicts): the same rule as `verdict`, on the interval as expressed."""
    m, n = out["sizes"]
    sized_ = out["groups"] > 1 or (min(m, n) >= 2 and 2 / math.comb(m + n, m) < 0.05)
    null = 1.0 if compare == "ratio" else 0.0
    ci, opened = out["ci"], out["open"] or [False, False]
    excludes = ci[0] > null or ci[1] < null or (ci[0] == null and opened[0]) or (ci[1] == null and opened[1])
    return bool(sized_ and out.get("p_holm", out["p"]) < 0.05 and excludes and out["value"] != null)


# ------------------------------------------------------------------ tables


def table_directives():
    """The ```table blocks of content/*.md, read as TOML (docs/tables.md)."""
    found = []
    for path in sorted(glob.glob(f"{root}/content/*.md")):
        text = open(path).read()
        found += [tomllib.loads(b) for b in re.findall(r"^```table\n(.*?)^```", text, re.S | re.M)]
    return found


def table_verdict(cell, compare, better):
    """docs/tables.md: the cell's claim after Holm's correction across the
    table (docs/methods.md, Verdicts): better, worse, negligible, no change
    (the same in every run), or inconclusive."""
    return claim(cell, compare, NEGLIGIBLE[0])[0]


def table_cells(spec):
    """A comparison table's cells by `row|column` (docs/tables.md): each the
    comparison of its level of the compared factor with the baseline (named,
    the study's, or the best of the other levels in the cell's rows), the
    other axis fixed to the cell's level; Holm's correction across the
    table's tested cells. None of it is checked when a best ties."""
    # `compare` names a factor, or says "rows" or "columns".
    factor = spec.get("compare", spec["rows"])
    if factor not in (spec["rows"], spec.get("columns")):
        factor = {"rows": spec["rows"], "columns": spec.get("columns")}[factor]
    other = spec.get("columns") if factor == spec["rows"] else spec["rows"]
    rows = selected(load(spec["data"]), spec.get("where", {}))
    row_levels = in_order(key_text(r[spec["rows"]]) for r in rows)
    col_levels = in_order(key_text(r[spec["columns"]]) for r in rows) if "columns" in spec else [""]
    # The default baseline: the study's for the environment column, else
    # the compared factor's first level.
    first = row_levels[0] if factor == spec["rows"] else col_levels[0]
    default = BASELINE if factor == ENV else first
    cells = {}
    for row in row_levels:
        for col in col_levels:
            candidate, at = (row, col) if factor == spec["rows"] else (col, row)
            where = dict(spec.get("where", {}))
            if other:
                where[other] = num(at) if num(at) is not None else at
            metric = {"name": spec["id"], "data": spec["data"], "value": spec["value"],
                      "compare": spec["cell"], "estimator": spec.get("estimator", "mean"),
                      "better": spec["better"], "factor": factor, "candidate": candidate,
                      "baseline": spec.get("baseline", default), "where": where}
            if level_text(metric["baseline"]) == candidate:
                cells[f"{row}|{col}"] = {"baseline": True}
                continue
            try:
                cells[f"{row}|{col}"] = metric_value(metric)
            except Ambiguous:
                return {"ambiguous": True}
    tested = [k for k in cells if cells[k].get("p") is not None]
    for k, adjusted in zip(tested, holm_adjusted([cells[k]["p"] for k in tested])):
        cells[k]["p_holm"] = adjusted
    for cell in cells.values():
        if "value" in cell:
            cell["verdict"] = table_verdict(cell, spec["cell"], spec["better"])
    return {"cells": cells}


# Key and provenance columns by name (docs/factors.md): never measurements.
DESCRIPTIONS = ["index", "iteration", "run", "repetition", "run_in_file", "source", "source_sha256",
                "exit_code", "exit_status"]


def repeated(rows, column, by):
    """Whether `column` repeats one value on every run of each configuration
    (environment and `by`), some configuration having two runs or more."""
    cells = defaultdict(list)
    for r in rows:
        if num(r[column]) is not None:
            cells[(r.get(ENV), tuple(key_text(r[c]) for c in by))].append(float(r[column]))
    return any(len(x) > 1 for x in cells.values()) and all(min(x) == max(x) for x in cells.values())


# -------------------------------------------------------------------- main


def compute(path):
    """Every statistic of the study at `path`, keyed as tests/stats_oracle reads them."""
    use_study(path)

    def group_by(name):
        return config.get("data", {}).get(name, {}).get("group-by", [])

    out, groups, compared = {}, [], set()
    for metric in config.get("metrics", []):
        family = members(metric)
        for key, one in family:
            try:
                out[key] = metric_value(one, key)
            except Ambiguous:
                out[key] = {"ambiguous": True, "p": None}
        if family[0][0] != metric["name"]:
            family_verdicts(out, [key for key, _ in family])
        for key, one in family:
            if "value" in out[key] and one.get("compare", "relative") != "summary":
                out[key]["claim"] = claim(out[key], one.get("compare", "relative"), NEGLIGIBLE[0])
                labels = config.get("data", {}).get(one["data"], {}).get("labels", {})
                if one["value"] not in labels:
                    out[key]["word"] = direction_word(out[key], one.get("compare", "relative"))

    for path in sorted(glob.glob(f"{root}/results/*.csv")):
        name = os.path.basename(path)[:-4]
        rows = load(name)
        dataset = config.get("data", {}).get(name, {})
        # The configurations: group-by, then the declared factors the file has.
        by = list(group_by(name))
        by += [f for f in FACTORS if f in rows[0] and f != ENV and f not in by]
        skip = set(by) | set(dataset.get("key", [])) | set(FACTORS) | {NODES, ENV} | set(DESCRIPTIONS)
        columns = [c for c in rows[0] if c not in skip and all(num(r[c]) is not None or r[c] == "" for r in rows)
                   and any(num(r[c]) is not None for r in rows)]
        measured = {m["value"] for m in config.get("metrics", [])}
        columns = [c for c in columns if c in measured or not repeated(rows, c, by)]
        for column in columns:
            cells, texts = defaultdict(list), defaultdict(list)
            for r in rows:
                if num(r[column]) is not None:
                    cells[(r[ENV], tuple(key_text(r[c]) for c in by))].append(float(r[column]))
                    texts[(r[ENV], tuple(key_text(r[c]) for c in by))].append(r[column])
            for (env, cfg), x in cells.items():
                cfg_text = ",".join(f"{c}={v}" for c, v in sorted(zip(by, cfg)))
                suffix = f"/{cfg_text}" if cfg_text else ""
                out[f"group:{name}/{column}/{env}{suffix}"] = summary(x, texts[(env, cfg)])
                groups.append({"file": name, "column": column, "env": env, "config": cfg_text,
                               "values": x, "texts": texts[(env, cfg)],
                               "summary": out[f"group:{name}/{column}/{env}{suffix}"]})
                base = cells.get((BASELINE, cfg))
                if env != BASELINE and base and np.mean(base) != 0 and len(x) >= 1:
                    out[f"comparison:{name}/{column}/{env}-vs-{BASELINE}{suffix}"] = comparison(x, base)
                    compared.add((name, column))

    import independent_caveats
    independent_caveats.derive(sys.modules[__name__], out, groups, compared)
    if any(v.get("ambiguous") for v in out.values() if isinstance(v, dict)):
        # A metric left out leaves the study-wide counts unknown.
        out["caveats"] = None
    # After the caveats, which the tables' comparisons do not enter.
    for spec in table_directives():
        out[f"table:{spec['id']}"] = table_cells(spec)
    return out


if __name__ == "__main__":
    print(json.dumps(compute(sys.argv[1]), default=float))
