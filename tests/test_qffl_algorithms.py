"""q-FedSGD (003 Alg. 3) and q-FedAvg (003 Alg. 1): hand example, exact convergence, backends, reduction."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory._validation import FairtheoryValueError
from fairtheory.algorithms import qfedavg, qfedsgd
from fairtheory.algorithms.base import sample_clients
from fairtheory.backend import to_numpy
from fairtheory.exact.qffl import solve_qffl
from fairtheory.objectives.qffl import qffl_value
from fairtheory.problems.multinomial import MultinomialProblem
from fairtheory.problems.quadratic import QuadraticProblem, random_quadratic


def two_clients() -> QuadraticProblem:
    # F_k(w) = 0.5 ||w - c_k||^2, c_1 = (1, 0), c_2 = (0, 2), p = (1/2, 1/2)
    return QuadraticProblem(np.stack([np.eye(2)] * 2), np.array([[1.0, 0.0], [0.0, 2.0]]))


def test_qfedavg_aggregation_by_hand():
    """w = 0, lr = 0.5, one local step, q = 1, offset 0, all devices weighted by p = (1/2, 1/2).

    F_1(0) = 0.5, F_2(0) = 2.  Local step: wbar_k = 0 - 0.5 (0 - c_k) = c_k/2, so wbar_1 = (0.5, 0),
    wbar_2 = (0, 1).  Camera-ready: L = 1/lr = 2, Delta w_k = L (w - wbar_k) = -c_k:
      Delta_1 = F_1 Delta w_1 = (-0.5, 0);  Delta_2 = F_2 Delta w_2 = (0, -4)
      h_1 = q F_1^0 ||Delta w_1||^2 + L F_1 = 1 + 1 = 2;  h_2 = 4 + 4 = 8
      w+ = -(0.5 (-0.5, 0) + 0.5 (0, -4)) / (0.5*2 + 0.5*8) = (0.25, 2)/5 = (0.05, 0.4).
    Seed convention (Delta w_k = w - wbar_k = -c_k/2, L = 2):
      Delta_1 = 0.5 (-0.5, 0) = (-0.25, 0);  Delta_2 = 2 (0, -1) = (0, -2)
      h_1 = 0.25 + 1 = 1.25;  h_2 = 1 + 4 = 5
      w+ = (0.125, 1) / 3.125 = (0.04, 0.32).
    """
    P = two_clients()
    s0 = qfedavg.init(P, np.zeros(2))
    rng = np.random.default_rng(0)
    cam = qfedavg.step(s0, P, rng, q=1.0, lr=0.5, offset=0.0)
    assert np.allclose(cam.w, [0.05, 0.4], rtol=0, atol=1e-15)
    seed = qfedavg.step(s0, P, rng, q=1.0, lr=0.5, offset=0.0, scaled=False)
    assert np.allclose(seed.w, [0.04, 0.32], rtol=0, atol=1e-15)
    assert cam.comms == 2 and cam.t == 1
    # the default offset 1e-10 moves the result by O(1e-10) only
    dflt = qfedavg.step(s0, P, rng, q=1.0, lr=0.5)
    assert np.max(np.abs(dflt.w - cam.w)) < 1e-9


def test_qfedavg_sampled_multiplicity_by_hand():
    """K = 2 draws; if both draws are device 2: w+ = -(2 Delta_2)/(2 h_2) = (0, 4)/8 = (0, 0.5)."""
    P = two_clients()
    for seed in range(50):
        drawn = sample_clients(np.random.default_rng(seed), P.p, 2)
        if drawn.tolist() == [1, 1]:
            break
    s = qfedavg.step(qfedavg.init(P, np.zeros(2)), P, np.random.default_rng(seed), q=1.0, lr=0.5, K=2,
                     offset=0.0)
    assert np.allclose(s.w, [0.0, 0.5], rtol=0, atol=1e-15)


def test_qfedsgd_by_hand():
    """q-FedSGD at w = 0, q = 1, L = 1: g_1 = -c_1, g_2 = -c_2 (same numbers as Delta w above):
    Delta = (F_1 g_1 + F_2 g_2)/2 = (-0.25, -2); h = (1*1 + 0.5 + 1*4 + 2)/2 = 3.75;
    w+ = (0.25, 2)/3.75 = (1/15, 8/15)."""
    P = two_clients()
    s = qfedsgd.step(qfedsgd.init(P, np.zeros(2)), P, np.random.default_rng(0), q=1.0, L=1.0, offset=0.0)
    assert np.allclose(s.w, [1 / 15, 8 / 15], rtol=0, atol=1e-15)


def _run_to_gap(P, q, L, rounds=20000):
    ref = solve_qffl(P, q).value
    s = qfedsgd.init(P)
    rng = np.random.default_rng(0)
    gap = np.inf
    for t in range(1, rounds + 1):
        s = qfedsgd.step(s, P, rng, q=q, L=L)
        if t % 50 == 0:
            gap = (float(qffl_value(P.losses(s.w), q, P.p)) - ref) / ref
            if gap <= 1e-6:
                break
    return gap


@pytest.mark.parametrize("q", [0.0, 1.0, 5.0])
def test_qfedsgd_reaches_exact_optimum(q):
    P = random_quadratic(10, 5, rng=np.random.default_rng(7), offset=1.0)
    assert _run_to_gap(P, q, qfedsgd.estimate_L(P)) <= 1e-6


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("q", [0.0, 1.0, 5.0])
def test_qfedsgd_reaches_exact_optimum_many(q, seed):
    P = random_quadratic(20, 6, rng=np.random.default_rng(100 + seed), offset=1.0, spread=2.0)
    assert _run_to_gap(P, q, qfedsgd.estimate_L(P)) <= 1e-6


def test_estimate_L_grid_picks_largest_converging_step():
    P = random_quadratic(6, 3, rng=np.random.default_rng(1), offset=1.0)
    L_grid = qfedsgd.estimate_L(P, method="grid", rounds=200)
    assert 0 < L_grid <= 4 * P.smoothness()
    assert qfedsgd.estimate_L(P) == P.smoothness()
    with pytest.raises(FairtheoryValueError, match="method"):
        qfedsgd.estimate_L(P, method="nope")


@pytest.mark.parametrize("K", [None, 1, 3])
@pytest.mark.parametrize("lr", [0.05, 0.7])
def test_qfedavg_reduces_to_fedsgd(K, lr):
    """q = 0, one local full-batch step, camera-ready scaling: FedSGD with step 1/L = lr."""
    P = random_quadratic(5, 3, rng=np.random.default_rng(3), offset=0.5)
    w = np.array([0.3, -1.0, 2.0])
    s = qfedavg.step(qfedavg.init(P, w), P, np.random.default_rng(11), q=0.0, lr=lr, K=K)
    G = P.grads(w)
    if K is None:
        ref = w - lr * P.p @ G
    else:
        idx = sample_clients(np.random.default_rng(11), P.p, K)
        ref = w - lr * G[idx].mean(axis=0)
    assert np.max(np.abs(s.w - ref)) < 1e-14


def test_qfedavg_reduction_against_fedavg_module():
    fedavg = pytest.importorskip("fairtheory.algorithms.fedavg")
    P = random_quadratic(5, 3, rng=np.random.default_rng(3), offset=0.5)
    w = np.array([0.3, -1.0, 2.0])
    for K in (None, 2):
        s = qfedavg.step(qfedavg.init(P, w), P, np.random.default_rng(5), q=0.0, lr=0.3, K=K)
        fa = fedavg.make(P, lr=0.3, kappa=1, K=K)
        f = fa.step(fa.init(w), np.random.default_rng(5))
        assert np.max(np.abs(s.w - to_numpy(f.w))) < 1e-14


def _multinomial(seed=0):
    r = np.random.default_rng(seed)
    X = r.normal(size=(30, 3))
    return MultinomialProblem(X, r.integers(0, 3, 30), [0, 7, 15, 30], 3, l2=0.01)


@pytest.mark.parametrize("make", [lambda: random_quadratic(6, 3, rng=np.random.default_rng(9), offset=0.5),
                                  _multinomial])
def test_numpy_torch_same_trajectory(make):
    torch = pytest.importorskip("torch")
    P = make()
    sn = qfedavg.init(P)
    st = qfedavg.init(P, torch.zeros(P.d, dtype=torch.float64))
    gn = qfedsgd.init(P)
    gt = qfedsgd.init(P, torch.zeros(P.d, dtype=torch.float64))
    for k in range(8):
        kw = dict(q=2.0, lr=0.1, local_steps=3, K=4)
        sn = qfedavg.step(sn, P, np.random.default_rng(k), **kw)
        st = qfedavg.step(st, P, np.random.default_rng(k), **kw)
        gn = qfedsgd.step(gn, P, np.random.default_rng(k), q=1.5, L=5.0, K=3)
        gt = qfedsgd.step(gt, P, np.random.default_rng(k), q=1.5, L=5.0, K=3)
    assert isinstance(st.w, torch.Tensor)
    assert np.max(np.abs(st.w.numpy() - sn.w)) < 1e-12
    assert np.max(np.abs(gt.w.numpy() - gn.w)) < 1e-12


def test_subset_path_equals_full_path():
    """Local training on ``problem.subset`` (multinomial) equals evaluating every client."""
    P = _multinomial(1)
    w = np.random.default_rng(0).normal(size=P.d) * 0.1
    idx = np.array([0, 2])
    F, dW = qfedavg.local_updates(P, w, idx, lr=0.2, local_steps=3)

    class NoSubset:  # same problem without .subset -> generic path
        def __getattr__(self, name):
            if name == "subset":
                raise AttributeError(name)
            return getattr(P, name)

    F2, dW2 = qfedavg.local_updates(NoSubset(), w, idx, lr=0.2, local_steps=3)
    assert np.allclose(F, F2, rtol=1e-14) and np.allclose(dW, dW2, rtol=1e-12, atol=1e-15)


def test_algorithm_validation():
    P = two_clients()
    s = qfedsgd.init(P)
    rng = np.random.default_rng(0)
    with pytest.raises(FairtheoryValueError, match="q"):
        qfedsgd.step(s, P, rng, q=-1.0, L=1.0)
    with pytest.raises(FairtheoryValueError, match="L"):
        qfedsgd.step(s, P, rng, q=1.0, L=0.0)
    with pytest.raises(FairtheoryValueError, match="lr"):
        qfedavg.step(qfedavg.init(P), P, rng, q=1.0, lr=-0.1)
    with pytest.raises(FairtheoryValueError, match="w0"):
        qfedavg.init(P, np.zeros(3))
    neg = QuadraticProblem(np.stack([np.eye(2)] * 2), np.zeros((2, 2)), e=[-1.0, 0.0])
    with pytest.raises(FairtheoryValueError, match="nonnegative"):
        qfedsgd.step(qfedsgd.init(neg), neg, rng, q=1.0, L=1.0)
    # q < 1 with a zero loss and offset 0: h_k sums to 0 -> named error, never nan
    zero = QuadraticProblem(np.stack([np.eye(2)] * 2), np.zeros((2, 2)))
    with pytest.raises(FairtheoryValueError, match="h_k"):
        qfedsgd.step(qfedsgd.init(zero), zero, rng, q=0.5, L=1.0, offset=0.0)
