"""Speed of the traced PEP backend against the hand-written PEPs, side by side in one process.

Run ``python benchmarks/bench_traced.py [--repeat 9] [--markdown PATH]``.  For each setting (Gram dimension
>= 30) the traced worst case (:func:`fairtheory.worstcase.worst_case` on the algorithm's own ``make``: trace,
assembly, Clarabel) and the hand-written one (:func:`fairtheory.worstcase.local_gd_worst_case` /
:func:`fairtheory.worstcase.scaffold.scaffold_worst_case`: build, assembly, Clarabel) are each run once untimed,
then interleaved ``--repeat`` times; the table gives the medians of the wall-clock totals, of the traced
backend's tracing alone (running ``init``/``step`` on symbolic arrays and forming the objective) and of Clarabel's
solve (with its iteration counts: the two SDPs are the same problem up to rounding, but Clarabel's path may
differ), the overhead ``traced total / hand-written total - 1`` (the goal: below 20 %) and the tracing time as a
share of the hand-written solve.  The two values are
printed too (they agree to the solver's accuracy).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from fairtheory.algorithms import fedavg, scaffold
from fairtheory.worstcase import local_gd_worst_case, worst_case
from fairtheory.worstcase.scaffold import scaffold_worst_case


def settings() -> list[tuple[str, Callable[[], Any], Callable[[], Any]]]:
    out = []
    for n, kappa, T in ((2, 3, 5), (3, 2, 6)):
        cls = {"n": n, "L": 1.0, "D0": 1.0, "rho2": 1.0}
        out.append((f"FedAvg n={n} kappa={kappa} T={T}",
                    lambda n=n, kappa=kappa, T=T, cls=cls: worst_case(fedavg.make, T, lr=0.5, kappa=kappa, **cls),
                    lambda n=n, kappa=kappa, T=T: local_gd_worst_case(n=n, kappa=kappa, T_N=T - 1, lr=0.5, L=1.0,
                                                                      D0=1.0, rho2=1.0, output="last",
                                                                      schedule="fedavg")))
    for n, kappa, R in ((2, 3, 5), (3, 2, 5)):
        cls = {"n": n, "L": 1.0, "D0": 1.0, "rho2": 1.0}
        out.append((f"Scaffold n={n} kappa={kappa} R={R}",
                    lambda n=n, kappa=kappa, R=R, cls=cls: worst_case(scaffold.make, R, kappa=kappa, lr=0.5,
                                                                      start={"warm_start": True}, **cls),
                    lambda n=n, kappa=kappa, R=R: scaffold_worst_case(n=n, kappa=kappa, R=R, lr=0.5, L=1.0, D0=1.0,
                                                                      rho2=1.0)))
    return out


def bench(repeat: int) -> list[dict[str, Any]]:
    rows = []
    for name, traced, hand in settings():
        a, b = traced(), hand()  # warm-up (and the values)
        tt, th, trace, solve_t, solve_h = [], [], [], [], []
        for _ in range(repeat):
            t0 = time.perf_counter()
            r = traced()
            tt.append(time.perf_counter() - t0)
            trace.append(r.extra["trace_seconds"])
            solve_t.append(r.seconds)
            t0 = time.perf_counter()
            h = hand()
            th.append(time.perf_counter() - t0)
            solve_h.append(h.seconds)
        med = statistics.median
        rows.append({"setting": name, "gram": a.dim, "gram_hand": b.dim, "traced_s": med(tt), "hand_s": med(th),
                     "trace_s": med(trace), "solve_traced_s": med(solve_t), "solve_hand_s": med(solve_h),
                     "overhead": med(tt) / med(th) - 1.0, "trace_share": med(trace) / med(solve_h),
                     "iters": (a.extra["iterations"], b.extra["iterations"]), "value_traced": a.value, "value_hand": b.value})
    return rows


def markdown(rows: list[dict[str, Any]], repeat: int) -> str:
    lines = [f"Traced vs hand-written PEP (medians of {repeat} interleaved runs, wall clock)", "",
             "| setting | Gram | traced total [s] | hand-written total [s] | overhead | tracing [s] | tracing / hand "
             "solve | Clarabel traced / hand [s] (iterations) | value traced | value hand |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['setting']} | {r['gram']} ({r['gram_hand']}) | {r['traced_s']:.4f} | {r['hand_s']:.4f} | "
                     f"{100 * r['overhead']:+.1f} % | {r['trace_s']:.4f} | {100 * r['trace_share']:.2f} % | "
                     f"{r['solve_traced_s']:.4f} / {r['solve_hand_s']:.4f} ({r['iters'][0]} / {r['iters'][1]}) | "
                     f"{r['value_traced']:.9g} | {r['value_hand']:.9g} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--markdown", default=None)
    args = ap.parse_args(argv)
    text = markdown(bench(args.repeat), args.repeat)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    print(text)  # noqa: T201 - a script's output
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
