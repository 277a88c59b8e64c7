r"""Exact worst case of any federated method whose step is linear in the gradients, from its own ``make``.

:func:`worst_case` builds a :class:`~fairtheory.worstcase.pep_problem.PEPProblem` (arbitrary ``L``-smooth,
``mu``-strongly convex clients, ``||x0 - x*||^2 <= D0``, ``sum_i p_i ||grad f_i(x*)||^2 <= rho2``), calls
the method's ``make(problem, **hyper)``, runs its ``init`` and ``rounds`` of its ``step`` on symbolic
arrays (:mod:`fairtheory.worstcase.gram_array`) - the algorithm's own code traces the PEP - and maximises

.. math:: \mathbb E\Big[\sum_i p_i f_i(x_{\rm out})\Big] - f^\star

by the SDP of :mod:`fairtheory.worstcase.sdp` (Clarabel), posed in the normalised units of
:func:`fairtheory.worstcase.local_gd_worst_case` (:mod:`fairtheory.worstcase.pep_problem`).
``output="last"``: the last server model ``w_T``; ``"mean"``: ``1/T sum_{r=1}^T w_r`` (the server models after each round).

Random client sampling is branched: the step gets a :class:`numpy.random.Generator` whose ``choice``
(the only draw a linear method may make: which clients take part) answers from a script; the first
unscripted call stops the step, and the step is re-run once per outcome of that call, with its
probability.  The draws of one ``choice`` call are treated as exchangeable (every multiset once, returned
sorted, with its multinomial probability; without replacement every set once with its probability under
successive weighted draws) - exact for methods that use the draws as a multiset, like
:func:`fairtheory.algorithms.base.draw_participants`.  The number of leaves grows exponentially with the
rounds (``max_branches``).  Any other draw (gradient noise) is refused.

Twins (the hand-written PEPs are independent): ``worst_case(fedavg.make, T, lr=beta, kappa=kappa)`` is
:func:`fairtheory.worstcase.local_gd_worst_case` with ``schedule="fedavg"``, ``T_N = T - 1``,
``output="last"``; ``worst_case(scaffold.make, R, kappa=kappa, eta_l=eta_l, start={"warm_start": True})``
is :func:`fairtheory.worstcase.scaffold.scaffold_worst_case` (verify/claims/worstcase_traced.py).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Mapping
from typing import Any, Literal

import numpy as np

from fairtheory._validation import check_integer
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase.gram_array import GramArray, NotRepresentableError
from fairtheory.worstcase.local_gd import MAX_PEP_DIM, Instance, WorstCase, check_size, finish_worst_case
from fairtheory.worstcase.pep_problem import PEPProblem
from fairtheory.worstcase.sdp import Scalar, SDPSolution, gram_coordinates

__all__ = ["worst_case", "trace", "Traced", "MAX_BRANCHES", "PEPProblem", "NotRepresentableError"]

#: largest number of sampling branches (leaves) a traced worst case may have
MAX_BRANCHES = 4096


class _NeedDraw(Exception):
    """Raised inside a step at the first unscripted ``rng.choice`` call."""

    def __init__(self, outcomes: list[tuple[float, np.ndarray]]) -> None:
        super().__init__("unscripted draw")
        self.outcomes = outcomes


def _choice_outcomes(a: Any, size: Any, replace: bool, p: Any) -> list[tuple[float, np.ndarray]]:
    """Every outcome of ``Generator.choice(a, size, replace, p)`` up to order, with its probability."""
    pop = np.arange(int(a)) if isinstance(a, (int, np.integer)) else np.asarray(a)
    m = pop.shape[0]
    probs = np.full(m, 1.0 / m) if p is None else np.asarray(p, dtype=np.float64)
    scalar = size is None
    k = 1 if scalar else int(np.prod(size))
    out: list[tuple[float, np.ndarray]] = []
    if replace:
        for combo in itertools.combinations_with_replacement(range(m), k):
            counts = np.bincount(combo, minlength=m)
            q = math.factorial(k) * math.prod(probs[i] ** c / math.factorial(c) for i, c in enumerate(counts) if c)
            if q > 0:
                out.append((float(q), np.asarray(combo)))
    else:
        if k > m:
            raise FairtheoryValueError(f"rng.choice without replacement of {k} from {m}")
        for combo in itertools.combinations(range(m), k):
            q = 0.0
            for perm in itertools.permutations(combo):
                left, qq = 1.0, 1.0
                for i in perm:
                    qq *= probs[i] / left if left > 0 else 0.0
                    left -= probs[i]
                q += qq
            if q > 0:
                out.append((q, np.asarray(combo)))
    res = []
    for q, idx in out:
        v = pop[idx]
        res.append((q, v[0] if scalar else v.reshape(size)))
    return res


class _ScriptedRng(np.random.Generator):
    """A Generator whose ``choice`` answers from a script (branching); every other draw is refused."""

    _ALLOWED = frozenset({"choice", "_script", "_pos", "bit_generator"})

    def __init__(self, script: list[Any]) -> None:
        super().__init__(np.random.PCG64(0))
        object.__setattr__(self, "_script", script)
        object.__setattr__(self, "_pos", 0)

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("__") or name in _ScriptedRng._ALLOWED:
            return object.__getattribute__(self, name)
        raise NotRepresentableError(f"the random draw rng.{name}(...) (only rng.choice, client sampling, is branched)")

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None, axis: int = 0,  # type: ignore[override]
               shuffle: bool = True) -> Any:
        pos = object.__getattribute__(self, "_pos")
        script = object.__getattribute__(self, "_script")
        if pos < len(script):
            object.__setattr__(self, "_pos", pos + 1)
            return script[pos]
        raise _NeedDraw(_choice_outcomes(a, size, replace, p))


def _branches(step: Callable[..., Any], state: Any, max_branches: int) -> list[tuple[float, Any]]:
    """Every ``(probability, next state)`` of one step from ``state``."""
    out: list[tuple[float, Any]] = []
    todo: list[tuple[float, list[Any]]] = [(1.0, [])]
    while todo:
        q, script = todo.pop()
        try:
            new = step(state, _ScriptedRng(script))
        except _NeedDraw as need:
            todo.extend((q * qq, script + [v]) for qq, v in need.outcomes)
            if len(todo) + len(out) > max_branches:
                raise FairtheoryValueError(f"more than max_branches={max_branches} sampling branches in one step") from None
            continue
        out.append((q, new))
    return out


class Traced:
    """A traced method: the problem, the leaves ``(probability, server models w_1..w_T)`` and the objective."""

    def __init__(self, problem: PEPProblem, leaves: list[tuple[float, list[GramArray]]], objective: Scalar,
                 seconds: float) -> None:
        self.problem, self.leaves, self.objective, self.seconds = problem, leaves, objective, seconds


def _server_model(state: Any, problem: PEPProblem) -> GramArray:
    w = getattr(state, "w", None)
    if not isinstance(w, GramArray) or w.xp is not problem.xp:
        raise FairtheoryTypeError(
            f"the method's state must carry the server model as a symbolic field w (got {type(w).__name__}); "
            "a step that converts the model to numbers is not PEP-representable")
    return problem.as_model(w, "state.w")


def _not_representable(exc: BaseException) -> NotRepresentableError | None:
    """The :class:`NotRepresentableError` behind ``exc`` (itself, or its cause / context chain)."""
    seen = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        if isinstance(e, NotRepresentableError):
            return e
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return None


def _name(make: Any) -> str:
    mod = getattr(make, "__module__", "") or ""
    return f"{mod.rsplit('.', 1)[-1]}.{getattr(make, '__name__', 'make')}" if mod else repr(make)


def trace(make: Callable[..., Any], rounds: int, problem: PEPProblem, *, output: str = "last",
          start: Mapping[str, Any] | None = None, max_branches: int = MAX_BRANCHES, **hyper: Any) -> Traced:
    """Run ``make(problem, **hyper)``'s ``init(**start)`` and ``rounds`` steps symbolically (module doc);
    the objective is ``E[sum_i p_i f_i(x_out)]`` (``f* = 0``)."""
    try:
        return _trace(make, rounds, problem, output=output, start=start, max_branches=max_branches, **hyper)
    except Exception as exc:
        inner = _not_representable(exc)
        if inner is None:
            raise
        msg = str(inner) if inner is exc else f"{inner} (surfaced as {type(exc).__name__}: {exc})"
        raise NotRepresentableError(f"{_name(make)}: {msg}") from exc


def _trace(make: Callable[..., Any], rounds: int, problem: PEPProblem, *, output: str, start: Mapping[str, Any] | None,
           max_branches: int, **hyper: Any) -> Traced:
    t0 = time.perf_counter()
    try:
        alg = make(problem, **hyper)
    except TypeError as exc:
        if "keyword argument" in str(exc) or "positional argument" in str(exc):
            raise FairtheoryTypeError(f"the hyper-parameters {sorted(hyper)} do not fit {_name(make)}: {exc}") from exc
        raise
    init, step = getattr(alg, "init", None), getattr(alg, "step", None)
    if not (callable(init) and callable(step)):
        raise FairtheoryTypeError(f"make(...) must return an Algorithm with init and step, got {type(alg).__name__}")
    if start is not None and (not isinstance(start, Mapping) or not all(isinstance(k, str) for k in start)):
        raise FairtheoryTypeError(f"start must be a mapping of keyword arguments of the method's init, got {start!r}")
    try:
        state = init(**dict(start or {}))
    except TypeError as exc:
        if "keyword argument" in str(exc):
            raise FairtheoryTypeError(f"start={dict(start or {})!r} does not fit the method's init: {exc}") from exc
        raise
    _server_model(state, problem)
    nodes: list[tuple[float, Any, list[GramArray]]] = [(1.0, state, [])]
    for _ in range(rounds):
        new_nodes = []
        for q, st, path in nodes:
            for qq, nst in _branches(step, st, max_branches):
                new_nodes.append((q * qq, nst, [*path, _server_model(nst, problem)]))
        if len(new_nodes) > max_branches:
            raise FairtheoryValueError(f"the traced PEP needs more than max_branches={max_branches} sampling branches; "
                                       "use fewer rounds, clients or draws")
        if problem.pep.dim > MAX_PEP_DIM:
            raise FairtheoryValueError(f"the traced PEP has Gram dimension {problem.pep.dim} > {MAX_PEP_DIM}; "
                                       "use fewer rounds / local steps / clients")
        nodes = new_nodes
    obj = Scalar()
    leaves = []
    for q, st, path in nodes:
        w = _server_model(st, problem)
        if output == "last" or not path:
            out = w
        else:
            out = path[0]
            for v in path[1:]:
                out = out + v
            out = out / len(path)
        obj = obj + q * problem.weighted_value(out)
        leaves.append((q, path))
    return Traced(problem, leaves, obj, time.perf_counter() - t0)


def worst_case(make: Callable[..., Any], rounds: int, *, n: int, L: float, D0: float, rho2: float, mu: float = 0.0,
               p: Any = None, output: Literal["last", "mean"] = "last", start: Mapping[str, Any] | None = None,
               tol: float = 1e-8, max_branches: int = MAX_BRANCHES, hyper: Mapping[str, Any] | None = None,
               return_instance: bool = False, certificate: bool = False, **more: Any) -> WorstCase:
    r"""Exact worst case of ``E[sum_i p_i f_i(x_out)] - f*`` after ``rounds`` steps of ``make(problem, **hyper)``.

    Parameters
    ----------
    make : an algorithm's ``make(problem, **hyper) -> Algorithm`` (built-in or a plugin's); its step must be
        linear in the gradients with constant coefficients (else :class:`NotRepresentableError` naming the
        operation).
    rounds : steps of the method (``>= 1``; one communication round each for the built-in methods).
    n, L, mu, p, D0, rho2 : the function class (:class:`~fairtheory.worstcase.pep_problem.PEPProblem`).
    output : ``"last"`` (the last server model) or ``"mean"`` (mean of the server models ``w_1..w_T``).
    start : keyword arguments of the method's ``init`` (e.g. ``{"warm_start": True}`` for Scaffold).
    tol : Clarabel's tolerances.  max_branches : limit on sampling branches.
    hyper, **more : the method's hyper-parameters (``hyper`` for names that clash with this function's own,
        e.g. q-FedSGD's ``L``).
    return_instance : also extract the worst-case functions' data (:class:`~fairtheory.worstcase.local_gd.Instance`,
        caller's units, ``x* = 0``), e.g. to replay the method on them with numpy
        (:class:`fairtheory.worstcase.replay.InterpolatedProblem`).
    certificate : attach ``.certificate``: a ``"linear"`` statement recording the traced recurrence (every
        evaluation's point on ``x0`` and the earlier gradients, :meth:`PEPProblem.linear_statement`) and rational
        dual multipliers proving ``value <= certificate.bound`` exactly (:func:`fairtheory.proofs.certificate.certify_pep`);
        the coefficients are the float64 numbers the trace computed (exactly the method's for dyadic step sizes and
        weights, e.g. ``lr = 0.5``, ``p = (1/2, 1/2)``; otherwise the method with its coefficients rounded to float64),
        the constraint levels the exact rationals of ``D0``, ``rho2``, ``L``.

    Returns
    -------
    :class:`~fairtheory.worstcase.local_gd.WorstCase` (``scale = L D0 + rho2/L``; ``extra``: ``trace_seconds``,
    ``branches``, ``r_prim``, ``r_dual``, ``iterations``).
    """
    rounds_i = check_integer(rounds, "rounds", low=1)
    max_branches = check_integer(max_branches, "max_branches", low=1)
    if output not in ("last", "mean"):
        raise FairtheoryValueError(f"output must be 'last' or 'mean', got {output!r}")
    if not callable(make):
        raise FairtheoryTypeError(f"make must be callable (an algorithm's make), got {type(make).__name__}")
    hyper = {**dict(hyper or {}), **more}
    problem = PEPProblem(n, L=L, mu=mu, p=p, D0=D0, rho2=rho2)
    tr = trace(make, rounds_i, problem, output=output, start=start, max_branches=max_branches, **hyper)
    c1, c2 = problem.constraints()
    pep = problem.pep
    check_size(pep.dim, sum(len(f.points) * (len(f.points) - 1) for f in pep.functions), "worst_case")
    pep.add_le(c1)
    if c2 is not None:
        pep.add_le(c2)
    pep.maximize(tr.objective)
    sol = pep.solve(tol=tol)
    params = {"method": getattr(make, "__module__", "") + "." + getattr(make, "__qualname__", repr(make)),
              "rounds": rounds_i, "n": problem.n, "L": problem.L, "mu": problem.mu, "D0": problem.D0,
              "rho2": problem.rho2, "p": problem.p.tolist(), "output": output, "start": dict(start or {}),
              "hyper": {k: (v if isinstance(v, (int, float, str, type(None))) else repr(v)) for k, v in hyper.items()}}
    S = problem.S_exact
    tpl = problem.linear_statement(tr.objective) if certificate else None
    return finish_worst_case(pep, sol, S, params=params,
                             instance_of=(lambda s: instance(problem, s, params)) if return_instance else None,
                             certificate=tpl, extra={"branches": len(tr.leaves), "trace_seconds": tr.seconds},
                             problem="traced worst_case", objective=tr.objective, x0=problem._x0n, n=problem.n,
                             p=problem.p, D0_level=problem.D0_level, rho2_level=problem.rho2_level, tol=tol)


def instance(problem: PEPProblem, sol: SDPSolution, params: dict[str, Any]) -> Instance:
    """Factor the Gram matrix (``G = V^T V``) and read every client's points ``(x, grad f_i(x), f_i(x))`` in the
    caller's units (``x* = 0``, ``f_i(x*) = 0``); the normalised PEP points are ``(x/s, g/(L s), f/S)`` of
    ``h_i' = f_i'/S - (mu/L)/2 ||x'||^2`` (:mod:`fairtheory.worstcase.pep_problem`)."""
    coords = gram_coordinates(sol)
    r = problem.mu / problem.L
    s, L, S = problem.s, problem.L, problem.unit

    pts = []
    for f in problem.funcs:
        rows = []
        for pt in f.points:
            xn, gn = coords(pt.x), coords(pt.g) + r * coords(pt.x)
            fn = problem.pep.evaluate(pt.f, sol) + 0.5 * r * float(xn @ xn)
            rows.append((xn * s, gn * (L * s), fn * S))
        pts.append(rows)
    return Instance(x0=coords(problem._x0n) * s, points=pts, p=problem.p.copy(), L=L, params=params)
