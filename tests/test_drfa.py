"""DRFA (Deng et al. 2020): convergence to the exact DRO value within its tolerance, backends, validation."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.algorithms import drfa
from fairtheory.backend import to_numpy
from fairtheory.problems.quadratic import random_quadratic
from fairtheory.sets import CappedSimplex


def _problem(seed=0, n=4, d=2):
    return random_quadratic(n, d, rng=np.random.default_rng(seed), mu=1.0, L=3.0, spread=2.0, offset=1.0)


def test_drfa_reaches_exact_value_within_tolerance():
    from fairtheory.exact.rcfl import solve_afl

    P = _problem(0)
    ex = solve_afl(P)
    T, tau = 4000, 8
    st = drfa.init(P)
    rng = np.random.default_rng(0)
    for _ in range(T // tau):
        st = drfa.step(st, P, rng, tau=tau, eta=1.0 / (6 * P.smoothness() * np.sqrt(T)),
                       gamma=0.1 / T ** 0.625, m=P.n)
    rel = (P.losses(st.w_avg).max() - ex.value) / ex.value
    assert 0 <= rel < 0.1  # DRFA_VALUE_TOL of base.drfa.converges
    assert st.local_steps == (T // tau) * tau and st.comms == 2 * (T // tau)
    assert CappedSimplex.simplex(P.n).contains(np.asarray(st.lam_avg))


def test_drfa_deterministic_single_client_is_gradient_descent():
    """With one client and tau local steps DRFA's primal is plain GD on that client."""
    P = _problem(1, n=1, d=2)
    st = drfa.init(P, w0=np.ones(2))
    st = drfa.step(st, P, np.random.default_rng(0), tau=3, eta=0.1, gamma=0.1, m=2)
    w = np.ones(2)
    for _ in range(3):
        w = w - 0.1 * P.grads(w)[0]
    assert np.allclose(np.asarray(st.w), w, atol=1e-14, rtol=0)


def test_numpy_torch_agree(xp_name, to_backend):
    P = _problem(2, n=5, d=3)
    S = CappedSimplex.cvar(5, 0.6)
    h = dict(tau=4, eta=0.05, gamma=0.02, m=3, grad_noise=0.2, loss_noise=0.1)
    ref, _ = drfa.run(P, 20, rng=np.random.default_rng(11), Lambda=S, **h)
    st = drfa.init(P, w0=to_backend(np.zeros(3)), Lambda=S)
    rng = np.random.default_rng(11)
    for _ in range(20):
        st = drfa.step(st, P, rng, Lambda=S, **h)
    for name in ("w", "lam", "w_avg", "lam_avg"):
        assert np.max(np.abs(to_numpy(getattr(st, name)) - np.asarray(getattr(ref, name)))) < 1e-10
    assert S.contains(to_numpy(st.lam))


def test_validation():
    P = _problem(3)
    st = drfa.init(P)
    rng = np.random.default_rng(0)
    good = dict(tau=2, eta=0.1, gamma=0.1, m=2)
    for key, bad in [("tau", 0), ("eta", 0.0), ("gamma", -0.1), ("m", 0), ("grad_noise", -1.0),
                     ("loss_noise", -1.0)]:
        with pytest.raises((FairtheoryValueError, FairtheoryTypeError), match=key):
            drfa.step(st, P, rng, **{**good, key: bad})
    with pytest.raises(FairtheoryTypeError, match="Lambda"):
        drfa.init(P, Lambda=[1.0] * P.n)
