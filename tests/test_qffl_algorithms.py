"""q-FedSGD (003 Alg. 3) and q-FedAvg (003 Alg. 1): hand example, exact convergence, backends, reduction."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory._validation import FairtheoryValueError
from fairtheory.aggregators import QFFL, TERM
from fairtheory.algorithms import fedavg, qfedavg, qfedsgd
from fairtheory.algorithms.base import run, sample_clients
from fairtheory.backend import to_numpy
from fairtheory.errors import DivergenceError, FairtheoryTypeError
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
    alg = qfedavg.make(P, q=1.0, lr=0.5, offset=0.0)
    s0 = alg.init(np.zeros(2))
    cam = alg.step(s0, None)
    assert np.allclose(cam.w, [0.05, 0.4], rtol=0, atol=1e-15)
    seed = qfedavg.make(P, q=1.0, lr=0.5, offset=0.0, scaled=False).step(s0, None)
    assert np.allclose(seed.w, [0.04, 0.32], rtol=0, atol=1e-15)
    assert cam.comms == 2 and cam.t == 1
    # the default offset 1e-10 moves the result by O(1e-10) only
    dflt = qfedavg.make(P, q=1.0, lr=0.5).step(s0, None)
    assert np.max(np.abs(dflt.w - cam.w)) < 1e-9


def test_qfedavg_sampled_multiplicity_by_hand():
    """K = 2 draws; if both draws are device 2: w+ = -(2 Delta_2)/(2 h_2) = (0, 4)/8 = (0, 0.5)."""
    P = two_clients()
    for seed in range(50):
        drawn = sample_clients(np.random.default_rng(seed), P.p, 2)
        if drawn.tolist() == [1, 1]:
            break
    alg = qfedavg.make(P, q=1.0, lr=0.5, K=2, offset=0.0)
    s = alg.step(alg.init(np.zeros(2)), np.random.default_rng(seed))
    assert np.allclose(s.w, [0.0, 0.5], rtol=0, atol=1e-15)
    assert s.comms == 2


def test_qfedsgd_by_hand():
    """q-FedSGD at w = 0, q = 1, L = 1: g_1 = -c_1, g_2 = -c_2 (same numbers as Delta w above):
    Delta = (F_1 g_1 + F_2 g_2)/2 = (-0.25, -2); h = (1*1 + 0.5 + 1*4 + 2)/2 = 3.75;
    w+ = (0.25, 2)/3.75 = (1/15, 8/15)."""
    P = two_clients()
    alg = qfedsgd.make(P, q=1.0, L=1.0, offset=0.0)
    s = alg.step(alg.init(np.zeros(2)), None)
    assert np.allclose(s.w, [1 / 15, 8 / 15], rtol=0, atol=1e-15)


def _run_to_gap(P, q, L, rounds=20000):
    ref = solve_qffl(P, q).value
    alg = qfedsgd.make(P, q=q, L=L)
    s = alg.init()
    gap = np.inf
    for t in range(1, rounds + 1):
        s = alg.step(s, None)
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
    alg = qfedavg.make(P, q=0.0, lr=lr, K=K)
    s = alg.step(alg.init(w), np.random.default_rng(11))
    G = P.grads(w)
    if K is None:
        ref = w - lr * P.p @ G
    else:
        idx = sample_clients(np.random.default_rng(11), P.p, K)
        ref = w - lr * G[idx].mean(axis=0)
    assert np.max(np.abs(s.w - ref)) < 1e-14


def test_qfedavg_reduction_against_fedavg_module():
    P = random_quadratic(5, 3, rng=np.random.default_rng(3), offset=0.5)
    w = np.array([0.3, -1.0, 2.0])
    for K in (None, 2):
        qa = qfedavg.make(P, q=0.0, lr=0.3, K=K)
        s = qa.step(qa.init(w), np.random.default_rng(5))
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
    avg = qfedavg.make(P, q=2.0, lr=0.1, kappa=3, K=4)
    sgd = qfedsgd.make(P, q=1.5, L=5.0, K=3)
    term = qfedavg.make(P, lr=0.1, kappa=2, K=4, aggregator=TERM(P.p, 1.0))  # generic path, partial
    for alg in (avg, sgd, term):
        sn, hn = run(alg, 8, rng=np.random.default_rng(4))
        st, ht = run(alg, 8, rng=np.random.default_rng(4), w0=torch.zeros(P.d, dtype=torch.float64))
        assert isinstance(st.w, torch.Tensor)
        assert np.max(np.abs(st.w.numpy() - sn.w)) < 1e-12
        assert np.max(np.abs(hn.as_arrays()["losses"] - ht.as_arrays()["losses"])) < 1e-12
        assert sn.comms == st.comms == 8 * alg.hyper["K"] and sn.t == 8


def test_partial_participation_against_a_loop_over_drawn_clients():
    """q-FedAvg with K draws, kappa local steps, evaluated only on the drawn clients, equals the
    reference computed client by client (test only) from the same draws."""
    P = _multinomial(1)
    w = np.random.default_rng(0).normal(size=P.d) * 0.1
    q, lr, kappa, K, seed = 1.5, 0.2, 3, 5, 2
    s = qfedavg.make(P, q=q, lr=lr, kappa=kappa, K=K).step(qfedavg.State(w=w), np.random.default_rng(seed))
    draws = sample_clients(np.random.default_rng(seed), P.p, K)
    L, o = 1.0 / lr, 1e-10
    num, den = np.zeros(P.d), 0.0
    for k in draws:
        v = w.copy()
        for _ in range(kappa):
            v = v - lr * P.grads(v)[k]
        U = L * (w - v)
        F = P.losses(w)[k] + o
        num += F**q * U
        den += q * F ** (q - 1) * (U @ U) + L * F**q
    assert np.max(np.abs(s.w - (w - num / den))) < 1e-13


def test_default_aggregator_equals_explicit_qffl_and_generic_path():
    """aggregator=QFFL(p, q, o) is the default; the same aggregator seen only through weights/curvature
    (the generic path d = lam/p, e = curvature/p) gives the same step up to rounding."""
    P = random_quadratic(6, 3, rng=np.random.default_rng(2), offset=0.5)
    w = np.array([0.4, -0.3, 1.2])
    A = QFFL(P.p, 2.0, 1e-10)

    class Opaque:  # the QFFL formulas, but not a QFFL instance
        n, p = A.n, A.p

        def value(self, f):
            return A.value(f)

        def weights(self, f):
            return A.weights(f)

        def curvature(self, f):
            return A.curvature(f)

    for K in (None, 4):
        for mod, kw in ((qfedavg, dict(lr=0.3, kappa=2)), (qfedsgd, dict(L=3.0))):
            ref = mod.make(P, q=2.0, K=K, **kw)
            a = ref.step(ref.init(w), np.random.default_rng(1))
            b = mod.make(P, aggregator=A, K=K, **kw).step(ref.init(w), np.random.default_rng(1))
            c = mod.make(P, aggregator=Opaque(), K=K, **kw).step(ref.init(w), np.random.default_rng(1))
            assert np.array_equal(a.w, b.w)
            assert np.max(np.abs(a.w - c.w)) < 1e-14


def test_any_aggregator_server_step_by_hand():
    """TERM (no curvature): d = lam/p, e = 0, so q-FedSGD is w - sum p d g / (L sum p d) = w - lam.G / L."""
    P = random_quadratic(5, 3, rng=np.random.default_rng(6), offset=0.5)
    w = np.array([0.2, 0.1, -0.5])
    A = TERM(P.p, 1.5)
    s = qfedsgd.make(P, L=4.0, aggregator=A).step(qfedsgd.State(w=w), None)
    lam = A.weights(P.losses(w))
    assert np.max(np.abs(s.w - (w - lam @ P.grads(w) / (4.0 * lam.sum())))) < 1e-15


def test_validation():
    P = two_clients()
    with pytest.raises(FairtheoryValueError, match="q"):
        qfedsgd.make(P, q=-1.0, L=1.0)
    with pytest.raises(FairtheoryValueError, match="needs q"):
        qfedsgd.make(P, L=1.0)
    with pytest.raises(FairtheoryValueError, match="L"):
        qfedsgd.make(P, q=1.0, L=0.0)
    with pytest.raises(FairtheoryValueError, match="K"):
        qfedsgd.make(P, q=1.0, L=1.0, K=0)
    with pytest.raises(FairtheoryValueError, match="offset"):
        qfedsgd.make(P, q=1.0, L=1.0, offset=-1.0)
    with pytest.raises(FairtheoryValueError, match="not both"):
        qfedsgd.make(P, q=1.0, L=1.0, aggregator=QFFL(P.p, 1.0))
    with pytest.raises(FairtheoryValueError, match="offset applies"):
        qfedavg.make(P, lr=0.1, offset=0.0, aggregator=QFFL(P.p, 1.0))
    with pytest.raises(FairtheoryValueError, match="lr"):
        qfedavg.make(P, q=1.0, lr=-0.1)
    with pytest.raises(FairtheoryValueError, match="kappa"):
        qfedavg.make(P, q=1.0, lr=0.1, kappa=0)
    with pytest.raises(FairtheoryTypeError, match="scaled"):
        qfedavg.make(P, q=1.0, lr=0.1, scaled="yes")
    alg = qfedavg.make(P, q=1.0, lr=0.1)
    with pytest.raises(FairtheoryValueError, match="w0"):
        alg.init(np.zeros(3))
    with pytest.raises(FairtheoryTypeError, match="qfedavg.State"):
        alg.step(qfedsgd.State(w=np.zeros(2)), None)
    with pytest.raises(FairtheoryTypeError, match="rng"):
        qfedavg.make(P, q=1.0, lr=0.1, K=2).step(alg.init(), None)
    neg = QuadraticProblem(np.stack([np.eye(2)] * 2), np.zeros((2, 2)), e=[-1.0, 0.0])
    with pytest.raises(FairtheoryValueError, match="nonnegative"):
        g = qfedsgd.make(neg, q=1.0, L=1.0)
        g.step(g.init(), None)
    # q < 1 with a zero loss and offset 0: h_k sums to 0 -> named error, never nan
    zero = QuadraticProblem(np.stack([np.eye(2)] * 2), np.zeros((2, 2)))
    with pytest.raises(FairtheoryValueError, match="h_k"):
        g = qfedsgd.make(zero, q=0.5, L=1.0, offset=0.0)
        g.step(g.init(), None)


def test_run_names_the_step_sizes_when_diverging():
    P = random_quadratic(4, 2, rng=np.random.default_rng(0), offset=0.5)
    alg = qfedavg.make(P, q=0.0, lr=50.0 / P.smoothness(), kappa=3)
    with np.errstate(all="ignore"):
        with pytest.raises(DivergenceError, match=r"lr=.*L="):
            run(alg, 200)
        s, hist = run(alg, 200, on_divergence="stop")
    assert hist.diverged and np.all(np.isfinite(s.w))
