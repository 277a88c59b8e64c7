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
constant; constraints are ``Scalar <= 0`` or ``Scalar == 0``.  The vectors and scalars are the Gram algebra of
:mod:`fairtheory.worstcase.gram` (re-exported here for PEPs written by hand), the function classes come from the
catalogue (:mod:`fairtheory.worstcase.classes`), and :meth:`PEP.solve` dispatches to the solve routes beneath the
builder (:mod:`~fairtheory.worstcase.checked_solve`, :mod:`~fairtheory.worstcase.sparse_solve`,
:mod:`~fairtheory.worstcase.symmetric`, Clarabel set up by :mod:`fairtheory.worstcase.solvers`), which see the
builder only through its methods.  See docs/worstcase.md.

``PEP(exact=True)`` keeps every coefficient as a :class:`fractions.Fraction` (the symbolic vectors hold
object arrays, the builders pass rational parameters): :meth:`PEP.export` then hands the problem data
over exactly, for the rational dual certificates of :mod:`fairtheory.proofs.certificate`.  The float
solve converts the exact data to float64.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fairtheory.errors import FairtheoryTypeError, FairtheoryValueError
from fairtheory.worstcase import checked_solve, solvers, sparse_solve, symmetric
from fairtheory.worstcase.classes import as_class
from fairtheory.worstcase.gram import (
    LazyRow,
    RowBlock,
    Scalar,
    Vec,
    _exact_row,
    _outer_entries,
    _Point,
    _step,
    _zeros_like,
    inner,
    num,
    scalar_row,
    scalar_rows,
    sqnorm,
    vsum,
)
from fairtheory.worstcase.solvers import SDPSolution, clarabel_setup

#: the builder's API: the Gram algebra (:mod:`fairtheory.worstcase.gram`) and the solution type
#: (:mod:`fairtheory.worstcase.solvers`) are re-exported for PEPs written by hand
__all__ = ["Vec", "Scalar", "Function", "PEP", "SDPSolution", "inner", "sqnorm", "vsum", "num", "scalar_row",
           "clarabel_setup"]


#: :meth:`PEP.row_arrays` writes every row's terms into one pair of term matrices up to this many cells (terms x
#: widest vector; 8 MB each), block by block past it
_BATCH_CELLS = 1 << 20
#: :meth:`PEP.row_arrays` copies up to this many plain rows' term vectors one by one, more in one scatter
_FEW_PLAIN_TERMS = 4


def _pad_into(M: np.ndarray, o: int, cs: list[np.ndarray]) -> None:
    """Rows ``o, o + 1, ..`` of the float64 matrix ``M`` (zero) get ``cs[0], cs[1], ..`` zero-padded, in one scatter
    (each entry converted to float64 as an assignment ``M[o + t, :len(cs[t])] = cs[t]`` converts it: exact rationals
    rounded to nearest; :func:`fairtheory.worstcase.gram._padded_rows`' conversion)."""
    T, D = len(cs), M.shape[1]
    lens = np.fromiter((c.shape[0] for c in cs), dtype=np.int64, count=T)
    total = int(lens.sum())
    if total:
        start = np.cumsum(lens) - lens
        M.reshape(-1)[np.repeat((np.arange(T, dtype=np.int64) + o) * D - start, lens) + np.arange(total)] = \
            np.concatenate(cs)


class Function:
    r"""One function of the PEP: its class (:mod:`fairtheory.worstcase.classes`), its evaluated points and the
    step oracles a method calls on it.

    Every oracle adds points ``(x, g, f)`` (``g`` a (sub)gradient at ``x``, ``f`` the value) whose interpolation
    conditions the class writes; ``L`` is the class's smoothness constant (``inf`` when it has none)."""

    def __init__(self, pep: PEP, L: Any, name: str) -> None:
        self.pep, self.name = pep, name
        self.cls = as_class(L)
        self.L = self.cls.L
        self.points: list[_Point] = []
        self._index: dict[bytes, int] = {}

    def add_point(self, x: Vec, g: Vec, f: Scalar) -> None:
        """Declare a known point (e.g. the optimum ``x*`` with its gradient and value).  A class with a method
        ``on_point(function, index)`` is told of every new point (classes whose conditions need new symbols per
        point: :class:`~fairtheory.worstcase.classes.SmoothStronglyConvexQuadratic`, block-smooth classes)."""
        self._add_point(x, g, f, x.key())

    def _add_point(self, x: Vec, g: Vec, f: Scalar, key: bytes) -> None:
        """:meth:`add_point` with ``key == x.key()`` computed by the caller already."""
        self._index[key] = len(self.points)
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
        return self._oracle(x, x.key())

    def _oracle(self, x: Vec, k: bytes) -> tuple[Vec, Scalar]:
        """:meth:`oracle` with ``k == x.key()`` computed by the caller already."""
        i = self._index.get(k)
        if i is not None:
            pt = self.points[i]
            if self.cls.differentiable:
                return pt.g, pt.f
            g = self._new_grad()
            self.points.append(_Point(x, g, pt.f))
            return g, pt.f
        g = self._new_grad()
        f = self._new_value()
        self._add_point(x, g, f, k)
        return g, f

    def grad(self, x: Vec) -> Vec:
        """A (sub)gradient at ``x`` (see :meth:`oracle`)."""
        return self.oracle(x)[0]

    def value(self, x: Vec) -> Scalar:
        """The value at ``x`` (one variable per point)."""
        k = x.key()
        i = self._index.get(k)
        if i is not None:
            return self.points[i].f
        return self._oracle(x, k)[1]

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
        k = z.key()
        if k in self._index:
            raise FairtheoryValueError(f"{self.name} already has a point at the origin (optimum declared twice?)")
        self._add_point(z, self.pep.zero(), Scalar(), k)
        return z, self.pep.zero(), Scalar()


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
        #: the dense route's assembled data, shared by the solves of one checked solve (``None`` outside one;
        #: :func:`fairtheory.worstcase.checked_solve.solve_checked`)
        self._assembly_cache: dict[Any, Any] | None = None

    # ------------------------------------------------------------ symbols
    def vector(self) -> Vec:
        """A new basis vector (a point of the caller's: its unit is the distance unit, :func:`pep_units`)."""
        return self._new_vector(("free",))

    def _new_vector(self, tag: tuple[Any, ...]) -> Vec:
        c = _zeros_like(self.dim + 1, object) if self.exact else np.zeros(self.dim + 1)
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
        return Vec(_zeros_like(0, object) if self.exact else np.zeros(0))

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
        """The rows of :meth:`interpolation_rows`, without their labels."""
        out: list[Scalar] = []
        for fn in self.functions:
            out.extend([r for r, _ in fn.cls.interpolation(fn.points)])
        return out

    def _row(self, s: Scalar, nG: int) -> tuple[np.ndarray, np.ndarray]:
        """:func:`scalar_row` of ``s`` in the PEP's own basis (an array-built interpolation row,
        :class:`~fairtheory.worstcase.gram.LazyRow`, from its block's arrays: the same entries)."""
        if type(s) is LazyRow:
            hit = s.float_row(nG)
            if hit is not None:
                return hit
        return scalar_row(s, nG)

    def row_arrays(self, nG: int, rows: list[Scalar] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                             np.ndarray]:
        """``(indptr, cols, vals, consts)`` of ``rows`` (default: :meth:`solve`'s order - equalities, interpolation
        rows, user inequalities): row ``r``'s entries ``cols[indptr[r]:indptr[r+1]]`` are :meth:`_row`'s (duplicates
        not summed, the same order) and ``consts[r] = -float(row.const)`` (the right-hand side of ``row <= 0``).

        Every term ``c <u, v>`` of every row - of the array-built interpolation rows
        (:class:`~fairtheory.worstcase.gram.RowBlock`: a block's term matrices, segment by segment) and of plain
        :class:`Scalar` rows (their vectors' coefficients) - goes into one zero-padded pair of term matrices, whose
        nonzero products ``c (u_a v_b)`` are written in one pass (the products, in the order, of
        :func:`~fairtheory.worstcase.gram.scalar_row`: each term's ``a`` outer, ``b`` inner, the terms in the row's
        order, then its value variables), no numpy call per row or per block; rows of any other kind go through
        :meth:`_row` one by one.  Past :data:`_BATCH_CELLS` cells of term matrices (the sparse route's large PEPs):
        block by block (:meth:`_row_arrays_by_block`), the same arrays (tests/test_rows_vectorised.py)."""
        if rows is None:
            rows = self._eq + self._interpolation() + self._ineq
        n = len(rows)
        consts = np.empty(n)
        runs: list[tuple[int, int, int, RowBlock]] = []           # (first row, i0, i1, block): block rows i0..i1-1
        plain: list[tuple[int, Any, np.ndarray, np.ndarray]] = []  # (row, coef, u.c, v.c) of the plain rows' terms
        plain_lin: list[tuple[int, int, float]] = []             # (row, column, coefficient)
        others: list[tuple[int, np.ndarray, np.ndarray]] = []     # (row, cols, vals) from _row
        T, D = 0, 0
        r = 0
        while r < n:
            s = rows[r]
            ts = type(s)
            if ts is Scalar:
                for coef, u, v in s.quad:
                    uc, vc = u.c, v.c
                    plain.append((r, coef, uc, vc))
                    D = max(D, uc.shape[0], vc.shape[0])
                for k, v in s.lin.items():
                    plain_lin.append((r, nG + k, float(v)))
                consts[r] = -float(s.const)
                r += 1
                continue
            if ts is LazyRow and s._s is None:
                blk, i0 = s._block, s._i
                e = r + 1
                while e < n and type(rows[e]) is LazyRow and rows[e]._block is blk and rows[e]._i == i0 + (e - r) \
                        and rows[e]._s is None:
                    e += 1
                i1 = i0 + (e - r)
                runs.append((r, i0, i1, blk))
                for _, U, V in blk.terms:
                    D = max(D, U.shape[1], V.shape[1])
                T += len(blk.terms) * (e - r)
                consts[r:e] = -blk.const[i0:i1]
                r = e
                continue
            c, v = self._row(s, nG)
            others.append((r, c, v))
            consts[r] = -float(s.const)
            r += 1
        T += len(plain)
        if T * D > _BATCH_CELLS:
            return self._row_arrays_by_block(nG, rows)
        Um, Vm = np.zeros((T, D)), np.zeros((T, D))
        coef = np.empty(T)
        rid = np.empty(T, dtype=np.int64)
        R: list[np.ndarray] = []
        C: list[np.ndarray] = []
        V: list[np.ndarray] = []
        o = 0
        for r0, i0, i1, blk in runs:
            m = i1 - i0
            ids = np.arange(r0, r0 + m, dtype=np.int64)
            for c, U, W in blk.terms:
                Um[o:o + m, :U.shape[1]] = U[i0:i1]
                Vm[o:o + m, :W.shape[1]] = W[i0:i1]
                coef[o:o + m] = float(c)
                rid[o:o + m] = ids
                o += m
        if plain:
            k = len(plain)
            if k <= _FEW_PLAIN_TERMS:
                for t, (_, _, uc, vc) in enumerate(plain):
                    Um[o + t, :uc.shape[0]] = uc
                    Vm[o + t, :vc.shape[0]] = vc
            else:
                _pad_into(Um, o, [x[2] for x in plain])
                _pad_into(Vm, o, [x[3] for x in plain])
            coef[o:] = [float(x[1]) for x in plain]
            rid[o:] = [x[0] for x in plain]
        if T:
            tt, ia, ib = _outer_entries(Um, Vm)  # every nonzero product: term major, then a, then b
            lo, hi = np.minimum(ia, ib), np.maximum(ia, ib)
            R.append(rid[tt])
            C.append(hi * (hi + 1) // 2 + lo)
            V.append(coef[tt] * (Um[tt, ia] * Vm[tt, ib]))
        for r0, i0, i1, blk in runs:  # the blocks' value variables, after every term (RowBlock.arrays' order)
            for idx, val in blk.lin:
                seg = idx[i0:i1]
                p = np.flatnonzero(seg >= 0)
                R.append(r0 + p)
                C.append(nG + seg[p])
                V.append(np.asarray(val, dtype=np.float64)[i0:i1][p])
        if plain_lin:
            R.append(np.array([x[0] for x in plain_lin], dtype=np.int64))
            C.append(np.array([x[1] for x in plain_lin], dtype=np.int64))
            V.append(np.array([x[2] for x in plain_lin], dtype=np.float64))
        for r0, c, v in others:
            R.append(np.full(c.size, r0, dtype=np.int64))
            C.append(c)
            V.append(v)
        ptr = np.zeros(n + 1, dtype=np.int64)
        if not R:
            return ptr, np.zeros(0, dtype=np.int64), np.zeros(0), consts
        rid_all = np.concatenate(R)
        order = np.argsort(rid_all, kind="stable")  # each row's entries in the order written above
        np.cumsum(np.bincount(rid_all, minlength=n), out=ptr[1:])
        return ptr, np.concatenate(C).astype(np.int64)[order], np.concatenate(V).astype(np.float64)[order], consts

    def _row_arrays_by_block(self, nG: int, rows: list[Scalar]) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                          np.ndarray]:
        """:meth:`row_arrays` block by block: array-built interpolation rows copied block segment by block segment
        from their block's arrays (:meth:`~fairtheory.worstcase.gram.RowBlock.arrays`), plain :class:`Scalar` rows
        assembled in one batch (:func:`~fairtheory.worstcase.gram.scalar_rows`), other rows through :meth:`_row` one
        by one - without one pair of term matrices over every row (large PEPs)."""
        n = len(rows)
        C: list[np.ndarray] = []
        V: list[np.ndarray] = []
        counts = np.zeros(n, dtype=np.int64)
        consts = np.zeros(n)
        # plain scalars (the caller's rows, class rows built term by term) in one batch (scalar_rows: bitwise the
        # per-row scalar_row), copied below run by run
        plain = [r for r in range(n) if type(rows[r]) is Scalar]
        pos = np.full(n, -1, dtype=np.int64)
        pos[plain] = np.arange(len(plain))
        bptr, bcols, bvals = scalar_rows([rows[r] for r in plain], nG) if plain else (None, None, None)
        r = 0
        while r < n:
            if pos[r] >= 0:
                e = r + 1
                while e < n and pos[e] >= 0:
                    e += 1
                p0, p1 = int(pos[r]), int(pos[e - 1]) + 1
                C.append(bcols[bptr[p0]:bptr[p1]])
                V.append(bvals[bptr[p0]:bptr[p1]])
                counts[r:e] = np.diff(bptr[p0:p1 + 1])
                consts[r:e] = [-float(rows[t].const) for t in range(r, e)]
                r = e
                continue
            s = rows[r]
            if type(s) is LazyRow and s._s is None:
                blk, i0 = s._block, s._i
                e = r + 1
                while e < n and type(rows[e]) is LazyRow and rows[e]._block is blk and rows[e]._i == i0 + (e - r) \
                        and rows[e]._s is None:
                    e += 1
                indptr, cols, vals = blk.arrays(nG)
                i1 = i0 + (e - r)
                C.append(cols[indptr[i0]:indptr[i1]])
                V.append(vals[indptr[i0]:indptr[i1]])
                counts[r:e] = np.diff(indptr[i0:i1 + 1])
                consts[r:e] = -blk.const[i0:i1]
                r = e
                continue
            c, v = self._row(s, nG)
            C.append(c)
            V.append(v)
            counts[r] = c.size
            consts[r] = -float(s.const)
            r += 1
        ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        cat_c = np.concatenate(C).astype(np.int64) if C else np.zeros(0, dtype=np.int64)
        cat_v = np.concatenate(V).astype(np.float64) if V else np.zeros(0)
        return ptr, cat_c, cat_v, consts

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
          arithmetic (SDPA-GMP, 200-bit; ``status == "Solved"``, ``solver == "sdpa-gmp"``) - accepted only when its
          point satisfies the PEP's float rows to ``1e-7`` of the data's size and gives its value (a GMP "optimum"
          that does not is discarded); an ``AlmostSolved`` float solve whose values and residuals agree to ``1e-6``
          is reported with that status; a ray of an unbounded PEP gives ``value = inf``, status ``"Unbounded"``;
          anything else raises :class:`~fairtheory.errors.SolverError` naming the status.  ``gmp="never"`` skips
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
        return checked_solve.solve_checked(self, tol=tol, max_iter=max_iter, verbose=verbose, scale=scale, fscale=fscale,
                              trace_weight=trace_weight, method=method, gmp=gmp)

    def _solve_float(self, *, tol: float = 1e-8, max_iter: int = 400, verbose: bool = False,
                     scale: np.ndarray | None = None, fscale: np.ndarray | None = None,
                     trace_weight: float = 0.0, method: str = "auto", obj_unit: float = 1.0,
                     row_units: bool = False, time_limit: float | None = None,
                     tol_feas: float | None = None, refine: bool = True) -> SDPSolution:
        """:meth:`solve` with ``raw=True``; ``obj_unit`` (a power of two): the objective is divided by it in the
        solve; ``time_limit``: Clarabel's wall-clock limit in seconds (status ``MaxTime`` past it; the sparse route's
        rounds share it); ``row_units``: every row is divided by the power of two nearest its largest coefficient (after the
        column scaling) - both exact, the multipliers and values mapped back; ``tol_feas``: the dense route's feasibility
        tolerance (default ``10 tol``), ``refine``: its iterative refinement (the other routes ignore both)."""
        if method not in ("auto", "dense", "sparse"):
            raise FairtheoryValueError(f"method must be 'auto', 'dense' or 'sparse', got {method!r}")
        if self._objective is None:
            raise FairtheoryValueError("no objective: call maximize(...) first")
        sym = getattr(self, "symmetry", None)  # identical clients: fairtheory.worstcase.symmetric.attach
        if method == "auto" and not self.exact and sym is not None:
            return symmetric.solve_symmetric(self, sym, tol=tol, max_iter=max_iter, verbose=verbose, scale=scale,
                                             fscale=fscale, trace_weight=trace_weight, obj_unit=obj_unit,
                                             row_units=row_units)
        if method != "dense" and not self.exact:
            if method == "sparse" or sparse_solve.should_use_sparse(self):
                return sparse_solve.solve_sparse(self, tol=tol, max_iter=max_iter, verbose=verbose, scale=scale,
                                                 fscale=fscale, trace_weight=trace_weight, obj_unit=obj_unit,
                                                 time_limit=time_limit)
        if isinstance(tol, bool) or not isinstance(tol, (int, float, np.floating)) or not 1e-14 <= float(tol) <= 1e-2:
            raise FairtheoryValueError(f"tol (the solver's tolerance) must be a number in [1e-14, 1e-2], got {tol!r}")
        return solvers.solve_dense(self, tol=tol, max_iter=max_iter, verbose=verbose, scale=scale, fscale=fscale,
                                   trace_weight=trace_weight, obj_unit=obj_unit, row_units=row_units,
                                   time_limit=time_limit, tol_feas=tol_feas, refine=refine)

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
        return checked_solve.pep_bracket(self, sol, rtol=rtol, deadline_s=deadline_s)

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
