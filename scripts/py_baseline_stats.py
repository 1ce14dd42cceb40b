#!/usr/bin/env python3
"""Runs ../shared/tools/py_baseline.py unchanged (same arguments) and prints its JSON with two
figures it does not report: query p95 and the process's peak resident memory. It executes the
script with runpy and reads the latencies it leaves in `lat`.

usage: py_baseline_stats.py PY_BASELINE MODEL_DIR CORPUS_DIR QA.jsonl [--threads N]
"""
import contextlib
import io
import json
import runpy
import sys


def peak_rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return None


def main():
    script = sys.argv[1]
    sys.argv = [script] + sys.argv[2:]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        scope = runpy.run_path(script, run_name="__main__")
    report = json.loads(out.getvalue().strip().splitlines()[-1])
    lat = sorted(scope["lat"])
    report["query_ms_p95"] = round(lat[min(len(lat) - 1, int(0.95 * len(lat)))], 2)
    report["peak_rss_mb"] = round(peak_rss_mb(), 1)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
