r"""Exact repair of a float PEP solve: a rigorous upper bound in rationals from the float multipliers, no GMP.

A float solve of a PEP (Clarabel) returns multipliers ``lambda`` of its rows ``r_i . x <= c_i`` (``==`` for the
first ``n_eq``) in natural coordinates ``x = [G_ab (a <= b), F]``.  Weak duality (Drori & Teboulle 2014; Taylor,
Hendrickx & Glineur 2017): for rational ``lambda`` with ``lambda_i >= 0`` on the inequalities and

(i)   ``sum_i lambda_i a_i = c_F`` exactly (the function-value part of the objective cancelled),

every feasible ``(G, F)`` has

.. math:: \mathrm{obj}(G, F) = b(\lambda) - \langle S(\lambda), G\rangle - \sum_i \lambda_i\,\mathrm{slack}_i
          \le b(\lambda) - \langle S(\lambda), G\rangle,
          \qquad b(\lambda) = c_0 + \sum_i \lambda_i c_i,\; S(\lambda) = \sum_i \lambda_i A_i - C,

so ``S + eps I >= 0`` gives ``obj <= b + eps tr G``.  The trace is paid for by an **interior end**: multipliers
``lambda'`` (of a solve of ``max obj + delta tr G``) with ``S(lambda') - m I >= 0``, ``m > 0``, give ``m tr G <=
b(lambda') - obj(G)``; on the feasible points with ``obj >= b`` (the only ones that could exceed ``b``) ``tr G <=
(b(lambda') - b)/m``, hence

.. math:: \mathrm{opt} \le U = b + \varepsilon\,\max(b(\lambda') - b, 0)/m

(or ``b + eps T`` with an a-priori trace bound ``T``).  :func:`repair` builds ``U`` in exact arithmetic:

1. **polish** (floats, optional): the multipliers of a KKT point found by Gauss-Newton from the solver's point
   (:func:`newton_polish`, :func:`fairtheory.proofs.search._kkt_newton`: active rows tight, (i), ``S G = 0``): the
   slack's negative eigenvalues drop from the solver's ``1e-9`` to the rounding level, ``eps ~1e-14``.  (The face
   projection of :func:`fairtheory.proofs.search._face_refine`, ``repair(polish=True)``, is kept as an option: its
   least-change step is ill-conditioned along the objective direction - GD, N = 5: a change of 480 for a residual
   of 2e-6 - so it is off by default);
2. **rounding**: onto the dyadic grid ``2^(e - GRID_BITS)`` below the largest multiplier, negatives of
   inequalities clipped to 0;
3. **restore (i)** exactly: the rational residual removed by exact Gaussian elimination on the largest multipliers
   (:func:`fairtheory.proofs.exact_linalg.solve_sparse`);
4. **exact PSD**: ``S`` assembled in integers (every float datum is ``m 2^e``), the shift ``eps`` (0 first, then a
   dyadic above the float ``-lambda_min``) proved by the kernel's fraction-free ``L D L^T``
   (:func:`fairtheory_kernel.linalg.eliminate`, python-flint).

5. **zero shift** (:func:`zero_shift`, PEPs whose Gram trace has no bound - composite and operator problems - where
   neither a trace bound nor an interior end exists): ``S(lambda) >= 0`` exactly with ``eps = 0``.  The exact kernel
   ``K`` of ``S`` at the rounded multipliers (the directions every certificate annihilates: a PEP's invariance) is
   split off, ``S >= 0`` is proved on a coordinate complement of ``K`` (``[K, e_W]^T S [K, e_W] = diag(0, S_WW)``), and
   where ``S_WW`` is singular to rounding the multipliers are pushed along a direction that curves its near-null space
   (the bound grows by about the float slack's negative eigenvalue).  Float data can break an invariance at ``1e-17``
   (coefficients such as ``1/(2(1 - mu/L))`` rounded); the curvature ``y^T S y`` along such a direction then has
   whatever sign the data give it (:func:`_tilt` moves the multipliers within the optimal face to make it positive
   where the data allow; proximal gradient at ``n = 3, mu = 1/4`` they do not, and nothing is proved there).
6. **face push** (:func:`_face_push`, inside :func:`zero_shift`: low-rank worst cases such as OGM and Halpern, a
   rank-one slack whose near-null space the free multipliers cannot curve): the multipliers of the slack's face
   (``S = V V^T`` exactly in floats, Gauss-Newton from the solver's multipliers on its active rows), rounded, then
   pushed by a dyadic ``t`` at the rounding level (``1e-16``) along a Slater direction of the face (nonnegative on
   the inactive rows, where an interior-point solver's multipliers already point) so that ``S >= 0`` exactly; the
   face's primal point (the solver's point projected onto it, float-feasible) replaces the solver's point as the
   lower end.  No second solve, no KKT Newton.

**Cost on small PEPs** (a few dozen rows; Python overhead, not arithmetic, dominates): one :class:`_Data` per
solution (exact integer data, dense row blocks, nonzero lists) shared by every stage of :func:`exact_bracket` and
every solution with the same data arrays (:func:`_data`); the pivots of the exact restore of (i) kept per support and
re-checked exactly at each reuse (:func:`_meets_i`); multiplier vectors moved as integer numerators over one
denominator (:class:`_QV`), Fractions built once per certificate; the float part of the zero shift's route kept per
multiplier vector (:func:`_zero_route`); a negative leading minor in FLINT's fraction-free LU refuses PSD without the
``L D L^T`` (:func:`_fflu_sign`).  :func:`exact_bracket` skips stages that cannot pay: the shifted repair when the
solver's slack is indefinite and nothing pays a shift (:func:`_shift_needed`), the zero shift at the solver's point
when that point is doubtful before anything is proved (the KKT point first, one zero shift there).

Nothing here trusts the float solve: a forged or perturbed ``lambda`` gives a PSD test that fails (no bound) or a
larger ``eps`` (a wider bound), never a bound below the certificate's own value; the returned :class:`Repair`
keeps ``b``, ``eps`` and the interior end so a caller can re-check every term.  See docs/worstcase.md, "Which number
is the worst case".
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from fairtheory.proofs.exact_linalg import is_psd, solve_sparse
from fairtheory.proofs.search import _face_refine, _kkt_newton, _one_blas_thread, kkt_rank
from fairtheory.worstcase.solvers import FloatSolve
from fairtheory_kernel import linalg as _klinalg

if TYPE_CHECKING:
    from fairtheory.worstcase.solvers import SDPSolution

__all__ = ["Repair", "ExactBracket", "repair", "exact_bracket", "upper_from", "newton_polish", "verify", "zero_shift",
           "GRID_BITS", "RANK_RTOL", "BACKOFF", "NEWTON_MAX_WORK"]

#: multipliers are rounded to ``2^(e - GRID_BITS)``, ``2^e >=`` the largest one
GRID_BITS = 60
#: the numerical range of the solver's Gram matrix: eigenvalues above this times the largest
RANK_RTOL = 1e-6
#: a polished multiplier set is used when its face residual is below this (relative to the data)
POLISH_RTOL = 1e-9
#: the row blocks are held dense (one conversion per solution, no sparse slicing per step) up to this many entries
DENSE_MAX = 1_000_000


@dataclass
class Repair:
    """Exact multipliers and what they prove: ``obj <= bound + eps * trace`` for every feasible point with
    ``S(lambda) + eps I >= 0`` proved exactly (``eps`` a dyadic rational, ``0`` when ``S >= 0``); ``lam``: the
    multipliers (Fractions, one per row of the solution's data), ``lmin``: the float smallest eigenvalue of ``S``."""

    lam: list[Fraction]
    bound: Fraction
    eps: Fraction
    lmin: float
    polished: bool
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class ExactBracket:
    """A bracket ``lower <= worst case <= upper`` of one PEP (its own units).

    ``upper``: proved (``upper_exact``, a Fraction, by :func:`upper_from`; the float rounded up); ``lower``: the
    objective of a point - the solver's, or a KKT point's after the Newton polish (``info["lower_is"]``), feasible to
    the float tolerance, not a proof - unless ``lower_rigorous`` (a replayed or exactly feasible point).
    ``value_is``: ``"exact"`` when ``upper - lower <= tol`` relative (``value = lower``: a point's value within ``tol``
    of a proved bound), ``"upper"`` when wider (``value = upper``), ``"lower"`` when no upper bound was proved
    (``upper = inf``, ``value = lower``).  ``value <= upper`` always."""

    lower: float
    upper: float
    upper_exact: Fraction | None
    lower_rigorous: bool
    value_is: str
    value: float
    tight: Repair | None
    interior: Repair | None
    info: dict[str, Any] = field(default_factory=dict)
    #: the KKT point (a copy of the solution with its Gram matrix, values and primal value) whose objective is
    #: ``lower``, when the Newton polish produced it
    point: Any = None

    @property
    def width(self) -> float:
        return self.upper - self.lower


# --------------------------------------------------------------------------------------------- exact data
def _ints(vals: np.ndarray) -> tuple[np.ndarray, int]:
    """Exact integers ``N`` (object array) and ``P`` with ``vals = N / 2^P`` (every float64 is ``m 2^e``)."""
    vals = np.asarray(vals, dtype=np.float64)
    if vals.size == 0:
        return np.zeros(0, dtype=object), 0
    m, e = np.frexp(vals)
    M = np.ldexp(m, 53).astype(np.int64)
    low = e - 53
    nz = M != 0
    P = int(-low[nz].min()) if nz.any() else 0
    P = max(P, 0)
    shift = (low + P).astype(np.int64)
    shift[~nz] = 0
    out = np.left_shift(M.astype(object), shift.astype(object))
    return out, P


def _frac(x: float) -> Fraction:
    return Fraction(float(x))


_ZERO = Fraction(0)


def _dyadics(l_int: Sequence[int], K: int) -> list[Fraction]:
    """``[l / 2^K]`` as Fractions (the zeros one shared object)."""
    den = 1 << K
    return [Fraction(int(x), den) if x else _ZERO for x in l_int]


class _QV(NamedTuple):
    """A rational vector ``num / den``: exact integer numerators (object array) over one positive denominator (not
    necessarily the least) - sums and scalings of multiplier vectors without a Fraction per entry."""

    num: np.ndarray
    den: int


def _qv_of(lam: Sequence[Fraction]) -> _QV:
    """``lam`` over the least common denominator of its entries."""
    dens = {x.denominator for x in lam if x}
    D = math.lcm(*dens) if dens else 1
    num = np.empty(len(lam), dtype=object)
    num[:] = [x.numerator * (D // x.denominator) if x else 0 for x in lam]
    return _QV(num, D)


def _qv_axpy(a: _QV, t: Fraction, b: _QV) -> _QV:
    """``a + t b`` exactly."""
    tn, td = t.numerator, t.denominator
    return _QV(a.num * (b.den * td) + b.num * (a.den * tn), a.den * b.den * td)


def _qv_fracs(v: _QV) -> list[Fraction]:
    """The entries of ``v`` as Fractions (in lowest terms; the zeros one shared object)."""
    den = v.den
    return [Fraction(n, den) if n else _ZERO for n in v.num.tolist()]


def _qv_floats(v: _QV) -> np.ndarray:
    """The entries of ``v`` as floats (each correctly rounded: integer true division)."""
    den = v.den
    return np.array([n / den for n in v.num.tolist()], dtype=np.float64)


def _dyadic_grid(z: np.ndarray, n_eq: int, bits: int) -> tuple[np.ndarray, int]:
    """``z`` on the grid ``2^-K``: integers ``l`` (object) with ``lambda = l / 2^K``; inequality ones clipped >= 0."""
    z = np.asarray(z, dtype=np.float64).copy()
    z[n_eq:] = np.maximum(z[n_eq:], 0.0)
    top = float(np.max(np.abs(z))) if z.size else 0.0
    if not math.isfinite(top) or top == 0.0:
        return np.zeros(z.size, dtype=object), 0
    K = max(bits - math.frexp(top)[1], 0)  # multipliers above 2^bits keep their float value (already integers)
    l_int = np.rint(np.ldexp(z, K))  # |z 2^K| < 2^bits <= 2^60: exact integers in float64 after rint
    return np.array([int(v) for v in l_int], dtype=object), K


class _Data:
    """The solution's data in exact integer form: rows (CSC over natural coordinates), objective, constants."""

    def __init__(self, sol: SDPSolution) -> None:
        import scipy.sparse as sp

        self.dim = int(sol.dim)
        self.nG = self.dim * (self.dim + 1) // 2
        R = sp.csc_matrix(sol.rows)
        R.sum_duplicates()
        R.eliminate_zeros()
        self.R = R
        self.m = R.shape[0]
        self.n_eq = int(sol.n_eq)
        self.obj = np.asarray(sol.objective_row, dtype=np.float64)
        self.obj_const = _frac(sol.objective_const)
        self.consts = np.asarray(sol.consts, dtype=np.float64)
        allv = np.concatenate([R.data, self.obj])
        ints, self.P = _ints(allv)  # every datum N / 2^P at one scale
        self.Rint = ints[: R.data.size] if R.data.size else np.zeros(0, dtype=object)
        self.cint = ints[R.data.size:] if self.obj.size else np.zeros(0, dtype=object)
        ia, ib = np.triu_indices(self.dim)
        nat = ib * (ib + 1) // 2 + ia
        self.pos_a = np.empty(self.nG, dtype=np.int64)
        self.pos_b = np.empty(self.nG, dtype=np.int64)
        self.pos_a[nat] = ia
        self.pos_b[nat] = ib
        self.nfc = R.shape[1] - self.nG
        #: the source arrays (identity), so that a solution with the same data reuses this object (:func:`_data`)
        self._src = (sol.rows, sol.objective_row, sol.consts, sol.objective_const, self.dim, self.n_eq)
        self._cache: dict[str, Any] = {}

    def same(self, sol: SDPSolution) -> bool:
        """Whether ``sol`` carries the very data (the same array objects) this was built from."""
        r, o, c, c0, dim, n_eq = self._src
        return (sol.rows is r and sol.objective_row is o and sol.consts is c and sol.objective_const == c0
                and int(sol.dim) == dim and int(sol.n_eq) == n_eq)

    def _get(self, key: str, make: Callable[[], Any]) -> Any:
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = make()
        return got

    @property
    def half(self) -> np.ndarray:
        """``1`` on the diagonal natural columns, ``1/2`` off it (``S_ab = s_j h_j``)."""
        return self._get("half", lambda: np.where(self.pos_a == self.pos_b, 1.0, 0.5))

    @property
    def RGc(self) -> Any:
        """The Gram block of the rows (CSR)."""
        return self._get("RGc", lambda: self.R[:, :self.nG].tocsr())

    @property
    def RFc(self) -> Any:
        """The function-value block of the rows (CSR)."""
        return self._get("RFc", lambda: self.R[:, self.nG:].tocsr())

    @property
    def dense(self) -> bool:
        """Whether the row blocks are small enough to be held dense (:data:`DENSE_MAX`)."""
        return self.m * self.R.shape[1] <= DENSE_MAX

    @property
    def coo(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(rows, cols, values)`` of every nonzero of the rows (one conversion, shared)."""
        def make() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            c = self.R.tocoo()
            return c.row.astype(np.int64), c.col.astype(np.int64), c.data
        return self._get("coo", make)

    @property
    def full(self) -> np.ndarray:
        """The rows as one dense array (only when :attr:`dense`)."""
        def make() -> np.ndarray:
            r, c, v = self.coo
            out = np.zeros((self.m, self.R.shape[1]))
            out[r, c] = v  # no duplicates (summed at construction)
            return out
        return self._get("full", make)

    def RG_rows(self, idx: Any = None) -> np.ndarray:
        """The Gram block's rows ``idx`` (all when ``None``), dense."""
        if self.dense:
            full = self._get("RGd", lambda: np.ascontiguousarray(self.full[:, :self.nG]))
            return full if idx is None else full[idx]
        return (self.RGc if idx is None else self.RGc[idx]).toarray()

    def RF_rows(self, idx: Any = None) -> np.ndarray:
        """The function-value block's rows ``idx`` (all when ``None``), dense."""
        if self.dense:
            full = self._get("RFd", lambda: np.ascontiguousarray(self.full[:, self.nG:]))
            return full if idx is None else full[idx]
        return (self.RFc if idx is None else self.RFc[idx]).toarray()

    def RG_sub(self, idx: Any) -> Any:
        """The Gram block's rows ``idx`` (a matrix to multiply with: dense when small, CSR else)."""
        return self.RG_rows(idx) if self.dense else self.RGc[idx]

    @property
    def RF_coo(self) -> tuple[list[int], list[int], list[float]]:
        """``(rows, cols, values)`` of the function-value block's nonzeros (floats: exact binary rationals)."""
        def make() -> tuple[list[int], list[int], list[float]]:
            r, c, v = self.coo
            k = c >= self.nG
            return r[k].tolist(), (c[k] - self.nG).tolist(), v[k].tolist()
        return self._get("RF_coo", make)

    @property
    def RG_coo(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(rows, cols, values)`` of the Gram block's nonzeros (CSR order)."""
        def make() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            r, c, v = self.coo
            k = c < self.nG
            return r[k], c[k], v[k]
        return self._get("RG_coo", make)

    @property
    def csr(self) -> tuple[Any, np.ndarray]:
        """The rows as CSR and their data as exact integers at the scale ``2^P``."""
        def make() -> tuple[Any, np.ndarray]:
            Rc = self.R.tocsr()
            return Rc, _ints_csr(self, Rc)
        return self._get("csr", make)

    @property
    def consts_q(self) -> list[tuple[int, Fraction]]:
        """The nonzero constants ``(i, c_i)``, exact."""
        return self._get("consts_q", lambda: [(i, Fraction(float(self.consts[i])))
                                               for i in np.flatnonzero(self.consts).tolist()])

    @property
    def consts_den(self) -> int:
        """A common denominator of the constants (a power of 2)."""
        return self._get("consts_den", lambda: math.lcm(1, *(c.denominator for _, c in self.consts_q)))

    @property
    def C(self) -> np.ndarray:
        """The objective's Gram part as a dense symmetric matrix."""
        def make() -> np.ndarray:
            C = np.zeros((self.dim, self.dim))
            hc = self.half * self.obj[:self.nG]
            C[self.pos_a, self.pos_b] = hc
            C[self.pos_b, self.pos_a] = hc
            return C
        return self._get("C", make)

    # S(lambda) in natural coordinates times 2^(P+K), exactly; lam = l / 2^K
    def slack_nat(self, l_int: np.ndarray, K: int, upto: int) -> np.ndarray:
        R = self.R
        out = np.empty(upto, dtype=object)
        prod = self.Rint * l_int[R.indices] if R.data.size else np.zeros(0, dtype=object)
        ptr = R.indptr
        for j in range(upto):
            lo, hi = ptr[j], ptr[j + 1]
            s = sum(prod[lo:hi].tolist(), 0) if hi > lo else 0
            out[j] = s - (int(self.cint[j]) << K)
        return out


def _data(sol: SDPSolution, d: _Data | None = None) -> _Data:
    """``d`` when it was built from ``sol``'s very data (:meth:`_Data.same`), else a new :class:`_Data`."""
    return d if d is not None and d.same(sol) else _Data(sol)


def _float_slack(d: _Data, lam: np.ndarray) -> np.ndarray:
    """Float ``S(lambda)`` (dense symmetric)."""
    s = (d.RGc.T @ lam if not d.dense else d.RG_rows().T @ lam) - d.obj[:d.nG]
    S = np.zeros((d.dim, d.dim))
    sh = s * d.half
    S[d.pos_a, d.pos_b] = sh
    S[d.pos_b, d.pos_a] = sh
    return S


def _polish(d: _Data, sol: SDPSolution, lam: np.ndarray) -> tuple[np.ndarray, bool, float]:
    """The multipliers moved onto (i) and ``S U_G = 0`` (module doc, step 1); ``(lam, used, residual)``."""
    import scipy.sparse as sp

    G = np.asarray(sol.gram, dtype=np.float64)
    if G.size == 0 or not np.all(np.isfinite(G)):
        return lam, False, math.inf
    w, V = np.linalg.eigh(0.5 * (G + G.T))
    top = float(w[-1])
    if top <= 0:
        return lam, False, math.inf
    U = V[:, w > RANK_RTOL * top]
    r = U.shape[1]
    if r == 0 or r >= d.dim:
        return lam, False, math.inf
    # S(lambda) U as a linear map of lambda: S_ab = coef (a == b), coef/2 (a != b) for each natural column
    RG = d.R[:, :d.nG].tocoo()
    a, b = d.pos_a[RG.col], d.pos_b[RG.col]
    v = np.where(a == b, RG.data, 0.5 * RG.data)
    blocks, rhs = [], []
    C = np.zeros((d.dim, d.dim))
    hc = np.where(d.pos_a == d.pos_b, 1.0, 0.5) * d.obj[:d.nG]
    C[d.pos_a, d.pos_b] = hc
    C[d.pos_b, d.pos_a] = hc
    for j in range(r):
        u = U[:, j]
        # (S u)_a = sum_b S_ab u_b: each entry (a, b) gives S_ab u_b to row a, and (b, a) gives S_ab u_a to row b
        rows_ = np.concatenate([a, b[a != b]])
        vals = np.concatenate([v * u[b], (v * u[a])[a != b]])
        ids = np.concatenate([RG.row, RG.row[a != b]])
        J = sp.csr_matrix((vals, (rows_, ids)), shape=(d.dim, d.m))
        blocks.append(J)
        rhs.append(C @ u)
    RF = d.R[:, d.nG:].T.tocsr()
    blocks.insert(0, RF)
    rhs.insert(0, d.obj[d.nG:])
    A = sp.vstack(blocks).toarray()
    bvec = np.concatenate(rhs)
    if A.shape[1] > 20000 or A.shape[0] * A.shape[1] > 2e7:
        return lam, False, math.inf
    x, res = _face_refine(SimpleNamespace(m=d.m, n_eq=d.n_eq), lam, A, bvec)
    scale = max(1.0, float(np.abs(bvec).max(initial=0.0)), float(np.abs(lam).max(initial=0.0)))
    return (x, True, res) if res <= POLISH_RTOL * scale and np.all(np.isfinite(x)) else (lam, False, res)


def _pivot_solve(piv: tuple[list[int], Any], res: list[Fraction]) -> dict[int, Fraction] | None:
    """The exact solution on the pivot multipliers ``cols`` of ``piv = (cols, M)`` (``M``: their nonsingular square
    block of the function-value rows, ``fmpq_mat``) of ``M x = res``."""
    from flint import fmpq, fmpq_mat

    cols, M = piv
    rhs = fmpq_mat(len(res), 1, [fmpq(r.numerator, r.denominator) for r in res])
    try:
        x = M.solve(rhs)
    except ZeroDivisionError:
        return None
    out = {}
    for j, c in enumerate(cols):
        q = x[j, 0]
        out[c] = Fraction(int(q.p), int(q.q), _normalize=False)  # FLINT's fmpq is in lowest terms, q > 0
    return out


def _meets_i(d: _Data, corr: dict[int, Fraction], res: list[Fraction]) -> bool:
    """``sum_i corr_i a_ik == res_k`` exactly for every function-value column ``k`` (a correction from cached pivots
    is re-checked against the data, never trusted)."""
    acc = [Fraction(0)] * d.nfc
    for i, k, v in zip(*d.RF_coo, strict=True):
        c = corr.get(i)
        if c:
            acc[k] += c * Fraction(v)
    return acc == list(res)


def _square_solve(d: _Data, eqs: list[dict[int, float]], res: list[Fraction], order: list[int],
                  lam: Sequence[Fraction | float]) -> tuple[dict[int, Fraction], tuple[list[int], Any]] | None:
    """The correction of (i) on ``len(eqs)`` pivot multipliers chosen by a column-pivoted QR of the function-value
    block (columns weighted by the multipliers, the largest first), solved exactly by FLINT (``fmpq_mat``), and the
    pivots ``(cols, M)`` for :func:`_pivot_solve`; ``None`` when that square block is singular (then
    :func:`~fairtheory.proofs.exact_linalg.solve_sparse` decides)."""
    import scipy.linalg
    from flint import fmpq, fmpq_mat

    n = len(eqs)
    cand = order[: 3 * n + 8]
    if len(cand) < n:
        return None
    col = {c: j for j, c in enumerate(cand)}
    A = np.zeros((n, len(cand)))
    for k, e in enumerate(eqs):
        for c, v in e.items():
            j = col.get(c)
            if j is not None:
                A[k, j] = v
    mags = [abs(float(lam[c])) for c in cand]
    top = max(mags) or 1.0
    wts = np.array([top if c < d.n_eq else max(v, 1e-300) for c, v in zip(cand, mags, strict=True)])
    try:
        _, R, piv = scipy.linalg.qr(A * wts, mode="economic", pivoting=True)
    except (ValueError, np.linalg.LinAlgError):
        return None
    diag = np.abs(np.diag(R))
    if diag.size < n or not (diag[-1] > 1e-12 * diag[0]):
        return None
    cols = [cand[j] for j in piv[:n]]
    M = fmpq_mat(n, n)
    for k, e in enumerate(eqs):
        for j, c in enumerate(cols):
            v = e.get(c)
            if v:
                M[k, j] = fmpq(*v.as_integer_ratio())  # the float's exact value
    out = _pivot_solve((cols, M), res)
    return None if out is None else (out, (cols, M))


def _restore(d: _Data, l_int: np.ndarray, K: int) -> list[Fraction] | None:
    """Exact multipliers ``l / 2^K + delta`` with (i) exactly, ``delta`` on the largest multipliers (module doc,
    step 3); ``None`` when (i) cannot be met on the support or an inequality multiplier would turn negative."""
    nG, R = d.nG, d.R
    lam = _dyadics(l_int, K)
    nfc = R.shape[1] - nG
    if nfc == 0:
        return lam
    # residual r_k = c_k - sum_i lam_i a_ik, exactly (in units 2^-(P+K))
    s = d.slack_nat(l_int, K, R.shape[1])  # columns >= nG hold sum lam a - c, scaled
    res = [Fraction(-int(s[nG + k]), 1 << (d.P + K)) for k in range(nfc)]
    if all(x == 0 for x in res):
        return lam
    support = [i for i, x in enumerate(lam) if x != 0 or i < d.n_eq]
    mag = np.abs(np.asarray(l_int, dtype=np.float64))  # the grid integers: the same order as the multipliers
    corr = _solve_i(d, res, support, mag, lam)
    if corr is None:
        return None
    for i, v in corr.items():
        lam[i] += v
    if any(lam[i] < 0 for i in range(d.n_eq, d.m)):
        return None
    return lam


def _solve_i(d: _Data, res: list[Fraction], support: list[int], mag: np.ndarray,
             lam: Sequence[Fraction | float]) -> dict[int, Fraction] | None:
    """A sparse exact correction ``delta`` on ``support`` with ``sum_i delta_i a_ik = res_k`` (every function-value
    column ``k``), on the largest multipliers (``mag``) first: FLINT's square solve (:func:`_square_solve`), else
    exact sparse elimination; ``None`` when none exists on the support."""
    key = tuple(support)
    piv = d._cache.setdefault("pivots", {}).get(key)
    corr = _pivot_solve(piv, res) if piv is not None else None  # the pivots of an earlier solve on this support
    if corr is not None and _meets_i(d, corr, res):
        return corr
    nfc = d.nfc
    eqs: list[dict[int, float]] = [{} for _ in range(nfc)]
    sup = set(support)
    for i, k, v in zip(*d.RF_coo, strict=True):
        if i in sup:
            eqs[k][i] = v
    order = sorted(support, key=lambda i: (i >= d.n_eq, -mag[i], i))
    got = _square_solve(d, eqs, res, order, lam)
    if got is not None:
        corr, d._cache["pivots"][key] = got
        return corr
    eqq = [{i: Fraction(v) for i, v in e.items()} for e in eqs]  # exact (a float is a binary rational)
    for cols in (order[: 2 * nfc + 8], order):
        corr = solve_sparse(eqq, res, cols)
        if corr is not None:
            break
    return corr


def _exact_slack(d: _Data, lam: list[Fraction], l_int: np.ndarray, K: int) -> tuple[list[list[int]], int]:
    """``(W, s)``: the integer symmetric matrix ``W = s * 2 S(lambda)`` (``s > 0``) of exact multipliers ``lam``
    (``l / 2^K`` plus a sparse correction)."""
    nG = d.nG
    base = d.slack_nat(l_int, K, nG)  # sum (l/2^K) A - C in natural coordinates, times 2^(P+K)
    # the correction of (i): dq_i = lam_i - l_i/2^K on a few rows; common denominator D of the dq_i
    dqs: dict[int, Fraction] = {}
    for i, q in enumerate(lam):
        dq = q - Fraction(int(l_int[i]), 1 << K)
        if dq != 0:
            dqs[i] = dq
    D = 1
    for dq in dqs.values():
        if D % dq.denominator:
            D = D // math.gcd(D, dq.denominator) * dq.denominator
    nat = [int(x) * D for x in base]  # scale 2^(P+K) D
    if dqs:
        R, Rint_csr = d.csr
        for i, dq in dqs.items():
            f = dq.numerator * (D // dq.denominator) << K  # dq * D * 2^K, an integer
            lo, hi = R.indptr[i], R.indptr[i + 1]
            for c, v in zip(R.indices[lo:hi].tolist(), Rint_csr[lo:hi].tolist(), strict=True):
                if c < nG:
                    nat[c] += f * int(v)  # v = datum * 2^P
    s = (1 << (d.P + K)) * D
    W = [[0] * d.dim for _ in range(d.dim)]
    for j, x in enumerate(nat):
        a, b = int(d.pos_a[j]), int(d.pos_b[j])
        if a == b:
            W[a][a] = 2 * x
        else:
            W[a][b] = W[b][a] = x
    return W, s


def _ints_csr(d: _Data, R: Any) -> np.ndarray:
    """The data of the CSR view ``R`` of the rows as exact integers at the scale ``2^P`` of ``d``."""
    vals, P = _ints(R.data)
    return vals * (1 << (d.P - P)) if vals.size else vals


def _fflu_pd(rows: list[list[int]]) -> bool:
    """Whether the symmetric integer matrix is positive definite (Sylvester: every leading principal minor > 0; FLINT's
    fraction-free LU, when it makes no row exchange, has those minors on ``U``'s diagonal)."""
    return _fflu_sign(rows)[0]


def _fflu_sign(rows: list[list[int]]) -> tuple[bool, bool]:
    """``(pd, not_psd)`` of a symmetric integer matrix from FLINT's fraction-free LU: with no row exchange ``U``'s
    diagonal holds the leading principal minors - all ``> 0``: positive definite (Sylvester); one ``< 0``: not
    positive semidefinite (a principal minor of a PSD matrix is ``>= 0``).  ``(False, False)``: undecided (a row
    exchange, or a zero minor)."""
    from flint import fmpz_mat

    Pm, _, _, U = fmpz_mat(rows).fflu()
    if not Pm.is_one():
        return False, False
    dg = [U[k, k] for k in range(len(rows))]
    for x in dg:  # past a zero pivot the diagonal need not hold leading minors: only the signs before it count
        if x < 0:
            return False, True
        if x == 0:
            return False, False
    return True, False


def _psd_shifted(W: list[list[int]], s: int, shift: Fraction, room: float = 0.0, exact: bool = True) -> bool:
    """``W / (2 s) + shift I >= 0`` exactly.  With ``room > 0`` (a float estimate of that matrix's smallest
    eigenvalue) first on a coarse integer grid: ``R = floor((W/(2s) + shift I) 2^t)`` differs from the matrix times
    ``2^t`` by ``E`` with entries in ``[0, 1)``, ``||E||_2 <= n``, so ``R - n I`` positive definite proves it
    (``2^t >= 8 n / room``: a few dozen bits instead of the hundreds of the exact entries).  Else, or when that
    fails, on the exact integers (FLINT's fraction-free LU, then the kernel's ``L D L^T`` for the semidefinite case)."""
    from flint import fmpz

    n = len(W)
    if n == 0:
        return True
    num, den = shift.numerator, shift.denominator
    if room > 0 and math.isfinite(room):
        t = max(0, math.ceil(math.log2(8 * n / room)))
        q = 2 * s * den
        rows = [[((W[i][j] * den + (2 * s * num if i == j else 0)) << t) // q - (n if i == j else 0) for j in range(n)]
                for i in range(n)]
        if _fflu_pd(rows):
            return True
        if not exact:  # the coarse test failed where the float estimate promised room: no exact test (a caller's
            return False  # larger shift follows)
    # (W + 2 s shift I) * den = W den + 2 s num I
    rows = [[W[i][j] * den + (2 * s * num if i == j else 0) for j in range(n)] for i in range(n)]
    pd, not_psd = _fflu_sign(rows)
    if pd or not_psd:
        return pd
    # semidefinite, or not PSD: the kernel's L D L^T decides (zero pivots with zero rows allowed)
    return bool(_klinalg.eliminate([[fmpz(x) for x in r] for r in rows]))


def _bound(d: _Data, lam: list[Fraction] | _QV) -> Fraction:
    """``b(lambda) = c_0 + sum_i lambda_i c_i``, exactly."""
    if isinstance(lam, _QV):
        acc = 0
        num = lam.num
        for i, c in d.consts_q:
            if num[i]:
                acc += int(num[i]) * c.numerator * (d.consts_den // c.denominator)
        return d.obj_const + Fraction(acc, lam.den * d.consts_den)
    out = d.obj_const
    for i, c in d.consts_q:
        if lam[i]:
            out += lam[i] * c
    return out


def _dyadic_up(x: float) -> Fraction:
    """A power of two ``>= x > 0``."""
    e = math.frexp(x)[1]
    return Fraction(1 << e) if e >= 0 else Fraction(1, 1 << -e)


#: :func:`repair`'s ``fine`` shifts start at ``2^-FINE_BITS`` of the float eigenvalues' error bound
FINE_BITS = 24


def _fine_shifts(lmin: float, fl: float) -> list[Fraction]:
    """The shifts :func:`repair` tries with ``fine`` (``-fl < lmin <= fl``): ``0`` when ``lmin > 0``, then dyadics
    from the one above ``max(2 |lmin|, 2^-FINE_BITS fl)`` by factors of 16, below the dyadic above ``fl``."""
    out: list[Fraction] = [Fraction(0)] if lmin > 0 else []
    top = _dyadic_up(fl)
    e = _dyadic_up(max(2.0 * abs(lmin), fl * 2.0 ** -FINE_BITS))
    while e < top:
        out.append(e)
        e *= 16
    return out


def repair(sol: SDPSolution, *, polish: bool = False, margin: float = 0.0, bits: int = GRID_BITS,
           data: _Data | None = None, fine: bool = False) -> Repair | None:
    """Exact multipliers from the float solve ``sol`` (module doc, steps 1-4).  ``margin`` (interior ends): prove
    ``S - margin' I >= 0`` with the largest dyadic ``margin' <= margin`` that passes (returned as ``eps = -margin'``),
    else ``S + eps I >= 0`` with the smallest dyadic ``eps >= 0`` that passes (a few tries).  ``None`` when the
    solution carries no data, (i) cannot be restored, or no shift passes.  ``data``: the :class:`_Data` of ``sol``'s
    data when the caller has it (used only when built from the very same arrays).

    ``fine`` (no ``margin``): when the float ``lambda_min`` lies within ``fl`` (the float eigenvalues' error bound) of
    0, shifts below ``fl`` are tried too (:func:`_fine_shifts`: ``eps = 0`` when it is positive, then dyadics from
    just above ``2 |lambda_min|`` by factors of 16), each proved by the coarse exact test of :func:`_psd_shifted`
    (its rounding bounded by Gershgorin, whatever the float estimate: the estimate only picks the test's precision),
    before the shifts above ``fl``.  For data whose rows are each in their own unit
    (:func:`fairtheory.worstcase.checked_solve._repaired_in_sizes`): there the rounding grid, and so what these tests
    decide, is the same at every power-of-two change of units (GD ``f(x_60) - f*`` on ``SmoothStronglyConvex(L,
    L/10)``, a rank-one worst case whose slack's smallest eigenvalue is ``2^-52`` of its largest entries: certified at
    every scale)."""
    if sol.rows is None or sol.z is None or sol.objective_row is None:
        return None
    z = np.asarray(sol.z, dtype=np.float64)
    if z.shape != (sol.rows.shape[0],) or not np.all(np.isfinite(z)):
        return None
    d = _data(sol, data)
    lam_f = z.copy()
    lam_f[d.n_eq:] = np.maximum(lam_f[d.n_eq:], 0.0)
    used = False
    res = math.nan
    if polish:
        lam_f, used, res = _polish(d, sol, lam_f)
    l_int, K = _dyadic_grid(lam_f, d.n_eq, bits)
    lam = _restore(d, l_int, K)
    if lam is None:
        return None
    W, s = _exact_slack(d, lam, l_int, K)
    Sf = np.array(W, dtype=np.float64) / (2.0 * s) if d.dim else np.zeros((0, 0))
    if not np.all(np.isfinite(Sf)):
        return None
    w = np.linalg.eigvalsh(Sf) if d.dim else np.zeros(1)
    lmin = float(w[0])
    size = max(1.0, float(np.abs(Sf).max(initial=0.0)))
    fl = 4 * (d.dim + 1) * 2.0 ** -52 * size  # float eigenvalue error scale
    bound = _bound(d, lam)
    meta = {"polish_residual": res, "K": K, "P": d.P, "lmin": lmin}
    if margin > 0:
        m = min(margin, lmin - fl)
        while m > 0:
            mq = _dyadic_up(m) / 2
            if _psd_shifted(W, s, -mq, room=lmin - float(mq) - fl):
                return Repair(lam, bound, -mq, lmin, used, meta)
            m = float(mq) / 2
            if m < 1e-6 * margin:
                break
        return None
    if lmin > fl and _psd_shifted(W, s, Fraction(0), room=lmin - fl):
        return Repair(lam, bound, Fraction(0), lmin, used, meta)
    if fine and -fl < lmin <= fl:
        # the float lambda_min within its error bound of 0 (a rank-one worst case whose slack's small eigenvalue is
        # 2^-52 of its largest entries or less: GD f(x_60) - f* on SmoothStronglyConvex(1, 0.1)): eps = 0 when it is
        # positive, then dyadic shifts from just above 2 |lambda_min| up to fl by factors of 16 - each by the coarse
        # exact test (its rounding covered by Gershgorin, whatever the float estimate); the interior end's term
        # eps (b' - b)/m scales with eps (at R^2 = 1e6 2.4e-6 above the value with eps just above fl)
        for e in _fine_shifts(lmin, fl):
            room = float(e) + lmin
            if _psd_shifted(W, s, e, room=room if room > 0 else float(e), exact=False):
                return Repair(lam, bound, e, lmin, used, {**meta, "fine_shift": float(e)})
    eps = _dyadic_up(max(-lmin, 0.0) + fl)
    for k in range(6):
        if _psd_shifted(W, s, eps, room=float(eps) + lmin - fl, exact=k == 5):
            return Repair(lam, bound, eps, lmin, used, meta)
        eps *= 4
    return None


# --------------------------------------------------------------------------------------------- zero shift
#: the zero-shift repair holds an inequality multiplier at 0 when the float one is below this times the largest
ZERO_FREE_RTOL = 1e-7


def _exact_kernel(d: _Data, lam: list[Fraction] | _QV, sq: tuple[list[int], int] | None = None) -> list[list[int]]:
    r"""An integer basis of the kernel of ``S(lambda)`` for exact multipliers ``lambda`` with (i) (FLINT's exact null
    space).  At rounded multipliers (not exactly at an optimum) this is, generically, the kernel common to every
    ``S(lambda')`` with (i) on the same support: the directions every dual certificate must annihilate (a PEP's
    invariance, e.g. a common translation of the points of an operator PEP, or a direction in which its Gram matrix is
    unbounded, e.g. composite problems).  The caller checks ``S V = 0`` exactly for its final multipliers, so an
    accidental kernel costs a failed check, never a wrong bound.  ``sq``: :func:`_slack_exact` of ``lam`` when the
    caller has it.  No exact null space is computed when every float eigenvalue of ``S`` (each entry correctly rounded)
    lies farther from 0 than 64 times their error bound: the kernel is ``{0}``."""
    from flint import fmpz_mat

    s, q = sq if sq is not None else _slack_exact(d, lam)
    Wm = _twice_slack(d, s)
    q2 = 2 * q
    Sf = np.array([[x / q2 for x in row] for row in Wm])  # int / int: correctly rounded
    if np.all(np.isfinite(Sf)):
        fl = 4 * (d.dim + 1) * 2.0 ** -52 * max(1.0, float(np.abs(Sf).max(initial=0.0)))
        if float(np.abs(np.linalg.eigvalsh(Sf)).min(initial=math.inf)) > 64 * fl:
            return []
    N, nullity = fmpz_mat(Wm).nullspace()
    out = []
    for c in range(int(nullity)):
        col = [int(N[r, c]) for r in range(d.dim)]
        g = 0
        for x in col:
            g = math.gcd(g, x)
        out.append([x // g for x in col] if g > 1 else col)
    return out


def _slack_exact(d: _Data, lam: list[Fraction] | _QV) -> tuple[list[int], int]:
    """``(s, q)``: ``s_j = q (sum_i lambda_i R_ij - c_j)`` exactly for every natural column ``j`` (Gram and
    function values), ``q = 2^P D`` with ``D`` a common denominator of ``lambda``."""
    li, D = lam if isinstance(lam, _QV) else _qv_of(lam)
    R = d.R
    ncol = R.shape[1]
    ptr = R.indptr
    s = [-int(c) * D for c in d.cint[:ncol].tolist()]
    if R.data.size:
        prod = li[R.indices] * d.Rint  # exact integers (object arrays): sum_i l_i R_ij per column j below
        nz = np.flatnonzero(ptr[1:] > ptr[:-1])
        sums = np.add.reduceat(prod, ptr[nz])
        for j, v in zip(nz.tolist(), sums.tolist(), strict=True):
            s[j] += v
    return s, (1 << d.P) * D


def _twice_slack(d: _Data, s: list[int]) -> list[list[int]]:
    """The integer symmetric matrix ``2 q S`` from :func:`_slack_exact`'s natural columns."""
    sv = np.empty(d.nG, dtype=object)
    sv[:] = s[: d.nG]
    sv[d.pos_a == d.pos_b] *= 2
    W = np.zeros((d.dim, d.dim), dtype=object)
    W[d.pos_a, d.pos_b] = sv
    W[d.pos_b, d.pos_a] = sv
    return W.tolist()


def _face_check(d: _Data, lam: list[Fraction] | _QV, V: list[list[int]], W: list[int]) -> tuple[bool, float]:
    """``(proved, lmin)``: every inequality multiplier ``>= 0``, (i) exactly, ``S V = 0`` exactly and ``S`` restricted
    to the coordinates ``W`` (a complement of ``V``: ``V`` invertible on the other coordinates) PSD exactly - so
    ``[V, e_W]^T S [V, e_W] = diag(0, S_WW) >= 0`` and ``S >= 0``.  ``lmin``: the float smallest eigenvalue of
    ``S_WW``."""
    if isinstance(lam, _QV):
        if lam.den <= 0 or any(x < 0 for x in lam.num[d.n_eq:].tolist()):
            return False, math.nan
    elif any(x < 0 for x in lam[d.n_eq:]):
        return False, math.nan
    s, q = _slack_exact(d, lam)
    if any(s[d.nG:]):
        return False, math.nan
    Wm = _twice_slack(d, s)
    for v in V:
        for a in range(d.dim):
            if sum(Wm[a][b] * v[b] for b in range(d.dim) if v[b]) != 0:
                return False, math.nan
    sub = [[Wm[a][b] for b in W] for a in W]
    if not sub:
        return True, 0.0
    q2 = 2 * q
    Sf = np.array([[x / q2 for x in row] for row in sub])  # int / int: correctly rounded
    lmin = float(np.linalg.eigvalsh(Sf)[0])
    fl = 4 * (len(W) + 1) * 2.0 ** -52 * max(1.0, float(np.abs(Sf).max(initial=0.0)))
    if lmin < -fl:
        return False, lmin
    return _psd_shifted(sub, q, Fraction(0), room=lmin - fl), lmin


def _complement(V: list[list[int]], dim: int) -> list[int] | None:
    """Coordinates ``W`` such that ``V`` is invertible on the others (exact rank check), chosen by a pivoted QR."""
    import scipy.linalg
    from flint import fmpz_mat

    r = len(V)
    if r == 0:
        return list(range(dim))
    Vf = np.array(V, dtype=np.float64)
    Vf /= np.max(np.abs(Vf), axis=1, keepdims=True)
    _, _, piv = scipy.linalg.qr(Vf, mode="economic", pivoting=True)
    p = sorted(piv[:r].tolist())
    if fmpz_mat([[V[k][i] for i in p] for k in range(r)]).det() == 0:
        return None
    return [i for i in range(dim) if i not in set(p)]


#: rows x dim from which :func:`zero_shift` limits BLAS to one thread (below, the limit's own set-up costs more)
ONE_THREAD_WORK = 3000


def zero_shift(sol: SDPSolution, data: _Data | None = None) -> Repair | None:
    r"""Exact multipliers with ``S(lambda) >= 0`` exactly, ``eps = 0``: a bound that needs no trace bound (the PEPs
    whose Gram matrix is unbounded - composite and operator problems - have none; Peyrl & Parrilo 2008, rounding on
    the face of the dual that every certificate lies on):

    1. the float multipliers above :data:`ZERO_FREE_RTOL` of the largest, on the grid of :func:`_dyadic_grid`, the
       others 0; (i) restored exactly on them (:func:`_restore`);
    2. ``K``: the exact kernel of that ``S`` (:func:`_exact_kernel`) - generically the directions every certificate
       with (i) annihilates (``S K = 0`` for all of them), e.g. the common translation of an operator PEP's points or
       the opposite shifts of the two gradients of a composite PEP; ``W``: coordinates complementing ``K`` (``K``
       invertible on the others);
    3. ``S >= 0`` exactly iff ``S_WW >= 0`` (``[K, e_W]`` is invertible and ``[K, e_W]^T S [K, e_W] =
       diag(0, S_WW)``, :func:`_face_check`): tried as it is (the rounding may leave it PSD), else ``push``: the
       multipliers move along ``Delta`` (free ones only, (i) homogeneous exactly, ``Q^T S_lin(Delta)_WW Q = I`` on the
       float near-null space ``Q`` of ``S_WW`` that multipliers can curve, :func:`_pushable`) by the smallest dyadic
       ``t`` that makes ``S_WW`` PSD exactly; the bound grows by ``t sum_i Delta_i c_i``, about the float slack's
       negative eigenvalue (``1e-9`` from a solver's multipliers, ``1e-15`` from a KKT point's).

    When the free multipliers cannot curve the near-null space (a rank-one slack with more near-null directions than
    free multipliers: OGM, Halpern) or the push fails: the face push (:func:`_face_push`, every row may curve it).

    ``None`` when no such multipliers are found.  ``meta["zero_shift"]``: ``"kernel"`` (no push), ``"push"``
    (``meta["t"]``), ``"face"`` or ``"face push"`` (``meta["face_rank"]``, ``meta["face_point"]``: the face's primal
    point ``(G, F, objective)`` when the projection onto it is float-feasible).  ``data``: as in :func:`repair`."""
    if sol.rows is None or sol.z is None or sol.objective_row is None or sol.gram is None:
        return None
    z = np.asarray(sol.z, dtype=np.float64)
    if z.shape != (sol.rows.shape[0],) or not np.all(np.isfinite(z)):
        return None
    d = _data(sol, data)
    if d.dim == 0:
        return None
    ctx = _one_blas_thread() if d.m * d.dim >= ONE_THREAD_WORK else contextlib.nullcontext()
    with ctx:  # mid-size dense factorizations: a multi-threaded BLAS next to a busy core is ~10x slower
        rt = _zero_route(d, z)
        if rt is None:
            return None
        free, lam_f0, l_int, K, Qf, face = rt
        if face:
            return _face_push(d, sol, lam_f0)  # the low-rank face: every row may curve the near-null space
        lam_r = _restore(d, l_int, K)  # (i) exactly, on the free multipliers
        if lam_r is None:
            return None
        sq = _slack_exact(d, lam_r)
        K0 = _exact_kernel(d, lam_r, sq)
        meta: dict[str, Any] = {"common_kernel": len(K0), "free": len(free)}
        got = _push(d, lam_r, free, K0, meta, Qf, sq)
        return got if got is not None else _face_push(d, sol, lam_f0)


def _zero_route(d: _Data, z: np.ndarray) -> tuple[list[int], np.ndarray, np.ndarray, int, np.ndarray, bool] | None:
    """The float part of :func:`zero_shift` at the float multipliers ``z`` (kept in ``d``'s cache per ``z``):
    ``(free, lam_f0, l_int, K, Qf, face)`` - the free multipliers (step 1), the clipped multipliers, the free ones on
    the dyadic grid ``l_int / 2^K``, the basis ``Qf`` of (i) on the free ones (:func:`_i_basis`), and whether the
    slack has more near-null directions to curve than free directions to curve them with (``face``: the face push,
    no push); ``None`` when every multiplier is 0."""
    key = z.tobytes()
    cache = d._cache.setdefault("route", {})
    if key in cache:
        return cache[key]
    lam_f = z.copy()
    lam_f[d.n_eq:] = np.maximum(lam_f[d.n_eq:], 0.0)
    top = float(np.max(np.abs(lam_f))) if lam_f.size else 0.0
    if not top > 0:
        cache[key] = None
        return None
    keep = lam_f > ZERO_FREE_RTOL * top
    keep[: d.n_eq] = True
    free = np.flatnonzero(keep).tolist()
    lam_f0 = lam_f.copy()
    lam_f[~keep] = 0.0
    l_int, K = _dyadic_grid(lam_f, d.n_eq, GRID_BITS)
    Sfl = _float_slack(d, lam_f)
    w, Qe = np.linalg.eigh(Sfl)
    Qf = _i_basis(d, free)
    npush = _pushable(d, free, list(range(d.dim)), Qe[:, w < 1e-6 * max(float(np.abs(w).max()), 1e-300)], Qf)[0]
    k = npush.shape[1]
    out = (free, lam_f0, l_int, K, Qf, k * (k + 1) // 2 > len(free) - Qf.shape[1])
    cache[key] = out
    return out


def _push(d: _Data, lam0: list[Fraction], free: list[int], K0: list[list[int]], meta: dict[str, Any],
          Qf: np.ndarray, sq: tuple[list[int], int] | None = None) -> Repair | None:
    """The ``push`` stage of :func:`zero_shift` (its doc); ``sq``: :func:`_slack_exact` of ``lam0`` when known."""
    Wc = _complement(K0, d.dim)
    if Wc is None or not Wc:
        return None
    lam = lam0
    s, q = sq if sq is not None else _slack_exact(d, lam)
    if any(s[d.nG:]):
        return None
    Wm = _twice_slack(d, s)
    Sf = np.array([[Wm[a][b] / (2 * q) for b in Wc] for a in Wc])
    w, Qe = np.linalg.eigh(Sf)
    scale = max(float(np.abs(w).max(initial=0.0)), 1e-300)
    fl = 4 * (len(Wc) + 1) * 2.0 ** -52 * max(1.0, float(np.abs(Sf).max(initial=0.0)))
    if w[0] > -fl:  # PSD to the float eigenvalues' accuracy: the exact test may pass with no push at all
        ok, lmin = _face_check(d, lam, K0, Wc)
        if ok:
            return Repair(lam, _bound(d, lam), Fraction(0), lmin, False, {**meta, "zero_shift": "kernel"})
    Qp, Y = _pushable(d, free, Wc, Qe[:, w < 1e-6 * scale], Qf)
    if Y.shape[1]:
        # directions no multiplier curves (to the data's rounding): their exact curvature must be >= 0 first
        tilted = _tilt(d, lam, free, Wc, Y, Qp)
        if tilted is not None and tilted is not lam:
            lam, meta = tilted, {**meta, "tilt": True}
            s, q = _slack_exact(d, lam)
            Wm = _twice_slack(d, s)
            Sf = np.array([[Wm[a][b] / (2 * q) for b in Wc] for a in Wc])
            if float(np.linalg.eigvalsh(Sf)[0]) > -fl:
                ok, lmin = _face_check(d, lam, K0, Wc)
                if ok:
                    return Repair(lam, _bound(d, lam), Fraction(0), lmin, False, {**meta, "zero_shift": "kernel"})
    if "tilt" in meta:  # the slack moved: its near-null directions again
        w2, Qe2 = np.linalg.eigh(Sf)
        Qp = _pushable(d, free, Wc, Qe2[:, w2 < 1e-6 * scale], Qf)[0]
    return _push_along(d, lam, free, K0, Wc, Qp, Sf, fl, meta, Qf, strict=not Y.shape[1]) if Qp.shape[1] else None


#: the largest denominator of an invariance direction's entries (:func:`_tilt`)
TILT_DENOMINATOR = 1024


def _tilt(d: _Data, lam: list[Fraction], free: list[int], Wc: list[int], Y: np.ndarray, Qp: np.ndarray
          ) -> list[Fraction] | None:
    r"""Multipliers with the exact curvature ``alpha = y^T S(lambda) y > 0`` along a direction ``y`` that no multiplier
    curves beyond the data's rounding: an invariance of the PEP with exact coefficients (the opposite shifts of
    two gradients of a composite PEP) broken at ``1e-17`` by coefficients rounded to floats, so that ``alpha(lambda) =
    sum_i lambda_i q_i - q_0`` with ``q_i = y^T A_i y`` of that size and either sign.  ``y``: the float direction
    rounded to small denominators (:data:`TILT_DENOMINATOR`), accepted when every exact ``q_i`` is at the rounding
    level; the multipliers move by ``s Delta`` with ``Delta`` the float projection of ``q`` onto the directions that
    keep (i) (restored exactly), the bound (``sum_i Delta_i c_i = 0``) and ``S_lin(Delta) Q_p = 0`` (``Q_p``: the
    near-null directions that are pushed next), and ``s`` the dyadic that makes ``alpha`` positive.  ``lam`` itself
    when ``alpha >= 0`` already; ``None`` when no such move is found.  Nothing here is trusted: the exact test of
    :func:`_face_check` decides."""
    import scipy.linalg

    if Y.shape[1] != 1:
        return None
    y = np.zeros(d.dim)
    y[Wc] = Y[:, 0]
    y = y / y[int(np.argmax(np.abs(y)))]
    ye = [Fraction(float(x)).limit_denominator(TILT_DENOMINATOR) for x in y]
    if max(abs(float(a) - b) for a, b in zip(ye, y, strict=True)) > 1e-6:
        return None
    den = 1
    for x in ye:
        den = den * x.denominator // math.gcd(den, x.denominator)
    yi = [int(x * den) for x in ye]
    e = [yi[int(d.pos_a[j])] * yi[int(d.pos_b[j])] for j in range(d.nG)]  # den^2 y^T S y = sum_j e_j s_j
    sl, _ = _slack_exact(d, lam)
    if sum(e[j] * sl[j] for j in range(d.nG) if e[j]) > 0:
        return lam  # alpha > 0 already
    # q_i 2^P den^2 = sum_j e_j R_ij 2^P, exactly; q_0 likewise
    Rc = d.R.tocsc()
    Rint = d.Rint.tolist()
    qi = [0] * d.m
    for j in range(d.nG):
        if e[j]:
            for t in range(Rc.indptr[j], Rc.indptr[j + 1]):
                qi[int(Rc.indices[t])] += e[j] * Rint[t]
    q0i = sum(e[j] * int(d.cint[j]) for j in range(d.nG) if e[j])
    unit = Fraction(1, (1 << d.P) * den * den)
    qs = [unit * x for x in qi]
    q0 = unit * q0i
    size = max(1.0, float(np.abs(d.R.data).max(initial=0.0)))
    if max(abs(float(x)) for x in qs + [q0]) > 1e-12 * size * max(1.0, float(np.abs(y).sum()) ** 2):
        return None  # not an invariance direction: its curvature is not at the rounding level
    alpha = sum((lam[i] * qs[i] for i in range(d.m) if lam[i] and qs[i]), Fraction(0)) - q0
    # the constraints on Delta (free multipliers): (i), the bound, S_lin(Delta) Q_p = 0
    rows = [d.RF_rows(free).T, np.asarray(d.consts, dtype=np.float64)[free][None, :]]
    if Qp.shape[1]:
        h = np.where(d.pos_a == d.pos_b, 1.0, 0.5)
        Pw = np.zeros((d.dim, Qp.shape[1]))
        Pw[Wc, :] = Qp
        RG = d.RG_rows(free)  # free x nG
        for c in range(Pw.shape[1]):
            u = Pw[:, c]
            # (S_lin(Delta) u)_a = sum_j s_j h_j (u_b at row a, u_a at row b)
            Mj = np.zeros((d.dim, d.nG))
            Mj[d.pos_a, np.arange(d.nG)] += h * u[d.pos_b]
            off = d.pos_a != d.pos_b
            Mj[d.pos_b[off], np.arange(d.nG)[off]] += (h * u[d.pos_a])[off]
            rows.append(Mj @ RG.T)
    Cm = np.vstack(rows)
    qf = np.array([float(qs[i]) for i in free])
    if not np.any(qf):
        return None
    N = scipy.linalg.null_space(Cm / np.maximum(np.abs(Cm).max(axis=1, keepdims=True), 1e-300))
    if N.shape[1] == 0:
        return None
    Dl = N @ (N.T @ (qf / np.abs(qf).max()))
    Dfull = np.zeros(d.m)
    Dfull[free] = Dl / max(float(np.abs(Dl).max()), 1e-300)
    Dq = _homogeneous(d, free, Dfull, lam)
    if Dq is None:
        return None
    gain = sum((Dq[i] * qs[i] for i in range(d.m) if Dq[i]), Fraction(0))
    if gain <= 0:
        return None
    sft = Fraction(float(-alpha / gain) * 1.25)  # alpha(lam + sft Delta) = -alpha / 4 > 0
    out = [lam[i] + sft * Dq[i] for i in range(d.m)]
    if any(out[i] < 0 for i in range(d.n_eq, d.m)):
        return None
    return out


def _float_cap(d: _Data, lam_f: np.ndarray, Df: np.ndarray) -> float:
    """The largest step ``t`` with ``lambda + t Delta >= 0`` on the inequalities, in floats (a routing bound only: the
    exact check refuses a negative multiplier whatever this says); ``inf`` when no inequality multiplier decreases."""
    neg = Df[d.n_eq:] < 0
    if not neg.any():
        return math.inf
    return float(np.min(lam_f[d.n_eq:][neg] / -Df[d.n_eq:][neg])) * (1 + 1e-12)


def _homogeneous(d: _Data, free: list[int], Dfull: np.ndarray, lam: list[Fraction]) -> list[Fraction] | None:
    """``Dfull`` on the dyadic grid with (i) homogeneous exactly (``sum_i Delta_i a_i = 0``), corrected on the free
    multipliers, the largest of ``lam + Delta`` first (:func:`_solve_i`); ``None`` when that correction does not
    exist."""
    got = _homogeneous_qv(d, free, Dfull, np.array([float(x) for x in lam]))
    return None if got is None else _qv_fracs(got)


def _homogeneous_qv(d: _Data, free: list[int], Dfull: np.ndarray, lam_f: np.ndarray) -> _QV | None:
    """:func:`_homogeneous` as a :class:`_QV` (``lam_f``: the multipliers in floats, for the sizes only)."""
    dint, KD = _dyadic_grid(Dfull, d.m, GRID_BITS)  # signs kept (treated as equalities)
    nfc = d.nfc
    if nfc == 0:
        return _QV(dint, 1 << KD)
    sn = d.slack_nat(dint, KD, d.R.shape[1])  # sum_i dint_i R_ij - c_j 2^KD, at the scale 2^(P + KD)
    res = [Fraction(-(int(sn[d.nG + k]) + (int(d.cint[d.nG + k]) << KD)), 1 << (d.P + KD)) for k in range(nfc)]
    if not any(res):
        return _QV(dint, 1 << KD)
    plus = lam_f + np.ldexp(np.array([float(x) for x in dint]), -KD)  # sizes only
    mag = np.abs(plus)
    corr = _solve_i(d, res, sorted(free), mag, plus.tolist())
    if corr is None:
        return None
    D = math.lcm(1 << KD, *(v.denominator for v in corr.values()))
    num = dint * (D >> KD)
    for i, v in corr.items():
        num[i] += v.numerator * (D // v.denominator)
    return _QV(num, D)


def _i_basis(d: _Data, free: list[int]) -> np.ndarray:
    """An orthonormal basis (``len(free) x rank``) of the span of the function-value rows ``a_k`` restricted to the free
    multipliers (a pivoted QR): ``Delta - Qf Qf^T Delta`` keeps (i) homogeneous."""
    import scipy.linalg

    AFt = d.RF_rows(free)
    if AFt.shape[1] == 0:
        return np.zeros((len(free), 0))
    Qf, Rf, _ = scipy.linalg.qr(AFt, mode="economic", pivoting=True)
    dg = np.abs(np.diag(Rf))
    rk = int(np.sum(dg > 1e-12 * dg[0])) if dg.size and dg[0] > 0 else 0
    return Qf[:, :rk]


def _pushable(d: _Data, free: list[int], Wc: list[int], Q: np.ndarray, Qf: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """``(P, Y)``: ``span(Q)`` (coordinates ``Wc``) split into the directions that a change ``Delta`` of the free
    multipliers keeping (i) can curve (``P``) and those it cannot (``Y``: ``S_lin(Delta) y ~ 0`` for every such
    ``Delta`` - a direction every certificate annihilates up to the data's rounding, e.g. the opposite shifts of the two
    gradients of a composite PEP built with rounded coefficients; :func:`_tilt` handles those).  ``S_lin(.) y`` as a
    map of ``Delta`` vanishes on ``{Delta : AF^T Delta = 0}`` iff its rows lie in the row space of ``AF^T``: ``T_y (I -
    Pi) = 0`` with ``Pi`` the projector onto that row space (a pivoted QR), ``T_y`` linear in ``y`` (an SVD over
    ``Q``'s few columns)."""
    nq = Q.shape[1]
    if nq == 0:
        return Q, Q
    Pw = np.zeros((d.dim, nq))
    Pw[Wc, :] = Q
    # T[l, a, i] = (A_i q_l)_a for the free rows i (each Gram entry (a, b) of row i adds to (a, i) and (b, i))
    r0, c0, v0 = d.RG_coo
    pos = np.full(d.m, -1, dtype=np.int64)
    pos[np.asarray(free, dtype=np.int64)] = np.arange(len(free))
    keep = pos[r0] >= 0
    rr, cc, vv = pos[r0[keep]], c0[keep], v0[keep]
    a, b = d.pos_a[cc], d.pos_b[cc]
    h = np.where(a == b, 1.0, 0.5) * vv
    off = a != b
    T = np.zeros((nq, d.dim, len(free)))
    np.add.at(T, (slice(None), a, rr), (h[:, None] * Pw[b, :]).T)
    np.add.at(T, (slice(None), b[off], rr[off]), (h[off, None] * Pw[a[off], :]).T)
    T = T.reshape(nq * d.dim, len(free))
    if Qf.shape[1]:
        T = T - (T @ Qf) @ Qf.T
    Z = T.reshape(nq, d.dim * len(free)).T
    with _one_blas_thread():  # a 946 x 21 QR (OGM N = 20) wakes OpenBLAS's workers: ~48 ms of their CPU
        _, sv, Vt = np.linalg.svd(np.linalg.qr(Z, mode="r"), full_matrices=False)
    keep = sv > 1e-10 * max(float(sv[0]) if sv.size else 0.0, 1e-300)
    return Q @ Vt[keep].T, Q @ Vt[~keep].T


def _push_along(d: _Data, lam: list[Fraction], free: list[int], K0: list[list[int]], Wc: list[int], Q: np.ndarray,
                Sf: np.ndarray, fl: float, meta: dict[str, Any], Qf: np.ndarray, strict: bool = True
                ) -> Repair | None:
    """``lam + t Delta`` with ``Q^T S_lin(Delta)_WW Q = I`` (least norm, (i) homogeneous exactly) and the smallest
    dyadic ``t`` that makes ``S_WW`` PSD exactly (:func:`zero_shift`).  ``strict``: every near-null direction is
    pushed, so ``t`` is taken with a float margin (``lambda_min > 2 fl``, the exact test then runs on a coarse grid);
    else (directions no multiplier curves, their curvature below float resolution) at the float noise level."""
    nq = Q.shape[1]
    if nq * (nq + 1) // 2 > len(free) - d.nfc:
        return None  # more conditions than free directions: no such Delta in general
    # the float map Delta -> Q^T S_lin(Delta)_WW Q (upper triangle), on the free multipliers
    B = np.zeros((nq * (nq + 1) // 2, d.nG))
    Pw = np.zeros((d.dim, nq))
    Pw[Wc, :] = Q
    h = np.where(d.pos_a == d.pos_b, 1.0, 0.5)
    k = 0
    tgt = []
    for a in range(nq):
        for b in range(a, nq):
            qa, qb = Pw[:, a], Pw[:, b]
            # sum_{x,y} qa_x qb_y S_xy, S_xy = h_j s_j for both orders of an off-diagonal pair
            B[k] = h * (qa[d.pos_a] * qb[d.pos_b] + np.where(d.pos_a != d.pos_b, qa[d.pos_b] * qb[d.pos_a], 0.0))
            tgt.append(1.0 if a == b else 0.0)
            k += 1
    A = np.asarray(d.RG_sub(free) @ B.T).T  # rows: the conditions, columns: the free multipliers
    if Qf.shape[1]:
        A = A - (A @ Qf) @ Qf.T  # Delta = z - Qf Qf^T z keeps (i) homogeneous for every z
    rhs = np.array(tgt)
    dl, *_ = np.linalg.lstsq(A, rhs, rcond=None)
    if Qf.shape[1]:
        dl = dl - Qf @ (Qf.T @ dl)
    if np.linalg.norm(A @ dl - rhs) > 1e-6 * np.linalg.norm(rhs):
        return None
    Dfull = np.zeros(d.m)
    Dfull[free] = dl
    lq = _qv_of(lam)
    lam_f = _qv_floats(lq)
    Dq = _homogeneous_qv(d, free, Dfull, lam_f)
    if Dq is None:
        return None
    # the step: the smallest dyadic t with the restricted slack PSD in floats (with room), then exactly
    Df = _qv_floats(Dq)
    SD = _float_slack(d, Df) + _float_slack(d, np.zeros(d.m)) * -1.0
    SD = SD[np.ix_(Wc, Wc)]
    t = _dyadic_up(max(4.0 * max(-float(np.linalg.eigvalsh(Sf)[0]), fl), 1e-300))
    cap = _float_cap(d, lam_f, Df)
    tries = 0
    for _ in range(40):
        if t > cap:
            return None
        # float-PSD to its accuracy (directions no multiplier curves stay at the rounding level: exact test)
        if float(np.linalg.eigvalsh(Sf + float(t) * SD)[0]) > (2 * fl if strict else -fl):
            lt = _qv_axpy(lq, t, Dq)
            ok, lmin = _face_check(d, lt, K0, Wc)  # exact: nonnegative inequality multipliers, (i), S >= 0
            if ok:
                return Repair(_qv_fracs(lt), _bound(d, lt), Fraction(0), lmin, False,
                              {**meta, "zero_shift": "push", "t": float(t)})
            tries += 1
            if tries >= 4:
                return None
        t *= 2
    return None


# --------------------------------------------------------------------------------------------- face push
#: primal active-set thresholds of :func:`_face_push` (rows within tau of 0 at the solver's point, relative to the
#: constants' scale), tried in this order
FACE_TAUS = (1e-6, 1e-5, 1e-7)
#: the face push runs only on data of at most this many rows times Gram entries (a size rule: GD distance at N = 60,
#: 3782 rows x 1953 entries, spent ~200 s in its factor's least squares and failed)
FACE_MAX_WORK = 2_000_000
#: Gauss-Newton iterations on the slack's factorization ``S(lambda) = V V^T`` (:func:`_slack_factor`)
FACE_ITERS = 12
#: alternating projections of :func:`_central_direction`
CENTRAL_ITERS = 100


def _row_residuals(d: _Data, sol: SDPSolution) -> np.ndarray | None:
    """``rows x - consts`` at the solver's point ``x = [G_ab (a <= b), F]`` (``<= 0`` on feasible points)."""
    if sol.gram is None or sol.F is None:
        return None
    G = np.asarray(sol.gram, dtype=np.float64)
    F = np.asarray(sol.F, dtype=np.float64)
    if G.shape != (d.dim, d.dim) or F.size != d.R.shape[1] - d.nG or not np.all(np.isfinite(G)):
        return None
    xg = G[d.pos_a, d.pos_b]
    out = d.R @ np.concatenate([xg, F]) - d.consts
    return out if np.all(np.isfinite(out)) else None


def _tri_map(d: _Data, Pw: np.ndarray) -> np.ndarray:
    r"""``E`` (``nG x k(k+1)/2``): ``Pw^T A Pw`` for the symmetric matrix ``A`` of a natural Gram vector ``g`` is
    ``g @ E`` in the weighted upper triangle (off-diagonal entries times ``sqrt 2``: Frobenius norms kept)."""
    k = Pw.shape[1]
    iu, ju = np.triu_indices(k)
    wt = np.where(iu == ju, 1.0, math.sqrt(2.0))
    pa, pb = Pw[d.pos_a], Pw[d.pos_b]  # nG x k
    h = np.where(d.pos_a == d.pos_b, 1.0, 0.5)[:, None]
    # entry (x, y) of A_j = h (e_a e_b^T + e_b e_a^T) (diagonal: e_a e_a^T): h (pa_x pb_y + pb_x pa_y)
    E = h * (pa[:, iu] * pb[:, ju] + pb[:, iu] * pa[:, ju])
    E[d.pos_a == d.pos_b] *= 0.5
    return E * wt


def _tri_mat(v: np.ndarray, k: int) -> np.ndarray:
    """The symmetric ``k x k`` matrix of a weighted upper triangle (:func:`_tri_map`)."""
    iu, ju = np.triu_indices(k)
    M = np.zeros((k, k))
    M[iu, ju] = np.where(iu == ju, v, v / math.sqrt(2.0))
    return M + np.triu(M, 1).T


def _slack_factor(d: _Data, lam0: np.ndarray, sup: np.ndarray, r: int) -> np.ndarray | None:
    r"""Multipliers on the rows ``sup`` (the others 0) with ``S(lambda) = V V^T`` (``V``: ``dim x r``) and (i), by
    Gauss-Newton on ``(lambda_sup, V)`` from the float multipliers and the top ``r`` eigenpairs of their slack: the
    dual face of a low-rank worst case (its slack of rank ``r``), where a solver's multipliers lie ``~sqrt(gap)``
    away along near-flat directions (OGM, ``N = 5``: ``1e-4``) while its slack is ``1e-8`` off.  ``None`` when the
    residual does not reach the rounding level (``1e-12`` relative)."""
    S = _float_slack(d, lam0)
    w, U = np.linalg.eigh(S)
    if r <= 0 or r >= d.dim or w[-r] <= 0:
        return None
    V = U[:, -r:] * np.sqrt(w[-r:])
    h = np.where(d.pos_a == d.pos_b, 1.0, 0.5)
    RG = (d.RG_rows(sup) * h).T  # nG x nsup: entries of S per multiplier
    AF = d.RF_rows(sup).T  # nfc x nsup
    cG = h * d.obj[:d.nG]
    cF = d.obj[d.nG:]
    x = lam0[sup].copy()
    pa, pb = d.pos_a, d.pos_b
    rows = np.arange(d.nG)
    scale = max(1.0, float(np.abs(cG).max(initial=0.0)), float(np.abs(x).max(initial=0.0)))
    for _ in range(FACE_ITERS):
        res = np.concatenate([RG @ x - cG - np.einsum("jl,jl->j", V[pa], V[pb]), AF @ x - cF])
        if float(np.abs(res).max(initial=0.0)) <= 1e-15 * scale:
            break
        JV = np.zeros((d.nG, d.dim, r))
        JV[rows, pa, :] -= V[pb, :]
        JV[rows, pb, :] -= V[pa, :]
        J = np.block([[RG, JV.reshape(d.nG, d.dim * r)], [AF, np.zeros((AF.shape[0], d.dim * r))]])
        step = np.linalg.lstsq(J, -res, rcond=None)[0]  # SVD (rank-deficient J: a rotation of V, a flat face)
        if not np.all(np.isfinite(step)):
            return None
        x = x + step[: len(sup)]
        V = V + step[len(sup):].reshape(d.dim, r)
    res = np.concatenate([RG @ x - cG - np.einsum("jl,jl->j", V[pa], V[pb]), AF @ x - cF])
    if not float(np.abs(res).max(initial=0.0)) <= 1e-12 * scale:
        return None
    out = np.zeros(d.m)
    out[sup] = x
    return out


def _central_direction(d: _Data, lam_f: np.ndarray, act: np.ndarray, Pw: np.ndarray) -> np.ndarray | None:
    r"""A direction ``D`` with ``Pw^T S_lin(D) Pw > 0`` (float), ``sum_i D_i a_i = 0`` (i), and ``D_i >= 0`` off the
    active rows ``act``: there ``D`` is the solver's multipliers (an interior-point method's are ``mu / slack_i > 0``
    on the central path), normalized; on the active rows it is found by alternating projections between the affine
    set of ``Pw^T S_lin(D) Pw`` (least squares, (i) kept) and the cone ``{M >= c I}``.  A Slater direction of the
    dual restricted to the near-null space ``Pw`` of the face's slack; ``None`` when the projections do not meet in
    :data:`CENTRAL_ITERS` steps."""
    import scipy.linalg

    k = Pw.shape[1]
    Din = np.where(act, 0.0, np.maximum(lam_f, 0.0))
    top = float(Din.max(initial=0.0))
    if not top > 0:
        return None
    Din /= top
    sup = np.flatnonzero(act)
    E = _tri_map(d, Pw)  # nG x ntri
    RG = d.RG_sub(None) if d.dense else d.RGc
    m_in = (RG.T @ Din) @ E
    A = np.asarray(d.RG_sub(sup) @ E).T  # ntri x nsup
    AF = d.RF_rows() if d.dense else d.RFc
    if AF.shape[1]:
        AFs = d.RF_rows(sup).T
        x0 = np.linalg.lstsq(AFs, -(AF.T @ Din), rcond=None)[0]
        if float(np.abs(AFs @ x0 + AF.T @ Din).max()) > 1e-9:
            return None
        N = scipy.linalg.null_space(AFs)
    else:
        x0 = np.zeros(sup.size)
        N = np.eye(sup.size)
    if N.shape[1] == 0:
        return None
    m0 = m_in + A @ x0
    B = A @ N
    Bp = np.linalg.pinv(B)
    Pi = B @ Bp  # the orthogonal projector onto the reachable slack blocks (the weighted triangle: Frobenius)
    iu, ju = np.triu_indices(k)
    wt = np.where(iu == ju, 1.0, math.sqrt(2.0))
    Mm = np.zeros((k, k))

    def mat(v: np.ndarray) -> np.ndarray:
        Mm[iu, ju] = v / wt
        Mm[ju, iu] = v / wt
        return Mm

    size = max(float(np.abs(np.linalg.eigvalsh(mat(m0))).max()), 1e-300)
    m, tgt = m0.copy(), m0.copy()
    best, since = -math.inf, 0
    for _ in range(CENTRAL_ITERS):
        ev, U = np.linalg.eigh(mat(m))
        if ev[0] > 1e-3 * size:
            D = Din.copy()
            D[sup] += x0 + N @ (Bp @ (tgt - m0))
            return D
        # stalled (no gain of 1e-4 of the size in 40 steps: the sets do not meet, or too slowly to matter)
        best, since = (ev[0], 0) if ev[0] > best + 1e-4 * size else (best, since + 1)
        if since >= 40:
            return None
        P = (U * np.maximum(ev, 1e-2 * size)) @ U.T  # onto {M >= c I}
        tgt = P[iu, ju] * wt
        m = m0 + Pi @ (tgt - m0)  # onto the affine set
    return None


#: projection rounds of :func:`_central_direction_free`
POCS_ITERS = 300


def _central_direction_free(d: _Data, lam_f: np.ndarray, act: np.ndarray, Pw: np.ndarray) -> np.ndarray | None:
    r""":func:`_central_direction` with the inactive rows free too (``D_i >= 0``): alternating projections in the
    product space of ``(D, M, f)`` between the subspace ``{M = Pw^T S_lin(D) Pw, f = sum_i D_i a_i}`` (the graph of
    a linear map: ``D = D_0 + A^T (I + A A^T)^{-1} (M_0 - A D_0)``, one Cholesky factor) and the convex set
    ``{D_i >= 0 off the active rows} x {M >= c I} x {f = 0}``, from the solver's multipliers off the active rows.
    A candidate (``M > 0``) is clipped to ``D_i >= 0``, (i) restored on the active rows by least squares, and kept
    when its slack block is still positive definite (float).  ``None`` when none is found in :data:`POCS_ITERS`."""
    import scipy.linalg

    k = Pw.shape[1]
    inact = ~act
    inact[: d.n_eq] = False
    Din = np.where(inact, np.maximum(lam_f, 0.0), 0.0)
    top = float(Din.max(initial=0.0))
    if not top > 0:
        return None
    Din /= top
    sup = np.flatnonzero(~inact)
    E = _tri_map(d, Pw)
    AG = np.asarray((d.RG_rows() if d.dense else d.RGc) @ E).T  # ntri x m
    AFt = d.RF_rows().T  # nfc x m
    A = np.vstack([AG, AFt])
    ntri = AG.shape[0]
    try:
        cho = scipy.linalg.cho_factor(np.eye(A.shape[0]) + A @ A.T, check_finite=False)
    except np.linalg.LinAlgError:
        return None
    iu, ju = np.triu_indices(k)
    wt = np.where(iu == ju, 1.0, math.sqrt(2.0))
    Mm = np.zeros((k, k))

    def mat(v: np.ndarray) -> np.ndarray:
        Mm[iu, ju] = v / wt
        Mm[ju, iu] = v / wt
        return Mm

    D0, X0 = Din, A @ Din
    size = max(float(np.abs(np.linalg.eigvalsh(mat(X0[:ntri]))).max()), 1e-300)
    AFs = AFt[:, sup]
    for _ in range(POCS_ITERS):
        D = D0 + A.T @ scipy.linalg.cho_solve(cho, X0 - A @ D0, check_finite=False)  # onto the graph
        X = A @ D
        ev, U = np.linalg.eigh(mat(X[:ntri]))
        D2 = np.where(inact, np.maximum(D, 0.0), D)
        if ev[0] > 0:
            C = D2.copy()
            if AFs.shape[0]:
                C[sup] -= np.linalg.lstsq(AFs, AFt @ C, rcond=None)[0]
            if float(np.linalg.eigvalsh(mat(AG @ C))[0]) > 1e-4 * size:
                return C
        P = (U * np.maximum(ev, 1e-2 * size)) @ U.T  # onto {M >= c I}, f = 0, D_i >= 0
        D0, X0 = D2, np.concatenate([P[iu, ju] * wt, np.zeros(AFt.shape[0])])
    return None


def _face_push(d: _Data, sol: SDPSolution, lam_f: np.ndarray) -> Repair | None:
    r"""Zero shift on a low-rank face (:func:`zero_shift` when the free multipliers cannot curve the slack's
    near-null space: OGM, Halpern - a rank-one slack and a Gram matrix of rank ``dim - 1``):

    1. the active rows (the solver's point within :data:`FACE_TAUS` of them) and the slack's rank ``r`` (its float
       eigenvalues above ``1e-6`` of the largest); multipliers on the active rows with ``S = V V^T`` and (i)
       (:func:`_slack_factor`), rounded, (i) restored exactly;
    2. ``K``, ``W`` as in :func:`zero_shift`; ``Q``: the near-null space of the exact ``S_WW``; ``D``: a direction with
       ``Q^T S_lin(D) Q > 0``, nonnegative off the active rows (:func:`_central_direction`), on the dyadic grid with
       (i) homogeneous exactly;
    3. ``lambda + t D`` with the smallest dyadic ``t`` that proves ``S_WW >= 0`` exactly (:func:`_face_check`): the
       slack's near-null block is at the rounding level (``1e-16``), so ``t`` is, and the bound grows by
       ``t sum_i D_i c_i``.

    Sound whatever the float steps did: the exact check of step 3 decides (a wrong face costs a refusal).  ``None``
    above :data:`FACE_MAX_WORK`."""
    if d.m * d.nG > FACE_MAX_WORK:
        return None
    rr = _row_residuals(d, sol)
    if rr is None:
        return None
    w = np.linalg.eigvalsh(_float_slack(d, lam_f))
    size = float(np.abs(w).max(initial=0.0))
    if not size > 0:
        return None
    r = int(np.sum(w > 1e-6 * size))
    rscale = max(1.0, float(np.abs(d.consts).max(initial=0.0)))
    tried: set[bytes] = set()
    for tau in FACE_TAUS:
        act = rr >= -tau * rscale
        act[: d.n_eq] = True
        key = act.tobytes()
        if key in tried or not act.any():
            continue
        tried.add(key)
        got = _face_push_on(d, sol, lam_f, act, r)
        if got is not None:
            return got
    return None


def _face_push_on(d: _Data, sol: SDPSolution, lam_f: np.ndarray, act: np.ndarray, r: int) -> Repair | None:
    """:func:`_face_push` with the active rows ``act`` and the slack's rank ``r``."""
    sup = np.flatnonzero(act)
    lam1 = _slack_factor(d, lam_f, sup, r)
    if lam1 is None:
        return None
    top = float(np.abs(lam1).max())
    weak = act & (np.arange(d.m) >= d.n_eq) & (np.abs(lam1) <= ZERO_FREE_RTOL * top)
    if weak.any():  # active rows whose multiplier vanishes (a degenerate face): off the support, then refactored
        act = act & ~weak
        sup = np.flatnonzero(act)
        lam1 = _slack_factor(d, np.where(act, lam1, 0.0), sup, r)  # from the first factor: a step or two
        if lam1 is None:
            return None
        top = float(np.abs(lam1).max())
    if np.any(lam1[d.n_eq:] < -1e-12 * top):
        return None  # a degenerate dual: no nonnegative multipliers on this face
    lam1[d.n_eq:] = np.maximum(lam1[d.n_eq:], 0.0)
    l_int, K = _dyadic_grid(lam1, d.n_eq, GRID_BITS)
    lam_r = _restore(d, l_int, K)
    if lam_r is None:
        return None
    K0 = _exact_kernel(d, lam_r)
    Wc = _complement(K0, d.dim)
    if Wc is None or not Wc:
        return None
    s, q = _slack_exact(d, lam_r)
    Wm = _twice_slack(d, s)
    Sf = np.array([[Wm[a][b] / (2 * q) for b in Wc] for a in Wc])
    w, Qe = np.linalg.eigh(Sf)
    scale = max(float(np.abs(w).max(initial=0.0)), 1e-300)
    fl = 4 * (len(Wc) + 1) * 2.0 ** -52 * max(1.0, float(np.abs(Sf).max(initial=0.0)))
    meta: dict[str, Any] = {"common_kernel": len(K0), "free": int(sup.size), "face_rank": r}
    if w[0] > -fl:
        ok, lmin = _face_check(d, lam_r, K0, Wc)
        if ok:
            fp = _face_point(d, sol, lam1, act)
            return Repair(lam_r, _bound(d, lam_r), Fraction(0), lmin, False,
                          {**meta, "zero_shift": "face", **({"face_point": fp} if fp is not None else {})})
    Q = Qe[:, w < 1e-6 * scale]
    Pw = np.zeros((d.dim, Q.shape[1]))
    Pw[Wc, :] = Q
    D = _central_direction(d, lam_f, act, Pw)
    if D is None:
        D = _central_direction_free(d, lam_f, act, Pw)
    if D is None:
        return None
    lq = _qv_of(lam_r)
    lam_f = _qv_floats(lq)
    Dq = _homogeneous_qv(d, sorted(sup.tolist()), D, lam_f)
    if Dq is None:
        return None
    Df = _qv_floats(Dq)
    SD = (_float_slack(d, Df) - _float_slack(d, np.zeros(d.m)))[np.ix_(Wc, Wc)]
    ev = float(np.linalg.eigvalsh(Q.T @ SD @ Q)[0])
    if not ev > 0:
        return None
    t = _dyadic_up(max(4.0 * max(-float(w[0]), fl) / ev, 1e-300))
    cap = _float_cap(d, lam_f, Df)
    tries = 0
    for _ in range(40):
        if t > cap:
            return None
        if float(np.linalg.eigvalsh(Sf + float(t) * SD)[0]) > 2 * fl:
            lt = _qv_axpy(lq, t, Dq)
            ok, lmin = _face_check(d, lt, K0, Wc)  # exact: nonnegative inequality multipliers, (i), S >= 0
            if ok:
                meta = {**meta, "zero_shift": "face push", "t": float(t)}
                fp = _face_point(d, sol, lam1, act)
                if fp is not None:
                    meta["face_point"] = fp
                return Repair(_qv_fracs(lt), _bound(d, lt), Fraction(0), lmin, False, meta)
            tries += 1
            if tries >= 4:
                return None
        t *= 2
    return None


#: a face point is float-feasible when every row is at most this (times the constants' scale) and its Gram matrix's
#: smallest eigenvalue at least minus this (times its largest): the standard of :func:`newton_polish`'s KKT point
FACE_POINT_TOL = 1e-12


def _face_point(d: _Data, sol: SDPSolution, lam: np.ndarray, act: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, float] | None:
    r"""``(G, F, objective)``: the least change of the solver's point onto the primal face of the multipliers
    ``lam`` (float, :func:`_slack_factor`): ``G = Q X Q^T`` with ``Q`` the near-null space of ``S(lambda)`` and the
    active rows tight (complementary slackness), checked on the face and float-feasible (the active rows within
    ``FACE_POINT_TOL`` of 0, every row ``<= FACE_POINT_TOL``, ``G >= -FACE_POINT_TOL``).  Its objective equals
    ``b(lambda) - <S, G> - sum_i lambda_i slack_i = b(lambda)`` to rounding: the lower end of a face-push bracket (a
    float-feasible point, not a rigorous bound - like a KKT point's).  ``None`` when the projection does not give a
    float-feasible point on the face (Halpern: the factor's multipliers are feasible but not complementary to any
    such point)."""
    if sol.gram is None or sol.F is None:
        return None
    w, U = np.linalg.eigh(_float_slack(d, lam))
    Q = U[:, w < 1e-6 * max(float(np.abs(w).max(initial=0.0)), 1e-300)]
    k = Q.shape[1]
    if k == 0:
        return None
    G0 = np.asarray(sol.gram, dtype=np.float64)
    F0 = np.asarray(sol.F, dtype=np.float64)
    E = _tri_map(d, Q)
    iu, ju = np.triu_indices(k)
    X0 = Q.T @ G0 @ Q
    x0 = np.concatenate([np.where(iu == ju, X0[iu, ju], math.sqrt(2.0) * X0[iu, ju]), F0])
    R = d.R
    ia = np.flatnonzero(act)
    A = np.hstack([np.asarray(d.RG_sub(ia) @ E), d.RF_rows(ia)])
    rhs = d.consts[act] - A @ x0
    y = np.linalg.lstsq(A, rhs, rcond=None)[0]
    x = x0 + y
    X = _tri_mat(x[: iu.size], k)
    G = Q @ X @ Q.T
    G = 0.5 * (G + G.T)
    F = x[iu.size:]
    rows = R @ np.concatenate([G[d.pos_a, d.pos_b], F]) - d.consts
    rscale = max(1.0, float(np.abs(d.consts).max(initial=0.0)))
    gw = np.linalg.eigvalsh(G)
    if not (np.all(np.isfinite(rows)) and float(np.abs(rows[act]).max(initial=0.0)) <= FACE_POINT_TOL * rscale
            and float(rows.max(initial=-math.inf)) <= FACE_POINT_TOL * rscale
            and gw[0] >= -FACE_POINT_TOL * max(float(gw[-1]), 1.0)):
        return None  # not on the face (the active rows not tight: the multipliers are not complementary to it)
    val = float(d.obj[: d.nG] @ G[d.pos_a, d.pos_b] + d.obj[d.nG:] @ F) + float(sol.objective_const)
    return G, F, val


def upper_from(tight: Repair, interior: Repair | None, trace_bound: Fraction | None = None) -> Fraction | None:
    r"""The exact upper bound of the module doc: ``b`` when ``eps = 0``; ``b + eps T`` with an a-priori trace bound
    ``T``; ``b + eps max(b' - b, 0)/m`` with an interior end (``b'``, ``S' - m I >= 0``, ``m = -interior.eps > 0``);
    the smaller when both apply, and never above the interior end's own ``b'`` plus its ``0``-shift term (an
    interior end is a certificate too: ``S' >= m I >= 0`` gives ``opt <= b'``).  ``None`` when nothing proves a
    bound."""
    cands: list[Fraction] = []
    if tight.eps < 0:
        return None
    if tight.eps == 0:
        cands.append(tight.bound)
    if trace_bound is not None and trace_bound >= 0:
        cands.append(tight.bound + tight.eps * trace_bound)
    if interior is not None and interior.eps < 0:
        m = -interior.eps
        cands.append(tight.bound + tight.eps * max(interior.bound - tight.bound, Fraction(0)) / m)
        cands.append(interior.bound)
    return min(cands) if cands else None


def float_up(q: Fraction) -> float:
    """The smallest double ``>= q`` (an exact comparison: a proved upper end stays an upper end as a float)."""
    x = float(q)
    return math.nextafter(x, math.inf) if Fraction(x) < q else x


def float_down(q: Fraction) -> float:
    """The largest double ``<= q`` (an exact comparison: a proved lower end stays a lower end as a float)."""
    x = float(q)
    return math.nextafter(x, -math.inf) if Fraction(x) > q else x


def _exported_view(sol: SDPSolution, data: _Data | None = None) -> Any:
    """The solution's data in the layout of :class:`fairtheory.worstcase.solvers.ExportedPEP` (float views only:
    ``MG`` both triangles, ``AF``, ``c``, ``C``, ``cF``, ``c0``) for the KKT Newton of :mod:`fairtheory.proofs.search`
    (``data``: as in :func:`repair`)."""
    import scipy.sparse as sp

    d = _data(sol, data)
    dim, nG = d.dim, d.nG
    row, col, dat = d.RG_coo
    a, b = d.pos_a[col], d.pos_b[col]
    v = np.where(a == b, dat, 0.5 * dat)
    off = a != b
    MG = sp.csr_matrix((np.concatenate([v, v[off]]), (np.concatenate([row, row[off]]),
                                                       np.concatenate([a * dim + b, (b * dim + a)[off]]))),
                       shape=(d.m, dim * dim))
    AF = d.RFc
    C = d.C.copy()
    return SimpleNamespace(MG=MG, AF=AF, c=-d.consts, C=C, cF=d.obj[nG:], c0=float(sol.objective_const), m=d.m,
                           n_eq=d.n_eq, dim=dim, nf=AF.shape[1])


#: the KKT Newton polish runs when ``rows * dim^2`` is at most this (its dense Jacobian)
NEWTON_MAX_WORK = 300000
#: primal active-set thresholds of the Newton polish (rows within tau of 0 at the solver's point)
NEWTON_TAUS = (1e-6, 1e-5, 1e-7)


def newton_polish(sol: SDPSolution, data: _Data | None = None) -> tuple[SDPSolution, float] | None:
    """``(sol', value)``: ``sol`` with its multipliers (and, when its function values are recovered from its active
    rows to ``1e-12``, its Gram matrix, values and primal value) replaced by those of a KKT point found by
    Gauss-Newton from it
    (:func:`fairtheory.proofs.search._kkt_newton`: active rows tight, (i), ``S G = 0``; quadratic convergence to
    ``~1e-15`` from a solver's ``1e-8``), and that point's objective (a float-feasible primal point: every row
    ``<= 1e-12``, ``G >= -1e-12``; not a rigorous lower bound).  ``None`` when the data are too large
    (:data:`NEWTON_MAX_WORK`), no active set converges, or the polished inequality multipliers are negative beyond
    rounding (a degenerate dual: their clipping would break (i)).  ``data``: as in :func:`repair`."""
    import dataclasses

    if sol.rows is None or sol.z is None or sol.gram is None or sol.F is None:
        return None
    m = sol.rows.shape[0]
    if m * sol.dim * sol.dim > NEWTON_MAX_WORK:
        return None
    P = _exported_view(sol, data)
    G = np.asarray(sol.gram, dtype=np.float64)
    F = np.asarray(sol.F, dtype=np.float64)
    ref = FloatSolve(sol.status, np.asarray(sol.z, dtype=np.float64), float(sol.value), G, F, "clarabel", 0.0)
    rows0 = np.asarray(P.MG @ G.reshape(-1)).ravel() + P.AF @ F + P.c
    rscale = max(1.0, float(np.max(np.abs(P.c), initial=0.0)))
    with _one_blas_thread():
        for tau in NEWTON_TAUS:
            act = rows0 >= -tau * rscale
            act[: P.n_eq] = True
            r = kkt_rank(G)  # a clear spectral gap: the Newton on G = V V^T of that rank first (fewer unknowns)
            got = (_kkt_newton(P, ref, act, rank=r) if r is not None else None) or _kkt_newton(P, ref, act)
            if got is None:
                continue
            obj, lam, Gn, _ = got
            ineq = np.arange(P.m) >= P.n_eq
            if np.any(lam[ineq] < -1e-12 * max(1.0, float(np.abs(lam).max()))):
                return None
            z = np.where(ineq, np.maximum(lam, 0.0), lam)
            # the KKT point's function values: its active rows hold with equality (least squares, then checked)
            Fn = F
            if P.nf:
                rhs = -(np.asarray(P.MG[act] @ Gn.reshape(-1)).ravel() + P.c[act])
                Fn = np.linalg.lstsq(P.AF[act].toarray(), rhs, rcond=None)[0]
            val = float(np.sum(P.C * Gn) + P.cF @ Fn) + float(P.c0)
            if abs(val - obj) <= 1e-12 * max(1.0, abs(obj)):
                return dataclasses.replace(sol, z=z, gram=Gn, F=Fn, value=val), val
            return dataclasses.replace(sol, z=z), float(obj)
    return None


#: the interior end's back-off ``delta``, in units of ``max(|value|, tiny) / tr G`` of the float solve
BACKOFF = 1e-2


#: the Newton polish also runs on a narrow bracket whose lower end (the solver's point) is doubtful: its rows'
#: violations weighted by the multipliers above this fraction of the tolerance (the point's objective can be off by
#: about that much - proximal gradient N = 5: 1.4e-7 absolute, the value 1.7e-7 relative above the tight one)
DOUBT_FRACTION = 0.5


def _lower_doubt(sol: SDPSolution) -> float:
    """``sum_i lambda_i max(r_i, 0)`` (inequalities) ``+ sum_i |lambda_i r_i|`` (equalities) at the solver's point,
    ``r = rows x - consts``: a first-order size of how far the point's objective may lie above that of a feasible
    point (weak duality's slack term); ``0`` when the solution carries no point."""
    if sol.rows is None or sol.z is None or sol.gram is None or sol.F is None:
        return 0.0
    G = np.asarray(sol.gram, dtype=np.float64)
    dim = int(sol.dim)
    if G.shape != (dim, dim):
        return 0.0
    ia, ib = np.triu_indices(dim)
    xg = np.empty(ia.size)
    xg[ib * (ib + 1) // 2 + ia] = G[ia, ib]
    x = np.concatenate([xg, np.asarray(sol.F, dtype=np.float64)])
    if x.size != sol.rows.shape[1]:
        return 0.0
    r = sol.rows @ x - np.asarray(sol.consts, dtype=np.float64)
    z = np.asarray(sol.z, dtype=np.float64)
    n_eq = int(sol.n_eq)
    out = float(np.abs(z[:n_eq] * r[:n_eq]).sum() + (np.maximum(z[n_eq:], 0) * np.maximum(r[n_eq:], 0)).sum())
    return out if math.isfinite(out) else math.inf


def _shift_needed(d: _Data, sol: SDPSolution) -> bool:
    """Whether the float slack at the solver's multipliers (inequalities clipped at 0) is not positive definite beyond
    the float eigenvalues' accuracy: :func:`repair` then proves at best ``eps > 0`` (it takes ``eps = 0`` only above
    that accuracy)."""
    if sol.z is None or d.dim == 0:
        return False
    z = np.asarray(sol.z, dtype=np.float64)
    if z.shape != (d.m,) or not np.all(np.isfinite(z)):
        return False
    lam = z.copy()
    lam[d.n_eq:] = np.maximum(lam[d.n_eq:], 0.0)
    S = _float_slack(d, lam)
    if not np.all(np.isfinite(S)):
        return False
    w = np.linalg.eigvalsh(S)
    fl = 4 * (d.dim + 1) * 2.0 ** -52 * max(1.0, float(np.abs(S).max(initial=0.0)))
    return bool(w[0] <= fl)


def exact_bracket(sol: SDPSolution, interior: Callable[[float], SDPSolution | None] | None = None, *,
                  tol: float = 1e-7, lower: float | None = None, lower_rigorous: bool = False,
                  trace_bound: Fraction | None = None, newton: bool = True, zero: bool = True, fine: bool = False
                  ) -> ExactBracket:
    """A rigorous bracket of the PEP solved by ``sol`` (module doc), in stages that stop as soon as ``upper - lower
    <= tol max(|upper|, tiny)``: the solver's own multipliers; with ``zero`` the zero-shift repair (:func:`zero_shift`:
    ``eps = 0``, no trace bound or interior end needed), when the tight end needs a shift; with an interior end
    (``interior(delta)``: a solve of ``max obj + delta tr G``, called at most once, only when the tight end still needs
    a shift ``eps > 0`` and no ``trace_bound`` closes it); then multipliers polished by a KKT Newton
    (:func:`newton_polish`; the zero shift again at its point where it worked at the solver's point or nothing else
    pays), whose primal point also replaces the lower end.  A face-push certificate (:func:`_face_push`) brings its
    face's primal point, which replaces the lower end before the Newton stage is considered (``info["lower_is"] ==
    "face point"``).  The Newton stage also runs on a narrow bracket whose lower
    end is doubtful (:func:`_lower_doubt` above :data:`DOUBT_FRACTION` of the tolerance: the solver's point violates
    its rows by enough to move its objective by about the tolerance).  ``lower``: a lower end (default the solver's
    primal value, not rigorous unless ``lower_rigorous``).  ``value`` never exceeds ``upper`` (a certified value never
    exceeds its own certificate); ``value_is`` as in :class:`ExactBracket`.  ``fine``: :func:`repair`'s shifts below
    the float eigenvalues' error bound (data whose rows are each in their own unit).

    Order (cost only; every certificate is proved the same way): without a trace bound and with the solver's slack
    indefinite in floats (:func:`_shift_needed`), the zero shift runs first and the shifted repair only where it
    fails; when, in addition, the solver's point is doubtful against its own value and the zero shift is not a face
    push (:func:`_zero_route`), the KKT point comes first and the zero shift there closes the bracket alone when it
    can (else the stages above run, the Newton polish not repeated)."""
    v = float(sol.value - sol.trace_weight * np.trace(sol.gram)) if sol.gram is not None else float(sol.value)
    lo = v if lower is None else float(lower)
    info: dict[str, Any] = {"solver_value": float(sol.value), "stages": []}
    tiny = 1e-300

    def narrow(u: Fraction | None, low: float) -> bool:
        return u is not None and float(u) - low <= tol * max(abs(float(u)), tiny)

    d = _Data(sol) if sol.rows is not None and sol.objective_row is not None else None
    inner: Repair | None = None
    point: SDPSolution | None = None
    asked = False
    best: Fraction | None = None
    zs: Repair | None = None
    tight: Repair | None = None
    shift = zero and trace_bound is None and d is not None and _shift_needed(d, sol)
    early: tuple[SDPSolution, float] | None = None
    early_tried = False
    if shift and newton and lower is None and sol.gram is not None and sol.z is not None:
        doubt0 = _lower_doubt(sol)
        rt = _zero_route(d, np.asarray(sol.z, dtype=np.float64)) if doubt0 > DOUBT_FRACTION * tol * max(
            abs(v), tiny) and np.shape(sol.z) == (d.m,) and np.all(np.isfinite(sol.z)) and d.dim else None
        if rt is not None and not rt[-1]:  # not a face push (that brings its own lower end: the face point)
            # the solver's point is doubtful before anything is proved (its doubt against its own value): the Newton
            # stage runs whatever the zero shift at the solver's point proves - so the KKT point first, and the zero
            # shift there alone when it closes the bracket (one zero shift instead of two)
            early_tried = True
            early = newton_polish(sol, d)
            if early is not None:
                sol2, obj = early
                z2 = zero_shift(sol2, d)
                if z2 is not None and narrow(z2.bound, obj):
                    info["stages"] += ["kkt newton", "zero shift (kkt point)"]
                    info["lower_doubt"] = doubt0
                    return _finish(obj, z2.bound, z2, None, info, sol2 if sol2.value == obj else None, None, lower,
                                   lower_rigorous, tol)
    if shift:
        # the solver's multipliers leave the slack indefinite (float) and nothing pays a shift but an interior end:
        # the zero shift first, the shifted repair only where the zero shift fails (it proves nothing alone)
        zs = zero_shift(sol, d)
        info["stages"].append("zero shift" if zs is not None else "zero shift failed")
        if zs is not None:
            best, tight = zs.bound, zs
        else:
            tight = repair(sol, polish=False, data=d, fine=fine)
            if tight is not None:
                best = upper_from(tight, None, trace_bound)
                info["stages"].insert(0, "solver multipliers")
    else:
        tight = repair(sol, polish=False, data=d, fine=fine)
        if tight is not None:
            best = upper_from(tight, None, trace_bound)
            info["stages"].append("solver multipliers")
        if zero and not narrow(best, lo) and (tight is None or tight.eps > 0):
            zs = zero_shift(sol, d)
            info["stages"].append("zero shift" if zs is not None else "zero shift failed")
            if zs is not None and (best is None or zs.bound < best):
                best, tight = zs.bound, zs
    if tight is not None:
        if not narrow(best, lo) and interior is not None and tight.eps > 0:
            asked = True
            tr = float(np.trace(sol.gram)) if sol.gram is not None else 0.0
            delta = BACKOFF * max(abs(v), tiny) / max(tr, tiny)
            si = interior(delta) if math.isfinite(delta) and delta > 0 else None
            if si is not None:
                inner = repair(si, polish=False, margin=0.5 * delta)
                info["stages"].append("interior end" if inner is not None else "interior end refused")
            u = upper_from(tight, inner, trace_bound)
            best = u if best is None or (u is not None and u < best) else best
    face_pt: SDPSolution | None = None
    if zs is not None and tight is zs and lower is None and zs.meta.get("face_point") is not None \
            and narrow(best, zs.meta["face_point"][2]):
        # the primal point of the certificate's face (float-feasible, its objective the bound to rounding): the
        # lower end, in place of the solver's point (whose rows may be violated by about the tolerance)
        import dataclasses

        G2, F2, val2 = zs.meta["face_point"]
        face_pt = dataclasses.replace(sol, z=np.array([float(x) for x in zs.lam]), gram=G2, F=F2, value=val2)
        lo, point = val2, face_pt
        info["stages"].append("face point")
    doubt = _lower_doubt(point if point is not None else sol) if lower is None and best is not None else 0.0
    info["lower_doubt"] = doubt
    doubtful = best is not None and doubt > DOUBT_FRACTION * tol * max(abs(float(best)), tiny)
    # a solver point whose objective lies above the proved upper end is infeasible: not a lower end (Halpern N = 10:
    # the float value 1e-9 relative above the bound; clipped to the bound it would sit above the worst case)
    doubtful = doubtful or (best is not None and lower is None and point is None and lo > float(best))
    if newton and (not narrow(best, lo) or doubtful):
        got = early if early_tried else newton_polish(sol, d)
        info["stages"].append("kkt newton" if got is not None else "kkt newton failed")
        if got is not None:
            sol2, obj = got
            # a proved upper end already within the tolerance of the KKT point's objective: only the lower end moves
            done = best is not None and narrow(best, obj if lower is None else lo)
            # the zero shift at the KKT point where the solver's point had one (first), or nothing else pays the shift
            t2 = zero_shift(sol2, d) if zero and zs is not None and not done else None
            if done:
                pass
            elif t2 is not None:
                info["stages"].append("zero shift (kkt point)")
            else:
                t2 = repair(sol2, polish=False, data=d, fine=fine)
                if zero and zs is None and (t2 is None or t2.eps > 0) and inner is None and trace_bound is None:
                    z2 = zero_shift(sol2, d)
                    if z2 is not None:
                        info["stages"].append("zero shift (kkt point)")
                        t2 = z2
            if t2 is not None:
                if inner is None and not asked and interior is not None and t2.eps > 0:
                    tr = float(np.trace(sol.gram))
                    delta = BACKOFF * max(abs(v), tiny) / max(tr, tiny)
                    si = interior(delta) if math.isfinite(delta) and delta > 0 else None
                    inner = repair(si, polish=False, margin=0.5 * delta) if si is not None else None
                    info["stages"].append("interior end (kkt point)" if inner is not None else
                                          "interior end refused (kkt point)")
                u = upper_from(t2, inner, trace_bound)
                if u is not None and (best is None or u < best):
                    best, tight = u, t2
            if lower is None:
                lo = obj  # a float-feasible KKT point's objective: the better estimate of the lower end
                point = sol2 if sol2.value == obj else None
    return _finish(lo, best, tight, inner, info, point, face_pt, lower, lower_rigorous, tol)


def _finish(lo: float, best: Fraction | None, tight: Repair | None, inner: Repair | None, info: dict[str, Any],
            point: SDPSolution | None, face_pt: SDPSolution | None, lower: float | None, lower_rigorous: bool,
            tol: float) -> ExactBracket:
    """The :class:`ExactBracket` of :func:`exact_bracket`'s stages: the proved upper end ``best`` rounded up, the
    lower end ``lo`` never above it, ``value_is`` by the tolerance."""
    tiny = 1e-300
    if tight is not None:
        info.update(eps=float(tight.eps), bound=float(tight.bound), lmin=tight.lmin)
    if inner is not None:
        info.update(interior_bound=float(inner.bound), interior_margin=float(-inner.eps))
    info["lower_is"] = "rigorous" if lower_rigorous else "face point" if point is not None and point is face_pt else (
        "kkt point" if point is not None or (
        lower is None and "kkt newton" in info["stages"]) else "solver point")
    if best is None:
        return ExactBracket(lo, math.inf, None, lower_rigorous, "lower", lo, tight, inner, info, point)
    up = float_up(best)
    if lower_rigorous and lo > up:  # a rigorous lower end above a rigorous upper end: one of them is wrong
        raise ValueError(f"exact_bracket: lower end {lo!r} above the proved upper bound {up!r}")
    lo = min(lo, up)
    if up - lo <= tol * max(abs(up), tiny):
        # the proved upper end and a point's value within tol: the value is that point's (never above the bound)
        return ExactBracket(lo, up, best, lower_rigorous, "exact", lo, tight, inner, info, point)
    return ExactBracket(lo, up, best, lower_rigorous, "upper", up, tight, inner, info, point)


def verify(sol: SDPSolution, rep: Repair) -> bool:
    """Re-check a :class:`Repair` against ``sol``'s data from scratch, in plain rationals and independently of the fast
    path of :func:`repair` (no integer scaling, no coarse grid, no FLINT LU): one multiplier per row, ``>= 0`` on the
    inequalities, (i) exactly, ``bound == c_0 + sum_i lambda_i c_i`` exactly, and ``S(lambda) + eps I >= 0`` by the
    kernel's exact test (:func:`fairtheory.proofs.exact_linalg.is_psd`).  What :func:`upper_from` turns into an upper
    bound holds exactly when this returns ``True``."""
    if sol.rows is None or len(rep.lam) != sol.rows.shape[0]:
        return False
    n_eq, dim = int(sol.n_eq), int(sol.dim)
    nG = dim * (dim + 1) // 2
    lam = [Fraction(x) for x in rep.lam]
    if any(x < 0 for x in lam[n_eq:]):
        return False
    R = sol.rows.tocsr()
    obj = np.asarray(sol.objective_row, dtype=np.float64)
    acc: dict[int, Fraction] = {}
    for i, x in enumerate(lam):
        if x == 0:
            continue
        for c, v in zip(R.indices[R.indptr[i]:R.indptr[i + 1]].tolist(),
                        R.data[R.indptr[i]:R.indptr[i + 1]].tolist(), strict=True):
            acc[c] = acc.get(c, Fraction(0)) + x * Fraction(v)
    for c in range(nG, R.shape[1]):  # (i): sum lambda a = c_F
        if acc.get(c, Fraction(0)) != Fraction(float(obj[c])):
            return False
    b = Fraction(float(sol.objective_const)) + sum((x * Fraction(float(sol.consts[i])) for i, x in enumerate(lam)
                                                     if x != 0), Fraction(0))
    if b != rep.bound:
        return False
    ia, ib = np.triu_indices(dim)
    ent: dict[tuple[int, int], Fraction] = {}
    for a, bb in zip(ia.tolist(), ib.tolist(), strict=True):
        j = bb * (bb + 1) // 2 + a
        v = acc.get(j, Fraction(0)) - Fraction(float(obj[j]))
        v = v if a == bb else v / 2
        if a == bb:
            v += Fraction(rep.eps)
        if v != 0:
            ent[(a, bb)] = v
    for a in range(dim):  # a zero diagonal entry still carries the shift
        if (a, a) not in ent and rep.eps != 0:
            ent[(a, a)] = Fraction(rep.eps)
    return is_psd(ent, dim)
