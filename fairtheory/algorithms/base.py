"""Shared pieces of the algorithm modules (optax-style ``init``/``step`` plus a recording ``run``).

Every algorithm module exposes ``init(problem, ..., ) -> State`` and ``step(state, problem, rng, ...)
-> State`` as pure functions over a small frozen dataclass ``State`` (which must carry the server
model as field ``w`` and a communication counter ``comms``), and uses :func:`run` to iterate and
record a :class:`History`.  Randomness comes only from the explicit ``numpy.random.Generator``
argument, so numpy and torch runs with the same generator make the same client draws.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fairtheory._validation import FairtheoryTypeError, FairtheoryValueError
from fairtheory.backend import like, namespace, to_numpy
from fairtheory.problems.base import FederatedProblem
from fairtheory.sets import CappedSimplex

__all__ = ["History", "run", "sample_clients", "initial_model", "initial_weights", "project_to",
           "check_problem", "check_set", "check_rng", "gaussian", "primal_dual_start"]


@dataclass
class History:
    """Recorded trajectory: server iterates, client losses at them, communication counts."""

    iterates: list[np.ndarray] = field(default_factory=list)
    losses: list[np.ndarray] = field(default_factory=list)
    comms: list[int] = field(default_factory=list)

    def as_arrays(self) -> dict[str, np.ndarray]:
        return {"iterates": np.array(self.iterates), "losses": np.array(self.losses),
                "comms": np.array(self.comms)}


def run(
    state: Any,
    step: Callable[..., Any],
    rounds: int,
    *,
    problem: Any,
    rng: np.random.Generator,
    record_every: int = 1,
    record_losses: bool = True,
    callback: Callable[[int, Any], None] | None = None,
    **step_kwargs: Any,
) -> tuple[Any, History]:
    """Apply ``step`` ``rounds`` times, recording the server model every ``record_every`` steps.

    ``callback(k, state)`` (e.g. a progress bar) is called after every step."""
    from fairtheory._validation import check_integer

    rounds = check_integer(rounds, "rounds", low=0)
    record_every = check_integer(record_every, "record_every", low=1)
    hist = History()

    def record(s: Any) -> None:
        hist.iterates.append(to_numpy(s.w).astype(np.float64, copy=True))
        if record_losses:
            hist.losses.append(to_numpy(problem.losses(s.w)).astype(np.float64, copy=True))
        hist.comms.append(int(s.comms))

    record(state)
    for k in range(1, rounds + 1):
        state = step(state, problem, rng, **step_kwargs)
        if k % record_every == 0 or k == rounds:
            record(state)
        if callback is not None:
            callback(k, state)
    return state, hist


def sample_clients(rng: np.random.Generator, p: np.ndarray, K: int) -> np.ndarray:
    """``K`` client indices drawn i.i.d. with replacement with probabilities ``p``."""
    from fairtheory._validation import check_integer

    K = check_integer(K, "K", low=1)
    return rng.choice(p.shape[0], size=K, replace=True, p=p)


# ------------------------------------------------------------------ shared helpers of the algorithm modules
def project_to(S: CappedSimplex, v: Any) -> Any:
    """``Proj_S(v)`` for a numpy or torch vector ``v`` (via :meth:`CappedSimplex.project`)."""
    return like(S.project(to_numpy(v).astype(np.float64)), v)


def check_problem(problem: Any) -> FederatedProblem:
    if not isinstance(problem, FederatedProblem):
        raise FairtheoryTypeError(f"problem must be a FederatedProblem, got {type(problem).__name__}")
    return problem


def check_set(S: Any, n: int, name: str = "Lambda") -> CappedSimplex:
    if S is None:
        return CappedSimplex.simplex(n)
    if not isinstance(S, CappedSimplex):
        raise FairtheoryTypeError(f"{name} must be a CappedSimplex (or None for the simplex), got {type(S).__name__}")
    if S.n != n:
        raise FairtheoryValueError(f"{name} must have n = {n} (one weight per client), got n = {S.n}")
    return S


def initial_model(problem: FederatedProblem, w0: Any) -> Any:
    """A copy of ``w0`` (numpy or torch; its floating dtype is kept - float64 unless the caller chose
    float32 for a scale run - and integer input becomes float64), or the problem's default start."""
    if w0 is None:
        return np.asarray(problem.initial_point(), dtype=np.float64).copy()
    if not hasattr(w0, "shape"):
        w0 = np.asarray(w0, dtype=np.float64)
    xp = namespace(w0)
    if tuple(w0.shape) != (problem.d,):
        raise FairtheoryValueError(f"w0 must have shape ({problem.d},), got {tuple(w0.shape)}")
    floating = xp.isdtype(w0.dtype, "real floating")
    w = xp.asarray(w0, dtype=w0.dtype if floating else xp.float64, copy=True)
    if not bool(xp.all(xp.isfinite(w))):
        raise FairtheoryValueError("w0 must be finite")
    return w


def initial_weights(S: CappedSimplex, lam0: Any, ref: Any, name: str = "lam0") -> Any:
    """``lam0`` (checked to lie in ``S``) or the projection of the uniform vector, in ``ref``'s backend."""
    if lam0 is None:
        return like(S.project(np.full(S.n, 1.0 / S.n)), ref)
    lam = to_numpy(lam0).astype(np.float64)
    if lam.shape != (S.n,) or not S.contains(lam, tol=1e-9):
        raise FairtheoryValueError(f"{name} must be a point of the set (shape ({S.n},)), got {lam!r}")
    return like(lam, ref)


def gaussian(rng: np.random.Generator, scale: float, shape: tuple[int, ...], ref: Any) -> Any:
    """``scale * N(0, I)`` of ``shape`` drawn from ``rng`` (numpy) in ``ref``'s backend; 0 if ``scale == 0``."""
    if scale == 0.0:
        return 0.0
    return like(scale * rng.normal(size=shape), ref)


def check_rng(rng: Any) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise FairtheoryTypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def primal_dual_start(problem: Any, w0: Any, lam0: Any, Lambda: CappedSimplex | None) -> dict[str, Any]:
    """Checked starting point of a primal-dual method over ``Lambda`` (default the simplex):
    ``w``, ``lam`` and zero running averages ``w_avg``, ``lam_avg`` (keyword arguments of a ``State``)."""
    problem = check_problem(problem)
    S = check_set(Lambda, problem.n)
    w = initial_model(problem, w0)
    lam = initial_weights(S, lam0, w)
    xp = namespace(w)
    return {"w": w, "lam": lam, "w_avg": xp.zeros_like(w), "lam_avg": xp.zeros_like(lam)}
