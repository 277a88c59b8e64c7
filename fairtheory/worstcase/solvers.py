r"""The SDP back-ends of performance estimation: Clarabel (float64) and SDPA-GMP (200-bit), behind public names.

Used by the PEP builder (:meth:`fairtheory.worstcase.sdp.PEP.solve` and its sparse / symmetric / checked routes) and
by the certificate search (:mod:`fairtheory.proofs.search`, :mod:`fairtheory.proofs.certificate`):

* :class:`SDPSolution` - what a float solve of a :class:`~fairtheory.worstcase.sdp.PEP` returns; :func:`solve_dense`
  - the dense Clarabel route of ``PEP.solve``; :func:`clarabel_setup` - Clarabel's cones and settings as every PEP
  solve uses them; :func:`require_solved`;
  :func:`estimated_seconds` - a rough upper estimate of one dense Clarabel solve;
* exported PEP data (``{"dim", "nf", "n_eq", "rows", "objective"}``, exact rows ``(G, F, c)``: the format of
  :meth:`fairtheory.worstcase.sdp.PEP.export` and :func:`fairtheory_kernel.pep.build`): :func:`exported_pep`
  validates it into float views (:class:`ExportedPEP`); :func:`solve_clarabel` and :func:`solve_sdpa` solve it and
  return the row multipliers, the value and the primal (:class:`FloatSolve`); :func:`sdpa_available` says whether
  SDPA-GMP (the ``sdpap`` module of ``sdpa-multiprecision``) imports.

Clarabel, scipy and ``sdpap`` are imported inside the functions that call them (heavy / optional dependencies).  Of
the project this module imports only :mod:`fairtheory.errors` and the Gram algebra (:mod:`fairtheory.worstcase.gram`):
the builder and the proof search both sit above it.
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError, SolverError
from fairtheory.worstcase.gram import _SQRT2, _unsvec

if TYPE_CHECKING:
    from fairtheory.worstcase.sdp import PEP

__all__ = ["SDPSolution", "solve_dense", "clarabel_setup", "require_solved", "estimated_seconds", "ExportedPEP", "FloatSolve",
           "exported_pep", "solve_clarabel", "solve_sdpa", "sdpa_available", "silenced", "SDPA_OPTIONS"]

_METHOD = ["faer"]
#: the dense route's feasibility tolerance is this times its gap tolerance ``tol``
FEAS_FACTOR = 10.0

#: SDPA options (``frvMethod`` stays "split": "elimination" crashes on Python 3)
SDPA_OPTIONS: dict[str, Any] = {"print": "no", "mpfPrecision": 200, "epsilonStar": 1e-30, "epsilonDash": 1e-30,
                                "maxIteration": 200}
Row = tuple[dict[tuple[int, int], Fraction], dict[int, Fraction], Fraction]


# ------------------------------------------------------------------------------------- solves of a PEP object
@dataclass
class SDPSolution:
    """What :meth:`fairtheory.worstcase.sdp.PEP.solve` returns (values in the PEP's own units)."""

    value: float            #: primal objective (the worst case found)
    dual_value: float       #: dual objective (an upper bound when the dual is feasible)
    gap: float              #: ``dual_value - value``
    status: str             #: Clarabel status name
    gram: np.ndarray        #: the Gram matrix (dim x dim)
    F: np.ndarray           #: the function-value variables
    dim: int                #: Gram dimension
    n_constraints: int      #: scalar constraints (interpolation + user)
    n_interp: int           #: interpolation conditions among them
    seconds: float          #: solve time (Clarabel)
    build_seconds: float    #: time to assemble the sparse problem
    iterations: int
    r_prim: float
    r_dual: float
    duals: np.ndarray       #: multipliers of the user inequality constraints (in order)
    #: problem data in natural coordinates ``[G_ab (a <= b), F]``: row ``i`` means ``rows[i] . x <= consts[i]``
    #: (``==`` for the first ``n_eq``), the objective ``objective_row . x + objective_const``
    rows: Any = None
    consts: Any = None
    objective_row: Any = None
    objective_const: float = 0.0
    z: Any = None           #: the solver's multiplier of every scalar row
    n_eq: int = 0
    max_terms: int = 0      #: most floating-point terms summed into one coefficient (for rounding bounds)
    trace_weight: float = 0.0  #: ``eps`` of ``maximise obj + eps tr G`` (``objective_row`` excludes it)
    solver: str = "clarabel"   #: ``"clarabel"`` or ``"sdpa-gmp"`` (the GMP re-solve of :meth:`PEP.solve`)
    #: the checked solve's bracket (:func:`fairtheory.worstcase.exact_repair.exact_bracket`): ``lower <= worst case
    #: <= upper`` with ``upper`` proved in exact arithmetic (``inf`` when none was proved, ``nan`` lower when none is
    #: known); ``value_is``: ``"exact"``, ``"upper"`` (``value == upper``, the bracket within the repair tolerance),
    #: ``"gmp"`` (SDPA-GMP's value) or ``"solver"`` (the float solver's primal value)
    lower: float = math.nan
    upper: float = math.inf
    value_is: str = "solver"
    bracket_info: dict[str, Any] | None = None

    @property
    def solved(self) -> bool:
        return self.status == "Solved"


def clarabel_setup(n_eq: int, n_ineq: int, dim: int, *, tol_gap: float, tol_feas: float, max_iter: int,
                   verbose: bool, max_threads: int = 1, refine: bool = True) -> tuple[list[Any], Any]:
    """Clarabel's cones (zero, nonnegative, one PSD triangle of size ``dim``) and settings as every PEP solve uses
    them (gap and feasibility tolerances, no presolve, the ``faer`` direct solver); ``refine=False``: no iterative
    refinement of the KKT solves (a third to a half of a solve's time at Gram dimension 22; the checked solve's
    first try, :func:`fairtheory.worstcase.checked_solve.solve_checked`, which re-solves with it where that try is
    not ``Solved``)."""
    import clarabel

    cones = []
    if n_eq:
        cones.append(clarabel.ZeroConeT(n_eq))
    if n_ineq:
        cones.append(clarabel.NonnegativeConeT(n_ineq))
    cones.append(clarabel.PSDTriangleConeT(dim))
    settings = clarabel.DefaultSettings()
    settings.verbose = verbose
    settings.tol_gap_abs = tol_gap
    settings.tol_gap_rel = tol_gap
    settings.tol_feas = tol_feas
    settings.max_iter = max_iter
    settings.max_threads = max_threads
    settings.presolve_enable = False
    settings.direct_solve_method = _METHOD[0]
    if not refine:
        settings.iterative_refinement_enable = False
    return cones, settings


def require_solved(sol: SDPSolution, what: str) -> None:
    """Raise :class:`SolverError` unless Clarabel reports ``Solved``."""
    if not sol.solved:
        raise SolverError(f"{what} (gap {sol.gap:.3g}, r_prim {sol.r_prim:.3g}, r_dual {sol.r_dual:.3g})", "Clarabel",
                          sol.status)


#: Gram dimension -> ``(ia, ib, svec_idx, off_idx, diag_idx)`` (the upper triangle's pairs ``a <= b`` in
#: ``np.triu_indices`` order, their column-major ``svec`` index ``b (b + 1)/2 + a``, those of the off-diagonal and
#: diagonal pairs), read-only; a few dimensions are kept (every solve of one PEP reads the same)
_SVEC_LAYOUT: dict[int, tuple[np.ndarray, ...]] = {}


def _svec_layout(dim: int) -> tuple[np.ndarray, ...]:
    """``(ia, ib, svec_idx, off_idx, diag_idx)`` of the Gram dimension ``dim`` (:data:`_SVEC_LAYOUT`)."""
    hit = _SVEC_LAYOUT.get(dim)
    if hit is None:
        ia, ib = np.triu_indices(dim)
        svec_idx = ib * (ib + 1) // 2 + ia
        hit = (ia, ib, svec_idx, svec_idx[ia != ib], svec_idx[ia == ib])
        for arr in hit:
            arr.flags.writeable = False
        if len(_SVEC_LAYOUT) >= 32:
            _SVEC_LAYOUT.clear()
        _SVEC_LAYOUT[dim] = hit
    return hit


#: size -> Clarabel's zero quadratic term ``P`` (an empty ``n x n`` CSC matrix, its arrays read-only): a constant of the
#: size, kept for a few sizes (every solve of one PEP reads the same)
_ZERO_P: dict[int, Any] = {}


def _zero_quadratic(n: int) -> Any:
    """The empty ``n x n`` CSC matrix ``scipy.sparse.csc_matrix((n, n))`` (:data:`_ZERO_P`)."""
    hit = _ZERO_P.get(n)
    if hit is None:
        import scipy.sparse as sp

        hit = sp.csc_matrix((n, n))
        for arr in (hit.data, hit.indices, hit.indptr):
            arr.flags.writeable = False
        if len(_ZERO_P) >= 32:
            _ZERO_P.clear()
        _ZERO_P[n] = hit
    return hit


#: the largest int32 (scipy's index type up to it)
_INT32_MAX = int(np.iinfo(np.int32).max)
#: :func:`_csr_routines`' answer, once imported (``[]`` before)
_CSR_ROUTINES: list[tuple[Any, ...] | None] = []


def _csr_routines() -> tuple[Any, ...] | None:
    """scipy's compiled CSR routines ``(csr_has_canonical_format, csr_has_sorted_indices, csr_sort_indices,
    csr_sum_duplicates)`` (private to ``scipy.sparse``: ``None`` where they cannot be imported); imported once."""
    if not _CSR_ROUTINES:
        _CSR_ROUTINES.append(_import_csr_routines())
    return _CSR_ROUTINES[0]


def _import_csr_routines() -> tuple[Any, ...] | None:
    """The import behind :func:`_csr_routines`."""
    try:
        from scipy.sparse._sparsetools import (
            csr_has_canonical_format,
            csr_has_sorted_indices,
            csr_sort_indices,
            csr_sum_duplicates,
        )
    except ImportError:
        return None
    return csr_has_canonical_format, csr_has_sorted_indices, csr_sort_indices, csr_sum_duplicates


def _summed_csr(ptr: np.ndarray, cols: np.ndarray, vals: np.ndarray, shape: tuple[int, int]) -> Any:
    """``scipy.sparse.csr_matrix((vals, (rows, cols)), shape)`` with its duplicates summed (``sum_duplicates``), for
    entries grouped by row in order (row ``i``'s are ``cols[ptr[i]:ptr[i+1]]``: ``rows = repeat(arange, diff(ptr))``),
    bitwise: the conversion from coordinates then keeps each row's entries in their order (a counting sort by row), and
    this runs the very routines scipy runs on them, under the same conditions - its sort of every row
    (``csr_sort_indices``, when some row is unsorted; not a stable sort, so the order in which duplicates are added is
    scipy's) and its duplicate sum (``csr_sum_duplicates``, when some row is not canonical) - without the constructors'
    conversions and index checks (tests/test_speed_paths.py compares the two)."""
    import scipy.sparse as sp

    m, n = shape
    nnz = int(cols.size)
    tools = _csr_routines()
    if nnz == 0 or tools is None:  # nothing to sum, or a scipy without these routines: its own constructors
        rows = sp.csr_matrix((vals, (np.repeat(np.arange(m), np.diff(ptr)), cols)), shape=shape)
        rows.sum_duplicates()
        return rows
    csr_has_canonical_format, csr_has_sorted_indices, csr_sort_indices, csr_sum_duplicates = tools
    idx = np.int32 if max(nnz, m, n) <= _INT32_MAX else np.int64  # scipy's index type for these sizes
    indptr = ptr.astype(idx)
    indices = cols.astype(idx)
    data = vals.astype(np.float64)  # a copy: the routines work in place
    if not csr_has_canonical_format(m, indptr, indices):
        if not csr_has_sorted_indices(m, indptr, indices):
            csr_sort_indices(m, indptr, indices, data)
        csr_sum_duplicates(m, n, indptr, indices, data)
        end = int(indptr[-1])
        indices, data = indices[:end].copy(), data[:end].copy()
    rows = sp.csr_matrix((data, indices, indptr), shape=shape, copy=False)
    rows.has_canonical_format = True
    return rows


def _assemble(pep: PEP, scale: np.ndarray | None, fscale: np.ndarray | None, row_units: bool) -> tuple[Any, ...]:
    """The data of one dense solve that do not depend on the trace weight, the tolerance or the objective's unit:
    ``(rows, consts, obj, max_terms, A, rscale, colscale, to_svec, svec_idx, diag_idx, n_eq, n_interp, P, b)`` (the
    natural rows, their right-hand sides and the objective; Clarabel's constraint matrix in the scaled ``svec`` variables
    with the PSD block appended; the per-row powers of two, the column scaling; Clarabel's zero quadratic term and
    right-hand side).  :func:`solve_dense` reuses them across the solves of one checked solve
    (:func:`fairtheory.worstcase.checked_solve.solve_checked` sets ``pep._assembly_cache`` for its duration: the float
    solve and its interior end share one assembly).

    The sparse matrices are written from arrays (no conversion from coordinates): ``rows`` by :func:`_summed_csr`
    (bitwise scipy's coordinates-to-CSR conversion), ``A`` column by column with each column's entries in row order -
    the CSC matrix scipy's conversion of the same coordinates gives (tests/test_speed_paths.py)."""
    import scipy.sparse as sp

    dim, nf = pep.dim, pep.nf
    nG = dim * (dim + 1) // 2
    nx = nG + nf
    interp = pep._interpolation()
    # every row's entries from PEP.row_arrays (array-built interpolation rows copied block by block, no Python loop
    # per row; bitwise the per-row assembly: tests/test_rows_vectorised.py)
    ptr, cat, vals, consts = pep.row_arrays(nG, pep._eq + interp + pep._ineq)
    r = int(consts.size)
    n_eq = len(pep._eq)
    rows = _summed_csr(ptr, cat, vals, (r, nx))
    max_terms = int(np.bincount(cat, minlength=nx).max()) if r else 0
    qc, qv = pep._row(pep._objective, nG)
    obj = np.zeros(nx)
    np.add.at(obj, qc, qv)
    if not (np.isfinite(rows.data).all() and np.isfinite(obj).all() and np.isfinite(consts).all()):
        raise FairtheoryValueError("the PEP's data is not finite (a coefficient overflowed float64): use smaller "
                                   "step sizes / fewer steps, or exact rational data")
    ia, ib, svec_idx, off_idx, diag_idx = _svec_layout(dim)
    to_svec = np.ones(nx)
    to_svec[off_idx] = 1.0 / _SQRT2  # coefficient of sqrt(2) G_ab
    colscale = np.ones(nx)
    if scale is not None:
        d = np.asarray(scale, dtype=np.float64)
        if d.shape != (dim,) or not np.all(np.isfinite(d)) or np.any(d <= 0):
            raise FairtheoryValueError(f"scale must hold {dim} positive finite numbers")
        colscale[svec_idx] = d[ia] * d[ib]
    if fscale is not None:
        e = np.asarray(fscale, dtype=np.float64)
        if e.shape != (nf,) or not np.all(np.isfinite(e)) or np.any(e <= 0):
            raise FairtheoryValueError(f"fscale must hold {nf} positive finite numbers")
        colscale[nG:] = e
    # the scaled rows entry by entry (the products sparse @ diag / diag @ sparse form, without their conversions)
    row_of = np.repeat(np.arange(r), np.diff(rows.indptr))
    data = rows.data * (to_svec * colscale)[rows.indices]
    cols = rows.indices
    nz = data != 0  # a sparse product stores no zero (duplicates that cancelled): neither does A
    if not nz.all():
        row_of, data, cols = row_of[nz], data[nz], cols[nz]
    rscale = np.ones(r)
    if row_units and r:
        big = np.zeros(r)
        if data.size:  # each row's largest |entry| (a maximum: exact in any order), rows without entries 0
            cnt = np.bincount(row_of, minlength=r)
            has = cnt > 0
            big[has] = np.maximum.reduceat(np.abs(data), (np.cumsum(cnt) - cnt)[has])
        big = np.maximum(big, np.abs(consts))
        ok = (big > 0) & np.isfinite(big)
        rscale[ok] = np.ldexp(1.0, np.round(np.log2(big[ok])).astype(np.int64))
        data = data * (1.0 / rscale)[row_of]
    # [rows / rscale; -I] in CSC, column by column with each column's entries in row order (rows sorted, no repeats)
    col_all = np.concatenate([cols, np.arange(nG)])
    if col_all.size:
        order = np.argsort(col_all, kind="stable")
        indptr = np.zeros(nx + 1, dtype=np.int64)
        np.cumsum(np.bincount(col_all, minlength=nx), out=indptr[1:])
        A = sp.csc_matrix((np.concatenate([data, -np.ones(nG)])[order],
                           np.concatenate([row_of, r + np.arange(nG)])[order], indptr), shape=(r + nG, nx))
        A.has_canonical_format = True
    else:
        A = sp.csc_matrix((r + nG, nx))
    P = _zero_quadratic(nx)
    b = np.concatenate([consts / rscale, np.zeros(nG)])
    return (rows, consts, obj, max_terms, A, rscale, colscale, to_svec, svec_idx, diag_idx, n_eq, len(interp), P, b)


def solve_dense(pep: PEP, *, tol: float, max_iter: int, verbose: bool, scale: np.ndarray | None,
                fscale: np.ndarray | None, trace_weight: float, obj_unit: float, row_units: bool,
                time_limit: float | None, tol_feas: float | None = None, refine: bool = True) -> SDPSolution:
    """The dense route of :meth:`fairtheory.worstcase.sdp.PEP.solve` (``raw=True``, its docstring): the PEP's rows
    (equalities, interpolation conditions, user inequalities) assembled in Clarabel's sparse form over
    ``x = [svec(G), F]`` with one PSD triangle cone, solved, and mapped back (column ``scale`` / ``fscale``, the
    objective unit ``obj_unit``, per-row powers of two with ``row_units``: all exact).  The arguments are those of
    ``PEP._solve_float``, which validates them and chooses the route; ``tol_feas``: Clarabel's feasibility tolerance
    (default :data:`FEAS_FACTOR` times ``tol``); ``refine``: Clarabel's iterative refinement (:func:`clarabel_setup`)."""
    import clarabel  # heavy: loaded at the first solve

    t0 = time.perf_counter()
    dim = pep.dim
    nG = dim * (dim + 1) // 2
    cache = getattr(pep, "_assembly_cache", None)
    key = (None if scale is None else np.asarray(scale, dtype=np.float64).tobytes(),
           None if fscale is None else np.asarray(fscale, dtype=np.float64).tobytes(), bool(row_units))
    asm = cache.get(key) if cache is not None else None
    if asm is None:
        asm = _assemble(pep, scale, fscale, row_units)
        if cache is not None:
            cache[key] = asm
    rows, consts, obj, max_terms, A, rscale, colscale, to_svec, svec_idx, diag_idx, n_eq, n_interp, P, bb = asm
    r = int(consts.size)
    n_ineq = r - n_eq
    obj_solved = obj.copy()
    if trace_weight:
        obj_solved[diag_idx] += float(trace_weight)
    q = -(obj_solved * to_svec * colscale) / float(obj_unit)
    cones, settings = clarabel_setup(n_eq, n_ineq, dim, tol_gap=tol,
                                     tol_feas=FEAS_FACTOR * tol if tol_feas is None else float(tol_feas),
                                     max_iter=max_iter, verbose=verbose, refine=refine)
    if time_limit is not None:
        settings.time_limit = float(time_limit)
    build = time.perf_counter() - t0
    solver = clarabel.DefaultSolver(P, q, A, bb, cones, settings)
    sol = solver.solve()
    status = str(sol.status).split(".")[-1]
    x = np.asarray(sol.x) * colscale
    z = np.asarray(sol.z) * float(obj_unit)
    z[:r] = z[:r] / rscale
    gram = _unsvec(x[:nG], dim)
    F = x[nG:].copy()
    value = -float(sol.obj_val) * float(obj_unit) + float(pep._objective.const)
    dual = -float(sol.obj_val_dual) * float(obj_unit) + float(pep._objective.const)
    n_user = len(pep._ineq)
    duals = z[n_eq + n_interp: n_eq + n_interp + n_user].copy()
    return SDPSolution(value=value, dual_value=dual, gap=dual - value, status=status, gram=gram, F=F,
                       dim=dim, n_constraints=n_eq + n_ineq, n_interp=n_interp,
                       seconds=float(sol.solve_time), build_seconds=build, iterations=int(sol.iterations),
                       r_prim=float(sol.r_prim), r_dual=float(sol.r_dual), duals=duals,
                       rows=rows, consts=consts, objective_row=obj.copy(), objective_const=float(pep._objective.const),
                       z=z[:r].copy(), n_eq=n_eq, max_terms=max_terms, trace_weight=float(trace_weight))


def estimated_seconds(dim: int, rows: int) -> float:
    """A rough upper estimate of one Clarabel solve of a PEP (2 cores, measured: Gram dimension 32 with 1k
    conditions 1.3 s, dimension 88 with 3.8k conditions 90-170 s): ``1.5 (dim/32)^4.2 + 1e-4 rows`` seconds.
    A worst case may solve up to four times (:mod:`fairtheory.worstcase.bracket`)."""
    return 1.5 * (dim / 32.0) ** 4.2 + 1e-4 * rows


# ---------------------------------------------------------------------------------------- exported PEP data
@dataclass
class FloatSolve:
    """A float solve: ``z`` the row multipliers, ``value`` the PEP value, ``gram`` the primal Gram matrix."""

    status: str
    z: np.ndarray
    value: float
    gram: np.ndarray | None
    F: np.ndarray | None
    how: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.status in ("Solved", "AlmostSolved", "pdOPT") and bool(np.all(np.isfinite(self.z))) and \
            math.isfinite(self.value)


class ExportedPEP:
    """Float views of the exact data: ``MG`` (rows x dim^2, both triangles) and ``AF`` (rows x nf)."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        import scipy.sparse as sp

        self.data = data
        self.dim, self.nf, self.n_eq = int(data["dim"]), int(data["nf"]), int(data["n_eq"])
        self.rows: Sequence[Row] = data["rows"]
        self.objective: Row = data["objective"]
        self.m = len(self.rows)
        d = self.dim
        R, C, V, RF, CF, VF = [], [], [], [], [], []
        for i, (G, F, _) in enumerate(self.rows):
            for (a, b), v in G.items():
                R.append(i)
                C.append(a * d + b)
                V.append(float(v))
                if a != b:
                    R.append(i)
                    C.append(b * d + a)
                    V.append(float(v))
            for k, v in F.items():
                RF.append(i)
                CF.append(k)
                VF.append(float(v))
        self.MG = sp.csr_matrix((V, (R, C)), shape=(self.m, d * d))
        self.AF = sp.csr_matrix((VF, (RF, CF)), shape=(self.m, self.nf))
        self.c = np.array([float(r[2]) for r in self.rows])
        CG, cF, c0 = self.objective
        self.C = np.zeros((d, d))
        for (a, b), v in CG.items():
            self.C[a, b] = self.C[b, a] = float(v)
        self.cF = np.zeros(self.nf)
        for k, v in cF.items():
            self.cF[k] = float(v)
        self.c0 = c0

    def slack(self, lam: Any) -> np.ndarray:
        """Float ``S(lambda)`` (dense symmetric)."""
        x = np.asarray([float(v) for v in lam]) if not isinstance(lam, np.ndarray) else lam
        return np.asarray(self.MG.T @ x).reshape(self.dim, self.dim) - self.C


@contextlib.contextmanager
def silenced() -> Iterator[None]:
    """Nothing written to stdout (Python or C level) or warned inside reaches the caller."""
    try:
        sys.stdout.flush()
    except (AttributeError, ValueError, OSError):
        pass
    saved = None
    try:
        saved = os.dup(1)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        saved = None
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(open(os.devnull, "w")) as f:  # noqa: SIM115
            warnings.simplefilter("ignore")
            try:
                yield
            finally:
                f.close()
    finally:
        if saved is not None:
            with contextlib.suppress(OSError):
                os.dup2(saved, 1)
                os.close(saved)


def sdpa_available() -> bool:
    """Whether SDPA-GMP (the ``sdpap`` module of ``sdpa-multiprecision``) can be imported."""
    try:
        import sdpap  # noqa: F401
    except Exception:  # noqa: BLE001 - any import failure means "not available"
        return False
    return True


def solve_sdpa(P: ExportedPEP) -> FloatSolve | None:
    r"""SDPA-GMP on the equality standard form: ``x = [F (free), s >= 0 (one per inequality), vec(Gram)]``,
    one equation ``-(<M_k, Gram> + a_k F) - s_k = c_k`` per row; ``y`` are the multipliers, ``value = c_0 -
    dualObj``.  ``None`` when sdpap is missing or raises; a non-``pdOPT`` phase comes back as its status."""
    t0 = time.perf_counter()
    try:
        import scipy.sparse as sp
        import sdpap
    except Exception:  # noqa: BLE001
        return None
    d, nf, n_eq, m = P.dim, P.nf, P.n_eq, P.m
    nl = m - n_eq
    slack = sp.csr_matrix((-np.ones(nl), (np.arange(n_eq, m), np.arange(nl))), shape=(m, nl))
    A = sp.hstack([-P.AF, slack, -P.MG]).tocsc()
    b = sp.csc_matrix(P.c.reshape(-1, 1))
    cvec = np.concatenate([-P.cF, np.zeros(nl), -P.C.reshape(-1)])
    c = sp.csc_matrix(cvec.reshape(-1, 1))
    try:
        K = sdpap.SymCone(f=nf, l=nl, s=(d,))
        J = sdpap.SymCone(f=m)
        with silenced():
            x, y, info, _, _ = sdpap.solve(A, b, c, K, J, dict(SDPA_OPTIONS))
        z = np.asarray(y.todense() if hasattr(y, "todense") else y, dtype=float).ravel()
        xv = np.asarray(x.todense() if hasattr(x, "todense") else x, dtype=float).ravel()
        phase = str(info.get("phasevalue", "?"))
        value = float(P.c0) - float(info["dualObj"])
        gram = xv[nf + nl:].reshape(d, d)
    except Exception:  # noqa: BLE001 - a failing optional solver means "fall back"
        return None
    if z.shape != (m,):
        return None
    return FloatSolve(phase, z, value, 0.5 * (gram + gram.T), xv[:nf].copy(), "sdpa-gmp", time.perf_counter() - t0)


def solve_clarabel(P: ExportedPEP, *, delta: float = 0.0, zeros: Sequence[int] = (), tol: float = 1e-10) -> FloatSolve:
    r"""Clarabel on the PEP with objective ``+ delta sum_{i in B} Gram_ii`` (``B`` = the indices outside ``zeros``)
    and the entries ``Gram_{Z,:}`` free (only ``Gram_BB`` in the PSD cone): the dual then has ``S_{Z,:} = 0`` and
    ``S >= delta`` on ``B``.  ``z`` are the row multipliers."""
    import clarabel
    import scipy.sparse as sp

    t0 = time.perf_counter()
    d, nf, n_eq, m = P.dim, P.nf, P.n_eq, P.m
    zs = set(zeros)
    B = [i for i in range(d) if i not in zs]
    pos = {i: j for j, i in enumerate(B)}
    nb = len(B)
    nG = nb * (nb + 1) // 2
    r2 = math.sqrt(2.0)
    col: dict[tuple[int, int], int] = {}
    coef: dict[tuple[int, int], float] = {}
    nfree = 0
    for a in range(d):
        for b in range(a, d):
            if a in pos and b in pos:
                ia, ib = sorted((pos[a], pos[b]))
                col[(a, b)] = ib * (ib + 1) // 2 + ia
                coef[(a, b)] = 1.0 if a == b else r2
            else:
                col[(a, b)] = nG + nf + nfree
                coef[(a, b)] = 1.0 if a == b else 2.0
                nfree += 1
    nx = nG + nf + nfree

    def vec(G: Mapping[tuple[int, int], Fraction], F: Mapping[int, Fraction]) -> tuple[list[int], list[float]]:
        cs, vs = [], []
        for key, v in G.items():
            cs.append(col[key])
            vs.append(coef[key] * float(v))
        for k, v in F.items():
            cs.append(nG + k)
            vs.append(float(v))
        return cs, vs

    R, C, V, bvec = [], [], [], []
    for i, (G, F, c) in enumerate(P.rows):
        cs, vs = vec(G, F)
        R.extend([i] * len(cs))
        C.extend(cs)
        V.extend(vs)
        bvec.append(-float(c))
    R.extend(range(m, m + nG))
    C.extend(range(nG))
    V.extend([-1.0] * nG)
    bvec.extend([0.0] * nG)
    A = sp.csc_matrix((V, (R, C)), shape=(m + nG, nx))
    A.sum_duplicates()
    q = np.zeros(nx)
    cs, vs = vec(P.objective[0], P.objective[1])
    np.add.at(q, cs, [-v for v in vs])
    for i in B:
        q[col[(i, i)]] -= delta
    cones = []
    if n_eq:
        cones.append(clarabel.ZeroConeT(n_eq))
    if m - n_eq:
        cones.append(clarabel.NonnegativeConeT(m - n_eq))
    if nb:
        cones.append(clarabel.PSDTriangleConeT(nb))
    st = clarabel.DefaultSettings()
    st.verbose = False
    st.tol_gap_abs = tol
    st.tol_gap_rel = tol
    st.tol_feas = tol
    st.max_iter = 500
    st.max_threads = 1
    st.presolve_enable = False
    sol = clarabel.DefaultSolver(sp.csc_matrix((nx, nx)), q, A, np.asarray(bvec), cones, st).solve()
    status = str(sol.status).split(".")[-1]
    x = np.asarray(sol.x, dtype=float)
    gram = np.zeros((d, d))
    for (a, b), j in col.items():
        v = x[j] / (coef[(a, b)] if j < nG else 1.0)
        gram[a, b] = gram[b, a] = v
    value = -float(sol.obj_val) + float(P.c0) - delta * float(sum(gram[i, i] for i in B))
    return FloatSolve(status, np.asarray(sol.z, dtype=float)[:m].copy(), value, gram, x[nG:nG + nf].copy(), "clarabel",
                      time.perf_counter() - t0)


def exported_pep(data: Any, who: str) -> ExportedPEP:
    """:class:`ExportedPEP` of exported PEP data, or a named error when ``data`` is not such data (module doc: ``dim``,
    ``nf``, ``n_eq`` integers, ``rows`` a list of ``(G, F, c)``, ``objective`` one ``(G, F, c)``)."""
    need = ("dim", "nf", "n_eq", "rows", "objective")
    if not isinstance(data, Mapping) or any(k not in data for k in need):
        raise FairtheoryTypeError(f"{who}: data must be a mapping with keys {list(need)} (pep_kernel.build or "
                                  f"PEP.export), got {type(data).__name__}")
    for k in ("dim", "nf", "n_eq"):
        if isinstance(data[k], bool) or not isinstance(data[k], (int, np.integer)) or data[k] < 0:
            raise FairtheoryValueError(f"{who}: data[{k!r}] must be an integer >= 0, got {data[k]!r}"[:200])
    if not isinstance(data["rows"], Sequence) or data["n_eq"] > len(data["rows"]):
        raise FairtheoryValueError(f"{who}: data['rows'] must be a list of at least n_eq rows (G, F, c)")
    try:
        return ExportedPEP(data)
    except Exception as exc:  # noqa: BLE001 - malformed rows or objective
        raise FairtheoryValueError(f"{who}: data rows/objective are not (G, F, c) triples with integer indices in "
                                   f"range and rational values ({type(exc).__name__}: {exc})"[:300]) from None
