r"""q-FedAvg (003 Alg. 1): local training on ``F_k``, q-FFL reweighted aggregation.

Round ``t``: the server draws ``K`` devices i.i.d. by ``p`` (with replacement).  Each drawn device
``k`` evaluates ``F_k`` at the server model ``w`` (before local training, as the published code does),
runs ``local_steps`` full-batch gradient steps of size ``lr`` on ``F_k`` from ``w`` to get ``wbar_k``,
and forms

    Delta w_k = L (w - wbar_k)   (camera-ready convention, ``scaled=True``, default ``L = 1/lr``)
    Delta w_k = w - wbar_k       (the seed's Alg. 1, ``scaled=False``)
    Delta_k = (F_k + o)^q Delta w_k,   h_k = q (F_k + o)^{q-1} ||Delta w_k||^2 + L (F_k + o)^q,

and the server sets ``w <- w - sum Delta_k / sum h_k`` (:func:`fairtheory.algorithms.qfedsgd.aggregate`).
``o = offset = 1e-10`` by default (``fair_flearn``; flgo uses ``1e-8``).

With ``scaled=True``, ``q = 0`` and one local step, ``Delta w_k = L lr grad F_k = grad F_k`` and the
round is exactly FedSGD with step ``1/L`` over the drawn devices (the ``qffl.qfedavg.reduction`` claim).
Local solver: the paper runs ``E`` epochs of mini-batch SGD; here local training is full-batch
gradient descent (``local_steps`` steps), deterministic given the draws.  Where the problem offers
``subset(idx)`` (e.g. :class:`~fairtheory.problems.multinomial.MultinomialProblem`) only the drawn
devices are computed; otherwise all devices are evaluated at once and the drawn rows kept.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from fairtheory._validation import check_in_range, check_integer, check_positive
from fairtheory.algorithms.base import sample_clients
from fairtheory.algorithms.qfedsgd import State, _check_losses_nonneg, aggregate, init
from fairtheory.backend import is_torch, namespace
from fairtheory.problems.base import FederatedProblem

__all__ = ["State", "init", "step", "local_updates"]


def local_updates(problem: FederatedProblem, w: Any, idx: Any, *, lr: float,
                  local_steps: int) -> tuple[Any, Any]:
    """``(F_k(w), w - wbar_k)`` for the distinct devices ``idx``: ``local_steps`` gradient steps of size
    ``lr`` on each ``F_k`` from the server model ``w`` (vectorised over devices)."""
    xp = namespace(w)
    idx = np.asarray(idx, dtype=np.int64)
    sub = problem.subset(idx) if hasattr(problem, "subset") and idx.size < problem.n else None
    if sub is not None:
        F = sub.losses(w)
        W = xp.broadcast_to(w[None, :], (idx.size, problem.d))
        W0 = W
        for _ in range(local_steps):
            W = W - lr * sub.grads_each(W)
        return F, W0 - W
    F = problem.losses(w)
    W = xp.broadcast_to(w[None, :], (problem.n, problem.d))
    W0 = W
    for _ in range(local_steps):
        W = W - lr * problem.grads_each(W)
    if is_torch(w):
        import torch

        sel = torch.as_tensor(idx, device=w.device)
        return F[sel], (W0 - W)[sel]
    return F[idx], (W0 - W)[idx]


def step(state: State, problem: FederatedProblem, rng: np.random.Generator, *, q: float, lr: float,
         L: float | None = None, local_steps: int = 1, K: int | None = None, offset: float = 1e-10,
         scaled: bool = True) -> State:
    """One round of q-FedAvg (003 Alg. 1).

    Parameters
    ----------
    q : ``q >= 0``.
    lr : local step size ``eta > 0``.
    L : Lipschitz estimate; default ``1/lr`` (camera-ready convention).
    local_steps : local full-batch gradient steps (``>= 1``).
    K : devices drawn with replacement by ``p``; ``None`` = all devices weighted by ``p``.
    offset : added to ``F_k`` before powers (``>= 0``).
    scaled : ``Delta w_k = L (w - wbar_k)`` if True (published code), ``w - wbar_k`` (seed) if False.
    """
    q = check_in_range(q, "q", low=0.0)
    lr = check_positive(lr, "lr")
    L = 1.0 / lr if L is None else check_positive(L, "L")
    local_steps = check_integer(local_steps, "local_steps", low=1)
    offset = check_in_range(offset, "offset", low=0.0)
    if K is None:
        uniq = np.arange(problem.n)
        weights = problem.p
        comms = problem.n
    else:
        K = check_integer(K, "K", low=1)
        drawn = sample_clients(rng, problem.p, K)
        uniq, counts = np.unique(drawn, return_counts=True)
        weights = counts.astype(np.float64)
        comms = K
    F, dW = local_updates(problem, state.w, uniq, lr=lr, local_steps=local_steps)
    _check_losses_nonneg(F)
    if scaled:
        dW = L * dW
    w_new = aggregate(state.w, F, dW, q, L, weights, offset=offset)
    return replace(state, w=w_new, comms=state.comms + comms, t=state.t + 1)
