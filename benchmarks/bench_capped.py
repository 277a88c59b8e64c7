"""Closed forms of the capped simplex vs their references, measured side by side in one run.

1. ``Q_alpha`` supremum (002 Def. 1): closed form ``CappedSimplex.qalpha(p, alpha).support(f)`` vs the
   HiGHS LP :func:`fairtheory.exact.capped.qalpha_sup_lp` at ``n = 1e3, 1e4, 1e5``
   (acceptance: closed form >= 50x faster at ``1e5``).
2. Support at ``n = 1e6`` vs ``np.sort`` of the same vector (acceptance: <= 1.5x the sort) for the
   simplex, CVaR, ``Q_alpha`` with random ``p`` and the singleton, on normal data and adversarial
   ties (three values, two values, a constant vector, 1000 distinct integers, sorted input).
3. Projection at ``n = 1e6`` vs ``np.sort`` (informational: ``O(n log n)``).

Timings are medians over repeats, the two sides interleaved (A, B, A, B, ...) so that load on a
shared machine hits both alike.  Every pair is also checked for agreement (``assert``).

Run: ``python benchmarks/bench_capped.py [--quick]``.
"""

from __future__ import annotations

import argparse
import platform
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from fairtheory.exact.capped import qalpha_sup_lp
from fairtheory.sets import CappedSimplex

ALPHA = 0.3  # conservatism of the Q_alpha benchmark


def interleaved(fa: Callable[[], Any], fb: Callable[[], Any], repeats: int) -> tuple[float, float]:
    """Median seconds of ``fa`` and ``fb`` over ``repeats`` interleaved runs (after one warm-up each)."""
    fa()
    fb()
    ta, tb = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fa()
        ta.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        fb()
        tb.append(time.perf_counter() - t0)
    return float(np.median(ta)), float(np.median(tb))


def bench_lp(sizes: list[int], repeats: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    rows = []
    for n in sizes:
        p = rng.random(n)
        p /= p.sum()
        f = rng.standard_normal(n) * 10
        alpha = ALPHA
        closed = CappedSimplex.qalpha(p, alpha).support(f)
        lp = qalpha_sup_lp(f, p, alpha).value
        err = abs(closed - lp) / max(1.0, abs(lp))
        assert err <= 1e-8, f"closed form and LP disagree at n={n}: {closed} vs {lp}"
        reps = repeats if n <= 10**4 else max(1, repeats // 2)
        t_cf, t_lp = interleaved(
            lambda p=p, f=f: CappedSimplex.qalpha(p, ALPHA).support(f),
            lambda p=p, f=f: qalpha_sup_lp(f, p, ALPHA),
            reps,
        )
        rows.append({"n": n, "closed_s": t_cf, "lp_s": t_lp, "ratio": t_lp / t_cf, "rel_err": err})
    return rows


def _greedy_support(caps: np.ndarray, v: np.ndarray) -> float:
    """Sort-based reference: fill by decreasing v (vectorised)."""
    order = np.argsort(-v, kind="stable")
    c = caps[order]
    cs = np.cumsum(c)
    k = int(np.searchsorted(cs, 1.0, side="left"))
    k = min(k, v.size - 1)
    before = cs[k - 1] if k > 0 else 0.0
    return float(c[:k] @ v[order][:k] + (1.0 - before) * v[order][k])


def vectors(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    x = rng.standard_normal(n)
    return {
        "normal": x,
        "ties-3": rng.integers(0, 3, n).astype(np.float64),
        "ties-2": rng.integers(0, 2, n).astype(np.float64),
        "constant": np.full(n, 0.7),
        "int-1000": rng.integers(0, 1000, n).astype(np.float64),
        "sorted": np.sort(x),
    }


def sets(n: int, rng: np.random.Generator) -> dict[str, CappedSimplex]:
    p = rng.random(n)
    p /= p.sum()
    return {
        "simplex": CappedSimplex.simplex(n),
        "cvar(0.3)": CappedSimplex.cvar(n, 0.3),
        "qalpha(rand p, 0.3)": CappedSimplex.qalpha(p, 0.3),
        "singleton(rand p)": CappedSimplex.singleton(p),
    }


def bench_support(n: int, repeats: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    rows = []
    vecs = vectors(n, rng)
    for sname, S in sets(n, rng).items():
        for vname, v in vecs.items():
            val = S.support(v)
            ref = _greedy_support(S.caps, v)
            err = abs(val - ref) / max(1.0, abs(ref))
            assert err <= 1e-9, (
                f"support disagrees with the sort-based greedy ({sname}, {vname}): {val} vs {ref}"
            )
            t_s, t_sort = interleaved(lambda S=S, v=v: S.support(v), lambda v=v: np.sort(v), repeats)
            rows.append(
                {
                    "set": sname,
                    "data": vname,
                    "support_ms": 1e3 * t_s,
                    "sort_ms": 1e3 * t_sort,
                    "ratio": t_s / t_sort,
                    "rel_err": err,
                }
            )
    return rows


def bench_project(n: int, repeats: int, rng: np.random.Generator) -> list[dict[str, Any]]:
    rows = []
    v = rng.standard_normal(n)
    for sname, S in sets(n, rng).items():
        x = S.project(v)
        assert S.contains(x, tol=1e-9), f"projection infeasible for {sname}"
        t_p, t_sort = interleaved(lambda S=S: S.project(v), lambda: np.sort(v), max(1, repeats // 2))
        rows.append({"set": sname, "project_ms": 1e3 * t_p, "sort_ms": 1e3 * t_sort, "ratio": t_p / t_sort})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats (smoke test)")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(args.seed)
    lp_sizes = [10**3, 10**4] if args.quick else [10**3, 10**4, 10**5]
    n_big = 10**5 if args.quick else 10**6
    repeats = 3 if args.quick else args.repeats
    print(
        f"fairtheory capped-simplex benchmark  (python {platform.python_version()}, numpy {np.__version__}, "
        f"{platform.machine()}; medians of {repeats} interleaved repeats)\n"
    )

    print("Q_alpha supremum: closed form vs HiGHS LP (qalpha_sup_lp)   [acceptance: ratio >= 50 at n = 1e5]")
    print(f"{'n':>9} {'closed (ms)':>12} {'LP (ms)':>12} {'LP/closed':>10} {'rel err':>10}")
    ok = True
    for r in bench_lp(lp_sizes, repeats, rng):
        print(
            f"{r['n']:>9} {1e3 * r['closed_s']:>12.3f} {1e3 * r['lp_s']:>12.1f} "
            f"{r['ratio']:>10.0f} {r['rel_err']:>10.1e}"
        )
        if r["n"] == 10**5:
            ok &= r["ratio"] >= 50
    print(f"\nSupport at n = {n_big:.0e} vs np.sort of the same vector   [acceptance: ratio <= 1.5]")
    print(f"{'set':<22} {'data':<10} {'support (ms)':>13} {'sort (ms)':>10} {'ratio':>7}")
    worst = 0.0
    for r in bench_support(n_big, repeats, rng):
        worst = max(worst, r["ratio"])
        print(
            f"{r['set']:<22} {r['data']:<10} {r['support_ms']:>13.2f} {r['sort_ms']:>10.2f} "
            f"{r['ratio']:>7.2f}"
        )
    ok &= worst <= 1.5
    print(f"worst support/sort ratio: {worst:.2f}")
    print(f"\nProjection at n = {n_big:.0e} (normal data) vs np.sort   [informational: O(n log n)]")
    print(f"{'set':<22} {'project (ms)':>13} {'sort (ms)':>10} {'ratio':>7}")
    for r in bench_project(n_big, repeats, rng):
        print(f"{r['set']:<22} {r['project_ms']:>13.1f} {r['sort_ms']:>10.2f} {r['ratio']:>7.2f}")
    if args.quick:
        print("\nacceptance: not evaluated in --quick mode (criteria are stated at n = 1e5 and 1e6)")
    else:
        print("\nacceptance:", "met" if ok else "NOT met")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
