"""Exact repair of float PEP solves (fairtheory/worstcase/exact_repair.py, issue 41): the proved upper end never lies
below the exact worst case, forged certificates are refused by the independent re-check, and the route does not
depend on the last bits of the float solve."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

from fairtheory.worstcase import exact_repair as X
from fairtheory.worstcase.classes import SmoothStronglyConvex
from fairtheory.worstcase.sdp import PEP, sqnorm

N = 3


def _gd1(n: int) -> PEP:
    """GD with L = 1, gamma = 1 (exact floats): worst case 1 / (4 n + 2) exactly."""
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(1.0, 0))
    f.optimum()
    x0 = pep.vector()
    pep.add_le(sqnorm(x0) - 1)
    x = x0
    for _ in range(n):
        x = x - f.grad(x)
    pep.maximize(f.value(x))
    return pep


EXACT = Fraction(1, 4 * N + 2)


@pytest.fixture(scope="module")
def raw():
    return _gd1(N).solve(raw=True, method="dense")


@pytest.fixture(scope="module")
def interior(raw):
    tr = float(np.trace(raw.gram))
    delta = X.BACKOFF * abs(raw.value) / tr
    return _gd1(N).solve(raw=True, method="dense", trace_weight=delta), delta


def test_repair_is_a_certificate_and_upper_is_above_truth(raw, interior) -> None:
    tight = X.repair(raw, polish=False)
    assert tight is not None and X.verify(raw, tight)
    si, delta = interior
    inner = X.repair(si, polish=False, margin=0.5 * delta)
    assert inner is not None and inner.eps < 0 and X.verify(si, inner)
    up = X.upper_from(tight, inner)
    assert up is not None and up >= EXACT
    assert float(up - EXACT) <= 1e-7 * float(EXACT)


def test_checked_solve_reports_a_value_within_tol_of_the_proved_upper_end() -> None:
    sol = _gd1(N).solve()
    assert sol.value_is == "exact" and "exact-repair" in sol.solver and sol.status == "Solved"
    assert sol.value == sol.lower <= sol.upper and Fraction(sol.upper) >= EXACT
    assert sol.upper - sol.lower <= 1e-7 * sol.upper
    assert abs(sol.value - float(EXACT)) <= 1e-7 * float(EXACT)


def test_bracket_contains_truth_for_a_larger_problem() -> None:
    sol = _gd1(12).solve()
    exact = Fraction(1, 4 * 12 + 2)
    assert Fraction(sol.upper) >= exact and sol.value <= sol.upper
    assert abs(sol.value - float(exact)) <= 1e-7 * float(exact)


# ------------------------------------------------------------------------------------------------ forgeries
def test_forged_lower_bound_refused(raw) -> None:
    tight = X.repair(raw, polish=False)
    forged = dataclasses.replace(tight, bound=tight.bound - Fraction(1, 10 ** 6))
    assert not X.verify(raw, forged)


def test_forged_smaller_shift_refused(raw) -> None:
    tight = X.repair(raw, polish=False)
    assert tight.eps > 0  # the float solve's slack is indefinite at the 1e-10 level: a shift is needed
    assert not X.verify(raw, dataclasses.replace(tight, eps=Fraction(0)))


def test_forged_multipliers_refused(raw) -> None:
    tight = X.repair(raw, polish=False)
    lam = list(tight.lam)
    k = max(range(len(lam)), key=lambda i: lam[i])
    lam[k] += Fraction(1, 2 ** 30)  # breaks (i) (the value cancellation) and the bound
    assert not X.verify(raw, dataclasses.replace(tight, lam=lam))
    neg = list(tight.lam)
    neg[-1] = Fraction(-1, 2 ** 40)  # an inequality multiplier below 0
    assert not X.verify(raw, dataclasses.replace(tight, lam=neg))


def test_perturbed_multipliers_widen_never_undercut(raw) -> None:
    """Whatever float multipliers the repair is handed, what it proves is above the exact worst case: it refuses,
    or its shift grows (a wider bracket)."""
    rng = np.random.default_rng(0)
    base = X.repair(raw, polish=False)
    for scale in (1e-9, 1e-6, 1e-3, 1e-1):
        z = np.asarray(raw.z) * (1 + scale * rng.standard_normal(len(raw.z)))
        s2 = dataclasses.replace(raw, z=z)
        rep = X.repair(s2, polish=False)
        if rep is None:
            continue
        assert X.verify(s2, rep)
        T = Fraction(10)  # any a-priori trace bound: the bound proved with it is b + eps T
        assert rep.bound + rep.eps * T >= EXACT
        assert rep.bound + rep.eps * T >= base.bound + base.eps * T or scale < 1e-6


def test_rounding_that_breaks_the_equalities_is_restored(raw) -> None:
    """Multipliers off the value cancellation (i) by 1e-9: the exact linear solve restores (i) exactly."""
    z = np.asarray(raw.z).copy()
    z[np.argmax(z)] *= 1 + 1e-9
    s2 = dataclasses.replace(raw, z=z)
    rep = X.repair(s2, polish=False)
    assert rep is not None and X.verify(s2, rep)


def test_certified_value_never_above_its_certificate(raw, interior) -> None:
    si, delta = interior
    br = X.exact_bracket(raw, lambda d: si if d > 0 else None, tol=1e-7)
    assert br.value <= br.upper and br.upper_exact is not None and Fraction(br.upper) >= br.upper_exact
    with pytest.raises(ValueError, match="above the proved upper bound"):
        X.exact_bracket(raw, lambda d: si, tol=1e-7, lower=float(EXACT) * 1.01, lower_rigorous=True)


def test_no_upper_without_a_payer(raw) -> None:
    """A shifted slack and neither a trace bound nor an interior end (nor the zero-shift stage): no upper bound is
    claimed."""
    tight = X.repair(raw, polish=False)
    assert tight.eps > 0 and X.upper_from(tight, None, None) is None
    br = X.exact_bracket(raw, None, newton=False, zero=False)
    assert br.value_is == "lower" and br.upper == float("inf")


def test_zero_shift_pays_without_a_trace_bound(raw) -> None:
    """The same solve with the zero-shift stage: ``S(lambda) >= 0`` exactly (``eps = 0``), re-checked from scratch,
    and its bound above the exact worst case and within 1e-7 of it."""
    br = X.exact_bracket(raw, None, newton=False)
    assert br.tight is not None and br.tight.eps == 0 and X.verify(raw, br.tight)
    assert "zero shift" in br.info["stages"]
    assert br.upper_exact is not None and br.upper_exact >= EXACT
    assert float(br.upper_exact - EXACT) <= 1e-7 * float(EXACT)


# ------------------------------------------------------------------------------------------- determinism
def test_route_does_not_depend_on_last_bits(raw, interior) -> None:
    """The last bits of the float multipliers and point change neither the decision nor, beyond 1e-9, the value."""
    si, _ = interior
    outs = []
    for k in range(3):
        z = np.asarray(raw.z) * (1 + k * 2.0 ** -50)
        g = np.asarray(raw.gram) * (1 + k * 2.0 ** -50)
        s2 = dataclasses.replace(raw, z=z, gram=g)
        br = X.exact_bracket(s2, lambda d: si, tol=1e-7)
        outs.append((br.value_is, br.upper))
    assert len({o[0] for o in outs}) == 1
    assert max(o[1] for o in outs) - min(o[1] for o in outs) <= 1e-9 * float(EXACT)


def test_statuses_repeat() -> None:
    a, b = _gd1(5).solve(), _gd1(5).solve()
    assert (a.status, a.value_is, a.solver) == (b.status, b.value_is, b.solver)


def _prox_grad(n: int) -> PEP:
    """Proximal gradient, f1 SmoothStronglyConvex(1, 0.1) + f2 Convex(), gamma = 1: ``0.9^(2n)`` (Taylor, Hendrickx
    & Glineur 2018, Thm 3.1).  ``tr G`` is unbounded on its feasible set: no interior end exists."""
    from fairtheory.worstcase.classes import Convex

    pep = PEP()
    f1 = pep.function(SmoothStronglyConvex(1.0, 0.1))
    f2 = pep.function(Convex())
    pep.optimum_of_sum([f1, f2])
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    for _ in range(n):
        x = f2.prox(x - f1.grad(x), 1.0)[0]
    pep.maximize(sqnorm(x))
    return pep


def test_unbounded_trace_falls_back_and_never_claims_exact() -> None:
    """Where the shifted repair cannot pay for its shift (no zero-shift stage) it proves no upper bound
    (``value_is`` is never ``"exact"`` then)."""
    pep = _prox_grad(2)
    raw = pep.solve(raw=True, method="dense")
    tight = X.repair(raw, polish=False)
    if tight is not None and tight.eps == 0:  # the rounded multipliers happened to be PSD exactly: a bound anyway
        assert X.verify(raw, tight) and tight.bound >= Fraction(0.9 ** 4) * (1 - Fraction(1, 10 ** 9))
        return
    br = X.exact_bracket(raw, lambda d: None, newton=False, zero=False)
    assert br.value_is == "lower" and br.upper == float("inf")


def test_unbounded_trace_certified_by_the_zero_shift() -> None:
    """The same composite PEP (``tr G`` unbounded) through the checked solve, GMP off: certified by an exactly PSD
    slack (``eps = 0``), the value within 1e-7 of the tight ``0.9^4`` and never above the proved bound."""
    sol = _prox_grad(2).solve(gmp="never")
    truth = 0.9 ** 4
    assert sol.value_is == "exact" and sol.value <= sol.upper
    assert abs(sol.value - truth) <= 1e-7 * truth
    assert sol.upper - sol.lower <= 1e-7 * sol.upper


# ------------------------------------------------------------------------- unbounded is a result (hostile sweep)
def test_unbounded_without_initial_condition_is_reported() -> None:
    """GD on a smooth function with no row bounding the start: a ray (x0 -> inf), status "Unbounded"."""
    pep = PEP()
    f = pep.function(SmoothStronglyConvex(1.0, 0))
    _, _, fs = f.optimum()
    x = pep.vector()
    for _ in range(2):
        x = x - 1.0 * f.grad(x)
    pep.maximize(f.value(x) - fs)
    sol = pep.solve()
    assert sol.status == "Unbounded" and sol.value == float("inf")


@pytest.mark.parametrize("rho,gamma", [(3e-4, 1e-4), (3e4, 1e4), (1.0, 1 / 3)])
def test_unbounded_ray_checked_in_units(rho: float, gamma: float) -> None:
    """A comonotone resolvent with gamma <= rho is unbounded at every scale (the ray is checked in normalised
    variables: off unit scale it was refused and the call raised SolverError)."""
    from fairtheory.worstcase import operators as O

    pep = PEP()
    A = O.operator(pep, O.NegativelyComonotone(rho))
    xs = O.declare_zero(A)
    x = pep.vector()
    pep.add_le(sqnorm(x - xs) - 1)
    x, _ = O.resolvent(A, x, gamma)
    pep.maximize(sqnorm(x - xs))
    sol = pep.solve()
    assert sol.status == "Unbounded" and sol.value == float("inf")
