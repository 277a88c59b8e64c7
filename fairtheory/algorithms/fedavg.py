r"""FedAvg (McMahan et al. 2017) with full-batch local gradient steps and aggregator weights.

One round from the server model ``w``: every participating client runs ``kappa`` local gradient
steps ``w_i <- w_i - lr * grad f_i(w_i)`` from ``w``, then the server moves by the weighted client
updates, with weights ``lam = A.weights(f(w))`` from the aggregator ``A`` (default: the FedAvg
objective ``sum_i p_i f_i``, ``lam = p``):

* full participation (``K=None``): ``w+ = w + sum_i lam_i (w_i - w)`` (``= sum_i p_i w_i`` for ``lam = p``);
* partial participation: ``K`` clients drawn i.i.d. **with replacement** with probabilities ``p``
  (from the numpy ``rng``, whatever the array backend), ``w+ = w + (1/K) sum_{j in Z} (lam_j/p_j)
  (w_j - w)`` (an unbiased estimate of the full update; ``= mean_{j in Z} w_j`` for ``lam = p``; a
  client drawn twice counts twice).

With ``kappa = 1`` and full participation a round is one gradient step on ``A(f(w))``; with the
default aggregator, one gradient step on ``sum_i p_i f_i``.  The losses ``f(w)`` come free from the
first local step's fused evaluation.  Written once against the array API (numpy or torch, chosen by
``w0``); the local steps of all participating clients run at once - no Python loop over clients.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from fairtheory._validation import check_integer, check_positive
from fairtheory.aggregators import fedavg as fedavg_objective
from fairtheory.algorithms.base import (
    Algorithm,
    aggregator_for,
    check_draws,
    check_problem,
    check_state,
    initial_model,
    local_steps,
    open_round,
)
from fairtheory.algorithms.names import refuses_old_names
from fairtheory.backend import like
from fairtheory.problems.base import FederatedProblem

__all__ = ["State", "make"]


@dataclass(frozen=True)
class State:
    """Server model ``w``, communication rounds ``comms`` (= rounds done), local steps ``steps``."""

    w: Any
    comms: int = 0
    steps: int = 0


@refuses_old_names("fedavg")
def make(problem: FederatedProblem, *, lr: float | Callable[[int], float], kappa: int = 1, K: int | None = None,
         aggregator: Any = None) -> Algorithm:
    r"""FedAvg on ``problem`` with bound, validated hyper-parameters.

    Names follow :mod:`fairtheory.algorithms.names`.

    Parameters
    ----------
    lr : float or callable
        Local step size ``> 0`` (McMahan et al.'s ``eta``; 002 Algorithm 1's ``beta``), or a schedule
        ``lr(r)`` of the round index ``r = state.comms`` (0-based; each value is checked when used).
    kappa : int
        Local gradient steps per round (``>= 1``; 002's ``kappa``).
    K : int or None
        ``None``: full participation; else the number of i.i.d. draws by ``p`` per round (``>= 1``;
        002's ``K``).
    aggregator : Aggregator, optional
        Where the server weights come from (default :func:`fairtheory.aggregators.fedavg`).

    Returns
    -------
    Algorithm with ``init(w0=None) -> State`` and ``step(state, rng) -> State`` (``rng`` is needed for
    partial participation only).
    """
    problem = check_problem(problem)
    kappa = check_integer(kappa, "kappa", low=1)
    K = None if K is None else check_draws(K)
    lr_fixed = None if callable(lr) else check_positive(lr, "lr")
    agg = aggregator_for(problem, fedavg_objective(problem.p) if aggregator is None else aggregator,
                         algorithm="fedavg")
    constant = getattr(agg, "constant_weights", False)

    def init(w0: Any = None) -> State:
        return State(w=initial_model(problem, w0))

    def step(state: State, rng: np.random.Generator | None = None) -> State:
        check_state(state, State, "fedavg")
        eta = lr_fixed if lr_fixed is not None else check_positive(lr(state.comms), f"lr(r) at r={state.comms}")  # type: ignore[operator]
        w = state.w
        clients, counts, W0 = open_round(problem, w, K, rng)
        loc = local_steps(problem, W0, lr=eta, kappa=kappa, clients=clients, want_losses=not constant)
        w_new = server_update(agg, problem, w, loc.W, None if constant else loc.losses0, clients, counts, K)
        return State(w=w_new, comms=state.comms + 1, steps=state.steps + kappa)

    return Algorithm("fedavg", problem, {"lr": lr, "kappa": kappa, "K": K, "aggregator": agg}, init, step,
                     ("lr",))


def server_update(agg: Any, problem: FederatedProblem, w: Any, W: Any, f_rows: Any, clients: Any, counts: Any,
                  K: int | None) -> Any:
    r"""``w + sum_k c_k (W_k - w)``: full participation ``c = lambda = A.weights(f(w))`` (``f_rows = None``:
    constant weights, ``lambda = p``); ``K`` i.i.d. draws by ``p``: ``c_k = counts_k/K lambda_k/p_k`` (unbiased
    for ``sum_i lambda_i (W_i - w)``).  Shared by FedAvg and FedProx."""
    p = problem.p
    lam_all = p if f_rows is None and getattr(agg, "constant_weights", False) else _weights_at(agg, problem, w,
                                                                                                f_rows, clients)
    if K is None:
        coef = lam_all
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(p[clients] > 0, np.asarray(lam_all)[clients] / p[clients], 0.0)
        coef = counts / K * ratio
    return w + like(np.asarray(coef, dtype=np.float64), w) @ (W - w)


def _weights_at(agg: Any, problem: FederatedProblem, w: Any, f_rows: Any, clients: Any) -> np.ndarray:
    """``A.weights(f(w))`` (numpy): from the first local step's losses when every client was evaluated,
    else from one evaluation of all clients at ``w``."""
    from fairtheory.algorithms.base import checked_weights
    from fairtheory.backend import to_numpy

    f = f_rows if clients is None else problem.losses(w)
    return np.asarray(to_numpy(checked_weights(agg, agg.weights(f), problem.n, f=f)), dtype=np.float64)
