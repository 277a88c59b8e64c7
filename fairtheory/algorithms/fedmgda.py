r"""FedMGDA+ (Hu, Shaloudegi, Zhang, Yu 2022, Alg. 1): a common descent direction of normalised updates.

One round from the server model ``w``: every participating client runs ``kappa`` local gradient
steps of size ``lr`` from ``w`` and sends its update ``g_i = w - w_i``.  The server normalises them,
``u_i = g_i / (||g_i|| + offset)`` (``u_i = 0`` for a zero update), and takes the min-norm point of
their convex hull with the weights held within ``epsilon`` of the sample weights ``lam0``:

.. math:: \lambda^\star = \arg\min_{\lambda \in \Delta,\ \|\lambda - \lambda_0\|_\infty \le \epsilon}
          \Big\| \sum_i \lambda_i u_i \Big\|^2, \qquad
          w^+ = w - \eta \sum_i \lambda^\star_i u_i ,

solved exactly on the ``m x m`` Gram matrix (:func:`fairtheory.exact.min_norm.min_norm_weights`).
``epsilon = 0`` pins ``lam = lam0`` (FedAvg of the normalised updates); ``epsilon >= 1`` lets the
weights range over the whole simplex (MGDA: with ``kappa = 1`` the direction is the min-norm element
of the hull of the normalised gradients, which is zero exactly at Pareto-stationary points).

Sample weights: full participation (``K=None``) uses ``lam0 = p``; partial participation draws ``K``
clients i.i.d. with replacement by ``p`` and uses ``lam0 = counts / K`` over the distinct clients
drawn (the empirical weights of the draw; a client drawn twice counts twice).  ``offset`` is the
constant some implementations add to the norm (FLGo: ``1e-8``); the default ``0`` is the paper's
exact normalisation.  Written against the array API (numpy or torch, chosen by ``w0``); the local
steps of all participants run at once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from fairtheory._validation import check_in_range, check_integer, check_positive
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
from fairtheory.backend import like, namespace, to_numpy
from fairtheory.errors import FairtheoryValueError
from fairtheory.exact.min_norm import fedmgda_box, min_norm_weights
from fairtheory.problems.base import FederatedProblem

__all__ = ["State", "make", "normalise", "row_norms", "aggregate"]


@dataclass(frozen=True)
class State:
    """Server model ``w``, communication rounds ``comms`` (= rounds done), local steps ``steps``,
    and the weights ``lam`` of the last server step (``None`` before the first)."""

    w: Any
    comms: int = 0
    steps: int = 0
    lam: Any = None


def row_norms(U: Any) -> Any:
    """``||g_i||`` for the rows of ``U`` (numpy or torch), accurate across the float range: rows whose
    plain norm overflows or falls below ``2^-250`` (squares underflow) are recomputed as
    ``a_i ||g_i / a_i||`` with ``a_i = max_j |g_ij|``."""
    xp = namespace(U)
    with np.errstate(over="ignore", under="ignore"):
        nrm = xp.linalg.vector_norm(U, axis=1)
        bad = (nrm > _HUGE) | (nrm < _SMALL)
        if bool(xp.any(bad)):
            rows = U[bad]
            a = xp.max(xp.abs(rows), axis=1)
            a = xp.where(a > 0, a, xp.ones_like(a))
            nrm = xp.where(bad, xp.zeros_like(nrm), nrm)
            nrm[bad] = a * xp.linalg.vector_norm(rows / a[:, None], axis=1)
    return nrm


#: plain row norms outside ``[_SMALL, _HUGE]`` are recomputed with scaling
_SMALL, _HUGE = 2.0 ** -250, 2.0 ** 500


def normalise(U: Any, offset: float = 0.0) -> Any:
    """Rows ``g_i / (||g_i|| + offset)`` of ``U`` (numpy or torch); a zero row stays zero.

    One pass for the norms (:func:`row_norms`), one for the division (no full-size temporaries)."""
    xp = namespace(U)
    den = row_norms(U) + offset
    safe = xp.where(den > 0, den, xp.ones_like(den))  # a zero row has norm 0: 0 / 1 = 0
    return U / safe[:, None]


#: below this squared norm an update is normalised before its Gram product (products would underflow)
_TINY2 = 2.0 ** -500


def _gram_weights(U: Any, lo: np.ndarray, hi: np.ndarray, offset: float) -> tuple[np.ndarray, np.ndarray] | None:
    r"""``(lam, f)`` from the Gram matrix of the *raw* updates, one pass over ``U``:
    ``||g_i|| = sqrt(G_ii)``, ``f_i = 1/(||g_i|| + offset)`` and the normalised Gram matrix
    ``f_i f_j G_ij``; the direction is then ``sum_i (lam_i f_i) g_i``.  ``None`` when ``U U^T`` is not
    float-accurate (an overflow, a non-finite entry, or a squared norm below ``2^-500``)."""
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        G = np.asarray(to_numpy(U @ U.T), dtype=np.float64)
        diag = np.diagonal(G)
        if not (np.isfinite(G).all() and diag.min() >= _TINY2):
            return None
        f = 1.0 / (np.sqrt(diag) + offset)
        Gn = G * (f[:, None] * f[None, :])  # f_i f_j = f_j f_i: stays exactly symmetric
    lam, _ = min_norm_weights(Gn, lo=lo, hi=hi)
    return lam, f


def aggregate(U: Any, lam0: Any, *, epsilon: float, offset: float = 0.0) -> tuple[Any, np.ndarray]:
    r"""FedMGDA+'s server direction from the raw updates ``U`` (``m x d``, rows ``g_i = w - w_i``).

    Returns ``(d, lam)``: ``d = sum_i lam_i u_i`` in ``U``'s library and the optimal weights ``lam``
    (numpy) of the min-norm problem over ``{lam in simplex : |lam_i - lam0_i| <= epsilon}``.

    ``U`` is read twice: its Gram product (norms and normalised Gram matrix from it) and the direction
    ``d = (lam * f) @ U``; updates with a zero, tiny or huge norm are normalised first instead."""
    eps = check_in_range(epsilon, "epsilon", low=0.0)
    off = check_in_range(offset, "offset", low=0.0)
    lo, hi = fedmgda_box(to_numpy(lam0), eps)
    m = U.shape[0] if getattr(U, "ndim", 0) == 2 else None
    if m != lo.size:
        raise FairtheoryValueError(f"U must be an (m x d) array with m = len(lam0) = {lo.size} rows, "
                                   f"got shape {tuple(getattr(U, 'shape', ()))}")
    fast = _gram_weights(U, lo, hi, off)
    if fast is not None:
        lam, f = fast
        return like(lam * f, U) @ U, lam
    Un = normalise(U, off)
    G = np.asarray(to_numpy(Un @ Un.T), dtype=np.float64)
    lam, _ = min_norm_weights(G, lo=lo, hi=hi)
    return like(lam, Un) @ Un, lam


@refuses_old_names("fedmgda")
def make(problem: FederatedProblem, *, lr: float | Callable[[int], float], kappa: int = 1, K: int | None = None,
         epsilon: float, server_lr: float = 1.0, offset: float = 0.0) -> Algorithm:
    r"""FedMGDA+ on ``problem`` with bound, validated hyper-parameters.

    Names follow :mod:`fairtheory.algorithms.names`.

    Parameters
    ----------
    lr : float or callable
        Local step size ``> 0`` (no symbol in Hu et al.), or a schedule ``lr(r)`` of the round
        ``r = state.comms`` (0-based).
    kappa : int
        Local gradient steps per round (``>= 1``; 002's ``kappa``).
    K : int or None
        ``None``: full participation (``lam0 = p``); else ``K >= 1`` i.i.d. draws by ``p``.
    epsilon : float
        Half-width ``>= 0`` of the weight box around ``lam0`` (Hu et al.'s ``epsilon``).
    server_lr : float
        Server step ``> 0`` along the normalised direction (Hu et al.'s and FLGo's ``eta``, default 1).
    offset : float
        ``>= 0`` added to each update norm before dividing (``0``: exact normalisation; this
        implementation's, no symbol).

    Returns
    -------
    Algorithm with ``init(w0=None) -> State`` and ``step(state, rng) -> State`` (``rng`` is needed
    for partial participation only).
    """
    problem = check_problem(problem)
    kappa = check_integer(kappa, "kappa", low=1)
    K = None if K is None else check_draws(K)
    lr_fixed = None if callable(lr) else check_positive(lr, "lr")
    epsilon = check_in_range(epsilon, "epsilon", low=0.0)
    server_lr = check_positive(server_lr, "server_lr")
    offset = check_in_range(offset, "offset", low=0.0)
    p = problem.p

    def init(w0: Any = None) -> State:
        return State(w=initial_model(problem, w0))

    def step(state: State, rng: np.random.Generator | None = None) -> State:
        check_state(state, State, "fedmgda")
        eta = lr_fixed if lr_fixed is not None else check_positive(lr(state.comms), f"lr(r) at r={state.comms}")  # type: ignore[operator]
        w = state.w
        clients, counts, W0 = open_round(problem, w, K, rng)
        lam0 = p if counts is None else counts / K
        loc = local_steps(problem, W0, lr=eta, kappa=kappa, clients=clients)
        d, lam = aggregate(w - loc.W, lam0, epsilon=epsilon, offset=offset)
        return State(w=w - server_lr * d, comms=state.comms + 1, steps=state.steps + kappa, lam=lam)

    return Algorithm("fedmgda", problem, {"lr": lr, "kappa": kappa, "K": K, "epsilon": epsilon,
                                          "server_lr": server_lr, "offset": offset}, init, step, ("lr", "server_lr"))
