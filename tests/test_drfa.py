"""DRFA (Deng et al. 2020): convergence to the exact DRO value within its tolerance, one dual set, backends,
validation."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.aggregators import integrated
from fairtheory.algorithms import drfa
from fairtheory.algorithms.base import run
from fairtheory.backend import to_numpy
from fairtheory.instances.baselines import drfa_convergence
from fairtheory.problems.quadratic import random_quadratic
from fairtheory.sets import CappedSimplex


def _problem(seed=0, n=4, d=2):
    return random_quadratic(n, d, rng=np.random.default_rng(seed), mu=1.0, L=3.0, spread=2.0, offset=1.0)


def test_drfa_reaches_exact_value_within_tolerance():
    from fairtheory.exact.rcfl import solve_afl

    P = _problem(0)
    ex = solve_afl(P)
    T, kappa = 4000, 8
    alg = drfa.make(P, kappa=kappa, lr=1.0 / (6 * P.smoothness() * np.sqrt(T)), dual_lr=0.1 / T ** 0.625, K=P.n)
    st, _ = run(alg, T // kappa, rng=np.random.default_rng(0), record_every=T, record_losses=False)
    rel = (P.losses(st.w_avg).max() - ex.value) / ex.value
    assert 0 <= rel < 0.1  # DRFA_VALUE_TOL of base.drfa.converges
    assert st.local_steps == (T // kappa) * kappa and st.comms == 2 * (T // kappa)
    assert CappedSimplex.simplex(P.n).contains(np.asarray(st.lam_avg))


def test_drfa_deterministic_single_client_is_gradient_descent():
    """With one client and kappa local steps DRFA's primal is plain GD on that client."""
    P = _problem(1, n=1, d=2)
    alg = drfa.make(P, kappa=3, lr=0.1, dual_lr=0.1, K=2)
    st = alg.step(alg.init(np.ones(2)), np.random.default_rng(0))
    w = np.ones(2)
    for _ in range(3):
        w = w - 0.1 * P.grads(w)[0]
    assert np.max(np.abs(np.asarray(st.w) - w)) <= 1e-14


def test_only_drawn_clients_move_the_model():
    """K = 1 draw: the new server model is the drawn client's local model after kappa steps."""
    P = _problem(2, n=5, d=3)
    alg = drfa.make(P, kappa=4, lr=0.05, dual_lr=0.0, K=1)
    w0 = np.random.default_rng(3).normal(size=3)
    st0 = alg.init(w0)
    st = alg.step(st0, np.random.default_rng(4))
    i = int(np.random.default_rng(4).choice(P.n, size=1, replace=True, p=np.asarray(st0.lam))[0])
    v = w0.copy()
    for _ in range(4):
        v = v - 0.05 * P.grads(v)[i]
    assert np.max(np.abs(np.asarray(st.w) - v)) <= 1e-13
    assert np.array_equal(np.asarray(st.lam), np.asarray(st0.lam))  # dual_lr = 0


def test_init_and_step_use_the_same_set():
    P = _problem(2, n=5, d=3)
    S = CappedSimplex.cvar(5, 0.6)
    alg = drfa.make(P, kappa=2, lr=0.05, dual_lr=5.0, K=3, aggregator=S)
    assert alg.hyper["aggregator"].set is S
    st = alg.init()
    rng = np.random.default_rng(0)
    for _ in range(10):
        st = alg.step(st, rng)
        assert S.contains(np.asarray(st.lam))
    with pytest.raises(FairtheoryValueError, match="lam0"):
        alg.init(lam0=np.eye(5)[0])


def test_numpy_torch_agree(xp_name, to_backend):
    P = _problem(2, n=5, d=3)
    S = CappedSimplex.cvar(5, 0.6)
    alg = drfa.make(P, kappa=4, lr=0.05, dual_lr=0.02, K=3, aggregator=S, grad_noise=0.2, loss_noise=0.1)
    ref, _ = run(alg, 20, rng=np.random.default_rng(11))
    st, _ = run(alg, 20, rng=np.random.default_rng(11), w0=to_backend(np.zeros(3)))
    for name in ("w", "lam", "w_avg", "lam_avg"):
        assert np.max(np.abs(to_numpy(getattr(st, name)) - np.asarray(getattr(ref, name)))) < 1e-10
    assert S.contains(to_numpy(st.lam))


def test_instance_pinned():
    """base.drfa.converges, one instance: the mean DRO value of the averaged model is within 10% of V*."""
    P = _problem(0)
    value, exact, x = drfa_convergence(problem=P, T=2000, seeds=2)
    assert exact <= value <= exact + 0.1 * max(1.0, exact)
    assert x["kappa"] == 7 and x["mean_duality_gap"] >= 0


def test_validation():
    P = _problem(3)
    good = dict(kappa=2, lr=0.1, dual_lr=0.1, K=2)
    for key, bad in [("kappa", 0), ("lr", 0.0), ("dual_lr", -0.1), ("K", 0), ("grad_noise", -1.0),
                     ("loss_noise", -1.0), ("kappa", 1.5)]:
        with pytest.raises((FairtheoryValueError, FairtheoryTypeError), match=key):
            drfa.make(P, **{**good, key: bad})
    with pytest.raises(FairtheoryTypeError, match="aggregator"):
        drfa.make(P, aggregator=[1.0] * P.n, **good)
    S = CappedSimplex.simplex(P.n)
    with pytest.raises(FairtheoryTypeError, match="scaffpd"):
        drfa.make(P, aggregator=integrated(S, S, 0.3), **good)
    alg = drfa.make(P, **good)
    with pytest.raises(FairtheoryTypeError, match="rng"):
        alg.step(alg.init(), None)
    with pytest.raises(FairtheoryTypeError, match="drfa.State"):
        alg.step(object(), np.random.default_rng(0))
