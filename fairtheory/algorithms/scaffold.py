r"""Scaffold (Karimireddy et al. 2020, option II): controlled local SGD.

Minimises ``sum_i p_i f_i(w)``.  Server state: model ``x``, server control ``c``; client controls
``c_i``.  One round (one communication):

.. math::
    y_{i,0} = x,\quad y_{i,k+1} = y_{i,k} - \mathrm{lr}\big(g_i(y_{i,k}) - c_i + c\big),\ k < \kappa,

    c_i^+ = c_i - c + \frac{x - y_{i,\kappa}}{\kappa\,\mathrm{lr}}\quad\text{(option II)},

    x^+ = x + \mathrm{server\_lr} \,\mathrm{avg}_i (y_{i,\kappa} - x),\qquad c^+ = c + \textstyle\sum_{i \in S} p_i (c_i^+ - c_i).

Participation follows the shared sampling rules: ``K is None`` - every client, ``avg`` weighted by
``p``; otherwise ``K`` clients drawn i.i.d. with replacement with probabilities ``p`` and ``avg``
is the plain mean over the draw (a client drawn twice counts twice); only the drawn clients
(``S``, without duplicates) run local steps and refresh ``c_i``.  The server-control update is the
``p``-weighted form of Scaffold's ``c <- c + (|S|/N) mean_S (c_i^+ - c_i)`` and keeps the invariant
``c = sum_i p_i c_i`` exactly (for uniform ``p`` it is Scaffold's update verbatim).

:func:`make`'s ``lr`` and ``server_lr`` are the paper's local and global steps ``eta_l`` and ``eta_g``
(:mod:`fairtheory.algorithms.names`).  With deterministic gradients, full participation and ``lr`` small
enough, the fixed point is ``c_i = grad f_i(x*)``, ``c = 0`` with ``x*`` the exact minimiser of ``sum_i p_i f_i`` - for every
number of local steps ``kappa`` (the paper's ``K``; no client drift), which ``base.scaffold.converges``
checks.

``g_i`` is the exact gradient plus optional ``N(0, grad_noise^2 I)`` noise, drawn afresh at every
local step.  Written once against the array API (numpy or torch float64); draws come from the
explicit numpy generator; the local steps of all participating clients run at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fairtheory._validation import FairtheoryValueError, check_in_range, check_integer
from fairtheory.algorithms.base import (
    Algorithm,
    check_draws,
    check_problem,
    check_rng,
    check_state,
    draw_participants,
    gaussian,
    initial_model,
    local_steps,
)
from fairtheory.algorithms.names import refuses_old_names
from fairtheory.backend import is_torch, like, namespace, scatter_add
from fairtheory.problems.base import FederatedProblem

__all__ = ["State", "make"]


@dataclass(frozen=True)
class State:
    """Scaffold state: server model ``w`` (= ``x``), server control ``c`` (d,), client controls ``ci`` (n, d)."""

    w: Any
    c: Any
    ci: Any
    comms: int = 0


@refuses_old_names("scaffold")
def make(problem: FederatedProblem, *, kappa: int, lr: float, server_lr: float = 1.0, K: int | None = None,
         grad_noise: float = 0.0) -> Algorithm:
    r"""Scaffold (option II) on ``problem`` with bound, validated hyper-parameters.

    Names follow :mod:`fairtheory.algorithms.names`; the paper's symbols are refused as keywords
    (a ``FairtheoryTypeError`` naming ``lr`` / ``server_lr``).

    Parameters
    ----------
    kappa : int >= 1
        Local steps per round (Karimireddy et al.'s ``K``).
    lr : float > 0
        Local step size (Karimireddy et al.'s ``eta_l``).
    server_lr : float > 0
        Global step size (Karimireddy et al.'s ``eta_g``).
    K : int >= 1 or None
        ``None``: full participation; else the number of i.i.d. draws by ``p`` per round (Karimireddy
        et al.'s ``S``).
    grad_noise : float >= 0
        Standard deviation of additive Gaussian noise on every local gradient (this implementation's
        model of stochastic gradients).

    Returns
    -------
    Algorithm with ``init(w0=None, warm_start=False) -> State`` (controls at zero, or with
    ``warm_start`` at ``c_i = grad f_i(w0)``, ``c = sum_i p_i c_i``) and ``step(state, rng) -> State``
    (``rng`` is needed only for partial participation or gradient noise).
    """
    problem = check_problem(problem)
    kappa = check_integer(kappa, "kappa", low=1)
    lr = check_in_range(lr, "lr", low=0.0, low_inclusive=False)
    server_lr = check_in_range(server_lr, "server_lr", low=0.0, low_inclusive=False)
    K = None if K is None else check_draws(K)
    grad_noise = check_in_range(grad_noise, "grad_noise", low=0.0)
    n, d = problem.n, problem.d
    p = problem.p
    random = K is not None or grad_noise > 0

    def init(w0: Any = None, warm_start: bool = False) -> State:
        w = initial_model(problem, w0)
        xp = namespace(w)
        if warm_start:
            ci = xp.asarray(problem.grads(w), copy=True)
            c = like(p, w) @ ci
        else:
            ci = xp.zeros((n, d), dtype=w.dtype)
            c = xp.zeros_like(w)
        return State(w=w, c=c, ci=ci, comms=0)

    def step(state: State, rng: np.random.Generator | None = None) -> State:
        check_state(state, State, "scaffold")
        if random:
            rng = check_rng(rng)
        x, c, ci = state.w, state.c, state.ci
        if tuple(ci.shape) != (n, d):
            raise FairtheoryValueError(f"state.ci must have shape ({n}, {d}), got {tuple(ci.shape)}")
        xp = namespace(x)
        if K is None:
            clients, weights, refresh = None, like(p, x), like(p, x)   # avg_i = sum_i p_i (.)
        else:
            clients, counts = draw_participants(rng, p, K)  # type: ignore[arg-type]
            weights = like(counts / K, x)                        # plain mean over the draw (duplicates count)
            refresh = like(p[clients], x)
        rows = n if clients is None else clients.size
        ci_rows = ci if clients is None else ci[clients]
        Y0 = xp.broadcast_to(x[None, :], (rows, d))
        corr = c[None, :] - ci_rows
        if grad_noise == 0.0:
            Y = local_steps(problem, Y0, lr=lr, kappa=kappa, clients=clients, correction=corr).W
        else:  # fresh noise at every local step: outside what base.local_steps offers
            Y = Y0
            for _ in range(kappa):
                Y = Y - lr * (problem.grads_each(Y, clients=clients) + gaussian(rng, grad_noise, (rows, d), x)  # type: ignore[arg-type]
                                 + corr)
        dci = -c[None, :] + (x[None, :] - Y) / (kappa * lr)   # c_i^+ - c_i
        x_new = x + server_lr * (weights @ (Y - x[None, :]))
        c_new = c + refresh @ dci
        ci_new = ci + dci if clients is None else ci + scatter_add(n, _index(clients, x), dci)
        return State(w=x_new, c=c_new, ci=ci_new, comms=state.comms + 1)

    hyper = {"kappa": kappa, "lr": lr, "server_lr": server_lr, "K": K, "grad_noise": grad_noise}
    return Algorithm("scaffold", problem, hyper, init, step, ("lr", "server_lr"))


def _index(clients: np.ndarray, ref: Any) -> Any:
    """Client indices in ``ref``'s library (torch's ``index_add_`` needs a tensor on ``ref``'s device)."""
    if is_torch(ref):
        import torch

        return torch.as_tensor(clients, device=ref.device)
    return clients
