r"""DRFA (Deng, Kamani, Mahdavi 2020; ``baselines.md``): distributionally robust federated averaging.

Solves ``min_w max_{lam in Lambda} sum_i lam_i f_i(w)`` (``Lambda`` a capped simplex, the simplex
by default) with periodic averaging and *snapshot* dual updates.  Round ``s`` (two communications):

1. draw ``m`` clients ``D`` i.i.d. with replacement with probabilities ``lam^(s)`` and a snapshot
   index ``k'`` uniform in ``{0, ..., tau-1}``;
2. each drawn client runs ``tau`` local SGD steps ``y_{k+1} = y_k - eta g_i(y_k)`` from ``w^(s)``;
   the server model becomes ``w^(s+1) = mean_{j in D} y_{j,tau}`` and the snapshot
   ``w' = mean_{j in D} y_{j,k'}`` is formed from the drawn clients' local models after ``k'``
   steps;
3. a fresh uniform draw ``U`` of ``m`` clients evaluates its losses at ``w'``; with
   ``v = (n/m) sum_{j in U} f_j(w') e_j`` (an unbiased estimate of ``f(w')``) the dual takes the
   projected ascent step scaled by ``tau``: ``lam^(s+1) = Proj_Lambda(lam^(s) + tau gamma v)``.

Outputs (the objects DRFA's convex-linear guarantee is about): ``w_avg``, the average of the
virtual iterates ``mean_{j in D} y_{j,k}`` over all local steps so far, and ``lam_avg``, the
average of the dual iterates ``lam^(s)``.  The convex-linear rate of Deng et al. (Thm. 1) for the
duality gap of these averages is ``O(T^{-3/8})`` in the number ``T`` of local steps with their
tuned ``eta ~ T^{-1/2}``, ``gamma ~ T^{-5/8}``, ``tau ~ T^{1/4}``; it does not go to zero for
fixed step sizes (stochastic sampling leaves an ``O(eta + tau gamma)`` floor).

Implementation notes: every client runs its local steps (vectorised over all ``n`` clients, no
Python loop) and the drawn ones are selected, so a client drawn twice contributes the same local
trajectory twice.  Optional Gaussian gradient/loss noise (``grad_noise``, ``loss_noise``) models
stochastic oracles.  numpy or torch float64, draws from the explicit numpy generator.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from fairtheory._validation import check_in_range, check_integer
from fairtheory.algorithms.base import (
    History,
    check_problem,
    check_rng,
    check_set,
    gaussian,
    primal_dual_start,
    project_to,
)
from fairtheory.algorithms.base import run_steps as _run
from fairtheory.backend import like, namespace, to_numpy
from fairtheory.problems.base import FederatedProblem
from fairtheory.sets import CappedSimplex

__all__ = ["State", "init", "step", "run"]


@dataclass(frozen=True)
class State:
    """DRFA state: server model ``w``, dual ``lam``, output averages, counters."""

    w: Any
    lam: Any
    w_avg: Any
    lam_avg: Any
    rounds: int = 0
    local_steps: int = 0
    comms: int = 0


def init(problem: FederatedProblem, w0: Any = None, lam0: Any = None, *,
         Lambda: CappedSimplex | None = None) -> State:
    """Start at ``w0`` (default ``problem.initial_point()``) and ``lam0`` (default ``Proj_Lambda(1/n)``)."""
    return State(**primal_dual_start(problem, w0, lam0, Lambda))


def _sampling_probabilities(lam: Any) -> np.ndarray:
    q = np.clip(to_numpy(lam).astype(np.float64), 0.0, None)
    return q / q.sum()


def step(state: State, problem: FederatedProblem, rng: np.random.Generator, *, tau: int, eta: float,
         gamma: float, m: int, Lambda: CappedSimplex | None = None, grad_noise: float = 0.0,
         loss_noise: float = 0.0) -> State:
    """One DRFA round; see the module docstring."""
    problem = check_problem(problem)
    rng = check_rng(rng)
    S = check_set(Lambda, problem.n)
    tau = check_integer(tau, "tau", low=1)
    m = check_integer(m, "m", low=1)
    eta = check_in_range(eta, "eta", low=0.0, low_inclusive=False)
    gamma = check_in_range(gamma, "gamma", low=0.0)
    grad_noise = check_in_range(grad_noise, "grad_noise", low=0.0)
    loss_noise = check_in_range(loss_noise, "loss_noise", low=0.0)
    n, d = problem.n, problem.d
    w, lam = state.w, state.lam
    xp = namespace(w)
    draw = rng.choice(n, size=m, replace=True, p=_sampling_probabilities(lam))
    k_snap = int(rng.integers(0, tau))
    sel = like(np.bincount(draw, minlength=n) / m, w)  # mean over the draw, duplicates count
    Y = xp.broadcast_to(w[None, :], (n, d))
    virt_sum = xp.zeros_like(w)
    snap = w
    for k in range(tau):  # local SGD, all clients at once
        mean_k = sel @ Y
        virt_sum = virt_sum + mean_k
        if k == k_snap:
            snap = mean_k
        Y = Y - eta * (problem.grads_each(Y) + gaussian(rng, grad_noise, (n, d), w))
    w_new = sel @ Y
    U = rng.integers(0, n, size=m)
    f_snap = problem.losses(snap) + gaussian(rng, loss_noise, (n,), w)
    v = like(np.bincount(U, minlength=n) * (n / m), w) * f_snap
    lam_new = project_to(S, lam + tau * gamma * v)
    T0, s = state.local_steps, state.rounds
    w_avg = (state.w_avg * T0 + virt_sum) / (T0 + tau)
    lam_avg = (state.lam_avg * s + lam) / (s + 1)
    return replace(state, w=w_new, lam=lam_new, w_avg=w_avg, lam_avg=lam_avg, rounds=s + 1,
                   local_steps=T0 + tau, comms=state.comms + 2)


def run(problem: FederatedProblem, rounds: int, *, rng: np.random.Generator, w0: Any = None,
        lam0: Any = None, Lambda: CappedSimplex | None = None, record_every: int = 1,
        **hyper: Any) -> tuple[State, History]:
    """``init`` then ``rounds`` DRFA rounds (history records the server model)."""
    state = init(problem, w0, lam0, Lambda=Lambda)
    return _run(state, step, rounds, problem=problem, rng=rng, record_every=record_every,
                Lambda=Lambda, **hyper)
