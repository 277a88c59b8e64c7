r"""q-FedAvg (003 Alg. 1): local training on ``F_k``, aggregator-reweighted server step.

A round at the server model ``w``: the participating devices (all, weighted by ``p``, or ``K`` i.i.d.
draws by ``p`` with replacement) evaluate ``F_k(w)`` (at the server model, before local training, as
the published code does), run ``kappa`` full-batch gradient steps of size ``lr`` on ``F_k`` from ``w``
to get ``wbar_k`` and send

    Delta w_k = L (w - wbar_k)   (camera-ready convention, ``scaled=True``; default ``L = 1/lr``)
    Delta w_k = w - wbar_k       (the seed's Alg. 1, ``scaled=False``).

The server step is :func:`fairtheory.algorithms.qfedsgd.aggregate` with ``U_k = Delta w_k``:
``w <- w - sum_k c_k d_k U_k / sum_k c_k (e_k ||U_k||^2 + L d_k)``, where ``d_k = lam_k/p_k`` and
``e_k = curv_k/p_k`` come from the aggregator (default q-FFL, 003 eq. 2: ``d_k = (F_k + o)^q``,
``e_k = q (F_k + o)^{q-1}``, i.e. ``Delta_k = (F_k + o)^q Delta w_k``, ``h_k = q (F_k + o)^{q-1}
||Delta w_k||^2 + L (F_k + o)^q``, ``w <- w - sum Delta_k / sum h_k``), and ``c_k`` are ``p_k`` or the
draw counts.  ``o = offset = 1e-10`` by default (``fair_flearn``; flgo uses ``1e-8``).

With ``scaled=True``, ``q = 0`` and ``kappa = 1``, ``Delta w_k = L lr grad F_k = grad F_k`` and the
round is FedSGD with step ``1/L`` over the drawn devices (claim ``qffl.qfedavg.reduction``).
Local solver: the paper runs ``E`` epochs of mini-batch SGD; here local training is ``kappa`` full-batch
gradient steps (:func:`fairtheory.algorithms.base.local_steps`), deterministic given the draws, and
only the participating devices are evaluated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fairtheory._validation import check_integer, check_positive
from fairtheory.algorithms.base import (
    Algorithm,
    check_draws,
    check_problem,
    check_state,
    initial_model,
    local_steps,
    open_round,
)
from fairtheory.algorithms.names import refuses_old_names
from fairtheory.algorithms.qfedsgd import DEFAULT_OFFSET, _aggregator, aggregate, derivatives
from fairtheory.errors import FairtheoryTypeError
from fairtheory.problems.base import FederatedProblem

__all__ = ["State", "make"]


@dataclass(frozen=True)
class State:
    """Server model ``w`` (numpy or torch), device uploads ``comms`` so far, rounds ``t``."""

    w: Any
    comms: int = 0
    t: int = 0


@refuses_old_names("qfedavg")
def make(problem: FederatedProblem, *, q: float | None = None, lr: float, L: float | None = None, kappa: int = 1,
         K: int | None = None, offset: float = DEFAULT_OFFSET, scaled: bool = True,
         aggregator: Any = None) -> Algorithm:
    r"""q-FedAvg (003 Alg. 1) on ``problem`` with bound, validated hyper-parameters.

    Names follow :mod:`fairtheory.algorithms.names`.

    Parameters
    ----------
    q : float
        q-FFL exponent ``>= 0`` (003 eq. 2's ``q``) of the default aggregator ``QFFL(p, q, offset)``;
        give ``q`` or ``aggregator``, not both.
    lr : float
        Local step size ``> 0`` (003 Alg. 1's ``eta``).
    L : float, optional
        Lipschitz estimate ``> 0`` (003 Sec. 3.3's ``L``); default ``1/lr`` (camera-ready convention).
    kappa : int
        Local full-batch gradient steps per round (``>= 1``; in place of 003 Alg. 1's ``E`` epochs).
    K : int or None
        ``None``: every device, multiplicities ``p``; else ``K >= 1`` i.i.d. draws by ``p`` per round.
    offset : float
        ``o >= 0`` added to ``F_k`` before the powers (default aggregator only; this implementation's,
        ``fair_flearn``'s ``1e-10``).
    scaled : bool
        ``Delta w_k = L (w - wbar_k)`` if True (published code), ``w - wbar_k`` (seed, 003 Alg. 1) if False.
    aggregator : Aggregator, optional
        Any aggregator of the client losses with weights ``p`` equal to ``problem.p`` (or none); its
        ``curvature`` is used where it has one.

    Returns
    -------
    Algorithm with ``init(w0=None) -> State`` and ``step(state, rng) -> State`` (``rng`` is needed for
    partial participation only).
    """
    problem = check_problem(problem)
    lr = check_positive(lr, "lr")
    L_val = 1.0 / lr if L is None else check_positive(L, "L")
    kappa = check_integer(kappa, "kappa", low=1)
    K = None if K is None else check_draws(K)
    if not isinstance(scaled, (bool, np.bool_)):
        raise FairtheoryTypeError(f"scaled must be True or False, got {scaled!r}")
    agg = _aggregator(problem, q, offset, aggregator, "qfedavg")
    p = problem.p

    def init(w0: Any = None) -> State:
        return State(w=initial_model(problem, w0))

    def step(state: State, rng: np.random.Generator | None = None) -> State:
        check_state(state, State, "qfedavg")
        w = state.w
        clients, counts, W0 = open_round(problem, w, K, rng)
        c, comms = (p, problem.n) if counts is None else (counts.astype(np.float64), K)
        loc = local_steps(problem, W0, lr=lr, kappa=kappa, clients=clients, want_losses=True)
        U = W0 - loc.W
        if scaled:
            U = L_val * U
        d, e = derivatives(agg, problem, w, loc.losses0, clients)
        w_new = aggregate(w, U, c=c, d=d, e=e, L=L_val)
        return State(w=w_new, comms=state.comms + comms, t=state.t + 1)

    hyper = {"q": getattr(agg, "q", None), "lr": lr, "L": L_val, "kappa": kappa, "K": K,
             "offset": getattr(agg, "offset", None), "scaled": bool(scaled), "aggregator": agg}
    return Algorithm("qfedavg", problem, hyper, init, step, ("lr", "L"))
