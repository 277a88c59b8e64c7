"""Exact solvers for problem (8) of 001 (reconstructed): SDP route vs global search, certificates,
special cases, phi selection and validation."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.exact.relative import (
    NotConvexRegimeError,
    global_search_minimax,
    index_curve,
    select_phi,
    solve_integrated_minimax,
)
from fairtheory.objectives.relative import convex_regime
from fairtheory.problems.quadratic import QuadraticProblem, random_quadratic
from fairtheory.sets import CappedSimplex, IntegratedSet


def _instances(count, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n, d = int(rng.integers(2, 5)), int(rng.integers(1, 4))
        P = random_quadratic(n, d, rng=rng, mu=float(rng.uniform(0.3, 1.0)), L=2.0, spread=2.0, offset=1.0)
        A = CappedSimplex.cvar(n, float(rng.uniform(1 / n, 1)))
        B = A if rng.random() < 0.5 else CappedSimplex.simplex(n)
        phi = float(rng.uniform(0, 0.8))
        while not convex_regime(P, IntegratedSet(A, B, phi)).convex:
            phi *= 0.5
        yield P, IntegratedSet(A, B, phi)


def test_routes_agree_convex_regime():
    for P, I in _instances(5):
        sdp = solve_integrated_minimax(P, I)
        gs = global_search_minimax(P, I)
        assert gs.status == "global search" and sdp.status == "optimal"
        assert abs(gs.value - sdp.value) <= 1e-6 * max(1.0, abs(sdp.value))
        assert abs(sdp.certificate["gap"]) <= 5e-9 * max(1.0, abs(sdp.value))
        assert 0 <= sdp.certificate["gap_closed_form"] <= 5e-8 * max(1.0, abs(sdp.value))


@pytest.mark.slow
def test_routes_agree_convex_regime_many():
    for P, I in _instances(40, seed=1):
        sdp = solve_integrated_minimax(P, I)
        gs = global_search_minimax(P, I)
        assert abs(gs.value - sdp.value) <= 1e-6 * max(1.0, abs(sdp.value))


def test_result_shape_and_members():
    P = random_quadratic(5, 3, rng=np.random.default_rng(2), offset=1.0)
    A, B = CappedSimplex.cvar(5, 0.4), CappedSimplex.cvar(5, 0.6)
    I = IntegratedSet(A, B, 0.3)
    r = solve_integrated_minimax(P, I)
    assert r.argmin.shape == (3,) and r.weights.shape == (5,)
    assert abs(r.weights.sum() - 1.0) <= 1e-9
    assert A.contains(r.extra["a"]) and B.contains(r.extra["b"])
    assert np.allclose(r.weights, (r.extra["a"] - 0.3 * r.extra["b"]) / 0.7, atol=1e-12)
    assert r.value == pytest.approx(I.support(P.losses(r.argmin)), rel=1e-14)
    assert set(r.certificate) >= {"gap", "primal", "dual", "gap_closed_form"}


def test_common_hessian_closed_form():
    """f_i = 0.5||w - c_i||^2 + e_i with A = B = Delta, n = 2: the optimum equalises the two losses on
    the segment (with e = 0: midpoint), value ||c_1 - c_2||^2/8 for every phi."""
    c = np.array([[0.0, 0.0], [2.0, 0.0]])
    P = QuadraticProblem(np.broadcast_to(np.eye(2), (2, 2, 2)).copy(), c)
    S = CappedSimplex.simplex(2)
    for phi in (0.0, 0.5, 0.9):
        r = solve_integrated_minimax(P, IntegratedSet(S, S, phi))
        assert r.value == pytest.approx(0.5, abs=1e-8)
        assert np.allclose(r.argmin, [1.0, 0.0], atol=1e-5)


def test_phi_zero_singleton_is_weighted_least_squares():
    P = random_quadratic(4, 2, rng=np.random.default_rng(3))
    p = np.array([0.1, 0.2, 0.3, 0.4])
    S = CappedSimplex.singleton(p)
    r = solve_integrated_minimax(P, IntegratedSet(S, S, 0.0))
    Hp = np.einsum("i,ijk->jk", p, P.H)
    w = np.linalg.solve(Hp, p @ P.r)
    assert np.allclose(r.argmin, w, atol=1e-6)


def test_not_convex_regime_raises():
    Pe = QuadraticProblem(np.stack([np.eye(2), 5 * np.eye(2)]), np.array([[0.0, 0.0], [1.0, 1.0]]))
    S = CappedSimplex.simplex(2)
    with pytest.raises(NotConvexRegimeError, match="convex_regime"):
        solve_integrated_minimax(Pe, IntegratedSet(S, S, 0.5))


def test_penguins_nonconvex_certified_by_gap_and_global_search():
    from fairtheory.problems.penguins import penguins_problem

    P = penguins_problem()
    S = CappedSimplex.simplex(3)
    I = IntegratedSet(S, S, 0.3)
    assert convex_regime(P, I).convex is False
    r = solve_integrated_minimax(P, I, require_convex=False)
    assert 0 <= r.certificate["gap_closed_form"] <= 1e-6
    g = global_search_minimax(P, I)
    assert abs(g.value - r.value) <= 1e-6 * r.value


def test_index_curve_and_select_phi():
    P = random_quadratic(5, 2, rng=np.random.default_rng(4), spread=2.0, offset=0.5)
    S = CappedSimplex.cvar(5, 0.4)
    sel = select_phi(P, S, S, [0.0, 0.1, 0.2])
    c = sel.curve
    assert c["index"].shape == (3,) and np.all(c["index"] >= 1 - 1e-12)
    util = np.sqrt(c["U"] * c["index"])
    assert sel.utility == pytest.approx(util.min()) and sel.phi == c["phi"][int(np.argmin(util))]
    cur = index_curve(P, S, S, [0.0, 0.2])
    assert np.allclose(cur["index"], c["index"][[0, 2]], rtol=1e-7)


def test_validation():
    P = random_quadratic(3, 2, rng=np.random.default_rng(5))
    S = CappedSimplex.simplex(4)
    with pytest.raises(FairtheoryValueError, match="n=4"):
        solve_integrated_minimax(P, IntegratedSet(S, S, 0.1))
    with pytest.raises(FairtheoryTypeError):
        solve_integrated_minimax(P, "set")
    with pytest.raises(FairtheoryTypeError):
        solve_integrated_minimax(object(), IntegratedSet(S, S, 0.1))
    P4 = random_quadratic(3, 4, rng=np.random.default_rng(5))
    S3 = CappedSimplex.simplex(3)
    with pytest.raises(FairtheoryValueError, match="problem.d"):
        global_search_minimax(P4, IntegratedSet(S3, S3, 0.1))
    with pytest.raises(FairtheoryValueError, match="phis"):
        index_curve(P, S3, S3, [0.0, 1.0])
