"""Array-built interpolation rows (fairtheory.worstcase.gram.RowBlock) against the per-row loop they replace (issue 41).

CPU time (``time.process_time``), the two implementations interleaved in one run, min of ``--repeat`` (default 3); the
"loop" side patches the vectorised classes back to the loop of tests/test_rows_vectorised.py (the code the classes
ran before), everything else is the same code.  Columns: ``assembly`` - the PEP's rows as the dense route assembles
them (build the PEP, ``PEP._interpolation``, ``PEP._row`` of every row, the sparse matrix: everything before Clarabel);
``+ row_arrays`` - the same with :meth:`PEP.row_arrays` (block segments copied whole, the
solve_dense change requested of the lead); ``call`` - the whole user call (solve and checks included), where
affordable.  The machine is shared and loaded: the absolute seconds move from run to run, the ratio of a row much less.

    .venv/bin/python benchmarks/bench_rows.py [--repeat 3] [--no-call]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_rows_vectorised import _old, _old_convex  # noqa: E402 - the reference loop

from fairtheory.worstcase import classes  # noqa: E402


@contextlib.contextmanager
def loop_rows() -> Any:
    def interp(self: Any, points: Any) -> Any:
        return _old(self, points)

    with mock.patch.object(classes.SmoothStronglyConvex, "interpolation", interp), \
            mock.patch.object(classes.Convex, "interpolation", lambda self, pts: _old_convex(pts)), \
            mock.patch.object(classes.ConvexLipschitz, "interpolation", interp), \
            mock.patch.object(classes.SmoothNonconvex, "interpolation", interp), \
            mock.patch.object(classes.StronglyConvex, "interpolation", interp):
        yield


def assemble(pep: Any) -> sp.csr_matrix:
    """The dense route's row assembly (fairtheory.worstcase.solvers.solve_dense, before Clarabel)."""
    nG = pep.dim * (pep.dim + 1) // 2
    R, C, V, b = [], [], [], []
    for r, s in enumerate(pep._eq + pep._interpolation() + pep._ineq):
        c, v = pep._row(s, nG)
        R.append(np.full(c.size, r))
        C.append(c)
        V.append(v)
        b.append(-float(s.const))
    rows = sp.csr_matrix((np.concatenate(V), (np.concatenate(R), np.concatenate(C))), shape=(len(b), nG + pep.nf))
    rows.sum_duplicates()
    return rows


def assemble_arrays(pep: Any) -> sp.csr_matrix:
    """The same matrix from :meth:`PEP.row_arrays` (block segments, no per-row call): the assembly solve_dense does
    once the change requested in /tmp/coord/requests_rows.md is in."""
    nG = pep.dim * (pep.dim + 1) // 2
    ptr, cat, vals, consts = pep.row_arrays(nG, pep._eq + pep._interpolation() + pep._ineq)
    r = consts.size
    rows = sp.csr_matrix((vals, (np.repeat(np.arange(r), np.diff(ptr)), cat)), shape=(r, nG + pep.nf))
    rows.sum_duplicates()
    return rows


def gd_pep(N: int) -> Any:
    from fairtheory.worstcase.sdp import PEP, sqnorm

    pep = PEP()
    f = pep.function(1.0, "f")
    f.optimum()
    x0 = pep.vector()
    x = x0
    for _ in range(N):
        x = x - f.grad(x)
    pep.add_le(sqnorm(x0) - 1.0)
    pep.maximize(f.value(x))
    return pep


def ogm_pep(N: int) -> Any:
    from fairtheory.worstcase import pepit_examples as pe

    captured: dict[str, Any] = {}
    real = pe._finish

    def grab(name: str, params: Any, pep: Any, *a: Any, **k: Any) -> Any:
        captured["pep"] = pep
        raise StopIteration

    with mock.patch.object(pe, "_finish", grab), contextlib.suppress(StopIteration):
        pe.optimized_gradient(L=1.0, n=N)
    assert real is not None
    return captured["pep"]


def lgd_pep(n: int, kappa: int, T_N: int) -> Any:
    from fairtheory.worstcase.local_gd import build_local_gd, rho2_expr
    from fairtheory.worstcase.sdp import sqnorm

    p = np.full(n, 1.0 / n)
    b = build_local_gd(n=n, p=p, lr=1.0 / (8 * kappa), kappa=kappa, T_N=T_N, output="average")
    b.pep.add_le(sqnorm(b.x0) - 1.0)
    b.pep.add_le(rho2_expr(b, p) - 1.0)
    b.pep.maximize(b.objective)
    return b.pep


def calls() -> dict[str, Any]:
    from fairtheory.worstcase import local_gd_worst_case
    from fairtheory.worstcase import pepit_examples as pe

    return {
        "GD N=20": lambda: gd_pep(20).solve(),
        "GD N=50": lambda: gd_pep(50).solve(),
        "OGM N=20": lambda: pe.optimized_gradient(L=1.0, n=20),
        "local GD n=2 kappa=2 T_N=2": lambda: local_gd_worst_case(n=2, kappa=2, T_N=2, lr=1 / 16, L=1.0, D0=1.0,
                                                                  rho2=1.0),
    }


BUILDS = {
    "GD N=20": lambda: gd_pep(20),
    "GD N=50": lambda: gd_pep(50),
    "OGM N=20": lambda: ogm_pep(20),
    "local GD n=2 kappa=2 T_N=2": lambda: lgd_pep(2, 2, 2),
    "multi-client Gram 64 (n=2 kappa=29 T_N=1)": lambda: lgd_pep(2, 29, 1),
}


def cpu(fn: Any) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-call", action="store_true")
    args = ap.parse_args()
    print(f"# bench_rows  cpus {os.cpu_count()}  load {os.getloadavg()[0]:.2f}  (CPU seconds, min of {args.repeat})")
    print("| case | Gram dim | rows | assembly loop | assembly arrays | ratio | + row_arrays | ratio | call loop | "
          "call arrays | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    cl = calls()
    for name, build in BUILDS.items():
        pep = build()
        nrows = len(pep._eq) + len(pep._interpolation()) + len(pep._ineq)
        a_loop, a_new, a_arr, c_loop, c_new = [], [], [], [], []
        for _ in range(args.repeat):
            with loop_rows():
                a_loop.append(cpu(lambda b=build: assemble(b())))
            a_new.append(cpu(lambda b=build: assemble(b())))
            a_arr.append(cpu(lambda b=build: assemble_arrays(b())))
            if not args.no_call and name in cl:
                with loop_rows():
                    c_loop.append(cpu(cl[name]))
                c_new.append(cpu(cl[name]))
        with loop_rows():
            ref = assemble(build())
        new = assemble(build())
        arr = assemble_arrays(build())
        for m in (new, arr):  # bitwise the same rows
            assert (ref != m).nnz == 0 and ref.data.tobytes() == m.data.tobytes(), name
        al, an, aa = min(a_loop), min(a_new), min(a_arr)
        cells = [f"{al:.3f}", f"{an:.3f}", f"{al / an:.1f}x", f"{aa:.3f}", f"{al / aa:.1f}x"]
        if c_loop:
            cl_, cn = min(c_loop), min(c_new)
            cells += [f"{cl_:.3f}", f"{cn:.3f}", f"{cl_ / cn:.2f}x"]
        else:
            cells += ["-", "-", "-"]
        print(f"| {name} | {pep.dim} | {nrows} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
