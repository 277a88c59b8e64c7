"""Logistic and least-squares problems: per-client loop references, finite differences, backends,
constants, cvxpy twins, generators and validation."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.problems import (
    LeastSquaresProblem,
    LogisticProblem,
    digits_federated,
    random_least_squares,
    random_logistic,
    separable,
)


# ------------------------------------------------------------------ references (test only: loops)
def ref_logistic(P: LogisticProblem, W: np.ndarray):
    L, G, H = [], [], []
    for i in range(P.n):
        X = P.X[P.offsets[i]:P.offsets[i + 1]]
        y = P.y[P.offsets[i]:P.offsets[i + 1]]
        w = W[i]
        z = y * (X @ w)
        L.append(np.mean(np.log1p(np.exp(-z))) + 0.5 * P.l2 * w @ w)
        s = 1.0 / (1.0 + np.exp(z))
        G.append(-(X * (y * s)[:, None]).mean(axis=0) + P.l2 * w)
        c = s * (1 - s)
        H.append((X * c[:, None]).T @ X / len(y) + P.l2 * np.eye(P.d))
    return np.array(L), np.array(G), np.array(H)


def ref_ls(P: LeastSquaresProblem, W: np.ndarray):
    L, G = [], []
    for i in range(P.n):
        X = P.X[P.offsets[i]:P.offsets[i + 1]]
        y = P.y[P.offsets[i]:P.offsets[i + 1]]
        r = X @ W[i] - y
        L.append(0.5 * np.mean(r * r))
        G.append(X.T @ r / len(y))
    return np.array(L), np.array(G)


@pytest.fixture(params=[0.0, 0.3], ids=["plain", "l2"])
def logi(request) -> LogisticProblem:
    return random_logistic(7, 4, [12, 30, 15, 20, 25, 18, 40], rng=np.random.default_rng(1), l2=request.param)


@pytest.fixture
def lsq() -> LeastSquaresProblem:
    return random_least_squares(6, 3, [5, 9, 12, 4, 7, 20], rng=np.random.default_rng(2))


def test_logistic_matches_loop_reference(logi):
    rng = np.random.default_rng(0)
    W = rng.normal(size=(logi.n, logi.d))
    L, G, _ = ref_logistic(logi, W)
    assert np.max(np.abs(logi.losses_each(W) - L)) <= 1e-12
    assert np.max(np.abs(logi.grads_each(W) - G)) <= 1e-12
    w = rng.normal(size=logi.d)
    L, G, H = ref_logistic(logi, np.tile(w, (logi.n, 1)))
    assert np.max(np.abs(logi.losses(w) - L)) <= 1e-12
    assert np.max(np.abs(logi.grads(w) - G)) <= 1e-12
    assert np.max(np.abs(logi.hessians(w) - H)) <= 1e-12


def test_least_squares_matches_loop_reference(lsq):
    rng = np.random.default_rng(0)
    W = rng.normal(size=(lsq.n, lsq.d))
    L, G = ref_ls(lsq, W)
    assert np.max(np.abs(lsq.losses_each(W) - L)) <= 1e-12 * max(1, np.abs(L).max())
    assert np.max(np.abs(lsq.grads_each(W) - G)) <= 1e-12 * max(1, np.abs(G).max())
    w = W[0]
    L, G = ref_ls(lsq, np.tile(w, (lsq.n, 1)))
    assert np.max(np.abs(lsq.losses(w) - L)) <= 1e-12 * max(1, np.abs(L).max())
    assert np.max(np.abs(lsq.grads(w) - G)) <= 1e-12 * max(1, np.abs(G).max())
    Xs = [lsq.X[lsq.offsets[i]:lsq.offsets[i + 1]] for i in range(lsq.n)]
    H = np.array([X.T @ X / len(X) for X in Xs])
    assert np.max(np.abs(lsq.hessians(w) - H)) <= 1e-12


@pytest.mark.parametrize("kind", ["logistic", "ls"])
def test_finite_differences(kind, logi, lsq):
    P = logi if kind == "logistic" else lsq
    rng = np.random.default_rng(5)
    w = 0.5 * rng.normal(size=P.d)
    h = 1e-6
    E = np.eye(P.d)
    fd_g = np.stack([(P.losses(w + h * e) - P.losses(w - h * e)) / (2 * h) for e in E], axis=1)
    assert np.max(np.abs(fd_g - P.grads(w))) <= 1e-7 * max(1, np.abs(fd_g).max())
    fd_h = np.stack([(P.grads(w + h * e) - P.grads(w - h * e)) / (2 * h) for e in E], axis=2)
    assert np.max(np.abs(fd_h - P.hessians(w))) <= 1e-6 * max(1, np.abs(fd_h).max())


def test_client_subsets_with_repeats(logi, lsq):
    rng = np.random.default_rng(3)
    for P in (logi, lsq):
        W = rng.normal(size=(P.n, P.d))
        idx = np.array([4, 1, 4, 0])
        assert np.array_equal(P.losses_each(W[idx], clients=idx), P.losses_each(W)[idx])
        assert np.max(np.abs(P.grads_each(W[idx], clients=idx) - P.grads_each(W)[idx])) <= 1e-15


def test_numpy_torch_agree(logi, lsq, xp_name, to_backend):
    from fairtheory.backend import to_numpy

    rng = np.random.default_rng(4)
    for P in (logi, lsq):
        W = rng.normal(size=(P.n, P.d))
        w = W[0]
        idx = np.array([2, 2, 5])
        pairs = [
            (P.losses_each(to_backend(W)), P.losses_each(W)),
            (P.grads_each(to_backend(W)), P.grads_each(W)),
            (P.losses(to_backend(w)), P.losses(w)),
            (P.grads(to_backend(w)), P.grads(w)),
            (P.losses_each(to_backend(W[idx]), clients=idx), P.losses_each(W[idx], clients=idx)),
            (P.grads_each(to_backend(W[idx]), clients=idx), P.grads_each(W[idx], clients=idx)),
            (P.weighted_loss(to_backend(w)), P.weighted_loss(w)),
        ]
        for got, want in pairs:
            assert type(got).__module__.split(".")[0] == ("torch" if xp_name == "torch" else "numpy")
            assert np.max(np.abs(to_numpy(got) - want)) <= 1e-12 * max(1.0, np.abs(want).max())
        assert np.max(np.abs(P.hessians(to_backend(w)) - P.hessians(w))) <= 1e-12


def test_constants_bound_true_quantities(logi, lsq):
    rng = np.random.default_rng(6)
    pts = 3.0 * rng.normal(size=(40, logi.d))
    hn = max(np.linalg.norm(logi.hessians(w), 2, axis=(1, 2)).max() for w in pts)
    assert hn <= logi.smoothness() * (1 + 1e-12)
    # curvature 1/4 is attained at w = 0: L1 is tight there
    assert np.linalg.norm(logi.hessians(np.zeros(logi.d)), 2, axis=(1, 2)).max() == pytest.approx(
        logi.smoothness(), rel=1e-12)
    if logi.l2 == 0:
        gn = max(np.linalg.norm(logi.grads(w), axis=1).max() for w in 10 * pts)
        assert gn <= logi.lipschitz() * (1 + 1e-12)
        assert logi.strong_convexity() == 0.0
    else:
        assert logi.lipschitz() == np.inf
        assert logi.strong_convexity() == logi.l2
        assert np.linalg.eigvalsh(logi.hessians(pts[0])).min() >= logi.l2 * (1 - 1e-12)
    H = lsq.hessians(np.zeros(lsq.d))
    ev = np.linalg.eigvalsh(H)
    assert lsq.smoothness() == pytest.approx(ev.max(), rel=1e-12)
    assert lsq.strong_convexity() == pytest.approx(max(ev.min(), 0), rel=1e-9)


def test_default_weights_and_accuracy(logi):
    assert np.allclose(logi.p, logi.m / logi.m.sum(), rtol=0, atol=1e-15)
    w = np.random.default_rng(7).normal(size=logi.d)
    acc = logi.accuracies(w)
    ref = np.array([np.mean(logi.y[a:b] * (logi.X[a:b] @ w) > 0)
                    for a, b in zip(logi.offsets[:-1], logi.offsets[1:], strict=True)])
    assert acc.shape == (logi.n,)
    assert np.array_equal(acc, ref)


def test_cvxpy_twins(logi, lsq):
    import cvxpy as cp

    rng = np.random.default_rng(8)
    for P in (logi, lsq):
        w = cp.Variable(P.d)
        w.value = rng.normal(size=P.d)
        vals = np.array([e.value for e in P.cvxpy_losses(w)])
        assert np.max(np.abs(vals - P.losses(w.value))) <= 1e-10 * max(1, np.abs(vals).max())
        assert all(e.is_convex() for e in P.cvxpy_losses(w))


def test_least_squares_as_quadratic(lsq):
    Q = lsq.as_quadratic()
    rng = np.random.default_rng(9)
    for _ in range(3):
        w = rng.normal(size=lsq.d)
        assert np.max(np.abs(Q.losses(w) - lsq.losses(w))) <= 1e-9 * max(1, np.abs(lsq.losses(w)).max())
        assert np.max(np.abs(Q.grads(w) - lsq.grads(w))) <= 1e-9 * max(1, np.abs(lsq.grads(w)).max())
    assert np.array_equal(Q.p, lsq.p)


def test_random_logistic_non_separable_and_seeded():
    P1 = random_logistic(5, 3, 25, rng=np.random.default_rng(11), heterogeneity=2.0)
    P2 = random_logistic(5, 3, 25, rng=np.random.default_rng(11), heterogeneity=2.0)
    assert np.array_equal(P1.X, P2.X) and np.array_equal(P1.y, P2.y)
    for a, b in zip(P1.offsets[:-1], P1.offsets[1:], strict=True):
        assert not separable(P1.X[a:b], P1.y[a:b])
    assert np.all(P1.X[:, -1] == 1.0)  # intercept
    assert set(np.unique(P1.y)) == {-1.0, 1.0}


def test_separable_detects_separable_data():
    X = np.array([[1.0, 0.0], [2.0, 1.0], [-1.0, 0.5], [-2.0, -1.0]])
    y = np.array([1.0, 1.0, -1.0, -1.0])
    assert separable(X, y)
    assert not separable(np.vstack([X, X]), np.concatenate([y, -y]))


def test_random_logistic_refuses_tiny_clients():
    with pytest.raises(FairtheoryValueError, match="separable"):
        random_logistic(2, 6, 3, rng=np.random.default_rng(0), flip=0.0, max_tries=2)


def test_digits_federated():
    P = digits_federated(6, rng=np.random.default_rng(0), alpha_dirichlet=0.3, classes=(3, 8))
    assert P.n == 6 and P.m.min() >= 5
    assert np.all(P.X[:, -1] == 1.0)
    assert np.max(np.abs(P.X[:, :-1].mean(axis=0))) <= 1e-10
    assert np.max(np.abs(P.X[:, :-1].std(axis=0) - 1)) <= 1e-10
    assert set(np.unique(P.info["digit"])) == {3, 8}
    assert np.array_equal(P.y == 1.0, P.info["digit"] == 3)
    Q = digits_federated(6, rng=np.random.default_rng(0), alpha_dirichlet=0.3, classes=(3, 8))
    assert np.array_equal(P.X, Q.X) and np.array_equal(P.offsets, Q.offsets)
    A = digits_federated(4, rng=np.random.default_rng(1), classes="all", positive=7)
    assert A.N == 1797 and np.array_equal(A.y == 1.0, A.info["digit"] == 7)
    with pytest.raises(FairtheoryValueError):
        digits_federated(3, rng=np.random.default_rng(0), classes=(3, 3))
    with pytest.raises(FairtheoryValueError):
        digits_federated(1000, rng=np.random.default_rng(0))


def test_random_least_squares_seeded():
    a = random_least_squares(3, 2, 4, rng=np.random.default_rng(3))
    b = random_least_squares(3, 2, 4, rng=np.random.default_rng(3))
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert a.N == 12 and a.d == 2


def test_validation_errors():
    X = np.ones((4, 2))
    y = np.array([1.0, -1.0, 1.0, -1.0])
    with pytest.raises(FairtheoryValueError, match="offsets"):
        LogisticProblem(X, y, [0, 2, 3])
    with pytest.raises(FairtheoryValueError, match="strictly increasing"):
        LogisticProblem(X, y, [0, 2, 2, 4])
    with pytest.raises(FairtheoryTypeError):
        LogisticProblem(X, y, [0, 1.5, 4])
    with pytest.raises(FairtheoryValueError, match="labels"):
        LogisticProblem(X, np.array([1.0, 0.0, 1.0, -1.0]), [0, 2, 4])
    with pytest.raises(FairtheoryValueError, match="y must have shape"):
        LeastSquaresProblem(X, y[:3], [0, 2, 4])
    with pytest.raises(FairtheoryValueError, match="l2"):
        LogisticProblem(X, y, [0, 2, 4], l2=-1.0)
    with pytest.raises(FairtheoryValueError, match="finite"):
        LeastSquaresProblem(np.full((4, 2), np.nan), y, [0, 2, 4])
    with pytest.raises(FairtheoryValueError, match="p"):
        LogisticProblem(X, y, [0, 2, 4], p=[0.2, 0.2])
    P = LogisticProblem(X, y, [0, 2, 4])
    with pytest.raises(FairtheoryValueError, match="W must have shape"):
        P.losses_each(np.zeros((3, 2)))
    with pytest.raises(FairtheoryValueError, match="w must have shape"):
        P.losses(np.zeros(3))
    with pytest.raises(FairtheoryValueError, match="clients"):
        P.losses_each(np.zeros((1, 2)), clients=np.array([2]))


def test_extreme_margins_are_finite():
    X = np.array([[1e4], [-1e4], [1e4]])
    y = np.array([1.0, 1.0, -1.0])
    P = LogisticProblem(X, y, [0, 1, 3])
    for w in (np.array([1e3]), np.array([-1e3])):
        assert np.all(np.isfinite(P.losses(w))) and np.all(np.isfinite(P.grads(w)))
    assert P.losses(np.array([1e3]))[0] == 0.0
    assert P.losses(np.array([-1e3]))[0] == pytest.approx(1e7, rel=1e-12)


def test_problem_data_is_moved_to_a_torch_device_once():
    """Evaluating torch models reuses one converted copy of the data per (dtype, device), for every
    problem kind (no host-to-device copy of the data on every call)."""
    torch = pytest.importorskip("torch")
    from fairtheory.problems import random_least_squares, random_logistic
    from fairtheory.problems.synthetic_qffl import synthetic_qffl

    rng = np.random.default_rng(0)
    for P in (random_least_squares(5, 3, 8, rng=rng), random_logistic(5, 3, 8, rng=rng),
              synthetic_qffl(rng=rng, n=5, d_in=3, n_classes=3, size_scale=20.0).train):
        w = torch.zeros(P.d, dtype=torch.float64)
        a = P.losses(w), P.grads_each(torch.zeros((P.n, P.d), dtype=torch.float64))
        cache = dict(P.__dict__.get("_device_cache", {}))
        b = P.losses(w), P.grads_each(torch.zeros((P.n, P.d), dtype=torch.float64))
        after = P.__dict__.get("_device_cache", {})
        assert set(cache) == set(after) and all(cache[k] is after[k] for k in cache)
        assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
        assert np.allclose(a[0].numpy(), P.losses(np.zeros(P.d)), rtol=1e-14, atol=0)
