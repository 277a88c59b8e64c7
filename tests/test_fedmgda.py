"""FedMGDA+: server direction, box limits, backends, participation, descent and the claims."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory.algorithms import fedmgda
from fairtheory.algorithms.base import run
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.exact.min_norm import min_norm_point
from fairtheory.exact.pareto import pareto_stationarity
from fairtheory.problems import random_least_squares, random_logistic, random_quadratic


@pytest.fixture(scope="module")
def problems():
    rng = np.random.default_rng(0)
    return {
        "logistic": random_logistic(7, 4, 20, rng=rng, l2=0.05),
        "quadratic": random_quadratic(6, 4, rng=rng),
        "ls": random_least_squares(8, 3, 15, rng=rng),
    }


@pytest.mark.parametrize("name", ["logistic", "quadratic", "ls"])
@pytest.mark.parametrize("K", [None, 4])
def test_numpy_torch_same_iterates(problems, name, K):
    torch = pytest.importorskip("torch")
    P = problems[name]
    alg = fedmgda.make(P, lr=0.5 / P.smoothness(), kappa=2, K=K, epsilon=0.2, server_lr=0.1)
    w0 = np.random.default_rng(1).normal(size=P.d)
    _, h_np = run(alg, 15, rng=np.random.default_rng(7), w0=w0)
    s_t, h_t = run(alg, 15, rng=np.random.default_rng(7), w0=torch.as_tensor(w0))
    assert isinstance(s_t.w, torch.Tensor)
    assert np.max(np.abs(h_np.as_arrays()["iterates"] - h_t.as_arrays()["iterates"])) <= 1e-10


def test_kappa1_whole_simplex_is_the_min_norm_point_of_normalised_gradients(problems):
    P = problems["logistic"]
    w = np.random.default_rng(2).normal(size=P.d)
    alg = fedmgda.make(P, lr=0.1, epsilon=1.0, server_lr=0.3)
    s = alg.step(alg.init(w), None)
    G = P.grads(w)
    Un = G / np.linalg.norm(G, axis=1, keepdims=True)
    ref = min_norm_point(Un)
    assert np.max(np.abs((w - s.w) / 0.3 - ref.argmin)) <= 1e-12
    assert s.comms == 1 and s.steps == 1 and abs(s.lam.sum() - 1.0) <= 1e-12


def test_epsilon_zero_is_fedavg_of_normalised_updates(problems):
    P = problems["quadratic"]
    w = np.random.default_rng(3).normal(size=P.d)
    alg = fedmgda.make(P, lr=0.05, kappa=3, epsilon=0.0)
    s = alg.step(alg.init(w), None)
    assert np.array_equal(s.lam, P.p)
    W = np.tile(w, (P.n, 1))
    for _ in range(3):
        W = W - 0.05 * P.grads_each(W)
    U = w - W
    d = P.p @ (U / np.linalg.norm(U, axis=1, keepdims=True))
    assert np.max(np.abs(s.w - (w - d))) <= 1e-12


def test_weights_stay_in_the_box(problems):
    P = problems["ls"]
    rng = np.random.default_rng(4)
    for eps in (0.01, 0.05, 0.2):
        alg = fedmgda.make(P, lr=0.05, epsilon=eps)
        s = alg.step(alg.init(rng.normal(size=P.d)), None)
        assert np.all(np.abs(s.lam - P.p) <= eps + 1e-12) and abs(s.lam.sum() - 1.0) <= 1e-12


def test_partial_participation_sample_weights(problems):
    P = problems["ls"]
    w = np.random.default_rng(5).normal(size=P.d)
    alg = fedmgda.make(P, lr=0.05, K=6, epsilon=0.0)
    s = alg.step(alg.init(w), np.random.default_rng(9))
    draws = np.random.default_rng(9).choice(P.n, size=6, replace=True, p=P.p)
    clients, counts = np.unique(draws, return_counts=True)
    assert np.allclose(s.lam, counts / 6, rtol=0, atol=1e-15)
    U = w - (np.tile(w, (clients.size, 1)) - 0.05 * P.grads_each(np.tile(w, (P.n, 1)))[clients])
    d = (counts / 6) @ (U / np.linalg.norm(U, axis=1, keepdims=True))
    assert np.max(np.abs(s.w - (w - d))) <= 1e-12


def test_common_descent_small_step_decreases_every_loss(problems):
    P = problems["logistic"]
    w = np.random.default_rng(6).normal(size=P.d)
    alg = fedmgda.make(P, lr=1e-3, epsilon=1.0, server_lr=1e-4)
    s = alg.step(alg.init(w), None)
    assert np.all(P.losses(s.w) < P.losses(w))


def test_reaches_pareto_stationarity(problems):
    P = problems["quadratic"]
    w0 = np.random.default_rng(7).normal(size=P.d) * 3
    alg = fedmgda.make(P, lr=0.1 / P.smoothness(), epsilon=1.0, server_lr=0.05)
    s, _ = run(alg, 400, w0=w0, record_losses=False, record_every=400)
    assert pareto_stationarity(P.grads(s.w)) <= 1e-2 * pareto_stationarity(P.grads(w0))


def test_aggregate_zero_updates_and_offset():
    d, lam = fedmgda.aggregate(np.zeros((3, 2)), [0.2, 0.3, 0.5], epsilon=0.1)
    assert np.array_equal(d, np.zeros(2)) and abs(lam.sum() - 1.0) <= 1e-15
    U = np.array([[1e-9, 0.0], [0.0, 2e-9]])
    exact, _ = fedmgda.aggregate(U, [0.5, 0.5], epsilon=0.0)
    flgo, _ = fedmgda.aggregate(U, [0.5, 0.5], epsilon=0.0, offset=1e-8)
    assert np.allclose(exact, [0.5, 0.5], rtol=0, atol=1e-15)
    assert np.allclose(flgo, [0.5e-9 / (1e-9 + 1e-8), 1e-9 / (2e-9 + 1e-8)], rtol=1e-12, atol=0)


def test_validation(problems):
    P = problems["quadratic"]
    with pytest.raises(FairtheoryValueError, match="epsilon"):
        fedmgda.make(P, lr=0.1, epsilon=-0.1)
    with pytest.raises(FairtheoryValueError, match="lr"):
        fedmgda.make(P, lr=0.0, epsilon=0.1)
    with pytest.raises(FairtheoryValueError, match="kappa"):
        fedmgda.make(P, lr=0.1, kappa=0, epsilon=0.1)
    with pytest.raises(FairtheoryValueError, match="server_lr"):
        fedmgda.make(P, lr=0.1, epsilon=0.1, server_lr=-1.0)
    with pytest.raises(FairtheoryValueError, match="offset"):
        fedmgda.make(P, lr=0.1, epsilon=0.1, offset=-1.0)
    with pytest.raises(TypeError):
        fedmgda.make(P, lr=0.1)  # epsilon is required
    alg = fedmgda.make(P, lr=0.1, epsilon=0.1)
    with pytest.raises(FairtheoryTypeError, match="fedmgda.State"):
        alg.step(object(), None)
    with pytest.raises(FairtheoryTypeError, match="rng"):
        fedmgda.make(P, lr=0.1, K=2, epsilon=0.1).step(alg.init(), None)
    with pytest.raises(FairtheoryValueError, match=r"lr\(r\)"):
        fedmgda.make(P, lr=lambda r: -1.0, epsilon=0.1).step(alg.init(), None)


@pytest.mark.parametrize("claim_id", ["fedmgda.direction", "fedmgda.common_descent"])
def test_claims_verified(claim_id):
    from verify.core import Context, run_claim
    from verify.plugins import load_builtin

    load_builtin()
    r = run_claim(claim_id, Context(quick=True, seed=0))
    assert r.status == "verified", r.note
    assert r.instances >= 60


def test_aggregate_gram_route_matches_normalising_first():
    """aggregate takes norms and the normalised Gram matrix from the raw Gram product; normalising
    first (the fallback for zero, tiny or huge updates) gives the same direction and weights."""
    from fairtheory.exact.min_norm import fedmgda_box, min_norm_weights

    rng = np.random.default_rng(21)
    for k in range(40):
        m, d = int(rng.integers(1, 12)), int(rng.integers(1, 30))
        U = (rng.normal(size=(m, d)) + rng.normal(size=d)) * 10.0 ** float(rng.integers(-3, 4))
        if k % 7 == 3:
            U[0] = 0.0
        lam0, eps, off = rng.dirichlet(np.ones(m)), float(rng.choice([0.0, 0.05, 0.2, 1.0])), float(rng.choice([0.0, 1e-8]))
        d_got, lam = fedmgda.aggregate(U, lam0, epsilon=eps, offset=off)
        Un = fedmgda.normalise(U, off)
        lo, hi = fedmgda_box(lam0, eps)
        lam_ref, _ = min_norm_weights(Un @ Un.T, lo=lo, hi=hi)
        ref = lam_ref @ Un
        G = Un @ Un.T
        assert abs(lam @ G @ lam - lam_ref @ G @ lam_ref) <= 1e-12
        assert np.max(np.abs(d_got - lam @ Un)) <= 1e-12
        assert abs(d_got @ d_got - ref @ ref) <= 1e-12


@pytest.mark.parametrize("s", [1e-200, 1e-160, 1e150, 1e300])
def test_aggregate_tiny_and_huge_updates(s):
    rng = np.random.default_rng(22)
    U = rng.normal(size=(5, 8))
    lam0 = np.full(5, 0.2)
    d_ref, lam_ref = fedmgda.aggregate(U, lam0, epsilon=0.1)
    d_s, lam_s = fedmgda.aggregate(U * s, lam0, epsilon=0.1)
    assert np.max(np.abs(d_s - d_ref)) <= 1e-12 and np.max(np.abs(lam_s - lam_ref)) <= 1e-12


def test_normalise_zero_rows_and_offset():
    U = np.array([[3.0, 4.0], [0.0, 0.0], [1e-300, 0.0]])
    assert np.array_equal(fedmgda.normalise(U), np.array([[0.6, 0.8], [0.0, 0.0], [1.0, 0.0]]))
    assert np.allclose(fedmgda.normalise(U, 1.0), [[0.5, 4 / 6], [0.0, 0.0], [1e-300, 0.0]], rtol=1e-15, atol=0)


def test_aggregate_shape_is_checked():
    with pytest.raises(FairtheoryValueError, match="len\\(lam0\\) = 3"):
        fedmgda.aggregate(np.ones((2, 4)), [0.2, 0.3, 0.5], epsilon=0.1)
