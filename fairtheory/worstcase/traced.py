r"""Exact worst case of any federated method whose step is linear in the gradients, from its own ``make``.

:func:`worst_case` builds a :class:`~fairtheory.worstcase.pep_problem.PEPProblem` (arbitrary ``L``-smooth,
``mu``-strongly convex clients, ``||x0 - x*||^2 <= D0``, ``sum_i p_i ||grad f_i(x*)||^2 <= rho2``), calls
the method's ``make(problem, **hyper)``, runs its ``init`` and ``rounds`` of its ``step`` on symbolic
arrays (:mod:`fairtheory.worstcase.gram_array`) - the algorithm's own code traces the PEP - and maximises

.. math:: \mathbb E\Big[\sum_i p_i f_i(x_{\rm out})\Big] - f^\star

by the SDP of :mod:`fairtheory.worstcase.sdp` (Clarabel), posed in the normalised units of
:func:`fairtheory.worstcase.local_gd_worst_case` (:mod:`fairtheory.worstcase.pep_problem`).
``output="last"``: the last server model ``w_T``; ``"average"``: ``1/T sum_{r=1}^T w_r`` (the mean of the server models
after each round; the old name ``"mean"`` warns for one release); ``"best"``: the smallest measure over ``w_0..w_T``
in each leaf.  Other measures (``measure=``):
``||sum_i p_i grad f_i(x_out)||^2``, ``||x_out - x*||^2``, or the minimum of several (an epigraph variable ``t``
with ``t <= m(w)`` for every measure ``m`` and candidate ``w``).

Random client sampling is branched: the step gets a :class:`numpy.random.Generator` whose ``choice``
(the only draw a linear method may make: which clients take part) answers from a script; the first
unscripted call stops the step, and the step is re-run once per outcome of that call, with its
probability.  The draws of one ``choice`` call are treated as exchangeable (every multiset once, returned
sorted, with its multinomial probability; without replacement every set once with its probability under
successive weighted draws) - exact for methods that use the draws as a multiset, like
:func:`fairtheory.algorithms.base.draw_participants`.  The number of leaves grows exponentially with the
rounds (``max_branches``).  Stochastic gradients (``sigma2 > 0``, :mod:`fairtheory.worstcase.pep_problem`) draw
their noise atom from the same scripted generator (one ``choice`` per noisy query, ``noise_atoms`` equally likely
outcomes), so client sampling and noise share one script and one tree; ``init`` is branched like a step.  Any
other draw the method makes itself (``rng.normal``, ...) is refused.

Twins (the hand-written PEPs are independent): ``worst_case(fedavg.make, T, lr=lr, kappa=kappa)`` is
:func:`fairtheory.worstcase.local_gd_worst_case` with ``schedule="fedavg"``, ``T_N = T - 1``,
``output="last"``; ``worst_case(scaffold.make, R, kappa=kappa, lr=lr, start={"warm_start": True})``
is :func:`fairtheory.worstcase.scaffold.scaffold_worst_case` (verify/claims/worstcase_traced.py).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from fairtheory._validation import check_integer
from fairtheory.algorithms.names import deprecated_value
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase import units
from fairtheory.worstcase.classes import SmoothStronglyConvex
from fairtheory.worstcase.finish import finish_worst_case
from fairtheory.worstcase.gram import Scalar, gram_coordinates
from fairtheory.worstcase.gram_array import GramArray, NotRepresentableError
from fairtheory.worstcase.limits import MAX_PEP_DIM, check_size
from fairtheory.worstcase.pep_problem import MEASURES, PEPProblem
from fairtheory.worstcase.results import Instance, WorstCase
from fairtheory.worstcase.solvers import SDPSolution

__all__ = ["worst_case", "trace", "Traced", "MAX_BRANCHES", "PEPProblem", "NotRepresentableError"]

#: largest number of sampling branches (leaves) a traced worst case may have
MAX_BRANCHES = 4096
#: the outputs a traced worst case measures: the last server model, the mean of w_1..w_T, the best of w_0..w_T
OUTPUTS = ("last", "average", "best")
#: renamed output names of the traced backend (:func:`fairtheory.algorithms.names.deprecated_value`)
_RENAMED_OUTPUTS = {"mean": "average"}


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


def _branches(step: Callable[..., Any], state: Any, max_branches: int,
              problem: PEPProblem | None = None, limit: int | None = None) -> list[tuple[float, Any]]:
    """Every ``(probability, next state)`` of one step from ``state``; ``problem``'s noisy gradient queries
    draw from the same scripted generator as the step's client sampling (one script per branch)."""
    out: list[tuple[float, Any]] = []
    todo: list[tuple[float, list[Any]]] = [(1.0, [])]
    while todo:
        q, script = todo.pop()
        rng = _ScriptedRng(script)
        if problem is not None:
            problem._rng = rng
        try:
            new = step(state, rng)
        except _NeedDraw as need:
            todo.extend((q * qq, script + [v]) for qq, v in need.outcomes)
            if len(todo) + len(out) > max_branches:
                raise FairtheoryValueError(
                    f"more than max_branches={limit or max_branches} sampling / noise branches (leaves so far "
                    "included); use "
                    "fewer rounds, clients, draws or noise atoms") from None
            continue
        finally:
            if problem is not None:
                problem._rng = None
        out.append((q, new))
    return out


class Traced:
    """A traced method: the problem, the leaves ``(probability, server models w_1..w_T)``, the objective (normalised
    units) and the rows ``Scalar <= 0`` the objective needs (the epigraph of a minimum: ``output="best"`` or several
    measures; empty otherwise)."""

    def __init__(self, problem: PEPProblem, leaves: list[tuple[float, list[GramArray]]], objective: Scalar,
                 seconds: float, constraints: list[Scalar] | None = None) -> None:
        self.problem, self.leaves, self.objective, self.seconds = problem, leaves, objective, seconds
        self.constraints: list[Scalar] = list(constraints or [])
        #: per leaf: its probability and the candidate output points (one, or ``w_0..w_T`` for ``"best"``)
        self.outputs: list[tuple[float, list[GramArray]]] = []
        #: the measures (their minimum when several)
        self.measures: list[str] = ["value"]


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


def _measures(measure: Any) -> list[str]:
    """``measure`` as a non-empty list of names of :data:`~fairtheory.worstcase.pep_problem.MEASURES`."""
    names = [measure] if isinstance(measure, str) else measure
    if not isinstance(names, (list, tuple)) or not names:
        raise FairtheoryValueError(f"measure must be one of {MEASURES} or a non-empty list of them, got {measure!r}")
    for m in names:
        if not isinstance(m, str) or m not in MEASURES:
            raise FairtheoryValueError(f"measure must be one of {MEASURES} or a non-empty list of them, got {measure!r}")
    return list(dict.fromkeys(names))


def trace(make: Callable[..., Any], rounds: int, problem: PEPProblem, *, output: str = "last",
          start: Mapping[str, Any] | None = None, max_branches: int = MAX_BRANCHES, measure: Any = "value",
          **hyper: Any) -> Traced:
    """Run ``make(problem, **hyper)``'s ``init(**start)`` and ``rounds`` steps symbolically (module doc);
    the objective is ``E[measure(x_out)]`` divided by the value unit (``"value"``: ``E[sum_i p_i f_i(x_out)]``,
    ``f* = 0``)."""
    try:
        return _trace(make, rounds, problem, output=deprecated_value(output, _RENAMED_OUTPUTS, arg="output",
                                                                     where="traced.trace"),
                      start=start, max_branches=max_branches, measure=measure, **hyper)
    except Exception as exc:
        inner = _not_representable(exc)
        if inner is None:
            raise
        msg = str(inner) if inner is exc else f"{inner} (surfaced as {type(exc).__name__}: {exc})"
        raise NotRepresentableError(f"{_name(make)}: {msg}") from exc


def _leaf_objective(problem: PEPProblem, points: list[GramArray], measures: list[str],
                    rows: list[Scalar]) -> Scalar:
    """The measure at one point, or ``t`` with ``t <= m(w)`` for every candidate point ``w`` and measure ``m``
    (the minimum as an epigraph variable; the maximisation pushes ``t`` up to it)."""
    if len(points) == 1 and len(measures) == 1:
        return problem.measure(measures[0], points[0])
    t = problem.pep.value()
    for w in points:
        for m in measures:
            rows.append(t - problem.measure(m, w))
    return t


def _trace(make: Callable[..., Any], rounds: int, problem: PEPProblem, *, output: str, start: Mapping[str, Any] | None,
           max_branches: int, measure: Any = "value", **hyper: Any) -> Traced:
    t0 = time.perf_counter()
    measures = _measures(measure)
    if output not in OUTPUTS:
        raise FairtheoryValueError(f"output must be one of {OUTPUTS}, got {output!r}")
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
    kwargs = dict(start or {})

    def run_init(_state: Any, _rng: Any) -> Any:
        try:
            return init(**kwargs)
        except TypeError as exc:
            if "keyword argument" in str(exc):
                raise FairtheoryTypeError(f"start={kwargs!r} does not fit the method's init: {exc}") from exc
            raise

    # init may ask for (noisy) gradients too (e.g. Scaffold's warm start): branched like a step
    nodes: list[tuple[float, Any, list[GramArray]]] = []
    for q, state in _branches(run_init, None, max_branches, problem):
        nodes.append((q, state, [_server_model(state, problem)]))  # path: w_0, w_1, ..., w_T
    for _ in range(rounds):
        new_nodes: list[tuple[float, Any, list[GramArray]]] = []
        for q, st, path in nodes:
            # the whole round shares one budget: a blow-up stops before the remaining nodes are traced
            budget = max_branches - len(new_nodes)
            if budget < 1:
                raise FairtheoryValueError(f"the traced PEP needs more than max_branches={max_branches} sampling / "
                                           "noise branches; use fewer rounds, clients, draws or noise atoms")
            for qq, nst in _branches(step, st, budget, problem, max_branches):
                new_nodes.append((q * qq, nst, [*path, _server_model(nst, problem)]))
        if len(new_nodes) > max_branches:
            raise FairtheoryValueError(f"the traced PEP needs more than max_branches={max_branches} sampling / noise "
                                       "branches; use fewer rounds, clients, draws or noise atoms")
        if problem.pep.dim > MAX_PEP_DIM:
            raise FairtheoryValueError(f"the traced PEP has Gram dimension {problem.pep.dim} > {MAX_PEP_DIM}; "
                                       "use fewer rounds / local steps / clients")
        nodes = new_nodes
    obj = Scalar()
    rows: list[Scalar] = []
    leaves = []
    outputs = []
    for q, st, path in nodes:
        w = _server_model(st, problem)
        server = path[1:]
        if output == "best":
            points = path
        elif output == "last" or not server:
            points = [w]
        else:
            out = server[0]
            for v in server[1:]:
                out = out + v
            points = [out / len(server)]
        obj = obj + q * _leaf_objective(problem, points, measures, rows)
        leaves.append((q, server))
        outputs.append((q, points))
    tr = Traced(problem, leaves, obj, time.perf_counter() - t0, rows)
    tr.outputs, tr.measures = outputs, measures
    return tr


def _keyword_of(make: Callable[..., Any], name: str) -> bool:
    """Whether ``make`` takes the keyword ``name`` (a named parameter; ``**kwargs`` does not count)."""
    import inspect

    try:
        return name in inspect.signature(make).parameters
    except (TypeError, ValueError):
        return False


def _class_keywords(make: Callable[..., Any], L: Any, class_mu: Any, function_class: Any,
                    hyper: dict[str, Any]) -> tuple[Any, Any]:
    """``(L, mu)`` of the function class from ``L`` / ``class_mu`` / ``function_class``: class parameters and the
    method's hyper-parameters never share a keyword (``mu=`` is always the method's; for the class it was removed, and
    a ``mu=`` the method does not take is refused naming ``class_mu=``)."""
    _refuse_class_mu(make, hyper)
    if function_class is not None:
        if L is not None or class_mu is not None:
            raise FairtheoryValueError("give the function class once: function_class=SmoothStronglyConvex(L, mu) or "
                                       "L= with class_mu=, not both")
        fcs = list(function_class) if isinstance(function_class, (list, tuple)) else [function_class]
        if not fcs or not all(isinstance(c, SmoothStronglyConvex) for c in fcs):
            raise FairtheoryTypeError("function_class must be a SmoothStronglyConvex(L, mu) instance or one per client "
                                      f"(the traced backend's clients are smooth, strongly convex), got {function_class!r}")
        L = float(fcs[0].L) if len(fcs) == 1 else [float(c.L) for c in fcs]
        class_mu = float(fcs[0].mu) if len(fcs) == 1 else [float(c.mu) for c in fcs]
    if L is None:
        raise FairtheoryTypeError("worst_case needs the function class: L= (with class_mu=) or "
                                  "function_class=SmoothStronglyConvex(L, mu)")
    return L, 0.0 if class_mu is None else class_mu


def _refuse_class_mu(make: Callable[..., Any], hyper: Mapping[str, Any]) -> None:
    """``mu=`` for a method without a hyper-parameter ``mu``: the removed spelling of ``class_mu=``, refused by name."""
    if "mu" in hyper and not _keyword_of(make, "mu"):
        raise FairtheoryTypeError(
            f"worst_case: mu= is a hyper-parameter of the method, and {_name(make)} takes none; the function class's "
            "strong convexity is class_mu= (or function_class=SmoothStronglyConvex(L, mu)); worst_case's mu= for the "
            "class was removed")


def worst_case(make: Callable[..., Any], rounds: int, *, n: int, L: Any = None, D0: float, rho2: float,
               class_mu: Any = None, function_class: Any = None, p: Any = None,
               output: Literal["last", "average", "best"] = "last", start: Mapping[str, Any] | None = None,
               tol: float = 1e-8, max_branches: int = MAX_BRANCHES, hyper: Mapping[str, Any] | None = None,
               return_instance: bool = False, certificate: bool = False, measure: Any = "value",
               sigma2: float = 0.0, noise_atoms: int = 2, grad_eps: float = 0.0, constrained: bool = False,
               **more: Any) -> WorstCase:
    r"""Exact worst case of ``E[measure(x_out)]`` after ``rounds`` steps of ``make(problem, **hyper)``.

    Parameters
    ----------
    make : an algorithm's ``make(problem, **hyper) -> Algorithm`` (built-in or a plugin's); its step must be
        linear in the gradients with constant coefficients (else :class:`NotRepresentableError` naming the
        operation).
    rounds : steps of the method (``>= 1``; one communication round each for the built-in methods).
    n, L, class_mu, p, D0, rho2 : the function class (:class:`~fairtheory.worstcase.pep_problem.PEPProblem`); ``L``
        and ``class_mu`` numbers or one per client (``0 <= mu_i < L_i``, the units use ``max_i L_i``; ``class_mu``
        default 0).
    function_class : instead of ``L`` / ``class_mu``: ``SmoothStronglyConvex(L, mu)`` or one per client - or any class
        of :mod:`fairtheory.worstcase.classes` (``ConvexLipschitz(M)``, ``ConvexQG(L)``, ...; one, or one per client,
        classes may differ between clients): :class:`PEPProblem` ``classes=`` (its units, its restrictions); the value is
        then the solver's (``value_is == "solver"``); ``certificate=True`` works for the classes of the kernel's table
        (those whose ``kernel_class()`` names an entry: the exact ones) and is refused for the others.  An operator
        class of :mod:`fairtheory.worstcase.operators` (``Cocoercive(beta)``, ...) makes the client's "gradient" the
        operator's output: ``x*`` is a zero of ``sum_i p_i A_i``, the measures ``"grad_norm"`` and ``"distance"``
        (``"value"`` is refused: an operator has no values).
    output : ``"last"`` (the last server model ``w_T``), ``"average"`` (mean of the server models ``w_1..w_T``, as
        :func:`fairtheory.worstcase.local_gd_worst_case`'s ``"average"``; ``"mean"`` warns for one release) or
        ``"best"`` (the smallest measure over ``w_0..w_T`` in each sampling / noise leaf; the objective is the
        expectation of the per-leaf minimum).
    measure : ``"value"`` (``sum_i p_i f_i(x) - f*``, default), ``"grad_norm"`` (``||sum_i p_i grad f_i(x)||^2``),
        ``"distance"`` (``||x - x*||^2``), or a list of them: their minimum.
    sigma2 : stochastic gradients: every gradient the method asks for is ``grad f_i(x) + e``, ``e`` from a
        zero-mean distribution of ``noise_atoms`` equally likely atoms with ``1/m sum_j ||e_j||^2 <= sigma2``
        (one per client and query point, a fresh draw per call); the expectation over the draws is taken exactly
        by branching.  The value is the exact worst case over such ``m``-atom distributions: a *lower* bound on the
        worst case over all distributions of variance ``<= sigma2``.
    noise_atoms : ``m``, an integer in ``[2, 8]`` (each noisy call branches ``m`` ways: ``max_branches``).
    grad_eps : relative gradient inexactness in ``[0, 1)``: every gradient returned is ``d`` with
        ``||d - grad f_i(x)|| <= grad_eps ||grad f_i(x)||`` (one ``d`` per client and point).
    constrained : ``True``: ``sum_i p_i f_i`` is minimised over an arbitrary closed convex set ``C`` (its indicator
        one more function of the PEP, Taylor, Hendrickx & Glineur 2017, SIAM J. Optim., Thm 3.6), ``x* in C`` with
        ``0 in sum_i p_i grad f_i(x*) + N_C(x*)``, ``rho2`` bounding ``sum_i p_i ||grad f_i(x*)||^2`` (also for
        ``n = 1``), ``x0`` arbitrary; the method projects with ``problem.project_each(W)`` / ``problem.project(w)``
        (:class:`~fairtheory.worstcase.pep_problem.PEPProblem`).  ``"value"`` is then the constrained gap
        ``F(x_out) - F*``, meaningful where the method's ``x_out`` lies in ``C``; ``measure="grad_norm"`` and
        ``output="best"`` with ``"value"`` (``w_0`` may lie outside ``C``) are refused.  Always the solver's
        value (``value_is == "solver"``).  ``False`` (default): the SDP data are exactly those without the option.
    start : keyword arguments of the method's ``init`` (e.g. ``{"warm_start": True}`` for Scaffold).
    tol : Clarabel's tolerances.  max_branches : limit on sampling / noise branches.
    hyper, **more : the method's hyper-parameters (``hyper`` for names that clash with this function's own,
        e.g. q-FedSGD's ``L``); ``mu=`` is always the method's (rFedFair's smoothing), and refused naming ``class_mu=``
        for a method without one.
    return_instance : also extract the worst-case functions' data (:class:`~fairtheory.worstcase.results.Instance`,
        caller's units, ``x* = 0``), e.g. to replay the method on them with numpy
        (:class:`fairtheory.worstcase.replay.InterpolatedProblem`).
    certificate : attach ``.certificate``: a ``"linear"`` statement recording the traced recurrence (every
        evaluation's point on ``x0`` and the earlier gradients, :meth:`PEPProblem.linear_statement`) and rational
        dual multipliers proving ``value <= certificate.bound`` exactly (:func:`fairtheory.proofs.certificate.certify_pep`);
        the coefficients are the float64 numbers the trace computed (exactly the method's for dyadic step sizes and
        weights, e.g. ``lr = 0.5``, ``p = (1/2, 1/2)``; otherwise the method with its coefficients rounded to float64),
        the constraint levels and class parameters the exact rationals of the floats given.  Every measure and
        output is stated (``"best"``: the expectation of the per-leaf minimum, bounded through a convex combination of
        the candidates' measures); each client's class by its kernel key (:mod:`fairtheory_kernel.classes`, one per
        client when they differ).  The trusted kernel knows exact gradients and the classes of its table only:
        ``sigma2``, ``grad_eps``, ``prox_each``, ``constrained`` and relaxation classes are refused.

    Returns
    -------
    :class:`~fairtheory.worstcase.results.WorstCase` (``scale = S = L D0 + (rho2 + sigma2)/L``; ``extra``:
    ``trace_seconds``, ``branches``, ``noise_draws``, ``r_prim``, ``r_dual``, ``iterations``).  The rigorous
    bracket (:mod:`fairtheory.worstcase.bracket`) covers the value of ``"last"`` / ``"average"`` with exact gradients,
    no proximal steps and no constraint set; otherwise ``value`` is the solver's (``value_is == "solver"``, never
    :meth:`~fairtheory.worstcase.results.WorstCase.certified`, ``gap`` its duality gap).
    """
    rounds_i = check_integer(rounds, "rounds", low=1)
    max_branches = check_integer(max_branches, "max_branches", low=1)
    output = deprecated_value(output, _RENAMED_OUTPUTS, arg="output", where="traced.worst_case")
    if output not in OUTPUTS:
        raise FairtheoryValueError(f"output must be one of {OUTPUTS}, got {output!r}")
    measures = _measures(measure)
    if not callable(make):
        raise FairtheoryTypeError(f"make must be callable (an algorithm's make), got {type(make).__name__}")
    if not isinstance(certificate, (bool, np.bool_)):
        raise FairtheoryTypeError(f"certificate must be True or False, got {certificate!r}")
    hyper = {**dict(hyper or {}), **more}
    classes = _general_classes(function_class)
    if classes is None:
        L, mu = _class_keywords(make, L, class_mu, function_class, hyper)
    else:  # any class of fairtheory.worstcase.classes (issue 35): mu= can only be the method's
        if L is not None or class_mu is not None:
            raise FairtheoryValueError("give the function class once: function_class=... or L= with class_mu=, not both")
        _refuse_class_mu(make, hyper)
        mu = 0.0
    problem = PEPProblem(n, L=L, mu=mu, p=p, D0=D0, rho2=rho2, sigma2=sigma2, noise_atoms=noise_atoms,
                         grad_eps=grad_eps, constrained=constrained, classes=classes)
    if problem.constrained:
        _refuse_constrained(measures, output)
    if "value" in measures and any(getattr(c, "is_operator", False) for c in problem.classes or []):
        raise FairtheoryValueError("measure='value' is refused for an operator class (fairtheory.worstcase.operators: an "
                                   "operator has no function values); use 'grad_norm' (||sum_i p_i A_i(x)||^2) or "
                                   "'distance'")
    plain_measure = measures == ["value"] and output in ("last", "average")
    if certificate:
        _refuse_certificate(problem, measures, output)
    problem.size_guard = True  # a trace whose solve check_size would refuse stops early (branch blow-ups)
    try:
        tr = trace(make, rounds_i, problem, output=output, start=start, max_branches=max_branches, measure=measures,
                   **hyper)
    finally:
        problem.size_guard = False
    if certificate and problem.used_prox:
        raise FairtheoryValueError("certificate=True: the method takes proximal steps (prox_each); the trusted kernel "
                                   "(fairtheory_kernel.pep) checks gradient methods on smooth convex value "
                                   "statements only")
    c1, c2 = problem.constraints()
    pep = problem.pep
    extra_rows = problem.oracle_constraints + tr.constraints
    check_size(pep.dim, sum(len(f.points) * (len(f.points) - 1) for f in pep.functions) + len(extra_rows),
               "worst_case", n_functions=len(pep.functions))
    pep.add_le(c1)
    if c2 is not None:
        pep.add_le(c2)
    for row in extra_rows:
        pep.add_le(row)
    rigorous = plain_measure and problem.exact_oracle and problem.classes is None
    # homogeneity (fairtheory.worstcase.units): the PEP is posed in the problem's own units (x/s, f/S, noise and classes
    # normalised by their declared dimensions); a measure of another dimension than value is put at unit scale by the
    # exact power of two of its unit ("distance" ~ space^2 is ||x'||^2/L in value units, "grad_norm" L ||g'||^2), and
    # the value mapped back by the same factor.  Nothing else rescales: the engine solves these data as given (a
    # second, heuristic normalisation of checked_solve.pep_units read the level of ||x0||^2 <= L D0/S as a distance
    # unit: fedavg at sigma2 = 1e12 returned 3.5e10 for a worst case >= 1.25e11).
    k_obj = Fraction(1) if certificate else _objective_unit(problem, measures)  # certificates: the statement's units
    pep.maximize(tr.objective * float(k_obj) if k_obj != 1 else tr.objective)
    sol = pep.solve(tol=tol, raw=True)
    params = {"method": getattr(make, "__module__", "") + "." + getattr(make, "__qualname__", repr(make)),
              "rounds": rounds_i, "n": problem.n, "L": problem.L, "mu": problem.mu, "D0": problem.D0,
              "rho2": problem.rho2, "p": problem.p.tolist(), "output": output, "start": dict(start or {}),
              "hyper": {k: (v if isinstance(v, (int, float, str, type(None))) else repr(v)) for k, v in hyper.items()}}
    if problem.per_client:
        params.update(L_each=problem.L_each.tolist(), mu_each=problem.mu_each.tolist())
    if problem.classes is not None:
        params.update(function_class=[repr(c) for c in problem.classes], L_units=problem.L)
    if not plain_measure:
        params["measure"] = measures if len(measures) > 1 else measures[0]
    for k, v, default in (("sigma2", problem.sigma2, 0.0), ("noise_atoms", problem.noise_atoms, 2),
                          ("grad_eps", problem.grad_eps, 0.0)):
        if v != default and (k != "noise_atoms" or problem.sigma2 > 0):
            params[k] = v
    if problem.used_prox:
        params["prox"] = True
    if problem.constrained:
        params["constrained"] = True
    S = problem.S_exact / k_obj
    tpl = problem.linear_statement(tr.outputs, tr.measures) if certificate else None
    extra: dict[str, Any] = {"branches": len(tr.leaves), "trace_seconds": tr.seconds}
    if problem.sigma2 > 0:
        extra["noise_draws"] = problem.noise_draws
    if problem.constrained:
        extra["projections"] = problem.projections
    return finish_worst_case(pep, sol, S, params=params,
                             instance_of=(lambda s: instance(problem, s, params)) if return_instance else None,
                             certificate=tpl, extra=extra,
                             problem="traced worst_case", objective=tr.objective, x0=problem._x0n, n=problem.n,
                             p=problem.p, D0_level=problem.D0_level, rho2_level=problem.rho2_level, tol=tol,
                             rigorous=rigorous)


def _general_classes(function_class: Any) -> Any:
    """``function_class`` when it names a class other than :class:`~fairtheory.worstcase.classes.SmoothStronglyConvex`
    (one, or one per client): the clients are then functions of those classes (:class:`PEPProblem` ``classes=``);
    ``None`` otherwise (the smooth strongly convex path, its SDP data unchanged)."""
    if function_class is None:
        return None
    fcs = list(function_class) if isinstance(function_class, (list, tuple)) else [function_class]
    if fcs and all(isinstance(c, SmoothStronglyConvex) for c in fcs):
        return None
    return function_class


def _objective_unit(problem: PEPProblem, measures: list[str]) -> Fraction:
    """The exact power of two ``k`` by which the normalised objective is multiplied to be at unit scale: the measures
    are divided by the value unit ``S`` (:meth:`PEPProblem.measure`), so ``"distance"`` (dimension space^2) is
    ``||x'||^2 / L`` and ``"grad_norm"`` ((value/space)^2) ``L ||g'||^2``; ``k = 2^round(log2 of the geometric mean of
    L, 1/L)`` over the measures (1 for ``"value"``, and whenever ``L`` is within ``[2^-4, 2^4]``)."""

    logs = {"value": 0.0, "distance": math.log2(problem.L), "grad_norm": -math.log2(problem.L)}
    t = sum(logs[m] for m in measures) / max(len(measures), 1)
    k = units.pow2(2.0 ** t)
    return Fraction(1) if abs(math.log2(k)) <= 4 else k


def _refuse_certificate(problem: PEPProblem, measures: list[str], output: str) -> None:
    """``certificate=True`` only for what the trusted kernel checks: every client's class in its class table
    (:mod:`fairtheory_kernel.classes`; a class's ``kernel_class()`` names its entry, relaxations have none) and exact
    gradients; any measure and output.  Anything else is a named error before tracing."""
    what = []
    for c in problem.classes or []:
        if getattr(c, "kernel_class", None) is None or c.kernel_class() is None:
            what.append(f"function_class={c!r} (not in the kernel's class table: its conditions are not exact, or "
                        "not certifiable)")
            break
    if problem.sigma2 > 0:
        what.append("sigma2 > 0 (stochastic gradients)")
    if problem.grad_eps > 0:
        what.append("grad_eps > 0 (inexact gradients)")
    if problem.constrained:
        what.append("constrained=True (projections onto a convex set)")
    if what:
        raise FairtheoryValueError(
            "certificate=True cannot certify " + ", ".join(what) + ": the trusted kernel (fairtheory_kernel.pep) "
            "checks exact-gradient methods on the classes of its table (fairtheory_kernel.classes) only; drop "
            "certificate=True (the result then reports the solver's value)")


def _refuse_constrained(measures: list[str], output: str) -> None:
    """``constrained=True``: the measures that mean something for ``min_{x in C} sum_i p_i f_i`` (module doc of
    :mod:`fairtheory.worstcase.pep_problem`); the others are named errors before tracing."""
    if "grad_norm" in measures:
        raise FairtheoryValueError("measure='grad_norm' is refused with constrained=True: the gradient of "
                                   "sum_i p_i f_i does not vanish at a constrained minimiser; use 'value' or "
                                   "'distance'")
    if output == "best" and "value" in measures:
        raise FairtheoryValueError("output='best' with measure 'value' is refused with constrained=True: the "
                                   "candidates include x0, which may lie outside C (f(x0) - f* < 0 is possible); use "
                                   "output='last' / 'average' or measure='distance'")


def instance(problem: PEPProblem, sol: SDPSolution, params: dict[str, Any]) -> Instance:
    """Factor the Gram matrix (``G = V^T V``) and read every client's points ``(x, grad f_i(x), f_i(x))`` in the
    caller's units (``x* = 0``, ``f_i(x*) = 0``); the normalised PEP points are ``(x/s, g/(L s), f/S)`` of
    ``h_i' = f_i'/S - (mu_i/L)/2 ||x'||^2`` (:mod:`fairtheory.worstcase.pep_problem`; ``L = max_i L_i``)."""
    coords = gram_coordinates(sol)
    s, L, S = problem.s, problem.L, problem.unit

    pts = []
    for f, r in zip(problem.funcs, problem.r_each, strict=True):
        rows = []
        for pt in f.points:
            xn, gn = coords(pt.x), coords(pt.g) + r * coords(pt.x)
            fn = problem.pep.evaluate(pt.f, sol) + 0.5 * r * float(xn @ xn)
            rows.append((xn * s, gn * (L * s), fn * S))
        pts.append(rows)
    return Instance(x0=coords(problem._x0n) * s, points=pts, p=problem.p.copy(), L=L, params=params)
