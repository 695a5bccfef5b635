#!/usr/bin/env python3
"""Seeded histories and their change points, computed independently.

    python3 tests/history_oracle.py DIR KIND SEED [SERIES [otava]]

writes a study into DIR (book.toml, results/runs.csv, content/index.md):
SERIES series (100 by default) (`series` is the group-by) of 200 versions × 5 runs, each
version's runs log-normal around the series' level, 5% of the versions of
a series missing (gaps), 2% of them spiked three-fold in every run; KIND
adds `step` (one step of 3% to 10%, up or down, at a random version),
`drift` (a slow drift of 5% over the series and no step), `ties` (values
rounded so that runs tie) or `none`. It prints JSON: the truth (the
version where each series' step begins) and the change points, outliers
and noise expected of each series by docs/history.md, computed here from
the definitions with numpy and scipy's Mann–Whitney test. Nothing is taken
from report's output. With `otava`, Apache Otava's change points on the
same series (its defaults, window 50 and p 0.001, on each version's
level) are added when its package is installed (`otava`: the places of
its change points, by series; null without the package).
"""
import json
import math
import os
import sys

import numpy as np
from scipy import stats

VERSIONS, RUNS, SERIES = 200, 5, 100
LEVEL, MIN_VERSIONS, MIN_RUNS, WINDOW, NEGLIGIBLE = 0.001, 3, 10, 50, 0.01


def generate(kind, seed):
    rng = np.random.default_rng(seed)
    rows, truth = [], {}
    for s in range(SERIES):
        sigma = 0.05
        base = float(rng.uniform(1.0, 10.0))
        step_at, size = None, 0.0
        if kind == "step":
            step_at = int(rng.integers(20, VERSIONS - 20))
            size = float(rng.uniform(0.03, 0.10)) * (1 if rng.random() < 0.5 else -1)
            truth[str(s)] = step_at
        missing = rng.random(VERSIONS) < 0.05
        spiked = rng.random(VERSIONS) < 0.02
        for v in range(VERSIONS):
            if missing[v]:
                continue
            level = base * (1 + size if step_at is not None and v >= step_at else 1.0)
            if kind == "drift":
                level *= 1 + 0.05 * v / VERSIONS
            for r in range(RUNS):
                x = level * math.exp(rng.normal(0, sigma))
                if spiked[v]:
                    x *= 3
                x = round(x, 2) if kind == "ties" else round(x, 9)
                rows.append(f"v{v:04d},{v},{s},{x!r}")
    return rows, truth


def write(directory, rows):
    os.makedirs(f"{directory}/results", exist_ok=True)
    os.makedirs(f"{directory}/content", exist_ok=True)
    with open(f"{directory}/results/runs.csv", "w") as f:
        f.write("version,seq,series,time_s\n" + "\n".join(rows) + "\n")
    with open(f"{directory}/book.toml", "w") as f:
        f.write('[book]\ntitle = "Generated history"\n[study]\nnegligible = "1%"\n'
                '[data.runs]\ngroup-by = ["series"]\n'
                '[history]\ndata = "runs"\nversion = "version"\norder = "seq"\n'
                'value = "time_s"\nbetter = "lower"\n')
    with open(f"{directory}/content/index.md", "w") as f:
        f.write("# History\n\n{{ history() }}\n")


def read(directory):
    """Each series' versions with runs, in order: (place, sorted runs)."""
    places, series = {}, {}
    with open(f"{directory}/results/runs.csv") as f:
        next(f)
        for line in f:
            version, seq, s, x = line.strip().split(",")
            places[version] = int(seq)
            series.setdefault(s, {}).setdefault(version, []).append(float(x))
    order = sorted(places, key=lambda v: (places[v], v))
    index = {v: i for i, v in enumerate(order)}
    out = {}
    for s in sorted(series):
        points = sorted((index[v], sorted(runs)) for v, runs in series[s].items())
        out[s] = points
    return order, out


# ------------------------------------------------------------ statistics


def q_hat(x):
    """Matteson and James's Q̂ (α = 1) of every split of x, from block sums
    of the matrix of |xᵢ − xⱼ|."""
    x = np.asarray(x, float)
    n = len(x)
    d = np.abs(x[:, None] - x[None, :])
    s = np.zeros((n + 1, n + 1))
    s[1:, 1:] = d.cumsum(0).cumsum(1)

    def block(r0, r1, c0, c1):
        return s[r1, c1] - s[r0, c1] - s[r1, c0] + s[r0, c0]

    q = np.zeros(n)
    for tau in range(1, n):
        m, k = tau, n - tau
        cross = block(0, tau, tau, n)
        wl = block(0, tau, 0, tau) / (m * (m - 1)) if m >= 2 else 0.0
        wr = block(tau, n, tau, n) / (k * (k - 1)) if k >= 2 else 0.0
        q[tau] = m * k / (m + k) * (2 * cross / (m * k) - wl - wr)
    return q


def mwu(after, before):
    pooled = np.concatenate([after, before])
    ties = len(np.unique(pooled)) < len(pooled)
    exact = not ties and len(after) * len(before) <= 10_000
    res = stats.mannwhitneyu(after, before, alternative="two-sided",
                             method="exact" if exact else "asymptotic", use_continuity=True)
    m, n = len(after), len(before)
    return float(res.pvalue), min(1.0, 2 / math.comb(m + n, m))


CACHE = {}


def test(points, positive, a, c, b):
    key = (id(points), a, c, b)
    if key not in CACHE:
        CACHE[key] = tested(points, positive, a, c, b)
    return CACHE[key]


def tested(points, positive, a, c, b):
    before = np.concatenate([points[i][1] for i in range(a, c)])
    after = np.concatenate([points[i][1] for i in range(c, b)])
    return compare(before, after, positive) + ([c - a, b - c], [len(before), len(after)])


def compare(before, after, positive):
    p, min_p = mwu(after, before)
    if positive:
        d = np.log(after)[:, None] - np.log(before)[None, :]
        shift = math.expm1(float(np.median(d)))
    else:
        d = after[:, None] - before[None, :]
        base = abs(float(np.median(before)))
        shift = float(np.median(d)) / base if base > 0 else math.nan
    return (p, min_p, shift)


def holm(ps):
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, running = [1.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        out[i] = running
    return out


def level(runs, positive):
    """A version's level: the mean of its runs' logs, or of its runs."""
    values = [math.log(x) for x in runs] if positive else list(runs)
    total = 0.0
    for v in values:  # left to right, as report adds them
        total += v
    return total / len(values)


def apart(x, centre, positive):
    """How far level x lies from level `centre`, as a share."""
    if positive:
        return abs(math.expm1(x - centre))
    return abs((x - centre) / centre) if centre != 0 else None


def noise(levels, cuts, positive):
    ends = [0] + cuts + [len(levels)]
    distances = []
    for a, b in zip(ends, ends[1:]):
        centre = float(np.median(levels[a:b]))
        if b - a >= 2 and apart(centre, centre, positive) is not None:
            distances += [apart(x, centre, positive) for x in levels[a:b]]
    return float(np.median(distances)) if distances else None


def propose(points, medians, positive):
    n, found, start = len(medians), set(), 0
    while start < n:
        end = min(start + WINDOW, n)
        stack, last = [(start, end)], 0
        while stack:
            a, b = stack.pop()
            if b - a < 2 * MIN_VERSIONS:
                continue
            q = q_hat(medians[a:b])
            taus = range(MIN_VERSIONS, b - a - MIN_VERSIONS + 1)
            best = max(taus, key=lambda t: (q[t], -t))
            c = a + best
            p, min_p = test(points, positive, a, c, b)[:2]
            if p <= LEVEL or (min_p > LEVEL and p < 0.05):
                found.add(c)
                last = max(last, c)
                stack += [(a, c), (c, b)]
        if end == n:
            break
        start = max(last, start + WINDOW // 2)
    return sorted(found)


def needs(runs, count):
    m, n = runs
    k = 0
    while not (min(m, n) + k >= MIN_RUNS and min(1.0, 2 / math.comb(m + n + 2 * k, m + k)) * count <= LEVEL):
        k += 1
    return k


def detect(series):
    names = sorted(series)
    work, spikes = {}, {}
    for s in names:
        points = series[s]
        positive = all(r[0] > 0 for _, r in points)
        levels = np.array([level(r, positive) for _, r in points])
        found = outliers(points, levels, positive)
        spikes[s] = [{"at": at, "shift": shift} for _, at, shift in found]
        drop = {i for i, _, _ in found}
        keep = [i for i in range(len(points)) if i not in drop]
        work[s] = ([points[i] for i in keep], levels[keep], positive)
    cuts = {s: propose(*work[s]) for s in names}
    undecided = {s: [] for s in names}
    moves = 0
    while True:
        tested = []
        for s in names:
            points, medians, positive = work[s]
            ends = [0] + cuts[s] + [len(points)]
            for a, c, b in zip(ends, ends[1:], ends[2:]):
                tested.append((s, c, test(points, positive, a, c, b)))
        adjusted = holm([t[2][0] for t in tested])
        noises = {s: noise(work[s][1], cuts[s], work[s][2]) for s in names}
        worst = None
        for (s, c, (p, min_p, shift, versions, runs)), ph in zip(tested, adjusted):
            v_ok = min(versions) >= MIN_VERSIONS
            r_ok = min(runs) >= MIN_RUNS
            sized = math.isfinite(shift) and abs(shift) > NEGLIGIBLE and abs(shift) > (noises[s] or 0.0)
            reachable = min_p * len(tested) <= LEVEL
            if v_ok and r_ok and sized and ph <= LEVEL:
                continue
            need = needs(runs, len(tested)) if v_ok and sized and (not r_ok or not reachable) else None
            rank = (0 if v_ok and r_ok else 1, ph, -abs(shift))
            if worst is None or rank > worst[0]:
                worst = (rank, s, c, need, ph, shift)
        if worst is None:
            moved = {s: relocate(work[s], cuts[s]) for s in names}
            if moved == cuts or moves == MOVES:
                break
            cuts, moves = moved, moves + 1
            continue
        _, s, c, need, ph, shift = worst
        if need is not None:
            undecided[s].append({"point": c, "needs": need})
        cuts[s].remove(c)
    result = {}
    for (s, c, t), ph in zip(tested, adjusted):
        result.setdefault(s, []).append((c, t, ph))
    out = {s: expected(s, work[s], cuts[s], result.get(s, []), undecided[s]) for s in names}
    for s in names:
        out[s]["outliers"] = spikes[s]
    return out


def expected(s, work, cuts, found, undecided):
    points, medians, positive = work
    changes = []
    for c, (p, min_p, shift, versions, runs), ph in found:
        ends = [0] + cuts + [len(points)]
        i = ends.index(c)
        a, b = ends[i - 1], ends[i + 1]
        q = split_statistic(points, positive, a, b, excursions(medians))
        floor = 0.9 * q[c - a]
        lo = hi = c
        while lo > a + 1 and q[lo - 1 - a] >= floor:
            lo -= 1
        while hi + 1 < b and q[hi + 1 - a] >= floor:
            hi += 1
        changes.append({"at": points[c][0], "range": [points[lo - 1][0] + 1, points[hi][0]],
                        "p": p, "p_holm": ph, "shift": shift, "versions": versions, "runs": runs})
    kept = sorted({u["point"]: u for u in reversed(undecided) if u["point"] not in cuts}.values(),
                  key=lambda u: u["point"])
    return {"changes": changes, "noise": noise(medians, cuts, positive), "cuts": cuts,
            "inconclusive": [{"at": points[u["point"]][0], "needs": u["needs"]} for u in kept]}


MOVES = 3


def split_statistic(points, positive, a, b, skip):
    """Least squares' statistic of every split t of points a..b (index
    t - a, the first point after it): N1·N2/N·(mean1 − mean2)² of the runs'
    logs (or runs) either side, the points in `skip` left out."""
    values = [np.log(r) if positive else np.asarray(r, float) for _, r in points[a:b]]
    sums = np.array([0.0 if a + i in skip else v.sum() for i, v in enumerate(values)])
    counts = np.array([0 if a + i in skip else len(v) for i, v in enumerate(values)])
    left, n = np.cumsum(sums), np.cumsum(counts)
    total, count = left[-1], n[-1]
    q = np.zeros(b - a)
    for t in range(1, b - a):
        n1, n2 = n[t - 1], count - n[t - 1]
        if n1 > 0 and n2 > 0:
            q[t] = n1 * n2 / count * (left[t - 1] / n1 - (total - left[t - 1]) / n2) ** 2
    return q


def relocate(work, cuts):
    """Each cut moved, left to right, to the split between the (moved) cut
    before and the cut after where least squares' statistic peaks, at least
    MIN_VERSIONS points each side, one-version excursions left out."""
    points, levels, positive = work
    skip = excursions(levels)
    moved = []
    for i, c in enumerate(cuts):
        a = moved[-1] if moved else 0
        b = cuts[i + 1] if i + 1 < len(cuts) else len(points)
        if b - a < 2 * MIN_VERSIONS:
            moved.append(c)
            continue
        q = split_statistic(points, positive, a, b, skip)
        taus = range(a + MIN_VERSIONS, b - MIN_VERSIONS + 1)
        moved.append(max(taus, key=lambda t: (q[t - a], -t)))
    return moved


def hampel(levels):
    """Each level's distance from the median of itself and the 5 points on
    each side, and the filter's limit there: 3 × 1.4826 median absolute
    deviations."""
    n, out = len(levels), []
    for i in range(n):
        w = np.asarray(levels[max(0, i - NEIGHBOURS):min(n, i + NEIGHBOURS + 1)])
        centre = float(np.median(w))
        out.append((abs(levels[i] - centre), 3.0 * 1.4826 * float(np.median(np.abs(w - centre)))))
    return out


def suspects(levels):
    """The points Hampel's filter names (beyond its limit, or off the median
    where there is no deviation)."""
    return {i for i, (far, limit) in enumerate(hampel(levels)) if far > limit}


def excursions(levels):
    """Suspects also beyond the limit from each point next to them."""
    h = hampel(levels)
    return {i for i in suspects(levels)
            if all(abs(levels[i] - levels[j]) > h[i][1] for j in (i - 1, i + 1) if 0 <= j < len(levels))}


NEIGHBOURS = 5


def outliers(points, levels, positive):
    """Suspects of Hampel's filter (over the 5 versions with runs on each
    side and the version, beyond 3 × 1.4826 median absolute deviations
    from their median) whose runs, against those of the neighbours that
    are not suspects, reach the level (Holm over the series) and shift by
    more than `negligible`: (point index, place, shift)."""
    n = len(points)
    window = [range(max(0, i - NEIGHBOURS), min(n, i + NEIGHBOURS + 1)) for i in range(n)]
    named = suspects(levels)
    suspect = [i in named for i in range(n)]
    tests = []
    for i in range(n):
        rest = [points[j][1] for j in window[i] if not suspect[j]]
        if not suspect[i] or not rest:
            tests.append(None)
            continue
        p, _, shift = compare(np.concatenate(rest), np.asarray(points[i][1]), positive)
        tests.append((p, shift))
    adjusted = holm([1.0 if t is None else t[0] for t in tests])
    return [(i, points[i][0], t[1]) for i, (t, ph) in enumerate(zip(tests, adjusted))
            if t is not None and ph <= LEVEL and abs(t[1]) > NEGLIGIBLE]


def otava(series):
    """Apache Otava's change points (its defaults: window 50, p 0.001) on
    each series' version medians, when its package is installed."""
    try:
        from otava.analysis import compute_change_points
    except ImportError:
        return None
    out = {}
    for s, points in series.items():
        # A list, not a numpy array: Otava 0.8's detector slices a list to
        # each window, but reads an array whole and still offsets by the
        # window's start.
        levels = [level(r, True) for _, r in points]
        found = compute_change_points(levels, window_len=WINDOW, max_pvalue=LEVEL)
        out[s] = [points[cp.index][0] for cp in found[0]] if isinstance(found, tuple) else [points[cp.index][0] for cp in found]
    return out


def main():
    global SERIES
    directory, kind, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if len(sys.argv) > 4:
        SERIES = int(sys.argv[4])
    rows, truth = generate(kind, seed)
    write(directory, rows)
    order, series = read(directory)
    detected = detect(series)
    for d in detected.values():
        d.pop("cuts")
    compared = otava(series) if "otava" in sys.argv[5:] else None
    print(json.dumps({"truth": truth, "expected": detected, "otava": compared}))


if __name__ == "__main__":
    main()
