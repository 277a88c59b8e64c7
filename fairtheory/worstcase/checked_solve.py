r"""The hand-written builder's solve: normalised units, failures that raise, GMP where floats fail.

:meth:`fairtheory.worstcase.sdp.PEP.solve` (``raw=False``, its default) calls :func:`solve_checked`.

**Units.**  A PEP is homogeneous: with a distance unit ``R``, the points the caller creates are of size ``R``,
the gradients of an ``L``-smooth function of size ``L R`` (of an ``M``-Lipschitz one ``M``; one a proximal step
``gamma`` creates at most ``R / gamma``), its values of size ``L R^2`` (``M R``).  An interior-point solver works to absolute and
relative tolerances on the data as given, so a class with ``L = 1e8`` mixes Gram entries of size ``1`` and
``1e16`` and the solve returns rounding noise (GD contraction on ``SmoothStronglyConvex(1e8, 1e7)``: ``-8e-15``
for the exact ``0.6561``) - with status ``Solved`` and a tiny gap.  :func:`pep_units` gives every basis vector
and value variable its unit; ``R`` is read from the initial condition: every caller's row with a nonzero
constant ``c`` (``||x0 - x*||^2 <= R^2``, ``f(x0) - f* <= c``, ``||g0||^2 <= c``) is solved for the ``R`` at which
its terms, in units, have size ``|c|`` (the terms are monomials in ``R`` of degree 0 to 2, nondecreasing:
bisection in ``log2 R``), and ``R`` is the geometric mean over such rows.  Every unit is rounded to a power of
two, so the congruence ``G' = D^-1 G D^-1``, ``F' = F / E`` (``G' >= 0`` iff ``G >= 0``) and the division of the
objective by its unit are exact in float64; units within ``[2^-4, 2^4]`` are taken as 1, so PEPs already in
units (``L = 1``, ``R = 1``) keep their data bit for bit.

**Exact repair first.**  Every ``Solved`` / ``AlmostSolved`` float solve is bracketed by
:func:`fairtheory.worstcase.exact_repair.exact_bracket` (rational multipliers, the value cancellation restored
exactly, the slack proved PSD by FLINT / the kernel's ``L D L^T`` up to a shift paid for by one trace-weighted
solve, a KKT Newton polish when needed): when ``upper - lower <= REPAIR_RTOL`` relative the solve stands
(``value_is == "exact"``, status ``Solved``) and no GMP re-solve runs (issue 41).

**Measured sizes.**  A dense solve whose repaired bracket does not close is solved again with its basis vectors,
values and objective in the sizes it measured (powers of two nearest ``sqrt(G_jj)``, ``|F_k|``, ``|value|``: an exact
congruence), kept by a rule on the statuses and the proved brackets (:func:`_measured_kw`); the objective's a-priori
unit is its largest coefficient in normalised variables (:func:`_coef_unit`: a scaled PEP gets the unit of the same
PEP at scale 1), and the sparse route builds its basis in units (:func:`fairtheory.worstcase.sparse_solve.sparse_basis`
``scale``).  A sparse-route solve whose repair does not close on the raw data is repaired again on the same data in
the sizes it measured, rows in their own units (:func:`_repaired_in_sizes`: an exact congruence, the bound mapped back
by a power of two); at ``mu -> L`` the reparametrised PEP on the sparse route is solved and repaired in the sizes of
its class's extreme quadratics (``units_in``).  ``benchmarks/bench_scale_sweep.py`` sweeps scales ``1e-6`` to ``1e6``.

**The first float solve** (dense route) asks Clarabel for feasibility to the gap tolerance ``tol`` (its default is
``10 tol``): the repair's shift is the multipliers' dual residual, so the tighter tolerance lets the solver's own
multipliers close the bracket where they otherwise needed the KKT Newton stage.  Iterative refinement stays on: the
lower end of the bracket is the float point's objective, and without refinement a "Solved" point was infeasible
enough to lift it above the worst case (tests/test_hostile_sweep.py).  Any status
but ``Solved`` re-solves with Clarabel's defaults, so every failure path is the one a default solve takes.  The rows
are assembled once per call (``pep._assembly_cache``) and shared by the float solve and its interior end.

**Failures.**  Without a closing repair the float solve is accepted when Clarabel says ``Solved``, the Gram matrix
is PSD to :data:`PSD_RTOL` relative and no GMP re-solve is at hand.  Otherwise: a small PEP is re-solved by SDPA-GMP
(200-bit arithmetic, the solver
:mod:`fairtheory.proofs.search` uses for its reference duals) - it is exact where the float solve stalls on a
face without strictly feasible points; a failed solve of the sparse route is re-solved by the dense one where
that is affordable; anything else raises :class:`~fairtheory.errors.SolverError` naming the status, the
diagnosis and what was tried.  See docs/worstcase.md, "Units and failures of hand-written PEPs".
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from fairtheory.errors import FairtheoryValueError, SolverError
from fairtheory.proofs.search import find_multipliers
from fairtheory.worstcase import solvers, units
from fairtheory.worstcase.bracket import Bracket, replay_lower
from fairtheory.worstcase.exact_repair import exact_bracket
from fairtheory.worstcase.gram import one_blas_thread, scalar_row
from fairtheory.worstcase.nearly_quadratic import reparametrise
from fairtheory.worstcase.solvers import SDPSolution
from fairtheory.worstcase.sparse_solve import should_use_sparse, solve_sparse

if TYPE_CHECKING:
    from fairtheory.worstcase.gram import Scalar
    from fairtheory.worstcase.sdp import PEP

__all__ = ["PEPUnits", "pep_units", "solve_checked", "unbounded_ray", "UNBOUNDED_STATUSES", "ray_possible",
           "gmp_available", "GMP_MAX_ROWS", "GMP_MAX_DIM", "PSD_RTOL",
           "DENSE_FALLBACK_DIM", "DEAD_ZONE", "MAX_UNIT_EXP"]

#: units ``2^e`` with ``|e| <=`` this are taken as 1 (the data of a PEP already in units stay bit-identical)
DEAD_ZONE = 4
#: largest ``|log2|`` of a unit: a Gram entry's scale is the product of two, which must stay inside float64
MAX_UNIT_EXP = 480
#: a solved value farther than ``2^OBJ_RESOLVE_EXP`` from its objective's unit is solved again in its own size (a
#: PEP in units with a value of 1e-3 .. 1e3 keeps its one solve on its own data)
OBJ_RESOLVE_EXP = 10
#: a solve whose Gram matrix has ``lambda_min < -PSD_RTOL max(1, lambda_max)`` is not accurate (re-solved in GMP)
PSD_RTOL = 1e-9
#: the GMP re-solve is taken for PEPs with at most this many rows and this Gram dimension (SDPA-GMP at 200 bits
#: takes ~0.1 s at 15 rows, ~1 s at 63 rows on this machine)
GMP_MAX_ROWS = 120
GMP_MAX_DIM = 24
#: a failed sparse-route solve is re-solved by the dense route up to this Gram dimension (measured: the dense
#: solve of gradient descent takes ~1 s at dimension 30, minutes at 60)
DENSE_FALLBACK_DIM = 40
#: a PEP the sparse route did not solve is solved on the dense route up to this Gram dimension (a rule on sizes)
SPARSE_FAILED_DENSE_DIM = 80
#: ... and when the size estimate of one dense solve (:func:`fairtheory.worstcase.solvers.estimated_seconds`, a
#: function of the sizes, not a clock) is at most this
SPARSE_FAILED_DENSE_SECONDS = 15.0


@dataclass(frozen=True)
class PEPUnits:
    """Units of a PEP (powers of two): ``R`` (distance), one per basis vector (``vec``), value variable (``val``) and
    the objective (``obj``); ``identity`` when every unit is 1."""

    R: float
    vec: np.ndarray
    val: np.ndarray
    obj: float

    @property
    def identity(self) -> bool:
        return bool(np.all(self.vec == 1.0) and np.all(self.val == 1.0) and self.obj == 1.0)


def _geo(xs: list[float]) -> float:
    return float(2.0 ** np.mean(np.log2(xs)))


def _grad_units(pep: PEP) -> tuple[dict[int, tuple[float, int]], tuple[float, int]]:
    """Per function (by ``id``): its gradient unit as ``(c, d)`` meaning ``c R^d``; and the reference unit for
    functions without a constant of their own (``Convex()`` evaluated by its subgradient oracle)."""
    prox: dict[int, list[float]] = {}
    for tag in pep._vtag:
        if tag[0] == "grad" and tag[2] is not None:
            prox.setdefault(id(tag[1]), []).append(float(tag[2]))
    Ls, Ms = [], []
    own: dict[int, tuple[float, int]] = {}
    for fn in pep.functions:
        L = float(getattr(fn.cls, "L", math.inf))
        M = getattr(fn.cls, "M", None)
        if math.isfinite(L) and L > 0:
            own[id(fn)] = (L, 1)
            Ls.append(L)
        elif M is not None and float(M) > 0:
            own[id(fn)] = (float(M), 0)
            Ms.append(float(M))
        elif id(fn) in prox:
            own[id(fn)] = (1.0 / _geo(prox[id(fn)]), 1)
    allg = [g for gs in prox.values() for g in gs]
    ref = (_geo(Ls), 1) if Ls else (_geo(Ms), 0) if Ms else (1.0 / _geo(allg), 1) if allg else (1.0, 1)
    return {id(fn): own.get(id(fn), ref) for fn in pep.functions}, ref


def _monomials(pep: PEP) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """``(cv, dv, cf, df, epi)``: basis vector ``j`` has unit ``cv[j] R^dv[j]``, value ``k`` ``cf[k] R^df[k]``; ``epi``:
    the value variables of an epigraph (their unit is the measures', set later)."""
    gu, ref = _grad_units(pep)
    cv, dv = np.ones(pep.dim), np.ones(pep.dim)
    for j, tag in enumerate(pep._vtag):
        if tag[0] == "grad":
            c, d = gu[id(tag[1])]
            if tag[2] is not None and not math.isfinite(float(getattr(tag[1].cls, "L", math.inf))) \
                    and getattr(tag[1].cls, "M", None) is None:
                c, d = 1.0 / float(tag[2]), 1  # a proximal step of a function without a constant: R / gamma
            cv[j], dv[j] = c, d
    cf, df = np.full(pep.nf, ref[0]), np.full(pep.nf, ref[1] + 1.0)
    epi = []
    for k, tag in enumerate(pep._ftag):
        if tag[0] == "value":
            c, d = gu[id(tag[1])]
            cf[k], df[k] = c, d + 1.0
        elif tag[0] == "epi":
            epi.append(k)
    return cv, dv, cf, df, epi


def _mag(s: Scalar, vu: np.ndarray, fu: np.ndarray) -> float:
    """Size of a scalar's terms (constant excluded) when every basis vector / value has its unit."""
    out = 0.0
    for coef, u, v in s.quad:
        a = np.abs(np.asarray(u.c, dtype=np.float64))
        b = np.abs(np.asarray(v.c, dtype=np.float64))
        out += abs(float(coef)) * float(a @ vu[: a.size]) * float(b @ vu[: b.size])
    for k, a in s.lin.items():
        out += abs(float(a)) * float(fu[k])
    return out


def _coef_unit(s: Scalar, vu: np.ndarray, fu: np.ndarray) -> float:
    r"""The objective's unit: its largest coefficient in normalised variables, ``max(|m_ab| u_a u_b, |m_k| phi_k)`` over
    the natural coefficients ``m`` (Gram entry ``(a, b)`` with both orders summed, value ``k``; the constant excluded).

    This is the homogeneity of the PEP: the same problem at scale 1 (``L = 1``, ``R = 1``, units 1) has objective
    unit 1, and its scaled copy's normalised objective has the same coefficients up to powers of two, so it gets the
    same unit.  The triangle inequality (:func:`_mag`) overestimates combinations whose terms cancel: GD's
    ``||x_N - x*||^2`` with ``x_N = x_0 - h/L (g_0 + .. + g_{N-1})`` is sized ``(N + 1)^2`` (``2^9`` at ``N = 20``)
    for a worst case ``0.0148`` - a relative accuracy ``10^4`` times worse than the same PEP at ``L = 1`` (measured:
    ``1.6e-5`` off at ``L = 1e6``, exact at ``L = 1``)."""
    nG = vu.size * (vu.size + 1) // 2
    cols, vals = scalar_row(s, nG)
    if cols.size == 0:
        return 1.0
    acc = np.zeros(nG + fu.size)
    np.add.at(acc, cols, vals)
    ia, ib = np.triu_indices(vu.size)
    w = np.empty(nG + fu.size)
    w[ib * (ib + 1) // 2 + ia] = vu[ia] * vu[ib]
    w[nG:] = fu
    out = float(np.max(np.abs(acc) * w))
    return out if out > 0 and math.isfinite(out) else 1.0


def _pow2(x: float) -> float:
    return math.inf if x > 1023.0 else 2.0 ** x


def _mag_poly(s: Scalar, cv: np.ndarray, dv: np.ndarray, cf: np.ndarray, df: np.ndarray) -> Any:
    """``t -> _mag(s, cv R^dv, cf R^df)`` at ``R = 2^t``, as the sum of its monomials ``c_d R^d`` (the terms grouped by
    degree once; the bisection of :func:`pep_units` then evaluates a handful of powers per step instead of the
    scalar's terms)."""
    acc: dict[float, float] = {}
    for coef, u, v in s.quad:
        a = np.abs(np.asarray(u.c, dtype=np.float64))
        b = np.abs(np.asarray(v.c, dtype=np.float64))
        ia, ib = np.flatnonzero(a), np.flatnonzero(b)
        if ia.size == 0 or ib.size == 0:
            continue
        wa, wb = a[ia] * cv[ia], b[ib] * cv[ib]
        da, db = dv[ia], dv[ib]
        w = abs(float(coef)) * np.multiply.outer(wa, wb).ravel()
        d = np.add.outer(da, db).ravel()
        for deg in np.unique(d).tolist():
            acc[deg] = acc.get(deg, 0.0) + float(w[d == deg].sum())
    for k, a in s.lin.items():
        deg = float(df[k])
        acc[deg] = acc.get(deg, 0.0) + abs(float(a)) * float(cf[k])
    mono = [(c, d) for d, c in sorted(acc.items()) if c != 0.0]

    def h(t: float) -> float:
        return sum(c * _pow2(t * d) for c, d in mono)

    return h


def _exp(x: float) -> int:
    """``round(log2 x)``, 0 inside the dead zone."""
    if not (x > 0 and math.isfinite(x)):
        return 0
    e = int(round(math.log2(x)))
    return 0 if abs(e) <= DEAD_ZONE else e


def _declared_space_logs(pep: PEP) -> list[float]:
    """``log2`` of every finite positive parameter of dimension *space* that a function class of ``pep`` declares
    (:data:`fairtheory.worstcase.units.DIMENSIONS`: an indicator's radius ``R``, its diameter ``D``): a distance scale
    the caller's rows may not carry (two points of a set of radius ``1e4`` and no initial condition)."""
    out = []
    for f in pep.functions:
        try:
            dims = units.dimensions(f.cls)
        except (TypeError, ValueError):  # a class outside the table (a user's own): nothing declared
            continue
        for name, pq in dims.items():
            val = getattr(f.cls, name, None)
            if pq == units.SPACE and isinstance(val, (int, float)) and not isinstance(val, bool) \
                    and 0 < float(val) < math.inf:
                out.append(math.log2(float(val)))
    return out


def pep_units(pep: PEP) -> PEPUnits:
    """The units of ``pep`` (module doc); :class:`~fairtheory.errors.FairtheoryValueError` when they do not fit
    float64 (a unit beyond ``2^480``: the problem mixes scales no float solve can hold)."""
    cv, dv, cf, df, epi = _monomials(pep)
    logs = []
    with np.errstate(over="ignore", invalid="ignore"):
        for s in pep._ineq + pep._eq:
            c = abs(float(s.const))
            if c == 0 or not math.isfinite(c):
                continue

            h = _mag_poly(s, cv, dv, cf, df)
            lo, hi = -400.0, 400.0
            if not (h(lo) <= c <= h(hi)) or h(lo) == h(hi):
                continue
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                if h(mid) < c:
                    lo = mid
                else:
                    hi = mid
            logs.append(0.5 * (lo + hi))
    logs += _declared_space_logs(pep)
    tR = float(np.mean(logs)) if logs else 0.0
    eR = int(round(tR))
    R = 2.0 ** eR
    with np.errstate(over="ignore", invalid="ignore"):
        vu = cv * R ** dv
        fu = cf * R ** df
        # a proximal step's gradient g = (y - x)/gamma is at most its class's unit and about R/gamma: the smaller
        # (ConvexLipschitz(3e7), gamma = 1, R = 1: g ~ 1, not M; in units M the solve returned -18559 for the exact 1)
        for j, tag in enumerate(pep._vtag):
            if tag[0] == "grad" and tag[2] is not None:
                vu[j] = min(vu[j], R / float(tag[2]))
        for k in epi:
            ms = pep._ftag[k][1]
            fu[k] = max((_mag(m, vu, fu) for m in ms), default=1.0) or 1.0
        ev = np.array([_exp(x) for x in vu], dtype=np.int64)
        ef = np.array([_exp(x) for x in fu], dtype=np.int64)
        eo = _exp(_coef_unit(pep._objective, vu, fu)) if pep._objective is not None else 0
    if not ev.any() and not ef.any():
        # the variables are in units: the objective's size by the triangle inequality overestimates combinations
        # whose coefficients cancel (ITEM, n = 15: 2^14 for a value 0.76, which then lost 1e-5); solve_checked sizes
        # it from the solved value instead
        eo = 0
    worst = max([abs(eo), *np.abs(ev).tolist(), *np.abs(ef).tolist(), 0])
    bad = [x for x in (*vu.tolist(), *fu.tolist()) if not (x > 0 and math.isfinite(x))]
    if worst > MAX_UNIT_EXP or bad:
        raise FairtheoryValueError(
            f"the PEP's units do not fit float64 (distance unit R = 2^{eR}, a gradient / value unit beyond "
            f"2^{MAX_UNIT_EXP}): the class constants, step sizes and initial condition mix scales no float solve can "
            "hold; rescale the problem (a PEP is homogeneous)")
    return PEPUnits(R=R, vec=np.ldexp(1.0, ev), val=np.ldexp(1.0, ef), obj=float(np.ldexp(1.0, eo)))


def gmp_available() -> bool:
    """Whether SDPA-GMP (the ``sdpap`` module of ``sdpa-multiprecision``) can be imported."""
    return bool(solvers.sdpa_available())


def _accurate(sol: SDPSolution) -> bool:
    if sol.status != "Solved":
        return False
    g = sol.gram
    if g.size == 0:
        return True
    if not np.all(np.isfinite(g)):
        return False
    w = np.linalg.eigvalsh(g)
    return bool(w[0] >= -PSD_RTOL * max(1.0, float(w[-1])))


#: an ``AlmostSolved`` float solve is reported (status kept) when its primal and dual values and residuals agree
#: to this relative tolerance and no exact re-solve succeeded
ALMOST_RTOL = 1e-6


def _almost(sol: SDPSolution) -> bool:
    """Clarabel's ``AlmostSolved`` with primal and dual values within :data:`ALMOST_RTOL` of each other and both
    residuals below it: the worst case lies in ``[value, dual_value]`` up to those residuals."""
    v = abs(float(sol.value)) if math.isfinite(sol.value) else math.inf
    return (sol.status == "AlmostSolved" and math.isfinite(sol.gap) and abs(sol.gap) <= ALMOST_RTOL * max(1.0, v)
            and max(sol.r_prim, sol.r_dual) <= ALMOST_RTOL)


def _n_rows(pep: PEP) -> int:
    if pep.dim > GMP_MAX_DIM:
        return GMP_MAX_ROWS + 1
    cache = getattr(pep, "_assembly_cache", None)
    if cache:  # the rows of this checked solve's assembly (the same count, without building them again)
        return int(next(iter(cache.values()))[1].size)
    return len(pep._eq) + len(pep._ineq) + sum(len(f.cls.interpolation(f.points)) for f in pep.functions)


def _gmp(pep: PEP, like: SDPSolution | None, units: PEPUnits | None = None) -> SDPSolution | None:
    """SDPA-GMP on the exact data (:meth:`PEP.export`; ``units``: :func:`normalised_export` in them, the solution mapped
    back exactly); ``None`` unless it reports ``pdOPT``."""
    t0 = time.perf_counter()
    data = pep.export() if units is None else normalised_export(pep, units)
    res = solvers.solve_sdpa(solvers.exported_pep(data, "PEP.solve"))
    if res is None or res.status != "pdOPT" or not np.all(np.isfinite(res.z)):
        return None
    gram, F = np.asarray(res.gram, dtype=np.float64), np.asarray(res.F, dtype=np.float64)
    value, z = float(res.value), np.asarray(res.z, dtype=np.float64)
    if units is not None:   # G = D G' D, F = phi F', the objective and the multipliers times its unit
        gram = gram * np.outer(units.vec, units.vec)
        F, value, z = F * units.val, value * units.obj, z * units.obj
    if like is None:
        like = pep._solve_float(method="dense", max_iter=1)
    if not _primal_ok(like, gram, F, value):
        return None  # a pdOPT whose point violates the PEP's own rows or value: never reported
    out = SDPSolution(**{**like.__dict__})
    out.value = out.dual_value = value
    out.gap = 0.0
    out.status = "Solved"
    out.gram = gram
    out.F = F
    out.z = z
    n_user = len(pep._ineq)
    out.duals = out.z[len(out.z) - n_user:].copy() if n_user else np.zeros(0)
    out.seconds = float(res.seconds)
    out.build_seconds = time.perf_counter() - t0 - out.seconds
    out.iterations = 0
    out.r_prim = out.r_dual = 0.0
    out.solver = "sdpa-gmp"
    return out


#: a float solve stands without a GMP re-solve when its repaired bracket (:func:`fairtheory.worstcase.exact_repair.
#: exact_bracket`: rigorous upper end, the solver's or a KKT point's value as the lower end) is this narrow (relative)
REPAIR_RTOL = 1e-7
#: the float statuses whose multipliers are repaired (any other status: the repair is not tried)
REPAIR_STATUSES = ("Solved", "AlmostSolved")
#: Clarabel's tolerance for the interior end (a trace-weighted, well-conditioned solve whose multipliers need only a
#: margin of half the trace weight: ``delta = 1e-2 |value| / tr G``)
INTERIOR_TOL = 1e-6
#: the first dense solve of a checked solve runs with Clarabel's feasibility tolerance at this times its gap tolerance
#: (``PEP._solve_float(tol_feas=...)``; a raw solve keeps Clarabel's ``10 tol``)
FIRST_FEAS_FACTOR = 1.0
#: constraint-generation rounds of the interior end's solve on the sparse route (past them: no interior end)
INTERIOR_MAX_ROUNDS = 2


def _exp_of(size: float) -> int:
    """``round(log2 size)`` (0 for a size that is not finite and positive)."""
    return int(round(math.log2(size))) if math.isfinite(size) and size > 0 else 0


def _narrow(br: Any) -> bool:
    return bool(br.value_is == "exact" and math.isfinite(br.upper)
                and br.upper - br.lower <= REPAIR_RTOL * max(abs(br.upper), 1e-300))


def _repaired(pep: PEP, sol: SDPSolution | None, kw: dict[str, Any], sparse: bool, trace_weight: float) -> Any:
    """:func:`~fairtheory.worstcase.exact_repair.exact_bracket` of a float solve (its interior end solved on the same
    route with a trace weight); ``None`` when the solve carries no data to repair (a symmetric reduction's, a
    trace-weighted one, a status outside :data:`REPAIR_STATUSES`) or the repair raises on malformed data."""
    if sol is None or sol.rows is None or sol.z is None or trace_weight or hasattr(sol, "rows_reduced") \
            or sol.status not in REPAIR_STATUSES:
        return None

    def interior(delta: float) -> SDPSolution | None:
        kw_i = {**kw, "trace_weight": delta, "tol": max(float(kw["tol"]), INTERIOR_TOL)}
        kw_i.pop("tol_feas", None)
        try:
            if sparse:  # a bounded number of constraint-generation rounds (a count, not a clock)
                kw_i.pop("row_units", None)
                kw_i.pop("refine", None)
                s = solve_sparse(pep, max_rounds=INTERIOR_MAX_ROUNDS, **kw_i)
            else:
                s = pep._solve_float(method="dense", **kw_i)
                if s.status not in REPAIR_STATUSES and not kw_i.get("refine", True):
                    s = pep._solve_float(method="dense", **{**kw_i, "refine": True})  # as without the first try
        except SolverError:
            return None
        return s if s.status in REPAIR_STATUSES else None

    with np.errstate(all="ignore"):
        try:
            return exact_bracket(sol, interior, tol=REPAIR_RTOL)
        except (ValueError, ZeroDivisionError, OverflowError, ArithmeticError, np.linalg.LinAlgError):
            return None


def _repaired_in_sizes(pep: PEP, sol: SDPSolution | None, kw: dict[str, Any], sizes: PEPUnits | None = None) -> Any:
    r""":func:`~fairtheory.worstcase.exact_repair.exact_bracket` of a sparse-route solve on the PEP's data in the sizes
    the solve measured, mapped back; ``None`` when there is nothing to repair (as :func:`_repaired`) or no size to
    measure.  ``sizes``: the basis vectors' and values' sizes given (powers of two: the instance sizes of
    :meth:`fairtheory.worstcase.nearly_quadratic.Reparametrised.instance_sizes`, where the worst case lies on a face
    ``gh = 0`` whose measured sizes are rounding noise) instead of the measured ones.

    With ``d_j`` the power of two nearest ``sqrt(G_jj)`` (:func:`_pow2_sizes`, the PEP's own basis), ``phi_k`` nearest
    ``|F_k|`` and ``u`` nearest ``|value - const|``, the problem in ``G' = D^-1 G D^-1``, ``F' = F/phi`` with the
    objective divided by ``u`` is the same problem (the rows' natural coefficients times ``d_a d_b``, ``phi_k``: exact,
    powers of two; ``G' >= 0`` iff ``G >= 0``; each row also divided by the power of two ``r_i`` nearest its largest
    coefficient there), its multipliers ``z r/u``, and a bound ``U'`` proved on it is the bound
    ``u U'`` of the PEP, exactly.  Its interior end maximises ``obj' + delta tr G'`` (:func:`solve_sparse`
    ``trace_weights = 1/d^2``).  A contraction's Gram entries span ``rho^(2N)`` (GD ``f(x_60) - f*`` on
    ``SmoothStronglyConvex(1, 0.1)``: gradients ``0.1 * 0.9^k``, the value ``2^-23``): on the raw data the slack's
    rounding-level eigenvalue ``-1e-13`` times a trace bound of ``3.5`` left the proved end ``2.4e-6`` above the value,
    and at ``L = 2^20`` no bound at all.  Here the slack's entries are ``5e5`` times the value, its smallest eigenvalue
    below the float eigenvalues' error bound (``2^-25``): the repair runs with ``fine`` (:func:`exact_repair.repair`:
    ``eps = 0`` or a shift just above the float eigenvalue, each by a coarse exact test, decided on this own-unit grid,
    the same at every power-of-two change of units) and certifies at every scale of the sweep (within ``1e-9``; a
    shift at the error bound left ``4.9e-6``).  At ``mu -> L`` (``sizes`` given; every row's
    multiplier otherwise ``2^100`` times the first's, below the grid) the zero shift closes: GD ``N = 60`` within
    ``1e-11`` (distance) and ``2e-9`` (function value).  ``None`` also when a scaled datum leaves the normal float64
    range (the scaling would not be exact)."""
    if sol is None or sol.rows is None or sol.z is None or sol.gram is None or sol.status not in REPAIR_STATUSES \
            or sol.trace_weight or hasattr(sol, "rows_reduced"):
        return None
    import scipy.sparse as sp

    dim = int(sol.dim)
    g = np.asarray(sol.gram, dtype=np.float64)
    if dim == 0 or g.shape != (dim, dim) or not np.all(np.isfinite(g)):
        return None
    F0 = np.asarray(sol.F, dtype=np.float64)
    if sizes is not None and sizes.vec.shape == (dim,) and sizes.val.shape == F0.shape:
        d, fs = np.asarray(sizes.vec, dtype=np.float64), np.asarray(sizes.val, dtype=np.float64)
    else:
        d = _pow2_sizes(np.sqrt(np.maximum(np.diag(g), 0.0)))
        fs = _pow2_sizes(F0) if F0.size else np.ones(0)
        if fs is None:
            fs = np.ones(F0.size)
    size = abs(float(sol.value) - float(sol.objective_const))
    if d is None or not (0 < size < math.inf):
        return None
    u = float(np.ldexp(1.0, int(round(math.log2(size)))))
    nG = dim * (dim + 1) // 2
    ia, ib = np.triu_indices(dim)
    cs = np.empty(nG + F0.size)
    cs[ib * (ib + 1) // 2 + ia] = d[ia] * d[ib]
    cs[nG:] = fs
    Cs = sp.diags(cs)
    dd = np.outer(d, d)
    rows_c = (sp.csr_matrix(sol.rows) @ Cs).tocsr()
    consts0 = np.asarray(sol.consts, dtype=np.float64)
    # every row divided by the power of two nearest its largest scaled coefficient (or constant): the multipliers of a
    # contraction's late rows (coefficients 2^-100 of the first ones in the sizes) are then of the first ones' size,
    # and the repair's grid (2^-GRID_BITS of the largest multiplier) keeps them all
    big = np.maximum(np.asarray(abs(rows_c).max(axis=1).todense()).ravel() if rows_c.nnz else
                     np.zeros(rows_c.shape[0]), np.abs(consts0))
    rs = np.ones(big.size)
    okr = (big > 0) & np.isfinite(big)
    rs[okr] = np.ldexp(1.0, np.round(np.log2(big[okr])).astype(np.int64))
    rows_s = (sp.diags(1.0 / rs) @ rows_c).tocsr()
    consts_s = consts0 / rs
    obj_s = np.asarray(sol.objective_row, dtype=np.float64) * cs / u
    if not (_pow2_exact(rows_s.data, sol.rows.data if sp.issparse(sol.rows) else None) and
            _pow2_exact(consts_s, consts0) and _pow2_exact(obj_s, np.asarray(sol.objective_row, dtype=np.float64))):
        return None  # a scaled datum left the normal float64 range: the congruence would not be exact

    def view(s: SDPSolution, delta: float) -> SDPSolution:
        out = dataclasses.replace(s)
        same = s is sol
        out.rows = rows_s if same else (sp.diags(1.0 / rs) @ (sp.csr_matrix(s.rows) @ Cs)).tocsr()
        out.consts = consts_s
        out.objective_row = obj_s if same else np.asarray(s.objective_row, dtype=np.float64) * cs / u
        out.objective_const = float(s.objective_const) / u
        out.z = np.asarray(s.z, dtype=np.float64) * rs / u
        n_user = np.asarray(s.duals).size
        out.duals = out.z[out.z.size - n_user:].copy() if n_user else np.zeros(0)
        out.gram = np.asarray(s.gram, dtype=np.float64) / dd
        out.F = np.asarray(s.F, dtype=np.float64) / fs
        out.value, out.dual_value = float(s.value) / u, float(s.dual_value) / u
        out.gap = out.dual_value - out.value
        out.trace_weight = delta
        return out

    def back(p: SDPSolution | None) -> SDPSolution | None:
        if p is None:
            return None
        out = dataclasses.replace(p)
        out.rows, out.objective_row, out.objective_const = sol.rows, sol.objective_row, sol.objective_const
        out.consts = sol.consts
        out.z = np.asarray(p.z, dtype=np.float64) * u / rs
        n_user = np.asarray(p.duals).size
        out.duals = out.z[out.z.size - n_user:].copy() if n_user else np.zeros(0)
        out.gram = np.asarray(p.gram, dtype=np.float64) * dd
        out.F = np.asarray(p.F, dtype=np.float64) * fs
        out.value, out.dual_value = float(p.value) * u, float(p.dual_value) * u
        out.gap = out.dual_value - out.value
        out.trace_weight = 0.0
        return out

    def interior(delta: float) -> SDPSolution | None:
        kw_i = {k: v for k, v in kw.items() if k not in ("row_units", "refine", "tol_feas", "trace_weight")}
        kw_i["tol"] = max(float(kw["tol"]), INTERIOR_TOL)
        try:
            si = solve_sparse(pep, max_rounds=INTERIOR_MAX_ROUNDS, trace_weight=float(delta) * u,
                              trace_weights=1.0 / (d * d), **kw_i)
        except (SolverError, FairtheoryValueError):
            return None
        return view(si, float(delta)) if si.status in REPAIR_STATUSES else None

    with np.errstate(all="ignore"):
        try:
            # fine: the shifts below the float eigenvalues' error bound, decided on the grid of these own-unit rows
            # (the same at every power-of-two change of units; not on the raw data, whose rows' units differ)
            br = exact_bracket(view(sol, 0.0), interior, tol=REPAIR_RTOL, fine=True)
        except (ValueError, ZeroDivisionError, OverflowError, ArithmeticError, np.linalg.LinAlgError):
            return None
    info = dict(br.info)
    info["measured_sizes"] = {"obj_unit": u, "scale_log2": [int(x) for x in np.log2(d)]}
    up_exact = None if br.upper_exact is None else br.upper_exact * Fraction(u)
    up = float(br.upper) * u
    if up_exact is not None and math.isfinite(up) and Fraction(up) < up_exact:
        up = math.nextafter(up, math.inf)  # the float upper end stays above the exact one (a subnormal product)
    return dataclasses.replace(br, lower=br.lower * u, upper=up, value=min(br.value * u, up), upper_exact=up_exact,
                               point=back(br.point), info=info)


def _pow2_exact(scaled: np.ndarray, raw: np.ndarray | None) -> bool:
    """Whether every nonzero of ``scaled`` (a float array scaled by powers of two) is a finite normal float64, so that
    the scaling was exact (``raw``: the unscaled data, whose zeros must stay zeros; ``None``: not checked)."""
    a = np.asarray(scaled, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        return False
    nz = a[a != 0]
    if nz.size and float(np.abs(nz).min()) < np.finfo(np.float64).tiny:
        return False
    return raw is None or int(np.count_nonzero(np.asarray(raw))) == int(np.count_nonzero(a))


#: a dense solve whose Gram diagonal, values or objective lie farther than ``2^MEASURED_EXP`` from the units it was
#: solved in is solved again in the sizes it measured (:func:`_measured_kw`) ...
MEASURED_EXP = 10
#: ... at most this many times (each solve measures the sizes for the next)
MEASURED_PASSES = 2
#: sizes below ``2^-MEASURED_FLOOR`` of the largest (a direction the worst case does not use) are taken at that floor
MEASURED_FLOOR = 60


def _pow2_sizes(x: np.ndarray) -> np.ndarray | None:
    """Powers of two nearest ``|x|`` (floored at ``2^-MEASURED_FLOOR`` of the largest); ``None`` when none is positive."""
    a = np.abs(np.asarray(x, dtype=np.float64))
    if a.size == 0 or not np.all(np.isfinite(a)) or float(a.max()) <= 0:
        return None
    a = np.maximum(a, float(a.max()) * 2.0 ** -MEASURED_FLOOR)
    return np.ldexp(1.0, np.round(np.log2(a)).astype(np.int64))


def _measured_kw(sol: SDPSolution, kw: dict[str, Any], dim: int) -> tuple[dict[str, Any], bool] | None:
    r"""The dense solve's arguments in the sizes ``sol`` measured and whether they are *far* from those in use;
    ``None`` when they are exactly those in use (or not measurable).

    ``scale_j`` the power of two nearest ``sqrt(G_jj)``, ``fscale_k`` nearest ``|F_k|``, the objective's unit nearest
    ``|value - const|``: powers of two, so the congruence ``G' = D^-1 G D^-1`` and the division of the values and of
    the objective are exact (the same problem; the repair and every check run on the PEP's own data).  Taken when one
    of them is more than ``2^MEASURED_EXP`` away from the unit in use (*far*) - a rule on the sizes of the returned
    point, never on time.  The a-priori units (:func:`pep_units`) give every gradient of a class the same unit ``L R``; a
    contraction's gradients shrink geometrically (``(1 - h mu)^k``), and Clarabel, whose tolerances are relative to
    the data, then knows the late ones to its absolute accuracy only: GD ``||x_20 - x*||^2`` on
    ``SmoothStronglyConvex(1, 1 - 1e-6)``, ``h = 1/2`` (reparametrised) came back ``AlmostSolved`` 2.8e-4 off; in its
    measured sizes ``Solved`` within 3e-9 (measured)."""
    if sol.gram is None or dim == 0 or sol.objective_const is None:
        return None
    g = np.asarray(sol.gram, dtype=np.float64)
    if g.shape != (dim, dim):
        return None
    d = _pow2_sizes(np.sqrt(np.maximum(np.diag(g), 0.0)))
    if d is None:
        return None
    cur = np.ones(dim) if kw.get("scale") is None else np.asarray(kw["scale"], dtype=np.float64)
    F = np.asarray(sol.F, dtype=np.float64)
    fcur = np.ones(F.size) if kw.get("fscale") is None else np.asarray(kw["fscale"], dtype=np.float64)
    fd = _pow2_sizes(F) if F.size else None
    size = abs(float(sol.value) - float(sol.objective_const))
    if not (0 < size < math.inf):
        return None
    ou = float(np.ldexp(1.0, int(round(math.log2(size)))))
    far = [np.abs(np.log2(d / cur)), np.abs(np.log2(fd / fcur)) if fd is not None else np.zeros(0),
           np.array([abs(math.log2(ou / float(kw.get("obj_unit", 1.0))))])]
    dist = max(float(x.max(initial=0.0)) for x in far)
    if dist == 0 and kw.get("row_units"):
        return None
    out = {k: v for k, v in kw.items() if k not in ("tol_feas", "refine")}
    out.update(scale=d, fscale=fd if fd is not None else kw.get("fscale"), obj_unit=ou, row_units=True)
    return out, dist > MEASURED_EXP


def _width(sol: SDPSolution | None, br: Any) -> float:
    """``upper - value`` of a solve and its repaired bracket (``inf`` without a finite proved upper end, or for a status
    outside :data:`REPAIR_STATUSES`)."""
    if sol is None or br is None or sol.status not in REPAIR_STATUSES or not math.isfinite(float(br.upper)):
        return math.inf
    w = float(br.upper) - float(br.lower)
    return w if w >= 0 else math.inf


def _tighter(a: SDPSolution | None, br_a: Any, b: SDPSolution | None, br_b: Any) -> bool:
    """Whether solve ``a`` sits closer below its proved upper end than ``b`` below its own (:func:`_width`)."""
    wa = _width(a, br_a)
    return math.isfinite(wa) and wa < _width(b, br_b)


def _closer(new: SDPSolution, br_new: Any, old: SDPSolution, br_old: Any, far: bool) -> bool:
    """Whether the measured solve ``new`` replaces ``old``.  With a proved upper end on both (each repaired bracket's
    upper end is rigorous; ``U`` the smaller) the solves' values are primal (lower) estimates of a worst case ``<= U``:
    ``new`` replaces ``old`` when its value is the higher one not above ``U`` (or ``old``'s lies above ``U``).  When only
    one of them has a proved upper end, that one.  Without any: when ``new`` is Solved and ``old`` was not, or was
    solved in units ``far`` from its sizes (GD ``f(x_20) - f*`` at ``R^2 = 1e-3``, mu = L/10: a Solved value 1.3e-6
    below the worst case, the measured AlmostSolved 4.7e-7 below it, closer to the upper end both share)."""
    def proved(b: Any) -> bool:
        return b is not None and math.isfinite(float(b.upper))

    vn, vo = float(new.value), float(old.value)
    if proved(br_new) and proved(br_old) and new.status in REPAIR_STATUSES and math.isfinite(vn):
        u = min(float(br_new.upper), float(br_old.upper))
        return vn <= u and (vo > u or not math.isfinite(vo) or vn > vo or old.status not in REPAIR_STATUSES)
    if proved(br_new) != proved(br_old):
        # only one solve's multipliers prove an upper end: that solve's point is the one its certificate holds (GD
        # f(x_20) - f* on SmoothStronglyConvex(1e6, 1e6 (1 - 1e-6)) at R^2 = 1e-6: the unproved first solve 2e-4 high,
        # the measured one within 4e-9 and proved within 1.5e-3 above)
        return proved(br_new) and new.status in REPAIR_STATUSES and vn <= float(br_new.upper)
    return new.status == "Solved" and (far or old.status != "Solved")


def _attach(sol: SDPSolution, br: Any, value_is: str) -> SDPSolution:
    """A copy of ``sol`` (the float solve, or the KKT point of the repair's Newton polish) carrying the bracket
    ``br``.  ``value_is == "exact"`` (the bracket within :data:`REPAIR_RTOL`): ``value`` is the point's objective,
    ``lower`` (within the tolerance of the proved ``upper``, never above it), status ``"Solved"`` whatever Clarabel's
    last iterate said; ``"solver"``: the float solve's value as it was, the bracket attached."""
    out = dataclasses.replace(sol)
    out.lower, out.upper, out.bracket_info = float(br.lower), float(br.upper), dict(br.info)
    out.value_is = value_is
    if value_is == "exact":
        out.value = min(float(br.lower), float(br.upper))
        out.gap = float(out.dual_value) - out.value
        out.solver = sol.solver + "+exact-repair"
        out.status = "Solved"
    return out


def solve_checked(pep: PEP, *, tol: float, max_iter: int, verbose: bool, scale: Any, fscale: Any, trace_weight: float,
                  method: str, gmp: str, units_in: PEPUnits | None = None) -> SDPSolution:
    """:meth:`PEP.solve` with ``raw=False`` (module doc).  The dense route's assembled data are shared by every solve
    of this call (``pep._assembly_cache``, :func:`fairtheory.worstcase.solvers.solve_dense`: the float solve, its
    interior end, a re-solve in the objective's unit), dropped when it returns.  ``units_in``: the units to solve in,
    instead of :func:`pep_units` (powers of two; the reparametrised PEP of a class at ``mu -> L`` on the sparse route is
    solved in its extreme quadratics' sizes, :meth:`fairtheory.worstcase.nearly_quadratic.Reparametrised.instance_sizes`),
    and the sizes its sparse-route repair runs in (:func:`_repaired_in_sizes`)."""
    owner = getattr(pep, "_assembly_cache", None) is None
    if owner:
        pep._assembly_cache = {}  # type: ignore[attr-defined]
    try:
        # one BLAS thread: the dense calls here are small, and OpenBLAS's idle workers cost more CPU than the calls
        # (measured: OGM N = 20 140 -> 109 ms, GD N = 5 6.6 -> 5.3 ms of CPU on 2 cores); Clarabel is not BLAS
        with one_blas_thread():
            return _solve_checked(pep, tol=tol, max_iter=max_iter, verbose=verbose, scale=scale, fscale=fscale,
                                  trace_weight=trace_weight, method=method, gmp=gmp, units_in=units_in)
    finally:
        if owner:
            pep._assembly_cache = None  # type: ignore[attr-defined]


def _solve_checked(pep: PEP, *, tol: float, max_iter: int, verbose: bool, scale: Any, fscale: Any,
                   trace_weight: float, method: str, gmp: str, units_in: PEPUnits | None = None) -> SDPSolution:
    if pep._objective is None:
        raise FairtheoryValueError("no objective: call maximize(...) first")
    if not trace_weight and scale is None and fscale is None:
        # SmoothStronglyConvex at mu -> L: the same PEP in the basis gh = g - mu x, h = f - mu/2 ||x||^2 (exact)
        rep = reparametrise(pep)
        if rep is not None:
            # both routes solve the reparametrised PEP in the sizes of the class's extreme quadratics (a contraction:
            # gh_k ~ (L - mu) rho^k), not in the a-priori units (every gh of unit (L - mu) R), and repair it there
            # (_repaired_in_sizes): at N = 60 the sparse route's first relaxation was not solved in the a-priori units;
            # at N = 20 the dense route's value (2^-40 of its unit) was left uncertified after ~5 s of failed repairs,
            # and is now certified in ~1 s (Reparametrised.instance_sizes; a rule on sizes)
            U_rep = None
            R_rep = pep_units(rep.pep).R
            got = rep.instance_sizes(R_rep)
            if got is not None:
                U_rep = PEPUnits(R=R_rep, vec=got[0], val=got[1], obj=got[2])
            sol = solve_checked(rep.pep, tol=tol, max_iter=max_iter, verbose=verbose, scale=None, fscale=None,
                                trace_weight=0.0, method=method, gmp=gmp, units_in=U_rep)
            if sol.value_is != "exact" and gmp != "never" and _n_rows(rep.pep) <= GMP_MAX_ROWS and gmp_available():
                # the worst case on the face gh = 0 (h = 0: the quadratic mu/2 ||x||^2), far below every a-priori unit
                # of the new basis: SDPA-GMP on the data in the *original* class's units (gradients L R, values
                # L R^2; the objective's unit 2^-4 of pep_units', whose triangle inequality overestimates a cancelling
                # x_N = x_0 - h (g_0 + ..)), where it ends pdOPT at every scale (GD distance, mu = L (1 - 1e-6), L and
                # R^2 in 1e-6 .. 1e6: within 1e-7; on the raw data pdINF at L = 1e-6, noINFO at R^2 = 1e6)
                U0 = pep_units(pep)
                g = _gmp(rep.pep, sol if sol.rows is not None else None,
                         units=dataclasses.replace(U0, obj=U0.obj * 2.0 ** -4))
                if g is not None:
                    g.value_is, g.lower, g.upper, g.bracket_info = "gmp", sol.lower, sol.upper, sol.bracket_info
                    if math.isfinite(sol.upper):
                        g.value = min(g.value, sol.upper)  # never above a proved bound
                    sol = g
            return rep.map_back(sol)
    U = pep_units(pep) if units_in is None else units_in
    if not U.identity:
        scale = U.vec if scale is None else np.asarray(scale, dtype=np.float64) * U.vec
        fscale = U.val if fscale is None else np.asarray(fscale, dtype=np.float64) * U.val
    tried = []
    sparse = method == "sparse" or (method == "auto" and not pep.exact and should_use_sparse(pep))
    kw = {"tol": tol, "max_iter": max_iter, "verbose": verbose, "scale": scale, "fscale": fscale,
          "trace_weight": trace_weight, "obj_unit": U.obj}
    if not sparse:
        # the exact repair needs the multipliers dual feasible to about the gap tolerance (the slack's negative
        # eigenvalues are the dual residual): Clarabel's default 10 tol leaves GD N = 20 a shift the interior end
        # cannot pay for, and the KKT Newton stage (0.24 s) then runs (issue 41, measured in docs/worstcase.md)
        kw["tol_feas"] = FIRST_FEAS_FACTOR * float(tol)
        # with Clarabel's iterative refinement: without it (a third to a half of each solve at Gram dimension 22) a
        # "Solved" point can be infeasible enough to lift its objective - and the lower end, a float point - above the
        # worst case (GD contraction at L = 809000, mu = 573000, gamma = 1.73e-6, n = 3: 7.2e-5 high, "exact"; the
        # held-out sweep of seed 4112); any status but Solved re-solves with Clarabel's defaults below
        kw["refine"] = True
    if not U.identity:
        kw["row_units"] = True
    sol: SDPSolution | None = None
    e = 0  # the objective's size, 2^e of its unit (0 when the first solve fails)
    try:
        sol = pep._solve_float(method="sparse" if sparse else "dense", **kw)
        if "tol_feas" in kw and sol.status != "Solved":
            # the tighter feasibility tolerance not met (past extragradient, n = 3; proximal gradient, N = 5:
            # AlmostSolved): an AlmostSolved try stands when its repaired bracket closes (the repair proves its upper
            # end whatever the status, as for an AlmostSolved default solve); otherwise the solve with Clarabel's own
            # 10 tol and refinement decides, exactly as without this first try
            if sol.status in REPAIR_STATUSES and gmp != "always":
                br0 = _repaired(pep, sol, kw, sparse, trace_weight)
                if br0 is not None and _narrow(br0):
                    return _attach(br0.point if br0.point is not None else sol, br0, "exact")  # type: ignore[arg-type]
            kw.pop("tol_feas")
            kw.pop("refine")
            sol = pep._solve_float(method="dense", **kw)
        tried.append(f"{'sparse' if sparse else 'dense'} route: {sol.status}")
        # an objective far from its unit (a distance measured in value units, 1e-6): solved again in its own size
        size = abs(float(sol.value) - float(pep._objective.const)) / U.obj
        e = int(round(math.log2(size))) if sol.status == "Solved" and math.isfinite(size) and size > 0 else 0
        # not on the sparse route: it scales its basis by the measured sizes already, and its re-solve in the
        # objective's size ran round after round of ~55 s (GD distance N = 60, issue 41); a time limit would make the
        # route depend on the clock - the exact repair below judges the first solve instead
        if abs(e) > OBJ_RESOLVE_EXP and not sparse:
            kw2 = {**{k: v for k, v in kw.items() if k not in ("tol_feas", "refine")}, "obj_unit": U.obj * 2.0 ** e,
                   "row_units": True}
            s2 = pep._solve_float(method="sparse" if sparse else "dense", **kw2)
            tried.append(f"objective unit 2^{e}: {s2.status}")
            if s2.status == "Solved":
                sol, kw = s2, kw2
    except SolverError as exc:
        tried.append(f"{'sparse' if sparse else 'dense'} route: {exc}")
    if sparse and (sol is None or sol.status != "Solved") and pep.dim <= SPARSE_FAILED_DENSE_DIM \
            and solvers.estimated_seconds(pep.dim, _n_rows(pep)) <= SPARSE_FAILED_DENSE_SECONDS:
        # the sparse route did not solve (its honest AlmostSolved, a NumericalError): the dense route, by size
        try:
            dense = pep._solve_float(method="dense", **kw)
            tried.append(f"dense route: {dense.status}")
            if sol is None or dense.status == "Solved":
                sol, sparse = dense, False
        except SolverError as exc:
            tried.append(f"dense route: {exc}")
    gmp_possible = gmp != "never" and not trace_weight and _n_rows(pep) <= GMP_MAX_ROWS and gmp_available()
    # the exact repair first; gmp="always" skips it only where the GMP re-solve can run (too large a PEP for GMP: the
    # repair is the exact route left, Halpern N = 20 was 3.7e-6 off otherwise)
    br = _repaired(pep, sol, kw, sparse, trace_weight) if gmp != "always" or not gmp_possible else None
    if br is not None and _narrow(br):
        return _attach(br.point if br.point is not None else sol, br, "exact")  # type: ignore[arg-type]
    if (sparse or units_in is not None) and sol is not None and not trace_weight and \
            (gmp != "always" or not gmp_possible):
        # the sparse route's repair (or the dense route's, in given sizes) did not close on the raw data: the same
        # repair in the sizes the solve measured or was given (_repaired_in_sizes: an exact power-of-two congruence),
        # kept when it proves a lower upper end
        br_m = _repaired_in_sizes(pep, sol, kw, units_in)
        if br_m is not None and _narrow(br_m):
            return _attach(br_m.point if br_m.point is not None else sol, br_m, "exact")  # type: ignore[arg-type]
        if br_m is not None and math.isfinite(br_m.upper) and (br is None or br_m.upper < br.upper):
            br = br_m
    if not sparse and sol is not None and sol.status in REPAIR_STATUSES and not trace_weight and gmp != "always":
        # the repair did not close: solved again in the sizes the solve measured (_measured_kw).  Sizes far from the
        # a-priori units (a contraction's late gradients, 2^-14 of their unit at N = 20 on SmoothStronglyConvex(1,
        # 1 - 1e-6)): at most MEASURED_PASSES solves; sizes near those in use: one solve, kept when the first was not
        # Solved or sits farther below its proved upper end (an AlmostSolved 4.6e-6 off at L = 1000/1024, f(x_20) - f*, mu = L/10:
        # Solved 1.9e-7 off in its measured sizes)
        for _ in range(MEASURED_PASSES):
            got = _measured_kw(sol, kw, pep.dim)
            if got is None:
                break
            mk, far = got
            s_m = pep._solve_float(method="dense", **mk)
            tried.append(f"dense route in its measured sizes: {s_m.status}")
            if s_m.status not in REPAIR_STATUSES:
                break
            br_m = _repaired(pep, s_m, mk, False, trace_weight)
            if br_m is not None and _narrow(br_m):
                return _attach(br_m.point if br_m.point is not None else s_m, br_m, "exact")  # type: ignore[arg-type]
            if not _closer(s_m, br_m, sol, br, far):
                break
            sol, kw, br = s_m, mk, br_m
            if not far:
                break
    if "refine" in kw and sol is not None:
        # the first try (tol_feas = tol, no refinement) did not close the bracket: from here on every path runs on the
        # solve with Clarabel's defaults, exactly as without the first try
        first, br_first = sol, br
        kw.pop("tol_feas", None)
        kw.pop("refine", None)
        sol = pep._solve_float(method="dense", **kw)
        tried.append(f"dense route, Clarabel's defaults: {sol.status}")
        br = _repaired(pep, sol, kw, sparse, trace_weight) if gmp != "always" or not gmp_possible else None
        if br is not None and _narrow(br):
            return _attach(br.point if br.point is not None else sol, br, "exact")  # type: ignore[arg-type]
        if first.status == "Solved" and not _tighter(sol, br, first, br_first):
            # the first try (Solved at the tighter feasibility tolerance) stays unless the defaults' solve sits closer
            # below a proved upper end: the looser tolerance was the farther off (GD f(x_20) - f* on
            # SmoothStronglyConvex(1024, 102.4), whose normalised data are bit for bit those at L = 1: 3.5e-7 below its
            # upper end, the defaults' 4.2e-6 - and the latter was reported; at L = 1e-6, no upper end on either,
            # 5e-8 and 4.5e-6 off the exact value): a rule on the statuses and the brackets' sizes
            sol, br = first, br_first
            tried.append("kept the first try")
    # the sparse route solves a value far below its unit again in its own size (SparseSDPSolution.obj_unit)
    e_own = e if not sparse or sol is None else _exp_of(abs(float(sol.value) - float(pep._objective.const))
                                                         / float(getattr(sol, "obj_unit", U.obj)))
    if sparse and sol is not None and abs(e_own) > OBJ_RESOLVE_EXP and sol.status == "Solved":
        # the sparse route's value is 2^e of its objective's unit and known to tol * U.obj absolute only (no re-solve
        # in its own unit on this route, above), and the repaired bracket did not close: refuse, naming the proved
        # upper end - never the solver's point as if it were relatively accurate (GD distance N = 60, mu = 1/10)
        up = f"; proved upper bound {br.upper!r}" if br is not None and math.isfinite(br.upper) else ""
        raise SolverError(f"PEP.solve: the worst case is 2^{e} of its unit and the sparse route cannot solve it to "
                          f"relative accuracy{up}; tried " + "; ".join(tried), "Clarabel", "AlmostSolved")
    if sol is not None and _accurate(sol) and gmp != "always" and (br is None or not gmp_possible):
        # no repair at hand (the float solve stands, as it is PSD to PSD_RTOL), or a wide bracket and no GMP re-solve
        return _attach(sol, br, "solver") if br is not None else sol
    if sol is not None and sol.status in UNBOUNDED_STATUSES:
        ray = unbounded_ray(sol, pep, U) if not sparse else None
        if ray is None and ray_possible(pep) and pep.dim <= DENSE_FALLBACK_DIM:  # the ray is checked on the dense route's data
            dense = pep._solve_float(method="dense", **kw)
            tried.append(f"dense route: {dense.status}")
            ray = unbounded_ray(dense, pep, U) if dense.status in UNBOUNDED_STATUSES else None
            sol = dense if ray is not None else sol
        if ray is not None:
            return ray
    small = not trace_weight and _n_rows(pep) <= GMP_MAX_ROWS
    if gmp != "never" and small and gmp_available():
        g = _gmp(pep, sol)
        tried.append("SDPA-GMP: " + ("pdOPT" if g is not None else "no optimal solution"))
        if g is not None:
            g.value_is = "gmp"
            if br is not None and math.isfinite(br.upper):  # the repaired upper end stays a rigorous bound
                g.upper, g.bracket_info = br.upper, br.info
                g.value = min(g.value, br.upper)  # never above a proved bound (GMP's last bits)
            return g
    if sol is not None and sol.status == "Solved":
        # PSD only to more than PSD_RTOL, and no exact re-solve at hand: the float solve stands
        return _attach(sol, br, "solver") if br is not None else sol
    if sol is not None and _almost(sol):
        # both sides within ALMOST_RTOL of each other: reported with its own status, never as "Solved"
        return _attach(sol, br, "solver") if br is not None else sol
    if sparse and method == "auto" and pep.dim <= DENSE_FALLBACK_DIM:
        sol = pep._solve_float(method="dense", **kw)
        tried.append(f"dense route: {sol.status}")
        if sol.status == "Solved":
            return sol
    status = sol.status if sol is not None else "failed"
    hint = ""
    if sol is not None and status in ("PrimalInfeasible", "DualInfeasible"):
        hint = (" - a PEP always has a feasible point, so this is a numerical failure (typically step sizes that "
                "grow or shrink the iterates geometrically, e.g. |1 - h L| > 1 over many steps, or a class close to its "
                "degenerate end, mu -> L)")
    raise SolverError(f"PEP.solve: the float solve failed{hint}; tried " + "; ".join(tried), "Clarabel", status)


#: Clarabel statuses that say the (maximisation) PEP may be unbounded: a primal ray, checked by :func:`unbounded_ray`
UNBOUNDED_STATUSES = ("DualInfeasible", "AlmostDualInfeasible")
#: relative tolerance of the ray check (rows, PSD) against the ray's own size
RAY_RTOL = 1e-7


def _natural(dim: int, gram: np.ndarray, F: np.ndarray) -> np.ndarray:
    """``[G_ab (a <= b, the rows' order), F]``: the point of the PEP's rows (:class:`SDPSolution` ``rows``)."""
    ia, ib = np.triu_indices(dim)
    xg = np.empty(ia.size)
    xg[ib * (ib + 1) // 2 + ia] = gram[ia, ib]
    return np.concatenate([xg, F])


#: relative tolerance of the primal check of a GMP solution on the float data (its rows, PSD and value)
GMP_CHECK_RTOL = 1e-7


def _primal_ok(like: SDPSolution, gram: np.ndarray, F: np.ndarray, value: float) -> bool:
    """Whether a re-solve's point ``(gram, F)`` is feasible for the float data of ``like`` (every row to
    :data:`GMP_CHECK_RTOL` relative to the row's size at the point, the Gram matrix PSD to the same) and its objective
    there is ``value``: the guard against a solver reporting an optimum that is not a point of this PEP."""
    if like.rows is None or like.objective_row is None or gram.shape != (like.dim, like.dim) or \
            not (np.all(np.isfinite(gram)) and np.all(np.isfinite(F))):
        return like.rows is None  # nothing to check against (no float data at hand): as before
    x = _natural(like.dim, gram, F)
    # sizes of the data, not of the point: a point of size 1e15 whose rows cancel to 0.4 is not feasible
    size = 1.0 + np.asarray(abs(like.rows).max(axis=1).todense()).ravel() + np.abs(like.consts)
    r = like.rows @ x - like.consts
    eq, ineq = r[:like.n_eq], r[like.n_eq:]
    w = np.linalg.eigvalsh(gram) if like.dim else np.zeros(1)
    obj = float(np.dot(like.objective_row, x)) + like.objective_const
    tol = GMP_CHECK_RTOL
    return bool(np.all(np.abs(eq) <= tol * size[:like.n_eq]) and np.all(ineq <= tol * size[like.n_eq:])
                and w[0] >= -tol * max(1.0, float(w[-1])) and abs(obj - value) <= tol * (1.0 + abs(value)))


def _bounded_gradients(cls: Any) -> bool:
    """Whether a class bounds its (sub)gradients / operator values by a finite constant: a smoothness or Lipschitz
    constant ``L`` (cocoercive operators: ``1/beta``) or a gradient bound ``M``."""
    for name in ("L", "M"):
        v = getattr(cls, name, None)
        try:
            if v is not None and 0 < float(v) < math.inf:
                return True
        except (TypeError, ValueError):
            continue
    return False


def _unconstrained_start(pep: Any) -> bool:
    """Whether the caller wrote no row with a constant at all (no initial condition: ``||x0 - x*||^2 <= R^2``,
    ``f(x0) - f* <= c``, ...) while the PEP has a starting point of its own (``PEP.vector()``, tag ``"free"``): the PEP
    is then homogeneous and nothing bounds the start (``f = L x^2/2`` with ``x0 -> inf``).  Deliberately narrow: a
    badly conditioned PEP with an initial condition (SCAFFOLD at ``lr L = 100``) must not be declared unbounded on a
    solver's numerical infeasibility certificate."""
    tags = getattr(pep, "_vtag", None)
    if not tags or not any(t[0] == "free" for t in tags):
        return False
    rows = list(getattr(pep, "_ineq", [])) + list(getattr(pep, "_eq", []))
    return not any(float(r.const) != 0 for r in rows)


def ray_possible(pep: Any) -> bool:
    """``False`` when no ray can exist: every function of ``pep`` has bounded gradients (:func:`_bounded_gradients`)
    and the caller bounds the start by an initial condition, so every point and gradient of a finite method is
    bounded and the worst case is finite - a solver's infeasibility certificate there is a numerical artefact of large
    steps, never reported as a ray.  A PEP without any initial condition makes a ray possible
    (:func:`_unconstrained_start`; :func:`unbounded_ray` still checks it)."""
    funcs = getattr(pep, "functions", None)
    return not funcs or not all(_bounded_gradients(f.cls) for f in funcs) or _unconstrained_start(pep)


def unbounded_ray(sol: SDPSolution, pep: Any = None, units: PEPUnits | None = None) -> SDPSolution | None:
    """The solution ``sol`` reported as an unbounded worst case (``value = inf``, status ``"Unbounded"``) when its
    point is a ray of the PEP: every inequality row ``a . x <= 0`` and every equality ``a . x = 0`` on it, its Gram
    part PSD, and the objective increasing along it (``c . x > 0``), all to :data:`RAY_RTOL` relative to the ray's
    size.  Then every feasible point plus ``t`` times the ray is feasible (the rows are linear, the PSD cone is a
    cone) and the objective grows without bound in ``t``: no finite worst case exists.  ``None`` when the check
    fails (or the data are not at hand), and when ``pep`` is given and :func:`ray_possible` says no ray can exist.
    ``units`` (:func:`pep_units`): the check runs in normalised variables (Gram entry ``(a, b)`` divided by ``u_a u_b``,
    value ``k`` by its unit; the rows scaled alike - the same cone, the same rows), so coordinates of a small unit do
    not vanish below the tolerance next to those of a large one."""
    if sol.rows is None or sol.objective_row is None or (pep is not None and not ray_possible(pep)):
        return None
    gram = np.asarray(sol.gram, dtype=np.float64)
    x = _natural(sol.dim, gram, np.asarray(sol.F, dtype=np.float64))
    rows, obj = sol.rows, np.asarray(sol.objective_row, dtype=np.float64)
    if units is not None and not units.identity and units.vec.size == sol.dim and units.val.size == x.size - \
            sol.dim * (sol.dim + 1) // 2:
        import scipy.sparse as sp

        ia, ib = np.triu_indices(sol.dim)
        cs = np.empty(x.size)
        cs[ib * (ib + 1) // 2 + ia] = units.vec[ia] * units.vec[ib]
        cs[sol.dim * (sol.dim + 1) // 2:] = units.val
        x = x / cs
        rows = (rows @ sp.diags(cs)).tocsr()
        obj = obj * cs
        gram = gram / np.outer(units.vec, units.vec)
    size = float(np.max(np.abs(x))) if x.size else 0.0
    if not size or not math.isfinite(size):
        return None
    x = x / size
    lhs = rows @ x
    slack = RAY_RTOL * (1.0 + np.asarray(abs(rows).sum(axis=1)).ravel())
    eq, ineq = lhs[:sol.n_eq], lhs[sol.n_eq:]
    gain = float(np.dot(obj, x))
    eig = np.linalg.eigvalsh(gram / size) if sol.dim else np.zeros(0)
    if not (np.all(np.abs(eq) <= slack[:sol.n_eq]) and np.all(ineq <= slack[sol.n_eq:])
            and (eig.size == 0 or eig.min() >= -RAY_RTOL * max(1.0, float(eig.max())))
            and gain > RAY_RTOL * (1.0 + float(np.abs(obj).sum()))):
        return None
    return dataclasses.replace(sol, value=math.inf, dual_value=math.inf, gap=math.nan, status="Unbounded")


def normalised_export(pep: PEP, U: PEPUnits | None = None) -> dict[str, Any]:
    """:meth:`PEP.export` in the units of :func:`pep_units`: the Gram entry ``(a, b)`` times ``u_a u_b``, the value
    ``k`` times ``phi_k``, the objective divided by its unit - powers of two, so the data are exactly those of the same
    problem in normalised variables (its optimum is the PEP's divided by the objective's unit)."""
    U = pep_units(pep) if U is None else U
    data = pep.export()
    uv = [Fraction(float(x)) for x in U.vec]
    uf = [Fraction(float(x)) for x in U.val]
    w = Fraction(U.obj)

    def conv(row: Any, div: Fraction = Fraction(1)) -> Any:
        G, F, c = row
        return ({(a, b): v * uv[a] * uv[b] / div for (a, b), v in G.items()},
                {k: v * uf[k] / div for k, v in F.items()}, c / div)

    return {**data, "rows": [conv(r) for r in data["rows"]], "objective": conv(data["objective"], w)}


def pep_bracket(pep: PEP, sol: SDPSolution | None = None, *, rtol: float = 1e-6, deadline_s: float = 60.0) -> Any:
    """:meth:`PEP.bracket` (its docstring)."""
    if pep._objective is None:
        raise FairtheoryValueError("no objective: call maximize(...) first")
    if sol is None:
        sol = pep.solve()
    U = pep_units(pep)
    info: dict[str, Any] = {"solver_value": float(sol.value)}
    try:
        res = find_multipliers(normalised_export(pep, U), value=float(sol.value) / U.obj, rtol=rtol,
                               deadline_s=deadline_s)
        b = res.bound * Fraction(U.obj)
        upper = float(b)
        if Fraction(upper) < b:
            upper = math.nextafter(upper, math.inf)
        info.update(upper_route=res.route, upper_exact=str(b))
    except SolverError as exc:
        upper = math.inf
        info["upper_error"] = str(exc)[:300]
    if all(f.cls.smooth_convex for f in pep.functions) and pep.functions and \
            all(not f.points[0].x.c.any() for f in pep.functions if f.points):
        initial = [j for j, t in enumerate(pep._vtag) if t[0] == "free"]
        try:
            lower, more = replay_lower(pep, sol, pep._objective, initial=initial)
            info.update(lower_route="replay", **more)
        except (SolverError, np.linalg.LinAlgError, ValueError) as exc:
            lower = math.nan
            info["lower_error"] = str(exc)[:300]
    else:
        lower = math.nan
        info["lower_error"] = ("the replayed lower bound covers L-smooth convex functions whose first point is their "
                               "optimum (SmoothStronglyConvex(L, 0) after optimum()) only")
    viol = max((pep.evaluate(s, sol) for s in pep._ineq), default=0.0)
    info["user_row_violation"] = max(viol, 0.0)
    return Bracket(lower, upper, info)
