r"""Stochastic-AFL (Mohri, Sivek, Suresh 2019): projected gradient descent-ascent.

Agnostic federated learning solves ``min_w max_{lam in Lambda} sum_k lam_k f_k(w)``, the support
function ``A(f) = max_{lam in Lambda} lam . f`` of a client-weight set taken from a set-support
aggregator (:class:`fairtheory.aggregators.SetSupport` over a capped simplex: :func:`~fairtheory.aggregators.afl`
- the simplex ``Delta_n``, the default -, :func:`~fairtheory.aggregators.cvar`,
:func:`~fairtheory.aggregators.qalpha`, or a raw :class:`~fairtheory.sets.CappedSimplex`).  One step
(= one communication) evaluates the losses and gradients at the current pair ``(w_t, lam_t)`` and
moves both at once:

.. math::
    w_{t+1} = w_t - \gamma_w \,\widehat{\textstyle\sum_k \lambda_{t,k} \nabla f_k(w_t)}, \qquad
    \lambda_{t+1} = \mathrm{Proj}_\Lambda\big(\lambda_t + \gamma_\lambda \widehat{f(w_t)}\big).

The steps ``gamma_w`` and ``gamma_lambda`` are :func:`make`'s ``lr`` and ``dual_lr``
(:mod:`fairtheory.algorithms.names`).

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

from dataclasses import dataclass
from typing import Any

import numpy as np

from fairtheory._validation import check_in_range
from fairtheory.aggregators import afl as afl_objective
from fairtheory.algorithms.base import (
    Algorithm,
    aggregator_for,
    check_draws,
    check_problem,
    check_rng,
    check_state,
    gaussian,
    primal_dual_start,
    project_to,
    sample_clients,
)
from fairtheory.algorithms.names import refuses_old_names
from fairtheory.backend import like
from fairtheory.errors import FairtheoryTypeError
from fairtheory.problems.base import FederatedProblem
from fairtheory.sets import CappedSimplex, IntegratedSet

__all__ = ["State", "make", "dual_set"]


@dataclass(frozen=True)
class State:
    """Stochastic-AFL state: current pair ``(w, lam)``, running averages, step and comm counters."""

    w: Any
    lam: Any
    w_avg: Any
    lam_avg: Any
    t: int = 0
    comms: int = 0


def dual_set(problem: FederatedProblem, aggregator: Any, *, algorithm: str,
             integrated: bool = False) -> tuple[Any, CappedSimplex | IntegratedSet]:
    """The checked set-support aggregator of a primal-dual method and the set its dual ascends in.

    ``aggregator`` is a :class:`~fairtheory.aggregators.SetSupport` (``afl(n)``, ``cvar``, ``qalpha``,
    ``integrated(A, B, phi)``), a raw :class:`~fairtheory.sets.CappedSimplex` or
    :class:`~fairtheory.sets.IntegratedSet` (converted with :func:`~fairtheory.aggregators.as_aggregator`),
    or ``None`` for the simplex.  Integrated sets are accepted only with ``integrated=True``
    (Scaff-PD-IA); AFL and DRFA project onto (and DRFA samples from) a capped simplex."""
    agg = aggregator_for(problem, afl_objective(problem.n) if aggregator is None else aggregator,
                         algorithm=algorithm)
    S = getattr(agg, "set", None)
    kinds: tuple[type, ...] = (CappedSimplex, IntegratedSet) if integrated else (CappedSimplex,)
    if not isinstance(S, kinds):
        what = "a CappedSimplex or IntegratedSet" if integrated else "a CappedSimplex"
        extra = "" if integrated else " (integrated sets: use scaffpd)"
        raise FairtheoryTypeError(
            f"aggregator must be a set-support aggregator over {what} (fairtheory.aggregators.afl, cvar, "
            f"qalpha{', integrated' if integrated else ''}) or such a set: {algorithm} ascends in the set{extra}; "
            f"got {agg!r} with set {type(S).__name__}")
    return agg, S


@refuses_old_names("afl")
def make(problem: FederatedProblem, *, lr: float, dual_lr: float, aggregator: Any = None, K: int | None = None,
         grad_noise: float = 0.0, loss_noise: float = 0.0) -> Algorithm:
    r"""Stochastic-AFL on ``problem`` with bound, validated hyper-parameters.

    Names follow :mod:`fairtheory.algorithms.names`; the old names ``lr_w`` and ``lr_lam`` are refused
    by name (a ``FairtheoryTypeError`` naming the new one).

    Parameters
    ----------
    lr : float > 0
        Primal step (Mohri et al.'s ``gamma_w``).
    dual_lr : float >= 0
        Dual step (Mohri et al.'s ``gamma_lambda``).
    aggregator : SetSupport, CappedSimplex or None
        The objective ``max_{lam in Lambda} lam . f`` and its set ``Lambda`` (Mohri et al.'s ``Lambda``;
        default the simplex, :func:`fairtheory.aggregators.afl`); ``init`` and ``step`` both use this one set.
    K : int >= 1 or None
        ``None``: exact full-participation oracles; else ``K`` uniform draws with replacement per estimate
        (no symbol in the paper).
    grad_noise, loss_noise : float >= 0
        Standard deviations of additive Gaussian noise on every client gradient / loss (this
        implementation's model of stochastic oracles; no symbol in the paper).

    Returns
    -------
    Algorithm with ``init(w0=None, lam0=None) -> State`` (``lam0`` must lie in ``Lambda``; default the
    projection of the uniform vector) and ``step(state, rng) -> State`` (``rng`` is needed only when
    ``K`` is set or a noise level is positive).
    """
    problem = check_problem(problem)
    lr = check_in_range(lr, "lr", low=0.0, low_inclusive=False)
    dual_lr = check_in_range(dual_lr, "dual_lr", low=0.0)
    K = None if K is None else check_draws(K)
    grad_noise = check_in_range(grad_noise, "grad_noise", low=0.0)
    loss_noise = check_in_range(loss_noise, "loss_noise", low=0.0)
    agg, S = dual_set(problem, aggregator, algorithm="afl")
    n, d = problem.n, problem.d
    random = K is not None or grad_noise > 0 or loss_noise > 0
    uniform = np.full(n, 1.0 / n)

    def init(w0: Any = None, lam0: Any = None) -> State:
        return State(**primal_dual_start(problem, w0, lam0, S))

    def step(state: State, rng: np.random.Generator | None = None) -> State:
        check_state(state, State, "afl")
        if random:
            rng = check_rng(rng)
        w, lam = state.w, state.lam
        G = problem.grads(w) + gaussian(rng, grad_noise, (n, d), w)  # type: ignore[arg-type]
        f = problem.losses(w) + gaussian(rng, loss_noise, (n,), w)  # type: ignore[arg-type]
        if K is None:
            g, v = lam @ G, f
        else:
            draw_g = sample_clients(rng, uniform, K)  # type: ignore[arg-type]
            draw_f = sample_clients(rng, uniform, K)  # type: ignore[arg-type]
            g = (like(np.bincount(draw_g, minlength=n) * (n / K), w) * lam) @ G
            v = like(np.bincount(draw_f, minlength=n) * (n / K), w) * f
        t = state.t
        return State(w=w - lr * g, lam=project_to(S, lam + dual_lr * v),
                     w_avg=(state.w_avg * t + w) / (t + 1), lam_avg=(state.lam_avg * t + lam) / (t + 1),
                     t=t + 1, comms=state.comms + 1)

    hyper = {"lr": lr, "dual_lr": dual_lr, "aggregator": agg, "K": K, "grad_noise": grad_noise,
             "loss_noise": loss_noise}
    return Algorithm("afl", problem, hyper, init, step, ("lr", "dual_lr"))
