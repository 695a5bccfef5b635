#!/usr/bin/env python3
"""Independent computation of a study's statistics with scipy and numpy.

Reads book.toml with tomllib and the results CSVs with the csv module, and
computes from the definitions in README.md ("Statistics") every group
summary, every comparison and every metric, keyed as stats.json keys them
(`group:ID`, `comparison:ID`, the metric's name). tests/independent.rs
compares them with stats.json. Nothing here is taken from report's output.

    python3 tests/independent_stats.py STUDY_DIR
"""
import csv
import json
import math
import sys
import tomllib
from collections import defaultdict
from decimal import Decimal
from fractions import Fraction

import numpy as np
from scipy import stats

root = sys.argv[1]
config = tomllib.load(open(f"{root}/book.toml", "rb"))
study = config.get("study", {})
BASELINE = study["baseline"]
ENV = study.get("environment-column", "environment")
NODES = study.get("nodes-column", "nodes")
Q = 0.975


def load(name):
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


def num(text):
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


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
    if n >= 2:
        sd = float(np.std(x / scale, ddof=1)) * scale
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
        out["outliers"] = sorted(float(v) for v in x if v < q1 - 1.5 * scale or v > q3 + 1.5 * scale)
        out["severe"] = sorted(float(v) for v in x if v < q1 - 3 * scale or v > q3 + 3 * scale)
    if n >= 6:
        # Largest j with 2 P(B <= j) <= 0.05, B ~ Binomial(n, 1/2).
        j = max(j for j in range(n) if 2 * stats.binom.cdf(j, n, 0.5) <= 0.05)
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
    vc = (c / mc).var(ddof=1) / len(c)
    vb = (b / mb).var(ddof=1) / len(b)
    if vc + vb == 0:
        return r, None, None
    se = math.sqrt(vc + vb)
    df = (vc + vb) ** 2 / (vc**2 / (len(c) - 1) + vb**2 / (len(b) - 1))
    half = stats.t.ppf(Q, df) * se
    return r, [math.exp(math.log(r) - half), math.exp(math.log(r) + half)], float(2 * stats.t.sf(abs(math.log(r) / se), df))


def has_ties(c, b):
    pooled = list(c) + list(b)
    return len(set(pooled)) < len(pooled)


def mwu(c, b):
    exact = not has_ties(c, b) and len(c) * len(b) <= 10_000
    res = stats.mannwhitneyu(c, b, alternative="two-sided", method="exact" if exact else "asymptotic")
    m, n = len(c), len(b)
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


def hodges_lehmann(c, b):
    """Median of the pairwise log ratios, with Moses' interval (exact, no ties)."""
    lc, lb = np.log(c), np.log(b)
    d = np.sort((lc[:, None] - lb[None, :]).ravel())
    est = math.exp(float(np.median(d)))
    m, n = len(c), len(b)
    if has_ties(c, b):
        return est, None
    rejected = [u for u in range(m * n // 2) if p_at_u(u, m, n) < 0.05]
    if not rejected:
        return est, None
    k = max(rejected)
    return est, [math.exp(d[k]), math.exp(d[m * n - 1 - k])]


def comparison(c, b):
    r, ci, p = log_welch(c, b)
    out = {"ratio": r, "ci": None if ci is None else [ci[0] - 1, ci[1] - 1], "p": p, "rank": mwu(c, b)}
    if min(list(c) + list(b)) > 0:
        hl, hci = hodges_lehmann(np.asarray(c, float), np.asarray(b, float))
        out["median"] = {"relative": hl - 1, "ci": None if hci is None else [hci[0] - 1, hci[1] - 1],
                         "p": out["rank"]["p"], "ratio_of_medians": float(np.median(c) / np.median(b))}
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
    se = float(np.std(x, ddof=1)) / math.sqrt(k)
    if se == 0:
        return float(x.mean()), None, None
    half = stats.t.ppf(Q, k - 1) * se
    return float(x.mean()), [x.mean() - half, x.mean() + half], float(2 * stats.t.sf(abs((x.mean() - null) / se), k - 1))


def averaged(estimates, how):
    ratios = [e[0] for e in estimates]
    if how == "geometric":
        m, ci, p = t_over(np.log(ratios), 0.0)
        return math.exp(m), None if ci is None else [math.exp(ci[0]), math.exp(ci[1])], p
    m, ci, p = t_over(ratios, 1.0)
    return m, None if ci is None else [max(ci[0], 0.0), ci[1]], p


def within_run(rows, metric, key, configs, candidate):
    """Runs as units: per-run scores over the configurations, delta method."""
    per, value = metric["per"], metric["value"]
    run_cols = [k for k in key if k not in (ENV, per)]
    cells = defaultdict(lambda: defaultdict(list))
    for r in rows:
        cells[(r[ENV], tuple(r[c] for c in run_cols))][key_text(r[per])].append(float(r[value]))

    def side(env):
        return [[np.mean(at[s]) for s in configs] for (e, _), at in sorted(cells.items()) if e == env]

    c, b = np.asarray(side(candidate)), np.asarray(side(BASELINE))
    mc, mb = c.mean(axis=0), b.mean(axis=0)
    ratios = mc / mb
    if metric.get("average", "geometric") == "geometric":
        ratio = math.exp(np.mean(np.log(ratios)))
        sc, sb, scale = (c / mc).mean(axis=1), (b / mb).mean(axis=1), 1.0
    else:
        ratio = float(np.mean(ratios))
        sc, sb, scale = (c / mb).mean(axis=1), (b * ratios / mb).mean(axis=1), ratio
    vc = np.var(sc, ddof=1) / len(sc) / scale**2
    vb = np.var(sb, ddof=1) / len(sb) / scale**2
    se = math.sqrt(vc + vb)
    df = (vc + vb) ** 2 / (vc**2 / (len(sc) - 1) + vb**2 / (len(sb) - 1))
    half = stats.t.ppf(Q, df) * se
    lr = math.log(ratio)
    return ratio, [math.exp(lr - half), math.exp(lr + half)], float(2 * stats.t.sf(abs(lr / se), df))


def metric_value(metric):
    data, compare = metric["data"], metric.get("compare", "relative")
    rows = selected(load(data), metric.get("where", {}))
    others = [e for e in config["environments"] if e != BASELINE]
    candidate = metric.get("candidate") or (others[0] if len(others) == 1 else BASELINE)
    values = lambda env, rs: [float(r[metric["value"]]) for r in rs if r[ENV] == env and num(r[metric["value"]]) is not None]
    if compare == "summary":
        s = summary(values(candidate, rows))
        return {"value": s["mean"], "ci": s.get("ci"), "p": None}
    per = metric.get("per")
    groups = defaultdict(list)
    for r in rows:
        groups[key_text(r[per]) if per else ""].append(r)
    configs = sorted(groups, key=lambda k: (num(k) is None, num(k) if num(k) is not None else 0, k))
    estimator = metric.get("estimator", "mean")
    estimates = []
    for k in configs:
        c, b = values(candidate, groups[k]), values(BASELINE, groups[k])
        if estimator == "median":
            hl, ci = hodges_lehmann(np.asarray(c, float), np.asarray(b, float))
            estimates.append((hl, "ties" if has_ties(c, b) else ci, mwu(c, b)["p"]))
        else:
            estimates.append(log_welch(c, b))
    if len(estimates) == 1:
        r, ci, p = estimates[0]
    elif metric.get("within-run"):
        key = config["data"][data]["key"]
        r, ci, p = within_run(rows, metric, key, configs, candidate)
    else:
        r, ci, p = averaged(estimates, metric.get("average", "geometric"))
    if ci == "ties":
        # Moses' interval under ties (normal approximation) is not cross-checked.
        return {"value": express(compare, r), "ci": "skip", "p": p}
    out = {"value": express(compare, r), "ci": None if ci is None else interval(compare, ci), "p": p}
    if len(estimates) > 1:
        out["per_config"] = [express(compare, e[0]) for e in estimates]
    return out


# -------------------------------------------------------------------- main


def group_by(name):
    return config.get("data", {}).get(name, {}).get("group-by", [])


out = {}
for metric in config.get("metrics", []):
    out[metric["name"]] = metric_value(metric)

import glob, os
for path in sorted(glob.glob(f"{root}/results/*.csv")):
    name = os.path.basename(path)[:-4]
    rows = load(name)
    dataset = config.get("data", {}).get(name, {})
    by = group_by(name)
    skip = set(by) | set(dataset.get("key", [])) | {NODES, ENV}
    columns = [c for c in rows[0] if c not in skip and all(num(r[c]) is not None or r[c] == "" for r in rows)
               and any(num(r[c]) is not None for r in rows)]
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
            base = cells.get((BASELINE, cfg))
            if env != BASELINE and base and np.mean(base) != 0 and len(x) >= 1:
                out[f"comparison:{name}/{column}/{env}-vs-{BASELINE}{suffix}"] = comparison(x, base)

print(json.dumps(out, default=float))
