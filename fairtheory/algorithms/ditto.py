r"""Ditto (Li, Hu, Beirami, Smith 2021, "Ditto: Fair and Robust Federated Learning Through
Personalization", Alg. 1): a global FedAvg model plus one personalised model per client.

Client ``k``'s personalised objective (Ditto eq. (2)) at the global model ``w``:

.. math:: \min_{v}\ h_k(v; w) = F_k(v) + \frac{\lambda}{2} \|v - w\|^2 .

One round at the global model ``w`` (Alg. 1 with FedAvg as the global solver):

* the participating clients (all, or ``K`` i.i.d. draws by ``p`` with replacement) run ``kappa``
  local gradient steps of size ``lr`` on ``F_k`` from ``w`` (the global solver's local update);
* each of them also runs ``s`` steps on its personalised objective from its current ``v_k``,
  ``v_k <- v_k - lr_personal (grad F_k(v_k) + lam (v_k - w))`` (:func:`personal_steps`; ``w`` is the
  round's global model, held fixed);
* the server aggregates the global updates as FedAvg does: ``w+ = w + sum_k p_k (w_k - w)`` under full
  participation, ``w+ = w + (1/K) sum_{draws} (w_k - w)`` under partial participation (a client drawn
  twice counts twice in the average; its personal model is updated once).

``lam = 0`` decouples the personal models (local training only); ``lam -> infinity`` pins them to ``w``.
For quadratic clients ``F_k(v) = 0.5 (v - c_k)^T H_k (v - c_k) + e_k`` the personalised optimum has the
closed form ``v_k* = (H_k + lam I)^{-1} (H_k c_k + lam w)`` (:func:`personal_optimum`; certified in
exact rational arithmetic by :func:`personal_optimum_exact`), and the personal iteration converges to
it linearly with rate ``max_k |1 - lr_personal (lam + eig(H_k))|``.  Written against the array API
(numpy or torch, chosen by ``w0``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
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
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.problems.base import FederatedProblem, as_float_array

__all__ = ["State", "make", "personal_steps", "personal_objective", "personal_optimum", "personal_optimum_exact"]


@dataclass(frozen=True)
class State:
    """Global model ``w``, personalised models ``V`` (shape ``(n, d)``), rounds ``comms``, local steps ``steps``."""

    w: Any
    V: Any
    comms: int = 0
    steps: int = 0


def personal_steps(problem: FederatedProblem, V: Any, w: Any, *, lr: float, lam: float, steps: int,
                   clients: Any = None) -> Any:
    r"""``steps`` gradient steps on the personalised objectives ``h_k(v; w) = F_k(v) + lam/2 ||v - w||^2``.

    ``V`` holds one row per client in ``clients`` (``None``: all ``n``), ``w`` the fixed global model;
    ``v <- v - lr (grad F_k(v) + lam (v - w))`` for every row at once."""
    for _ in range(steps):
        V = V - lr * (problem.grads_each(V, clients=clients) + lam * (V - w[None, :]))
    return V


def personal_objective(problem: FederatedProblem, V: Any, w: Any, lam: float) -> np.ndarray:
    """``h_k(v_k; w) = F_k(v_k) + lam/2 ||v_k - w||^2`` for every client (numpy)."""
    V_ = np.asarray(to_numpy(V), dtype=np.float64)
    w_ = np.asarray(to_numpy(w), dtype=np.float64)
    return np.asarray(to_numpy(problem.losses_each(V_)), dtype=np.float64) + 0.5 * lam * np.sum((V_ - w_) ** 2, axis=1)


def _quadratic(problem: Any) -> Any:
    from fairtheory.problems.quadratic import QuadraticProblem

    if not isinstance(problem, QuadraticProblem):
        raise FairtheoryTypeError(f"the closed-form personalised optimum needs a QuadraticProblem, got "
                                  f"{type(problem).__name__}")
    return problem


def personal_optimum(problem: FederatedProblem, w: Any, lam: float) -> np.ndarray:
    r"""``v_k* = argmin_v F_k(v) + lam/2 ||v - w||^2 = (H_k + lam I)^{-1} (H_k c_k + lam w)`` for every
    client of a :class:`~fairtheory.problems.quadratic.QuadraticProblem` (float64, shape ``(n, d)``).

    Requires ``H_k + lam I`` positive definite (``lam > 0``, or ``lam = 0`` with ``H_k`` definite)."""
    P = _quadratic(problem)
    lam = check_in_range(lam, "lam", low=0.0)
    w_ = np.asarray(to_numpy(as_float_array(w, "w", (P.d,))), dtype=np.float64)
    A = P.H + lam * np.eye(P.d)[None, :, :]
    if np.min(np.linalg.eigvalsh(A)) <= 0:
        raise FairtheoryValueError("lam must make every H_k + lam I positive definite (lam > 0 for singular H_k)")
    b = np.einsum("nij,nj->ni", P.H, P.c) + lam * w_[None, :]
    return np.linalg.solve(A, b[..., None])[..., 0]


def _solve_fraction(A: list[list[Fraction]], b: list[Fraction]) -> list[Fraction]:
    """Gaussian elimination with exact rationals (``A`` non-singular)."""
    n = len(b)
    M = [row[:] + [b[i]] for i, row in enumerate(A)]
    for col in range(n):
        piv = next((r for r in range(col, n) if M[r][col] != 0), None)
        if piv is None:
            raise FairtheoryValueError("H_k + lam I is singular")
        M[col], M[piv] = M[piv], M[col]
        for r in range(n):
            if r != col and M[r][col] != 0:
                f = M[r][col] / M[col][col]
                M[r] = [a - f * c for a, c in zip(M[r], M[col], strict=True)]
    return [M[i][n] / M[i][i] for i in range(n)]


def personal_optimum_exact(problem: FederatedProblem, w: Any, lam: float | Fraction) -> list[list[Fraction]]:
    r"""The personalised optima of :func:`personal_optimum` in exact rational arithmetic.

    The float64 data ``H_k``, ``c_k``, ``w`` and ``lam`` are read exactly (every float is a rational),
    ``(H_k + lam I) v = H_k c_k + lam w`` is solved by exact Gaussian elimination, and the stationarity
    ``grad h_k(v) = H_k (v - c_k) + lam (v - w) = 0`` of the result is re-checked exactly (an
    ``AssertionError`` would mean a bug).  For small ``d`` (cost ``O(n d^3)`` rational operations)."""
    P = _quadratic(problem)
    lam_q = Fraction(lam) if isinstance(lam, Fraction) else Fraction(check_in_range(lam, "lam", low=0.0))
    w_ = [Fraction(float(v)) for v in np.asarray(to_numpy(as_float_array(w, "w", (P.d,))), dtype=np.float64)]
    out = []
    for k in range(P.n):
        H = [[Fraction(float(v)) for v in row] for row in P.H[k]]
        c = [Fraction(float(v)) for v in P.c[k]]
        A = [[H[i][j] + (lam_q if i == j else 0) for j in range(P.d)] for i in range(P.d)]
        b = [sum((H[i][j] * c[j] for j in range(P.d)), Fraction(0)) + lam_q * w_[i] for i in range(P.d)]
        v = _solve_fraction(A, b)
        grad = [sum((H[i][j] * (v[j] - c[j]) for j in range(P.d)), Fraction(0)) + lam_q * (v[i] - w_[i])
                for i in range(P.d)]
        assert all(g == 0 for g in grad), "exact personalised optimum is not stationary"
        out.append(v)
    return out


@refuses_old_names("ditto")
def make(problem: FederatedProblem, *, lr: float, lam: float, kappa: int = 1, s: int | None = None,
         lr_personal: float | None = None, K: int | None = None) -> Algorithm:
    r"""Ditto (Li et al. 2021, Alg. 1) with FedAvg as the global solver, on ``problem``.

    Names follow :mod:`fairtheory.algorithms.names`.

    Parameters
    ----------
    lr : float
        Local step size of the global solver ``> 0`` (Ditto's ``eta`` of the global solver).
    lam : float
        Personalisation strength ``lambda >= 0`` of ``h_k(v; w) = F_k(v) + lambda/2 ||v - w||^2``
        (Ditto eq. 2's ``lambda``).
    kappa : int
        Local gradient steps of the global solver per round (``>= 1``; 002's ``kappa``).
    s : int, optional
        Personal gradient steps per round (``>= 1``; default ``kappa``; Ditto Alg. 1's ``s``).
    lr_personal : float, optional
        Step size of the personal steps ``> 0`` (default ``lr``; Ditto Alg. 1's ``eta``).
    K : int or None
        ``None``: full participation; else ``K >= 1`` i.i.d. draws by ``p`` per round.

    Returns
    -------
    Algorithm with ``init(w0=None, V0=None) -> State`` (``V0`` of shape ``(n, d)``; default every
    personal model starts at ``w0``) and ``step(state, rng) -> State`` (``rng`` for partial
    participation only).
    """
    problem = check_problem(problem)
    lr = check_positive(lr, "lr")
    lam = check_in_range(lam, "lam", low=0.0)
    kappa = check_integer(kappa, "kappa", low=1)
    s = kappa if s is None else check_integer(s, "s", low=1)
    lr_p = lr if lr_personal is None else check_positive(lr_personal, "lr_personal")
    K = None if K is None else check_draws(K)
    p = problem.p
    n, d = problem.n, problem.d

    def init(w0: Any = None, V0: Any = None) -> State:
        w = initial_model(problem, w0)
        xp = namespace(w)
        if V0 is None:
            V = xp.asarray(xp.broadcast_to(w[None, :], (n, d)), copy=True)
        else:
            V = as_float_array(V0, "V0", (n, d))
            V = xp.asarray(like(np.asarray(to_numpy(V), dtype=np.float64), w), copy=True)
        return State(w=w, V=V)

    def step(state: State, rng: np.random.Generator | None = None) -> State:
        check_state(state, State, "ditto")
        w, V = state.w, state.V
        xp = namespace(w)
        clients, counts, W0 = open_round(problem, w, K, rng)
        loc = local_steps(problem, W0, lr=lr, kappa=kappa, clients=clients)
        if clients is None:
            coef = p
            V_new = personal_steps(problem, V, w, lr=lr_p, lam=lam, steps=s)
        else:
            coef = counts / K  # type: ignore[operator]
            rows = personal_steps(problem, V[clients], w, lr=lr_p, lam=lam, steps=s, clients=clients)
            V_new = xp.asarray(V, copy=True)
            V_new[clients] = rows
        w_new = w + like(np.asarray(coef, dtype=np.float64), w) @ (loc.W - w)
        return State(w=w_new, V=V_new, comms=state.comms + 1, steps=state.steps + kappa)

    hyper = {"lr": lr, "lam": lam, "kappa": kappa, "s": s, "lr_personal": lr_p, "K": K}
    return Algorithm("ditto", problem, hyper, init, step, ("lr", "lr_personal"))
