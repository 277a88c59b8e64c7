r"""FedAvg (McMahan et al. 2017; spec ``baselines.md``) with full-batch local gradient steps.

One round from the server model ``w``: every participating client runs ``kappa`` local gradient
steps ``w_i <- w_i - lr * grad f_i(w_i)`` from ``w``, then the server averages

* full participation (``K=None``): ``w+ = sum_i p_i w_i``;
* partial participation: ``K`` clients drawn i.i.d. **with replacement** with probabilities ``p``
  (from the numpy ``rng``, whatever the array backend), ``w+ = (1/K) sum_{j in Z} w_j`` (a client
  drawn twice counts twice).

With ``kappa = 1`` and full participation a round is one gradient step on ``sum_i p_i f_i``.
Written once against the array API: the iterate's library (numpy or torch) is used throughout; the
local steps of all participating clients run at once on a ``(n, d)`` (or ``(#distinct drawn, d)``)
array - no Python loop over clients.  Problems whose ``grads_each`` accepts ``clients=`` (the
sample-based problems) evaluate only the drawn clients; others evaluate all ``n`` and keep the
drawn rows (the local trajectories are deterministic, so this is the same update).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from fairtheory._validation import check_integer, check_positive
from fairtheory.algorithms.base import initial_model, sample_clients
from fairtheory.backend import like, namespace
from fairtheory.problems.base import FederatedProblem

__all__ = ["State", "init", "step"]


@dataclass(frozen=True)
class State:
    """Server model ``w``, communication rounds ``comms`` (= rounds done), local steps ``steps``."""

    w: Any
    comms: int = 0
    steps: int = 0


def init(problem: FederatedProblem, w0: Any = None) -> State:
    """Initial state at ``w0`` (numpy or torch; default ``problem.initial_point()``)."""
    return State(w=initial_model(problem, w0), comms=0, steps=0)


def step(state: State, problem: FederatedProblem, rng: np.random.Generator, *,
         lr: float | Callable[[int], float], kappa: int = 1, K: int | None = None) -> State:
    r"""One FedAvg round (pure).

    Parameters
    ----------
    lr : float or callable
        Local step size, or a schedule ``lr(r)`` of the round index ``r = state.comms`` (0-based).
    kappa : int
        Local gradient steps per round (>= 1).
    K : int or None
        ``None``: full participation with weights ``p``; else the number of i.i.d. draws by ``p``.
    """
    kappa = check_integer(kappa, "kappa", low=1)
    eta = check_positive(lr(state.comms) if callable(lr) else lr, "lr")
    xp = namespace(state.w)
    w = state.w
    if K is None:
        W = xp.broadcast_to(w[None, :], (problem.n, problem.d))
        for _ in range(kappa):
            W = W - eta * problem.grads_each(W)
        w_new = like(problem.p, w) @ W
    else:
        K = check_integer(K, "K", low=1)
        draws = sample_clients(rng, problem.p, K)
        uniq, counts = np.unique(draws, return_counts=True)
        subset = _supports_subsets(problem)
        rows = uniq if subset else np.arange(problem.n)
        W = xp.broadcast_to(w[None, :], (rows.size, problem.d))
        for _ in range(kappa):
            G = problem.grads_each(W, clients=uniq) if subset else problem.grads_each(W)
            W = W - eta * G
        weights = np.zeros(rows.size)
        weights[np.searchsorted(rows, uniq)] = counts / K
        w_new = like(weights, w) @ W
    return State(w=w_new, comms=state.comms + 1, steps=state.steps + kappa)


def _supports_subsets(problem: FederatedProblem) -> bool:
    try:
        return "clients" in inspect.signature(problem.grads_each).parameters
    except (TypeError, ValueError):  # pragma: no cover
        return False
