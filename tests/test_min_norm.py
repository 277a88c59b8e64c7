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
    assert abs(dup.value - min_norm_point(np.array([[1.0, 1.0], [2.0, 0.0]])).value) <= 1e-14


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


def test_min_norm_point_survives_huge_scales_and_matches_the_closed_form():
    """Entries up to 1e300 keep their exact answer (the squared norms would overflow float64 without the
    scaling); for two gradients the value is the closed form's (``pareto.min_norm_point_2``)."""
    U = np.array([[1.0, 0.0], [0.0, 1.0]])
    for scale in (1e-300, 1.0, 1e155, 1e300):
        r = min_norm_point(U * scale)
        assert abs(r.value / (scale / np.sqrt(2.0)) - 1.0) <= 1e-15
        assert np.allclose(r.weights, [0.5, 0.5], rtol=0, atol=1e-15)
        assert r.certificate["fw_gap_relative"] <= 1e-15
        assert abs(pareto.min_norm_point_2(U[0] * scale, U[1] * scale).value / r.value - 1.0) <= 1e-15
    assert min_norm_point(U).value == pytest.approx(1 / np.sqrt(2.0), rel=1e-15)


# ------------------------------------------------------------------ degenerate hulls (issue 19)
def _twin(U: np.ndarray) -> float:
    """The R^d QP twin (cvxpy, Clarabel) of the min-norm value, scaled to max |U_ij| = 1 first."""
    s = float(np.abs(U).max()) or 1.0
    return s * pareto.min_norm_point_qp(U / s).value


@pytest.mark.parametrize("U, exact", [
    (np.array([[1.0, 1.0]] * 6 + [[2.0, 0.0]] * 3), np.sqrt(2.0)),  # duplicates: singular Gram and KKT
    (np.array([[1.0, 1.0]] * 4 + [[1.0, -1.0]] * 3), 1.0),       # duplicates, optimum inside the edge
    (np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]]), 0.0),       # origin inside an edge, not a vertex
    (np.array([[2.0, 1.0], [-1.0, -1.0], [-1.0, 2.0]]), 0.0),     # origin strictly inside the hull
    (np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]), np.sqrt(2.0)),  # collinear, same side
    (np.array([[1.0, 1.0], [-2.0, -2.0], [3.0, 3.0]]), 0.0),      # collinear through the origin
    (np.array([[3.0, 4.0, 0.0]]), 5.0),                          # m = 1
    (np.array([[1.0, 0.0], [1.0, 1e-9], [1.0, -1e-9]]), 1.0),  # nearly duplicate, nearly collinear
])
def test_degenerate_hulls(U, exact):
    r = min_norm_point(U)
    scale = float(np.max(np.linalg.norm(U, axis=1)))
    assert abs(r.value - exact) <= 1e-14 * scale
    assert np.all(r.weights >= 0.0) and abs(r.weights.sum() - 1.0) <= 1e-15
    assert np.linalg.norm(r.weights @ U - r.argmin) <= 1e-14 * scale
    assert r.certificate["fw_gap_relative"] <= 1e-14
    if exact == 0.0:
        assert r.value <= 1e-15 * scale
    assert abs(r.value - _twin(U)) <= 1e-6 * scale  # the twin (interior point) is accurate to ~sqrt(tol) near 0


@pytest.mark.parametrize("s", [1e-300, 1e-200, 1e-160, 1e-100, 1e100, 1e150, 1e200, 1e300])
def test_scales_tiny_and_huge_keep_the_answer(s):
    """min_norm_point(s U) = s min_norm_point(U) (same weights) across the float range: the Gram
    product is taken of U / max |U_ij| when U U^T would overflow or underflow."""
    rng = np.random.default_rng(11)
    U = rng.normal(size=(9, 40)) + 0.5 * rng.normal(size=40)
    ref = min_norm_point(U)
    r = min_norm_point(U * s)
    assert abs(r.value / s - ref.value) <= 1e-13 * ref.value
    assert np.max(np.abs(r.weights - ref.weights)) <= 1e-12
    assert r.certificate["fw_gap_relative"] <= 1e-12


def test_many_points_in_low_dimension_sparse_answer():
    """m = 60 points in R^4: at most 5 active weights (Caratheodory); singular face systems send the
    primal-dual guess to the primal active set; same value as the R^d twin."""
    rng = np.random.default_rng(12)
    for _ in range(5):
        U = rng.normal(size=(60, 4)) + rng.normal(size=4) * 2.0
        r = min_norm_point(U)
        assert np.count_nonzero(r.weights) <= 5
        assert abs(r.value - _twin(U)) <= 1e-8 * np.linalg.norm(U, axis=1).max()
        assert r.certificate["fw_gap_relative"] <= 1e-12


def test_primal_dual_route_agrees_with_the_primal_active_set():
    """The fast route (primal-dual active set) against the primal active set from the vertex start,
    on the simplex and on FedMGDA+ boxes, m up to 50: same value to 1e-12 (both exact KKT points)."""
    from fairtheory.exact import min_norm as M

    rng = np.random.default_rng(13)
    used = 0
    for k in range(60):
        m, d = int(rng.integers(2, 51)), int(rng.integers(2, 200))
        U = rng.normal(size=(m, d)) + rng.uniform(0, 1) * rng.normal(size=d)
        U /= np.linalg.norm(U, axis=1, keepdims=True)
        G = U @ U.T
        lam0 = rng.dirichlet(np.ones(m))
        lo, hi = (np.zeros(m), np.ones(m)) if k % 2 else fedmgda_box(lam0, float(rng.choice([0.01, 0.05, 0.1, 0.3])))
        fast = M._pdas(G / G.diagonal().max(), lo, hi, 25)
        slow, _, ok = M._active_set(G / G.diagonal().max(), lo, hi, M._feasible_start(np.diag(G), lo, hi), 20 * m + 100)
        assert ok
        if fast is None:
            continue
        used += 1
        lam = fast[0]
        assert np.all(lam >= lo) and np.all(lam <= hi) and abs(lam.sum() - 1.0) <= 1e-14
        assert abs(lam @ G @ lam - slow @ G @ slow) <= 1e-12
    assert used >= 40


def test_dense_unit_gradients_one_face_solve():
    """50 unit gradients in R^10000 (the benchmark's instance): every weight is free at the optimum;
    the primal-dual route needs one KKT solve and matches cvxopt's QP on the Gram matrix to 1e-9."""
    cvxopt = pytest.importorskip("cvxopt")
    rng = np.random.default_rng(0)
    U = rng.normal(size=(50, 10_000)) + 0.3 * rng.normal(size=10_000)
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    r = min_norm_point(U)
    assert r.extra["iterations"] == 1 and r.solver == "active-set"
    G = U @ U.T
    old = cvxopt.solvers.options.get("show_progress", True)
    cvxopt.solvers.options["show_progress"] = False
    try:
        sol = cvxopt.solvers.qp(cvxopt.matrix(2 * G), cvxopt.matrix(np.zeros(50)),
                                cvxopt.matrix(np.vstack([-np.eye(50), np.eye(50)])),
                                cvxopt.matrix(np.concatenate([np.zeros(50), np.ones(50)])),
                                cvxopt.matrix(np.ones((1, 50))), cvxopt.matrix(np.ones(1)))
    finally:
        cvxopt.solvers.options["show_progress"] = old
    x = np.array(sol["x"]).ravel()
    assert abs(r.value**2 - x @ G @ x) <= 1e-9
    assert r.value**2 <= x @ G @ x + 1e-15  # never worse than the interior point
    assert r.certificate["fw_gap_relative"] <= 1e-14


def test_non_finite_u_is_named():
    for bad in (np.inf, -np.inf, np.nan):
        U = np.ones((3, 4))
        U[1, 2] = bad
        with pytest.raises(FairtheoryValueError, match="U must be finite"):
            min_norm_point(U)
    with pytest.raises(FairtheoryValueError, match="U must be a non-empty 2-D"):
        min_norm_point(np.ones(3))


def test_pareto_errors_name_their_argument():
    """Issue 18: min_norm_point_2 and pareto_stationarity name g1/g2/grads, not U."""
    with pytest.raises(FairtheoryValueError, match="g2 must be finite"):
        pareto.min_norm_point_2([1.0, 2.0], [np.nan, 0.0])
    with pytest.raises(FairtheoryValueError, match="g1 must be a non-empty 1-D"):
        pareto.min_norm_point_2([[1.0]], [1.0])
    with pytest.raises(FairtheoryValueError, match="same length"):
        pareto.min_norm_point_2([1.0, 2.0], [1.0])
    with pytest.raises(FairtheoryValueError, match="grads must be finite"):
        pareto.pareto_stationarity([[1.0, np.inf], [0.0, 1.0], [1.0, 1.0]])
    with pytest.raises(FairtheoryValueError, match="grads must be a non-empty 2-D"):
        pareto.pareto_stationarity([1.0, 2.0])
