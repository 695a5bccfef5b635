#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 30) on a copy of its committed
# seed corpus (fuzz/corpus/TARGET/) plus the real benchmark output listed in
# fuzz/corpus/fixtures.txt, so that a run never grows the committed corpus.
# Fails on the first crash, timeout or out-of-memory; libFuzzer keeps the
# input in fuzz/artifacts/TARGET/ and cargo-fuzz prints how to replay it.
#
#   bash fuzz/ci.sh [SECONDS]
#
# Needs cargo-fuzz (`cargo install --locked cargo-fuzz`); runs on the stable
# toolchain through RUSTC_BOOTSTRAP, without a sanitizer, in the dev profile
# (so overflow checks and debug assertions are on).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-30}
fixtures=../shared/fixtures
export RUSTC_BOOTSTRAP=1

if [ ! -d "$fixtures" ]; then
  if [ -n "${REPORT_REQUIRE_TOOLS:-}" ]; then
    echo "fuzz: $fixtures is required (REPORT_REQUIRE_TOOLS is set)" >&2
    exit 1
  fi
  echo "fuzz: $fixtures is absent: fuzzing on the committed corpus only" >&2
fi

cargo fuzz build --dev --sanitizer none

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for target in $(cargo fuzz list); do
  corpus="$work/$target"
  mkdir -p "$corpus"
  cp fuzz/corpus/"$target"/* "$corpus"/
  if [ -d "$fixtures" ]; then
    while read -r name path; do
      case "$name" in '' | '#'*) continue ;; esac
      [ "$name" = "$target" ] || continue
      cp "$fixtures/$path" "$corpus/fixture-${path//\//_}"
    done <fuzz/corpus/fixtures.txt
  fi
  echo "fuzz: $target for ${seconds}s on $(ls "$corpus" | wc -l) seed inputs"
  log="$work/$target.log"
  if ! cargo fuzz run --dev --sanitizer none "$target" "$corpus" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 >"$log" 2>&1; then
    tail -n 120 "$log"
    echo "fuzz: $target FAILED (input kept in fuzz/artifacts/$target/)" >&2
    exit 1
  fi
  grep -E '^Done [0-9]+ runs|stat::number_of_executed_units|stat::new_units_added' "$log" || tail -n 5 "$log"
done
