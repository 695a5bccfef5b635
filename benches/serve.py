#!/usr/bin/env python3
"""Edit to page served with `report serve`, as a whole process.

Copies the shipped study, starts `report serve --port 0` on it, then EDITS
times appends a marker line to content/index.md and polls the page until the
marker is served. Prints the median, minimum and maximum time from the write
to the served page, the rebuilds per edit (must be 1), and the CPU the server
used in the 5 s after the last edit (it must rest).

    benches/serve.py [REPORT_BINARY] [EDITS]   # default target/release/report, 20
"""

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(repo, "target/release/report")
edits = int(sys.argv[2]) if len(sys.argv) > 2 else 20


def get(address, path):
    with urllib.request.urlopen(f"http://{address}{path}", timeout=5) as response:
        return response.read().decode("utf-8", "replace")


def version(address):
    return json.loads(get(address, "/__report/status"))["version"]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    work = tempfile.mkdtemp()
    try:
        study = os.path.join(work, "study")
        os.mkdir(study)
        for name in ["book.toml", "content", "results", "templates"]:
            source = os.path.join(repo, name)
            if os.path.isdir(source):
                shutil.copytree(source, os.path.join(study, name))
            elif os.path.exists(source):
                shutil.copy(source, study)
        env = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")
        server = subprocess.Popen(
            [binary, "serve", "--port", "0", "--root", study],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, env=env, text=True)
        try:
            run(server, study)
        finally:
            server.kill()
            server.wait()
    finally:
        shutil.rmtree(work)


def run(server, study):
    address = None
    for line in server.stderr:
        found = re.match(r"serving http://([^/]+)/", line)
        if found:
            address = found.group(1)
            break
    if address is None:
        sys.exit("serve exited before it listened")
    time.sleep(2)  # the first paper is typeset in the background
    page = os.path.join(study, "content", "index.md")
    times, rebuilds = [], []
    for i in range(edits):
        before = version(address)
        marker = f"Edit marker {i} of the serve benchmark."
        start = time.perf_counter()
        with open(page, "a") as f:
            f.write(f"\n{marker}\n")
        while marker not in get(address, "/"):
            time.sleep(0.002)
        times.append(time.perf_counter() - start)
        time.sleep(0.5)
        rebuilds.append(version(address) - before)
    time.sleep(2)
    cpu = cpu_seconds(server.pid)
    time.sleep(5)
    idle = cpu_seconds(server.pid) - cpu
    ms = [t * 1000 for t in times]
    print(f"edit to page served, {edits} edits: median {statistics.median(ms):.0f} ms, "
          f"min {min(ms):.0f} ms, max {max(ms):.0f} ms")
    print(f"rebuilds per edit: {sorted(set(rebuilds))}")
    print(f"CPU in the 5 s after the last edit settled: {idle * 1000:.0f} ms")
    if set(rebuilds) != {1}:
        sys.exit("an edit did not give exactly one rebuild")


if __name__ == "__main__":
    main()
