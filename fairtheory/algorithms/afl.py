r"""Stochastic-AFL (Mohri, Sivek, Suresh 2019; ``baselines.md``): projected gradient descent-ascent.

Agnostic federated learning solves ``min_w max_{lam in Lambda} sum_k lam_k f_k(w)`` with
``Lambda`` a capped simplex (the simplex ``Delta_n`` by default).  One step (= one communication)
evaluates the losses and gradients at the current pair ``(w_t, lam_t)`` and moves both at once:

.. math::
    w_{t+1} = w_t - \gamma_w \,\widehat{\textstyle\sum_k \lambda_{t,k} \nabla f_k(w_t)}, \qquad
    \lambda_{t+1} = \mathrm{Proj}_\Lambda\big(\lambda_t + \gamma_\lambda \widehat{f(w_t)}\big).

Estimates (hats): exact when ``K is None`` (full participation), otherwise ``K`` clients drawn
uniformly with replacement give the unbiased ``(n/K) sum_{j in S} lam_j g_j`` for the primal
gradient and, from an independent draw ``S'``, ``(n/K) sum_{j in S'} f_j e_j`` for the loss vector
(Mohri et al.'s stochastic oracle with ``K`` samples).  Optional additive Gaussian noise of
standard deviation ``grad_noise`` / ``loss_noise`` models stochastic client gradients / losses.

The output of the method is the *averaged* iterate ``(w_avg, lam_avg)`` of the points at which
the gradients were evaluated, ``w_avg = (1/T) sum_{t<T} w_t`` (the classical ergodic rate
``O(1/sqrt(T))`` for the duality gap of convex-concave problems refers to it); ``State.w`` is the
current iterate.

Written once against the array API (numpy or torch float64, chosen by the type of ``w0``); all
random draws come from the explicit ``numpy.random.Generator`` so both backends see the same draws.
The Euclidean projection onto ``Lambda`` is :meth:`fairtheory.sets.CappedSimplex.project`
(an ``O(n log n)`` server-side numpy kernel; torch duals make a round trip through numpy).
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
from fairtheory.backend import like, namespace
from fairtheory.problems.base import FederatedProblem
from fairtheory.sets import CappedSimplex

__all__ = ["State", "init", "step", "run", "project_to"]


@dataclass(frozen=True)
class State:
    """Stochastic-AFL state: current pair ``(w, lam)``, running averages, step and comm counters."""

    w: Any
    lam: Any
    w_avg: Any
    lam_avg: Any
    t: int = 0
    comms: int = 0


# ------------------------------------------------------------------ algorithm
def init(problem: FederatedProblem, w0: Any = None, lam0: Any = None, *,
         Lambda: CappedSimplex | None = None) -> State:
    """Start at ``w0`` (default ``problem.initial_point()``) and ``lam0`` (default ``Proj_Lambda(1/n)``)."""
    return State(**primal_dual_start(problem, w0, lam0, Lambda))


def step(state: State, problem: FederatedProblem, rng: np.random.Generator, *, lr_w: float,
         lr_lam: float, Lambda: CappedSimplex | None = None, K: int | None = None,
         grad_noise: float = 0.0, loss_noise: float = 0.0) -> State:
    """One Stochastic-AFL step (simultaneous descent-ascent); see the module docstring."""
    problem = check_problem(problem)
    rng = check_rng(rng)
    S = check_set(Lambda, problem.n)
    lr_w = check_in_range(lr_w, "lr_w", low=0.0, low_inclusive=False)
    lr_lam = check_in_range(lr_lam, "lr_lam", low=0.0)
    grad_noise = check_in_range(grad_noise, "grad_noise", low=0.0)
    loss_noise = check_in_range(loss_noise, "loss_noise", low=0.0)
    n, d = problem.n, problem.d
    w, lam = state.w, state.lam
    xp = namespace(w)
    G = problem.grads(w) + gaussian(rng, grad_noise, (n, d), w)
    f = problem.losses(w) + gaussian(rng, loss_noise, (n,), w)
    if K is None:
        g = lam @ G
        v = f
    else:
        K = check_integer(K, "K", low=1)
        draw_g = rng.integers(0, n, size=K)
        draw_f = rng.integers(0, n, size=K)
        cnt_g = like(np.bincount(draw_g, minlength=n) * (n / K), w)
        cnt_f = like(np.bincount(draw_f, minlength=n) * (n / K), w)
        g = (cnt_g * lam) @ G
        v = cnt_f * f
    t = state.t
    w_avg = (state.w_avg * t + w) / (t + 1)
    lam_avg = (state.lam_avg * t + lam) / (t + 1)
    w_new = w - lr_w * g
    lam_new = project_to(S, lam + lr_lam * v)
    del xp
    return replace(state, w=w_new, lam=lam_new, w_avg=w_avg, lam_avg=lam_avg, t=t + 1,
                   comms=state.comms + 1)


def run(problem: FederatedProblem, rounds: int, *, rng: np.random.Generator, w0: Any = None,
        lam0: Any = None, Lambda: CappedSimplex | None = None, record_every: int = 1,
        **hyper: Any) -> tuple[State, History]:
    """``init`` then ``rounds`` steps, recording the current iterate (averages are in the state)."""
    state = init(problem, w0, lam0, Lambda=Lambda)
    return _run(state, step, rounds, problem=problem, rng=rng, record_every=record_every,
                Lambda=Lambda, **hyper)
