"""Min-norm point on the Gram matrix: agreement with the R^d QP, the box variant, certificates, edge cases."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory.errors import FairtheoryValueError
from fairtheory.exact import pareto
from fairtheory.exact.min_norm import box_lmo, fedmgda_box, min_norm_point, min_norm_weights


def _qp(U: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> float:
    import cvxpy as cp

    s = max(float(np.abs(U).max()), 1e-300)
    lam = cp.Variable(U.shape[0])
    prob = cp.Problem(cp.Minimize(cp.sum_squares((U / s).T @ lam)), [cp.sum(lam) == 1, lam >= lo, lam <= hi])
    prob.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    return float(prob.value) * s * s


def _instances(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for k in range(count):
        m, d = int(rng.integers(1, 12)), int(rng.integers(1, 7))
        U = rng.normal(size=(m, d))
        kind = k % 5
        if kind == 1:
            U[rng.integers(0, m)] = 0.0
        elif kind == 2:
            U = np.round(U)  # duplicates and ties
        elif kind == 3:
            U = np.outer(rng.normal(size=m), rng.normal(size=d))  # rank one
        elif kind == 4:
            U = U * 10.0 ** int(rng.integers(-8, 9))
        yield rng, U


@pytest.mark.parametrize("method", ["active-set", "clarabel"])
def test_simplex_matches_rd_qp(method):
    """Same answer as the R^d QP wherever that one is certified to 1e-12; never worse anywhere (the R^d
    QP returns 1.2e-5 for a hull containing the origin, instance 16, and is off at huge scales)."""
    compared = 0
    for _, U in _instances(0, 80):
        r = min_norm_point(U, method=method)
        ref = pareto.min_norm_point_qp(U)
        scale = float(np.max(np.linalg.norm(U, axis=1))) or 1.0
        assert r.certificate["fw_gap"] <= 1e-10 * scale**2
        assert abs(r.weights.sum() - 1.0) <= 1e-12 and np.all(r.weights >= 0.0)
        assert r.value <= ref.value + 1e-9 * scale
        if ref.certificate["fw_gap"] <= 1e-12 * scale**2:
            compared += 1
            assert abs(r.value - ref.value) <= 1e-9 * scale
            assert np.max(np.abs(r.argmin - ref.argmin)) <= 1e-9 * scale
    assert compared >= 50


def test_origin_in_hull_is_exact_zero():
    """A zero update puts the origin in the hull: the Gram route returns 0 exactly (the R^d QP: ~1e-5)."""
    U = next(U for k, (_, U) in enumerate(_instances(0, 80)) if k == 16)
    assert np.any(np.all(U == 0.0, axis=1))
    assert min_norm_point(U).value == 0.0


def test_box_matches_qp():
    for rng, U in _instances(1, 80):
        m = U.shape[0]
        lo, hi = fedmgda_box(rng.dirichlet(np.ones(m)), float(rng.choice([0.0, 0.02, 0.1, 0.3, 1.0])))
        r = min_norm_point(U, lo=lo, hi=hi)
        scale2 = float(np.max(np.sum(U * U, axis=1))) or 1.0
        assert abs(r.value**2 - _qp(U, lo, hi)) <= 1e-9 * scale2
        assert np.all(r.weights >= lo - 1e-15) and np.all(r.weights <= hi + 1e-15)
        assert abs(r.weights.sum() - 1.0) <= 1e-12
        assert -1e-12 * scale2 <= r.certificate["fw_gap"] <= 1e-10 * scale2


def test_gram_input_gives_the_same_weights_and_value():
    rng = np.random.default_rng(2)
    U = rng.normal(size=(7, 30))
    a = min_norm_point(U)
    b = min_norm_point(G=U @ U.T)
    assert b.argmin is None
    assert np.max(np.abs(a.weights - b.weights)) <= 1e-12
    assert abs(a.value - b.value) <= 1e-7 * np.linalg.norm(U, axis=1).max()  # sqrt of a Gram form: ~sqrt(eps) near 0


def test_pareto_stationary_point_gives_zero():
    U = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -2.0]])
    r = min_norm_point(U)
    assert r.value <= 1e-15
    assert np.max(np.abs(r.weights @ U)) <= 1e-15


def test_two_points_closed_form():
    rng = np.random.default_rng(3)
    for _ in range(20):
        g1, g2 = rng.normal(size=(2, 4))
        assert abs(min_norm_point(np.stack([g1, g2])).value - pareto.min_norm_point_2(g1, g2).value) <= 1e-12


def test_edge_cases():
    one = min_norm_point(np.array([[3.0, 4.0]]))
    assert one.value == 5.0 and one.weights.tolist() == [1.0]
    zero = min_norm_point(np.zeros((3, 2)))
    assert zero.value == 0.0 and abs(zero.weights.sum() - 1.0) <= 1e-15
    lam0 = np.array([0.2, 0.3, 0.5])
    lo, hi = fedmgda_box(lam0, 0.0)
    pinned = min_norm_point(np.eye(3), lo=lo, hi=hi)
    assert np.array_equal(pinned.weights, lam0)
    dup = min_norm_point(np.array([[1.0, 1.0]] * 4 + [[2.0, 0.0]]))
    assert abs(dup.value - pareto.min_norm_point(np.array([[1.0, 1.0], [2.0, 0.0]])).value) <= 1e-14


def test_box_lmo_is_a_vertex_minimiser():
    rng = np.random.default_rng(4)
    for _ in range(50):
        m = int(rng.integers(1, 8))
        c = np.round(rng.normal(size=m), 1)
        lo, hi = fedmgda_box(rng.dirichlet(np.ones(m)), float(rng.uniform(0, 0.5)))
        s = box_lmo(c, lo, hi)
        assert abs(s.sum() - 1.0) <= 1e-12 and np.all(s >= lo - 1e-15) and np.all(s <= hi + 1e-15)
        import cvxpy as cp

        x = cp.Variable(m)
        prob = cp.Problem(cp.Minimize(c @ x), [cp.sum(x) == 1, x >= lo, x <= hi])
        prob.solve(solver="HIGHS")
        assert c @ s <= prob.value + 1e-9


def test_weights_info_and_validation():
    lam, info = min_norm_weights(np.eye(3))
    assert np.allclose(lam, 1 / 3, atol=1e-15) and info["converged"] and info["solver"] == "active-set"
    with pytest.raises(FairtheoryValueError, match="exactly one"):
        min_norm_point()
    with pytest.raises(FairtheoryValueError, match="exactly one"):
        min_norm_point(np.eye(2), G=np.eye(2))
    with pytest.raises(FairtheoryValueError, match="square"):
        min_norm_weights(np.ones((2, 3)))
    with pytest.raises(FairtheoryValueError, match="finite"):
        min_norm_point(np.array([[np.nan, 1.0]]))
    with pytest.raises(FairtheoryValueError, match="empty"):
        min_norm_point(np.eye(2), lo=[0.6, 0.6])
    with pytest.raises(FairtheoryValueError, match="lo <= hi"):
        min_norm_point(np.eye(2), lo=[0.5, 0.5], hi=[0.4, 1.0])
    with pytest.raises(FairtheoryValueError, match="method"):
        min_norm_weights(np.eye(2), method="simplex")
    with pytest.raises(FairtheoryValueError, match="epsilon"):
        fedmgda_box([0.5, 0.5], -0.1)
    with pytest.raises(FairtheoryValueError, match="lam0"):
        fedmgda_box([0.5, 0.6], 0.1)


def test_torch_input():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    U = rng.normal(size=(6, 9))
    a = min_norm_point(U)
    b = min_norm_point(torch.as_tensor(U))
    assert abs(a.value - b.value) <= 1e-15 * max(1.0, a.value) + 1e-15


def test_pareto_route_is_the_gram_route_and_survives_huge_scales():
    """exact.pareto.min_norm_point uses the Gram solver; entries up to 1e300 keep their exact answer
    (the squared norms would overflow float64 without the scaling)."""
    U = np.array([[1.0, 0.0], [0.0, 1.0]])
    for scale in (1e-300, 1.0, 1e155, 1e300):
        r = pareto.min_norm_point(U * scale)
        assert abs(r.value / (scale / np.sqrt(2.0)) - 1.0) <= 1e-15
        assert np.allclose(r.weights, [0.5, 0.5], rtol=0, atol=1e-15)
        assert r.certificate["fw_gap_relative"] <= 1e-15
    assert pareto.min_norm_point(U).certificate["closed_form"] == pytest.approx(1 / np.sqrt(2.0), rel=1e-15)
