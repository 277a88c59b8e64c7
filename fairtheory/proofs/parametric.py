r"""Proofs for every step size: parametric PEP certificates (issue 25).

A ``"pep-family"`` certificate proves a worst-case bound ``L D0 b(t)`` for **every** normalised step ``t`` in a
closed rational interval at once (``t = h = lr L``, the normalised step of :mod:`fairtheory.worstcase.local_gd`,
for gradient descent and for local GD): its evidence is dual multipliers that are rational functions of ``t``,
checked exactly on the whole interval by the trusted kernel :mod:`fairtheory_kernel.family` (exact real-root counting and an
``L D L^T`` over ``Z[t]``; docs/proofs.md section 7).

>>> from fractions import Fraction as Q
>>> c = prove_family("gd", N=2, h=(Q(0), Q(1)))     # f(x_N) - f* <= L D0/(4 N h + 2) for every h in [0, 1]
>>> c.check(), check_family(c.to_json())
(True, True)
>>> c.bound(h=Q(1, 3), L=Q(2), D0=Q(1))          # 2 / (8/3 + 2)
Fraction(3, 7)

Finding the multipliers (untrusted, this module; only the kernel decides):

1. **scan**: the SDP (built by the kernel) is solved in floats (Clarabel) at the ends and 8 inner points of the
   range; a point whose worst case exceeds the claimed bound (by more than ``1e-6`` relative) ends the search
   with :class:`FamilyNotProved` naming the smallest such point (for gradient descent with the exact value of
   the quadratic ``L x^2/2`` when it beats the bound);
2. **tight face** (per piece ``[a, b]``, 6 inner samples): the worst-case Gram matrices' range ``V(t)`` (rank
   ``r``), in reduced echelon form, each entry fitted as a low-degree rational function of ``t`` with the
   simplest rational coefficients matching every sample to ``2e-4``.  Every optimal multiplier vector satisfies
   the linear conditions ``sum lambda_k a_k = c`` (values cancel), ``lambda_D0 = b(t)`` (the bound is tight) and
   ``S(t) V(t) = 0`` (complementary slackness), exact over ``Q(t)``;
3. **canonical support**: on the rows the solvers use, the affine set of multipliers these conditions leave is
   parametrised exactly at 5 margin points (the ends and 3 inner points); a float SDP (Clarabel) measures the
   margin ``t`` of ``lambda >= 0``, ``U^T S U >= t I`` (``U`` spans ``V^perp``).  A sparse start (least weighted
   sum of multipliers keeping half the margin), then rows are removed - in batches, then one at a time,
   smallest multipliers first - while the margin stays positive at every margin point, until the conditions
   determine the multipliers; a free direction no removal can close is fixed to the lowest-degree polynomial in
   the middle of its feasible range at every margin point;
4. **exact solve**: the resulting square system over ``Q(t)`` is solved by evaluation at rational points and
   interpolation (``lambda_k = N_k(t) / D(t)``, ``D`` the determinant, common factors removed);
5. **check**: the kernel checks the piece; where it fails the interval is split at a simple rational in its
   middle third and each half is searched again (at most ``max_pieces`` pieces).

The cost-free row ``rho^2 <= 0`` of a multi-client statement gets a constant multiplier (a power of two above the
float value), as it appears in no linear condition.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from fairtheory.algorithms.names import output_name, refuses_old_names
from fairtheory.errors import FairtheoryValueError, SolverError
from fairtheory_kernel import family as pk
from fairtheory_kernel.family import check_family, explain_family

__all__ = ["FamilyCertificate", "FamilyNotProved", "OutOfRange", "RangeResult", "prove_family", "check_family",
           "explain_family", "family_statement", "largest_range", "default_bound", "sample_worst_case"]

Piece = tuple[Fraction, Fraction, Any, dict[int, Any]]
P = flint.fmpq_poly


class FamilyNotProved(SolverError):
    """``prove_family`` found no certificate: the bound is false at a sample (``point``, ``worst`` the float worst
    case there, ``claimed`` the bound), or no rational-function certificate of the searched kind exists."""

    def __init__(self, message: str, *, point: Fraction | None = None, worst: float | None = None,
                 claimed: Fraction | None = None) -> None:
        RuntimeError.__init__(self, message)
        self.what, self.solver, self.status = message, "prove_family", "not proved"
        self.point, self.worst, self.claimed = point, worst, claimed


class OutOfRange(FairtheoryValueError):
    """A parameter value outside the certificate's proved range."""


# ------------------------------------------------------------------------------------------------ statements
def _fq(x: Fraction) -> Any:
    return flint.fmpq(x.numerator, x.denominator)


def _frac(c: Any) -> Fraction:
    return Fraction(int(c.p), int(c.q))


def _rat(x: Any, what: str) -> Fraction:
    if isinstance(x, bool) or not isinstance(x, (int, Fraction, str)):
        if isinstance(x, float) and math.isfinite(x):
            return Fraction(x)
        raise FairtheoryValueError(f"{what} must be a rational (int, Fraction or 'p/q'), got {x!r}")
    try:
        return Fraction(x)
    except (ValueError, ZeroDivisionError) as exc:
        raise FairtheoryValueError(f"{what} must be a rational, got {x!r}") from exc


def default_bound(method: str, *, N: int | None = None, kappa: int | None = None, T_N: int | None = None) -> tuple[Any, Any]:
    """The known closed form ``b(t)`` (numerator, denominator polynomials), bound ``L D0 b(t)``:

    * ``gd``: ``1/(4 N h + 2)`` (Drori & Teboulle 2014; Taylor, Hendrickx & Glineur 2017, for ``h <= 1``);
    * ``local_gd`` (``"average"`` output, rFedFair schedule, ``rho = 0``): ``1/(2 + 2 h (kappa T_N + 2))``
      (``verify.claims.proofs_pep.rho0_formula``)."""
    if method == "gd":
        return P([1]), P([2, 4 * int(N)])  # type: ignore[arg-type]
    return P([1]), P([2, 2 * (int(kappa) * int(T_N) + 2)])  # type: ignore[arg-type]


def _bound_polys(bound: Any, name: str) -> tuple[Any, Any]:
    """``(num, den)`` from a sympy expression in the symbol ``name``, a callable producing one, a rational
    constant, or a pair of coefficient lists (constant term first)."""
    if isinstance(bound, tuple) and len(bound) == 2 and all(isinstance(b, (list, tuple)) for b in bound):
        return pk.poly([_rat(c, "bound coefficient") for c in bound[0]]), \
            pk.poly([_rat(c, "bound coefficient") for c in bound[1]])
    if isinstance(bound, (int, Fraction)) and not isinstance(bound, bool):
        return pk.poly([Fraction(bound)]), P([1])
    import sympy as sp

    x = sp.Symbol(name)
    expr = bound(x) if callable(bound) and not isinstance(bound, sp.Basic) else bound
    try:
        expr = sp.sympify(expr)
    except (sp.SympifyError, TypeError) as exc:
        raise FairtheoryValueError(f"bound must be a sympy expression in {name}, got {bound!r}") from exc
    extra = {str(s) for s in expr.free_symbols} - {name}
    if extra:
        raise FairtheoryValueError(f"bound may depend on {name} only (in units of L D0), not on {sorted(extra)}")
    num, den = sp.fraction(sp.together(sp.expand(expr)))
    out = []
    for part in (num, den):
        try:
            poly = sp.Poly(sp.expand(part), x, domain=sp.QQ)
        except (sp.PolificationFailed, sp.polys.polyerrors.CoercionFailed, sp.polys.polyerrors.PolynomialError,
                sp.polys.polyerrors.GeneratorsNeeded) as exc:
            raise FairtheoryValueError(f"bound must be a rational function of {name} with rational coefficients: "
                                       f"{expr}") from exc
        cs = [Fraction(int(c.p), int(c.q)) for c in reversed(poly.all_coeffs())]
        out.append(pk.poly(cs))
    g = out[0].gcd(out[1])
    if g.degree() > 0:
        out = [out[0] // g, out[1] // g]
    return out[0], out[1]


def at(data: Mapping[str, Any], value: Fraction) -> dict[str, Any]:
    """The ``pep-family`` SDP (:func:`fairtheory_kernel.family.build`) at ``t = value`` with :class:`Fraction` entries
    (the format of :func:`fairtheory_kernel.pep.build`), for the float solver."""
    v = pk._fq(Fraction(value))

    def sub(G: Mapping[tuple[int, int], Any]) -> dict[tuple[int, int], Fraction]:
        out = {k: pk._frac(e(v)) for k, e in G.items()}
        return {k: x for k, x in out.items() if x != 0}

    rows = [(sub(G), dict(F), c) for G, F, c in data["rows"]]
    G, F, c = data["objective"]
    return {"dim": data["dim"], "nf": data["nf"], "n_eq": 0, "n_interp": data["n_interp"], "rows": rows,
            "objective": (sub(G), dict(F), c)}


def family_statement(method: str, **kw: Any) -> dict[str, Any]:
    """A ``"pep-family"`` statement as plain JSON: :func:`fairtheory.proofs.certificate.family_statement` (the one
    place statements are written)."""
    from fairtheory.proofs.certificate import family_statement as make

    return make(method, **kw)


# ------------------------------------------------------------------------------------------------ certificate
@dataclass
class FamilyCertificate:
    """A parametric statement and the rational-function multipliers proving it (module doc)."""

    statement: dict[str, Any]            #: canonical (:func:`fairtheory_kernel.family.canonical`)
    pieces: list[Piece]                  #: ``(lo, hi, denominator, {row: numerator})`` covering the range
    seconds: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def parameter(self) -> str:
        """The parameter's name: ``"h"``, the normalised step ``lr L`` (:meth:`bound` takes ``h=``)."""
        return "h"

    @property
    def range(self) -> tuple[Fraction, Fraction]:
        """The closed interval ``[lo, hi]`` the statement covers."""
        par = self.statement["parameter"]
        return par["lo"], par["hi"]

    def to_json(self) -> dict[str, Any]:
        """``{"kind": "pep-family", "version": 1, "statement", "evidence": {"pieces": [...]}, "meta"}``; ``meta`` is
        informational and never read by the checker."""
        pieces = [{"lo": str(lo), "hi": str(hi), "denominator": pk.poly_json(d),
                   "multipliers": [[k, pk.poly_json(v)] for k, v in sorted(nums.items()) if v != 0]}
                  for lo, hi, d, nums in self.pieces]
        meta = {"seconds": round(self.seconds, 3), "in_words": self.describe()} | {
            k: v for k, v in self.meta.items() if isinstance(v, (str, int, float, bool))}
        return {"kind": "pep-family", "version": 1, "statement": pk.to_json(self.statement),
                "evidence": {"pieces": pieces}, "meta": meta}

    def check(self) -> bool:
        """The exact re-check of :func:`check_family` on :meth:`to_json` (statement rebuilt, nothing trusted)."""
        return check_family(self.to_json())

    def describe(self) -> str:
        """The proved statement in words (generated from the statement)."""
        return pk.describe(self.statement)

    def bound(self, value: Any = None, /, *, L: Any = 1, D0: Any = 1, **parameter: Any) -> Fraction:
        """``L D0 b(t)`` exactly, at the normalised step given by name (``h=``) or positionally;
        :class:`OutOfRange` outside the proved range."""
        name = self.parameter
        if set(parameter) - {name}:
            raise FairtheoryValueError(f"bound(): the parameter is {name!r}, got {sorted(parameter)}")
        if (value is None) == (name not in parameter):
            raise FairtheoryValueError(f"bound(): give the parameter {name} once (by name or position)")
        t = _rat(parameter.get(name, value), name)
        Lq, Dq = _rat(L, "L"), _rat(D0, "D0")
        if Lq <= 0 or Dq < 0:
            raise FairtheoryValueError(f"bound(): need L > 0 and D0 >= 0, got L = {Lq}, D0 = {Dq}")
        lo, hi = self.range
        if not lo <= t <= hi:
            raise OutOfRange(f"{name} = {t} is outside the proved range [{lo}, {hi}]")
        num, den = self.statement["bound"]["num"], self.statement["bound"]["den"]
        return Lq * Dq * _frac(num(_fq(t))) / _frac(den(_fq(t)))


# ------------------------------------------------------------------------------------------------ float side
def _float_solve(data_at: Mapping[str, Any]) -> Any:
    """Clarabel (fast; ``1e-6``-``1e-4`` relative on these degenerate SDPs), the reference solve of
    :mod:`fairtheory.proofs.search` when Clarabel reports no solution."""
    from fairtheory.proofs import search
    from fairtheory.worstcase import solvers

    Pp = solvers.ExportedPEP(data_at)
    with search._one_blas_thread():
        sol = solvers.solve_clarabel(Pp, tol=1e-10)
        if not sol.ok:
            sol = search._reference(Pp)
    if sol is None or sol.gram is None:
        raise FamilyNotProved("the float SDP solve failed at a sample point")
    return Pp, sol


def sample_worst_case(method: str, t: Any, **kw: Any) -> float:
    """Float worst case (normalised, ``L = D0 = 1``) of the family's SDP at one parameter value (a sanity
    helper; the value at ``t`` of the same SDP the kernel builds)."""
    st = pk.canonical(family_statement(method, lo=0, hi=max(Fraction(1), _rat(t, "t")), num=P([1]), den=P([1]),
                                       **kw))
    _, sol = _float_solve(at(pk.build(st), _rat(t, "t")))
    return float(sol.value)


def _grid(lo: Fraction, hi: Fraction, m: int) -> list[Fraction]:
    """``m`` interior points of ``[lo, hi]``, each the simplest rational within a quarter spacing of
    ``lo + k (hi - lo)/(m + 1)`` (small denominators keep the worst cases' entries simple)."""
    step = (hi - lo) / (m + 1)
    out = [_simplest(lo + step * k - step / 4, lo + step * k + step / 4) for k in range(1, m + 1)]
    return sorted(set(out))


def _b(num: Any, den: Any, s: Fraction) -> Fraction:
    return _frac(num(_fq(s))) / _frac(den(_fq(s)))


# ------------------------------------------------------------------------------------------------ exact helpers
def _interpolate(xs: Sequence[Fraction], ys: Sequence[Fraction]) -> Any:
    """The polynomial of degree < len(xs) through the points (Newton divided differences, exact)."""
    n = len(xs)
    coef = list(ys)
    for j in range(1, n):
        for i in range(n - 1, j - 1, -1):
            coef[i] = (coef[i] - coef[i - 1]) / (xs[i] - xs[i - j])
    out = pk.poly([coef[-1]])
    for i in range(n - 2, -1, -1):
        out = out * P([_fq(-xs[i]), 1]) + _fq(coef[i])
    return out


def _rref_null(M: Any, rhs: Sequence[Any]) -> tuple[list[Fraction], list[list[Fraction]]] | None:
    """Particular solution and null-space basis of ``M x = rhs`` (exact), ``None`` when inconsistent."""
    m, n = M.nrows(), M.ncols()
    aug = flint.fmpq_mat(m, n + 1, [M[i, j] if j < n else rhs[i] for i in range(m) for j in range(n + 1)])
    R, rank = aug.rref()
    pivots = []
    for i in range(rank):
        j = next(j for j in range(n + 1) if R[i, j] != 0)
        if j == n:
            return None
        pivots.append(j)
    part = [Fraction(0)] * n
    for i, j in enumerate(pivots):
        part[j] = _frac(R[i, n])
    free = [j for j in range(n) if j not in pivots]
    basis = []
    for f in free:
        v = [Fraction(0)] * n
        v[f] = Fraction(1)
        for i, j in enumerate(pivots):
            v[j] = -_frac(R[i, f])
        basis.append(v)
    return part, basis


# ------------------------------------------------------------------------------------------------ the search
class _Fail(Exception):
    pass


class _System:
    """The linear conditions of the tight face over ``Q[t]``: values cancel, ``lambda_D0 = b``, ``S V = 0``."""

    def __init__(self, data: Mapping[str, Any], V: Sequence[dict[int, Any]], num: Any, den: Any) -> None:
        rows, (CG, cF, _) = data["rows"], data["objective"]
        self.n_rows = len(rows)
        self.k_d0 = data["n_interp"]
        eqs: list[dict[int, Any]] = []  # equation -> {column: poly}
        rhs: list[Any] = []
        for f in range(data["nf"]):
            eqs.append({k: P(_fq(r[1][f])) for k, r in enumerate(rows) if f in r[1]})
            rhs.append(P(_fq(cF.get(f, Fraction(0)))))
        eqs.append({self.k_d0: den})
        rhs.append(num)
        dim = data["dim"]
        for v in V:
            for a in range(dim):
                e: dict[int, Any] = {}
                for k, (G, _, _) in enumerate(rows):
                    acc = P(0)
                    for (i, j), g in G.items():
                        if i == a and j in v:
                            acc += g * v[j]
                        if j == a and i != j and i in v:
                            acc += g * v[i]
                    if acc != 0:
                        e[k] = acc
                cv = P(0)
                for (i, j), g in CG.items():
                    if i == a and j in v:
                        cv += g * v[j]
                    if j == a and i != j and i in v:
                        cv += g * v[i]
                if e or cv != 0:
                    eqs.append(e)
                    rhs.append(cv)
        self.eqs, self.rhs = eqs, rhs

    def fix(self, k: int, phi: Any) -> None:
        """Add the condition ``lambda_k = phi(t)``."""
        self.eqs.append({k: P(1)})
        self.rhs.append(phi)

    def at(self, K: Sequence[int], s: Fraction) -> tuple[Any, list[Any]]:
        x = _fq(s)
        pos = {k: i for i, k in enumerate(K)}
        M = flint.fmpq_mat(len(self.eqs), len(K))
        for r, e in enumerate(self.eqs):
            for k, poly in e.items():
                if k in pos:
                    M[r, pos[k]] = poly(x)
        return M, [p(x) for p in self.rhs]

    def used(self) -> set[int]:
        return {k for e in self.eqs for k in e}

    def copy(self) -> _System:
        out = object.__new__(_System)
        out.n_rows, out.k_d0, out.eqs, out.rhs = self.n_rows, self.k_d0, list(self.eqs), list(self.rhs)
        return out


def _simplest(a: Fraction, b: Fraction) -> Fraction:
    """The rational of smallest denominator in ``[a, b]`` (continued fractions)."""
    if a <= 0 <= b:
        return Fraction(0)
    if b < 0:
        return -_simplest(-b, -a)
    n = Fraction(math.floor(a))
    if n == a:
        return n
    if n + 1 <= b:
        return n + 1
    return n + 1 / _simplest(1 / (b - n), 1 / (a - n))


def _tight_range(sols: Sequence[Any], pts: Sequence[Fraction], dim: int, *, tol: float = 2e-4) -> list[dict[int, Any]]:
    """``V(t)``: the worst-case Gram matrices' range (float), in reduced echelon form with the pivots of the first
    sample, each entry fitted across the samples as a low-degree rational function of ``t`` whose simplest
    rational coefficients match every sample to ``tol`` (:func:`_float_rational_fit`)."""
    ranks, bases = [], []
    for sol in sols:
        G = np.asarray(sol.gram, dtype=float)
        w, U = np.linalg.eigh(0.5 * (G + G.T))
        top = max(float(w[-1]), 1e-300)
        r = int(np.sum(w > 1e-6 * top))
        ranks.append(r)
        B = U[:, w > 1e-6 * top].T
        bases.append(B)
    if len(set(ranks)) != 1:
        raise _Fail(f"the worst case's rank changes across the samples ({sorted(set(ranks))})")
    r = ranks[0]
    echelon = []
    piv_ref: list[int] | None = None
    for B in bases:
        B = B.copy()
        piv = []
        for i in range(r):  # float RREF with column pivoting by largest entry (pivots fixed from the first sample)
            rest = [c for c in range(dim) if c not in piv]
            c = piv_ref[i] if piv_ref is not None else max(rest, key=lambda c: abs(B[i, c]))
            if abs(B[i, c]) < 1e-9:
                raise _Fail("the worst case's range has no consistent echelon form")
            B[i] /= B[i, c]
            for j in range(r):
                if j != i:
                    B[j] -= B[j, c] * B[i]
            piv.append(c)
        piv_ref = piv
        echelon.append(B)
    V = []
    for i in range(r):
        vec: dict[int, Any] = {}
        dens = P(1)
        fits = {}
        for c in range(dim):
            ys = [float(echelon[j][i, c]) for j in range(len(pts))]
            if all(abs(y) < 1e-7 for y in ys):
                continue
            pq = _float_rational_fit([float(x) for x in pts], ys, max_total=min(4, len(pts) - 2), tol=tol)
            if pq is None:
                raise _Fail("the worst case's range is not a rational function of the parameter of low degree")
            fits[c] = pq
            dens = dens * pq[1] // dens.gcd(pq[1])  # lcm
        for c, (p, q) in fits.items():
            vec[c] = p * (dens // q)
        V.append(vec)
    return V


def _float_rational_fit(xs: Sequence[float], ys: Sequence[float], *, max_total: int,
                        tol: float) -> tuple[Any, Any] | None:
    """``p/q`` with rational coefficients and the least ``deg p + deg q <= max_total`` matching the float samples to
    ``tol`` (relative): the smallest singular vector of ``[x^a, -y x^b]``, normalised (``q(0) = 1``, else ``q``'s
    leading coefficient ``= 1``), each coefficient the simplest rational within ``10^-2``, ..., ``10^-9`` (relative,
    loosest first) that matches every sample; at each total degree the candidate of least error."""
    X = np.asarray(xs)
    Yv = np.asarray(ys)
    for total in range(max_total + 1):
        best: tuple[float, Any, Any] | None = None  # at each total degree the candidate of least error wins
        for dq in range(total + 1):
            dp = total - dq
            if dp + dq + 2 > len(xs):
                continue
            A = np.hstack([X[:, None] ** np.arange(dp + 1), -(Yv[:, None]) * X[:, None] ** np.arange(dq + 1)])
            _, _, Vt = np.linalg.svd(A)
            v = Vt[-1]
            qc = v[dp + 1:]
            for norm in (0, dq):
                if abs(qc[norm]) < 1e-8 * max(np.abs(qc).max(), 1e-300):
                    continue
                w = [Fraction(float(x)) for x in v / qc[norm]]
                for rt in (Fraction(1, 10**k) for k in range(2, 10)):  # the simplest coefficients first
                    cq = [_simplest(x - rt * (1 + abs(x)), x + rt * (1 + abs(x))) for x in w]
                    pp, qq = pk.poly(cq[: dp + 1]), pk.poly(cq[dp + 1:])
                    if qq == 0:
                        continue
                    err = 0.0
                    for x, y in zip(xs, ys, strict=True):
                        qv = float(_frac(qq(_fq(Fraction(x)))))
                        err = math.inf if qv == 0 else max(err, abs(float(_frac(pp(_fq(Fraction(x))))) / qv - y)
                                                           / (1 + abs(y)))
                    if err <= tol:
                        if best is None or err < best[0]:
                            best = (err, pp, qq)
                        break
        if best is not None:
            return best[1], best[2]
    return None


def _complement(Vf: np.ndarray, dim: int) -> np.ndarray:
    """Orthonormal basis (columns) of the orthogonal complement of the columns of ``Vf``."""
    if Vf.shape[1] == 0:
        return np.eye(dim)
    Qm, _ = np.linalg.qr(np.hstack([Vf, np.eye(dim)]))
    return Qm[:, Vf.shape[1]:dim]


class _Sample:
    """Float data of one sample point for the margin SDPs: every row's ``U^T A_k U`` as a scaled upper-triangle
    vector (Clarabel's ``PSDTriangleConeT`` order), ``U`` an orthonormal basis of ``V(s)^perp``."""

    def __init__(self, data: Mapping[str, Any], V: Sequence[dict[int, Any]], s: Fraction, system: _System) -> None:
        self.s = s
        x = _fq(s)
        dim = data["dim"]
        Vf = np.array([[float(_frac(v[c](x))) if c in v else 0.0 for c in range(dim)] for v in V]).T.reshape(dim, len(V))
        U = _complement(Vf, dim)
        d = U.shape[1]
        self.d = d
        iu = np.triu_indices(d)
        order = np.lexsort((iu[0], iu[1]))  # column-major upper triangle
        self.iu = (iu[0][order], iu[1][order])
        self.scale = np.where(self.iu[0] == self.iu[1], 1.0, math.sqrt(2.0))

        def svec(G: Mapping[tuple[int, int], Any]) -> np.ndarray:
            A = np.zeros((dim, dim))
            for (i, j), g in G.items():
                A[i, j] = A[j, i] = float(_frac(g(x)))
            B = U.T @ A @ U
            return B[self.iu] * self.scale

        self.blocks = np.array([svec(G) for G, _, _ in data["rows"]])
        self.C = svec(data["objective"][0])
        self.eye = np.eye(d)[self.iu] * self.scale
        self.system = system
        self.last = 0.0


def _margin(sample: _Sample, K: Sequence[int], free: Sequence[int], cap: float = 1e4, *,
            extreme: tuple[int, float] | None = None, weights: Mapping[int, float] | None = None,
            t_min: float = 0.0) -> tuple[float, dict[int, float]]:
    """Largest ``t <= 1`` with multipliers on ``K`` (the exact affine solution set of the linear conditions at the
    sample, parametrised) and on the free rows ``free`` (``<= cap``): ``lambda >= 0`` and ``U^T S U >= t I``
    (Clarabel).  With ``extreme = (k, sign)``: instead the multipliers minimising ``sign * lambda_k`` subject to
    ``t >= t_min`` (returns that ``lambda_k`` as the first value); with ``weights``: minimising
    ``sum_k weights_k lambda_k`` subject to ``t >= t_min`` (a sparse point; returns ``t``)."""
    import clarabel
    import scipy.sparse as sp

    M, rhs = sample.system.at(K, sample.s)
    sol = _rref_null(M, rhs)
    if sol is None:
        return -math.inf, {}
    part, basis = sol
    lp = np.array([float(x) for x in part])
    W = np.array([[float(x) for x in v] for v in basis]).T if basis else np.zeros((len(K), 0))
    m, f = W.shape[1], len(free)
    if m == 0 and np.any(lp < 0):
        return -math.inf, {}
    Bk = sample.blocks[list(K)]                     # |K| x nv
    S0 = lp @ Bk - sample.C
    nx = m + f + 1
    blocks_A, b = [], []
    if m:
        blocks_A.append(np.hstack([-W, np.zeros((len(K), f + 1))]))
        b.append(lp)
    if f:
        blocks_A.append(np.hstack([np.zeros((f, m)), -np.eye(f), np.zeros((f, 1))]))
        b.append(np.zeros(f))
        blocks_A.append(np.hstack([np.zeros((f, m)), np.eye(f), np.zeros((f, 1))]))
        b.append(np.full(f, cap))
    blocks_A.append(np.eye(1, nx, nx - 1))
    b.append(np.ones(1))
    if extreme is not None or weights is not None:
        blocks_A.append(-np.eye(1, nx, nx - 1))
        b.append(np.array([-t_min]))
    n_lin = sum(len(x) for x in b)
    psd_cols = [-(W.T @ Bk).T] if m else []
    if f:
        psd_cols.append(-sample.blocks[list(free)].T)
    psd_cols.append(sample.eye.reshape(-1, 1))
    blocks_A.append(np.hstack(psd_cols))
    b.append(S0)
    A = sp.csc_matrix(np.vstack(blocks_A))
    q = np.zeros(nx)
    if weights is not None:
        cw = np.array([weights.get(k, 0.0) for k in K])
        q[:m] = W.T @ cw
    elif extreme is None:
        q[-1] = -1.0
    else:
        i = list(K).index(extreme[0])
        if m == 0 or not np.any(W[i]):
            return float(lp[i]), {}
        q[:m] = extreme[1] * W[i]
    st = clarabel.DefaultSettings()
    st.verbose = False
    st.max_threads = 1
    st.max_iter = 200
    cones = [clarabel.NonnegativeConeT(n_lin), clarabel.PSDTriangleConeT(sample.d)]
    try:
        res = clarabel.DefaultSolver(sp.csc_matrix((nx, nx)), q, A, np.concatenate(b), cones, st).solve()
    except Exception:  # noqa: BLE001 - a failed float solve counts as "no margin"
        return -math.inf, {}
    status = str(res.status).split(".")[-1]
    if status not in ("Solved", "AlmostSolved"):
        return -math.inf, {}
    xs = np.asarray(res.x, dtype=float)
    lam = lp + W @ xs[:m]
    out = {k: float(lam[i]) for i, k in enumerate(K)} | {k: float(xs[m + j]) for j, k in enumerate(free)}
    if extreme is not None:
        return out[extreme[0]], out
    return float(xs[-1]), out


def _fix_one(samples: Sequence[_Sample], K: Sequence[int], free: Sequence[int], current: float,
             n_int: int) -> tuple[int, Any] | None:
    """A free direction fixed canonically: for a row ``k`` whose multiplier has a feasible range (margin at least
    ``keep`` times the current one) at every sample - the widest first - the lowest-degree polynomial staying in
    the middle of the range at every sample (an LP), rounded to small denominators."""
    lam = _margin(samples[len(samples) // 2], K, free)[1]
    order = sorted((k for k in K if k != n_int), key=lambda k: -lam.get(k, 0.0))
    for keep, cands in ((0.5, order[:8]), (0.2, order)):
        found = []
        for k in cands:
            rng = []
            for smp in samples:
                a, _ = _margin(smp, K, free, extreme=(k, 1.0), t_min=keep * current)
                b, _ = _margin(smp, K, free, extreme=(k, -1.0), t_min=keep * current)
                if not (math.isfinite(a) and math.isfinite(b)) or b - a <= 1e-12:
                    break
                rng.append((a, b))
            else:
                found.append((min((b - a) / (1.0 + abs(a) + abs(b)) for a, b in rng), k, rng))
        for _, k, rng in sorted(found, reverse=True):
            phi = _middle_polynomial([smp.s for smp in samples], rng)
            if phi is not None:
                return k, phi
    return None


def _middle_polynomial(xs_q: Sequence[Fraction], rng: Sequence[tuple[float, float]]) -> Any:
    """The lowest-degree polynomial with rational coefficients inside the middle 60% of ``rng[s]`` at every
    point (an LP for the shape, then the simplest coefficients that still fit), or ``None``."""
    from scipy.optimize import linprog

    xs = [float(x) for x in xs_q]
    for deg in range(len(xs)):
        # maximise delta: lo_s + delta w_s <= phi(s) <= hi_s - delta w_s
        A_ub, b_ub = [], []
        for x, (a, b) in zip(xs, rng, strict=True):
            w = b - a
            row = [x ** e for e in range(deg + 1)]
            A_ub.append([-v for v in row] + [w])
            b_ub.append(-a)
            A_ub.append(row + [w])
            b_ub.append(b)
        c = [0.0] * (deg + 1) + [-1.0]
        res = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=[(None, None)] * (deg + 1) + [(0, 0.5)], method="highs")
        if res.status != 0 or res.x[-1] < 0.25:
            continue
        for bits in (3, 6, 10, 16, 24, 32, 48):
            cq = [Fraction(round(float(v) * 2**bits), 2**bits) for v in res.x[:-1]]
            phi = pk.poly(cq)
            if all(a + 0.2 * (b - a) <= float(_frac(phi(_fq(x)))) <= b - 0.2 * (b - a)
                   for x, (a, b) in zip(xs_q, rng, strict=True)):
                return phi
    return None


def _exact_solution(system: _System, K: Sequence[int], lo: Fraction, hi: Fraction) -> tuple[Any, dict[int, Any]]:
    """``(D, {k: N_k})`` with ``lambda_k = N_k / D`` the unique solution over ``Q(t)`` on the support ``K``."""
    s0 = lo + (hi - lo) * Fraction(3, 7)
    M0, _ = system.at(K, s0)
    R, rank = M0.transpose().rref()
    if rank != len(K):
        raise _Fail("the linear conditions do not determine the multipliers")
    rows_sel = []
    for i in range(rank):
        rows_sel.append(next(j for j in range(R.ncols()) if R[i, j] != 0))
    eqs = [system.eqs[r] for r in rows_sel]
    rhs = [system.rhs[r] for r in rows_sel]
    deg = 0
    for e, r in zip(eqs, rhs, strict=True):
        deg += max([r.degree()] + [p.degree() for k, p in e.items() if k in K] + [0])
    pts: list[Fraction] = []
    dets: list[Fraction] = []
    sols: list[list[Fraction]] = []
    k = 0
    pos = {kk: i for i, kk in enumerate(K)}
    while len(pts) < deg + 1:
        k += 1
        s = lo + (hi - lo) * Fraction(k, deg + 7) if k < deg + 7 else hi + Fraction(k, 3)
        x = _fq(s)
        A = flint.fmpq_mat(len(K), len(K))
        for i, e in enumerate(eqs):
            for kk, p in e.items():
                if kk in pos:
                    A[i, pos[kk]] = p(x)
        dt = A.det()
        if dt == 0:
            continue
        bvec = flint.fmpq_mat(len(K), 1, [r(x) for r in rhs])
        xs = A.solve(bvec)
        pts.append(s)
        dets.append(_frac(dt))
        sols.append([_frac(xs[i, 0]) for i in range(len(K))])
    D = _interpolate(pts, dets)
    nums = {kk: _interpolate(pts, [sols[j][i] * dets[j] for j in range(len(pts))]) for i, kk in enumerate(K)}
    g = D
    for nk in nums.values():
        if nk != 0:
            g = g.gcd(nk)
    if g.degree() > 0:
        D = D // g
        nums = {kk: nk // g for kk, nk in nums.items()}
    # integer content out, D positive at lo
    c = _frac(D(_fq(lo))) if D(_fq(lo)) != 0 else Fraction(1)
    scale = 1 / abs(c) if c != 0 else Fraction(1)
    if D(_fq(lo)) < 0:
        scale = -scale
    D = D * _fq(scale)
    nums = {kk: nk * _fq(scale) for kk, nk in nums.items() if nk != 0}
    return D, nums


def _search_piece(data: Mapping[str, Any], st: Mapping[str, Any], lo: Fraction, hi: Fraction, *,
                  n_samples: int, log: list[str]) -> Piece:
    num, den = st["bound"]["num"], st["bound"]["den"]
    pts = _grid(lo, hi, n_samples)
    sols, tight = [], []
    for s in pts:
        _, sol = _float_solve(at(data, s))
        b = float(_b(num, den, s))
        if sol.value > b + 1e-6 * max(1.0, abs(b)):
            raise FamilyNotProved(f"the bound is false at {st['parameter']['name']} = {s}: the worst case there is "
                                  f"{sol.value:.12g} > {b:.12g} (float SDP)", point=s, worst=sol.value,
                                  claimed=_b(num, den, s))
        tight.append(sol.value >= b - 1e-5 * max(1.0, abs(b)))
        sols.append(sol)
    if all(tight):
        V = _tight_range(sols, pts, data["dim"], tol=2e-4)
    elif not any(tight):  # a bound above the worst case: no tightness conditions, margin on the whole space
        V = []
        log.append(f"[{lo}, {hi}]: the bound is not tight at any sample")
    else:
        raise _Fail(f"the bound is tight at {sum(tight)} of {len(tight)} samples only")
    system = _System(data, V, num, den)
    used = system.used()
    n_int = data["n_interp"]
    free = [k for k in range(n_int + 1, len(data["rows"])) if k not in used]  # rho^2 <= 0: in no condition
    zmax = max(max(float(x) for k, x in enumerate(sol.z) if k not in free) for sol in sols)
    K = sorted({k for sol in sols for k, x in enumerate(sol.z) if k not in free and x > 1e-6 * zmax} | {n_int})
    # margin samples: the ends and three inner points (inner points near the ends when an end has no margin,
    # e.g. where a second worst case appears)
    marg_pts = [lo + (hi - lo) * Fraction(k, 8) for k in (0, 2, 4, 6, 8)]
    samples = [_Sample(data, V, s, system) for s in marg_pts]

    def margin(Kc: Sequence[int], need: float = 0.0) -> float:
        out = math.inf
        for smp in sorted(samples, key=lambda x: x.last):  # the binding sample first: early exit
            t, _ = _margin(smp, Kc, free)
            smp.last = t
            out = min(out, t)
            if out <= need:
                break
        return out

    base = margin(K)
    if not base > 1e-9:
        marg_pts = [lo + (hi - lo) * Fraction(k, 64) for k in (1, 16, 32, 48, 63)]
        samples = [_Sample(data, V, s, system) for s in marg_pts]
        base = margin(K)
    if not base > 0:
        raise _Fail(f"no multipliers with a positive margin on the solver's support (margin {base:.3g})")
    log.append(f"[{lo}, {hi}]: rank V = {len(V)}, support {len(K)}, margin {base:.3g}")
    zsum = {k: sum(float(sol.z[k]) for sol in sols) for k in K}

    def dim_free(Kc: Sequence[int]) -> int:
        M, rhs = system.at(Kc, marg_pts[1])
        sol = _rref_null(M, rhs)
        return -1 if sol is None else len(sol[1])

    current = base
    # a sparse start: at each sample the multipliers of least weighted sum keeping half the margin
    zmean = {k: max(zsum[k], 1e-12) for k in K}
    union: set[int] = {n_int}
    for smp in samples:
        _, lam = _margin(smp, K, free, weights={k: 1.0 / zmean[k] for k in K}, t_min=0.5 * base)
        if not lam:
            union = set(K)
            break
        top = max(abs(v) for v in lam.values())
        union |= {k for k in K if lam.get(k, 0.0) > 1e-7 * top}
    Ks = sorted(union)
    if dim_free(Ks) >= 0:
        ms = margin(Ks, need=0.1 * base)
        if ms >= 0.1 * base:
            log.append(f"[{lo}, {hi}]: sparse start {len(Ks)} rows, margin {ms:.3g}")
            K, current = Ks, ms
    # batches first: the rows with the smallest multipliers, halving the batch on failure
    cands = sorted((k for k in K if k != n_int), key=lambda k: zsum[k])
    i, B = 0, max(1, len(cands) // 2)
    while i < len(cands) and dim_free(K) > 0:
        batch = set(cands[i:i + B])
        Kc = [x for x in K if x not in batch]
        mval = margin(Kc, need=0.5 * current) if dim_free(Kc) >= 0 else -math.inf
        if mval >= 0.5 * current:
            K, current = Kc, mval
            i += B
        elif B > 1:
            B = max(1, B // 2)
        else:
            i += 1
    while dim_free(K) > 0:
        removed = False
        for frac_keep in (0.5, 0.1, 0.01, 1e-4):
            for k in sorted((k for k in K if k != n_int), key=lambda k: zsum[k]):
                Kc = [x for x in K if x != k]
                if dim_free(Kc) < 0:
                    continue
                mval = margin(Kc, need=max(frac_keep * current, 1e-9))
                if mval >= frac_keep * current and mval > 1e-9:
                    K, current, removed = Kc, mval, True
                    break
            if removed:
                break
        if not removed:
            fixed = _fix_one(samples, K, free, current, n_int)
            if fixed is None:
                raise _Fail(f"no row can be removed or fixed while keeping a positive margin ({len(K)} rows, "
                            f"{dim_free(K)} free directions)")
            k, phi = fixed
            system.fix(k, phi)
            current = margin(K)
            log.append(f"fixed row {k} to a polynomial of degree {phi.degree()} (margin {current:.3g})")
            if not current > 0:
                raise _Fail("fixing a free direction lost the margin")
    log.append(f"[{lo}, {hi}]: canonical support {len(K)} rows, margin {current:.3g}")
    D, nums = _exact_solution(system, K, lo, hi)
    if free:  # the cost-free rows: a power of two above the float value
        need = 0.0
        for smp in samples:
            _, vals = _margin(smp, K, free)
            need = max([need] + [vals.get(k, 0.0) for k in free])
        c = Fraction(2) ** max(0, math.ceil(math.log2(max(need, 1e-3) * 4)))
        for k in free:
            nums[k] = D * _fq(c)
    return lo, hi, D, nums


def _prove(st: dict[str, Any], *, n_samples: int, max_pieces: int, log: list[str]) -> list[Piece]:
    data = pk.build(st)
    lo, hi = st["parameter"]["lo"], st["parameter"]["hi"]
    todo = [(lo, hi)]
    done: list[Piece] = []
    while todo:
        a, b = todo.pop(0)
        why = ""
        try:
            piece = _search_piece(data, st, a, b, n_samples=n_samples, log=log)
            why = _size_problem(piece) or pk._check_piece(data, st, *piece)
        except _Fail as exc:
            why = str(exc)
        if not why:
            done.append(piece)
            continue
        log.append(f"[{a}, {b}]: {why}")
        if len(done) + len(todo) + 2 > max_pieces:
            raise FamilyNotProved(f"no rational-function certificate found on [{a}, {b}] "
                                  f"(at most {max_pieces} pieces): {why}")
        mid = _simplest(a + (b - a) / 3, a + 2 * (b - a) / 3)  # a simple split point in the middle third
        todo = [(a, mid), (mid, b)] + todo
    done.sort(key=lambda pc: pc[0])
    return done


def _size_problem(piece: Piece) -> str:
    """Why a piece exceeds the kernel's limits on degrees and digits (``""`` when it does not)."""
    polys = [piece[2], *piece[3].values()]
    if max(p.degree() for p in polys) > pk.MAX_DEGREE:
        return f"a multiplier of degree > {pk.MAX_DEGREE}"
    for p in polys:
        for c in p.coeffs():
            f = _frac(c)
            if max(len(str(abs(f.numerator))), len(str(f.denominator))) > pk.MAX_EVIDENCE_DIGITS:
                return f"a coefficient of more than {pk.MAX_EVIDENCE_DIGITS} digits"
    return ""


def _prescan(st: dict[str, Any], data: Mapping[str, Any], m: int, refine: int = 10) -> None:
    """Float worst case on a grid of the whole range (ends included).  At the first grid point where it exceeds the
    bound (by more than ``1e-6`` relative) the interval from the previous grid point is bisected ``refine`` times
    (simple rationals), and :class:`FamilyNotProved` names the smallest point found where the bound fails."""
    num, den = st["bound"]["num"], st["bound"]["den"]
    lo, hi = st["parameter"]["lo"], st["parameter"]["hi"]
    name = st["parameter"]["name"]
    if not pk.no_root_on(den, lo, hi):
        raise FamilyNotProved(f"the bound's denominator vanishes in [{lo}, {hi}]")

    def excess(s: Fraction) -> tuple[bool, float, Fraction]:
        _, sol = _float_solve(at(data, s))
        b = _b(num, den, s)
        return sol.value > float(b) + 1e-6 * max(1.0, abs(float(b))), float(sol.value), b

    good = None
    for s in [lo] + _grid(lo, hi, m) + [hi]:
        if s == 0:
            good = s
            continue  # the point SDP at step 0 is degenerate for the float solvers; the exact check covers it
        bad, worst, b = excess(s)
        if not bad:
            good = s
            continue
        if good is not None:  # the smallest failing point: bisection towards the last point that held
            a = good
            for _ in range(refine):
                mid = _simplest(a + (s - a) / 3, a + 2 * (s - a) / 3)
                bad_m, worst_m, b_m = excess(mid)
                if bad_m:
                    s, worst, b = mid, worst_m, b_m
                else:
                    a = mid
        extra = _exact_witness(st, s, b)
        raise FamilyNotProved(f"the bound is false at {name} = {s}: the worst case there is {worst:.12g} > "
                              f"{float(b):.12g} = b({s}) (float SDP){extra}", point=s, worst=worst, claimed=b)


def _exact_witness(st: Mapping[str, Any], s: Fraction, b: Fraction) -> str:
    """For gradient descent: an exact instance beating the bound at ``h = s`` when one of the two classical ones does
    (the quadratic ``x^2/2`` gives ``(1 - h)^(2N) / 2``; the Huber function ``tau |x| - tau^2/2`` with ``tau =
    1/(2 N h + 1)`` gives ``1/(4 N h + 2)``)."""
    if st["method"]["name"] != "gd":
        return ""
    N = st["method"]["N"]
    quad = (1 - s) ** (2 * N) / 2
    if quad > b:
        return f"; exactly refuted by f(x) = L x^2/2 from x0 = sqrt(D0): f(x_N) - f* = (1 - h)^(2N)/2 = {quad}"
    return ""


# ------------------------------------------------------------------------------------------------ public API
def _check_int(x: Any, what: str, lo: int, hi: int) -> int:
    if isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi:
        raise FairtheoryValueError(f"{what} must be an integer in [{lo}, {hi}], got {x!r}")
    return x


def _range(r: Any, what: str) -> tuple[Fraction, Fraction]:
    if not isinstance(r, (tuple, list)) or len(r) != 2:
        raise FairtheoryValueError(f"{what} must be a pair (lo, hi) of rationals, got {r!r}")
    lo, hi = _rat(r[0], f"{what}[0]"), _rat(r[1], f"{what}[1]")
    if not 0 <= lo < hi <= pk.MAX_PARAM:
        raise FairtheoryValueError(f"{what} = ({lo}, {hi}): need 0 <= lo < hi <= {pk.MAX_PARAM}")
    return lo, hi


@refuses_old_names(None, also={"beta_L": "h"})
def prove_family(method: str, *, N: int | None = None, h: Any = None, n: int = 2, kappa: int | None = None,
                 T_N: int | None = None, output: str = "average", schedule: str = "rfedfair", rho2: Any = 0,
                 p: Sequence[Any] | None = None, bound: Any = None, samples: int = 6,
                 max_pieces: int = 4) -> FamilyCertificate:
    r"""A certificate that the worst case is at most ``L D0 b(t)`` for every ``t`` in the given closed range.

    Parameters
    ----------
    method : ``"gd"`` (``N`` steps of gradient descent with step ``h / L``, range ``h=(lo, hi)``) or
        ``"local_gd"`` (002 Alg. 1, ``n`` clients, ``kappa``, ``T_N``, ``output``, ``schedule``, ``rho2 = 0``,
        step ``h / L``, range ``h=(lo, hi)``; ``output`` ``"average"``, ``"path_average"`` or ``"last"``).
    bound : the claimed ``b(t)`` in units of ``L D0`` - a sympy expression in ``h``, a callable
        producing one from the symbol, a rational, or ``(num_coeffs, den_coeffs)``; default the known closed form
        (:func:`default_bound`).
    samples : float samples per piece; max_pieces : pieces the range may be split into.

    Raises :class:`FamilyNotProved` (a :class:`~fairtheory.errors.SolverError`) when the bound is false at a
    sampled point (the smallest such point is named) or no certificate was found; the returned certificate has
    passed :func:`check_family`."""
    t0 = time.perf_counter()
    if method == "gd":
        if h is None:
            raise FairtheoryValueError("gd: give the range as h=(lo, hi)")
        _check_int(N, "N", 1, pk.MAX_STEPS)
        lo, hi = _range(h, "h")
        kw: dict[str, Any] = {"N": N}
    elif method == "local_gd":
        if h is None:
            raise FairtheoryValueError("local_gd: give the range as h=(lo, hi)")
        output = output_name(output, where="parametric.prove_family")
        if _rat(rho2, "rho2") != 0:
            raise FairtheoryValueError(f"local_gd: only rho2 = 0 is supported by version 1, got {rho2!r}")
        _check_int(kappa, "kappa", 1, pk.MAX_STEPS)
        _check_int(T_N, "T_N", 0, pk.MAX_STEPS)
        _check_int(n, "n", 1, 4)
        lo, hi = _range(h, "h")
        kw = {"n": n, "kappa": kappa, "T_N": T_N, "output": output, "schedule": schedule,
              "p": p}
    else:
        raise FairtheoryValueError(f"method must be 'gd' or 'local_gd', got {method!r}")
    known = method == "gd" or (output == "average" and schedule == "rfedfair")
    if bound is None:
        if not known:
            raise FairtheoryValueError("no known closed form for this local_gd setting: pass bound=")
        num, den = default_bound(method, N=N, kappa=kappa, T_N=T_N)
    else:
        num, den = _bound_polys(bound, "h")
    st_json = family_statement(method, lo=lo, hi=hi, num=num, den=den, **kw)
    st = pk.canonical(st_json)
    data = pk.build(st)
    _prescan(st, data, m=8)
    log: list[str] = []
    pieces: list[Piece] | None = None
    if bound is not None and known:
        # a user formula at least the known tight one on the range is proved by the known one's multipliers
        n0, d0 = default_bound(method, N=N, kappa=kappa, T_N=T_N)
        if pk.no_root_on(d0, lo, hi) and pk.nonneg_on((num * d0 - n0 * den) * den * d0, lo, hi):
            st0 = pk.canonical(family_statement(method, lo=lo, hi=hi, num=n0, den=d0, **kw))
            pieces = _prove(st0, n_samples=samples, max_pieces=max_pieces, log=log)
            log.append("proved with the multipliers of the known closed form (the given bound is at least it)")
    if pieces is None:
        pieces = _prove(st, n_samples=samples, max_pieces=max_pieces, log=log)
    cert = FamilyCertificate(statement=st, pieces=pieces, meta={"log": "; ".join(log)})
    ok, why = explain_family(cert.to_json())
    if not ok:
        raise FamilyNotProved(f"the certificate found failed the exact check: {why}")
    cert.seconds = time.perf_counter() - t0
    return cert


@dataclass
class RangeResult:
    """What :func:`largest_range` found: ``proved`` the largest ``hi`` proved (``certificate`` proves ``[lo,
    proved]``), ``failed`` the smallest ``hi`` tried that was not (``None`` when ``stop`` was proved) and why."""

    proved: Fraction
    certificate: FamilyCertificate
    failed: Fraction | None
    reason: str
    tries: list[tuple[Fraction, bool, float]] = field(default_factory=list)  #: (hi, proved?, seconds)


def largest_range(method: str, *, lo: Any = 0, start: Any = 1, stop: Any = 2, steps: int = 6,
                  **kw: Any) -> RangeResult:
    """Bisection on a rational ``hi`` in ``[start, stop]``: ``prove_family(method, (lo, hi))`` for ``hi = stop``,
    then ``steps`` halvings between the largest ``hi`` proved and the smallest not proved (``start`` must be
    provable).  Each ``hi`` that fails says why (``reason`` of the smallest): a sampled counterexample (the bound
    is false there) or no certificate found."""
    lo_q, good, bad = _rat(lo, "lo"), _rat(start, "start"), _rat(stop, "stop")
    tries: list[tuple[Fraction, bool, float]] = []

    def attempt(hi: Fraction) -> tuple[FamilyCertificate | None, str]:
        t0 = time.perf_counter()
        try:
            c = prove_family(method, h=(lo_q, hi), **kw)
            tries.append((hi, True, time.perf_counter() - t0))
            return c, ""
        except FamilyNotProved as exc:
            tries.append((hi, False, time.perf_counter() - t0))
            return None, str(exc)

    cert, why = attempt(good)
    if cert is None:
        raise FamilyNotProved(f"largest_range: start = {good} is not proved: {why}")
    top, why_top = attempt(bad)
    if top is not None:
        return RangeResult(bad, top, None, "", tries)
    reason = why_top
    for _ in range(steps):
        mid = (good + bad) / 2
        c, why = attempt(mid)
        if c is not None:
            good, cert = mid, c
        else:
            bad, reason = mid, why
    return RangeResult(good, cert, bad, reason, tries)
