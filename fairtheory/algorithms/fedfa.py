r"""FedFa (Huang, Li, Wang, Du, Zhang 2020, "Fairness and Accuracy in Federated Learning",
arXiv:2012.10069): aggregation weights from the *information quantity* of the clients' training
accuracy and participation frequency.

For the ``m`` clients of a round, with training accuracies ``ACC_i`` (at the server model) and
participation counts ``f_i`` (rounds in which client ``i`` took part, this one included):

.. math::
    a_i = -\log_2 \frac{ACC_i}{\sum_j ACC_j}, \qquad
    b_i = -\log_2 \Big(1 - \frac{f_i}{\sum_j f_j}\Big), \qquad
    p_i = \alpha \frac{a_i}{\sum_j a_j} + \beta \frac{b_i}{\sum_j b_j}, \quad \alpha = 1 - \beta ,

so a client with a low share of the accuracy (poorly served) or a large share of the participations
gains weight; ``sum_i p_i = 1``.  This is the paper's rule (:func:`weights` with ``eps_acc = eps_freq = 0``).
FLGo 0.4.4's ``fedfa`` adds ``1e-6`` inside the first logarithm and ``1e-5`` inside the second
(``eps_acc``, ``eps_freq`` reproduce them).

Where the paper's formula is undefined the weights are its limits: a term that is ``+inf`` (a client
with accuracy ``0``; the single participant's frequency share ``1``) takes the whole mass of its
part, shared equally among the infinite entries; a part whose terms are all zero (one participant)
or all accuracies zero is uniform.

:func:`make` runs FedAvg-style rounds aggregated with these weights: the participants (all, or ``K``
i.i.d. draws by ``p``, each distinct client once) report their accuracy at the server model and train
``kappa`` local gradient steps; the server forms ``w_agg = sum_i p_i w_i`` and takes a heavy-ball step
``m <- gamma m + (1 - gamma)(w_agg - w)``, ``w+ = w + server_lr m`` (``gamma = 0``, ``server_lr = 1``:
``w+ = w_agg``).  The paper's client-side momentum is not modelled (local steps are plain gradient
steps).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from fairtheory._validation import as_vector, check_in_range, check_integer, check_positive, check_returned
from fairtheory.algorithms.base import Algorithm, check_draws, check_problem, check_state, initial_model, local_steps, open_round
from fairtheory.algorithms.names import refuses_old_names
from fairtheory.backend import like, namespace
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.problems.base import FederatedProblem

__all__ = ["State", "make", "weights"]


def _share(info: np.ndarray) -> np.ndarray:
    """``info / sum(info)`` with the limits for ``+inf`` entries (equal shares) and an all-zero vector (uniform)."""
    inf = np.isposinf(info)
    if inf.any():
        return inf / inf.sum()
    total = float(np.sum(info))
    if total == 0.0:
        return np.full(info.size, 1.0 / info.size)
    return info / total


def weights(acc: Any, freq: Any, *, beta: float = 0.5, eps_acc: float = 0.0, eps_freq: float = 0.0) -> np.ndarray:
    r"""FedFa's aggregation weights ``p_i = (1 - beta) a_i / sum a + beta b_i / sum b`` (see the module).

    Parameters
    ----------
    acc : array (m,)
        Training accuracies ``ACC_i >= 0`` of the round's participants.
    freq : array (m,)
        Participation counts ``f_i >= 0`` (this round included), not all zero.
    beta : float
        Weight of the frequency part, in ``[0, 1]`` (FLGo's default ``0.5``).
    eps_acc, eps_freq : float
        Constants ``>= 0`` added inside the logarithms (paper: ``0``; FLGo: ``1e-6`` and ``1e-5``).
    """
    a = as_vector(acc, "acc")
    f = as_vector(freq, "freq")
    if a.shape != f.shape:
        raise FairtheoryValueError(f"acc and freq must have the same length, got {a.size} and {f.size}")
    if np.any(a < 0) or np.any(f < 0):
        raise FairtheoryValueError("acc and freq must be >= 0")
    if not np.sum(f) > 0:
        raise FairtheoryValueError("freq must not be all zero (a participant has taken part at least once)")
    beta = check_in_range(beta, "beta", low=0.0, high=1.0)
    eps_acc = check_in_range(eps_acc, "eps_acc", low=0.0)
    eps_freq = check_in_range(eps_freq, "eps_freq", low=0.0)
    with np.errstate(divide="ignore"):
        s_acc = float(np.sum(a))
        if s_acc == 0.0 and eps_acc == 0.0:
            a_part = np.full(a.size, 1.0 / a.size)  # all accuracies zero: symmetric
        else:
            ratio = a / s_acc if s_acc > 0 else np.zeros_like(a)
            a_part = _share(-np.log2(ratio + eps_acc))
        b_part = _share(-np.log2(1.0 - f / float(np.sum(f)) + eps_freq))
    return (1.0 - beta) * a_part + beta * b_part


@dataclass(frozen=True)
class State:
    """Server model ``w``, server momentum ``m``, participation counts ``freq`` (numpy, ``(n,)``),
    rounds ``comms``, local steps ``steps``, the last round's weights ``p`` over its participants."""

    w: Any
    m: Any
    freq: np.ndarray
    comms: int = 0
    steps: int = 0
    p: Any = None


@refuses_old_names("fedfa")
def make(problem: FederatedProblem, *, lr: float, kappa: int = 1, K: int | None = None, beta: float = 0.5,
         gamma: float = 0.0, server_lr: float = 1.0, eps_acc: float = 0.0, eps_freq: float = 0.0,
         accuracy: Callable[[Any], Any] | None = None) -> Algorithm:
    r"""FedFa rounds on ``problem`` with bound, validated hyper-parameters.

    Names follow :mod:`fairtheory.algorithms.names`.

    Parameters
    ----------
    lr : float
        Local step size ``> 0`` (no symbol in the paper).
    kappa : int
        Local gradient steps per round (``>= 1``; 002's ``kappa``).
    K : int or None
        ``None``: every client takes part; else ``K >= 1`` i.i.d. draws by ``p`` (distinct clients; the
        paper's ``m``).
    beta : float
        Frequency weight of :func:`weights`, in ``[0, 1]`` (the paper's ``beta``; ``alpha = 1 - beta``).
    gamma : float
        Server momentum in ``[0, 1)`` (this implementation's; the paper's momentum is client-side).
    server_lr : float
        Server step ``> 0`` on the momentum (no symbol in the paper).
    eps_acc, eps_freq : float
        See :func:`weights` (paper: ``0``; FLGo's guards).
    accuracy : callable, optional
        The paper's ``ACC_i``: ``accuracy(w) -> (n,)`` training accuracies in ``[0, 1]`` at ``w``; default
        ``problem.accuracies`` (logistic and multinomial problems have it).  What it returns is checked at
        every round: the wrong shape, nan/inf or a value outside ``[0, 1]`` raises a
        :class:`~fairtheory.errors.FairtheoryValueError` naming ``accuracy(w)``.

    Returns
    -------
    Algorithm with ``init(w0=None) -> State`` and ``step(state, rng) -> State``.
    """
    problem = check_problem(problem)
    lr = check_positive(lr, "lr")
    kappa = check_integer(kappa, "kappa", low=1)
    K = None if K is None else check_draws(K)
    beta = check_in_range(beta, "beta", low=0.0, high=1.0)
    gamma = check_in_range(gamma, "gamma", low=0.0, high=1.0, high_inclusive=False)
    server_lr = check_positive(server_lr, "server_lr")
    eps_acc = check_in_range(eps_acc, "eps_acc", low=0.0)
    eps_freq = check_in_range(eps_freq, "eps_freq", low=0.0)
    acc_fn = accuracy if accuracy is not None else getattr(problem, "accuracies", None)
    if not callable(acc_fn):
        raise FairtheoryTypeError(f"accuracy must be a callable w -> (n,) accuracies ({type(problem).__name__} has no "
                                  "accuracies method)")

    def init(w0: Any = None) -> State:
        w = initial_model(problem, w0)
        return State(w=w, m=namespace(w).zeros_like(w), freq=np.zeros(problem.n, dtype=np.int64))

    def step(state: State, rng: np.random.Generator | None = None) -> State:
        check_state(state, State, "fedfa")
        w = state.w
        clients, _, W0 = open_round(problem, w, K, rng)
        idx = np.arange(problem.n) if clients is None else clients
        acc = check_returned(acc_fn(w), "accuracy(w)", shape=(problem.n,), low=0.0, high=1.0,
                             meaning="one training accuracy per client")[idx]
        freq = state.freq.copy()
        freq[idx] += 1
        p = weights(acc, freq[idx], beta=beta, eps_acc=eps_acc, eps_freq=eps_freq)
        loc = local_steps(problem, W0, lr=lr, kappa=kappa, clients=clients)
        w_agg = like(p, w) @ loc.W
        m = gamma * state.m + (1.0 - gamma) * (w_agg - w)
        return State(w=w + server_lr * m, m=m, freq=freq, comms=state.comms + 1, steps=state.steps + kappa, p=p)

    hyper = {"lr": lr, "kappa": kappa, "K": K, "beta": beta, "gamma": gamma, "server_lr": server_lr,
             "eps_acc": eps_acc, "eps_freq": eps_freq}
    return Algorithm("fedfa", problem, hyper, init, step, ("lr", "server_lr"))
