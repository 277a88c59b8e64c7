r"""Exact worst case of local gradient descent with periodic averaging (FedAvg / rFedFair).

Setting (the smoothed problem of 002 App. C): ``n`` clients with weights ``p``, each client objective
``g_i`` (rFedFair's ``f^{mu,i}`` of ``theta = (w, eta)``) an arbitrary ``L``-smooth convex function on
``R^D`` (any ``D``), ``G = sum_i p_i g_i`` with minimiser ``theta*``.  002 Algorithm 1 with full
participation: step ``t = 0, ..., T - 1`` with ``T = T_N kappa + 2``; every client takes
``theta_i <- theta_i - lr grad g_i(theta_i)`` and when ``kappa`` divides ``t`` the server averages
``theta_{t+1} = sum_i p_i (theta_t^i - lr grad g_i(theta_t^i))`` and broadcasts (002's step ``beta`` is
:func:`local_gd_worst_case`'s ``lr``, as in ``rfedfair.make`` / ``fedavg.make``).  Outputs
(:data:`fairtheory.algorithms.names.OUTPUT_RENAMES`: the old names ``"002"`` / ``"000"`` warn for one release):

* ``"average"`` (002 Alg. 1's output): ``theta_tilde = 1/(T_N+1) sum_{r=0}^{T_N} theta_{r kappa + 1}``, the mean of
  the server models;
* ``"path_average"`` (000 Alg. 1's output): ``theta_tilde = 1/T sum_{t=0}^{T-1} sum_i p_i theta_t^i``, the mean of
  every averaged iterate from ``theta_0`` on;
* ``"last"``: the last server model ``theta_{T_N kappa + 1}`` (``T_N kappa + 1`` gradient steps; with
  ``n = 1`` this is gradient descent, whose exact worst case ``L D0/(4N+2)`` at ``lr = 1/L`` is
  Drori & Teboulle 2014).

Normalised step (the one definition): ``h = lr L``, the step in units of ``1/L``.  The PEP below is posed at
``L = 1`` with step ``h``, and the worst case in units of ``L D0 + rho2/L`` depends on ``lr`` and ``L`` through ``h``
only; the proof APIs that range over steps take ``h`` (``fairtheory.proofs.prove_potential(..., h=(lo, hi))``,
``prove_family(..., h=(lo, hi))`` and their certificates' ``bound(h=...)``), everything else takes ``lr``.

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
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import numpy as np

from fairtheory._validation import check_in_range, check_integer, check_positive, check_probability_vector
from fairtheory.algorithms.names import output_name, refuses_old_names
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError, SolverError
from fairtheory.proofs.certificate import certify_pep, statement
from fairtheory.worstcase.bracket import CERTIFY_RTOL, bracket, class_data, norm_bounds, primal_objective
from fairtheory.worstcase.exact_repair import exact_bracket, float_up
from fairtheory.worstcase.finish import exact_weights, finish_worst_case
from fairtheory.worstcase.gram import Scalar, Vec, gram_coordinates, num, sqnorm, vsum
from fairtheory.worstcase.kkt_bracket import KKT_RTOL, kkt_bracket
from fairtheory.worstcase.limits import check_size
from fairtheory.worstcase.results import Instance, WorstCase, scaled, units
from fairtheory.worstcase.sdp import PEP, Function
from fairtheory.worstcase.solvers import SDPSolution
from fairtheory.worstcase.symmetric import AUTO_SCALE_MIN_BLOCK, SYMMETRIC_DENSE_FALLBACK_DIM, SYMMETRIC_MIN_DIM, attach

__all__ = ["local_gd_worst_case", "worst_case_vs_rounds", "build_local_gd", "estimate_size", "rho2_expr",
           "extract_instance", "Built", "OUTPUTS"]

Output = Literal["average", "path_average", "last"]
#: the output names, in the order of the module doc
OUTPUTS = ("average", "path_average", "last")


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


def build_local_gd(*, n: int, p: Any, lr: Any, kappa: int, T_N: int, output: Output,
                   K: int | None = None, L: Any = 1.0, first_steps: int = 1, exact: bool = False) -> Built:
    r"""Build the local-GD PEP symbols: clients, starting point ``theta_0 - theta*`` (a basis vector),
    the clients' optimum gradients (``sum_i p_i g_i* = 0`` eliminated), and the objective
    ``E[G(theta_tilde)] - G*`` (``G* = 0``: ``g_i(theta*) = 0`` for every client).  ``first_steps``: local
    steps of the first round (1 in 002 Alg. 1; ``kappa`` gives FedAvg's schedule of ``T_N + 1`` equal rounds).
    ``exact=True``: rational PEP data (pass :class:`Fraction` ``p``, ``lr``, ``L``; ``K`` must be None)."""
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
            Y = [Y[i] - lr * funcs[i].grad(Y[i]) for i in range(n)]
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
        if output == "average":
            out = vsum(spath) / len(spath)
        elif output == "path_average":
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
    lr_f = check_positive(lr, "lr")
    L_f = check_positive(L, "L")
    p_arr = np.full(n_i, 1.0 / n_i) if p is None else check_probability_vector(p, "p")
    if p_arr.shape != (n_i,):
        raise FairtheoryValueError(f"p must have shape ({n_i},), got {p_arr.shape}")
    if np.any(p_arr <= 0):
        raise FairtheoryValueError("p must be positive (a client of weight 0 plays no part)")
    if output not in OUTPUTS:
        raise FairtheoryValueError(f"output must be 'average', 'path_average' or 'last', got {output!r}")
    K_i = None if K is None else check_integer(K, "K", low=1)
    return n_i, kappa_i, T_N_i, lr_f, L_f, p_arr, str(output), K_i


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


@refuses_old_names("rfedfair")  # beta= (002's symbol) is refused naming lr=
def local_gd_worst_case(*, n: int, kappa: int, T_N: int, lr: float, L: float, D0: float, rho2: float,
                        p: Any = None, output: Output = "average", K: int | None = None,
                        schedule: Literal["rfedfair", "fedavg"] = "rfedfair",
                        return_instance: bool = False, tol: float = 1e-8, certificate: bool = False,
                        symmetric: bool | None = None, bracket: bool = True) -> WorstCase:
    r"""Exact worst case of ``G(theta_tilde) - G*`` for local GD with averaging (see the module doc).

    Parameters
    ----------
    n : clients (``>= 1``; ``n = 2`` suffices for many questions, larger ``n`` grows the SDP).
    kappa : local steps per round.  T_N : rounds after the first averaging (``T = T_N kappa + 2``).
    lr : the clients' step size (002's ``beta``; ``beta=`` is refused by name, :mod:`fairtheory.algorithms.names`).
    L : smoothness of every client.  D0 : bound on ``||theta_0 - theta*||^2``.
    rho2 : bound on ``sum_i p_i ||grad g_i(theta*)||^2``.  p : client weights (default uniform).
    output : ``"average"``, ``"path_average"`` or ``"last"`` (module doc; ``"002"`` / ``"000"`` warn for one
        release).  K : draws per averaging (partial participation;
        the value is then the worst *expected* suboptimality).
    schedule : ``"rfedfair"`` (002 Alg. 1: a first averaging after one step, then ``T_N`` rounds of
        ``kappa`` steps) or ``"fedavg"`` (:mod:`fairtheory.algorithms.fedavg`: ``T_N + 1`` rounds of
        ``kappa`` steps; the outputs are then the same averages of its server models / local iterates).
    return_instance : also return the worst-case functions' data at the iterates (:class:`Instance`).
    symmetric : identical clients (equal weights, ``K = None``, ``n >= 2``) solved by the symmetric reduction
        (:mod:`fairtheory.worstcase.symmetric`, bracketed by a fixed sequence of solves; where its bracket does not
        close, the dense solve when the full Gram dimension is at most
        :data:`~fairtheory.worstcase.symmetric.SYMMETRIC_DENSE_FALLBACK_DIM` - a rule of sizes, never of the clock):
        ``None`` (default) from Gram dimension :data:`~fairtheory.worstcase.symmetric.SYMMETRIC_MIN_DIM` on,
        ``True`` always, ``False`` never.  ``extra["symmetric"]`` names the route taken, and where the reduction's
        solution is kept ``extra["symmetric_solver"]`` its solver (``"cvxopt-schur"``, the dual by a
        Schur-complement method, from blocks of :data:`~fairtheory.worstcase.symmetric.SCHUR_MIN_BLOCK` on - it
        needs the package cvxopt - else ``"clarabel"``).
    bracket : ``True`` (default): the value is bracketed rigorously (:mod:`fairtheory.worstcase.bracket`, a few more
        solves); ``False``: the solver's value alone (``value_is = "solver"``, never certified; about 4 times
        faster) - for callers that only need a float, e.g. a closed-form fit whose result is then proved exactly.
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
    FairtheoryValueError : invalid arguments, or a PEP beyond the limits of :mod:`fairtheory.worstcase.limits`.
    """
    output = output_name(output, where="local_gd.local_gd_worst_case")
    n_i, kappa_i, T_N_i, lr_f, L_f, p_arr, out, K_i = _check(n, kappa, T_N, lr, L, p, output, K)
    D0_f = check_in_range(D0, "D0", low=0.0)
    rho2_f = check_in_range(rho2, "rho2", low=0.0)
    if D0_f == 0 and rho2_f == 0:
        raise FairtheoryValueError("D0 and rho2 are both 0: the worst case is 0 (nothing to compute)")
    if schedule not in ("rfedfair", "fedavg"):
        raise FairtheoryValueError(f"schedule must be 'rfedfair' or 'fedavg', got {schedule!r}")
    first = 1 if schedule == "rfedfair" else kappa_i
    # identical clients (equal weights, full participation): the symmetric reduction (docs/worstcase.md)
    if not isinstance(bracket, bool):
        raise FairtheoryValueError(f"bracket must be True or False, got {bracket!r}")
    if symmetric not in (None, True, False):
        raise FairtheoryValueError(f"symmetric must be None, True or False, got {symmetric!r}")
    sym_ok = n_i >= 2 and K_i is None and bool(np.all(p_arr == p_arr[0])) and symmetric is not False
    if symmetric is None:
        sym_ok = sym_ok and estimate_size(n=n_i, kappa=kappa_i, T_N=T_N_i, first_steps=first)[0] >= SYMMETRIC_MIN_DIM
    check_size(*estimate_size(n=n_i, kappa=kappa_i, T_N=T_N_i, K=K_i, first_steps=first), "local_gd_worst_case",
               n_functions=n_i, symmetric=sym_ok)
    S, D0n, R2n = units(L_f, D0_f, rho2_f)
    if certificate and K_i is not None:
        raise FairtheoryValueError("certificate=True supports full participation only (K=None)")
    p_b, h_b, lvl_D, lvl_R = p_arr, float(Fraction(lr_f) * Fraction(L_f)), float(D0n), float(R2n)
    b = build_local_gd(n=n_i, p=p_b, lr=h_b, kappa=kappa_i, T_N=T_N_i, output=out, K=K_i,  # type: ignore[arg-type]
                       first_steps=first)
    b.pep.add_le(sqnorm(b.x0) - lvl_D)
    if n_i > 1:
        b.pep.add_le(rho2_expr(b, p_b) - lvl_R)
    b.pep.maximize(b.objective)
    if sym_ok:
        attach(b.pep, b.funcs, b.stars, b.x0, p_b)
    sol = b.pep.solve(tol=tol, raw=True)
    unit = scaled(1.0, S / Fraction(L_f))
    params = {"n": n_i, "kappa": kappa_i, "T_N": T_N_i, "lr": lr_f, "L": L_f, "D0": D0_f, "rho2": rho2_f,
              "p": p_arr.tolist(), "output": out, "K": K_i, "schedule": schedule}
    def inst(s: SDPSolution) -> Instance:
        return extract_instance(b, s, unit=unit, L=L_f, p=p_arr, params=params)

    tpl = None
    if certificate:
        tpl = statement(method={"name": "local_gd", "kappa": kappa_i, "T_N": T_N_i, "lr": lr_f, "schedule": schedule,
                                "output": out}, n=n_i, p=exact_weights(p, p_arr), L=L_f,
                        bound={"form": "constrained", "D0": D0_f, "rho2": rho2_f, "value": 0})
    def finish(s: SDPSolution, cert: dict[str, Any] | None) -> WorstCase:
        return finish_worst_case(b.pep, s, S, params=params, instance_of=inst if return_instance else None,
                                 extra={"branches": b.leaves}, certificate=cert, problem="local_gd_worst_case",
                                 objective=b.objective, x0=b.x0, n=n_i, p=p_b, D0_level=D0n, rho2_level=R2n, tol=tol,
                                 rigorous=bracket)

    if getattr(b.pep, "symmetry", None) is None:
        return _attach_certificate(finish(sol, None), tpl, params)
    # the symmetric reduction (fairtheory.worstcase.symmetric), bracketed here by a fixed sequence of solves; where
    # its bracket does not close, the dense route when the PEP is small enough (a rule of sizes, never of the clock:
    # docs/worstcase.md, "Identical clients")
    dim_full = estimate_size(n=n_i, kappa=kappa_i, T_N=T_N_i, first_steps=first)[0]
    best, certified_red, tried = _symmetric_bracketed(b, sol, tol=tol, n=n_i, p=p_b, D0_level=D0n, rho2_level=R2n)
    if not certified_red and dim_full <= SYMMETRIC_DENSE_FALLBACK_DIM:
        b.pep.symmetry = None  # type: ignore[attr-defined]
        wc = finish(b.pep.solve(tol=tol, raw=True), None)
        wc.extra["symmetric"] = "not certified: dense route"
    else:
        wc = finish(best, None)
        # finish_worst_case brackets the kept solution once more (bracket.solve_bracketed, no re-solve of a final
        # solution); where that rigorous bracket certifies, so does the reduction's result (the route's own test makes
        # the same comparison of the solve with its KKT point, so the two agree but for the exact repair's rounding)
        certified_red = certified_red or wc.certified()
        if getattr(best, "violated_left", 0) and not (
                wc.upper - wc.lower <= CERTIFY_RTOL * max(abs(wc.value), wc.scale)):
            # a relaxation (rows left violated) is certified only by its two rigorous ends, as the route's own test
            # (_symmetric_bracketed) measures it; else the replayed value is reported, as for any open bracket
            certified_red = False
            wc.value, wc.value_is = wc.lower, "lower"
        wc.extra["symmetric"] = "reduced" if certified_red else "reduced, not certified (no dense route at this size)"
        wc.extra["symmetric_solver"] = str(best.solver).split("+")[0]  # "clarabel" or "cvxopt-schur"
    wc.extra["symmetric_solves"] = tried
    return _attach_certificate(wc, tpl, params)


def _symmetric_bracketed(b: Built, sol: SDPSolution, *, tol: float, n: int, p: np.ndarray, D0_level: Any,
                         rho2_level: Any) -> tuple[SDPSolution, bool, list[str]]:
    """The symmetric route's solves, a fixed sequence: the solve ``sol`` bracketed
    (:func:`fairtheory.worstcase.bracket.bracket`; where its float bound is not within
    :data:`~fairtheory.worstcase.kkt_bracket.KKT_RTOL`, the KKT point of the full PEP from it with its face multipliers
    repaired exactly, :func:`fairtheory.worstcase.kkt_bracket.kkt_bracket`, which replaces the solve when it closes to
    that tolerance or when its bracket is narrower than the solve's own - the comparison
    :func:`fairtheory.worstcase.bracket.solve_bracketed` makes on the kept solution, so the route's test and the final
    bracket agree; the solve's own bracket takes the exact repair of its multipliers,
    :func:`fairtheory.worstcase.exact_repair.exact_bracket`, where the float bound is not close enough); if the
    rigorous upper bound is not within the target - :data:`~fairtheory.worstcase.kkt_bracket.KKT_RTOL` of the value
    for blocks below :data:`~fairtheory.worstcase.symmetric.AUTO_SCALE_MIN_BLOCK` (issue 41's accuracy: a re-solve
    there takes a fraction of a second), :data:`~fairtheory.worstcase.bracket.CERTIFY_RTOL` from there on -
    re-solves at ``tol`` ``min(tol, 1e-10)`` maximising ``obj + eps tr G`` (a slack with that margin; rescaled bases
    for an inexact first solve), in :func:`fairtheory.worstcase.bracket.solve_bracketed`'s order but without its
    clock, until one meets it: at most 8 below :data:`~fairtheory.worstcase.symmetric.AUTO_SCALE_MIN_BLOCK`, 1 from
    there on (its constraint generation starting from the rows the first solve kept).  A solve whose constraint
    generation settled with rows left violated (:data:`~fairtheory.worstcase.symmetric.SETTLE_FRACTION`: a relaxation)
    is measured from its replayed lower end instead of its value, and where that does not close, the generation is
    first continued with those rows (one more solve at ``tol``).  Returns the solution of the
    narrowest bracket (marked ``final``: :func:`fairtheory.worstcase.bracket.solve_bracketed` brackets it without
    re-solving), whether it is certified (within ``CERTIFY_RTOL``), and the solves made."""
    def width(s: SDPSolution) -> tuple[float, float, SDPSolution]:
        br = bracket(b.pep, s, b.objective, x0=b.x0, n=n, p=p, D0_level=D0_level, rho2_level=rho2_level)
        v = primal_objective(s)
        up = br.upper
        T = br.info.get("trace_bound")
        wk = math.inf
        if not (math.isfinite(up) and up - v <= KKT_RTOL * max(abs(v), 1.0)) and not getattr(s, "violated_left", 0):
            # a degenerate optimum: the KKT point of the full PEP from this solve, multipliers on its face and their
            # exact repair (fairtheory.worstcase.kkt_bracket); where it closes to KKT_RTOL its point is kept, else it
            # competes with this solve's own bracket below (as in bracket.solve_bracketed, which brackets the kept
            # solution once more: the two tests agree)
            kk = kkt_bracket(b.pep, s, lambda t: bracket(b.pep, t, b.objective, x0=b.x0, n=n, p=p, D0_level=D0_level,
                                                         rho2_level=rho2_level))
            if kk is not None:
                vk = primal_objective(kk[0])
                if math.isfinite(kk[1].upper) and math.isfinite(vk):
                    wk = (kk[1].upper - vk) / max(abs(vk), 1.0)
                if wk <= KKT_RTOL:
                    tried.append("kkt newton")
                    return wk, float(kk[1].info.get("lambda_max_bound", 0.0)), kk[0]
        if not (math.isfinite(up) and up - v <= CERTIFY_RTOL * max(abs(v), 1.0)) and T is not None \
                and math.isfinite(float(T)):
            # the exact repair (fairtheory.worstcase.exact_repair: rational multipliers, the slack PSD up to a
            # dyadic shift proved by the kernel's fraction-free LDL^T, the shift paid for by the a priori trace bound)
            # - the same test solve_bracketed makes before any re-solve
            try:
                with np.errstate(all="ignore"):
                    ex = exact_bracket(s, None, tol=1e-7, trace_bound=Fraction(float(T)) * (1 + Fraction(1, 2 ** 40)),
                                       newton=False)
                up = min(up, ex.upper)
            except (ValueError, ZeroDivisionError, ArithmeticError, np.linalg.LinAlgError):
                pass
        w = (up - v) / max(abs(v), 1.0) if math.isfinite(up) and math.isfinite(v) else math.inf
        if getattr(s, "violated_left", 0):
            # constraint generation stopped with violated rows (settled at the solve's accuracy, or out of rounds): a
            # relaxation, whose value may lie above the worst case - its width is measured from the replayed lower
            # end (an explicit instance's value), so both ends are rigorous
            lo = float(br.lower)
            w = (up - min(v, lo)) / max(abs(v), 1.0) if math.isfinite(up) and math.isfinite(lo) else math.inf
        if wk < w:
            tried.append("kkt newton")
            return wk, float(kk[1].info.get("lambda_max_bound", 0.0)), kk[0]  # type: ignore[index]
        return w, float(br.info.get("lambda_max_bound", 0.0)), s

    tried = ["plain"]
    w0, lam, best = width(sol)  # ``best``: the solve, or the KKT point from it; the plan below reads the solve
    wbest = w0
    blocks = getattr(sol, "blocks", (0, 0))[0]
    # the width the re-solves aim at: KKT_RTOL (issue 41's accuracy) for blocks below AUTO_SCALE_MIN_BLOCK, where a
    # re-solve takes a fraction of a second; CERTIFY_RTOL above
    target = KKT_RTOL if blocks < AUTO_SCALE_MIN_BLOCK else CERTIFY_RTOL
    if not w0 <= target:
        # the re-solves of bracket.solve_bracketed, in its order, without its clock: a trace weight eps (a slack with
        # that margin) - eps twice the first bracket's lambda_max bound, 1e-9 and 1e-8 of the value's scale - and,
        # for an inexact first solve, the basis rescaled by the solution's own norms and by the a priori bounds;
        # how many is a rule of sizes: all of them (at most 8) for blocks below AUTO_SCALE_MIN_BLOCK (each a
        # fraction of a second), one above (each as costly as the first solve)
        diag = np.clip(np.diag(sol.gram), 0.0, None)
        top = float(diag.max()) if diag.size else 0.0
        base = max(abs(primal_objective(sol)), 1.0) / max(float(np.sum(diag)), 1.0)
        lam2 = 2.0 * lam if math.isfinite(lam) and lam > 0 else 0.0
        epss = sorted({max(1e-9 * base, lam2), max(1e-8 * base, lam2), 1e-7 * base})
        plan: list[tuple[np.ndarray | None, float | None]] = [(None, e) for e in epss]
        if sol.status != "Solved" or top > 1e4:
            plan = []
            if top > 0:
                sc = np.sqrt(np.maximum(diag, 1e-12 * max(top, 1.0)))
                plan += [(sc, 0.0)] + [(sc, e) for e in epss]
            initial, anchors = class_data(b.x0, n, p, D0_level, rho2_level)
            B = norm_bounds(b.pep, initial=initial, anchors=anchors).B
            if np.all(np.isfinite(B)) and B.max() > 0:
                sb = np.maximum(B, 1e-6 * float(B.max()))
                plan += [(sb, 0.0)] + [(sb, e) for e in epss]
        plan = plan[: (8 if blocks < AUTO_SCALE_MIN_BLOCK else 1)]
        kept_rows = getattr(sol, "kept_rows", None)
        if getattr(sol, "violated_left", 0) and kept_rows is not None:
            # a relaxation that did not close: first the generation continued (its violated rows joined, at ``tol``)
            plan = [(None, None), *plan]
        for scale, eps in plan:
            tried.append("generation continued" if eps is None else
                         f"trace_weight={eps:.3g}" + (" rescaled" if scale is not None else ""))
            # the re-solve's constraint generation starts from the rows the first solve kept (the same PEP: the
            # rounds that found them are not repeated)
            sym = b.pep.symmetry  # type: ignore[attr-defined]
            sym.initial_rows = kept_rows if eps is not None else np.union1d(kept_rows, sol.violated_rows)
            try:
                s2 = b.pep.solve(tol=tol if eps is None else min(tol, 1e-10), scale=scale,
                                 trace_weight=0.0 if eps is None else eps, raw=True)
            except SolverError:
                tried[-1] += " (failed)"
                continue
            finally:
                sym.initial_rows = None
            w2, _, s2 = width(s2)
            if w2 < wbest:
                best, wbest = s2, w2
            if wbest <= target:
                break
    best.final = True  # type: ignore[attr-defined]
    return best, bool(wbest <= CERTIFY_RTOL), tried


def _attach_certificate(wc: WorstCase, tpl: dict[str, Any] | None, params: dict[str, Any]) -> WorstCase:
    """Attach the exact certificate of ``tpl`` (:func:`fairtheory.proofs.certificate.certify_pep`) and make the
    result agree with it: the certificate's bound (exact, rounded up to a float) is a rigorous upper bound of the
    worst case, so ``upper`` becomes the smaller of the two; a value that is an upper bound becomes that ``upper``
    (a certified value never exceeds its own certificate's bound: kappa = 3, T_N = 3, rho2 = 1/2 reported
    0.144382545 above the certified 0.144382354); an uncertified result whose solver value the certificate's bound
    now meets (within :data:`~fairtheory.worstcase.bracket.CERTIFY_RTOL` of the unit) becomes certified; a replayed
    lower end above the exact bound (a float replay's rounding) is lowered to it (``extra["lower_clamped"]``); an
    unbracketed solver value (``bracket=False``) above the bound is lowered to it."""
    if tpl is None:
        return wc
    wc.certificate = certify_pep(tpl, meta={"problem": "local_gd_worst_case", "params": params})
    if wc.value_is == "unbounded" or not math.isfinite(wc.scale):
        return wc
    cb = float_up(Fraction(wc.certificate.bound))
    if wc.value_is == "solver":  # unbracketed: only never above the exact bound
        if wc.value > cb:
            wc.value = cb
            wc.extra["value_from_certificate"] = True
        return wc
    if cb < wc.upper:
        wc.upper = cb
        wc.extra["upper_from_certificate"] = True
    if math.isfinite(wc.lower) and wc.lower > wc.upper:
        wc.extra["lower_clamped"] = wc.lower
        wc.lower = wc.upper
    sv = wc.extra.get("solver_value", wc.value)
    if wc.value_is == "upper" or (math.isfinite(sv) and wc.upper - sv <= CERTIFY_RTOL * max(abs(sv), wc.scale)):
        wc.value, wc.value_is = wc.upper, "upper"
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
