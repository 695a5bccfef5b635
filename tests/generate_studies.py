#!/usr/bin/env python3
"""Random studies of many shapes, each with its statistics computed by the
independent oracle (tests/independent_stats.py, scipy and numpy).

    python3 tests/generate_studies.py SEED COUNT OUT [PART PARTS]

writes OUT/NNNN/{book.toml, results/runs.csv, content/index.md} for COUNT
studies drawn from SEED, and OUT/expected.json: {"NNNN": oracle's figures};
with PART and PARTS, only the studies whose number NNNN is PART modulo
PARTS (each study is drawn from SEED and its number alone).
tests/stats_generated.rs builds each study and compares every figure.

Shapes drawn: 1 to 1,000 runs a side (log-uniform, unequal; or few, or
about 8, or 3), 1 to 50 configurations, some missing from one environment
(unmatched), values lognormal, normal or skewed, continuous or rounded to
a grid (relative to the level, or decimal: whole units, halves,
hundredths; ties common, down to two or three distinct values), constant
sides, wild values, one wild run in every configuration (influential),
runs whose coefficient of variation is 1/19, exactly 5% or 1/21, two or
three environments, runs from two sessions (a `source` column), the
second under load in some; 1 to 4 metrics (sometimes 6 to 12, for Holm's
correction) of every `compare`, `estimator`, `per`, `average` (over
exactly these configurations, or `generalise = true`) and
`within-run`; some studies exclude one or two sets of runs. One study in
four is factorial instead (docs/factors.md): 2 to 4 compressors (text
levels, the environment column) × 1 to 3 levels × 1 to 3 sizes (numbers)
× 1 or 2 modes (text), every configuration in every run; 1 to 3 metrics
along any factor, with one candidate, `candidates = "*"` or a list, the
baseline named or `"best"` (the best of the others), the other factors
fixed by `where` or one of them `per` (averaged, or `each` with Holm's
correction across the family) or `interaction` (two of its levels: does
the difference depend on it?); and 0 to 2 computed tables of comparisons
along one factor, by another or by none, against a named level or the
best of the others in each cell.
"""
import json
import math
import multiprocessing
import os
import random
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import independent_stats  # noqa: E402

MAX_ROWS = 12_000


def draw_sizes(rng, environments, configs):
    """Runs per environment, log-uniform 1..1000, within MAX_ROWS rows; or
    few (1 to 12), or about 8 (Shapiro–Wilk's smallest n), or 3 (the CV
    patterns' period)."""
    while True:
        sizes = {e: max(1, int(round(10 ** rng.uniform(0, 3)))) for e in environments}
        kind = rng.random()
        if kind < 0.3:
            small = rng.randint(1, 12)
            sizes = {e: rng.randint(1, small) for e in environments}
        elif kind < 0.45:
            sizes = {e: rng.randint(7, 12) for e in environments}
        elif kind < 0.5:
            sizes = {e: 3 for e in environments}
        if sum(sizes.values()) * configs <= MAX_ROWS:
            return sizes


def draw_shape(rng, size):
    """How an environment's values vary: noise (lognormal, normal or
    skewed), grid, constant, wild values, one wild run, a CV pattern."""
    return {
        "noise": rng.choice([0.0, 0.001, 0.02, 0.05, 0.1, 0.4]),
        "law": rng.choice(["lognormal", "lognormal", "normal", "skewed"]),
        "wild": rng.random() < 0.15,
        # One run far off at every configuration: it may carry a metric.
        "wild_run": rng.randint(1, size) if rng.random() < 0.15 else None,
        "wild_factor": rng.choice([8.0, 30.0, 0.2, 1.5]),
        # Runs cycling a − s, a, a + s with a = 19, 20 or 21 s: a CV of 1/19
        # (above 5%), exactly 5% at three runs (not above), or 1/21.
        "pattern": rng.choice([19, 20, 21]) if rng.random() < 0.1 else None,
        "factor": rng.choice([1.0, math.exp(rng.gauss(0, 0.2)), rng.uniform(0.3, 3.0)]),
    }


def clean(x):
    """x to one significant digit, as a Decimal: 0.3, 5, 20."""
    return Decimal(f"{x:.0e}").normalize()


def value(rng, level, shape, grid, run):
    """A run's value as decimal text."""
    if shape["pattern"]:
        s = clean(level * shape["factor"] / 20)
        return format(s * (shape["pattern"] + (run % 3) - 1), "f")
    noise, law = shape["noise"], shape["law"]
    if law == "lognormal":
        v = level * shape["factor"] * math.exp(rng.gauss(0, noise))
    elif law == "normal":
        v = level * shape["factor"] * max(0.05, 1 + rng.gauss(0, noise))
    else:
        v = level * shape["factor"] * (1 + noise * rng.expovariate(1.0))
    if shape["wild"] and rng.random() < 0.02:
        v *= rng.choice([8.0, 30.0, 0.2])
    if run == shape["wild_run"]:
        v *= shape["wild_factor"]
    if grid is None:
        return f"{v:.6g}"
    kind, g = grid
    if kind == "relative":
        step = level * g
        return f"{max(step, round(v / step) * step):.6g}"
    # A decimal grid: whole seconds, halves, hundredths of the level's unit.
    step = Decimal(10) ** math.floor(math.log10(level)) * g
    return format(max(1, round(Decimal(v) / step)) * step, "f")


def rows_of(rng, environments, configs):
    sizes = draw_sizes(rng, environments, configs)
    shapes = {e: draw_shape(rng, sizes[e]) for e in environments}
    grid = rng.choice([None, None, ("relative", 0.001), ("relative", 0.05), ("relative", 0.2),
                       ("relative", 0.5), ("decimal", Decimal(1)), ("decimal", Decimal("0.5")),
                       ("decimal", Decimal("0.01")), ("decimal", Decimal("0.2"))])
    levels = [10 ** rng.uniform(-1, 3) for _ in range(configs)]
    # Unmatched: one environment lacks the configurations past `matched`.
    matched, lacking = configs, None
    if configs > 1 and rng.random() < 0.15:
        matched, lacking = rng.randint(1, configs - 1), rng.choice(environments)
    rows = []
    for env in environments:
        for run in range(1, sizes[env] + 1):
            for cfg in range(configs):
                if env == lacking and cfg >= matched:
                    continue
                rows.append((env, cfg + 1, run, value(rng, levels[cfg], shapes[env], grid, run)))
    return rows, sizes, shapes, matched


def metric_toml(rng, i, environments, configs, matched):
    """A metric of any `compare`, `estimator`, `per`, `average` and
    `within-run`, over the configurations every environment measured."""
    compare = rng.choice(["relative", "relative", "slowdown", "ratio", "summary"])
    estimator = rng.choice(["mean", "median"])
    per = matched > 1 and rng.random() < 0.6
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
        elif rng.random() < 0.3:
            lines.append("generalise = true")
        if matched < configs:
            lines.append(f"where = {{ cfg = {{ max = {matched} }} }}")
    else:
        lines.append(f"where = {{ cfg = {rng.randint(1, matched)} }}")
    return "\n".join(lines) + "\n"


def exclusions(rng, sizes, shapes, configs):
    """`exclude` of some studies: the first run of the baseline, the wild
    run of an environment, the last two runs of the candidate (a range);
    none, one or several. Whole runs, so that `within-run` keeps its units."""
    found = []
    if sizes["base"] > 3 and rng.random() < 0.2:
        found.append(('{ environment = "base", run = 1 }', "the first run warmed the caches"))
    for env, shape in shapes.items():
        if shape["wild_run"] and sizes[env] > 3 and rng.random() < 0.3:
            found.append((f'{{ environment = "{env}", run = {shape["wild_run"]} }}',
                          "the node was swapping (job log)."))
    if sizes["cand"] > 3 and rng.random() < 0.1:
        last = sizes["cand"]
        found.append((f'{{ environment = "cand", run = {{ min = {last - 1}, max = {last} }} }}', "reruns"))
    if not found:
        return ""
    items = ", ".join(f'{{ where = {w}, reason = "{r}" }}' for w, r in found)
    return f"exclude = [{items}]\n"


def sessions_of(rng, sizes):
    """In one study in four, the runs come from two sessions (a `source`
    column, as `report import` records it): each environment's later runs
    from the second, which in half of those studies ran under load, its
    values 21% to 36% higher. None otherwise; else (environment, run,
    value) -> "value,source"."""
    if rng.random() >= 0.25:
        return None
    split = {e: rng.randint(1, max(1, n)) for e, n in sizes.items()}
    load = rng.choice([1.0, rng.uniform(1.21, 1.36)])

    def row(env, run, v):
        if run <= split[env]:
            return f"{v},raw/session-1.json"
        return f"{float(v) * load:.6g},raw/session-2.json"
    return row


def study(rng, path):
    environments = ["base", "cand", "other"][: rng.choice([2, 2, 3])]
    configs = rng.choice([1, 1, 2, 3, 5, 8, 19, 50])
    rows, sizes, shapes, matched = rows_of(rng, environments, configs)
    os.makedirs(f"{path}/results")
    os.makedirs(f"{path}/content")
    with open(f"{path}/results/runs.csv", "w") as f:
        sessions = sessions_of(rng, sizes)
        if sessions is None:
            f.write("environment,cfg,run,t\n")
            f.writelines(f"{e},{c},{r},{v}\n" for e, c, r, v in rows)
        else:
            f.write("environment,cfg,run,t,source\n")
            f.writelines(f"{e},{c},{r},{sessions(e, r, v)}\n" for e, c, r, v in rows)
    book = ['[book]\ntitle = "Generated study"\ndate = "2024-01-02"\n',
            '[study]\nbaseline = "base"\n']
    book += [f'[environments.{e}]\nlabel = "{e.title()}"\n' for e in environments]
    book.append('[data.runs]\nkey = ["environment", "cfg", "run"]\ngroup-by = ["cfg"]\n'
                'columns = { environment = "text", cfg = "integer", run = "integer", t = "positive" }\n'
                + exclusions(rng, sizes, shapes, configs))
    # Usually 1 to 4 metrics; sometimes many, for Holm's correction.
    count = rng.randint(1, 4) if rng.random() < 0.85 else rng.randint(6, 12)
    book += [metric_toml(rng, i, environments, configs, matched) for i in range(count)]
    with open(f"{path}/book.toml", "w") as f:
        f.write("\n".join(book))
    with open(f"{path}/content/index.md", "w") as f:
        f.write("# Generated\n\nA generated study.\n")


def literal(level):
    """A level as TOML: a number bare, text quoted."""
    return str(level) if isinstance(level, int) else f'"{level}"'


def factor_metric(rng, i, dims):
    """A comparison along one factor of a factorial study (docs/factors.md):
    two levels, several candidates (`*` or a list), or one per value of
    another factor (`per` with `each`), matched on every other factor, each
    fixed by `where` (or averaged over with `per`)."""
    factor = rng.choice([f for f, levels in dims.items() if len(levels) >= 2])
    levels = dims[factor]
    lines = ["[[metrics]]", f'name = "f{i}"', f'label = "Factor metric {i}"', 'data = "runs"',
             'value = "t"', f'compare = "{rng.choice(["relative", "slowdown", "ratio"])}"',
             f'estimator = "{rng.choice(["mean", "median"])}"',
             f'better = "{rng.choice(["lower", "higher"])}"', f'headline = {rng.choice(["true", "false"])}']
    base = levels[0] if factor == "environment" and rng.random() < 0.6 else rng.choice(levels)
    if factor != "environment" or rng.random() < 0.3:
        lines.append(f'factor = "{factor}"')
    if factor != "environment" or base != levels[0] or rng.random() < 0.3:
        lines.append(f"baseline = {literal(base)}")
    others = [v for v in levels if v != base]
    if rng.random() < 0.2:
        # Against the best of the others, chosen from the data.
        lines = [line for line in lines if not line.startswith("baseline")] + ['baseline = "best"']
        others = levels
    kind = rng.random()
    if kind < 0.35:
        lines.append(f"candidate = {literal(rng.choice(others))}")
    elif kind < 0.7:
        lines.append('candidates = "*"')
    else:
        chosen = rng.sample(others, rng.randint(1, len(others)))
        lines.append(f'candidates = [{", ".join(literal(v) for v in chosen)}]')
    rest = [f for f in dims if f != factor]
    spread = [f for f in rest if len(dims[f]) >= 2]
    per = rng.choice(spread) if spread and rng.random() < 0.5 else None
    where = {f: rng.choice(dims[f]) for f in rest if f != per}
    best = 'baseline = "best"' in lines
    if per and not best and rng.random() < 0.25:
        # An interaction: does the difference depend on `per`? Two of its
        # levels; not a headline (no influence check of an interaction).
        lines = [line for line in lines if not line.startswith("headline")] + ["headline = false"]
        lines.append(f'interaction = "{per}"')
        where[per] = rng.sample(dims[per], 2)
    elif per:
        lines.append(f'per = "{per}"')
        if rng.random() < 0.5:
            lines.append("each = true")
        else:
            lines.append(f'average = "{rng.choice(["geometric", "arithmetic"])}"')
            if factor == "environment" and rng.random() < 0.3:
                lines.append("within-run = true")
            elif rng.random() < 0.3:
                lines.append("generalise = true")
    if where:
        value = lambda v: "[" + ", ".join(literal(x) for x in v) + "]" if isinstance(v, list) else literal(v)
        lines.append("where = { " + ", ".join(f"{f} = {value(v)}" for f, v in where.items()) + " }")
    return "\n".join(lines) + "\n"


def factor_study(rng, path):
    """A factorial study: compressors (text levels; the environment column)
    × level × size (numbers) × mode (text), every configuration measured by
    every run, each compressor's runs of its own shape."""
    dims = {"environment": ["gz", "zs", "xz", "bz"][: rng.randint(2, 4)],
            "level": sorted(rng.sample([1, 3, 6, 9, 19], rng.randint(1, 3))),
            "size": sorted(rng.sample([1, 4, 16], rng.choice([1, 1, 2, 3]))),
            "mode": ["cold", "warm"][: rng.choice([1, 2])]}
    envs = dims["environment"]
    configs = [(lv, sz, md) for lv in dims["level"] for sz in dims["size"] for md in dims["mode"]]
    sizes = draw_sizes(rng, envs, len(configs))
    shapes = {e: draw_shape(rng, sizes[e]) for e in envs}
    grid = rng.choice([None, None, ("relative", 0.05), ("decimal", Decimal("0.01"))])
    scale = {c: 10 ** rng.uniform(-1, 2) for c in configs}
    # Each compressor's own effect at each configuration: none, or up to ±30%.
    effect = {(e, c): rng.choice([1.0, math.exp(rng.gauss(0, 0.15))]) for e in envs for c in configs}
    os.makedirs(f"{path}/results")
    os.makedirs(f"{path}/content")
    with open(f"{path}/results/runs.csv", "w") as f:
        f.write("environment,level,size,mode,run,t\n")
        for e in envs:
            for run in range(1, sizes[e] + 1):
                for c in configs:
                    v = value(rng, scale[c] * effect[(e, c)], shapes[e], grid, run)
                    f.write(f"{e},{c[0]},{c[1]},{c[2]},{run},{v}\n")
    book = ['[book]\ntitle = "Generated factorial study"\ndate = "2024-01-02"\n',
            f'[study]\nbaseline = "{envs[0]}"\nfactors = ["level", "size", "mode"]\n']
    book += [f'[environments.{e}]\nlabel = "{e.upper()}"\n' for e in envs]
    book.append('[data.runs]\nkey = ["environment", "level", "size", "mode", "run"]\n'
                'group-by = ["level", "size", "mode"]\n'
                'columns = { environment = "text", level = "integer", size = "integer", mode = "text", '
                'run = "integer", t = "positive" }\n')
    book += [factor_metric(rng, i, dims) for i in range(rng.randint(1, 3))]
    with open(f"{path}/book.toml", "w") as f:
        f.write("\n".join(book))
    tables = [factor_table(rng, i, dims) for i in range(rng.choice([0, 1, 1, 2]))]
    with open(f"{path}/content/index.md", "w") as f:
        f.write("# Generated\n\nA generated factorial study.\n" + "".join(tables))


def factor_table(rng, i, dims):
    """A ```table of comparisons along one factor (docs/tables.md): its
    levels as the rows (or the columns, with `compare`), another factor's
    as the other axis or none, every other factor fixed by `where`; against
    a named level or, more often, the best of the others in each cell."""
    factor = rng.choice([f for f, levels in dims.items() if len(levels) >= 2])
    other = rng.choice([None] + [f for f in dims if f != factor])
    lines = ["", "```table", f'id = "t{i}"', 'data = "runs"', 'value = "t"',
             f'cell = "{rng.choice(["relative", "slowdown", "ratio"])}"',
             f'estimator = "{rng.choice(["mean", "median"])}"',
             f'better = "{rng.choice(["lower", "higher"])}"']
    if other is None or rng.random() < 0.5:
        lines.append(f'rows = "{factor}"')
        if other is not None:
            lines.append(f'columns = "{other}"')
    else:
        lines += [f'rows = "{other}"', f'columns = "{factor}"', f'compare = "{factor}"']
    if rng.random() < 0.7:
        lines.append('baseline = "best"')
    elif factor != "environment" or rng.random() < 0.5:
        lines.append(f"baseline = {literal(rng.choice(dims[factor]))}")
    where = {f: rng.choice(dims[f]) for f in dims if f not in (factor, other)}
    if where:
        value = lambda v: "[" + ", ".join(literal(x) for x in v) + "]" if isinstance(v, list) else literal(v)
        lines.append("where = { " + ", ".join(f"{f} = {value(v)}" for f, v in where.items()) + " }")
    lines += [f'caption = "Table {i}"', "```", ""]
    return "\n".join(lines)


def one(job):
    """Draw study `i` of `seed` into OUT/NNNN; the oracle's figures, as JSON."""
    seed, i, out = job
    rng = random.Random(f"{seed}/{i}")
    # One study in four is factorial; the others draw as they always have.
    if random.Random(f"{seed}/{i}/kind").random() < 0.25:
        factor_study(rng, f"{out}/{i:04}")
    else:
        study(rng, f"{out}/{i:04}")
    # A `negligible` threshold in half the studies, from a draw of its own
    # (the studies' other draws are as they were).
    threshold = random.Random(f"{seed}/{i}/negligible").choice([None, None, "1%", "5%"])
    with open(f"{out}/{i:04}/book.toml") as f:
        book = f.read()
    if threshold:
        book = book.replace("[study]\n", f'[study]\nnegligible = "{threshold}"\n', 1)
    # Some comparisons as differences in the column's unit, from a draw of
    # their own: any block but a within-run average or an interaction.
    differ = random.Random(f"{seed}/{i}/difference")
    blocks = book.split("[[metrics]]")
    for k, block in enumerate(blocks[1:], 1):
        plain = "within-run" not in block and "interaction" not in block
        if plain and 'compare = "summary"' not in block and differ.random() < 0.2:
            for kind in ("relative", "slowdown", "ratio"):
                block = block.replace(f'compare = "{kind}"', 'compare = "difference"')
            blocks[k] = block
    with open(f"{out}/{i:04}/book.toml", "w") as f:
        f.write("[[metrics]]".join(blocks))
    return json.dumps(independent_stats.compute(f"{out}/{i:04}"), default=float)


def main():
    seed, count, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    # Optionally part P of N: the studies whose number is P modulo N, so that
    # the parts together draw the same studies as one run.
    part, parts = (int(sys.argv[4]), int(sys.argv[5])) if len(sys.argv) > 5 else (0, 1)
    numbers = [i for i in range(count) if i % parts == part]
    jobs = [(seed, i, out) for i in numbers]
    # One process per core: the studies are independent.
    with multiprocessing.Pool(os.cpu_count()) as pool:
        found = pool.map(one, jobs, chunksize=4)
    with open(f"{out}/expected.json", "w") as f:
        f.write("{" + ",".join(f'"{i:04}":{e}' for i, e in zip(numbers, found)) + "}")


if __name__ == "__main__":
    main()
