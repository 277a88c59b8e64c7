"""Stochastic-AFL (Mohri et al. 2019): convergence to the exact AFL solution, one dual set, backends, validation."""

from __future__ import annotations

import numpy as np
import pytest

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.aggregators import afl as afl_objective
from fairtheory.aggregators import cvar, integrated
from fairtheory.algorithms import afl
from fairtheory.algorithms.base import run
from fairtheory.backend import to_numpy
from fairtheory.instances.baselines import afl_convergence
from fairtheory.problems.quadratic import random_quadratic
from fairtheory.sets import CappedSimplex


def _problem(seed=0, n=4, d=2):
    return random_quadratic(n, d, rng=np.random.default_rng(seed), mu=1.0, L=3.0, spread=2.0, offset=1.0)


def test_afl_converges_to_exact_solution():
    from fairtheory.exact.rcfl import solve_afl

    P = _problem(0)
    ex = solve_afl(P)
    st, _ = run(afl.make(P, lr=0.05, dual_lr=0.01), 1500, record_every=1500, record_losses=False)
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
        st, _ = run(afl.make(P, lr=0.05, dual_lr=0.01), T, record_every=T, record_losses=False)
        errs.append(P.losses(st.w_avg).max() - ex.value)
    assert errs[1] < errs[0] / 2


def test_init_and_step_use_the_same_set():
    """The dual set is bound once in make: init starts in it, every step projects onto it (not the simplex)."""
    P = _problem(2, n=6)
    S = CappedSimplex.cvar(6, 0.5)
    alg = afl.make(P, lr=0.05, dual_lr=5.0, aggregator=S)  # a large dual step would leave S without projection
    assert alg.hyper["aggregator"].set is S
    st = alg.init()
    assert S.contains(np.asarray(st.lam))
    for _ in range(20):
        st = alg.step(st, None)
        lam = np.asarray(st.lam)
        assert S.contains(lam) and lam.max() <= 1.0 / 3.0 + 1e-12
    # ... and the same with a set-support aggregator
    st2, _ = run(afl.make(P, lr=0.05, dual_lr=5.0, aggregator=cvar(6, 0.5)), 20, record_losses=False)
    assert np.array_equal(np.asarray(st2.lam), lam)
    with pytest.raises(FairtheoryValueError, match="lam0"):
        alg.init(lam0=np.eye(6)[0])  # a simplex vertex is outside C(1/2)


def test_afl_capped_set_and_sampling_stay_feasible():
    P = _problem(2, n=6)
    S = CappedSimplex.cvar(6, 0.5)
    alg = afl.make(P, lr=0.05, dual_lr=0.05, aggregator=S, K=2, grad_noise=0.1, loss_noise=0.1)
    st, _ = run(alg, 50, rng=np.random.default_rng(0), record_losses=False)
    assert S.contains(np.asarray(st.lam)) and st.comms == 50 and st.t == 50


def test_numpy_torch_agree(xp_name, to_backend):
    P = _problem(3, n=5, d=3)
    alg = afl.make(P, lr=0.05, dual_lr=0.02, K=3, grad_noise=0.3, loss_noise=0.2)
    ref, _ = run(alg, 40, rng=np.random.default_rng(5))
    st, _ = run(alg, 40, rng=np.random.default_rng(5), w0=to_backend(np.zeros(3)))
    for name in ("w", "lam", "w_avg", "lam_avg"):
        assert np.max(np.abs(to_numpy(getattr(st, name)) - np.asarray(getattr(ref, name)))) < 1e-10


def test_instance_pinned():
    """base.afl.converges, one instance: the duality gap is below the regret bound, the value error below the gap."""
    P = _problem(5, n=4, d=2)
    gap, bound, x = afl_convergence(problem=P, T=300)
    assert 0 <= gap <= bound
    assert x["value_error"] <= gap
    assert x["value"] >= x["exact_value"] - 1e-9


def test_validation():
    P = _problem(4)
    good = dict(lr=0.1, dual_lr=0.1)
    for key, bad in [("lr", 0.0), ("dual_lr", -1.0), ("K", 0), ("grad_noise", -1.0), ("loss_noise", np.inf)]:
        with pytest.raises((FairtheoryValueError, FairtheoryTypeError), match=key):
            afl.make(P, **{**good, key: bad})
    with pytest.raises(FairtheoryValueError, match="n = "):
        afl.make(P, aggregator=CappedSimplex.simplex(P.n + 1), **good)
    with pytest.raises(FairtheoryTypeError, match="CappedSimplex"):
        S = CappedSimplex.simplex(P.n)
        afl.make(P, aggregator=integrated(S, S, 0.2), **good)
    with pytest.raises(FairtheoryTypeError, match="aggregator"):
        afl.make(P, aggregator="simplex", **good)
    with pytest.raises(FairtheoryTypeError, match="problem"):
        afl.make("not a problem", **good)
    alg = afl.make(P, aggregator=afl_objective(P.n), **good)
    with pytest.raises(FairtheoryValueError, match="lam0"):
        alg.init(lam0=np.full(P.n, 1.0))
    with pytest.raises(FairtheoryTypeError, match="afl.State"):
        alg.step(object(), None)
    with pytest.raises(FairtheoryTypeError, match="rng"):
        afl.make(P, K=2, **good).step(alg.init(), None)
