r"""Smooth strongly convex functions at ``mu -> L``: the exact reparametrisation ``h = f - mu/2 ||x||^2``.

A function ``f`` is ``L``-smooth and ``mu``-strongly convex iff ``h = f - mu/2 ||x||^2`` is ``(L - mu)``-smooth and
convex (Taylor, Hendrickx & Glineur 2017, Math. Prog., the proof of Thm 4): with ``gh = g - mu x`` and
``h_i = f_i - mu/2 ||x_i||^2`` the interpolation row of the pair ``(j, k)``

.. math:: h_k - h_j + \langle gh_k, x_j - x_k\rangle + \tfrac{1}{2(L - \mu)}\|gh_j - gh_k\|^2 \le 0

*is* Thm 4's row of ``f`` (expand: ``mu/2 ||x_j - x_k||^2 + (||dg||^2 - 2 mu <dg, dx> + mu^2 ||dx||^2)/(2(L - mu))``
equals ``L/(2(L - mu)) (||dg||^2/L + mu ||dx||^2 - 2 mu/L <dg, dx>)``), term for term in exact arithmetic.

At ``mu -> L`` the class is nearly the single quadratic ``L/2 ||x||^2``: in the PEP's basis every gradient is
``g = mu x + gh`` with ``||gh|| ~ (L - mu) ||x||``, so the information sits in differences of ``1e-9`` relative size,
the rows carry ``1/(L - mu)`` and an interior-point solve ends ``InsufficientProgress`` (``mu = 1 - 1e-9``) or
returns a value off by the solver's absolute accuracy (``(1 - mu)^4 = 1e-24`` at ``mu = 1 - 1e-6``: SDPA-GMP's
``9.999984e-25``, issue 41).  :func:`reparametrise` poses the *same* problem in the basis ``{.., gh_k, ..}`` and the
values ``h``: a gradient basis vector ``e_k`` of such a function at the point ``x_k`` becomes ``e'_k = e_k - mu x_k``
(exact rationals: ``x_k`` is a combination of earlier basis vectors, or of ``e_k`` itself after a proximal step), its
value ``f_k`` becomes ``h_k + mu/2 ||x_k||^2``, and the function is declared ``SmoothStronglyConvex(L - mu, 0)``, so
the units of :func:`fairtheory.worstcase.checked_solve.pep_units` give ``gh`` its own size ``(L - mu) R``.  Every
other row, the objective and the other functions' points are the same scalars written in the new basis.  The
solution maps back exactly: ``G = T^T G' T`` (``c' = T c`` the new coordinates), ``f_k = h_k + mu/2 ||x_k||^2``.

The sizes of the new basis vectors on the class's two extreme quadratics (:meth:`Reparametrised.instance_sizes`:
a contraction's ``gh_k ~ (L - mu) rho^k``) are the units the sparse route solves and repairs the reparametrised PEP
in (:func:`fairtheory.worstcase.checked_solve.solve_checked` ``units_in``).

Taken when ``L - mu <= NEAR_L * L`` (the gradient's unit ``(L - mu) R`` beyond the units' dead zone ``2^4`` below
``L R``), for plain float PEPs whose other functions need no per-point hook.  See docs/worstcase.md, "Units and
failures of hand-written PEPs".
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

from fairtheory.worstcase.classes import SmoothStronglyConvex
from fairtheory.worstcase.gram import Scalar, Vec, _Point

if TYPE_CHECKING:
    from fairtheory.worstcase.sdp import PEP
    from fairtheory.worstcase.solvers import SDPSolution

__all__ = ["NEAR_L", "SIZE_FLOOR_EXP", "Reparametrised", "reparametrise", "near_quadratic"]

#: reparametrise a ``SmoothStronglyConvex(L, mu)`` function when ``L - mu <= NEAR_L L`` (``2^-4``: the units' dead zone)
NEAR_L = Fraction(1, 16)
#: :meth:`Reparametrised.instance_sizes` floors a size at ``2^-SIZE_FLOOR_EXP`` of the largest (a Gram column's scale is
#: the product of two: ``2^-400`` stays a normal float64)
SIZE_FLOOR_EXP = 200


def near_quadratic(cls: Any) -> bool:
    """Whether ``cls`` is a :class:`SmoothStronglyConvex` with ``0 < L - mu <= NEAR_L L`` (exact comparison)."""
    if type(cls) is not SmoothStronglyConvex:
        return False
    L, mu = Fraction(cls.L), Fraction(cls.mu)
    return bool(mu > 0 and L - mu <= NEAR_L * L)


def _frac_vec(c: np.ndarray, dim: int) -> list[Fraction]:
    out = [Fraction(0)] * dim
    for i, v in enumerate(np.asarray(c).tolist()[:dim]):
        if v:
            out[i] = Fraction(v)
    return out


def _unit_index(v: Vec) -> int | None:
    """``k`` when ``v`` is exactly the basis vector ``e_k``, else ``None``."""
    nz = np.flatnonzero(np.asarray(v.c, dtype=np.float64))
    if nz.size == 1 and float(v.c[nz[0]]) == 1.0:
        return int(nz[0])
    return None


@dataclass
class Reparametrised:
    """The PEP in the basis of :func:`reparametrise` and the exact map back."""

    pep: Any                       #: the same problem, reparametrised (a :class:`~fairtheory.worstcase.sdp.PEP`)
    T: list[list[Fraction]]        #: ``T[i][k]``: new coordinate ``i`` of the old basis vector ``e_k``
    values: dict[int, Scalar]      #: old value variable ``k`` as a scalar of the new problem (``h_k + mu/2 ||x'||^2``)
    functions: list[str]           #: names of the reparametrised functions

    def gram_back(self, gram_new: np.ndarray) -> np.ndarray:
        """``G = T^T G' T`` (floats)."""
        Tf = np.array([[float(x) for x in row] for row in self.T], dtype=np.float64) if self.T else np.zeros((0, 0))
        G = Tf.T @ np.asarray(gram_new, dtype=np.float64) @ Tf
        return 0.5 * (G + G.T)

    def instance_sizes(self, R: float) -> tuple[np.ndarray, np.ndarray, float] | None:
        r"""Sizes of the reparametrised PEP's basis vectors, value variables and objective on the class's two extreme
        quadratics, as powers of two: ``(vec, val, obj)``, or ``None`` when the PEP is outside what the instances cover
        (a basis vector neither a start nor an owned gradient of a reparametrised function, or any other function).

        Every start (a ``"free"`` basis vector) is ``R`` times its own unit direction; each reparametrised function is
        ``f = lambda/2 ||x||^2`` with ``lambda`` in ``{mu, L}``, i.e. ``h = (lambda - mu)/2 ||x||^2``, ``gh = (lambda -
        mu) x`` at its points (realised in the order of the basis: a point uses earlier basis vectors only), its
        values ``h = (lambda - mu)/2 ||x||^2``; the size of each is the larger over the two instances (floored at
        ``2^-SIZE_FLOOR_EXP`` of the largest: a direction neither instance uses).  These are the sizes of a contraction:
        at ``mu = L (1 - 1e-6)``, ``h = 1/2``, ``N = 60`` the ``gh_k`` shrink like ``(L - mu) 2^-k`` and the worst case
        ``||x_60||^2 = (1 - mu/2)^120 R^2`` is ``2^-78`` of the a-priori objective unit; the sparse route in these sizes
        solves it to ``1.5e-12`` relative in one round (in the a-priori units: its first relaxation not solved)."""
        P = self.pep
        dim, nf = P.dim, P.nf
        targets = [f for f in P.functions if f.name in self.functions]
        if len(targets) != len(P.functions) or not targets:
            return None
        free = [j for j, t in enumerate(P._vtag) if t[0] == "free"]
        owner: dict[int, tuple[Any, Any]] = {}
        for f in targets:
            for pt in f.points:
                k = _unit_index(pt.g)
                if k is not None and k not in owner:
                    owner[k] = (f, pt)
        if any(j not in owner and j not in free for j in range(dim)) or not free:
            return None
        col = {j: i for i, j in enumerate(free)}
        best_v = np.zeros(dim)
        best_f = np.zeros(nf)
        best_o = 0.0
        for which in ("mu", "L"):
            V = np.zeros((dim, len(free)))  # row j: basis vector j realised in R^{n_free}
            for j in range(dim):
                if j in col:
                    V[j, col[j]] = float(R)
                    continue
                f, pt = owner[j]
                lam = float(Fraction(f.cls.L)) if which == "L" else 0.0  # the reparametrised class: L - mu, 0
                c = np.asarray(pt.x.c, dtype=np.float64)
                if np.any(c[j:] != 0):
                    return None  # the point uses this or a later basis vector (a proximal step): not covered
                V[j] = lam * (c @ V[: c.size])
            F = np.zeros(nf)
            for f in targets:
                lam = float(Fraction(f.cls.L)) if which == "L" else 0.0
                for pt in f.points:
                    if len(pt.f.lin) == 1 and not pt.f.quad:
                        (k, _), = pt.f.lin.items()
                        x = np.asarray(pt.x.c, dtype=np.float64) @ V[: np.asarray(pt.x.c).size]
                        F[k] = 0.5 * lam * float(x @ x)
            G = V @ V.T
            assert P._objective is not None
            o = abs(P.evaluate(P._objective, SimpleNamespace(gram=G, F=F)))  # type: ignore[arg-type]
            best_v = np.maximum(best_v, np.sqrt(np.maximum(np.diag(G), 0.0)))
            best_f = np.maximum(best_f, np.abs(F))
            best_o = max(best_o, o)
        if not (np.all(np.isfinite(best_v)) and np.all(np.isfinite(best_f)) and 0 < best_o < np.inf) or \
                float(best_v.max(initial=0.0)) <= 0:
            return None

        def pow2(a: np.ndarray) -> np.ndarray:
            top = float(a.max(initial=0.0))
            if top <= 0:
                return np.ones(a.size)
            a = np.maximum(a, top * 2.0 ** -SIZE_FLOOR_EXP)
            return np.ldexp(1.0, np.round(np.log2(a)).astype(np.int64))

        return pow2(best_v), pow2(best_f), float(np.ldexp(1.0, int(round(np.log2(best_o)))))

    def map_back(self, sol: SDPSolution) -> SDPSolution:
        """``sol`` (a solution of :attr:`pep`) in the original basis: the same value, bracket and status; ``gram`` and
        ``F`` mapped back; the row data (``rows``, ``objective_row``) dropped - they are the reparametrised problem's
        (its rows are the original rows term for term, so ``z`` stays their multipliers)."""
        out = dataclasses.replace(sol)
        if sol.gram is None or not np.all(np.isfinite(np.asarray(sol.gram, dtype=np.float64))):
            return out
        out.gram = self.gram_back(sol.gram)
        F = np.array(sol.F, dtype=np.float64, copy=True)
        for k, s in self.values.items():
            F[k] = self.pep.evaluate(s, sol)
        out.F = F
        out.rows = out.consts = out.objective_row = None
        info = dict(out.bracket_info or {})
        info["reparametrised"] = "h = f - mu/2 ||x||^2 for " + ", ".join(self.functions)
        out.bracket_info = info
        return out


def reparametrise(pep: PEP) -> Reparametrised | None:
    """The PEP with every near-quadratic function (:func:`near_quadratic`) reparametrised (module doc), or ``None``
    when there is none, the PEP is exact or symmetric, or its structure is outside what the map covers (another
    function with a per-point hook, a gradient basis vector not created at a point of its function)."""
    if pep.exact or getattr(pep, "symmetry", None) is not None or pep._objective is None:
        return None
    targets = [f for f in pep.functions if near_quadratic(f.cls)]
    if not targets:
        return None
    if any(getattr(f.cls, "on_point", None) is not None for f in pep.functions if f not in targets):
        return None
    dim = pep.dim
    tid = {id(f) for f in targets}
    # the gradient basis vector e_k of a target function and the point it was created at
    owner: dict[int, tuple[Any, _Point]] = {}
    for f in targets:
        for p in f.points:
            k = _unit_index(p.g)
            if k is not None and pep._vtag[k][0] == "grad" and pep._vtag[k][1] is f and k not in owner:
                owner[k] = (f, p)
    for k, tag in enumerate(pep._vtag):
        if tag[0] == "grad" and id(tag[1]) in tid and k not in owner:
            return None  # e.g. an auxiliary gradient the map does not know the point of
    # new coordinates of every old basis vector, in index order: e_k = e'_k + mu x_k for an owned e_k
    cols: list[list[Fraction]] = []
    for k in range(dim):
        unit = [Fraction(0)] * dim
        unit[k] = Fraction(1)
        if k not in owner:
            cols.append(unit)
            continue
        f, p = owner[k]
        mu = Fraction(f.cls.mu)
        xc = _frac_vec(p.x.c, dim)
        if any(xc[i] for i in range(k + 1, dim)):
            return None  # the point uses later basis vectors: not triangular
        a = xc[k]  # a proximal step: x = y + a e_k
        new = list(unit)
        for i in range(k):
            if xc[i]:
                ci = cols[i]
                for r in range(dim):
                    if ci[r]:
                        new[r] += mu * xc[i] * ci[r]
        d = 1 - mu * a
        if d == 0:
            return None
        cols.append([v / d for v in new])
    T = [[cols[k][i] for k in range(dim)] for i in range(dim)]

    vcache: dict[int, Vec] = {}

    def vec(v: Vec) -> Vec:
        hit = vcache.get(id(v))
        if hit is not None:
            return hit
        c = _frac_vec(v.c, dim)
        acc = [Fraction(0)] * dim
        for k, ck in enumerate(c):
            if ck:
                col = cols[k]
                for i in range(dim):
                    if col[i]:
                        acc[i] += ck * col[i]
        out = Vec(np.array([float(x) for x in acc], dtype=np.float64))
        vcache[id(v)] = out
        return out

    # old value variables of the targets' points: f_k = h_k + mu/2 ||x_k||^2 (h_k the same variable index)
    values: dict[int, Scalar] = {}
    fmap: dict[int, Any] = {}
    for f in targets:
        half_mu = float(Fraction(f.cls.mu) / 2)
        for p in f.points:
            if len(p.f.lin) == 1 and not p.f.quad and p.f.const == 0:
                (k, cf), = p.f.lin.items()
                if cf == 1 and pep._ftag[k][0] == "value" and pep._ftag[k][1] is f and k not in values:
                    xn = vec(p.x)
                    values[k] = Scalar([(half_mu, xn, xn)], {k: 1.0}, 0)

    def scal(s: Scalar) -> Scalar:
        quad = [(c, vec(u), vec(v)) for c, u, v in s.quad]
        lin: dict[int, Any] = {}
        for k, c in s.lin.items():
            m = values.get(k)
            if m is None:
                lin[k] = lin.get(k, 0) + c
            else:
                quad.extend((c * q, u, v) for q, u, v in m.quad)
                for kk, cc in m.lin.items():
                    lin[kk] = lin.get(kk, 0) + c * cc
        return Scalar(quad, lin, s.const)

    # the builder's own classes, from the objects (this module sits below the builder: no import of it)
    _PEP, Function = type(pep), type(targets[0])
    new = _PEP()
    new.dim, new.nf = pep.dim, pep.nf
    for f in pep.functions:
        if id(f) in tid:
            L, mu = f.cls.L, f.cls.mu
            Lh = (Fraction(L) - Fraction(mu)) if isinstance(L, (int, Fraction)) and isinstance(mu, (int, Fraction)) \
                else float(Fraction(float(L)) - Fraction(float(mu)))
            f2 = Function(new, SmoothStronglyConvex(Lh, 0), f.name)
        else:
            f2 = Function(new, f.cls, f.name)
        fmap[id(f)] = f2
        new.functions.append(f2)
    for tag in pep._vtag:
        new._vtag.append(("grad", fmap[id(tag[1])], *tag[2:]) if tag[0] == "grad" and id(tag[1]) in fmap else tag)
    for tag in pep._ftag:
        if tag[0] == "value" and id(tag[1]) in fmap:
            new._ftag.append(("value", fmap[id(tag[1])], *tag[2:]))
        elif tag[0] == "epi":
            new._ftag.append(("epi", [scal(m) for m in tag[1]], *tag[2:]))
        else:
            new._ftag.append(tag)
    for f in pep.functions:
        f2 = fmap[id(f)]
        mu = Fraction(f.cls.mu) if id(f) in tid else None
        for p in f.points:
            x = vec(p.x)
            if mu is None:
                g, fv = vec(p.g), scal(p.f)
            else:
                # gh = g - mu x and h = f - mu/2 ||x||^2 in the new basis (exact rationals, rounded once)
                gc = [Fraction(0)] * dim
                xg = _frac_vec(p.g.c, dim)
                for k, ck in enumerate(xg):
                    if ck:
                        for i in range(dim):
                            if cols[k][i]:
                                gc[i] += ck * cols[k][i]
                xx = [Fraction(0)] * dim  # x's exact new coordinates (x.c is rounded)
                for k, ck in enumerate(_frac_vec(p.x.c, dim)):
                    if ck:
                        for i in range(dim):
                            if cols[k][i]:
                                xx[i] += ck * cols[k][i]
                g = Vec(np.array([float(gc[i] - mu * xx[i]) for i in range(dim)], dtype=np.float64))
                k = next(iter(p.f.lin)) if len(p.f.lin) == 1 else None
                if k is not None and k in values:
                    fv = Scalar([], {k: 1.0}, 0)
                else:
                    fv = scal(p.f) - Scalar([(float(mu / 2), x, x)])
            f2._index.setdefault(x.key(), len(f2.points))
            f2.points.append(_Point(x, g, fv))
    new._eq = [scal(s) for s in pep._eq]
    new._ineq = [scal(s) for s in pep._ineq]
    new._objective = scal(pep._objective)
    return Reparametrised(new, T, values, [f.name for f in targets])
