"""Stochastic-AFL (Mohri et al. 2019): convergence to the exact AFL solution, backends, validation."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.algorithms import afl
from fairtheory.backend import to_numpy
from fairtheory.problems.quadratic import random_quadratic
from fairtheory.sets import CappedSimplex


def _problem(seed=0, n=4, d=2):
    return random_quadratic(n, d, rng=np.random.default_rng(seed), mu=1.0, L=3.0, spread=2.0, offset=1.0)


def test_afl_converges_to_exact_solution():
    from fairtheory.exact.rcfl import solve_afl

    P = _problem(0)
    ex = solve_afl(P)
    st = afl.init(P)
    rng = np.random.default_rng(0)
    for _ in range(1500):
        st = afl.step(st, P, rng, lr_w=0.05, lr_lam=0.01)
    # last iterate of the (strongly convex) GDA and the averaged iterate both approach the optimum
    assert np.linalg.norm(np.asarray(st.w) - ex.argmin) < 1e-6
    rel_avg = (P.losses(st.w_avg).max() - ex.value) / ex.value
    assert 0 <= rel_avg < 1e-2
    assert CappedSimplex.simplex(P.n).contains(np.asarray(st.lam))
    assert CappedSimplex.simplex(P.n).contains(np.asarray(st.lam_avg))


def test_afl_averaged_error_decreases_with_horizon():
    from fairtheory.exact.rcfl import solve_afl

    P = _problem(1)
    ex = solve_afl(P)
    errs = []
    for T in (500, 2000):
        st = afl.init(P)
        rng = np.random.default_rng(0)
        for _ in range(T):
            st = afl.step(st, P, rng, lr_w=0.05, lr_lam=0.01)
        errs.append(P.losses(st.w_avg).max() - ex.value)
    assert errs[1] < errs[0] / 2


def test_afl_capped_set_and_sampling_stay_feasible():
    P = _problem(2, n=6)
    S = CappedSimplex.cvar(6, 0.5)
    st = afl.init(P, Lambda=S)
    rng = np.random.default_rng(0)
    for _ in range(50):
        st = afl.step(st, P, rng, lr_w=0.05, lr_lam=0.05, Lambda=S, K=2, grad_noise=0.1, loss_noise=0.1)
    assert S.contains(np.asarray(st.lam)) and st.comms == 50 and st.t == 50


def test_numpy_torch_agree(xp_name, to_backend):
    P = _problem(3, n=5, d=3)
    h = dict(lr_w=0.05, lr_lam=0.02, K=3, grad_noise=0.3, loss_noise=0.2)
    ref, _ = afl.run(P, 40, rng=np.random.default_rng(5), **h)
    st = afl.init(P, w0=to_backend(np.zeros(3)))
    rng = np.random.default_rng(5)
    for _ in range(40):
        st = afl.step(st, P, rng, **h)
    for name in ("w", "lam", "w_avg", "lam_avg"):
        assert np.max(np.abs(to_numpy(getattr(st, name)) - np.asarray(getattr(ref, name)))) < 1e-10


def test_validation():
    P = _problem(4)
    st = afl.init(P)
    rng = np.random.default_rng(0)
    good = dict(lr_w=0.1, lr_lam=0.1)
    for key, bad in [("lr_w", 0.0), ("lr_lam", -1.0), ("K", 0), ("grad_noise", -1.0), ("loss_noise", np.inf)]:
        with pytest.raises((FairtheoryValueError, FairtheoryTypeError), match=key):
            afl.step(st, P, rng, **{**good, key: bad})
    with pytest.raises(FairtheoryValueError, match="Lambda"):
        afl.step(st, P, rng, Lambda=CappedSimplex.simplex(P.n + 1), **good)
    with pytest.raises(FairtheoryTypeError, match="problem"):
        afl.init("not a problem")
    with pytest.raises(FairtheoryValueError, match="lam0"):
        afl.init(P, lam0=np.full(P.n, 1.0))
