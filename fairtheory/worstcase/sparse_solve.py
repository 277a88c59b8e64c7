r"""Large worst-case PEPs fast: a sparse basis, a chordal cone and constraint generation.

:meth:`fairtheory.worstcase.sdp.PEP.solve` poses the Gram SDP with one dense ``PSDTriangleCone`` of size
``dim``; Clarabel's KKT system then has a dense ``(dim(dim+1)/2)^2`` block and a solve at Gram dimension 100
takes minutes.  :func:`solve_sparse` solves *the same* SDP (same optimum, same certificate data) by three
exact reformulations:

1. **A basis of iterates.**  In the PEP's basis (the starting point, the gradients) an iterate of a linear
   method is a dense combination: gradient descent's ``x_k = x_0 - h sum_{i<k} g_i`` makes every row that
   pairs ``x_k`` dense.  Every evaluation point ``x`` whose last basis vector ``e_j`` (highest index with a
   nonzero coefficient) is not yet replaced replaces it: ``e_j <- x`` (points taken in order of ``j``).  The
   matrix ``M`` whose column ``j`` holds the coordinates of the new ``j``-th basis vector is upper triangular
   with nonzero diagonal, so ``T = M^{-1}`` is too, and new coordinates are ``c' = T c``, the Gram matrices
   ``G = T^T G' T`` (a congruence: ``G >= 0`` iff ``G' >= 0``).  For gradient descent the new basis is
   ``{x_0, .., x_N, g_N}`` with ``g_k = (x_k - x_{k+1})/h``: rows pairing neighbouring points touch a band.
2. **Only the entries the rows touch.**  Rows that touch the Gram entries ``E`` (their aggregate sparsity
   pattern) see ``G'`` only through ``G'_E``, and ``G' >= 0`` for some values off ``E`` iff ``G'_E`` is
   positive semidefinite *completable*; the dual of that cone is the cone of PSD matrices supported on ``E``
   (Vandenberghe & Andersen 2015, Sec. 9-10, "Chordal graphs and semidefinite optimization", Found. Trends
   Optim. 1(4)).  Clarabel decomposes a sparse ``PSDTriangleCone`` only where it is the *slack* ``s`` of
   ``A x + s = b`` (rows of ``[A b]`` that are zero are structural zeros of ``s``, whose dual ``z`` is the
   completable matrix: Clarabel.rs ``chordal_info.rs``, ``find_aggregate_sparsity_mask``), so the PEP is
   handed over as its *dual*: variables the multipliers ``lambda`` of the rows kept, minimise
   ``sum_i lambda_i b_i`` subject to ``sum_i lambda_i a_i = c_F`` (the function values are free),
   ``lambda_ineq >= 0`` and ``S = sum_i lambda_i A_i - C >= 0`` with ``S`` supported on ``E``.  Clarabel's
   multiplier of the ``S`` cone is the Gram matrix ``G'`` (completed to a PSD matrix by its maximum-determinant
   completion along the clique tree, ``chordal_decomposition_complete_dual``; Vandenberghe & Andersen 2015,
   Sec. 10.2), that of the value rows is ``-F``.
3. **Constraint generation.**  The solve starts from the user's rows and, per function, the interpolation
   rows of neighbouring points ``|j - k| <= 1`` and of pairs with the function's first point (its optimum
   when declared first).  The completed ``G = T^T G' T`` and ``F`` are a candidate for the *full* problem:
   every row is evaluated there (in the PEP's own basis); rows violated by more than ``viol_tol`` (relative
   to the row's magnitude at the point) join and the problem is solved again, until none is.  Then the
   relaxation's optimum (an upper bound: fewer rows) is attained by a point feasible for the full problem
   (a lower bound): it is the full problem's optimum, to the tolerances.  The multipliers of the rows never
   added are ``0``: the relaxation's dual solution is a dual solution of the full problem, so the rigorous
   weak-duality bound of :mod:`fairtheory.worstcase.bracket` applies to it unchanged.  Two rules on sizes (never on
   seconds) bound the rounds: once a relaxation of round :data:`FULL_AFTER_ROUNDS` or later touches
   :data:`FULL_PATTERN_FRAC` of the Gram entries every row joins the next (last) round; a relaxation whose point
   violates its own rows by more than :data:`KEPT_VIOL_MAX` was not solved - :class:`~fairtheory.errors.SolverError`
   at once, no rows added.

The returned :class:`SparseSDPSolution` is an :class:`~fairtheory.worstcase.solvers.SDPSolution` in the PEP's
own basis (``gram``, ``F``, ``rows``/``consts``/``objective_row``/``z`` over every row, in
:meth:`PEP.solve`'s order: equalities, interpolation rows, user inequalities), plus the rounds, rows kept
and the largest violation left.  See docs/worstcase.md, "Large PEPs: the sparse solve".
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from fairtheory.errors import FairtheoryValueError, SolverError
from fairtheory.worstcase.gram import LazyRow, Scalar, Vec, _unsvec, scalar_row
from fairtheory.worstcase.solvers import SDPSolution, clarabel_setup

if TYPE_CHECKING:
    from fairtheory.worstcase.sdp import PEP

__all__ = ["solve_sparse", "should_use_sparse", "sparse_route", "sparse_estimated_seconds", "sparse_basis",
           "SparseSDPSolution", "SPARSE_MIN_DIM", "KEPT_VIOL_MAX", "FULL_PATTERN_FRAC", "FULL_AFTER_ROUNDS"]

_SQRT2 = math.sqrt(2.0)

#: Gram dimension from which :func:`should_use_sparse` prefers :func:`solve_sparse` (below it the dense solve
#: takes about a second and the sparse one has no room to win; benchmarks/bench_worstcase.py ``--scale``)
SPARSE_MIN_DIM = 50

#: a relaxation whose returned point violates one of its *own* rows by more than this (relative, as ``viol_tol``) was
#: not solved: :func:`solve_sparse` raises instead of adding the rows its completion violates.  Measured (issue 41):
#: solved relaxations stay below 1e-11; GD distance ``||x_60||^2`` on ``SmoothStronglyConvex(1, 0.1)`` re-solved in
#: the objective's unit ``2^-18`` returned (raw ``AlmostSolved``) points violating their own rows by 5e-2 .. 3e-1 (a
#: Gram matrix with eigenvalue -10), and each round added ~1,100 rows and took 55-145 s
KEPT_VIOL_MAX = 1e-4

#: once a relaxation touches this fraction of the Gram entries, every remaining row joins the next round (the last).
#: Measured (issue 41, subgradient method N = 60 on ``ConvexLipschitz(1)``, 3906 rows, 2016 Gram entries): the far rows
#: are violated by up to 0.3 at every completion, each round adds a few hundred, the pattern grows 242 -> 818 -> 1435
#: -> 1755 -> 1902 entries and each round past 70% costs 10-13 s CPU; the whole problem, once, 22 s (and Solved)
FULL_PATTERN_FRAC = 0.5
#: ... from this round on (GD ``N = 60``, ``h = 0.05`` reaches 69% of the entries in round 2 and ends in round 3 with a
#: few rows more: the whole problem in round 3 took 15.5 s CPU against ~6 s; the subgradient method above is at 71% in
#: round 3 and, all rows joining, Solved in round 4 - 34-39 s CPU in all, where 6 rounds (38 s) still left 114 rows
#: violated before)
FULL_AFTER_ROUNDS = 3


@dataclass
class SparseSDPSolution(SDPSolution):
    """An :class:`~fairtheory.worstcase.solvers.SDPSolution` of the full PEP found by :func:`solve_sparse`, with the
    constraint generation's record.  ``seconds`` sums Clarabel's solve times over the rounds, ``iterations``
    its iterations; ``r_prim`` / ``r_dual`` are the last round's (of the dual formulation Clarabel is given)."""

    rounds: int = 0             #: Clarabel solves (1 when the first relaxation was already feasible)
    rows_kept: int = 0          #: rows (of every kind) in the last relaxation
    rows_total: int = 0         #: rows of the full problem
    pattern_entries: int = 0    #: Gram entries ``(a <= b)`` of the sparse basis the last relaxation touches
    max_violation: float = 0.0  #: largest relative violation of any row at the returned ``(gram, F)``
    min_eig: float = 0.0        #: smallest eigenvalue of the returned Gram matrix (``>= -1e-9 max(1, |G|)``)
    upper_estimate: float = math.nan  #: :func:`dual_upper_estimate` of the returned multipliers (``nan``: not solved)
    log: list[dict[str, Any]] = field(default_factory=list)  #: per round: rows kept, violated, seconds, value
    #: the objective's unit of the last relaxation: the ``obj_unit`` given, or the value's own size (a power of two)
    #: when the first relaxation's value lay below ``2^-OWN_UNIT_EXP`` of it and the re-solve in that size was solved
    obj_unit: float = 1.0


def sparse_route(dim: int, n_functions: int) -> bool:
    """Whether :meth:`PEP.solve` (``method="auto"``) takes :func:`solve_sparse`: a Gram dimension of at least
    :data:`SPARSE_MIN_DIM` and one function (a single sequence of points, e.g. gradient descent or any traced
    method with one client).  Measured (benchmarks/bench_worstcase.py ``--scale``): there the first relaxation is
    already the full problem's optimum and the solve is two orders of magnitude faster at dimension 100; with
    several clients (local GD) far-apart pairs are active, the pattern fills and the sparse route was about 2x
    slower than the dense one, so it is not taken."""
    return int(dim) >= SPARSE_MIN_DIM and int(n_functions) == 1


def should_use_sparse(pep: PEP) -> bool:
    """:func:`sparse_route` of ``pep``."""
    return sparse_route(pep.dim, len(pep.functions))


def sparse_estimated_seconds(rows: int) -> float:
    """A rough upper estimate of the sparse route on a single-sequence PEP (2 cores, measured: 9.9k rows at Gram
    dimension 100 in 1.4 s, mostly assembling every row in the original basis): ``2e-4 rows + 1`` seconds."""
    return 2e-4 * rows + 1.0


# ------------------------------------------------------------------------------------------ the full problem
@dataclass
class _Natural:
    """Every row of the PEP in natural coordinates ``[G_ab (a <= b), F]`` of its own basis (PEP.solve's data)."""

    scalars: list[Scalar]
    labels: list[tuple[int, int, int] | None]
    rows: sp.csr_matrix
    consts: np.ndarray
    obj: np.ndarray
    n_eq: int
    n_interp: int
    n_user: int
    max_terms: int


def _interpolation_rows(pep: PEP) -> list[tuple[Scalar, tuple[int, int, int]]]:
    """``pep.interpolation_rows()``; for a builder without it, the ``L``-smooth convex ordered-pair loop of
    ``PEP._interpolation`` (same order)."""
    if hasattr(pep, "interpolation_rows"):
        return list(pep.interpolation_rows())
    out: list[tuple[Scalar, tuple[int, int, int]]] = []
    for i, fn in enumerate(pep.functions):
        pts = fn.points
        inv2L = 0.5 / float(fn.L)
        for j, pj in enumerate(pts):
            for k, pk in enumerate(pts):
                if j != k:
                    dg = pj.g - pk.g
                    s = pk.f - pj.f
                    s.quad.append((1, pk.g, pj.x - pk.x))
                    s.quad.append((inv2L, dg, dg))
                    out.append((s, (i, j, k)))
    return out


def _natural(pep: PEP) -> _Natural:
    dim, nf = pep.dim, pep.nf
    nG = dim * (dim + 1) // 2
    nx = nG + nf
    interp = _interpolation_rows(pep)
    scalars = list(pep._eq) + [s for s, _ in interp] + list(pep._ineq)
    labels: list[tuple[int, int, int] | None] = [None] * len(pep._eq) + [lab for _, lab in interp]
    labels += [None] * len(pep._ineq)
    cache: dict[int, np.ndarray] = {}
    if hasattr(pep, "row_arrays"):  # array-built interpolation rows copied block by block (fairtheory.worstcase.gram.RowBlock)
        ptr, cat, vals, b = pep.row_arrays(nG, scalars)
        ridx = np.repeat(np.arange(len(scalars)), np.diff(ptr))
    else:
        R: list[np.ndarray] = []
        C: list[np.ndarray] = []
        V: list[np.ndarray] = []
        b = np.zeros(len(scalars))
        for r, s in enumerate(scalars):
            c, v = _row_new(s, None, nG, cache)
            R.append(np.full(c.size, r))
            C.append(c)
            V.append(v)
            b[r] = -float(s.const)
        cat = np.concatenate(C) if C else np.zeros(0, dtype=np.int64)
        vals = np.concatenate(V) if V else np.zeros(0)
        ridx = np.concatenate(R) if R else np.zeros(0, dtype=np.int64)
    rows = sp.csr_matrix((vals, (ridx, cat)), shape=(len(scalars), nx))
    max_terms = int(np.bincount(cat, minlength=nx).max()) if cat.size else 0
    rows.sum_duplicates()
    assert pep._objective is not None
    qc, qv = _row_new(pep._objective, None, nG, cache)
    obj = np.zeros(nx)
    np.add.at(obj, qc, qv)
    if not (np.all(np.isfinite(rows.data)) and np.all(np.isfinite(obj)) and np.all(np.isfinite(b))):
        raise FairtheoryValueError("the PEP's data is not finite (a coefficient overflowed float64): use smaller "
                                   "step sizes / fewer steps, or exact rational data")
    return _Natural(scalars, labels, rows, b, obj, len(pep._eq), len(interp), len(pep._ineq), max_terms)


# ------------------------------------------------------------------------------------------ the basis
def _pow2(x: np.ndarray) -> bool:
    """Whether every entry of ``x`` is a positive power of two (a scaling by them is exact)."""
    m, _ = np.frexp(np.asarray(x, dtype=np.float64))
    return bool(np.all(m == 0.5))


def _coeffs(v: Vec, dim: int) -> np.ndarray:
    c = np.zeros(dim)
    a = np.asarray(v.c, dtype=np.float64)
    c[: a.size] = a
    return c


#: with a measured Gram matrix (:func:`sparse_basis` ``gram``), a point ``x`` replaces its pivot by itself instead of
#: ``x - x_0`` when ``||x|| <= NEAR_ORIGIN ||x - x_0||``: an iterate this close to the origin (the optimum ``x* = 0``)
#: is a cancelling difference of two vectors of size ``||x_0||`` in the basis of partial sums (module doc, item 1).
#: ``1``: from the first iterate nearer the origin than the start (GD on ``SmoothStronglyConvex(1, 0.1)``, ``h = 1``:
#: ``k >= 7``, each partial sum before it at most ``1/0.9^7 < 2`` times its iterate).  Measured (``f(x_60) - f*``
#: there, the first relaxation in its measured sizes): with ``2^-4`` (from ``k = 27``) the partial sums ``s_7 .. s_26``
#: cancel to iterates ``2^-4`` of their size and the relaxation violated its own rows by ``3.5e-4``; with ``1`` it is
#: solved to ``1e-10``, the value the multipliers prove to ``2e-13``
NEAR_ORIGIN = 1.0
#: a first relaxation whose value is below ``2^-OWN_UNIT_EXP`` of the objective's unit is solved again in its own size
OWN_UNIT_EXP = 10
#: ... at most this many times (each solve measures the sizes for the next; stops once they stay put)
OWN_UNIT_PASSES = 3


def sparse_basis(pep: PEP, gram: np.ndarray | None = None,
                 scale: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, list[int]]:
    r"""The change of basis of the module doc: ``(M, T, pivots)`` with ``M`` upper triangular, column ``j`` the
    PEP-basis coordinates of the new ``j``-th basis vector (``e_j`` itself, or - for the first evaluation point
    ``x`` whose last nonzero coordinate is ``j`` - ``(x - a x_0)/c_j``: relative to the first point ``x_0``, with ``a``
    the ratio of their coefficients on ``x_0``'s last coordinate (``1`` for an affine method's iterate: ``x - x_0``;
    ``c^k`` for the contraction ``x_k = c^k x_0 - h sum c^(k-1-i) gh_i`` of
    :mod:`fairtheory.worstcase.nearly_quadratic`, whose new basis vectors are then the sums of ``gh_i`` alone) and with
    unit pivot, skipped when ``|c_j|`` is below a tenth of the point's largest coefficient), ``T = M^{-1}``
    (new coordinates ``c' = T c``; ``G = T^T G' T``) and the
    indices ``j`` replaced by a point.

    ``gram`` (a Gram matrix of the PEP's own basis, e.g. a first relaxation's point): a point with
    ``||x|| <= NEAR_ORIGIN ||x - x_0||`` there replaces its pivot by ``x/c_j`` itself.  A contracting method's late
    iterates (gradient descent on ``SmoothStronglyConvex(1, 0.1)``, ``h = 1``: ``||x_60|| = 0.9^60 ||x_0||``) are then
    basis vectors of their own size, and ``||x_60 - x*||^2`` one Gram entry, where the partial sum ``s_60`` made it the
    cancelling ``||x_0 - s_60||^2`` of ``O(1)`` entries (3.3e-6 relative error at Clarabel's tolerance, issue 41);
    gradients stay differences of neighbouring basis vectors (``g_k = (x_k - x_{k+1})/h``), so the pattern is the
    same band.  Small steps (``||x_k - x_0|| << ||x_k||``) keep the partial sums.

    ``scale`` (positive powers of two, the units of the PEP's basis vectors, :meth:`PEP.solve`'s ``scale``): the basis is
    built on the coordinates in units ``c_i scale_i`` (the pivots, the skip rule and the clearing of rounding residues
    of ``T`` see the sizes of the terms, not the raw coefficients) and mapped back exactly, ``M = D^-1 M^``,
    ``T = T^ D`` (``D = diag(scale)``).  A PEP at ``L = 2^20`` in units ``L R`` then gets the basis of the same PEP at
    ``L = 1``, bit for bit; in raw coefficients the iterates' columns mixed ``2^20`` and ``1``, the residues of ``T``
    were not cleared, and GD ``N = 60`` on ``SmoothStronglyConvex(2^20, 2^20/10)`` ended with a relaxation not solved
    where ``L = 1`` is solved in 3 s (measured)."""
    dim = pep.dim
    dsc = None
    if scale is not None:
        dsc = np.asarray(scale, dtype=np.float64)
        if dsc.shape != (dim,) or not np.all(np.isfinite(dsc)) or np.any(dsc <= 0):
            raise FairtheoryValueError(f"scale must hold {dim} positive finite numbers, got shape {dsc.shape}")
        if np.all(dsc == 1.0):
            dsc = None
    sizes = None
    if gram is not None:
        gram = np.asarray(gram, dtype=np.float64)
        if gram.shape == (dim, dim) and np.all(np.isfinite(gram)):
            sizes = gram
    M = np.eye(dim)
    cands: list[tuple[int, int, np.ndarray]] = []
    order = 0
    if sizes is not None and dsc is not None:
        sizes = sizes / np.outer(dsc, dsc)  # the Gram matrix of the coordinates in units
    for fn in pep.functions:
        for pt in fn.points:
            c = _coeffs(pt.x, dim)
            if dsc is not None:
                c = c * dsc
            nz = np.flatnonzero(c)
            if nz.size:
                cands.append((int(nz[-1]), order, c))
                order += 1
    cands.sort(key=lambda t: (t[0], t[1]))
    pivots: list[int] = []
    first: np.ndarray | None = None
    for j, _, c in cands:
        if j in pivots:
            continue
        if first is None:
            first = c  # the first point (the start x_0): its own vector
            M[:, j] = c
            pivots.append(j)
            continue
        # relative to the start and normalised by the pivot: gradient descent's x_k becomes the partial sum
        # s_k = (x_k - x_0)/(-h) = g_0 + .. + g_{k-1} (unit diagonal, T = M^-1 bidiagonal +-1 whatever h); the plain
        # x_k would make every new basis vector nearly x_0 (conditioning ~1/h: h = 1e-6 failed, issue 35)
        p0 = int(np.flatnonzero(first)[-1])
        rel = p0 < j
        # relative to the start: x - (c_p0 / first_p0) x_0 (the start's own coordinate removed).  An affine method's
        # iterate has c_p0 = first_p0 (gradient descent: x - x_0); the contraction of nearly_quadratic's basis,
        # x_k = c^k x_0 - h sum_i c^(k-1-i) gh_i, gives the pure sum of the gh_i - with x - x_0 every new basis vector
        # held ~2 x_0 and each gh_k was the cancelling difference of two of them
        d = c - (c[p0] / first[p0]) * first if rel else c.copy()
        if sizes is not None and rel:
            nx, nd = float(c @ sizes @ c), float(d @ sizes @ d)
            if 0.0 <= nx <= NEAR_ORIGIN ** 2 * nd:
                d = c.copy()  # near the origin: the point itself (its size, no cancelling difference)
        if abs(d[j]) < 0.1 * float(np.abs(d).max()):
            continue  # a combination of many earlier points (an average of iterates): it stays a combination
        M[:, j] = d / d[j]
        pivots.append(j)
    T = sla.solve_triangular(M, np.eye(dim), lower=False) if dim else np.zeros((0, 0))
    if dim:
        # back substitution leaves rounding residues (``1.99 (1/1.99) - 1 = 2e-16``) where T is structurally zero;
        # they would make every row touch every entry (the pattern fills and the chordal solve is a dense one):
        # entries below 1e-12 of their column's largest are set to zero (issue 35: GD at lr = 1.99, N = 60 took 32 s)
        T[np.abs(T) <= 1e-12 * np.abs(T).max(axis=0, keepdims=True)] = 0.0
    if dsc is not None:  # back to the PEP's own coordinates: c^ = D c, so M = D^-1 M^ and T = T^ D (exact: powers of 2)
        M = M / dsc[:, None]
        T = T * dsc[None, :]
    return M, T, pivots


def _transform(v: Vec, T: np.ndarray, cache: dict[int, np.ndarray]) -> np.ndarray:
    """``T c(v)`` with rounding noise (entries within ``1e-12`` of the mat-vec's magnitude) set to zero."""
    key = id(v)
    hit = cache.get(key)
    if hit is not None:
        return hit
    c = _coeffs(v, T.shape[0])
    nz = np.flatnonzero(c)
    if nz.size == 0:
        out = c
    else:
        out = T[:, nz] @ c[nz]
        mag = np.abs(T[:, nz]) @ np.abs(c[nz])
        out[np.abs(out) <= 1e-12 * mag] = 0.0
    cache[key] = out
    return out


def _row_new(s: Scalar, T: np.ndarray | None, nG: int, cache: dict[int, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Natural coordinates ``[G'_ab (a <= b), F]`` of a scalar in the new basis (``T = None``: in the PEP's own
    basis, the entries of ``PEP._row`` in its order; duplicates not summed)."""
    if T is None and type(s) is LazyRow:
        hit = s.float_row(nG)
        if hit is not None:
            return hit
    return scalar_row(s, nG, None if T is None else (lambda v: _transform(v, T, cache)))


def _initial(nat: _Natural) -> list[int]:
    """Rows of the first relaxation: equalities, user inequalities, interpolation rows of neighbouring points
    (``|j - k| <= 1``, per-point rows included) and of pairs with the function's first point."""
    keep = []
    for r, lab in enumerate(nat.labels):
        if lab is None:
            keep.append(r)
        else:
            _, j, k = lab
            if abs(j - k) <= 1 or j == 0 or k == 0:
                keep.append(r)
    return keep


#: a relaxation's completed Gram matrix (in the solve's scaled variables) whose smallest eigenvalue lies below
#: ``-COMPLETION_RTOL`` times its largest is completed again by :func:`_psd_completion` (a rule on the returned sizes)
COMPLETION_RTOL = 1e-9
#: relative cut of the pseudo-inverses in :func:`_psd_completion` (eigenvalues below it times the block's largest are
#: taken as 0: the specified blocks of a contraction's worst case are of rank 1 or 2 up to the solver's accuracy)
COMPLETION_PINV_RTOL = 1e-9


def _psd_completion(Z: np.ndarray, spec: np.ndarray) -> np.ndarray | None:
    r"""A positive semidefinite completion of the partial symmetric matrix ``Z`` specified on ``spec`` (a symmetric
    boolean mask, diagonal included), or ``None`` when the pattern is not chordal.

    A pattern is chordal iff the reverse of a maximum cardinality search order is a perfect elimination ordering
    (Tarjan & Yannakakis 1984); then adding the vertices in the search order, the neighbours ``S`` of the new vertex
    ``v`` among those already added form a clique, and ``Z[v, W] = Z[v, S] Z[S, S]^+ Z[S, W]`` for the other added
    vertices ``W`` extends a positive semidefinite completion to one more vertex (the Schur complement of
    ``[[Z_SS, Z_SW], [Z_Sv, Z_vW]]`` on ``S`` is ``[[Z_vv - Z_vS Z_SS^+ Z_Sv, 0], [0, Z_WW - Z_WS Z_SS^+ Z_SW]]``;
    Grone, Johnson, Sa & Wolkowicz 1984, Thm 7; Vandenberghe & Andersen 2015, Sec. 10.1).  Clarabel's completion
    (``chordal_decomposition_complete_dual``) is the maximum-determinant one, which inverts the clique blocks: at a
    contraction's worst case in measured sizes the blocks are of rank 1 or 2 (gradient descent on
    ``SmoothStronglyConvex(1, 0.1)``: ``x_k = 0.9^k x_0`` up to ``1e-4``) and its completion came back with
    eigenvalue ``-46`` for entries of size 1 while the specified entries satisfied their rows to ``1e-10``."""
    n = Z.shape[0]
    if n == 0:
        return Z.copy()
    adj = [np.flatnonzero(spec[v] & (np.arange(n) != v)) for v in range(n)]
    weight = np.zeros(n, dtype=np.int64)
    done = np.zeros(n, dtype=bool)
    order: list[int] = []
    for _ in range(n):  # maximum cardinality search (ties: the lowest index, deterministic)
        cand = np.flatnonzero(~done)
        v = int(cand[np.argmax(weight[cand])])
        order.append(v)
        done[v] = True
        weight[adj[v]] += 1
    X = np.zeros_like(Z)
    added: list[int] = []
    seen = np.zeros(n, dtype=bool)
    for v in order:
        S = [int(w) for w in adj[v] if seen[w]]
        if S and not np.all(spec[np.ix_(S, S)]):
            return None  # not chordal
        X[v, v] = Z[v, v]
        if S:
            X[v, S] = X[S, v] = Z[v, S]
            W = [w for w in added if w not in set(S)]
            if W:
                P = np.linalg.pinv(X[np.ix_(S, S)], rcond=COMPLETION_PINV_RTOL, hermitian=True)
                row = Z[v, S] @ P @ X[np.ix_(S, W)]
                X[v, W] = X[W, v] = row
        added.append(v)
        seen[v] = True
    return X


# ------------------------------------------------------------------------------------------ one relaxation
def _solve_relaxation(pep: PEP, nat: _Natural, keep: list[int], T: np.ndarray, cache: dict[int, Any],
                      tol: float, tol_inner: float, max_iter: int, verbose: bool, trace_row: Scalar | None,
                      colscale: np.ndarray, max_threads: int, obj_unit: float = 1.0,
                      time_limit: float | None = None, rscale: np.ndarray | None = None) -> dict[str, Any]:
    """The dual of the PEP restricted to the rows ``keep`` (module doc, item 2), solved by Clarabel."""
    import clarabel

    dim, nf = pep.dim, pep.nf
    nG = dim * (dim + 1) // 2
    ncache = cache.setdefault(-1, {})  # natural rows in the new basis, by row index
    n_eq_k = sum(1 for r in keep if r < nat.n_eq)
    R, C, V = [], [], []
    for col, r in enumerate(keep):
        hit = ncache.get(r)
        if hit is None:
            hit = _row_new(nat.scalars[r], T, nG, cache)
            ncache[r] = hit
        c, v = hit
        R.append(c)
        C.append(np.full(c.size, col))
        V.append(v)
    assert pep._objective is not None
    qc, qv = _row_new(pep._objective, T, nG, cache)
    m = len(keep)
    # K[natural index, multiplier]: sum of coefficients (duplicates summed)
    K = sp.csc_matrix((np.concatenate(V), (np.concatenate(R), np.concatenate(C))), shape=(nG + nf, m))
    K.sum_duplicates()
    K.eliminate_zeros()
    obj = np.zeros(nG + nf)
    np.add.at(obj, qc, qv)
    ia, ib = np.triu_indices(dim)
    diag_idx = ib * (ib + 1) // 2 + ia
    diag_idx = diag_idx[ia == ib]
    if trace_row is not None:  # maximise obj + eps tr G (PEP.solve's trace_weight), written in the new basis
        tc, tv = _row_new(trace_row, T, nG, cache)
        np.add.at(obj, tc, tv)
    # solve in G'' = D^-1 G' D^-1, F'' = F / fscale (colscale: d_a d_b and fscale, PEP.solve's scaling)
    K = (sp.diags(colscale) @ K).tocsc()
    if rscale is None:
        # every row divided by the power of two nearest its largest coefficient in the scaled variables (the dense
        # route's row units, here on the rows Clarabel is given: in the new basis, after the column scaling)
        big = np.maximum(np.asarray(abs(K).max(axis=0).todense()).ravel() if K.nnz else np.zeros(m),
                         np.abs(nat.consts[keep]))
        rs = np.ones(m)
        okr = (big > 0) & np.isfinite(big)
        rs[okr] = np.ldexp(1.0, np.round(np.log2(big[okr])).astype(np.int64))
    else:
        rs = rscale[keep]
    K = (K @ sp.diags(1.0 / rs)).tocsc()  # row i divided by its unit: its multiplier is lambda_i r_i
    obj = obj * colscale / float(obj_unit)  # the objective in its unit: the multipliers are lambda / obj_unit
    # svec scaling of the Gram part: natural coefficient m_ab of G'_ab is <A, G'> with svec(A)_ab = m_ab / sqrt 2
    to_svec = np.full(nG, 1.0 / _SQRT2)
    to_svec[diag_idx] = 1.0
    KG = (sp.diags(to_svec) @ K[:nG]).tocsc()
    KF = K[nG:].tocsc()
    pattern = np.zeros(nG, dtype=bool)
    pattern[np.unique(KG.indices)] = True
    pattern[np.flatnonzero(obj[:nG])] = True
    pattern[diag_idx] = True
    n_ineq_k = m - n_eq_k
    # Clarabel: min b.lambda  s.t.  KF^T ... rows: [zero cone: F stationarity] [nonneg: lambda_ineq] [PSD: S]
    A1 = KF  # (nf, m): row k: sum_i lambda_i a_ik = c_F[k]  (A1 lambda + s = c_F, s = 0)
    b1 = obj[nG:].copy()
    A2 = sp.csc_matrix((-np.ones(n_ineq_k), (np.arange(n_ineq_k), np.arange(n_eq_k, m))), shape=(n_ineq_k, m))
    b2 = np.zeros(n_ineq_k)
    A3 = -KG  # s = svec(sum_i lambda_i A_i - C) = b3 - A3 lambda
    b3 = -(obj[:nG] * to_svec)
    A = sp.vstack([A1, A2, A3]).tocsc()
    b = np.concatenate([b1, b2, b3])
    q = nat.consts[keep] / rs
    P = sp.csc_matrix((m, m))
    cones, st = clarabel_setup(nf, n_ineq_k, dim, tol_gap=tol_inner, tol_feas=tol_inner, max_iter=max_iter,
                               verbose=verbose, max_threads=max_threads)
    st.chordal_decomposition_enable = True
    st.chordal_decomposition_merge_method = "clique_graph"
    st.chordal_decomposition_compact = True
    st.chordal_decomposition_complete_dual = True
    if time_limit is not None:
        st.time_limit = float(time_limit)
    solver = clarabel.DefaultSolver(P, q, A, b, cones, st)
    sol = solver.solve()
    z = np.asarray(sol.z)
    lam = np.asarray(sol.x) * float(obj_unit) / rs
    d = np.sqrt(colscale[diag_idx])
    Zs = _unsvec(z[nf + n_ineq_k:], dim)
    if dim and np.all(np.isfinite(Zs)):
        w = np.linalg.eigvalsh(Zs)
        if w[0] < -COMPLETION_RTOL * max(float(w[-1]), 0.0):
            # Clarabel's maximum-determinant completion is not PSD (rank-deficient clique blocks): completed again
            # from the entries the rows touch (the relaxation's own data; the others are free)
            spec = np.zeros((dim, dim), dtype=bool)
            on = pattern[ib * (ib + 1) // 2 + ia]  # pattern is indexed naturally: (a, b) at b (b + 1)/2 + a
            spec[ia[on], ib[on]] = True
            spec |= spec.T
            Zc = _psd_completion(Zs, spec)
            if Zc is not None and np.all(np.isfinite(Zc)) and np.linalg.eigvalsh(Zc)[0] > w[0]:
                Zs = Zc
    gram_new = Zs * np.outer(d, d)
    F = -z[:nf] * colscale[nG:]
    c0 = float(pep._objective.const)
    raw = str(sol.status).split(".")[-1]
    w = float(obj_unit)
    pv, dv = float(sol.obj_val_dual) * w + c0, float(sol.obj_val) * w + c0
    # stopped short of the inner tolerances but within the requested ones (PEP.solve's: gap tol, feasibility 10 tol)
    met = (abs(dv - pv) <= tol * max(w, min(abs(pv), abs(dv))) and float(sol.r_prim) <= 10 * tol
           and float(sol.r_dual) <= 10 * tol)
    return {"status": "Solved" if raw == "AlmostSolved" and met else raw, "raw_status": raw, "lam": lam,
            "gram_new": gram_new, "F": F,
            # Clarabel's primal is the PEP's dual and the other way round
            "value": pv, "dual": dv,
            "seconds": float(sol.solve_time), "iterations": int(sol.iterations), "r_prim": float(sol.r_prim),
            "r_dual": float(sol.r_dual), "pattern": int(pattern.sum())}


# ------------------------------------------------------------------------------------------ the driver
def _adapted_scale(gram_new: np.ndarray, colscale: np.ndarray, dim: int) -> np.ndarray | None:
    r"""Column scales ``d_a d_b`` of the Gram part from a solved relaxation: ``d_j`` the power of two nearest
    ``||e'_j|| = sqrt(G'_jj)`` (floored at ``2^-30`` of the largest), the value columns kept; ``None`` when every
    ``d_j`` is within a factor 2 of the scale in use (or the relaxation's Gram matrix has no positive diagonal).

    In the basis of iterates the new basis vectors have very different sizes (gradient descent at ``h = 0.05``,
    ``N = 60``: the partial sums ``s_k = g_0 + .. + g_{k-1}`` grow to ``~ 1/h`` while ``g_N`` is ``~ 1/(N h)``), and
    Clarabel, whose stopping rule is relative to the problem's data, stops with a value 1e-4 below the truth (both
    its primal and its dual objective: the multipliers are then not dual feasible to the value's accuracy).  In the
    variables ``G'' = D^-1 G' D^-1`` with ``D`` these sizes (an exact congruence: powers of two) the same relaxation
    solves to ~1e-7 (measured, issue 41)."""
    if dim == 0:
        return None
    dg = np.diag(gram_new)
    if not np.all(np.isfinite(dg)) or float(dg.max(initial=0.0)) <= 0:
        return None
    d = np.sqrt(np.maximum(dg, float(dg.max()) * 2.0 ** -60))
    e = np.round(np.log2(d)).astype(np.int64)
    ia, ib = np.triu_indices(dim)
    idx = ib * (ib + 1) // 2 + ia
    cur = colscale[idx[ia == ib]]  # d_j^2 in use
    e_cur = np.round(np.log2(cur) / 2).astype(np.int64)
    if np.all(np.abs(e - e_cur) <= 1):
        return None
    out = colscale.copy()
    dn = np.ldexp(1.0, e)
    out[idx] = dn[ia] * dn[ib]
    return out


def _adapted_values(F: np.ndarray, colscale: np.ndarray, dim: int) -> np.ndarray:
    """``colscale`` with the value columns scaled by the sizes ``|F_k|`` of a solved relaxation (powers of two, floored at
    ``2^-60`` of the largest; unchanged when none is positive)."""
    out = colscale.copy()
    nG = dim * (dim + 1) // 2
    a = np.abs(np.asarray(F, dtype=np.float64))
    if a.size == 0 or not np.all(np.isfinite(a)) or float(a.max()) <= 0:
        return out
    d = np.maximum(a, float(a.max()) * 2.0 ** -60)
    out[nG:] = np.ldexp(1.0, np.round(np.log2(d)).astype(np.int64))
    return out


def dual_upper_estimate(nat: _Natural, z: np.ndarray, G: np.ndarray, F: np.ndarray, c0: float) -> float:
    r"""The value the multipliers ``z`` bound, corrected for their dual infeasibility at the size of ``(G, F)``.

    Weak duality for the rows ``r_i = a_i . x - b_i <= 0`` (``== 0`` for the first ``n_eq``) and ``lambda = z`` (the
    inequality multipliers clipped at ``0``): every feasible ``x = (G, F)`` has
    ``obj(x) <= c0 + lambda . b + <M, G> + r_F . F`` with ``M`` the Gram part of ``obj - sum_i lambda_i a_i`` (as a
    symmetric matrix) and ``r_F`` its value part; ``<M, G> <= max(lambda_max(M), 0) tr G``.  With ``tr G`` and ``|F|``
    those of the returned point (not a priori bounds: an *estimate* of the upper bound, not a proof - the rigorous
    bracket is :mod:`fairtheory.worstcase.bracket`'s), the result says how far above the returned value the worst case
    may lie when the solver's multipliers are not dual feasible to the value's accuracy - the way the sparse route
    returned GD ``N = 60``, ``h = 0.05`` 1.1e-5 below ``1/14`` with status ``Solved`` (issue 41)."""
    lam = np.asarray(z, dtype=np.float64).copy()
    lam[nat.n_eq:] = np.maximum(lam[nat.n_eq:], 0.0)
    resid = nat.obj - nat.rows.T @ lam  # natural coordinates [G_ab (a <= b), F]
    dim = G.shape[0]
    nG = dim * (dim + 1) // 2
    ia, ib = np.triu_indices(dim)
    m = resid[ib * (ib + 1) // 2 + ia]
    Msym = np.zeros((dim, dim))
    Msym[ia, ib] = np.where(ia == ib, m, m / 2)
    Msym[ib, ia] = Msym[ia, ib]
    top = float(np.linalg.eigvalsh(Msym)[-1]) if dim else 0.0
    rF = resid[nG:]
    return float(c0 + lam @ nat.consts + max(top, 0.0) * float(np.trace(G)) + np.abs(rF) @ np.abs(F))


def _nat_vector(G: np.ndarray, F: np.ndarray) -> np.ndarray:
    dim = G.shape[0]
    ia, ib = np.triu_indices(dim)
    out = np.zeros(dim * (dim + 1) // 2 + F.size)
    out[ib * (ib + 1) // 2 + ia] = G[ia, ib]
    out[dim * (dim + 1) // 2:] = F
    return out


def solve_sparse(pep: PEP, *, tol: float = 1e-8, max_iter: int = 400, verbose: bool = False,
                 scale: np.ndarray | None = None, fscale: np.ndarray | None = None,
                 trace_weight: float = 0.0, viol_tol: float | None = None, max_rounds: int = 20,
                 max_threads: int = 1, inner: float = 1e-3, obj_unit: float = 1.0,
                 max_add: int | None = None, time_limit: float | None = None,
                 adaptive: bool = True, trace_weights: np.ndarray | None = None) -> SparseSDPSolution:
    r"""Solve ``pep``'s SDP (the one :meth:`PEP.solve` solves) in a sparse basis by constraint generation
    (module doc).

    Parameters
    ----------
    pep : a PEP with its objective set (:meth:`PEP.maximize`).
    tol : Clarabel's gap tolerances (``tol_feas = 10 tol``), in ``[1e-14, 1e-2]``.
    max_iter : Clarabel's iteration limit per round (``>= 1``).
    scale, fscale : as :meth:`PEP.solve`'s (positive norms of the PEP's basis vectors, of the values): the
        sparse basis vector ``M[:, j]`` is scaled by ``max_i |M_ij| scale_i``, the values by ``fscale``; the same
        problem, mapped back.
    trace_weight : ``eps >= 0``: maximise ``obj + eps tr G`` as :meth:`PEP.solve` does (``value`` and
        ``dual_value`` include the term, ``trace_weight`` is returned for ``bracket.primal_objective``).
        ``trace_weights`` (positive, one per basis vector): the weighted trace ``eps sum_j w_j G_jj`` instead (the
        trace of the Gram matrix in units ``1/sqrt(w_j)``: :func:`fairtheory.worstcase.checked_solve` repairs a solve in
        its measured sizes with it; the returned ``trace_weight`` is ``eps``, the caller maps the weights).  In the
        new basis ``tr G = sum_j T[:, j]^T G' T[:, j]`` touches the entries ``supp T[:, j] x supp T[:, j]``
        of each original basis vector's new coordinates, which its own rows touch already.
    viol_tol : a row joins when ``r(G, F) > viol_tol (u + |row| . |x| + |const|)`` at the completed solution
        (``u = obj_unit``, 1 for a PEP in units)
        (``|row| . |x|``: the magnitude of its terms); default ``max(tol, 100 inner tol)`` (well above the
        accuracy of the rows kept: a threshold at that accuracy adds rows that are only rounding-violated, and the
        pattern fills; and at least ``1e-9``); in ``(0, 1)``.
    max_rounds : solves before giving up (``>= 1``).
    max_threads : Clarabel's threads (``>= 1``).
    max_add : at most this many violated rows join per round, the most violated first (default ``None``: all; ``-1``:
        ``2 dim``).  Measured on GD ``N = 60``, ``h = 0.05`` (2066 of 3541 rows violated after the first round):
        all at once 40 s in 2 rounds, ``2 dim`` per round 117 s in 8 rounds - so the default adds them all.
    time_limit : wall-clock seconds for all rounds (Clarabel's ``time_limit`` per round, the time left): a round
        stopped by it returns status ``MaxTime``; no time left for a further round raises :class:`SolverError`.
    obj_unit : the objective is divided by it in the solve (a power of two, :func:`fairtheory.worstcase.checked_solve.pep_units`;
        values and multipliers mapped back).
    inner : Clarabel runs at the tolerances ``max(inner tol, 1e-14)`` (default ``1e-3 tol``): in the basis of
        iterates the gradients are differences of nearly parallel vectors (gradient descent: ``g_k = (x_k -
        x_{k+1})/h``, of size ``1/N`` against iterates of size ``1``) and ``tr G'`` is about ``dim`` times
        ``tr G``, so the value's error at Clarabel's tolerance ``t`` is ``t dim`` times the dense solve's; the
        relaxations solve in milliseconds, so they are solved tighter.  A round that stops short of the inner
        tolerances (``AlmostSolved``) but meets the requested ones (gap ``<= tol max(1, |value|)``, residuals
        ``<= 10 tol``: :meth:`PEP.solve`'s) is reported ``Solved`` (Clarabel's own status is in ``log``).

    adaptive : ``True`` (default): every relaxation after the first is solved with the Gram columns scaled by the
        sizes ``sqrt(G'_jj)`` of the new basis vectors the previous one found (powers of two: an exact congruence), and
        the first is solved again in them (:func:`_adapted_scale`; GD ``N = 60``, ``h = 0.05``: ``1/14`` to 2e-12
        instead of 1.1e-5 below it).  ``False``: the scales ``scale`` gives throughout.

    The returned status is ``"AlmostSolved"`` (never ``"Solved"``) when :func:`dual_upper_estimate` of the final
    multipliers exceeds the value by more than ``10 tol max(|value|, obj_unit)``; ``dual_value`` then holds that
    estimate.

    Returns
    -------
    :class:`SparseSDPSolution` in the PEP's own basis; ``z`` holds ``0`` for every row never added.

    Raises
    ------
    FairtheoryValueError : no objective, or an argument out of range.
    SolverError : still violated rows after ``max_rounds`` solves; a relaxation whose point violates its own rows by
        more than :data:`KEPT_VIOL_MAX` (it was not solved: the constraint generation stops at once, a rule on the
        sizes of the returned point, never on seconds).
    """
    if pep._objective is None:
        raise FairtheoryValueError("no objective: call maximize(...) first")
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.floating)) or not 1e-14 <= float(tol) <= 1e-2:
        raise FairtheoryValueError(f"tol (the solver's tolerance) must be a number in [1e-14, 1e-2], got {tol!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise FairtheoryValueError(f"max_iter must be an integer >= 1, got {max_iter!r}")
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, (int, np.integer)) or max_rounds < 1:
        raise FairtheoryValueError(f"max_rounds must be an integer >= 1, got {max_rounds!r}")
    if isinstance(max_threads, bool) or not isinstance(max_threads, (int, np.integer)) or max_threads < 1:
        raise FairtheoryValueError(f"max_threads must be an integer >= 1, got {max_threads!r}")
    tw = float(trace_weight)
    if not (math.isfinite(tw) and tw >= 0):
        raise FairtheoryValueError(f"trace_weight must be a finite number >= 0, got {trace_weight!r}")
    dim, nf = pep.dim, pep.nf
    if scale is not None:
        dsc = np.asarray(scale, dtype=np.float64)
        if dsc.shape != (dim,) or not np.all(np.isfinite(dsc)) or np.any(dsc <= 0):
            raise FairtheoryValueError(f"scale must hold {dim} positive finite numbers, got shape {dsc.shape}")
    if fscale is not None:
        fsc = np.asarray(fscale, dtype=np.float64)
        if fsc.shape != (nf,) or not np.all(np.isfinite(fsc)) or np.any(fsc <= 0):
            raise FairtheoryValueError(f"fscale must hold {nf} positive finite numbers, got shape {fsc.shape}")
    if not (isinstance(inner, (int, float, np.floating)) and 1e-6 <= float(inner) <= 1.0):
        raise FairtheoryValueError(f"inner must be a number in [1e-6, 1], got {inner!r}")
    tol_inner = max(float(tol) * float(inner), 1e-14)
    if max_add == -1:
        max_add = 2 * dim
    elif max_add is not None and (isinstance(max_add, bool) or not isinstance(max_add, (int, np.integer)) or max_add < 1):
        raise FairtheoryValueError(f"max_add must be an integer >= 1 or None, got {max_add!r}")
    # (never below 1e-9: tighter thresholds add rows violated at the relaxation's rounding level, the pattern fills)
    vt = max(float(tol), 100.0 * tol_inner, 1e-9) if viol_tol is None else float(viol_tol)
    if not 0 < vt < 1:
        raise FairtheoryValueError(f"viol_tol must lie in (0, 1), got {viol_tol!r}")
    t0 = time.perf_counter()
    obj_unit_in = float(obj_unit)
    nat = _natural(pep)
    bscale = dsc if scale is not None and _pow2(dsc) else None  # the basis in units (sparse_basis, scale)
    M, T, _ = sparse_basis(pep, scale=bscale)
    nG = dim * (dim + 1) // 2
    ia, ib = np.triu_indices(dim)

    def basis_scale(M: np.ndarray) -> np.ndarray:
        cs = np.ones(nG + nf)
        if scale is not None:
            # the new basis vector M[:, j] scaled by its largest component's scale: a uniform scale is then a uniform
            # scale of the new basis too (the bound |M[:, j]| . scale made the partial sums s_k k times larger than
            # their neighbours, and GD N = 55 in units R = 2^-13 ended AlmostSolved / L = 1e8 ran past 20 s)
            dn = (np.abs(M) * dsc[:, None]).max(axis=0)
            cs[ib * (ib + 1) // 2 + ia] = dn[ia] * dn[ib]
        if fscale is not None:
            cs[nG:] = fsc
        return cs

    colscale = basis_scale(M)
    # eps tr G = eps sum_j ||e_j||^2 in the new basis: e_j's new coordinates are T[:, j]
    trace_row = None
    if tw:
        eye = np.eye(dim)
        tws = np.ones(dim) if trace_weights is None else np.asarray(trace_weights, dtype=np.float64)
        if tws.shape != (dim,) or not np.all(np.isfinite(tws)) or np.any(tws <= 0):
            raise FairtheoryValueError(f"trace_weights must hold {dim} positive finite numbers, got shape {tws.shape}")
        trace_row = Scalar([(tw * float(tws[j]), Vec(eye[j]), Vec(eye[j])) for j in range(dim)])
    rscale = None  # row units: computed per relaxation from the rows in the new basis (_solve_relaxation)
    keep = _initial(nat)
    base_scale = colscale
    kept = np.zeros(len(nat.scalars), dtype=bool)
    kept[keep] = True
    cache: dict[int, Any] = {}
    absrows = abs(nat.rows)
    log: list[dict[str, Any]] = []
    seconds = 0.0
    iters = 0
    def kept_violation(res: dict[str, Any], unit: float) -> float:
        """The largest relative violation of the rows kept at a relaxation's point (the check below, per solve: a
        re-solve of the first round in other units is kept only when its point is one of the relaxation)."""
        Gk = T.T @ res["gram_new"] @ T
        xk = _nat_vector(0.5 * (Gk + Gk.T), res["F"])
        rk = (nat.rows[keep] @ xk - nat.consts[keep]) / (float(unit) + absrows[keep] @ np.abs(xk)
                                                          + np.abs(nat.consts[keep]))
        iseq = np.asarray(keep) < nat.n_eq
        rk[iseq] = np.abs(rk[iseq])
        return float(rk.max(initial=0.0))

    for rnd in range(1, int(max_rounds) + 1):
        left = None if time_limit is None else float(time_limit) - (time.perf_counter() - t0)
        if left is not None and left <= 0 and rnd > 1:
            raise SolverError(f"solve_sparse: time_limit={time_limit:g} s spent after {rnd - 1} rounds", "Clarabel",
                              "MaxTime")
        res = _solve_relaxation(pep, nat, keep, T, cache, float(tol), tol_inner, int(max_iter), verbose,
                                trace_row, colscale, int(max_threads), float(obj_unit), max(left or 0.0, 0.01)
                                if left is not None else None, rscale)
        seconds += res["seconds"]
        iters += res["iterations"]
        if rnd == 1 and adaptive and res["raw_status"] in ("Solved", "AlmostSolved"):
            # the points' sizes are known now: iterates near the origin become basis vectors of their own
            # (sparse_basis, NEAR_ORIGIN) and the first relaxation is solved again in that basis - a rule on the
            # sizes of the returned point, never on time
            M2, T2, _ = sparse_basis(pep, T.T @ res["gram_new"] @ T, scale=bscale)
            if not np.array_equal(M2, M):
                M, T, cache = M2, T2, {}
                colscale = base_scale = basis_scale(M)
                res2 = _solve_relaxation(pep, nat, keep, T, cache, float(tol), tol_inner, int(max_iter), verbose,
                                         trace_row, colscale, int(max_threads), float(obj_unit),
                                         max(left or 0.0, 0.01) if left is not None else None, rscale)
                seconds += res2["seconds"]
                iters += res2["iterations"]
                res = res2
        if colscale is not base_scale and res["raw_status"] not in ("Solved", "AlmostSolved"):
            # the measured units made this relaxation fail (AFL's min-max PEP, NumericalError): solved again in the
            # starting units - a rule on the status, never on time
            colscale = base_scale
            res = _solve_relaxation(pep, nat, keep, T, cache, float(tol), tol_inner, int(max_iter), verbose,
                                    trace_row, colscale, int(max_threads), float(obj_unit), max(left or 0.0, 0.01)
                                    if left is not None else None, rscale)
            seconds += res["seconds"]
            iters += res["iterations"]
        if adaptive and res["raw_status"] in ("Solved", "AlmostSolved"):
            cs_new = _adapted_scale(res["gram_new"], colscale, dim)
            if cs_new is not None:
                colscale = cs_new
                if rnd == 1:  # the first relaxation solves in milliseconds: solved again in the measured units
                    res2 = _solve_relaxation(pep, nat, keep, T, cache, float(tol), tol_inner, int(max_iter), verbose,
                                             trace_row, colscale, int(max_threads), float(obj_unit),
                                             max(left or 0.0, 0.01) if left is not None else None, rscale)
                    seconds += res2["seconds"]
                    iters += res2["iterations"]
                    if res2["raw_status"] in ("Solved", "AlmostSolved") and kept_violation(res2, obj_unit) <= KEPT_VIOL_MAX:
                        res = res2
                    else:  # the measured units fail here: keep the first solve and its units
                        colscale = base_scale
        if rnd == 1 and adaptive and res["raw_status"] in ("Solved", "AlmostSolved"):
            # the objective far below its unit (a contraction's ||x_N - x*||^2 = 0.9^120): solved again with the
            # objective in its own size, so Clarabel's gap is relative to the value, and with the Gram and value columns
            # in the sizes just measured (a value column beside Gram columns of size 0.9^120 otherwise sets the row's
            # unit); repeated while the measured unit or sizes still move (at most OWN_UNIT_PASSES solves), each kept
            # only when solved to the requested tolerances - rules on the sizes of the returned points (issue 41)
            c0 = float(pep._objective.const)
            for _ in range(OWN_UNIT_PASSES):
                size = abs(float(res["value"]) - c0)
                if not (0 < size < math.inf) or (obj_unit == obj_unit_in and size >= 2.0 ** -OWN_UNIT_EXP * obj_unit):
                    break
                ou = float(np.ldexp(1.0, int(round(math.log2(size)))))
                cs_g = _adapted_scale(res["gram_new"], colscale, dim)
                cs2 = _adapted_values(res["F"], colscale if cs_g is None else cs_g, dim)
                if ou == obj_unit and cs_g is None and np.array_equal(cs2, colscale):
                    break  # the unit and the sizes are those the last solve used
                res2 = _solve_relaxation(pep, nat, keep, T, cache, float(tol), tol_inner, int(max_iter), verbose,
                                         trace_row, cs2, int(max_threads), ou,
                                         max(left or 0.0, 0.01) if left is not None else None, rscale)
                seconds += res2["seconds"]
                iters += res2["iterations"]
                if res2["status"] != "Solved" or kept_violation(res2, ou) > KEPT_VIOL_MAX:
                    break  # not solved (its own rows violated: f(x_60) - f* on SmoothStronglyConvex(1, 0.1), 3.6e-4)
                res, obj_unit, colscale = res2, ou, cs2
        G = T.T @ res["gram_new"] @ T
        G = 0.5 * (G + G.T)
        x = _nat_vector(G, res["F"])
        r = nat.rows @ x - nat.consts
        # relative to the row's terms and to the problem's unit (1 for a PEP in units; obj_unit otherwise: with the
        # constant 1, every row of GD in units R^2 = 1e-8 looked satisfied and the relaxation's value came back)
        mag = float(obj_unit) + absrows @ np.abs(x) + np.abs(nat.consts)
        rel = r / mag
        rel[: nat.n_eq] = np.abs(rel[: nat.n_eq])
        bad = np.flatnonzero((rel > vt) & ~kept)
        kept_viol = float(rel[kept].max(initial=0.0))
        log.append({"round": rnd, "rows_kept": len(keep), "violated": int(bad.size), "seconds": res["seconds"],
                    "iterations": res["iterations"], "value": res["value"], "pattern_entries": res["pattern"],
                    "status": res["status"], "raw_status": res["raw_status"], "kept_violation": kept_viol})
        if kept_viol > KEPT_VIOL_MAX and res["raw_status"] in ("Solved", "AlmostSolved"):
            # the relaxation was not solved (its own rows are violated: Clarabel's point is not one of it), so its
            # completion's violations say nothing about the omitted rows - adding them only fills the pattern
            raise SolverError(f"solve_sparse: round {rnd} returned a point violating its own rows by {kept_viol:.2e} "
                              f"relative (> {KEPT_VIOL_MAX:g}): the relaxation was not solved", "Clarabel",
                              res["raw_status"])
        if obj_unit != obj_unit_in and len(log) > 1 and \
                res["value"] > log[-2]["value"] + 10.0 * float(tol) * max(abs(log[-2]["value"]), float(obj_unit)):
            # in its own unit a relaxation with more rows came out *higher* than the one before (a maximisation:
            # rows added can only lower it): the solves are not accurate at this scale (GD distance N = 60 at
            # L = 1e6: 3.2294e-6 then 3.2336e-6 for 3.2292e-6) - refused, never reported
            raise SolverError(f"solve_sparse: round {rnd} ({res['value']:.10g}) exceeds round {rnd - 1} "
                              f"({log[-2]['value']:.10g}) with more rows, in the objective's own unit "
                              f"{obj_unit:g}: the relaxations are not solved to the value's accuracy", "Clarabel",
                              res["raw_status"])
        if bad.size == 0 or res["status"] not in ("Solved", "AlmostSolved"):
            break
        if max_add is not None and bad.size > max_add:
            bad = bad[np.argsort(-rel[bad], kind="stable")[:max_add]]  # the most violated first
        if rnd >= FULL_AFTER_ROUNDS and res["pattern"] >= FULL_PATTERN_FRAC * nG:
            # the relaxation's pattern is most of the dense one: a round costs about a dense solve already, and the
            # rows left make it little dearer - every row joins, so this is the last round (a rule on sizes)
            bad = np.flatnonzero(~kept)
        kept[bad] = True
        keep = sorted(np.flatnonzero(kept).tolist())
    else:
        raise SolverError(f"solve_sparse: rows still violated after max_rounds={max_rounds} rounds "
                          f"({log[-1]['violated']} of {len(nat.scalars)})", "Clarabel", res["status"])
    z = np.zeros(len(nat.scalars))
    z[keep] = res["lam"]
    value = res["value"]  # PEP.solve's convention: obj + eps tr G (bracket.primal_objective subtracts it)
    eig = float(np.linalg.eigvalsh(G)[0]) if G.size else 0.0
    # the multipliers' own bound at the returned point's size (dual_upper_estimate): a value more than 10 tol below it
    # is not reported "Solved" - the status says AlmostSolved and dual_value carries the estimate (the worst case may
    # lie anywhere up to it), so PEP.solve's checks see the gap instead of a value silently below the truth
    status, dual = res["status"], float(res["dual"])
    ub = dual_upper_estimate(nat, z, G, res["F"], float(pep._objective.const)) if status in ("Solved", "AlmostSolved") \
        else math.nan
    if math.isfinite(ub) and ub - value > 10.0 * float(tol) * max(abs(value), float(obj_unit)):
        status = "AlmostSolved"
        dual = max(dual, ub)
    wall = time.perf_counter() - t0
    nU = nat.n_user
    return SparseSDPSolution(
        value=value, dual_value=dual, gap=dual - value, status=status, gram=G, F=res["F"],
        dim=pep.dim, n_constraints=len(nat.scalars), n_interp=nat.n_interp, seconds=seconds,
        build_seconds=wall - seconds, iterations=iters, r_prim=res["r_prim"], r_dual=res["r_dual"],
        duals=z[len(z) - nU:].copy() if nU else np.zeros(0), rows=nat.rows, consts=nat.consts, objective_row=nat.obj,
        objective_const=float(pep._objective.const), z=z, n_eq=nat.n_eq, max_terms=nat.max_terms, trace_weight=tw,
        rounds=len(log), rows_kept=len(keep), rows_total=len(nat.scalars), pattern_entries=res["pattern"],
        max_violation=float(max(rel.max(initial=0.0), 0.0)), min_eig=eig, upper_estimate=ub, log=log,
        obj_unit=float(obj_unit))
