r"""Exact worst case of local gradient descent with periodic averaging (FedAvg / rFedFair).

Setting (the smoothed problem of 002 App. C): ``n`` clients with weights ``p``, each client objective
``g_i`` (rFedFair's ``f^{mu,i}`` of ``theta = (w, eta)``) an arbitrary ``L``-smooth convex function on
``R^D`` (any ``D``), ``G = sum_i p_i g_i`` with minimiser ``theta*``.  002 Algorithm 1 with full
participation: step ``t = 0, ..., T - 1`` with ``T = T_N kappa + 2``; every client takes
``theta_i <- theta_i - beta grad g_i(theta_i)`` and when ``kappa`` divides ``t`` the server averages
``theta_{t+1} = sum_i p_i (theta_t^i - beta grad g_i(theta_t^i))`` and broadcasts (002's step ``beta`` is
:func:`local_gd_worst_case`'s ``lr``, as in ``rfedfair.make`` / ``fedavg.make``).  Outputs:

* ``"002"`` (002 Alg. 1): ``theta_tilde = 1/(T_N+1) sum_{r=0}^{T_N} theta_{r kappa + 1}``;
* ``"000"`` (000 Alg. 1): ``theta_tilde = 1/T sum_{t=0}^{T-1} sum_i p_i theta_t^i``;
* ``"last"``: the last server model ``theta_{T_N kappa + 1}`` (``T_N kappa + 1`` gradient steps; with
  ``n = 1`` this is gradient descent, whose exact worst case ``L D0/(4N+2)`` at ``beta = 1/L`` is
  Drori & Teboulle 2014).

With ``K`` given, partial participation (002 Thm. 2): at every averaging the server takes the plain
mean of ``K`` clients drawn i.i.d. with replacement by ``p`` (all clients run the local steps, 002
App. D eq. D.1); the PEP then maximises the *expectation* over the draws, one branch per draw outcome
(exponential in ``T_N``: tiny ``n, K, T_N`` only).

The PEP maximises ``G(theta_tilde) - G(theta*)`` over all such functions with
``||theta_0 - theta*||^2 <= D0`` and ``rho^2 = sum_i p_i ||grad g_i(theta*)||^2 <= rho2``
(``sum_i p_i grad g_i(theta*) = 0``).  Internally everything is scaled to ``L = 1`` and
``D0 + rho2/L^2 = 1``; the results are scaled back by ``L D0 + rho2/L`` (computed exactly with
rationals, so a finite worst case comes out finite for any ``L``; a value beyond the float range is
``inf`` and never :meth:`WorstCase.certified`).  ``certificate=True`` builds the PEP with exact
rational data and attaches a :class:`fairtheory.proofs.certificate.Certificate` (rational dual
multipliers proving an upper bound exactly).  See docs/worstcase.md and docs/proofs.md.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from fairtheory._validation import check_in_range, check_integer, check_positive, check_probability_vector
from fairtheory.algorithms.names import accepts_old_names
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError, SolverError
from fairtheory.worstcase.sdp import PEP, Function, Scalar, SDPSolution, Vec, gram_coordinates, num, sqnorm, vsum

__all__ = ["WorstCase", "Instance", "local_gd_worst_case", "worst_case_vs_rounds", "build_local_gd",
           "report_value", "TINY", "MAX_PEP_DIM", "MAX_PEP_ROWS", "MAX_SOLVE_SECONDS", "estimate_size", "check_size",
           "estimated_seconds", "scaled"]

Output = Literal["002", "000", "last"]

#: results below ``TINY * L * D0`` are reported as such, never as exact values
TINY = 1e-6

#: largest Gram dimension a worst-case PEP may have (beyond it the dense builder and Clarabel need
#: many GiB and hours; :func:`check_size` refuses before allocating)
MAX_PEP_DIM = 600
#: largest number of interpolation conditions a worst-case PEP may have
MAX_PEP_ROWS = 150_000


#: refuse a PEP whose estimated solve time (:func:`estimated_seconds`) exceeds this many seconds; raise it (module
#: attribute) to accept longer solves
MAX_SOLVE_SECONDS = 60.0


def estimated_seconds(dim: int, rows: int) -> float:
    """A rough upper estimate of one Clarabel solve of a PEP (2 cores, measured: Gram dimension 32 with 1k
    conditions 1.3 s, dimension 88 with 3.8k conditions 90-170 s): ``1.5 (dim/32)^4.2 + 1e-4 rows`` seconds.
    A worst case may solve up to four times (:mod:`fairtheory.worstcase.bracket`)."""
    return 1.5 * (dim / 32.0) ** 4.2 + 1e-4 * rows


def check_size(dim: int, rows: int, what: str, *, n_functions: int = 2, symmetric: bool = False) -> None:
    """Refuse a PEP beyond :data:`MAX_PEP_DIM` / :data:`MAX_PEP_ROWS` (memory) or :data:`MAX_SOLVE_SECONDS`
    (time, :func:`estimated_seconds`; for a PEP that :meth:`~fairtheory.worstcase.sdp.PEP.solve` routes to the
    sparse solve, :func:`fairtheory.worstcase.sparse_solve.sparse_route` with ``n_functions``, its own estimate;
    ``symmetric``: identical clients solved by :func:`fairtheory.worstcase.symmetric.solve_symmetric`, its estimate):
    a named error, before any allocation or solve."""
    if dim > MAX_PEP_DIM or rows > MAX_PEP_ROWS:
        raise FairtheoryValueError(
            f"{what}: the PEP would have Gram dimension ~{dim} and ~{rows} interpolation conditions, beyond the "
            f"limit (Gram dimension <= {MAX_PEP_DIM}, conditions <= {MAX_PEP_ROWS}); use fewer rounds / steps / clients")
    from fairtheory.worstcase.sparse_solve import sparse_estimated_seconds, sparse_route

    est = sparse_estimated_seconds(rows) if sparse_route(dim, n_functions) else estimated_seconds(dim, rows)
    if symmetric and n_functions >= 2:
        from fairtheory.worstcase.symmetric import symmetric_estimated_seconds

        est = symmetric_estimated_seconds(dim // n_functions, rows // n_functions)
    if est > MAX_SOLVE_SECONDS:
        raise FairtheoryValueError(
            f"{what}: the PEP would have Gram dimension ~{dim} and ~{rows} interpolation conditions: one solve is "
            f"estimated at ~{est:.0f} s, beyond MAX_SOLVE_SECONDS = {MAX_SOLVE_SECONDS:g} s "
            "(fairtheory.worstcase.local_gd.MAX_SOLVE_SECONDS; raise it to wait longer); use fewer rounds / steps / "
            "clients / draws")


def estimate_size(*, n: int, kappa: int, T_N: int, K: int | None = None, first_steps: int = 1) -> tuple[int, int]:
    """Upper estimate ``(Gram dimension, interpolation conditions)`` of the local-GD PEP (exact integers,
    no allocation): every client is evaluated at every local iterate of every branch and at the output."""
    m = 1 if K is None else math.comb(n + K - 1, K)
    nodes, evals = 1, 0
    for r in range(T_N + 1):
        evals += nodes * (first_steps if r == 0 else kappa)
        nodes *= m
    evals += nodes  # the outputs
    pts = evals + 1  # plus the optimum
    return n * evals + n, n * pts * (pts - 1)


def scaled(x: float, scale: Fraction) -> float:
    """``x * scale`` computed exactly and rounded once (``+-inf`` beyond the float range, never an error)."""
    if not math.isfinite(x):
        return x
    v = Fraction(x) * scale
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def units(L: float, D0: float, rho2: float) -> tuple[Fraction, Fraction, Fraction]:
    """Exact ``(S, D0', rho2')``: the scale ``S = L D0 + rho2/L`` of values and the normalised constraint
    levels ``D0' = L D0/S``, ``rho2' = (rho2/L)/S`` (``D0' + rho2' = 1``)."""
    Lq, Dq, Rq = Fraction(L), Fraction(D0), Fraction(rho2)
    S = Lq * Dq + Rq / Lq
    return S, Lq * Dq / S, (Rq / Lq) / S


@dataclass
class Instance:
    """A worst-case instance extracted from a PEP solution (original units).

    ``points[i]`` is a list of ``(x, g, f)`` triples of client ``i`` (``x`` and ``g`` in ``R^dim``,
    ``theta* = 0`` and ``g_i(theta*) = 0`` by convention); ``x0`` is the starting point."""

    x0: np.ndarray
    points: list[list[tuple[np.ndarray, np.ndarray, float]]]
    p: np.ndarray
    L: float
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def dim(self) -> int:
        return int(self.x0.size)


@dataclass
class WorstCase:
    """Result of a worst-case (PEP) computation, in the caller's units.

    The worst case ``W`` (the supremum over the class) is bracketed by two numbers that do not trust the solver's
    value (:mod:`fairtheory.worstcase.bracket`): ``upper``, a rigorous upper bound from the solver's multipliers
    with every rounding error bounded, and ``lower``, the value the method reaches on explicit ``L``-smooth convex
    functions rebuilt from the solution (the replayed instance).  ``value_is`` says which one ``value`` is:

    * ``"upper"``: the bracket closed (``upper`` within ``1e-6`` of the solver's value, the replay within
      ``1e-4``): ``value = upper``, a rigorous upper bound, and :meth:`certified` holds;
    * ``"lower"``: no rigorous bound close enough (a badly conditioned PEP, e.g. ``lr L`` near 100): ``value =
      lower``, reached by the replayed instance (within ``1e-4`` of the solver's value, and ``upper`` within 5%);
      never certified;
    * ``"solver"``: the bracket does not apply - it is derived for the value measure of smooth (strongly) convex
      clients queried by exact gradients, and a traced worst case with stochastic (``sigma2``) or inexact
      (``grad_eps``) gradients, proximal steps (``prox_each``), another measure (``"grad_norm"``,
      ``"distance"``, a minimum of several) or ``output="best"`` is none of these: ``value`` is the solver's primal
      value, ``lower = nan``, ``upper = inf``, never certified; ``gap`` (dual minus primal) says how far the
      solver's two values agree (the solve must report ``Solved``, or ``AlmostSolved`` with
      ``|gap| <= 1e-4 max(|value|, scale)``, else :class:`~fairtheory.errors.SolverError`).

    A solve that is none of these raises :class:`~fairtheory.errors.SolverError`.  ``dual_value`` / ``gap`` are the
    solver's own (not rigorous); ``extra["solver_value"]`` its primal value."""

    value: float
    dual_value: float
    gap: float
    status: str
    dim: int
    n_constraints: int
    seconds: float
    build_seconds: float
    scale: float
    params: dict[str, Any]
    instance: Instance | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    certificate: Any = None  #: :class:`fairtheory.proofs.certificate.Certificate` when asked for
    lower: float = math.nan  #: value reached by the replayed instance (a lower bound on the worst case)
    upper: float = math.inf  #: rigorous upper bound (``inf`` when none could be derived)
    value_is: str = "upper"  #: ``"upper"``, ``"lower"`` or ``"solver"``: which number ``value`` is

    @property
    def solved(self) -> bool:
        return self.status == "Solved"

    @property
    def rel_gap(self) -> float:
        return abs(self.gap) / max(abs(self.value), abs(self.dual_value), 1e-300)

    def certified(self, tol: float = 1e-6) -> bool:
        """``value`` is a rigorous upper bound (``value_is == "upper"``) within ``tol * max(|value|, scale)`` of
        the solver's value, which the replayed instance reaches (``scale`` = the class's unit ``L D0 + rho2/L``);
        never for a non-finite value or scale."""
        sv = self.extra.get("solver_value", self.value)
        if not all(math.isfinite(x) for x in (self.value, self.upper, self.lower, self.scale, sv)):
            return False
        return self.value_is == "upper" and self.upper - sv <= tol * max(abs(self.value), self.scale)


def report_value(value: float, L: float, D0: float) -> str:
    """``value`` as text, or ``"below 1e-6 L D0"`` when it is below ``TINY L D0`` (not resolvable)."""
    if value < TINY * L * D0:
        return "below 1e-6 L D0"
    return f"{value:.6g}"


# ------------------------------------------------------------------------------------------ builder
@dataclass
class Built:
    """Symbols of a built local-GD PEP (normalised units)."""

    pep: PEP
    funcs: list[Function]
    x0: Vec
    stars: list[Vec]
    objective: Scalar
    leaves: int


def _outcomes(p: np.ndarray, K: int) -> list[tuple[float, np.ndarray]]:
    """Multisets of ``K`` i.i.d. draws by ``p``: (probability, counts)."""
    n = p.size
    out = []
    for combo in itertools.combinations_with_replacement(range(n), K):
        counts = np.bincount(combo, minlength=n)
        prob = math.factorial(K) * np.prod([p[i] ** c / math.factorial(c) for i, c in enumerate(counts)])
        if prob > 0:
            out.append((float(prob), counts.astype(np.float64)))
    return out


def build_local_gd(*, n: int, p: Any, beta: Any, kappa: int, T_N: int, output: Output,
                   K: int | None = None, L: Any = 1.0, first_steps: int = 1, exact: bool = False) -> Built:
    r"""Build the local-GD PEP symbols: clients, starting point ``theta_0 - theta*`` (a basis vector),
    the clients' optimum gradients (``sum_i p_i g_i* = 0`` eliminated), and the objective
    ``E[G(theta_tilde)] - G*`` (``G* = 0``: ``g_i(theta*) = 0`` for every client).  ``first_steps``: local
    steps of the first round (1 in 002 Alg. 1; ``kappa`` gives FedAvg's schedule of ``T_N + 1`` equal rounds).
    ``exact=True``: rational PEP data (pass :class:`Fraction` ``p``, ``beta``, ``L``; ``K`` must be None)."""
    if exact and K is not None:
        raise FairtheoryValueError("exact (certificate) PEPs support full participation only (K=None)")
    pep = PEP(exact=exact)
    funcs, stars = pep.clients_at_optimum(n, p, L)
    x0 = pep.vector()
    outcomes = None if K is None else _outcomes(p, K)

    def local(theta: Vec, steps: int) -> tuple[list[Vec], list[Vec]]:
        Y = [theta] * n
        avgs = []
        for s in range(steps):
            Y = [Y[i] - beta * funcs[i].grad(Y[i]) for i in range(n)]
            if s < steps - 1:
                avgs.append(vsum(Y, p))
        return Y, avgs

    # nodes: (probability, server model, server path, virtual-average path)
    nodes: list[tuple[Any, Vec, list[Vec], list[Vec]]] = [(1, x0, [], [x0])]
    for r in range(T_N + 1):
        steps = first_steps if r == 0 else kappa
        new_nodes = []
        for prob, theta, spath, vpath in nodes:
            Y, avgs = local(theta, steps)
            if outcomes is None:
                branches = [(1, vsum(Y, p))]
            else:
                branches = [(q, vsum(Y, c / K)) for q, c in outcomes]
            for q, srv in branches:
                new_nodes.append((prob * q, srv, spath + [srv], vpath + avgs + [srv]))
        nodes = new_nodes
    obj = Scalar()
    for prob, theta, spath, vpath in nodes:
        if output == "002":
            out = vsum(spath) / len(spath)
        elif output == "000":
            out = vsum(vpath) / len(vpath)
        else:
            out = theta
        for i in range(n):
            obj = obj + (prob * num(p[i])) * funcs[i].value(out)
    return Built(pep, funcs, x0, stars, obj, len(nodes))


def rho2_expr(b: Built, p: np.ndarray) -> Scalar:
    """``sum_i p_i ||g_i(theta*)||^2`` as a Gram expression."""
    s = Scalar()
    for pi, g in zip(p, b.stars, strict=True):
        s = s + num(pi) * sqnorm(g)
    return s


def _check(n: Any, kappa: Any, T_N: Any, lr: Any, L: Any, p: Any, output: Any,
           K: Any) -> tuple[int, int, int, float, float, np.ndarray, str, int | None]:
    n_i = check_integer(n, "n", low=1)
    kappa_i = check_integer(kappa, "kappa", low=1)
    T_N_i = check_integer(T_N, "T_N", low=0)
    beta_f = check_positive(lr, "lr")
    L_f = check_positive(L, "L")
    p_arr = np.full(n_i, 1.0 / n_i) if p is None else check_probability_vector(p, "p")
    if p_arr.shape != (n_i,):
        raise FairtheoryValueError(f"p must have shape ({n_i},), got {p_arr.shape}")
    if np.any(p_arr <= 0):
        raise FairtheoryValueError("p must be positive (a client of weight 0 plays no part)")
    if output not in ("002", "000", "last"):
        raise FairtheoryValueError(f"output must be '002', '000' or 'last', got {output!r}")
    K_i = None if K is None else check_integer(K, "K", low=1)
    return n_i, kappa_i, T_N_i, beta_f, L_f, p_arr, str(output), K_i


def extract_instance(b: Built, sol: SDPSolution, *, unit: float, L: float, p: np.ndarray,
                     params: dict[str, Any]) -> Instance:
    """Factor the Gram matrix (``G = V^T V``) and read every client's points in original units.

    Normalised coordinates: ``x' = x/sqrt(unit)``, ``g' = g/(L sqrt(unit))``, ``f' = f/(L unit)``."""
    coords = gram_coordinates(sol)
    su = math.sqrt(unit)

    pts = []
    for f in b.funcs:
        rows = []
        for pt in f.points:
            fv = b.pep.evaluate(pt.f, sol)
            rows.append((coords(pt.x) * su, coords(pt.g) * (L * su), fv * L * unit))
        pts.append(rows)
    return Instance(x0=coords(b.x0) * su, points=pts, p=p.copy(), L=L, params=params)


@accepts_old_names("rfedfair")  # beta= (002's symbol) -> lr=, with a DeprecationWarning
def local_gd_worst_case(*, n: int, kappa: int, T_N: int, lr: float, L: float, D0: float, rho2: float,
                        p: Any = None, output: Output = "002", K: int | None = None,
                        schedule: Literal["rfedfair", "fedavg"] = "rfedfair",
                        return_instance: bool = False, tol: float = 1e-8, certificate: bool = False,
                        symmetric: bool | None = None) -> WorstCase:
    r"""Exact worst case of ``G(theta_tilde) - G*`` for local GD with averaging (see the module doc).

    Parameters
    ----------
    n : clients (``>= 1``; ``n = 2`` suffices for many questions, larger ``n`` grows the SDP).
    kappa : local steps per round.  T_N : rounds after the first averaging (``T = T_N kappa + 2``).
    lr : the clients' step size (002's ``beta``; ``beta=`` is accepted for one release with a
        :class:`DeprecationWarning`, :mod:`fairtheory.algorithms.names`).
    L : smoothness of every client.  D0 : bound on ``||theta_0 - theta*||^2``.
    rho2 : bound on ``sum_i p_i ||grad g_i(theta*)||^2``.  p : client weights (default uniform).
    output : ``"002"``, ``"000"`` or ``"last"``.  K : draws per averaging (partial participation;
        the value is then the worst *expected* suboptimality).
    schedule : ``"rfedfair"`` (002 Alg. 1: a first averaging after one step, then ``T_N`` rounds of
        ``kappa`` steps) or ``"fedavg"`` (:mod:`fairtheory.algorithms.fedavg`: ``T_N + 1`` rounds of
        ``kappa`` steps; the outputs are then the same averages of its server models / local iterates).
    return_instance : also return the worst-case functions' data at the iterates (:class:`Instance`).
    symmetric : identical clients (equal weights, ``K = None``, ``n >= 2``) solved by the symmetric reduction
        (:mod:`fairtheory.worstcase.symmetric`; falls back to the dense solve where its bracket does not close and
        the dense one is affordable): ``None`` (default) from Gram dimension
        :data:`~fairtheory.worstcase.symmetric.SYMMETRIC_MIN_DIM` on, ``True`` always, ``False`` never.
    certificate : build the PEP with exact rational data (the float parameters as given, e.g.
        ``lr = 0.1`` is the binary double nearest 1/10; uniform ``p`` is exactly ``1/n``) and attach
        ``.certificate``: rational dual multipliers proving ``value <= certificate.bound`` exactly
        (:mod:`fairtheory.proofs.certificate`; full participation only).

    Returns
    -------
    :class:`WorstCase` with ``value`` (the worst case), ``status``, ``gap`` (dual minus primal),
    ``dim`` (Gram size), ``n_constraints``, ``seconds``.

    Raises
    ------
    FairtheoryValueError : invalid arguments, or a PEP beyond :data:`MAX_PEP_DIM` / :data:`MAX_PEP_ROWS`.
    """
    n_i, kappa_i, T_N_i, beta_f, L_f, p_arr, out, K_i = _check(n, kappa, T_N, lr, L, p, output, K)
    D0_f = check_in_range(D0, "D0", low=0.0)
    rho2_f = check_in_range(rho2, "rho2", low=0.0)
    if D0_f == 0 and rho2_f == 0:
        raise FairtheoryValueError("D0 and rho2 are both 0: the worst case is 0 (nothing to compute)")
    if schedule not in ("rfedfair", "fedavg"):
        raise FairtheoryValueError(f"schedule must be 'rfedfair' or 'fedavg', got {schedule!r}")
    first = 1 if schedule == "rfedfair" else kappa_i
    # identical clients (equal weights, full participation): the symmetric reduction (docs/worstcase.md)
    if symmetric not in (None, True, False):
        raise FairtheoryValueError(f"symmetric must be None, True or False, got {symmetric!r}")
    from fairtheory.worstcase.symmetric import SYMMETRIC_MIN_DIM

    sym_ok = n_i >= 2 and K_i is None and bool(np.all(p_arr == p_arr[0])) and symmetric is not False
    if symmetric is None:
        sym_ok = sym_ok and estimate_size(n=n_i, kappa=kappa_i, T_N=T_N_i, first_steps=first)[0] >= SYMMETRIC_MIN_DIM
    check_size(*estimate_size(n=n_i, kappa=kappa_i, T_N=T_N_i, K=K_i, first_steps=first), "local_gd_worst_case",
               n_functions=n_i, symmetric=sym_ok)
    S, D0n, R2n = units(L_f, D0_f, rho2_f)
    if certificate and K_i is not None:
        raise FairtheoryValueError("certificate=True supports full participation only (K=None)")
    p_b, beta_b, lvl_D, lvl_R = p_arr, float(Fraction(beta_f) * Fraction(L_f)), float(D0n), float(R2n)
    b = build_local_gd(n=n_i, p=p_b, beta=beta_b, kappa=kappa_i, T_N=T_N_i, output=out, K=K_i,  # type: ignore[arg-type]
                       first_steps=first)
    b.pep.add_le(sqnorm(b.x0) - lvl_D)
    if n_i > 1:
        b.pep.add_le(rho2_expr(b, p_b) - lvl_R)
    b.pep.maximize(b.objective)
    if sym_ok:
        from fairtheory.worstcase.symmetric import attach

        attach(b.pep, b.funcs, b.stars, b.x0, p_b)
    sol = b.pep.solve(tol=tol, raw=True)
    unit = scaled(1.0, S / Fraction(L_f))
    params = {"n": n_i, "kappa": kappa_i, "T_N": T_N_i, "beta": beta_f, "L": L_f, "D0": D0_f, "rho2": rho2_f,
              "p": p_arr.tolist(), "output": out, "K": K_i, "schedule": schedule}
    def inst(s: SDPSolution) -> Instance:
        return extract_instance(b, s, unit=unit, L=L_f, p=p_arr, params=params)

    tpl = None
    if certificate:
        from fairtheory.proofs.certificate import statement

        tpl = statement(method={"name": "local_gd", "kappa": kappa_i, "T_N": T_N_i, "beta": beta_f, "schedule": schedule,
                                "output": out}, n=n_i, p=exact_weights(p, p_arr), L=L_f,
                        bound={"form": "constrained", "D0": D0_f, "rho2": rho2_f, "value": 0})
    def finish(s: SDPSolution, cert: dict[str, Any] | None) -> WorstCase:
        return finish_worst_case(b.pep, s, S, params=params, instance_of=inst if return_instance else None,
                                 extra={"branches": b.leaves}, certificate=cert, problem="local_gd_worst_case",
                                 objective=b.objective, x0=b.x0, n=n_i, p=p_b, D0_level=D0n, rho2_level=R2n, tol=tol)

    if getattr(b.pep, "symmetry", None) is None:
        return finish(sol, tpl)
    # the symmetric reduction (fairtheory.worstcase.symmetric); where its bracket does not close and the dense route
    # is affordable, the dense route as before (docs/worstcase.md, "Identical clients")
    dense_ok = estimated_seconds(*estimate_size(n=n_i, kappa=kappa_i, T_N=T_N_i, first_steps=first)) <= MAX_SOLVE_SECONDS
    try:
        wc: WorstCase | None = finish(sol, None)
    except SolverError:
        if not dense_ok:
            raise
        wc = None
    if wc is None or (not wc.certified() and dense_ok):
        b.pep.symmetry = None  # type: ignore[attr-defined]
        wc = finish(b.pep.solve(tol=tol, raw=True), None)
        wc.extra["symmetric"] = "not certified: dense route"
    else:
        wc.extra["symmetric"] = "reduced"
    if tpl is not None:
        from fairtheory.proofs.certificate import certify_pep

        wc.certificate = certify_pep(tpl, meta={"problem": "local_gd_worst_case", "params": params})
    return wc


def exact_weights(p: Any, p_arr: np.ndarray) -> list[Fraction]:
    """Client weights as exact rationals for a certificate statement: ``1/n`` each when ``p`` is None, else the
    rationals the weights are (exact :class:`Fraction` inputs kept); they must sum to 1 exactly."""
    n = p_arr.size
    if p is None:
        return [Fraction(1, n)] * n
    out = [x if isinstance(x, Fraction) else Fraction(float(x)) for x in (list(p) if not isinstance(p, np.ndarray)
                                                                            else p.tolist())]
    if sum(out) != 1:
        raise FairtheoryValueError(f"certificate=True needs client weights p that sum to 1 exactly as rationals (e.g. "
                                   f"Fractions, or binary fractions such as 0.25, 0.75); got {p_arr.tolist()}")
    return out


def finish_worst_case(pep: PEP, sol: SDPSolution, S: Fraction, *, params: dict[str, Any],
                      instance_of: Callable[[SDPSolution], Instance] | None, extra: dict[str, Any],
                      certificate: dict[str, Any] | None, problem: str, objective: Scalar, x0: Vec, n: int, p: Any,
                      D0_level: Any, rho2_level: Any, tol: float = 1e-8, rigorous: bool = True) -> WorstCase:
    """A solved PEP in the caller's units: bracketed (:func:`fairtheory.worstcase.bracket.solve_bracketed`: a
    rigorous upper bound, a replayed lower bound, re-solves when they do not meet), every value times the exact
    unit ``S = L D0 + rho2/L`` (rounded once, :func:`scaled`; the upper bound rounded up), the solver's
    diagnostics in ``extra``, and with ``certificate`` (a statement template,
    :func:`fairtheory.proofs.certificate.statement`) the exact rational dual certificate of that statement
    (:func:`fairtheory.proofs.certificate.certify_pep`, the SDP rebuilt from the statement by the trusted kernel).
    ``instance_of(sol)``: the worst-case functions' data of the solution kept.  Shared by the hand-written and
    traced PEPs.  ``rigorous=False`` (a PEP the bracket does not cover, :class:`WorstCase` ``"solver"``): the
    solver's value, unbracketed."""
    from fairtheory.worstcase.bracket import REPLAY_RTOL, primal_objective, solve_bracketed

    solver_only = not rigorous
    if solver_only:
        v = primal_objective(sol)
        if not (sol.status == "Solved" or (sol.status == "AlmostSolved" and math.isfinite(sol.gap)
                                           and abs(sol.gap) <= REPLAY_RTOL * max(abs(v), 1.0))):
            raise SolverError(f"{problem}: Clarabel status {sol.status} (gap {sol.gap:.3g}, r_prim {sol.r_prim:.3g}, "
                              f"r_dual {sol.r_dual:.3g}); this worst case has no rigorous bracket, so only a solved "
                              "SDP is reported", "Clarabel", sol.status)
        lower, upper, ok = math.nan, math.inf, False
        value = scaled(v, S)
        info = {"solver_value": value, "solves": ["plain"]}
    elif math.isfinite(scaled(1.0, S)):
        sol, br, ok, tried = solve_bracketed(pep, sol, objective, tol=tol, x0=x0, n=n, p=p, D0_level=D0_level,
                                             rho2_level=rho2_level)
        v = primal_objective(sol)
        lower, upper = scaled(br.lower, S), scaled(br.upper, S)
        upper = math.nextafter(upper, math.inf) if math.isfinite(upper) else upper
        value = upper if ok else lower
        info = {"solver_value": scaled(v, S), "solves": tried,
                **{f"bracket_{k}": val for k, val in br.info.items()}}
    else:  # the unit is beyond the float range: no finite value to report
        v, lower, upper, ok = sol.value, math.nan, math.inf, False
        value = scaled(v, S)
        info = {"solver_value": value, "solves": ["plain"]}
    wc = WorstCase(value=value, dual_value=scaled(sol.dual_value, S), gap=scaled(sol.gap, S),
                   status=sol.status, dim=sol.dim, n_constraints=sol.n_constraints, seconds=sol.seconds,
                   build_seconds=sol.build_seconds, scale=scaled(1.0, S), params=params,
                   instance=instance_of(sol) if instance_of is not None and math.isfinite(scaled(1.0, S)) else None,
                   extra={"iterations": sol.iterations, "r_prim": sol.r_prim, "r_dual": sol.r_dual,
                          "n_interp": sol.n_interp, "value_normalised": v, **info, **extra},
                   lower=lower, upper=upper, value_is="solver" if solver_only else ("upper" if ok else "lower"))
    if certificate is not None:
        from fairtheory.proofs.certificate import certify_pep

        wc.certificate = certify_pep(certificate, meta={"problem": problem, "params": params})
    return wc


def worst_case_vs_rounds(*, T_N_values: Any, **kw: Any) -> dict[str, np.ndarray]:
    r""":func:`local_gd_worst_case` for every ``T_N`` in ``T_N_values`` (one SDP each), for plotting the
    worst case between a measured curve and a theorem's bound.

    Returns ``{"T_N", "value", "gap", "status_ok"}`` arrays (``status_ok``: :meth:`WorstCase.certified`)."""
    if isinstance(T_N_values, (str, bytes)) or not isinstance(T_N_values, Iterable):
        raise FairtheoryTypeError(f"T_N_values must be an iterable of integers >= 0, got {T_N_values!r}")
    Ts = [check_integer(t, "T_N_values[...]", low=0) for t in T_N_values]
    if not Ts:
        raise FairtheoryValueError("T_N_values must not be empty")
    res = [local_gd_worst_case(T_N=t, **kw) for t in Ts]
    return {"T_N": np.array(Ts), "value": np.array([r.value for r in res]),
            "gap": np.array([r.gap for r in res]), "status_ok": np.array([r.certified() for r in res])}
