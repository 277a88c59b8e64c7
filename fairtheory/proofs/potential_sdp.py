r"""Float SDP search for ``"pep-potential"`` certificates, rationalised for the kernel (untrusted; docs/proofs.md 8.3).

At one value ``t`` of the normalised step the kernel's obligations (:func:`fairtheory_kernel.potential_kernel.obligations`)
are affine in the unknowns of the template

``phi_k = c_f(k) (f - f*) + c_xx(k) ||x - x*||^2 + c_xg(k) <x - x*, g> + c_gg(k) ||g||^2``  (``L = 1``, ``B0 = 1``),

each ``c`` a polynomial in ``k`` of degree ``<= kdeg``, and of the bound ``f(x_N) - f* <= rate^N / den_b(N)``
(``den_b`` of degree ``<= dden`` in ``N``).  The potential enters linearly (Taylor & Bach 2019, "Stochastic first-order
methods: non-asymptotic and computer-aided analyses via potential functions", sec. 3; the iteration-dependent
analyses of AutoLyap): the obligation ``E_o`` of each statement is built by the kernel itself for the unit statements
``c_term = k^m`` (all terms present, so every statement has the same points and rows), and combined linearly here.

The multipliers are polynomials in ``k`` too (``lambda_{o,r}(k) = sum_m lam_{o,r,m} k^m``) and every condition is
imposed **coefficient-wise in k**, as the kernel decides a range (docs 8.2): for every power ``m``, the function
values cancel, ``sum_r lam_{o,r,m} A_r - E_{o,G,m}`` is PSD (after an optional fixed diagonal scale of the final
obligation, the kernel's ``"scale"``), the constant is ``<= 0`` and ``lam >= 0``.  So one SDP at ``t`` covers every
``k >= 0`` - no sampling in ``k`` and no fit in ``k`` is needed.

Rationalisation: each coefficient of the optimal bound is fixed to a rational candidate (:func:`_candidates`: the
simplest near the float optimum, then simple ones below it; :func:`fairtheory.proofs.parametric._simplest`), then
the SDP is re-solved for the largest margin; while the margin is zero the PSD constraints' dual matrices name the
null vectors every solution shares, which are snapped to small rationals and imposed exactly (``S v = 0``; facial
reduction), and the SDP re-solved on the complement.  Linear rates (:func:`rate_certificate`): bisection on the
float SDP's feasibility, then rational rates upward from it.  The float solution is rounded and projected
exactly onto the affine constraints (:func:`fairtheory.proofs.parametric._rref_null`); the kernel decides.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import flint
import numpy as np

from fairtheory.proofs.parametric import _rref_null, _simplest
from fairtheory_kernel import potential_kernel as K

__all__ = ["Template", "SearchResult", "search_at", "rate_search", "rate_feasible", "rate_certificate", "lmi_value",
           "statement_json"]

TERMS = K.TERMS


@dataclass(frozen=True)
class Template:
    """The unknowns: potential ``terms`` with k-degree ``kdeg``; the bound's denominator of N-degree ``dden``; the
    one-step ``rate`` (``1``: a sublinear bound); ``measure`` of the final relation; ``scale``: the fixed diagonal
    scale ``s(k)`` (k-coefficients) of ``x - x*`` in the final obligation (``None``: none)."""

    t: Fraction
    mu: Fraction = Fraction(0)
    rate: Fraction = Fraction(1)
    measure: str = "value"
    terms: tuple[str, ...] = TERMS
    kdeg: int = 2
    dden: int = 1
    scale: tuple[Fraction, ...] | None = None
    scale_g: tuple[Fraction, ...] | None = None  #: the same for the gradient (basis index 1)


@dataclass
class SearchResult:
    """A candidate certificate (statement and evidence JSON), the float optimum, and what happened."""

    statement: dict[str, Any] | None
    evidence: dict[str, Any] | None
    value: float
    log: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------------------------------ statements
def _kpj(cs: list[Fraction]) -> list[list[str]]:
    """A k-polynomial with constant t-coefficients as JSON."""
    out = [[str(Fraction(c))] for c in cs]
    while len(out) > 1 and out[-1] == ["0"]:
        out.pop()
    return out or [["0"]]


def statement_json(tp: Template, terms: dict[str, list[Fraction]], den_b: list[Fraction], *,
                   b0: Fraction = Fraction(1), num_b: Fraction = Fraction(1)) -> dict[str, Any]:
    """The gd statement (JSON) at ``h = t`` with the given potential coefficients (k-polynomials, constants in t), the
    initial bound ``b0``, the bound ``rate^N num_b/den_b(N)``, the class ``mu`` and ``measure``."""
    from fairtheory.proofs.certificate import potential_statement

    st = potential_statement("gd", lo=tp.t, hi=tp.t, terms={k: _kpj(v) for k, v in terms.items()},
                             initial=([str(b0)], ["1"]), bound=(_kpj([num_b]), _kpj(den_b)))
    st["class"] = {"functions": "smooth-convex", "mu": str(tp.mu)}
    if tp.rate != 1:
        st["rate"] = str(tp.rate)
    if tp.measure != "value":
        st["measure"] = tp.measure
    return st


# ------------------------------------------------------------------------------------------------ affine algebra
# an affine expression in the unknowns z: {index: Fraction}, index -1 the constant
Aff = dict


def _add(a: Aff, b: Aff, c: Fraction = Fraction(1)) -> Aff:
    out = dict(a)
    for i, v in b.items():
        out[i] = out.get(i, Fraction(0)) + c * v
    return out


def _num(x: Any) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    return K._frac(x)


def _at_t(poly: Any, tq: Any) -> Fraction:
    """A row or obligation coefficient (an ``fmpq_poly`` in t or a rational) at ``t``."""
    return _num(poly(tq)) if isinstance(poly, flint.fmpq_poly) else _num(poly)


class _System:
    """The unknowns and the affine constraints of one template (module doc)."""

    def __init__(self, tp: Template) -> None:
        self.tp, self.names = tp, []
        tq = K._fq(tp.t)
        unit = {k: [Fraction(0)] for k in tp.terms}
        self.u = {}
        for name in tp.terms:
            for m in range(tp.kdeg + 1):
                self.u[(name, m)] = self._var(("u", name, m))
        self.d = [self._var(("den", m)) for m in range(tp.dden + 1)]
        # the obligations of unit statements, at t: E_o = sum_j z_j E_o^j + E_o^0
        parts: dict[str, list[tuple[Aff, Any]]] = {}
        rows: dict[str, Any] = {}

        def collect(st: dict[str, Any], coef: Aff, only: set[str]) -> None:
            for o, (ob, rws) in K.obligations(K.canonical(st)).items():
                if o not in only:
                    continue
                rows.setdefault(o, (ob.b.dim, rws))
                parts.setdefault(o, []).append((coef, ob))

        for (name, m), j in self.u.items():
            terms = dict(unit)
            terms[name] = [Fraction(0)] * m + [Fraction(1)]
            collect(statement_json(tp, terms, [Fraction(0)], b0=Fraction(0)), {j: Fraction(1)}, {"step", "initial", "final"})
        for m, j in enumerate(self.d):  # B0 den_b(k + 1) meas(x): potential all zero, den_b = N^m
            collect(statement_json(tp, unit, [Fraction(0)] * m + [Fraction(1)]), {j: Fraction(1)}, {"final"})
        self.dims = {o: rows[o][0] for o in rows}
        self.rows = {o: [({key: _at_t(v, tq) for key, v in G.items()}, {f: _num(v) for f, v in F.items()}, _num(c))
                         for G, F, c in rows[o][1]] for o in rows}
        # E_o as {"G": {(i, j): [Aff per k^m]}, "F": {f: [Aff]}, "c": [Aff]}
        self.E: dict[str, Any] = {}
        for o, lst in parts.items():
            E: dict[str, Any] = {"G": {}, "F": {}, "c": []}
            for coef, ob in lst:
                for key, kp in ob.G.items():
                    self._acc(E["G"].setdefault(key, []), kp, coef, tq)
                for f, kp in ob.F.items():
                    self._acc(E["F"].setdefault(f, []), kp, coef, tq)
                self._acc(E["c"], ob.c, coef, tq)
            self.E[o] = E
        self.E["initial"]["c"] = _pad(self.E["initial"]["c"], 1)
        self.E["initial"]["c"][0] = _add(self.E["initial"]["c"][0], {-1: Fraction(-1)})  # - B0, B0 = 1
        self.deg = {o: max([len(v) for part in ("G", "F") for v in self.E[o][part].values()] + [len(self.E[o]["c"])]) - 1
                    for o in self.E}
        self.lam = {(o, r, m): self._var(("lam", o, r, m)) for o in self.E for r in range(len(self.rows[o]))
                    for m in range(self.deg[o] + 1)}
        self._constraints()

    def _var(self, name: Any) -> int:
        self.names.append(name)
        return len(self.names) - 1

    @staticmethod
    def _acc(into: list[Aff], kp: Any, coef: Aff, tq: Any) -> None:
        for m, c in enumerate(kp):
            v = _at_t(c, tq)
            if v:
                while len(into) <= m:
                    into.append({})
                into[m] = _add(into[m], coef, v)

    def _constraints(self) -> None:
        """``eq`` (affine == 0), ``le`` (affine <= 0), ``psd`` blocks ``(o, m) -> {(i, j): Aff}``."""
        self.eq: list[Aff] = []
        self.le: list[Aff] = []
        self.psd: dict[tuple[str, int], dict[tuple[int, int], Aff]] = {}
        for o, E in self.E.items():
            rows, D = self.rows[o], self.deg[o]
            for m in range(D + 1):
                for f in {f for _, F, _ in rows for f in F} | set(E["F"]):
                    e = {self.lam[(o, r, m)]: F[f] for r, (_, F, _) in enumerate(rows) if F.get(f)}
                    ef = E["F"].get(f, [])
                    self.eq.append(_add(e, ef[m] if m < len(ef) else {}, Fraction(-1)))
                ec = E["c"][m] if m < len(E["c"]) else {}
                self.le.append(_add(ec, {self.lam[(o, r, m)]: c for r, (_, _, c) in enumerate(rows) if c}, Fraction(-1)))
            S: list[dict[tuple[int, int], Aff]] = []
            for m in range(D + 1):
                Sm: dict[tuple[int, int], Aff] = {}
                for r, (G, _, _) in enumerate(rows):
                    for (i, j), v in G.items():
                        key = (min(i, j), max(i, j))
                        Sm[key] = _add(Sm.get(key, {}), {self.lam[(o, r, m)]: v})  # upper-triangle entries
                for (i, j), lst in E["G"].items():
                    if m < len(lst):
                        key = (min(i, j), max(i, j))
                        Sm[key] = _add(Sm.get(key, {}), lst[m], Fraction(-1))
                S.append(Sm)
            if o == "final" and _scales(self.tp):
                S = _scaled(S, _scales(self.tp))
            for m, Sm in enumerate(S):
                self.psd[(o, m)] = Sm
        self.le += [{j: Fraction(-1)} for j in self.lam.values()]  # lam >= 0
        self.le += [{j: Fraction(-1)} for j in self.d]  # den_b coefficients >= 0

    def dim(self, o: str) -> int:
        return self.dims[o]


def _scales(tp: Template) -> dict[int, list[Fraction]]:
    """The final obligation's diagonal scale: basis index 0 (``x - x*``) and 1 (the gradient)."""
    return {i: list(v) for i, v in ((0, tp.scale), (1, tp.scale_g)) if v is not None}


def _pad(lst: list[Aff], n: int) -> list[Aff]:
    return lst + [{} for _ in range(n - len(lst))]


def _scaled(S: list[dict[tuple[int, int], Aff]], scale: dict[int, list[Fraction]]) -> list[dict[tuple[int, int], Aff]]:
    """``D S D`` coefficient lists, ``D = diag(s_i(k))`` (1 where not given)."""
    one = [Fraction(1)]
    out: list[dict[tuple[int, int], Aff]] = []
    for m, Sm in enumerate(S):
        for (i, j), a in Sm.items():
            si, sj = scale.get(i, one), scale.get(j, one)
            w = [sum((si[p] * sj[q - p] for p in range(len(si)) if 0 <= q - p < len(sj)), Fraction(0))
                 for q in range(len(si) + len(sj) - 1)]
            for q, c in enumerate(w):
                if c:
                    while len(out) <= m + q:
                        out.append({})
                    out[m + q][(i, j)] = _add(out[m + q].get((i, j), {}), a, c)
    return out


# ------------------------------------------------------------------------------------------------ float solve
def _vec(a: Aff, n: int) -> tuple[np.ndarray, float]:
    v = np.zeros(n)
    for i, c in a.items():
        if i >= 0:
            v[i] = float(c)
    return v, float(a.get(-1, 0))


def _mat(rows: list[Aff], n: int) -> tuple[np.ndarray, np.ndarray]:
    A = np.zeros((len(rows), n))
    b = np.zeros(len(rows))
    for r, a in enumerate(rows):
        A[r], b[r] = _vec(a, n)
    return A, b


def _solve(sy: _System, objective: Aff, *, extra_eq: list[Aff] = (), margin: dict[tuple[str, int], np.ndarray] | None = None,
           ) -> tuple[str, float, np.ndarray | None, float]:
    """Maximise ``objective`` (or, with ``margin``, the margin ``eps`` of every PSD block on the complement of its
    given null-space projector), subject to the system.  Returns ``(status, value, z, eps)``; with ``margin`` the
    PSD constraints' dual matrices are left in ``sy.duals`` (facial reduction)."""
    import cvxpy as cp

    n = len(sy.names)
    # variables of k^m scaled by t^m (a polynomial in t k is well scaled; coefficient-wise PSD is invariant under it)
    Dv = np.array([float(sy.tp.t) ** nm[-1] if nm[0] in ("u", "lam", "den") and sy.tp.t > 0 else 1.0
                   for nm in sy.names])
    zs = cp.Variable(n)
    z = cp.multiply(Dv, zs)
    cons = []
    A, b = _mat(sy.eq + list(extra_eq), n)
    if len(b):
        cons.append(A @ z + b == 0)
    A, b = _mat(sy.le, n)
    cons.append(A @ z + b <= 0)
    eps = cp.Variable() if margin is not None else None
    blocks = []
    for (o, m), Sm in sy.psd.items():
        d = sy.dim(o)
        if not Sm:
            continue
        entries = [(i, j) for i in range(d) for j in range(i, d)]
        A = np.zeros((len(entries), n))
        b = np.zeros(len(entries))
        for e, key in enumerate(entries):
            if key in Sm:
                A[e], b[e] = _vec(Sm[key], n)
        flat = A @ z + b
        M = cp.bmat([[flat[entries.index((min(i, j), max(i, j)))] for j in range(d)] for i in range(d)])
        if margin is not None:
            P = margin.get((o, m), np.zeros((d, d)))
            cons.append(M - eps * (np.eye(d) - P) >> 0)
            blocks.append(((o, m), cons[-1]))
        else:
            cons.append(M >> 0)
    cons.append(cp.abs(zs) <= 1e4)
    if margin is not None:
        cons.append(eps <= 1)
        goal = eps
    else:
        v, c0 = _vec(objective, n)
        goal = v @ z + c0
    prob = cp.Problem(cp.Maximize(goal), cons)
    try:
        with warnings.catch_warnings():  # "solution may be inaccurate": a float proposal, the kernel decides
            warnings.simplefilter("ignore")
            prob.solve(solver="CLARABEL")
    except Exception as exc:  # noqa: BLE001 - a float solve; any failure is "not found"
        return f"solver error {type(exc).__name__}", -math.inf, None, 0.0
    if prob.status not in ("optimal", "optimal_inaccurate") or zs.value is None:
        return str(prob.status), -math.inf, None, 0.0
    sy.duals = {key: np.array(c.dual_value) for key, c in blocks if c.dual_value is not None}
    return prob.status, float(prob.value), Dv * np.array(zs.value), float(eps.value) if eps is not None else 0.0


# ------------------------------------------------------------------------------------------------ rationalise
def _aff_val(a: Aff, z: np.ndarray) -> float:
    return sum(float(c) * (z[i] if i >= 0 else 1.0) for i, c in a.items())


def _aff_exact(a: Aff, zq: list[Fraction]) -> Fraction:
    return sum((c * (zq[i] if i >= 0 else 1) for i, c in a.items()), Fraction(0))


def _rational_basis(N: np.ndarray, tol: float = 2e-3) -> list[list[Fraction]]:
    """A rational basis (reduced echelon, each entry the simplest rational within ``tol``) of the column space of
    ``N``."""
    import scipy.linalg as sl

    r = np.linalg.matrix_rank(N, tol=1e-6)
    if r == 0:
        return []
    U, _, _ = np.linalg.svd(N, full_matrices=False)
    N = U[:, :r]
    _, _, piv = sl.qr(N.T, pivoting=True)
    piv = sorted(piv[:r])
    B = N @ np.linalg.inv(N[piv, :])
    def snap(x: float) -> Fraction:  # the simplest rational within tol (dual directions are noisy)
        if abs(x) < tol:
            return Fraction(0)
        w = tol * max(1.0, abs(x))
        return _simplest(Fraction(x - w).limit_denominator(10 ** 9), Fraction(x + w).limit_denominator(10 ** 9))

    return [[snap(float(x)) for x in B[:, c]] for c in range(r)]


def _residual(M: np.ndarray, v: list[Fraction]) -> float:
    """``||M v|| / (||M|| ||v||)``: how nearly ``v`` is a null vector of ``M``."""
    x = np.array([float(c) for c in v])
    return float(np.linalg.norm(M @ x) / max(np.linalg.norm(M) * np.linalg.norm(x), 1e-300))


def _psd_matrix(Sm: dict[tuple[int, int], Aff], d: int, z: np.ndarray) -> np.ndarray:
    M = np.zeros((d, d))
    for (i, j), a in Sm.items():
        M[i, j] = M[j, i] = _aff_val(a, z)
    return M


def _exact_point(sy: _System, eqs: list[Aff], z: np.ndarray, max_den: int) -> list[Fraction] | None:
    """Round ``z`` and project it exactly onto ``{eqs = 0}``: the particular solution plus the null-space combination
    nearest to ``z`` (least squares in floats, rounded): every equation holds exactly."""
    n = len(sy.names)
    if not eqs:
        return [Fraction(float(x)).limit_denominator(max_den) for x in z]
    M = flint.fmpq_mat(len(eqs), n)
    rhs = []
    for r, a in enumerate(eqs):
        for i, c in a.items():
            if i >= 0:
                M[r, i] = flint.fmpq(c.numerator, c.denominator)
        c0 = -a.get(-1, Fraction(0))
        rhs.append(flint.fmpq(c0.numerator, c0.denominator))
    sol = _rref_null(M, rhs)
    if sol is None:
        return None
    part, basis = sol
    if not basis:
        return part
    B = np.array([[float(x) for x in v] for v in basis]).T
    p = np.array([float(x) for x in part])
    c, *_ = np.linalg.lstsq(B, z - p, rcond=None)
    cq = [Fraction(float(x)).limit_denominator(max_den) for x in c]
    return [part[i] + sum((cq[j] * basis[j][i] for j in range(len(basis))), Fraction(0)) for i in range(n)]


def _evidence(sy: _System, zq: list[Fraction]) -> dict[str, Any]:
    ev: dict[str, Any] = {}
    for o in sy.E:
        mult = []
        for r in range(len(sy.rows[o])):
            cs = [zq[sy.lam[(o, r, m)]] for m in range(sy.deg[o] + 1)]
            if any(cs):
                mult.append([r, _kpj(cs)])
        ev[o] = {"denominator": ["1"], "multipliers": mult}
        if o == "final" and _scales(sy.tp):
            ev[o]["scale"] = [[i, _kpj(v)] for i, v in _scales(sy.tp).items()]
    return ev


def _certificate(sy: _System, zq: list[Fraction]) -> tuple[dict[str, Any], dict[str, Any]]:
    tp = sy.tp
    terms = {name: [zq[sy.u[(name, m)]] for m in range(tp.kdeg + 1)] for name in tp.terms}
    st = statement_json(tp, terms, [zq[j] for j in sy.d])
    return st, _evidence(sy, zq)


def _objective(sy: _System, weights: list[float]) -> Aff:
    return {j: Fraction(w) for j, w in zip(sy.d, weights, strict=True)}


def lmi_value(tp: Template) -> tuple[float, list[float]]:
    """The float optimum of the template: the largest ``den_b`` coefficients, lexicographically from the highest power
    (``-inf`` when infeasible), and the optimal coefficients."""
    sy = _System(tp)
    fixed: list[Aff] = []
    vals = []
    for m in reversed(range(tp.dden + 1)):
        status, v, z, _ = _solve(sy, {sy.d[m]: Fraction(1)}, extra_eq=fixed)
        if z is None:
            return -math.inf, []
        vals.append(v)
        fixed.append({sy.d[m]: Fraction(1), -1: -Fraction(v).limit_denominator(10 ** 9)})
    return vals[0], list(reversed(vals))


def _candidates(v: float, near: tuple[float, ...] = (1e-2, 1e-4), below: tuple[float, ...] = (1e-3, 1e-2, 5e-2)
                ) -> list[Fraction]:
    """Rationals for a float optimum ``v``: the simplest within ``tol`` of it (``near``; the float optimum may lie a
    little above or below the exact one), then the simplest strictly below it (``below``: room for a margin)."""
    if v <= 1e-12:
        return [Fraction(0)]

    def pick(tols: tuple[float, ...], lo_: float, hi_: float) -> list[Fraction]:
        out = [_simplest(Fraction(v + lo_ * tol * abs(v)).limit_denominator(10 ** 12),
                         Fraction(v + hi_ * tol * abs(v)).limit_denominator(10 ** 12)) for tol in tols]
        return [q for q in out if q > 0]

    near = list(dict.fromkeys(pick(near, -1.0, 1.0)))  # the simplest near the optimum first
    low = sorted(set(pick(below, -1.0, -0.1)) - set(near), reverse=True)  # then the largest below the optimum
    return near + low


def search_at(tp: Template, *, check: Any = None, max_attempts: int = 12) -> SearchResult:
    """Find, rationalise and check (``check(cert_json) -> (ok, why)``, default the kernel's ``explain_potential``) a
    certificate for the template: ``den_b``'s coefficients are maximised from the highest power down, each fixed to a
    rational candidate (:func:`_candidates`) before the next; the first certificate the kernel accepts is returned
    (at most ``max_attempts`` rationalisations)."""
    check = check or K.explain_potential
    log: list[str] = []
    try:
        sy = _System(tp)
    except Exception as exc:  # noqa: BLE001 - a statement the kernel refuses to build
        return SearchResult(None, None, -math.inf, [f"template not built: {type(exc).__name__}: {exc}"])
    status, best, z, _ = _solve(sy, {sy.d[tp.dden]: Fraction(1)})
    if z is None:
        return SearchResult(None, None, -math.inf, [f"float SDP {status}: the template has no potential at this step"])
    attempts = [0]

    def level(m: int, fixed: list[Aff], v: float) -> tuple[dict[str, Any], dict[str, Any]] | None:
        cands = _candidates(v)
        for q in cands:
            if attempts[0] >= max_attempts:
                return None
            fx = fixed + [{sy.d[m]: Fraction(1), -1: -q}]
            if m == 0:
                attempts[0] += 1
                res = _rationalise(sy, fx, log, check)
                if res is not None:
                    return res
                continue
            status, w, z, _ = _solve(sy, {sy.d[m - 1]: Fraction(1)}, extra_eq=fx)
            if z is None:
                log.append(f"den_b[{m}] = {q}: float SDP {status}")
                continue
            res = level(m - 1, fx, w)
            if res is not None:
                return res
        return None

    res = level(tp.dden, [], best)
    if res is None:
        return SearchResult(None, None, best, log)
    return SearchResult(res[0], res[1], best, log)


def _rationalise(sy: _System, fixed: list[Aff], log: list[str], check: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """Facial reduction, rounding, exact projection, kernel check (module doc)."""
    extra = list(fixed)
    margin: dict[tuple[str, int], np.ndarray] = {}
    z = None
    for _ in range(4):
        status, _, z, eps = _solve(sy, {}, extra_eq=extra, margin=margin)
        if z is None:
            log.append(f"margin SDP {status}")
            return None
        if eps > 1e-7:
            break
        # zero margin: the dual matrices Y_b of the PSD blocks (sum_b <Y_b, S_b> = 0 on the whole feasible set) name
        # null vectors every solution shares; impose them exactly (S_b v = 0) and measure the margin on the rest
        grew = False
        top = max((float(np.max(np.abs(Y))) for Y in sy.duals.values()), default=0.0)
        for key, Y in sy.duals.items():
            if top <= 0 or float(np.max(np.abs(Y))) < 1e-5 * top:
                continue
            d = sy.dim(key[0])
            Sm = sy.psd[key]
            old = margin.get(key, np.zeros((d, d)))
            w, V = np.linalg.eigh((Y + Y.T) / 2)
            R = V[:, w > 1e-3 * max(float(np.max(w)), 1e-300)]
            R = R - old @ R  # new directions only
            if R.shape[1] == 0 or float(np.max(np.abs(R))) < 1e-6:
                continue
            M = _psd_matrix(Sm, d, z)
            null = []
            for tol in (1e-1, 3e-2, 1e-2, 2e-3):  # the simplest snapping that the primal point annihilates
                cand = _rational_basis(R, tol)
                if cand and all(_residual(M, v) < 1e-3 for v in cand):
                    null = cand
                    break
            null = null or _rational_basis(R, 2e-3)  # none annihilated: the finest snapping, the kernel decides
            allv = [v for v in null]
            if np.trace(old) > 0.5:
                Wo, Vo = np.linalg.eigh(old)
                allv += _rational_basis(Vo[:, Wo > 0.5])
            Vm = np.array([[float(x) for x in v] for v in allv]).T
            margin[key] = Vm @ np.linalg.pinv(Vm)
            for v in null:
                for i in range(d):
                    extra.append(_row_times(Sm, i, v, d))
            log.append(f"margin {eps:.2g}: block {key} null {[[str(x) for x in v] for v in null]}")
            grew = True
        if not grew:
            log.append(f"margin {eps:.3g} and no dual direction to reduce")
            break
    # multipliers that vanish numerically are set to zero exactly
    # inequalities tight at the float point (a vanishing multiplier, lambda_dist = B0, ...) hold with equality exactly
    tight = [a for a in sy.le if abs(_aff_val(a, z)) < 1e-7]
    for max_den in (10 ** 4, 10 ** 6):
        for _ in range(6):  # inequalities the rounding pushed past zero: make them equalities, project again
            zq = _exact_point(sy, sy.eq + extra + tight, z, max_den)
            if zq is None:
                log.append("the exact equations are inconsistent (a null vector was snapped wrongly)")
                return None
            bad = [a for a in sy.le if _aff_exact(a, zq) > 0]
            if not bad:
                break
            tight += bad
        st, ev = _certificate(sy, zq)
        ok, why = check({"kind": "pep-potential", "version": 1, "statement": st, "evidence": ev})
        if ok:
            return st, ev
        log.append(f"denominators {max_den}: kernel refused: {why}")
    return None


def _row_times(Sm: dict[tuple[int, int], Aff], i: int, v: list[Fraction], d: int) -> Aff:
    """Row ``i`` of ``S v`` as an affine expression."""
    out: Aff = {}
    for j in range(d):
        if v[j]:
            a = Sm.get((min(i, j), max(i, j)))
            if a:
                out = _add(out, a, v[j])
    return out


# ------------------------------------------------------------------------------------------------ linear rates
def rate_feasible(tp: Template, *, ref: float | None = None) -> tuple[bool, float]:
    """Whether the template at ``tp.rate`` has a potential (float SDP): the largest ``den_b(0)`` is positive - above
    ``ref / 10`` (``ref`` its value at rate 1: near the threshold the optimum jumps from the solver's noise on the zero
    solution to a constant, so this locates the threshold to the solver's accuracy)."""
    sy = _System(tp)
    status, v, z, _ = _solve(sy, {sy.d[0]: Fraction(1)})
    return (z is not None and v > (1e-1 * ref if ref else 1e-7)), v


def rate_search(tp: Template, *, iters: int = 20, lo: float = 0.0, hi: float = 1.0) -> tuple[float, list[str]]:
    """The smallest one-step rate in ``[lo, hi]`` at which the template is feasible (bisection on the float SDP's
    feasibility, ``iters`` halvings; ``nan`` when ``hi`` itself is infeasible)."""
    from dataclasses import replace

    log = []
    ok, ref = rate_feasible(replace(tp, rate=Fraction(hi).limit_denominator(10 ** 12)))
    if not ok:
        return math.nan, [f"rate {hi} infeasible (largest den_b {ref:.3g})"]
    for _ in range(iters):
        mid = (lo + hi) / 2
        if mid <= 0:
            break
        ok, _ = rate_feasible(replace(tp, rate=Fraction(mid).limit_denominator(10 ** 12)), ref=ref)
        lo, hi = (lo, mid) if ok else (mid, hi)
    log.append(f"bisection: rate in [{lo:.10f}, {hi:.10f}]")
    return hi, log


def _den0(st: dict[str, Any]) -> Fraction:
    return Fraction(st["bound"]["den"][0][0])


def rate_certificate(t: Fraction, mu: Fraction, measure: str = "value", rate: Fraction | None = None,
                     first: tuple[Fraction, ...] = ()) -> tuple[SearchResult, float]:
    """A linear-rate certificate of gd at step ``t`` on ``mu``-strongly convex functions (``L = 1``): the potential is
    constant in ``k`` (``kdeg = 0``) and the bound ``rate^N / den_b``.  Without ``rate``, the smallest float-feasible
    rate (:func:`rate_search`) is rationalised upward - the simplest rational within ``1e-7 .. 1e-2`` above it - and
    each candidate is searched and checked in turn (the first the kernel accepts).  Returns the result and the float
    rate."""
    tp = Template(t=t, mu=mu, measure=measure, kdeg=0, dden=0)
    if rate is not None:
        from dataclasses import replace

        res = search_at(replace(tp, rate=rate, terms=("xx",)), max_attempts=3)
        return (res if res.statement is not None else search_at(replace(tp, rate=rate), max_attempts=6)), float(rate)
    rho, log = rate_search(tp)
    if math.isnan(rho):
        return SearchResult(None, None, -math.inf, log), rho
    from dataclasses import replace

    tried: list[Fraction] = []
    cands = [q for q in first if abs(float(q) - rho) <= 1e-3]  # e.g. a known lower bound: if it checks, it is tight
    for tol in (1e-7, 1e-6, 1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 1e-2):
        cands.append(_simplest(Fraction(rho).limit_denominator(10 ** 12),
                               Fraction(min(1.0, rho + tol)).limit_denominator(10 ** 12)))
    for q in cands:
        if q in tried or not 0 < q <= 1:
            continue
        tried.append(q)
        res = search_at(replace(tp, rate=q, terms=("xx",)), max_attempts=2)  # ||x - x*||^2 alone first
        if res.statement is None:
            res = search_at(replace(tp, rate=q), max_attempts=3)
        log += [f"rate {q}: {x}" for x in res.log]
        if res.statement is not None:
            res.log = log
            return res, rho
    return SearchResult(None, None, rho, log + [f"no rational rate in {[str(x) for x in tried]} checked"]), rho
