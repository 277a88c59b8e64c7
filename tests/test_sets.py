"""Capped simplices and integrated sets: hand-computed values, edge cases, properties (no solver)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairtheory._validation import FairtheoryValueError
from fairtheory.sets import CappedSimplex, IntegratedSet
from fairtheory.testing import capped_simplices, integrated_sets


def greedy(caps: np.ndarray, v: np.ndarray) -> float:
    """Reference: a plain Python fractional knapsack by decreasing v."""
    need, val = 1.0, 0.0
    for i in sorted(range(v.size), key=lambda i: -v[i]):
        take = min(caps[i], need)
        val += take * v[i]
        need -= take
        if need <= 0:
            break
    return val


def vec(n: int, draw_ties: bool = True):
    elem = st.one_of(st.floats(-1e6, 1e6, allow_subnormal=False), st.sampled_from([0.0, 1.0, -1.0, 1e-300]))
    return st.lists(elem, min_size=n, max_size=n).map(lambda x: np.asarray(x, dtype=np.float64))


@st.composite
def set_and_vector(draw, max_n: int = 12):
    S = draw(capped_simplices(max_n=max_n))
    v = draw(vec(S.n))
    return S, v


# ------------------------------------------------------------------ hand-computed values
def test_cvar_support_hand_values():
    v = np.array([1.0, 4.0, 2.0, 3.0])
    assert CappedSimplex.cvar(4, 0.5).support(v) == pytest.approx(3.5, abs=1e-15)  # mean of {4, 3}
    assert CappedSimplex.cvar(4, 0.5).lower(v) == pytest.approx(1.5, abs=1e-15)  # mean of {1, 2}
    # a n = 1.5: (4 + 0.5 * 3) / 1.5
    assert CappedSimplex.cvar(4, 0.375).support(v) == pytest.approx((4 + 0.5 * 3) / 1.5, rel=1e-14)
    assert CappedSimplex.cvar(4, 1.0).support(v) == pytest.approx(2.5, rel=1e-15)  # uniform mean
    assert CappedSimplex.cvar(4, 0.25).support(v) == 4.0  # a = 1/n: the simplex
    assert CappedSimplex.cvar(4, 0.1).support(v) == 4.0  # a n < 1: caps clipped to one


def test_simplex_singleton_and_qalpha_hand_values():
    v = np.array([3.0, -1.0, 7.0])
    assert CappedSimplex.simplex(3).support(v) == 7.0
    assert CappedSimplex.simplex(3).lower(v) == -1.0
    p = np.array([0.5, 0.25, 0.25])
    assert CappedSimplex.singleton(p).support(v) == pytest.approx(p @ v, rel=1e-15)
    # Q_alpha with alpha = 0.5: caps (1, 0.5, 0.5); greedy: 7 * 0.5 + 3 * 0.5 = 5
    assert CappedSimplex.qalpha(p, 0.5).support(v) == pytest.approx(5.0, rel=1e-15)
    assert CappedSimplex.qalpha(p, 1.0).support(v) == pytest.approx(p @ v, rel=1e-15)  # FedAvg limit
    assert CappedSimplex.qalpha(p, p).support(v) == 7.0  # AFL limit


def test_argmax_threshold_and_tie_rule():
    S = CappedSimplex([0.5, 0.5, 0.5, 0.5])
    v = np.array([2.0, 1.0, 1.0, 0.0])
    assert S.threshold(v) == 1.0
    lam = S.argmax(v)
    assert np.allclose(lam, [0.5, 0.25, 0.25, 0.0], atol=0, rtol=0) or np.array_equal(
        lam, [0.5, 0.25, 0.25, 0.0]
    )
    assert S.argmin(v) @ v == pytest.approx(S.lower(v), abs=1e-15)


def test_projection_hand_values():
    S = CappedSimplex.simplex(3)
    assert np.allclose(S.project([0.5, 0.5, 0.5]), [1 / 3] * 3, rtol=0, atol=1e-15)
    assert np.array_equal(S.project([2.0, 0.0, 0.0]), [1.0, 0.0, 0.0])
    C = CappedSimplex([0.4, 0.4, 0.4])
    x = C.project([1.0, 0.0, 0.0])  # capped at 0.4, the rest split equally
    assert np.allclose(x, [0.4, 0.3, 0.3], rtol=0, atol=1e-15)
    # shift invariance along the ones vector
    v = np.array([0.3, -2.0, 5.0])
    assert np.allclose(C.project(v), C.project(v + 1e3), rtol=0, atol=1e-12)


# ------------------------------------------------------------------ edge cases
def test_n_equals_one():
    S = CappedSimplex.simplex(1)
    assert S.support([4.2]) == 4.2 and S.lower([4.2]) == 4.2
    assert np.array_equal(S.project([-7.0]), [1.0])
    assert np.array_equal(S.argmax([3.0]), [1.0])
    assert np.array_equal(CappedSimplex([5.0]).caps, [1.0])  # caps > 1 clipped


def test_zero_caps_and_caps_summing_to_one():
    S = CappedSimplex([0.0, 0.5, 0.5, 0.0])
    v = np.array([100.0, 1.0, 2.0, 50.0])
    assert S.support(v) == pytest.approx(1.5, rel=1e-15)  # zero caps carry no weight
    lam = S.argmax(v)
    assert lam[0] == 0.0 and lam[3] == 0.0
    assert np.allclose(S.project(v), [0, 0.5, 0.5, 0], rtol=0, atol=1e-15)  # single-point set
    assert S.vertices().shape == (1, 4)


def test_caps_summing_to_one_up_to_rounding():
    p = np.array([0.1] * 10)  # sums to 0.9999999999999999
    S = CappedSimplex.singleton(p)
    v = np.arange(10.0)
    assert S.support(v) == pytest.approx(4.5, rel=1e-14)
    assert S.contains(S.project(v), tol=1e-12)


def test_ties_adversarial_large():
    rng = np.random.default_rng(0)
    n = 50_000
    for v in (
        np.zeros(n),
        rng.integers(0, 2, n).astype(float),
        rng.integers(0, 3, n).astype(float),
        np.sort(rng.standard_normal(n)),
    ):
        p = rng.random(n)
        p /= p.sum()
        for S in (
            CappedSimplex.simplex(n),
            CappedSimplex.cvar(n, 0.3),
            CappedSimplex.qalpha(p, 0.3),
            CappedSimplex.singleton(p),
        ):
            ref = greedy_sorted(S.caps, v)
            assert S.support(v) == pytest.approx(ref, rel=1e-10, abs=1e-12)
            lam = S.argmax(v)
            assert S.contains(lam, tol=1e-9)
            assert lam @ v == pytest.approx(ref, rel=1e-10, abs=1e-12)


def greedy_sorted(caps: np.ndarray, v: np.ndarray) -> float:
    order = np.argsort(-v, kind="stable")
    c = caps[order]
    cs = np.cumsum(c)
    k = min(int(np.searchsorted(cs, 1.0)), v.size - 1)
    before = cs[k - 1] if k > 0 else 0.0
    return float(c[:k] @ v[order][:k] + (1.0 - before) * v[order][k])


def test_huge_and_tiny_values():
    S = CappedSimplex.cvar(4, 0.5)
    assert S.support([1e300, -1e300, 1e299, 0.0]) == pytest.approx((1e300 + 1e299) / 2, rel=1e-15)
    assert S.support([1e-300, 2e-300, 0.0, 0.0]) == pytest.approx(1.5e-300, rel=1e-12)
    big = np.array([1.7e308, -1.7e308, 1.0, 2.0])
    val = CappedSimplex.cvar(4, 0.5).support(big)  # v - t overflows: the masked form is used
    assert np.isfinite(val) and val == pytest.approx(0.5 * 1.7e308 + 0.5 * 2.0, rel=1e-15)
    x = CappedSimplex.simplex(3).project([1e200, 0.0, -1e200])
    assert np.array_equal(x, [1.0, 0.0, 0.0])


def test_large_n_random_agrees_with_sort_reference():
    rng = np.random.default_rng(3)
    n = 200_000
    v = rng.standard_normal(n)
    p = rng.dirichlet(np.full(n, 0.5))
    for S in (
        CappedSimplex.cvar(n, 0.01),
        CappedSimplex.qalpha(p, 0.05),
        CappedSimplex(rng.random(n) * 3 / n),
    ):
        assert S.support(v) == pytest.approx(greedy_sorted(S.caps, v), rel=1e-12)
        assert S.lower(v) == pytest.approx(-greedy_sorted(S.caps, -v), rel=1e-12)


# ------------------------------------------------------------------ properties (Hypothesis)
@given(set_and_vector())
def test_support_matches_python_greedy(sv):
    S, v = sv
    ref = greedy(S.caps, v)
    scale = max(1.0, float(np.max(np.abs(v))))
    assert abs(S.support(v) - ref) <= 1e-12 * scale
    assert abs(S.lower(v) + greedy(S.caps, -v)) <= 1e-12 * scale


@given(set_and_vector())
def test_argmax_is_feasible_and_optimal(sv):
    S, v = sv
    lam = S.argmax(v)
    assert S.contains(lam, tol=1e-12 * max(1, S.n))
    scale = max(1.0, float(np.max(np.abs(v))))
    assert abs(lam @ v - S.support(v)) <= 1e-12 * scale
    t = S.threshold(v)
    assert S.caps[v > t].sum() < 1.0 + 1e-12 and S.caps[v >= t].sum() >= 1.0 - 1e-12 * S.n


@given(set_and_vector())
def test_projection_kkt(sv):
    """lam = clip(v - s, 0, u) for one scalar s, and sum lam = 1 (KKT of the QP)."""
    S, v = sv
    x = S.project(v)
    assert S.contains(x, tol=1e-9)
    free = (x > 1e-12) & (x < S.caps - 1e-12)
    scale = max(1.0, float(np.max(np.abs(v))))
    if free.any():
        s = float(np.median((v - x)[free]))
        assert np.all(np.abs((v - x)[free] - s) <= 1e-9 * scale)
        zero = (x <= 1e-12) & (S.caps > 1e-12)  # a zero cap fixes lam_i = 0: no condition
        assert np.all(v[zero] <= s + 1e-9 * scale)  # zero entries: v_i <= s
        capped = (x >= S.caps - 1e-12) & (S.caps > 1e-12)
        assert np.all(v[capped] - S.caps[capped] >= s - 1e-9 * scale)


@given(set_and_vector(max_n=8))
def test_projection_beats_vertices(sv):
    """The projection is at least as close to v as every vertex (vertices span the set)."""
    S, v = sv
    v = v / max(1.0, float(np.max(np.abs(v))))
    x = S.project(v)
    d = np.sum((x - v) ** 2)
    verts = S.vertices()
    assert np.all(np.sum((verts - v) ** 2, axis=1) >= d - 1e-12)
    # and at least as close as random convex combinations of vertices
    rng = np.random.default_rng(0)
    for w in rng.dirichlet(np.ones(len(verts)), size=5):
        assert np.sum((w @ verts - v) ** 2) >= d - 1e-12


@given(capped_simplices(max_n=8))
def test_vertices_are_members_with_one_fractional_entry(S):
    verts = S.vertices()
    assert len(verts) >= 1
    for lam in verts:
        assert S.contains(lam, tol=1e-12)
        frac = (lam > 1e-12) & (lam < S.caps - 1e-12)
        assert frac.sum() <= 1


@given(set_and_vector(max_n=8))
def test_support_equals_max_over_vertices(sv):
    S, v = sv
    verts = S.vertices()
    scale = max(1.0, float(np.max(np.abs(v))))
    assert abs(float(np.max(verts @ v)) - S.support(v)) <= 1e-12 * scale


def test_vertices_simplex_and_cvar():
    assert np.array_equal(np.sort(CappedSimplex.simplex(3).vertices(), axis=0), np.sort(np.eye(3), axis=0))
    V = CappedSimplex.cvar(4, 0.5).vertices()  # subsets of size 2 with weight 1/2
    assert len(V) == 6 and np.all(np.isin(V, [0.0, 0.5]))
    with pytest.raises(FairtheoryValueError, match="max_n"):
        CappedSimplex.simplex(15).vertices()


def test_contains():
    S = CappedSimplex.cvar(4, 0.5)
    assert S.contains([0.5, 0.5, 0, 0])
    assert not S.contains([1.0, 0, 0, 0])
    assert not S.contains([0.6, 0.6, -0.2, 0])
    assert not S.contains([0.5, 0.4, 0, 0])
    assert S.contains([0.5, 0.4, 0, 0], tol=0.2)


def test_cvxpy_constraints_shape():
    import cvxpy as cp

    S = CappedSimplex.cvar(5, 0.4)
    lam = cp.Variable(5)
    cons = S.cvxpy_constraints(lam)
    prob = cp.Problem(cp.Maximize(np.arange(5.0) @ lam), cons)
    prob.solve(solver="HIGHS")
    assert prob.status == "optimal"
    assert prob.value == pytest.approx(S.support(np.arange(5.0)), rel=1e-9)


# ------------------------------------------------------------------ integrated sets
def test_integrated_support_hand_value():
    A = CappedSimplex.simplex(3)
    B = CappedSimplex.simplex(3)
    v = np.array([1.0, 2.0, 4.0])
    I = IntegratedSet(A, B, 0.5)
    assert I.support(v) == pytest.approx((4.0 - 0.5 * 1.0) / 0.5, rel=1e-15)
    assert I.lower(v) == pytest.approx((1.0 - 0.5 * 4.0) / 0.5, rel=1e-15)
    lam = I.argmax(v)
    assert np.allclose(lam, [-1.0, 0.0, 2.0], rtol=0, atol=1e-15)
    assert lam.sum() == pytest.approx(1.0, abs=1e-15)
    assert IntegratedSet(A, B, 0.0).support(v) == 4.0  # phi = 0: DRO over A


@given(integrated_sets(max_n=6), st.data())
def test_integrated_support_over_vertices_and_argmax(I, data):
    v = data.draw(vec(I.n))
    scale = max(1.0, float(np.max(np.abs(v)))) * (1 + I.phi) / (1 - I.phi)
    lam = I.argmax(v)
    assert abs(lam.sum() - 1.0) <= 1e-12 * I.n / (1 - I.phi)
    assert abs(lam @ v - I.support(v)) <= 1e-12 * scale
    # brute force over vertex pairs of A and B
    va, vb = I.A.vertices(), I.B.vertices()
    brute = max((a @ v - I.phi * (b @ v)) / (1 - I.phi) for a, b in itertools.product(va, vb))
    assert abs(brute - I.support(v)) <= 1e-12 * scale


def test_integrated_contains_and_vertices():
    A = CappedSimplex.simplex(3)
    B = CappedSimplex.cvar(3, 2 / 3)
    I = IntegratedSet(A, B, 0.5)
    verts = I.vertices()
    for lam in verts:
        assert I.contains(lam)
        assert lam.sum() == pytest.approx(1.0, abs=1e-12)
    assert I.contains(I.argmax(np.array([3.0, 1.0, 2.0])))
    assert not I.contains(np.array([3.0, -1.0, -1.0]))
    # every vertex is the argmax of some direction; the argmax for random directions is a vertex
    rng = np.random.default_rng(1)
    for _ in range(20):
        lam = I.argmax(rng.standard_normal(3))
        assert np.min(np.max(np.abs(verts - lam), axis=1)) <= 1e-12


def test_selection_with_adversarial_caps():
    """Caps correlated with the values, heavy-tailed caps and a huge cap on the smallest value exercise
    the selection's fallback steps; the threshold must still be exact."""
    rng = np.random.default_rng(5)
    n = 60_000
    v = rng.standard_normal(n)
    rank = np.argsort(np.argsort(v))
    cases = [
        (rank + 1.0) ** 4,  # mass concentrated on the largest values
        (n - rank) ** 4.0,  # mass concentrated on the smallest values
        rng.pareto(0.7, n) + 1e-12,  # heavy tails
    ]
    for w in cases:
        for total in (1.0, 1.3, 5.0):
            caps = np.minimum(w / w.sum() * total, 1.0)
            if caps.sum() < 1.0:
                caps = caps / caps.sum()
            S = CappedSimplex(caps)
            ref = greedy_sorted(S.caps, v)
            assert S.support(v) == pytest.approx(ref, rel=1e-11, abs=1e-12)
            t = S.threshold(v)
            assert S.caps[v > t].sum() < 1.0 + 1e-12
            assert S.caps[v >= t].sum() >= 1.0 - 1e-9


def test_support_many_matches_support_rowwise() -> None:
    rng = np.random.default_rng(11)
    for n in (1, 2, 5, 30):
        for S in (CappedSimplex.simplex(n), CappedSimplex.cvar(n, 0.3),
                  CappedSimplex.qalpha(q := rng.dirichlet(np.ones(n)), np.maximum(q, 0.4)),
                  CappedSimplex.singleton(rng.dirichlet(np.ones(n)))):
            V = np.round(rng.normal(size=(4, 7, n)), 1)  # rounding makes ties
            got = S.support_many(V)
            assert got.shape == (4, 7)
            ref = np.array([[S.support(V[i, j]) for j in range(7)] for i in range(4)])
            assert np.max(np.abs(got - ref)) <= 1e-12 * max(1.0, np.max(np.abs(V)))


def test_support_many_validates_shape() -> None:
    from fairtheory._validation import FairtheoryValueError

    with pytest.raises(FairtheoryValueError, match="V must have last axis"):
        CappedSimplex.simplex(3).support_many(np.zeros((2, 4)))


def test_vertices_with_a_rounding_size_remainder_sum_to_one() -> None:
    """REGRESSION (Hypothesis, the --full profile): caps summing to 1 - 1e-16 with a last cap below 1e-12; the vertex
    that fills every other cap left a remainder of 1.0e-12 off the simplex (``contains(tol=1e-12)`` refused it)."""
    caps = np.array([9.998979003244081e-01, 9.998979003244082e-05, 9.998979003244081e-07, 9.998979003244081e-07,
                     9.998979003244080e-08, 9.998979003244081e-09, 9.998979003244081e-11, 9.998979003244081e-13])
    S = CappedSimplex(caps)
    for lam in S.vertices():
        assert S.contains(lam, tol=1e-12)
        assert ((lam > 1e-12) & (lam < S.caps - 1e-12)).sum() <= 1
