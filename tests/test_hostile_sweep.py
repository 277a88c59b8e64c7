"""The held-out hostile sweep of the public worst-case API (``benchmarks/bench_hostile.py``, issue 41).

Default: the sweep's quick subset (every surface: catalogue, scaled examples, closed forms, unbounded problems, bad
arguments) - no wrong value, no poor failure outside :data:`KNOWN_POOR` (each a finding owned by another module, with
its reason), at most 3 poor failures; and one regression test per wrong value or poor failure the sweep found and this
change fixed.  ``slow``: the full sweep (476 calls): only the known findings of other modules (none left since session
12), and issue 41's acceptance (0 wrong values, at most 3 poor failures).  Session 12 (measured, seed 41, 476 calls):
278 correct, 198 correct refusals, 0 wrong values, 0 poor failures (``python benchmarks/bench_hostile.py``); a fresh
seed (``--seed 4112``) is run the same way.

Ground truth: the closed forms named in the benchmark's module doc, PEPit 0.5.1's printed values (past extragradient:
``0.0813424`` at ``n = 4``, ``0.0602664`` at ``n = 5``, the examples' docstrings), and homogeneity against the same
problem at scale 1.
"""

from __future__ import annotations

import importlib.util
import math
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from fairtheory.errors import FairtheoryError, FairtheoryTypeError, FairtheoryValueError


def _bench() -> Any:
    name = "bench_hostile_for_tests"
    if name in sys.modules:
        return sys.modules[name]
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_hostile.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


#: poor failures the sweep still finds, each in a module outside this sweep's fixes, and why (none since session 12:
#: GD distance N = 60 on SmoothStronglyConvex(1, 0.1) and mu = 1 - 1e-9 are fixed, test_*_regression below)
KNOWN_POOR: set[str] = set()
#: wrong values the sweep still finds, outside the modules of this change (none since session 12: mu = 1 - 1e-6)
KNOWN_WRONG: set[str] = set()


def _assert_sweep(done: dict[str, Any], max_poor: int = 3) -> None:
    wrong = {k: o.detail for k, o in done.items() if o.klass == "wrong value"}
    poor = {k: o.detail for k, o in done.items() if o.klass == "poor failure"}
    assert not wrong, wrong
    assert set(poor) <= KNOWN_POOR, {k: v for k, v in poor.items() if k not in KNOWN_POOR}
    assert len(poor) <= max_poor, poor


def test_quick_sweep() -> None:
    B = _bench()
    calls = B.build(full=False)
    assert len(calls) >= 30 and {c.surface for c in calls} == {"catalogue", "scaled examples", "closed forms",
                                                                "unbounded", "bad arguments"}
    _assert_sweep(B.run_sweep(calls, None, log=lambda _s: None))


@pytest.fixture(scope="module")
def full_sweep(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    B = _bench()
    calls = B.build(full=True)
    done = B.run_sweep(calls, str(tmp_path_factory.mktemp("hostile") / "hostile.json"), log=lambda _s: None)
    assert len(done) == len(calls)
    return done


@pytest.mark.slow
def test_full_sweep_finds_only_the_known_findings(full_sweep: dict[str, Any]) -> None:
    """Every surface of this change's modules clean; what is left is :data:`KNOWN_POOR` / :data:`KNOWN_WRONG`."""
    wrong = {k: o.detail for k, o in full_sweep.items() if o.klass == "wrong value"}
    poor = {k: o.detail for k, o in full_sweep.items() if o.klass == "poor failure"}
    assert set(wrong) <= KNOWN_WRONG, {k: v for k, v in wrong.items() if k not in KNOWN_WRONG}
    assert set(poor) <= KNOWN_POOR, {k: v for k, v in poor.items() if k not in KNOWN_POOR}


@pytest.mark.slow
def test_full_sweep_acceptance(full_sweep: dict[str, Any]) -> None:
    """Issue 41: a held-out hostile sweep with 0 wrong values and at most 3 poor failures."""
    _assert_sweep(full_sweep)


def test_sweep_is_seeded() -> None:
    B = _bench()
    a = [c.cid for c in B.build(full=True)]
    b = [c.cid for c in B.build(full=True)]
    assert a == b and len(a) == len(set(a))


def test_classification_of_the_runner() -> None:
    """The classes themselves: a raw exception on invalid input is poor, a named one a refusal, a finite value for an
    unbounded problem wrong, an exception on valid input poor, a timeout poor."""
    B = _bench()
    B._NAMED.clear()
    B._NAMED.update(B._named_types())

    def klass(fn: Any, oracle: Any, timeout: float = 20.0) -> str:
        c = B.Call("x", "s", fn, oracle, timeout)
        res, _ = B.run_one(c)
        return B.classify(c, res, {})[0]

    def raw() -> None:
        raise ZeroDivisionError("x")

    def named() -> None:
        raise FairtheoryValueError("n must be >= 1")

    assert klass(raw, B.Refuse("n")) == "poor failure"
    assert klass(named, B.Refuse("n")) == "correct refusal"
    assert klass(lambda: 1.0, B.Refuse("n")) == "poor failure"
    assert klass(lambda: 1.0, B.Unbounded()) == "wrong value"
    assert klass(lambda: math.inf, B.Unbounded()) == "correct"
    assert klass(lambda: math.inf, B.Val(1.0)) == "wrong value"
    assert klass(lambda: 1.0 + 1e-5, B.Val(1.0)) == "wrong value"
    assert klass(lambda: 1.0 + 1e-8, B.Val(1.0)) == "correct"
    assert klass(named, B.Val(1.0)) == "poor failure"
    assert klass(lambda: __import__("time").sleep(5), B.Finite(), timeout=0.5) == "poor failure"


# ------------------------------------------------------------------ regressions: wrong values found and fixed
@pytest.mark.parametrize("L", [4.0, 22.5, 3.0])
def test_past_extragradient_off_unit_scale(L: float) -> None:
    """Found by the sweep: past extragradient (n = 5) at ``L = 22.5``, ``gamma = 0.25/L`` returned 0.0602652692
    ("Solved", reported as an upper bound) - 1.85e-5 relative below its value at ``L = 1`` (0.0602663812; PEPit 0.5.1:
    0.0602664), at ``L = 4`` 6e-6 below; the example left ``L`` within ``2^+-4`` of 1 unnormalised.  Now every ``L != 1``
    is normalised (homogeneity)."""
    from fairtheory.worstcase import pepit_operator_examples as OE

    base = OE.past_extragradient()
    assert abs(base.value - 0.0602664) <= 1e-6 * 0.0602664
    r = OE.past_extragradient(L=L, gamma=0.25 / L)
    assert r.status in ("Solved", "AlmostSolved")
    assert abs(r.value - base.value) <= 1e-7 * base.value
    assert r.params["L"] == L   # the caller's parameters, as given


@pytest.mark.parametrize("mu", [1e5, 1e-5, 0.1])
def test_gradient_flow_at_every_scale(mu: float) -> None:
    """Found by the sweep: ``dV/dt = -2 mu`` (tight, attained by ``mu/2 ||x||^2``) came out -200014.97 at ``mu = 1e5``
    (7.5e-5 relative, "Solved"): the example was not posed in its units."""
    from fairtheory.worstcase import pepit_examples as E

    r = E.gradient_flow_strongly_convex(mu=mu)
    assert r.status in ("Solved", "AlmostSolved") and abs(r.ours + 2 * mu) <= 1e-6 * 2 * mu


@pytest.mark.parametrize("gamma", [1e-5, 10 / 30300, 1e5])
def test_relatively_inexact_proximal_point_is_homogeneous(gamma: float) -> None:
    """Found by the sweep: at ``gamma = 1e-5`` (n = 3, sigma = 0.65) the value was 18031.68 where homogeneity gives
    ``1e6`` times the value at ``gamma = 10`` (16261.36; 11% too high, "Solved"), 6.7e-5 off at ``gamma = 10/30300``.
    The value unit is free (``||x_0 - x*||^2 <= 1``): value times ``gamma`` is scale-free; and below the paper's bound
    ``(1 + sigma)/(4 gamma n^sqrt(1 - sigma^2))`` (Barre, Taylor & Bach 2023, Thm 3.2)."""
    from fairtheory.worstcase import pepit_examples as E

    base = E.relatively_inexact_proximal_point_algorithm(n=3, gamma=10.0)
    r = E.relatively_inexact_proximal_point_algorithm(n=3, gamma=gamma)
    assert abs(r.ours * gamma - base.ours * 10.0) <= 1e-6 * base.ours * 10.0
    assert r.ours <= r.theory * (1 + 1e-6)


@pytest.mark.parametrize("L", [1e6, 1e-6])
def test_no_lips_at_extreme_scales(L: float) -> None:
    """Found by the sweep: NoLips in function value at ``L = 1e6``, ``gamma = 1/(2L)`` raised SolverError (AlmostSolved);
    tight value ``1/(gamma n) = 2 L/3`` (Dragomir, Taylor, d'Aspremont & Bolte 2021, Thm 1); in Bregman divergence
    ``2/(n(n - 1)) = 1/3`` at ``n = 3`` (Thm 2)."""
    from fairtheory.worstcase import pepit_examples as E

    r = E.no_lips_in_function_value(L=L, gamma=0.5 / L)
    assert abs(r.ours - 2 * L / 3) <= 1e-6 * 2 * L / 3
    r = E.no_lips_in_bregman_divergence(L=L, gamma=1 / L, n=3)
    assert abs(r.ours - 1 / 3) <= 1e-6 / 3


def test_past_extragradient_at_n4_is_pepits() -> None:
    """Issue 41: ``n = 4`` raised SolverError while 3 and 5 solved; PEPit 0.5.1: 0.0813424."""
    from fairtheory.worstcase import pepit_operator_examples as OE

    r = OE.past_extragradient(n=4)
    assert r.status in ("Solved", "AlmostSolved") and abs(r.value - 0.0813424) <= 1e-6 * 0.0813424


# ------------------------------------------------------------------ regressions: poor failures found and fixed
def _pair() -> tuple[Any, Any, Any]:
    from fairtheory.worstcase.classes import SmoothStronglyConvex
    from fairtheory.worstcase.sdp import PEP

    p1, p2 = PEP(), PEP()
    f = p1.function(SmoothStronglyConvex(1.0, 0.0))
    x = p1.vector()
    for _ in range(3):
        p2.vector()
    return f, x, p2.vector()


def test_steps_refuse_a_vector_of_another_pep() -> None:
    """Issue 41: ``steps.inexact_gradient`` accepted a vector of another PEP (so did every step and the operator
    oracles)."""
    from fairtheory.worstcase import operators as O
    from fairtheory.worstcase import steps as S
    from fairtheory.worstcase.sdp import PEP

    f, x, y = _pair()
    for fn, arg in ((lambda: S.inexact_gradient(f, y, 0.1), "x"),
                    (lambda: S.inexact_gradient(f, y, 0.1, notion="relative"), "x"),
                    (lambda: S.epsilon_subgradient_step(f, y, 0.1), "x0"),
                    (lambda: S.exact_linesearch_step(f, y, [x]), "x0"),
                    (lambda: S.exact_linesearch_step(f, x, [y]), "directions[0]"),
                    (lambda: S.inexact_proximal_step(f, y, 1.0), "x0"),
                    (lambda: S.bregman_gradient_step(f, y, x, 1.0), "sx0"),
                    (lambda: S.bregman_proximal_step(f, f, y, 1.0), "sx0"),
                    (lambda: S.Combination([(1.0, f)]).oracle(y), "x")):
        with pytest.raises(FairtheoryValueError, match=re.escape(arg) + " is a vector of another PEP"):
            fn()
    p1, p2 = PEP(), PEP()
    A = O.operator(p1, O.Monotone())
    for _ in range(2):
        p2.vector()
    z = p2.vector()
    with pytest.raises(FairtheoryValueError, match="x is a vector of another PEP"):
        O.apply(A, z)
    with pytest.raises(FairtheoryValueError, match="y is a vector of another PEP"):
        O.resolvent(A, z, 1.0)
    # the vectors of its own PEP still pass
    assert S.inexact_gradient(f, x, 0.1) is not None
    assert O.apply(A, p1.vector()) is not None


@pytest.mark.parametrize("name, kw, arg", [
    ("gradient_descent", {"gamma": -1.0}, "gamma"),        # was solved (77084.87, "Solved")
    ("epsilon_subgradient_method", {"gamma": math.nan}, "gamma"),   # raw ValueError
    ("epsilon_subgradient_method", {"eps": "0.1"}, "eps"),          # raw TypeError
    ("gradient_descent", {"n": 0}, "n"),
    ("gradient_descent", {"n": True}, "n"),
    ("subgradient_method", {"M": math.inf}, "M"),
    ("bregman_proximal_point", {"gamma": "3"}, "gamma"),
])
def test_examples_validate_by_name(name: str, kw: dict[str, Any], arg: str) -> None:
    from fairtheory.worstcase import pepit_examples as E

    with pytest.raises((FairtheoryValueError, FairtheoryTypeError), match=rf"^{arg} must be"):
        E.run_example(name, **kw)
    with pytest.raises(FairtheoryError, match=rf"^{arg} must be"):
        getattr(E, name)(**kw)


def test_operator_examples_validate_by_name() -> None:
    from fairtheory.worstcase import pepit_operator_examples as OE

    for fn, kw, arg in ((OE.past_extragradient, {"L": "1"}, "L"), (OE.optimistic_gradient, {"gamma": -0.25}, "gamma"),
                        (OE.douglas_rachford_splitting, {"mu": -0.5}, "mu"), (OE.proximal_point, {"n": 0}, "n"),
                        (OE.three_operator_splitting, {"beta": math.nan}, "beta")):
        with pytest.raises(FairtheoryError, match=rf"^{arg} must be"):
            fn(**kw)
    with pytest.raises(FairtheoryError, match="^alpha must be"):
        OE.run_operator_example("proximal_point", alpha=0.0)
    # published parameters: still solved
    assert OE.run_operator_example("proximal_point").ours > 0
    assert OE.douglas_rachford_splitting(mu=2.0).ours > 0   # mu > L is valid (two different operators)


def test_closed_forms_validate_by_name() -> None:
    """Found by the sweep: ``afl_paper_steps(2, G_lam=0)`` raised ZeroDivisionError, ``D_w = nan`` was accepted;
    ``ppm_huber_value`` accepted ``N = 0``, ``L < 0``, ``gamma = nan`` and raised TypeError on a string."""
    from fairtheory.worstcase.minmax import afl_paper_bound, afl_paper_steps, gda_classical_bound
    from fairtheory.worstcase.proximal_point import ppm_huber_replay, ppm_huber_value

    for fn, arg in ((lambda: afl_paper_steps(2, G_lam=0.0), "G_lam"), (lambda: afl_paper_steps(2, D_w=math.nan), "D_w"),
                    (lambda: afl_paper_bound(2, D_lam=-1.0), "D_lam"),
                    (lambda: gda_classical_bound(2, 0.0, 0.1), "lr"),
                    (lambda: ppm_huber_value(L=1.0, D0=1.0, gamma=1.0, N=0), "N"),
                    (lambda: ppm_huber_value(L=-1.0, D0=1.0, gamma=1.0, N=2), "L"),
                    (lambda: ppm_huber_value(L=1.0, D0=1.0, gamma=math.nan, N=2), "gamma"),
                    (lambda: ppm_huber_value(L=1.0, D0="1", gamma=1.0, N=2), "D0"),
                    (lambda: ppm_huber_replay(L=1.0, D0=1.0, gamma=1.0, N=-1), "N")):
        with pytest.raises(FairtheoryError, match=rf"^{arg} must"):
            fn()
    assert afl_paper_steps(4) == (1.0, 1.0)
    assert ppm_huber_value(L=1.0, D0=1.0, gamma=1.0, N=2) == pytest.approx(0.1, rel=1e-15)


# ------------------------------------------------------------------ regressions (session 12): mu -> L, own objective unit
def _distance_pep(L: float, mu: float, h: float, N: int, prox: bool = False) -> Any:
    """GD (or, ``prox``, one proximal step first) on ``SmoothStronglyConvex(L, mu)``, ``||x_N - x*||^2`` from
    ``||x_0 - x*||^2 <= 1``: the sweep's ``hand GD distance`` calls."""
    from fairtheory.worstcase.classes import SmoothStronglyConvex
    from fairtheory.worstcase.sdp import PEP, sqnorm

    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, mu))
    xs, _, _ = f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x - xs) - 1)
    if prox:
        x = f.prox(x, h / L)[0]
    for _ in range(N):
        x = x - (h / L) * f.grad(x)
    pep.maximize(sqnorm(x - xs))
    return pep


def _rate(L: float, mu: float, h: float, N: int) -> float:
    """Taylor, Hendrickx & Glineur 2018, Thm 3.3: ``max(|1 - h|, |1 - h mu/L|)^(2N)`` (tight, step ``h/L``)."""
    return max(abs(1 - h), abs(1 - h * mu / L)) ** (2 * N)


def _hooked() -> bool:
    """Whether checked_solve takes the reparametrisation and the sparse route's own unit (requests_hostile.md)."""
    from fairtheory.worstcase import checked_solve

    return hasattr(checked_solve, "reparametrise") and hasattr(checked_solve, "_exp_of")


def _exact_value(row: Any, G: list[list[Any]], F: list[Any]) -> Any:
    from fractions import Fraction

    Gd, Fd, c = row
    out = Fraction(c)
    for (a, b), m in Gd.items():
        out += m * G[a][b] * (1 if a == b else 2)
    for k, m in Fd.items():
        out += m * F[k]
    return out


@pytest.mark.parametrize("mu, prox", [(0.95, False), (1 - 1e-6, False), (0.95, True)])
def test_near_quadratic_rows_are_the_original_rows(mu: float, prox: bool) -> None:
    """The reparametrisation ``h = f - mu/2 ||x||^2`` (Taylor, Hendrickx & Glineur 2017, Thm 4's proof) poses the same
    problem: at a random point ``(G', F')`` of the new variables and its image ``G = T^T G' T`` (``F`` from ``h``), every
    row and the objective take the same value, in exact rationals, up to the one rounding of each new coefficient."""
    from fractions import Fraction

    from fairtheory.worstcase.nearly_quadratic import reparametrise

    pep = _distance_pep(1.0, mu, 1.0, 2, prox=prox)
    rep = reparametrise(pep)
    assert rep is not None and rep.pep.functions[0].cls.mu == 0
    assert rep.pep.functions[0].cls.L == pytest.approx(1 - mu, rel=1e-15)
    rng = __import__("numpy").random.default_rng(0)
    d, nf = pep.dim, pep.nf
    A = rng.standard_normal((d, d))
    Gn = [[Fraction(float(v)) for v in row] for row in (A @ A.T)]
    Fn = [Fraction(float(v)) for v in rng.standard_normal(nf)]
    T = rep.T
    G = [[sum(T[i][a] * Gn[i][j] * T[j][b] for i in range(d) for j in range(d)) for b in range(d)] for a in range(d)]
    F = list(Fn)
    for k, s in rep.values.items():   # f_k = h_k + mu/2 ||x_k'||^2, exactly
        (kk, cf), = s.lin.items()
        F[k] = Fraction(cf) * Fn[kk] + sum(Fraction(c) * sum(Fraction(float(u.c[i])) * Gn[i][j] * Fraction(float(v.c[j]))
                                                           for i in range(min(d, u.c.size)) for j in range(min(d, v.c.size)))
                                           for c, u, v in s.quad)
    old, new = pep.export(), rep.pep.export()
    assert (old["n_eq"], old["n_interp"], len(old["rows"])) == (new["n_eq"], new["n_interp"], len(new["rows"]))
    for r_old, r_new in zip(old["rows"] + [old["objective"]], new["rows"] + [new["objective"]], strict=True):
        a, b = _exact_value(r_old, G, F), _exact_value(r_new, Gn, Fn)
        size = sum(abs(m) for m in r_old[0].values()) + sum(abs(m) for m in r_old[1].values()) + 1
        assert abs(a - b) <= Fraction(1, 10**9) * size * (1 + abs(a))


def test_near_quadratic_is_taken_only_near_L() -> None:
    from fractions import Fraction

    from fairtheory.worstcase.classes import SmoothStronglyConvex
    from fairtheory.worstcase.nearly_quadratic import near_quadratic, reparametrise
    from fairtheory.worstcase.sdp import PEP

    assert near_quadratic(SmoothStronglyConvex(1, Fraction(15, 16)))
    assert not near_quadratic(SmoothStronglyConvex(1, Fraction(15, 16) - Fraction(1, 10**9)))
    assert not near_quadratic(SmoothStronglyConvex(1.0, 0.9)) and not near_quadratic(SmoothStronglyConvex(1.0, 0))
    assert reparametrise(_distance_pep(1.0, 0.5, 1.0, 2)) is None
    exact = PEP(exact=True)
    exact.function(SmoothStronglyConvex(1, Fraction(99, 100)))
    exact.maximize(exact.value())
    assert reparametrise(exact) is None   # certificates keep the caller's exact data


@pytest.mark.parametrize("mu, h, N", [(1 - 1e-6, 1.0, 2), (1 - 1e-9, 0.5, 3)])
def test_near_quadratic_contraction_regression(mu: float, h: float, N: int) -> None:
    """Found by the sweep (issue 41): ``mu = 1 - 1e-6``, ``h = 1``, ``N = 2`` returned SDPA-GMP's 9.999984e-25 for
    the exact ``(1 - mu)^4 = 1e-24`` (1.6e-6 low, status Solved); ``mu = 1 - 1e-9``, ``h = 1/2``, ``N = 3`` raised
    SolverError (InsufficientProgress; exact ``(1/2 + 5e-10)^6``).  Reparametrised (``gh = g - mu x``, a
    ``(1 - mu)``-smooth convex ``h``): within 1e-6 (measured 1.1e-7 and 1.2e-9), the Gram matrix mapped back is the
    original PEP's point."""
    from fairtheory.worstcase.nearly_quadratic import reparametrise

    pep = _distance_pep(1.0, mu, h, N)
    want = _rate(1.0, mu, h, N)
    rep = reparametrise(pep)
    assert rep is not None
    sol = rep.map_back(rep.pep.solve())
    assert sol.status == "Solved" and abs(sol.value - want) <= 1e-6 * want, (sol.value, want)
    # the point maps back: in the original basis x_N = x_0 - h/L (g_0 + ..) cancels, so a float evaluation there is
    # accurate to ~1e-16 of the Gram matrix's size only (8.9e-17 against 1e-24 at mu = 1 - 1e-6) - the reason for the
    # new basis
    assert abs(pep.evaluate(pep._objective, sol) - sol.value) <= 1e-12 * float(abs(sol.gram).max())
    assert pep.evaluate(pep._ineq[0], sol) <= 1e-7                             # ||x_0 - x*||^2 <= 1 there
    if _hooked():   # the public route (PEP.solve) takes it
        pub = pep.solve()
        assert pub.status == "Solved" and abs(pub.value - want) <= 1e-6 * want, (pub.value, want)


def test_sparse_route_contraction_in_its_own_unit() -> None:
    """Found by the sweep (issue 41): GD distance ``N = 60`` on ``SmoothStronglyConvex(1, 0.1)``, ``h = 1``: the sparse
    route's value ``0.9^120 = 3.2292460e-6`` came out 3.3e-6 relative off (a cancelling ``||x_0 - s_60||^2`` in the
    basis of partial sums, known to Clarabel's absolute tolerance) and ``PEP.solve`` refused, quoting the proved upper
    end 3.2292572e-6.  Now the late iterates are basis vectors of their own (``sparse_basis(gram=...)``) and the
    relaxation is solved again with the objective in its own size: 1.4e-9 relative (measured)."""
    from fairtheory.worstcase.sparse_solve import solve_sparse

    pep = _distance_pep(1.0, 0.1, 1.0, 60)
    want = _rate(1.0, 0.1, 1.0, 60)
    sol = solve_sparse(pep)
    assert sol.status == "Solved" and abs(sol.value - want) <= 1e-7 * want, (sol.value, want)
    assert sol.obj_unit <= 2.0 ** -10   # solved in its own unit (2^-18)
    assert sol.max_violation <= 1e-8 and sol.min_eig >= -1e-9
    if _hooked():
        pub = pep.solve()
        assert abs(pub.value - want) <= 1e-6 * want and pub.value <= pub.upper, (pub.value, want)


def test_sparse_basis_keeps_partial_sums_for_small_steps() -> None:
    """The measured basis changes only iterates near the origin (``||x_k|| <= NEAR_ORIGIN ||x_k - x_0||``): GD at
    ``h = 0.05`` (``||x_k - x_0|| << ||x_k||``, the convex worst case ``1/14`` at ``N = 60``) keeps the basis of
    partial sums; at ``h = 1``, ``mu = 0.1`` the late iterates become basis vectors of their own (with ``NEAR_ORIGIN =
    1``: from ``k = 7``, where ``0.9^k <= 1 - 0.9^k``)."""
    import numpy as np

    from fairtheory.worstcase.sparse_solve import NEAR_ORIGIN, sparse_basis

    assert NEAR_ORIGIN == 1.0
    for h, mu, N in ((0.05, 0.0, 12), (1.0, 0.1, 6), (1.0, 0.1, 12), (1.0, 0.1, 40)):
        pep = _distance_pep(1.0, mu, h, N)
        M, T, piv = sparse_basis(pep)
        # sizes of a contraction: x_k = (1 - h mu)^k x_0 - the quadratic mu/2 ||x||^2 (g_k = mu x_k)
        d = pep.dim
        # the Gram matrix of the one-dimensional instance f = m/2 x^2 (m = mu, or 1 at mu = 0): basis x_0, g_0, ..,
        # g_{N-1} with g_k = m (1 - h m)^k x_0
        m = mu if mu else 1.0
        sizes = np.array([1.0] + [m * (1 - h * m) ** (j - 1) for j in range(1, d)])
        q = np.outer(sizes, sizes)
        M2, _, piv2 = sparse_basis(pep, q)
        assert piv2 == piv
        cols = [j for j in range(d) if not np.array_equal(M2[:, j], M[:, j])]
        # x_k's pivot is g_{k-1}'s index k: exactly the evaluated iterates (x_1 .. x_{N-1}; x_N is not a point of f)
        # with ||x_k|| <= NEAR_ORIGIN ||x_k - x_0|| changed (none at h = 0.05, mu = 0; none before k = 7 at mu = 0.1)
        want = [k for k in range(1, d - 1) if (1 - h * m) ** k <= NEAR_ORIGIN * (1 - (1 - h * m) ** k)]
        assert cols == want, (h, mu, N, cols)
        assert want[:1] == ([7] if mu and N > 6 else [])  # none at h = 0.05 (N = 12) or N = 6; from k = 7 at mu = 0.1


@pytest.mark.parametrize("L, R2", [(1e-6, 1.0), (1.0, 1e6), (1e6, 1.0), (1.0, 1e-6)])
def test_near_quadratic_contraction_at_every_scale(L: float, R2: float) -> None:
    """My scale check: ``||x_2 - x*||^2`` at ``mu = L (1 - 1e-6)``, ``h = 1`` is ``R^2 (1e-6)^4`` at every ``L`` and
    ``R``; the worst case lies on the face ``gh = 0`` (the quadratic ``mu/2 ||x||^2``) far below the new basis' units.
    Measured with the SDPA-GMP re-solve in the original class's units (``checked_solve._gmp(units=...)``): within
    7.4e-8 at every scale here (without it: 226x and 2600x high at ``L = 1e-6`` and ``R^2 = 1e6``, status Solved)."""
    from fairtheory.worstcase.classes import SmoothStronglyConvex
    from fairtheory.worstcase.sdp import PEP, sqnorm

    pep = PEP()
    f = pep.function(SmoothStronglyConvex(L, L * (1 - 1e-6)))
    xs, _, _ = f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x - xs) - R2)
    for _ in range(2):
        x = x - (1.0 / L) * f.grad(x)
    pep.maximize(sqnorm(x - xs))
    want = R2 * (1 - (L * (1 - 1e-6)) / L) ** 4
    s = pep.solve()
    assert s.status == "Solved" and abs(s.value - want) <= 1e-6 * want, (s.value, want)


def test_first_try_point_is_not_lifted_above_the_worst_case() -> None:
    """Held-out sweep, seed 4112: a first float solve without Clarabel's iterative refinement returned a "Solved"
    point infeasible enough that its objective - the bracket's lower end - and the repaired upper end agreed at
    0.0040699462, 7.2e-5 above the exact ``max((1 - gamma L)^2, (1 - gamma mu)^2)^n`` (Polyak 1987), reported as
    "exact".  With refinement on: within 1e-9."""
    from fairtheory.worstcase.pepit_examples import run_example

    L, mu, gamma, n = 809000.0, 573000.0, 1.73e-06, 3
    r = run_example("gradient_descent_contraction", L=L, mu=mu, gamma=gamma, n=n)
    want = max((1 - L * gamma) ** 2, (1 - mu * gamma) ** 2) ** n
    assert r.status == "Solved" and abs(r.ours - want) <= 1e-9 * want, (r.ours, want)
