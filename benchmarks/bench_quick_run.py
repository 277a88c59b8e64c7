"""Time of README's first command: the quick ``python -m verify``.

Run ``python benchmarks/bench_quick_run.py [--top 10] [--keep DIR] [-- verify arguments, default --workers auto]``.  It runs
``python -m verify`` (quick mode, seed 0, entry-point plugins loaded, as README's first command does) with its
reports written under a temporary folder (never over ``reports/``), and prints

* the machine: CPU model (``/proc/cpuinfo``), ``nproc``, the load average at the start and at the end;
* the run's exit status, its wall-clock time and the CPU time of the run and all its children;
* the ``--top`` slowest claims with their seconds (each claim's ``seconds`` field of the JSON report: the claim's
  own time, certificate re-checks included) and status, and the sum of all claims' seconds.

It asserts nothing about time: on a loaded machine the wall-clock time grows (the CPU time much less), so a time
is quoted together with the machine and load printed next to it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def cpu_model() -> str:
    """The CPU model name of ``/proc/cpuinfo`` (``platform.processor()`` where there is none)."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def load_average() -> tuple[float, float, float]:
    """The 1-, 5- and 15-minute load averages (NaN where the platform has none)."""
    return os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3


def machine() -> str:
    """The machine in words: platform, CPU model, usable cores (``nproc``), Python."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (f"{platform.system()} {platform.machine()}, {cpu_model()}, nproc {cores}, Python "
            f"{platform.python_version()}")


def run_quick(out_dir: Path, extra: list[str]) -> tuple[int, float, float, Path]:
    """Run the quick ``python -m verify`` with reports in ``out_dir``: exit status, wall seconds, CPU seconds (user +
    system of the run and every child it waited for) and the JSON report's path.  Its console output goes to
    ``out_dir/console.txt``."""
    report = out_dir / "verify.json"
    cmd = [sys.executable, "-m", "verify", "--json", str(report), "--markdown", str(out_dir / "verify.md"), *extra]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(out_dir / "console.txt", "w", encoding="utf-8") as console:
        rc = subprocess.call(cmd, cwd=ROOT, stdout=console, stderr=subprocess.STDOUT,
                             env={**os.environ, "COLUMNS": os.environ.get("COLUMNS", "100")})
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return rc, wall, cpu, report


def slowest(report: Path, top: int) -> tuple[list[dict[str, Any]], float, int]:
    """The ``top`` claims of the JSON report with the largest ``seconds``, the sum of all claims' seconds, and the
    number of claims."""
    claims = json.loads(report.read_text(encoding="utf-8"))["claims"]
    ranked = sorted(claims, key=lambda r: -float(r["seconds"]))
    return ranked[:top], sum(float(r["seconds"]) for r in claims), len(claims)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--top", type=int, default=10, help="how many of the slowest claims to list (default 10)")
    ap.add_argument("--keep", type=Path, default=None, help="write the reports and console output here (default: a "
                                                              "temporary folder, removed afterwards)")
    ap.add_argument("extra", nargs=argparse.REMAINDER, help="arguments passed on to python -m verify (after --)")
    args = ap.parse_args(argv)
    # README's first command runs the suite on every core (``--workers auto``); extra arguments replace that default
    extra = [a for a in args.extra if a != "--"] or ["--workers", "auto"]
    load0 = load_average()
    print(f"machine: {machine()}")
    print(f"load average at the start: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f} (1, 5, 15 min)")
    print(f"command: python -m verify {' '.join(extra)} (quick mode unless --full is passed on; reports in a "
          f"{'kept' if args.keep else 'temporary'} folder)".replace("  ", " "))
    print(f"FAIRTHEORY_SHIPPED={os.environ.get('FAIRTHEORY_SHIPPED') or 'unset'} (unset: quick claims re-check the "
          "certificates shipped with the package instead of searching, fairtheory.proofs.shipped; 'search': they search)")
    with tempfile.TemporaryDirectory(prefix="bench_quick_run.") as tmp:
        out_dir = args.keep or Path(tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        rc, wall, cpu, report = run_quick(out_dir, extra)
        load1 = load_average()
        print(f"load average at the end: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
        print(f"exit status {rc}; wall {wall:.1f} s; CPU {cpu:.1f} s (the run and its child processes)")
        if not report.is_file():
            print(f"no JSON report was written ({report}); the console output:")
            print((out_dir / "console.txt").read_text(encoding="utf-8")[-3000:])
            return 1
        rows, total, n = slowest(report, args.top)
        print(f"{n} claims; the claims' own seconds sum to {total:.1f} s; the {len(rows)} slowest:")
        width = max((len(r["id"]) for r in rows), default=2)
        for r in rows:
            print(f"  {float(r['seconds']):8.1f} s  {r['id']:<{width}}  {r['status']}")
        print("the run's last console lines:")
        for line in (out_dir / "console.txt").read_text(encoding="utf-8").rstrip().splitlines()[-3:]:
            print(f"  | {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
