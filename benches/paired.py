#!/usr/bin/env python3
"""Time two commands in turn, A B A B ..., and print the median of each and the
median of the ratios A/B taken pair by pair. On a machine whose speed drifts
(a shared or virtual one), runs of A followed by runs of B compare two
different machines; pairs taken one right after the other do not.

    benches/paired.py RUNS 'COMMAND A' 'COMMAND B'

Each command is split as a shell splits words and run without a shell, its
output thrown away; one warm-up run of each is not counted. A command that
fails stops the comparison.
"""

import shlex
import statistics
import subprocess
import sys
import time


def timed(command):
    """Wall seconds of one run of `command` (a list of words)."""
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: benches/paired.py RUNS 'COMMAND A' 'COMMAND B'")
    runs, a, b = int(sys.argv[1]), shlex.split(sys.argv[2]), shlex.split(sys.argv[3])
    timed(a)
    timed(b)
    pairs = [(timed(a), timed(b)) for _ in range(runs)]
    ratios = [x / y for x, y in pairs]
    median_a = statistics.median(x for x, _ in pairs)
    median_b = statistics.median(y for _, y in pairs)
    print(
        f"median: A {median_a * 1000:.0f} ms, B {median_b * 1000:.0f} ms; "
        f"A/B pair by pair: median {statistics.median(ratios):.2f} "
        f"({min(ratios):.2f} to {max(ratios):.2f}, {runs} pairs)"
    )


if __name__ == "__main__":
    main()
