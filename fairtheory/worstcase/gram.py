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
* :func:`gram_coordinates` - explicit vectors from a solved Gram matrix (``G = V^T V``).

The builder (:class:`fairtheory.worstcase.sdp.PEP`) creates the basis vectors and value variables; see
docs/worstcase.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError

if TYPE_CHECKING:
    from fairtheory.worstcase.solvers import SDPSolution

__all__ = ["Vec", "Scalar", "num", "vsum", "inner", "sqnorm", "scalar_row", "gram_coordinates"]

_SQRT2 = math.sqrt(2.0)


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
        a, b = self._pair(other)
        return Vec(a + b)

    def __sub__(self, other: Vec) -> Vec:
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


def gram_coordinates(sol: SDPSolution) -> Any:
    """Explicit vectors for a PEP solution: factor ``G = V^T V`` (eigenvalues below ``1e-12 max(1, lambda_max)``
    dropped) and return ``coords(v) = V c(v)``, the point in ``R^rank`` of a symbolic :class:`Vec`."""
    w, U = np.linalg.eigh(sol.gram)
    keep = w > 1e-12 * max(1.0, float(w.max()))
    V = (U[:, keep] * np.sqrt(w[keep])).T  # (rank, dim)

    def coords(v: Vec) -> np.ndarray:
        c = np.zeros(sol.dim)
        c[: v.c.size] = v.c
        return V @ c

    return coords


def _unsvec(x: np.ndarray, dim: int) -> np.ndarray:
    G = np.zeros((dim, dim))
    iu = np.triu_indices(dim)
    # column-major upper triangle: index of (a, b), a <= b, is b (b + 1)/2 + a
    a, b = iu
    idx = b * (b + 1) // 2 + a
    vals = x[idx]
    vals = np.where(a == b, vals, vals / _SQRT2)
    G[a, b] = vals
    G[b, a] = vals
    return G
