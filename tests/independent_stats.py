#!/usr/bin/env python3
"""Independent computation of the shipped study's statistics with scipy.

Reads the results CSVs with the csv module, computes every headline metric and
a sample of group summaries from their definitions (issue #2, results/README.md),
and prints them as JSON. tests/independent.rs compares them with stats.json.
"""
import csv
import json
import sys
from collections import defaultdict

import numpy as np
from scipy import stats

root = sys.argv[1]


def rows(name):
    with open(f"{root}/results/{name}.csv", newline="") as f:
        return list(csv.DictReader(f))


def groups(data, value, by, where=lambda r: True):
    out = defaultdict(list)
    for r in data:
        if where(r):
            out[(r["environment"], float(r[by]))].append(value(r))
    return out


def ratio_parts(c, b):
    """Ratio of means with delta-method variance and Welch-Satterthwaite df."""
    c, b = np.asarray(c), np.asarray(b)
    mc, mb = c.mean(), b.mean()
    vc = c.var(ddof=1) / len(c) / mc**2
    vb = b.var(ddof=1) / len(b) / mb**2
    r = mc / mb
    df = (vc + vb) ** 2 / (vc**2 / (len(c) - 1) + vb**2 / (len(b) - 1))
    return r, r * np.sqrt(vc + vb), df


def averaged(g, keys):
    parts = [ratio_parts(g[("kubernetes", k)], g[("bare-metal", k)]) for k in keys]
    k = len(parts)
    r = sum(p[0] for p in parts) / k
    var = sum(p[1] ** 2 for p in parts) / k**2
    df = var**2 / sum((p[1] ** 2 / k**2) ** 2 / p[2] for p in parts)
    se = np.sqrt(var)
    half = stats.t.ppf(0.975, df) * se
    p = 2 * stats.t.sf(abs((r - 1) / se), df)
    return r, (r - half, r + half), p


def single(g, key):
    c, b = g[("kubernetes", key)], g[("bare-metal", key)]
    r, se, df = ratio_parts(c, b)
    half = stats.t.ppf(0.975, df) * se
    p = stats.ttest_ind(c, b, equal_var=False).pvalue
    return r, (r - half, r + half), p


lammps = rows("lammps")
tps = groups(lammps, lambda r: float(r["timesteps_per_s"]), "procs")
cpu = groups(lammps, lambda r: float(r["loop_time_s"]) * float(r["procs"]) * float(r["cpu_use_pct"]) / 100, "procs")
lat = groups(rows("osu_latency"), lambda r: float(r["latency_us"]), "size_bytes")

out = {}
r, (lo, hi), p = single(tps, 32.0)
out["throughput_32"] = {"value": r - 1, "ci": [lo - 1, hi - 1], "p": p}
r, (lo, hi), p = averaged(tps, [2.0, 4.0, 8.0, 16.0, 32.0])
out["slowdown_avg"] = {"value": 1 - r, "ci": [1 - hi, 1 - lo], "p": p}
sizes = sorted({k for (_, k) in lat})
r, (lo, hi), p = averaged(lat, sizes)
out["network_overhead"] = {"value": r - 1, "ci": [lo - 1, hi - 1], "p": p}
r, (lo, hi), p = single(cpu, 32.0)
out["cost_32"] = {"value": r - 1, "ci": [lo - 1, hi - 1], "p": p}

k8s = np.asarray(tps[("kubernetes", 32.0)])
ci = stats.t.interval(0.95, len(k8s) - 1, loc=k8s.mean(), scale=stats.sem(k8s))
out["tps_k8s_32"] = {"value": k8s.mean(), "ci": list(ci), "p": None}
out["group:lammps/timesteps_per_s/kubernetes/procs=32"] = {
    "mean": k8s.mean(), "median": float(np.median(k8s)), "sd": k8s.std(ddof=1), "ci": list(ci)}

print(json.dumps(out, default=float))
