"""Exact PSD test: the reference ``L D L^T`` on Python integers ("old") against the FLINT path ("new").

Run: ``.venv/bin/python benchmarks/bench_exact_linalg.py [--cap 20] [--quick]``.

Cases (every matrix exact, rational):

* ``int``: ``P P^T`` with ``P`` an ``n x r`` integer matrix of ``digits/2``-digit entries (rank ``r < n``);
* ``rat-common``: the same over one ``digits``-digit denominator (a certificate's slack looks like this);
* ``rat-rows``: ``D^{-1} P P^T D^{-1}`` with a ``digits``-digit ``d_i`` per row (unrelated denominators);
* ``dense-hostile``: every entry with its own ``digits``-digit denominator, diagonally dominant (PD);
* ``near-psd``: ``P P^T - eps v v^T`` with ``rank P = n - 1`` and ``v`` outside the range: one negative
  eigenvalue of size ``~eps`` (``eps = 10^-digits``), so "not PSD".

Columns: ``old_s`` the reference ``ldl_pivots(..., backend="python")`` (run in a bounded child; ``>cap`` when
it ran past ``--cap`` seconds), ``psd_s`` the new ``is_psd``, ``ldl_s`` the new ``ldl_pivots`` (exact pivots,
which can be far larger than the entries), and the ratios old / new.

``--bounded``: the start-up cost of :func:`fairtheory_kernel.bounded.run_bounded` (a forked child with time and
memory limits; the kernel's checks run under it): the median of 5 bounded calls of a trivial function and of a
0.2 s sleep, side by side with the same calls in process, and their differences (what a bounded call adds).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fairtheory.proofs.exact_linalg import HAVE_FLINT, is_psd, ldl_pivots  # noqa: E402
from fairtheory_kernel.bounded import run_bounded  # noqa: E402

Entries = dict[tuple[int, int], Fraction]


def gram(n: int, r: int, digits: int, kind: str, rng: random.Random) -> Entries:
    half = 10 ** max(1, digits // 2)
    P = [[rng.randrange(-half, half) for _ in range(r)] for _ in range(n)]
    if kind == "rat-rows":
        d = [rng.randrange(10 ** (digits - 1), 10 ** digits) for _ in range(n)]
    else:
        d = [1] * n
    q = rng.randrange(10 ** (digits - 1), 10 ** digits) if kind == "rat-common" else 1
    out = {}
    for a in range(n):
        for b in range(a, n):
            v = sum(P[a][k] * P[b][k] for k in range(r))
            if v:
                out[(a, b)] = Fraction(v, q * d[a] * d[b])
    return out


def hostile(n: int, digits: int, rng: random.Random) -> Entries:
    out = {}
    for a in range(n):
        for b in range(a, n):
            q = rng.randrange(10 ** (digits - 1), 10 ** digits)
            out[(a, b)] = Fraction(rng.randrange(-q, q), q) + (n if a == b else 0)
    return out


def near_psd(n: int, digits: int, rng: random.Random) -> Entries:
    ent = gram(n, n - 1, digits, "int", rng)
    v = [rng.randint(-5, 5) for _ in range(n)]
    eps = Fraction(1, 10**digits)
    return {(a, b): ent.get((a, b), Fraction(0)) - eps * v[a] * v[b] for a in range(n) for b in range(a, n)}


def _old(ent: Entries, n: int) -> bool:
    return ldl_pivots(ent, n, backend="python") is not None


def timed(fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """``(fn(*args), seconds)``."""
    t0 = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t0


def _add(a: int, b: int) -> int:
    return a + b


def _sleep(s: float) -> str:
    time.sleep(s)
    return "slept"


def bounded_rows(repeats: int = 5) -> None:
    """The ``--bounded`` table (module doc): medians over ``repeats`` calls, in process and under ``run_bounded``."""
    print(f"python {sys.version.split()[0]}; run_bounded(fn, seconds=600) against fn() in process, median of {repeats}")
    print(f"{'call':>10} {'inproc_s':>9} {'bounded_s':>10} {'added_s':>8}")
    for name, fn, args in (("add", _add, (1, 2)), ("sleep 0.2", _sleep, (0.2,))):
        inproc = sorted(timed(fn, *args)[1] for _ in range(repeats))[repeats // 2]
        outs = [timed(lambda fn=fn, args=args: run_bounded(fn, *args, seconds=600)) for _ in range(repeats)]
        assert all(out[0] == "ok" for out, _ in outs), outs
        bounded_s = sorted(t for _, t in outs)[repeats // 2]
        print(f"{name:>10} {inproc:>9.4f} {bounded_s:>10.4f} {bounded_s - inproc:>8.4f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cap", type=float, default=20.0, help="seconds the old path may run per case")
    ap.add_argument("--quick", action="store_true", help="dims 20/40 only")
    ap.add_argument("--bounded", action="store_true", help="the start-up cost of run_bounded instead (module doc)")
    args = ap.parse_args()
    if args.bounded:
        bounded_rows()
        return
    if not HAVE_FLINT:
        sys.exit("python-flint is not installed: nothing new to compare")
    rng = random.Random(2024)
    dims = (20, 40) if args.quick else (20, 40, 60)
    cases: list[tuple[str, int, int, Entries]] = []
    for kind in ("int", "rat-common", "rat-rows"):
        for digits in (30, 100):
            for n in dims:
                cases.append((kind, n, digits, gram(n, n - n // 5, digits, kind, rng)))
    for n, digits in ((50, 100),):
        cases.append(("dense-hostile", n, digits, hostile(n, digits, rng)))
    for n, digits in ((40, 30), (60, 100)):
        cases.append(("near-psd", n, digits, near_psd(n, digits, rng)))

    print(f"python {sys.version.split()[0]}; old = reference L D L^T on Python ints (cap {args.cap:g} s), "
          f"new = FLINT (is_psd / ldl_pivots)")
    print(f"{'case':>14} {'n':>3} {'digits':>6} {'psd':>5} {'old_s':>8} {'psd_s':>8} {'ratio':>8} {'ldl_s':>8} {'ratio':>8}")
    for kind, n, digits, ent in cases:
        status, old = run_bounded(timed, _old, ent, n, seconds=args.cap, memory_bytes=None)  # (verdict, seconds)
        new_val, psd_s = timed(is_psd, ent, n)
        piv, ldl_s = timed(ldl_pivots, ent, n)
        assert (piv is not None) == new_val
        if status == "ok":
            assert old[0] == new_val, (kind, n, digits)
            old_s = old[1]
            old_txt, r1, r2 = f"{old_s:8.3f}", f"{old_s / psd_s:8.0f}", f"{old_s / ldl_s:8.1f}"
        else:
            old_txt = f"{'>' + format(args.cap, 'g'):>8}"
            r1, r2 = f"{'>' + format(args.cap / psd_s, '.0f'):>8}", f"{'>' + format(args.cap / ldl_s, '.1f'):>8}"
        print(f"{kind:>14} {n:>3} {digits:>6} {str(new_val):>5} {old_txt} {psd_s:8.3f} {r1} {ldl_s:8.3f} {r2}", flush=True)

if __name__ == "__main__":
    main()
