r"""Scaffold (Karimireddy et al. 2020, option II; ``baselines.md``): controlled local SGD.

Minimises ``sum_i p_i f_i(w)``.  Server state: model ``x``, server control ``c``; client controls
``c_i``.  One round (one communication):

.. math::
    y_{i,0} = x,\quad y_{i,k+1} = y_{i,k} - \eta_l\big(g_i(y_{i,k}) - c_i + c\big),\ k < J,

    c_i^+ = c_i - c + \frac{x - y_{i,J}}{J \eta_l}\quad\text{(option II)},

    x^+ = x + \eta_g \,\mathrm{avg}_i (y_{i,J} - x),\qquad c^+ = c + \textstyle\sum_{i \in S} p_i (c_i^+ - c_i).

Participation follows the shared sampling rules: ``K is None`` - every client, ``avg`` weighted by
``p``; otherwise ``K`` clients drawn i.i.d. with replacement with probabilities ``p`` and ``avg``
is the plain mean over the draw (a client drawn twice counts twice), only the drawn clients
(``S``, without duplicates) refresh ``c_i``.  The server-control update is the ``p``-weighted
form of Scaffold's ``c <- c + (|S|/N) mean_S (c_i^+ - c_i)`` and keeps the invariant
``c = sum_i p_i c_i`` exactly (for uniform ``p`` it is Scaffold's update verbatim).

With deterministic gradients, full participation and ``eta_l`` small enough, the fixed point is
``c_i = grad f_i(x*)``, ``c = 0`` with ``x*`` the exact minimiser of ``sum_i p_i f_i`` - for every
number of local steps ``J`` (no client drift), which ``base.scaffold.converges`` checks.

``g_i`` is the exact gradient plus optional ``N(0, grad_noise^2 I)`` noise.  Written once against
the array API (numpy or torch float64); draws come from the explicit numpy generator; the local
steps of all clients run at once (no Python loop over clients).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from fairtheory._validation import FairtheoryValueError, check_in_range, check_integer
from fairtheory.algorithms.base import (
    History,
    check_problem,
    check_rng,
    gaussian,
    initial_model,
    sample_clients,
)
from fairtheory.algorithms.base import run_steps as _run
from fairtheory.backend import like, namespace
from fairtheory.problems.base import FederatedProblem

__all__ = ["State", "init", "step", "run"]


@dataclass(frozen=True)
class State:
    """Scaffold state: server model ``w`` (= ``x``), server control ``c`` (d,), client controls ``ci`` (n, d)."""

    w: Any
    c: Any
    ci: Any
    comms: int = 0


def init(problem: FederatedProblem, w0: Any = None, *, warm_start: bool = False) -> State:
    """Controls start at zero, or (``warm_start=True``) at ``c_i = grad f_i(w0)``, ``c = sum p_i c_i``."""
    problem = check_problem(problem)
    w = initial_model(problem, w0)
    xp = namespace(w)
    if warm_start:
        ci = problem.grads(w)
        ci = xp.asarray(ci, copy=True)
        c = like(problem.p, w) @ ci
    else:
        ci = xp.zeros((problem.n, problem.d), dtype=w.dtype)
        c = xp.zeros_like(w)
    return State(w=w, c=c, ci=ci, comms=0)


def step(state: State, problem: FederatedProblem, rng: np.random.Generator, *, J: int, eta_l: float,
         eta_g: float = 1.0, K: int | None = None, grad_noise: float = 0.0) -> State:
    """One Scaffold round (option II); see the module docstring."""
    problem = check_problem(problem)
    rng = check_rng(rng)
    J = check_integer(J, "J", low=1)
    eta_l = check_in_range(eta_l, "eta_l", low=0.0, low_inclusive=False)
    eta_g = check_in_range(eta_g, "eta_g", low=0.0, low_inclusive=False)
    grad_noise = check_in_range(grad_noise, "grad_noise", low=0.0)
    n, d = problem.n, problem.d
    x, c, ci = state.w, state.c, state.ci
    if tuple(ci.shape) != (n, d):
        raise FairtheoryValueError(f"state.ci must have shape ({n}, {d}), got {tuple(ci.shape)}")
    xp = namespace(x)
    Y = xp.broadcast_to(x[None, :], (n, d))
    corr = c[None, :] - ci
    for _ in range(J):  # local steps, all clients at once
        Y = Y - eta_l * (problem.grads_each(Y) + gaussian(rng, grad_noise, (n, d), x) + corr)
    ci_plus = ci - c[None, :] + (x[None, :] - Y) / (J * eta_l)
    if K is None:
        weights = like(problem.p, x)           # avg_i = sum_i p_i (.)
        refresh = like(problem.p, x)           # every client refreshes: c+ = c + sum p_i dc_i
        mask = xp.ones((n,), dtype=x.dtype)
    else:
        K = check_integer(K, "K", low=1)
        draw = sample_clients(rng, problem.p, K)
        cnt = np.bincount(draw, minlength=n).astype(np.float64)
        weights = like(cnt / K, x)             # plain mean over the draw (duplicates count)
        hit = (cnt > 0).astype(np.float64)
        mask = like(hit, x)
        refresh = like(hit * problem.p, x)
    x_new = x + eta_g * (weights @ (Y - x[None, :]))
    dci = (ci_plus - ci) * mask[:, None]
    c_new = c + refresh @ (ci_plus - ci)
    return replace(state, w=x_new, c=c_new, ci=ci + dci, comms=state.comms + 1)


def run(problem: FederatedProblem, rounds: int, *, rng: np.random.Generator, w0: Any = None,
        warm_start: bool = False, record_every: int = 1, **hyper: Any) -> tuple[State, History]:
    """``init`` then ``rounds`` Scaffold rounds with a recorded :class:`History`."""
    state = init(problem, w0, warm_start=warm_start)
    return _run(state, step, rounds, problem=problem, rng=rng, record_every=record_every, **hyper)
