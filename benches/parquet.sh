#!/usr/bin/env bash
# The Parquet path against DuckDB (issue 46): the generated study of
# `benches/generate.py ROWS` with its CSV written to Parquet by DuckDB, a whole
# `report build` (site and PDF) against Python that imports DuckDB and computes
# per environment and process count the summaries of the study's table:
#   - `duckdb-one`: count, mean, standard deviation, median, minimum and
#     maximum of the throughput (the yardstick of earlier stops);
#   - `duckdb-all`: the same and both quartiles for each of the three measured
#     columns, as report's per-group table summarises them.
# Also prints `report build --verbose`'s stages. Needs hyperfine and duckdb.
#
#   benches/parquet.sh [ROWS]     # default 1000000
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000}
command -v hyperfine >/dev/null || { echo "install hyperfine (apt-get install hyperfine)"; exit 1; }
cargo build --release --quiet
report=${CARGO_TARGET_DIR:-$PWD/target}/release/report
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1700000000
python3 benches/generate.py "$rows" "$work/g"
python3 -c "import duckdb, sys; duckdb.sql(f\"COPY (SELECT * FROM read_csv('{sys.argv[1]}/runs.csv')) TO '{sys.argv[1]}/runs.parquet' (FORMAT parquet)\")" "$work/g/results"
rm "$work/g/results/runs.csv"
file="$work/g/results/runs.parquet"
cat >"$work/one.py" <<PY
import duckdb
duckdb.sql("""SELECT environment, procs, count(*), avg(timesteps_per_s), stddev_samp(timesteps_per_s),
  median(timesteps_per_s), min(timesteps_per_s), max(timesteps_per_s)
  FROM '$file' GROUP BY ALL ORDER BY ALL""").fetchall()
PY
summaries=""
for c in loop_time_s timesteps_per_s cpu_use_pct; do
  summaries="$summaries, count($c), avg($c), stddev_samp($c), median($c), quantile_cont($c, 0.25), quantile_cont($c, 0.75), min($c), max($c)"
done
cat >"$work/all.py" <<PY
import duckdb
duckdb.sql("""SELECT environment, procs $summaries
  FROM '$file' GROUP BY ALL ORDER BY ALL""").fetchall()
PY
echo "## $rows rows from one DuckDB-written Parquet file ($(du -m "$file" | cut -f1) MB)"
hyperfine --warmup 1 --runs 10 -N --export-json "$work/h.json" \
  "$report --root $work/g build -q --out $work/o" "python3 $work/one.py" "python3 $work/all.py" | grep -E "Time|Range"
python3 -c "import json, sys; r = json.load(open(sys.argv[1]))['results']; a = r[0]['median']; print(f'median: report {a * 1000:.0f} ms; duckdb-one {r[1][\"median\"] * 1000:.0f} ms ({a / r[1][\"median\"]:.2f} x); duckdb-all {r[2][\"median\"] * 1000:.0f} ms ({a / r[2][\"median\"]:.2f} x)')" "$work/h.json"
echo "## pair by pair, against duckdb-one"
python3 benches/paired.py 30 "$report --root $work/g build -q --out $work/o" "python3 $work/one.py"
echo "## stages"
"$report" --root "$work/g" build --verbose --out "$work/o" 2>&1 | grep -E "^  [a-z]+ +[0-9.]+ ms"
