#!/usr/bin/env python3
"""The scale benchmark of a partitioned dataset: DuckDB generates an archive
of ROWS rows in 100 partitions (`bench=b000` to `bench=b099`), and the study
reads one of them (ROWS / 100 rows) through `[data.runs] where`.

    python3 benches/dataset.py ROWS DIR       # 10^8 for the issue's figure
    /usr/bin/time -v target/release/report build --root DIR --out DIR/site

Prints the archive's size on disk. The goal at 10^8 rows (a slice of 10^6):
within 10 s and 500 MB (docs/performance.md).
"""
import os
import sys

import duckdb

rows, out = int(sys.argv[1]), sys.argv[2]
os.makedirs(f"{out}/content", exist_ok=True)
os.makedirs(f"{out}/results", exist_ok=True)
duckdb.sql(f"""
COPY (
  SELECT printf('b%03d', i % 100) AS bench,
         CASE WHEN (i // 100) % 2 = 0 THEN 'bare-metal' ELSE 'kubernetes' END AS environment,
         [1, 2, 4, 8, 16, 32][1 + (i // 200) % 6] AS procs,
         i // 1200 + 1 AS run,
         1000 / (3.0 * pow([1, 2, 4, 8, 16, 32][1 + (i // 200) % 6], 0.8)
                 * (CASE WHEN (i // 100) % 2 = 0 THEN 1.0 ELSE 0.93 END)
                 * (0.97 + 0.06 * hash(i) / 18446744073709551615)) AS loop_time_s,
         96 + 3.9 * hash(i * 7) / 18446744073709551615 AS cpu_use_pct
  FROM range({rows}) t(i)
) TO '{out}/results/runs' (FORMAT parquet, PARTITION_BY (bench))
""")
with open(f"{out}/book.toml", "w") as f:
    f.write('''[book]
title = "Archive slice"
date = "2025-01-01"

[study]
baseline = "bare-metal"

[environments.bare-metal]
label = "Bare metal"

[environments.kubernetes]
label = "Kubernetes"

[data.runs]
where = { bench = "b042" }
key = ["environment", "procs", "run"]
group-by = ["procs"]
columns = { environment = "text", procs = "integer", run = "integer", loop_time_s = "positive", cpu_use_pct = "percent" }

[[metrics]]
name = "time_32"
label = "Loop time at 32 processes"
data = "runs"
value = "loop_time_s"
where = { procs = 32 }
better = "lower"
headline = true
''')
with open(f"{out}/content/index.md", "w") as f:
    f.write("# Slice\n\nAt 32 processes: {{ stat(name=\"time_32\") }}.\n\n{{ caveats() }}\n")
size = sum(os.path.getsize(os.path.join(d, n)) for d, _, ns in os.walk(f"{out}/results") for n in ns)
print(f"{rows} rows in 100 partitions: {size / 1e6:.0f} MB of Parquet")
