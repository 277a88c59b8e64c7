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
from typing import TYPE_CHECKING, Any, Protocol

from fairtheory._validation import check_in_range
from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase.sdp import Scalar, num

if TYPE_CHECKING:
    from fairtheory.worstcase.sdp import _Point

__all__ = ["FunctionClass", "SmoothStronglyConvex", "Convex", "ConvexLipschitz", "ConvexIndicator",
           "SmoothNonconvex", "Row"]

#: one interpolation row ``r <= 0`` with the point indices ``(j, k)`` it involves (``(j, j)``: a per-point row)
Row = tuple[Scalar, tuple[int, int]]


def _exact(*xs: Any) -> bool:
    return all(isinstance(x, (Fraction, int)) and not isinstance(x, bool) for x in xs)


def _div(a: Any, b: Any) -> Any:
    """``a / b``, exact when both are ``int`` / :class:`Fraction`."""
    return Fraction(a) / b if _exact(a, b) else float(a) / float(b)


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

    def interpolation(self, points: list[_Point]) -> list[Row]:
        L, mu = self.L, self.mu
        inv2L = Fraction(1, 2) / L if isinstance(L, (Fraction, int)) else 0.5 / L
        c = _div(mu, 2 * (1 - _div(mu, L))) if mu != 0 else 0
        invL = _div(1, L)
        rows: list[Row] = []
        for j, pj, k, pk in _pairs(points):
            # f_k - f_j + <g_k, x_j - x_k> + 1/(2L) ||g_j - g_k||^2 [+ c ||x_j - x_k - (g_j - g_k)/L||^2] <= 0
            dg = pj.g - pk.g
            s = pk.f - pj.f
            s.quad.append((1, pk.g, pj.x - pk.x))
            s.quad.append((inv2L, dg, dg))
            if mu != 0:
                w = (pj.x - pk.x) - invL * dg
                s.quad.append((c, w, w))
            rows.append((s, (j, k)))
        return rows


class Convex:
    r"""Closed proper convex functions (subgradients): for every ordered pair ``j != k``

    .. math:: f_j \ge f_k + \langle g_k, x_j - x_k\rangle

    (Taylor, Hendrickx & Glineur 2017, SIAM J. Optim., Thm 3.5 with ``M = inf``; PEPit's ``ConvexFunction``).
    Nonsmooth: each oracle call returns a new subgradient."""

    smooth_convex = False
    differentiable = False
    zero_values = False
    L = math.inf

    def __repr__(self) -> str:
        return "Convex()"

    def interpolation(self, points: list[_Point]) -> list[Row]:
        rows: list[Row] = []
        for j, pj, k, pk in _pairs(points):
            s = pk.f - pj.f                         # f_k - f_j + <g_k, x_j - x_k> <= 0
            s.quad.append((1, pk.g, pj.x - pk.x))
            rows.append((s, (j, k)))
        return rows


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

    def interpolation(self, points: list[_Point]) -> list[Row]:
        rows: list[Row] = []
        for j, p in enumerate(points):
            s = Scalar([(1, p.g, p.g)], {}, -(self.M * self.M))   # ||g_j||^2 - M^2 <= 0
            rows.append((s, (j, j)))
        return rows + super().interpolation(points)


class ConvexIndicator:
    r"""Indicators of closed convex sets ``C`` (``f = 0`` on ``C``, ``g`` a normal vector), of diameter at most
    ``D`` (``D = inf``: unbounded): per point ``f_j = 0`` and for every ordered pair ``j != k``

    .. math:: \langle g_k, x_j - x_k\rangle \le 0, \qquad \|x_j - x_k\|^2 \le D^2 \ (j < k,\ D < \infty)

    (Taylor, Hendrickx & Glineur 2017, SIAM J. Optim., Thm 3.6; PEPit's ``ConvexIndicatorFunction``).  Points
    the oracle creates get the constant value ``0``; a point added with a value variable gets the two rows
    ``f_j <= 0``, ``-f_j <= 0``.

    Parameters
    ----------
    D : float or Fraction
        diameter bound, ``0 < D <= inf``.
    """

    smooth_convex = False
    differentiable = False
    zero_values = True
    L = math.inf

    def __init__(self, D: Any = math.inf) -> None:
        self.D = _param(D, "D", allow_inf=True)

    def __repr__(self) -> str:
        return f"ConvexIndicator(D={self.D!r})"

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

    def __init__(self, L: Any) -> None:
        self.L = _param(L, "L")

    def __repr__(self) -> str:
        return f"SmoothNonconvex(L={self.L!r})"

    def interpolation(self, points: list[_Point]) -> list[Row]:
        L = self.L
        qL, q4L, half = _div(L, 4), _div(1, 4 * L), (Fraction(1, 2) if _exact(L) else 0.5)
        rows: list[Row] = []
        for j, pj, k, pk in _pairs(points):
            dx = pj.x - pk.x
            dg = pj.g - pk.g
            s = pk.f - pj.f
            s.quad.append((-qL, dx, dx))
            s.quad.append((half, pj.g + pk.g, dx))
            s.quad.append((q4L, dg, dg))
            rows.append((s, (j, k)))
        return rows


def as_class(spec: Any) -> Any:
    """A function class from what :meth:`PEP.function` was given: a class object, or a number ``L`` (the
    ``L``-smooth convex class)."""
    if isinstance(spec, type):
        raise FairtheoryTypeError(f"function class must be an instance (e.g. Convex()), got the type {spec.__name__}")
    if hasattr(spec, "interpolation") and hasattr(spec, "smooth_convex"):
        return spec
    return SmoothStronglyConvex(spec, 0)
