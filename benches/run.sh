#!/usr/bin/env bash
# Whole-process benchmarks of `report build`, with hyperfine and /usr/bin/time -v:
# the shipped study, and generated studies of 10^3 to 10^7 rows side by side with
# the csv-crate floor (benches/csv_floor.rs). Also times the typst CLI on the
# study's generated Typst, when `typst` is installed, as the reference for the
# PDF stage.
#
#   benches/run.sh [MAX_POWER]     # default 7 (10^7 rows, about 470 MB of CSV)
set -euo pipefail
cd "$(dirname "$0")/.."
max=${1:-7}
command -v hyperfine >/dev/null || { echo "install hyperfine (apt-get install hyperfine)"; exit 1; }
cargo build --release --quiet
cargo build --release --quiet --bench csv_floor
report=target/release/report
floor=$(ls target/release/deps/csv_floor-* | grep -v '\.d$' | head -1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1700000000

peak() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident/ {printf "%.0f MB", $2 / 1024}'; }

echo "## report --version"
hyperfine --warmup 3 --runs 30 -N "$report --version" --export-json "$work/version.json" | grep -E "Time|Range"

echo "## shipped study (site + PDF, cold process)"
hyperfine --warmup 2 --runs 15 -N --export-json "$work/study.json" "$report build --out $work/site" | grep -E "Time|Range"
python3 -c "import json; print(f\"median: {json.load(open('$work/study.json'))['results'][0]['median'] * 1000:.0f} ms\")"
echo "peak memory: $(peak $report build --out "$work/site")"

median_ratio() {
  python3 -c "import json, sys; r = json.load(open(sys.argv[1]))['results']; a, b = r[0]['median'], r[1]['median']; print(f'median: report {a * 1000:.0f} ms, floor {b * 1000:.0f} ms, ratio {a / b:.2f}')" "$1"
}

for power in $(seq 3 "$max"); do
  rows=$((10 ** power))
  runs=$([ "$power" -ge 7 ] && echo 5 || echo 10)
  python3 benches/generate.py "$rows" "$work/g$power"
  size=$(du -m "$work/g$power/results/runs.csv" | cut -f1)
  echo "## 10^$power rows ($size MB): report build (site + PDF) against the csv floor"
  hyperfine --warmup 1 --runs "$runs" -N --export-json "$work/h$power.json" \
    "$report --root $work/g$power build -q --out $work/o$power" "$floor $work/g$power/results/runs.csv" | grep -E "Time|Range"
  median_ratio "$work/h$power.json"
  # The figure to quote: the same comparison in interleaved pairs (report,
  # floor, report, floor ...), which a machine whose speed drifts cannot skew.
  python3 benches/paired.py $((runs * 3)) \
    "$report --root $work/g$power build -q --out $work/o$power" "$floor $work/g$power/results/runs.csv"
  echo "peak memory: report $(peak $report --root "$work/g$power" build -q --out "$work/o$power"), floor $(peak "$floor" "$work/g$power/results/runs.csv")"
  rm -rf "$work/g$power" "$work/o$power"
done

# The reference for the PDF stage: the typst CLI (`cargo install typst-cli`, or
# TYPST=/path/to/typst) on the same document, exported by `report typst`.
typst=${TYPST:-$(command -v typst || true)}
if [ -n "$typst" ]; then
  echo "## PDF stage against the typst CLI ($("$typst" --version))"
  "$report" typst "$work/typ" -q
  hyperfine --warmup 2 --runs 15 -N --export-json "$work/typst.json" \
    "$typst compile --ignore-system-fonts --font-path $work/typ/fonts --creation-timestamp $SOURCE_DATE_EPOCH $work/typ/main.typ $work/typ.pdf" \
    | grep -E "Time|Range"
  # report's PDF stage (font set-up, compile, export) in 15 cold processes.
  pdf_ms=$(for _ in $(seq 15); do "$report" build --verbose --out "$work/site" 2>&1 | awk '$1 == "pdf" {print $2}'; done | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
  cli_ms=$(python3 -c "import json; print(round(json.load(open('$work/typst.json'))['results'][0]['median'] * 1000, 1))")
  echo "report's PDF stage: median $pdf_ms ms; typst CLI, whole process: median $cli_ms ms; ratio $(python3 -c "print(round($pdf_ms / $cli_ms, 2))")"
else
  echo "## typst CLI not found: install it (cargo install typst-cli) or set TYPST to compare the PDF stage"
fi

echo "## report serve: edit to page served"
python3 benches/serve.py "$report" 20
