"""Time of README's property-audit example (``fairtheory.testing.audit`` on the ``SmoothMax`` aggregator).

Run ``python benchmarks/bench_audit.py [--repeat 3] [--readme README.md]``.  The example is read from README (the
Python block that calls ``audit(``) and run as it stands, ``--repeat`` times in this process (the first run includes
the imports it triggers: reported apart); the output names the machine, its load and the library versions, so that
README can quote the time with the machine it was measured on.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import re
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_example(readme: Path) -> str:
    """The Python block of ``readme`` that runs the audit (the first ```` ```python ```` block calling ``audit(``)."""
    blocks = re.findall(r"```python\n(.*?)```", readme.read_text(encoding="utf-8"), flags=re.S)
    found = [b for b in blocks if "audit(" in b and "fairtheory.testing" in b]
    if not found:
        raise SystemExit(f"no Python block calling fairtheory.testing.audit in {readme}")
    return found[0]


def machine() -> str:
    """The machine in words: platform, CPUs, load average, Python and Hypothesis versions."""
    import hypothesis

    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return (f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, load average {load[0]:.2f} "
            f"(1 min) at the start; Python {platform.python_version()}, hypothesis {hypothesis.__version__}")


def run_once(code: str) -> tuple[float, float, str]:
    """Wall-clock and CPU seconds (this process) to run ``code`` in a fresh namespace, and what it printed.  On a
    loaded machine the wall-clock time grows, the CPU time much less."""
    out = io.StringIO()
    t0, c0 = time.perf_counter(), time.process_time()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md (audit example)", "exec"), {"__name__": "__readme__"})  # noqa: S102
    return time.perf_counter() - t0, time.process_time() - c0, out.getvalue()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs after the first (default 3)")
    ap.add_argument("--readme", type=Path, default=ROOT / "README.md")
    args = ap.parse_args()
    code = readme_example(args.readme)
    print(f"machine: {machine()}")
    first, first_cpu, printed = run_once(code)
    runs = [run_once(code)[:2] for _ in range(max(1, args.repeat))]
    wall, cpu = [w for w, _ in runs], [c for _, c in runs]
    print(f"README audit example: first run {first:.2f} s wall, {first_cpu:.2f} s CPU (with imports); then best "
          f"{min(wall):.2f} s wall, median {statistics.median(wall):.2f} s wall, median {statistics.median(cpu):.2f} s "
          f"CPU over {len(runs)} runs")
    print("it printed:")
    print(printed.rstrip())


if __name__ == "__main__":
    main()
