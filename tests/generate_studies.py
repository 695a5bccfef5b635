#!/usr/bin/env python3
"""Random studies of many shapes, each with its statistics computed by the
independent oracle (tests/independent_stats.py, scipy and numpy).

    python3 tests/generate_studies.py SEED COUNT OUT

writes OUT/NNNN/{book.toml, results/runs.csv, content/index.md} for COUNT
studies drawn from SEED, and OUT/expected.json: {"NNNN": oracle's figures}.
tests/stats_generated.rs builds each study and compares every figure.

Shapes drawn: 1 to 1,000 runs a side (log-uniform, unequal), 1 to 50
configurations, values continuous or rounded to a grid (ties common, down
to two or three distinct values), constant sides, a few wild runs, two or
three environments; metrics of every `compare`, `estimator`, `per`,
`average` and `within-run`; some studies exclude runs.
"""
import json
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import independent_stats  # noqa: E402

MAX_ROWS = 12_000


def draw_sizes(rng, environments, configs):
    """Runs per environment, log-uniform 1..1000, within MAX_ROWS rows."""
    while True:
        sizes = {e: max(1, int(round(10 ** rng.uniform(0, 3)))) for e in environments}
        if rng.random() < 0.3:
            small = rng.randint(1, 12)
            sizes = {e: rng.randint(1, small) for e in environments}
        if sum(sizes.values()) * configs <= MAX_ROWS:
            return sizes


def draw_shape(rng):
    """How an environment's values vary: noise, grid, constant, wild runs."""
    return {
        "noise": rng.choice([0.0, 0.001, 0.02, 0.1, 0.4]),
        "wild": rng.random() < 0.15,
        "factor": rng.choice([1.0, math.exp(rng.gauss(0, 0.2)), rng.uniform(0.3, 3.0)]),
    }


def value(rng, level, shape, grid):
    v = level * shape["factor"] * math.exp(rng.gauss(0, shape["noise"]))
    if shape["wild"] and rng.random() < 0.02:
        v *= rng.choice([8.0, 30.0, 0.2])
    if grid:
        step = level * grid
        v = max(step, round(v / step) * step)
    return float(f"{v:.6g}")


def rows_of(rng, environments, configs):
    sizes = draw_sizes(rng, environments, configs)
    shapes = {e: draw_shape(rng) for e in environments}
    grid = rng.choice([None, None, 0.001, 0.05, 0.2, 0.5])
    levels = [10 ** rng.uniform(-1, 3) for _ in range(configs)]
    rows = []
    for env in environments:
        for run in range(1, sizes[env] + 1):
            for cfg in range(configs):
                rows.append((env, cfg + 1, run, value(rng, levels[cfg], shapes[env], grid)))
    return rows, sizes


def metric_toml(rng, i, environments, configs):
    compare = rng.choice(["relative", "relative", "slowdown", "ratio", "summary"])
    estimator = rng.choice(["mean", "median"])
    per = configs > 1 and rng.random() < 0.6
    lines = [
        "[[metrics]]",
        f'name = "m{i}"',
        f'label = "Metric {i}"',
        'data = "runs"',
        'value = "t"',
        f'compare = "{compare}"',
        f'estimator = "{estimator}"',
        f'better = "{rng.choice(["lower", "higher"])}"',
        f'headline = {rng.choice(["true", "false"])}',
    ]
    if len(environments) > 2 or compare == "summary":
        lines.append(f'candidate = "{rng.choice(environments[1:])}"')
    if per:
        lines.append('per = "cfg"')
        lines.append(f'average = "{rng.choice(["geometric", "arithmetic"])}"')
        if rng.random() < 0.4:
            lines.append("within-run = true")
    else:
        lines.append(f"where = {{ cfg = {rng.randint(1, configs)} }}")
    return "\n".join(lines) + "\n"


def study(rng, path):
    environments = ["base", "cand", "other"][: rng.choice([2, 2, 3])]
    configs = rng.choice([1, 1, 2, 3, 5, 8, 19, 50])
    rows, sizes = rows_of(rng, environments, configs)
    os.makedirs(f"{path}/results")
    os.makedirs(f"{path}/content")
    with open(f"{path}/results/runs.csv", "w") as f:
        f.write("environment,cfg,run,t\n")
        f.writelines(f"{e},{c},{r},{v!r}\n" for e, c, r, v in rows)
    exclude = ""
    if rng.random() < 0.2 and sizes["base"] > 3:
        exclude = ('exclude = [{ where = { environment = "base", run = 1 }, '
                   'reason = "the first run warmed the caches" }]\n')
    book = ['[book]\ntitle = "Generated study"\ndate = "2024-01-02"\n',
            '[study]\nbaseline = "base"\n']
    book += [f'[environments.{e}]\nlabel = "{e.title()}"\n' for e in environments]
    book.append('[data.runs]\nkey = ["environment", "cfg", "run"]\ngroup-by = ["cfg"]\n'
                'columns = { environment = "text", cfg = "integer", run = "integer", t = "positive" }\n'
                + exclude)
    book += [metric_toml(rng, i, environments, configs) for i in range(rng.randint(1, 4))]
    with open(f"{path}/book.toml", "w") as f:
        f.write("\n".join(book))
    with open(f"{path}/content/index.md", "w") as f:
        f.write("# Generated\n\nA generated study.\n")


def main():
    seed, count, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    expected = {}
    for i in range(count):
        name = f"{i:04}"
        rng = random.Random(f"{seed}/{i}")
        study(rng, f"{out}/{name}")
        expected[name] = independent_stats.compute(f"{out}/{name}")
    with open(f"{out}/expected.json", "w") as f:
        json.dump(expected, f, default=float)


if __name__ == "__main__":
    main()
