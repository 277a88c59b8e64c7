r"""The Gram algebra of performance estimation: symbolic vectors, scalars and their Gram coordinates.

The bottom layer of :mod:`fairtheory.worstcase` (it imports nothing else of the package).  A PEP (Drori & Teboulle
2014; Taylor, Hendrickx & Glineur 2017) describes a first-order method on symbolic vectors: the starting point and
every gradient the method asks for are basis vectors ``e_k``; every iterate is a linear combination of them
(:class:`Vec`).  All inner products then live in the Gram matrix ``G = [<e_j, e_k>]`` (positive semidefinite, of any
rank) and all function values in a vector ``F``; a :class:`Scalar` is a linear combination of Gram entries
``<u, v>`` (:func:`inner`, :func:`sqnorm`), function values and a constant.

* :func:`num` - a coefficient as the builders combine it (exact ``int`` / :class:`~fractions.Fraction` kept, else a
  float64); :func:`vsum` - weighted sums of vectors;
* :func:`scalar_row` - a scalar as a sparse row over ``[G_ab (a <= b), F]`` (the float solvers' data);
  ``_exact_row`` - the same row exactly, as :class:`~fractions.Fraction` (the exact export of a PEP);
* :func:`gram_coordinates` - explicit vectors from a solved Gram matrix (``G = V^T V``); :func:`one_blas_thread` - BLAS
  limited to one thread around a small dense call (OpenBLAS's idle workers cost more than the call);
* :class:`RowBlock` / :class:`LazyRow` - a function class's interpolation rows built as arrays over all point pairs
  at once, bitwise the floats :func:`scalar_row` writes row by row (issue 41; section "array-built rows" below).

The builder (:class:`fairtheory.worstcase.sdp.PEP`) creates the basis vectors and value variables; see
docs/worstcase.md.
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError

if TYPE_CHECKING:
    from fairtheory.worstcase.solvers import SDPSolution

__all__ = ["Vec", "Scalar", "num", "vsum", "inner", "sqnorm", "scalar_row", "scalar_rows", "gram_coordinates",
           "RowBlock", "LazyRow", "point_arrays", "ordered_pairs", "difference_lin"]

_SQRT2 = math.sqrt(2.0)
_F64 = np.dtype(np.float64)


def num(s: Any) -> Any:
    """A coefficient as the builders combine it: exact (``int``/:class:`Fraction`) numbers stay exact,
    anything else becomes a Python float."""
    if isinstance(s, (Fraction, int)) and not isinstance(s, bool):
        return s
    if isinstance(s, (str, bytes)) or s is None:
        raise FairtheoryTypeError(f"a PEP coefficient must be a real number, got {s!r}")
    out = float(s)
    if not math.isfinite(out):
        raise FairtheoryValueError(f"a PEP coefficient must be a finite number, got {s!r} (nan / inf step sizes or "
                                   "weights make the worst case meaningless)")
    return out


def _step(x: Any, name: str, what: str, *, low_open: bool) -> Any:
    """A step size / inexactness given to an oracle: a real number (not a string, ``None`` or a bool), finite, in
    ``(0, inf)`` (``low_open``) or ``[0, inf)``, and - when positive - a normal float64 (a subnormal step underflows:
    ``1/gamma`` overflows and the PEP's units with it).  Exact numbers stay exact."""
    rng = "(0, inf)" if low_open else "[0, inf)"
    if isinstance(x, (bool, np.bool_, str, bytes)) or x is None or not isinstance(x, (int, float, Fraction, np.integer,
                                                                                       np.floating)):
        raise FairtheoryTypeError(f"{name} ({what}) must be a real number in {rng}, got {x!r}")
    xf = float(x)
    if not math.isfinite(xf) or xf < 0 or (low_open and xf == 0):
        raise FairtheoryValueError(f"{name} ({what}) must be a finite number in {rng}, got {x!r}")
    if 0 < xf < 2.0 ** -1000 or xf > 2.0 ** 1000:
        raise FairtheoryValueError(f"{name} ({what}) must lie in [2^-1000, 2^1000] when positive (a step this small or "
                                   f"large has no float64 units: its reciprocal under/overflows), got {x!r}")
    return x if isinstance(x, (Fraction, int)) else xf


def _zeros_like(n: int, dtype: Any) -> np.ndarray:
    if np.dtype(dtype) == np.dtype(object):
        out = np.empty(n, dtype=object)
        out[:] = 0
        return out
    return np.zeros(n)


def _finite(v: Vec) -> Vec:
    if v.c.dtype != object and not np.all(np.isfinite(v.c)):
        raise FairtheoryValueError("a PEP iterate's coefficients overflowed float64 (nan / inf): the method's step "
                                   "sizes or weights are too large")
    return v


class Vec:
    """A symbolic vector: coefficients on the PEP's basis (a dense numpy array, padded lazily)."""

    __slots__ = ("c",)

    def __init__(self, c: np.ndarray) -> None:
        self.c = c

    def _pair(self, other: Vec) -> tuple[np.ndarray, np.ndarray]:
        a, b = self.c, other.c
        if a.size < b.size:
            a = np.concatenate([a.astype(b.dtype), _zeros_like(b.size - a.size, b.dtype)])
        elif b.size < a.size:
            b = np.concatenate([b.astype(a.dtype), _zeros_like(a.size - b.size, a.dtype)])
        elif a.dtype != b.dtype:
            a, b = a.astype(object), b.astype(object)
        return a, b

    def __add__(self, other: Vec) -> Vec:
        a, b = self.c, other.c
        if a.dtype == _F64 and b.dtype == _F64:
            # float fast path, bitwise the padded sum (a zero pad adds +0.0: ``-0.0 + 0.0 = +0.0``)
            na, nb = a.shape[0], b.shape[0]
            if na == nb:
                return Vec(a + b)
            if na > nb:
                out = a + 0.0
                out[:nb] = a[:nb] + b
            else:
                out = b + 0.0
                out[:na] = a + b[:na]
            return Vec(out)
        a, b = self._pair(other)
        return Vec(a + b)

    def __sub__(self, other: Vec) -> Vec:
        a, b = self.c, other.c
        if a.dtype == _F64 and b.dtype == _F64:
            # float fast path, bitwise the padded difference (``0.0 - b``, never ``-b``: the sign of a zero is kept)
            na, nb = a.shape[0], b.shape[0]
            if na == nb:
                return Vec(a - b)
            if na > nb:
                out = a.copy()
                out[:nb] = a[:nb] - b
            else:
                out = np.subtract(0.0, b)
                out[:na] = a - b[:na]
            return Vec(out)
        a, b = self._pair(other)
        return Vec(a - b)

    def __neg__(self) -> Vec:
        return Vec(-self.c)

    def __mul__(self, s: float) -> Vec:
        with np.errstate(over="ignore", invalid="ignore"):
            return _finite(Vec(num(s) * self.c))

    __rmul__ = __mul__

    def __truediv__(self, s: float) -> Vec:
        s = num(s)
        if self.c.dtype == object:
            return Vec(self.c * (Fraction(1) / s if isinstance(s, (Fraction, int)) else 1.0 / s))
        return Vec(self.c / s)

    def key(self) -> bytes:
        """Exact identity of the point (trailing zeros stripped), for de-duplicating oracle calls."""
        nz = np.flatnonzero(self.c)
        end = int(nz[-1]) + 1 if nz.size else 0
        if self.c.dtype == object:
            return repr(tuple(Fraction(v) for v in self.c[:end])).encode()
        return self.c[:end].tobytes()


def vsum(vecs: list[Vec], weights: Any = None) -> Vec:
    """``sum_k w_k v_k`` (plain sum when ``weights`` is None)."""
    w = [1] * len(vecs) if weights is None else list(weights)
    out = Vec(np.zeros(0))
    for wk, v in zip(w, vecs, strict=True):
        out = out + num(wk) * v
    return out


@dataclass
class Scalar:
    """``sum_t coef_t <u_t, v_t> + sum_k F_coef[k] F_k + const``."""

    quad: list[tuple[float, Vec, Vec]] = field(default_factory=list)
    lin: dict[int, float] = field(default_factory=dict)
    const: Any = 0

    def __add__(self, other: Any) -> Scalar:
        if not isinstance(other, Scalar):
            return Scalar(list(self.quad), dict(self.lin), self.const + num(other))
        lin = dict(self.lin)
        for k, v in other.lin.items():
            lin[k] = lin.get(k, 0) + v
        return Scalar(self.quad + other.quad, lin, self.const + other.const)

    __radd__ = __add__

    def __mul__(self, s: float) -> Scalar:
        s = num(s)
        return Scalar([(s * c, u, v) for c, u, v in self.quad], {k: s * v for k, v in self.lin.items()},
                      s * self.const)

    __rmul__ = __mul__

    def __neg__(self) -> Scalar:
        return self * -1

    def __sub__(self, other: Any) -> Scalar:
        return self + (-other if isinstance(other, Scalar) else -num(other))

    def __rsub__(self, other: Any) -> Scalar:
        return (-self) + other


def inner(u: Vec, v: Vec) -> Scalar:
    """The Gram entry ``<u, v>`` as a :class:`Scalar`."""
    return Scalar([(1, u, v)])


def sqnorm(u: Vec) -> Scalar:
    """``||u||^2``."""
    return inner(u, u)


@dataclass
class _Point:
    x: Vec
    g: Vec
    f: Scalar


def scalar_row(s: Scalar, nG: int, coords: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Column indices and natural coefficients of one scalar over ``x = [G_ab (a <= b), F]``: the entry of
    ``(a, b)`` (index ``b (b + 1)/2 + a``, duplicates not summed) multiplies ``G_ab`` itself (both orders of an
    off-diagonal pair add up); :meth:`PEP.solve` rescales to Clarabel's ``svec``.  ``coords(v)``: the float
    coordinates of a :class:`Vec` in the basis the Gram matrix is taken in (default its own coefficients; the
    sparse solve passes its change of basis)."""
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    for coef, u, v in s.quad:
        if coords is None:
            uc, vc = np.asarray(u.c, dtype=np.float64), np.asarray(v.c, dtype=np.float64)
        else:
            uc, vc = coords(u), coords(v)
        iu, iv = np.flatnonzero(uc), np.flatnonzero(vc)
        if iu.size == 0 or iv.size == 0:
            continue
        out = float(coef) * np.multiply.outer(uc[iu], vc[iv])
        a, b = np.minimum.outer(iu, iv).ravel(), np.maximum.outer(iu, iv).ravel()
        cols.append(b * (b + 1) // 2 + a)
        vals.append(out.ravel())
    for k, v in s.lin.items():
        cols.append(np.array([nG + k]))
        vals.append(np.array([float(v)]))
    if not cols:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    return np.concatenate(cols), np.concatenate(vals)


#: :func:`scalar_rows` works on at most this many Gram entries (terms x basis^2) at a time
_BATCH_ENTRIES = 1 << 21
#: :func:`scalar_rows` assembles at most this many scalars row by row (:func:`scalar_row`), more in batches
_FEW_ROWS = 2


def _padded_rows(cs: list[np.ndarray], D: int) -> np.ndarray:
    """``len(cs) x D`` float64 matrix whose row ``t`` is ``cs[t]`` zero-padded (each entry converted to float64 as an
    assignment ``M[t, :len(cs[t])] = cs[t]`` converts it: exact rationals rounded to nearest), in one copy."""
    T = len(cs)
    M = np.zeros((T, D))
    lens = np.fromiter((c.shape[0] for c in cs), dtype=np.int64, count=T)
    total = int(lens.sum())
    if total:
        flat = np.concatenate(cs)
        start = np.cumsum(lens) - lens
        M.reshape(-1)[np.repeat(np.arange(T, dtype=np.int64) * D - start, lens) + np.arange(total)] = flat
    return M


def scalar_rows(scalars: list[Scalar], nG: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(indptr, cols, vals)``: :func:`scalar_row` of every scalar (no ``coords``), row ``r``'s entries
    ``cols[indptr[r]:indptr[r + 1]]`` - the same entries in the same order, bitwise (each term's products ``coef (u_i
    v_j)`` over the nonzero coordinates in row-major order, then the values' coefficients) - computed for all terms
    at once (the terms' coordinates gathered into two padded matrices, no numpy call per row or term); at most
    :data:`_FEW_ROWS` scalars row by row."""
    n = len(scalars)
    if n <= _FEW_ROWS:  # a handful of rows (a PEP's initial condition): row by row, fewer numpy calls than a batch
        parts = [scalar_row(sc, nG) for sc in scalars]
        ptr = np.zeros(n + 1, dtype=np.int64)
        if n:
            np.cumsum([c.size for c, _ in parts], out=ptr[1:])
            return (ptr, np.concatenate([c for c, _ in parts]).astype(np.int64),
                    np.concatenate([v for _, v in parts]).astype(np.float64))
        return ptr, np.zeros(0, dtype=np.int64), np.zeros(0)
    terms = [(r, coef, u.c, v.c) for r, sc in enumerate(scalars) for coef, u, v in sc.quad]
    lin = [(r, k, float(v)) for r, sc in enumerate(scalars) for k, v in sc.lin.items()]
    D = max((max(len(uc), len(vc)) for _, _, uc, vc in terms), default=0)
    rid_parts: list[np.ndarray] = []
    col_parts: list[np.ndarray] = []
    val_parts: list[np.ndarray] = []
    step = max(1, _BATCH_ENTRIES // max(D * D, 1))
    for t0 in range(0, len(terms), step):
        chunk = terms[t0:t0 + step]
        Um = _padded_rows([x[2] for x in chunk], D)
        Vm = _padded_rows([x[3] for x in chunk], D)
        coef = np.array([float(x[1]) for x in chunk], dtype=np.float64)
        rid = np.array([x[0] for x in chunk], dtype=np.int64)
        tt, i, j = _outer_entries(Um, Vm)  # every (t, i, j) with Um[t, i] != 0 != Vm[t, j], lexicographic
        a, b = np.minimum(i, j), np.maximum(i, j)
        rid_parts.append(rid[tt])
        col_parts.append(b * (b + 1) // 2 + a)
        val_parts.append(coef[tt] * (Um[tt, i] * Vm[tt, j]))
    if lin:
        rid_parts.append(np.array([x[0] for x in lin], dtype=np.int64))
        col_parts.append(np.array([nG + x[1] for x in lin], dtype=np.int64))
        val_parts.append(np.array([x[2] for x in lin], dtype=np.float64))
    if not rid_parts:
        return np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
    rid_all = np.concatenate(rid_parts)
    order = np.argsort(rid_all, kind="stable")  # the terms' entries first (in term order), then the values'
    counts = np.bincount(rid_all, minlength=n)
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return ptr, np.concatenate(col_parts).astype(np.int64)[order], np.concatenate(val_parts)[order]


def _fr(x: Any) -> Fraction:
    """Exact value of a coefficient (a float converts to the rational it is)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return Fraction(int(x))
    xf = float(x)
    if not math.isfinite(xf):
        raise FairtheoryValueError(f"non-finite PEP coefficient {xf!r}")
    return Fraction(xf)


def _exact_row(s: Scalar) -> tuple[dict[tuple[int, int], Fraction], dict[int, Fraction], Fraction]:
    """``(G, F, c)`` of a :class:`Scalar` (see :meth:`PEP.export`)."""
    G: dict[tuple[int, int], Fraction] = {}
    for coef, u, v in s.quad:
        cf = _fr(coef)
        iu = [(int(i), _fr(u.c[i])) for i in np.flatnonzero(u.c)]
        iv = [(int(j), _fr(v.c[j])) for j in np.flatnonzero(v.c)]
        for i, ui in iu:
            cu = cf * ui
            for j, vj in iv:
                t = cu * vj
                key = (i, j) if i <= j else (j, i)
                G[key] = G.get(key, Fraction(0)) + (t if i == j else t / 2)
    G = {k: v for k, v in G.items() if v != 0}
    F = {int(k): _fr(v) for k, v in s.lin.items() if _fr(v) != 0}
    return G, F, _fr(s.const)


_BLAS_ONE: list[Any] = []  # [(len(sys.modules) when built, threadpoolctl.ThreadpoolController)]


def one_blas_thread() -> contextlib.AbstractContextManager[Any]:
    """BLAS limited to one thread (``threadpoolctl`` when installed, else nothing) for a small dense call.  OpenBLAS
    wakes its worker threads for the matrix products of LAPACK's divide-and-conquer eigensolver from dimension 26 on
    (``dstedc`` above ``SMLSIZ = 25``): ``numpy.linalg.eigh`` of a 26 x 26 matrix then costs ~7 ms of the caller's
    time waiting for them and as much again of theirs spinning afterwards (measured on 2 cores), against ~0.4 ms in
    one thread.  The controller (its scan of the loaded libraries costs ~6 ms) is kept and rebuilt only after new
    modules were imported (a new BLAS may have come with them)."""
    try:
        from threadpoolctl import ThreadpoolController
    except Exception:  # noqa: BLE001 - optional
        return contextlib.nullcontext()
    import scipy.linalg  # noqa: F401 - loaded before the scan: its own BLAS (the KKT Newton's) is limited too

    n_mod = len(sys.modules)
    if not _BLAS_ONE or _BLAS_ONE[0][0] != n_mod:
        _BLAS_ONE[:] = [(n_mod, ThreadpoolController())]
    return _BLAS_ONE[0][1].limit(limits=1, user_api="blas")


def gram_coordinates(sol: SDPSolution) -> Any:
    """Explicit vectors for a PEP solution: factor ``G = V^T V`` (eigenvalues below ``1e-12 max(1, lambda_max)``
    dropped) and return ``coords(v) = V c(v)``, the point in ``R^rank`` of a symbolic :class:`Vec` (the
    eigendecomposition in one BLAS thread: :func:`one_blas_thread`)."""
    with one_blas_thread():
        w, U = np.linalg.eigh(sol.gram)
    keep = w > 1e-12 * max(1.0, float(w.max()))
    V = (U[:, keep] * np.sqrt(w[keep])).T  # (rank, dim)

    def coords(v: Vec) -> np.ndarray:
        c = np.zeros(sol.dim)
        c[: v.c.size] = v.c
        return V @ c

    return coords


#: Gram dimension -> ``(a, b, idx, off)`` of :func:`_unsvec` (read-only, a few dimensions kept)
_UNSVEC_LAYOUT: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}


def _unsvec(x: np.ndarray, dim: int) -> np.ndarray:
    """The symmetric ``dim x dim`` matrix of Clarabel's ``svec`` vector ``x`` (upper triangle, column-major, the
    off-diagonal entries scaled by ``sqrt 2``)."""
    lay = _UNSVEC_LAYOUT.get(dim)
    if lay is None:
        a, b = np.triu_indices(dim)
        # column-major upper triangle: index of (a, b), a <= b, is b (b + 1)/2 + a
        lay = (a, b, b * (b + 1) // 2 + a, a != b)
        for arr in lay:
            arr.flags.writeable = False
        if len(_UNSVEC_LAYOUT) >= 32:
            _UNSVEC_LAYOUT.clear()
        _UNSVEC_LAYOUT[dim] = lay
    a, b, idx, off = lay
    G = np.zeros((dim, dim))
    vals = x[idx]
    vals = np.where(off, vals / _SQRT2, vals)
    G[a, b] = vals
    G[b, a] = vals
    return G


# ------------------------------------------------------------------------------------------ array-built rows
# Interpolation rows built as arrays: one numpy pass over all point pairs of a function, not a Python loop per row
# (issue 41).
#
# A function class writes its interpolation conditions (:mod:`fairtheory.worstcase.classes`) as rows ``r <= 0``, one
# per ordered pair of points (Taylor, Hendrickx & Glineur 2017, Math. Prog., Thm 4 for the ``L``-smooth ``mu``-strongly
# convex class); every row of one class has the same *shape* - the same list of terms ``coef <u_t, v_t>`` and the same
# value variables - only the vectors differ from pair to pair.  A :class:`RowBlock` holds that shape as arrays over the
# ``P`` rows: for each term ``t`` a coefficient ``c_t`` and two ``P x m`` coefficient matrices ``U_t``, ``V_t`` (row
# ``p``: the vectors of row ``p`` in the PEP's basis), the value variables and constants of every row.  From them
# :meth:`RowBlock.arrays` writes the float data of every row at once - exactly the entries
# :func:`fairtheory.worstcase.gram.scalar_row` writes for the row's :class:`~fairtheory.worstcase.gram.Scalar`, in the
# same order and with the same floating-point operations (``c_t (u_a v_b)`` for every nonzero ``u_a``, ``v_b``, ``a``
# outer, then the value variables in the order of the Scalar's ``lin``), so the assembled problem is bitwise the one
# the per-row loop built (tests/test_rows_vectorised.py).
#
# Each row is handed out as a :class:`LazyRow`: a :class:`~fairtheory.worstcase.gram.Scalar` whose terms are built (by
# the class's own per-pair code, the rows it always wrote) only when something reads them - the exact export
# (:meth:`fairtheory.worstcase.sdp.PEP.export`), the brackets, the kernel's certificates - while the float solve reads
# the block's arrays (:meth:`fairtheory.worstcase.sdp.PEP._row`).  A row that has been built is read from its terms.
# See docs/worstcase.md ("Function classes and step oracles").


class LazyRow(Scalar):
    """One row of a :class:`RowBlock`: a :class:`Scalar` built on first read by ``block.build(i)``."""

    def __init__(self, block: RowBlock, i: int) -> None:  # noqa: D107 - no dataclass __init__: the terms are lazy
        self._block = block
        self._i = i
        self._s: Scalar | None = None

    def _get(self) -> Scalar:
        if self._s is None:
            self._s = self._block.build(self._i)
        return self._s

    @property  # type: ignore[override]
    def quad(self) -> list[tuple[Any, Vec, Vec]]:
        return self._get().quad

    @property  # type: ignore[override]
    def lin(self) -> dict[int, Any]:
        return self._get().lin

    @property  # type: ignore[override]
    def const(self) -> Any:
        # the float solve reads the constant of every row: from the block (the same float), the terms stay unbuilt
        return self._block.const_of(self._i) if self._s is None else self._s.const

    def __repr__(self) -> str:
        return f"LazyRow({self._get()!r})"

    def __reduce__(self) -> Any:
        # pickled / copied as the plain Scalar it is (the block holds the class's per-pair code, a closure)
        s = self._get()
        return (Scalar, (s.quad, s.lin, s.const))

    def float_row(self, nG: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The row's :func:`~fairtheory.worstcase.gram.scalar_row` from the block's arrays; ``None`` once the terms
        were built (they may have been edited: read them)."""
        if self._s is not None:
            return None
        return self._block.row(self._i, nG)


def _outer_entries(U: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(p, a, b)`` of every ``U[p, a] != 0``, ``V[p, b] != 0``: ``p`` major, then ``a``, then ``b``."""
    pu, au = np.nonzero(U)
    pv, bv = np.nonzero(V)
    P = U.shape[0]
    cv = np.bincount(pv, minlength=P)
    start_v = np.concatenate([[0], np.cumsum(cv)[:-1]]) if P else np.zeros(0, dtype=np.int64)
    rep = cv[pu]
    total = int(rep.sum())
    if total == 0:
        z = np.zeros(0, dtype=np.int64)
        return z, z, z
    e = np.repeat(np.arange(pu.size), rep)
    t = np.arange(total) - np.repeat(np.cumsum(rep) - rep, rep)
    p = pu[e]
    return p, au[e], bv[start_v[p] + t]


class RowBlock:
    r"""``P`` rows of one shape (module doc): ``terms`` a list of ``(c_t, U_t, V_t)`` (float coefficient, two
    ``P x m`` float matrices), ``lin`` a list of ``(idx, val)`` pairs of length-``P`` arrays (value variable index,
    ``-1`` for none, and its coefficient), written after the terms in this order; ``const`` the ``P`` constants;
    ``build(i)`` the row's :class:`Scalar` (the class's per-pair code)."""

    def __init__(self, terms: list[tuple[float, np.ndarray, np.ndarray]], lin: list[tuple[np.ndarray, np.ndarray]],
                 const: np.ndarray, build: Callable[[int], Scalar]) -> None:
        self.terms = terms
        self.lin = lin
        self.const = np.asarray(const, dtype=np.float64)
        self.build = build
        self.P = int(self.const.size)
        self._cache: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def const_of(self, i: int) -> float:
        return float(self.const[i])

    def rows(self) -> list[LazyRow]:
        return [LazyRow(self, i) for i in range(self.P)]

    def arrays(self, nG: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(indptr, cols, vals)``: row ``i``'s entries are ``cols[indptr[i]:indptr[i+1]]`` (scalar_row's)."""
        hit = self._cache.get(nG)
        if hit is not None:
            return hit
        ps, cs, vs = [], [], []
        for coef, U, V in self.terms:
            p, a, b = _outer_entries(U, V)
            lo, hi = np.minimum(a, b), np.maximum(a, b)
            ps.append(p)
            cs.append(hi * (hi + 1) // 2 + lo)
            vs.append(float(coef) * (U[p, a] * V[p, b]))
        for idx, val in self.lin:
            p = np.flatnonzero(idx >= 0)
            ps.append(p)
            cs.append(nG + idx[p])
            vs.append(np.asarray(val, dtype=np.float64)[p])
        if ps:
            p = np.concatenate(ps)
            order = np.argsort(p, kind="stable")
            cols = np.concatenate(cs)[order].astype(np.int64)
            vals = np.concatenate(vs)[order]
            indptr = np.concatenate([[0], np.cumsum(np.bincount(p, minlength=self.P))]).astype(np.int64)
        else:
            cols, vals = np.zeros(0, dtype=np.int64), np.zeros(0)
            indptr = np.zeros(self.P + 1, dtype=np.int64)
        out = (indptr, cols, vals)
        self._cache[nG] = out
        return out

    def row(self, i: int, nG: int) -> tuple[np.ndarray, np.ndarray]:
        indptr, cols, vals = self.arrays(nG)
        return cols[indptr[i]:indptr[i + 1]], vals[indptr[i]:indptr[i + 1]]


def point_arrays(points: list[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """``(X, G, fvar, fcoef, fconst)`` of a function's points - coefficient matrices of the points and (sub)gradients
    (zero-padded to a common width), each value's variable (``-1``: a constant value), coefficient and constant -
    or ``None`` when the rows cannot be written as arrays with the very floats of the per-row code: exact (object)
    coefficients, or a value that is not ``a F_v + c`` with float / int ``a``, ``c``."""
    n = len(points)
    m = 0
    for p in points:
        if p.x.c.dtype == object or p.g.c.dtype == object:
            return None
        f = p.f
        if f.quad or len(f.lin) > 1 or not isinstance(f.const, (int, float)) or isinstance(f.const, bool):
            return None
        if any(not isinstance(v, (int, float)) or isinstance(v, bool) for v in f.lin.values()):
            return None
        m = max(m, p.x.c.size, p.g.c.size)
    X, G = np.zeros((n, m)), np.zeros((n, m))
    fvar = np.full(n, -1, dtype=np.int64)
    fcoef, fconst = np.zeros(n), np.zeros(n)
    for i, p in enumerate(points):
        X[i, : p.x.c.size] = p.x.c
        G[i, : p.g.c.size] = p.g.c
        for k, v in p.f.lin.items():
            fvar[i], fcoef[i] = int(k), float(v)
        fconst[i] = float(p.f.const)
    return X, G, fvar, fcoef, fconst


def ordered_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(j, k)`` of every ordered pair ``j != k``, ``j`` outer (the classes' ``_pairs`` order)."""
    j = np.repeat(np.arange(n), n)
    k = np.tile(np.arange(n), n)
    keep = j != k
    return j[keep], k[keep]


def difference_lin(fvar: np.ndarray, fcoef: np.ndarray, k: np.ndarray, j: np.ndarray
                   ) -> list[tuple[np.ndarray, np.ndarray]]:
    """The value entries of ``f_k - f_j`` in the order :class:`Scalar` subtraction writes them: ``f_k``'s variable
    first, then ``f_j``'s (merged into ``f_k``'s entry, ``a_k + (-a_j)``, when they are the same variable)."""
    vk, vj = fvar[k], fvar[j]
    same = (vk >= 0) & (vk == vj)
    first_val = np.where(same, fcoef[k] + (-fcoef[j]), fcoef[k])
    second_idx = np.where(same, -1, vj)
    return [(vk, first_val), (second_idx, -fcoef[j])]
