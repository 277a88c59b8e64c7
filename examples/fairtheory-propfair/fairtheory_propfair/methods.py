r"""A user's own federated method: FedAvg with server momentum (FedAvgM, Hsu, Qi & Brown 2019).

One round from the server model ``w`` with server velocity ``v``: every client runs ``kappa`` local
gradient steps ``w_i <- w_i - lr grad f_i(w_i)`` from ``w``; the server forms the averaged update
``Delta = sum_i p_i (w_i - w)`` and takes a heavy-ball step

.. math:: v^+ = m v + \Delta, \qquad w^+ = w + \eta_s v^+ .

``m = 0``, ``eta_s = 1`` is FedAvg.  Written only against the array API and the shared helpers of
:mod:`fairtheory.algorithms.base` - no performance-estimation code: because the step is linear in the
gradients with constant coefficients, :func:`fairtheory.worstcase.worst_case` computes its exact worst case
from this ``make`` (see the plugin's claim ``propfair.fedavgm.worstcase``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fairtheory.algorithms.base import Algorithm, check_problem, initial_model, local_steps, open_round
from fairtheory.backend import like, namespace
from fairtheory.validation import check_in_range, check_integer, check_positive

__all__ = ["MomentumState", "fedavgm_make"]


@dataclass(frozen=True)
class MomentumState:
    """Server model ``w``, server velocity ``v``, rounds done ``comms``."""

    w: Any
    v: Any
    comms: int = 0


def fedavgm_make(problem: Any, *, lr: float, kappa: int = 1, momentum: float = 0.9, server_lr: float = 1.0) -> Algorithm:
    """FedAvgM on ``problem`` (full participation): local step ``lr > 0``, ``kappa >= 1`` local steps,
    server momentum ``0 <= momentum < 1`` and server step ``server_lr > 0``."""
    problem = check_problem(problem)
    lr = check_positive(lr, "lr")
    kappa = check_integer(kappa, "kappa", low=1)
    momentum = check_in_range(momentum, "momentum", low=0.0, high=1.0, high_inclusive=False)
    server_lr = check_positive(server_lr, "server_lr")
    p = problem.p

    def init(w0: Any = None) -> MomentumState:
        w = initial_model(problem, w0)
        return MomentumState(w=w, v=namespace(w).zeros_like(w))

    def step(state: MomentumState, rng: Any = None) -> MomentumState:
        w = state.w
        W = local_steps(problem, open_round(problem, w, None, rng).W0, lr=lr, kappa=kappa).W
        v = momentum * state.v + like(p, w) @ (W - w)
        return MomentumState(w=w + server_lr * v, v=v, comms=state.comms + 1)

    hyper = {"lr": lr, "kappa": kappa, "momentum": momentum, "server_lr": server_lr}
    return Algorithm("fedavgm", problem, hyper, init, step, ("lr", "server_lr"))
