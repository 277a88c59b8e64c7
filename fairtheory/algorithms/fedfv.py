r"""FedFV training loop (004 Alg. 1): optax-style ``init``/``step`` over explicit state.

Round ``t``:

1. the server samples ``m`` distinct clients ``S_t`` with probabilities ``p`` (all ``n`` clients
   when ``m is None``) and sends them ``theta_t``;
2. each client reports its training loss ``l_k = f_k(theta_t)`` *at the server model, before local
   training* (as the authors' ``flgo`` code does) and its update ``g_k = theta_t - theta_k`` after
   ``E`` local full-batch gradient steps of size ``lr``;
3. the server records ``(g_k, t)`` in the history ``GH`` (latest update of every client and its
   round) and moves ``theta_{t+1} = theta_t - g_t`` with ``g_t`` from
   :func:`fairtheory.algorithms.fedfv_aggregate.aggregate` (internal projection in loss-ascending
   order, external projection against ``GH`` when ``t >= tau``, rescaling to the mean norm).

All clients train at once (``problem.grads_each`` on an ``(n, d)`` stack, no Python loop over
clients); numpy or torch iterates (chosen by ``w0``); the randomness (client draws, random
projection orders) comes only from the explicit ``numpy.random.Generator``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from fairtheory._validation import FairtheoryValueError, check_in_range, check_integer, check_positive
from fairtheory.algorithms.base import History
from fairtheory.algorithms.base import run_steps as _run
from fairtheory.algorithms.fedfv_aggregate import (
    KeepRule,
    Order,
    Window,
    _index,
    aggregate,
    n_unprojected,
)
from fairtheory.backend import namespace
from fairtheory.problems.base import FederatedProblem

__all__ = ["State", "init", "step", "run", "local_updates", "n_unprojected"]


@dataclass(frozen=True)
class State:
    """FedFV state after ``t`` rounds.

    Attributes
    ----------
    w : server model ``theta_t`` (d,), numpy or torch.
    t : rounds done (the next round is round ``t``).
    comms : client-server messages so far (``2 m`` per round: model down, update up).
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


def init(problem: FederatedProblem, w0: Any = None) -> State:
    """Initial state: ``theta_0 = w0`` (default ``problem.initial_point()``), empty history."""
    if not isinstance(problem, FederatedProblem):
        raise FairtheoryValueError(f"problem must be a FederatedProblem, got {type(problem).__name__}")
    w = np.asarray(problem.initial_point(), dtype=np.float64) if w0 is None else w0
    if tuple(w.shape) != (problem.d,):
        raise FairtheoryValueError(f"w0 must have shape ({problem.d},), got {tuple(w.shape)}")
    xp = namespace(w)
    hist = xp.zeros((problem.n, problem.d), dtype=w.dtype,
                    **({} if isinstance(w, np.ndarray) else {"device": w.device}))
    return State(w=w, t=0, comms=0, history=hist, history_round=np.full(problem.n, -1, dtype=np.int64),
                 last_clients=np.zeros(0, dtype=np.int64))


def local_updates(problem: FederatedProblem, w: Any, clients: np.ndarray, *, lr: float,
                  E: int = 1) -> tuple[Any, Any]:
    r"""Losses ``f_k(theta)`` at the server model and updates ``g_k = theta - theta_k`` after ``E``
    local gradient steps ``theta_k <- theta_k - lr grad f_k(theta_k)`` for ``k`` in ``clients``.

    Returns ``(U, losses)`` with ``U`` of shape ``(len(clients), d)``.  (All ``n`` clients are
    stepped as one batch and the sampled rows taken: no loop over clients.)
    """
    xp = namespace(w)
    sel_x = _index(np.asarray(clients, dtype=np.int64), w)
    losses = xp.take(problem.losses(w), sel_x, axis=0)
    W = xp.asarray(xp.broadcast_to(w[None, :], (problem.n, problem.d)), copy=True)
    for _ in range(E):
        W = W - lr * problem.grads_each(W)
    U = w[None, :] - xp.take(W, sel_x, axis=0)
    return U, losses


def step(state: State, problem: FederatedProblem, rng: np.random.Generator, *, lr: float, E: int = 1,
         m: int | None = None, alpha: float = 0.0, tau: int = 0, order: Order | Any = "ascending",
         keep_rule: KeepRule = "paper", window: Window = "paper") -> State:
    """One FedFV round (004 Alg. 1 lines 3-11); pure: returns a new state.

    Parameters
    ----------
    lr, E : local step size and number of local full-batch gradient steps.
    m : clients per round, drawn without replacement with probabilities ``p`` (``None``: all).
    alpha : fraction of largest-loss clients kept unprojected (see ``keep_rule``).
    tau : external-conflict window (0 disables Alg. 3).
    order : projection order, ``"ascending"`` (paper), ``"random"``, ``"reversed"``.
    keep_rule, window : ``"paper"`` (default) or ``"reference"`` (flgo); see
        :mod:`fairtheory.algorithms.fedfv_aggregate`.
    """
    lr = check_positive(lr, "lr")
    E = check_integer(E, "E", low=1)
    check_in_range(alpha, "alpha", low=0.0, high=1.0)
    tau = check_integer(tau, "tau", low=0)
    n = problem.n
    if m is None:
        clients = np.arange(n)
    else:
        m = check_integer(m, "m", low=1, high=int(np.count_nonzero(problem.p > 0)))
        clients = np.sort(rng.choice(n, size=m, replace=False, p=problem.p))
    U, losses = local_updates(problem, state.w, clients, lr=lr, E=E)
    # history update (Alg. 1 line 4) before the external projection
    xp = namespace(state.w)
    hist = xp.asarray(state.history, copy=True)
    hist[_index(clients, state.w), :] = U
    hround = state.history_round.copy()
    hround[clients] = state.t
    g = aggregate(U, losses, alpha=alpha, tau=tau, t=state.t, history=hist, history_round=hround,
                  order=order, keep_rule=keep_rule, window=window, rng=rng)
    return replace(state, w=state.w - g, t=state.t + 1, comms=state.comms + 2 * len(clients),
                   history=hist, history_round=hround, last_clients=clients)


def run(problem: FederatedProblem, rounds: int, rng: np.random.Generator, *, w0: Any = None,
        record_every: int = 1, **hyper: Any) -> tuple[State, History]:
    """``rounds`` FedFV rounds from ``init(problem, w0)``, recording the server model and the client
    losses (see :func:`fairtheory.algorithms.base.run`); ``hyper`` goes to :func:`step`."""
    rounds = check_integer(rounds, "rounds", low=0)
    return _run(init(problem, w0), step, rounds, problem=problem, rng=rng, record_every=record_every,
                **hyper)

