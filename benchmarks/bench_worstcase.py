"""Size and solve time of the worst-case (PEP) SDPs of local GD with averaging, in one table.

For the 002 output of 002 Algorithm 1 (full participation, ``beta = 1/(40 L)``, ``D0 = rho2 = 1``) the
table lists, against ``n`` (clients), ``kappa`` and ``T_N``: the Gram dimension, the number of scalar
constraints (interpolation conditions and the two initial conditions), assembly and Clarabel solve
times, status, duality gap and the worst case.  With ``--pepit`` (needs the optional ``pepit`` package) the
same PEPs (Gram size <= 40) are also built with PEPit and solved through its cvxpy wrapper with Clarabel,
side by side (value agreement to 1e-5 asserted), to show what the sparse assembly buys.

With ``--scale`` it instead times large PEPs, dense :meth:`PEP.solve` against
:func:`fairtheory.worstcase.sparse_solve.solve_sparse` (basis of iterates, chordal cone, constraint generation),
side by side in one run: gradient descent with ``N = dim - 2`` steps at Gram dimension 40-100 (120 with
``--big``; closed form ``1/(4N+2)``, Drori & Teboulle 2014) and local GD (002 Alg. 1, ``n = 2``, ``kappa = 2``,
``beta = 1/4``, output ``"last"``) of similar size.  The dense solve is skipped when
:func:`fairtheory.worstcase.solvers.estimated_seconds` exceeds ``--dense-max`` (300 s), the sparse one for local
GD beyond ``--lgd-max-dim``.

With ``--multi`` it times identical clients (local GD, ``T_N = 1``, ``beta kappa L = 1/8``, ``L = D0 = 1``, up to
issue 41's Gram dimension 100 at ``n = 2``, ``kappa = 47``, ``rho2 = 1`` and ``1/2``; ``--gram200`` adds Gram 200,
``kappa = 97``, ``rho2 = 1/2``; ``--targets``: only those two, Gram 100 at ``rho2 = 1/2`` and Gram 200): the symmetric
reduction (:mod:`fairtheory.worstcase.symmetric`, what ``local_gd_worst_case`` takes for equal weights; "sym solver":
Clarabel, or from blocks of 20 on the dual by cvxopt's Schur-complement method; "sym solves": the route's solves and
brackets, ``extra["symmetric_solves"]``) against the dense full solve, CPU
(``time.process_time``, the minimum of ``--repeat`` runs, the routes interleaved) and wall seconds, the route, values
and whether each is certified (every run of a case must take the same route to the same status: asserted); the dense
solve is skipped beyond ``--dense-max``.

Run: ``python benchmarks/bench_worstcase.py [--quick] [--pepit]`` or ``python benchmarks/bench_worstcase.py --scale``
or ``python benchmarks/bench_worstcase.py --multi``.
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
    r = local_gd_worst_case(n=n, kappa=kappa, T_N=T_N, lr=BETA, L=1.0, D0=1.0, rho2=1.0, output="average")
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


def _gd_pep(N: int) -> Any:
    from fairtheory.worstcase.sdp import PEP, Scalar, Vec, sqnorm

    pep = PEP()
    f = pep.function(1.0, "f")
    f.add_point(Vec(np.zeros(0)), Vec(np.zeros(0)), Scalar())
    x0 = pep.vector()
    x = x0
    for _ in range(N):
        x = x - f.grad(x)
    pep.add_le(sqnorm(x0) - 1.0)
    pep.maximize(f.value(x))
    return pep


def _lgd_pep(T_N: int) -> Any:
    from fairtheory.worstcase.local_gd import build_local_gd, rho2_expr
    from fairtheory.worstcase.sdp import sqnorm

    p = np.full(2, 0.5)
    b = build_local_gd(n=2, p=p, lr=0.25, kappa=2, T_N=T_N, output="last")
    b.pep.add_le(sqnorm(b.x0) - 0.5)
    b.pep.add_le(rho2_expr(b, p) - 0.5)
    b.pep.maximize(b.objective)
    return b.pep


def scale_rows(dims: list[int], lgd_T: list[int], dense_max: float, lgd_max_dim: int) -> None:
    """The ``--scale`` table (module doc)."""
    import os

    from fairtheory.worstcase.solvers import estimated_seconds
    from fairtheory.worstcase.sparse_solve import solve_sparse

    print(f"# bench_worstcase --scale  python {platform.python_version()}  {platform.machine()}  "
          f"cpus {os.cpu_count()}  load {os.getloadavg()[0]:.2f} (1-min average at start)")
    head = ("| PEP | Gram dim | rows total | dense est. s | dense wall s | dense value | sparse wall s | sparse Clarabel s | "
            "rounds | rows kept | Gram entries | sparse value | closed form | sparse vs closed | sparse vs dense | load |")
    print(head)
    print("|" + "---|" * (head.count("|") - 1), flush=True)
    cases = [(f"GD N={d - 2}", lambda d=d: _gd_pep(d - 2), 1.0 / (4 * (d - 2) + 2)) for d in dims]
    cases += [(f"local GD n=2 kappa=2 T_N={t}", lambda t=t: _lgd_pep(t), None) for t in lgd_T]
    for name, mk, closed in cases:
        pep = mk()
        dim = pep.dim
        rows = sum(len(f.points) * (len(f.points) - 1) for f in pep.functions) + len(pep._ineq)
        est = estimated_seconds(dim, rows)
        sv = sw = sc = dv = dw = float("nan")
        rounds = kept = ent = "-"
        if name.startswith("local") and dim > lgd_max_dim:
            pass
        else:
            t0 = time.perf_counter()
            s = solve_sparse(pep)
            sw, sc, sv = time.perf_counter() - t0, s.seconds, s.value
            rounds, kept, ent = str(s.rounds), str(s.rows_kept), f"{s.pattern_entries}/{dim * (dim + 1) // 2}"
        if est <= dense_max:
            t0 = time.perf_counter()
            d = mk().solve(method="dense")
            dw, dv = time.perf_counter() - t0, d.value
        fmt = lambda x, f: "-" if x != x else format(x, f)  # noqa: E731
        rc = abs(sv - closed) / closed if closed is not None and sv == sv else float("nan")
        rd = abs(sv - dv) / abs(dv) if sv == sv and dv == dv else float("nan")
        print(f"| {name} | {dim} | {rows} | {est:.0f} | {fmt(dw, '.2f') if dw == dw else 'skipped (est.)'} | "
              f"{fmt(dv, '.10g')} | {fmt(sw, '.2f')} | {fmt(sc, '.3f')} | {rounds} | {kept} | {ent} | {fmt(sv, '.10g')} | "
              f"{'-' if closed is None else format(closed, '.10g')} | {fmt(rc, '.1e')} | {fmt(rd, '.1e')} | "
              f"{os.getloadavg()[0]:.2f} |", flush=True)


def _lgd_timed(n: int, kappa: int, beta: float, symmetric: bool, rho2: float = 1.0) -> dict[str, Any]:
    """``local_gd_worst_case`` (002 output, ``T_N = 1``, ``L = D0 = 1``) timed in CPU (``time.process_time``)
    and wall seconds; ``symmetric=False`` switches the symmetric reduction off (the dense full solve)."""
    from unittest import mock

    from fairtheory.worstcase import limits
    from fairtheory.worstcase import local_gd as lg

    kw = {"n": n, "kappa": kappa, "T_N": 1, "lr": beta, "L": 1.0, "D0": 1.0, "rho2": rho2}
    c0, w0 = time.process_time(), time.perf_counter()
    with mock.patch.object(limits, "MAX_SOLVE_SECONDS", float("inf")):
        r = lg.local_gd_worst_case(**kw, symmetric=symmetric)
    return {"cpu": time.process_time() - c0, "wall": time.perf_counter() - w0, "r": r}


def multi_rows(cases: list[tuple[int, int, float]], dense_max: float, repeat: int = 3) -> None:
    """The ``--multi`` table: identical clients, the symmetric reduction (fairtheory.worstcase.symmetric) against the
    dense full solve (run where :func:`fairtheory.worstcase.solvers.estimated_seconds` <= ``dense_max``), each CPU
    time the minimum of ``repeat`` runs, the two routes interleaved."""
    import os

    from fairtheory.worstcase.local_gd import estimate_size
    from fairtheory.worstcase.solvers import estimated_seconds

    print(f"# bench_worstcase --multi  python {platform.python_version()}  {platform.machine()}  cpus {os.cpu_count()}  "
          f"load {os.getloadavg()[0]:.2f} (1-min average at start); local GD 002 output, T_N = 1, beta kappa L = 1/8, "
          f"L = D0 = 1; CPU s = min of {repeat} (time.process_time)")
    head = ("| n | kappa | rho2 | Gram dim | rows | sym CPU s | sym wall s | sym route | sym solver | sym solves | sym value | "
            "sym lower | value_is | certified | dense CPU s | dense wall s | dense value | dense value_is | certified | "
            "load |")
    print(head)
    print("|" + "---|" * (head.count("|") - 1), flush=True)
    for n, kappa, rho2 in cases:
        beta = 1.0 / (8 * kappa)
        dim, rows = estimate_size(n=n, kappa=kappa, T_N=1)
        dense = estimated_seconds(dim, rows) <= dense_max
        sym_runs, dense_runs = [], []
        for _ in range(repeat):
            sym_runs.append(_lgd_timed(n, kappa, beta, True, rho2))
            if dense:
                dense_runs.append(_lgd_timed(n, kappa, beta, False, rho2))
        a = min(sym_runs, key=lambda d: d["cpu"])
        r = a["r"]
        # every run is the same computation: the same route and the same certified status
        assert len({(d["r"].extra.get("symmetric"), d["r"].certified()) for d in sym_runs}) == 1
        line = (f"| {n} | {kappa} | {rho2:g} | {r.dim} | {r.n_constraints} | {a['cpu']:.1f} | {a['wall']:.1f} | "
                f"{r.extra.get('symmetric', '-')} | {r.extra.get('symmetric_solver', '-')} | "
                f"{', '.join(r.extra.get('symmetric_solves', [])) or '-'} | {r.value:.10f} | "
                f"{r.lower:.10f} | {r.value_is} | {r.certified()} |")
        if dense:
            d = min(dense_runs, key=lambda e: e["cpu"])
            q = d["r"]
            if r.certified() and q.certified():
                assert r.lower <= q.upper and q.lower <= r.upper, (r.lower, r.upper, q.lower, q.upper)
            line += f" {d['cpu']:.1f} | {d['wall']:.1f} | {q.value:.10f} | {q.value_is} | {q.certified()} |"
        else:
            line += " skipped (est.) | - | - | - | - |"
        print(line + f" {os.getloadavg()[0]:.2f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes only")
    ap.add_argument("--pepit", action="store_true", help="also time PEPit's cvxpy wrapper (optional package)")
    ap.add_argument("--scale", action="store_true", help="large PEPs: dense vs sparse solve (module doc)")
    ap.add_argument("--big", action="store_true", help="with --scale: also Gram dimension 120")
    ap.add_argument("--dense-max", type=float, default=300.0, help="skip dense solves estimated above this (s)")
    ap.add_argument("--lgd-max-dim", type=int, default=60, help="largest local-GD Gram dimension solved sparse")
    ap.add_argument("--multi", action="store_true", help="identical clients: symmetric reduction vs dense (module doc)")
    ap.add_argument("--gram200", action="store_true", help="with --multi: also Gram dimension 200 (kappa = 97)")
    ap.add_argument("--targets", action="store_true",
                    help="with --multi: only the two scale targets (Gram 100, rho2 = 1/2; Gram 200), no dense solves")
    ap.add_argument("--repeat", type=int, default=3, help="with --multi: runs per case, the minimum CPU time kept")
    args = ap.parse_args()
    if args.multi:
        cases = [(2, 10, 1.0), (2, 20, 1.0), (3, 10, 1.0), (2, 47, 1.0), (2, 47, 0.5)]
        if args.gram200:
            cases.append((2, 97, 0.5))
        if args.targets:
            cases = [(2, 47, 0.5), (2, 97, 0.5)]
        multi_rows(cases, 0.0 if args.targets else args.dense_max, args.repeat)
        return
    if args.scale:
        dims = [40, 60, 80, 100] + ([120] if args.big else [])
        scale_rows(dims, [3, 5, 8, 13], args.dense_max, args.lgd_max_dim)
        return
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
