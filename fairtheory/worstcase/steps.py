r"""Step oracles of PEPit's catalogue for the hand-written PEP builder (:class:`fairtheory.worstcase.sdp.PEP`).

Each step is the *optimality condition* of the step written on the PEP's symbolic vectors, as in PEPit's
``primitive_steps`` (Goujaud et al. 2024, Math. Prog. Comp.) - new basis vectors for what the condition leaves free,
new points of the functions involved, and the rows that tie them:

* :func:`epsilon_subgradient_step` - ``g in d_eps f(x0)`` iff ``f(x0) + f^*(g) - <g, x0> <= eps``; ``f^*(g) = <g, y> -
  f(y)`` at a point ``y`` with ``g in df(y)`` (a new point of ``f``), ``eps`` returned as a free variable the caller
  bounds (Rockafellar 1970, Thm 23.5 and Sec. 24);
* :func:`exact_linesearch_step` - ``x`` with ``<grad f(x), x - x0> = 0`` and ``grad f(x)`` orthogonal to given
  directions (the PEP formulation of exact line search of de Klerk, Glineur & Taylor 2017, Sec. 2; for subspace
  searches Drori & Taylor 2020): a new point ``x`` that the rows constrain - a relaxation of "``x`` minimises ``f`` on
  ``x0 + span(directions)``" that keeps the first-order conditions, PEPit's ``exact_linesearch_step``;
* :func:`linear_optimization_step` - ``x in argmin_{x in C} <d, x>`` iff ``-d in N_C(x)`` (a new point of the
  indicator of ``C`` with normal vector ``-d``; Frank-Wolfe's oracle, Jaggi 2013);
* :func:`bregman_gradient_step` - ``x = argmin <g0, x> + D_h(x, x0)/gamma`` iff ``grad h(x) = grad h(x0) - gamma g0``
  (Bauschke, Bolte & Teboulle 2017; Dragomir, Taylor, d'Aspremont & Bolte 2021): a new point of ``h`` whose gradient
  is given;
* :func:`bregman_proximal_step` - ``x = argmin f(x) + D_h(x, x0)/gamma`` iff ``grad h(x) = grad h(x0) - gamma g``,
  ``g in df(x)``: new points of ``f`` and ``h``;
* :func:`inexact_proximal_step` - an approximate proximal step whose primal-dual gap is at most a returned variable
  ``eps`` (Barre, Taylor & Bach 2023, "Principled analyses and design of first-order methods with inexact proximal
  operators", Sec. 2; PEPit's three options ``PD_gapI``, ``PD_gapII``, ``PD_gapIII``);
* :func:`inexact_gradient` - ``d`` with ``||d - grad f(x)|| <= eps`` (``"absolute"``) or ``<= eps ||grad f(x)||``
  (``"relative"``, :meth:`Function.inexact_grad`; de Klerk, Glineur & Taylor 2020).

:class:`Combination` is a linear combination ``sum_i c_i f_i`` of the PEP's functions (a mirror map ``h = (d + f)/L``
of a relatively smooth pair, a composite objective): its oracle combines the leaves', and a point added with a given
gradient gets new subgradients for every leaf but the last, whose subgradient the sum determines.
:class:`BlockPartition` splits vectors into ``d`` mutually orthogonal blocks (coordinate methods; the block-smooth
class :class:`fairtheory.worstcase.classes.BlockSmoothConvex`).  See docs/worstcase.md, "Function classes and step
oracles".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase.gram import Scalar, Vec, _step, inner, num, sqnorm
from fairtheory.worstcase.sdp import PEP, Function

__all__ = ["Combination", "BlockPartition", "epsilon_subgradient_step", "exact_linesearch_step",
           "linear_optimization_step", "bregman_gradient_step", "bregman_proximal_step", "inexact_proximal_step",
           "inexact_gradient"]


def _function(f: Any, name: str) -> Function:
    if not isinstance(f, Function):
        raise FairtheoryTypeError(f"{name} must be a function of the PEP (PEP.function(...)), got {type(f).__name__}")
    return f


def _vec(v: Any, name: str, pep: PEP | None = None) -> Vec:
    """``v`` as a vector of ``pep``: a :class:`Vec` with no coordinate beyond ``pep``'s basis (a vector with more
    coordinates than ``pep`` has basis vectors belongs to another PEP - refused by name; vectors carry no owner, so a
    shorter vector of another PEP is indistinguishable from one of ``pep``)."""
    if not isinstance(v, Vec):
        raise FairtheoryTypeError(f"{name} must be a vector of the PEP (Vec), got {type(v).__name__}")
    if pep is not None and v.c.size > pep.dim:
        raise FairtheoryValueError(f"{name} is a vector of another PEP: it has coordinates on {v.c.size} basis vectors, "
                                   f"this PEP has {pep.dim}")
    return v


class Combination:
    r"""``h = sum_i c_i f_i`` for functions ``f_i`` of one PEP and nonzero coefficients ``c_i`` (PEPit's sums and
    multiples of functions).  ``oracle(x)`` returns ``(sum_i c_i g_i(x), sum_i c_i f_i(x))``; ``add_point(x, g)``
    declares ``g`` a (sub)gradient of ``h`` at a new point ``x``: each leaf but the last gets a new subgradient and value
    (``0`` for indicators), the last leaf the subgradient ``(g - sum_{i<last} c_i g_i)/c_last`` - every decomposition of
    ``g`` into leaf subgradients is one of these (the sum rule, Rockafellar 1970, Thm 23.8).

    Parameters
    ----------
    terms : sequence of ``(coefficient, Function)``
        at least one; coefficients finite and nonzero, functions distinct and of one PEP.
    """

    def __init__(self, terms: Sequence[tuple[Any, Function]]) -> None:
        if isinstance(terms, (str, bytes)) or not isinstance(terms, Sequence) or not terms:
            raise FairtheoryValueError("terms must be a non-empty list of (coefficient, Function) pairs")
        out = []
        for k, t in enumerate(terms):
            if not isinstance(t, tuple) or len(t) != 2:
                raise FairtheoryTypeError(f"terms[{k}] must be a (coefficient, Function) pair, got {t!r}")
            try:
                c = num(t[0])
            except (FairtheoryTypeError, FairtheoryValueError) as exc:
                raise type(exc)(f"terms[{k}][0] (the coefficient) must be a finite real number, got {t[0]!r}") from exc
            f = _function(t[1], f"terms[{k}][1]")
            if c == 0:
                raise FairtheoryValueError(f"terms[{k}]: the coefficient must be nonzero")
            out.append((c, f))
        if len({id(f) for _, f in out}) != len(out) or len({id(f.pep) for _, f in out}) != 1:
            raise FairtheoryValueError("terms must hold distinct functions of one PEP")
        self.terms = out
        self.pep: PEP = out[0][1].pep

    def oracle(self, x: Vec) -> tuple[Vec, Scalar]:
        x = _vec(x, "x", self.pep)
        g, val = self.pep.zero(), Scalar()
        for c, f in self.terms:
            gi, fi = f.oracle(x)
            g, val = g + c * gi, val + c * fi
        return g, val

    def grad(self, x: Vec) -> Vec:
        return self.oracle(x)[0]

    def value(self, x: Vec) -> Scalar:
        val = Scalar()
        for c, f in self.terms:
            val = val + c * f.value(x)
        return val

    def add_point(self, x: Vec, g: Vec) -> Scalar:
        """Declare ``g`` a subgradient of ``h`` at ``x`` (class doc); returns ``h(x)``."""
        rest = g
        val = Scalar()
        for c, f in self.terms[:-1]:
            gi = f._new_grad()
            fi = f._new_value()
            f.add_point(x, gi, fi)
            rest = rest - c * gi
            val = val + c * fi
        c, f = self.terms[-1]
        fl = f._new_value()
        f.add_point(x, rest / c, fl)
        return val + c * fl


def _add_point(h: Any, x: Vec, g: Vec) -> Scalar:
    """Add ``(x, g, new value)`` to a :class:`Function` or a :class:`Combination`; returns the value."""
    if isinstance(h, Combination):
        return h.add_point(x, g)
    h = _function(h, "mirror")
    fv = h._new_value()
    h.add_point(x, g, fv)
    return fv


class BlockPartition:
    r"""A partition of the space into ``d`` mutually orthogonal blocks (PEPit's ``BlockPartition``): the first time a
    vector ``v`` is asked for, it is split as ``v = v^(0) + ... + v^(d-1)`` with ``d - 1`` new basis vectors (the last
    block is the remainder) and the equalities ``<v^(b), w^(c)> = 0`` for ``b != c`` against itself and every vector
    split before - exactly the data of orthogonal subspaces ``V_b`` (their spans) with ``v^(b)`` the projection of ``v``
    on ``V_b``.  ``d = 1``: the one block is ``v`` itself.

    Parameters
    ----------
    pep : PEP
    d : int
        number of blocks, ``>= 1``.
    """

    def __init__(self, pep: PEP, d: int) -> None:
        if not isinstance(pep, PEP):
            raise FairtheoryTypeError(f"pep must be a PEP, got {type(pep).__name__}")
        if isinstance(d, bool) or not isinstance(d, int) or d < 1:
            raise FairtheoryValueError(f"d (the number of blocks) must be an integer >= 1, got {d!r}")
        self.pep, self.d = pep, d
        self._parts: dict[bytes, list[Vec]] = {}
        self._order: list[list[Vec]] = []

    def split(self, v: Vec) -> list[Vec]:
        """The blocks ``[v^(0), ..., v^(d-1)]`` of ``v`` (class doc)."""
        v = _vec(v, "v", self.pep)
        key = v.key()
        if key in self._parts:
            return self._parts[key]
        if self.d == 1:
            parts = [v]
        elif not v.c.any():
            parts = [self.pep.zero() for _ in range(self.d)]
        else:
            free = [self.pep.vector() for _ in range(self.d - 1)]
            last = v
            for u in free:
                last = last - u
            parts = [*free, last]
            for b in range(self.d):
                for c in range(self.d):
                    if b < c:
                        self.pep.add_eq(inner(parts[b], parts[c]))
                    if b != c:
                        for other in self._order:
                            self.pep.add_eq(inner(parts[b], other[c]))
            self._order.append(parts)
        self._parts[key] = parts
        return parts

    def block(self, v: Vec, b: int) -> Vec:
        """Block ``b`` (``0 <= b < d``) of ``v``."""
        if isinstance(b, bool) or not isinstance(b, int) or not 0 <= b < self.d:
            raise FairtheoryValueError(f"b (the block) must be an integer in [0, {self.d}), got {b!r}")
        return self.split(v)[b]


def epsilon_subgradient_step(f: Function, x0: Vec, gamma: Any) -> tuple[Vec, Vec, Scalar, Scalar]:
    r"""``x = x0 - gamma g`` with ``g`` an ``eps``-subgradient of ``f`` at ``x0``, ``f(z) >= f(x0) + <g, z - x0> - eps``
    for all ``z`` - equivalently ``f(x0) + f^*(g) - <g, x0> <= eps`` (Rockafellar 1970, Thm 23.5 and Sec. 24).  ``g`` is
    a new basis vector, ``f^*(g) = <g, y> - f(y)`` at a new point ``(y, g, f(y))`` of ``f``, and the row
    ``f(x0) + <g, y> - f(y) - <g, x0> - eps <= 0`` with ``eps`` a new variable the caller bounds (PEPit's
    ``epsilon_subgradient_step``).  Returns ``(x, g, f(x0), eps)``."""
    f = _function(f, "f")
    x0 = _vec(x0, "x0", f.pep)
    gm = _step(gamma, "gamma", "the step size", low_open=False)
    f0 = f.value(x0)
    g = f._new_grad()
    y = f.pep.vector()
    fy = f._new_value()
    f.add_point(y, g, fy)
    eps = f.pep.value()
    f.pep.add_le(f0 + inner(g, y) - fy - inner(g, x0) - eps)
    return x0 - gm * g, g, f0, eps


def exact_linesearch_step(f: Function, x0: Vec, directions: Sequence[Vec]) -> tuple[Vec, Vec, Scalar]:
    r"""Exact line (subspace) search from ``x0`` (PEPit's ``exact_linesearch_step``): a new point ``x`` with gradient
    ``g = grad f(x)`` and the equalities ``<g, x - x0> = 0`` and ``<g, d> = 0`` for every direction ``d`` - the
    first-order conditions of ``x in argmin_{x0 + span(directions)} f``, written without ``x in x0 + span`` (de Klerk,
    Glineur & Taylor 2017, "On the worst-case complexity of the gradient method with exact line searches for smooth
    strongly convex functions", Sec. 2: for gradient descent the relaxation attains the exact rate).  Returns
    ``(x, g, f(x))``."""
    f = _function(f, "f")
    x0 = _vec(x0, "x0", f.pep)
    if isinstance(directions, Vec):
        directions = [directions]
    if isinstance(directions, (str, bytes)) or not isinstance(directions, Sequence):
        raise FairtheoryTypeError(f"directions must be a list of vectors of the PEP (Vec), got {type(directions).__name__}")
    dirs = [_vec(d, f"directions[{k}]", f.pep) for k, d in enumerate(directions)]
    if not dirs:
        raise FairtheoryValueError("directions must hold at least one search direction")
    x = f.pep.vector()
    g, fx = f.oracle(x)
    f.pep.add_eq(inner(g, x - x0))
    for d in dirs:
        f.pep.add_eq(inner(g, d))
    return x, g, fx


def linear_optimization_step(ind: Function, direction: Vec) -> tuple[Vec, Vec, Scalar]:
    r"""The linear minimisation oracle of a convex set ``C`` (Frank-Wolfe's, Jaggi 2013): ``x in argmin_{x in C}
    <direction, x>`` iff ``-direction in N_C(x)``, so ``(x, -direction, 0)`` with ``x`` a new basis vector is a new point
    of the indicator ``ind`` (:class:`~fairtheory.worstcase.classes.ConvexIndicator`; PEPit's
    ``linear_optimization_step``).  Returns ``(x, -direction, 0)``."""
    ind = _function(ind, "ind")
    direction = _vec(direction, "direction", ind.pep)
    if not ind.cls.zero_values:
        raise FairtheoryValueError(f"linear_optimization_step needs the indicator of a set (ConvexIndicator), "
                                   f"{ind.name} is {ind.cls!r}")
    x = ind.pep.vector()
    g = -direction
    ind.add_point(x, g, Scalar())
    return x, g, Scalar()


def bregman_gradient_step(mirror: Any, sx0: Vec, gx0: Vec, gamma: Any) -> tuple[Vec, Vec, Scalar]:
    r"""The Bregman (mirror) gradient step ``x = argmin_x <gx0, x - x0> + D_h(x, x0)/gamma`` with ``sx0 = grad h(x0)``:
    its optimality condition ``grad h(x) = sx0 - gamma gx0`` (Bauschke, Bolte & Teboulle 2017, "A descent lemma beyond
    Lipschitz gradient continuity"), so ``x`` is a new basis vector and ``(x, sx0 - gamma gx0, h(x))`` a new point of the
    mirror map ``h`` (a :class:`Function` or a :class:`Combination`; PEPit's ``bregman_gradient_step``).  Returns
    ``(x, grad h(x), h(x))``."""
    pep = mirror.pep if isinstance(mirror, Combination) else _function(mirror, "mirror").pep
    sx0, gx0 = _vec(sx0, "sx0", pep), _vec(gx0, "gx0", pep)
    gm = _step(gamma, "gamma", "the step size", low_open=True)
    x = pep.vector()
    sx = sx0 - gm * gx0
    hx = _add_point(mirror, x, sx)
    return x, sx, hx


def bregman_proximal_step(mirror: Any, f: Function, sx0: Vec, gamma: Any) -> tuple[Vec, Vec, Scalar, Vec, Scalar]:
    r"""The Bregman proximal step ``x = argmin_x f(x) + D_h(x, x0)/gamma`` with ``sx0 = grad h(x0)``: ``grad h(x) = sx0 -
    gamma g`` with ``g in df(x)`` (Teboulle 2018, "A simplified view of first order methods for optimization", Sec. 4),
    so ``x`` and ``g`` are new basis vectors, ``(x, g, f(x))`` a new point of ``f`` and ``(x, sx0 - gamma g, h(x))`` one of
    ``h`` (PEPit's ``bregman_proximal_step``).  Returns ``(x, grad h(x), h(x), g, f(x))``."""
    f = _function(f, "f")
    sx0 = _vec(sx0, "sx0", f.pep)
    gm = _step(gamma, "gamma", "the step size", low_open=True)
    x = f.pep.vector()
    g = f._new_grad()
    fx = f._new_value()
    f.add_point(x, g, fx)
    sx = sx0 - gm * g
    hx = _add_point(mirror, x, sx)
    return x, sx, hx, g, fx


def inexact_proximal_step(f: Function, x0: Vec, gamma: Any, opt: str = "PD_gapII"
                          ) -> tuple[Vec, Vec, Scalar, Vec, Vec, Scalar, Scalar]:
    r"""An approximate proximal step ``x ~ prox_{gamma f}(x0)`` whose primal-dual gap is at most ``eps``, a new variable
    the caller bounds (Barre, Taylor & Bach 2023, Sec. 2; PEPit's ``inexact_proximal_step``).  With
    ``Phi_p(x) = gamma f(x) + ||x - x0||^2/2`` and ``Phi_d(v) = -gamma f^*(v) - ||x0 - gamma v||^2/2 + ||x0||^2/2``:

    * ``"PD_gapI"``: ``Phi_p(x) - Phi_d(v) <= eps`` for a new point ``x`` (subgradient ``g``) and a dual ``v`` (``v in
      df(w)`` at a new point ``w``): the row ``||x - x0 + gamma v||^2/2 + gamma (f(x) - f(w) - <v, x - w>) <= eps``;
    * ``"PD_gapII"``: ``x = x0 - gamma g + e`` with ``g in df(x)`` and ``||e||^2/2 <= eps`` (``v = g``, ``w = x``);
    * ``"PD_gapIII"``: ``v = (x0 - x)/gamma`` a subgradient at a new point ``w`` and ``gamma (f(x) - f(w) - <v, x - w>)
      <= eps``.

    Returns ``(x, g, f(x), w, v, f(w), eps)``."""
    f = _function(f, "f")
    x0 = _vec(x0, "x0", f.pep)
    gm = _step(gamma, "gamma", "the proximal step size", low_open=True)
    pep = f.pep
    if opt == "PD_gapII":
        e = pep.vector()
        g = f._new_grad(gm)
        x = x0 - gm * g + e
        fx = f._new_value()
        f.add_point(x, g, fx)
        eps = pep.value()
        pep.add_le(0.5 * sqnorm(e) - eps)
        return x, g, fx, x, g, fx, eps
    if opt == "PD_gapI":
        v = f._new_grad(gm)
        w = pep.vector()
        fw = f._new_value()
        f.add_point(w, v, fw)
        x = pep.vector()
        g = f._new_grad(gm)
        fx = f._new_value()
        f.add_point(x, g, fx)
        eps = pep.value()
        e = x - x0 + gm * v
        pep.add_le(0.5 * sqnorm(e) + gm * (fx - fw - inner(v, x - w)) - eps)
        return x, g, fx, w, v, fw, eps
    if opt == "PD_gapIII":
        x = pep.vector()
        g = f._new_grad(gm)
        w = pep.vector()
        v = (x0 - x) / gm
        fx, fw = f._new_value(), f._new_value()
        f.add_point(x, g, fx)
        f.add_point(w, v, fw)
        eps = pep.value()
        pep.add_le(gm * (fx - fw - inner(v, x - w)) - eps)
        return x, g, fx, w, v, fw, eps
    raise FairtheoryValueError(f"opt must be 'PD_gapI', 'PD_gapII' or 'PD_gapIII', got {opt!r}")


def inexact_gradient(f: Function, x: Vec, eps: Any, notion: str = "absolute") -> Vec:
    r"""An inexact gradient ``d`` of ``f`` at ``x`` (PEPit's ``inexact_gradient_step``): ``"absolute"``: a new basis vector
    with the row ``||d - grad f(x)||^2 <= eps^2``; ``"relative"``: ``||d - grad f(x)||^2 <= eps^2 ||grad f(x)||^2``
    (:meth:`~fairtheory.worstcase.sdp.Function.inexact_grad`).  ``eps = 0`` gives the exact gradient (no row without a
    strictly feasible point).  Returns ``d``."""
    f = _function(f, "f")
    x = _vec(x, "x", f.pep)
    if notion == "relative":
        return f.inexact_grad(x, eps)
    if notion != "absolute":
        raise FairtheoryValueError(f"notion must be 'absolute' or 'relative', got {notion!r}")
    e = _step(eps, "eps", "the absolute inexactness", low_open=False)
    g = f.grad(x)
    if e == 0:
        return g
    d = f._new_grad()
    f.pep.add_le(sqnorm(d - g) - e * e)
    return d
