r"""A small sparse Gram-matrix SDP builder for performance estimation (PEP), solved by Clarabel.

A PEP (Drori & Teboulle 2014; Taylor, Hendrickx & Glineur 2017) describes a first-order method on
symbolic vectors: the starting point and every gradient the method asks for are basis vectors
``e_k``; every iterate is a linear combination of them.  All inner products then live in the Gram
matrix ``G = [<e_j, e_k>]`` (positive semidefinite, of any rank - the dimension of the space is
free) and all function values in a vector ``F``.  The worst case of a method over a function class
is a linear SDP in ``(G, F)`` once the class is described by its interpolation conditions; for
``L``-smooth convex functions (Taylor, Hendrickx & Glineur 2017, Thm. 4), for every pair of points
``(x_j, g_j, f_j)``, ``(x_k, g_k, f_k)`` of one function

.. math:: f_j \ge f_k + \langle g_k, x_j - x_k\rangle + \tfrac{1}{2L}\|g_j - g_k\|^2 .

:class:`PEP` records the points each function is evaluated at (:meth:`Function.oracle`), builds
these conditions for every ordered pair, adds the user's constraints and objective, and assembles
the conic problem directly in Clarabel's sparse form (one row per scalar constraint, with only the
Gram entries it touches, plus one ``PSDTriangleCone``) - no dense matrix per constraint.  The solve
returns the primal and dual objective values (their difference is the duality gap reported with
every result), the Gram matrix and the function values.

Scalars (:class:`Scalar`) are linear combinations of Gram entries ``<u, v>``, function values and a
constant; constraints are ``Scalar <= 0`` or ``Scalar == 0``.  See docs/worstcase.md.

``PEP(exact=True)`` keeps every coefficient as a :class:`fractions.Fraction` (the symbolic vectors hold
object arrays, the builders pass rational parameters): :meth:`PEP.export` then hands the problem data
over exactly, for the rational dual certificates of :mod:`fairtheory.proofs.certificate`.  The float
solve converts the exact data to float64.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.sparse as sp

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError, SolverError

__all__ = ["Vec", "Scalar", "Function", "PEP", "SDPSolution", "inner", "sqnorm", "scalar_row", "clarabel_setup"]

_SQRT2 = math.sqrt(2.0)
_METHOD = ["faer"]


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


class Function:
    r"""One function of the PEP: its class (:mod:`fairtheory.worstcase.classes`), its evaluated points and the
    step oracles a method calls on it.

    Every oracle adds points ``(x, g, f)`` (``g`` a (sub)gradient at ``x``, ``f`` the value) whose interpolation
    conditions the class writes; ``L`` is the class's smoothness constant (``inf`` when it has none)."""

    def __init__(self, pep: PEP, L: Any, name: str) -> None:
        from fairtheory.worstcase.classes import as_class

        self.pep, self.name = pep, name
        self.cls = as_class(L)
        self.L = self.cls.L
        self.points: list[_Point] = []
        self._index: dict[bytes, int] = {}

    def add_point(self, x: Vec, g: Vec, f: Scalar) -> None:
        """Declare a known point (e.g. the optimum ``x*`` with its gradient and value).  A class with a method
        ``on_point(function, index)`` is told of every new point (classes whose conditions need new symbols per
        point: :class:`~fairtheory.worstcase.classes.SmoothStronglyConvexQuadratic`, block-smooth classes)."""
        self._index[x.key()] = len(self.points)
        self.points.append(_Point(x, g, f))
        hook = getattr(self.cls, "on_point", None)
        if hook is not None:
            hook(self, len(self.points) - 1)

    def _new_value(self) -> Scalar:
        return Scalar() if self.cls.zero_values else self.pep._new_value(("value", self))

    def _new_grad(self, gamma: Any = None) -> Vec:
        """A new basis vector: a (sub)gradient of this function (``gamma``: created by a proximal step of that size)."""
        return self.pep._new_vector(("grad", self, gamma))

    def oracle(self, x: Vec) -> tuple[Vec, Scalar]:
        """(Sub)gradient and value at ``x``: a new basis vector and value variable unless ``x`` was seen.  At a
        point seen before a differentiable class returns the same gradient; a nonsmooth class returns a new
        subgradient (a new basis vector) with the same value (PEPit's ``reuse_gradient``)."""
        k = x.key()
        if k in self._index:
            pt = self.points[self._index[k]]
            if self.cls.differentiable:
                return pt.g, pt.f
            g = self._new_grad()
            self.points.append(_Point(x, g, pt.f))
            return g, pt.f
        g = self._new_grad()
        f = self._new_value()
        self.add_point(x, g, f)
        return g, f

    def grad(self, x: Vec) -> Vec:
        """A (sub)gradient at ``x`` (see :meth:`oracle`)."""
        return self.oracle(x)[0]

    def value(self, x: Vec) -> Scalar:
        """The value at ``x`` (one variable per point)."""
        k = x.key()
        if k in self._index:
            return self.points[self._index[k]].f
        return self.oracle(x)[1]

    def prox(self, y: Vec, gamma: Any) -> tuple[Vec, Vec, Scalar]:
        r"""The exact proximal step ``x = prox_{gamma f}(y) = argmin_x f(x) + ||x - y||^2/(2 gamma)``: by the
        optimality condition ``x = y - gamma g`` with ``g`` in the subdifferential at ``x`` - so ``g`` is a new
        basis vector, ``x`` is defined from it and ``(x, g, f(x))`` a new point (PEPit's ``proximal_step``).
        Returns ``(x, g, f(x))``."""
        gm = _step(gamma, "gamma", "the proximal step size", low_open=True)
        g = self._new_grad(gm)
        f = self._new_value()
        x = y - gm * g
        self.add_point(x, g, f)
        return x, g, f

    def project(self, y: Vec) -> Vec:
        """The projection onto the set of an indicator (:class:`fairtheory.worstcase.classes.ConvexIndicator`):
        its proximal step (any step size), ``x = y - g`` with ``g`` a normal vector at ``x``.  Returns ``x``."""
        if not self.cls.zero_values:
            raise FairtheoryValueError(f"project needs a ConvexIndicator function, {self.name} is {self.cls!r}")
        return self.prox(y, 1)[0]

    def inexact_grad(self, x: Vec, eps: Any) -> Vec:
        r"""A relatively inexact gradient at ``x``: a new basis vector ``d`` with one row
        ``||d - grad f(x)||^2 <= eps^2 ||grad f(x)||^2`` (PEPit's ``inexact_gradient_step``, relative
        model; de Klerk, Glineur & Taylor 2020).  Returns ``d``."""
        e = _step(eps, "eps", "the relative inexactness", low_open=False)
        g = self.grad(x)
        if e == 0:
            # ||d - g||^2 <= 0 iff d = g: the exact gradient (facial reduction: the row has no strictly feasible
            # point, which interior-point solvers meet only to ~1e-6; docs/worstcase.md, "PEPit parity")
            return g
        d = self._new_grad()
        self.pep.add_le(sqnorm(d - g) - (e * e) * sqnorm(g))
        return d

    def optimum(self) -> tuple[Vec, Vec, Scalar]:
        """Declare the minimiser: ``x* = 0``, ``f* = 0``, ``0`` a (sub)gradient at ``x*`` (a shift, free for every
        class: all are invariant under translations of ``x`` and, indicators aside - whose value at ``x*`` is
        ``0`` anyway - of ``f``).  Returns ``(x*, g*, f*)``."""
        z = self.pep.zero()
        if z.key() in self._index:
            raise FairtheoryValueError(f"{self.name} already has a point at the origin (optimum declared twice?)")
        self.add_point(z, self.pep.zero(), Scalar())
        return z, self.pep.zero(), Scalar()


@dataclass
class SDPSolution:
    """What :meth:`PEP.solve` returns (values in the PEP's own units)."""

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

    @property
    def solved(self) -> bool:
        return self.status == "Solved"


class PEP:
    """Assemble and solve one performance-estimation SDP (maximise a :class:`Scalar`).

    ``exact=True``: symbolic vectors hold exact rationals (object arrays); the builder must then pass
    ``int``/:class:`Fraction` parameters (:meth:`export` refuses a float that leaked in)."""

    def __init__(self, exact: bool = False) -> None:
        self.exact = bool(exact)
        self.dim = 0
        self.nf = 0
        self.functions: list[Function] = []
        self._ineq: list[Scalar] = []
        self._eq: list[Scalar] = []
        self._objective: Scalar | None = None
        #: what created each basis vector / value variable (``("free",)``, ``("grad", function, gamma)``,
        #: ``("value", function)``, ``("epi", measures)``): the units of :func:`pep_units`
        self._vtag: list[tuple[Any, ...]] = []
        self._ftag: list[tuple[Any, ...]] = []

    # ------------------------------------------------------------ symbols
    def vector(self) -> Vec:
        """A new basis vector (a point of the caller's: its unit is the distance unit, :func:`pep_units`)."""
        return self._new_vector(("free",))

    def _new_vector(self, tag: tuple[Any, ...]) -> Vec:
        c = _zeros_like(self.dim + 1, object if self.exact else np.float64)
        c[self.dim] = 1
        self.dim += 1
        self._vtag.append(tag)
        return Vec(c)

    def value(self) -> Scalar:
        """A new function-value variable."""
        return self._new_value(("free",))

    def _new_value(self, tag: tuple[Any, ...]) -> Scalar:
        s = Scalar(lin={self.nf: 1})
        self.nf += 1
        self._ftag.append(tag)
        return s

    def zero(self) -> Vec:
        """The zero vector."""
        return Vec(_zeros_like(0, object if self.exact else np.float64))

    def function(self, L: Any, name: str = "") -> Function:
        """A new function: ``L`` a number (the ``L``-smooth convex class, as always) or a class object of
        :mod:`fairtheory.worstcase.classes` (e.g. ``SmoothStronglyConvex(L, mu)``, ``ConvexLipschitz(M)``)."""
        f = Function(self, L, name or f"f{len(self.functions)}")
        self.functions.append(f)
        return f

    def optimum_of_sum(self, funcs: list[Function]) -> tuple[Vec, list[Vec]]:
        r"""Declare ``x* = 0`` a minimiser of ``sum_i f_i``: each ``f_i`` gets the point ``(0, g_i*, 0)`` with
        ``sum_i g_i* = 0`` (new basis vectors ``g_1*..g_{n-1}*``, the last eliminated), so ``0`` is in the
        subdifferential of the sum and ``F* = 0``.  Returns ``x*`` and the ``g_i*``."""
        if not funcs or not all(isinstance(f, Function) and f.pep is self for f in funcs):
            raise FairtheoryValueError("funcs must be a non-empty list of this PEP's functions")
        if len({id(f) for f in funcs}) != len(funcs):
            raise FairtheoryValueError("funcs must not repeat a function")
        z = self.zero()
        stars = [self._new_vector(("grad", f, None)) for f in funcs[:-1]]
        stars.append(-vsum(stars) if stars else self.zero())
        for f, gs in zip(funcs, stars, strict=True):
            if z.key() in f._index:
                raise FairtheoryValueError(f"{f.name} already has a point at the origin (optimum declared twice?)")
            f.add_point(z, gs, Scalar())
        return z, stars

    def clients_at_optimum(self, n: int, p: Any, L: float) -> tuple[list[Function], list[Vec]]:
        """``n`` ``L``-smooth convex client functions ``g_i`` whose weighted sum ``G = sum_i p_i g_i`` is
        minimised at the origin (shifted: ``theta* = 0``, ``g_i(theta*) = 0``): each holds the point
        ``(0, grad g_i(theta*), 0)``, the optimum gradients free except ``sum_i p_i grad g_i(theta*) = 0``
        (the last one is eliminated).  Returns the functions and the optimum gradients."""
        funcs = [self.function(L, f"g{i}") for i in range(n)]
        zero = Vec(np.zeros(0))
        stars = [self._new_vector(("grad", funcs[i], None)) for i in range(n - 1)]
        last = Vec(np.zeros(0))
        for i in range(n - 1):
            last = last - (num(p[i]) / num(p[n - 1])) * stars[i]
        stars.append(last)
        for f, gs in zip(funcs, stars, strict=True):
            f.add_point(zero, gs, Scalar())
        return funcs, stars

    # ------------------------------------------------------------ constraints / objective
    def add_le(self, s: Scalar) -> None:
        """``s <= 0``."""
        self._ineq.append(s)

    def add_eq(self, s: Scalar) -> None:
        """``s == 0``."""
        self._eq.append(s)

    def maximize(self, s: Scalar) -> None:
        """Maximise ``s``."""
        self._objective = s

    def maximize_min(self, measures: list[Scalar]) -> Scalar:
        """Maximise ``min_k s_k``: a new free variable ``t`` with rows ``t - s_k <= 0``, objective ``t``.
        Returns ``t``."""
        if not measures or not all(isinstance(m, Scalar) for m in measures):
            raise FairtheoryValueError("measures must be a non-empty list of Scalar performance measures")
        t = self._new_value(("epi", list(measures)))
        for m in measures:
            self.add_le(t - m)
        self._objective = t
        return t

    # ------------------------------------------------------------ assembly
    def interpolation_rows(self) -> list[tuple[Scalar, tuple[int, int, int]]]:
        """Every interpolation row ``r <= 0`` with ``(function index, j, k)``: the rows of ``functions[i]``'s class
        at its points, function after function (for the ``L``-smooth convex class: every ordered pair
        ``j != k``, ``j`` outer)."""
        out: list[tuple[Scalar, tuple[int, int, int]]] = []
        for i, fn in enumerate(self.functions):
            out.extend((r, (i, j, k)) for r, (j, k) in fn.cls.interpolation(fn.points))
        return out

    def _interpolation(self) -> list[Scalar]:
        return [r for r, _ in self.interpolation_rows()]

    def _row(self, s: Scalar, nG: int) -> tuple[np.ndarray, np.ndarray]:
        """:func:`scalar_row` of ``s`` in the PEP's own basis."""
        return scalar_row(s, nG)

    def solve(self, *, tol: float = 1e-8, max_iter: int = 400, verbose: bool = False,
              scale: np.ndarray | None = None, fscale: np.ndarray | None = None,
              trace_weight: float = 0.0, method: str = "auto", raw: bool = False, gmp: str = "auto",
              time_limit: float | None = None) -> SDPSolution:
        """Solve the PEP: in normalised units, checked, re-solved where the float solve fails.

        ``raw=False`` (default, the hand-written builder's API):

        * **units** (:func:`pep_units`): the problem is solved in the variables ``G' = D^-1 G D^-1``,
          ``F' = F / fscale`` with every basis vector divided by its unit (the distance unit ``R`` of the initial
          condition for the caller's points, ``L R`` for gradients of an ``L``-smooth class, ``M`` of an
          ``M``-Lipschitz one, ``R / gamma`` for proximal steps) and every value by its unit (``L R^2``, ``M R``),
          the objective by its own unit; powers of two, so the scaling is exact, and a PEP already in units
          (every unit within ``[2^-4, 2^4]``, e.g. ``L = 1``, ``R = 1``) is solved with the very same data.  The
          solution is returned in the caller's units.
        * **failures raise**: a status other than ``Solved`` from the sparse route is re-solved by the dense one
          (Gram dimension <= :data:`DENSE_FALLBACK_DIM`); a small PEP (``gmp="auto"``: at most
          :data:`GMP_MAX_ROWS` rows, Gram dimension :data:`GMP_MAX_DIM`, SDPA-GMP installed) whose float solve is
          not ``Solved`` or whose Gram matrix is PSD only to more than ``1e-9`` relative (the symptom of a
          face without strictly feasible points, where the float value is off by ~1e-6) is re-solved in GMP
          arithmetic (SDPA-GMP, 200-bit; ``status == "Solved"``, ``solver == "sdpa-gmp"``); anything else that is not
          ``Solved`` raises :class:`~fairtheory.errors.SolverError` naming the status.  ``gmp="never"`` skips
          the GMP re-solve, ``"always"`` takes it whenever the PEP is small enough.

        ``raw=True``: the engine the traced / federated builders call (they pose their PEPs in normalised units and
        bracket the result themselves, :mod:`fairtheory.worstcase.bracket`): the caller's data as given and any
        status returned as Clarabel reports it.  The rest of this docstring describes the engine.

        Assemble the sparse conic problem and solve it with Clarabel.

        ``method``: ``"dense"`` (this docstring), ``"sparse"`` (:func:`fairtheory.worstcase.sparse_solve.solve_sparse`:
        the same SDP in an iterate basis with chordal decomposition and constraint generation, exact at
        termination) or ``"auto"`` (sparse where :func:`fairtheory.worstcase.sparse_solve.sparse_route` says it is
        the faster route: Gram dimension >= 50 and one function).

        ``maximise obj`` s.t. interpolation conditions, user constraints, ``G >= 0`` becomes Clarabel's
        ``min -obj'x`` s.t. ``A x + s = b``, ``s`` in (zero cone, nonnegative cone, PSD triangle cone)
        with ``x = [svec(G), F]`` (upper triangle, column-major, off-diagonals scaled by ``sqrt 2``).

        ``scale`` (``dim`` positive numbers) and ``fscale`` (``nf``) solve in the variables
        ``G' = D^-1 G D^-1`` (``D = diag(scale)``, a congruence: ``G' >= 0`` iff ``G >= 0``) and ``F / fscale``:
        the same problem, better conditioned when the basis vectors have very different sizes (large step
        sizes); the solution is mapped back.  ``trace_weight`` ``eps >= 0`` maximises ``obj + eps tr G`` instead
        (``value`` and ``dual_value`` then include ``eps tr G``): its multipliers leave a slack ``<= -eps I``, a
        margin that survives rounding.  The solution keeps the problem data in natural coordinates (``rows``,
        ``objective_row``) and the multipliers of every scalar row (``z``), for the rigorous bounds of
        :mod:`fairtheory.worstcase.bracket`."""
        if not isinstance(raw, (bool, np.bool_)):
            raise FairtheoryTypeError(f"raw must be True or False, got {raw!r}")
        if method not in ("auto", "dense", "sparse"):
            raise FairtheoryValueError(f"method must be 'auto', 'dense' or 'sparse', got {method!r}")
        if gmp not in ("auto", "never", "always"):
            raise FairtheoryValueError(f"gmp must be 'auto', 'never' or 'always', got {gmp!r}")
        if time_limit is not None and not (isinstance(time_limit, (int, float, np.floating))
                                           and not isinstance(time_limit, bool) and float(time_limit) > 0):
            raise FairtheoryValueError(f"time_limit must be a number of seconds > 0 or None, got {time_limit!r}")
        if raw:
            return self._solve_float(tol=tol, max_iter=max_iter, verbose=verbose, scale=scale, fscale=fscale,
                                     trace_weight=trace_weight, method=method, time_limit=time_limit)
        from fairtheory.worstcase.checked_solve import solve_checked

        return solve_checked(self, tol=tol, max_iter=max_iter, verbose=verbose, scale=scale, fscale=fscale,
                              trace_weight=trace_weight, method=method, gmp=gmp)

    def _solve_float(self, *, tol: float = 1e-8, max_iter: int = 400, verbose: bool = False,
                     scale: np.ndarray | None = None, fscale: np.ndarray | None = None,
                     trace_weight: float = 0.0, method: str = "auto", obj_unit: float = 1.0,
                     row_units: bool = False, time_limit: float | None = None) -> SDPSolution:
        """:meth:`solve` with ``raw=True``; ``obj_unit`` (a power of two): the objective is divided by it in the
        solve; ``time_limit``: Clarabel's wall-clock limit in seconds (status ``MaxTime`` past it; the sparse route's
        rounds share it); ``row_units``: every row is divided by the power of two nearest its largest coefficient (after the
        column scaling) - both exact, the multipliers and values mapped back."""
        import clarabel

        if method not in ("auto", "dense", "sparse"):
            raise FairtheoryValueError(f"method must be 'auto', 'dense' or 'sparse', got {method!r}")
        if self._objective is None:
            raise FairtheoryValueError("no objective: call maximize(...) first")
        sym = getattr(self, "symmetry", None)  # identical clients: fairtheory.worstcase.symmetric.attach
        if method == "auto" and not self.exact and sym is not None:
            from fairtheory.worstcase.symmetric import solve_symmetric

            return solve_symmetric(self, sym, tol=tol, max_iter=max_iter, verbose=verbose, scale=scale,
                                   fscale=fscale, trace_weight=trace_weight, obj_unit=obj_unit, row_units=row_units)
        if method != "dense" and not self.exact:
            from fairtheory.worstcase.sparse_solve import should_use_sparse, solve_sparse

            if method == "sparse" or should_use_sparse(self):
                return solve_sparse(self, tol=tol, max_iter=max_iter, verbose=verbose, scale=scale, fscale=fscale,
                                    trace_weight=trace_weight, obj_unit=obj_unit, time_limit=time_limit)
        if isinstance(tol, bool) or not isinstance(tol, (int, float, np.floating)) or not 1e-14 <= float(tol) <= 1e-2:
            raise FairtheoryValueError(f"tol (the solver's tolerance) must be a number in [1e-14, 1e-2], got {tol!r}")
        t0 = time.perf_counter()
        dim, nf = self.dim, self.nf
        nG = dim * (dim + 1) // 2
        nx = nG + nf
        interp = self._interpolation()
        groups = [self._eq, interp + self._ineq]
        R: list[np.ndarray] = []
        C: list[np.ndarray] = []
        V: list[np.ndarray] = []
        b: list[float] = []
        r = 0
        for grp in groups:
            for s in grp:
                c, v = self._row(s, nG)
                R.append(np.full(c.size, r))
                C.append(c)
                V.append(v)
                b.append(-float(s.const))
                r += 1
        n_eq = len(self._eq)
        n_ineq = r - n_eq
        rows = sp.csr_matrix((np.concatenate(V) if V else np.zeros(0),
                              (np.concatenate(R) if R else np.zeros(0, dtype=np.int64),
                               np.concatenate(C) if C else np.zeros(0, dtype=np.int64))), shape=(r, nx))
        max_terms = int(np.bincount(np.concatenate(C), minlength=nx).max()) if C else 0
        rows.sum_duplicates()
        qc, qv = self._row(self._objective, nG)
        obj = np.zeros(nx)
        np.add.at(obj, qc, qv)
        consts = np.asarray(b, dtype=np.float64)
        if not (np.all(np.isfinite(rows.data)) and np.all(np.isfinite(obj)) and np.all(np.isfinite(consts))):
            raise FairtheoryValueError("the PEP's data is not finite (a coefficient overflowed float64): use smaller "
                                       "step sizes / fewer steps, or exact rational data")
        iu = np.triu_indices(dim)
        ia, ib = iu
        svec_idx = ib * (ib + 1) // 2 + ia
        to_svec = np.ones(nx)
        to_svec[svec_idx[ia != ib]] = 1.0 / _SQRT2  # coefficient of sqrt(2) G_ab
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
        colmul = sp.diags(to_svec * colscale)
        scaled_rows = (rows @ colmul).tocsr()
        rscale = np.ones(r)
        if row_units and r:
            big = np.maximum(abs(scaled_rows).max(axis=1).toarray().ravel(), np.abs(consts))
            ok = (big > 0) & np.isfinite(big)
            rscale[ok] = np.ldexp(1.0, np.round(np.log2(big[ok])).astype(np.int64))
            scaled_rows = (sp.diags(1.0 / rscale) @ scaled_rows).tocsr()
        A = sp.vstack([scaled_rows, sp.csr_matrix((-np.ones(nG), (np.arange(nG), np.arange(nG))),
                                                    shape=(nG, nx))]).tocsc()
        obj_solved = obj.copy()
        if trace_weight:
            obj_solved[svec_idx[ia == ib]] += float(trace_weight)
        q = -(obj_solved * to_svec * colscale) / float(obj_unit)
        P = sp.csc_matrix((nx, nx))
        cones, settings = clarabel_setup(n_eq, n_ineq, dim, tol_gap=tol, tol_feas=10 * tol, max_iter=max_iter,
                                         verbose=verbose)
        if time_limit is not None:
            settings.time_limit = float(time_limit)
        build = time.perf_counter() - t0
        bb = np.concatenate([consts / rscale, np.zeros(nG)])
        solver = clarabel.DefaultSolver(P, q, A, bb, cones, settings)
        sol = solver.solve()
        status = str(sol.status).split(".")[-1]
        x = np.asarray(sol.x) * colscale
        z = np.asarray(sol.z) * float(obj_unit)
        z[:r] = z[:r] / rscale
        gram = _unsvec(x[:nG], dim)
        F = x[nG:].copy()
        value = -float(sol.obj_val) * float(obj_unit) + float(self._objective.const)
        dual = -float(sol.obj_val_dual) * float(obj_unit) + float(self._objective.const)
        n_user = len(self._ineq)
        duals = z[n_eq + len(interp): n_eq + len(interp) + n_user].copy()
        return SDPSolution(value=value, dual_value=dual, gap=dual - value, status=status, gram=gram, F=F,
                           dim=dim, n_constraints=n_eq + n_ineq, n_interp=len(interp),
                           seconds=float(sol.solve_time), build_seconds=build, iterations=int(sol.iterations),
                           r_prim=float(sol.r_prim), r_dual=float(sol.r_dual), duals=duals,
                           rows=rows, consts=consts, objective_row=obj, objective_const=float(self._objective.const),
                           z=z[:r].copy(), n_eq=n_eq, max_terms=max_terms, trace_weight=float(trace_weight))

    def bracket(self, sol: SDPSolution | None = None, *, rtol: float = 1e-6, deadline_s: float = 60.0) -> Any:
        r"""``lower <= worst case <= upper`` for a hand-written PEP (:class:`fairtheory.worstcase.bracket.Bracket`, the
        caller's units), not trusting the solver's value.

        * ``upper`` (rigorous, any class): exact rational multipliers found by
          :func:`fairtheory.proofs.search.find_multipliers` on the problem in normalised units
          (:func:`fairtheory.worstcase.checked_solve.normalised_export`, an exact rescaling) - weak duality checked in
          rational arithmetic - times the objective's unit, rounded up; ``inf`` (with ``info["upper_error"]``) when
          no certificate within ``rtol`` of the solver's value is found before ``deadline_s``.
        * ``lower`` (replayed): for ``L``-smooth convex functions declared at their optimum first, the method re-run on
          explicit interpolating functions built from the solution (:func:`fairtheory.worstcase.bracket.replay_lower`);
          ``nan`` (with ``info["lower_error"]``) for other classes.  ``info["user_row_violation"]``: the largest
          violation of the caller's constraints at the solution the replay starts from.

        ``sol``: a solution of this PEP (default :meth:`solve`)."""
        from fairtheory.worstcase.checked_solve import pep_bracket

        return pep_bracket(self, sol, rtol=rtol, deadline_s=deadline_s)

    def export(self) -> dict[str, Any]:
        r"""The problem data, exactly, in the order :meth:`solve` uses (equalities, interpolation conditions,
        user inequalities): ``{"dim", "nf", "n_eq", "n_interp", "rows", "objective"}``, each row and the
        objective a triple ``(G, F, c)`` with ``G`` a dict ``{(a, b): M_ab}`` (``a <= b``) of the symmetric
        matrix ``M`` with ``<M, Gram>`` the row's Gram part, ``F`` a dict ``{k: coefficient}`` and ``c`` the
        constant, all :class:`Fraction` (floats convert exactly).  A row ``r`` means ``r(Gram, F) <= 0``
        (``== 0`` for the first ``n_eq``)."""
        if self._objective is None:
            raise FairtheoryValueError("no objective: call maximize(...) first")
        interp = self._interpolation()
        rows = [_exact_row(s) for s in self._eq + interp + self._ineq]
        return {"dim": self.dim, "nf": self.nf, "n_eq": len(self._eq), "n_interp": len(interp), "rows": rows,
                "objective": _exact_row(self._objective)}

    def evaluate(self, s: Scalar, sol: SDPSolution) -> float:
        """Value of a :class:`Scalar` at a solution."""
        out = float(s.const)
        for coef, u, v in s.quad:
            a, bb = np.asarray(u.c, dtype=np.float64), np.asarray(v.c, dtype=np.float64)
            out += float(coef) * float(a @ sol.gram[: a.size, : bb.size] @ bb)
        for k, v in s.lin.items():
            out += float(v) * float(sol.F[k])
        return float(out)


def clarabel_setup(n_eq: int, n_ineq: int, dim: int, *, tol_gap: float, tol_feas: float, max_iter: int,
                   verbose: bool, max_threads: int = 1) -> tuple[list[Any], Any]:
    """Clarabel's cones (zero, nonnegative, one PSD triangle of size ``dim``) and settings as every PEP solve uses
    them (gap and feasibility tolerances, no presolve, the ``faer`` direct solver)."""
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
    return cones, settings


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


def require_solved(sol: SDPSolution, what: str) -> None:
    """Raise :class:`SolverError` unless Clarabel reports ``Solved``."""
    if not sol.solved:
        raise SolverError(f"{what} (gap {sol.gap:.3g}, r_prim {sol.r_prim:.3g}, r_dual {sol.r_dual:.3g})", "Clarabel",
                          sol.status)
