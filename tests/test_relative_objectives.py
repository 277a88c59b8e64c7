"""Relative fairness objectives (001, reconstructed): index, discrepancy, Prop. 9,
Lemma 8, convex regime, skewness - special cases by hand and validation."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.objectives.relative import (
    convex_regime,
    discrepancy,
    discrepancy_at,
    lemma8_bound,
    prop9_bounds,
    relative_index,
    relative_index_at,
    skewness,
    unfairness_parts,
)
from fairtheory.problems.quadratic import QuadraticProblem, random_quadratic
from fairtheory.sets import CappedSimplex, IntegratedSet


def test_index_by_hand():
    f = np.array([1.0, 2.0, 3.0, 4.0, 10.0])
    S = CappedSimplex.simplex(5)
    assert relative_index(f, S, S) == pytest.approx(10.0, rel=1e-15)
    c = CappedSimplex.cvar(5, 0.4)  # top-2 / bottom-2 means
    assert relative_index(f, c, c) == pytest.approx(7.0 / 1.5, rel=1e-15)
    u = CappedSimplex.singleton(np.full(5, 0.2))
    assert relative_index(f, u, S) == pytest.approx(4.0, rel=1e-15)  # mean / min
    assert relative_index(f, u, u) == pytest.approx(1.0, rel=1e-15)
    assert unfairness_parts(f, S, S) == (10.0, 1.0)


def test_index_fractional_cvar():
    f = np.array([1.0, 2.0, 3.0])
    c = CappedSimplex.cvar(3, 0.5)  # 1.5 entries: (3 + 0.5*2)/1.5 over (1 + 0.5*2)/1.5
    assert relative_index(f, c, c) == pytest.approx(4.0 / 2.0, rel=1e-15)


def test_index_equal_sets_at_least_one():
    rng = np.random.default_rng(0)
    for _ in range(50):
        f = rng.uniform(0.1, 5, size=7)
        S = CappedSimplex.cvar(7, float(rng.uniform(1 / 7, 1)))
        assert relative_index(f, S, S) >= 1.0 - 1e-15


def test_discrepancy_matches_integrated_support():
    rng = np.random.default_rng(1)
    for _ in range(30):
        f = rng.uniform(0.1, 5, size=6)
        A, B = CappedSimplex.cvar(6, 0.3), CappedSimplex.cvar(6, 0.6)
        phi = float(rng.uniform(0, 0.99))
        D = discrepancy(f, A, B, phi)
        assert D == pytest.approx(A.support(f) - phi * B.lower(f), rel=1e-14)
        assert D / (1 - phi) == pytest.approx(IntegratedSet(A, B, phi).support(f), rel=1e-12)


def test_at_problem_wrappers():
    P = random_quadratic(4, 2, rng=np.random.default_rng(2), offset=1.0)
    w = np.array([0.3, -0.2])
    S = CappedSimplex.simplex(4)
    f = np.asarray(P.losses(w))
    assert relative_index_at(P, w, S, S) == pytest.approx(f.max() / f.min(), rel=1e-15)
    assert discrepancy_at(P, w, S, S, 0.5) == pytest.approx(f.max() - 0.5 * f.min(), rel=1e-15)


def test_index_validation():
    S = CappedSimplex.simplex(3)
    with pytest.raises(FairtheoryValueError, match="Assumption 1"):
        relative_index([0.0, 1.0, 2.0], S, S)
    with pytest.raises(FairtheoryValueError, match="shape"):
        relative_index([1.0, 2.0], S, S)
    with pytest.raises(FairtheoryTypeError):
        relative_index([1.0, 2.0, 3.0], "simplex", S)
    with pytest.raises(FairtheoryValueError, match="same n"):
        relative_index([1.0, 2.0, 3.0], S, CappedSimplex.simplex(4))
    with pytest.raises(FairtheoryValueError, match="phi"):
        discrepancy([1.0, 2.0, 3.0], S, S, 1.0)


def test_prop9_by_hand_and_monotone():
    lo, hi = prop9_bounds(3.0, 2.0, 0.0, 1.0, 4.0)
    assert (lo, hi) == (0.75, 3.0)
    lo, hi = prop9_bounds(3.0, 2.0, 0.5, 1.0, 4.0)
    assert lo == pytest.approx(0.5 + 2.0 / 4.0) and hi == pytest.approx(0.5 + 2.0 / 1.0)
    phis = np.linspace(0, 0.99, 50)
    lo, hi = prop9_bounds(3.0, 2.0, phis, 1.5, 2.5)
    assert np.all(lo <= 1.5) and np.all(hi >= 1.5)
    assert np.all(np.diff(lo) >= 0) and np.all(np.diff(hi) <= 0)
    lo, hi = prop9_bounds(3.0, 2.0, phis, 2.0, 2.0)  # c = C = V: both bounds are exact
    assert np.allclose(lo, 1.5, rtol=0, atol=1e-15) and np.allclose(hi, 1.5, rtol=0, atol=1e-15)


def test_prop9_validation():
    with pytest.raises(FairtheoryValueError, match="V must lie"):
        prop9_bounds(3.0, 2.0, 0.1, 2.5, 4.0)
    with pytest.raises(FairtheoryValueError, match="phi"):
        prop9_bounds(3.0, 2.0, [0.1, 1.0], 1.0, 4.0)
    with pytest.raises(FairtheoryValueError, match="U - phi V"):
        prop9_bounds(1.0, 2.0, 0.9, 1.0, 4.0)
    with pytest.raises(FairtheoryValueError):
        prop9_bounds(3.0, 2.0, 0.1, 0.0, 4.0)


def test_lemma8_bound_values():
    assert lemma8_bound(1.0, 2.0, 0.0) == 1.0
    assert lemma8_bound(1.0, 2.0, 0.5) == 0.0
    assert lemma8_bound(1.0, 3.0, 0.5) == pytest.approx(-1.0)
    with pytest.raises(FairtheoryValueError):
        lemma8_bound(2.0, 1.0, 0.1)  # L < mu


def test_convex_regime_common_hessian_and_extremal():
    n, d = 4, 2
    P = QuadraticProblem(np.broadcast_to(np.diag([1.0, 3.0]), (n, d, d)).copy(), np.arange(8.0).reshape(4, 2))
    S = CappedSimplex.simplex(n)
    r = convex_regime(P, IntegratedSet(S, S, 0.9))
    assert r.method == "common-hessian" and r.min_eig == pytest.approx(1.0) and r.convex
    # extremal pair H1 = mu I, H2 = L I: min eig = (mu - phi L)/(1 - phi) exactly (Lemma 8 attained)
    Pe = QuadraticProblem(np.stack([np.eye(2), 3 * np.eye(2)]), np.zeros((2, 2)))
    S2 = CappedSimplex.simplex(2)
    for phi in (0.0, 0.2, 1 / 3, 0.6):
        r = convex_regime(Pe, IntegratedSet(S2, S2, phi))
        assert r.method == "vertices"
        assert r.min_eig == pytest.approx(lemma8_bound(1.0, 3.0, phi), abs=1e-12)
        assert r.convex == (phi < 1 / 3 - 1e-12)


def test_convex_regime_vertices_match_integrated_vertices():
    rng = np.random.default_rng(3)
    P = random_quadratic(4, 2, rng=rng, mu=0.5, L=2.0)
    A, B = CappedSimplex.cvar(4, 0.5), CappedSimplex.simplex(4)
    I = IntegratedSet(A, B, 0.2)
    ref = min(np.linalg.eigvalsh(np.einsum("i,ijk->jk", v, P.H))[0] for v in I.vertices())
    assert convex_regime(P, I).min_eig == pytest.approx(ref, abs=1e-12)


def test_convex_regime_eigen_bound_large_n():
    P = random_quadratic(20, 2, rng=np.random.default_rng(4), mu=1.0, L=2.0)
    S = CappedSimplex.simplex(20)
    r = convex_regime(P, IntegratedSet(S, S, 0.1))
    assert r.method == "eigen-bound" and r.convex is True
    assert r.min_eig >= lemma8_bound(1.0, 2.0, 0.1) - 1e-12
    r = convex_regime(P, IntegratedSet(S, S, 0.9))
    assert r.convex is None  # sufficient test undecided


def test_convex_regime_validation():
    S = CappedSimplex.simplex(3)
    with pytest.raises(FairtheoryTypeError):
        convex_regime(object(), IntegratedSet(S, S, 0.1))
    P = random_quadratic(4, 2, rng=np.random.default_rng(5))
    with pytest.raises(FairtheoryValueError, match="n=3"):
        convex_regime(P, IntegratedSet(S, S, 0.1))


def test_skewness_by_hand():
    S = CappedSimplex.simplex(3)
    assert skewness(S) == pytest.approx(3.0)
    assert skewness(CappedSimplex.singleton(np.full(3, 1 / 3))) == pytest.approx(1.0)
    # Lambda_phi(Delta, Delta): vertex (e_i - phi e_j)/(1 - phi) -> n (1 + phi^2)/(1 - phi)^2
    for phi in (0.0, 0.3, 0.8):
        ref = 3 * (1 + phi**2) / (1 - phi) ** 2
        assert skewness(IntegratedSet(S, S, phi)) == pytest.approx(ref, rel=1e-12)
    with pytest.raises(FairtheoryTypeError):
        skewness([1, 2])


def test_skewness_not_monotone_outside_nested_setting():
    """Documented limitation (not a claim of 001): non-nested singletons A={(0.4,0.6)}, B={(0,1)}."""
    A, B = CappedSimplex.singleton([0.4, 0.6]), CappedSimplex.singleton([0.0, 1.0])
    assert skewness(IntegratedSet(A, B, 0.1)) < skewness(IntegratedSet(A, B, 0.0))


# ------------------------------------------------------------------------------ properties
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from fairtheory.testing.strategies import integrated_sets  # noqa: E402


@given(iset=integrated_sets(min_n=1, max_n=6), data=st.data())
def test_index_properties(iset, data):
    """Scale invariance of I, D_phi/(1-phi) = support over Lambda_phi, and Prop. 9 at c = C = V."""
    n = iset.n
    f = np.array(data.draw(st.lists(st.floats(0.01, 100.0), min_size=n, max_size=n)))
    A, B = iset.A, iset.B
    U, V = unfairness_parts(f, A, B)
    assert relative_index(3.0 * f, A, B) == pytest.approx(U / V, rel=1e-12)
    D = discrepancy(f, A, B, iset.phi)
    assert D / (1 - iset.phi) == pytest.approx(iset.support(f), rel=1e-9, abs=1e-9)
    if U - iset.phi * V >= 0:
        lo, hi = prop9_bounds(U, V, iset.phi, V, V)
        assert lo == pytest.approx(U / V, rel=1e-12) and hi == pytest.approx(U / V, rel=1e-12)
