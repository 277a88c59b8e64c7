r"""q-FedSGD (003 Alg. 3): FedSGD on q-FFL with the dynamic step of Lemma 12.

Round ``t``: the server draws ``K`` devices i.i.d. with probabilities ``p`` (with replacement,
:func:`fairtheory.algorithms.base.sample_clients`); each computes at the server model ``w``

    Delta_k = F_k^q grad F_k,        h_k = q F_k^{q-1} ||grad F_k||^2 + L F_k^q,

and the server sets ``w <- w - sum_{k in S} Delta_k / sum_{k in S} h_k`` (a drawn device counts as
often as it is drawn).  ``K=None`` is full participation with weights ``p``:
``w <- w - sum_k p_k Delta_k / sum_k p_k h_k``, i.e. a gradient step on ``f_q`` (eq. 2) with step
``1/sum_k p_k L_{q,k}(w)``, the average of the Lemma 12 estimates (deterministic; used to check
convergence to the exact optimum).

``F_k`` is replaced by ``F_k + offset`` inside the powers (``offset = 1e-10`` by default, as the
published code does; ``0`` gives the seed's formula exactly and then needs ``F_k > 0`` for ``q < 1``).
``L`` is estimated once at ``q = 0`` and reused for every ``q`` (003 Sec. 3.3): see :func:`estimate_L`.
Numpy and torch iterates give the same client draws (the draws come from the numpy ``rng``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from fairtheory._validation import FairtheoryValueError, check_in_range, check_integer, check_positive
from fairtheory.algorithms.base import initial_model, sample_clients
from fairtheory.backend import like, namespace, to_numpy
from fairtheory.problems.base import FederatedProblem

__all__ = ["State", "init", "step", "aggregate", "estimate_L"]


@dataclass(frozen=True)
class State:
    """Server model ``w`` (numpy or torch), communication count ``comms`` (device uploads), round ``t``."""

    w: Any
    comms: int = 0
    t: int = 0


def init(problem: FederatedProblem, w0: Any = None) -> State:
    """Start at ``w0`` (numpy or torch, shape ``(d,)``) or at ``problem.initial_point()``."""
    return State(w=initial_model(problem, w0))


def _check_losses_nonneg(F: Any) -> None:
    Fn = to_numpy(F)
    if np.any(Fn < 0) or not np.all(np.isfinite(Fn)):
        bad = int(np.argmin(np.where(np.isfinite(Fn), Fn, -np.inf)))
        raise FairtheoryValueError(
            f"q-FFL needs finite nonnegative client losses, got F[{bad}] = {Fn[bad]!r}")


def aggregate(w: Any, F: Any, U: Any, q: float, L: float, weights: Any, *, offset: float = 1e-10) -> Any:
    r"""The q-FFL server update shared by q-FedSGD and q-FedAvg (003 Alg. 1 and 3).

    ``F`` (k,) losses at ``w``; ``U`` (k, d) update directions (gradients for q-FedSGD, ``Delta w_k``
    for q-FedAvg); ``weights`` (k,) multiplicities or probabilities.  Returns
    ``w - sum_k c_k (F_k+o)^q U_k / sum_k c_k [q (F_k+o)^{q-1} ||U_k||^2 + L (F_k+o)^q]``."""
    xp = namespace(w)
    c = like(np.asarray(weights, dtype=np.float64), w)
    Fo = F + offset
    Fq = Fo**q
    delta = xp.sum((c * Fq)[:, None] * U, axis=0)
    if q == 0.0:
        h = L * xp.sum(c)
    else:
        pos = Fo > 0
        Fs = xp.where(pos, Fo, xp.ones_like(Fo))  # F = 0 (offset 0): the term's limit 0, as in Lemma 12
        sq = xp.sum(U * U, axis=1)
        h = xp.sum(c * (xp.where(pos, q * Fs ** (q - 1.0) * sq, xp.zeros_like(sq)) + L * Fq))
    if not float(h) > 0.0:
        raise FairtheoryValueError(
            f"sum of h_k must be > 0, got {float(h)!r} (all drawn losses 0 with offset 0?)")
    return w - delta / h


def step(state: State, problem: FederatedProblem, rng: np.random.Generator, *, q: float, L: float,
         K: int | None = None, offset: float = 1e-10) -> State:
    """One round of q-FedSGD (003 Alg. 3).

    Parameters
    ----------
    q : ``q >= 0``.
    L : Lipschitz estimate of the ``grad F_k`` (``1/`` the best FedSGD step at ``q = 0``), ``> 0``.
    K : devices drawn with replacement by ``p``; ``None`` = all devices weighted by ``p``.
    offset : added to ``F_k`` before powers (``>= 0``).
    """
    q = check_in_range(q, "q", low=0.0)
    L = check_positive(L, "L")
    offset = check_in_range(offset, "offset", low=0.0)
    w = state.w
    F = problem.losses(w)
    _check_losses_nonneg(F)
    G = problem.grads(w)
    if K is None:
        weights = problem.p
        comms = problem.n
    else:
        K = check_integer(K, "K", low=1)
        idx = sample_clients(rng, problem.p, K)
        weights = np.bincount(idx, minlength=problem.n).astype(np.float64)
        comms = K
    w_new = aggregate(w, F, G, q, L, weights, offset=offset)
    return replace(state, w=w_new, comms=state.comms + comms, t=state.t + 1)


def estimate_L(problem: FederatedProblem, *, method: str = "smoothness", grid: Any = None,
               rounds: int = 100, w0: Any = None) -> float:
    r"""The constant ``L`` of 003 Sec. 3.3, estimated once at ``q = 0``.

    ``method="smoothness"``: ``problem.smoothness()`` (a certified Lipschitz constant of every
    ``grad F_k``, so Lemma 12 gives true upper bounds).  ``method="grid"``: the paper's recipe - run
    full-participation FedSGD (= q-FedSGD at ``q = 0`` with ``L = 1/lr``) for ``rounds`` rounds for each
    step size ``lr`` in ``grid`` (default ``problem.smoothness()^{-1} * 2^{-2..3}``) and return ``1/lr``
    of the step with the smallest final ``f_0`` (diverged runs are discarded; values equal to
    ``1e-12`` relative count as ties and go to the largest step)."""
    if method == "smoothness":
        return check_positive(problem.smoothness(), "problem.smoothness()")
    if method != "grid":
        raise FairtheoryValueError(f"method must be 'smoothness' or 'grid', got {method!r}")
    rounds = check_integer(rounds, "rounds", low=1)
    if grid is None:
        grid = [2.0**k / problem.smoothness() for k in range(-2, 4)]
    lrs = [check_positive(v, "grid entry") for v in np.ravel(np.asarray(grid, dtype=np.float64))]
    rng = np.random.default_rng(0)  # unused with K=None
    best, best_lr = np.inf, None
    for lr in sorted(lrs, reverse=True):  # ties (runs that all converged) go to the largest step
        s = init(problem, w0)
        val = np.inf
        with np.errstate(all="ignore"):
            try:
                for _ in range(rounds):
                    s = step(s, problem, rng, q=0.0, L=1.0 / lr, K=None, offset=0.0)
                val = float(problem.weighted_loss(s.w))
            except FairtheoryValueError:  # diverged: non-finite losses
                val = np.inf
        if np.isfinite(val) and val < best - 1e-12 * max(1.0, abs(best) if np.isfinite(best) else 1.0):
            best, best_lr = val, lr
    if best_lr is None:
        raise FairtheoryValueError(f"every step size in grid {lrs} diverged")
    return 1.0 / best_lr
