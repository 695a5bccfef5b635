#!/bin/sh
# Interleaved: each round times every version once, so that the machine's
# drift over time falls on every version alike.
echo "version,release,round,time_s,python" > /tmp/tv/runs.csv
seq=0
for round in $(seq 1 15); do
  seq=0
  for v in 1.2.3 2.0.0 2.0.1 2.0.2 2.1.0 2.2.1 2.3.0 2.4.0 2.4.1 2.5.0; do
    seq=$((seq+1))
    hyperfine -N --runs 1 --export-json /tmp/tv/one.json "python3 /tmp/tv/bench.py $v" >/dev/null 2>&1
    t=$(python3 -c "import json; print(json.load(open('/tmp/tv/one.json'))['results'][0]['times'][0])")
    echo "$v,$seq,$round,$t,$(python3 -c 'import platform; print(platform.python_version())')" >> /tmp/tv/runs.csv
  done
done
