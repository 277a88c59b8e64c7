r"""Homogeneity as one mechanism: how every parameter of the catalogue scales with the units.

A performance-estimation problem is homogeneous (Drori & Teboulle 2014, Sec. 2; Taylor, Hendrickx & Glineur 2017,
Sec. 2): with ``x = a x'`` (unit of space ``a > 0``) and ``f = b f'`` (unit of value ``b > 0``), gradients become
``g = (b/a) g'`` and a parameter of *dimension* ``space^p value^q`` becomes ``c = a^p b^q c'``.  The worst case of a
measure of dimension ``space^p value^q`` is then exactly ``a^p b^q`` times the worst case of the normalised problem,
whose parameters are ``c' = c / (a^p b^q)``.

:data:`DIMENSIONS` declares ``(p, q)`` for every parameter of every function class, operator class and step of
the catalogue (:mod:`fairtheory.worstcase.classes`, :mod:`fairtheory.worstcase.operators`,
:mod:`fairtheory.worstcase.steps`), and the saddle PEP (:mod:`fairtheory.worstcase.minmax`, whose primal and dual
spaces have units of their own).  Examples:

===========================================  ===================  =====================
parameter                                    dimension            ``(p, q)``
===========================================  ===================  =====================
smoothness / strong convexity ``L``, ``mu``  value / space^2      ``(-2, 1)``
Lipschitz constant ``M`` (gradient bound)    value / space        ``(-1, 1)``
diameter ``D``, radius ``R``                 space                ``(1, 0)``
step size ``gamma``                          space^2 / value      ``(2, -1)``
noise variance ``sigma2``                    (value / space)^2    ``(-2, 2)``
cocoercivity ``beta``, comonotonicity rho    space^2 / value      ``(2, -1)``
``eps`` of an eps-subgradient                value                ``(0, 1)``
relative inexactness, ``theta``, ``n``       dimensionless        ``(0, 0)``
===========================================  ===================  =====================

(an operator's output scales as a gradient: ``value/space``.)  :func:`pow2` rounds a unit to a power of two, so the
normalisation ``c' = c / (a^p b^q)`` and the map back are exact in float64 (a scaling by a power of two is exact
barring overflow/underflow); :func:`factor` is that exact factor, :func:`normalise` a parameter, :func:`rescaled`
a class, generically from its declaration.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError

__all__ = ["DEAD_ZONE", "DIMENSIONS", "STEP_DIMENSIONS", "SADDLE_DIMENSIONS", "dimensions", "pow2", "factor", "normalise",
           "rescaled", "unit_from"]

#: value / space^2, value / space, space, space^2 / value, value, (value / space)^2, dimensionless
CURV, GRAD, SPACE, STEP, VALUE, VAR, NONE = (-2, 1), (-1, 1), (1, 0), (2, -1), (0, 1), (-2, 2), (0, 0)

#: ``class name -> {parameter: (p, q)}``: every function and operator class of the catalogue
DIMENSIONS: dict[str, dict[str, tuple[int, int]]] = {
    # fairtheory.worstcase.classes
    "SmoothStronglyConvex": {"L": CURV, "mu": CURV},
    "Convex": {},
    "ConvexLipschitz": {"M": GRAD},
    "ConvexIndicator": {"D": SPACE, "R": SPACE},
    "SmoothNonconvex": {"L": CURV},
    "StronglyConvex": {"mu": CURV},
    "SmoothConvexLipschitz": {"L": CURV, "M": GRAD},
    "SmoothStronglyConvexQuadratic": {"L": CURV, "mu": CURV},
    "ConvexSupport": {"M": GRAD},
    "ConvexQG": {"L": CURV},
    "RsiEb": {"mu": CURV, "L": CURV},
    "SmoothQuadraticLojasiewicz": {"L": CURV, "mu": CURV},
    "BlockSmoothConvex": {"L": CURV},
    # fairtheory.worstcase.operators (outputs scale as gradients, value/space)
    "Monotone": {},
    "StronglyMonotone": {"mu": CURV},
    "Lipschitz": {"L": CURV},
    "Nonexpansive": {"L": CURV},
    "LipschitzStronglyMonotone": {"L": CURV, "mu": CURV},
    "Cocoercive": {"beta": STEP},
    "CocoerciveStronglyMonotone": {"beta": STEP, "mu": CURV},
    "NegativelyComonotone": {"rho": STEP},
    "Linear": {"L": CURV},
    "SymmetricLinear": {"L": CURV, "mu": CURV},
    "SkewSymmetricLinear": {"L": CURV},
}

#: ``step name -> {parameter: (p, q)}``: every step of :mod:`fairtheory.worstcase.steps` and of the operator module
STEP_DIMENSIONS: dict[str, dict[str, tuple[int, int]]] = {
    "epsilon_subgradient_step": {"gamma": STEP, "eps": VALUE},
    "exact_linesearch_step": {},
    "linear_optimization_step": {},
    "bregman_gradient_step": {"gamma": STEP},
    "bregman_proximal_step": {"gamma": STEP},
    "inexact_proximal_step": {"gamma": STEP, "eps": (2, 0)},   # the gap bound of Phi_p = gamma f + ||x - x0||^2/2
    "inexact_gradient": {"eps": NONE},                          # relative; "absolute": eps ~ value/space
    "proximal_step": {"gamma": STEP},
    "resolvent": {"gamma": STEP},
    "gradient_step": {"gamma": STEP},
    "noise": {"sigma2": VAR},
    "initial_distance": {"D0": (2, 0)},
    "heterogeneity": {"rho2": VAR},
}

#: the saddle PEP (:class:`fairtheory.worstcase.minmax.SaddlePEP`): ``(p_w, p_lam, q)`` for the primal space, the dual
#: space and the value (``L(w, lambda)``)
SADDLE_DIMENSIONS: dict[str, tuple[int, int, int]] = {
    "D_w": (1, 0, 0), "D_lam": (0, 1, 0), "G_w": (-1, 0, 1), "G_lam": (0, -1, 1),
    "lr": (2, 0, -1), "dual_lr": (0, 2, -1), "gap": (0, 0, 1),
}


def dimensions(obj: Any) -> dict[str, tuple[int, int]]:
    """The declared ``{parameter: (p, q)}`` of a class instance (or class, or name); unknown names are refused."""
    name = obj if isinstance(obj, str) else (obj.__name__ if isinstance(obj, type) else type(obj).__name__)
    if name in DIMENSIONS:
        return DIMENSIONS[name]
    if name in STEP_DIMENSIONS:
        return STEP_DIMENSIONS[name]
    raise FairtheoryTypeError(f"{name!r} declares no dimensions (fairtheory.worstcase.units.DIMENSIONS)")


#: units ``2^e`` with ``|e| <=`` this are taken as 1 by :func:`pow2` ``(dead_zone=True)``: a problem already at unit scale
#: keeps its data bit for bit (the value of :data:`fairtheory.worstcase.checked_solve.DEAD_ZONE`)
DEAD_ZONE = 4


def pow2(x: Any, dead_zone: bool = False) -> Fraction:
    """``2^round(log2 x)`` as an exact :class:`~fractions.Fraction` (``x > 0`` finite; 1 otherwise); with
    ``dead_zone``, 1 when ``|round(log2 x)| <= DEAD_ZONE``."""
    xf = float(x)
    if not (xf > 0 and math.isfinite(xf)):
        return Fraction(1)
    e = round(math.log2(xf))
    if dead_zone and abs(e) <= DEAD_ZONE:
        return Fraction(1)
    return Fraction(2) ** e


def factor(p: int, q: int, a: Any, b: Any) -> Fraction:
    """The exact factor ``a^p b^q`` (``a``, ``b`` positive rationals or floats, taken exactly)."""
    fa, fb = Fraction(a), Fraction(b)
    if fa <= 0 or fb <= 0:
        raise FairtheoryValueError(f"a and b (the units of space and value) must be positive, got {a!r}, {b!r}")
    return fa ** p * fb ** q


def normalise(c: Any, dim: tuple[int, int], a: Any, b: Any) -> float:
    """``c / (a^p b^q)`` rounded once (``inf`` stays ``inf``)."""
    if isinstance(c, float) and math.isinf(c):
        return c
    return float(Fraction(c) / factor(dim[0], dim[1], a, b))


def unit_from(c: Any, dim: tuple[int, int], a: Any) -> Fraction | None:
    """The unit of value ``b`` at which the parameter ``c`` of dimension ``(p, q)`` (``q != 0``) is 1, given the unit of
    space ``a``: ``b = (c / a^p)^(1/q)`` rounded to a power of two (``None`` when ``q == 0`` or ``c`` is not a
    positive finite number)."""
    p, q = dim
    cf = float(c)
    if q == 0 or not (cf > 0 and math.isfinite(cf)):
        return None
    return pow2((cf / float(a) ** p) ** (1.0 / q))


def rescaled(cls: Any, a: Any, b: Any) -> dict[str, Any]:
    """The parameters of ``cls`` in the units ``(a, b)``: ``{name: c / (a^p b^q)}`` over :func:`dimensions`."""
    out = {}
    for name, dim in dimensions(cls).items():
        c = getattr(cls, name)
        out[name] = normalise(c, dim, a, b)
    return out
