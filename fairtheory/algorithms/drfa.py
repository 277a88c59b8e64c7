r"""DRFA (Deng, Kamani, Mahdavi 2020): distributionally robust federated averaging.

Solves ``min_w max_{lam in Lambda} sum_i lam_i f_i(w)`` (``Lambda`` the capped simplex of a
set-support aggregator, the simplex by default) with periodic averaging and *snapshot* dual updates.
Round ``s`` (two communications):

1. draw ``K`` clients ``D`` i.i.d. with replacement with probabilities ``lam^(s)`` and a snapshot
   index ``k'`` uniform in ``{0, ..., kappa-1}``;
2. each drawn client runs ``kappa`` local SGD steps ``y_{k+1} = y_k - eta g_i(y_k)`` from ``w^(s)``;
   the server model becomes ``w^(s+1) = mean_{j in D} y_{j,kappa}`` and the snapshot
   ``w' = mean_{j in D} y_{j,k'}`` is formed from the drawn clients' local models after ``k'``
   steps;
3. a fresh uniform draw ``U`` of ``K`` clients evaluates its losses at ``w'``; with
   ``v = (n/K) sum_{j in U} f_j(w') e_j`` (an unbiased estimate of ``f(w')``) the dual takes the
   projected ascent step scaled by ``kappa``: ``lam^(s+1) = Proj_Lambda(lam^(s) + kappa gamma v)``.

Outputs (the objects DRFA's convex-linear guarantee is about): ``w_avg``, the average of the
virtual iterates ``mean_{j in D} y_{j,k}`` over all local steps so far, and ``lam_avg``, the
average of the dual iterates ``lam^(s)``.  The convex-linear rate of Deng et al. (Thm. 1) for the
duality gap of these averages is ``O(T^{-3/8})`` in the number ``T`` of local steps with their
tuned ``eta ~ T^{-1/2}``, ``gamma ~ T^{-5/8}``, ``kappa ~ T^{1/4}``; it does not go to zero for
fixed step sizes (stochastic sampling leaves an ``O(eta + kappa gamma)`` floor).

Names (:mod:`fairtheory.algorithms.names`): the paper's ``tau`` (local steps) is ``kappa``, its ``m``
(clients per draw) is ``K``, its ``eta`` is ``lr`` and its ``gamma`` is ``dual_lr`` here, as in every
algorithm of the package.  Only the distinct drawn clients run their local steps (all at
once, no Python loop over clients); a client drawn twice contributes its trajectory twice.  Optional
Gaussian gradient/loss noise (``grad_noise``, ``loss_noise``) models stochastic oracles.  numpy or
torch float64, draws from the explicit numpy generator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fairtheory._validation import check_in_range, check_integer
from fairtheory.algorithms.afl import dual_set
from fairtheory.algorithms.base import (
    Algorithm,
    check_draws,
    check_problem,
    check_rng,
    check_state,
    draw_participants,
    gaussian,
    primal_dual_start,
    project_to,
    sample_clients,
)
from fairtheory.algorithms.names import refuses_old_names
from fairtheory.backend import like, namespace, to_numpy
from fairtheory.problems.base import FederatedProblem

__all__ = ["State", "make"]


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


def _sampling_probabilities(lam: Any) -> np.ndarray:
    q = np.clip(to_numpy(lam).astype(np.float64), 0.0, None)
    return q / q.sum()


@refuses_old_names("drfa")
def make(problem: FederatedProblem, *, kappa: int, lr: float, dual_lr: float, K: int, aggregator: Any = None,
         grad_noise: float = 0.0, loss_noise: float = 0.0) -> Algorithm:
    r"""DRFA on ``problem`` with bound, validated hyper-parameters.

    Names follow :mod:`fairtheory.algorithms.names`; the old names ``eta`` and ``gamma`` are refused
    by name (a ``FairtheoryTypeError`` naming the new one).

    Parameters
    ----------
    kappa : int >= 1
        Local SGD steps per round (Deng et al.'s ``tau``).
    lr : float > 0
        Local (primal) step size (Deng et al.'s ``eta``).
    dual_lr : float >= 0
        Dual step size (Deng et al.'s ``gamma``); the ascent step is ``kappa dual_lr``.
    K : int >= 1
        Clients drawn per round, for the local steps (by ``lam``) and for the loss estimate (uniformly)
        (Deng et al.'s ``m``).
    aggregator : SetSupport, CappedSimplex or None
        The objective ``max_{lam in Lambda} lam . f`` and its set ``Lambda`` (default the simplex);
        ``init`` and ``step`` both use this one set.
    grad_noise, loss_noise : float >= 0
        Standard deviations of additive Gaussian noise on client gradients / losses (this
        implementation's model of stochastic oracles; no symbol in the paper).

    Returns
    -------
    Algorithm with ``init(w0=None, lam0=None) -> State`` and ``step(state, rng) -> State`` (``rng``
    required: DRFA always samples).
    """
    problem = check_problem(problem)
    kappa = check_integer(kappa, "kappa", low=1)
    lr = check_in_range(lr, "lr", low=0.0, low_inclusive=False)
    dual_lr = check_in_range(dual_lr, "dual_lr", low=0.0)
    K = check_draws(K)
    grad_noise = check_in_range(grad_noise, "grad_noise", low=0.0)
    loss_noise = check_in_range(loss_noise, "loss_noise", low=0.0)
    agg, S = dual_set(problem, aggregator, algorithm="drfa")
    n, d = problem.n, problem.d
    uniform = np.full(n, 1.0 / n)

    def init(w0: Any = None, lam0: Any = None) -> State:
        return State(**primal_dual_start(problem, w0, lam0, S))

    def step(state: State, rng: np.random.Generator | None) -> State:
        check_state(state, State, "drfa")
        rng = check_rng(rng)
        w, lam = state.w, state.lam
        xp = namespace(w)
        clients, counts = draw_participants(rng, _sampling_probabilities(lam), K)
        k_snap = int(rng.integers(0, kappa))
        sel = like(counts / K, w)  # mean over the draw, duplicates count
        # Not base.local_steps: the output average needs every intermediate virtual iterate and the
        # gradient noise is drawn afresh at every local step.
        Y = xp.broadcast_to(w[None, :], (clients.size, d))
        virt_sum = xp.zeros_like(w)
        snap = w
        for k in range(kappa):
            mean_k = sel @ Y
            virt_sum = virt_sum + mean_k
            if k == k_snap:
                snap = mean_k
            Y = Y - lr * (problem.grads_each(Y, clients=clients) + gaussian(rng, grad_noise, (clients.size, d), w))
        U = sample_clients(rng, uniform, K)
        f_snap = problem.losses(snap) + gaussian(rng, loss_noise, (n,), w)
        v = like(np.bincount(U, minlength=n) * (n / K), w) * f_snap
        T0, s = state.local_steps, state.rounds
        return State(w=sel @ Y, lam=project_to(S, lam + kappa * dual_lr * v),
                     w_avg=(state.w_avg * T0 + virt_sum) / (T0 + kappa), lam_avg=(state.lam_avg * s + lam) / (s + 1),
                     rounds=s + 1, local_steps=T0 + kappa, comms=state.comms + 2)

    hyper = {"kappa": kappa, "lr": lr, "dual_lr": dual_lr, "K": K, "aggregator": agg, "grad_noise": grad_noise,
             "loss_noise": loss_noise}
    return Algorithm("drfa", problem, hyper, init, step, ("lr", "dual_lr"))
