#!/usr/bin/env python3
"""Independent leave-one-out of every headline metric of a study whose
metrics each compare one configuration by the mean: every run of both sides
is left out in turn (not only the extremes), the ratio of means and its
log-scale Welch interval recomputed with scipy, and the run kept whose
removal changes the verdict, else moves the ratio most (docs: README,
"Statistics", influence). Prints, per metric, that run's side and value,
the ratio without it, whether the verdict changes, and whether the run
carries the metric: it changes the verdict, or moves the ratio by more than
25% of its distance from 1 and by more than the half-width of the interval
without it.

    python3 tests/independent_influence.py STUDY_DIR
"""
import csv
import json
import math
import sys
import tomllib

import numpy as np
from scipy import stats

root = sys.argv[1]
config = tomllib.load(open(f"{root}/book.toml", "rb"))
BASELINE = config["study"]["baseline"]


def log_welch(c, b):
    c, b = np.asarray(c, float), np.asarray(b, float)
    r = c.mean() / b.mean()
    if len(c) < 2 or len(b) < 2:
        return r, None
    vc, vb = (c / c.mean()).var(ddof=1) / len(c), (b / b.mean()).var(ddof=1) / len(b)
    if vc + vb == 0:
        return r, None
    se = math.sqrt(vc + vb)
    df = (vc + vb) ** 2 / (vc**2 / (len(c) - 1) + vb**2 / (len(b) - 1))
    half = stats.t.ppf(0.975, df) * se
    return r, [math.exp(math.log(r) - half), math.exp(math.log(r) + half)]


def significant(ci, m, n, r):
    """docs/methods.md, Verdicts: the interval excludes 1, at sizes where
    Mann–Whitney's test can reach 0.05 (2 / C(m + n, m) < 0.05), the ratio
    not exactly 1."""
    if ci is None:
        return None
    return 2 / math.comb(m + n, m) < 0.05 and r != 1 and not (ci[0] <= 1 <= ci[1])


out = {}
for metric in config["metrics"]:
    if not metric.get("headline") or metric.get("compare", "relative") == "summary":
        continue
    rows = list(csv.DictReader(open(f"{root}/results/{metric['data']}.csv")))
    (column, wanted), = metric["where"].items()
    rows = [r for r in rows if float(r[column]) == float(wanted)]
    candidate = [e for e in config["environments"] if e != BASELINE][0]
    side = {e: [float(r[metric["value"]]) for r in rows if r["environment"] == e]
            for e in (candidate, BASELINE)}
    r, ci = log_welch(side[candidate], side[BASELINE])
    best = None
    for env, values in side.items():
        if len(values) < 2:
            continue
        for i, v in enumerate(values):
            rest = values[:i] + values[i + 1:]
            c = rest if env == candidate else side[candidate]
            b = rest if env == BASELINE else side[BASELINE]
            r2, ci2 = log_welch(c, b)
            shift = abs(r2 - r)
            full = significant(ci, len(side[candidate]), len(side[BASELINE]), r)
            left = significant(ci2, len(c), len(b), r2)
            flips = full is not None and left is not None and full != left
            if shift == 0 and not flips:
                continue
            if best is None or (flips, shift) > (best["changes_verdict"], best["shift"]):
                best = {"environment": env, "value": v, "ratio": r2, "shift": shift,
                        "changes_verdict": flips, "ci": ci2}
    if best is not None:
        half = None if best["ci"] is None else (best["ci"][1] - best["ci"][0]) / 2
        moves = best["shift"] > 0.25 * abs(r - 1) and (half is None or best["shift"] > half)
        best["carries"] = best["changes_verdict"] or moves
    out[metric["name"]] = best
print(json.dumps(out, default=lambda o: o.item()))
