"""The independent reading of each harness's output for tests/import_tools.rs.

`python3 import_tools_oracle.py FORMAT PATH` prints, as JSON, the rows that
`report import FORMAT PATH` must write: a list of {column: value}, numbers
as floats, in file order. It reads each format with the standard library
alone, from the tool's documentation, not from report's code.
"""
import glob
import json
import os
import sys

UNITS = {"ns": 1e9, "us": 1e6, "ms": 1e3, "s": 1.0}


def hyperfine(path):
    rows = []
    for r in json.load(open(path))["results"]:
        for i, t in enumerate(r["times"]):
            row = {"command": r["command"], "time_s": t, "run_in_file": i + 1}
            row["exit_code"] = r["exit_codes"][i]
            for k, v in r.get("parameters", {}).items():
                row[k] = v
            if not isinstance(r.get("user"), list):
                row["mean_user_s"] = r["user"]
                row["mean_system_s"] = r["system"]
            rows.append(row)
    return rows


GBENCH_FIELDS = {"name", "run_name", "run_type", "family_index", "per_family_instance_index",
                 "threads", "repetitions", "repetition_index", "iterations", "real_time",
                 "cpu_time", "time_unit", "aggregate_name", "aggregate_unit",
                 "error_occurred", "error_message", "label"}


def gbench(path):
    doc = json.load(open(path))
    rows = []
    for b in doc["benchmarks"]:
        if b["run_type"] != "iteration" or b.get("error_occurred"):
            continue
        unit = UNITS[b["time_unit"]]
        row = {"benchmark": b["run_name"], "threads": b["threads"], "iterations": b["iterations"],
               "repetition_index": b["repetition_index"], "real_time_s": b["real_time"] / unit,
               "cpu_time_s": b["cpu_time"] / unit, "host_name": doc["context"]["host_name"],
               "num_cpus": doc["context"]["num_cpus"], "run_in_file": b["repetition_index"] + 1}
        for k, v in b.items():
            if k not in GBENCH_FIELDS:
                row[k] = v
        rows.append(row)
    return rows


def pytest_benchmark(path):
    doc = json.load(open(path))
    rows = []
    for b in doc["benchmarks"]:
        for i, t in enumerate(b["stats"]["data"]):
            row = {"fullname": b["fullname"], "time_s": t, "iterations": b["stats"]["iterations"],
                   "host_name": doc["machine_info"]["node"],
                   "cpu_count": doc["machine_info"]["cpu"]["count"], "run_in_file": i + 1}
            for k, v in (b.get("params") or {}).items():
                row["param_" + k] = v
            for k, v in (b.get("extra_info") or {}).items():
                row["extra_" + k] = v
            rows.append(row)
    return rows


def reframe(path):
    rows = []
    for log in sorted(glob.glob(os.path.join(path, "**", "*.log"), recursive=True)):
        lines = [l for l in open(log).read().splitlines() if l.strip()]
        names = lines[0].split("|")
        for line in lines[1:]:
            fields = dict(zip(names, line.split("|")))
            row = {"name": fields["name"], "system": fields["system"], "result": fields["result"]}
            for n in names:
                if n.endswith("_value"):
                    var, unit = n[:-6], fields[n[:-6] + "_unit"]
                    if unit in UNITS:
                        row[var + "_s"] = float(fields[n]) / UNITS[unit]
                    else:
                        row[var] = float(fields[n])
                    row[var + "_unit"] = unit
            rows.append(row)
    return rows


def criterion(path):
    rows = []
    for sample in sorted(glob.glob(os.path.join(path, "**", "new", "sample.json"), recursive=True)):
        doc = json.load(open(sample))
        bench = json.load(open(os.path.join(os.path.dirname(sample), "benchmark.json")))
        for i, (n, t) in enumerate(zip(doc["iters"], doc["times"])):
            rows.append({"benchmark": bench["full_id"], "iterations": n, "sample_time_s": t / 1e9,
                         "time_s": t / n / 1e9, "run_in_file": i + 1})
    return rows


if __name__ == "__main__":
    fmt, path = sys.argv[1], sys.argv[2]
    print(json.dumps(globals()[fmt.replace("-", "_")](path)))
