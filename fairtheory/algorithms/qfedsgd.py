r"""q-FedSGD (003 Alg. 3): FedSGD on q-FFL with the dynamic step of Lemma 12, for any aggregator.

A round at the server model ``w``: the participating devices send ``U_k = grad F_k(w)`` and their
losses ``F_k(w)``; with the aggregator's client weights ``lam = A.weights(F)``, the per-client
derivatives ``d_k = lam_k/p_k`` (``0`` where ``p_k = 0``) and curvatures ``e_k = A.curvature(F)_k/p_k``
(``0`` when ``A`` has no ``curvature``), the server sets

    w <- w - sum_k c_k d_k U_k / sum_k c_k (e_k ||U_k||^2 + L d_k)          (:func:`aggregate`)

with multiplicities ``c_k = p_k`` (full participation, ``K=None``) or ``c_k`` = how often device ``k``
was drawn among ``K`` i.i.d. draws by ``p`` (partial participation, with replacement).  For the default
aggregator, q-FFL (003 eq. 2) with ``A(F) = sum_k p_k (F_k + o)^{q+1}/(q+1)``, ``d_k = (F_k + o)^q`` and
``e_k = q (F_k + o)^{q-1}``: ``Delta_k = (F_k + o)^q grad F_k``, ``h_k = q (F_k + o)^{q-1} ||grad F_k||^2 +
L (F_k + o)^q`` and ``w <- w - sum Delta_k / sum h_k``, 003 Alg. 3 exactly.  With full participation this
is a gradient step on ``f_q`` of size ``1/sum_k p_k L_{q,k}(w)``, the average of the Lemma 12
estimates (deterministic; it reaches the exact optimum).

``offset = o = 1e-10`` (as the published code; ``0`` gives the seed's formula, which needs ``F_k > 0``
for ``q < 1``).  ``L`` is estimated once at ``q = 0`` and reused for every ``q`` (003 Sec. 3.3):
:func:`estimate_L`.  Numpy and torch iterates make the same client draws (from the numpy ``rng``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fairtheory._validation import FairtheoryValueError, as_vector, check_in_range, check_integer, check_positive
from fairtheory.aggregators import QFFL
from fairtheory.algorithms.base import (
    Algorithm,
    aggregator_for,
    check_draws,
    check_problem,
    check_state,
    checked_weights,
    initial_model,
    open_round,
    run,
)
from fairtheory.algorithms.names import refuses_old_names
from fairtheory.backend import is_torch, like, namespace, to_numpy
from fairtheory.errors import DivergenceError
from fairtheory.problems.base import FederatedProblem

__all__ = ["State", "make", "aggregate", "derivatives", "estimate_L"]

#: the constant the published code adds to ``F_k`` before taking powers
DEFAULT_OFFSET = 1e-10


@dataclass(frozen=True)
class State:
    """Server model ``w`` (numpy or torch), device uploads ``comms`` so far, rounds ``t``."""

    w: Any
    comms: int = 0
    t: int = 0


@refuses_old_names("qfedsgd")
def make(problem: FederatedProblem, *, q: float | None = None, L: float, K: int | None = None,
         offset: float = DEFAULT_OFFSET, aggregator: Any = None) -> Algorithm:
    r"""q-FedSGD (003 Alg. 3) on ``problem`` with bound, validated hyper-parameters.

    Names follow :mod:`fairtheory.algorithms.names`; the step is ``1/L`` (no separate ``lr``).

    Parameters
    ----------
    q : float
        q-FFL exponent ``>= 0`` (003 eq. 2's ``q``) of the default aggregator ``QFFL(p, q, offset)``;
        give ``q`` or ``aggregator``, not both.
    L : float
        Lipschitz estimate of the ``grad F_k`` (003 Sec. 3.3's ``L``: ``1/`` the best FedSGD step at
        ``q = 0``), ``> 0``.
    K : int or None
        ``None``: every device, multiplicities ``p``; else ``K >= 1`` i.i.d. draws by ``p`` per round.
    offset : float
        ``o >= 0`` added to ``F_k`` before the powers (default aggregator only; this implementation's).
    aggregator : Aggregator, optional
        Any aggregator of the client losses with weights ``p`` equal to ``problem.p`` (or none); its
        ``curvature`` is used where it has one.

    Returns
    -------
    Algorithm with ``init(w0=None) -> State`` and ``step(state, rng) -> State`` (``rng`` is needed for
    partial participation only).
    """
    problem = check_problem(problem)
    L = check_positive(L, "L")
    K = None if K is None else check_draws(K)
    agg = _aggregator(problem, q, offset, aggregator, "qfedsgd")
    p = problem.p

    def init(w0: Any = None) -> State:
        return State(w=initial_model(problem, w0))

    def step(state: State, rng: np.random.Generator | None = None) -> State:
        check_state(state, State, "qfedsgd")
        w = state.w
        clients, counts, W0 = open_round(problem, w, K, rng)
        c, comms = (p, problem.n) if counts is None else (counts.astype(np.float64), K)
        F, U = problem.loss_grad_each(W0, clients=clients)
        d, e = derivatives(agg, problem, w, F, clients)
        w_new = aggregate(w, U, c=c, d=d, e=e, L=L)
        return State(w=w_new, comms=state.comms + comms, t=state.t + 1)

    hyper = {"q": getattr(agg, "q", None), "L": L, "K": K, "offset": getattr(agg, "offset", None),
             "aggregator": agg}
    return Algorithm("qfedsgd", problem, hyper, init, step, ("L",))


def _aggregator(problem: FederatedProblem, q: Any, offset: Any, aggregator: Any, name: str) -> Any:
    """The checked aggregator of q-FedSGD/q-FedAvg: ``QFFL(p, q, offset)`` or the one given."""
    if aggregator is None:
        if q is None:
            raise FairtheoryValueError(f"{name} needs q (>= 0) for the default q-FFL aggregator, or aggregator=")
        q = check_in_range(q, "q", low=0.0)
        offset = check_in_range(offset, "offset", low=0.0)
        return QFFL(problem.p, q, offset)
    if q is not None:
        raise FairtheoryValueError(f"give q or aggregator, not both (got q={q!r} and aggregator={aggregator!r})")
    if offset != DEFAULT_OFFSET:
        raise FairtheoryValueError(
            f"offset applies to the default q-FFL aggregator only (got offset={offset!r} with aggregator=); "
            "build QFFL(p, q, offset) and pass it instead")
    return aggregator_for(problem, aggregator, algorithm=name)


def derivatives(agg: Any, problem: FederatedProblem, w: Any, F_rows: Any, clients: Any) -> tuple[Any, Any]:
    r"""Per-client derivatives ``d_k = lam_k/p_k`` and curvatures ``e_k = curv_k/p_k`` of the rows' clients.

    ``F_rows`` are the losses at ``w`` of ``clients`` (``None``: all clients in order).  For
    :class:`~fairtheory.aggregators.QFFL` they come from the rows alone: ``d = (F + o)^q`` and
    ``e = q (F + o)^{q-1}`` (0 where ``F + o = 0``; ``e = None`` at ``q = 0``).  Any other aggregator
    needs the whole loss vector (``lam = A.weights(F)``), evaluated once at ``w`` when only some clients
    were; ``e = None`` (i.e. 0) without ``A.curvature``.  Rows with ``p_k = 0`` get ``d_k = e_k = 0``.
    Non-finite losses (an overflowing, diverging run) give ``d = nan``, so the server model becomes
    non-finite and :func:`~fairtheory.algorithms.base.run` reports the divergence."""
    xp = namespace(F_rows)
    diverged = xp.full_like(F_rows, float("nan")), None
    if isinstance(agg, QFFL):
        if not bool(xp.all(xp.isfinite(F_rows))):
            return diverged
        _check_losses(agg, F_rows, clients)
        d = agg.client_grads(F_rows, None)[0]
        return d, (None if agg.q == 0.0 else agg.client_curvature(F_rows))
    F = F_rows if clients is None else problem.losses(w)
    if not bool(xp.all(xp.isfinite(F))):
        return diverged
    lam = _match(checked_weights(agg, agg.weights(F), problem.n), F_rows)
    curv_fn = getattr(agg, "curvature", None)
    curv = None
    if callable(curv_fn):
        native = not is_torch(F) or getattr(agg, "torch_native", False)
        curv = _match(checked_weights(agg, curv_fn(F) if native else curv_fn(to_numpy(F)), problem.n,
                                      "aggregator.curvature(f)"), F_rows)
    if clients is not None:
        lam = _take(lam, clients)
        curv = None if curv is None else _take(curv, clients)
    pp = like(problem.p if clients is None else problem.p[clients], F_rows)
    pos = pp > 0
    ps = xp.where(pos, pp, xp.ones_like(pp))
    zero = xp.zeros_like(pp)
    d = xp.where(pos, lam / ps, zero)
    e = None if curv is None else xp.where(pos, curv / ps, zero)
    return d, e


def _match(x: Any, ref: Any) -> Any:
    """``x`` in ``ref``'s backend (an aggregator may answer numpy for torch input)."""
    if is_torch(ref) and not is_torch(x):
        return like(np.asarray(to_numpy(x), dtype=np.float64), ref)
    return x


def _take(x: Any, idx: np.ndarray) -> Any:
    if is_torch(x):
        import torch

        return x[torch.as_tensor(idx, device=x.device)]
    return np.asarray(x)[idx]


def _check_losses(agg: QFFL, F: Any, clients: Any) -> None:
    Fn = np.asarray(to_numpy(F), dtype=np.float64)
    if np.any(Fn < 0):
        k = int(np.flatnonzero(Fn < 0)[0])
        client = k if clients is None else int(clients[k])
        raise FairtheoryValueError(
            f"q-FFL needs nonnegative client losses, got F[{client}] = {Fn[k]!r} (q = {agg.q:g})")


def aggregate(w: Any, U: Any, *, c: Any, d: Any, e: Any, L: float) -> Any:
    r"""The server update shared by q-FedSGD and q-FedAvg (003 Alg. 1 and 3, any aggregator).

    ``U`` (k, d) update directions (gradients for q-FedSGD, ``Delta w_k`` for q-FedAvg); ``c`` (k,)
    multiplicities or probabilities; ``d`` (k,) per-client derivatives ``lam_k/p_k``; ``e`` (k,)
    per-client curvatures ``curv_k/p_k`` or ``None`` (no curvature, ``e = 0``).  Returns

        w - sum_k c_k d_k U_k / sum_k c_k (e_k ||U_k||^2 + L d_k)

    (q-FFL: ``d_k = (F_k+o)^q``, ``e_k = q (F_k+o)^{q-1}``).  The denominator must be ``> 0`` (``nan``, from
    non-finite inputs of a diverging run, passes through as a non-finite model)."""
    L = check_positive(L, "L")
    xp = namespace(w)
    cw = like(np.asarray(to_numpy(c), dtype=np.float64), w)
    cd = cw * d
    delta = xp.sum(cd[:, None] * U, axis=0)
    if e is None:
        h = L * xp.sum(cd)
    else:
        h = xp.sum(cw * (e * xp.sum(U * U, axis=1) + L * d))
    hv = float(h)
    if not (hv > 0.0 or math.isnan(hv)):
        raise FairtheoryValueError(
            f"sum of h_k must be > 0, got {hv!r} (all drawn losses 0 with offset 0, or zero client weights?)")
    return w - delta / h


def estimate_L(problem: FederatedProblem, *, method: str = "smoothness", grid: Any = None,
               rounds: int = 100, w0: Any = None) -> float:
    r"""The constant ``L`` of 003 Sec. 3.3, estimated once at ``q = 0``.

    ``method="smoothness"``: ``problem.smoothness()`` (a certified Lipschitz constant of every
    ``grad F_k``, so Lemma 12 gives true upper bounds).  ``method="grid"``: the paper's recipe - run
    full-participation FedSGD (= q-FedSGD at ``q = 0`` with ``L = 1/lr``) for ``rounds`` rounds for each
    step size ``lr`` in ``grid`` (default ``problem.smoothness()^{-1} * 2^{-2..3}``) and return ``1/lr``
    of the step with the smallest final ``f_0`` (diverged runs are discarded; values equal to
    ``1e-12`` relative count as ties and go to the largest step)."""
    problem = check_problem(problem)
    if method == "smoothness":
        return check_positive(problem.smoothness(), "problem.smoothness()")
    if method != "grid":
        raise FairtheoryValueError(f"method must be 'smoothness' or 'grid', got {method!r}")
    rounds = check_integer(rounds, "rounds", low=1)
    if grid is None:
        grid = [2.0**k / problem.smoothness() for k in range(-2, 4)]
    lrs = [check_positive(v, "grid entry") for v in as_vector(np.ravel(grid) if np.ndim(grid) > 1 else grid, "grid")]
    best, best_lr = np.inf, None
    for lr in sorted(lrs, reverse=True):  # ties (runs that all converged) go to the largest step
        alg = make(problem, q=0.0, L=1.0 / lr, offset=0.0)
        with np.errstate(all="ignore"):
            try:
                s, hist = run(alg, rounds, w0=w0, record_losses=False, record_every=rounds, on_divergence="stop")
                val = np.inf if hist.diverged else float(problem.weighted_loss(s.w))
            except (FairtheoryValueError, DivergenceError):  # diverged: non-finite losses
                val = np.inf
        if np.isfinite(val) and val < best - 1e-12 * max(1.0, abs(best) if np.isfinite(best) else 1.0):
            best, best_lr = val, lr
    if best_lr is None:
        raise FairtheoryValueError(f"every step size in grid {lrs} diverged")
    return 1.0 / best_lr

