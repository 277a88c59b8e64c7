"""FedFV aggregation, training loop (``make``/``run``), theorem quantities and the Pareto measure (004)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.algorithms import fedfv
from fairtheory.algorithms.base import run
from fairtheory.algorithms.fedfv_aggregate import (
    aggregate,
    aggregate_loop,
    external_projection,
    internal_projection,
    n_unprojected,
    projection_order,
    rescale,
)
from fairtheory.bounds.fedfv import (
    all_steps_conflict,
    conflicts,
    epsilons,
    sequential_projections,
    theorem1_bound,
    theorem2_bound,
    theorem2_f,
)
from fairtheory.exact.min_norm import min_norm_point
from fairtheory.exact.pareto import min_norm_point_2, pareto_stationarity
from fairtheory.problems.quadratic import random_quadratic

S2 = np.sqrt(2.0)


def _mean_proj(U, losses, alpha, **kw):
    g, _ = internal_projection(np.asarray(U, float), np.asarray(losses, float), alpha=alpha, **kw)
    return g


# ----------------------------------------------------------------------------- hand-computed cases
def test_2d_three_updates_with_conflicts_alpha0():
    # g1 = (1,0) loss 0.1, g2 = (-1,1) loss 0.2, g3 = (0,-1) loss 0.3  -> order 1, 2, 3
    U = [[1.0, 0.0], [-1.0, 1.0], [0.0, -1.0]]
    L = [0.1, 0.2, 0.3]
    # client 1: vs g2: (1,0).(-1,1) = -1 < 0 -> (1,0) + (1/2)(-1,1) = (1/2, 1/2);
    #           vs g3: (1/2,1/2).(0,-1) = -1/2 < 0 -> (1/2,1/2) + (1/2)(0,-1) = (1/2, 0)
    # client 2: vs g1: (-1,1).(1,0) = -1 -> (0,1); vs g3: (0,1).(0,-1) = -1 -> (0,0)
    # client 3: vs g1: 0 (no conflict); vs g2: (0,-1).(-1,1) = -1 -> (0,-1) + (1/2)(-1,1) = (-1/2,-1/2)
    expected = (np.array([0.5, 0.0]) + np.array([0.0, 0.0]) + np.array([-0.5, -0.5])) / 3
    assert np.allclose(_mean_proj(U, L, 0.0), expected, atol=1e-15)
    # rescaled to ||mean U|| = ||(0, 0)||/3 = 0 -> zero step
    assert np.allclose(aggregate(np.array(U), np.array(L)), 0.0)


def test_2d_three_updates_alpha_third_keeps_largest_loss():
    U = [[1.0, 0.0], [-1.0, 1.0], [0.0, -1.0]]
    L = [0.1, 0.2, 0.3]
    # alpha = 1/3, m = 3: round(1) = 1 client kept = client 3 (largest loss) -> g3 stays (0,-1)
    expected = (np.array([0.5, 0.0]) + np.array([0.0, 0.0]) + np.array([0.0, -1.0])) / 3
    assert np.allclose(_mean_proj(U, L, 1 / 3), expected, atol=1e-15)
    # reference rule: m - ceil((m-1)(1-alpha)) = 3 - ceil(4/3) = 1 -> same client kept
    assert np.allclose(_mean_proj(U, L, 1 / 3, keep_rule="reference"), expected, atol=1e-15)


def test_2d_three_updates_alpha1_is_mean():
    U = np.array([[1.0, 0.0], [-1.0, 1.0], [0.0, -1.0]])
    assert np.allclose(_mean_proj(U, [0.1, 0.2, 0.3], 1.0), U.mean(axis=0), atol=1e-15)


def test_2d_loss_order_matters():
    # same vectors, losses reversed -> order 3, 2, 1
    U = [[1.0, 0.0], [-1.0, 1.0], [0.0, -1.0]]
    L = [0.3, 0.2, 0.1]
    # client 1: vs g3: 0 (none); vs g2: (1,0)->(1/2,1/2); g1 is itself -> (1/2, 1/2)
    # client 2: vs g3: (-1,1).(0,-1) = -1 -> (-1,0); vs g1 (skip... g1 is next): (-1,0).(1,0) = -1 -> (0,0)
    # client 3: vs g2: (0,-1).(-1,1) = -1 -> (-1/2,-1/2); vs g1: (-1/2,-1/2).(1,0) = -1/2 -> (0,-1/2)
    expected = (np.array([0.5, 0.5]) + np.array([0.0, 0.0]) + np.array([0.0, -0.5])) / 3
    assert np.allclose(_mean_proj(U, L, 0.0), expected, atol=1e-15)


def test_3d_no_conflicts_is_mean_for_every_alpha():
    U = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [1.0, 1.0, 1.0]])  # pairwise dots >= 0
    for alpha in (0.0, 1 / 3, 1.0):
        assert np.allclose(_mean_proj(U, [3.0, 1.0, 2.0], alpha), U.mean(axis=0), atol=1e-15)
        assert np.allclose(aggregate(U, np.array([3.0, 1.0, 2.0]), alpha=alpha), U.mean(axis=0), atol=1e-15)


def test_3d_with_conflicts_and_rescaling():
    # g1 = (1,0,0) l=0.5, g2 = (-1,0,1) l=0.1, g3 = (0,1,-1) l=0.9 -> order 2, 1, 3; alpha = 0
    U = np.array([[1.0, 0.0, 0.0], [-1.0, 0.0, 1.0], [0.0, 1.0, -1.0]])
    L = np.array([0.5, 0.1, 0.9])
    # client 1: vs g2: -1 -> (1,0,0) + (1/2)(-1,0,1) = (1/2,0,1/2); vs g3: (1/2,0,1/2).(0,1,-1) = -1/2
    #           -> + (1/4)(0,1,-1) = (1/2, 1/4, 1/4)
    # client 2: vs g1: -1 -> (0,0,1); vs g3: -1 -> (0,0,1) + (1/2)(0,1,-1) = (0,1/2,1/2)
    # client 3: vs g2: -1 -> (0,1,-1) + (1/2)(-1,0,1) = (-1/2,1,-1/2); vs g1: -1/2 -> (0,1,-1/2)
    g = (np.array([0.5, 0.25, 0.25]) + np.array([0.0, 0.5, 0.5]) + np.array([0.0, 1.0, -0.5])) / 3
    assert np.allclose(_mean_proj(U, L, 0.0), g, atol=1e-15)
    # alpha = 1/3 keeps client 3 (loss 0.9): (0,1,-1)
    g13 = (np.array([0.5, 0.25, 0.25]) + np.array([0.0, 0.5, 0.5]) + np.array([0.0, 1.0, -1.0])) / 3
    assert np.allclose(_mean_proj(U, L, 1 / 3), g13, atol=1e-15)
    # rescaling: ||mean U|| = ||(0, 1/3, 0)|| = 1/3
    out = aggregate(U, L)
    assert np.allclose(out, g / np.linalg.norm(g) / 3, atol=1e-15)


# ----------------------------------------------------------------------------- oracle agreement
@pytest.mark.parametrize("seed", range(6))
def test_gram_equals_loop_random(seed):
    rng = np.random.default_rng(seed)
    for _ in range(40):
        m, d = int(rng.integers(1, 9)), int(rng.integers(1, 7))
        U = rng.normal(size=(m, d)) * np.exp(rng.normal(size=(m, 1)))
        losses = rng.normal(size=m)
        K = int(rng.integers(1, 10))
        H, hr = rng.normal(size=(K, d)), rng.integers(-1, 6, size=K)
        kw = dict(alpha=float(rng.choice([0.0, 1 / 3, 0.5, 1.0])),
                  keep_rule=str(rng.choice(["paper", "reference"])),
                  tau=int(rng.integers(0, 4)), t=int(rng.integers(0, 7)), history=H, history_round=hr,
                  window=str(rng.choice(["paper", "reference"])),
                  order=str(rng.choice(["ascending", "reversed"])))
        a, b = aggregate(U, losses, **kw), aggregate_loop(U, losses, **kw)
        assert np.allclose(a, b, atol=1e-10 * max(1.0, np.abs(U).max()))


@given(arrays(np.float64, st.tuples(st.integers(2, 6), st.integers(2, 4)),
              elements=st.floats(-100, 100, allow_subnormal=False)))
def test_gram_equals_loop_hypothesis(U):
    losses = np.arange(U.shape[0], dtype=float)
    a = aggregate(U, losses, do_rescale=False)
    b = aggregate_loop(U, losses, do_rescale=False)
    assert np.allclose(a, b, atol=1e-8 * max(1.0, float(np.abs(U).max())) ** 2)


def test_numpy_torch_agree(xp_name, to_backend):
    rng = np.random.default_rng(3)
    U = rng.normal(size=(7, 5))
    losses = rng.uniform(size=7)
    H, hr = rng.normal(size=(9, 5)), rng.integers(-1, 4, size=9)
    ref = aggregate(U, losses, alpha=0.3, tau=2, t=3, history=H, history_round=hr)
    out = aggregate(to_backend(U), losses, alpha=0.3, tau=2, t=3, history=to_backend(H), history_round=hr)
    assert np.allclose(np.asarray(out), ref, atol=1e-13)


def test_training_loop_numpy_torch_agree():
    torch = pytest.importorskip("torch")
    prob = random_quadratic(5, 3, rng=np.random.default_rng(0), spread=2.0)
    alg = fedfv.make(prob, lr=0.1, kappa=2, K=3, alpha=0.4, tau=2)
    _, h1 = run(alg, 30, rng=np.random.default_rng(1))
    s2, h2 = run(alg, 30, rng=np.random.default_rng(1), w0=torch.zeros(3, dtype=torch.float64))
    assert isinstance(s2.w, torch.Tensor)
    a, b = h1.as_arrays(), h2.as_arrays()
    assert np.max(np.abs(a["iterates"] - b["iterates"])) <= 1e-12
    assert np.array_equal(a["comms"], b["comms"])


# ----------------------------------------------------------------------------- options
def test_counting_rules():
    assert [n_unprojected(3, a) for a in (0.0, 1 / 3, 0.5, 1.0)] == [0, 1, 2, 3]
    assert n_unprojected(4, 0.125) == 1  # 0.5 rounds half up
    assert [n_unprojected(3, a, "reference") for a in (0.0, 1 / 3, 0.5, 1.0)] == [0, 1, 2, 3]
    assert n_unprojected(10, 0.01, "reference") == 1  # reference keeps >= 1 whenever alpha > 0
    assert n_unprojected(10, 0.01, "paper") == 0
    with pytest.raises(FairtheoryValueError, match="alpha"):
        n_unprojected(3, 1.5)
    with pytest.raises(FairtheoryValueError, match="keep_rule"):
        n_unprojected(3, 0.5, "other")


def test_projection_orders():
    losses = np.array([0.3, 0.1, 0.2, 0.1])
    assert projection_order(losses).tolist() == [1, 3, 2, 0]  # stable: ties keep index order
    assert projection_order(losses, "reversed").tolist() == [0, 2, 3, 1]
    p = projection_order(losses, "random", np.random.default_rng(0))
    assert sorted(p.tolist()) == [0, 1, 2, 3]
    with pytest.raises(FairtheoryValueError, match="rng"):
        projection_order(losses, "random")
    with pytest.raises(FairtheoryValueError, match="permutation"):
        projection_order(losses, [0, 0, 1, 2])


def test_external_windows():
    g = np.array([1.0, 0.0])
    H = np.array([[-1.0, 1.0], [-1.0, -1.0], [0.0, 1.0]])
    hr = np.array([0, 1, 2])
    # t = 2, tau = 1: paper window = round 1 -> g_con = (-1,-1); g.g_con = -1
    #   -> g - (-1/2)(-1,-1) = (1/2,-1/2)
    assert np.allclose(external_projection(g, H, hr, t=2, tau=1), [0.5, -0.5])
    # reference window = round 2 only -> h = (0,1) does not conflict -> unchanged
    assert np.allclose(external_projection(g, H, hr, t=2, tau=1, window="reference"), g)
    # t < tau: no external step
    assert np.allclose(external_projection(g, H, hr, t=1, tau=2), g)
    # tau = 2 (paper): rounds 0 then 1: (-1,1) -> (1/2,1/2); then vs (-1,-1): dot -1 -> (0, 0)
    assert np.allclose(external_projection(g, H, hr, t=2, tau=2), [0.0, 0.0], atol=1e-15)


def test_zero_guards():
    U = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 0.0]])  # antiparallel pair and a zero update
    out = aggregate(U, np.array([0.1, 0.2, 0.3]))
    assert np.all(np.isfinite(out)) and np.allclose(out, 0.0)
    assert np.allclose(rescale(np.zeros(2), U), 0.0)
    with pytest.raises(FairtheoryValueError, match="finite"):
        aggregate(np.array([[np.nan, 0.0]]), np.array([0.0]))
    with pytest.raises(FairtheoryValueError, match="losses"):
        aggregate(np.ones((2, 2)), np.array([0.0]))


def test_training_loop_state_and_history():
    prob = random_quadratic(6, 3, rng=np.random.default_rng(2), spread=2.0)
    alg = fedfv.make(prob, lr=0.1, K=2, tau=1)
    s0 = alg.init()
    s1 = alg.step(s0, np.random.default_rng(0))
    assert s1.t == 1 and s1.comms == 4 and len(s1.last_clients) == 2
    assert np.all(s1.history_round[s1.last_clients] == 0)
    assert np.sum(s1.history_round >= 0) == 2
    # the updates in the history are theta - theta_k after one local step: lr * grad f_k(theta)
    assert np.max(np.abs(s1.history[s1.last_clients] - 0.1 * prob.grads(s0.w)[s1.last_clients])) <= 1e-15
    assert np.all(s1.history[np.setdiff1d(np.arange(6), s1.last_clients)] == 0.0)
    # alpha = 1, full participation, kappa = 1: FedAvg step (rescaling keeps the mean)
    s = fedfv.make(prob, lr=0.1, alpha=1.0).step(s0, None)
    assert np.max(np.abs(s.w - (s0.w - 0.1 * prob.grads(s0.w).mean(axis=0)))) <= 1e-15


def test_step_matches_reference_round():
    """One round by hand: K distinct draws without replacement by p, kappa local steps, losses at the
    server model, history update, then aggregate (internal + external projection, rescaling)."""
    prob = random_quadratic(7, 4, rng=np.random.default_rng(4), spread=2.0)
    lr, kappa, K, alpha, tau = 0.2, 3, 4, 0.3, 1
    alg = fedfv.make(prob, lr=lr, kappa=kappa, K=K, alpha=alpha, tau=tau)
    s = run(alg, 2, rng=np.random.default_rng(11))[0]  # history from rounds 0 and 1
    new = alg.step(s, np.random.default_rng(5))
    clients = np.sort(np.random.default_rng(5).choice(prob.n, size=K, replace=False, p=prob.p))
    U = []
    for i in clients:  # reference: loop over the sampled clients (test only)
        v = s.w.copy()
        for _ in range(kappa):
            v = v - lr * prob.grads(v)[i]
        U.append(s.w - v)
    U = np.array(U)
    hist, hround = s.history.copy(), s.history_round.copy()
    hist[clients], hround[clients] = U, s.t
    g = aggregate_loop(U, prob.losses(s.w)[clients], alpha=alpha, tau=tau, t=s.t, history=hist,
                       history_round=hround)
    assert np.array_equal(new.last_clients, clients)
    assert np.max(np.abs(new.w - (s.w - g))) <= 1e-12
    assert np.max(np.abs(new.history - hist)) <= 1e-15 and np.array_equal(new.history_round, hround)
    assert new.t == s.t + 1 and new.comms == s.comms + 2 * K


def test_make_validation():
    prob = random_quadratic(4, 2, rng=np.random.default_rng(0))
    with pytest.raises(FairtheoryValueError, match="lr"):
        fedfv.make(prob, lr=-1.0)
    with pytest.raises(FairtheoryValueError, match="kappa"):
        fedfv.make(prob, lr=0.1, kappa=0)
    with pytest.raises(FairtheoryTypeError, match="kappa"):
        fedfv.make(prob, lr=0.1, kappa=1.5)
    with pytest.raises(FairtheoryValueError, match="K"):
        fedfv.make(prob, lr=0.1, K=5)  # more distinct clients than there are
    with pytest.raises(FairtheoryValueError, match="alpha"):
        fedfv.make(prob, lr=0.1, alpha=1.5)
    with pytest.raises(FairtheoryValueError, match="tau"):
        fedfv.make(prob, lr=0.1, tau=-1)
    with pytest.raises(FairtheoryValueError, match="order"):
        fedfv.make(prob, lr=0.1, order="sideways")
    with pytest.raises(FairtheoryValueError, match="order"):
        fedfv.make(prob, lr=0.1, K=2, order=[0, 1])  # a permutation needs full participation
    with pytest.raises(FairtheoryValueError, match="keep_rule"):
        fedfv.make(prob, lr=0.1, keep_rule="other")
    with pytest.raises(FairtheoryValueError, match="window"):
        fedfv.make(prob, lr=0.1, window="other")
    alg = fedfv.make(prob, lr=0.1)
    with pytest.raises(FairtheoryValueError, match="w0"):
        alg.init(np.zeros(3))
    with pytest.raises(FairtheoryTypeError, match="fedfv.State"):
        alg.step(object(), None)
    with pytest.raises(FairtheoryTypeError, match="rng"):
        fedfv.make(prob, lr=0.1, K=2).step(alg.init(), None)
    with pytest.raises(FairtheoryTypeError, match="rng"):
        fedfv.make(prob, lr=0.1, order="random").step(alg.init(), None)
    # a given permutation with full participation is used as the projection order
    s = fedfv.make(prob, lr=0.1, order=[3, 2, 1, 0]).step(alg.init(np.ones(2)), None)
    assert np.all(np.isfinite(s.w))


# ----------------------------------------------------------------------------- theorem quantities
def _loop_sequential(A, conditional=True):
    m = len(A)
    P = [A.copy()]
    cur = A.copy()
    for j in range(m):
        nxt = cur.copy()
        for i in range(m):
            if i == j:
                continue
            d = cur[i] @ A[j]
            if d < 0 or not conditional:
                nxt[i] = cur[i] - d / (A[j] @ A[j]) * A[j]
        cur = nxt
        P.append(cur.copy())
    return np.array(P)


@pytest.mark.parametrize("conditional", [True, False])
def test_sequential_projections_match_loop(conditional):
    rng = np.random.default_rng(5)
    for _ in range(30):
        A = rng.normal(size=(int(rng.integers(2, 6)), int(rng.integers(2, 5))))
        assert np.allclose(sequential_projections(A, conditional=conditional),
                           _loop_sequential(A, conditional), atol=1e-12)


def test_theorem_bounds_hand_case():
    # g1 = (1,0), g2 = (-1,1): |cos| = 1/sqrt2 for every involved pair -> eps^2 = 1/2
    A = np.array([[1.0, 0.0], [-1.0, 1.0]])
    assert np.allclose(conflicts(A), [0.25, 0.5])
    assert all_steps_conflict(A)
    e1, e2 = epsilons(A)
    assert np.isclose(e1, 1 / S2) and np.isclose(e2, 1 / S2)
    # k=1: (eps^2/m)||g_1|| ||g_1^(1)|| = (1/4)*1*1; k=2: empty sum
    assert np.allclose(theorem1_bound(A), [0.25, 0.0])
    # f(2, 1, e, e) = e^2 r (1 - r)/(1 - r) = (1/2)(1/sqrt2); times (m-1)/m max||g||^2 = (1/2)*2
    assert np.isclose(theorem2_f(2, 1, 1 / S2, 1 / S2), 0.5 / S2)
    assert np.allclose(theorem2_bound(A), [0.5 / S2, 0.0])
    assert theorem2_f(5, 2, 0.0, 0.5) == pytest.approx(0.25 * 3)  # eps1 -> 0 limit


# ----------------------------------------------------------------------------- Pareto measure
def test_min_norm_point_closed_form_and_qp():
    rng = np.random.default_rng(0)
    for _ in range(5):
        g1, g2 = rng.normal(size=3), rng.normal(size=3)
        cf, qp = min_norm_point_2(g1, g2), min_norm_point(np.stack([g1, g2]))
        assert abs(cf.value - qp.value) <= 1e-7
        assert cf.certificate["fw_gap"] <= 1e-12 * max(1.0, cf.value)
    assert min_norm_point_2([1.0, 0.0], [-2.0, 0.0]).value == pytest.approx(0.0, abs=1e-15)
    r = min_norm_point(np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]))
    assert r.value == pytest.approx(1 / S2, abs=1e-7)  # the hull's closest point (1/2, 1/2)
    assert r.certificate["fw_gap"] <= 1e-8
    assert pareto_stationarity(np.array([[1.0, 1.0], [-1.0, -1.0], [0.0, 3.0]])) <= 1e-6
