r"""FedFV training loop (004 Alg. 1): ``make(problem, **hyper) -> Algorithm`` over a frozen state.

Round ``t`` from the server model ``theta_t``:

1. the server samples ``K`` distinct clients ``S_t`` with probabilities ``p`` (all ``n`` clients
   when ``K is None``) and sends them ``theta_t``;
2. each client reports its training loss ``l_k = f_k(theta_t)`` *at the server model, before local
   training* (as the authors' ``flgo`` code does) and its update ``g_k = theta_t - theta_k`` after
   ``kappa`` local full-batch gradient steps of size ``lr``;
3. the server records ``(g_k, t)`` in the history ``GH`` (latest update of every client and its
   round) and moves ``theta_{t+1} = theta_t - g_t`` with ``g_t`` from
   :func:`fairtheory.algorithms.fedfv_aggregate.aggregate` (internal projection in loss-ascending
   order, external projection against ``GH`` when ``t >= tau``, rescaling to the mean norm).

The paper's names: ``m`` (clients per round) is ``K`` here and ``E`` (local epochs; full-batch
gradient steps here) is ``kappa``, as in the other algorithms of the package; ``alpha`` (fraction of
largest-loss clients whose updates are not projected) and ``tau`` (the external-conflict history
window, in rounds - not a number of local steps) keep 004's names.

FedFV's server step is not a weighting of the client losses: it projects the updates on one Gram
matrix (:mod:`fairtheory.algorithms.fedfv_aggregate`), so it takes no aggregator.  The local steps
of all sampled clients run at once (:func:`fairtheory.algorithms.base.local_steps`, no Python loop
over clients); numpy or torch iterates (chosen by ``w0``); the randomness (client draws, random
projection orders) comes only from the explicit ``numpy.random.Generator``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fairtheory._validation import FairtheoryValueError, check_in_range, check_integer, check_positive
from fairtheory.algorithms.base import (
    Algorithm,
    check_problem,
    check_rng,
    check_state,
    initial_model,
    local_steps,
)
from fairtheory.algorithms.fedfv_aggregate import (
    KeepRule,
    Order,
    Window,
    _index,
    aggregate,
    n_unprojected,
)
from fairtheory.algorithms.names import refuses_old_names
from fairtheory.backend import namespace, to_numpy
from fairtheory.problems.base import FederatedProblem

__all__ = ["State", "make", "n_unprojected"]


@dataclass(frozen=True)
class State:
    """FedFV state after ``t`` rounds.

    Attributes
    ----------
    w : server model ``theta_t`` (d,), numpy or torch.
    t : rounds done (the next round is round ``t``).
    comms : client-server messages so far (``2 K`` per round: model down, update up).
    history : (n, d) latest update of every client (zeros where never sampled) - ``GH``.
    history_round : (n,) int, the round each history entry came from (``-1``: never sampled).
    last_clients : indices of the clients sampled in the last round.
    """

    w: Any
    t: int
    comms: int
    history: Any
    history_round: np.ndarray
    last_clients: np.ndarray


def _check_order(order: Any, size: int | None) -> Any:
    if isinstance(order, str):
        if order not in ("ascending", "random", "reversed"):
            raise FairtheoryValueError(
                f"order must be 'ascending', 'random', 'reversed' or a permutation, got {order!r}")
        return order
    perm = np.asarray(to_numpy(order))
    if size is None or perm.shape != (size,) or not np.array_equal(np.sort(perm), np.arange(size)):
        raise FairtheoryValueError(
            f"order must be 'ascending', 'random', 'reversed' or (with full participation) a permutation "
            f"of range(n), got {order!r}")
    return perm.astype(np.int64)


@refuses_old_names("fedfv")
def make(problem: FederatedProblem, *, lr: float, kappa: int = 1, K: int | None = None, alpha: float = 0.0,
         tau: int = 0, order: Order | Any = "ascending", keep_rule: KeepRule = "paper",
         window: Window = "paper") -> Algorithm:
    r"""FedFV (004 Alg. 1-3) on ``problem`` with bound, validated hyper-parameters.

    Names follow :mod:`fairtheory.algorithms.names`.

    Parameters
    ----------
    lr : float
        Local step size ``> 0`` (of 004 Alg. 1's local training; no symbol there).
    kappa : int
        Local full-batch gradient steps per round (``>= 1``; 004's ``E``).
    K : int or None
        Clients per round (004's ``m``), drawn without replacement with probabilities ``p``
        (``1 <= K <=`` the number of clients with ``p_i > 0``); ``None``: all ``n`` clients.
    alpha : float
        Fraction ``alpha`` of the largest-loss clients whose updates are not projected (004 Sec. 3.2), in
        ``[0, 1]``; ``alpha = 1`` is FedAvg, ``alpha = 0`` projects every client.
    tau : int
        External-conflict window ``tau`` in rounds (004 Alg. 3), ``>= 0``; ``0`` disables Alg. 3.
    order : ``"ascending"`` (004 Alg. 1, loss ascending), ``"random"``, ``"reversed"`` (004 Table 4),
        or - with full participation - a permutation of ``range(n)``.
    keep_rule, window : ``"paper"`` (default) or ``"reference"`` (the authors' ``flgo`` code; no symbols); see
        :mod:`fairtheory.algorithms.fedfv_aggregate`.

    Returns
    -------
    Algorithm with ``init(w0=None) -> State`` and ``step(state, rng) -> State``; ``rng`` (a numpy
    ``Generator``) is needed for partial participation and ``order="random"`` only.
    """
    problem = check_problem(problem)
    lr = check_positive(lr, "lr")
    kappa = check_integer(kappa, "kappa", low=1)
    if K is not None:
        K = check_integer(K, "K", low=1, high=int(np.count_nonzero(problem.p > 0)))
    alpha = check_in_range(alpha, "alpha", low=0.0, high=1.0)
    tau = check_integer(tau, "tau", low=0)
    order = _check_order(order, problem.n if K is None else None)
    if keep_rule not in ("paper", "reference"):
        raise FairtheoryValueError(f"keep_rule must be 'paper' or 'reference', got {keep_rule!r}")
    if window not in ("paper", "reference"):
        raise FairtheoryValueError(f"window must be 'paper' or 'reference', got {window!r}")
    needs_rng = K is not None or (isinstance(order, str) and order == "random")
    n, d, p = problem.n, problem.d, problem.p

    def init(w0: Any = None) -> State:
        """``theta_0 = w0`` (default ``problem.initial_point()``), empty history."""
        w = initial_model(problem, w0)
        xp = namespace(w)
        hist = xp.zeros((n, d), dtype=w.dtype, **({} if isinstance(w, np.ndarray) else {"device": w.device}))
        return State(w=w, t=0, comms=0, history=hist, history_round=np.full(n, -1, dtype=np.int64),
                     last_clients=np.zeros(0, dtype=np.int64))

    def step(state: State, rng: np.random.Generator | None = None) -> State:
        """One FedFV round (004 Alg. 1 lines 3-11); pure: returns a new state."""
        check_state(state, State, "fedfv")
        if needs_rng:
            rng = check_rng(rng)
        w = state.w
        xp = namespace(w)
        if K is None:
            clients = np.arange(n)
        else:
            # K *distinct* clients (004 Alg. 1 samples a set S_t; the projections act on distinct
            # updates), so base.draw_participants (i.i.d. draws with replacement) does not apply.
            clients = np.sort(rng.choice(n, size=K, replace=False, p=p))  # type: ignore[union-attr]
        W0 = xp.broadcast_to(w[None, :], (clients.size, d))
        loc = local_steps(problem, W0, lr=lr, kappa=kappa, clients=None if K is None else clients,
                          want_losses=True)
        U = w[None, :] - loc.W
        # history update (Alg. 1 line 4) before the external projection
        hist = xp.asarray(state.history, copy=True)
        hist[_index(clients, w), :] = U
        hround = state.history_round.copy()
        hround[clients] = state.t
        g = aggregate(U, loc.losses0, alpha=alpha, tau=tau, t=state.t, history=hist, history_round=hround,
                      order=order, keep_rule=keep_rule, window=window, rng=rng)
        return State(w=w - g, t=state.t + 1, comms=state.comms + 2 * int(clients.size), history=hist,
                     history_round=hround, last_clients=clients)

    hyper = {"lr": lr, "kappa": kappa, "K": K, "alpha": alpha, "tau": tau, "order": order,
             "keep_rule": keep_rule, "window": window}
    return Algorithm("fedfv", problem, hyper, init, step, ("lr",))
