#!/usr/bin/env python3
"""Generate a study with N result rows, for the performance benchmarks.

    python3 benches/generate.py ROWS DIR

Writes DIR/book.toml, DIR/results/runs.csv (about 60 bytes a row: 10^6 rows is
about 60 MB), and DIR/content/index.md with a chart and inline statistics.
The values are pseudo-random but fixed by the seed.
"""
import os
import random
import sys

rows, out = int(sys.argv[1]), sys.argv[2]
os.makedirs(f"{out}/results", exist_ok=True)
os.makedirs(f"{out}/content", exist_ok=True)
rng = random.Random(20251130)
procs = [1, 2, 4, 8, 16, 32]
with open(f"{out}/results/runs.csv", "w") as f:
    f.write("environment,nodes,procs,run,loop_time_s,timesteps_per_s,cpu_use_pct\n")
    for i in range(rows):
        env = "kubernetes" if i % 2 else "bare-metal"
        p = procs[(i // 2) % len(procs)]
        run = i // (2 * len(procs)) + 1
        tps = 3.0 * p ** 0.8 * (0.93 if env == "kubernetes" else 1.0) * rng.uniform(0.97, 1.03)
        f.write(f"{env},1,{p},{run},{1000 / tps:.6f},{tps:.6f},{rng.uniform(96, 99.9):.2f}\n")
with open(f"{out}/book.toml", "w") as f:
    f.write('''[book]
title = "Generated study"
date = "2025-01-01"

[study]
baseline = "bare-metal"

[environments.bare-metal]
label = "Bare metal"

[environments.kubernetes]
label = "Kubernetes"

[data.runs]
key = ["environment", "procs", "run"]
group-by = ["procs"]
columns = { environment = "text", procs = "integer", timesteps_per_s = "positive" }

[[metrics]]
name = "tps_32"
label = "Throughput at 32 processes"
data = "runs"
value = "timesteps_per_s"
where = { procs = 32 }
better = "higher"
headline = true
''')
with open(f"{out}/content/index.md", "w") as f:
    f.write('''# Results

At 32 processes: {{ stat(name="tps_32", field="full") }} (@fig-scaling).

```chart
id = "scaling"
kind = "line"
data = "runs"
x = "procs"
y = "timesteps_per_s"
x-scale = "log2"
caption = "Throughput by processes."
```
''')
