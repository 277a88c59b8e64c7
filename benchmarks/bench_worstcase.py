"""Size and solve time of the worst-case (PEP) SDPs of local GD with averaging, in one table.

For the 002 output of 002 Algorithm 1 (full participation, ``beta = 1/(40 L)``, ``D0 = rho2 = 1``) the
table lists, against ``n`` (clients), ``kappa`` and ``T_N``: the Gram dimension, the number of scalar
constraints (interpolation conditions and the two initial conditions), assembly and Clarabel solve
times, status, duality gap and the worst case.  With ``--pepit`` (needs the optional ``pepit`` package) the
same PEPs (Gram size <= 40) are also built with PEPit and solved through its cvxpy wrapper with Clarabel,
side by side (value agreement to 1e-5 asserted), to show what the sparse assembly buys.

Run: ``python benchmarks/bench_worstcase.py [--quick] [--pepit]``.
"""

from __future__ import annotations

import argparse
import platform
import time
from typing import Any

import numpy as np

from fairtheory.worstcase import local_gd_worst_case

BETA = 1.0 / 40.0
PEPIT_MAX_GRAM = 40  # PEPit's dense cvxpy assembly takes minutes beyond this


def ours(n: int, kappa: int, T_N: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    r = local_gd_worst_case(n=n, kappa=kappa, T_N=T_N, beta=BETA, L=1.0, D0=1.0, rho2=1.0, output="002")
    wall = time.perf_counter() - t0
    return {"n": n, "kappa": kappa, "T_N": T_N, "gram": r.dim, "constraints": r.n_constraints,
            "build_s": r.build_seconds, "solve_s": r.seconds, "wall_s": wall, "status": r.status,
            "gap": r.gap, "value": r.value}


def pepit_value(n: int, kappa: int, T_N: int) -> tuple[float, float]:
    """The same PEP in PEPit (cvxpy wrapper, Clarabel): (value, wall seconds)."""
    import cvxpy as cp
    from PEPit import PEP
    from PEPit.functions import SmoothConvexFunction

    t0 = time.perf_counter()
    pb = PEP()
    fs = [pb.declare_function(SmoothConvexFunction, L=1.0) for _ in range(n)]
    p = np.full(n, 1.0 / n)
    F = fs[0] * p[0]
    for i in range(1, n):
        F = F + fs[i] * p[i]
    xs = F.stationary_point()
    Fs = F(xs)
    x0 = pb.set_initial_point()
    pb.set_initial_condition((x0 - xs) ** 2 <= 1.0 / 2.0)
    rho = p[0] * fs[0].gradient(xs) ** 2
    for i in range(1, n):
        rho = rho + p[i] * fs[i].gradient(xs) ** 2
    pb.set_initial_condition(rho <= 1.0 / 2.0)
    servers = []
    theta = x0
    for r in range(T_N + 1):
        Y = [theta] * n
        for _ in range(1 if r == 0 else kappa):
            Y = [Y[i] - BETA * fs[i].gradient(Y[i]) for i in range(n)]
        theta = Y[0] * p[0]
        for i in range(1, n):
            theta = theta + Y[i] * p[i]
        servers.append(theta)
    out = servers[0]
    for s in servers[1:]:
        out = out + s
    out = out / len(servers)
    pb.set_performance_metric(F(out) - Fs)
    tau = pb.solve(wrapper="cvxpy", solver=cp.CLARABEL, verbose=0)
    return 2.0 * float(tau), time.perf_counter() - t0  # our unit: D0 + rho2 = 2 scaled to 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes only")
    ap.add_argument("--pepit", action="store_true", help="also time PEPit's cvxpy wrapper (optional package)")
    args = ap.parse_args()
    if args.quick:
        grid = [(2, 1, 3), (2, 2, 2), (2, 3, 3), (3, 2, 2), (2, 5, 2)]
    else:
        grid = [(2, 1, 3), (2, 1, 10), (2, 2, 2), (2, 2, 6), (2, 3, 3), (2, 5, 2), (2, 5, 4), (2, 5, 6),
                (2, 10, 3), (3, 2, 2), (3, 3, 3), (4, 2, 2)]
    print(f"# bench_worstcase  python {platform.python_version()}  {platform.machine()}  beta L = 1/40, D0 = rho2 = 1")
    head = "| n | kappa | T_N | Gram dim | constraints | build s | solve s | wall s | status | gap | worst case |"
    if args.pepit:
        head += " PEPit wall s | PEPit value |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for n, kappa, T_N in grid:
        r = ours(n, kappa, T_N)
        line = (f"| {n} | {kappa} | {T_N} | {r['gram']} | {r['constraints']} | {r['build_s']:.3f} | {r['solve_s']:.3f} | "
                f"{r['wall_s']:.3f} | {r['status']} | {r['gap']:.1e} | {r['value']:.6g} |")
        if args.pepit and r["gram"] > PEPIT_MAX_GRAM:
            line += " - | - |"
        elif args.pepit:
            v, w = pepit_value(n, kappa, T_N)
            assert abs(v - r["value"]) <= 1e-5 * max(1.0, abs(v)), (v, r["value"])
            line += f" {w:.3f} | {v:.6g} |"
        print(line, flush=True)


if __name__ == "__main__":
    main()
