r"""FedProx (Li et al. 2020, "Federated Optimization in Heterogeneous Networks", Alg. 2).

One round from the server model ``w = w^t``: every participating client ``k`` (approximately) minimises
its proximal local problem

.. math:: h_k(x; w^t) = F_k(x) + \frac{\mu_{\rm prox}}{2}\,\|x - w^t\|^2

and the server moves by the weighted client updates exactly as :mod:`fairtheory.algorithms.fedavg` does
(full participation: ``w+ = w + sum_i lam_i (x_i - w)``, ``lam = p`` by default; ``K`` i.i.d. draws by ``p``
with replacement: ``w+ = w + (1/K) sum_{j in Z} (lam_j/p_j)(x_j - w)``, the plain mean of the draw for
``lam = p`` - Li et al.'s Alg. 2 with devices chosen with probabilities ``p_k``).  ``prox_mu`` is the
paper's ``mu``, renamed because ``mu`` is the strong-convexity constant elsewhere in fairtheory.

The local solver (``solver=``):

* ``"gd"``: ``kappa`` gradient steps of size ``lr`` on ``h_k``,
  ``x <- x - lr (grad F_k(x) + prox_mu (x - w^t))`` from ``x = w^t`` - linear in the gradients, so the
  traced worst-case backend (:func:`fairtheory.worstcase.worst_case`) runs it; with ``prox_mu = 0`` a round
  is FedAvg's round exactly;
* ``"exact"``: ``x_k = argmin h_k`` by :meth:`~fairtheory.problems.base.FederatedProblem.prox_each` with
  ``gamma = 1/prox_mu`` (one client: the proximal point method);
* ``"inexact"``: the same with ``inexactness = a``: a ``gamma``-inexact minimiser in the sense of Li et al.
  2020, Def. 1 (``||grad h_k(x_k)|| <= a ||grad h_k(w^t)|| = a ||grad F_k(w^t)||``; their ``gamma`` is
  ``inexactness`` here; the problem's ``prox_each(..., accuracy=a)``).

Written once against the array API (numpy or torch, chosen by ``w0``; symbolic arrays of the PEP
backend); the local work of all participating clients runs at once - no Python loop over clients.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from fairtheory._validation import check_in_range, check_integer, check_positive
from fairtheory.aggregators import fedavg as fedavg_objective
from fairtheory.algorithms.base import (
    Algorithm,
    aggregator_for,
    check_draws,
    check_problem,
    check_state,
    initial_model,
    open_round,
)
from fairtheory.algorithms.fedavg import server_update
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.problems.base import FederatedProblem

__all__ = ["State", "make", "SOLVERS"]

#: the local solvers of :func:`make`
SOLVERS = ("gd", "exact", "inexact")


@dataclass(frozen=True)
class State:
    """Server model ``w``, communication rounds ``comms`` (= rounds done), local gradient steps ``steps``
    (``"gd"`` only; the prox solvers count 0)."""

    w: Any
    comms: int = 0
    steps: int = 0


def make(problem: FederatedProblem, *, prox_mu: float, lr: float | Callable[[int], float] | None = None,
         kappa: int = 1, K: int | None = None, solver: Literal["gd", "exact", "inexact"] = "gd",
         inexactness: float | None = None, aggregator: Any = None) -> Algorithm:
    r"""FedProx on ``problem`` with bound, validated hyper-parameters (Li et al. 2020, Alg. 2).

    Parameters
    ----------
    prox_mu : float
        The proximal weight (the paper's ``mu``): ``>= 0`` with ``solver="gd"``, ``> 0`` with the prox
        solvers (``gamma = 1/prox_mu``).
    lr : float or callable
        ``solver="gd"`` only (required there): local step size ``> 0`` or a schedule ``lr(r)`` of the round
        index ``r = state.comms``.
    kappa : int
        ``solver="gd"``: local gradient steps per round (``>= 1``); must stay 1 for the prox solvers.
    K : int or None
        ``None``: full participation; else the number of i.i.d. draws by ``p`` per round (``>= 1``).
    solver : ``"gd"``, ``"exact"`` or ``"inexact"``
        The local solver (module doc).
    inexactness : float in ``[0, 1)``
        ``solver="inexact"`` only (required there): the inexactness ``gamma`` of Li et al. Def. 1.  ``1`` is
        excluded (``x_k = w^t`` is then a solution: no progress is required), the range every backend accepts
        (the traced worst case's proximal oracle refuses ``1`` as well).
    aggregator : Aggregator, optional
        Where the server weights come from (default :func:`fairtheory.aggregators.fedavg`).

    Returns
    -------
    Algorithm with ``init(w0=None) -> State`` and ``step(state, rng) -> State`` (``rng`` is needed for
    partial participation only).
    """
    problem = check_problem(problem)
    if not isinstance(solver, str) or solver not in SOLVERS:
        raise FairtheoryValueError(f"solver must be one of {SOLVERS}, got {solver!r}")
    kappa = check_integer(kappa, "kappa", low=1)
    K = None if K is None else check_draws(K)
    lr_fixed: float | None = None
    if solver == "gd":
        prox_mu = check_in_range(prox_mu, "prox_mu", low=0.0)
        if lr is None:
            raise FairtheoryValueError("lr must be given (a step size > 0 or a schedule) with solver='gd'")
        if not callable(lr):
            lr_fixed = check_positive(lr, "lr")
    else:
        prox_mu = check_positive(prox_mu, "prox_mu")
        if lr is not None:
            raise FairtheoryValueError(f"lr is used by solver='gd' only; solver={solver!r} solves the local "
                                       f"problem itself, got lr={lr!r}")
        if kappa != 1:
            raise FairtheoryValueError(f"kappa must be 1 with solver={solver!r} (it counts gradient steps of "
                                       f"solver='gd'), got {kappa!r}")
    if solver == "inexact":
        if inexactness is None:
            raise FairtheoryValueError("inexactness must be given with solver='inexact' (a number in [0, 1))")
        inexactness = check_in_range(inexactness, "inexactness", low=0.0, high=1.0, high_inclusive=False)
    elif inexactness is not None:
        raise FairtheoryValueError(f"inexactness is used by solver='inexact' only, got inexactness={inexactness!r} with "
                                   f"solver={solver!r}")
    prox_each = getattr(problem, "prox_each", None)
    if solver != "gd" and not callable(prox_each):
        raise FairtheoryTypeError(f"solver={solver!r} needs problem.prox_each(W, gamma, clients=, accuracy=)")
    agg = aggregator_for(problem, fedavg_objective(problem.p) if aggregator is None else aggregator,
                         algorithm="fedprox")
    constant = getattr(agg, "constant_weights", False)
    gamma = None if solver == "gd" else 1.0 / prox_mu

    def init(w0: Any = None) -> State:
        return State(w=initial_model(problem, w0))

    def local(W0: Any, clients: Any, eta: float | None) -> tuple[Any, Any]:
        """``(losses at W0 or None, local solutions)`` of the participating rows."""
        if solver == "gd":
            W, f0 = W0, None
            for k in range(kappa):
                if k == 0 and not constant:
                    f0, G = problem.loss_grad_each(W, clients=clients)
                else:
                    G = problem.grads_each(W, clients=clients)
                if prox_mu != 0.0 and k > 0:  # at k = 0 the prox term prox_mu (W - W0) is 0
                    G = G + prox_mu * (W - W0)
                W = W - eta * G
            return f0, W
        f0 = None if constant else problem.losses_each(W0, clients=clients)
        return f0, problem.prox_each(W0, gamma, clients=clients,
                                     accuracy=inexactness if solver == "inexact" else None)

    def step(state: State, rng: np.random.Generator | None = None) -> State:
        check_state(state, State, "fedprox")
        eta = None
        if solver == "gd":
            eta = (lr_fixed if lr_fixed is not None
                   else check_positive(lr(state.comms), f"lr(r) at r={state.comms}"))  # type: ignore[misc]
        w = state.w
        clients, counts, W0 = open_round(problem, w, K, rng)
        f0, W = local(W0, clients, eta)
        w_new = server_update(agg, problem, w, W, f0, clients, counts, K)
        return State(w=w_new, comms=state.comms + 1, steps=state.steps + (kappa if solver == "gd" else 0))

    hyper = {"prox_mu": prox_mu, "lr": lr, "kappa": kappa, "K": K, "solver": solver, "inexactness": inexactness,
             "aggregator": agg}
    sizes = ("lr", "prox_mu") if solver == "gd" else ("prox_mu",)
    return Algorithm("fedprox", problem, hyper, init, step, sizes)
