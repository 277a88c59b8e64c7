r"""Function classes of the hand-written PEP builder, each given by its exact interpolation conditions.

A performance-estimation problem (Drori & Teboulle 2014; Taylor, Hendrickx & Glineur 2017) replaces "an
arbitrary function of class :math:`\mathcal F`" by finitely many triples :math:`(x_k, g_k, f_k)` - the
points the method evaluates.  A class is *usable* in a PEP when a finite set of triples is the data of some
member of :math:`\mathcal F` **iff** a list of conditions, each linear in the Gram matrix and the function
values, holds: its *interpolation conditions*.  Each class below writes them as rows ``r <= 0`` and tells,
for every row, the pair ``(j, k)`` of point indices it involves (``(j, j)`` for a per-point row):

* :class:`SmoothStronglyConvex` ``(L, mu)``: ``f_j >= f_k + <g_k, x_j - x_k> + ||g_j - g_k||^2/(2L)
  + mu/(2(1 - mu/L)) ||x_j - x_k - (g_j - g_k)/L||^2`` for every ordered pair ``j != k``
  (Taylor, Hendrickx & Glineur 2017, Math. Prog., Thm 4);
* :class:`Convex`: ``f_j >= f_k + <g_k, x_j - x_k>`` (ibid., SIAM J. Optim., Thm 3.5 with ``M = inf``);
* :class:`ConvexLipschitz` ``(M)``: the convex rows and ``||g_j||^2 <= M^2`` per point (SIAM J. Optim., Thm 3.5);
* :class:`ConvexIndicator` ``(D)``: ``f_j = 0``, ``<g_k, x_j - x_k> <= 0`` and ``||x_j - x_k||^2 <= D^2``
  (SIAM J. Optim., Thm 3.6);
* :class:`SmoothNonconvex` ``(L)``: ``f_j >= f_k - L/4 ||x_j - x_k||^2 + <g_j + g_k, x_j - x_k>/2
  + ||g_j - g_k||^2/(4L)`` (SIAM J. Optim., Thm 3.10).

(Math. Prog. = "Smooth strongly convex interpolation and exact worst-case performance of first-order
methods", Math. Program. 161 (2017) 307-345; SIAM J. Optim. = "Exact worst-case performance of first-order
methods for composite convex optimization", SIAM J. Optim. 27(3) (2017) 1283-1313.)

``SmoothStronglyConvex(L, 0)`` builds exactly the rows (same terms, same order, same coefficients) of the
builder's historical ``L``-smooth convex class; it is the only class with :attr:`FunctionClass.smooth_convex`
true, the one the rigorous bracket of :mod:`fairtheory.worstcase.bracket` is written for.  See
docs/worstcase.md, section "Function classes and step oracles".
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from fairtheory._validation import check_in_range
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase import gram as _rows
from fairtheory.worstcase import units
from fairtheory.worstcase.gram import Scalar, Vec, num

if TYPE_CHECKING:
    from fairtheory.worstcase.gram import _Point

__all__ = ["FunctionClass", "SmoothStronglyConvex", "Convex", "ConvexLipschitz", "ConvexIndicator",
           "SmoothNonconvex", "Row", "StronglyConvex", "SmoothConvexLipschitz", "SmoothStronglyConvexQuadratic",
           "ConvexSupport", "ConvexQG", "RsiEb", "SmoothQuadraticLojasiewicz", "BlockSmoothConvex", "rescale",
           "needs_own_minimiser"]

#: one interpolation row ``r <= 0`` with the point indices ``(j, k)`` it involves (``(j, j)``: a per-point row)
Row = tuple[Scalar, tuple[int, int]]


def _exact(*xs: Any) -> bool:
    return all(isinstance(x, (Fraction, int)) and not isinstance(x, bool) for x in xs)


def _div(a: Any, b: Any) -> Any:
    """``a / b``, exact when both are ``int`` / :class:`Fraction`."""
    return Fraction(a) / b if _exact(a, b) else float(a) / float(b)


def _kq(x: Any) -> Any:
    """A class parameter as the exact rational it is (``"inf"`` for infinity): the kernel's form."""
    if x == math.inf:
        return "inf"
    return Fraction(x) if _exact(x) else Fraction(float(x))


def _param(x: Any, name: str, *, low: float = 0.0, low_inclusive: bool = False, allow_inf: bool = False) -> Any:
    """A class parameter: a real number in the stated range (``inf`` only where ``allow_inf``); exact
    ``int`` / :class:`Fraction` values are kept exact, anything else becomes a float."""
    if isinstance(x, (bool, str, bytes)) or x is None:
        raise FairtheoryTypeError(f"{name} must be a real number, got {x!r}")
    try:
        xf = float(x)
    except (TypeError, ValueError) as exc:
        raise FairtheoryTypeError(f"{name} must be a real number, got {x!r}") from exc
    lb = "[" if low_inclusive else "("
    if allow_inf and xf == math.inf:
        return math.inf
    high = "inf]" if allow_inf else "inf)"
    if math.isnan(xf) or math.isinf(xf):
        raise FairtheoryValueError(f"{name} must be a finite number in {lb}{low}, {high}, got {x!r}")
    check_in_range(xf, name, low=low, low_inclusive=low_inclusive)
    return num(x)


class FunctionClass(Protocol):
    """What :class:`fairtheory.worstcase.sdp.PEP` asks of a function class."""

    #: the plain ``L``-smooth convex class (``mu = 0``): the rigorous bracket applies only to it
    smooth_convex: bool
    #: one gradient per point (repeated oracle calls at a point return the same vector); ``False``: a new
    #: subgradient per call
    differentiable: bool
    #: every value is ``0`` (indicator functions): new points get the constant value ``0``
    zero_values: bool
    #: smoothness constant (``inf`` when the class has none)
    L: Any

    def interpolation(self, points: list[_Point]) -> list[Row]:
        """The rows ``r <= 0`` with their ``(j, k)`` for a function evaluated at ``points``."""
        ...


#: number of points -> ``(j, k, labels)``: :func:`fairtheory.worstcase.gram.ordered_pairs` (read-only arrays) and the
#: pairs ``(j, k)`` as a tuple of Python ints - constants of the size, kept for a few sizes
_PAIRS: dict[int, tuple[np.ndarray, np.ndarray, tuple[tuple[int, int], ...]]] = {}


PairIndices = tuple[np.ndarray, np.ndarray, tuple[tuple[int, int], ...]]


def _frozen_pairs(cache: dict[int, PairIndices], n: int, make: Any) -> PairIndices:
    """``(j, k, labels)`` from ``make(n) -> (j, k)`` as read-only int64 arrays and the pairs as Python ints, kept in
    ``cache`` (a constant of ``n``; at most 64 sizes)."""
    hit = cache.get(n)
    if hit is None:
        j, k = (np.asarray(a, dtype=np.int64) for a in make(n))
        j.flags.writeable = False
        k.flags.writeable = False
        if len(cache) >= 64:
            cache.clear()
        hit = cache[n] = (j, k, tuple(zip(j.tolist(), k.tolist(), strict=True)))
    return hit


def _ordered_pairs(n: int) -> PairIndices:
    """``(j, k, labels)`` of every ordered pair ``j != k`` of ``n`` points, ``j`` outer (:data:`_PAIRS`)."""
    return _frozen_pairs(_PAIRS, n, _rows.ordered_pairs)


def _convex_rows(points: list[_Point]) -> list[Row]:
    """The convex rows ``f_k - f_j + <g_k, x_j - x_k> <= 0`` of every ordered pair (``j`` outer), array-built."""
    arr = _rows.point_arrays(points)
    if arr is None:
        return [(Convex._row(pj, pk), (j, k)) for j, pj, k, pk in _pairs(points)]
    X, G, fvar, fcoef, fconst = arr
    jj, kk, labels = _ordered_pairs(len(points))
    block = _rows.RowBlock([(1.0, G[kk], X[jj] - X[kk])], _rows.difference_lin(fvar, fcoef, kk, jj),
                           fconst[kk] + (-fconst[jj]), lambda i: Convex._row(points[int(jj[i])], points[int(kk[i])]))
    return list(zip(block.rows(), labels, strict=True))


def _pairs(points: list[_Point]) -> Any:
    for j, pj in enumerate(points):
        for k, pk in enumerate(points):
            if j != k:
                yield j, pj, k, pk


class SmoothStronglyConvex:
    r"""``L``-smooth ``mu``-strongly convex functions, ``0 <= mu < L``: the exact interpolation condition of
    Taylor, Hendrickx & Glineur 2017 (Math. Prog.), Thm 4, for every ordered pair ``j != k``

    .. math:: f_j \ge f_k + \langle g_k, x_j - x_k\rangle + \tfrac{1}{2L}\|g_j - g_k\|^2
              + \tfrac{\mu}{2(1 - \mu/L)}\big\|x_j - x_k - \tfrac1L (g_j - g_k)\big\|^2

    (the theorem's ``1/(2(1 - mu/L)) (||g_j - g_k||^2/L + mu ||x_j - x_k||^2 - 2 mu/L <g_j - g_k, x_j - x_k>)``
    rearranged).  ``mu = 0`` gives the builder's ``L``-smooth convex rows term for term.

    Parameters
    ----------
    L : float or Fraction
        smoothness constant, ``0 < L < inf``.
    mu : float or Fraction
        strong convexity constant, ``0 <= mu < L``.
    """

    differentiable = True
    zero_values = False
    exact = True

    def __init__(self, L: Any, mu: Any = 0) -> None:
        self.L = _param(L, "L")
        self.mu = _param(mu, "mu", low_inclusive=True)
        if not float(self.mu) < float(self.L):
            raise FairtheoryValueError(f"mu must lie in [0, L) = [0, {float(self.L)!r}), got {mu!r} (mu = L leaves "
                                       "only quadratics, whose interpolation condition this is not)")

    @property
    def smooth_convex(self) -> bool:
        return bool(self.mu == 0)

    def __repr__(self) -> str:
        return f"SmoothStronglyConvex(L={self.L!r}, mu={self.mu!r})"

    def kernel_class(self) -> dict[str, Any] | None:
        """This class's entry of the trusted kernel's class table (:data:`fairtheory_kernel.classes.TABLE`) with its
        exact parameters: the key and parameters a certificate statement names it by (``None``: not certifiable)."""
        return {"functions": "smooth-convex", "L": _kq(self.L), "mu": _kq(self.mu)}

    def _coefficients(self) -> tuple[Any, Any, Any]:
        L, mu = self.L, self.mu
        inv2L = Fraction(1, 2) / L if isinstance(L, (Fraction, int)) else 0.5 / L
        c = _div(mu, 2 * (1 - _div(mu, L))) if mu != 0 else 0
        return inv2L, c, _div(1, L)

    def _row(self, pj: _Point, pk: _Point) -> Scalar:
        # f_k - f_j + <g_k, x_j - x_k> + 1/(2L) ||g_j - g_k||^2 [+ c ||x_j - x_k - (g_j - g_k)/L||^2] <= 0
        inv2L, c, invL = self._coefficients()
        dg = pj.g - pk.g
        s = pk.f - pj.f
        s.quad.append((1, pk.g, pj.x - pk.x))
        s.quad.append((inv2L, dg, dg))
        if self.mu != 0:
            w = (pj.x - pk.x) - invL * dg
            s.quad.append((c, w, w))
        return s

    def interpolation(self, points: list[_Point]) -> list[Row]:
        """Every ordered pair ``j != k`` (``j`` outer), as array-built rows (:class:`~fairtheory.worstcase.gram.RowBlock`)."""
        arr = _rows.point_arrays(points)
        if arr is None:
            return [(self._row(pj, pk), (j, k)) for j, pj, k, pk in _pairs(points)]
        X, G, fvar, fcoef, fconst = arr
        jj, kk, labels = _ordered_pairs(len(points))
        inv2L, c, invL = self._coefficients()
        D, DG = X[jj] - X[kk], G[jj] - G[kk]
        terms = [(1.0, G[kk], D), (float(inv2L), DG, DG)]
        if self.mu != 0:
            W = D - float(invL) * DG
            terms.append((float(c), W, W))
        block = _rows.RowBlock(terms, _rows.difference_lin(fvar, fcoef, kk, jj), fconst[kk] + (-fconst[jj]),
                               lambda i: self._row(points[int(jj[i])], points[int(kk[i])]))
        return list(zip(block.rows(), labels, strict=True))


class Convex:
    r"""Closed proper convex functions (subgradients): for every ordered pair ``j != k``

    .. math:: f_j \ge f_k + \langle g_k, x_j - x_k\rangle

    (Taylor, Hendrickx & Glineur 2017, SIAM J. Optim., Thm 3.5 with ``M = inf``; PEPit's ``ConvexFunction``).
    Nonsmooth: each oracle call returns a new subgradient, unless ``reuse_gradient=True`` (PEPit's option of the
    same name: one subgradient per point, as for a differentiable function).  **Exact.**"""

    smooth_convex = False
    differentiable = False
    zero_values = False
    exact = True
    L = math.inf

    def __init__(self, reuse_gradient: bool = False) -> None:
        if not isinstance(reuse_gradient, (bool, np.bool_)):
            raise FairtheoryTypeError(f"reuse_gradient must be True or False, got {reuse_gradient!r}")
        self.differentiable = bool(reuse_gradient)

    def __repr__(self) -> str:
        return "Convex(reuse_gradient=True)" if self.differentiable else "Convex()"

    def kernel_class(self) -> dict[str, Any] | None:
        """This class's entry of the trusted kernel's class table (:data:`fairtheory_kernel.classes.TABLE`) with its
        exact parameters: the key and parameters a certificate statement names it by (``None``: not certifiable)."""
        return {"functions": "convex"}

    @staticmethod
    def _row(pj: _Point, pk: _Point) -> Scalar:
        s = pk.f - pj.f                         # f_k - f_j + <g_k, x_j - x_k> <= 0
        s.quad.append((1, pk.g, pj.x - pk.x))
        return s

    def interpolation(self, points: list[_Point]) -> list[Row]:
        """Every ordered pair ``j != k`` (``j`` outer), as array-built rows (:class:`~fairtheory.worstcase.gram.RowBlock`)."""
        return _convex_rows(points)


class ConvexLipschitz(Convex):
    r"""Closed proper convex ``M``-Lipschitz functions: the convex rows and, per point, ``||g_j||^2 <= M^2``
    (Taylor, Hendrickx & Glineur 2017, SIAM J. Optim., Thm 3.5).

    Parameters
    ----------
    M : float or Fraction
        Lipschitz constant (bound on every subgradient's norm), ``0 < M < inf``.
    """

    def __init__(self, M: Any) -> None:
        self.M = _param(M, "M")

    def __repr__(self) -> str:
        return f"ConvexLipschitz(M={self.M!r})"

    def kernel_class(self) -> dict[str, Any] | None:
        """This class's entry of the trusted kernel's class table (:data:`fairtheory_kernel.classes.TABLE`) with its
        exact parameters: the key and parameters a certificate statement names it by (``None``: not certifiable)."""
        return {"functions": "convex-lipschitz", "M": _kq(self.M)}

    def _point_row(self, p: _Point) -> Scalar:
        return Scalar([(1, p.g, p.g)], {}, -(self.M * self.M))   # ||g_j||^2 - M^2 <= 0

    def interpolation(self, points: list[_Point]) -> list[Row]:
        """``||g_j||^2 <= M^2`` per point, then the convex rows (array-built, :class:`~fairtheory.worstcase.gram.RowBlock`)."""
        arr = _rows.point_arrays(points)
        MM = -(self.M * self.M)
        if arr is None or not isinstance(MM, (int, float)):
            rows: list[Row] = [(self._point_row(p), (j, j)) for j, p in enumerate(points)]
        else:
            G = arr[1]
            none = np.full(len(points), -1, dtype=np.int64)
            block = _rows.RowBlock([(1.0, G, G)], [(none, np.zeros(len(points)))], np.full(len(points), float(MM)),
                                   lambda i: self._point_row(points[i]))
            rows = [(r, (j, j)) for j, r in enumerate(block.rows())]
        return rows + super().interpolation(points)


class ConvexIndicator:
    r"""Indicators of closed convex sets ``C`` (``f = 0`` on ``C``, ``g`` a normal vector), of diameter at most
    ``D`` (``D = inf``: unbounded): per point ``f_j = 0`` and for every ordered pair ``j != k``

    .. math:: \langle g_k, x_j - x_k\rangle \le 0, \qquad \|x_j - x_k\|^2 \le D^2 \ (j < k,\ D < \infty)

    (Taylor, Hendrickx & Glineur 2017, SIAM J. Optim., Thm 3.6; PEPit's ``ConvexIndicatorFunction``).  Points
    the oracle creates get the constant value ``0``; a point added with a value variable gets the two rows
    ``f_j <= 0``, ``-f_j <= 0``.

    With a radius ``R < inf``: ``C`` lies in the ball of radius ``R`` around ``center`` (a vector of the PEP; ``None``:
    some point, a new free basis vector created with the function's first point, as PEPit's
    ``ConvexIndicatorFunction(R=...)`` does), one more row per point ``||x_j - center||^2 <= R^2``.  **Exact**
    (both bounds): the rows are necessary, and ``C = conv{x_j}`` - inside the ball (convex), of diameter
    ``max ||x_j - x_k||`` - has every ``g_k`` as a normal vector at ``x_k`` (the rows ``<g_k, x_j - x_k> <= 0``).

    Parameters
    ----------
    D : float or Fraction
        diameter bound, ``0 < D <= inf``.
    R : float or Fraction
        radius bound around ``center``, ``0 < R <= inf``.
    center : Vec or None
        the ball's center (used only when ``R < inf``).
    """

    smooth_convex = False
    differentiable = False
    zero_values = True
    exact = True
    L = math.inf

    def __init__(self, D: Any = math.inf, R: Any = math.inf, center: Any = None) -> None:
        self.D = _param(D, "D", allow_inf=True)
        self.R = _param(R, "R", allow_inf=True)
        if center is not None and not isinstance(center, Vec):
            raise FairtheoryTypeError(f"center must be a vector of the PEP (Vec) or None, got {type(center).__name__}")
        self.center = center

    def __repr__(self) -> str:
        more = f", R={self.R!r}" if self.R != math.inf else ""
        return f"ConvexIndicator(D={self.D!r}{more})"

    def kernel_class(self) -> dict[str, Any] | None:
        """This class's entry of the trusted kernel's class table (:data:`fairtheory_kernel.classes.TABLE`) with its
        exact parameters: the key and parameters a certificate statement names it by (``None``: not certifiable)."""
        return {"functions": "convex-indicator", "D": _kq(self.D)} if self.R == math.inf else None

    def on_point(self, fn: Any, index: int) -> None:
        if self.R != math.inf and self.center is None:
            self.center = fn.pep.vector()   # "some point": free, its unit the distance unit

    def interpolation(self, points: list[_Point]) -> list[Row]:
        rows: list[Row] = []
        for j, p in enumerate(points):
            if p.f.lin or p.f.quad or p.f.const != 0:
                rows.append((p.f + 0, (j, j)))
                rows.append((-p.f, (j, j)))
        for j, pj, k, pk in _pairs(points):
            rows.append((Scalar([(1, pk.g, pj.x - pk.x)]), (j, k)))   # <g_k, x_j - x_k> <= 0
        if self.D != math.inf:
            for j, pj, k, pk in _pairs(points):
                if j < k:
                    d = pj.x - pk.x
                    rows.append((Scalar([(1, d, d)], {}, -(self.D * self.D)), (j, k)))
        if self.R != math.inf and self.center is not None:
            for j, p in enumerate(points):
                d = p.x - self.center
                rows.append((Scalar([(1, d, d)], {}, -(self.R * self.R)), (j, j)))
        return rows


class SmoothNonconvex:
    r"""``L``-smooth functions, not necessarily convex (gradient ``L``-Lipschitz): the exact interpolation
    condition of Taylor, Hendrickx & Glineur 2017 (SIAM J. Optim.), Thm 3.10, for every ordered pair ``j != k``

    .. math:: f_j \ge f_k - \tfrac L4 \|x_j - x_k\|^2 + \tfrac12\langle g_j + g_k, x_j - x_k\rangle
              + \tfrac1{4L}\|g_j - g_k\|^2

    (PEPit's ``SmoothFunction``).

    Parameters
    ----------
    L : float or Fraction
        smoothness constant, ``0 < L < inf``.
    """

    smooth_convex = False
    differentiable = True
    zero_values = False
    exact = True

    def __init__(self, L: Any) -> None:
        self.L = _param(L, "L")

    def __repr__(self) -> str:
        return f"SmoothNonconvex(L={self.L!r})"

    def kernel_class(self) -> dict[str, Any] | None:
        """This class's entry of the trusted kernel's class table (:data:`fairtheory_kernel.classes.TABLE`) with its
        exact parameters: the key and parameters a certificate statement names it by (``None``: not certifiable)."""
        return {"functions": "smooth-nonconvex", "L": _kq(self.L)}

    def _coefficients(self) -> tuple[Any, Any, Any]:
        L = self.L
        return _div(L, 4), _div(1, 4 * L), (Fraction(1, 2) if _exact(L) else 0.5)

    def _row(self, pj: _Point, pk: _Point) -> Scalar:
        qL, q4L, half = self._coefficients()
        dx = pj.x - pk.x
        dg = pj.g - pk.g
        s = pk.f - pj.f
        s.quad.append((-qL, dx, dx))
        s.quad.append((half, pj.g + pk.g, dx))
        s.quad.append((q4L, dg, dg))
        return s

    def interpolation(self, points: list[_Point]) -> list[Row]:
        """Every ordered pair ``j != k`` (``j`` outer), as array-built rows (:class:`~fairtheory.worstcase.gram.RowBlock`)."""
        arr = _rows.point_arrays(points)
        if arr is None:
            return [(self._row(pj, pk), (j, k)) for j, pj, k, pk in _pairs(points)]
        X, G, fvar, fcoef, fconst = arr
        jj, kk, labels = _ordered_pairs(len(points))
        qL, q4L, half = self._coefficients()
        D, DG = X[jj] - X[kk], G[jj] - G[kk]
        terms = [(float(-qL), D, D), (float(half), G[jj] + G[kk], D), (float(q4L), DG, DG)]
        block = _rows.RowBlock(terms, _rows.difference_lin(fvar, fcoef, kk, jj), fconst[kk] + (-fconst[jj]),
                               lambda i: self._row(points[int(jj[i])], points[int(kk[i])]))
        return list(zip(block.rows(), labels, strict=True))



# ----------------------------------------------------------------------------- the rest of PEPit's catalogue
def _stationary(points: list[_Point], who: Any) -> int:
    """Index of the function's stationary point: the point at the origin with a zero (sub)gradient, declared by
    :meth:`~fairtheory.worstcase.sdp.Function.optimum` (the classes below state conditions relative to it)."""
    for j, p in enumerate(points):
        if not np.any(p.x.c) and not np.any(p.g.c):
            return j
    raise FairtheoryValueError(f"{who!r} states its conditions relative to the minimiser: declare it with f.optimum() "
                               "(x* = 0 with a zero gradient) before solving")


class StronglyConvex:
    r"""Closed proper ``mu``-strongly convex functions (not necessarily smooth): for every ordered pair ``j != k``

    .. math:: f_j \ge f_k + \langle g_k, x_j - x_k\rangle + \tfrac{\mu}{2}\|x_j - x_k\|^2

    **Exact** (Taylor, Hendrickx & Glineur 2017, Math. Prog., Cor 2: ``f - mu/2 ||x||^2`` is closed convex, whose
    interpolation condition is the convex one; PEPit's ``StronglyConvexFunction``).  Nonsmooth: each oracle call
    returns a new subgradient.

    Parameters
    ----------
    mu : float or Fraction
        strong convexity constant, ``0 < mu < inf``.
    """

    smooth_convex = False
    differentiable = False
    zero_values = False
    exact = True
    L = math.inf

    def __init__(self, mu: Any) -> None:
        self.mu = _param(mu, "mu")

    def __repr__(self) -> str:
        return f"StronglyConvex(mu={self.mu!r})"

    def kernel_class(self) -> dict[str, Any] | None:
        """This class's entry of the trusted kernel's class table (:data:`fairtheory_kernel.classes.TABLE`) with its
        exact parameters: the key and parameters a certificate statement names it by (``None``: not certifiable)."""
        return {"functions": "strongly-convex", "mu": _kq(self.mu)}

    def _row(self, pj: _Point, pk: _Point) -> Scalar:
        d = pj.x - pk.x
        s = pk.f - pj.f                       # f_k - f_j + <g_k, x_j - x_k> + mu/2 ||x_j - x_k||^2 <= 0
        s.quad.append((1, pk.g, d))
        s.quad.append((_div(self.mu, 2), d, d))
        return s

    def interpolation(self, points: list[_Point]) -> list[Row]:
        """Every ordered pair ``j != k`` (``j`` outer), as array-built rows (:class:`~fairtheory.worstcase.gram.RowBlock`)."""
        arr = _rows.point_arrays(points)
        if arr is None:
            return [(self._row(pj, pk), (j, k)) for j, pj, k, pk in _pairs(points)]
        X, G, fvar, fcoef, fconst = arr
        jj, kk, labels = _ordered_pairs(len(points))
        D = X[jj] - X[kk]
        block = _rows.RowBlock([(1.0, G[kk], D), (float(_div(self.mu, 2)), D, D)],
                               _rows.difference_lin(fvar, fcoef, kk, jj), fconst[kk] + (-fconst[jj]),
                               lambda i: self._row(points[int(jj[i])], points[int(kk[i])]))
        return list(zip(block.rows(), labels, strict=True))


class SmoothConvexLipschitz:
    r"""``L``-smooth convex functions with gradients bounded by ``M``: the smooth convex rows of
    :class:`SmoothStronglyConvex` ``(L, 0)`` and, per point, ``||g_j||^2 <= M^2`` (PEPit's
    ``SmoothConvexLipschitzFunction``).

    A **relaxation**: every member satisfies the rows (each is a property of the class), but no theorem we know
    shows that every data set satisfying them is interpolated by a member; a worst case computed with this class
    is an upper bound (labelled so, :attr:`exact` is ``False``).

    Parameters
    ----------
    L : smoothness constant, ``0 < L < inf``.  M : gradient bound, ``0 < M < inf``.
    """

    smooth_convex = False
    differentiable = True
    zero_values = False
    exact = False

    def __init__(self, L: Any, M: Any) -> None:
        self.L = _param(L, "L")
        self.M = _param(M, "M")
        self._smooth = SmoothStronglyConvex(self.L, 0)

    def __repr__(self) -> str:
        return f"SmoothConvexLipschitz(L={self.L!r}, M={self.M!r})"

    def interpolation(self, points: list[_Point]) -> list[Row]:
        rows = self._smooth.interpolation(points)
        for j, p in enumerate(points):
            rows.append((Scalar([(1, p.g, p.g)], {}, -(self.M * self.M)), (j, j)))
        return rows


class SmoothStronglyConvexQuadratic:
    r"""Quadratics ``f(x) = 1/2 <x, Q x>`` with ``Q`` symmetric, ``mu I <= Q <= L I`` (minimiser ``x* = 0``, ``f* = 0``).

    A finite set ``(x_i, g_i, f_i)`` is interpolated by such an ``f`` iff (Bousselmi, Hendrickx & Glineur 2023,
    "Interpolation conditions for linear operators and applications to performance estimation problems", Thm 3.9;
    PEPit's ``SmoothStronglyConvexQuadraticFunction``) ``f_i = <x_i, g_i>/2``, ``<x_i, g_j> = <x_j, g_i>`` and the
    matrix ``T_ij = (L + mu) <g_i, x_j> - <g_i, g_j> - mu L <x_i, x_j>`` is positive semidefinite.  **Exact.**

    The builder has one PSD cone (the Gram matrix); ``T >= 0`` is written with one new basis vector ``u_i`` per point
    and the equalities ``<u_i, u_j> = T_ij`` (``i <= j``): ``T`` is then a principal block of the Gram matrix, so
    ``T >= 0``; conversely a feasible ``(G, T)`` with ``T >= 0`` extends to a PSD Gram matrix with ``u`` orthogonal to
    every other vector - the same set of ``(G, F)``.  The rows are added (as equalities of the PEP) when each point is
    created (``on_point``); points at the origin are skipped (their rows vanish: ``g = Q 0 = 0``).

    Parameters
    ----------
    L : float or Fraction
        largest eigenvalue bound, ``0 < L < inf``.
    mu : float or Fraction
        smallest eigenvalue bound, ``0 <= mu < L``.
    """

    smooth_convex = False
    differentiable = True
    zero_values = False
    exact = True

    def __init__(self, L: Any, mu: Any = 0) -> None:
        self.L = _param(L, "L")
        self.mu = _param(mu, "mu", low_inclusive=True)
        if not float(self.mu) < float(self.L):
            raise FairtheoryValueError(f"mu must lie in [0, L) = [0, {float(self.L)!r}), got {mu!r} (mu = L leaves the "
                                       "single function L/2 ||x||^2, gradient L x: its rows T >= 0 have no strictly "
                                       "feasible point; write L x for its gradient instead)")

    def __repr__(self) -> str:
        return f"SmoothStronglyConvexQuadratic(L={self.L!r}, mu={self.mu!r})"

    def kernel_class(self) -> dict[str, Any] | None:
        """This class's entry of the trusted kernel's class table (:data:`fairtheory_kernel.classes.TABLE`): the
        kernel states the same conditions on the differences from ``x*`` (its ``T >= 0`` lifted the same way)."""
        return {"functions": "quadratic", "L": _kq(self.L), "mu": _kq(self.mu)}

    def on_point(self, fn: Any, index: int) -> None:
        p = fn.points[index]
        if not np.any(p.x.c):
            if np.any(p.g.c):
                raise FairtheoryValueError(f"{self!r}: the point at the origin must have gradient 0 (Q 0 = 0); "
                                           "use optimum(), not optimum_of_sum, for a quadratic")
            return
        aux = fn.__dict__.setdefault("_quad_aux", [])
        half = Fraction(1, 2) if fn.pep.exact else 0.5
        fn.pep.add_eq(p.f - Scalar([(half, p.x, p.g)]))          # f_i = <x_i, g_i>/2
        u = fn.pep._new_vector(("grad", fn, None))
        aux.append((p, u))
        Lm, mL = self.L + self.mu, self.mu * self.L
        for q, v in aux:
            if q is not p:
                fn.pep.add_eq(Scalar([(1, p.x, q.g), (-1, q.x, p.g)]))   # <x_i, g_j> = <x_j, g_i>
            # <u_i, u_j> - T_ij = 0
            fn.pep.add_eq(Scalar([(1, u, v), (-Lm, p.g, q.x), (1, p.g, q.g), (mL, p.x, q.x)]))

    def interpolation(self, points: list[_Point]) -> list[Row]:
        return []   # every condition is an equality added by on_point


class ConvexSupport:
    r"""Support functions ``f(x) = sup_{c in C} <c, x>`` of closed convex sets ``C`` within the ball of radius ``M``
    (``M = inf``: any ``C``): per point ``f_j = <g_j, x_j>`` and ``||g_j||^2 <= M^2``, and for every ordered pair
    ``j != k``: ``<x_k, g_j - g_k> <= 0`` (Taylor, Hendrickx & Glineur 2017, SIAM J. Optim., Cor 3.7; PEPit's
    ``ConvexSupportFunction``).  **Exact**: necessity is ``g_j in C`` and ``f(x_k) = <g_k, x_k> >= <g_j, x_k>``;
    sufficiency by ``C = conv{g_j}`` (inside the ball, which is convex): ``max_j <g_j, x_k> = <g_k, x_k>`` is attained
    at ``g_k``, a subgradient of ``sigma_C`` at ``x_k``.  Nonsmooth (a new subgradient per oracle call).

    Parameters
    ----------
    M : float or Fraction
        radius of the ball containing ``C`` (a Lipschitz constant of ``f``), ``0 < M <= inf``.
    """

    smooth_convex = False
    differentiable = False
    zero_values = False
    exact = True
    L = math.inf

    def __init__(self, M: Any = math.inf) -> None:
        self.M = _param(M, "M", allow_inf=True)
        if self.M == math.inf:
            self.M = None  # no Lipschitz unit (fairtheory.worstcase.checked_solve reads M as one)
            self._inf = True
        else:
            self._inf = False

    def __repr__(self) -> str:
        return f"ConvexSupport(M={'inf' if self._inf else repr(self.M)})"

    def kernel_class(self) -> dict[str, Any] | None:
        """This class's entry of the trusted kernel's class table (:data:`fairtheory_kernel.classes.TABLE`) with its
        exact parameters: the key and parameters a certificate statement names it by (``None``: not certifiable)."""
        return {"functions": "convex-support", "M": "inf" if self._inf else _kq(self.M)}

    def interpolation(self, points: list[_Point]) -> list[Row]:
        rows: list[Row] = []
        for j, p in enumerate(points):
            s = Scalar([(1, p.g, p.x)]) - p.f           # <g_j, x_j> - f_j = 0
            rows.append((s, (j, j)))
            rows.append((-s, (j, j)))
            if not self._inf:
                rows.append((Scalar([(1, p.g, p.g)], {}, -(self.M * self.M)), (j, j)))
        for j, pj, k, pk in _pairs(points):
            rows.append((Scalar([(1, pk.x, pj.g - pk.g)]), (j, k)))   # <x_k, g_j - g_k> <= 0
        return rows


class ConvexQG:
    r"""Convex functions with a quadratic upper bound ``f(x) - f* <= L/2 ||x - x*||^2`` (``QG+``, Goujaud, Taylor &
    Dieuleveut 2022, "Optimal first-order methods for convex functions with a quadratic upper bound"): the convex rows
    for every ordered pair and, for every point ``j`` and the minimiser ``(x*, 0, f*)`` (declared by
    :meth:`~fairtheory.worstcase.sdp.Function.optimum`),

    .. math:: f^\star \ge f_j + \langle g_j, x^\star - x_j\rangle + \tfrac1{2L}\|g_j\|^2 .

    **Exact** (ibid., Thm 2.6; PEPit's ``ConvexQGFunction``).  Nonsmooth (a new subgradient per oracle call).

    Parameters
    ----------
    L : float or Fraction
        the quadratic upper bound constant, ``0 < L < inf``.
    """

    smooth_convex = False
    differentiable = False
    zero_values = False
    exact = True

    def __init__(self, L: Any) -> None:
        self.L = _param(L, "L")

    def __repr__(self) -> str:
        return f"ConvexQG(L={self.L!r})"

    def interpolation(self, points: list[_Point]) -> list[Row]:
        s0 = _stationary(points, self)
        ps = points[s0]
        inv2L = _div(1, 2 * self.L)
        rows = Convex().interpolation(points)
        for j, p in enumerate(points):
            if j == s0:
                continue
            s = p.f - ps.f                               # f_j - f* + <g_j, x* - x_j> + ||g_j||^2/(2L) <= 0
            s.quad.append((1, p.g, ps.x - p.x))
            s.quad.append((inv2L, p.g, p.g))
            rows.append((s, (s0, j)))
        return rows


class RsiEb:
    r"""Functions satisfying the lower restricted secant inequality and the upper error bound with respect to the
    minimiser ``x*`` (declared by :meth:`~fairtheory.worstcase.sdp.Function.optimum`): for every point ``j``

    .. math:: \langle g_j - g^\star, x_j - x^\star\rangle \ge \mu \|x_j - x^\star\|^2, \qquad
              \|g_j - g^\star\|^2 \le L^2 \|x_j - x^\star\|^2

    (``RSI^-`` and ``EB^+``; Guille-Escuret, Goujaud, Ibrahim & Mitliagkas 2022, "Gradient descent is optimal under
    lower restricted secant inequality and upper error bound", Thm 1; PEPit's ``RsiEbFunction``, which calls them
    necessary conditions).  Labelled a **relaxation** (:attr:`exact` ``False``): values are upper bounds.  Function
    values do not enter the conditions.

    Parameters
    ----------
    mu : float or Fraction
        RSI constant, ``0 < mu <= L``.
    L : float or Fraction
        error bound constant, ``0 < L < inf``.
    """

    smooth_convex = False
    differentiable = False
    zero_values = False
    exact = False

    def __init__(self, mu: Any, L: Any) -> None:
        self.mu = _param(mu, "mu")
        self.L = _param(L, "L")
        if float(self.mu) > float(self.L):
            raise FairtheoryValueError(f"mu must lie in (0, L] = (0, {float(self.L)!r}], got {mu!r}")

    def __repr__(self) -> str:
        return f"RsiEb(mu={self.mu!r}, L={self.L!r})"

    def interpolation(self, points: list[_Point]) -> list[Row]:
        s0 = _stationary(points, self)
        ps = points[s0]
        rows: list[Row] = []
        for j, p in enumerate(points):
            if j == s0:
                continue
            dx, dg = p.x - ps.x, p.g - ps.g
            rows.append((Scalar([(self.mu, dx, dx), (-1, dg, dx)]), (s0, j)))        # RSI
            rows.append((Scalar([(1, dg, dg), (-(self.L * self.L), dx, dx)]), (s0, j)))  # EB
        return rows


class SmoothQuadraticLojasiewicz:
    r"""``L``-smooth functions satisfying the quadratic Lojasiewicz (Polyak-Lojasiewicz) inequality
    ``f(x) - f* <= ||grad f(x)||^2/(2 mu)``: the smooth (nonconvex) rows of :class:`SmoothNonconvex` for every pair and,
    for every point ``j`` and the minimiser ``(x*, 0, f*)``, ``||g_j||^2/(2L) <= f_j - f* <= ||g_j||^2/(2 mu)``
    (PEPit's ``SmoothQuadraticLojasiewiczFunctionCheap`` without ``alpha``; Rubbens, Hendrickx & Taylor 2025,
    Prop 3.4, with the smoothness rows of Taylor, Hendrickx & Glineur 2017, SIAM J. Optim., Thm 3.10).

    A **relaxation** (no interpolation conditions are known for this class; every member satisfies the rows): a worst
    case is an upper bound (:attr:`exact` ``False``).

    Parameters
    ----------
    L : float or Fraction
        smoothness constant, ``0 < L < inf``.
    mu : float or Fraction
        Lojasiewicz constant, ``0 < mu <= L``.
    """

    smooth_convex = False
    differentiable = True
    zero_values = False
    exact = False

    def __init__(self, L: Any, mu: Any) -> None:
        self.L = _param(L, "L")
        self.mu = _param(mu, "mu")
        if float(self.mu) > float(self.L):
            raise FairtheoryValueError(f"mu must lie in (0, L] = (0, {float(self.L)!r}], got {mu!r}")

    def __repr__(self) -> str:
        return f"SmoothQuadraticLojasiewicz(L={self.L!r}, mu={self.mu!r})"

    def interpolation(self, points: list[_Point]) -> list[Row]:
        s0 = _stationary(points, self)
        ps = points[s0]
        rows = SmoothNonconvex(self.L).interpolation(points)
        i2m, i2L = _div(1, 2 * self.mu), _div(1, 2 * self.L)
        for j, p in enumerate(points):
            if j == s0:
                continue
            up = p.f - ps.f                                # f_j - f* - ||g_j||^2/(2 mu) <= 0
            up.quad.append((-i2m, p.g, p.g))
            lo = ps.f - p.f                                # ||g_j||^2/(2L) - (f_j - f*) <= 0
            lo.quad.append((i2L, p.g, p.g))
            rows.append((up, (s0, j)))
            rows.append((lo, (s0, j)))
        return rows


@runtime_checkable
class Partition(Protocol):
    """What :class:`BlockSmoothConvex` uses of a partition into blocks: :class:`fairtheory.worstcase.steps.BlockPartition`
    (which lives with the step oracles, above the builder: the catalogue names it by this protocol only)."""

    d: int
    pep: Any

    def split(self, v: Vec) -> list[Vec]: ...


class BlockSmoothConvex:
    r"""Convex functions whose gradient is ``L_b``-Lipschitz along each block ``b`` of an orthogonal partition
    (:class:`fairtheory.worstcase.steps.BlockPartition`): for every ordered pair ``j != k`` and every block ``b``

    .. math:: f_j \ge f_k + \langle g_k, x_j - x_k\rangle + \tfrac1{2L_b}\|g_j^{(b)} - g_k^{(b)}\|^2

    (Shi & Liu 2016, "Better worst-case complexity analysis of the block coordinate descent method for large scale
    machine learning", Lemma 1.1; PEPit's ``BlockSmoothConvexFunctionCheap``).  A **relaxation** (necessary, not
    known to be sufficient): values are upper bounds (:attr:`exact` ``False``).  Every gradient is split into its
    blocks when its point is created (``on_point``).  With one block it is :class:`SmoothStronglyConvex` ``(L, 0)``.

    Parameters
    ----------
    partition : BlockPartition
        the blocks (of one PEP).
    L : sequence of float or Fraction
        one smoothness constant per block, each ``0 < L_b < inf``.
    """

    smooth_convex = False
    differentiable = True
    zero_values = False
    exact = False

    def __init__(self, partition: Any, L: Any) -> None:
        if not isinstance(partition, Partition):
            raise FairtheoryTypeError(f"partition must be a BlockPartition, got {type(partition).__name__}")
        if isinstance(L, (str, bytes)) or not hasattr(L, "__len__") or len(L) != partition.d:
            raise FairtheoryValueError(f"L must hold one smoothness constant per block ({partition.d}), got {L!r}")
        self.partition = partition
        self.L_blocks = [_param(v, f"L[{b}]") for b, v in enumerate(L)]
        self.L = max(self.L_blocks, key=float)

    def __repr__(self) -> str:
        return f"BlockSmoothConvex(d={self.partition.d}, L={self.L_blocks!r})"

    def on_point(self, fn: Any, index: int) -> None:
        if fn.pep is not self.partition.pep:
            raise FairtheoryValueError("BlockSmoothConvex: the partition belongs to another PEP")
        self.partition.split(fn.points[index].g)

    def interpolation(self, points: list[_Point]) -> list[Row]:
        rows: list[Row] = []
        inv = [_div(1, 2 * Lb) for Lb in self.L_blocks]
        for j, pj, k, pk in _pairs(points):
            for b, c in enumerate(inv):
                db = self.partition.block(pj.g, b) - self.partition.block(pk.g, b)
                s = pk.f - pj.f
                s.quad.append((1, pk.g, pj.x - pk.x))
                s.quad.append((c, db, db))
                rows.append((s, (j, k)))
        return rows



#: the classes :func:`rescale` rebuilds from their declared dimensions (:data:`fairtheory.worstcase.units.DIMENSIONS`)
_RESCALABLE: tuple[type, ...] = ()


def rescale(cls: Any, a: Any, b: Any) -> Any:
    r"""The class of ``x' -> f(a x')/b`` for ``f`` in ``cls`` (``a, b > 0``): the traced backend's normalised units
    (:mod:`fairtheory.worstcase.pep_problem`: ``a = s`` the distance unit, ``b = S`` the value unit).  With ``x' = x/a``,
    ``f' = f/b`` and ``g' = a g/b``: curvature constants (``L``, ``mu`` of every class) become ``c a^2/b``, gradient bounds
    (``M``) ``M a/b``, distances (``D``, ``R``) ``D/a``; :class:`Convex` is unchanged - in general a parameter of
    dimension ``space^p value^q`` (:data:`fairtheory.worstcase.units.DIMENSIONS`) becomes ``c / (a^p b^q)``, rounded once.
    An exact rescaling - the worst
    case in the new units times ``b`` is the worst case in the old.  Classes tied to one PEP (an indicator with a given
    center, :class:`BlockSmoothConvex`) and classes this function does not know are refused by name."""

    if getattr(cls, "is_operator", False):  # fairtheory.worstcase.operators: outputs scale as gradients
        return cls.rescaled(a, b)
    units.factor(1, 1, a, b)  # a, b > 0, named
    if isinstance(cls, ConvexIndicator) and cls.center is not None:
        raise FairtheoryValueError("a ConvexIndicator with a given center belongs to one PEP; in a traced worst "
                                   "case leave center=None")
    if type(cls) in _RESCALABLE:
        if isinstance(cls, ConvexSupport) and cls._inf:
            return ConvexSupport(math.inf)
        kw = units.rescaled(cls, a, b)   # c' = c / (a^p b^q), p, q from units.DIMENSIONS
        if isinstance(cls, Convex) and type(cls) is Convex:
            return Convex(reuse_gradient=cls.differentiable)
        return type(cls)(**kw)
    raise FairtheoryTypeError(f"{cls!r} cannot be rescaled (a class tied to one PEP, e.g. BlockSmoothConvex, or one this "
                              "function does not know): it cannot serve as a traced client's class")


def needs_own_minimiser(cls: Any) -> bool:
    """Whether the class's conditions refer to the function's own minimiser (``x* = 0`` with a zero gradient):
    ``ConvexQG``, ``RsiEb``, ``SmoothQuadraticLojasiewicz``, ``SmoothStronglyConvexQuadratic``."""
    return isinstance(cls, (ConvexQG, RsiEb, SmoothQuadraticLojasiewicz, SmoothStronglyConvexQuadratic))

def as_class(spec: Any) -> Any:
    """A function class from what :meth:`PEP.function` was given: a class object, or a number ``L`` (the
    ``L``-smooth convex class)."""
    if isinstance(spec, type):
        raise FairtheoryTypeError(f"function class must be an instance (e.g. Convex()), got the type {spec.__name__}")
    if hasattr(spec, "interpolation") and hasattr(spec, "smooth_convex"):
        return spec
    return SmoothStronglyConvex(spec, 0)


_RESCALABLE = (SmoothStronglyConvex, Convex, ConvexLipschitz, ConvexIndicator, SmoothNonconvex, StronglyConvex,
               SmoothConvexLipschitz, SmoothStronglyConvexQuadratic, ConvexSupport, ConvexQG, RsiEb,
               SmoothQuadraticLojasiewicz)
