"""FedAvg: backend agreement, participation rules, and convergence to the exact optimum."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.algorithms import fedavg
from fairtheory.algorithms.base import run
from fairtheory.exact.rcfl import solve_fedavg
from fairtheory.problems import random_least_squares, random_logistic, random_quadratic


@pytest.fixture(scope="module")
def problems():
    rng = np.random.default_rng(0)
    return {
        "logistic": random_logistic(9, 4, 20, rng=rng, l2=0.05),
        "quadratic": random_quadratic(9, 4, rng=rng),
        "ls": random_least_squares(9, 4, 15, rng=rng),
    }


@pytest.mark.parametrize("name", ["logistic", "quadratic", "ls"])
@pytest.mark.parametrize("K", [None, 4])
def test_numpy_torch_same_iterates(problems, name, K):
    torch = pytest.importorskip("torch")
    P = problems[name]
    lr = 0.5 / P.smoothness()
    alg = fedavg.make(P, lr=lr, kappa=3, K=K)
    _, h_np = run(alg, 30, rng=np.random.default_rng(7))
    s_t, h_t = run(alg, 30, rng=np.random.default_rng(7), w0=torch.zeros(P.d, dtype=torch.float64))
    assert isinstance(s_t.w, torch.Tensor)
    a, b = h_np.as_arrays(), h_t.as_arrays()
    assert np.max(np.abs(a["iterates"] - b["iterates"])) <= 1e-10
    assert np.max(np.abs(a["losses"] - b["losses"])) <= 1e-10
    assert np.array_equal(a["comms"], b["comms"])


def test_kappa1_full_is_gradient_descent(problems):
    P = problems["logistic"]
    w = np.random.default_rng(1).normal(size=P.d)
    alg = fedavg.make(P, lr=0.3, kappa=1)
    s = alg.step(alg.init(w), None)
    assert np.max(np.abs(s.w - (w - 0.3 * P.p @ P.grads(w)))) <= 1e-15
    assert s.comms == 1 and s.steps == 1


def test_partial_participation_uses_draws_with_replacement(problems):
    P = problems["ls"]
    w = np.random.default_rng(2).normal(size=P.d)
    lr, kappa, K = 0.1, 4, 6
    alg = fedavg.make(P, lr=lr, kappa=kappa, K=K)
    s = alg.step(alg.init(w), np.random.default_rng(5))
    draws = np.random.default_rng(5).choice(P.n, size=K, replace=True, p=P.p)
    locs = []
    for i in draws:  # reference: loop over the drawn clients (test only)
        v = w.copy()
        for _ in range(kappa):
            v = v - lr * P.grads_each(np.tile(v, (P.n, 1)))[i]
        locs.append(v)
    assert np.max(np.abs(s.w - np.mean(locs, axis=0))) <= 1e-12


def test_subset_and_full_evaluation_paths_agree(problems):
    """Least squares evaluates only drawn clients; its QuadraticProblem twin evaluates all n."""
    P = problems["ls"]
    Q = P.as_quadratic()
    kw = dict(lr=0.05, kappa=3, K=5)
    _, h1 = run(fedavg.make(P, **kw), 20, rng=np.random.default_rng(9))
    _, h2 = run(fedavg.make(Q, **kw), 20, rng=np.random.default_rng(9))
    assert np.max(np.abs(h1.as_arrays()["iterates"] - h2.as_arrays()["iterates"])) <= 1e-9


@pytest.mark.parametrize("name", ["logistic", "quadratic", "ls"])
def test_reaches_exact_optimum(problems, name):
    P = problems[name]
    ex = solve_fedavg(P)
    s, _ = run(fedavg.make(P, lr=1.0 / P.smoothness(), kappa=1), 1500, record_losses=False, record_every=500)
    assert P.p @ P.losses(s.w) - ex.value <= 1e-10 * max(1, abs(ex.value))
    assert np.linalg.norm(s.w - ex.argmin) <= 1e-6


def test_decaying_step_partial_participation_approaches_optimum(problems):
    P = problems["quadratic"]
    ex = solve_fedavg(P)
    L = P.smoothness()
    alg = fedavg.make(P, lr=lambda r: 1.0 / (L * (1 + r / 20)), kappa=1, K=3)
    s, _ = run(alg, 3000, rng=np.random.default_rng(1), record_losses=False, record_every=1000)
    gap0 = P.p @ P.losses(np.zeros(P.d)) - ex.value
    assert P.p @ P.losses(s.w) - ex.value <= 1e-2 * gap0


def test_validation(problems):
    P = problems["quadratic"]
    with pytest.raises(FairtheoryValueError, match="lr"):
        fedavg.make(P, lr=-1.0)
    with pytest.raises(FairtheoryValueError, match="kappa"):
        fedavg.make(P, lr=0.1, kappa=0)
    with pytest.raises(FairtheoryValueError, match="K"):
        fedavg.make(P, lr=0.1, K=0)
    with pytest.raises(FairtheoryTypeError, match="kappa"):
        fedavg.make(P, lr=0.1, kappa=1.5)
    alg = fedavg.make(P, lr=0.1)
    with pytest.raises(FairtheoryValueError, match="w0"):
        alg.init(np.zeros(P.d + 1))
    with pytest.raises(FairtheoryTypeError, match="fedavg.State"):
        alg.step(object(), None)
    with pytest.raises(FairtheoryTypeError, match="rng"):
        fedavg.make(P, lr=0.1, K=2).step(alg.init(), None)
    with pytest.raises(FairtheoryValueError, match=r"lr\(r\)"):
        fedavg.make(P, lr=lambda r: -1.0).step(alg.init(), None)


def test_aggregator_weights_drive_the_server_step(problems):
    """kappa = 1, full participation: one step on A(f(w)) = a gradient step with weights grad A."""
    from fairtheory.aggregators import TERM

    P = problems["quadratic"]
    A = TERM(P.p, 2.0)
    w = np.random.default_rng(3).normal(size=P.d)
    s = fedavg.make(P, lr=0.2, aggregator=A).step(fedavg.make(P, lr=0.2).init(w), None)
    lam = A.weights(P.losses(w))
    assert np.max(np.abs(s.w - (w - 0.2 * lam @ P.grads(w)))) <= 1e-14
