"""fairtheory.worstcase.exact_lower: rigorous lower bounds (exactly feasible rational points) and their forgeries."""

from __future__ import annotations

import dataclasses
from fractions import Fraction as Q

import numpy as np
import pytest

from fairtheory.worstcase.checked_solve import gmp_available
from fairtheory.worstcase.classes import SmoothStronglyConvex
from fairtheory.worstcase.exact_lower import ExactData, LowerBound, LowerBoundError, lower_bound, lower_bound_pep
from fairtheory.worstcase.sdp import PEP, sqnorm


def _gd(n: int, h: Q = Q(1), exact: bool = True) -> PEP:
    """GD on 1-smooth convex f, n steps, ||x0 - x*||^2 <= 1, maximise f(x_n) - f*."""
    pep = PEP(exact=exact)
    f = pep.function(SmoothStronglyConvex(1, 0))
    f.optimum()
    x = pep.vector()
    pep.add_le(sqnorm(x) - 1)
    for _ in range(n):
        x = x - (h if exact else float(h)) * f.grad(x)
    pep.maximize(f.value(x))
    return pep


@pytest.mark.parametrize("gmp", ["never", "always"])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_gd_lower_bound_is_below_and_within_1e9_of_drori_teboulle(n: int, gmp: str) -> None:
    if gmp == "always" and not gmp_available():
        pytest.skip("SDPA-GMP is not installed")
    pep = _gd(n)
    sol = pep.solve(gmp=gmp)
    lb = lower_bound_pep(pep, sol)
    closed = Q(1, 4 * n + 2)                       # Drori & Teboulle 2014, tight at h = 1
    assert lb.verify() and lb.verify(pep) and lb.data.source == "export"
    assert lb.value <= closed                      # exact: a feasible point never beats the worst case
    assert closed - lb.value <= Q(1, 10**9) * closed
    # against the solver: GMP's value; a float solve's primal value may lie below the optimum (Clarabel's does here,
    # by 1e-9), so its proved upper end (the exact repair's) is the reference there
    ref = sol.value if sol.solver == "sdpa-gmp" else sol.upper
    assert float(lb.value) <= ref * (1 + 1e-12)


def test_the_solutions_float_data_give_a_bound_too() -> None:
    """From the data a solve keeps (SDPSolution.rows, natural coordinates): Clarabel's own point (feasible to its
    1e-8 tolerance, no polish) loses ~1e-7; SDPA-GMP's point is within 1e-9."""
    pep = _gd(2)
    sol = pep.solve(gmp="never")
    lb = lower_bound(ExactData.from_solution(sol), sol.gram, sol.F)
    assert lb.verify() and lb.data.source == "solution"
    assert Q(1, 10) - Q(1, 10**6) <= lb.value <= Q(1, 10)
    if gmp_available():
        g = pep.solve(gmp="always")
        lb = lower_bound(ExactData.from_solution(g), g.gram, g.F)
        assert lb.verify() and Q(1, 10) - Q(1, 10**10) <= lb.value <= Q(1, 10)


def test_non_dyadic_data_are_exact_only_in_an_exact_pep() -> None:
    """h = 1/10: the exact PEP's data hold 1/10; the float PEP's hold the double 0.1 (another PEP, another hash)."""
    ex, fl = ExactData.from_pep(_gd(1, Q(1, 10))), ExactData.from_pep(_gd(1, Q(1, 10), exact=False))
    assert ex.fingerprint() != fl.fingerprint()
    assert any(v == Q(1, 10) or v == Q(-1, 10) for terms, _ in ex.rows for _, v in terms)
    assert not any(abs(v) == Q(1, 10) for terms, _ in fl.rows for _, v in terms)


def test_a_grossly_infeasible_point_is_repaired_by_mixing() -> None:
    pep = _gd(1)
    sol = pep.solve()
    lb = lower_bound_pep(pep, dataclasses.replace(sol, gram=2 * sol.gram))  # ||x0||^2 = 2 > 1
    assert lb.verify() and lb.info["violated"] >= 1 and 0 <= lb.info["t"] < 1
    assert lb.value <= Q(1, 6)


# ------------------------------------------------------------------------------------------------ forgeries
@pytest.fixture(scope="module")
def gd1() -> tuple[PEP, LowerBound]:
    pep = _gd(1)
    return pep, lower_bound_pep(pep)


def test_a_point_edited_to_violate_a_row_is_refused(gd1) -> None:
    _, lb = gd1
    F = list(lb.F)
    F[-1] += Q(1, 10)                              # f(x_1) raised: an interpolation row fails
    assert not dataclasses.replace(lb, F=tuple(F)).verify()
    G = [list(r) for r in lb.G]
    G[0][0] += 1                                   # ||x0 - x*||^2 > 1 (and G no longer W diag(w) W^T)
    bad = dataclasses.replace(lb, G=tuple(map(tuple, G)))
    assert not bad.verify()
    assert not dataclasses.replace(bad, W=None, w=None).verify()   # without a factor: the row still fails


def test_a_gram_matrix_that_is_not_psd_is_refused(gd1) -> None:
    _, lb = gd1
    d = lb.data.dim
    G = [[Q(0)] * d for _ in range(d)]
    G[0][0] = Q(1, 2)
    G[0][1] = G[1][0] = Q(1, 1000)                 # [[1/2, 1/1000], [1/1000, 0]]: determinant < 0, not PSD
    F = tuple(Q(0) for _ in lb.F)
    direct = LowerBound(lb.data, tuple(map(tuple, G)), F, Q(0))
    x = [G[a][b] for b in range(d) for a in range(b + 1)] + list(F)     # natural coordinates
    assert all(lb.data.evaluate(x, r) <= 0 for r in lb.data.rows)       # every row holds: only the PSD test refuses
    assert not direct.verify()
    # the same G with a factor that does not produce it, or negative weights
    assert not dataclasses.replace(direct, W=lb.W, w=lb.w).verify()
    assert not dataclasses.replace(lb, w=tuple(-v for v in lb.w)).verify()
    # the positive control: a PSD G given directly (no factor) passes the exact PSD test
    assert dataclasses.replace(lb, W=None, w=None).verify()


def test_a_value_above_the_points_objective_is_refused(gd1) -> None:
    _, lb = gd1
    assert not dataclasses.replace(lb, value=lb.value + Q(1, 10**30)).verify()
    assert dataclasses.replace(lb, value=lb.value - Q(1, 10**30)).verify()   # weaker, still true


def test_a_point_of_another_pep_is_refused(gd1) -> None:
    pep, lb = gd1
    other = _gd(1, Q(1, 2))
    assert not lb.verify(other)                    # claimed for another PEP's data
    assert not lb.verify(_gd(2))
    # transplanted: the h = 1 worst-case point in the h = 1/2 PEP violates its rows
    moved = dataclasses.replace(lb, data=ExactData.from_pep(other))
    assert not moved.verify()
    assert lb.verify(pep) and lb.verify(pep.export())


def test_shapes_and_failures_are_named() -> None:
    pep = _gd(1)
    with pytest.raises(ValueError, match="G must be"):
        lower_bound(pep, np.eye(2), np.zeros(2))
    with pytest.raises(ValueError, match="finite"):
        lower_bound(pep, np.full((pep.dim, pep.dim), np.nan), np.zeros(pep.nf))
    # an interior point that is not strictly feasible cannot repair a violated row
    sol = pep.solve()
    with pytest.raises(LowerBoundError):
        lower_bound(pep, 2 * sol.gram, sol.F, interior=(2 * sol.gram, sol.F))
