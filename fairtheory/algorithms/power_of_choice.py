r"""Power-of-choice client selection (Cho, Wang, Joshi 2020; AISTATS 2022, Alg. 1 "pow-d").

One round at the server model ``w`` (``n`` clients with data fractions ``p``):

1. **candidates**: the server draws a set ``A`` of ``d`` distinct clients *without replacement*, client
   ``k`` with probability ``p_k`` at each draw among those not yet drawn (successive sampling, as
   ``numpy.random.Generator.choice(n, d, replace=False, p=p)`` does);
2. **losses**: each candidate evaluates its local loss ``F_k(w)`` at the server model;
3. **selection**: the server keeps the ``m`` candidates with the **highest** ``F_k(w)`` (the paper
   breaks ties arbitrarily; :func:`select` breaks them by the smaller client index, and
   :func:`is_valid_selection` accepts any tie order);
4. the ``m`` selected clients run ``kappa`` local gradient steps from ``w`` and the server averages
   their models with equal weights, ``w+ = (1/m) sum_{k in S} w_k`` (Alg. 1, last line).

Given the candidate draw, steps 3-4 are deterministic.  ``d = n`` with ``p`` uniform selects the
``m`` clients of largest loss (the "biased" end of the paper's trade-off); ``d = m`` is random
selection without replacement by ``p``.  :func:`make` names the paper's ``m`` ``K`` and its ``d``
``candidates`` (:mod:`fairtheory.algorithms.names`).  Written against the array API (numpy or torch, chosen by
``w0``); only the candidates are evaluated and only the selected clients train.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fairtheory._validation import check_integer, check_positive, check_rng
from fairtheory.algorithms.base import Algorithm, check_problem, check_state, initial_model, local_steps
from fairtheory.algorithms.names import refuses_old_names
from fairtheory.backend import namespace, to_numpy
from fairtheory.errors import FairtheoryValueError
from fairtheory.problems.base import FederatedProblem

__all__ = ["State", "make", "candidates", "select", "is_valid_selection"]


@dataclass(frozen=True)
class State:
    """Server model ``w``, rounds ``comms``, local steps ``steps``, last selection ``selected``."""

    w: Any
    comms: int = 0
    steps: int = 0
    selected: tuple[int, ...] = ()


def candidates(rng: np.random.Generator, p: Any, d: int) -> np.ndarray:
    """Candidate set of pow-d step 1: ``d`` distinct clients drawn without replacement by ``p``, sorted.

    Clients with ``p_k = 0`` are never drawn, so ``d`` may not exceed the number of clients with
    ``p_k > 0``."""
    rng = check_rng(rng)
    prob = np.asarray(p, dtype=np.float64)
    d = check_integer(d, "d", low=1, high=int(np.count_nonzero(prob > 0)))
    return np.sort(rng.choice(prob.size, size=d, replace=False, p=prob / prob.sum()))


_draw_candidates = candidates  # make's hyper-parameter ``candidates`` (the set size) shadows the name


def select(cands: Any, losses: Any, m: int) -> np.ndarray:
    """Pow-d step 3: the ``min(m, |A|)`` candidates of highest loss, ties by the smaller client index.

    ``cands`` are client indices, ``losses[j]`` the loss of ``cands[j]``; the result is sorted by
    decreasing loss (then increasing index)."""
    c = np.asarray(cands, dtype=np.int64).ravel()
    f = np.asarray(to_numpy(losses), dtype=np.float64).ravel()
    if c.shape != f.shape or c.size == 0:
        raise FairtheoryValueError(f"cands and losses must be non-empty and of equal length, got {c.size} and {f.size}")
    if np.any(np.isnan(f)):
        raise FairtheoryValueError("losses must not contain nan (the order of the candidates is undefined)")
    m = check_integer(m, "m", low=1)
    order = np.lexsort((c, -f))  # primary key: loss decreasing; ties: index increasing
    return c[order[:min(m, c.size)]]


def is_valid_selection(selected: Any, cands: Any, losses: Any, m: int) -> bool:
    """Whether ``selected`` is *a* pow-d selection: ``min(m, |A|)`` distinct candidates, and no unselected
    candidate has a strictly larger loss than a selected one (any tie order is allowed)."""
    s = [int(v) for v in np.asarray(selected).ravel()]
    c = [int(v) for v in np.asarray(cands).ravel()]
    f = dict(zip(c, (float(v) for v in np.asarray(losses, dtype=np.float64).ravel()), strict=True))
    if len(set(s)) != len(s) or len(s) != min(m, len(c)) or not set(s) <= set(c):
        return False
    rest = [f[k] for k in c if k not in s]
    return not rest or min(f[k] for k in s) >= max(rest)


@refuses_old_names("power_of_choice")
def make(problem: FederatedProblem, *, lr: float, K: int, candidates: int, kappa: int = 1) -> Algorithm:
    r"""FedAvg with power-of-choice selection (Cho, Wang, Joshi, Alg. 1) on ``problem``.

    Names follow :mod:`fairtheory.algorithms.names`: the paper's ``m`` is ``K`` (clients per round, as
    in every algorithm) and its ``d`` is ``candidates`` (``d`` is the model dimension elsewhere);
    the old names ``m`` and ``d`` are refused by name (a ``FairtheoryTypeError`` naming the new one).

    Parameters
    ----------
    lr : float
        Local step size ``> 0`` (the paper's ``eta``).
    K : int
        Clients selected per round, ``1 <= K <= candidates`` (the paper's ``m``).
    candidates : int
        Candidate-set size, ``K <= candidates <= n`` (at most the number of clients with ``p_k > 0``;
        the paper's ``d``).
    kappa : int
        Local full-batch gradient steps per round (``>= 1``; the paper's ``tau``).

    Returns
    -------
    Algorithm with ``init(w0=None) -> State`` and ``step(state, rng) -> State`` (``rng``, a numpy
    ``Generator``, draws the candidates).  ``State.selected`` records the round's selected clients.
    """
    problem = check_problem(problem)
    lr = check_positive(lr, "lr")
    kappa = check_integer(kappa, "kappa", low=1)
    support = int(np.count_nonzero(problem.p > 0))
    size = check_integer(candidates, "candidates", low=1, high=support)
    K = check_integer(K, "K", low=1, high=size)
    p = problem.p

    def init(w0: Any = None) -> State:
        return State(w=initial_model(problem, w0))

    def step(state: State, rng: np.random.Generator | None = None) -> State:
        check_state(state, State, "power_of_choice")
        w = state.w
        xp = namespace(w)
        A = _draw_candidates(check_rng(rng), p, size)
        f = problem.losses_each(xp.broadcast_to(w[None, :], (A.size, problem.d)), clients=A)
        S = np.sort(select(A, f, K))
        W0 = xp.broadcast_to(w[None, :], (S.size, problem.d))
        loc = local_steps(problem, W0, lr=lr, kappa=kappa, clients=S)
        w_new = xp.mean(loc.W, axis=0)
        return State(w=w_new, comms=state.comms + 1, steps=state.steps + kappa, selected=tuple(int(k) for k in S))

    return Algorithm("power_of_choice", problem, {"lr": lr, "K": K, "candidates": size, "kappa": kappa}, init, step, ("lr",))
