"""One conformance table drives every algorithm: the optax-style contract of ``make``/``init``/``step``,
numpy-torch agreement, purity, validation once, clear errors, progress callbacks and divergence."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from fairtheory.algorithms import (
    afl,
    ditto,
    drfa,
    fedavg,
    fedfa,
    fedfv,
    fedmgda,
    fedprox,
    power_of_choice,
    qfedavg,
    qfedsgd,
    rfedfair,
    scaffold,
    scaffpd,
)
from fairtheory.algorithms.base import Algorithm, run
from fairtheory.errors import DivergenceError, FairtheoryTypeError, FairtheoryValueError
from fairtheory.problems import random_logistic, random_quadratic

QUAD = random_quadratic(6, 3, rng=np.random.default_rng(0), offset=0.5)
LOGI = random_logistic(6, 3, 12, rng=np.random.default_rng(1), l2=0.05)

#: (name, module, problem, good hyper-parameters, diverging overrides (the step size first) or None, bad
#: hyper-parameter).  q-FedSGD/q-FedAvg with q > 0 size their steps by Lemma 12's estimate and FedMGDA+
#: normalises its updates, so they diverge only at q = 0 / never.
TABLE: list[tuple[str, Any, Any, dict[str, Any], dict[str, Any] | None, tuple[str, Any]]] = [
    ("fedavg", fedavg, QUAD, {"lr": 0.1, "kappa": 3, "K": 4}, {"lr": 1e6}, ("kappa", 0)),
    ("fedprox", fedprox, QUAD, {"lr": 0.1, "kappa": 3, "K": 4, "prox_mu": 0.5}, {"lr": 1e6}, ("prox_mu", -1.0)),
    ("rfedfair", rfedfair, LOGI, {"lr": 0.05, "kappa": 2, "alpha": 0.5, "mu": 0.1, "K": 3}, {"lr": 1e12},
     ("mu", -1.0)),
    ("qfedsgd", qfedsgd, QUAD, {"q": 1.0, "L": 4.0, "K": 3}, {"L": 1e-12, "q": 0.0}, ("q", -1.0)),
    ("qfedavg", qfedavg, QUAD, {"q": 1.0, "lr": 0.1, "kappa": 2, "K": 3}, {"lr": 1e8, "q": 0.0}, ("kappa", 0)),
    ("afl", afl, QUAD, {"lr": 0.05, "dual_lr": 0.05, "K": 3}, {"lr": 1e6}, ("dual_lr", -1.0)),
    ("drfa", drfa, QUAD, {"kappa": 2, "lr": 0.05, "dual_lr": 0.05, "K": 3}, {"lr": 1e6}, ("K", 0)),
    ("scaffold", scaffold, QUAD, {"kappa": 2, "lr": 0.05, "K": 3}, {"lr": 1e6}, ("lr", 0.0)),
    ("scaffpd", scaffpd, QUAD, {"kappa": 2, "lr": 0.05, "dual_lr": 0.05}, {"lr": 1e6}, ("kappa", 1.5)),
    ("fedfv", fedfv, LOGI, {"lr": 0.1, "kappa": 2, "K": 4, "alpha": 0.2, "tau": 1}, {"lr": 1e12}, ("alpha", 2.0)),
    ("fedmgda", fedmgda, QUAD, {"lr": 0.1, "kappa": 2, "K": 4, "epsilon": 0.1}, None, ("epsilon", -0.1)),
    ("ditto", ditto, QUAD, {"lr": 0.1, "lam": 0.5, "kappa": 2, "s": 3, "K": 3}, {"lr": 1e6}, ("lam", -1.0)),
    ("fedfa", fedfa, LOGI, {"lr": 0.1, "kappa": 2, "K": 4, "gamma": 0.5}, {"lr": 1e12}, ("beta", 2.0)),
    ("power_of_choice", power_of_choice, QUAD, {"lr": 0.1, "kappa": 2, "K": 2, "candidates": 4}, {"lr": 1e6},
     ("candidates", 0)),
]
IDS = [row[0] for row in TABLE]


@pytest.mark.parametrize("name, mod, P, hyper, diverge, bad", TABLE, ids=IDS)
def test_make_returns_pure_init_and_step(name, mod, P, hyper, diverge, bad) -> None:
    alg = mod.make(P, **hyper)
    assert isinstance(alg, Algorithm) and alg.name == name and alg.problem is P
    assert set(alg.step_sizes) <= set(alg.hyper) and (diverge is None or next(iter(diverge)) in alg.step_sizes)
    s0 = alg.init()
    assert dataclasses.is_dataclass(s0) and s0.comms == 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        s0.w = s0.w  # type: ignore[misc]
    w0 = np.array(s0.w, copy=True)
    a = alg.step(s0, np.random.default_rng(5))
    b = alg.step(s0, np.random.default_rng(5))  # same state, same draws: same result; s0 untouched
    assert np.array_equal(np.asarray(a.w), np.asarray(b.w)) and np.array_equal(np.asarray(s0.w), w0)
    assert a.comms > 0 and np.all(np.isfinite(np.asarray(a.w)))


@pytest.mark.parametrize("name, mod, P, hyper, diverge, bad", TABLE, ids=IDS)
def test_numpy_and_torch_agree(name, mod, P, hyper, diverge, bad) -> None:
    torch = pytest.importorskip("torch")
    alg = mod.make(P, **hyper)
    s_np, h_np = run(alg, 6, rng=np.random.default_rng(3))
    s_t, h_t = run(alg, 6, rng=np.random.default_rng(3), w0=torch.zeros(P.d, dtype=torch.float64))
    assert isinstance(s_t.w, torch.Tensor) and s_t.w.dtype == torch.float64
    assert np.max(np.abs(h_np.as_arrays()["iterates"] - h_t.as_arrays()["iterates"])) <= 1e-10
    assert h_np.comms == h_t.comms


@pytest.mark.parametrize("name, mod, P, hyper, diverge, bad", TABLE, ids=IDS)
def test_validation_happens_in_make_and_names_the_argument(name, mod, P, hyper, diverge, bad) -> None:
    key, value = bad
    with pytest.raises((FairtheoryValueError, FairtheoryTypeError), match=key):
        mod.make(P, **{**hyper, key: value})
    with pytest.raises(FairtheoryTypeError):
        mod.make("not a problem", **hyper)
    alg = mod.make(P, **hyper)
    with pytest.raises(FairtheoryTypeError, match="State"):
        alg.step(object(), np.random.default_rng(0))
    other = fedavg.make(P, lr=0.1) if name != "fedavg" else afl.make(P, lr=0.1, dual_lr=0.1)
    with pytest.raises(FairtheoryTypeError, match="State"):
        alg.step(other.init(), np.random.default_rng(0))
    with pytest.raises(FairtheoryValueError, match="w0"):
        alg.init(np.zeros(P.d + 1))


@pytest.mark.parametrize("name, mod, P, hyper, diverge, bad", TABLE, ids=IDS)
def test_run_reports_progress_and_stops_divergence(name, mod, P, hyper, diverge, bad) -> None:
    seen: list[int] = []
    state, hist = run(mod.make(P, **hyper), 5, rng=np.random.default_rng(0), callback=lambda k, s: seen.append(k),
                      record_every=2)
    assert seen == [1, 2, 3, 4, 5] and hist.rounds == [0, 2, 4, 5] and len(hist.iterates) == 4
    if diverge is None:
        return
    key = next(iter(diverge))
    fast = mod.make(P, **{**hyper, **diverge})
    with np.errstate(all="ignore"):
        with pytest.raises(DivergenceError, match=key):
            run(fast, 200, rng=np.random.default_rng(0), record_losses=False)
        last, h = run(fast, 200, rng=np.random.default_rng(0), record_losses=False, on_divergence="stop")
    assert h.diverged and np.all(np.isfinite(np.asarray(last.w)))
