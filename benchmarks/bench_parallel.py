"""Parallel verification: ``python -m verify --workers N`` against a serial run, side by side.

Runs the same selection (default ``--only 'rcfl.*' --only 'qffl.*'``) serially and with ``--workers N``
in alternating order, ``--trials`` times each, asserts that the JSON reports agree (statuses and
measured values), and prints the median wall times and their ratio.  Usage::

    python benchmarks/bench_parallel.py [--workers 2] [--trials 3] [--full] [--executor process|ray]

Exit status 1 if the reports differ.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KEYS = ("id", "status", "measured", "bound", "margin", "tightness", "instances", "error")


def run(args: list[str], out: Path) -> tuple[float, dict]:
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "verify", *args, "--json", str(out), "--no-markdown"], cwd=REPO,
                         capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(REPO)))
    wall = time.perf_counter() - t0
    if res.returncode not in (0, 1):
        raise SystemExit(f"verify failed ({res.returncode}):\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}")
    return wall, json.loads(out.read_text())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", default="2")
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--executor", default="process", choices=("process", "ray"))
    ap.add_argument("--only", action="append", default=None)
    a = ap.parse_args()
    only = a.only or ["rcfl.*", "qffl.*"]
    sel = [x for p in only for x in ("--only", p)] + (["--full"] if a.full else [])
    walls: dict[str, list[float]] = {"serial": [], "parallel": []}
    reports: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for t in range(a.trials):
            order = ("serial", "parallel") if t % 2 == 0 else ("parallel", "serial")
            for kind in order:
                extra = [] if kind == "serial" else ["--workers", a.workers, "--executor", a.executor]
                wall, doc = run(sel + extra, Path(tmp) / f"{kind}.json")
                walls[kind].append(wall)
                reports[kind] = doc
    same = [[r[k] for k in KEYS] for r in reports["serial"]["claims"]] == \
           [[r[k] for k in KEYS] for r in reports["parallel"]["claims"]]
    ms, mp = statistics.median(walls["serial"]), statistics.median(walls["parallel"])
    print(f"selection {' '.join(sel)}; {len(reports['serial']['claims'])} claims; {a.trials} trials each, alternating")
    print(f"serial        median {ms:7.2f} s   {' '.join(f'{w:.2f}' for w in walls['serial'])}")
    print(f"--workers {a.workers:<3} median {mp:7.2f} s   {' '.join(f'{w:.2f}' for w in walls['parallel'])}  ({a.executor})")
    print(f"speed-up (serial / parallel, medians, wall time including start-up): {ms / mp:.2f}x")
    print(f"reports identical (statuses and measured values): {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
