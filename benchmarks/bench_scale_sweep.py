"""Scale sweep of the worst-case PEP solve: the same problems in units from 1e-6 to 1e6 (issue 41's acceptance).

A PEP is homogeneous (Drori & Teboulle 2014, Sec. 2): with the unit of space ``a`` (points times ``a``) and the unit of
value ``b`` (function values times ``b``), an ``L``-smooth ``mu``-strongly convex class becomes ``(b L/a^2, b mu/a^2)``,
the initial radius ``R^2`` becomes ``a^2 R^2``, a step ``h/L`` stays ``h`` in units of ``1/L``, and the worst case is
multiplied exactly by ``a^2`` (a squared distance) or ``b`` (a function value).  Each call is checked against an
oracle computed here, never by the solver under test:

* **hand-written gradient descent** (``PEP.solve``, the checked solve; dense route at ``N = 5, 20``, the sparse route
  at ``N = 60``): ``||x_N - x*||^2`` and ``f(x_N) - f*`` on ``SmoothStronglyConvex(L, mu)`` with ``mu = 0`` (convex),
  ``mu = L/10`` (strongly convex) and ``mu = L (1 - 1e-6)`` (``mu -> L``: :mod:`fairtheory.worstcase.nearly_quadratic`),
  from ``||x_0 - x*||^2 <= R^2`` with the step ``h/L``.  Closed forms where known: the distance
  ``max(|1 - h|, |1 - h mu/L|)^(2N) R^2`` for ``h in (0, 2/(1 + mu/L)]`` (Taylor, Hendrickx & Glineur 2018, Thm 3.3)
  and the convex function value ``L R^2/(4 N h + 2)`` for ``h in (0, 1]`` (Drori & Teboulle 2014, Thm 3.1-3.2);
  otherwise the value at scale 1 times the exact homogeneity factor.  Three axes per PEP: ``value`` (``L -> s L``:
  values times ``s``), ``space`` (``R^2 -> s R^2``, ``L -> L/s``: distances times ``s``), ``R2`` (``R^2 -> s R^2`` with
  ``L`` fixed: both times ``s``).
* **the catalogue** (:mod:`fairtheory.worstcase.pepit_examples`, :mod:`fairtheory.worstcase.pepit_operator_examples`)
  at its published parameters against each example's documented value (``tight``: within 1e-6; ``bound``: at most
  it; a finite value for the three operator examples whose papers state none), and at scales ``s`` by the units of
  ``benchmarks/bench_hostile.py``'s ``EXAMPLE_UNITS`` / ``OPERATOR_UNITS`` (the scale-1 value times ``s^m``).

Classes (``benchmarks/bench_hostile.py``'s): ``correct``; ``wrong value`` (a value off the oracle by more than 1e-6
relative, whatever the status, or a documented bound exceeded); ``poor failure`` (valid input refused:
``SolverError`` or any other exception, a timeout, a crash, no value).  Every input here is valid.

``python benchmarks/bench_scale_sweep.py [--full] [--seed N] [--json PATH] [--match TEXT] [-v]``: the default set
(scales ``1e-6, 1e-3, 1e3, 1e6`` at ``N = 5, 20``; ``1e-6, 1e6`` at ``N = 60`` and for the catalogue) is sized for about
ten minutes on 2 cores; ``--full`` adds ``1e-4, 1e-2, 1e2, 1e4`` everywhere and two scales drawn log-uniformly in
``[1e-6, 1e6]`` per axis (``--seed``, default 41).  Progress goes to stderr, the table to stdout, the JSON (default
``/tmp/bench_scale_sweep.json``) is rewritten after every call.  Each call runs in a forked child (the hostile sweep's
``run_one``: a wall-clock limit and a memory cap; the limits are generous, not measurements).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np


def _hostile() -> Any:
    """``benchmarks/bench_hostile.py`` (its oracles, forked runner and classifier), imported by path."""
    name = "bench_hostile_for_scale_sweep"
    if name in sys.modules:
        return sys.modules[name]
    path = Path(__file__).resolve().parent / "bench_hostile.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


B = _hostile()
SEED = 41
#: relative tolerance of every value check (issue 41: "relative error > 1e-6" is a wrong value)
RTOL = 1e-6
#: the default scales (the unit itself, 1, is the reference call)
SCALES_SMALL = (1e-6, 1e-3, 1e3, 1e6)
SCALES_N60 = (1e-6, 1e6)
SCALES_FULL_EXTRA = (1e-4, 1e-2, 1e2, 1e4)
#: the hand-written PEPs: (label, mu / L, step h in units of 1/L)
CLASSES = (("c", 0.0, 1.0), ("sc", 0.1, 1.0), ("nq", 1.0 - 1e-6, 0.5))
MEASURES = ("dist", "fval")
AXES = ("value", "space", "R2")


@dataclass
class Theory:
    """The catalogue example's own documented value (its ``theory`` and ``kind``, carried in the call's summary)."""

    why: str = ""


# ------------------------------------------------------------------------------------------ the PEPs
def gd_pep(L: float, mu: float, R2: float, h: float, N: int, measure: str) -> Any:
    """Gradient descent ``x_{k+1} = x_k - (h/L) g_k`` on ``SmoothStronglyConvex(L, mu)`` from ``||x_0 - x*||^2 <= R2``,
    maximising ``||x_N - x*||^2`` (``measure="dist"``) or ``f(x_N) - f*`` (``"fval"``)."""
    from fairtheory.worstcase.classes import SmoothStronglyConvex
    from fairtheory.worstcase.sdp import PEP, sqnorm

    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, mu))
    xs, _, fs = f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x - xs) - R2)
    for _ in range(N):
        x = x - (h / L) * f.grad(x)
    pep.maximize(sqnorm(x - xs) if measure == "dist" else f.value(x) - fs)
    return pep


def closed_form(L: float, q: float, R2: float, h: float, N: int, measure: str) -> float | None:
    """The tight worst case where a closed form is known (module doc), else ``None``."""
    if measure == "dist" and 0 < h <= 2 / (1 + q):
        return max(abs(1 - h), abs(1 - h * q)) ** (2 * N) * R2
    if measure == "fval" and q == 0 and 0 < h <= 1:
        return L * R2 / (4 * N * h + 2)
    return None


def _solve_gd(L: float, q: float, R2: float, h: float, N: int, measure: str) -> Any:
    sol = gd_pep(L, q * L, R2, h, N, measure).solve()
    return SimpleNamespace(value=float(sol.value), status=str(sol.status), value_is=getattr(sol, "value_is", None))


def _axis(axis: str, s: float) -> tuple[float, float, float, float]:
    """``(L factor, R^2 factor, distance factor, value factor)`` of scale ``s`` on ``axis`` (module doc)."""
    if axis == "value":
        return s, 1.0, 1.0, s
    if axis == "space":
        return 1.0 / s, s, s, 1.0
    return 1.0, s, s, s  # R2


def build_gd(scales_small: tuple[float, ...], scales_60: tuple[float, ...]) -> list[Any]:
    calls: list[Any] = []
    for N in (5, 20, 60):
        grid = scales_60 if N == 60 else scales_small
        timeout = 300.0 if N == 60 else 120.0
        for label, q, h in CLASSES:
            for measure in MEASURES:
                base = f"gd {measure} {label} N={N}"
                ref_id = f"{base} @1"
                exact = closed_form(1.0, q, 1.0, h, N, measure)
                calls.append(B.Call(ref_id, "hand GD", (lambda q=q, h=h, N=N, m=measure: _solve_gd(1.0, q, 1.0, h, N, m)),
                                    B.Val(exact, RTOL, "closed form") if exact is not None else B.Finite("scale 1"),
                                    timeout))
                for axis in AXES:
                    for s in grid:
                        fL, fR, fd, fv = _axis(axis, s)
                        L, R2 = fL, fR
                        want = closed_form(L, q, R2, h, N, measure)
                        oracle = B.Val(want, RTOL, "closed form") if want is not None else \
                            B.Ref(ref_id, fd if measure == "dist" else fv, RTOL)
                        calls.append(B.Call(f"{base} {axis}={s:g}", "hand GD",
                                            (lambda L=L, R2=R2, q=q, h=h, N=N, m=measure: _solve_gd(L, q, R2, h, N, m)),
                                            oracle, timeout))
    return calls


def _example(name: str, kw: dict[str, Any] | None = None) -> Any:
    from fairtheory.worstcase import pepit_examples as E

    r = E.run_example(name, **kw) if kw is not None else E.run_example(name)
    return SimpleNamespace(value=float(r.ours), status=str(r.status), value_is=f"{r.kind} {float(r.theory)!r}")


def _operator(name: str, kw: dict[str, Any] | None = None) -> Any:
    from fairtheory.worstcase import pepit_operator_examples as OE

    r = getattr(OE, name)(**(kw or {}))
    if not hasattr(r, "theory"):  # OperatorWorstCase: no closed form in the paper (its value_is says worst case / bound)
        return SimpleNamespace(value=float(r.value), status=str(r.status), value_is="none nan")
    return SimpleNamespace(value=float(r.ours), status=str(r.status), value_is=f"{r.kind} {float(r.theory)!r}")


def build_catalogue(scales: tuple[float, ...]) -> list[Any]:
    """Every catalogue example at its published parameters (its documented value) and the scaled ones of
    bench_hostile's unit tables at ``scales`` (the scale-1 value times ``s^m``)."""
    from fairtheory.worstcase import pepit_examples as E
    from fairtheory.worstcase import pepit_operator_examples as OE

    calls: list[Any] = []
    for name in E.EXAMPLES:
        calls.append(B.Call(f"E.{name}()", "catalogue", (lambda name=name: _example(name)), Theory(), 240.0))
    ops = [n for n in dir(OE) if not n.startswith("_") and n in {u[0] for u in B.OPERATOR_UNITS}]
    for name in ops:
        calls.append(B.Call(f"OE.{name}()", "catalogue", (lambda name=name: _operator(name)), Theory(), 240.0))
    for name, params, exps, m in B.EXAMPLE_UNITS:
        p = B._defaults(E.EXAMPLES[name].run, params)
        base = f"E.{name}@1"
        calls.append(B.Call(base, "scaled catalogue", (lambda name=name, p=p: _example(name, p)), B.Finite("scale 1"),
                            240.0))
        for s in scales:
            kw = {k: (v * s ** exps[k] if k in exps and v is not None else v) for k, v in p.items()}
            calls.append(B.Call(f"E.{name}@s={s:g}", "scaled catalogue", (lambda name=name, kw=kw: _example(name, kw)),
                                B.Ref(base, s ** m, RTOL), 240.0))
    for name, params, exps in B.OPERATOR_UNITS:
        p = B._defaults(getattr(OE, name), params)
        base = f"OE.{name}@1"
        calls.append(B.Call(base, "scaled catalogue", (lambda name=name, p=p: _operator(name, p)), B.Finite("scale 1"),
                            240.0))
        for s in scales:
            kw = {k: (v * s ** exps[k] if k in exps else v) for k, v in p.items()}
            calls.append(B.Call(f"OE.{name}@s={s:g}", "scaled catalogue", (lambda name=name, kw=kw: _operator(name, kw)),
                                B.Ref(base, 1.0, RTOL), 240.0))
    return calls


def build(full: bool = False, seed: int = SEED) -> list[Any]:
    """The calls of the default set, or of ``full`` (module doc)."""
    rng = np.random.default_rng(seed)
    small, n60, cat = SCALES_SMALL, SCALES_N60, SCALES_N60
    if full:
        drawn = tuple(float(f"{10 ** rng.uniform(-6, 6):.3g}") for _ in range(2))
        small = tuple(sorted(set(SCALES_SMALL + SCALES_FULL_EXTRA + drawn)))
        n60 = cat = small
    return build_gd(small, n60) + build_catalogue(cat)


# ------------------------------------------------------------------------------------------ classifying
def classify(c: Any, res: dict[str, Any], done: dict[str, Any]) -> tuple[str, str, float | None]:
    """bench_hostile's classes; :class:`Theory`: the example's documented value (``tight``: within :data:`RTOL`,
    ``bound``: at most it, to :data:`RTOL`)."""
    if not isinstance(c.oracle, Theory) or "ok" not in res:
        return B.classify(c, res, done)
    s = res["ok"]
    v = s.get("value")
    kind, theory = str(s.get("value_is")).split(" ", 1)
    t = float(theory)
    if v is None or math.isnan(v):
        return "poor failure", f"no value returned: {s}", v
    if kind == "none":  # no documented value: a finite worst case (its scaled copies are checked against it)
        ok = math.isfinite(v)
        return ("correct" if ok else "wrong value"), f"{v:.10g} (no documented value; {s.get('status')})", v
    if kind == "bound":
        ok = v <= t * (1 + RTOL) if t >= 0 else v <= t * (1 - RTOL)
        return ("correct" if ok else "wrong value"), f"{v:.10g} <= {t:.10g} (documented bound)? ({s.get('status')})", v
    rel = B._rel(v, t)
    return ("correct" if rel <= RTOL else "wrong value"), f"{v:.10g} vs {t:.10g} (rel {rel:.2e}; documented tight, " \
                                                          f"{s.get('status')})", v


def run(calls: list[Any], json_path: str | None, verbose: bool, seed: int) -> dict[str, Any]:
    """Every call in order (forked children); progress on stderr; the JSON rewritten after each call."""
    B._NAMED.clear()
    B._NAMED.update(B._named_types())
    done: dict[str, Any] = {}
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for i, c in enumerate(calls):
        res, cpu = B.run_one(c)
        klass, detail, value = classify(c, res, done)
        done[c.cid] = B.Outcome(c.cid, c.surface, klass, detail, value, cpu)
        if verbose or klass != "correct":
            print(f"[{i + 1}/{len(calls)}] {klass:13s} {c.cid}: {detail} ({cpu:.1f} s CPU)", file=sys.stderr, flush=True)
        elif (i + 1) % 20 == 0:
            print(f"[{i + 1}/{len(calls)}] ...", file=sys.stderr, flush=True)
        if json_path:
            _write_json(json_path, done, started, len(calls), seed)
    return done


def _write_json(path: str, done: dict[str, Any], started: str, total: int, seed: int) -> None:
    counts = Counter(o.klass for o in done.values())
    data = {"seed": seed, "started": started, "calls_total": total, "calls_run": len(done),
            "counts": {k: counts.get(k, 0) for k in ("correct", "wrong value", "poor failure")},
            "outcomes": [{"id": o.cid, "surface": o.surface, "class": o.klass, "detail": o.detail, "value": o.value,
                          "cpu_s": round(o.seconds, 3)} for o in done.values()]}
    tmp = f"{path}.tmp"
    Path(tmp).write_text(json.dumps(data, indent=1, default=str))
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--full", action="store_true", help="more scales, and two drawn per axis (--seed)")
    ap.add_argument("--seed", type=int, default=SEED, help=f"the draws of --full (default {SEED})")
    ap.add_argument("--json", default="/tmp/bench_scale_sweep.json")
    ap.add_argument("--match", default=None, help="only the calls whose id contains this text (and their references)")
    ap.add_argument("-v", action="store_true", help="every call on stderr, not only the failures")
    a = ap.parse_args(argv)
    calls = build(a.full, a.seed)
    if a.match:
        keep = [c for c in calls if a.match in c.cid]
        need = {c.oracle.cid for c in keep if isinstance(c.oracle, B.Ref)}
        calls = [c for c in calls if c in keep or c.cid in need]
    print(f"bench_scale_sweep: {len(calls)} calls, seed {a.seed}, JSON {a.json}", file=sys.stderr, flush=True)
    t0 = time.process_time()
    done = run(calls, a.json, a.v, a.seed)
    print(B.table(done).replace("correct refusal", "  (n/a refusal)"))
    print(f"parent CPU {time.process_time() - t0:.1f} s; children CPU {sum(o.seconds for o in done.values()):.1f} s")
    for o in done.values():
        if o.klass != "correct":
            print(f"  {o.klass}: {o.cid}: {o.detail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
