"""Shared pieces of the algorithm modules (optax-style ``make`` over a frozen state, and ``run``).

Every algorithm module exposes ``make(problem, **hyper) -> Algorithm``: the hyper-parameters are bound
and validated once, and the returned :class:`Algorithm` carries two pure functions,
``init(w0=None, ...) -> State`` and ``step(state, rng) -> State``, over a small frozen dataclass
``State`` (which carries the server model as field ``w`` and a communication counter ``comms``).
:func:`run` iterates any algorithm, records a :class:`History`, reports progress through a callback
and stops a diverging run with a :class:`~fairtheory.errors.DivergenceError` naming the step sizes.
Randomness comes only from the explicit ``numpy.random.Generator`` argument, so numpy and torch runs
with the same generator make the same client draws.

The helpers every algorithm shares: :func:`local_steps` (``kappa`` local gradient steps of all
participating clients at once), :func:`draw_participants` (``K`` i.i.d. draws with replacement),
:func:`aggregator_for` (the algorithm's client weights come from a
:class:`~fairtheory.aggregators.Aggregator`), and the input checks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import numpy as np

from fairtheory._validation import as_vector, check_allocation, check_integer, check_returned, check_rng
from fairtheory.backend import is_symbolic, like, namespace, to_numpy
from fairtheory.errors import DivergenceError, FairtheoryTypeError, FairtheoryValueError, NonFiniteError
from fairtheory.problems.base import FederatedProblem, as_float_array
from fairtheory.sets import CappedSimplex

__all__ = ["Algorithm", "History", "run", "local_steps", "LocalSteps", "draw_participants", "sample_clients",
           "open_round", "Round",
           "initial_model", "initial_weights", "project_to", "check_problem", "check_set", "check_rng",
           "check_state", "gaussian", "primal_dual_start", "aggregator_for", "check_draws", "is_builtin",
           "checked_weights"]


class Algorithm(NamedTuple):
    """What an algorithm's ``make`` returns.

    Attributes
    ----------
    name : the algorithm's name (e.g. ``"rfedfair"``).
    problem : the :class:`FederatedProblem` it runs on.
    hyper : the validated hyper-parameters, by name.
    init : ``init(w0=None, **start) -> State``; ``w0`` (numpy or torch) decides the backend.
    step : ``step(state, rng) -> State``, pure; ``rng`` is a ``numpy.random.Generator`` (``None`` is
        accepted by deterministic configurations).
    step_sizes : names of the step-size hyper-parameters (named in divergence errors).
    """

    name: str
    problem: FederatedProblem
    hyper: Mapping[str, Any]
    init: Callable[..., Any]
    step: Callable[[Any, np.random.Generator | None], Any]
    step_sizes: tuple[str, ...] = ()


@dataclass
class History:
    """Recorded trajectory: server iterates, client losses at them, communication counts, rounds.

    ``diverged`` is set when a run with ``on_divergence="stop"`` met non-finite iterates; the last
    recorded entry is then the last finite state."""

    iterates: list[np.ndarray] = field(default_factory=list)
    losses: list[np.ndarray] = field(default_factory=list)
    comms: list[int] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)
    diverged: bool = False

    def as_arrays(self) -> dict[str, np.ndarray]:
        return {"iterates": np.array(self.iterates), "losses": np.array(self.losses),
                "comms": np.array(self.comms), "rounds": np.array(self.rounds)}


def _finite(x: Any) -> bool:
    xp = namespace(x)
    return bool(xp.all(xp.isfinite(x)))


def run(
    alg: Algorithm,
    rounds: int,
    *,
    rng: np.random.Generator | None = None,
    state: Any = None,
    w0: Any = None,
    record_every: int = 1,
    record_losses: bool = True,
    callback: Callable[[int, Any], None] | None = None,
    on_divergence: Literal["raise", "stop"] = "raise",
    **start: Any,
) -> tuple[Any, History]:
    """Apply ``alg.step`` ``rounds`` times from ``state`` (default ``alg.init(w0, **start)``).

    Records the server model ``w`` (and, with ``record_losses``, the client losses there) at the start,
    every ``record_every`` steps and at the end.  ``callback(k, state)`` is called after step ``k``
    (``k = 1..rounds``), e.g. to drive a progress bar.  Non-finite server models - or recorded losses that
    do not fit float64 - stop the run: ``on_divergence="raise"`` raises
    :class:`~fairtheory.errors.DivergenceError` naming the step sizes, ``"stop"`` returns the last finite
    state with ``history.diverged = True``.  Steps run with numpy's overflow warnings silenced: a diverging
    run is reported once, by this error."""
    if not isinstance(alg, Algorithm):
        raise FairtheoryTypeError(f"alg must be an Algorithm (what an algorithm's make returns), got {type(alg).__name__}")
    rounds = check_integer(rounds, "rounds", low=0)
    record_every = check_integer(record_every, "record_every", low=1)
    _check_history_size(alg, rounds, record_every, record_losses)
    if on_divergence not in ("raise", "stop"):
        raise FairtheoryValueError(f"on_divergence must be 'raise' or 'stop', got {on_divergence!r}")
    if rng is not None:
        rng = check_rng(rng)
    if state is None:
        state = alg.init(w0, **start)
    elif w0 is not None or start:
        raise FairtheoryValueError("give either state or a starting point (w0, ...), not both")
    hist = History()
    problem = alg.problem

    def record(s: Any, k: int) -> None:
        losses = to_numpy(problem.losses(s.w)).astype(np.float64, copy=True) if record_losses else None
        hist.iterates.append(to_numpy(s.w).astype(np.float64, copy=True))
        if losses is not None:
            hist.losses.append(losses)
        hist.comms.append(int(s.comms))
        hist.rounds.append(k)

    record(state, 0)
    last = 0
    for k in range(1, rounds + 1):
        try:
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # reported below, once
                new = alg.step(state, rng)
            if new is not None and _finite(new.w) and (k % record_every == 0 or k == rounds):
                record(new, k)
                last = k
        except NonFiniteError:  # the iterates (or the losses at them) left the float range
            new = None
        if new is None or not _finite(new.w):
            if on_divergence == "stop":
                hist.diverged = True
                if last != k - 1:
                    record(state, k - 1)
                return state, hist
            sizes = ", ".join(f"{n}={alg.hyper.get(n)!r}" for n in alg.step_sizes) or "the step size"
            raise DivergenceError(
                f"{alg.name} diverged: the server model became non-finite at step {k} of {rounds} "
                f"(step sizes {sizes}); use a smaller step size or on_divergence='stop'")
        state = new
        if callback is not None:
            callback(k, state)
    return state, hist


def _check_history_size(alg: Algorithm, rounds: int, record_every: int, record_losses: bool) -> None:
    """Refuse a run whose recorded history would exceed :data:`fairtheory._validation.MAX_ARRAY_BYTES`:
    every record keeps a float64 copy of ``w`` (``d``) and, with ``record_losses``, of the losses (``n``)."""
    from fairtheory import _validation

    records = rounds // record_every + 2
    per_record = 8 * (int(getattr(alg.problem, "d", 0)) + (int(getattr(alg.problem, "n", 0)) if record_losses else 0))
    need = records * per_record
    if need > _validation.MAX_ARRAY_BYTES:
        gib = need / 2 ** 30
        raise FairtheoryValueError(
            f"rounds={rounds} with record_every={record_every} would record {records} float64 copies of w "
            f"(d = {alg.problem.d})" + (f" and of the losses (n = {alg.problem.n})" if record_losses else "")
            + f": {gib:.3g} GiB of history; at most {_validation.MAX_ARRAY_BYTES / 2 ** 30:.3g} GiB "
            "(fairtheory._validation.MAX_ARRAY_BYTES): raise record_every or set record_losses=False")


class LocalSteps(NamedTuple):
    """What :func:`local_steps` returns: losses at the starting models, final models, snapshot."""

    losses0: Any
    W: Any
    snapshot: Any = None


def local_steps(problem: FederatedProblem, W0: Any, *, lr: float, kappa: int, clients: Any = None,
                correction: Any = None, snapshot: int | None = None, want_losses: bool = False) -> LocalSteps:
    r"""``kappa`` local gradient steps of every selected client at once (no Python loop over clients).

    ``W <- W - lr (grad f_{c_k}(W_k) + correction_k)``, starting from ``W0`` (shape ``(k, d)``; a
    broadcast view of the server model is fine).  ``clients`` selects the rows' clients (``None``: all
    ``n`` in order).  ``want_losses`` also returns ``f_{c_k}(W0_k)`` from the first, fused evaluation
    (:meth:`FederatedProblem.loss_grad_each`).  ``snapshot = j`` (``0 <= j <= kappa``) also returns the
    models after ``j`` steps (DRFA's random snapshot)."""
    W, f0, snap = W0, None, (W0 if snapshot == 0 else None)
    for k in range(kappa):
        if k == 0 and want_losses:
            f0, G = problem.loss_grad_each(W, clients=clients)
        else:
            G = problem.grads_each(W, clients=clients)
        if correction is not None:
            G = G + correction
        W = W - lr * G
        if snapshot == k + 1:
            snap = W
    return LocalSteps(f0, W, snap)


def draw_participants(rng: np.random.Generator, probs: Any, K: int) -> tuple[np.ndarray, np.ndarray]:
    """``K`` i.i.d. draws with replacement by ``probs`` (uniform when ``None``), as ``(clients, counts)``:
    the distinct clients drawn (sorted) and how often each was drawn (a client drawn twice counts twice)."""
    K = check_draws(K)
    rng = check_rng(rng)
    if probs is None:
        raise FairtheoryValueError("probs must be given (use np.full(n, 1/n) for uniform draws)")
    draws = sample_clients(rng, np.asarray(probs, dtype=np.float64), K)
    uniq, counts = np.unique(draws, return_counts=True)
    return uniq, counts


class Round(NamedTuple):
    """The participants of one round and the server model sent to them (:func:`open_round`)."""

    clients: np.ndarray | None  #: distinct participating clients (sorted), ``None`` for all ``n``
    counts: np.ndarray | None   #: how often each was drawn (``None`` for full participation)
    W0: Any                     #: the server model broadcast to one row per participating client


def open_round(problem: FederatedProblem, w: Any, K: int | None, rng: Any) -> Round:
    """Full participation (``K = None``: every client, no draw) or ``K`` i.i.d. draws by ``p`` with
    replacement (:func:`draw_participants`); ``W0`` is a read-only broadcast of ``w`` (no copy)."""
    if K is None:
        clients = counts = None
        rows = problem.n
    else:
        clients, counts = draw_participants(check_rng(rng), problem.p, K)
        rows = clients.size
    return Round(clients, counts, namespace(w).broadcast_to(w[None, :], (rows, problem.d)))


def check_state(state: Any, cls: type, algorithm: str) -> None:
    """Raise a clear :class:`FairtheoryTypeError` unless ``state`` is ``algorithm``'s ``State``."""
    if not isinstance(state, cls):
        raise FairtheoryTypeError(
            f"state must be a {algorithm}.State (from this algorithm's init), got {type(state).__module__}."
            f"{type(state).__name__}")


def check_draws(K: Any, name: str = "K") -> int:
    """A number of i.i.d. client draws per round: an integer ``>= 1`` whose ``K`` int64 draws fit in
    :data:`fairtheory._validation.MAX_ARRAY_BYTES` (``K = 10**9`` would need 7.45 GiB: refused up front,
    naming ``K``, instead of a ``MemoryError`` at the first step)."""
    K = check_integer(K, name, low=1)
    return check_allocation(K, name, bytes_per_unit=8, what=f"{name} int64 client draws per round")


def sample_clients(rng: np.random.Generator, p: np.ndarray, K: int) -> np.ndarray:
    """``K`` client indices drawn i.i.d. with replacement with probabilities ``p`` (in draw order)."""
    K = check_draws(K)
    return rng.choice(p.shape[0], size=K, replace=True, p=p)


# ------------------------------------------------------------------ shared helpers of the algorithm modules
def project_to(S: CappedSimplex, v: Any) -> Any:
    """``Proj_S(v)`` for a numpy or torch vector ``v`` (via :meth:`CappedSimplex.project`); a symbolic set of a
    PEP trace (:class:`fairtheory.worstcase.minmax.SymbolicDualSet`) projects its symbolic vectors itself."""
    if getattr(S, "__fairtheory_symbolic_set__", False) and is_symbolic(v):
        return S.project(v)
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


def initial_model(problem: FederatedProblem, w0: Any, name: str = "w0") -> Any:
    """A copy of ``w0`` under the problems' input policy
    (:func:`fairtheory.problems.base.as_float_array`: lists, tuples, numpy of any real dtype and torch
    tensors; integers become float64, a floating dtype (float32 for a scale run) and a torch device are
    kept; booleans, strings, a wrong shape and nan/inf are refused naming ``name``), detached from any
    autograd graph (an algorithm iterates values); ``None`` gives the problem's default start."""
    if w0 is None:
        start = problem.initial_point()
        if is_symbolic(start):  # a PEP problem's symbolic starting point (fairtheory.worstcase.worst_case)
            return start
        return np.asarray(start, dtype=np.float64).copy()
    if is_symbolic(w0):
        return problem.as_model(w0, name)
    w = as_float_array(w0, name, (problem.d,))
    if getattr(w, "requires_grad", False):
        w = w.detach()
    return namespace(w).asarray(w, copy=True)


def initial_weights(S: CappedSimplex, lam0: Any, ref: Any, name: str = "lam0") -> Any:
    """``lam0`` (checked to lie in ``S``) or the projection of the uniform vector, in ``ref``'s backend."""
    if lam0 is None:
        start = S.project(np.full(S.n, 1.0 / S.n))
        return start if is_symbolic(start) else like(start, ref)  # symbolic: a PEP trace's lambda_0
    lam = as_vector(lam0, name)
    if lam.shape != (S.n,) or not S.contains(lam, tol=1e-9):
        raise FairtheoryValueError(f"{name} must be a point of the set (shape ({S.n},)), got {lam!r}")
    return like(lam, ref)


def gaussian(rng: np.random.Generator, scale: float, shape: tuple[int, ...], ref: Any) -> Any:
    """``scale * N(0, I)`` of ``shape`` drawn from ``rng`` (numpy) in ``ref``'s backend; 0 if ``scale == 0``."""
    if scale == 0.0:
        return 0.0
    return like(scale * rng.normal(size=shape), ref)


def primal_dual_start(problem: Any, w0: Any, lam0: Any, Lambda: CappedSimplex | None) -> dict[str, Any]:
    """Checked starting point of a primal-dual method over ``Lambda`` (default the simplex):
    ``w``, ``lam`` and zero running averages ``w_avg``, ``lam_avg`` (keyword arguments of a ``State``)."""
    problem = check_problem(problem)
    S = check_set(Lambda, problem.n)
    w = initial_model(problem, w0)
    lam = initial_weights(S, lam0, w)
    xp = namespace(w)
    return {"w": w, "lam": lam, "w_avg": xp.zeros_like(w), "lam_avg": xp.zeros_like(lam)}


def aggregator_for(problem: FederatedProblem, aggregator: Any, *, needs: tuple[str, ...] = (),
                   algorithm: str = "this algorithm") -> Any:
    """``aggregator`` checked for ``problem``: an :class:`~fairtheory.aggregators.Aggregator` (or a
    client-weight set) over ``problem.n`` clients, with the methods in ``needs``, and - where it has
    client weights ``p`` - the problem's ``p`` (the separable form averages with ``problem.p``)."""
    from fairtheory.aggregators import as_aggregator

    agg = as_aggregator(aggregator, problem.n)
    for cap in needs:
        if not callable(getattr(agg, cap, None)):
            raise FairtheoryTypeError(f"aggregator {agg!r} has no {cap}(...), which {algorithm} needs")
    p = getattr(agg, "p", None)
    if p is not None and not np.allclose(np.asarray(p, dtype=np.float64), problem.p, rtol=0.0, atol=1e-12):
        raise FairtheoryValueError(f"aggregator {agg!r} has client weights p different from problem.p")
    return agg



def is_builtin(obj: Any) -> bool:
    """Whether ``obj`` is one of fairtheory's own objects (its class defined in a ``fairtheory`` module):
    those are tested, so the hot paths skip re-checking what they return; user objects are checked."""
    return type(obj).__module__.split(".", 1)[0] == "fairtheory"


def checked_weights(agg: Any, lam: Any, n: int, call: str = "aggregator.weights(f)", *, f: Any = None) -> Any:
    """``lam`` as returned by a user aggregator, checked: shape ``(n,)`` and - when its input losses ``f``
    are finite (or not given) - finite values.  fairtheory's own aggregators pass through unchecked, and
    non-finite losses (a diverging run, reported by :func:`run`) are not blamed on the aggregator.
    Returned unchanged (its backend kept) when it is fine."""
    if is_builtin(agg):
        return lam
    what = f"{call} of {type(agg).__name__}"
    if f is not None and not _finite(f):
        shape = tuple(getattr(lam, "shape", np.shape(lam)))
        if shape != (n,):
            raise FairtheoryValueError(f"{what} must return an array of shape ({n},) (one weight per client); "
                                       f"it returned shape {shape}")
        return lam
    check_returned(lam, what, shape=(n,), meaning="one weight per client")
    return lam
